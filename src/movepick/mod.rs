//! Move generation facts the search and its move picker share: moves packed into 16 bits for the
//! transposition table, what counts as noisy, and the one definition of what quiescence
//! searches ([`is_quiescence_move`]) with its generator ([`noisy_moves`]), which lists those
//! moves in the order shakmaty's full generation would.
//!
//! `picker.rs` orders a node's moves (the staged [`MovePicker`]); `history.rs` holds the
//! statistics the ordering learns from cutoffs (the histories and the countermoves).

pub mod history;
mod picker;

pub use picker::{MovePicker, OrderingContext};

use shakmaty::{Bitboard, Chess, Color, File, Move, MoveList, Position, Role, Square, attacks};

/// Packs a move into 16 bits: from (6) | to (6) | promotion role (3). Castling is encoded
/// king-to-rook, as shakmaty represents it. 0 means "no move".
pub fn encode(m: Move) -> u16 {
    let (from, to) = match m {
        Move::Normal { from, to, .. } | Move::EnPassant { from, to } => (from, to),
        Move::Castle { king, rook } => (king, rook),
        Move::Put { to, .. } => (to, to),
    };
    let promo = m.promotion().map_or(0, |r| r as u16);
    (from as u16) | ((to as u16) << 6) | (promo << 12)
}

/// Rebuilds the move encoded by `code` in `pos`, if it is legal there.
pub fn decode(pos: &Chess, code: u16) -> Option<Move> {
    if code == 0 {
        return None;
    }
    let from = Square::new((code & 63) as u32);
    let to = Square::new(((code >> 6) & 63) as u32);
    let board = pos.board();
    let us = pos.turn();
    let piece = board.piece_at(from)?;
    if piece.color != us {
        return None;
    }
    let promotion = match code >> 12 {
        0 => None,
        r => Some(Role::try_from(r as u8).ok()?),
    };
    let target = board.piece_at(to);
    let m = match (piece.role, target) {
        (Role::King, Some(t)) if t.color == us && t.role == Role::Rook => Move::Castle {
            king: from,
            rook: to,
        },
        (Role::Pawn, None) if from.file() != to.file() => Move::EnPassant { from, to },
        (_, Some(t)) if t.color == us => return None,
        (role, _) => Move::Normal {
            role,
            from,
            capture: target.map(|t| t.role),
            to,
            promotion,
        },
    };
    pos.is_legal(m).then_some(m)
}

/// The moves quiescence searches ([`is_quiescence_move`]) in a position not in check: exactly
/// `legal_moves()` with everything else removed, in the same order, so
/// the picker breaks ties as it would over the full list (a test compares the two). Quiescence
/// calls this at most of its nodes; generating some 35 quiet moves there only to drop them cost
/// about 12% of the search's time (docs/results.md, session 5).
pub fn noisy_moves(pos: &Chess, moves: &mut MoveList) {
    debug_assert!(!pos.is_check());
    let board = pos.board();
    let us = pos.turn();
    let them = pos.them();
    let occupied = board.occupied();
    let Some(king) = board.king_of(us) else {
        return;
    };
    // Our pieces pinned to the king may only move along the pin (shakmaty's rule as well).
    let mut pinned = Bitboard(0);
    let snipers = (attacks::rook_attacks(king, Bitboard(0)) & board.rooks_and_queens())
        | (attacks::bishop_attacks(king, Bitboard(0)) & board.bishops_and_queens());
    for sniper in snipers & them {
        let between = attacks::between(king, sniper) & occupied;
        if !between.more_than_one() {
            pinned |= between;
        }
    }
    let legal =
        |from: Square, to: Square| !pinned.contains(from) || attacks::aligned(from, to, king);
    moves.clear();
    // shakmaty returns its list by value (1.3 KB copied): ask only when a capture en passant
    // may exist.
    if pos.maybe_ep_square().is_some() {
        moves.extend(pos.en_passant_moves());
    }
    let mut push = |role: Role, from: Square, to: Square, promotion: Option<Role>| {
        if legal(from, to) {
            moves.push(Move::Normal {
                role,
                from,
                capture: board.role_at(to),
                to,
                promotion,
            });
        }
    };

    // shakmaty's order: en passant (above); pawn captures towards the a-file, then the h-file (each
    // first off the last rank, then promoting); pawn pushes; knights, bishops, rooks, queens;
    // the king.
    let pawns = pos.our(Role::Pawn);
    let (towards_a, towards_h, forward) = match us {
        Color::White => (7, 9, 8),
        Color::Black => (-9, -7, -8),
    };
    for (offset, edge) in [(towards_a, File::A), (towards_h, File::H)] {
        let targets = (pawns & !Bitboard::from_file(edge)).shift(offset) & them;
        for to in targets & !Bitboard::BACKRANKS {
            push(
                Role::Pawn,
                to.offset(-offset).expect("on the board"),
                to,
                None,
            );
        }
        for to in targets & Bitboard::BACKRANKS {
            for promotion in [Role::Queen, Role::Rook, Role::Bishop, Role::Knight] {
                push(
                    Role::Pawn,
                    to.offset(-offset).expect("on the board"),
                    to,
                    Some(promotion),
                );
            }
        }
    }
    for to in pawns.shift(forward) & !occupied & Bitboard::BACKRANKS {
        push(
            Role::Pawn,
            to.offset(-forward).expect("on the board"),
            to,
            Some(Role::Queen),
        );
    }
    for role in [Role::Knight, Role::Bishop, Role::Rook, Role::Queen] {
        for from in pos.our(role) {
            let targets = attacks::attacks(from, role.of(us), occupied) & them;
            for to in targets {
                push(role, from, to, None);
            }
        }
    }
    for to in attacks::king_attacks(king) & them {
        if board.attacks_to(to, !us, occupied).is_empty() {
            moves.push(Move::Normal {
                role: Role::King,
                from: king,
                capture: board.role_at(to),
                to,
                promotion: None,
            });
        }
    }
}

