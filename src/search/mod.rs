//! The search: iterative deepening with aspiration windows around a fail-soft
//! PVS/NegaScout alpha-beta, a quiescence search, and the selective techniques that make
//! alpha-beta practical (each one is a bet, and its comment says what it bets on). Scores
//! and their bands (evaluation, tablebase, mate) are `crate::score`'s; the margins and limits of
//! the selective steps are `crate::params`'s.
//!
//! With `SearchConfig::exact()` every pruning, reduction and extension is off: the search
//! then computes exactly the minimax value of the quiescence tree (the window theorem, which
//! `tests/integration/search.rs` checks against `minimax` in `reference.rs`).
//!
//! Files: `root.rs` (iterative deepening, aspiration, root moves, reports), `alphabeta.rs`
//! (the PVS below the root), `quiescence.rs`, `correction.rs` (correction history),
//! `group.rs` (what the threads of one search share), `reference.rs` (what the tests compare
//! against); this file holds the shared types, the searcher's state and the per-node helpers
//! (stop polling, draws, PV).

mod alphabeta;
mod correction;
mod group;
mod quiescence;
mod reference;
mod root;

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Instant;

use shakmaty::{Move, Position as _};

use crate::movepick::history::Histories;
use crate::nnue::Network;
use crate::nnue::accumulator::AccumulatorStack;
use crate::position::Position;
use crate::score::{Bound, DRAW, MAX_PLY};
use crate::tablebase::{ProbeSettings, Tablebases};
use crate::time::TimeManager;
use crate::tt::TranspositionTable;
use alphabeta::LmrTable;
use correction::{CorrectionHistory, Slots};
pub use group::Group;
pub use root::SINGLE_MOVE_DEPTH;

/// Which selective techniques are on. Tests switch them all off to compare with minimax.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SearchConfig {
    /// Pruning, reductions and extensions (everything that can change the minimax value).
    pub selective: bool,
    /// Probe and store the transposition table.
    pub use_tt: bool,
    /// Individual selective features switched off (bit `1 << Feature as u32`), for measuring
    /// each feature's worth in games against the full search.
    pub disabled: u32,
}

impl Default for SearchConfig {
    fn default() -> Self {
        SearchConfig {
            selective: true,
            use_tt: true,
            disabled: 0,
        }
    }
}

/// The selective features that can be switched off one by one.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Feature {
    Aspiration,
    MateDistance,
    ReverseFutility,
    Razoring,
    NullMove,
    Iir,
    LateMovePruning,
    Futility,
    SeePruning,
    Singular,
    CheckExtension,
    Lmr,
    QsEvasions,
    QsMoveCount,
    Delta,
    Correction,
    MaterialScale,
}

impl Feature {
    /// Every feature with its short name (as used by `SCOUT_DISABLE`).
    pub const ALL: [(Feature, &'static str); 17] = [
        (Feature::Aspiration, "aspiration"),
        (Feature::MateDistance, "mdp"),
        (Feature::ReverseFutility, "rfp"),
        (Feature::Razoring, "razoring"),
        (Feature::NullMove, "nmp"),
        (Feature::Iir, "iir"),
        (Feature::LateMovePruning, "lmp"),
        (Feature::Futility, "futility"),
        (Feature::SeePruning, "see"),
        (Feature::Singular, "singular"),
        (Feature::CheckExtension, "checkext"),
        (Feature::Lmr, "lmr"),
        (Feature::QsEvasions, "qsevasions"),
        (Feature::QsMoveCount, "qsmovecount"),
        (Feature::Delta, "delta"),
        (Feature::Correction, "corrhist"),
        (Feature::MaterialScale, "matscale"),
    ];
}

impl SearchConfig {
    /// No pruning, no reductions, no extensions, no TT: the search is exact.
    pub fn exact() -> SearchConfig {
        SearchConfig {
            selective: false,
            use_tt: false,
            disabled: 0,
        }
    }

