//! The training-data format: one position in 32 bytes, written by `datagen`, read by `train`.
//!
//! | bytes  | field |
//! |--------|-------|
//! | 0..8   | occupancy, a little-endian `u64` bitboard (bit 0 = a1, bit 63 = h8) |
//! | 8..24  | the pieces, 4 bits each, in occupancy order (a1 first; low nibble first): 0..5 White pawn, knight, bishop, rook, queen, king; 6..11 the same for Black; 12 a White rook and 13 a Black rook that still carries a castling right (so Chess960 castling is kept too) |
//! | 24     | bit 7: Black to move; bits 0..6: the en passant square (only when a capture there is legal), 64 for none |
//! | 25     | halfmove clock (saturated at 255) |
//! | 26..28 | fullmove number, `u16` |
//! | 28..30 | the search's score in centipawns from White's point of view, `i16` |
//! | 30     | the game's result for White: 0 loss, 1 draw, 2 win |
//! | 31     | flags: bit 0 marks the last position a game kept (so files count their games and a resumed run can cut an unfinished game off) |
//!
//! A file is a plain sequence of records: files can be concatenated, and an interrupted writer
//! leaves at most one unfinished game, which [`complete_length`] finds.

use shakmaty::{
    Bitboard, Board, CastlingMode, Chess, Color, EnPassantMode, FromSetup, Piece, Position, Role,
    Setup, Square,
};

/// Bytes of one record.
pub const RECORD: usize = 32;
/// Flag bit: the last kept position of its game.
pub const GAME_END: u8 = 1;

/// One training position, packed.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Packed(pub [u8; RECORD]);

/// A game result for White.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Outcome {
    Loss = 0,
    Draw = 1,
    Win = 2,
}

impl Outcome {
    /// The result for White of a game won by `winner` (`None`: drawn).
    pub fn for_white(winner: Option<Color>) -> Outcome {
        match winner {
            Some(Color::White) => Outcome::Win,
            Some(Color::Black) => Outcome::Loss,
            None => Outcome::Draw,
        }
    }

    /// 0, ½ or 1.
    pub fn score(self) -> f32 {
        self as u8 as f32 / 2.0
    }
}

fn piece_code(piece: Piece, castling_rook: bool) -> u8 {
    if castling_rook {
        return 12 + u8::from(piece.color == Color::Black);
    }
    let base = if piece.color == Color::White { 0 } else { 6 };
    base + piece.role as u8 - 1
}

fn code_piece(code: u8) -> Option<Piece> {
    let (color, role) = match code {
        0..=11 => (
            if code < 6 { Color::White } else { Color::Black },
            Role::try_from(code % 6 + 1).ok()?,
        ),
        12 => (Color::White, Role::Rook),
        13 => (Color::Black, Role::Rook),
        _ => return None,
    };
    Some(Piece { color, role })
}

impl Packed {
    /// Packs a position with its score (White's view, clamped to `i16`), result and flags.
    pub fn new(pos: &Chess, white_score: i32, outcome: Outcome, flags: u8) -> Packed {
        let mut bytes = [0u8; RECORD];
        let board = pos.board();
        let occupied = board.occupied();
        bytes[0..8].copy_from_slice(&occupied.0.to_le_bytes());
        let rights = pos.castles().castling_rights();
        for (i, sq) in occupied.into_iter().enumerate() {
            let piece = board.piece_at(sq).expect("occupied square has a piece");
            let code = piece_code(piece, rights.contains(sq));
            bytes[8 + i / 2] |= code << (4 * (i % 2));
        }
        let ep = pos
            .ep_square(EnPassantMode::Legal)
            .map_or(64, |sq| sq as u8);
        bytes[24] = ep | if pos.turn() == Color::Black { 0x80 } else { 0 };
        bytes[25] = pos.halfmoves().min(255) as u8;
        bytes[26..28]
            .copy_from_slice(&(pos.fullmoves().get().min(u16::MAX as u32) as u16).to_le_bytes());
        let score = white_score.clamp(i16::MIN as i32, i16::MAX as i32) as i16;
        bytes[28..30].copy_from_slice(&score.to_le_bytes());
        bytes[30] = outcome as u8;
        bytes[31] = flags;
        Packed(bytes)
    }

    pub fn occupancy(&self) -> Bitboard {
        Bitboard(u64::from_le_bytes(
            self.0[0..8].try_into().expect("8 bytes"),
        ))
    }

