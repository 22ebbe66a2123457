//! Self-play training data (`scout datagen`).
//!
//! Every worker thread plays games against itself from a random balanced opening
//! ([`crate::tools::openings`]: a few uniformly random plies, then a short search), then a soft node
//! budget per move until the game ends by the rules or by adjudication. Quiet positions
//! (side to move not in check, best move neither a capture nor a promotion, no mate score)
//! are appended to the output in the 32-byte format of [`crate::training::packed`], with the
//! search's score and the game's result, a whole game at a time. Running the same command
//! again continues an interrupted run: an unfinished game at the end of the file is cut off,
//! the games already there count towards `--games`, and the random openings are drawn from a
//! seed mixed with the file's length, so a continued run never replays the games it has. A run
//! holds an advisory lock on its file, so a second run on the same file is refused.
//! Both sides play with the net built into the engine, or the one given with `--net`. (Generation
//! 0's data came from the handcrafted evaluation that preceded the nets: see the README.) The
//! search does not scale the net's output by material here (`nnue/scale.rs`): the labels stay in
//! the net's own units, so a net trained on them is scaled once by the engine, not twice.
use std::collections::HashSet;
use std::fs::File;
use std::io::{BufWriter, Read, Seek, SeekFrom, Write};
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use rand::SeedableRng;
use rand::rngs::StdRng;
use shakmaty::{Chess, Color, Move, Position as _};

use crate::position::Position;
use crate::score::MATE_BOUND;
use crate::search::{Feature, Limits, Searcher, SharedFlags, Silent};
use crate::time::TimeManager;
use crate::tools::openings::{self, Recipe};
use crate::training::packed::{self, GAME_END, Outcome, Packed};
use crate::tt::TranspositionTable;

/// What `scout datagen` does.
#[derive(Clone, Debug)]
pub struct Config {
    /// Games the output file should hold when the run ends (games already in it count).
    pub games: u64,
    /// Soft node budget of every move's search (no new iteration after it).
    pub nodes: u64,
    /// Worker threads (each plays its own games).
    pub threads: usize,
    /// Uniformly random plies at the start of each game (one more in half of the games, at
    /// random, so that both colours start on the move).
    pub random_plies: usize,
    /// Games whose position after the random plies scores beyond this are thrown away.
    pub max_opening_score: i32,
    pub seed: u64,
    /// Where the positions go (appended).
    pub out: String,
    /// Print progress to stderr.
    pub progress: bool,
    /// The network both sides play with (the embedded one unless `--net` says otherwise).
    pub net: Arc<crate::nnue::Network>,
}

impl Default for Config {
    fn default() -> Self {
        Config {
            games: 1000,
            nodes: 5000,
            threads: std::thread::available_parallelism().map_or(1, |n| n.get()),
            random_plies: 8,
            max_opening_score: 300,
            seed: 1,
            out: "data/selfplay.bin".to_string(),
            progress: true,
            net: crate::nnue::default_network(),
        }
    }
}

/// Adjudication: a side is declared the winner once every search of this many plies in a
/// row reports at least [`WIN_SCORE`] for it.
const WIN_PLIES: usize = 6;
const WIN_SCORE: i32 = 1000;
/// Adjudication: a draw once this many plies in a row score within [`DRAW_SCORE`], after
/// [`DRAW_FROM_PLY`] plies.
const DRAW_PLIES: usize = 16;
const DRAW_SCORE: i32 = 8;
const DRAW_FROM_PLY: usize = 80;
/// Games longer than this are drawn.
const MAX_PLIES: usize = 400;

/// Counters shared by the workers and the progress display.
#[derive(Default)]
struct Progress {
    games: AtomicU64,
    positions: AtomicU64,
    white_wins: AtomicU64,
    draws: AtomicU64,
    black_wins: AtomicU64,
    discarded: AtomicU64,
    duplicates: AtomicU64,
}

