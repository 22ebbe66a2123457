//! `scout rescale`: a copy of a net with its output layer multiplied by one factor, so that its
//! evaluations keep the scale of the net the search was tuned with.
//!
//! A net trained on search scores learns their scale, and the search's scores at a few thousand
//! nodes run a little larger than the static evaluation that guided them: each generation's
//! evaluations came out larger than its parent's (generation 5 6–7% above generation 4, a
//! fine-tune of generation 5 on its own games 10–12% above it). The search's margins (futility
//! and reverse futility, the aspiration window, null-move conditions) are in centipawns and
//! were tuned at one scale. Session 31 measured generation 5 with its output ×1.1 at −44 Elo
//! against itself, ×0.9 at +16 (± 17.5), and a fine-tune that lost 39.5 at its own scale at +10
//! (± 17) once brought back (docs/results.md, *Session 31*).
//!
//! `--factor X` multiplies the output weights and biases by X. `--like REF DATA...` finds the
//! factor: on up to `--positions` positions spread evenly over the data files, the slope of a
//! least-squares line through the origin of the net's evaluation against REF's (positions both
//! evaluate within ±1000 cp), and the factor is its inverse. Weights are rounded half to even
//! and kept within the quantisation's ±127; the report says how many had to be clipped. The
//! second rounding of the output weights is noise in the evaluation: generation 5 ×0.9 is
//! within 0.7 cp of 0.9 × generation 5 on average, but 7.5 cp apart (standard deviation, 29 at
//! most) on 1,372 positions of timed games. A factor applied to the trainer's float weights,
//! before they are quantised, would not pay it.

use shakmaty::{Chess, Position};

use crate::nnue::{self, Network};
use crate::training::packed::Blocks;

/// Positions whose evaluation by either net is beyond this (centipawns) are left out of the
/// slope: won positions say little about the scale of the search's margins.
const SLOPE_RANGE: i32 = 1000;
/// Largest quantized output weight (`nnue::OUTPUT_WEIGHT_LIMIT` × QB).
const WEIGHT_LIMIT: f64 = 127.0;

/// The net with its output layer multiplied by `factor`, and how many weights were clipped.
pub fn scaled(net: &Network, factor: f64) -> (Network, usize) {
    let mut out = net.clone();
    let mut clipped = 0;
    for w in &mut out.output_weights {
        let x = (f64::from(*w) * factor).round_ties_even();
        if x.abs() > WEIGHT_LIMIT {
            clipped += 1;
        }
        *w = x.clamp(-WEIGHT_LIMIT, WEIGHT_LIMIT) as i16;
    }
    for b in &mut out.output_bias {
        *b = (f64::from(*b) * factor).round_ties_even() as i32;
    }
    (out, clipped)
}

/// The least-squares slope through the origin of `net`'s evaluations against `reference`'s,
/// and the number of positions it rests on.
pub fn slope(net: &Network, reference: &Network, positions: &[Chess]) -> (f64, usize) {
    let (mut xy, mut xx, mut n) = (0.0, 0.0, 0);
    for pos in positions {
        let x = nnue::evaluate_board(reference, pos.board(), pos.turn());
        let y = nnue::evaluate_board(net, pos.board(), pos.turn());
        if x.abs() <= SLOPE_RANGE && y.abs() <= SLOPE_RANGE {
            xy += f64::from(x) * f64::from(y);
            xx += f64::from(x) * f64::from(x);
            n += 1;
        }
    }
    (if xx > 0.0 { xy / xx } else { 1.0 }, n)
}

/// Up to `limit` positions spread evenly over the data files.
fn sample(paths: &[String], limit: usize) -> Result<Vec<Chess>, String> {
    let mut files = Vec::new();
    for path in paths {
        files.push((
            path,
            Blocks::open(path, 1 << 16).map_err(|e| format!("{path}: {e}"))?,
        ));
    }
    let total: u64 = files.iter().map(|(_, blocks)| blocks.left()).sum();
    let stride = total.div_ceil(limit.max(1) as u64).max(1);
    let mut positions = Vec::new();
    let mut index = 0u64;
    for (path, mut blocks) in files {
        loop {
            let block = blocks.next_block().map_err(|e| format!("{path}: {e}"))?;
            if block.is_empty() {
                break;
            }
            for record in block {
                if index.is_multiple_of(stride)
                    && let Ok(pos) = record.position()
                {
                    positions.push(pos);
                }
                index += 1;
            }
        }
    }
    Ok(positions)
}

/// What `scout rescale` was asked to do.
pub struct Config {
    pub net: String,
    pub out: String,
    /// Multiply by this...
    pub factor: Option<f64>,
    /// ...or by what brings the net's scale to this net's, measured on `data`.
    pub like: Option<String>,
    pub data: Vec<String>,
    pub positions: usize,
}

