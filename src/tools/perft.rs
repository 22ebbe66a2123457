//! Perft: counts the leaves of the legal move tree, the standard move-generation test.
//! `divide` prints the count below each root move, as `e2e4: 9771632`.

use std::io::Write;
use std::time::Instant;

use shakmaty::uci::UciMove;
use shakmaty::{CastlingMode, Chess, Position};

/// Number of leaf nodes `depth` plies below `pos` (bulk-counted at the last ply).
pub fn perft(pos: &Chess, depth: u32) -> u64 {
    if depth == 0 {
        return 1;
    }
    let moves = pos.legal_moves();
    if depth == 1 {
        return moves.len() as u64;
    }
    moves
        .iter()
        .map(|m| {
            let mut child = pos.clone();
            child.play_unchecked(*m);
            perft(&child, depth - 1)
        })
        .sum()
}

/// Prints one line per root move with its subtree count, then the total, the time and the
/// speed; the last line is `N nodes M nps`. Returns the total.
pub fn divide(pos: &Chess, depth: u32, mode: CastlingMode, out: &mut dyn Write) -> u64 {
    let start = Instant::now();
    let mut total = 0;
    if depth == 0 {
        total = 1;
    } else {
        for m in pos.legal_moves() {
            let mut child = pos.clone();
            child.play_unchecked(m);
            let n = perft(&child, depth - 1);
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
    total
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
        let total = divide(&Chess::default(), 2, CastlingMode::Standard, &mut buf);
        assert_eq!(total, 400);
        let text = String::from_utf8(buf).unwrap();
        assert!(text.contains("e2e4: 20"));
        let last = text.lines().last().unwrap();
        assert!(last.starts_with("400 nodes ") && last.ends_with(" nps"));
        assert_eq!(text.lines().filter(|l| l.contains(": 20")).count(), 20);
    }
}