/// A searcher as the data generator plays and labels with: `config`'s net, no material scaling.
fn labelling_searcher(tt: &Arc<TranspositionTable>, config: &Config) -> Searcher {
    let mut searcher = Searcher::new(tt.clone(), Arc::new(SharedFlags::default()));
    searcher.set_network(config.net.clone());
    searcher.disable(Feature::MaterialScale);
    searcher
}

/// Plays games on `config.threads` threads until `config.out` holds `config.games` games,
/// appending their positions. Returns the number of positions written by this run.
pub fn run(config: &Config) -> std::io::Result<u64> {
    if let Some(dir) = std::path::Path::new(&config.out).parent()
        && !dir.as_os_str().is_empty()
    {
        std::fs::create_dir_all(dir)?;
    }
    // One writer a file: a second `datagen` on the same `--out` (a resumed run started while
    // the first still plays) would interleave games. The lock is the operating system's
    // advisory one on the file itself, held until the run ends and released if it dies.
    let mut file = File::options()
        .create(true)
        .truncate(false)
        .read(true)
        .write(true)
        .open(&config.out)?;
    match file.try_lock() {
        Ok(()) => {}
        Err(std::fs::TryLockError::WouldBlock) => {
            return Err(std::io::Error::new(
                std::io::ErrorKind::WouldBlock,
                "another datagen is writing to this file",
            ));
        }
        Err(std::fs::TryLockError::Error(e)) => return Err(e),
    }
    // Resume: keep the whole games already written, cut off an unfinished one.
    let mut existing = Vec::new();
    file.read_to_end(&mut existing)?;
    let keep = packed::complete_length(&existing);
    let games_before = packed::count_games(&existing[..keep]);
    file.set_len(keep as u64)?;
    file.seek(SeekFrom::End(0))?;
    let mut seen = HashSet::new();
    for c in existing[..keep].chunks_exact(packed::RECORD) {
        seen.insert(hash_record(c));
    }
    if config.progress {
        eprintln!("{}: playing with {:?}", config.out, config.net);
    }
    if config.progress && games_before > 0 {
        eprintln!(
            "{}: continuing after {games_before} games ({} positions)",
            config.out,
            keep / packed::RECORD
        );
    }
    let seed = config.seed ^ (keep as u64).wrapping_mul(0xD6E8_FEB8_6659_FD93);
    let out = Mutex::new((BufWriter::new(file), seen));
    let progress = Progress::default();
    progress.games.store(games_before, Ordering::Relaxed);
    let next_game = AtomicU64::new(games_before);
    let live = AtomicUsize::new(config.threads.max(1));
    let failed: Mutex<Option<std::io::Error>> = Mutex::new(None);
    let start = Instant::now();
    std::thread::scope(|s| {
        for id in 0..config.threads.max(1) {
            let (out, progress, next_game, live, failed) =
                (&out, &progress, &next_game, &live, &failed);
            s.spawn(move || {
                // Counts the worker out however it ends (a panic included).
                struct Leave<'a>(&'a AtomicUsize);
                impl Drop for Leave<'_> {
                    fn drop(&mut self) {
                        self.0.fetch_sub(1, Ordering::Relaxed);
                    }
                }
                let _leave = Leave(live);
                if let Err(e) = worker(config, seed, id as u64, next_game, progress, out) {
                    // Stop every worker: the file cannot take more.
                    next_game.store(u64::MAX / 2, Ordering::Relaxed);
                    *failed.lock().unwrap_or_else(|e| e.into_inner()) = Some(e);
                }
            });
        }
        if config.progress {
            s.spawn(|| {
                while live.load(Ordering::Relaxed) > 0 {
                    std::thread::sleep(Duration::from_millis(500));
                    let games = progress.games.load(Ordering::Relaxed);
                    if games >= config.games {
                        break;
                    }
                    print_progress(config, &progress, start, games_before, false);
                }
            });
        }
    });
    out.lock().unwrap_or_else(|e| e.into_inner()).0.flush()?;
    if let Some(e) = failed.into_inner().unwrap_or_else(|e| e.into_inner()) {
        return Err(e);
    }
    if config.progress {
        print_progress(config, &progress, start, games_before, true);
        summary(config, &progress);
    }
    Ok(progress.positions.load(Ordering::Relaxed))
}