    /// The full search without the features named in `list` (comma-separated short names
    /// from [`Feature::ALL`]). Unknown names are an error.
    pub fn without(list: &str) -> Result<SearchConfig, String> {
        let mut config = SearchConfig::default();
        for name in list.split(',').map(str::trim).filter(|n| !n.is_empty()) {
            let (f, _) = Feature::ALL
                .iter()
                .find(|(_, n)| *n == name)
                .ok_or_else(|| format!("unknown search feature {name}"))?;
            config.disable(*f);
        }
        Ok(config)
    }

    /// The full search without the features listed in the environment variable
    /// `SCOUT_DISABLE` (a development aid for testing each feature in games; see
    /// `docs/results.md`). An invalid list is reported on stderr and ignored.
    pub fn from_env() -> SearchConfig {
        match std::env::var("SCOUT_DISABLE") {
            Ok(list) => SearchConfig::without(&list).unwrap_or_else(|e| {
                eprintln!("SCOUT_DISABLE: {e}");
                SearchConfig::default()
            }),
            Err(_) => SearchConfig::default(),
        }
    }

    /// Is `f` on?
    #[inline(always)]
    pub fn on(&self, f: Feature) -> bool {
        self.selective && self.disabled & (1 << f as u32) == 0
    }

    /// Switches `f` off.
    pub fn disable(&mut self, f: Feature) {
        self.disabled |= 1 << f as u32;
    }

    /// Is the evaluation scaled by material (`nnue/scale.rs`)? Not a selective step: the
    /// exact search scales as the full one does unless `matscale` is switched off.
    #[inline(always)]
    pub fn scales_material(&self) -> bool {
        self.disabled & (1 << Feature::MaterialScale as u32) == 0
    }
}

/// Flags shared between the search thread and the UCI front end.
#[derive(Debug, Default)]
pub struct SharedFlags {
    /// Set to make the search stop as soon as possible.
    pub stop: AtomicBool,
    /// Set while the search is pondering: no time limit applies until `ponderhit`.
    pub pondering: AtomicBool,
}

impl SharedFlags {
    /// Ends a running search for good: stops it, and ends pondering too, so that a `go ponder`
    /// search does not wait for a `ponderhit` that will not come.
    pub fn halt(&self) {
        self.stop.store(true, Ordering::SeqCst);
        self.pondering.store(false, Ordering::SeqCst);
    }

    /// Readies the flags for new work (a search, bench, perft or genfens): not stopped, and
    /// pondering only when the work is a `go ponder`.
    pub fn arm(&self, ponder: bool) {
        self.stop.store(false, Ordering::SeqCst);
        self.pondering.store(ponder, Ordering::SeqCst);
    }
}

/// What limits a search (from `go`).
#[derive(Clone, Debug, Default)]
pub struct Limits {
    pub depth: Option<i32>,
    pub nodes: Option<u64>,
    /// No new iteration starts once this many nodes are spent (the data generator's budget;
    /// `nodes` stays the hard limit).
    pub soft_nodes: Option<u64>,
    /// Stop once a mate in this many moves (or fewer) is proven.
    pub mate: Option<i32>,
    /// Search until `stop` (also the mode of `go ponder` until `ponderhit`).
    pub infinite: bool,
    /// Only these root moves are searched (empty: all).
    pub searchmoves: Vec<Move>,
    /// Number of principal variations to report.
    pub multipv: usize,
}

/// One root move with what the last iteration learned about it.
#[derive(Clone, Debug)]
pub struct RootMove {
    pub mv: Move,
    pub score: i32,
    pub previous_score: i32,
    pub pv: Vec<Move>,
    pub seldepth: usize,
    /// Nodes spent below this move over the whole search (for time management).
    pub nodes: u64,
    /// The tablebases' score for this move when the root is in the tables (reported
    /// instead of the search's score unless the search proves a mate).
    pub tb_score: Option<i32>,
}

/// What is reported after each iteration (or each PV line with MultiPV).
#[derive(Clone, Debug)]
pub struct IterationInfo<'a> {
    pub depth: i32,
    pub seldepth: usize,
    pub multipv: usize,
    pub score: i32,
    pub bound: Bound,
    pub nodes: u64,
    /// Tablebase probes that answered, all threads together.
    pub tbhits: u64,
    pub elapsed_ms: u64,
    pub hashfull: u32,
    pub pv: &'a [Move],
    /// Is `score` in the material-scaled units of `nnue/scale.rs`? A search with `matscale`
    /// off (a `UCI_Elo` level, the data generator) reports the net's own units.
    pub scaled: bool,
}

