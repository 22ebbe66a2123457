//! `scout data FILE...`: what training data files hold, at a glance. For each file, and in total
//! for several: positions, games and positions a game, results (by game, for White), duplicate
//! positions, histograms by piece count and by score, and the logistic scale at which the scores
//! best predict the results (`train --eval-scale`).
//!
//! A game is the records up to one marked as its last (`packed::GAME_END`); its result is that
//! record's. Records after the last such mark are an unfinished game (a writer at work, or one
//! interrupted): counted as positions, not as a game. A duplicate is a position (board, side to
//! move, castling rights, en passant: the record without clocks, score, result and flags) seen
//! before, in the same file or, for the total, in any file; they are found by a 64-bit hash, 8
//! bytes a position, sorted (about 400 MB for 50 million positions). Files are read a block at
//! a time.

use std::fmt::Write as _;

use crate::training::packed::{Blocks, GAME_END, Outcome};

/// Score buckets: below −1000, 20 buckets of 100 cp from −1000 to +1000, +1000 and above.
pub const SCORE_BUCKETS: usize = 22;

/// The score bucket of `score` (centipawns).
pub fn score_bucket(score: i16) -> usize {
    match score {
        ..-1000 => 0,
        1000.. => SCORE_BUCKETS - 1,
        s => (i32::from(s) + 1000) as usize / 100 + 1,
    }
}

/// Calibration bins: scores (White's view) in steps of this many centipawns...
const CALIBRATION_STEP: i32 = 10;
/// ...from minus this to plus this (scores beyond fall in the end bins).
const CALIBRATION_RANGE: i32 = 2000;
const CALIBRATION_BINS: usize = (2 * CALIBRATION_RANGE / CALIBRATION_STEP + 1) as usize;

/// The calibration bin of `score` (its centre is `bin * STEP - RANGE`).
fn calibration_bin(score: i16) -> usize {
    let s = i32::from(score).clamp(-CALIBRATION_RANGE, CALIBRATION_RANGE) + CALIBRATION_RANGE;
    ((s + CALIBRATION_STEP / 2) / CALIBRATION_STEP) as usize
}

/// What a file (or several) holds.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Summary {
    pub positions: u64,
    /// Finished games.
    pub games: u64,
    /// Positions after the last finished game.
    pub unfinished: u64,
    /// Finished games by White's result: loss, draw, win.
    pub results: [u64; 3],
    /// Positions seen before.
    pub duplicates: u64,
    /// Records that are no position (too many pieces, an unknown piece code).
    pub invalid: u64,
    /// Bytes after the last whole record.
    pub torn_bytes: u64,
    /// Positions by piece count, kings included (0..=32).
    pub pieces: [u64; 33],
    /// Positions by score from White's point of view ([`score_bucket`]).
    pub scores: [u64; SCORE_BUCKETS],
    /// Positions by score ([`calibration_bin`]) and their game's result for White (loss,
    /// draw, win).
    pub calibration: Vec<[u64; 3]>,
}

impl Default for Summary {
    fn default() -> Self {
        Summary {
            positions: 0,
            games: 0,
            unfinished: 0,
            results: [0; 3],
            duplicates: 0,
            invalid: 0,
            torn_bytes: 0,
            pieces: [0; 33],
            scores: [0; SCORE_BUCKETS],
            calibration: vec![[0; 3]; CALIBRATION_BINS],
        }
    }
}

impl Summary {
    /// Adds the counts of `other` (duplicates are counted over the union by the caller).
    fn add(&mut self, other: &Summary) {
        self.positions += other.positions;
        self.games += other.games;
        self.unfinished += other.unfinished;
        self.invalid += other.invalid;
        self.torn_bytes += other.torn_bytes;
        for (a, b) in self.results.iter_mut().zip(other.results) {
            *a += b;
        }
        for (a, b) in self.pieces.iter_mut().zip(other.pieces) {
            *a += b;
        }
        for (a, b) in self.calibration.iter_mut().zip(&other.calibration) {
            for (x, y) in a.iter_mut().zip(b) {
                *x += y;
            }
        }
        for (a, b) in self.scores.iter_mut().zip(other.scores) {
            *a += b;
        }
    }
}

/// Sorts `keys` and returns how many repeat an earlier one.
fn count_duplicates(keys: &mut [u64]) -> u64 {
    keys.sort_unstable();
    keys.windows(2).filter(|w| w[0] == w[1]).count() as u64
}

