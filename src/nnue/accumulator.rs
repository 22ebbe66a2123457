//! Accumulators: the first layer's output for both perspectives, and the stack of them that
//! follows the search.
//!
//! Copy-make, lazily: when the search plays a move it only records it (`push`); the child's
//! accumulator is computed from its parent's, by the move's feature changes, the first time
//! the child (or a descendant) is evaluated. A quiet move changes two features per perspective,
//! a capture three, en passant three, a promotion two or three, castling four (shakmaty encodes
//! castling as king-takes-rook in both notations; the real destinations come from
//! `CastlingSide`). A null move changes nothing. Only the root is computed from scratch.
//!
//! An accumulator has room for the widest net ([`MAX_HIDDEN`] values a perspective); a net of
//! hidden width h uses the first h (the rest stay zero), so one stack, allocated once, serves a
//! net of any width and nothing is allocated per node.

use std::sync::Arc;

use arrayvec::ArrayVec;
use shakmaty::{Board, Chess, Color, Move, Piece, Position, Role, Square};

use super::simd::Kernels;
use super::{MAX_HIDDEN, Network, feature};

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
            let v = &mut self.values[color as usize][..net.hidden];
            v.copy_from_slice(&net.feature_bias);
            for (sq, piece) in board {
                for (x, w) in v.iter_mut().zip(net.column(feature(color, piece, sq))) {
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
    /// The move that led to each ply (`None`: a null move) and who played it.
    moves: Vec<(Option<Move>, Color)>,
    /// Is the accumulator at this ply up to date with the current path?
    computed: Vec<bool>,
}

impl AccumulatorStack {
    /// A stack of `plies` accumulators for `net`, using the fastest kernels of this CPU.
    pub fn new(net: Arc<Network>, plies: usize) -> AccumulatorStack {
        Self::with_kernels(net, plies, Kernels::detect())
    }

    /// The same with chosen kernels (the tests compare them).
    pub fn with_kernels(net: Arc<Network>, plies: usize, kernels: Kernels) -> AccumulatorStack {
        AccumulatorStack {
            net,
            kernels,
            accumulators: vec![Accumulator::ZERO; plies],
            moves: vec![(None, Color::White); plies],
            computed: vec![false; plies],
        }
    }

    pub fn net(&self) -> &Arc<Network> {
        &self.net
    }

    /// Starts a new path at `root` (ply 0), computed from scratch.
    pub fn reset(&mut self, root: &Chess) {
        self.accumulators[0].compute(&self.net, root.board());
        self.computed[0] = true;
    }

    /// Records that the node at `ply` was reached by `m` (`None`: a null move) played by
    /// `mover` from the node at `ply - 1`.
    #[inline]
    pub fn push(&mut self, ply: usize, m: Option<Move>, mover: Color) {
        self.moves[ply] = (m, mover);
        self.computed[ply] = false;
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
            match self.moves[p].0 {
                None => {
                    for color in Color::ALL {
                        let c = color as usize;
                        child.values[c][..h].copy_from_slice(&parent.values[c][..h]);
                    }
                }
                Some(m) => {
                    let d = delta(m, self.moves[p].1);
                    for color in Color::ALL {
                        let column = |&(piece, sq): &(Piece, Square)| {
                            self.net.column(feature(color, piece, sq))
                        };
                        let added: ArrayVec<&[i16], 2> = d.added.iter().map(column).collect();
                        let removed: ArrayVec<&[i16], 2> = d.removed.iter().map(column).collect();
                        self.kernels.update(
                            &parent.values[color as usize][..h],
                            &mut child.values[color as usize][..h],
                            &added,
                            &removed,
                        );
                    }
                }
            }
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