/// Receives the search's progress (the UCI front end prints it; bench ignores it).
pub trait Reporter {
    fn iteration(&mut self, info: &IterationInfo);
    fn current_move(&mut self, depth: i32, mv: Move, number: usize);
}

/// A reporter that prints nothing.
pub struct Silent;

impl Reporter for Silent {
    fn iteration(&mut self, _: &IterationInfo) {}
    fn current_move(&mut self, _: i32, _: Move, _: usize) {}
}

/// The outcome of a search.
#[derive(Clone, Debug)]
pub struct SearchResult {
    pub best: Option<Move>,
    pub ponder: Option<Move>,
    pub score: i32,
    pub depth: i32,
    pub nodes: u64,
    /// The last completed iteration's lines (MultiPV), best first, with their scores; only the
    /// lines it scored when the first iteration was cut short (then possibly none).
    pub lines: Vec<RootMove>,
}

/// Per-ply state of the search.
#[derive(Clone, Copy, Debug, Default)]
struct Frame {
    static_eval: i32,
    /// The move played from this ply (`None`: null move or not yet played).
    played: Option<Move>,
    /// Continuation-history key of the move played from this ply.
    piece_to: Option<(usize, shakmaty::Square)>,
    killers: [Option<Move>; 2],
    /// The move excluded by a singular-extension verification search.
    excluded: Option<Move>,
}

/// A search thread's state. It lives across searches (histories, accumulators) and is reset by
/// `new_game`.
pub struct Searcher {
    pub config: SearchConfig,
    tt: Arc<TranspositionTable>,
    flags: Arc<SharedFlags>,
    /// The endgame tablebases, shared by all threads (`None`: no `SyzygyPath`).
    tablebases: Option<Arc<Tablebases>>,
    tb_settings: ProbeSettings,
    /// Probe below the root only positions with at most this many pieces (0: never); set per
    /// search from `tb_settings` and the tables.
    tb_cardinality: usize,
    /// Tablebase probes of this search that answered (this thread).
    tb_hits: u64,
    /// The network and its accumulators along the search path.
    net: AccumulatorStack,
    histories: Histories,
    /// The static evaluation's average error by pawn structure and each side's pieces.
    correction: CorrectionHistory,
    lmr: LmrTable,
    stack: Vec<Frame>,
    /// Triangular PV table: `pv[ply]` is the best line found from `ply`.
    pv: Vec<Vec<Move>>,
    /// Keys of the game positions (from `position ... moves`) then of the search path.
    keys: Vec<u64>,
    root_ply_index: usize,
    nodes: u64,
    seldepth: usize,
    limits: Limits,
    time: TimeManager,
    stopped: bool,
    was_pondering: bool,
    /// When the search started (for `time` and `nps`; the time manager's clock restarts on
    /// `ponderhit`, this one does not).
    started: Instant,
    root_moves: Vec<RootMove>,
    pv_index: usize,
    /// The first move of the last first line reported (the move the GUI was last shown).
    last_shown: Option<Move>,
    /// The Lazy SMP group this searcher belongs to, if it searches with others (`threads`).
    group: Option<Arc<Group>>,
    /// Index in the group: 0 is the main thread, the others are silent helpers.
    thread_id: usize,
    /// Nodes of the other threads of the group, as last read (at every clock poll).
    others_nodes: u64,
    /// Tablebase hits of the other threads of the group, as last read.
    others_tb_hits: u64,
    /// The clock is polled when `nodes & poll_mask == 0`: every 1024 nodes, or every 128
    /// when the hard limit is a few ms (1024 nodes take 1-2 ms, which a 1 ms search must
    /// not overrun by on a nearly empty clock).
    poll_mask: u64,
}

