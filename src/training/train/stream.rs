//! Training data larger than the memory budget, streamed from the files. The files are cut into
//! chunks of consecutive records (1M positions, fewer for small budgets: at least 16 chunks a
//! window); each epoch takes the chunks in an order of its own (from the seed and the epoch
//! alone, so a resumed run reads what the uninterrupted one did) and groups them into windows
//! of at most the budget's positions. A window is read into memory (one buffer, reused), its
//! validation games dropped, and shuffled whole: a batch mixes positions of many chunks, and
//! every training position is visited once an epoch, as in memory.

use rand::Rng;
use rand::seq::SliceRandom;

use super::data::{Positions, is_validation_game};
use crate::training::packed::{GAME_END, read_range};

/// Records `start..start + len` of file `file`; `first_game` is the number of the game its
/// first record belongs to.
#[derive(Clone, Debug)]
pub struct Chunk {
    pub file: usize,
    pub start: u64,
    pub len: usize,
    pub first_game: u64,
}

/// The chunk length for windows of `max_positions`: 16 chunks a window at least, 1M positions
/// (32 MB) a chunk at most.
pub fn chunk_len(max_positions: usize) -> usize {
    (max_positions / 16).clamp(1, 1 << 20)
}

/// Training data read from the files window by window.
pub struct Stream {
    paths: Vec<String>,
    chunks: Vec<Chunk>,
    /// Chunks a window.
    per_window: usize,
    validation_every: u64,
}

impl Stream {
    /// `chunks` of `paths` (as `load::open` cut them), in windows of at most `max_positions`.
    pub fn new(
        paths: Vec<String>,
        chunks: Vec<Chunk>,
        max_positions: usize,
        validation_every: u64,
    ) -> Stream {
        let longest = chunks.iter().map(|c| c.len).max().unwrap_or(1);
        Stream {
            paths,
            chunks,
            per_window: (max_positions / longest).max(1),
            validation_every,
        }
    }

    /// Windows an epoch.
    pub fn windows(&self) -> usize {
        self.chunks.len().div_ceil(self.per_window)
    }

    /// The most positions a window holds.
    pub fn window_capacity(&self) -> usize {
        self.per_window * self.chunks.iter().map(|c| c.len).max().unwrap_or(0)
    }

    /// An epoch's chunk order.
    pub fn order(&self, rng: &mut impl Rng) -> Vec<usize> {
        let mut order: Vec<usize> = (0..self.chunks.len()).collect();
        order.shuffle(rng);
        order
    }

    /// Reads window `w` of the epoch with chunk order `order` into `out`: the training positions
    /// of its chunks.
    pub fn load(&self, order: &[usize], w: usize, out: &mut Positions) -> Result<(), String> {
        out.records.clear();
        out.records.reserve(self.window_capacity());
        for &c in order.iter().skip(w * self.per_window).take(self.per_window) {
            let chunk = &self.chunks[c];
            let path = &self.paths[chunk.file];
            let from = out.records.len();
            read_range(path, chunk.start, chunk.len, &mut out.records)
                .map_err(|e| format!("{path}: {e} (was the file changed while training?)"))?;
            let mut game = chunk.first_game;
            let mut kept = from;
            for i in from..out.records.len() {
                let r = out.records[i];
                if !is_validation_game(game, self.validation_every) {
                    out.records[kept] = r;
                    kept += 1;
                }
                if r.flags() & GAME_END != 0 {
                    game += 1;
                }
            }
            out.records.truncate(kept);
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::super::load::{TrainingSet, open, tests::temp_dir};
    use super::*;
    use crate::training::packed::{Outcome, Packed};
    use rand::SeedableRng;
    use rand::rngs::StdRng;
    use shakmaty::Chess;

    /// Streamed in windows of a small budget, an epoch reads every training position exactly
    /// once, no validation position, and never more than the budget at a time; the
    /// validation set is the one of the data in memory; the order is the seed's.
    #[test]
    fn an_epoch_streams_every_training_position_once() {
        let dir = temp_dir("stream");
        let path = |n: &str| dir.join(n).to_string_lossy().into_owned();
        // Positions numbered by their score; games of 1 to 7 positions; the second file ends
        // with an unfinished game.
        let mut score = 0;
        for (name, games) in [("a.bin", 40), ("b.bin", 25)] {
            let mut bytes = Vec::new();
            for g in 0..games {
                let len = g % 7 + 1;
                for i in 0..len {
                    let last = i + 1 == len && !(name == "b.bin" && g + 1 == games);
                    let flags = if last { GAME_END } else { 0 };
                    let p = Packed::new(&Chess::default(), score, Outcome::Draw, flags);
                    bytes.extend_from_slice(&p.0);
                    score += 1;
                }
            }
            std::fs::write(path(name), bytes).unwrap();
        }
        let files = [path("a.bin"), path("b.bin")];
        let whole = open(&files, 5, 1000).unwrap();
        let TrainingSet::Memory(all) = &whole.train else {
            panic!("in memory")
        };
        let mut expected: Vec<i16> = all.records.iter().map(|r| r.score()).collect();
        expected.sort_unstable();
        let budget = 40;
        let streamed = open(&files, 5, budget).unwrap();
        assert_eq!(streamed.valid.records, whole.valid.records);
        assert_eq!(
            (streamed.games, streamed.train_positions),
            (whole.games, whole.train_positions)
        );
        assert!(whole.valid.len() > 10 && whole.train_positions > 150);
        let TrainingSet::Stream(stream) = &streamed.train else {
            panic!("streamed")
        };
        assert!(stream.windows() > 4 && stream.window_capacity() <= budget);
        let epoch = |seed: u64| {
            let order = stream.order(&mut StdRng::seed_from_u64(seed));
            let mut window = Positions::default();
            let mut seen = Vec::new();
            for w in 0..stream.windows() {
                stream.load(&order, w, &mut window).unwrap();
                assert!(window.len() <= budget);
                seen.extend(window.records.iter().map(|r| r.score()));
            }
            seen
        };
        let first = epoch(1);
        assert_ne!(first, epoch(2));
        assert_eq!(first, epoch(1));
        let mut sorted = first;
        sorted.sort_unstable();
        assert_eq!(sorted, expected);
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