/// A record's identity for the duplicate count: the position without its score, result,
/// clocks and flags.
fn hash_record(record: &[u8]) -> u64 {
    Packed(record.try_into().expect("32 bytes")).position_key()
}

fn summary(config: &Config, p: &Progress) {
    let games = p.white_wins.load(Ordering::Relaxed)
        + p.draws.load(Ordering::Relaxed)
        + p.black_wins.load(Ordering::Relaxed);
    let positions = p.positions.load(Ordering::Relaxed);
    let duplicates = p.duplicates.load(Ordering::Relaxed);
    eprintln!(
        "datagen: {games} games this run (White +{} ={} -{}), {positions} positions kept \
         ({:.1} a game), {duplicates} duplicates of positions already in {} ({:.2}%), \
         {} unbalanced openings and games without a kept position thrown away",
        p.white_wins.load(Ordering::Relaxed),
        p.draws.load(Ordering::Relaxed),
        p.black_wins.load(Ordering::Relaxed),
        positions as f64 / games.max(1) as f64,
        config.out,
        100.0 * duplicates as f64 / positions.max(1) as f64,
        p.discarded.load(Ordering::Relaxed),
    );
}

fn print_progress(config: &Config, p: &Progress, start: Instant, before: u64, last: bool) {
    let games = p.games.load(Ordering::Relaxed);
    let secs = start.elapsed().as_secs_f64().max(1e-9);
    let rate = (games - before) as f64 / secs;
    let positions = p.positions.load(Ordering::Relaxed);
    let eta = if rate > 0.0 {
        (config.games.saturating_sub(games)) as f64 / rate
    } else {
        0.0
    };
    eprint!(
        "\rgames {games}/{} ({:.2}/s)  positions {positions} ({:.0}/s)  +{} ={} -{} (White's view)  elapsed {:.0}s  eta {:.0}s   {}",
        config.games,
        rate,
        positions as f64 / secs,
        p.white_wins.load(Ordering::Relaxed),
        p.draws.load(Ordering::Relaxed),
        p.black_wins.load(Ordering::Relaxed),
        secs,
        eta,
        if last { "\n" } else { "" }
    );
}

/// One thread: plays games until the shared game counter reaches the target.
fn worker(
    config: &Config,
    seed: u64,
    id: u64,
    next_game: &AtomicU64,
    progress: &Progress,
    out: &Mutex<(BufWriter<File>, HashSet<u64>)>,
) -> std::io::Result<()> {
    let mut rng = StdRng::seed_from_u64(seed ^ id.wrapping_mul(0x9E37_79B9_7F4A_7C15));
    let tt = Arc::new(TranspositionTable::new(16));
    let mut searcher = labelling_searcher(&tt, config);
    while next_game.fetch_add(1, Ordering::Relaxed) < config.games {
        let game = loop {
            // A game that kept no position is not a game of the file: play another.
            if let Some(game) = play_game(config, &mut rng, &mut searcher, &tt)
                && !game.positions.is_empty()
            {
                break game;
            }
            progress.discarded.fetch_add(1, Ordering::Relaxed);
        };
        let counter = match game.result {
            Some(Color::White) => &progress.white_wins,
            Some(Color::Black) => &progress.black_wins,
            None => &progress.draws,
        };
        counter.fetch_add(1, Ordering::Relaxed);
        let outcome = Outcome::for_white(game.result);
        let mut bytes = Vec::with_capacity(game.positions.len() * packed::RECORD);
        for (i, (pos, score)) in game.positions.iter().enumerate() {
            let last = i + 1 == game.positions.len();
            let flags = if last { GAME_END } else { 0 };
            bytes.extend_from_slice(&Packed::new(pos, *score, outcome, flags).0);
        }
        if let Ok(mut guard) = out.lock() {
            let (writer, seen) = &mut *guard;
            let duplicates = bytes
                .chunks_exact(packed::RECORD)
                .filter(|c| !seen.insert(hash_record(c)))
                .count();
            progress
                .duplicates
                .fetch_add(duplicates as u64, Ordering::Relaxed);
            // A whole game at once, flushed: an interruption loses at most the games in play.
            writer.write_all(&bytes).and_then(|()| writer.flush())?;
        }
        progress
            .positions
            .fetch_add(game.positions.len() as u64, Ordering::Relaxed);
        progress.games.fetch_add(1, Ordering::Relaxed);
    }
    Ok(())
}

