//! Accumulators: the first layer's output for both perspectives, and the stack of them that
//! follows the search.
//!
//! Copy-make: `push` records a move; `accumulator` computes a node's accumulator from its
//! nearest computed ancestor's, by the moves' feature changes. (The search asks for each
//! child's right after the push, where the work hides the latency of the child's table entry:
//! `Searcher::push`.) A quiet move changes two features per perspective, a capture three, en
//! passant three, a promotion two or three, castling four (shakmaty encodes castling as
//! king-takes-rook in both notations; the real destinations come from `CastlingSide`). A null
//! move changes nothing. Only the root is computed from scratch.
//!
//! With king buckets (`inputs.rs`), a king move that changes its side's bucket or mirror changes
//! every feature of that side's view: that perspective is refreshed from a cache holding, for
//! each perspective and view, the accumulator of the last board refreshed there and that board,
//! so the refresh costs the pieces that differ between the two boards, not the whole board.
//!
//! An accumulator has room for the widest net ([`MAX_HIDDEN`] values a perspective); a net of
//! hidden width h uses the first h (the rest stay zero), so one stack, allocated once, serves a
//! net of any width and nothing is allocated per node.

use std::sync::Arc;

use arrayvec::ArrayVec;
use shakmaty::{Board, Chess, Color, Move, Piece, Position, Role, Square};

use super::inputs::View;
use super::simd::Kernels;
use super::{KingBuckets, MAX_HIDDEN, Network};

/// Both perspectives' accumulators, indexed by `Color as usize` (Black 0, White 1): the first
/// `hidden` values of each are the net's, the others zero.
#[derive(Clone, Debug, PartialEq, Eq)]
#[repr(C, align(64))]
pub struct Accumulator {
    pub values: [[i16; MAX_HIDDEN]; 2],
}

impl Accumulator {
    /// All zero.
    pub const ZERO: Accumulator = Accumulator {
        values: [[0; MAX_HIDDEN]; 2],
    };

    /// Computes the accumulators of a board from scratch.
    pub fn refresh(net: &Network, board: &Board) -> Accumulator {
        let mut acc = Accumulator::ZERO;
        acc.compute(net, board);
        acc
    }

    /// Computes the first `net.hidden` values of both perspectives from scratch, in place.
    pub fn compute(&mut self, net: &Network, board: &Board) {
        for color in Color::ALL {
            let view = net.king_buckets.view_of(color, board);
            let v = &mut self.values[color as usize][..net.hidden];
            v.copy_from_slice(&net.feature_bias);
            for (sq, piece) in board {
                for (x, w) in v.iter_mut().zip(net.column(view.feature(piece, sq))) {
                    *x = x.wrapping_add(*w);
                }
            }
        }
    }

    /// The evaluation of this accumulator for `turn` to move with `pieces` pieces on the
    /// board, in centipawns.
    #[inline]
    pub fn evaluate(&self, net: &Network, kernels: Kernels, turn: Color, pieces: u32) -> i32 {
        let us = &self.values[turn as usize][..net.hidden];
        let them = &self.values[!turn as usize][..net.hidden];
        net.output(kernels, us, them, pieces)
    }
}

/// Where a king move takes the king from and to, if `m` is one.
fn king_move(m: Move, mover: Color) -> Option<(Square, Square)> {
    match m {
        Move::Normal {
            role: Role::King,
            from,
            to,
            ..
        } => Some((from, to)),
        Move::Castle { king, .. } => m.castling_side().map(|side| (king, side.king_to(mover))),
        _ => None,
    }
}

/// One perspective's accumulator for one view, and the board it was computed for.
struct CacheEntry {
    values: Box<[i16; MAX_HIDDEN]>,
    board: Board,
}

/// The refresh cache: an entry per perspective and view (king bucket, mirrored or not).
struct RefreshCache {
    entries: Vec<CacheEntry>,
}