    /// The squares with their piece codes, in square order (at most 32: the record holds no
    /// more).
    fn codes(&self) -> impl Iterator<Item = (Square, u8)> + '_ {
        self.occupancy()
            .into_iter()
            .take(32)
            .enumerate()
            .map(|(i, sq)| (sq, (self.0[8 + i / 2] >> (4 * (i % 2))) & 15))
    }

    /// The pieces with their squares, in square order (castling rooks as plain rooks).
    pub fn pieces(&self) -> impl Iterator<Item = (Square, Piece)> + '_ {
        self.codes().map(|(sq, code)| {
            let piece = code_piece(code).unwrap_or(Piece {
                color: Color::White,
                role: Role::Pawn,
            });
            (sq, piece)
        })
    }

    /// Can the record be unpacked? At most 32 pieces and no unknown piece code: what a torn or
    /// foreign file breaks (`position` checks the rest, the rules of chess).
    pub fn is_valid(&self) -> bool {
        self.occupancy().count() <= 32 && self.codes().all(|(_, code)| code <= 13)
    }

    /// The number of pieces on the board (kings included).
    pub fn piece_count(&self) -> u32 {
        self.occupancy().count() as u32
    }

    /// The position's identity for duplicate counts: a 64-bit hash of the board, side to
    /// move, castling rights and en passant square (the record without clocks, score, result
    /// and flags).
    pub fn position_key(&self) -> u64 {
        use std::hash::{Hash, Hasher};
        let mut h = std::collections::hash_map::DefaultHasher::new();
        self.0[..25].hash(&mut h);
        h.finish()
    }

    /// Does either side keep a castling right?
    pub fn has_castling_rights(&self) -> bool {
        self.codes().any(|(_, code)| code >= 12)
    }

    pub fn turn(&self) -> Color {
        if self.0[24] & 0x80 != 0 {
            Color::Black
        } else {
            Color::White
        }
    }

    /// The search score from White's point of view.
    pub fn score(&self) -> i16 {
        i16::from_le_bytes([self.0[28], self.0[29]])
    }

    pub fn outcome(&self) -> Outcome {
        match self.0[30] {
            0 => Outcome::Loss,
            2 => Outcome::Win,
            _ => Outcome::Draw,
        }
    }

    pub fn flags(&self) -> u8 {
        self.0[31]
    }

    /// Unpacks the position itself (Chess960 castling mode, which also reads standard castling).
    pub fn position(&self) -> Result<Chess, String> {
        if self.occupancy().count() > 32 {
            return Err("more than 32 pieces".to_string());
        }
        let mut board = Board::empty();
        let mut rights = Bitboard::EMPTY;
        for (i, sq) in self.occupancy().into_iter().enumerate() {
            let code = (self.0[8 + i / 2] >> (4 * (i % 2))) & 15;
            let piece = code_piece(code).ok_or_else(|| format!("bad piece code {code}"))?;
            if code >= 12 {
                rights.add(sq);
            }
            board.set_piece_at(sq, piece);
        }
        let ep = self.0[24] & 0x7f;
        let mut setup = Setup::empty();
        setup.board = board;
        setup.turn = self.turn();
        setup.castling_rights = rights;
        setup.ep_square = if ep < 64 {
            Some(Square::new(ep as u32))
        } else {
            None
        };
        setup.halfmoves = self.0[25] as u32;
        setup.fullmoves =
            std::num::NonZeroU32::new(u16::from_le_bytes([self.0[26], self.0[27]]).max(1) as u32)
                .expect("at least 1");
        Chess::from_setup(setup, CastlingMode::Chess960).map_err(|e| e.to_string())
    }
}

/// A file's whole records, read a block at a time (a file of any size in bounded memory); a
/// torn record at the end (a writer still at work) is left out.
pub struct Blocks {
    file: std::io::BufReader<std::fs::File>,
    left: u64,
    block: usize,
    bytes: Vec<u8>,
    records: Vec<Packed>,
}

impl Blocks {
    /// Opens `path` for blocks of at most `block` records.
    pub fn open(path: &str, block: usize) -> std::io::Result<Blocks> {
        let file = std::fs::File::open(path)?;
        let len = file.metadata()?.len();
        Ok(Blocks {
            file: std::io::BufReader::with_capacity(1 << 20, file),
            left: len / RECORD as u64,
            block: block.max(1),
            bytes: Vec::new(),
            records: Vec::new(),
        })
    }

    /// The records not read yet.
    pub fn left(&self) -> u64 {
        self.left
    }

    /// The next block of records (empty at the end of the file).
    pub fn next_block(&mut self) -> std::io::Result<&[Packed]> {
        use std::io::Read;
        let n = self.left.min(self.block as u64) as usize;
        self.bytes.resize(n * RECORD, 0);
        self.file.read_exact(&mut self.bytes)?;
        self.left -= n as u64;
        self.records.clear();
        self.records.extend(
            self.bytes
                .chunks_exact(RECORD)
                .map(|c| Packed(c.try_into().expect("32 bytes"))),
        );
        Ok(&self.records)
    }
}

/// Appends records `start..start + count` of the file at `path` to `out`.
pub fn read_range(
    path: &str,
    start: u64,
    count: usize,
    out: &mut Vec<Packed>,
) -> std::io::Result<()> {
    use std::io::{Read, Seek, SeekFrom};
    let mut file = std::fs::File::open(path)?;
    file.seek(SeekFrom::Start(start * RECORD as u64))?;
    let mut bytes = vec![0u8; count * RECORD];
    file.read_exact(&mut bytes)?;
    out.extend(
        bytes
            .chunks_exact(RECORD)
            .map(|c| Packed(c.try_into().expect("32 bytes"))),
    );
    Ok(())
}

