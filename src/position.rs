//! Board glue: a shakmaty `Chess` position together with its Zobrist key.
//!
//! Copy-make: `play` returns a new `Position`, so undoing a move is dropping a value.
//! The key is updated incrementally where shakmaty offers it and recomputed in full
//! where it returns `None` (king moves and castling, moves from or to a square that carries a
//! castling right, double pawn pushes, and every move from a position with an en-passant
//! square).

use shakmaty::fen::Fen;
use shakmaty::uci::UciMove;
use shakmaty::zobrist::{Zobrist64, ZobristValue};
use shakmaty::{
    Bitboard, CastlingMode, Chess, Color, EnPassantMode, FromSetup, Move, Position as _, Role,
    attacks,
};

/// A chess position with its Zobrist key (Polyglot-compatible, en passant counted only
/// when the capture is legal, so equal positions have equal keys).
#[derive(Clone, Debug)]
pub struct Position {
    chess: Chess,
    key: u64,
}

impl Default for Position {
    fn default() -> Self {
        Position::new(Chess::default())
    }
}

impl Position {
    /// Wraps a shakmaty position and computes its key from scratch.
    pub fn new(chess: Chess) -> Position {
        let key = full_key(&chess);
        Position { chess, key }
    }

    /// Parses a FEN (shakmaty's parser: standard, Shredder and X-FEN castling) in the given mode.
    pub fn from_fen(fen: &str, mode: CastlingMode) -> Result<Position, String> {
        let parsed: Fen = fen.parse().map_err(|e| format!("invalid FEN: {e}"))?;
        // A check by two pieces that no legal move could give (perft suites have one) is
        // still a well-defined position; every other inconsistency is refused.
        let chess = match Chess::from_setup(parsed.into_setup(), mode) {
            Ok(chess) => chess,
            Err(e) => e
                .ignore_impossible_check()
                .map_err(|e| format!("impossible position: {e}"))?,
        };
        Ok(Position::new(chess))
    }

    /// Reads a FEN in the `preferred` castling notation, or else as Chess960 (a Chess960
    /// position read without `UCI_Chess960`, or a Shredder-FEN): returns the position and the
    /// notation it was read in. The error is the one of the preferred reading.
    pub fn from_fen_any(
        fen: &str,
        preferred: CastlingMode,
    ) -> Result<(Position, CastlingMode), String> {
        match Position::from_fen(fen, preferred) {
            Ok(p) => Ok((p, preferred)),
            Err(e) => Position::from_fen(fen, CastlingMode::Chess960)
                .map(|p| (p, CastlingMode::Chess960))
                .map_err(|_| e),
        }
    }

    /// The underlying shakmaty position.
    #[inline]
    pub fn chess(&self) -> &Chess {
        &self.chess
    }

    /// The Zobrist key of the position.
    #[inline]
    pub fn key(&self) -> u64 {
        self.key
    }

    /// The side to move.
    #[inline]
    pub fn turn(&self) -> Color {
        self.chess.turn()
    }

    /// Is the side to move in check?
    #[inline]
    pub fn in_check(&self) -> bool {
        self.chess.is_check()
    }

    /// Plays a legal move and returns the resulting position.
    #[inline]
    pub fn play(&self, m: Move) -> Position {
        self.play_announcing(m, |_| {})
    }

    /// [`play`](Self::play), telling `announce` the new key as soon as it is known, before
    /// the board is copied and moved: the search prefetches the key's table entry there, so
    /// that the load overlaps the move instead of stalling the child's probe.
    #[inline]
    pub fn play_announcing(&self, m: Move, announce: impl FnOnce(u64)) -> Position {
        let key = self
            .chess
            .update_zobrist_hash::<Zobrist64>(Zobrist64(self.key), m, EnPassantMode::Legal)
            .map(|k| k.0);
        if let Some(k) = key {
            announce(k);
        }
        let mut chess = self.chess.clone();
        chess.play_unchecked(m);
        let key = key.unwrap_or_else(|| full_key(&chess));
        Position { chess, key }
    }

    /// Does `m` (legal here) give check? Computed from attack sets for ordinary moves, so a
    /// move can be judged without being played; castling and en passant are played out.
    pub fn gives_check(&self, m: Move) -> bool {
        let Move::Normal {
            role,
            from,
            to,
            promotion,
            ..
        } = m
        else {
            let mut after = self.chess.clone();
            after.play_unchecked(m);
            return after.is_check();
        };
        let board = self.chess.board();
        let us = self.turn();
        let Some(king) = board.king_of(!us) else {
            return false;
        };
        let occupied = board.occupied().without(from).with(to);
        let piece = promotion.unwrap_or(role);
        // Direct check by the moved (or promoted) piece.
        let direct = match piece {
            Role::Pawn => attacks::pawn_attacks(us, to),
            other => attacks::attacks(to, other.of(us), occupied),
        };
        if direct.contains(king) {
            return true;
        }
        // Discovered check by a slider the move uncovered.
        let ours = board.by_color(us).without(from);
        let diagonal = attacks::bishop_attacks(king, occupied) & board.bishops_and_queens() & ours;
        let straight = attacks::rook_attacks(king, occupied) & board.rooks_and_queens() & ours;
        (diagonal | straight).any()
    }