/// Reads one file; its position keys are appended to `keys`.
pub fn summarise_file(path: &str, keys: &mut Vec<u64>) -> Result<Summary, String> {
    let err = |e: std::io::Error| format!("{path}: {e}");
    let mut s = Summary {
        torn_bytes: std::fs::metadata(path).map_err(err)?.len() % 32,
        ..Summary::default()
    };
    let mut blocks = Blocks::open(path, 1 << 16).map_err(err)?;
    let from = keys.len();
    keys.reserve(blocks.left() as usize);
    let mut in_game = 0u64;
    loop {
        let block = blocks.next_block().map_err(err)?;
        if block.is_empty() {
            break;
        }
        for r in block {
            s.positions += 1;
            in_game += 1;
            if r.flags() & GAME_END != 0 {
                s.games += 1;
                s.results[r.outcome() as usize] += 1;
                in_game = 0;
            }
            if !r.is_valid() {
                s.invalid += 1;
                continue;
            }
            keys.push(r.position_key());
            s.pieces[r.piece_count() as usize] += 1;
            s.scores[score_bucket(r.score())] += 1;
            s.calibration[calibration_bin(r.score())][r.outcome() as usize] += 1;
        }
    }
    s.unfinished = in_game;
    s.duplicates = count_duplicates(&mut keys[from..]);
    Ok(s)
}

/// Summaries of each file and, for more than one, of all of them together.
pub fn summarise(paths: &[String]) -> Result<(Vec<Summary>, Option<Summary>), String> {
    let mut keys = Vec::new();
    let mut each = Vec::new();
    for path in paths {
        each.push(summarise_file(path, &mut keys)?);
    }
    if paths.len() < 2 {
        return Ok((each, None));
    }
    let mut total = Summary::default();
    for s in &each {
        total.add(s);
    }
    total.duplicates = count_duplicates(&mut keys);
    Ok((each, Some(total)))
}

/// The mean log-loss of predicting each position's result by `sigmoid(score / k)` (a draw
/// counts as half a win and half a loss), over the calibration bins.
fn log_loss(calibration: &[[u64; 3]], k: f64) -> f64 {
    let (mut loss, mut n) = (0.0, 0.0);
    for (bin, &[l, d, w]) in calibration.iter().enumerate() {
        let score = f64::from(bin as i32 * CALIBRATION_STEP - CALIBRATION_RANGE);
        let p = (1.0 / (1.0 + (-score / k).exp())).clamp(1e-9, 1.0 - 1e-9);
        let (wins, losses) = (w as f64 + d as f64 / 2.0, l as f64 + d as f64 / 2.0);
        loss -= wins * p.ln() + losses * (1.0 - p).ln();
        n += (l + d + w) as f64;
    }
    loss / n.max(1.0)
}

/// The scale `k` (whole centipawns, 50 to 1,000) at which `sigmoid(score / k)` predicts the
/// results best, with its log-loss; `None` without positions.
fn best_logistic_scale(calibration: &[[u64; 3]]) -> Option<(u32, f64)> {
    if calibration.iter().flatten().all(|&c| c == 0) {
        return None;
    }
    (50..=1000)
        .map(|k| (k, log_loss(calibration, f64::from(k))))
        .min_by(|a, b| a.1.total_cmp(&b.1))
}

