//! Training positions as the trainer holds them: the 32-byte records themselves (`Positions`),
//! decoded one at a time into features when a batch needs them (`Sample`), so a position costs
//! 32 bytes of memory plus 4 of shuffle index (8 with its mirrored copy), and the rule that
//! holds a game out for validation (`is_validation_game`). Reading the files is `load.rs`'s.

use arrayvec::ArrayVec;
use shakmaty::{Color, Piece, Square};

use crate::nnue::KingBuckets;
use crate::training::packed::Packed;

/// One position decoded for training.
pub struct Sample {
    /// The pieces and their squares.
    pieces: ArrayVec<(Square, Piece), 32>,
    /// Each side's king square, indexed by `Color as usize`.
    kings: [Square; 2],
    /// Black to move?
    pub black: bool,
    /// The search score from the side to move's point of view.
    pub score: f32,
    /// The result from the side to move's point of view (0, ½, 1).
    pub result: f32,
}

impl Sample {
    /// Decodes a record; mirrored left to right (files a-h swapped) when `mirror` is set: the
    /// same chess when no castling right is left, so the same score and result.
    pub fn new(p: &Packed, mirror: bool) -> Sample {
        let mut pieces = ArrayVec::new();
        let mut kings = [Square::A1; 2];
        for (sq, piece) in p.pieces() {
            let sq = if mirror { sq.flip_horizontal() } else { sq };
            if piece.role == shakmaty::Role::King {
                kings[piece.color as usize] = sq;
            }
            pieces.push((sq, piece));
        }
        let black = p.turn() == Color::Black;
        let white_score = f32::from(p.score());
        let white_result = p.outcome().score();
        Sample {
            pieces,
            kings,
            black,
            score: if black { -white_score } else { white_score },
            result: if black {
                1.0 - white_result
            } else {
                white_result
            },
        }
    }

    /// The features of a net with these king buckets, as pairs (side to move's view, the other
    /// side's view): the engine's own (`nnue::inputs`).
    #[inline]
    pub fn perspective_features(
        &self,
        king_buckets: &KingBuckets,
    ) -> impl Iterator<Item = (usize, usize)> + '_ {
        let stm = if self.black {
            Color::Black
        } else {
            Color::White
        };
        let us = king_buckets.view(stm, self.kings[stm as usize]);
        let them = king_buckets.view(!stm, self.kings[!stm as usize]);
        self.pieces
            .iter()
            .map(move |&(sq, piece)| (us.feature(piece, sq), them.feature(piece, sq)))
    }

    /// The number of pieces (kings included): one feature each.
    #[inline]
    pub fn pieces(&self) -> u32 {
        self.pieces.len() as u32
    }
}

/// Positions in memory, as records. An epoch visits them through entries: `index << 1`, plus 1
/// for the position mirrored left to right.
#[derive(Clone, Debug, Default)]
pub struct Positions {
    pub records: Vec<Packed>,
}

/// The most positions one `Positions` holds (an entry keeps the index in 31 bits).
pub const MAX_POSITIONS: usize = (1 << 31) - 1;

impl Positions {
    pub fn len(&self) -> usize {
        self.records.len()
    }

    pub fn is_empty(&self) -> bool {
        self.records.is_empty()
    }

    pub fn push(&mut self, p: &Packed) {
        self.records.push(*p);
    }

    /// Position `i`, decoded.
    #[inline]
    pub fn sample(&self, i: usize) -> Sample {
        Sample::new(&self.records[i], false)
    }

    /// The position an entry stands for, decoded.
    #[inline]
    pub fn entry(&self, entry: u32) -> Sample {
        Sample::new(&self.records[(entry >> 1) as usize], entry & 1 == 1)
    }

    /// The entries of an epoch in `out`: every position, and with `mirror` every position
    /// without castling rights a second time, mirrored.
    pub fn entries(&self, mirror: bool, out: &mut Vec<u32>) {
        assert!(self.len() <= MAX_POSITIONS);
        out.clear();
        for (i, r) in self.records.iter().enumerate() {
            out.push((i as u32) << 1);
            if mirror && !r.has_castling_rights() {
                out.push((i as u32) << 1 | 1);
            }
        }
    }
}

