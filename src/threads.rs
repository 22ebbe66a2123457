//! The search threads: Lazy SMP.
//!
//! With `Threads` = n, one search runs n searchers at once on the same root, sharing only the
//! transposition table (lock-free, see `tt`) and the stop flags. The main thread (index 0)
//! does everything a lone search does: it keeps the clock, prints `info`, and its answer is
//! the answer. The helpers search silently and without limits; what they find reaches the
//! main thread through the table (cutoffs, better move ordering), which is the whole idea of
//! Lazy SMP: no work splitting, only a shared memory. Odd-numbered helpers skip the even
//! depths, so the threads do not all search the same tree at the same moment.
//! When the main thread is done it raises the group's `done` flag and the helpers return.
//!
//! The endgame tablebases are shared like the table: one `Arc` that every thread probes.
//!
//! Each searcher keeps its own histories and accumulators across searches; helpers are kept in
//! the pool between searches and replaced only when `Threads` changes.

use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::thread;

use crate::nnue::Network;
use crate::position::Position;
use crate::search::{
    Feature, Group, Limits, Reporter, SearchConfig, SearchResult, Searcher, SharedFlags, Silent,
};
use crate::tablebase::{ProbeSettings, Tablebases};
use crate::time::TimeManager;
use crate::tt::TranspositionTable;

/// Most search threads the `Threads` option allows (each helper owns a few MB of tables).
pub const MAX_THREADS: usize = 256;

/// Stack of a helper thread (the main search thread has its own, set by its creator).
const HELPER_STACK: usize = 16 * 1024 * 1024;

/// The main searcher and its helpers.
pub struct ThreadPool {
    main: Searcher,
    helpers: Vec<Searcher>,
    tt: Arc<TranspositionTable>,
    flags: Arc<SharedFlags>,
    tablebases: Option<Arc<Tablebases>>,
    tb_settings: ProbeSettings,
    /// Whether the threads' correction histories were written by a search that scaled its
    /// evaluations by material (`nnue/scale.rs`); `None` when none has written them since
    /// they were made or cleared. (The table keeps its own units: `TranspositionTable::hold_units`.)
    corrections_scaled: Option<bool>,
}

impl ThreadPool {
    /// A pool of one thread (the caller's own).
    pub fn new(tt: Arc<TranspositionTable>, flags: Arc<SharedFlags>) -> ThreadPool {
        ThreadPool {
            main: Searcher::new(tt.clone(), flags.clone()),
            helpers: Vec::new(),
            tt,
            flags,
            tablebases: None,
            tb_settings: ProbeSettings::default(),
            corrections_scaled: None,
        }
    }

    /// Number of search threads (main included).
    pub fn threads(&self) -> usize {
        1 + self.helpers.len()
    }

    /// Nodes searched by the helpers in the last search (0 with one thread).
    pub fn helper_nodes(&self) -> u64 {
        self.helpers.iter().map(Searcher::nodes).sum()
    }

    /// The main thread's searcher (its configuration is what tests and tools adjust).
    pub fn main(&mut self) -> &mut Searcher {
        &mut self.main
    }

    /// Sets the number of search threads (clamped to 1..=MAX_THREADS).
    pub fn set_threads(&mut self, n: usize) {
        let n = n.clamp(1, MAX_THREADS);
        self.helpers.truncate(n - 1);
        while self.helpers.len() < n - 1 {
            let mut helper = Searcher::new(self.tt.clone(), self.flags.clone());
            helper.set_network(self.main.network().clone());
            helper.set_tablebases(self.tablebases.clone(), self.tb_settings);
            self.helpers.push(helper);
        }
    }

    /// Every thread evaluates with `net` from now on.
    pub fn set_network(&mut self, net: Arc<Network>) {
        self.main.set_network(net.clone());
        for h in self.helpers.iter_mut() {
            h.set_network(net.clone());
        }
    }

    /// Every thread probes `tablebases` (`None`: no tables) as `settings` say, from now on.
    pub fn set_tablebases(&mut self, tablebases: Option<Arc<Tablebases>>, settings: ProbeSettings) {
        self.main.set_tablebases(tablebases.clone(), settings);
        for h in self.helpers.iter_mut() {
            h.set_tablebases(tablebases.clone(), settings);
        }
        self.tablebases = tablebases;
        self.tb_settings = settings;
    }

    /// Replaces the transposition table of every thread.
    pub fn set_tt(&mut self, tt: Arc<TranspositionTable>) {
        self.main.set_tt(tt.clone());
        for h in self.helpers.iter_mut() {
            h.set_tt(tt.clone());
        }
        self.tt = tt;
    }

