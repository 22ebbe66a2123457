//! Reading the data files: `open` reads them once, splits them into training and validation
//! positions by game (positions of one game never sit on both sides), and keeps the training
//! positions in memory when they fit the budget; beyond it they are streamed from the files a
//! window at a time (`stream.rs`).

use super::data::{MAX_POSITIONS, Positions, is_validation_game};
use super::stream::{self, Stream};
use crate::training::packed::{Blocks, GAME_END};

/// The training positions: all in memory, or streamed from the files.
pub enum TrainingSet {
    /// Every training position (an epoch is shuffled whole).
    Memory(Positions),
    /// More positions than the budget: read window by window.
    Stream(Stream),
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
            / crate::training::packed::RECORD as u64;
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
    use crate::training::packed::{Outcome, Packed};
    use shakmaty::Chess;

    /// A directory of its own for a test's files.
    pub(crate) fn temp_dir(name: &str) -> std::path::PathBuf {
        let dir = std::env::temp_dir().join(format!("scout-{name}-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        dir
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
