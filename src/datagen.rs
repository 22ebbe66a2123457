//! Self-play data for the tuner (`scout datagen`).
//!
//! Every worker thread plays games against itself: a few uniformly random opening plies (rand
//! crate), a check that the resulting position is still roughly balanced, then a fixed node
//! budget per move until the game ends by the rules or by adjudication. Quiet positions
//! (side to move not in check, best move neither a capture nor a promotion, no mate score)
//! are written with the game's result from White's point of view, one per line:
//!
//! ```text
//! rnbqkb1r/pp2pppp/3p1n2/8/3NP3/8/PPP2PPP/RNBQKB1R w KQkq - 1 5 [0.5]
//! ```

use std::fs::File;
use std::io::{BufWriter, Write};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use rand::rngs::StdRng;
use rand::{RngExt, SeedableRng};
use shakmaty::{Chess, Color, Move, Position as _};

use crate::position::Position;
use crate::search::{Limits, MATE_BOUND, Searcher, SharedFlags, Silent};
use crate::time::TimeManager;
use crate::tt::TranspositionTable;

/// What `scout datagen` does.
#[derive(Clone, Debug)]
pub struct Config {
    /// Games to play in all.
    pub games: u64,
    /// Node budget of every move's search.
    pub nodes: u64,
    /// Worker threads (each plays its own games).
    pub threads: usize,
    /// Uniformly random plies at the start of each game (one more on every other game, so
    /// that both colours start on the move).
    pub random_plies: usize,
    /// Games whose position after the random plies scores beyond this are thrown away.
    pub max_opening_score: i32,
    pub seed: u64,
    /// Where the positions go (appended).
    pub out: String,
    /// Print progress to stderr.
    pub progress: bool,
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
            out: "data/selfplay.txt".to_string(),
            progress: true,
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
}

/// Plays `config.games` games on `config.threads` threads and appends the positions to
/// `config.out`. Returns the number of positions written.
pub fn run(config: &Config) -> std::io::Result<u64> {
    if let Some(dir) = std::path::Path::new(&config.out).parent()
        && !dir.as_os_str().is_empty()
    {
        std::fs::create_dir_all(dir)?;
    }
    let file = File::options()
        .create(true)
        .append(true)
        .open(&config.out)?;
    let out = Mutex::new(BufWriter::new(file));
    let progress = Progress::default();
    let next_game = AtomicU64::new(0);
    let done = AtomicBool::new(false);
    let start = Instant::now();
    std::thread::scope(|s| {
        for id in 0..config.threads.max(1) {
            let (out, progress, next_game) = (&out, &progress, &next_game);
            s.spawn(move || worker(config, id as u64, next_game, progress, out));
        }
        if config.progress {
            s.spawn(|| {
                while !done.load(Ordering::Relaxed) {
                    std::thread::sleep(Duration::from_millis(200));
                    let games = progress.games.load(Ordering::Relaxed);
                    if games >= config.games {
                        break;
                    }
                    print_progress(config, &progress, start, false);
                }
            });
        }
    });
    done.store(true, Ordering::Relaxed);
    out.lock().unwrap_or_else(|e| e.into_inner()).flush()?;
    if config.progress {
        print_progress(config, &progress, start, true);
    }
    Ok(progress.positions.load(Ordering::Relaxed))
}

fn print_progress(config: &Config, p: &Progress, start: Instant, last: bool) {
    let games = p.games.load(Ordering::Relaxed);
    let secs = start.elapsed().as_secs_f64().max(1e-9);
    let rate = games as f64 / secs;
    let eta = if rate > 0.0 {
        (config.games.saturating_sub(games)) as f64 / rate
    } else {
        0.0
    };
    eprint!(
        "\rgames {games}/{} ({:.1}/s)  positions {}  +{} ={} -{} (White's view)  discarded openings {}  elapsed {:.0}s  eta {:.0}s   {}",
        config.games,
        rate,
        p.positions.load(Ordering::Relaxed),
        p.white_wins.load(Ordering::Relaxed),
        p.draws.load(Ordering::Relaxed),
        p.black_wins.load(Ordering::Relaxed),
        p.discarded.load(Ordering::Relaxed),
        secs,
        eta,
        if last { "\n" } else { "" }
    );
}