impl Searcher {
    pub fn new(tt: Arc<TranspositionTable>, flags: Arc<SharedFlags>) -> Searcher {
        Searcher {
            config: SearchConfig::from_env(),
            tt,
            flags,
            tablebases: None,
            tb_settings: ProbeSettings::default(),
            tb_cardinality: 0,
            tb_hits: 0,
            net: AccumulatorStack::new(crate::nnue::default_network(), MAX_PLY + 8),
            histories: Histories::default(),
            correction: CorrectionHistory::default(),
            lmr: LmrTable::new(),
            stack: vec![Frame::default(); MAX_PLY + 8],
            pv: (0..MAX_PLY + 2)
                .map(|_| Vec::with_capacity(MAX_PLY))
                .collect(),
            keys: Vec::new(),
            root_ply_index: 0,
            nodes: 0,
            seldepth: 0,
            limits: Limits::default(),
            time: TimeManager::infinite(),
            stopped: false,
            was_pondering: false,
            started: Instant::now(),
            root_moves: Vec::new(),
            pv_index: 0,
            last_shown: None,
            group: None,
            thread_id: 0,
            others_nodes: 0,
            others_tb_hits: 0,
            poll_mask: 1023,
        }
    }

    /// Makes this searcher thread `id` of a multi-threaded search (0: the main thread).
    pub fn join_group(&mut self, group: Arc<Group>, id: usize) {
        self.group = Some(group);
        self.thread_id = id;
    }

    /// Makes this searcher search alone again.
    pub fn leave_group(&mut self) {
        self.group = None;
        self.thread_id = 0;
    }

    /// A helper thread of a multi-threaded search: silent, stopped by the main thread.
    fn is_helper(&self) -> bool {
        self.thread_id > 0
    }

    /// Nodes searched by all threads of the search (this one's exact, the others' as last
    /// published).
    fn total_nodes(&self) -> u64 {
        match &self.group {
            Some(g) => self.nodes + g.others(self.thread_id),
            None => self.nodes,
        }
    }

    /// Tablebase hits of all threads of the search (as `total_nodes`).
    fn total_tb_hits(&self) -> u64 {
        match &self.group {
            Some(g) => self.tb_hits + g.others_tb_hits(self.thread_id),
            None => self.tb_hits,
        }
    }

    /// Probes `tablebases` from now on (`None`: no tables), as `settings` say.
    pub fn set_tablebases(&mut self, tablebases: Option<Arc<Tablebases>>, settings: ProbeSettings) {
        self.tablebases = tablebases;
        self.tb_settings = settings;
    }

    /// Evaluates with `net` from now on.
    pub fn set_network(&mut self, net: Arc<Network>) {
        self.net = AccumulatorStack::new(net, MAX_PLY + 8);
    }

    /// Switches feature `f` off for this searcher's searches from now on.
    pub fn disable(&mut self, f: Feature) {
        self.config.disable(f);
    }

    /// The search's features as they are.
    pub fn config(&self) -> SearchConfig {
        self.config
    }

    /// Searches with the features of `config` from now on (as [`Searcher::config`] gave them).
    pub fn set_config(&mut self, config: SearchConfig) {
        self.config = config;
    }

    /// The network in use.
    pub fn network(&self) -> &Arc<Network> {
        self.net.net()
    }

    /// The static evaluation of the node at `ply` on the search path (`pos`), for the side
    /// to move.
    #[inline]
    fn evaluate(&mut self, pos: &Position, ply: usize) -> i32 {
        let raw = self.net.evaluate(ply, pos.chess());
        self.scaled(raw, pos)
    }

    /// Where `pos` lies in the correction tables, when correction history is on.
    #[inline]
    fn correction_slots(&self, pos: &Position) -> Option<Slots> {
        self.config.on(Feature::Correction).then(|| Slots::of(pos))
    }

