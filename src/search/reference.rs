//! The reference searches the correctness tests compare against: the main search called
//! with an arbitrary window below the root, and plain minimax over the same tree (same
//! evaluation, quiescence moves and draw rules), for the fail-soft window theorem.

use shakmaty::Position as _;

use super::{Frame, Limits, Searcher};
use crate::movepick::is_quiescence_move;
use crate::position::Position;
use crate::score::{DRAW, INFINITY, MAX_PLY, mated_in};
use crate::see;
use crate::time::TimeManager;

impl Searcher {
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
        self.net.reset(pos.chess());
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
                self.evaluate_from_scratch(pos)
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
                self.evaluate_from_scratch(pos)
            };
        }
        let mut moves = pos.chess().legal_moves();
        let mut best = if in_check {
            if moves.is_empty() {
                return mated_in(ply);
            }
            -INFINITY
        } else {
            moves.retain(|m| is_quiescence_move(*m) && see::see_ge(pos.chess(), *m, 0));
            self.evaluate_from_scratch(pos)
        };
        for m in moves {
            let child = pos.play(m);
            self.keys.push(child.key());
            best = best.max(-self.minimax_quiescence(&child, ply + 1));
            self.keys.pop();
        }
        best
    }
}