/// One thread: plays games until the shared game counter reaches the target.
fn worker(
    config: &Config,
    id: u64,
    next_game: &AtomicU64,
    progress: &Progress,
    out: &Mutex<BufWriter<File>>,
) {
    let mut rng = StdRng::seed_from_u64(config.seed ^ id.wrapping_mul(0x9E37_79B9_7F4A_7C15));
    let tt = Arc::new(TranspositionTable::new(16));
    let mut searcher = Searcher::new(tt.clone(), Arc::new(SharedFlags::default()));
    while next_game.fetch_add(1, Ordering::Relaxed) < config.games {
        let game = loop {
            if let Some(game) = play_game(config, &mut rng, &mut searcher, &tt) {
                break game;
            }
            progress.discarded.fetch_add(1, Ordering::Relaxed);
        };
        let tag = match game.result {
            Some(Color::White) => {
                progress.white_wins.fetch_add(1, Ordering::Relaxed);
                "1.0"
            }
            Some(Color::Black) => {
                progress.black_wins.fetch_add(1, Ordering::Relaxed);
                "0.0"
            }
            None => {
                progress.draws.fetch_add(1, Ordering::Relaxed);
                "0.5"
            }
        };
        let mut text = String::new();
        for fen in &game.positions {
            text.push_str(fen);
            text.push_str(" [");
            text.push_str(tag);
            text.push_str("]\n");
        }
        if let Ok(mut w) = out.lock() {
            let _ = w.write_all(text.as_bytes());
        }
        progress
            .positions
            .fetch_add(game.positions.len() as u64, Ordering::Relaxed);
        progress.games.fetch_add(1, Ordering::Relaxed);
    }
}

/// A finished game: the quiet positions it produced and the winner (`None`: draw).
pub struct Game {
    pub positions: Vec<String>,
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
    let mut pos = Position::new(Chess::default());
    let plies = config.random_plies + rng.random_range(0..2usize);
    for _ in 0..plies {
        let moves = pos.chess().legal_moves();
        if moves.is_empty() {
            return None;
        }
        let m = moves[rng.random_range(0..moves.len())];
        pos = pos.play(m);
    }
    if pos.chess().legal_moves().is_empty() {
        return None;
    }
    let mut history = vec![pos.key()];
    let limits = Limits {
        nodes: Some(config.nodes),
        ..Limits::default()
    };
    let first = searcher.search(
        &pos,
        &history,
        limits.clone(),
        TimeManager::infinite(),
        &mut Silent,
    );
    if first.score.abs() > config.max_opening_score {
        return None;
    }

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
            positions.push(pos.fen());
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
        if Position::is_zeroing(best) {
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
    use shakmaty::CastlingMode;

    #[test]
    fn games_produce_quiet_labelled_positions() {
        let config = Config {
            nodes: 400,
            progress: false,
            ..Config::default()
        };
        let mut rng = StdRng::seed_from_u64(7);
        let tt = Arc::new(TranspositionTable::new(1));
        let mut searcher = Searcher::new(tt.clone(), Arc::new(SharedFlags::default()));
        let mut games = 0;
        let mut positions = 0;
        while games < 3 {
            let Some(game) = play_game(&config, &mut rng, &mut searcher, &tt) else {
                continue;
            };
            games += 1;
            positions += game.positions.len();
            for fen in &game.positions {
                let pos = Position::from_fen(fen, CastlingMode::Standard).expect("valid FEN");
                assert!(!pos.in_check(), "{fen} is in check");
                assert!(!pos.chess().legal_moves().is_empty(), "{fen} is over");
            }
        }
        assert!(positions > 20, "only {positions} positions from 3 games");
    }

    #[test]
    fn run_writes_result_tagged_lines() {
        let dir = std::env::temp_dir().join(format!("scout-datagen-{}", std::process::id()));
        let out = dir.join("data.txt");
        let config = Config {
            games: 2,
            nodes: 300,
            threads: 2,
            progress: false,
            out: out.to_string_lossy().into_owned(),
            ..Config::default()
        };
        let written = run(&config).expect("datagen runs");
        let text = std::fs::read_to_string(&out).expect("output exists");
        let _ = std::fs::remove_dir_all(&dir);
        assert_eq!(text.lines().count() as u64, written);
        assert!(written > 0);
        for line in text.lines() {
            let (fen, tag) = line.rsplit_once(' ').expect("fen and result");
            assert!(["[1.0]", "[0.5]", "[0.0]"].contains(&tag), "{line}");
            Position::from_fen(fen, CastlingMode::Standard).expect("valid FEN");
        }
    }
}