/// Reads all whole records of a file.
pub fn read_file(path: &str) -> std::io::Result<Vec<Packed>> {
    let bytes = std::fs::read(path)?;
    Ok(bytes
        .chunks_exact(RECORD)
        .map(|c| Packed(c.try_into().expect("32 bytes")))
        .collect())
}

/// The length of a file's prefix made of whole games: its records up to and including the last
/// one marked [`GAME_END`]. Anything after it (an interrupted game, a torn record) is unfinished.
pub fn complete_length(bytes: &[u8]) -> usize {
    let whole = bytes.len() / RECORD;
    (0..whole)
        .rev()
        .find(|&i| bytes[i * RECORD + 31] & GAME_END != 0)
        .map_or(0, |i| (i + 1) * RECORD)
}

/// The number of games in a run of whole records.
pub fn count_games(bytes: &[u8]) -> u64 {
    bytes
        .chunks_exact(RECORD)
        .filter(|c| c[31] & GAME_END != 0)
        .count() as u64
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::position::Position as ScoutPosition;

    #[test]
    fn records_round_trip() {
        let fens = [
            (
                "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
                CastlingMode::Standard,
            ),
            (
                "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w Kq - 3 17",
                CastlingMode::Standard,
            ),
            (
                "rnbqkb1r/ppppp1pp/7n/4Pp2/8/8/PPPP1PPP/RNBQKBNR w KQkq f6 0 3",
                CastlingMode::Standard,
            ),
            (
                "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 b - - 99 300",
                CastlingMode::Standard,
            ),
            // Chess960: rooks on b and g files carry the rights.
            (
                "1rkbbnrq/pppppppp/8/8/8/8/PPPPPPPP/1RKBBNRQ w GBgb - 0 1",
                CastlingMode::Chess960,
            ),
            (
                "1rkbbnrq/pppppppp/8/8/8/8/PPPPPPPP/1RKBBNRQ b Gb - 0 9",
                CastlingMode::Chess960,
            ),
        ];
        for (i, (fen, mode)) in fens.iter().enumerate() {
            let pos = ScoutPosition::from_fen(fen, *mode).unwrap();
            let outcome = [Outcome::Loss, Outcome::Draw, Outcome::Win][i % 3];
            let score = [-32768, -1, 0, 1, 250, 32767][i];
            let packed = Packed::new(pos.chess(), score, outcome, (i % 2) as u8);
            let back = packed.position().unwrap();
            assert_eq!(ScoutPosition::new(back.clone()).fen(), pos.fen(), "{fen}");
            assert_eq!(
                back.castles().castling_rights(),
                pos.chess().castles().castling_rights()
            );
            assert_eq!(packed.score() as i32, score);
            assert_eq!(packed.outcome(), outcome);
            assert_eq!(packed.flags(), (i % 2) as u8);
            assert_eq!(packed.turn(), pos.turn());
            let pieces: Vec<_> = packed.pieces().collect();
            let expected: Vec<_> = pos.chess().board().iter().collect();
            assert_eq!(pieces.len(), expected.len());
            for (sq, piece) in pieces {
                assert_eq!(pos.chess().board().piece_at(sq), Some(piece));
            }
        }
        // Scores beyond i16 saturate.
        let p = Packed::new(&Chess::default(), 100_000, Outcome::Draw, 0);
        assert_eq!(p.score(), i16::MAX);
    }

    #[test]
    fn unfinished_games_are_found() {
        let a = Packed::new(&Chess::default(), 10, Outcome::Win, 0);
        let end = Packed::new(&Chess::default(), 10, Outcome::Win, GAME_END);
        let mut bytes = Vec::new();
        for p in [a, a, end, a, end, a] {
            bytes.extend_from_slice(&p.0);
        }
        bytes.extend_from_slice(&a.0[..7]);
        assert_eq!(complete_length(&bytes), 5 * RECORD);
        assert_eq!(count_games(&bytes[..complete_length(&bytes)]), 2);
        assert_eq!(complete_length(&bytes[..2 * RECORD]), 0);

        // Read in blocks and by range, the torn record left out.
        let dir = std::env::temp_dir().join(format!("scout-packed-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("d.bin").to_string_lossy().into_owned();
        std::fs::write(&path, &bytes).unwrap();
        let mut blocks = Blocks::open(&path, 4).unwrap();
        assert_eq!(blocks.left(), 6);
        assert_eq!(blocks.next_block().unwrap(), &[a, a, end, a]);
        assert_eq!(blocks.next_block().unwrap(), &[end, a]);
        assert!(blocks.next_block().unwrap().is_empty());
        let mut range = vec![end];
        read_range(&path, 2, 3, &mut range).unwrap();
        assert_eq!(range, [end, end, a, end]);
        assert!(read_range(&path, 4, 3, &mut range).is_err());
        std::fs::remove_dir_all(&dir).unwrap();
        // Records that cannot be unpacked.
        assert!(a.is_valid());
        let mut many = a;
        many.0[..8].copy_from_slice(&u64::MAX.to_le_bytes());
        assert!(!many.is_valid());
        let mut code = a;
        code.0[8] = 0xE0;
        assert!(!code.is_valid());
    }
}
