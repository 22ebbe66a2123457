//! The search worker: one thread for the whole process that owns the thread pool (and so the
//! searchers, their histories and their network) and runs the controller's jobs one at a
//! time: searches, perft, bench and genfens, and changes to the pool (table, threads,
//! network). After each job it tells the controller it is idle again. A search always ends
//! with a `bestmove`: at a limited strength the move of the line the level chose, and after a
//! panic in the search a legal move (and a fresh pool).

use std::sync::Arc;
use std::thread;

use crossbeam_channel::{Receiver, Sender, unbounded};
use shakmaty::{CastlingMode, Position as _};

use super::output::emit;
use super::reporter::UciReporter;
use crate::nnue::Network;
use crate::position::Position;
use crate::search::{Limits, SharedFlags};
use crate::strength::{self, Level};
use crate::tablebase::{ProbeSettings, Tablebases};
use crate::threads::ThreadPool;
use crate::time::TimeManager;
use crate::tt::TranspositionTable;
use crate::uci;

/// A search for the search thread: the position and everything the search needs with it.
pub(super) struct SearchJob {
    pub(super) root: Position,
    pub(super) history: Vec<u64>,
    pub(super) limits: Limits,
    pub(super) time: TimeManager,
    pub(super) tt: Arc<TranspositionTable>,
    pub(super) tablebases: Option<Arc<Tablebases>>,
    pub(super) tb_settings: ProbeSettings,
    pub(super) mode: CastlingMode,
    /// Show `wdl` in `info` (UCI_ShowWDL).
    pub(super) show_wdl: bool,
    /// The level to play at (`None`: full strength).
    pub(super) strength: Option<Level>,
}

/// Work for the search thread.
pub(super) enum Job {
    Search(Box<SearchJob>),
    Perft {
        root: Position,
        depth: u32,
        mode: CastlingMode,
    },
    Bench(i32),
    Genfens(Box<crate::tools::genfens::Request>),
    NewGame,
    /// Replace the worker's table (before a resize, so the old one is freed first).
    SetTt(Arc<TranspositionTable>),
    /// Search with this many threads from now on.
    SetThreads(usize),
    /// Evaluate with this network from now on.
    SetNetwork(Arc<Network>),
    /// The searches to come are at a level (`true`) or at full strength: bring this table
    /// and the correction histories to their units now.
    Units {
        tt: Arc<TranspositionTable>,
        level: bool,
    },
}

/// Starts the search thread. Jobs are sent on the first channel; the second receives one
/// message after each job, and ends if the thread is gone.
pub(super) fn spawn(flags: Arc<SharedFlags>) -> (Sender<Job>, Receiver<()>) {
    let (jobs_tx, jobs_rx) = unbounded();
    let (done_tx, done_rx) = unbounded();
    thread::Builder::new()
        .name("search".into())
        .stack_size(64 * 1024 * 1024)
        .spawn(move || worker(jobs_rx, done_tx, flags))
        .expect("cannot start the search thread");
    (jobs_tx, done_rx)
}

/// The search thread's loop: runs jobs until the controller is gone.
fn worker(jobs: Receiver<Job>, done: Sender<()>, flags: Arc<SharedFlags>) {
    let mut pool = ThreadPool::new(Arc::new(TranspositionTable::new(1)), flags.clone());
    for job in jobs {
        match job {
            Job::Search(job) => {
                let SearchJob {
                    root,
                    history,
                    limits,
                    time,
                    tt,
                    tablebases,
                    tb_settings,
                    mode,
                    show_wdl,
                    strength,
                } = *job;
                pool.set_tt(tt);
                pool.set_tablebases(tablebases, tb_settings);
                let choosing = strength.is_some_and(|level| level.lines > 1);
                let wdl_root = show_wdl.then(|| root.chess().board().clone());
                let mut reporter = UciReporter::new(mode, wdl_root, choosing);
                // A panic in the search must still produce a legal answer, not a time loss.
                let outcome = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                    if strength.is_some() {
                        pool.search_at_level(&root, &history, limits, time, &mut reporter)
                    } else {
                        pool.search(&root, &history, limits, time, &mut reporter)
                    }
                }));
                match outcome {
                    Ok(result) => {
                        // A level with several lines plays one of the lines the GUI was shown
                        // (the last completed iteration): a move that led only an unfinished
                        // iteration was never compared with the others by score.
                        let chosen = strength
                            .filter(|level| level.lines > 1)
                            .map(|level| strength::choose(&result.lines, &level, &mut rand::rng()));
                        let line = chosen.and_then(|i| result.lines.get(i).map(|l| (i, l)));
                        let (best, ponder) = match line {
                            Some((index, line)) => {
                                reporter.show_played(result.depth, index);
                                (Some(line.mv), line.pv.get(1).copied())
                            }
                            None => (result.best, result.ponder),
                        };
                        emit(&uci::bestmove(best, ponder, mode))
                    }
                    Err(_) => {
                        emit(&uci::info_string(
                            "internal error in the search; playing a legal move",
                        ));
                        let any = root.chess().legal_moves().first().copied();
                        emit(&uci::bestmove(any, None, mode));
                        let threads = pool.threads();
                        let net = pool.main().network().clone();
                        pool = ThreadPool::new(Arc::new(TranspositionTable::new(1)), flags.clone());
                        pool.set_threads(threads);
                        pool.set_network(net);
                    }
                }
            }
            Job::Perft { root, depth, mode } => {
                let stdout = std::io::stdout();
                let out = &mut stdout.lock();
                crate::tools::perft::divide(root.chess(), depth, mode, &flags.stop, out);
            }
            Job::Bench(depth) => {
                let stdout = std::io::stdout();
                // With the net the engine plays with (`EvalFile` included).
                let net = pool.main().network().clone();
                let out = &mut stdout.lock();
                crate::tools::bench::run_threads(depth, 1, net, flags.clone(), out);
            }
            Job::Genfens(request) => {
                let net = pool.main().network().clone();
                let mut print = |line: &str| emit(line);
                let made = crate::tools::genfens::run(&request, net, flags.clone(), &mut print);
                if let Err(e) = made {
                    emit(&uci::info_string(&format!("error: genfens: {e}")));
                }
            }
            Job::NewGame => pool.new_game(),
            Job::SetTt(tt) => pool.set_tt(tt),
            Job::SetThreads(n) => pool.set_threads(n),
            Job::SetNetwork(net) => pool.set_network(net),
            Job::Units { tt, level } => {
                pool.set_tt(tt);
                pool.prepare_units(level);
            }
        }
        if done.send(()).is_err() {
            break;
        }
    }
}
