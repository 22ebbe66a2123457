//! The Texel tuner (`scout tune`): fits every tunable evaluation weight to game results.
//!
//! Each training position is reduced once to its [`Coefficients`]: how often White and Black
//! used each weight, the part of the score that is not linear in the weights (king danger),
//! the phase, the endgame scale factor and the fifty-move damping. The evaluation is then a
//! cheap function of the weight vector,
//!
//! ```text
//! mg = Σ nᵢ·wᵢ.mg + nonlinear.mg      eg = Σ nᵢ·wᵢ.eg + nonlinear.eg
//! eval = (mg·phase + eg·scale/128·(24 − phase)) / 24 · damping/160
//! ```
//!
//! and the loss is the mean squared error between the game result r ∈ {0, ½, 1} and the
//! predicted score sigmoid(K·eval) = 1 / (1 + 10^(−K·eval/400)). K is fitted first (with the
//! starting weights) and held fixed; then full-batch gradient descent with Adam moves all
//! weights at once. The result is written back into `src/eval/weights.rs` in place, keeping
//! the file's comments.

use std::time::Instant;

use shakmaty::{CastlingMode, Chess};

use crate::eval::{Coefficients, PHASE_MAX, S, SCALE_MAX, coefficients, weights};
use crate::position::Position;

/// What `scout tune` does.
#[derive(Clone, Debug)]
pub struct Config {
    /// Training files: one `FEN [result]` per line (see `datagen`).
    pub inputs: Vec<String>,
    pub epochs: usize,
    /// Adam step size, in centipawns.
    pub learning_rate: f64,
    pub threads: usize,
    /// The weights file rewritten with the result.
    pub out: String,
    /// Print progress to stderr.
    pub progress: bool,
}

impl Default for Config {
    fn default() -> Self {
        Config {
            inputs: vec!["data/selfplay.txt".to_string()],
            epochs: 2000,
            learning_rate: 0.5,
            threads: std::thread::available_parallelism().map_or(1, |n| n.get()),
            out: "src/eval/weights.rs".to_string(),
            progress: true,
        }
    }
}

/// One training position, reduced to what the loss needs.
struct Entry {
    /// Range of this position's (weight, count) pairs in [`Dataset::counts`].
    start: u32,
    end: u32,
    /// Middlegame and endgame multipliers of the blend, damping included.
    mg_factor: f32,
    eg_factor: f32,
    nonlinear_mg: f32,
    nonlinear_eg: f32,
    result: f32,
}

/// The training set.
pub struct Dataset {
    entries: Vec<Entry>,
    counts: Vec<(u16, i16)>,
}

