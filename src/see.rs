//! Static exchange evaluation: the material balance of the capture sequence on one square,
//! each side recapturing with its least valuable attacker and free to stop when it pays.
//! Built on shakmaty's attack sets; pins are ignored (a common, cheap approximation).

use shakmaty::attacks::{bishop_attacks, rook_attacks};
use shakmaty::{Bitboard, Board, Chess, Move, Position, Role, Square};

/// Piece values used by the exchange arithmetic.
pub const fn value(role: Role) -> i32 {
    match role {
        Role::Pawn => 100,
        Role::Knight => 320,
        Role::Bishop => 330,
        Role::Rook => 500,
        Role::Queen => 950,
        Role::King => 20_000,
    }
}

/// Does the exchange started by `m` win at least `threshold` centipawns for the mover?
pub fn see_ge(pos: &Chess, m: Move, threshold: i32) -> bool {
    let (from, to) = match m {
        Move::Normal { from, to, .. } | Move::EnPassant { from, to } => (from, to),
        // Castling exchanges nothing.
        _ => return threshold <= 0,
    };
    let board = pos.board();

    // Balance after our capture, if the opponent does not recapture.
    let mut balance = m.capture().map_or(0, value) - threshold;
    if let Some(promo) = m.promotion() {
        balance += value(promo) - value(Role::Pawn);
    }
    if balance < 0 {
        return false;
    }
    // Balance if the opponent wins the piece we moved there and we do not recapture.
    balance -= value(m.promotion().unwrap_or(m.role()));
    if balance >= 0 {
        return true;
    }

    let mut occupied = board.occupied().without(from).with(to);
    if let Move::EnPassant { .. } = m {
        occupied = occupied.without(Square::from_coords(to.file(), from.rank()));
    }
    let mut attackers = attackers_of(board, to, occupied);
    let mut side = pos.turn();
    // `mover_wins` answers the question for the capture sequence played so far; `balance`
    // is what the side that captured last must still make up for the answer to hold.
    let mut mover_wins = true;
    balance = -balance;
    loop {
        side = !side;
        attackers &= occupied;
        let ours = attackers & board.by_color(side);
        if ours.is_empty() {
            break;
        }
        let (sq, role) = least_valuable(board, ours);
        if role == Role::King {
            // The king may capture only onto an undefended square.
            return if (attackers & board.by_color(!side)).any() {
                mover_wins
            } else {
                !mover_wins
            };
        }
        // This side recaptures: the answer flips unless the recapture does not pay.
        mover_wins = !mover_wins;
        balance = value(role) - balance;
        if balance < mover_wins as i32 {
            break;
        }
        occupied.discard(sq);
        // Sliders behind the capturer join in (x-rays).
        if matches!(role, Role::Pawn | Role::Bishop | Role::Queen) {
            attackers |= bishop_attacks(to, occupied) & board.bishops_and_queens();
        }
        if matches!(role, Role::Rook | Role::Queen) {
            attackers |= rook_attacks(to, occupied) & board.rooks_and_queens();
        }
    }
    mover_wins
}

fn attackers_of(board: &Board, sq: Square, occupied: Bitboard) -> Bitboard {
    board.attacks_to(sq, shakmaty::Color::White, occupied)
        | board.attacks_to(sq, shakmaty::Color::Black, occupied)
}

fn least_valuable(board: &Board, set: Bitboard) -> (Square, Role) {
    for role in Role::ALL {
        if let Some(sq) = (set & board.by_role(role)).first() {
            return (sq, role);
        }
    }
    unreachable!("least_valuable called with an empty set")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::position::Position as Pos;
    use shakmaty::CastlingMode;

    fn see(fen: &str, uci: &str) -> (bool, bool, bool) {
        let pos = Pos::from_fen(fen, CastlingMode::Standard).unwrap();
        let m = pos.parse_uci_move(uci).unwrap();
        (
            see_ge(pos.chess(), m, 0),
            see_ge(pos.chess(), m, 1),
            see_ge(pos.chess(), m, -200),
        )
    }

    /// Exact exchange value by brute force: search over all thresholds.
    fn see_value(fen: &str, uci: &str) -> i32 {
        let pos = Pos::from_fen(fen, CastlingMode::Standard).unwrap();
        let m = pos.parse_uci_move(uci).unwrap();
        let mut v = -2000;
        while see_ge(pos.chess(), m, v + 1) {
            v += 1;
        }
        v
    }

    #[test]
    fn undefended_pawn_wins_a_pawn() {
        assert_eq!(
            see_value("1k1r4/1pp4p/p7/4p3/8/P5P1/1PP4P/2K1R3 w - - 0 1", "e1e5"),
            100
        );
    }

    #[test]
    fn defended_pawn_taken_by_knight_loses() {
        // Nxe5 dxe5 (pawn defended by a pawn): 100 - 320.
        assert_eq!(
            see_value(
                "1k1r3q/1ppn3p/p4b2/4p3/8/P2N2P1/1PP1R1BP/2K1Q3 w - - 0 1",
                "d3e5"
            ),
            -220
        );
    }

    #[test]
    fn equal_trade_is_zero() {
        // Rook takes rook, recaptured by rook.
        assert_eq!(see_value("3r3k/3r4/8/8/8/8/8/3R3K w - - 0 1", "d1d7"), 0);
        let (ge0, ge1, _) = see("3r3k/3r4/8/8/8/8/8/3R3K w - - 0 1", "d1d7");
        assert!(ge0 && !ge1);
    }

    #[test]
    fn xray_through_own_piece() {
        // Rxd7 Rxd7 Qxd7: the queen behind the rook wins the exchange for white.
        assert_eq!(
            see_value("3r3k/3r4/8/8/8/8/3R4/3Q3K w - - 0 1", "d2d7"),
            500
        );
        // Without the queen the rook is simply traded.
        assert_eq!(see_value("3r3k/3r4/8/8/8/8/3R4/7K w - - 0 1", "d2d7"), 0);
        // Queen takes a pawn defended by a bishop: loses the queen for a pawn.
        assert_eq!(
            see_value("7k/8/5b2/8/3p4/8/8/3Q3K w - - 0 1", "d1d4"),
            100 - 950
        );
    }

    #[test]
    fn quiet_move_to_attacked_square() {
        // Knight to a square attacked by a pawn loses the knight; to a safe square, nothing.
        assert_eq!(see_value("7k/8/8/2p5/8/1N6/8/7K w - - 0 1", "b3d4"), -320);
        assert_eq!(see_value("7k/8/8/2p5/8/1N6/8/7K w - - 0 1", "b3d2"), 0);
        let (ge0, _, ge_minus) = see("7k/8/8/2p5/8/1N6/8/7K w - - 0 1", "b3d4");
        assert!(!ge0 && !ge_minus);
    }

    #[test]
    fn en_passant_and_promotion() {
        assert_eq!(see_value("7k/8/8/3pP3/8/8/8/7K w - d6 0 1", "e5d6"), 100);
        // Promotion on an undefended square gains queen - pawn.
        assert_eq!(see_value("7k/P7/8/8/8/8/8/7K w - - 0 1", "a7a8q"), 850);
        // Promotion onto a square the rook guards: pawn lost.
        assert_eq!(see_value("r6k/1P6/8/8/8/8/8/7K w - - 0 1", "b7b8q"), -100);
    }
}
