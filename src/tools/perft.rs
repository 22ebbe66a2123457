//! Perft: counts the leaves of the legal move tree, the standard move-generation test.
//! `divide` prints the count below each root move, as `e2e4: 9771632`, and stops early when
//! its stop flag is raised (the UCI `stop`, so that `isready` is answered at once).

use std::io::Write;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Instant;

use shakmaty::uci::UciMove;
use shakmaty::{CastlingMode, Chess, Position};

/// Number of leaf nodes `depth` plies below `pos` (bulk-counted at the last ply).
pub fn perft(pos: &Chess, depth: u32) -> u64 {
    perft_until(pos, depth, &AtomicBool::new(false))
}

/// `perft`, abandoned (with a partial count) once `stop` is raised.
fn perft_until(pos: &Chess, depth: u32, stop: &AtomicBool) -> u64 {
    if depth == 0 {
        return 1;
    }
    let moves = pos.legal_moves();
    if depth == 1 {
        return moves.len() as u64;
    }
    let mut total = 0;
    for m in &moves {
        if stop.load(Ordering::Relaxed) {
            break;
        }
        let mut child = pos.clone();
        child.play_unchecked(*m);
        total += perft_until(&child, depth - 1, stop);
    }
    total
}

/// Prints one line per root move with its subtree count, then the total, the time and the
/// speed; the last line is `N nodes M nps`. Returns the total, or `None` when `stop` was
/// raised before the count was complete (then the last line is an `info string` saying so).
pub fn divide(
    pos: &Chess,
    depth: u32,
    mode: CastlingMode,
    stop: &AtomicBool,
    out: &mut dyn Write,
) -> Option<u64> {
    let start = Instant::now();
    let mut total = 0;
    if depth == 0 {
        total = 1;
    } else {
        for m in pos.legal_moves() {
            let mut child = pos.clone();
            child.play_unchecked(m);
            let n = perft_until(&child, depth - 1, stop);
            if stop.load(Ordering::Relaxed) {
                let _ = writeln!(out, "info string perft stopped: the counts are incomplete");
                let _ = out.flush();
                return None;
            }
            total += n;
            let _ = writeln!(out, "{}: {}", UciMove::from_move(m, mode), n);
        }
    }
    let elapsed = start.elapsed();
    let nps = (total as f64 / elapsed.as_secs_f64().max(1e-9)) as u64;
    let _ = writeln!(out);
    let _ = writeln!(out, "Nodes searched: {total}");
    let _ = writeln!(out, "Time: {} ms", elapsed.as_millis());
    let _ = writeln!(out, "{total} nodes {nps} nps");
    let _ = out.flush();
    Some(total)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn start_position_small_depths() {
        let pos = Chess::default();
        assert_eq!(perft(&pos, 1), 20);
        assert_eq!(perft(&pos, 3), 8902);
        assert_eq!(perft(&pos, 4), 197_281);
    }

    #[test]
    fn divide_sums_and_ends_with_nodes_line() {
        let mut buf = Vec::new();
        let stop = AtomicBool::new(false);
        let total = divide(
            &Chess::default(),
            2,
            CastlingMode::Standard,
            &stop,
            &mut buf,
        );
        assert_eq!(total, Some(400));
        let text = String::from_utf8(buf).unwrap();
        assert!(text.contains("e2e4: 20"));
        let last = text.lines().last().unwrap();
        assert!(last.starts_with("400 nodes ") && last.ends_with(" nps"));
        assert_eq!(text.lines().filter(|l| l.contains(": 20")).count(), 20);
    }

    /// A raised stop flag abandons the count and says so instead of printing a total.
    #[test]
    fn a_stopped_divide_reports_no_total() {
        let mut buf = Vec::new();
        let stop = AtomicBool::new(true);
        let total = divide(
            &Chess::default(),
            9,
            CastlingMode::Standard,
            &stop,
            &mut buf,
        );
        assert_eq!(total, None);
        let text = String::from_utf8(buf).unwrap();
        assert_eq!(
            text.trim(),
            "info string perft stopped: the counts are incomplete"
        );
    }
}
