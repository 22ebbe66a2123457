//! Step 3: the main alpha-beta search below the root, a fail-soft PVS/NegaScout with the
//! transposition table, the selective techniques (each a bet, its comment says on what) and
//! the late-move reduction table.
//!
//! Every selective step was measured in games against the same build without it
//! (`SCOUT_DISABLE`, docs/results.md, "Search features"); each step's comment gives its Elo
//! (20,000 nodes a move, pentanomial 95% bars, measured with the handcrafted evaluation the
//! engine had then). Razoring, IIR and futility pruning each measured about 0 Elo alone, the
//! other two being on, but the three removed together lost 14.5 +/- 22.7 Elo over 600 games
//! (1,541 games in all: about +13): they overlap, and are kept as a group.

use shakmaty::{Move, MoveList};

use super::{Feature, Searcher};
use crate::movepick::{self, MovePicker, OrderingContext, is_noisy};
use crate::params;
use crate::position::Position;
use crate::score::{Bound, DRAW, INFINITY, MAX_PLY, TB_BOUND, mate_in, mated_in};
use crate::see;
use crate::tt::{Entry, is_tt_pv, score_from_tt, score_to_tt};

/// Late-move reduction table, indexed by depth and move number.
pub(super) struct LmrTable([[i32; 64]; 64]);

impl LmrTable {
    pub(super) fn new() -> LmrTable {
        let mut t = [[0; 64]; 64];
        let base = f64::from(params::lmr_base()) / 100.0;
        let div = f64::from(params::lmr_div()) / 100.0;
        for (d, row) in t.iter_mut().enumerate().skip(1) {
            for (m, r) in row.iter_mut().enumerate().skip(1) {
                // Reductions grow with the logarithm of both the depth and the move number.
                *r = (base + (d as f64).ln() * (m as f64).ln() / div) as i32;
            }
        }
        LmrTable(t)
    }

    pub(super) fn get(&self, depth: i32, moves: usize) -> i32 {
        self.0[(depth as usize).min(63)][moves.min(63)]
    }
}

impl Searcher {
    /// Step 3: the main alpha-beta search (fail-soft PVS). `cut_node` marks nodes expected to
    /// fail high (the null-window children of a PV or all-node).
    pub(super) fn negamax(
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
            return self.horizon_value(pos, in_check, ply);
        }

        // 3.3 Mate-distance pruning: no line from here can beat a mate already found closer
        // to the root. (No game changes, -3.5 +/- 6.7; kept for 3-600x fewer nodes to prove
        // a mate.)
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
        // A PV node, or one a principal variation once passed through (the table remembers):
        // the bet is that such a node may become the PV again, so its moves are reduced less.
        // (+13.0 +/- 11.4 at 25,000 nodes, 2,000 games; docs/results.md, session 54.)
        let tt_pv = is_tt_pv(pv_node, entry);
        if let (Some(e), Some(s)) = (entry, tt_score)
            && !pv_node
            && e.depth >= depth
            && e.bound.cuts(s, alpha, beta)
        {
            return s;
        }