/// Is game number `game` (counted across the files in order, from 0) held out? One game in
/// `every`, by a hash of its number; none with 0.
#[inline]
pub fn is_validation_game(game: u64, every: u64) -> bool {
    every > 0
        && game
            .wrapping_mul(0x9E37_79B9_7F4A_7C15)
            .is_multiple_of(every)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::training::packed::{GAME_END, Outcome};
    use shakmaty::{CastlingMode, Chess, Position};

    /// Positions without castling rights are also learnt mirrored left to right; positions
    /// with one are not.
    #[test]
    fn mirroring_adds_the_file_mirror_of_positions_without_castling() {
        let fen_pos = |fen: &str| {
            crate::position::Position::from_fen(fen, CastlingMode::Standard)
                .unwrap()
                .chess()
                .clone()
        };
        let quiet = fen_pos("8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1");
        let castling = Chess::default();
        let mut positions = Positions::default();
        positions.push(&Packed::new(&quiet, 35, Outcome::Win, GAME_END));
        positions.push(&Packed::new(&castling, 10, Outcome::Draw, GAME_END));
        let mut entries = Vec::new();
        positions.entries(true, &mut entries);
        assert_eq!(entries, [0, 1, 2]);
        positions.entries(false, &mut entries);
        assert_eq!(entries, [0, 2]);
        let (plain, mirrored) = (positions.entry(0), positions.entry(1));
        let white = |s: &Sample| -> Vec<usize> {
            let mut f: Vec<usize> = s
                .perspective_features(&KingBuckets::NONE)
                .map(|(us, _)| us)
                .collect();
            f.sort_unstable();
            f
        };
        let mut a: Vec<usize> = white(&mirrored)
            .iter()
            .map(|&f| (f / 64 * 64) + ((f % 64) ^ 7))
            .collect();
        a.sort_unstable();
        assert_eq!(a, white(&plain));
        assert_ne!(white(&mirrored), white(&plain));
        assert_eq!(
            (mirrored.score, mirrored.result),
            (plain.score, plain.result)
        );
        assert_eq!((plain.score, plain.result, plain.pieces()), (35.0, 1.0, 10));
        let start = positions.entry(2);
        assert_eq!((start.score, start.result, start.pieces()), (10.0, 0.5, 32));
    }

    /// The trainer sees what the engine sees: each perspective's features are the engine's
    /// view of the board, also with king buckets (the king's square from the record).
    #[test]
    fn sample_features_are_the_engines() {
        let pos = crate::position::Position::from_fen(
            "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R b KQkq - 0 1",
            CastlingMode::Standard,
        )
        .unwrap()
        .chess()
        .clone();
        let s = Sample::new(&Packed::new(&pos, 0, Outcome::Draw, GAME_END), false);
        for kb in [KingBuckets::NONE, KingBuckets::mirrored(8).unwrap()] {
            sample_features_are_the_engines_with(&s, &pos, kb);
        }
        // Kings on a–d, and the mirror image the trainer makes of a position without castling
        // rights: with mirrored king buckets the image has the very same features.
        let pos = crate::position::Position::from_fen(
            "2kr3r/ppp2ppp/2n1b3/8/3P4/2N5/PP3PPP/1K1R3R w - - 0 1",
            CastlingMode::Standard,
        )
        .unwrap()
        .chess()
        .clone();
        let record = Packed::new(&pos, 0, Outcome::Draw, GAME_END);
        let (plain, image) = (Sample::new(&record, false), Sample::new(&record, true));
        let kb = KingBuckets::mirrored(4).unwrap();
        sample_features_are_the_engines_with(&plain, &pos, kb);
        sample_features_are_the_engines_with(&plain, &pos, KingBuckets::NONE);
        let sorted = |s: &Sample, kb| {
            let mut f: Vec<(usize, usize)> = s.perspective_features(&kb).collect();
            f.sort_unstable();
            f
        };
        assert_eq!(sorted(&plain, kb), sorted(&image, kb));
        assert_ne!(
            sorted(&plain, KingBuckets::NONE),
            sorted(&image, KingBuckets::NONE)
        );
    }

    /// The sample's features are the engine's view of `pos` (side to move's first).
    fn sample_features_are_the_engines_with(s: &Sample, pos: &Chess, kb: KingBuckets) {
        let (mut us, mut them): (Vec<usize>, Vec<usize>) = s.perspective_features(&kb).unzip();
        let engine = |color| {
            let view = kb.view_of(color, pos.board());
            let mut f: Vec<usize> = pos
                .board()
                .into_iter()
                .map(|(sq, piece)| view.feature(piece, sq))
                .collect();
            f.sort_unstable();
            f
        };
        us.sort_unstable();
        them.sort_unstable();
        assert_eq!((us, them), (engine(pos.turn()), engine(!pos.turn())));
    }
}