/// Is the move a capture or a promotion? The main search treats every other move as quiet
/// (for its pruning, reductions and histories).
#[inline]
pub fn is_noisy(m: Move) -> bool {
    m.is_capture() || m.is_promotion()
}

/// Does quiescence search this move (out of check)? Captures, with any promotion, and quiet
/// promotions to a queen: a quiet under-promotion is almost never better than the queen. The
/// one definition: [`noisy_moves`] generates exactly these, the picker lets no other
/// transposition-table move into quiescence, and the reference minimax filters with it.
#[inline]
pub fn is_quiescence_move(m: Move) -> bool {
    m.is_capture() || m.promotion() == Some(Role::Queen)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::position::Position as Pos;
    use shakmaty::CastlingMode;

    #[test]
    fn encode_decode_roundtrip_on_all_moves() {
        let fens = [
            "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
            "rnbqkb1r/ppppp1pp/7n/4Pp2/8/8/PPPP1PPP/RNBQKBNR w KQkq f6 0 3",
            "n1n5/PPPk4/8/8/8/8/4Kppp/5N1N b - - 0 1",
        ];
        for fen in fens {
            let pos = Pos::from_fen(fen, CastlingMode::Standard).unwrap();
            for m in pos.chess().legal_moves() {
                assert_eq!(decode(pos.chess(), encode(m)), Some(m), "{fen} {m:?}");
            }
        }
        let frc = Pos::from_fen(
            "bqnb1rkr/pp3ppp/3ppn2/2p5/5P2/P2P4/NPP1P1PP/BQ1BNRKR w HFhf - 2 9",
            CastlingMode::Chess960,
        )
        .unwrap();
        for m in frc.chess().legal_moves() {
            assert_eq!(decode(frc.chess(), encode(m)), Some(m));
        }
    }

    #[test]
    fn decode_rejects_illegal_codes() {
        let pos = Pos::default();
        // e2e5 is not a legal move; a1a1 is "no move"; e7e5 moves the opponent's pawn.
        let e2 = Square::E2 as u16;
        assert_eq!(decode(pos.chess(), e2 | ((Square::E5 as u16) << 6)), None);
        assert_eq!(decode(pos.chess(), 0), None);
        let e7 = Square::E7 as u16;
        assert_eq!(decode(pos.chess(), e7 | ((Square::E5 as u16) << 6)), None);
        for code in 0..=u16::MAX {
            if let Some(m) = decode(pos.chess(), code) {
                assert!(pos.chess().is_legal(m));
            }
        }
    }
}