impl RefreshCache {
    /// Entries for every view of `net`, each standing for the empty board (the bias alone).
    fn new(net: &Network) -> RefreshCache {
        let mut bias = Box::new([0; MAX_HIDDEN]);
        bias[..net.hidden].copy_from_slice(&net.feature_bias);
        RefreshCache {
            entries: (0..2 * net.king_buckets.count * 2)
                .map(|_| CacheEntry {
                    values: bias.clone(),
                    board: Board::empty(),
                })
                .collect(),
        }
    }

    /// Writes the accumulator of `board` in `view` to `out` (the first `net.hidden` values):
    /// the cached one, moved by the pieces that differ from the cached board.
    fn refresh(
        &mut self,
        net: &Network,
        kernels: Kernels,
        view: View,
        board: &Board,
        out: &mut [i16],
    ) {
        let h = net.hidden;
        let entry = &mut self.entries[view.slot()];
        let mut adds: ArrayVec<&[i16], 64> = ArrayVec::new();
        let mut subs: ArrayVec<&[i16], 64> = ArrayVec::new();
        for color in Color::ALL {
            for role in Role::ALL {
                let piece = Piece { color, role };
                let (now, was) = (board.by_piece(piece), entry.board.by_piece(piece));
                adds.extend(
                    (now & !was)
                        .into_iter()
                        .map(|sq| net.column(view.feature(piece, sq))),
                );
                subs.extend(
                    (was & !now)
                        .into_iter()
                        .map(|sq| net.column(view.feature(piece, sq))),
                );
            }
        }
        kernels.update(&entry.values[..h], &mut out[..h], &adds, &subs);
        entry.values[..h].copy_from_slice(&out[..h]);
        entry.board.clone_from(board);
    }
}

/// The features a move removes and adds.
#[derive(Debug, Default)]
pub struct Delta {
    pub removed: ArrayVec<(Piece, Square), 2>,
    pub added: ArrayVec<(Piece, Square), 2>,
}

/// The feature changes of `m`, played by `mover`.
pub fn delta(m: Move, mover: Color) -> Delta {
    let mut d = Delta::default();
    let ours = |role: Role| Piece { color: mover, role };
    match m {
        Move::Normal {
            role,
            from,
            capture,
            to,
            promotion,
        } => {
            d.removed.push((ours(role), from));
            d.added.push((ours(promotion.unwrap_or(role)), to));
            if let Some(captured) = capture {
                d.removed.push((
                    Piece {
                        color: !mover,
                        role: captured,
                    },
                    to,
                ));
            }
        }
        Move::EnPassant { from, to } => {
            d.removed.push((ours(Role::Pawn), from));
            d.added.push((ours(Role::Pawn), to));
            d.removed.push((
                Piece {
                    color: !mover,
                    role: Role::Pawn,
                },
                Square::from_coords(to.file(), from.rank()),
            ));
        }
        Move::Castle { king, rook } => {
            let side = m.castling_side().expect("a castling move has a side");
            d.removed.push((ours(Role::King), king));
            d.removed.push((ours(Role::Rook), rook));
            d.added.push((ours(Role::King), side.king_to(mover)));
            d.added.push((ours(Role::Rook), side.rook_to(mover)));
        }
        Move::Put { .. } => unreachable!("no drops in chess"),
    }
    d
}

/// One accumulator per ply of the search, computed on demand.
pub struct AccumulatorStack {
    net: Arc<Network>,
    kernels: Kernels,
    accumulators: Vec<Accumulator>,
    /// Each ply's view of each perspective (indexed as the accumulators).
    views: Vec<[View; 2]>,
    /// The move that led to each ply (`None`: a null move) and who played it.
    moves: Vec<(Option<Move>, Color)>,
    /// The board at each ply reached by a king move that changes its side's view (what a
    /// refresh is made for); kept only for nets with king buckets.
    boards: Vec<Board>,
    /// Is the accumulator at this ply up to date with the current path?
    computed: Vec<bool>,
    /// Does the net have king buckets (so that king moves may need a refresh)?
    follows_king: bool,
    cache: RefreshCache,
}

impl AccumulatorStack {
    /// A stack of `plies` accumulators for `net`, using the fastest kernels of this CPU.
    pub fn new(net: Arc<Network>, plies: usize) -> AccumulatorStack {
        Self::with_kernels(net, plies, Kernels::detect())
    }

