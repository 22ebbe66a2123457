//! Move ordering over shakmaty's legal move list.
//!
//! The main search tries the transposition-table move first, before any generation (it is
//! checked for legality with `is_legal`, which only generates moves to one square). Then the
//! full legal list is generated once and picked in order of a score: winning captures and
//! queen promotions (MVV-LVA plus capture history), killers, the countermove, quiets by
//! history (plus a bonus for taking a piece out of a cheaper piece's attack, minus one for
//! walking into it), and losing captures (by SEE) last. Quiescence uses captures and queen promotions
//! only, or every evasion when in check; out of check it generates just those
//! ([`noisy_moves`]), in the order shakmaty's full generation would list them:
//! [`is_quiescence_move`] is the one definition of what quiescence searches.
//!
//! `history.rs` holds the statistics the ordering learns from cutoffs (the histories and the
//! countermoves).

pub mod history;

use arrayvec::ArrayVec;
use shakmaty::{Bitboard, Chess, Color, File, Move, MoveList, Position, Role, Square, attacks};

use crate::see;
use history::Histories;

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
    moves.extend(pos.en_passant_moves());
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

const GOOD_NOISY: i32 = 2_000_000;
const KILLER_1: i32 = 1_000_000;
const KILLER_2: i32 = 999_000;
const COUNTER: i32 = 998_000;
const BAD_NOISY: i32 = -2_000_000;
/// Added to a quiet move that takes a piece out of an attack by a cheaper piece, taken from
/// one that walks into such an attack: about the weight of the two histories together.
const ESCAPE: i32 = 16_384;

/// The squares where a piece of the side to move is attacked by a cheaper enemy piece: for
/// knights and bishops (attacked by a pawn), rooks (by a pawn or minor piece) and queens (by a
/// pawn, minor piece or rook), in that order.
fn threats(pos: &Chess) -> [Bitboard; 3] {
    let board = pos.board();
    let them = !pos.turn();
    let occupied = board.occupied();
    // Pawn attacks by shifting all pawns at once (a pawn on the a-file or h-file attacks
    // one square only).
    let pawns = u64::from(board.pawns() & board.by_color(them));
    let (not_a, not_h) = (
        !u64::from(Bitboard::from_file(File::A)),
        !u64::from(Bitboard::from_file(File::H)),
    );
    let by_pawns = Bitboard::from(match them {
        Color::White => ((pawns & not_a) << 7) | ((pawns & not_h) << 9),
        Color::Black => ((pawns & not_a) >> 9) | ((pawns & not_h) >> 7),
    });
    let mut by_minors = by_pawns;
    for sq in board.knights() & board.by_color(them) {
        by_minors |= attacks::knight_attacks(sq);
    }
    for sq in board.bishops() & board.by_color(them) {
        by_minors |= attacks::bishop_attacks(sq, occupied);
    }
    let mut by_rooks = by_minors;
    for sq in board.rooks() & board.by_color(them) {
        by_rooks |= attacks::rook_attacks(sq, occupied);
    }
    [by_pawns, by_minors, by_rooks]
}

/// The threat bonus of the quiet move `m` (see [`ESCAPE`]).
fn escape_bonus(m: Move, threats: &[Bitboard; 3]) -> i32 {
    let danger = match m.role() {
        Role::Knight | Role::Bishop => threats[0],
        Role::Rook => threats[1],
        Role::Queen => threats[2],
        _ => return 0,
    };
    let from = m.from().is_some_and(|sq| danger.contains(sq));
    match (from, danger.contains(m.to())) {
        (true, false) => ESCAPE,
        (_, true) => -ESCAPE,
        _ => 0,
    }
}

/// Most-valuable-victim, least-valuable-attacker base score of a noisy move.
#[inline]
fn mvv_lva(m: Move) -> i32 {
    let victim = see::captured(m).map_or(0, see::value);
    let promo = m.promotion().map_or(0, see::value);
    8 * (victim + promo) - see::value(m.role()) / 16
}

