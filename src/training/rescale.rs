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
//! most) on 1,372 positions of timed games. Given the training checkpoint (`OUT.nnue.ckpt`, which
//! `scout train` writes beside every net) instead of the net, the factor is applied to the float
//! weights and they are quantised once, as the trainer would have: no second rounding.

use shakmaty::{Chess, Position};

use crate::nnue::{self, Network, OUTPUT_WEIGHT_LIMIT};
use crate::training::packed::Blocks;
use crate::training::train::model::{self, Params};

/// Positions whose evaluation by either net is beyond this (centipawns) are left out of the
/// slope: won positions say little about the scale of the search's margins.
const SLOPE_RANGE: i32 = 1000;
/// Largest quantized output weight (127), as the net file's reader checks it.
const WEIGHT_LIMIT: f64 = (OUTPUT_WEIGHT_LIMIT * nnue::QB as f32) as f64;

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

/// The net a checkpoint's float parameters make with their output layer multiplied by
/// `factor` (quantised once), and how many output weights were clipped to the limit.
pub fn scaled_float(params: &Params, factor: f64) -> (Network, usize) {
    let mut p = params.clone();
    let mut clipped = 0;
    let (w2, b2) = (p.w2_at(), p.b2_at());
    for w in &mut p.values[w2..b2] {
        let x = (f64::from(*w) * factor) as f32;
        if x.abs() > OUTPUT_WEIGHT_LIMIT {
            clipped += 1;
        }
        *w = x.clamp(-OUTPUT_WEIGHT_LIMIT, OUTPUT_WEIGHT_LIMIT);
    }
    for b in &mut p.values[b2..] {
        *b = (f64::from(*b) * factor) as f32;
    }
    (model::quantize(&p), clipped)
}

/// A net to rescale: a net file's quantised weights, or a training checkpoint's float ones.
enum Source {
    Net(Network),
    Float(Params),
}

impl Source {
    /// Reads a checkpoint (recognised by its magic, `SCOUTCK`) or a net file.
    fn load(path: &str) -> Result<Source, String> {
        let mut magic = [0u8; 7];
        let is_checkpoint = std::fs::File::open(path)
            .and_then(|mut f| std::io::Read::read_exact(&mut f, &mut magic))
            .is_ok()
            && &magic == b"SCOUTCK";
        Ok(if is_checkpoint {
            let params = model::load_checkpoint(path)?.params;
            if !nnue::valid_hidden(params.hidden) {
                return Err(format!(
                    "{path}: {} hidden units, a width the engine does not play",
                    params.hidden
                ));
            }
            Source::Float(params)
        } else {
            Source::Net(nnue::file::load(path)?)
        })
    }

    /// The net as the engine plays it.
    fn net(&self) -> Network {
        match self {
            Source::Net(net) => net.clone(),
            Source::Float(p) => model::quantize(p),
        }
    }

    fn scaled(&self, factor: f64) -> (Network, usize) {
        match self {
            Source::Net(net) => scaled(net, factor),
            Source::Float(p) => scaled_float(p, factor),
        }
    }
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
    /// A net file, or a training checkpoint whose float weights are scaled before quantising.
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
    let source = Source::load(&config.net)?;
    let net = source.net();
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
    let (out, clipped) = source.scaled(factor);
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
        // Clipping starts exactly where the largest output weight passes the limit, whatever
        // net is built in.
        let largest = net
            .output_weights
            .iter()
            .map(|w| i32::from(*w).abs())
            .max()
            .unwrap();
        assert!(largest > 0);
        assert_eq!(scaled(&net, 126.0 / f64::from(largest)).1, 0);
        assert!(scaled(&net, 1.05 * 127.5 / f64::from(largest)).1 > 0);
    }

    /// From a checkpoint, the float output layer is multiplied and quantised once: the file
    /// written is the trainer's quantisation of the scaled floats (clipping counted), not the
    /// net's quantised weights scaled again; a factor of 1 gives the net the trainer wrote.
    #[test]
    fn a_checkpoint_is_scaled_before_quantising() {
        let dir = std::env::temp_dir().join(format!("scout-rescale-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = |name: &str| dir.join(name).to_str().unwrap().to_string();
        let mut p = Params::random(nnue::KingBuckets::NONE, 32, 8, 5);
        let w2 = p.w2_at();
        p.values[w2] = 0.98 * OUTPUT_WEIGHT_LIMIT; // ×1.1 takes it past the limit
        let b2 = p.b2_at();
        p.values[b2] = 0.37;
        let adam = model::Adam::new(&p);
        model::save_checkpoint(&path("net.ckpt"), &p, &adam, 1, "").unwrap();
        let rescale = |factor: f64| {
            let config = Config {
                net: path("net.ckpt"),
                out: path("out.nnue"),
                factor: Some(factor),
                like: None,
                data: Vec::new(),
                positions: 0,
            };
            let report = run(&config).unwrap();
            (std::fs::read(path("out.nnue")).unwrap(), report)
        };
        let (same, _) = rescale(1.0);
        assert_eq!(same, nnue::file::write(&model::quantize(&p)));
        let (bytes, report) = rescale(1.1);
        assert!(report.contains("1 output weights clipped"), "{report}");
        let out = nnue::file::read(&bytes).unwrap();
        let mut expected = p.clone();
        for (i, x) in expected.values.iter_mut().enumerate().skip(w2) {
            let y = (f64::from(*x) * 1.1) as f32;
            *x = if i < b2 {
                y.clamp(-OUTPUT_WEIGHT_LIMIT, OUTPUT_WEIGHT_LIMIT)
            } else {
                y
            };
        }
        assert_eq!(bytes, nnue::file::write(&model::quantize(&expected)));
        assert_eq!(out.output_weights[0], 127);
        assert_eq!(
            out.output_bias[0],
            (0.37f64 * 1.1 * f64::from(nnue::QA * nnue::QB)).round() as i32
        );
        // Rounding once differs from rounding twice on some weights.
        let twice = scaled(&model::quantize(&p), 1.1).0;
        assert_ne!(out.output_weights, twice.output_weights);
        std::fs::remove_dir_all(&dir).ok();
    }

    #[test]
    fn like_finds_the_inverse_of_a_known_scale() {
        // The net itself against its own 0.8: the net is not rounded again before its
        // slope is read, and scaled back it meets the reference's rounding almost weight for
        // weight, whatever the built-in net's output weights are (small ones make a scale
        // rounded twice drift by several per cent).
        let net = nnue::default_network();
        let (reference, _) = scaled(&net, 0.8);
        let positions = positions();
        let (s, n) = slope(&net, &reference, &positions);
        assert!(n >= 6, "{n}");
        assert!((s - 1.0 / 0.8).abs() < 0.05, "{s}");
        // Scaled by the inverse of the slope, the net has the reference's scale.
        let (matched, clipped) = scaled(&net, 1.0 / s);
        assert_eq!(clipped, 0);
        let (after, _) = slope(&matched, &reference, &positions);
        assert!((after - 1.0).abs() < 0.05, "{after}");
    }
}