/// Runs the tool; the report says the factor, the clipped weights and the slope after.
pub fn run(config: &Config) -> Result<String, String> {
    let net = nnue::file::load(&config.net)?;
    let (factor, reference, positions, mut report) = match (&config.factor, &config.like) {
        (Some(f), None) => (*f, None, Vec::new(), String::new()),
        (None, Some(like)) => {
            if config.data.is_empty() {
                return Err("rescale --like needs data files to measure on".to_string());
            }
            let reference = nnue::file::load(like)?;
            let positions = sample(&config.data, config.positions)?;
            let (s, n) = slope(&net, &reference, &positions);
            let report = format!(
                "slope of {} against {like}: {s:.4} on {n} of {} positions\n",
                config.net,
                positions.len()
            );
            (1.0 / s, Some(reference), positions, report)
        }
        _ => return Err("rescale takes one of --factor X and --like NET".to_string()),
    };
    if !(factor.is_finite() && factor > 0.0) {
        return Err(format!("rescale: factor {factor} is not a positive number"));
    }
    let (out, clipped) = scaled(&net, factor);
    report += &format!("factor {factor:.4}, {clipped} output weights clipped to ±127\n");
    if let Some(reference) = reference {
        let (s, _) = slope(&out, &reference, &positions);
        report += &format!("slope after: {s:.4}\n");
    }
    crate::training::write_atomically(&config.out, &nnue::file::write(&out))
        .map_err(|e| format!("{}: {e}", config.out))?;
    report += &format!("wrote {} ({out:?})\n", config.out);
    Ok(report)
}

#[cfg(test)]
mod tests {
    use super::*;
    use shakmaty::{CastlingMode, fen::Fen};

    fn positions() -> Vec<Chess> {
        [
            "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
            "r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq - 2 3",
            "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
            "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1",
            "6k1/5ppp/8/8/8/8/5PPP/3N2K1 w - - 0 1",
            "2r3k1/pp3ppp/4p3/3pP3/3P4/P4N2/1P3PPP/2R3K1 b - - 0 20",
            "r4rk1/1pp1qppp/p1np1n2/2b1p1B1/2B1P1b1/P1NP1N2/1PP1QPPP/R4RK1 w - - 0 10",
            "4k3/8/8/3q4/8/8/3B4/4K2R b K - 0 1",
        ]
        .iter()
        .map(|f| {
            f.parse::<Fen>()
                .unwrap()
                .into_position(CastlingMode::Standard)
                .unwrap()
        })
        .collect()
    }

    #[test]
    fn factor_one_keeps_the_net() {
        let net = nnue::default_network();
        let (same, clipped) = scaled(&net, 1.0);
        assert_eq!(clipped, 0);
        assert_eq!(nnue::file::write(&same), nnue::file::write(&net));
    }

    #[test]
    fn scaling_multiplies_the_output_layer() {
        let net = nnue::default_network();
        for factor in [0.9, 1.1] {
            let (out, clipped) = scaled(&net, factor);
            let mut over = 0;
            for (w, o) in net.output_weights.iter().zip(&out.output_weights) {
                let x = (f64::from(*w) * factor).round_ties_even();
                over += usize::from(x.abs() > 127.0);
                assert_eq!(f64::from(*o), x.clamp(-127.0, 127.0));
            }
            assert_eq!(clipped, over);
            for (b, o) in net.output_bias.iter().zip(&out.output_bias) {
                assert_eq!(f64::from(*o), (f64::from(*b) * factor).round_ties_even());
            }
            assert_eq!(out.feature_weights, net.feature_weights);
            // The evaluations follow, give or take the second rounding's few centipawns.
            let (s, n) = slope(&out, &net, &positions());
            assert!(n >= 6 && (s - factor).abs() < 0.05, "{factor}: {s} on {n}");
        }
        // Generation 5's largest output weights are at the limit: ×1.1 must clip some.
        assert!(scaled(&net, 1.1).1 > 0);
    }

    #[test]
    fn like_finds_the_inverse_of_a_known_scale() {
        let base = nnue::default_network();
        let (reference, _) = scaled(&base, 0.6);
        let (net, _) = scaled(&base, 0.8);
        let positions = positions();
        let (s, n) = slope(&net, &reference, &positions);
        assert!(n >= 6, "{n}");
        assert!((s - 0.8 / 0.6).abs() < 0.05, "{s}");
        // Scaled by the inverse of the slope, the net has the reference's scale.
        let (matched, clipped) = scaled(&net, 1.0 / s);
        assert_eq!(clipped, 0);
        let (after, _) = slope(&matched, &reference, &positions);
        assert!((after - 1.0).abs() < 0.05, "{after}");
    }
}
