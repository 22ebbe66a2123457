//! Training positions in the form the trainer uses: each position's active features from
//! White's perspective (Black's are derived), the side to move, the score and the result.
//! Positions are split into training and validation sets by game, so positions of one game
//! never sit on both sides.

use shakmaty::Color;

use crate::nnue::feature;
use crate::tools::packed::{self, GAME_END, Packed};

/// The positions of one set, flattened.
#[derive(Default)]
pub struct Samples {
    /// White-perspective feature indices of every position, back to back.
    pub features: Vec<u16>,
    /// Where each position's features start in `features` (one extra entry at the end).
    pub offsets: Vec<u32>,
    /// Black to move?
    pub black: Vec<bool>,
    /// The search score from the side to move's point of view.
    pub score: Vec<f32>,
    /// The result from the side to move's point of view (0, ½, 1).
    pub result: Vec<f32>,
}

impl Samples {
    pub fn len(&self) -> usize {
        self.black.len()
    }

    pub fn is_empty(&self) -> bool {
        self.black.is_empty()
    }

    pub fn push(&mut self, p: &Packed) {
        self.push_with(p, false);
    }

    /// Adds a position, mirrored left to right (files a-h swapped) when `mirror` is set: the
    /// same chess when no castling right is left, so the same score and result.
    fn push_with(&mut self, p: &Packed, mirror: bool) {
        if self.offsets.is_empty() {
            self.offsets.push(0);
        }
        for (sq, piece) in p.pieces() {
            let sq = if mirror { sq.flip_horizontal() } else { sq };
            self.features.push(feature(Color::White, piece, sq) as u16);
        }
        self.offsets.push(self.features.len() as u32);
        let black = p.turn() == Color::Black;
        let white_score = f32::from(p.score());
        let white_result = p.outcome().score();
        self.black.push(black);
        self.score
            .push(if black { -white_score } else { white_score });
        self.result.push(if black {
            1.0 - white_result
        } else {
            white_result
        });
    }

    /// The features of position `i` as pairs (side to move's view, the other side's view).
    #[inline]
    pub fn perspective_features(&self, i: usize) -> impl Iterator<Item = (u16, u16)> + '_ {
        let black = self.black[i];
        self.white_features(i).iter().map(move |&f| {
            if black {
                (black_view(f), f)
            } else {
                (f, black_view(f))
            }
        })
    }

    /// The number of pieces of position `i` (kings included): one feature each.
    #[inline]
    pub fn pieces(&self, i: usize) -> u32 {
        self.offsets[i + 1] - self.offsets[i]
    }

    /// The features of position `i` from White's perspective.
    #[inline]
    pub fn white_features(&self, i: usize) -> &[u16] {
        &self.features[self.offsets[i] as usize..self.offsets[i + 1] as usize]
    }
}

/// The same feature seen from Black's side: colours swapped, board mirrored rank-wise.
#[inline]
pub fn black_view(white_feature: u16) -> u16 {
    let f = white_feature as usize;
    let (kind, sq) = (f / 64, f % 64);
    let swapped = (kind + 6) % 12;
    (swapped * 64 + (sq ^ 56)) as u16
}

/// Reads data files and splits them by game: one game in `validation_every` (by a hash of its
/// index) goes to the validation set; 0 keeps everything for training. With `mirror`, every
/// training position without castling rights is also added mirrored left to right.
pub fn load(
    paths: &[String],
    validation_every: u64,
    mirror: bool,
) -> Result<(Samples, Samples), String> {
    let mut train = Samples::default();
    let mut valid = Samples::default();
    let mut game = 0u64;
    for path in paths {
        let records = packed::read_file(path).map_err(|e| format!("{path}: {e}"))?;
        if records.is_empty() {
            return Err(format!("{path}: no positions"));
        }
        for r in &records {
            let to_valid = validation_every > 0
                && game
                    .wrapping_mul(0x9E37_79B9_7F4A_7C15)
                    .is_multiple_of(validation_every);
            if to_valid {
                valid.push(r);
            } else {
                train.push(r);
                if mirror && !r.has_castling_rights() {
                    train.push_with(r, true);
                }
            }
            if r.flags() & GAME_END != 0 {
                game += 1;
            }
        }
        if records.last().is_some_and(|r| r.flags() & GAME_END == 0) {
            // An unfinished game at the end of a file is a game of its own.
            game += 1;
        }
    }
    Ok((train, valid))
}

#[cfg(test)]
mod tests {
    use super::*;
    use shakmaty::{Piece, Role, Square};

    /// Positions without castling rights are also learnt mirrored left to right; positions
    /// with one, and validation positions, are not.
    #[test]
    fn mirroring_adds_the_file_mirror_of_positions_without_castling() {
        use crate::tools::packed::Outcome;
        use shakmaty::{CastlingMode, Chess};
        let dir = std::env::temp_dir().join(format!("scout-mirror-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("d.bin").to_string_lossy().into_owned();
        let fen_pos = |fen: &str| {
            crate::position::Position::from_fen(fen, CastlingMode::Standard)
                .unwrap()
                .chess()
                .clone()
        };
        let quiet = fen_pos("8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1");
        let castling = Chess::default();
        let mut bytes = Vec::new();
        bytes.extend_from_slice(&Packed::new(&quiet, 35, Outcome::Win, GAME_END).0);
        bytes.extend_from_slice(&Packed::new(&castling, 10, Outcome::Draw, GAME_END).0);
        std::fs::write(&path, &bytes).unwrap();
        let (train, valid) = load(std::slice::from_ref(&path), 0, true).unwrap();
        let (plain, _) = load(std::slice::from_ref(&path), 0, false).unwrap();
        let _ = std::fs::remove_dir_all(&dir);
        assert_eq!((train.len(), valid.len(), plain.len()), (3, 0, 2));
        let mirrored: Vec<u16> = train
            .white_features(1)
            .iter()
            .map(|&f| (f / 64 * 64) + ((f % 64) ^ 7))
            .collect();
        let mut a = mirrored;
        let mut b = train.white_features(0).to_vec();
        a.sort_unstable();
        b.sort_unstable();
        assert_eq!(a, b);
        assert_eq!(train.score[1], train.score[0]);
        assert_eq!(train.result[1], train.result[0]);
        assert_eq!(train.white_features(2), plain.white_features(1));
    }

    #[test]
    fn black_view_is_the_engine_feature() {
        for color in Color::ALL {
            for role in Role::ALL {
                for sq in Square::ALL {
                    let piece = Piece { color, role };
                    let w = feature(Color::White, piece, sq) as u16;
                    assert_eq!(black_view(w) as usize, feature(Color::Black, piece, sq));
                }
            }
        }
    }
}
