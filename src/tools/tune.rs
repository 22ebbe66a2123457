//! The Texel tuner (`scout tune`): fits every tunable evaluation weight to game results.
//!
//! Each training position is reduced once to its [`Coefficients`]: how often White and Black
//! used each `S` weight, what each king's danger sum is made of, the phase, the endgame scale
//! factor and the fifty-move damping. The evaluation is then a cheap function of the weight
//! vector (the `S` weights, then the king-danger weights of `weights::danger`),
//!
//! ```text
//! danger(king) = Σ fⱼ·θⱼ        penalty = (min(danger²/700, 1200), danger/10) when danger > 0
//! mg = fixed.mg + Σ nᵢ·wᵢ.mg − penalty.mg(White) + penalty.mg(Black)      (eg likewise)
//! eval = (mg·phase + eg·scale/128·(24 − phase)) / 24 · damping/160
//! ```
//!
//! and the loss is the mean squared error between the game result r ∈ {0, ½, 1} and the
//! predicted score sigmoid(K·eval) = 1 / (1 + 10^(−K·eval/400)). K is fitted first (with the
//! starting weights) and held fixed; then full-batch gradient descent with Adam moves all
//! weights at once, except those used in fewer than `min_usage` training positions, which keep
//! their values (too little evidence: they would only learn noise). One block of lines in ten (blocks of [`BLOCK`] consecutive lines, so that
//! positions of one game rarely straddle the split) is held out: the weights kept are those
//! with the lowest loss on the held-out positions, which stops the fit before it learns the
//! noise of the training games. The result is written back into `src/eval/weights.rs` in
//! place, keeping the file's comments.

use std::time::Instant;

use shakmaty::{CastlingMode, Chess};

use crate::eval::weights::{
    self, KING_DANGER_EG_DIVISOR, KING_DANGER_MG_DIVISOR, KING_DANGER_MG_MAX, danger,
};
use crate::eval::{Coefficients, PHASE_MAX, S, SCALE_MAX, coefficients};
use crate::position::Position;
use crate::tools::packed;

/// What `scout tune` does.
#[derive(Clone, Debug)]
pub struct Config {
    /// Training files: one `FEN [result]` per line (see `datagen`).
    pub inputs: Vec<String>,
    pub epochs: usize,
    /// Adam step size, in centipawns.
    pub learning_rate: f64,
    /// Weights used in fewer training positions than this are not changed.
    pub min_usage: usize,
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
            learning_rate: 0.1,
            min_usage: 1000,
            threads: std::thread::available_parallelism().map_or(1, |n| n.get()),
            out: "src/eval/weights.rs".to_string(),
            progress: true,
        }
    }
}

/// One training position, reduced to what the loss needs.
#[derive(Clone, Copy)]
struct Entry {
    /// Range of this position's (weight, count) pairs in [`Dataset::counts`].
    start: u32,
    end: u32,
    /// Ranges of the black and the white king's danger terms in [`Dataset::danger`].
    danger: [(u32, u32); 2],
    /// White-relative terms with fixed weights (endgame drives).
    fixed_mg: f32,
    fixed_eg: f32,
    /// Middlegame and endgame multipliers of the blend, damping included.
    mg_factor: f32,
    eg_factor: f32,
    result: f32,
}

/// Offset of the king-danger weights in the parameter vector.
const DANGER: usize = 2 * weights::COUNT;

/// The training set.
pub struct Dataset {
    entries: Vec<Entry>,
    counts: Vec<(u16, i16)>,
    danger: Vec<(u16, f32)>,
}