/// Everything the ordering needs to know about the node besides the position.
#[derive(Clone, Copy, Debug, Default)]
pub struct OrderingContext {
    pub killers: [Option<Move>; 2],
    pub counter: Option<Move>,
    /// Continuation-history keys (piece index, to-square) of the moves 1 and 2 plies back.
    pub cont: [Option<(usize, Square)>; 2],
}

/// Stages of the main-search picker.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Stage {
    TtMove,
    Generate,
    Pick,
}

/// Yields legal moves best first; see the module comment for the order.
#[derive(Debug)]
pub struct MovePicker {
    stage: Stage,
    tt_move: Option<Move>,
    moves: MoveList,
    /// The ordering score of each move of `moves`. (An `ArrayVec`, not an array: a picker is
    /// made at every node, and zeroing 1 KB there cost 4% of the search's time.)
    scores: ArrayVec<i32, 256>,
    next: usize,
    quiescence: bool,
    ctx: OrderingContext,
}

impl MovePicker {
    /// The picker for the main search. `tt_move` must already be checked legal (`decode`).
    pub fn new(tt_move: Option<Move>, ctx: OrderingContext) -> MovePicker {
        MovePicker {
            stage: Stage::TtMove,
            tt_move,
            moves: MoveList::new(),
            scores: ArrayVec::new(),
            next: 0,
            quiescence: false,
            ctx,
        }
    }

    /// The picker for quiescence: noisy moves only unless in check (then every evasion).
    pub fn quiescence(tt_move: Option<Move>) -> MovePicker {
        MovePicker {
            quiescence: true,
            ..MovePicker::new(tt_move, OrderingContext::default())
        }
    }

    /// The next move, or `None` when all are exhausted. The score of the move is returned
    /// too: a negative score means a losing capture (used for pruning decisions).
    pub fn next(&mut self, pos: &Chess, hist: &Histories) -> Option<(Move, i32)> {
        loop {
            match self.stage {
                Stage::TtMove => {
                    self.stage = Stage::Generate;
                    if let Some(m) = self.tt_move {
                        if !self.quiescence || pos.is_check() || is_quiescence_move(m) {
                            return Some((m, GOOD_NOISY * 2));
                        }
                        // Quiescence searches no other TT move (a quiet move or a quiet
                        // under-promotion).
                        self.tt_move = None;
                    }
                }
                Stage::Generate => {
                    self.generate(pos, hist);
                    self.stage = Stage::Pick;
                }
                Stage::Pick => {
                    if self.next >= self.moves.len() {
                        return None;
                    }
                    // Selection sort step: bring the best remaining move forward (the
                    // first of equal scores). Most nodes cut off after a few moves, so this
                    // beats sorting the whole list; the best score is kept in a register and
                    // the slice lets the compiler drop the bounds checks in this hot loop.
                    let remaining = &self.scores[self.next..self.moves.len()];
                    let mut best = 0;
                    let mut best_score = remaining[0];
                    for (i, &s) in remaining.iter().enumerate().skip(1) {
                        if s > best_score {
                            best = i;
                            best_score = s;
                        }
                    }
                    let best = self.next + best;
                    self.moves.swap(self.next, best);
                    self.scores.swap(self.next, best);
                    let picked = (self.moves[self.next], self.scores[self.next]);
                    self.next += 1;
                    return Some(picked);
                }
            }
        }
    }

    fn generate(&mut self, pos: &Chess, hist: &Histories) {
        if self.quiescence && !pos.is_check() {
            // Captures and queen promotions; under-promotions are almost never better.
            noisy_moves(pos, &mut self.moves);
        } else {
            self.moves = pos.legal_moves();
        }
        if let Some(tt) = self.tt_move {
            self.moves.retain(|m| *m != tt);
        }
        let us = pos.turn();
        let threats = if self.quiescence {
            [Bitboard::EMPTY; 3]
        } else {
            threats(pos)
        };
        self.scores.clear();
        for &m in self.moves.iter() {
            self.scores.push(if is_quiescence_move(m) {
                let base = mvv_lva(m) + hist.capture(us, m) / 16;
                if self.quiescence || see::see_ge(pos, m, -50) {
                    GOOD_NOISY + base
                } else {
                    BAD_NOISY + base
                }
            } else if Some(m) == self.ctx.killers[0] {
                KILLER_1
            } else if Some(m) == self.ctx.killers[1] {
                KILLER_2
            } else if Some(m) == self.ctx.counter {
                COUNTER
            } else if m.is_promotion() {
                // Under-promotions: after every quiet move.
                BAD_NOISY - 100_000
            } else {
                // Quiets by history, a piece in danger moved out of it first.
                hist.quiet_score(us, m, &self.ctx.cont) + escape_bonus(m, &threats)
            });
        }
    }
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