        // 3.5 Static evaluation (the net's, kept raw in the TT, then corrected by the average
        // errors of its pawn structure and pieces: see `correction.rs`); "improving" if better
        // than two plies ago.
        let raw_eval = if in_check {
            -INFINITY
        } else if let Some(e) = entry {
            e.eval
        } else {
            self.evaluate(pos, ply)
        };
        let slots = if in_check {
            None
        } else {
            self.correction_slots(pos)
        };
        let static_eval = if in_check {
            -INFINITY
        } else {
            self.corrected(slots, raw_eval)
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

        // 3.5b Endgame tablebases: right after a capture or pawn move, a position the tables
        // hold has a known value. A draw is exact; a win is at least a tablebase win (a mate
        // may be better) and a loss at most a tablebase loss, so those cut off only when the
        // bound allows; otherwise, at PV nodes, they bound what the moves below can score.
        let alpha_orig = alpha;
        let mut best_score = -INFINITY;
        let mut max_score = INFINITY;
        if excluded.is_none()
            && let Some((score, bound)) = self.probe_tablebases(pos, depth, ply)
        {
            if bound.cuts(score, alpha, beta) {
                if self.config.use_tt {
                    self.tt.store(
                        pos.key(),
                        Entry {
                            mv: 0,
                            score: score_to_tt(score, ply),
                            eval: raw_eval,
                            depth: (depth + 6).min(MAX_PLY as i32 - 1),
                            bound,
                            pv: tt_pv,
                        },
                    );
                }
                return score;
            }
            if pv_node {
                if bound == Bound::Lower {
                    best_score = score;
                    alpha = alpha.max(score);
                } else {
                    max_score = score;
                }
            }
        }

        // Static pruning needs a beta that static scores can reach: against a mate bound
        // only a search can prove anything.
        if selective && !pv_node && !in_check && excluded.is_none() && beta.abs() < TB_BOUND {
            // 3.6 Reverse futility pruning: bets that a position this far above beta cannot
            // fall below it within a few plies. (+81.9 +/- 41.1)
            if self.config.on(Feature::ReverseFutility)
                && depth <= params::rfp_max_depth()
                && eval.abs() < TB_BOUND
                && eval - params::rfp_margin() * (depth - i32::from(improving)) >= beta
            {
                return eval;
            }

            // 3.7 Razoring: bets that a position far below alpha at low depth only has
            // tactical resources, which quiescence sees. (-8.1 +/- 23.8 alone; see the
            // group above)
            if self.config.on(Feature::Razoring)
                && depth <= params::razor_max_depth()
                && eval + params::razor_margin() * depth < alpha
            {
                let v = self.quiescence(pos, ply, alpha, alpha + 1);
                if v <= alpha {
                    return v;
                }
            }

            // 3.8 Null-move pruning: bets that passing is worse than the best move, so if
            // passing still fails high the position does too (not with only pawns: zugzwang).
            // (+60.2 +/- 35.5)
            if self.config.on(Feature::NullMove)
                && depth >= params::nmp_min_depth()
                && eval >= beta
                && static_eval >= beta
                && self.stack[ply.saturating_sub(1)].played.is_some()
                && ply >= 1
                && !pos.only_pawns_and_king()
                && let Some(null) = pos.play_null()
            {
                let r = params::nmp_base()
                    + depth / params::nmp_depth_div()
                    + ((eval - beta) / params::nmp_eval_div()).min(params::nmp_eval_max());
                self.push(&null, None, pos.turn(), ply);
                let v = -self.negamax(&null, depth - r, ply + 1, -beta, -beta + 1, !cut_node);
                self.keys.pop();
                if self.stopped {
                    return 0;
                }
                if v >= beta {
                    // Do not return an unproven mate or tablebase win.
                    return if v >= TB_BOUND { beta } else { v };
                }
            }
        }

        // 3.9 Internal iterative reduction: without a TT move this node was never searched
        // well; search it shallower now and properly when the iteration comes back. (+0.6 +/-
        // 22.6 alone; see the group above)
        if self.config.on(Feature::Iir)
            && depth >= params::iir_min_depth()
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
            if selective && ply > 0 && best_score > -TB_BOUND {
                if quiet && !in_check && !gives_check {
                    if skip_quiets {
                        continue;
                    }
                    // Late-move pruning: bets that late quiet moves at low depth are bad.
                    // (+144.5 +/- 55.2)
                    let lmp_limit =
                        (params::lmp_base() + depth * depth) / (2 - i32::from(improving));
                    if self.config.on(Feature::LateMovePruning)
                        && depth <= params::lmp_max_depth()
                        && legal as i32 > lmp_limit
                    {
                        skip_quiets = true;
                        continue;
                    }
                    // Futility pruning: bets that a quiet move cannot raise eval by this
                    // margin. (-0.0 +/- 23.0 alone; see the group above) The quiet moves it
                    // skips could have scored up to the margin, so the node's value is not
                    // known to lie below it: a fail-low returns (and stores, and corrects the
                    // evaluation by) no less. (With the root's fresh scores of session 47: +5.2
                    // +/- 16.8 at 25,000 nodes, 1,000 games.)
                    let futility_value =
                        static_eval + params::fut_base() + params::fut_margin() * depth;
                    if self.config.on(Feature::Futility)
                        && depth <= params::fut_max_depth()
                        && futility_value <= alpha
                    {
                        if futility_value.abs() < TB_BOUND {
                            best_score = best_score.max(futility_value);
                        }
                        skip_quiets = true;
                        continue;
                    }
                }
                // SEE pruning: bets that moves losing this much material are refuted.
                // (+111.7 +/- 49.3)
                if self.config.on(Feature::SeePruning)
                    && depth <= params::see_max_depth()
                    && !(quiet && gives_check)
                {
                    let margin = if quiet {
                        -params::see_quiet_margin() * depth
                    } else {
                        -params::see_noisy_margin() * depth * depth
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
                // (With multi-cut and the negative extension: +47.0 +/- 30.6)
                if let (Some(e), Some(s)) = (entry, tt_score)
                    && self.config.on(Feature::Singular)
                    && Some(m) == tt_move
                    && depth >= params::se_min_depth()
                    && e.depth >= depth - params::se_tt_depth_margin()
                    && e.bound != Bound::Upper
                    && s.abs() < TB_BOUND
                {
                    let singular_beta = s - params::se_beta_margin() * depth;
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
                        // Negative extension: other moves come close to the TT score and
                        // that score already beats beta, so this node will most likely
                        // fail high through one of them; the TT move gets a ply less.
                        extension = -1;
                    }
                }
            }

            let child = pos.play_announcing(m, |key| self.tt.prefetch(key));
            if self.config.on(Feature::CheckExtension) && extension == 0 && gives_check {
                // Check extension: forcing lines are resolved before the horizon. (1,600
                // games: 577-547-476, about +6.5; +18.0 +/- 22.8 in the last 600)
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
                    && depth >= params::lmr_min_depth()
                    && legal > 1 + usize::from(pv_node)
                    && (quiet || order_score < 0)
                {
                    // Late-move reductions: bets that late moves are worse than the first.
                    // (+132.9 +/- 53.8)
                    reduction = self.lmr.get(depth, legal);
                    reduction -= i32::from(tt_pv);
                    reduction += i32::from(!improving);
                    reduction += i32::from(cut_node);
                    reduction -= i32::from(gives_check);
                    if quiet {
                        reduction -= (order_score / params::lmr_history_div()).clamp(-2, 2);
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

        // A tablebase loss caps what the moves scored (they cannot beat the tables).
        best_score = best_score.min(max_score);

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
                let threatened = picker.threats(pos.chess()).all;
                self.histories
                    .update_quiets(us, bm, &quiets_tried, depth, threatened, &cont);
                self.histories
                    .update_captures(us, None, &captures_tried, depth);
            } else {
                self.histories
                    .update_captures(us, Some(bm), &captures_tried, depth);
            }
        }

        // 3.16 Store: the bound follows from where the value fell relative to the window.
        let bound = Bound::classify(best_score, alpha_orig, beta);
        if self.config.use_tt && excluded.is_none() {
            let mv = best_move.or(tt_move).map_or(0, movepick::encode);
            self.tt.store(
                pos.key(),
                Entry {
                    mv,
                    score: score_to_tt(best_score, ply),
                    eval: raw_eval,
                    depth,
                    bound,
                    pv: tt_pv,
                },
            );
        }

        // 3.17 Correction history: a quiet node's searched score, where its bound says which
        // side of the static evaluation it lies, tells how far the evaluation was off.
        // (+6.3 +/- 17.7 at 25,000 nodes; docs/results.md, session 24.)
        if let Some(slots) = slots
            && excluded.is_none()
            && best_move.is_none_or(|m| !is_noisy(m))
            && best_score.abs() < TB_BOUND
            && !(bound == Bound::Lower && best_score <= static_eval)
            && !(bound == Bound::Upper && best_score >= static_eval)
        {
            self.correction.update(slots, depth, raw_eval, best_score);
        }
        best_score
    }
}