impl Dataset {
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// Parses lines `FEN [1.0]` (also `[1-0]`, `[0.5]`, `[1/2-1/2]`, `[0.0]`, `[0-1]`).
    /// Returns the data set and the number of lines skipped (malformed, or drawn by
    /// insufficient material whatever the weights).
    pub fn parse<'a>(lines: impl Iterator<Item = &'a str>) -> (Dataset, usize) {
        let mut data = Dataset {
            entries: Vec::new(),
            counts: Vec::new(),
        };
        let mut skipped = 0;
        for line in lines {
            let line = line.trim();
            if line.is_empty() {
                continue;
            }
            let Some((fen, result)) = parse_line(line) else {
                skipped += 1;
                continue;
            };
            let Ok(pos) = Position::from_fen(fen, CastlingMode::Chess960) else {
                skipped += 1;
                continue;
            };
            if !data.push(pos.chess(), result) {
                skipped += 1;
            }
        }
        (data, skipped)
    }

    /// Adds a position; false if its evaluation cannot depend on the weights.
    fn push(&mut self, pos: &Chess, result: f32) -> bool {
        let c: Coefficients = coefficients(pos);
        if c.insufficient || c.counts.is_empty() {
            return false;
        }
        let damping = c.damping as f32 / 160.0;
        let phase = c.phase as f32 / PHASE_MAX as f32;
        let start = self.counts.len() as u32;
        self.counts.extend_from_slice(&c.counts);
        self.entries.push(Entry {
            start,
            end: self.counts.len() as u32,
            mg_factor: phase * damping,
            eg_factor: (1.0 - phase) * c.scale as f32 / SCALE_MAX as f32 * damping,
            nonlinear_mg: c.nonlinear.mg() as f32,
            nonlinear_eg: c.nonlinear.eg() as f32,
            result,
        });
        true
    }

    /// The linear model's evaluation of entry `e` (White's view) with weights `w`
    /// (`[mg0, eg0, mg1, eg1, ...]`).
    #[inline]
    fn eval(&self, e: &Entry, w: &[f64]) -> f64 {
        let (mut mg, mut eg) = (f64::from(e.nonlinear_mg), f64::from(e.nonlinear_eg));
        for &(i, n) in &self.counts[e.start as usize..e.end as usize] {
            let i = 2 * i as usize;
            mg += f64::from(n) * w[i];
            eg += f64::from(n) * w[i + 1];
        }
        mg * f64::from(e.mg_factor) + eg * f64::from(e.eg_factor)
    }

    /// Mean squared error of the predictions with scaling constant `k`.
    pub fn loss(&self, w: &[f64], k: f64, threads: usize) -> f64 {
        let parts = self.map_chunks(threads, |chunk| {
            chunk
                .iter()
                .map(|e| {
                    let p = sigmoid(k, self.eval(e, w));
                    let d = f64::from(e.result) - p;
                    d * d
                })
                .sum::<f64>()
        });
        parts.iter().sum::<f64>() / self.entries.len().max(1) as f64
    }

    /// Gradient of the loss with respect to every weight.
    pub fn gradient(&self, w: &[f64], k: f64, threads: usize) -> Vec<f64> {
        let parts = self.map_chunks(threads, |chunk| {
            let mut g = vec![0.0; w.len()];
            for e in chunk {
                let p = sigmoid(k, self.eval(e, w));
                // d(r − p)²/d eval = −2 (r − p) · p (1 − p) · K ln10 / 400
                let d = -2.0 * (f64::from(e.result) - p) * p * (1.0 - p) * k * LN10_400;
                let (dm, de) = (d * f64::from(e.mg_factor), d * f64::from(e.eg_factor));
                for &(i, n) in &self.counts[e.start as usize..e.end as usize] {
                    let i = 2 * i as usize;
                    g[i] += dm * f64::from(n);
                    g[i + 1] += de * f64::from(n);
                }
            }
            g
        });
        let n = self.entries.len().max(1) as f64;
        let mut total = vec![0.0; w.len()];
        for g in parts {
            for (t, x) in total.iter_mut().zip(g) {
                *t += x / n;
            }
        }
        total
    }

    /// Runs `f` over `threads` contiguous chunks of the entries in parallel.
    fn map_chunks<R: Send>(&self, threads: usize, f: impl Fn(&[Entry]) -> R + Sync) -> Vec<R> {
        let size = self.entries.len().div_ceil(threads.max(1)).max(1);
        std::thread::scope(|s| {
            let handles: Vec<_> = self
                .entries
                .chunks(size)
                .map(|chunk| s.spawn(|| f(chunk)))
                .collect();
            handles
                .into_iter()
                .map(|h| h.join().expect("tuner thread panicked"))
                .collect()
        })
    }
}

const LN10_400: f64 = std::f64::consts::LN_10 / 400.0;

/// Expected score for an evaluation in centipawns.
#[inline]
fn sigmoid(k: f64, eval: f64) -> f64 {
    1.0 / (1.0 + (-k * eval * LN10_400).exp())
}

/// Splits `FEN [result]` into the FEN and the result as a score for White.
fn parse_line(line: &str) -> Option<(&str, f32)> {
    let open = line.rfind('[')?;
    let close = line[open..].find(']')? + open;
    let result = match line[open + 1..close].trim() {
        "1.0" | "1" | "1-0" => 1.0,
        "0.5" | "1/2-1/2" => 0.5,
        "0.0" | "0" | "0-1" => 0.0,
        _ => return None,
    };
    Some((line[..open].trim(), result))
}