/// `n` with thousands separators.
fn thousands(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

fn percent(part: u64, whole: u64) -> f64 {
    100.0 * part as f64 / whole.max(1) as f64
}

/// One histogram: a line per non-empty bucket (those between the first and the last non-empty
/// one), with its count, its share and a bar.
fn histogram(out: &mut String, title: &str, labels: &[String], counts: &[u64]) {
    let total: u64 = counts.iter().sum();
    let most = counts.iter().copied().max().unwrap_or(0).max(1);
    let _ = writeln!(out, "  {title}");
    let Some(first) = counts.iter().position(|&c| c > 0) else {
        return;
    };
    let last = counts.iter().rposition(|&c| c > 0).unwrap_or(first);
    for i in first..=last {
        let bar = "#".repeat(((counts[i] * 40).div_ceil(most)) as usize);
        let line = format!(
            "  {:>13} {:>12} {:>5.1}%  {bar}",
            labels[i],
            thousands(counts[i]),
            percent(counts[i], total)
        );
        let _ = writeln!(out, "{}", line.trim_end());
    }
}

/// The report of one summary, headed by `name`.
pub fn report(name: &str, s: &Summary) -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "{name}: {} positions, {} games ({:.1} positions a game)",
        thousands(s.positions),
        thousands(s.games),
        (s.positions - s.unfinished) as f64 / s.games.max(1) as f64
    );
    if s.unfinished > 0 {
        let _ = writeln!(
            out,
            "  and an unfinished game: {} positions after the last finished game",
            thousands(s.unfinished)
        );
    }
    let [loss, draw, win] = s.results;
    let _ = writeln!(
        out,
        "  results for White (by game): +{} ={} -{} (win {:.1}%, draw {:.1}%, loss {:.1}%)",
        thousands(win),
        thousands(draw),
        thousands(loss),
        percent(win, s.games),
        percent(draw, s.games),
        percent(loss, s.games)
    );
    let _ = writeln!(
        out,
        "  duplicates: {} positions ({:.2}%) repeat an earlier one",
        thousands(s.duplicates),
        percent(s.duplicates, s.positions)
    );
    if s.invalid > 0 || s.torn_bytes > 0 {
        let _ = writeln!(
            out,
            "  damaged: {} records are no position, {} bytes of a torn record at the end",
            thousands(s.invalid),
            s.torn_bytes
        );
    }
    let labels: Vec<String> = (0..=32).map(|n| format!("{n} pieces")).collect();
    histogram(
        &mut out,
        "by piece count (kings included):",
        &labels,
        &s.pieces,
    );
    let labels: Vec<String> = (0..SCORE_BUCKETS)
        .map(|b| match b {
            0 => "< -1000".to_string(),
            b if b == SCORE_BUCKETS - 1 => ">= 1000".to_string(),
            b => {
                let low = (b as i32 - 1) * 100 - 1000;
                format!("{low}..{}", low + 99)
            }
        })
        .collect();
    histogram(&mut out, "by score (cp, White's view):", &labels, &s.scores);
    if let Some((k, loss)) = best_logistic_scale(&s.calibration) {
        let _ = writeln!(
            out,
            "  scores against results: sigmoid(score / K) predicts the results best at K = {k} \
             cp (log-loss {loss:.4}; at 400: {:.4})",
            log_loss(&s.calibration, 400.0)
        );
    }
    out
}

/// `scout data FILE...`: the report of every file and, for several, the total.
pub fn run(paths: &[String]) -> Result<String, String> {
    if paths.is_empty() {
        return Err("no data files given".to_string());
    }
    let (each, total) = summarise(paths)?;
    let mut out = String::new();
    for (path, s) in paths.iter().zip(&each) {
        out.push_str(&report(path, s));
        out.push('\n');
    }
    if let Some(total) = total {
        out.push_str(&report(&format!("total ({} files)", paths.len()), &total));
    }
    Ok(out)
}

// Outcome codes index `results`.
const _: () = assert!(Outcome::Loss as usize == 0 && Outcome::Win as usize == 2);

#[cfg(test)]
mod tests {
    use super::*;
    use crate::position::Position;
    use crate::training::packed::Packed;
    use shakmaty::CastlingMode;

    fn record(fen: &str, score: i32, outcome: Outcome, end: bool) -> Packed {
        let pos = Position::from_fen(fen, CastlingMode::Standard).unwrap();
        Packed::new(pos.chess(), score, outcome, u8::from(end))
    }

    const START: &str = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1";
    const E4: &str = "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1";
    const ENDING: &str = "8/8/4k3/8/8/4K3/4P3/8 w - - 0 60";

