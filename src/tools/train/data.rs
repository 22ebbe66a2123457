//! Training positions as the trainer holds them: the 32-byte records themselves (`Positions`),
//! decoded one at a time into features when a batch needs them (`Sample`), so a position costs
//! 32 bytes of memory plus 4 of shuffle index (8 with its mirrored copy). `open` reads the data
//! files once, splits them into training and validation positions by game (positions of one game
//! never sit on both sides), and keeps the training positions in memory when they fit the budget;
//! beyond it they are streamed from the files a window at a time (`stream.rs`).

use arrayvec::ArrayVec;
use shakmaty::Color;

use super::stream::{self, Stream};
use crate::nnue::feature;
use crate::tools::packed::{Blocks, GAME_END, Packed};

/// One position decoded for training.
pub struct Sample {
    /// White-perspective feature indices (Black's are derived).
    white: ArrayVec<u16, 32>,
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
        let mut white = ArrayVec::new();
        for (sq, piece) in p.pieces() {
            let sq = if mirror { sq.flip_horizontal() } else { sq };
            white.push(feature(Color::White, piece, sq) as u16);
        }
        let black = p.turn() == Color::Black;
        let white_score = f32::from(p.score());
        let white_result = p.outcome().score();
        Sample {
            white,
            black,
            score: if black { -white_score } else { white_score },
            result: if black {
                1.0 - white_result
            } else {
                white_result
            },
        }
    }

    /// The features as pairs (side to move's view, the other side's view).
    #[inline]
    pub fn perspective_features(&self) -> impl Iterator<Item = (u16, u16)> + '_ {
        let black = self.black;
        self.white.iter().map(move |&f| {
            if black {
                (black_view(f), f)
            } else {
                (f, black_view(f))
            }
        })
    }

    /// The number of pieces (kings included): one feature each.
    #[inline]
    pub fn pieces(&self) -> u32 {
        self.white.len() as u32
    }

    /// The features from White's perspective.
    #[inline]
    pub fn white_features(&self) -> &[u16] {
        &self.white
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

/// The training positions: all in memory, or streamed from the files.
pub enum TrainingSet {
    /// Every training position (an epoch is shuffled whole).
    Memory(Positions),
    /// More positions than the budget: read window by window.
    Stream(Stream),
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

/// The data files, read and split.
pub struct Data {
    pub train: TrainingSet,
    pub valid: Positions,
    /// Games in the files (an unfinished game at the end of a file counts as one).
    pub games: u64,
    /// Training positions (before mirroring).
    pub train_positions: u64,
}

/// Reads the data files once and splits them by game: one game in `validation_every` goes to
/// the validation set (0: none), which is kept in memory. The training positions are kept in
/// memory if the files hold at most `max_positions` records; otherwise the files are streamed
/// in windows of at most `max_positions` training positions.
pub fn open(paths: &[String], validation_every: u64, max_positions: usize) -> Result<Data, String> {
    let max_positions = max_positions.clamp(1, MAX_POSITIONS);
    let mut total = 0u64;
    for path in paths {
        let len = std::fs::metadata(path)
            .map_err(|e| format!("{path}: {e}"))?
            .len()
            / crate::tools::packed::RECORD as u64;
        if len == 0 {
            return Err(format!("{path}: no positions"));
        }
        total += len;
    }
    let in_memory = total <= max_positions as u64;
    let chunk_len = if in_memory {
        1 << 20
    } else {
        stream::chunk_len(max_positions)
    };
    let mut train = Positions::default();
    if in_memory {
        train.records.reserve_exact(total as usize);
    }
    let mut valid = Positions::default();
    let mut chunks = Vec::new();
    let (mut game, mut train_positions) = (0u64, 0u64);
    for (file, path) in paths.iter().enumerate() {
        let mut blocks = Blocks::open(path, chunk_len).map_err(|e| format!("{path}: {e}"))?;
        let mut start = 0u64;
        let mut unfinished = false;
        loop {
            let block = blocks.next_block().map_err(|e| format!("{path}: {e}"))?;
            if block.is_empty() {
                break;
            }
            if !in_memory {
                chunks.push(stream::Chunk {
                    file,
                    start,
                    len: block.len(),
                    first_game: game,
                });
            }
            for (i, r) in block.iter().enumerate() {
                if !r.is_valid() {
                    return Err(format!(
                        "{path}: record {} is not a position (a damaged or foreign file)",
                        start + i as u64
                    ));
                }
                if is_validation_game(game, validation_every) {
                    valid.push(r);
                } else {
                    train_positions += 1;
                    if in_memory {
                        train.push(r);
                    }
                }
                if r.flags() & GAME_END != 0 {
                    game += 1;
                }
            }
            unfinished = block.last().is_some_and(|r| r.flags() & GAME_END == 0);
            start += block.len() as u64;
        }
        if unfinished {
            // An unfinished game at the end of a file is a game of its own.
            game += 1;
        }
    }
    let train = if in_memory {
        TrainingSet::Memory(train)
    } else {
        TrainingSet::Stream(Stream::new(
            paths.to_vec(),
            chunks,
            max_positions,
            validation_every,
        ))
    };
    Ok(Data {
        train,
        valid,
        games: game,
        train_positions,
    })
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::tools::packed::Outcome;
    use shakmaty::{CastlingMode, Chess, Piece, Role, Square};

    /// A directory of its own for a test's files.
    pub(crate) fn temp_dir(name: &str) -> std::path::PathBuf {
        let dir = std::env::temp_dir().join(format!("scout-{name}-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        dir
    }

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
        let mut a: Vec<u16> = mirrored
            .white_features()
            .iter()
            .map(|&f| (f / 64 * 64) + ((f % 64) ^ 7))
            .collect();
        let mut b = plain.white_features().to_vec();
        a.sort_unstable();
        b.sort_unstable();
        assert_eq!(a, b);
        assert_ne!(mirrored.white_features(), plain.white_features());
        assert_eq!(
            (mirrored.score, mirrored.result),
            (plain.score, plain.result)
        );
        assert_eq!((plain.score, plain.result, plain.pieces()), (35.0, 1.0, 10));
        let start = positions.entry(2);
        assert_eq!((start.score, start.result, start.pieces()), (10.0, 0.5, 32));
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

    /// Games split by number across files: a game's positions all go to one side, an
    /// unfinished game at the end of a file is a game of its own, and a record that is no
    /// position is refused.
    #[test]
    fn files_split_by_game() {
        let dir = temp_dir("split");
        let path = |n: &str| dir.join(n).to_string_lossy().into_owned();
        let p = |score: i32, flags: u8| Packed::new(&Chess::default(), score, Outcome::Draw, flags);
        // Games 0 (3 positions), 1 (2), 2 (1, unfinished) in a.bin; 3 (2) in b.bin.
        let a = [
            p(0, 0),
            p(1, 0),
            p(2, GAME_END),
            p(10, 0),
            p(11, GAME_END),
            p(20, 0),
        ];
        let b = [p(30, 0), p(31, GAME_END)];
        let write = |name: &str, records: &[Packed]| {
            std::fs::write(
                path(name),
                records.iter().flat_map(|r| r.0).collect::<Vec<_>>(),
            )
            .unwrap()
        };
        write("a.bin", &a);
        write("b.bin", &b);
        let files = [path("a.bin"), path("b.bin")];
        // Every game held out with 1; game 0 alone (its hash is 0) with a large number.
        let data = open(&files, 1, 100).unwrap();
        assert_eq!(
            (data.games, data.train_positions, data.valid.len()),
            (4, 0, 8)
        );
        let data = open(&files, 1 << 40, 100).unwrap();
        let scores = |ps: &Positions| ps.records.iter().map(|r| r.score()).collect::<Vec<_>>();
        assert_eq!(scores(&data.valid), [0, 1, 2]);
        let TrainingSet::Memory(train) = &data.train else {
            panic!("8 positions fit in memory")
        };
        assert_eq!(scores(train), [10, 11, 20, 30, 31]);
        let mut bad = a;
        bad[4].0[..8].copy_from_slice(&u64::MAX.to_le_bytes());
        write("bad.bin", &bad);
        let refused = open(&[path("bad.bin")], 20, 100).err().unwrap();
        assert!(refused.contains("record 4"), "{refused}");
        assert!(open(&[path("missing.bin")], 20, 100).is_err());
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
