//! `scout wdl-fit`: fits the win/draw/loss model of `crate::wdl` to the results of self-play
//! games (`datagen` files), and checks it on held-back games.
//!
//! Positions are grouped by material and score (10 cp steps, ±2000 cp); the eight cubic
//! coefficients of `a(m)` and `b(m)` maximise the likelihood of the observed results (Adam on
//! the exact gradient, full batch). One game in ten is held back: the report compares the
//! model's log-loss there with a model that ignores the score (the overall result
//! frequencies), and tabulates predicted against observed win and draw rates.

use std::collections::HashMap;

use shakmaty::Color;

use crate::training::packed::{self, GAME_END, Outcome};
use crate::wdl;

/// Positions with one material count and score, with their results (side to move's view).
#[derive(Clone, Copy, Default)]
struct Cell {
    material: u32,
    score: f64,
    counts: [f64; 3], // win, draw, loss
}

fn cells(records: &[packed::Packed], held_back: bool) -> Vec<Cell> {
    let mut map: HashMap<(u32, i32), Cell> = HashMap::new();
    let mut game = 0u64;
    for r in records {
        let in_held = game % 10 == 9;
        if r.flags() & GAME_END != 0 {
            game += 1;
        }
        if in_held != held_back {
            continue;
        }
        let material: u32 = r.pieces().map(|(_, p)| wdl::piece_value(p.role)).sum();
        let stm_white = r.turn() == Color::White;
        let score = i32::from(r.score()) * if stm_white { 1 } else { -1 };
        let score = (score.clamp(-2000, 2000) + 5).div_euclid(10) * 10;
        let outcome = match (r.outcome(), stm_white) {
            (Outcome::Draw, _) => 1,
            (Outcome::Win, true) | (Outcome::Loss, false) => 0,
            _ => 2,
        };
        let cell = map.entry((material, score)).or_insert(Cell {
            material,
            score: f64::from(score),
            counts: [0.0; 3],
        });
        cell.counts[outcome] += 1.0;
    }
    map.into_values().collect()
}

/// Probabilities of win, draw, loss for a cell under coefficients (in cp).
fn predict(a: &[f64; 4], b: &[f64; 4], c: &Cell) -> [f64; 3] {
    let (pa, pb) = wdl::params(a, b, c.material);
    let (w, l) = wdl::probabilities(c.score, pa, pb);
    [w, (1.0 - w - l).max(1e-9), l]
}

/// Mean negative log-likelihood per position.
fn log_loss(a: &[f64; 4], b: &[f64; 4], cells: &[Cell]) -> f64 {
    let (mut sum, mut n) = (0.0, 0.0);
    for c in cells {
        let p = predict(a, b, c);
        for (count, p) in c.counts.iter().zip(p) {
            sum -= count * p.max(1e-12).ln();
            n += count;
        }
    }
    sum / n.max(1.0)
}

/// Gradient of the negative log-likelihood with respect to the coefficients (a's then b's).
fn gradient(a: &[f64; 4], b: &[f64; 4], cells: &[Cell]) -> [f64; 8] {
    let mut g = [0.0; 8];
    for c in cells {
        let x = wdl::material_x(c.material);
        let (pa, pb) = wdl::params(a, b, c.material);
        let u = (c.score - pa) / pb;
        let v = (-c.score - pa) / pb;
        let (w, l) = wdl::probabilities(c.score, pa, pb);
        let d = (1.0 - w - l).max(1e-9);
        let (sw, sl) = (w * (1.0 - w), l * (1.0 - l));
        // Derivatives of p_win and p_loss by a and b.
        let (dw_da, dw_db) = (-sw / pb, -sw * u / pb);
        let (dl_da, dl_db) = (-sl / pb, -sl * v / pb);
        let da = -(c.counts[0] * dw_da / w.max(1e-12) + c.counts[2] * dl_da / l.max(1e-12)
            - c.counts[1] * (dw_da + dl_da) / d);
        let db = -(c.counts[0] * dw_db / w.max(1e-12) + c.counts[2] * dl_db / l.max(1e-12)
            - c.counts[1] * (dw_db + dl_db) / d);
        let mut xk = 1.0;
        for k in 0..4 {
            g[k] += da * xk;
            g[4 + k] += db * xk;
            xk *= x;
        }
    }
    g
}

/// Fits the coefficients (cp) by Adam from the constant model `a = 200, b = 100`.
fn fit(cells: &[Cell], iterations: usize) -> ([f64; 4], [f64; 4]) {
    let n: f64 = cells.iter().map(|c| c.counts.iter().sum::<f64>()).sum();
    let mut theta = [200.0, 0.0, 0.0, 0.0, 100.0, 0.0, 0.0, 0.0];
    let (mut m, mut v) = ([0.0; 8], [0.0; 8]);
    let lr = 2.0;
    for t in 1..=iterations {
        let a = [theta[0], theta[1], theta[2], theta[3]];
        let b = [theta[4], theta[5], theta[6], theta[7]];
        let g = gradient(&a, &b, cells);
        for k in 0..8 {
            let gk = g[k] / n;
            m[k] = 0.9 * m[k] + 0.1 * gk;
            v[k] = 0.999 * v[k] + 0.001 * gk * gk;
            let mh = m[k] / (1.0 - 0.9f64.powi(t as i32));
            let vh = v[k] / (1.0 - 0.999f64.powi(t as i32));
            theta[k] -= lr * mh / (vh.sqrt() + 1e-9);
        }
    }
    (
        [theta[0], theta[1], theta[2], theta[3]],
        [theta[4], theta[5], theta[6], theta[7]],
    )
}