/// The starting weights as `[mg0, eg0, mg1, eg1, ...]`.
pub fn initial_weights() -> Vec<f64> {
    weights::values()
        .iter()
        .flat_map(|s| [f64::from(s.mg()), f64::from(s.eg())])
        .collect()
}

/// Finds the K minimising the loss (golden-section search over 0.05 ..= 5).
pub fn fit_k(data: &Dataset, w: &[f64], threads: usize) -> f64 {
    let (mut lo, mut hi) = (0.05f64, 5.0f64);
    let ratio = (5f64.sqrt() - 1.0) / 2.0;
    let mut a = hi - ratio * (hi - lo);
    let mut b = lo + ratio * (hi - lo);
    let (mut fa, mut fb) = (data.loss(w, a, threads), data.loss(w, b, threads));
    for _ in 0..40 {
        if fa < fb {
            hi = b;
            b = a;
            fb = fa;
            a = hi - ratio * (hi - lo);
            fa = data.loss(w, a, threads);
        } else {
            lo = a;
            a = b;
            fa = fb;
            b = lo + ratio * (hi - lo);
            fb = data.loss(w, b, threads);
        }
    }
    (lo + hi) / 2.0
}

/// Adam optimiser state.
struct Adam {
    m: Vec<f64>,
    v: Vec<f64>,
    t: i32,
}

impl Adam {
    fn new(n: usize) -> Adam {
        Adam {
            m: vec![0.0; n],
            v: vec![0.0; n],
            t: 0,
        }
    }

    fn step(&mut self, w: &mut [f64], g: &[f64], rate: f64) {
        const B1: f64 = 0.9;
        const B2: f64 = 0.999;
        self.t += 1;
        let (c1, c2) = (1.0 - B1.powi(self.t), 1.0 - B2.powi(self.t));
        for i in 0..w.len() {
            self.m[i] = B1 * self.m[i] + (1.0 - B1) * g[i];
            self.v[i] = B2 * self.v[i] + (1.0 - B2) * g[i] * g[i];
            w[i] -= rate * (self.m[i] / c1) / ((self.v[i] / c2).sqrt() + 1e-12);
        }
    }
}

/// Fits the weights; returns them with K and the loss before and after.
pub fn tune(data: &Dataset, config: &Config) -> (Vec<f64>, f64, f64, f64) {
    let mut w = initial_weights();
    let threads = config.threads;
    let k = fit_k(data, &w, threads);
    let start_loss = data.loss(&w, k, threads);
    if config.progress {
        eprintln!(
            "{} positions, {} weights; K = {k:.4}, loss {start_loss:.6}",
            data.len(),
            w.len()
        );
    }
    let mut adam = Adam::new(w.len());
    let started = Instant::now();
    for epoch in 1..=config.epochs {
        let g = data.gradient(&w, k, threads);
        adam.step(&mut w, &g, config.learning_rate);
        if config.progress && (epoch % 50 == 0 || epoch == config.epochs) {
            let secs = started.elapsed().as_secs_f64();
            eprintln!(
                "epoch {epoch:>5}/{}  loss {:.6}  {:.1}s  eta {:.0}s",
                config.epochs,
                data.loss(&w, k, threads),
                secs,
                secs / epoch as f64 * (config.epochs - epoch) as f64
            );
        }
    }
    let end_loss = data.loss(&w, k, threads);
    (w, k, start_loss, end_loss)
}

/// Rounds `[mg0, eg0, ...]` to `S` values.
pub fn to_scores(w: &[f64]) -> Vec<S> {
    w.chunks(2)
        .map(|p| S(p[0].round() as i32, p[1].round() as i32))
        .collect()
}