    /// Plays a null move (the side to move passes). Returns `None` when in check.
    pub fn play_null(&self) -> Option<Position> {
        if self.in_check() {
            return None;
        }
        // The key changes by the side to move and the en passant file, if there was one.
        let mut key = self.key ^ Zobrist64::zobrist_for_white_turn().0;
        if let Some(ep) = self.chess.ep_square(EnPassantMode::Legal) {
            key ^= Zobrist64::zobrist_for_en_passant_file(ep.file()).0;
        }
        let chess = self.chess.clone().swap_turn().ok()?;
        Some(Position { chess, key })
    }

    /// Converts a UCI move string to a legal move in this position.
    pub fn parse_uci_move(&self, text: &str) -> Option<Move> {
        let uci: UciMove = text.parse().ok()?;
        uci.to_move(&self.chess).ok()
    }

    /// Has the side to move only king and pawns? (Null move is unsafe there: zugzwang.)
    pub fn only_pawns_and_king(&self) -> bool {
        let board = self.chess.board();
        let ours = board.by_color(self.turn());
        (ours & !(board.pawns() | board.kings())).is_empty()
    }

    /// A key of the pawn structure alone (which squares hold White's and Black's pawns), for
    /// tables indexed by structure. Computed on demand: two mixes.
    #[inline]
    pub fn pawn_key(&self) -> u64 {
        let board = self.chess.board();
        let white = (board.pawns() & board.white()).0;
        let black = (board.pawns() & board.black()).0;
        mix(white ^ mix(black ^ 0x9e37_79b9_7f4a_7c15))
    }

    /// A key of where `color`'s pieces other than pawns stand (king included), for tables
    /// indexed by one side's piece placement. Each role's squares are spread by its own odd
    /// multiplier (a bijection), so one final mix is enough.
    #[inline]
    pub fn non_pawn_key(&self, color: Color) -> u64 {
        let board = self.chess.board();
        let ours = board.by_color(color);
        let spread = |bb: Bitboard, k: u64| (bb & ours).0.wrapping_mul(k);
        mix(spread(board.knights(), 0x9e37_79b9_7f4a_7c15)
            ^ spread(board.bishops(), 0xc2b2_ae3d_27d4_eb4f).rotate_left(13)
            ^ spread(board.rooks(), 0x1656_67b1_9e37_79f9).rotate_left(29)
            ^ spread(board.queens(), 0xd6e8_feb8_6659_fd93).rotate_left(41)
            ^ spread(board.kings(), 0xff51_afd7_ed55_8ccd).rotate_left(53)
            ^ color as u64)
    }

    /// The FEN of the position (en passant square written only when a capture is legal).
    pub fn fen(&self) -> String {
        Fen::from_position(&self.chess, EnPassantMode::Legal).to_string()
    }
}

/// A 64-bit finalizer (the one of SplitMix64): every input bit moves about half the output bits.
#[inline]
fn mix(mut x: u64) -> u64 {
    x = (x ^ (x >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    x = (x ^ (x >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    x ^ (x >> 31)
}

/// The Zobrist key computed from scratch.
pub fn full_key(chess: &Chess) -> u64 {
    chess.zobrist_hash::<Zobrist64>(EnPassantMode::Legal).0
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The incremental key agrees with a full computation along every path of a small perft tree.
    fn walk(pos: &Position, depth: u32, checked: &mut u64) {
        assert_eq!(
            pos.key(),
            full_key(pos.chess()),
            "key mismatch at {}",
            pos.fen()
        );
        *checked += 1;
        if depth == 0 {
            return;
        }
        for m in pos.chess().legal_moves() {
            walk(&pos.play(m), depth - 1, checked);
        }
        if let Some(null) = pos.play_null() {
            assert_eq!(null.key(), full_key(null.chess()));
        }
    }

    #[test]
    fn incremental_keys_match_full_keys() {
        let fens = [
            "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
            "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
            "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1",
            "rnbqkb1r/ppppp1pp/7n/4Pp2/8/8/PPPP1PPP/RNBQKBNR w KQkq f6 0 3",
            "n1n5/PPPk4/8/8/8/8/4Kppp/5N1N b - - 0 1",
        ];
        let mut checked = 0;
        for fen in fens {
            let pos = Position::from_fen(fen, CastlingMode::Standard).unwrap();
            walk(&pos, 3, &mut checked);
        }
        assert!(checked > 100_000);
    }

    #[test]
    fn gives_check_matches_playing_the_move() {
        let fens = [
            "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
            "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1",
            "rnbqkb1r/ppppp1pp/7n/4Pp2/8/8/PPPP1PPP/RNBQKBNR w KQkq f6 0 3",
            "n1n5/PPPk4/8/8/8/8/4Kppp/5N1N b - - 0 1",
            "r3k2r/Pppp1ppp/1b3nbN/nP6/BBP1P3/q4N2/Pp1P2PP/R2Q1RK1 w kq - 0 1",
        ];
        let mut checks = 0;
        for fen in fens {
            let root = Position::from_fen(fen, CastlingMode::Standard).unwrap();
            for m in root.chess().legal_moves() {
                let pos = root.play(m);
                for m2 in pos.chess().legal_moves() {
                    let expected = pos.play(m2).in_check();
                    assert_eq!(pos.gives_check(m2), expected, "{} {m2}", pos.fen());
                    checks += usize::from(expected);
                }
            }
        }
        assert!(checks > 50);
    }

    #[test]
    fn start_key_is_polyglot() {
        assert_eq!(Position::default().key(), 0x463b96181691fc9c);
    }
}
