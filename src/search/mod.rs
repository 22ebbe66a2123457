//! The search: iterative deepening with aspiration windows around a fail-soft
//! PVS/NegaScout alpha-beta, a quiescence search, and the selective techniques that make
//! alpha-beta practical (each one is a bet, and its comment says what it bets on).
//!
//! Scores are centipawns from the side to move's point of view. A mate found `n` plies from
//! the root scores `MATE - n` (being mated: `-(MATE - n)`).
//!
//! With `SearchConfig::exact()` every pruning, reduction and extension is off: the search
//! then computes exactly the minimax value of the quiescence tree (the window theorem, which
//! `tests/search_theorem.rs` checks against `minimax` below).

pub mod history;

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Instant;

use shakmaty::{Move, MoveList, Position as _};

use crate::eval::Evaluator;
use crate::movepick::{self, MovePicker, OrderingContext, is_noisy};
use crate::position::Position;
use crate::see;
use crate::threads::Group;
use crate::time::{Stability, TimeManager};
use crate::tt::{Bound, TranspositionTable, score_from_tt, score_to_tt};
use history::Histories;

/// Score of delivering mate at the root (mate in `n` plies scores `MATE - n`).
pub const MATE: i32 = 32_000;
/// Deepest ply the search reaches.
pub const MAX_PLY: usize = 128;
/// Scores at least this large (in absolute value) are mate scores.
pub const MATE_BOUND: i32 = MATE - MAX_PLY as i32;
/// Larger than every score.
pub const INFINITY: i32 = MATE + 1;
/// The value of a drawn position.
pub const DRAW: i32 = 0;

/// Score of being mated at `ply`.
#[inline]
pub fn mated_in(ply: usize) -> i32 {
    -MATE + ply as i32
}

/// Score of mating at `ply`.
#[inline]
pub fn mate_in(ply: usize) -> i32 {
    MATE - ply as i32
}

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
}