/// Rewrites the values of every tunable weight in the text of `weights.rs`, keeping
/// everything else (comments, fixed parameters) as it is.
pub fn rewrite_weights(source: &str, values: &[S]) -> Result<String, String> {
    let mut text = source.to_string();
    let mut offset = 0;
    for &(name, len) in weights::LAYOUT {
        let own = &values[offset..offset + len];
        offset += len;
        let head = format!("\n    {name}: ");
        let at = text
            .find(&head)
            .ok_or_else(|| format!("weight {name} not found"))?;
        let eq = text[at..]
            .find("= ")
            .ok_or_else(|| format!("no value for {name}"))?
            + at
            + 2;
        let end = text[eq..]
            .find(';')
            .ok_or_else(|| format!("no ';' after {name}"))?
            + eq;
        let is_array = text[at..eq].contains('[');
        text.replace_range(eq..end, &format_value(own, is_array));
    }
    Ok(text)
}

/// Formats a weight's value as it appears in `weights.rs`.
fn format_value(values: &[S], is_array: bool) -> String {
    let s = |v: &S| format!("S({}, {})", v.mg(), v.eg());
    if !is_array {
        return s(&values[0]);
    }
    if values.len() <= 6 {
        let items: Vec<String> = values.iter().map(s).collect();
        return format!("[{}]", items.join(", "));
    }
    let mut out = String::from("[\n");
    if values.len() == 64 {
        for (r, row) in values.chunks(8).enumerate() {
            let items: Vec<String> = row.iter().map(s).collect();
            out.push_str(&format!("        // rank {}\n", 8 - r));
            out.push_str(&format!("        {},\n", items.join(", ")));
        }
    } else {
        for v in values {
            out.push_str(&format!("        {},\n", s(v)));
        }
    }
    out.push_str("    ]");
    out
}