    /// Two files of known content: the counts, the duplicates within each file and across
    /// them, the histograms and the report's lines.
    #[test]
    fn known_files_are_summarised() {
        let dir = std::env::temp_dir().join(format!("scout-summary-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = |n: &str| dir.join(n).to_string_lossy().into_owned();
        // a.bin: a game won by White (3 positions, the start twice with other clocks and
        // scores), a drawn game of one position, and an unfinished game repeating that
        // position: two duplicates.
        let a = [
            record(START, 20, Outcome::Win, false),
            record(E4, -1500, Outcome::Win, false),
            record(
                "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 4 3",
                35,
                Outcome::Win,
                true,
            ),
            record(ENDING, 999, Outcome::Draw, true),
            record(ENDING, 1000, Outcome::Loss, false),
        ];
        // b.bin: one game lost by White, its position also in a.bin, and a torn record.
        let b = [record(E4, -1000, Outcome::Loss, true)];
        let write = |name: &str, records: &[Packed], tail: &[u8]| {
            let mut bytes: Vec<u8> = records.iter().flat_map(|r| r.0).collect();
            bytes.extend_from_slice(tail);
            std::fs::write(path(name), bytes).unwrap();
        };
        write("a.bin", &a, &[]);
        write("b.bin", &b, &[1, 2, 3]);
        let (each, total) = summarise(&[path("a.bin"), path("b.bin")]).unwrap();
        let mut expected = Summary {
            positions: 5,
            games: 2,
            unfinished: 1,
            results: [0, 1, 1],
            duplicates: 2,
            ..Summary::default()
        };
        expected.pieces[32] = 3;
        expected.pieces[3] = 2;
        expected.scores[0] = 1; // -1500
        expected.scores[11] = 1; // 20
        expected.scores[11] += 1; // 35
        expected.scores[20] = 1; // 999
        expected.scores[21] = 1; // 1000
        // Each position's game result by its score to the nearest 10 cp.
        expected.calibration[50] = [0, 0, 1]; // -1500
        expected.calibration[202] = [0, 0, 1]; // 20
        expected.calibration[204] = [0, 0, 1]; // 35
        expected.calibration[300] = [1, 1, 0]; // 999 (a draw) and 1000 (a loss)
        assert_eq!(each[0], expected);
        let mut expected_b = Summary {
            positions: 1,
            games: 1,
            results: [1, 0, 0],
            torn_bytes: 3,
            ..Summary::default()
        };
        expected_b.pieces[32] = 1;
        expected_b.scores[1] = 1; // -1000
        expected_b.calibration[100] = [1, 0, 0];
        assert_eq!(each[1], expected_b);
        let total = total.unwrap();
        assert_eq!(
            (
                total.positions,
                total.games,
                total.results,
                total.duplicates
            ),
            (6, 3, [1, 1, 1], 3)
        );
        assert_eq!(total.pieces[32], 4);

        let text = run(&[path("a.bin"), path("b.bin")])
            .unwrap()
            .replace(&path(""), "");
        for line in [
            "a.bin: 5 positions, 2 games (2.0 positions a game)",
            "  and an unfinished game: 1 positions after the last finished game",
            "  results for White (by game): +1 =1 -0 (win 50.0%, draw 50.0%, loss 0.0%)",
            "  duplicates: 2 positions (40.00%) repeat an earlier one",
            "      32 pieces            3  60.0%  ########################################",
            "       3 pieces            2  40.0%  ###########################",
            "        < -1000            1  20.0%  ####################",
            "          0..99            2  40.0%  ########################################",
            "       900..999            1  20.0%  ####################",
            "  damaged: 0 records are no position, 3 bytes of a torn record at the end",
            "total (2 files): 6 positions, 3 games (1.7 positions a game)",
            "  duplicates: 3 positions (50.00%) repeat an earlier one",
        ] {
            assert!(
                text.lines().any(|l| l == line),
                "missing {line:?} in\n{text}"
            );
        }
        // Empty buckets between two full ones are shown, those outside are not.
        let starts = |s: &str| text.lines().any(|l| l.trim_start().starts_with(s));
        assert!(starts("-100..-1 ") && starts("31 pieces "), "{text}");
        assert!(!starts("2 pieces ") && !starts("33 pieces"), "{text}");
        let fits = text
            .lines()
            .filter(|l| l.starts_with("  scores against results: sigmoid(score / K) predicts"))
            .count();
        assert_eq!(fits, 3, "one scale for each file and the total:\n{text}");
        assert!(run(&[path("missing.bin")]).is_err());
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn scores_fall_in_buckets_of_100_cp() {
        let b = |s| score_bucket(s);
        assert_eq!(
            (b(i16::MIN), b(-1001), b(-1000), b(-901), b(-900)),
            (0, 0, 1, 1, 2)
        );
        assert_eq!((b(-1), b(0), b(99), b(100), b(999)), (10, 11, 11, 12, 20));
        assert_eq!((b(1000), b(i16::MAX)), (21, 21));
        assert_eq!(thousands(1_234_567), "1,234,567");
        assert_eq!(thousands(999), "999");
    }

    /// Results made to follow a logistic of 300 cp exactly are fitted at 300; draws count as
    /// half a win; the bins hold scores to the nearest 10 cp and clamp the ends.
    #[test]
    fn the_logistic_scale_is_fitted_to_the_results() {
        assert_eq!(
            [-2500, -2000, -6, -5, 0, 4, 5, 2000, 2500].map(calibration_bin),
            [0, 0, 199, 200, 200, 200, 201, 400, 400]
        );
        let mut s = Summary::default();
        assert_eq!(best_logistic_scale(&s.calibration), None);
        for score in (-1500..=1500).step_by(10) {
            let p = 1.0 / (1.0 + (-f64::from(score) / 300.0).exp());
            let wins = (100_000.0 * p).round() as u64;
            // Half the remaining games drawn, half lost: the expectation stays p.
            let draws = 2 * ((100_000 - wins) / 4).min(wins / 2);
            let bin = calibration_bin(score as i16);
            s.calibration[bin] = [100_000 - wins - draws / 2, draws, wins - draws / 2];
        }
        let (k, loss) = best_logistic_scale(&s.calibration).unwrap();
        assert_eq!(k, 300);
        assert!(loss < log_loss(&s.calibration, 250.0) && loss < log_loss(&s.calibration, 400.0));
    }
}