impl Dataset {
    fn empty() -> Dataset {
        Dataset {
            entries: Vec::new(),
            counts: Vec::new(),
            danger: Vec::new(),
        }
    }

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
        let mut data = Dataset::empty();
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
        let mut danger = [(0, 0); 2];
        for (range, list) in danger.iter_mut().zip(&c.danger) {
            let from = self.danger.len() as u32;
            self.danger.extend_from_slice(list);
            *range = (from, self.danger.len() as u32);
        }
        self.entries.push(Entry {
            start,
            end: self.counts.len() as u32,
            danger,
            fixed_mg: c.fixed.mg() as f32,
            fixed_eg: c.fixed.eg() as f32,
            mg_factor: phase * damping,
            eg_factor: (1.0 - phase) * c.scale as f32 / SCALE_MAX as f32 * damping,
            result,
        });
        true
    }

    /// The danger sum of one king, or `None` when no penalty applies.
    #[inline]
    fn danger_sum(&self, range: (u32, u32), w: &[f64]) -> Option<f64> {
        let terms = &self.danger[range.0 as usize..range.1 as usize];
        if terms.is_empty() {
            return None;
        }
        let d: f64 = terms
            .iter()
            .map(|&(j, f)| f64::from(f) * w[DANGER + j as usize])
            .sum();
        (d > 0.0).then_some(d)
    }

    /// The linear model's evaluation of entry `e` (White's view) with weights `w`
    /// (`[mg0, eg0, mg1, eg1, ...]`).
    #[inline]
    fn eval(&self, e: &Entry, w: &[f64]) -> f64 {
        let (mut mg, mut eg) = (f64::from(e.fixed_mg), f64::from(e.fixed_eg));
        for &(i, n) in &self.counts[e.start as usize..e.end as usize] {
            let i = 2 * i as usize;
            mg += f64::from(n) * w[i];
            eg += f64::from(n) * w[i + 1];
        }
        // King danger: a penalty for the king's side (black king first, index 0).
        for (king, &range) in e.danger.iter().enumerate() {
            if let Some(d) = self.danger_sum(range, w) {
                let sign = if king == 1 { -1.0 } else { 1.0 };
                mg += sign * danger_mg(d);
                eg += sign * d / f64::from(KING_DANGER_EG_DIVISOR);
            }
        }
        mg * f64::from(e.mg_factor) + eg * f64::from(e.eg_factor)
    }

    /// In how many positions each parameter takes part.
    pub fn usage(&self) -> Vec<usize> {
        let mut usage = vec![0; DANGER + danger::COUNT];
        for e in &self.entries {
            for &(i, _) in &self.counts[e.start as usize..e.end as usize] {
                usage[2 * i as usize] += 1;
                usage[2 * i as usize + 1] += 1;
            }
            let mut seen = [false; danger::COUNT];
            for &(from, end) in &e.danger {
                for &(j, _) in &self.danger[from as usize..end as usize] {
                    seen[j as usize] = true;
                }
            }
            for (j, _) in seen.iter().enumerate().filter(|&(_, &s)| s) {
                usage[DANGER + j] += 1;
            }
        }
        usage
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
                for (king, &range) in e.danger.iter().enumerate() {
                    if let Some(d) = self.danger_sum(range, w) {
                        let sign = if king == 1 { -1.0 } else { 1.0 };
                        // d penalty / d danger: 2·danger/700 below the cap, 0 above it.
                        let slope_mg = if danger_mg(d) < f64::from(KING_DANGER_MG_MAX) {
                            2.0 * d / f64::from(KING_DANGER_MG_DIVISOR)
                        } else {
                            0.0
                        };
                        let slope = sign * (dm * slope_mg + de / f64::from(KING_DANGER_EG_DIVISOR));
                        for &(j, f) in &self.danger[range.0 as usize..range.1 as usize] {
                            g[DANGER + j as usize] += slope * f64::from(f);
                        }
                    }
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

/// Lines per block of the training / validation split.
pub const BLOCK: usize = 256;

impl Dataset {
    /// Splits off every `every`-th block of [`BLOCK`] entries as a validation set.
    pub fn split(self, every: usize) -> (Dataset, Dataset) {
        let mut train = Dataset::empty();
        let mut valid = Dataset::empty();
        for (i, e) in self.entries.iter().enumerate() {
            let to = if every > 0 && (i / BLOCK) % every == every - 1 {
                &mut valid
            } else {
                &mut train
            };
            let start = to.counts.len() as u32;
            to.counts
                .extend_from_slice(&self.counts[e.start as usize..e.end as usize]);
            let mut danger = [(0, 0); 2];
            for (range, &(from, end)) in danger.iter_mut().zip(&e.danger) {
                let at = to.danger.len() as u32;
                to.danger
                    .extend_from_slice(&self.danger[from as usize..end as usize]);
                *range = (at, to.danger.len() as u32);
            }
            to.entries.push(Entry {
                start,
                end: to.counts.len() as u32,
                danger,
                ..*e
            });
        }
        (train, valid)
    }
}

/// The middlegame king-danger penalty for a positive danger sum.
#[inline]
fn danger_mg(d: f64) -> f64 {
    (d * d / f64::from(KING_DANGER_MG_DIVISOR)).min(f64::from(KING_DANGER_MG_MAX))
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

/// The starting weights as `[mg0, eg0, mg1, eg1, ..., danger0, danger1, ...]`.
pub fn initial_weights() -> Vec<f64> {
    let mut w: Vec<f64> = weights::values()
        .iter()
        .flat_map(|s| [f64::from(s.mg()), f64::from(s.eg())])
        .collect();
    w.extend(danger::values().iter().map(|&d| f64::from(d)));
    w
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

    /// One step on the parameters that are not `frozen`.
    fn step(&mut self, w: &mut [f64], g: &[f64], frozen: &[bool], rate: f64) {
        const B1: f64 = 0.9;
        const B2: f64 = 0.999;
        self.t += 1;
        let (c1, c2) = (1.0 - B1.powi(self.t), 1.0 - B2.powi(self.t));
        for i in (0..w.len()).filter(|&i| !frozen[i]) {
            self.m[i] = B1 * self.m[i] + (1.0 - B1) * g[i];
            self.v[i] = B2 * self.v[i] + (1.0 - B2) * g[i] * g[i];
            w[i] -= rate * (self.m[i] / c1) / ((self.v[i] / c2).sqrt() + 1e-12);
        }
    }
}

/// The outcome of [`tune`].
pub struct Fit {
    /// The weights with the lowest validation loss, `[mg0, eg0, ...]`.
    pub weights: Vec<f64>,
    pub k: f64,
    /// Training and validation loss of the starting weights.
    pub start: (f64, f64),
    /// Training and validation loss of the weights kept.
    pub end: (f64, f64),
    /// The epoch the weights kept come from.
    pub best_epoch: usize,
}

/// Fits the weights on `train`, keeping those that do best on `valid` (which may be empty:
/// then the last weights are kept).
pub fn tune(train: &Dataset, valid: &Dataset, config: &Config) -> Fit {
    let mut w = initial_weights();
    let threads = config.threads;
    let k = fit_k(train, &w, threads);
    let loss = |w: &[f64]| {
        let v = if valid.is_empty() {
            f64::NAN
        } else {
            valid.loss(w, k, threads)
        };
        (train.loss(w, k, threads), v)
    };
    let start = loss(&w);
    let frozen: Vec<bool> = train
        .usage()
        .iter()
        .map(|&n| n < config.min_usage)
        .collect();
    if config.progress {
        eprintln!(
            "{} training and {} validation positions, {} weights ({} used in fewer than {} positions stay fixed); K = {k:.4}; loss {:.6} / {:.6}",
            train.len(),
            valid.len(),
            w.len(),
            frozen.iter().filter(|&&f| f).count(),
            config.min_usage,
            start.0,
            start.1
        );
    }
    let mut best = (w.clone(), start, 0usize);
    let mut adam = Adam::new(w.len());
    let started = Instant::now();
    for epoch in 1..=config.epochs {
        let g = train.gradient(&w, k, threads);
        adam.step(&mut w, &g, &frozen, config.learning_rate);
        if epoch % 10 == 0 || epoch == config.epochs {
            let l = loss(&w);
            // Without a validation set, the last weights are kept.
            if valid.is_empty() || l.1 < best.1.1 {
                best = (w.clone(), l, epoch);
            }
            if config.progress && (epoch % 50 == 0 || epoch == config.epochs) {
                let secs = started.elapsed().as_secs_f64();
                eprintln!(
                    "epoch {epoch:>5}/{}  loss {:.6}  validation {:.6}  (best at {})  {:.1}s  eta {:.0}s",
                    config.epochs,
                    l.0,
                    l.1,
                    best.2,
                    secs,
                    secs / epoch as f64 * (config.epochs - epoch) as f64
                );
            }
        }
    }
    Fit {
        weights: best.0,
        k,
        start,
        end: best.1,
        best_epoch: best.2,
    }
}

/// Rounds a parameter vector to the `S` weights and the king-danger weights.
pub fn to_scores(w: &[f64]) -> (Vec<S>, Vec<i32>) {
    let scores = w[..DANGER]
        .chunks(2)
        .map(|p| S(p[0].round() as i32, p[1].round() as i32))
        .collect();
    let danger = w[DANGER..].iter().map(|d| d.round() as i32).collect();
    (scores, danger)
}

/// Rewrites the values of every tunable weight in the text of `weights.rs`, keeping
/// everything else (comments, fixed parameters) as it is.
pub fn rewrite_weights(source: &str, scores: &[S], danger: &[i32]) -> Result<String, String> {
    let mut text = source.to_string();
    let mut offset = 0;
    for &(name, len) in weights::LAYOUT {
        let items: Vec<String> = scores[offset..offset + len]
            .iter()
            .map(|v| format!("S({}, {})", v.mg(), v.eg()))
            .collect();
        offset += len;
        replace_value(&mut text, name, &items)?;
    }
    let mut offset = 0;
    for &(name, len) in danger::LAYOUT {
        let items: Vec<String> = danger[offset..offset + len]
            .iter()
            .map(i32::to_string)
            .collect();
        offset += len;
        replace_value(&mut text, name, &items)?;
    }
    Ok(text)
}

/// Replaces the value of the weight declared as `NAME: type = value;` at the start of a line.
fn replace_value(text: &mut String, name: &str, items: &[String]) -> Result<(), String> {
    let head = format!("{name}: ");
    let mut at = None;
    let mut pos = 0;
    for line in text.split_inclusive('\n') {
        let trimmed = line.trim_start();
        if trimmed.starts_with(&head) {
            at = Some((pos + line.len() - trimmed.len(), line.len() - trimmed.len()));
            break;
        }
        pos += line.len();
    }
    let (at, indent) = at.ok_or_else(|| format!("weight {name} not found"))?;
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
    text.replace_range(eq..end, &format_value(items, is_array, indent));
    Ok(())
}

/// Formats a weight's value as it appears in `weights.rs`: one element; a short array on one
/// line; a piece-square table as eight rows with rank comments; other arrays one per line.
fn format_value(items: &[String], is_array: bool, indent: usize) -> String {
    if !is_array {
        return items[0].clone();
    }
    if items.len() <= 6 || items.iter().all(|i| !i.starts_with('S')) {
        return format!("[{}]", items.join(", "));
    }
    let inner = " ".repeat(indent + 4);
    let mut out = String::from("[\n");
    if items.len() == 64 {
        for (r, row) in items.chunks(8).enumerate() {
            out.push_str(&format!("{inner}// rank {}\n", 8 - r));
            out.push_str(&format!("{inner}{},\n", row.join(", ")));
        }
    } else {
        for item in items {
            out.push_str(&format!("{inner}{item},\n"));
        }
    }
    out.push_str(&" ".repeat(indent));
    out.push(']');
    out
}

/// `scout tune`: loads the data, fits, writes the weights file.
pub fn run(config: &Config) -> Result<(), String> {
    let started = Instant::now();
    let mut text = String::new();
    let mut records = Vec::new();
    for input in &config.inputs {
        let bytes = std::fs::read(input).map_err(|e| format!("cannot read {input}: {e}"))?;
        match String::from_utf8(bytes) {
            // Text: `FEN [result]` lines (the tuner's earlier format).
            Ok(t) => {
                text.push_str(&t);
                text.push('\n');
            }
            // Binary: `datagen`'s packed records.
            Err(e) => records.extend(
                e.as_bytes()
                    .chunks_exact(packed::RECORD)
                    .map(|c| packed::Packed(c.try_into().expect("32 bytes"))),
            ),
        }
    }
    let (mut data, mut skipped) = Dataset::parse(text.lines());
    drop(text);
    for record in records {
        match record.position() {
            Ok(pos) if data.push(&pos, record.outcome().score()) => {}
            _ => skipped += 1,
        }
    }
    if config.progress {
        eprintln!(
            "loaded {} positions ({skipped} skipped) in {:.1}s",
            data.len(),
            started.elapsed().as_secs_f64()
        );
    }
    let (train, valid) = data.split(10);
    if train.is_empty() {
        return Err("no training positions".to_string());
    }
    let fit = tune(&train, &valid, config);
    let source = std::fs::read_to_string(&config.out)
        .map_err(|e| format!("cannot read {}: {e}", config.out))?;
    let (scores, danger) = to_scores(&fit.weights);
    let rewritten = rewrite_weights(&source, &scores, &danger)?;
    std::fs::write(&config.out, rewritten)
        .map_err(|e| format!("cannot write {}: {e}", config.out))?;
    eprintln!(
        "K = {:.4}; training loss {:.6} -> {:.6}, validation loss {:.6} -> {:.6} (epoch {}); wrote {} in {:.0}s",
        fit.k,
        fit.start.0,
        fit.end.0,
        fit.start.1,
        fit.end.1,
        fit.best_epoch,
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
        let lines: Vec<String> = crate::tools::bench::POSITIONS
            .lines()
            .enumerate()
            .map(|(i, fen)| format!("{fen} [{}]", ["1.0", "0.5", "0.0"][i % 3]))
            .collect();
        Dataset::parse(lines.iter().map(String::as_str)).0
    }

    #[test]
    fn model_matches_the_engine() {
        let lines: Vec<&str> = crate::tools::bench::POSITIONS.lines().collect();
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
        let linear = (0..DANGER)
            .filter(|&i| g[i].abs() > 1e-9)
            .step_by(7)
            .take(40);
        let king_danger: Vec<usize> = (DANGER..w.len()).filter(|&i| g[i].abs() > 1e-9).collect();
        assert!(
            king_danger.len() >= 8,
            "king-danger gradients: {king_danger:?}"
        );
        for i in linear.chain(king_danger) {
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
        assert!(checked >= 28, "only {checked} weights had a gradient");
    }

    #[test]
    fn tuning_lowers_the_loss() {
        let data = sample();
        let config = Config {
            epochs: 100,
            learning_rate: 1.0,
            min_usage: 1,
            progress: false,
            ..Config::default()
        };
        let empty = Dataset::parse(std::iter::empty()).0;
        let fit = tune(&data, &empty, &config);
        assert!(
            fit.end.0 < fit.start.0,
            "loss {:?} -> {:?}",
            fit.start,
            fit.end
        );
        assert_eq!(fit.weights.len(), 2 * weights::COUNT + danger::COUNT);
        assert_eq!(fit.best_epoch, 100);
    }

    #[test]
    fn validation_keeps_the_best_weights() {
        // Labels that contradict each other between the halves: fitting the training half
        // makes the validation half worse, so the starting weights are kept.
        let fens: Vec<&str> = crate::tools::bench::POSITIONS.lines().collect();
        let lines: Vec<String> = (0..2 * BLOCK)
            .map(|i| {
                let tag = if (i < BLOCK) == (i % 2 == 0) {
                    "1.0"
                } else {
                    "0.0"
                };
                format!("{} [{tag}]", fens[i % 2])
            })
            .collect();
        let (data, _) = Dataset::parse(lines.iter().map(String::as_str));
        let (train, valid) = data.split(2);
        assert_eq!((train.len(), valid.len()), (BLOCK, BLOCK));
        let config = Config {
            epochs: 50,
            min_usage: 1,
            progress: false,
            ..Config::default()
        };
        let fit = tune(&train, &valid, &config);
        // Training alone would have moved on; the held-out half keeps the start.
        assert_eq!(fit.best_epoch, 0);
        assert_eq!(fit.weights, initial_weights());
        let trained = tune(&train, &Dataset::parse(std::iter::empty()).0, &config);
        assert!(trained.end.0 < fit.start.0);
    }

    #[test]
    fn k_fit_finds_the_minimum() {
        // Results that follow the evaluation's sign two times out of three: K is finite.
        let mut ev = Evaluator::new();
        let lines: Vec<String> = crate::tools::bench::POSITIONS
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
        let source = include_str!("../eval/weights.rs");
        let same = rewrite_weights(source, &weights::values(), &danger::values()).unwrap();
        // Unchanged values give back the same file.
        assert_eq!(same, source);
        let mut changed = weights::values();
        changed[weights::idx::TEMPO] = S(-7, 9);
        changed[weights::idx::PSQT_KING + 9] = S(123, -45);
        let mut king = danger::values();
        king[danger::idx::KING_SAFE_CHECK + 2] = 77;
        king[danger::idx::KING_DANGER_OFFSET] = -41;
        let text = rewrite_weights(source, &changed, &king).unwrap();
        assert!(text.contains("TEMPO: S = S(-7, 9);"));
        assert!(text.contains("S(123, -45)"));
        let mut checks = danger::KING_SAFE_CHECK;
        checks[2] = 77;
        let expected = format!("KING_SAFE_CHECK: [i32; 6] = {checks:?};");
        assert!(text.contains(&expected), "{expected}");
        assert!(text.contains("KING_DANGER_OFFSET: i32 = -41;"));
        assert_eq!(text.lines().count(), source.lines().count());
    }

    #[test]
    fn rarely_used_weights_stay_fixed() {
        let data = sample();
        let usage = data.usage();
        // The tempo bonus counts in every position (for the side to move); a weight counts
        // only where White's and Black's uses do not cancel.
        assert_eq!(usage[2 * weights::idx::TEMPO], data.len());
        let config = Config {
            epochs: 20,
            learning_rate: 1.0,
            min_usage: 10,
            progress: false,
            ..Config::default()
        };
        let empty = Dataset::parse(std::iter::empty()).0;
        let fit = tune(&data, &empty, &config);
        let start = initial_weights();
        for (i, &n) in usage.iter().enumerate() {
            if n < 10 {
                assert_eq!(
                    fit.weights[i], start[i],
                    "parameter {i} used {n} times moved"
                );
            }
        }
        assert!(usage.iter().any(|&n| n < 10) && usage.iter().any(|&n| n >= 10));
        assert_ne!(fit.weights, start);
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
