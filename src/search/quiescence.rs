//! Step 4: the quiescence search that resolves captures (and, in check, every evasion)
//! before a position is evaluated.

use super::{Feature, Searcher};
use crate::movepick::{self, MovePicker, is_noisy};
use crate::params;
use crate::position::Position;
use crate::score::{Bound, DRAW, INFINITY, MAX_PLY, TB_BOUND, mated_in};
use crate::see;
use crate::tt::{Entry, is_tt_pv, score_from_tt, score_to_tt};

impl Searcher {
    /// Step 4: quiescence search. Stand pat (the side to move may decline every capture),
    /// then captures and queen promotions; in check, every evasion, so mates are seen.
    pub(super) fn quiescence(
        &mut self,
        pos: &Position,
        ply: usize,
        mut alpha: i32,
        beta: i32,
    ) -> i32 {
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
            return self.horizon_value(pos, in_check, ply);
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
            if e.bound.cuts(s, alpha, beta) {
                return s;
            }
        }
        let tt_move = entry.and_then(|e| movepick::decode(pos.chess(), e.mv));

        let alpha_orig = alpha;
        let raw_eval;
        let static_eval;
        let mut best_score;
        if in_check {
            raw_eval = -INFINITY;
            static_eval = -INFINITY;
            best_score = -INFINITY;
        } else {
            raw_eval = match entry {
                Some(e) => e.eval,
                None => self.evaluate(pos, ply),
            };
            static_eval = self.corrected(self.correction_slots(pos), raw_eval);
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
            if in_check {
                // Once one evasion has shown we are not mated, further quiet or losing
                // evasions are skipped: bets that they rarely matter, and chains of checks and
                // evasions would otherwise make quiescence explode. (1,089 games, about +8)
                if self.config.on(Feature::QsEvasions)
                    && best_score > -TB_BOUND
                    && (!is_noisy(m) || !see::see_ge(pos.chess(), m, 0))
                {
                    continue;
                }
            } else {
                // Move-count pruning: after the best few captures, only recaptures on the
                // square of the last move. Bets that the rest cannot change much, and keeps
                // positions full of mutual attacks from exploding. (1,839 games, about +12)
                if self.config.on(Feature::QsMoveCount)
                    && searched >= params::qs_move_count()
                    && Some(m.to()) != recapture_square
                {
                    continue;
                }
                // Delta pruning: bets that even winning the captured piece plus a margin
                // cannot lift the score to alpha. (1,273 games, about +12)
                let gain = m.capture().map_or(0, see::value)
                    + m.promotion()
                        .map_or(0, |r| see::value(r) - see::value(shakmaty::Role::Pawn));
                let optimistic = static_eval + gain + params::qs_delta_margin();
                if self.config.on(Feature::Delta) && optimistic <= alpha {
                    best_score = best_score.max(optimistic);
                    continue;
                }
                // SEE pruning: quiescence never plays a capture that loses material (bets
                // that the side to move would rather stand pat). The rule does not depend on
                // the window, so the exact search and minimax share it and search the same
                // tree. A stricter rule (captures had to win material, more when far below
                // alpha) showed no gain (-3.5 +/- 23.3 Elo at 20k nodes, -15.6 +/- 26.7 at
                // 2+0.02) and was removed: docs/results.md.
                if !see::see_ge(pos.chess(), m, 0) {
                    continue;
                }
            }
            let child = pos.play_announcing(m, |key| self.tt.prefetch(key));
            self.push(&child, Some(m), pos.turn(), ply);
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
                Entry {
                    mv: best_move.or(tt_move).map_or(0, movepick::encode),
                    score: score_to_tt(best_score, ply),
                    eval: raw_eval,
                    depth: 0,
                    bound,
                    pv: is_tt_pv(pv_node, entry),
                },
            );
        }
        best_score
    }
}