    /// The same with chosen kernels (the tests compare them).
    pub fn with_kernels(net: Arc<Network>, plies: usize, kernels: Kernels) -> AccumulatorStack {
        let plain = KingBuckets::NONE.view(Color::White, Square::A1);
        AccumulatorStack {
            cache: RefreshCache::new(&net),
            follows_king: net.king_buckets != KingBuckets::NONE,
            net,
            kernels,
            accumulators: vec![Accumulator::ZERO; plies],
            views: vec![[plain; 2]; plies],
            moves: vec![(None, Color::White); plies],
            boards: vec![Board::empty(); plies],
            computed: vec![false; plies],
        }
    }

    pub fn net(&self) -> &Arc<Network> {
        &self.net
    }

    /// Starts a new path at `root` (ply 0), computed from scratch.
    pub fn reset(&mut self, root: &Chess) {
        let board = root.board();
        self.accumulators[0].compute(&self.net, board);
        for color in Color::ALL {
            self.views[0][color as usize] = self.net.king_buckets.view_of(color, board);
        }
        self.computed[0] = true;
    }

    /// Records that the node at `ply` (its board `board`) was reached by `m` (`None`: a null
    /// move) played by `mover` from the node at `ply - 1`.
    #[inline]
    pub fn push(&mut self, ply: usize, m: Option<Move>, mover: Color, board: &Board) {
        self.moves[ply] = (m, mover);
        self.computed[ply] = false;
        if self.follows_king
            && let Some((from, to)) = m.and_then(|m| king_move(m, mover))
        {
            let kb = &self.net.king_buckets;
            if kb.view(mover, from) != kb.view(mover, to) {
                self.boards[ply].clone_from(board);
            }
        }
    }

    /// The accumulator of the node at `ply`, brought up to date from the nearest computed
    /// ancestor.
    pub fn accumulator(&mut self, ply: usize) -> &Accumulator {
        let mut first = ply;
        assert!(
            self.computed[0],
            "the accumulator stack was not reset to a root"
        );
        while !self.computed[first] {
            first -= 1;
        }
        let h = self.net.hidden;
        for p in first + 1..=ply {
            let (parents, rest) = self.accumulators.split_at_mut(p);
            let parent = &parents[p - 1];
            let child = &mut rest[0];
            let parent_views = self.views[p - 1];
            let (m, mover) = self.moves[p];
            let Some(m) = m else {
                for c in 0..2 {
                    child.values[c][..h].copy_from_slice(&parent.values[c][..h]);
                }
                self.views[p] = parent_views;
                self.computed[p] = true;
                continue;
            };
            let mut views = parent_views;
            if self.follows_king
                && let Some((_, king)) = king_move(m, mover)
            {
                views[mover as usize] = self.net.king_buckets.view(mover, king);
            }
            let d = delta(m, mover);
            for (c, &view) in views.iter().enumerate() {
                if view != parent_views[c] {
                    let board = &self.boards[p];
                    let out = &mut child.values[c];
                    self.cache
                        .refresh(&self.net, self.kernels, view, board, out);
                    continue;
                }
                let mut added: ArrayVec<&[i16], 2> = ArrayVec::new();
                let mut removed: ArrayVec<&[i16], 2> = ArrayVec::new();
                for &(piece, sq) in &d.added {
                    added.push(self.net.column(view.feature(piece, sq)));
                }
                for &(piece, sq) in &d.removed {
                    removed.push(self.net.column(view.feature(piece, sq)));
                }
                self.kernels.update(
                    &parent.values[c][..h],
                    &mut child.values[c][..h],
                    &added,
                    &removed,
                );
            }
            self.views[p] = views;
            self.computed[p] = true;
        }
        &self.accumulators[ply]
    }

    /// The evaluation of the node at `ply` (position `pos`) for its side to move.
    #[inline]
    pub fn evaluate(&mut self, ply: usize, pos: &Chess) -> i32 {
        self.accumulator(ply);
        let pieces = pos.board().occupied().count() as u32;
        self.accumulators[ply].evaluate(&self.net, self.kernels, pos.turn(), pieces)
    }
}