impl Feature {
    /// Every feature with its short name (as used by `SCOUT_DISABLE`).
    pub const ALL: [(Feature, &'static str); 12] = [
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
            config.disabled |= 1 << *f as u32;
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
}

/// Flags shared between the search thread and the UCI front end.
#[derive(Debug, Default)]
pub struct SharedFlags {
    /// Set to make the search stop as soon as possible.
    pub stop: AtomicBool,
    /// Set while the search is pondering: no time limit applies until `ponderhit`.
    pub pondering: AtomicBool,
}

/// What limits a search (from `go`).
#[derive(Clone, Debug, Default)]
pub struct Limits {
    pub depth: Option<i32>,
    pub nodes: Option<u64>,
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
    /// The bound of `score` when the search of this move ended outside the window.
    pub bound: Bound,
    pub pv: Vec<Move>,
    pub seldepth: usize,
    /// Nodes spent below this move over the whole search (for time management).
    pub nodes: u64,
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
    pub elapsed_ms: u64,
    pub hashfull: u32,
    pub pv: &'a [Move],
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

/// Late-move reduction table, indexed by depth and move number.
struct LmrTable([[i32; 64]; 64]);

impl LmrTable {
    fn new() -> LmrTable {
        let mut t = [[0; 64]; 64];
        for (d, row) in t.iter_mut().enumerate().skip(1) {
            for (m, r) in row.iter_mut().enumerate().skip(1) {
                // Reductions grow with the logarithm of both the depth and the move number.
                *r = (0.75 + (d as f64).ln() * (m as f64).ln() / 2.25) as i32;
            }
        }
        LmrTable(t)
    }

    fn get(&self, depth: i32, moves: usize) -> i32 {
        self.0[(depth as usize).min(63)][moves.min(63)]
    }
}

/// A search thread's state. It lives across searches (histories, pawn hash) and is reset by
/// `new_game`.
pub struct Searcher {
    pub config: SearchConfig,
    tt: Arc<TranspositionTable>,
    flags: Arc<SharedFlags>,
    evaluator: Evaluator,
    histories: Histories,
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
    /// The Lazy SMP group this searcher belongs to, if it searches with others (`threads`).
    group: Option<Arc<Group>>,
    /// Index in the group: 0 is the main thread, the others are silent helpers.
    thread_id: usize,
    /// Nodes of the other threads of the group, as last read (every 1024 nodes).
    others_nodes: u64,
}

impl Searcher {
    pub fn new(tt: Arc<TranspositionTable>, flags: Arc<SharedFlags>) -> Searcher {
        Searcher {
            config: SearchConfig::from_env(),
            tt,
            flags,
            evaluator: Evaluator::new(),
            histories: Histories::default(),
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
            group: None,
            thread_id: 0,
            others_nodes: 0,
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

    /// Replaces the transposition table (after a resize).
    pub fn set_tt(&mut self, tt: Arc<TranspositionTable>) {
        self.tt = tt;
    }

    /// Forgets everything learned in earlier games.
    pub fn new_game(&mut self) {
        self.histories.clear();
        self.evaluator = Evaluator::new();
    }

    /// Nodes searched by the last search.
    pub fn nodes(&self) -> u64 {
        self.nodes
    }

    /// Searches `root` (reached through the game positions with keys `history`, the root's own
    /// key last or absent) within `limits` and `time`, reporting to `reporter`.
    pub fn search(
        &mut self,
        root: &Position,
        history: &[u64],
        limits: Limits,
        time: TimeManager,
        reporter: &mut dyn Reporter,
    ) -> SearchResult {
        self.limits = limits;
        self.limits.multipv = self.limits.multipv.max(1);
        self.time = time;
        self.started = Instant::now();
        self.nodes = 0;
        self.others_nodes = 0;
        self.seldepth = 0;
        self.stopped = false;
        self.was_pondering = self.flags.pondering.load(Ordering::Relaxed);
        self.keys.clear();
        self.keys.extend_from_slice(history);
        if self.keys.last() != Some(&root.key()) {
            self.keys.push(root.key());
        }
        self.root_ply_index = self.keys.len() - 1;
        for f in self.stack.iter_mut() {
            *f = Frame::default();
        }
        if self.group.is_none() {
            // A thread pool ages the table once for all its threads.
            self.tt.new_search();
        }

        // Start from the move ordering (TT move, good captures, ...), so that even a search
        // interrupted during its first iteration answers with a sensible move.
        let tt_move = self
            .tt
            .probe(root.key())
            .and_then(|e| movepick::decode(root.chess(), e.mv));
        let mut picker = MovePicker::new(tt_move, OrderingContext::default());
        let mut legal: Vec<Move> = Vec::new();
        while let Some((m, _)) = picker.next(root.chess(), &self.histories) {
            legal.push(m);
        }
        if !self.limits.searchmoves.is_empty() {
            let only = self.limits.searchmoves.clone();
            legal.retain(|m| only.contains(m));
        }
        self.root_moves = legal
            .into_iter()
            .map(|mv| RootMove {
                mv,
                score: -INFINITY,
                previous_score: -INFINITY,
                bound: Bound::Upper,
                pv: vec![mv],
                seldepth: 0,
                nodes: 0,
            })
            .collect();

        if self.root_moves.is_empty() {
            // Checkmate or stalemate: nothing to search.
            let score = if root.in_check() { mated_in(0) } else { DRAW };
            reporter.iteration(&IterationInfo {
                depth: 0,
                seldepth: 0,
                multipv: 1,
                score,
                bound: Bound::Exact,
                nodes: 0,
                elapsed_ms: self.started.elapsed().as_millis() as u64,
                hashfull: self.tt.hashfull(),
                pv: &[],
            });
            self.wait_for_stop_if_required();
            return SearchResult {
                best: None,
                ponder: None,
                score,
                depth: 0,
                nodes: 0,
            };
        }

        let result = self.iterative_deepening(root, reporter);
        self.wait_for_stop_if_required();
        result
    }

    /// `go infinite` and `go ponder` must not answer before `stop` (or `ponderhit`).
    fn wait_for_stop_if_required(&mut self) {
        if self.is_helper() {
            return;
        }
        while (self.limits.infinite || self.flags.pondering.load(Ordering::Relaxed))
            && !self.flags.stop.load(Ordering::Relaxed)
        {
            std::thread::sleep(std::time::Duration::from_millis(1));
            if self.was_pondering && !self.flags.pondering.load(Ordering::Relaxed) {
                // ponderhit after the search had already finished: answer now.
                break;
            }
        }
    }

    /// Step 1: iterative deepening, with aspiration windows from depth 4 on.
    fn iterative_deepening(
        &mut self,
        root: &Position,
        reporter: &mut dyn Reporter,
    ) -> SearchResult {
        let max_depth = self
            .limits
            .depth
            .unwrap_or(MAX_PLY as i32 - 1)
            .clamp(1, MAX_PLY as i32 - 1);
        let multipv = self.limits.multipv.min(self.root_moves.len());
        let mut completed_depth = 0;
        let mut best_move_changes = 0.0f64;
        let mut stable_iterations = 0u32;
        let mut last_best = None;
        let mut last_score = None;

        for depth in 1..=max_depth {
            if self.thread_id % 2 == 1 && depth > 1 && depth % 2 == 0 {
                // Odd helpers skip the even depths: threads diverge instead of racing each
                // other through the same tree.
                continue;
            }
            for rm in self.root_moves.iter_mut() {
                rm.previous_score = rm.score;
            }
            for pv_index in 0..multipv {
                self.pv_index = pv_index;
                self.seldepth = 0;
                let previous = self.root_moves[pv_index].previous_score;
                let mut delta = 15;
                let (mut alpha, mut beta) = if depth >= 4
                    && self.config.on(Feature::Aspiration)
                    && previous.abs() < MATE_BOUND
                {
                    (
                        (previous - delta).max(-INFINITY),
                        (previous + delta).min(INFINITY),
                    )
                } else {
                    (-INFINITY, INFINITY)
                };
                loop {
                    let score = self.search_root(root, depth, alpha, beta, reporter);
                    // Stable sort keeps the order of equal scores: the best move comes first.
                    self.root_moves[pv_index..].sort_by_key(|rm| std::cmp::Reverse(rm.score));
                    if self.stopped {
                        break;
                    }
                    if score <= alpha {
                        // Fail low: widen downwards, and pull beta in to re-search faster.
                        beta = (alpha + beta) / 2;
                        alpha = (score - delta).max(-INFINITY);
                        if self.started.elapsed().as_millis() > 1000 {
                            self.report(reporter, depth, pv_index, Bound::Upper);
                        }
                    } else if score >= beta {
                        beta = (score + delta).min(INFINITY);
                        if self.started.elapsed().as_millis() > 1000 {
                            self.report(reporter, depth, pv_index, Bound::Lower);
                        }
                    } else {
                        break;
                    }
                    delta += delta / 2;
                }
                self.root_moves[..=pv_index].sort_by_key(|rm| std::cmp::Reverse(rm.score));
                if self.stopped && depth > 1 {
                    break;
                }
                // The new line may have moved above earlier ones: print them all again, in
                // order, once the iteration's lines are complete (or after every line for 1).
                if pv_index + 1 == multipv {
                    for k in 0..multipv {
                        self.report(reporter, depth, k, Bound::Exact);
                    }
                }
            }
            if self.stopped && depth > 1 {
                break;
            }
            completed_depth = depth;

            // Time management between iterations.
            let best = self.root_moves[0].mv;
            if last_best.is_some() && last_best != Some(best) {
                best_move_changes += 1.0;
                stable_iterations = 0;
            } else {
                stable_iterations += 1;
            }
            last_best = Some(best);
            best_move_changes *= 0.5;
            let score = self.root_moves[0].score;
            // How the best score moved since the last iteration, whichever move holds it.
            let score_change = last_score.map_or(0, |last| score - last);
            last_score = Some(score);
            if let Some(n) = self.limits.mate
                && score >= MATE_BOUND
                && (MATE - score + 1) / 2 <= n
            {
                break;
            }
            if self.root_moves.len() == 1 && self.time.is_timed() && depth >= 1 {
                // Only one legal move: answer at once.
                break;
            }
            let pondering = self.check_ponderhit();
            if !pondering
                && !self.limits.infinite
                && !self.time.should_start_iteration(Stability {
                    instability: best_move_changes,
                    stable_iterations,
                    best_move_share: self.root_moves[0].nodes as f64 / self.nodes.max(1) as f64,
                    score_change,
                })
            {
                break;
            }
        }

        let best = &self.root_moves[0];
        let ponder = best.pv.get(1).copied().or_else(|| {
            // The PV was cut short (a TT cutoff after the root move): ask the TT.
            let child = root.play(best.mv);
            self.tt
                .probe(child.key())
                .and_then(|e| movepick::decode(child.chess(), e.mv))
        });
        let score = if best.score == -INFINITY {
            best.previous_score.max(-MATE)
        } else {
            best.score
        };
        SearchResult {
            best: Some(best.mv),
            ponder,
            score,
            depth: completed_depth,
            nodes: self.total_nodes(),
        }
    }

    fn pondering(&self) -> bool {
        self.flags.pondering.load(Ordering::Relaxed)
    }

    /// After `ponderhit` the clock starts from that moment. Returns whether the search is
    /// still pondering (the flag is read once, so a `ponderhit` arriving in between cannot
    /// leave the clock unrestarted while the limits already apply).
    fn check_ponderhit(&mut self) -> bool {
        let pondering = self.pondering();
        if self.was_pondering && !pondering {
            self.was_pondering = false;
            self.time.restart();
        }
        pondering
    }

    fn report(&self, reporter: &mut dyn Reporter, depth: i32, pv_index: usize, bound: Bound) {
        let rm = &self.root_moves[pv_index];
        // A move not searched at this depth in MultiPV keeps its previous score.
        let score = if rm.score == -INFINITY {
            rm.previous_score
        } else {
            rm.score
        };
        if score == -INFINITY {
            return;
        }
        reporter.iteration(&IterationInfo {
            depth,
            seldepth: rm.seldepth.max(1),
            multipv: pv_index + 1,
            score,
            bound,
            nodes: self.total_nodes(),
            elapsed_ms: self.started.elapsed().as_millis() as u64,
            hashfull: self.tt.hashfull(),
            pv: &rm.pv,
        });
    }

    /// Step 2: the root. PVS over the root moves not yet taken by earlier MultiPV lines.
    fn search_root(
        &mut self,
        root: &Position,
        depth: i32,
        mut alpha: i32,
        beta: i32,
        reporter: &mut dyn Reporter,
    ) -> i32 {
        let mut best = -INFINITY;
        self.nodes += 1;
        let in_check = root.in_check();
        self.stack[0].static_eval = if in_check {
            -INFINITY
        } else {
            self.evaluator.evaluate(root.chess())
        };
        self.stack[0].excluded = None;
        let count = self.root_moves.len();
        for i in self.pv_index..count {
            let m = self.root_moves[i].mv;
            if self.started.elapsed().as_millis() > 1000 {
                // `currmove` is only worth sending once a search takes noticeable time.
                reporter.current_move(depth, m, i + 1);
            }
            let nodes_before = self.nodes;
            let child = root.play(m);
            self.push(&child, Some(m), root.turn(), 0);
            let gives_check = child.in_check();
            let extension = i32::from(self.config.on(Feature::CheckExtension) && gives_check);
            let new_depth = depth - 1 + extension;
            let mut score;
            if i == self.pv_index {
                score = -self.negamax(&child, new_depth, 1, -beta, -alpha, false);
            } else {
                score = -self.negamax(&child, new_depth, 1, -alpha - 1, -alpha, true);
                if score > alpha && score < beta {
                    score = -self.negamax(&child, new_depth, 1, -beta, -alpha, false);
                }
            }
            self.keys.pop();
            self.root_moves[i].nodes += self.nodes - nodes_before;
            if self.stopped {
                // An interrupted search returns garbage; keep what earlier moves established.
                break;
            }
            let seldepth = self.seldepth;
            let rm = &mut self.root_moves[i];
            if i == self.pv_index || score > alpha {
                rm.score = score;
                rm.bound = Bound::classify(score, alpha, beta);
                rm.seldepth = seldepth;
                rm.pv.clear();
                rm.pv.push(m);
                rm.pv.extend_from_slice(&self.pv[1]);
            } else {
                // Only an upper bound is known: sort it below the moves that raised alpha.
                rm.score = -INFINITY;
            }
            if score > best {
                best = score;
                if score > alpha {
                    alpha = score;
                    if score >= beta {
                        break;
                    }
                }
            }
        }
        best
    }

    /// The best line from `ply` is now `m` followed by the best line from `ply + 1`.
    #[inline]
    fn update_pv(&mut self, ply: usize, m: Move) {
        let (head, tail) = self.pv.split_at_mut(ply + 1);
        head[ply].clear();
        head[ply].push(m);
        head[ply].extend_from_slice(&tail[0]);
    }

    /// Records the move played from `ply` and the child's key for repetition detection.
    #[inline]
    fn push(&mut self, child: &Position, m: Option<Move>, mover: shakmaty::Color, ply: usize) {
        self.keys.push(child.key());
        let f = &mut self.stack[ply];
        f.played = m;
        f.piece_to = m.map(|m| Histories::piece_to(mover, m));
    }

    /// Polls the stop flag and the clocks. Called at every node; the clock only every 1024.
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
        } else if self.nodes & 1023 == 0 {
            if let Some(g) = &self.group {
                g.publish(self.thread_id, self.nodes);
                self.others_nodes = g.others(self.thread_id);
            }
            let pondering = self.check_ponderhit();
            if !pondering && !self.limits.infinite && self.time.hard_limit_reached() {
                self.stopped = true;
            }
        }
        self.stopped
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
    fn is_repetition(&self, ply: usize, halfmoves: usize) -> bool {
        let current = self.root_ply_index + ply;
        let key = self.keys[current];
        let earliest = current.saturating_sub(halfmoves);
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

    /// Step 3: the main alpha-beta search (fail-soft PVS). `cut_node` marks nodes expected to
    /// fail high (the null-window children of a PV or all-node).
    fn negamax(
        &mut self,
        pos: &Position,
        mut depth: i32,
        ply: usize,
        mut alpha: i32,
        mut beta: i32,
        cut_node: bool,
    ) -> i32 {
        // 3.1 Leaf: resolve captures first.
        if depth <= 0 {
            return self.quiescence(pos, ply, alpha, beta);
        }
        let pv_node = beta - alpha > 1;
        self.pv[ply].clear();
        self.nodes += 1;
        if self.should_stop() {
            return 0;
        }
        self.seldepth = self.seldepth.max(ply);
        let selective = self.config.selective;

        // 3.2 Draws and the horizon of the ply stack.
        if self.is_draw(pos, ply) {
            return DRAW;
        }
        let in_check = pos.in_check();
        if ply >= MAX_PLY - 1 {
            return if in_check {
                DRAW
            } else {
                self.evaluator.evaluate(pos.chess())
            };
        }

        // 3.3 Mate-distance pruning: no line from here can beat a mate already found closer
        // to the root.
        if self.config.on(Feature::MateDistance) {
            alpha = alpha.max(mated_in(ply));
            beta = beta.min(mate_in(ply + 1));
            if alpha >= beta {
                return alpha;
            }
        }

        // 3.4 Transposition table: cut off at non-PV nodes with a deep enough, fitting bound.
        let excluded = self.stack[ply].excluded;
        let entry = if self.config.use_tt && excluded.is_none() {
            self.tt.probe(pos.key())
        } else {
            None
        };
        let tt_move = entry.and_then(|e| movepick::decode(pos.chess(), e.mv));
        let tt_score = entry.map(|e| score_from_tt(e.score, ply));
        if let (Some(e), Some(s)) = (entry, tt_score)
            && !pv_node
            && e.depth >= depth
            && match e.bound {
                Bound::Exact => true,
                Bound::Lower => s >= beta,
                Bound::Upper => s <= alpha,
            }
        {
            return s;
        }

        // 3.5 Static evaluation; "improving" if better than two plies ago.
        let static_eval = if in_check {
            -INFINITY
        } else if let Some(e) = entry {
            e.eval
        } else {
            self.evaluator.evaluate(pos.chess())
        };
        self.stack[ply].static_eval = static_eval;
        let improving = !in_check && ply >= 2 && static_eval > self.stack[ply - 2].static_eval;
        // The TT score, when its bound allows, is a better estimate than the static eval.
        let eval = match (entry, tt_score) {
            (Some(e), Some(s)) if !in_check => match e.bound {
                Bound::Exact => s,
                Bound::Lower if s > static_eval => s,
                Bound::Upper if s < static_eval => s,
                _ => static_eval,
            },
            _ => static_eval,
        };
        self.stack[ply + 1].killers = [None, None];
        self.stack[ply + 2].killers = [None, None];

        // Static pruning needs a beta that static scores can reach: against a mate bound
        // only a search can prove anything.
        if selective && !pv_node && !in_check && excluded.is_none() && beta.abs() < MATE_BOUND {
            // 3.6 Reverse futility pruning: bets that a position this far above beta cannot
            // fall below it within a few plies.
            if self.config.on(Feature::ReverseFutility)
                && depth <= 8
                && eval.abs() < MATE_BOUND
                && eval - 80 * (depth - i32::from(improving)) >= beta
            {
                return eval;
            }

            // 3.7 Razoring: bets that a position far below alpha at low depth only has
            // tactical resources, which quiescence sees.
            if self.config.on(Feature::Razoring) && depth <= 3 && eval + 250 * depth < alpha {
                let v = self.quiescence(pos, ply, alpha, alpha + 1);
                if v <= alpha {
                    return v;
                }
            }

            // 3.8 Null-move pruning: bets that passing is worse than the best move, so if
            // passing still fails high the position does too (not with only pawns: zugzwang).
            if self.config.on(Feature::NullMove)
                && depth >= 3
                && eval >= beta
                && static_eval >= beta
                && self.stack[ply.saturating_sub(1)].played.is_some()
                && ply >= 1
                && !pos.only_pawns_and_king()
                && let Some(null) = pos.play_null()
            {
                let r = 3 + depth / 4 + ((eval - beta) / 200).min(3);
                self.keys.push(null.key());
                self.stack[ply].played = None;
                self.stack[ply].piece_to = None;
                let v = -self.negamax(&null, depth - r, ply + 1, -beta, -beta + 1, !cut_node);
                self.keys.pop();
                if self.stopped {
                    return 0;
                }
                if v >= beta {
                    // Do not return an unproven mate.
                    return if v >= MATE_BOUND { beta } else { v };
                }
            }
        }

        // 3.9 Internal iterative reduction: without a TT move this node was never searched
        // well; search it shallower now and properly when the iteration comes back.
        if self.config.on(Feature::Iir)
            && depth >= 4
            && tt_move.is_none()
            && excluded.is_none()
            && (pv_node || cut_node)
        {
            depth -= 1;
        }

        // 3.10 The move loop.
        let prev = if ply >= 1 {
            self.stack[ply - 1].piece_to
        } else {
            None
        };
        let prev2 = if ply >= 2 {
            self.stack[ply - 2].piece_to
        } else {
            None
        };
        let ctx = OrderingContext {
            killers: self.stack[ply].killers,
            counter: self.histories.counter(prev),
            cont: [prev, prev2],
        };
        let mut picker = MovePicker::new(tt_move, ctx);
        let alpha_orig = alpha;
        let mut best_score = -INFINITY;
        let mut best_move: Option<Move> = None;
        let mut legal = 0usize;
        // Fixed-capacity lists on the stack: no allocation in the node loop.
        let mut quiets_tried = MoveList::new();
        let mut captures_tried = MoveList::new();
        let mut skip_quiets = false;
        let us = pos.turn();

        while let Some((m, order_score)) = picker.next(pos.chess(), &self.histories) {
            if Some(m) == excluded {
                continue;
            }
            let quiet = !is_noisy(m);
            legal += 1;

            let gives_check = pos.gives_check(m);

            // 3.11 Move-level pruning, once a move has kept us from being mated.
            if selective && ply > 0 && best_score > -MATE_BOUND {
                if quiet && !in_check && !gives_check {
                    if skip_quiets {
                        continue;
                    }
                    // Late-move pruning: bets that late quiet moves at low depth are bad.
                    let lmp_limit = (3 + depth * depth) / (2 - i32::from(improving));
                    if self.config.on(Feature::LateMovePruning)
                        && depth <= 8
                        && legal as i32 > lmp_limit
                    {
                        skip_quiets = true;
                        continue;
                    }
                    // Futility pruning: bets that a quiet move cannot raise eval by this margin.
                    if self.config.on(Feature::Futility)
                        && depth <= 8
                        && static_eval + 100 + 110 * depth <= alpha
                    {
                        skip_quiets = true;
                        continue;
                    }
                }
                // SEE pruning: bets that moves losing this much material are refuted.
                if self.config.on(Feature::SeePruning) && depth <= 8 && !(quiet && gives_check) {
                    let margin = if quiet {
                        -60 * depth
                    } else {
                        -25 * depth * depth
                    };
                    if !see::see_ge(pos.chess(), m, margin) {
                        continue;
                    }
                }
            }

            // 3.12 Extensions.
            let mut extension = 0;
            if selective && ply > 0 && ply < 2 * MAX_PLY / 3 {
                // Singular extension: if every other move fails low against a bound a little
                // below the TT score, the TT move is the only good one: search it deeper.
                if let (Some(e), Some(s)) = (entry, tt_score)
                    && self.config.on(Feature::Singular)
                    && Some(m) == tt_move
                    && depth >= 8
                    && e.depth >= depth - 3
                    && e.bound != Bound::Upper
                    && s.abs() < MATE_BOUND
                {
                    let singular_beta = s - 2 * depth;
                    self.stack[ply].excluded = Some(m);
                    let v = self.negamax(
                        pos,
                        (depth - 1) / 2,
                        ply,
                        singular_beta - 1,
                        singular_beta,
                        cut_node,
                    );
                    self.stack[ply].excluded = None;
                    self.pv[ply].clear();
                    if self.stopped {
                        return 0;
                    }
                    if v < singular_beta {
                        extension = 1;
                    } else if singular_beta >= beta {
                        // Multi-cut: even without the TT move this node fails high.
                        return singular_beta;
                    } else if s >= beta {
                        extension = -1;
                    }
                }
            }

            let child = pos.play(m);
            self.tt.prefetch(child.key());
            if self.config.on(Feature::CheckExtension) && extension == 0 && gives_check {
                // Check extension: forcing lines are resolved before the horizon.
                extension = 1;
            }
            self.push(&child, Some(m), us, ply);
            let new_depth = depth - 1 + extension;

            // 3.13 PVS: the first move with the full window, the others with a null window
            // (reduced when late), re-searched when they unexpectedly beat alpha.
            let mut score;
            if legal == 1 {
                // The first child of a PV node is a PV node; of a cut-node, an all-node; of
                // an all-node, a cut-node.
                score = -self.negamax(
                    &child,
                    new_depth,
                    ply + 1,
                    -beta,
                    -alpha,
                    !pv_node && !cut_node,
                );
            } else {
                let mut reduction = 0;
                if self.config.on(Feature::Lmr)
                    && depth >= 3
                    && legal > 1 + usize::from(pv_node)
                    && (quiet || order_score < 0)
                {
                    // Late-move reductions: bets that late moves are worse than the first.
                    reduction = self.lmr.get(depth, legal);
                    reduction -= i32::from(pv_node);
                    reduction += i32::from(!improving);
                    reduction += i32::from(cut_node);
                    reduction -= i32::from(gives_check);
                    if quiet {
                        reduction -= order_score.clamp(-16_000, 16_000) / 8_000;
                    }
                    reduction = reduction.clamp(0, new_depth - 1);
                }
                score = -self.negamax(
                    &child,
                    new_depth - reduction,
                    ply + 1,
                    -alpha - 1,
                    -alpha,
                    true,
                );
                if score > alpha && reduction > 0 {
                    score =
                        -self.negamax(&child, new_depth, ply + 1, -alpha - 1, -alpha, !cut_node);
                }
                if score > alpha && score < beta {
                    score = -self.negamax(&child, new_depth, ply + 1, -beta, -alpha, false);
                }
            }
            self.keys.pop();
            if self.stopped {
                return 0;
            }

            if score > best_score {
                best_score = score;
                if score > alpha {
                    best_move = Some(m);
                    if pv_node {
                        self.update_pv(ply, m);
                    }
                    if score >= beta {
                        break;
                    }
                    alpha = score;
                }
            }
            if quiet {
                quiets_tried.push(m);
            } else {
                captures_tried.push(m);
            }
        }

        // 3.14 No legal move: mate or stalemate. (With an excluded move, the node only
        // lacks alternatives: fail low.)
        if legal == 0 {
            return if excluded.is_some() {
                alpha
            } else if in_check {
                mated_in(ply)
            } else {
                DRAW
            };
        }

        // 3.15 Learn from the cutoff.
        if best_score >= beta
            && let Some(bm) = best_move
        {
            let cont = [prev, prev2];
            if !is_noisy(bm) {
                let k = &mut self.stack[ply].killers;
                if k[0] != Some(bm) {
                    k[1] = k[0];
                    k[0] = Some(bm);
                }
                self.histories
                    .update_quiets(us, bm, &quiets_tried, depth, &cont);
                self.histories
                    .update_captures(us, None, &captures_tried, depth);
            } else {
                self.histories
                    .update_captures(us, Some(bm), &captures_tried, depth);
            }
        }

        // 3.16 Store: the bound follows from where the value fell relative to the window.
        if self.config.use_tt && excluded.is_none() {
            let bound = Bound::classify(best_score, alpha_orig, beta);
            let mv = best_move.or(tt_move).map_or(0, movepick::encode);
            self.tt.store(
                pos.key(),
                mv,
                score_to_tt(best_score, ply),
                static_eval.clamp(-MATE_BOUND, MATE_BOUND),
                depth,
                bound,
            );
        }
        best_score
    }

    /// Step 4: quiescence search. Stand pat (the side to move may decline every capture),
    /// then captures and queen promotions; in check, every evasion, so mates are seen.
    fn quiescence(&mut self, pos: &Position, ply: usize, mut alpha: i32, beta: i32) -> i32 {
        let pv_node = beta - alpha > 1;
        self.pv[ply].clear();
        self.nodes += 1;
        if self.should_stop() {
            return 0;
        }
        self.seldepth = self.seldepth.max(ply);
        if self.is_draw(pos, ply) {
            return DRAW;
        }
        let in_check = pos.in_check();
        if ply >= MAX_PLY - 1 {
            return if in_check {
                DRAW
            } else {
                self.evaluator.evaluate(pos.chess())
            };
        }

        let entry = if self.config.use_tt {
            self.tt.probe(pos.key())
        } else {
            None
        };
        if let Some(e) = entry {
            let s = score_from_tt(e.score, ply);
            // Unlike the main search, quiescence takes TT cutoffs at PV nodes too: capture
            // sequences transpose constantly, and a shortened PV tail costs nothing here.
            if match e.bound {
                Bound::Exact => true,
                Bound::Lower => s >= beta,
                Bound::Upper => s <= alpha,
            } {
                return s;
            }
        }
        let tt_move = entry.and_then(|e| movepick::decode(pos.chess(), e.mv));

        let alpha_orig = alpha;
        let static_eval;
        let mut best_score;
        if in_check {
            static_eval = -INFINITY;
            best_score = -INFINITY;
        } else {
            static_eval = match entry {
                Some(e) => e.eval,
                None => self.evaluator.evaluate(pos.chess()),
            };
            // Stand pat: the side to move is not forced to capture.
            best_score = static_eval;
            if best_score >= beta {
                return best_score;
            }
            alpha = alpha.max(best_score);
        }

        let mut picker = MovePicker::quiescence(tt_move);
        let recapture_square = if ply >= 1 {
            self.stack[ply - 1].played.map(|m| m.to())
        } else {
            None
        };
        let mut best_move = None;
        let mut legal = 0;
        let mut searched = 0;
        while let Some((m, _)) = picker.next(pos.chess(), &self.histories) {
            legal += 1;
            if self.config.selective
                && in_check
                && best_score > -MATE_BOUND
                && (!is_noisy(m) || !see::see_ge(pos.chess(), m, 0))
            {
                // Once one evasion has shown we are not mated, further quiet or losing
                // evasions are skipped: bets that they rarely matter, and chains of checks and
                // evasions would otherwise make quiescence explode.
                continue;
            }
            if self.config.selective && !in_check {
                // Move-count pruning: after the best few captures, only recaptures on the
                // square of the last move. Bets that the rest cannot change much, and keeps
                // positions full of mutual attacks from exploding.
                if searched >= 3 && Some(m.to()) != recapture_square {
                    continue;
                }
                // Delta pruning: bets that even winning the captured piece plus a margin
                // cannot lift the score to alpha.
                let gain = see::captured(m).map_or(0, see::value)
                    + m.promotion()
                        .map_or(0, |r| see::value(r) - see::value(shakmaty::Role::Pawn));
                if static_eval + gain + 200 <= alpha {
                    best_score = best_score.max(static_eval + gain + 200);
                    continue;
                }
                // SEE pruning: a capture must win material, and more when the stand-pat
                // score is far below alpha. Bets that even trades below the horizon rarely
                // change the verdict (and chains of them make quiescence explode).
                if !see::see_ge(pos.chess(), m, (alpha - static_eval - 110).max(1)) {
                    continue;
                }
            } else if !in_check && !see::see_ge(pos.chess(), m, 0) {
                // The exact search keeps only the window-independent part of the rule:
                // quiescence never plays captures that lose material. (Minimax applies the
                // same rule, so the tree both search is the same.)
                continue;
            }
            let child = pos.play(m);
            self.tt.prefetch(child.key());
            self.keys.push(child.key());
            self.stack[ply].played = Some(m);
            // PVS here too: after the first move, prove with a null window that a capture
            // does not beat alpha, and re-search with the full window only if it does.
            let score = if pv_node && searched == 0 {
                -self.quiescence(&child, ply + 1, -beta, -alpha)
            } else {
                let s = -self.quiescence(&child, ply + 1, -alpha - 1, -alpha);
                if pv_node && s > alpha && s < beta {
                    -self.quiescence(&child, ply + 1, -beta, -alpha)
                } else {
                    s
                }
            };
            searched += 1;
            self.keys.pop();
            if self.stopped {
                return 0;
            }
            if score > best_score {
                best_score = score;
                if score > alpha {
                    best_move = Some(m);
                    if pv_node {
                        self.update_pv(ply, m);
                    }
                    if score >= beta {
                        break;
                    }
                    alpha = score;
                }
            }
        }
        if in_check && legal == 0 {
            return mated_in(ply);
        }
        if self.config.use_tt {
            let bound = Bound::classify(best_score, alpha_orig, beta);
            self.tt.store(
                pos.key(),
                best_move.or(tt_move).map_or(0, movepick::encode),
                score_to_tt(best_score, ply),
                static_eval.clamp(-MATE_BOUND, MATE_BOUND),
                0,
                bound,
            );
        }
        best_score
    }

    /// Searches `pos` to `depth` with the window (alpha, beta) exactly as the main search
    /// does below the root (for tests of the window theorem). `history` are the keys of the
    /// positions before `pos`.
    pub fn search_window(
        &mut self,
        pos: &Position,
        history: &[u64],
        depth: i32,
        alpha: i32,
        beta: i32,
    ) -> i32 {
        self.prepare_fixed(pos, history);
        let pv_node = beta - alpha > 1;
        self.negamax(pos, depth, 0, alpha, beta, !pv_node)
    }

    fn prepare_fixed(&mut self, pos: &Position, history: &[u64]) {
        self.limits = Limits::default();
        self.time = TimeManager::infinite();
        self.stopped = false;
        self.nodes = 0;
        self.keys.clear();
        self.keys.extend_from_slice(history);
        self.keys.push(pos.key());
        self.root_ply_index = self.keys.len() - 1;
        for f in self.stack.iter_mut() {
            *f = Frame::default();
        }
    }

    /// Plain minimax (no alpha-beta, no TT, no pruning) over the same tree as the exact
    /// search: the same evaluation, the same quiescence moves, the same draw rules.
    /// Gives up (`None`) after `max_nodes` nodes: full-width capture trees can be huge.
    pub fn minimax(
        &mut self,
        pos: &Position,
        history: &[u64],
        depth: i32,
        max_nodes: u64,
    ) -> Option<i32> {
        self.prepare_fixed(pos, history);
        self.limits.nodes = Some(max_nodes);
        let v = self.minimax_node(pos, depth, 0);
        self.limits.nodes = None;
        (self.nodes <= max_nodes).then_some(v)
    }

    fn minimax_node(&mut self, pos: &Position, depth: i32, ply: usize) -> i32 {
        self.nodes += 1;
        if self.limits.nodes.is_some_and(|n| self.nodes > n) {
            return 0;
        }
        if depth > 0 && self.is_draw(pos, ply) {
            return DRAW;
        }
        let in_check = pos.in_check();
        if depth <= 0 {
            return self.minimax_quiescence(pos, ply);
        }
        if ply >= MAX_PLY - 1 {
            return if in_check {
                DRAW
            } else {
                self.evaluator.evaluate(pos.chess())
            };
        }
        let moves = pos.chess().legal_moves();
        if moves.is_empty() {
            return if in_check { mated_in(ply) } else { DRAW };
        }
        let mut best = -INFINITY;
        for m in moves {
            let child = pos.play(m);
            self.keys.push(child.key());
            best = best.max(-self.minimax_node(&child, depth - 1, ply + 1));
            self.keys.pop();
        }
        best
    }

    fn minimax_quiescence(&mut self, pos: &Position, ply: usize) -> i32 {
        self.nodes += 1;
        if self.limits.nodes.is_some_and(|n| self.nodes > n) {
            return 0;
        }
        if self.is_draw(pos, ply) {
            return DRAW;
        }
        let in_check = pos.in_check();
        if ply >= MAX_PLY - 1 {
            return if in_check {
                DRAW
            } else {
                self.evaluator.evaluate(pos.chess())
            };
        }
        let mut moves = pos.chess().legal_moves();
        let mut best = if in_check {
            if moves.is_empty() {
                return mated_in(ply);
            }
            -INFINITY
        } else {
            moves.retain(|m| {
                (m.is_capture() || m.promotion() == Some(shakmaty::Role::Queen))
                    && see::see_ge(pos.chess(), *m, 0)
            });
            self.evaluator.evaluate(pos.chess())
        };
        for m in moves {
            let child = pos.play(m);
            self.keys.push(child.key());
            best = best.max(-self.minimax_quiescence(&child, ply + 1));
            self.keys.pop();
        }
        best
    }

    /// The evaluator (for the `eval` command and tests).
    pub fn evaluator(&mut self) -> &mut Evaluator {
        &mut self.evaluator
    }

    /// When the last search started.
    pub fn started(&self) -> Instant {
        self.started
    }
}