/// Observed against predicted rates on held-back cells, by bins of the predicted win chance.
fn calibration(a: &[f64; 4], b: &[f64; 4], cells: &[Cell]) -> String {
    let mut bins = [[0.0f64; 5]; 10]; // n, predicted win, observed win, predicted draw, observed draw
    for c in cells {
        let p = predict(a, b, c);
        let n: f64 = c.counts.iter().sum();
        let bin = ((p[0] * 10.0) as usize).min(9);
        bins[bin][0] += n;
        bins[bin][1] += p[0] * n;
        bins[bin][2] += c.counts[0];
        bins[bin][3] += p[1] * n;
        bins[bin][4] += c.counts[1];
    }
    let mut out = String::from(
        "| predicted win | positions | predicted win % | observed win % | predicted draw % | observed draw % |\n|---|---:|---:|---:|---:|---:|\n",
    );
    for (i, b) in bins.iter().enumerate() {
        if b[0] == 0.0 {
            continue;
        }
        out.push_str(&format!(
            "| {}–{}% | {} | {:.1} | {:.1} | {:.1} | {:.1} |\n",
            i * 10,
            i * 10 + 10,
            b[0],
            100.0 * b[1] / b[0],
            100.0 * b[2] / b[0],
            100.0 * b[3] / b[0],
            100.0 * b[4] / b[0]
        ));
    }
    out
}

/// `scout wdl-fit DATA...`: prints the fitted coefficients (to paste into `src/wdl.rs`) and
/// the check on held-back games.
pub fn run(inputs: &[String], iterations: usize) -> Result<String, String> {
    let mut records = Vec::new();
    for path in inputs {
        records.extend(packed::read_file(path).map_err(|e| format!("{path}: {e}"))?);
    }
    if records.is_empty() {
        return Err("no positions".to_string());
    }
    let train = cells(&records, false);
    let held = cells(&records, true);
    let (a, b) = fit(&train, iterations);
    // The score-blind baseline: the held-back games' own overall frequencies.
    let totals = held.iter().fold([0.0; 3], |t, c| {
        [t[0] + c.counts[0], t[1] + c.counts[1], t[2] + c.counts[2]]
    });
    let n: f64 = totals.iter().sum();
    let baseline = -(0..3)
        .map(|k| totals[k] * (totals[k] / n.max(1.0)).max(1e-12).ln())
        .sum::<f64>()
        / n.max(1.0);
    let fmt = |c: &[f64; 4]| format!("[{:.3}, {:.3}, {:.3}, {:.3}]", c[0], c[1], c[2], c[3]);
    Ok(format!(
        "{} positions ({} held back, one game in ten)\n\
         pub const A: [f64; 4] = {};\npub const B: [f64; 4] = {};\n\
         log-loss per position: fitted games {:.4}; held-back games {:.4} \
         (score-blind baseline {baseline:.4}; the model as compiled {:.4})\n{}",
        records.len(),
        n,
        fmt(&a),
        fmt(&b),
        log_loss(&a, &b, &train),
        log_loss(&a, &b, &held),
        log_loss(&wdl::A, &wdl::B, &held),
        calibration(&a, &b, &held)
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The analytic gradient equals finite differences, and the fit recovers the coefficients
    /// of data drawn from the model itself.
    #[test]
    fn fit_recovers_a_known_model() {
        let a_true = [180.0, 40.0, -30.0, 20.0];
        let b_true = [90.0, 30.0, 0.0, -10.0];
        let mut cells = Vec::new();
        for material in (10..=78).step_by(4) {
            for score in (-1500..=1500).step_by(25) {
                let mut c = Cell {
                    material,
                    score: f64::from(score),
                    counts: [0.0; 3],
                };
                // Expected counts of 1000 positions: the likelihood's maximum is the truth.
                let p = predict(&a_true, &b_true, &c);
                c.counts = [1000.0 * p[0], 1000.0 * p[1], 1000.0 * p[2]];
                cells.push(c);
            }
        }
        let a = [200.0, 10.0, 5.0, -3.0];
        let b = [100.0, 7.0, 2.0, 1.0];
        let g = gradient(&a, &b, &cells);
        for k in 0..8 {
            let h = 1e-3;
            let (mut ap, mut bp, mut am, mut bm) = (a, b, a, b);
            if k < 4 {
                ap[k] += h;
                am[k] -= h;
            } else {
                bp[k - 4] += h;
                bm[k - 4] -= h;
            }
            let n: f64 = cells.iter().map(|c| c.counts.iter().sum::<f64>()).sum();
            let numeric = (log_loss(&ap, &bp, &cells) - log_loss(&am, &bm, &cells)) / (2.0 * h) * n;
            assert!(
                (numeric - g[k]).abs() <= 1e-4 * numeric.abs().max(1.0),
                "coefficient {k}: analytic {} numeric {numeric}",
                g[k]
            );
        }
        let (fa, fb) = fit(&cells, 4000);
        for m in [12, 30, 50, 70] {
            let (ta, tb) = wdl::params(&a_true, &b_true, m);
            let (ga, gb) = wdl::params(&fa, &fb, m);
            assert!(
                (ta - ga).abs() < 5.0 && (tb - gb).abs() < 5.0,
                "material {m}: a {ta} vs {ga}, b {tb} vs {gb}"
            );
        }
    }
}