/// A finished game: the quiet positions it produced with their scores from White's point of
/// view, and the winner (`None`: draw).
pub struct Game {
    pub positions: Vec<(Chess, i32)>,
    pub result: Option<Color>,
}

/// Plays one game; `None` when the random opening was too unbalanced (or already over).
pub fn play_game(
    config: &Config,
    rng: &mut StdRng,
    searcher: &mut Searcher,
    tt: &TranspositionTable,
) -> Option<Game> {
    tt.clear();
    searcher.new_game();
    // A soft budget: no iteration starts after `nodes`; one already started may spend up to
    // eight times as many before it is cut off.
    let limits = Limits {
        soft_nodes: Some(config.nodes),
        nodes: Some(config.nodes * 8),
        ..Limits::default()
    };
    let recipe = Recipe {
        random_plies: config.random_plies,
        max_score: config.max_opening_score,
    };
    let mut pos = openings::make(Position::default(), &recipe, &limits, rng, searcher)?;
    let mut history = vec![pos.key()];

    let mut positions = Vec::new();
    let (mut win_streak, mut win_side, mut draw_streak) = (0usize, Color::White, 0usize);
    let mut ply = 0usize;
    let result = loop {
        let chess = pos.chess();
        if chess.legal_moves().is_empty() {
            break chess.is_check().then(|| !chess.turn());
        }
        if chess.is_insufficient_material()
            || chess.halfmoves() >= 100
            || history.iter().filter(|&&k| k == pos.key()).count() >= 3
            || ply >= MAX_PLIES
        {
            break None;
        }
        let r = searcher.search(
            &pos,
            &history,
            limits.clone(),
            TimeManager::infinite(),
            &mut Silent,
        );
        let best: Move = r.best?;
        let white_score = chess.turn().fold_wb(r.score, -r.score);

        // Keep quiet positions with an ordinary score.
        if !chess.is_check()
            && !best.is_capture()
            && !best.is_promotion()
            && r.score.abs() < MATE_BOUND
        {
            positions.push((chess.clone(), white_score));
        }

        // Adjudication on the searches' scores.
        if white_score.abs() >= WIN_SCORE {
            let side = if white_score > 0 {
                Color::White
            } else {
                Color::Black
            };
            win_streak = if side == win_side { win_streak + 1 } else { 1 };
            win_side = side;
            if win_streak >= WIN_PLIES {
                break Some(side);
            }
        } else {
            win_streak = 0;
        }
        draw_streak = if white_score.abs() <= DRAW_SCORE {
            draw_streak + 1
        } else {
            0
        };
        if ply >= DRAW_FROM_PLY && draw_streak >= DRAW_PLIES {
            break None;
        }

        pos = pos.play(best);
        if best.is_zeroing() {
            history.clear();
        }
        history.push(pos.key());
        ply += 1;
    };
    Some(Game { positions, result })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn games_produce_quiet_labelled_positions() {
        let config = Config {
            nodes: 400,
            progress: false,
            ..Config::default()
        };
        let mut rng = StdRng::seed_from_u64(7);
        let tt = Arc::new(TranspositionTable::new(1));
        let mut searcher = labelling_searcher(&tt, &config);
        assert!(
            !searcher.config().scales_material(),
            "labels in scaled units"
        );
        let mut games = 0;
        let mut positions = 0;
        while games < 3 {
            let Some(game) = play_game(&config, &mut rng, &mut searcher, &tt) else {
                continue;
            };
            games += 1;
            positions += game.positions.len();
            for (pos, score) in &game.positions {
                assert!(!pos.is_check(), "{pos:?} is in check");
                assert!(!pos.legal_moves().is_empty(), "{pos:?} is over");
                assert!(score.abs() < MATE_BOUND);
            }
        }
        assert!(positions > 20, "only {positions} positions from 3 games");
    }

    /// A quiet one-thread run of `games` short games into `out`.
    fn small_run(out: &std::path::Path, games: u64) -> Config {
        Config {
            games,
            nodes: 300,
            threads: 1,
            progress: false,
            out: out.to_string_lossy().into_owned(),
            ..Config::default()
        }
    }

    /// A run writes whole games of valid records; a second run continues the file after
    /// cutting off a torn game, and never replays the games it has.
    #[test]
    fn runs_append_whole_games_and_resume() {
        let dir = std::env::temp_dir().join(format!("scout-datagen-{}", std::process::id()));
        let out = dir.join("data.bin");
        let config = small_run(&out, 2);
        let written = run(&config).expect("datagen runs");
        let first = std::fs::read(&out).expect("output exists");
        assert_eq!(first.len() as u64, written * packed::RECORD as u64);
        assert_eq!(packed::count_games(&first), 2);
        // An interrupted game: half a record of garbage and an unfinished game's record.
        let mut torn = first.clone();
        torn.extend_from_slice(&first[..packed::RECORD]);
        torn[first.len() + 31] = 0;
        torn.extend_from_slice(&[7u8; 13]);
        std::fs::write(&out, &torn).unwrap();
        let more = run(&Config { games: 4, ..config }).expect("datagen continues");
        let second = std::fs::read(&out).expect("output exists");
        let _ = std::fs::remove_dir_all(&dir);
        assert_eq!(&second[..first.len()], &first[..], "earlier games kept");
        assert_eq!(
            second.len() as u64,
            first.len() as u64 + more * packed::RECORD as u64
        );
        assert_eq!(packed::count_games(&second), 4);
        assert_eq!(packed::complete_length(&second), second.len());
        let records: Vec<Packed> = second
            .chunks_exact(packed::RECORD)
            .map(|c| Packed(c.try_into().unwrap()))
            .collect();
        for r in &records {
            let pos = r.position().expect("a valid position");
            assert!(!pos.is_check());
            assert_eq!(r.flags() & !GAME_END, 0);
        }
        // The continued run played new openings: its first game differs from the first run's.
        assert_ne!(records[written as usize].0[..25], records[0].0[..25]);
    }

    /// While one run holds the output file, a second refuses it and leaves it untouched.
    #[test]
    fn a_second_writer_is_refused() {
        let dir = std::env::temp_dir().join(format!("scout-datagen-lock-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let out = dir.join("data.bin");
        std::fs::write(&out, [1u8; 45]).unwrap();
        let holder = File::open(&out).unwrap();
        holder.lock().expect("the first writer's lock");
        let config = small_run(&out, 1);
        let refused = run(&config).expect_err("a second writer");
        let after = std::fs::read(&out).unwrap();
        drop(holder);
        let admitted = run(&config);
        let _ = std::fs::remove_dir_all(&dir);
        assert_eq!(refused.kind(), std::io::ErrorKind::WouldBlock);
        assert_eq!(after, [1u8; 45], "the refused run cut nothing");
        assert!(
            admitted.is_ok(),
            "the file is free once its writer has gone"
        );
    }
}