    /// Brings the table and the correction histories to the units of a search at a level
    /// (`level`: unscaled) or at full strength (scaled unless the configuration turns the
    /// scaling off): written in the other units, they are cleared, since their scores would
    /// mislead it. Every search calls it first, and so does a switch of `UCI_LimitStrength` at
    /// `setoption`, so that a game that switches clears there, off the clock, and its next
    /// move's search finds them in its units already. (Analysis at a level, `go infinite`,
    /// searches at full strength and switches at its start.)
    pub fn prepare_units(&mut self, level: bool) {
        let scaled = !level && self.main.config().scales_material();
        self.tt.hold_units(scaled);
        if self.corrections_scaled == Some(!scaled) {
            self.main.forget_corrections();
            for h in self.helpers.iter_mut() {
                h.forget_corrections();
            }
        }
        self.corrections_scaled = Some(scaled);
    }

    /// Forgets what every thread learned in earlier games.
    pub fn new_game(&mut self) {
        self.main.new_game();
        for h in self.helpers.iter_mut() {
            h.new_game();
        }
        self.corrections_scaled = None;
    }

    /// Searches at a limited strength (`UCI_LimitStrength`): the main thread alone, whatever
    /// `Threads` says, so that a level's node budget means the same with any number of
    /// threads, and without the material scaling (`nnue/scale.rs`), since the levels' budgets,
    /// spreads and margins were calibrated on an unscaled search (README, *Playing at a human
    /// strength*). Full-strength searches afterwards scale as before; the table and the
    /// correction histories are cleared whenever the units change (see `prepare_units`).
    pub fn search_at_level(
        &mut self,
        root: &Position,
        history: &[u64],
        limits: Limits,
        time: TimeManager,
        reporter: &mut dyn Reporter,
    ) -> SearchResult {
        self.prepare_units(true);
        let mut unscaled = self.main.config();
        unscaled.disable(Feature::MaterialScale);
        let main = WithConfig::new(&mut self.main, unscaled);
        main.0.leave_group();
        main.0.search(root, history, limits, time, reporter)
    }

    /// Searches with every thread; the main thread's result is the answer. Arguments as for
    /// [`Searcher::search`]. `limits.nodes` counts the nodes of all threads together.
    pub fn search(
        &mut self,
        root: &Position,
        history: &[u64],
        limits: Limits,
        time: TimeManager,
        reporter: &mut dyn Reporter,
    ) -> SearchResult {
        self.prepare_units(false);
        if self.helpers.is_empty() {
            self.main.leave_group();
            return self.main.search(root, history, limits, time, reporter);
        }
        let group = Arc::new(Group::new(self.threads()));
        self.tt.new_search();
        self.main.join_group(group.clone(), 0);
        let helper_limits = Limits {
            depth: None,
            // The node limit is for all threads together: every thread checks the total.
            nodes: limits.nodes,
            soft_nodes: None,
            mate: None,
            infinite: true,
            searchmoves: limits.searchmoves.clone(),
            multipv: 1,
        };
        let main = &mut self.main;
        thread::scope(|scope| {
            let mut helpers = Helpers {
                group: group.clone(),
                running: Vec::with_capacity(self.helpers.len()),
            };
            for (i, helper) in self.helpers.iter_mut().enumerate() {
                helper.join_group(group.clone(), i + 1);
                let limits = helper_limits.clone();
                let spawned = thread::Builder::new()
                    .name(format!("helper {}", i + 1))
                    .stack_size(HELPER_STACK)
                    .spawn_scoped(scope, move || {
                        helper.search(root, history, limits, TimeManager::infinite(), &mut Silent);
                    });
                match spawned {
                    Ok(handle) => helpers.running.push(handle),
                    // Out of threads: search with the ones already running.
                    Err(_) => break,
                }
            }
            // `helpers` is dropped after this, also when the main search panics: the helpers
            // are told to stop and joined.
            main.search(root, history, limits, time, reporter)
        })
    }
}

/// The running helpers of one parallel search. Dropping it, however the main thread's search
/// ended (a panic included, which would otherwise leave the helpers searching forever), tells
/// them to stop and joins every one before reporting a helper's panic.
///
/// They are joined, never detached: dropping a handle detaches its thread, and glibc's
/// pthread_detach reads the thread's descriptor after marking it detached, when a helper that
/// is exiting (one stopped at once exits within microseconds) may already have freed it. That
/// race crashed the engine once under `uci_fuzz` on a loaded machine (segfault in
/// pthread_detach; docs/results.md, session 8).
struct Helpers<'scope> {
    group: Arc<Group>,
    running: Vec<thread::ScopedJoinHandle<'scope, ()>>,
}

