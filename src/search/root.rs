//! The root of the search (step 1 and 2): setting up a search, iterative deepening with
//! aspiration windows, the root move loop (MultiPV, `searchmoves`, `currmove`, late-move
//! reductions), time checks between iterations, and the `info` reports.

use std::sync::atomic::Ordering;
use std::time::Instant;

use shakmaty::Move;

use super::{Feature, Frame, IterationInfo, Limits, Reporter, RootMove, SearchResult, Searcher};
use crate::movepick::{self, MovePicker, OrderingContext};
use crate::params;
use crate::position::Position;
use crate::score::{Bound, DRAW, INFINITY, MATE, MATE_BOUND, MAX_PLY, TB_BOUND, mated_in};
use crate::time::{Stability, TimeManager};

/// With a single legal move on the clock, the search stops at this depth (or after a quarter
/// of the soft limit): the move is forced, the search only gives it a real score.
pub const SINGLE_MOVE_DEPTH: i32 = 8;

impl Searcher {
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
        // A tuning build may have changed the reduction constants since the last search.
        #[cfg(feature = "tune")]
        {
            self.lmr = super::alphabeta::LmrTable::new();
        }
        self.limits = limits;
        self.limits.multipv = self.limits.multipv.max(1);
        self.time = time;
        self.poll_mask = if self.time.hard_ms().is_some_and(|h| h < 50) {
            127
        } else {
            1023
        };
        self.started = Instant::now();
        self.nodes = 0;
        self.others_nodes = 0;
        self.tb_hits = 0;
        self.others_tb_hits = 0;
        self.tb_cardinality = self
            .tablebases
            .as_ref()
            .map_or(0, |tb| self.tb_settings.limit.min(tb.max_pieces()));
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
        self.net.reset(root.chess());
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
                pv: vec![mv],
                seldepth: 0,
                nodes: 0,
                tb_score: None,
            })
            .collect();
        self.rank_root_moves_by_tablebases(root);

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
                tbhits: 0,
                elapsed_ms: self.started.elapsed().as_millis() as u64,
                hashfull: self.tt.hashfull(),
                pv: &[],
                scaled: self.config.scales_material(),
            });
            self.wait_for_stop_if_required();
            return SearchResult {
                best: None,
                ponder: None,
                score,
                depth: 0,
                nodes: 0,
                lines: Vec::new(),
            };
        }

        let result = self.iterative_deepening(root, reporter);
        self.wait_for_stop_if_required();
        result
    }

    /// `go infinite` and `go ponder` must not answer before `stop` (or `ponderhit`).
    pub(super) fn wait_for_stop_if_required(&mut self) {
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

    /// Step 1: iterative deepening. Each depth searches every MultiPV line in its aspiration
    /// window, reports the lines, then decides whether another iteration is worth its time.
    pub(super) fn iterative_deepening(
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
        let mut completed_lines = Vec::new();
        let mut progress = Progress::default();
        let mut depth_searched = 0;
        self.last_shown = None;

        for depth in 1..=max_depth {
            depth_searched = depth;
            if self.thread_id % 2 == 1 && depth > 1 && depth % 2 == 0 {
                // Odd helpers skip the even depths: threads diverge instead of racing each
                // other through the same tree.
                continue;
            }
            // The last iteration's scores become the previous ones, and none is this
            // iteration's until its search gives it: a move that a stop leaves unsearched
            // must not sort above the ones searched on a score from a shallower depth.
            for rm in self.root_moves.iter_mut() {
                rm.previous_score = rm.score;
                rm.score = -INFINITY;
            }
            for pv_index in 0..multipv {
                self.pv_index = pv_index;
                self.seldepth = 0;
                self.aspiration_window(root, depth, depth == max_depth, reporter);
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
            // Lines the iteration scored (a first iteration cut short leaves some unscored).
            completed_lines = self.root_moves[..multipv]
                .iter()
                .filter(|rm| rm.score > -INFINITY)
                .cloned()
                .collect();
            let best = &self.root_moves[0];
            let share = best.nodes as f64 / self.nodes.max(1) as f64;
            let stability = progress.update(best.mv, best.score, share);
            if self.iteration_is_enough(depth, best.score, stability) {
                break;
            }
        }
        // A move that took the lead in the unfinished last iteration is the one played: show
        // its line, its score a lower bound (it beat the old best move, but not every move was
        // searched), so that the last line printed begins with the move played. With MultiPV
        // the same holds for a first line completed before a later line was cut short.
        if self.root_moves[0].score > -INFINITY && self.last_shown != Some(self.root_moves[0].mv) {
            self.report(reporter, depth_searched, 0, Bound::Lower);
        }
        self.result(root, completed_depth, completed_lines)
    }

    /// Searches the line `pv_index` at `depth` inside an aspiration window: bets that this
    /// iteration's score lands within `asp_delta` cp of the last one, so a narrow window cuts
    /// more; when it does not, the window widens by half again each time until the score
    /// falls inside. (+56.7 +/- 34.5 Elo at 20,000 nodes a move) A window that fails is
    /// reported as a bound once the search has run a second.
    fn aspiration_window(
        &mut self,
        root: &Position,
        depth: i32,
        last_asked: bool,
        reporter: &mut dyn Reporter,
    ) {
        let pv_index = self.pv_index;
        let previous = self.root_moves[pv_index].previous_score;
        let mut delta = params::asp_delta();
        let (mut alpha, mut beta) = if depth >= params::asp_min_depth()
            && self.config.on(Feature::Aspiration)
            && previous.abs() < TB_BOUND
        {
            (
                (previous - delta).max(-INFINITY),
                (previous + delta).min(INFINITY),
            )
        } else {
            (-INFINITY, INFINITY)
        };
        // A fail high re-searches a ply shallower each time (at most three plies): the move
        // that failed high is likely good, and proving it at full depth repeats the iteration.
        // A fail low goes back to the full depth. (+7.8 +/- 11.1 Elo at 25,000 nodes over 2,000
        // games, +20.9 +/- 26.6 at 8+0.08 over 200.) The last iteration the limits allow
        // (`last_asked`) always runs at full depth: `go depth N` searches N plies.
        let mut search_depth = depth;
        loop {
            let score = self.search_root(root, search_depth, alpha, beta, reporter);
            // Stable sort keeps the order of equal scores: the best move comes first.
            self.root_moves[pv_index..].sort_by_key(|rm| std::cmp::Reverse(rm.score));
            if self.stopped {
                return;
            }
            let bound = if score <= alpha {
                // Fail low: widen downwards, and pull beta in to re-search faster.
                beta = (alpha + beta) / 2;
                alpha = (score - delta).max(-INFINITY);
                search_depth = depth;
                Bound::Upper
            } else if score >= beta {
                beta = (score + delta).min(INFINITY);
                if score.abs() < TB_BOUND && !last_asked {
                    search_depth = (search_depth - 1).max(depth - 3).max(1);
                }
                Bound::Lower
            } else {
                return;
            };
            if self.started.elapsed().as_millis() > 1000 {
                self.report(reporter, depth, pv_index, bound);
            }
            delta += delta / 2;
        }
    }

    /// The one decision between iterations: is the search done? Yes when `go mate` has its
    /// mate, the soft node budget is spent, a mate is proven beyond doubt, a single legal move
    /// has its score, or the clock (scaled by `stability`) says another iteration does not pay.
    /// A search that ponders or analyses (`infinite`) only stops for the first two.
    fn iteration_is_enough(&mut self, depth: i32, score: i32, stability: Stability) -> bool {
        if self
            .limits
            .mate
            .is_some_and(|n| score >= MATE_BOUND && (MATE - score + 1) / 2 <= n)
        {
            return true;
        }
        if self
            .limits
            .soft_nodes
            .is_some_and(|soft| self.total_nodes() >= soft)
        {
            return true;
        }
        if self.check_ponderhit() {
            return false;
        }
        // A mate (for either side) proven by an iteration twice as deep as the mate is long
        // is not going to change: a search that is not asked for a depth or for analysis
        // answers now instead of racing through every depth up to the last.
        let proven_mate = !self.limits.infinite
            && self.limits.depth.is_none()
            && score.abs() >= MATE_BOUND
            && depth >= 2 * (MATE - score.abs()) + 2;
        proven_mate
            || self.single_move_done(depth)
            || (!self.limits.infinite && !self.time.should_start_iteration(stability))
    }

    /// The answer: the best root move, a move to ponder on, the score to show and the lines
    /// of the last completed iteration.
    fn result(
        &self,
        root: &Position,
        completed_depth: i32,
        completed_lines: Vec<RootMove>,
    ) -> SearchResult {
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
        let score = Self::shown_score(best, score);
        SearchResult {
            best: Some(best.mv),
            ponder,
            score,
            depth: completed_depth,
            nodes: self.total_nodes(),
            lines: completed_lines,
        }
    }

    /// A single legal move in a game on the clock: no choice to make, so once the search has
    /// a real score for it (`SINGLE_MOVE_DEPTH`, or a quarter of the soft limit spent) the time
    /// is saved for later moves. An explicit `depth`, `nodes`, `mate`, `movetime` or
    /// `infinite` is honoured in full.
    fn single_move_done(&self, depth: i32) -> bool {
        let limits = &self.limits;
        if self.root_moves.len() != 1
            || !limits.searchmoves.is_empty()
            || !self.time.on_clock()
            || limits.infinite
            || limits.depth.is_some()
            || limits.nodes.is_some()
            || limits.mate.is_some()
        {
            return false;
        }
        let quarter = self.time.soft_ms().map_or(u64::MAX, |soft| soft / 4);
        depth >= SINGLE_MOVE_DEPTH || self.time.elapsed_ms() >= quarter
    }

    pub(super) fn pondering(&self) -> bool {
        self.flags.pondering.load(Ordering::Relaxed)
    }

    /// After `ponderhit` the clock starts from that moment. Returns whether the search is
    /// still pondering (the flag is read once, so a `ponderhit` arriving in between cannot
    /// leave the clock unrestarted while the limits already apply).
    pub(super) fn check_ponderhit(&mut self) -> bool {
        let pondering = self.pondering();
        if self.was_pondering && !pondering {
            self.was_pondering = false;
            self.time.restart();
        }
        pondering
    }

    pub(super) fn report(
        &mut self,
        reporter: &mut dyn Reporter,
        depth: i32,
        pv_index: usize,
        bound: Bound,
    ) {
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
        if pv_index == 0 {
            self.last_shown = Some(rm.mv);
        }
        let shown = Self::shown_score(rm, score);
        reporter.iteration(&IterationInfo {
            depth,
            seldepth: rm.seldepth.max(1),
            multipv: pv_index + 1,
            score: shown,
            // The tables' score is exact whatever window the search had.
            bound: if shown == score { bound } else { Bound::Exact },
            nodes: self.total_nodes(),
            tbhits: self.total_tb_hits(),
            elapsed_ms: self.started.elapsed().as_millis() as u64,
            hashfull: self.tt.hashfull(),
            pv: &rm.pv,
            scaled: self.config.scales_material(),
        });
    }

    /// The score to report for a root move the search scored `score`: the tables' result
    /// when the root is in the tables, unless the search proved a mate.
    fn shown_score(rm: &RootMove, score: i32) -> i32 {
        match rm.tb_score {
            Some(tb) if score.abs() < MATE_BOUND => tb,
            _ => score,
        }
    }

    /// When the root is in the tables (few enough pieces, no castling rights), keeps only the
    /// root moves that hold the tables' best result and, winning, make progress towards the
    /// next capture, pawn move or mate (`Tablebases::rank_root`), best-ranked first, each
    /// with the tables' score to report. Only moves already allowed (`searchmoves`) are
    /// ranked. Without an answer from the tables the moves are left as they are.
    fn rank_root_moves_by_tablebases(&mut self, root: &Position) {
        let Some(tb) = self.tablebases.clone() else {
            return;
        };
        if self.root_moves.is_empty() || !tb.covers(root.chess(), self.tb_cardinality) {
            return;
        }
        let moves: Vec<Move> = self.root_moves.iter().map(|rm| rm.mv).collect();
        let Some(ranking) = tb.rank_root(root.chess(), &moves, self.tb_settings.rule50) else {
            return;
        };
        self.tb_hits += ranking.probes;
        let mut ranked = Vec::with_capacity(ranking.moves.len());
        for (mv, tb_score) in ranking.moves {
            if let Some(i) = self.root_moves.iter().position(|rm| rm.mv == mv) {
                let mut rm = self.root_moves.swap_remove(i);
                rm.tb_score = Some(tb_score);
                ranked.push(rm);
            }
        }
        self.root_moves = ranked;
    }

    /// Step 2: the root. PVS over the root moves not yet taken by earlier MultiPV lines.
    pub(super) fn search_root(
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
            self.evaluate(root, 0)
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
                // Late-move reductions at the root: bets that a late quiet move, sorted there
                // by the iterations before, is no better than the moves ahead of it (one ply
                // less than below the root, where the table's reduction applies in full).
                // (+24.4 +/- 9.8 at 25,000 nodes, 3,000 games, session 49; +13.9 +/- 28.9 at
                // 8+0.08, 200 games, session 51)
                let mut reduction = 0;
                if self.config.on(Feature::Lmr)
                    && depth >= params::lmr_min_depth()
                    && i >= self.pv_index + 3
                    && !gives_check
                    && !movepick::is_noisy(m)
                {
                    reduction =
                        (self.lmr.get(depth, i + 1 - self.pv_index) - 1).clamp(0, new_depth - 1);
                }
                score = -self.negamax(&child, new_depth - reduction, 1, -alpha - 1, -alpha, true);
                if score > alpha && reduction > 0 {
                    score = -self.negamax(&child, new_depth, 1, -alpha - 1, -alpha, true);
                }
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
}

/// What the completed iterations say about how settled the root is, for time management.
#[derive(Debug, Default)]
struct Progress {
    /// Best-move changes, halved every iteration.
    best_move_changes: f64,
    /// Iterations in a row that kept the same best move.
    stable_iterations: u32,
    last_best: Option<Move>,
    last_score: Option<i32>,
}

impl Progress {
    /// Takes in an iteration's best move, its score and the share of all nodes it took.
    fn update(&mut self, best: Move, score: i32, best_move_share: f64) -> Stability {
        if self.last_best.is_some_and(|last| last != best) {
            self.best_move_changes += 1.0;
            self.stable_iterations = 0;
        } else {
            self.stable_iterations += 1;
        }
        self.last_best = Some(best);
        self.best_move_changes *= 0.5;
        // How the best score moved since the last iteration, whichever move holds it.
        let score_change = self.last_score.map_or(0, |last| score - last);
        self.last_score = Some(score);
        Stability {
            instability: self.best_move_changes,
            stable_iterations: self.stable_iterations,
            best_move_share,
            score_change,
        }
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use shakmaty::{CastlingMode, Move};

    use super::super::{
        Limits, RootMove, SearchConfig, SearchResult, Searcher, SharedFlags, Silent,
    };
    use crate::position::Position;
    use crate::score::INFINITY;
    use crate::time::TimeManager;
    use crate::tt::TranspositionTable;

    fn fresh() -> Searcher {
        Searcher::new(
            Arc::new(TranspositionTable::new(16)),
            Arc::new(SharedFlags::default()),
        )
    }

    fn search(pos: &Position, limits: Limits) -> (Searcher, SearchResult) {
        search_with(pos, limits, SearchConfig::default())
    }

    fn search_with(
        pos: &Position,
        limits: Limits,
        config: SearchConfig,
    ) -> (Searcher, SearchResult) {
        let mut s = fresh();
        s.config = config;
        let r = s.search(pos, &[], limits, TimeManager::infinite(), &mut Silent);
        (s, r)
    }

    fn to_depth(pos: &Position, depth: i32) -> (Searcher, SearchResult) {
        let limits = Limits {
            depth: Some(depth),
            ..Limits::default()
        };
        search(pos, limits)
    }

    fn root_move(s: &Searcher, mv: Move) -> &RootMove {
        s.root_moves.iter().find(|rm| rm.mv == mv).unwrap()
    }

    /// A search stopped inside an iteration plays the last completed iteration's best move or
    /// a move the unfinished iteration searched and scored, never one that still holds its
    /// score from the shallower iteration because the stop came before it was reached (the
    /// defect mended in session 47: the first move searched had dropped below that stale
    /// score). A node-limited search from a fresh searcher repeats a depth-limited one node for
    /// node, so the stops are placed just after the unfinished iteration's first move, where
    /// the defect struck; the nodes a move gained beyond the last completed depth, and with one
    /// node more of budget, show whether that iteration finished it. (Reintroduce the defect,
    /// by keeping the scores at the start of an iteration, and this test fails at once.) The
    /// searches run without aspiration windows: the last iteration a depth limit asks for
    /// re-searches a fail high at full depth, where a search without that limit goes
    /// shallower, so with windows the two would part in the iteration the test compares.
    #[test]
    fn a_stopped_iteration_plays_only_a_move_it_searched() {
        let config = SearchConfig::without("aspiration").unwrap();
        let search = |pos: &Position, limits: Limits| search_with(pos, limits, config);
        let to_depth = |pos: &Position, depth: i32| {
            let limits = Limits {
                depth: Some(depth),
                ..Limits::default()
            };
            search_with(pos, limits, config)
        };
        let mut from_unfinished = 0;
        for fen in include_str!("../../bench-positions/bench.fen")
            .lines()
            .filter(|l| !l.trim().is_empty())
        {
            let pos = Position::from_fen(fen.trim(), CastlingMode::Standard).unwrap();
            let (mut before, mut done) = to_depth(&pos, 1);
            let Some(mut first) = done.best else { continue };
            for depth in 2..=7 {
                let (after, next) = to_depth(&pos, depth);
                // The nodes the root spent when the first move of `depth` was done.
                let first_done =
                    done.nodes + root_move(&after, first).nodes - root_move(&before, first).nodes;
                for extra in [2, 30, 300, 1_500] {
                    let limits = Limits {
                        nodes: Some(first_done + extra),
                        ..Limits::default()
                    };
                    let (cut, r) = search(&pos, limits);
                    let played = r.best.unwrap();
                    if r.depth != depth - 1 || played == first {
                        continue;
                    }
                    from_unfinished += 1;
                    // A move the unfinished iteration left unreached gained no nodes there; one
                    // it cut short gains the next node of budget. Either would still hold the
                    // score the last iteration gave it. (A move that finished and then began
                    // a wider window also gains that node, but with a score of its own.)
                    let (longer, _) = search(
                        &pos,
                        Limits {
                            nodes: Some(first_done + extra + 1),
                            ..Limits::default()
                        },
                    );
                    let rm = root_move(&cut, played);
                    let old = root_move(&before, played);
                    let unfinished =
                        rm.nodes == old.nodes || root_move(&longer, played).nodes > rm.nodes;
                    assert!(
                        rm.score > -INFINITY && !(unfinished && rm.score == old.score),
                        "{fen} stopped at depth {depth}: {played} played on its score from \
                         depth {}",
                        depth - 1
                    );
                }
                (before, done) = (after, next);
                first = done.best.unwrap();
            }
        }
        // The case the test is about must occur, or it proves nothing.
        assert!(
            from_unfinished >= 3,
            "{from_unfinished} moves from unfinished iterations"
        );
    }

    /// The table marks the nodes a principal variation passed through: every position along
    /// the line a search returns was searched with an open window, while the root's other
    /// moves, refuted with null windows, were not (unless a re-search opened one for them).
    /// (Mark every node, or none, and this test fails.)
    #[test]
    fn the_table_marks_the_principal_variation() {
        let pos = Position::from_fen(
            "r1bqkb1r/pppp1ppp/2n2n2/4p3/2B1P3/5N2/PPPP1PPP/RNBQK2R w KQkq - 4 4",
            CastlingMode::Standard,
        )
        .unwrap();
        let (s, r) = to_depth(&pos, 9);
        let mut along = pos.clone();
        for m in r.lines[0].pv.iter().take(4) {
            along = along.play(*m);
            let e =
                s.tt.probe(along.key())
                    .expect("a PV position is in the table");
            assert!(e.pv, "after {m}: {}", along.fen());
        }
        let best = r.best.unwrap();
        let unmarked = s
            .root_moves
            .iter()
            .filter(|rm| rm.mv != best)
            .filter_map(|rm| s.tt.probe(pos.play(rm.mv).key()))
            .filter(|e| !e.pv)
            .count();
        assert!(unmarked >= 10, "{unmarked} root moves' replies unmarked");
    }
}