/// `scout tune`: loads the data, fits, writes the weights file.
pub fn run(config: &Config) -> Result<(), String> {
    let started = Instant::now();
    let mut text = String::new();
    for input in &config.inputs {
        text.push_str(
            &std::fs::read_to_string(input).map_err(|e| format!("cannot read {input}: {e}"))?,
        );
        text.push('\n');
    }
    let (data, skipped) = Dataset::parse(text.lines());
    drop(text);
    if config.progress {
        eprintln!(
            "loaded {} positions ({skipped} skipped) in {:.1}s",
            data.len(),
            started.elapsed().as_secs_f64()
        );
    }
    if data.is_empty() {
        return Err("no training positions".to_string());
    }
    let (w, k, before, after) = tune(&data, config);
    let source = std::fs::read_to_string(&config.out)
        .map_err(|e| format!("cannot read {}: {e}", config.out))?;
    let rewritten = rewrite_weights(&source, &to_scores(&w))?;
    std::fs::write(&config.out, rewritten)
        .map_err(|e| format!("cannot write {}: {e}", config.out))?;
    eprintln!(
        "K = {k:.4}; loss {before:.6} -> {after:.6}; wrote {} in {:.0}s",
        config.out,
        started.elapsed().as_secs_f64()
    );
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::eval::Evaluator;

    fn sample() -> Dataset {
        let lines: Vec<String> = crate::bench::POSITIONS
            .lines()
            .enumerate()
            .map(|(i, fen)| format!("{fen} [{}]", ["1.0", "0.5", "0.0"][i % 3]))
            .collect();
        Dataset::parse(lines.iter().map(String::as_str)).0
    }

    #[test]
    fn model_matches_the_engine() {
        let lines: Vec<&str> = crate::bench::POSITIONS.lines().collect();
        let w = initial_weights();
        let mut ev = Evaluator::new();
        for fen in lines {
            let pos = Position::from_fen(fen, CastlingMode::Standard).unwrap();
            let line = format!("{fen} [0.5]");
            let (data, _) = Dataset::parse(std::iter::once(line.as_str()));
            let model = data.eval(&data.entries[0], &w);
            let v = ev.evaluate(pos.chess());
            let engine = pos.turn().fold_wb(v, -v);
            // The engine rounds with integer division at each step.
            assert!(
                (model - f64::from(engine)).abs() <= 2.0,
                "{fen}: model {model}, engine {engine}"
            );
        }
    }

    #[test]
    fn gradient_matches_finite_differences() {
        let data = sample();
        let w = initial_weights();
        let k = 1.1;
        let g = data.gradient(&w, k, 2);
        let h = 1e-3;
        let mut checked = 0;
        for i in (0..w.len())
            .filter(|&i| g[i].abs() > 1e-9)
            .step_by(7)
            .take(40)
        {
            let mut plus = w.clone();
            plus[i] += h;
            let mut minus = w.clone();
            minus[i] -= h;
            let numeric = (data.loss(&plus, k, 1) - data.loss(&minus, k, 1)) / (2.0 * h);
            assert!(
                (numeric - g[i]).abs() <= 1e-6 + 1e-3 * g[i].abs(),
                "weight {i}: analytic {} numeric {numeric}",
                g[i]
            );
            checked += 1;
        }
        assert!(checked >= 20, "only {checked} weights had a gradient");
    }

    #[test]
    fn tuning_lowers_the_loss() {
        let data = sample();
        let config = Config {
            epochs: 100,
            learning_rate: 1.0,
            progress: false,
            ..Config::default()
        };
        let (w, _, before, after) = tune(&data, &config);
        assert!(after < before, "loss {before} -> {after}");
        assert_eq!(w.len(), 2 * weights::COUNT);
    }

    #[test]
    fn k_fit_finds_the_minimum() {
        // Results that follow the evaluation's sign two times out of three: K is finite.
        let mut ev = Evaluator::new();
        let lines: Vec<String> = crate::bench::POSITIONS
            .lines()
            .enumerate()
            .map(|(i, fen)| {
                let pos = Position::from_fen(fen, CastlingMode::Standard).unwrap();
                let v = ev.evaluate(pos.chess());
                let white = pos.turn().fold_wb(v, -v);
                let tag = match (white, i % 3) {
                    (_, 0) => "0.5",
                    (w, _) if w > 30 => "1.0",
                    (w, _) if w < -30 => "0.0",
                    _ => "0.5",
                };
                format!("{fen} [{tag}]")
            })
            .collect();
        let data = Dataset::parse(lines.iter().map(String::as_str)).0;
        let w = initial_weights();
        let k = fit_k(&data, &w, 2);
        let at = data.loss(&w, k, 2);
        assert!(
            k > 0.06 && k < 4.9,
            "K = {k} at the edge of the search range"
        );
        assert!(at <= data.loss(&w, k * 1.2, 2) && at <= data.loss(&w, k / 1.2, 2));
    }

    #[test]
    fn rewriting_the_weights_file_round_trips() {
        let source = include_str!("eval/weights.rs");
        let same = rewrite_weights(source, &weights::values()).unwrap();
        // Unchanged values give back the same file.
        assert_eq!(same, source);
        let mut changed = weights::values();
        changed[weights::idx::TEMPO] = S(-7, 9);
        changed[weights::idx::PSQT_KING + 9] = S(123, -45);
        let text = rewrite_weights(source, &changed).unwrap();
        assert!(text.contains("TEMPO: S = S(-7, 9);"));
        assert!(text.contains("S(123, -45)"));
        assert_eq!(text.lines().count(), source.lines().count());
    }

    #[test]
    fn result_tags_parse() {
        assert_eq!(parse_line("8/8 w - - 0 1 [1.0]").unwrap().1, 1.0);
        assert_eq!(parse_line("8/8 w - - 0 1 [0-1]").unwrap().1, 0.0);
        assert_eq!(parse_line("8/8 w - - 0 1 [1/2-1/2]").unwrap().1, 0.5);
        assert!(parse_line("8/8 w - - 0 1 [2.0]").is_none());
        assert!(parse_line("8/8 w - - 0 1").is_none());
    }
}