impl Drop for Helpers<'_> {
    fn drop(&mut self) {
        self.group.done.store(true, Ordering::SeqCst);
        let panicked = self
            .running
            .drain(..)
            .fold(false, |any, handle| handle.join().is_err() | any);
        if panicked && !thread::panicking() {
            panic!("a helper search thread panicked");
        }
    }
}

/// A searcher lent with other features for one search: the features it had come back when
/// the loan ends, however it ends. (The UCI worker replaces its whole pool after a search that
/// panics; a pool kept after one, as `bench` or a test may keep it, must not go on searching
/// with a level's configuration either.)
struct WithConfig<'a>(&'a mut Searcher, SearchConfig);

impl<'a> WithConfig<'a> {
    fn new(searcher: &'a mut Searcher, config: SearchConfig) -> Self {
        let own = searcher.config();
        searcher.set_config(config);
        WithConfig(searcher, own)
    }
}

impl Drop for WithConfig<'_> {
    fn drop(&mut self) {
        self.0.set_config(self.1);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn set_threads_clamps() {
        let tt = Arc::new(TranspositionTable::new(1));
        let mut pool = ThreadPool::new(tt, Arc::new(SharedFlags::default()));
        pool.set_threads(0);
        assert_eq!(pool.threads(), 1);
        pool.set_threads(3);
        assert_eq!(pool.threads(), 3);
        pool.set_threads(2);
        assert_eq!(pool.threads(), 2);
    }

    /// A pool searching with every feature on, whatever `SCOUT_DISABLE` says.
    fn pool() -> ThreadPool {
        let mut pool = ThreadPool::new(
            Arc::new(TranspositionTable::new(16)),
            Arc::new(SharedFlags::default()),
        );
        pool.main().set_config(SearchConfig::default());
        pool
    }

    fn to_depth(pool: &mut ThreadPool, root: &Position, level: bool) -> SearchResult {
        let limits = Limits {
            depth: Some(8),
            multipv: 2,
            ..Limits::default()
        };
        let time = TimeManager::infinite();
        if level {
            pool.search_at_level(root, &[], limits, time, &mut Silent)
        } else {
            pool.search(root, &[], limits, time, &mut Silent)
        }
    }

    #[test]
    fn a_level_searches_unscaled_and_leaves_the_scaling_on() {
        // A rook endgame: the scale is far from one, so scaled and unscaled trees differ.
        let fen = "8/5pk1/6p1/8/3R4/6P1/r4PK1/8 w - - 0 1";
        let root = Position::from_fen(fen, shakmaty::CastlingMode::Standard).unwrap();
        let mut unscaled = pool();
        unscaled.main().disable(Feature::MaterialScale);
        let want = to_depth(&mut unscaled, &root, false);
        let mut at_level = pool();
        let got = to_depth(&mut at_level, &root, true);
        assert_eq!(
            (got.nodes, got.score, got.best),
            (want.nodes, want.score, want.best)
        );
        let scores = |r: &SearchResult| r.lines.iter().map(|l| l.score).collect::<Vec<_>>();
        assert_eq!(scores(&got), scores(&want));
        // The searches after it scale again, and scaling changes this search's answer.
        assert!(at_level.main().config().scales_material());
        let scaled = to_depth(&mut pool(), &root, false);
        assert_ne!((scaled.nodes, scaled.score), (want.nodes, want.score));
    }

    /// A level's search that unwinds (here its reporter panics at the first iteration) still
    /// gives the whole configuration back: a pool kept after a panicking search (the UCI worker
    /// builds a new one; `bench` or a test may not) must not search unscaled from then on.
    #[test]
    fn a_level_that_panics_leaves_the_scaling_on() {
        struct Panics;
        impl Reporter for Panics {
            fn iteration(&mut self, _: &crate::search::IterationInfo) {
                panic!("a reporter that fails");
            }
            fn current_move(&mut self, _: i32, _: shakmaty::Move, _: usize) {}
        }
        let root = Position::default();
        let mut pool = pool();
        let before = pool.main().config();
        let limits = Limits {
            depth: Some(3),
            ..Limits::default()
        };
        let unwound = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            pool.search_at_level(&root, &[], limits, TimeManager::infinite(), &mut Panics)
        }));
        assert!(unwound.is_err());
        assert!(before.scales_material());
        assert_eq!(pool.main().config(), before);
    }

    /// The table never serves a search entries written in the other units: a level's search
    /// clears what a full-strength search left, and the other way round; searches in the
    /// same units keep what they share.
    #[test]
    fn the_table_is_cleared_when_the_units_change() {
        use shakmaty::Position as _;
        let fen = |f: &str| Position::from_fen(f, shakmaty::CastlingMode::Standard).unwrap();
        let a = fen("8/5pk1/6p1/8/3R4/6P1/r4PK1/8 w - - 0 1");
        let b = fen("4k3/ppp5/8/8/8/8/PPPP4/4K3 w - - 0 1");
        let mut pool = pool();
        let tt = pool.tt.clone();
        // Does the table hold an entry for some position after a first move from `root`?
        let held = |root: &Position| {
            let moves = root.chess().legal_moves();
            moves
                .iter()
                .any(|&m| tt.probe(root.play(m).key()).is_some())
        };
        to_depth(&mut pool, &a, false);
        to_depth(&mut pool, &b, false);
        assert!(held(&a), "same units keep the table");
        to_depth(&mut pool, &b, true);
        assert!(!held(&a), "a level clears a scaled table");
        assert!(held(&b));
        to_depth(&mut pool, &a, true);
        assert!(held(&b), "levels keep each other's entries");
        to_depth(&mut pool, &a, false);
        assert!(!held(&b), "full strength clears a level's table");
    }

    /// Nor does the correction history: a level's search after a full-strength one searches
    /// exactly as one whose table and corrections were wiped by hand (only the move-ordering
    /// histories carry over), and differently from one that kept the corrections.
    #[test]
    fn the_corrections_are_forgotten_when_the_units_change() {
        let fen = "8/5pk1/6p1/8/3R4/6P1/r4PK1/8 w - - 0 1";
        let root = Position::from_fen(fen, shakmaty::CastlingMode::Standard).unwrap();
        let after_full = |wipe: bool, keep_corrections: bool| {
            let mut pool = pool();
            to_depth(&mut pool, &root, false);
            if wipe {
                pool.tt.clear();
                if !keep_corrections {
                    pool.main().forget_corrections();
                }
                // Searching unscaled with the corrections already wiped: nothing to forget.
                pool.corrections_scaled = None;
            }
            let r = to_depth(&mut pool, &root, true);
            (r.nodes, r.score, r.best)
        };
        let by_hand = after_full(true, false);
        assert_eq!(after_full(false, false), by_hand);
        assert_ne!(
            after_full(true, true),
            by_hand,
            "corrections change the search"
        );
    }

    /// A key no position of the searches in these tests reaches.
    const MARKER_KEY: u64 = 0x5a5a_5a5a_5a5a_5a5a;

    /// Stores an entry at `MARKER_KEY`: it is gone once the table has been cleared. (The tests'
    /// pools search with one thread, so that their searches are the same every run and never
    /// evict it.)
    fn mark(tt: &TranspositionTable) {
        use crate::score::Bound;
        use crate::tt::Entry;
        let entry = Entry {
            mv: 0,
            score: 1,
            eval: 1,
            depth: 1,
            bound: Bound::Exact,
            pv: false,
        };
        tt.store(MARKER_KEY, entry);
    }

    /// Whether the marker is still in the table.
    fn marked(tt: &TranspositionTable) -> bool {
        tt.probe(MARKER_KEY).is_some()
    }

    /// A game that starts after `ucinewgame` (the controller clears the table, the worker
    /// calls `new_game`) in the other units than the last search does not clear the table a
    /// second time: a marker stored in the cleared table survives its first search, in
    /// either direction; a change of units within a game still clears it.
    #[test]
    fn a_new_game_does_not_clear_the_table_again() {
        let root = Position::default();
        let mut pool = pool();
        for level in [false, true] {
            // The last game's last search, in the other units.
            to_depth(&mut pool, &root, !level);
            pool.tt.clear();
            pool.new_game();
            mark(&pool.tt);
            to_depth(&mut pool, &root, level);
            assert!(marked(&pool.tt), "level {level}: cleared again");
            to_depth(&mut pool, &root, !level);
            assert!(!marked(&pool.tt), "level {level}: not cleared in a game");
        }
    }

    /// A switch between a level and full strength announced at `setoption` (`prepare_units`)
    /// clears the table and the correction histories then, off the clock, and the first search
    /// after it clears nothing more, in either direction; announcing the units the table
    /// already holds clears nothing.
    #[test]
    fn a_switch_of_level_clears_before_the_next_search() {
        let root = Position::default();
        let mut pool = pool();
        for level in [false, true] {
            to_depth(&mut pool, &root, !level);
            mark(&pool.tt);
            pool.prepare_units(!level);
            assert!(marked(&pool.tt), "level {level}: same units");
            pool.prepare_units(level);
            assert!(
                !marked(&pool.tt),
                "level {level}: not cleared at the switch"
            );
            assert_eq!(pool.corrections_scaled, Some(!level));
            mark(&pool.tt);
            to_depth(&mut pool, &root, level);
            assert!(
                marked(&pool.tt),
                "level {level}: cleared again by the search"
            );
        }
    }
}
