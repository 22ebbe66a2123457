//! Bench: a fixed-depth search of every position in `bench-positions/`, a fresh hash table and
//! fresh histories per position. With one thread the node total is a signature of the search:
//! any functional change changes it. With several (Lazy SMP) the count varies from run to run
//! and the bench measures time to depth instead. The last line is `N nodes M nps`. A raised
//! stop flag (the UCI `stop`) ends it early, with an `info string` instead of the summary.

use std::io::Write;
use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::time::Instant;

use shakmaty::CastlingMode;

use crate::position::Position;
use crate::search::{Limits, SharedFlags, Silent};
use crate::threads::ThreadPool;
use crate::time::TimeManager;
use crate::tt::TranspositionTable;

/// Depth searched by `bench` when none is given.
pub const DEFAULT_DEPTH: i32 = 12;
/// Hash size used for every bench position, in MB.
pub const BENCH_HASH_MB: usize = 16;

/// The bench positions, compiled into the binary so `scout bench` works from any directory.
pub const POSITIONS: &str = include_str!("../../bench-positions/bench.fen");

/// Runs the bench at `depth` with one thread, writing one line per position and the summary.
/// Returns the total node count and the speed in nodes per second.
pub fn run(depth: i32, out: &mut dyn Write) -> (u64, u64) {
    let flags = Arc::new(SharedFlags::default());
    run_threads(depth, 1, crate::nnue::default_network(), flags, out)
        .expect("nothing raises this stop flag")
}

/// The bench with `threads` search threads per position, evaluating with `net`; `None` when
/// `flags.stop` was raised before the end.
pub fn run_threads(
    depth: i32,
    threads: usize,
    net: Arc<crate::nnue::Network>,
    flags: Arc<SharedFlags>,
    out: &mut dyn Write,
) -> Option<(u64, u64)> {
    let start = Instant::now();
    let mut total = 0u64;
    let fens: Vec<&str> = POSITIONS
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .collect();
    for (i, fen) in fens.iter().enumerate() {
        let Ok(pos) = Position::from_fen(fen, CastlingMode::Standard) else {
            let _ = writeln!(
                out,
                "info string bench position {} is invalid: {fen}",
                i + 1
            );
            continue;
        };
        let tt = Arc::new(TranspositionTable::new(BENCH_HASH_MB));
        let mut pool = ThreadPool::new(tt, flags.clone());
        pool.set_threads(threads);
        pool.set_network(net.clone());
        let limits = Limits {
            depth: Some(depth),
            ..Limits::default()
        };
        let result = pool.search(&pos, &[], limits, TimeManager::infinite(), &mut Silent);
        if flags.stop.load(Ordering::SeqCst) {
            let _ = writeln!(out, "info string bench stopped at position {}", i + 1);
            let _ = out.flush();
            return None;
        }
        total += result.nodes;
        let best = result.best.map_or("0000".to_string(), |m| {
            shakmaty::uci::UciMove::from_move(m, CastlingMode::Standard).to_string()
        });
        let _ = writeln!(
            out,
            "position {:>2}/{}: {:>10} nodes  score {:>6}  best {best}",
            i + 1,
            fens.len(),
            result.nodes,
            result.score
        );
    }
    let elapsed = start.elapsed().as_secs_f64().max(1e-9);
    let nps = (total as f64 / elapsed) as u64;
    let _ = writeln!(
        out,
        "depth {depth}, {threads} thread{}, {:.0} ms",
        if threads == 1 { "" } else { "s" },
        elapsed * 1000.0
    );
    let _ = writeln!(out, "{total} nodes {nps} nps");
    let _ = out.flush();
    Some((total, nps))
}