    /// The static evaluation `raw` as the pruning decisions use it: corrected by the
    /// correction history at `slots` when that is on.
    #[inline]
    fn corrected(&self, slots: Option<Slots>, raw: i32) -> i32 {
        slots.map_or(raw, |s| self.correction.correct(s, raw))
    }

    /// The static evaluation of a position off the search path (computed from scratch).
    fn evaluate_from_scratch(&mut self, pos: &Position) -> i32 {
        let raw = crate::nnue::evaluate_board(self.net.net(), pos.chess().board(), pos.turn());
        self.scaled(raw, pos)
    }

    /// The net's output `raw` at `pos` as the search reads it: scaled by material unless
    /// that is switched off.
    #[inline]
    fn scaled(&self, raw: i32, pos: &Position) -> i32 {
        if self.config.scales_material() {
            crate::nnue::scale::scaled(raw, pos.chess().board())
        } else {
            raw
        }
    }

    /// Replaces the transposition table (after a resize).
    pub fn set_tt(&mut self, tt: Arc<TranspositionTable>) {
        self.tt = tt;
    }

    /// Forgets everything learned in earlier games.
    pub fn new_game(&mut self) {
        self.histories.clear();
        self.forget_corrections();
    }

    /// Forgets the correction history alone: its entries are differences of scores, in the
    /// units of the searches that wrote them (scaled or not), while the move-ordering
    /// histories hold no scores and stay.
    pub fn forget_corrections(&mut self) {
        self.correction.clear();
    }

    /// Nodes searched by the last search.
    pub fn nodes(&self) -> u64 {
        self.nodes
    }

    /// The best line from `ply` is now `m` followed by the best line from `ply + 1`.
    #[inline]
    fn update_pv(&mut self, ply: usize, m: Move) {
        let (head, tail) = self.pv.split_at_mut(ply + 1);
        head[ply].clear();
        head[ply].push(m);
        head[ply].extend_from_slice(&tail[0]);
    }

    /// Records the move played from `ply` (`None`: a null move) by `mover`: the child's key
    /// for repetition detection, the move for the histories, and for the network's
    /// accumulators. The child's accumulator is brought up to date at once, not when the child
    /// first evaluates: the update then runs while the load of the child's table entry
    /// (prefetched by `play_announcing`) is still in flight, instead of the child's probe
    /// stalling on it first. The same nodes, about 6% more of them a second (docs/results.md,
    /// *Session 40*), though nodes cut off by the table now pay for an update they never use.
    #[inline]
    fn push(&mut self, child: &Position, m: Option<Move>, mover: shakmaty::Color, ply: usize) {
        self.keys.push(child.key());
        let f = &mut self.stack[ply];
        f.played = m;
        f.piece_to = m.map(|m| Histories::piece_to(mover, m));
        self.net.push(ply + 1, m, mover, child.chess().board());
        self.net.accumulator(ply + 1);
    }

    /// Polls the stop flag and the clocks. Called at every node; the clock only every
    /// `poll_mask + 1` nodes.
    #[inline]
    fn should_stop(&mut self) -> bool {
        if self.stopped {
            return true;
        }
        if self.flags.stop.load(Ordering::Relaxed)
            || self
                .group
                .as_ref()
                .is_some_and(|g| g.done.load(Ordering::Relaxed))
        {
            self.stopped = true;
        } else if let Some(max) = self.limits.nodes
            && self.nodes + self.others_nodes >= max
        {
            self.stopped = true;
        } else if self.nodes & self.poll_mask == 0 {
            if let Some(g) = &self.group {
                g.publish(self.thread_id, self.nodes, self.tb_hits);
                self.others_nodes = g.others(self.thread_id);
                self.others_tb_hits = g.others_tb_hits(self.thread_id);
            }
            let pondering = self.check_ponderhit();
            if !pondering && !self.limits.infinite && self.time.hard_limit_reached() {
                self.stopped = true;
            }
        }
        self.stopped
    }