    #[test]
    fn pieces_in_danger_move_out_of_it_first() {
        // The black pawn on d5 attacks the knight on e4; with empty histories the first quiet
        // moves are the knight's escapes, and its moves into a pawn's reach (d6, f6) come last
        // among its moves.
        let pos = Pos::from_fen(
            "rnbqkbnr/ppp1pppp/8/3p4/4N3/8/PPPPPPPP/R1BQKBNR w KQkq - 0 3",
            CastlingMode::Standard,
        )
        .unwrap();
        let hist = Histories::default();
        let mut picker = MovePicker::new(None, OrderingContext::default());
        let mut quiets = Vec::new();
        while let Some((m, _)) = picker.next(pos.chess(), &hist) {
            if !m.is_capture() {
                quiets.push(m);
            }
        }
        let knight = |m: &Move| m.from() == Some(Square::E4);
        let unsafe_square = |m: &Move| m.to() == Square::D6 || m.to() == Square::F6;
        let escapes = quiets
            .iter()
            .filter(|m| knight(m) && !unsafe_square(m))
            .count();
        assert_eq!(escapes, 4, "{quiets:?}");
        assert!(
            quiets[..escapes].iter().all(knight),
            "{:?}",
            &quiets[..escapes]
        );
        let first_unsafe = quiets.iter().position(unsafe_square).unwrap();
        assert!(first_unsafe > quiets.len() / 2, "{quiets:?}");
    }

    #[test]
    fn quiescence_takes_no_quiet_under_promotion_from_the_table() {
        // White can promote on b8 without capturing: to a queen (searched in quiescence) or to a
        // knight (not searched, even as the transposition table's move).
        let pos = Pos::from_fen("8/1P6/8/8/8/8/k7/4K3 w - - 0 1", CastlingMode::Standard).unwrap();
        let hist = Histories::default();
        let yielded = |tt: &str| {
            let mut picker = MovePicker::quiescence(pos.parse_uci_move(tt));
            let mut moves = Vec::new();
            while let Some((m, _)) = picker.next(pos.chess(), &hist) {
                moves.push(m);
            }
            moves
        };
        let queen = pos.parse_uci_move("b7b8q").unwrap();
        assert_eq!(yielded("b7b8n"), [queen]);
        assert_eq!(yielded("b7b8q"), [queen]);
        assert_eq!(yielded("e1d2"), [queen]);
        let mut generated = MoveList::new();
        noisy_moves(pos.chess(), &mut generated);
        assert!(generated.iter().all(|m| is_quiescence_move(*m)));
        assert_eq!(generated.len(), 1);
    }

    #[test]
    fn picker_yields_every_legal_move_once() {
        let pos = Pos::from_fen(
            "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
            CastlingMode::Standard,
        )
        .unwrap();
        let hist = Histories::default();
        let tt = pos.parse_uci_move("e2a6");
        let mut picker = MovePicker::new(tt, OrderingContext::default());
        let mut seen = Vec::new();
        while let Some((m, _)) = picker.next(pos.chess(), &hist) {
            seen.push(m);
        }
        assert_eq!(seen[0], tt.unwrap());
        assert_eq!(seen.len(), pos.chess().legal_moves().len());
        let mut dedup = seen.clone();
        dedup.sort_by_key(|m| encode(*m));
        dedup.dedup();
        assert_eq!(dedup.len(), seen.len());
        // Good captures come before quiet moves.
        let first_quiet = seen.iter().position(|m| !m.is_capture()).unwrap();
        assert!(seen[1..first_quiet].iter().all(|m| m.is_capture()));
    }
}