    /// Probes the tablebases at a node below the root, when the tables hold it and it is
    /// worth it: at most `tb_cardinality` pieces (and fewer, or `depth` at least
    /// `SyzygyProbeDepth`), no castling rights, and the last move a capture or pawn move (a
    /// WDL table's answer assumes a fresh fifty-move count). Returns the score at `ply` and
    /// what it bounds.
    #[inline]
    fn probe_tablebases(&mut self, pos: &Position, depth: i32, ply: usize) -> Option<(i32, Bound)> {
        if self.tb_cardinality == 0 {
            return None;
        }
        let chess = pos.chess();
        let pieces = chess.board().occupied().count();
        if pieces > self.tb_cardinality
            || (pieces == self.tb_cardinality && depth < self.tb_settings.depth)
            || chess.halfmoves() != 0
            || chess.castles().any()
        {
            return None;
        }
        let wdl = self.tablebases.as_ref()?.probe_wdl(chess)?;
        self.tb_hits += 1;
        Some(crate::tablebase::wdl_to_score(
            wdl,
            ply,
            self.tb_settings.rule50,
        ))
    }

    /// The value of a node at the end of the ply stack (`MAX_PLY - 1`), where nothing can be
    /// searched: the static evaluation, or a draw when in check (no static value exists).
    fn horizon_value(&mut self, pos: &Position, in_check: bool, ply: usize) -> i32 {
        if in_check {
            DRAW
        } else {
            self.evaluate(pos, ply)
        }
    }

    /// Is the position at `ply` a draw by the fifty-move rule, repetition or material?
    fn is_draw(&self, pos: &Position, ply: usize) -> bool {
        let halfmoves = pos.chess().halfmoves() as usize;
        if halfmoves >= 100 {
            // A checkmate delivered by the move that reaches 100 plies still counts.
            return !(pos.in_check() && pos.chess().legal_moves().is_empty());
        }
        if pos.chess().is_insufficient_material() {
            return true;
        }
        self.is_repetition(ply, halfmoves)
    }

    /// A position repeated inside the search tree is a draw (the side that repeated can
    /// repeat again); one that only repeats game history must have occurred twice before.
    /// A null move keeps the fifty-move count but is not a move: positions before it do not
    /// count, or a line could "repeat" only thanks to the pass.
    fn is_repetition(&self, ply: usize, halfmoves: usize) -> bool {
        let current = self.root_ply_index + ply;
        let key = self.keys[current];
        let mut earliest = current.saturating_sub(halfmoves);
        if let Some(null_ply) = (ply.saturating_sub(halfmoves)..ply)
            .rev()
            .find(|&p| self.stack[p].played.is_none())
        {
            earliest = earliest.max(self.root_ply_index + null_ply + 1);
        }
        let mut seen_before_root = 0;
        let mut i = current;
        while i >= earliest + 2 {
            i -= 2;
            if self.keys[i] == key {
                if i > self.root_ply_index {
                    return true;
                }
                seen_before_root += 1;
                if seen_before_root >= 2 {
                    return true;
                }
            }
        }
        false
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use shakmaty::Chess;

    /// A position seen again inside the tree is a repetition, but not when a null move lies
    /// between the two: the pass keeps the fifty-move count, yet the line only "repeats"
    /// thanks to it.
    #[test]
    fn positions_before_a_null_move_do_not_repeat() {
        let tt = Arc::new(TranspositionTable::new(1));
        let mut s = Searcher::new(tt, Arc::new(SharedFlags::default()));
        let m = Chess::default().legal_moves()[0];
        // Root R, then A at ply 1, B at ply 2, A again at ply 3.
        s.keys = vec![10, 11, 12, 11];
        s.root_ply_index = 0;
        for ply in 0..3 {
            s.stack[ply].played = Some(m);
        }
        assert!(s.is_repetition(3, 20));
        // The same keys with a null move played from ply 1 (A -> B).
        s.stack[1].played = None;
        assert!(!s.is_repetition(3, 20));
        // A null move before the first A does not hide the repetition.
        s.stack[1].played = Some(m);
        s.stack[0].played = None;
        assert!(s.is_repetition(3, 20));
        // Nor does the fifty-move window reach past the last zeroing move.
        assert!(!s.is_repetition(3, 1));
    }
}
