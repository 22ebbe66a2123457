//! The trainer's float network (the engine's architecture with any hidden width, king buckets
//! or none, and 1 or 8 output buckets), its loss and gradients, Adam, quantisation into the engine's net format, and
//! checkpoints.
//!
//! Forward pass for one position: `acc_p = b1 + Σ W1[f]` over the active features of each
//! perspective p (the engine's features, `nnue::inputs`); `out = W2[k] · [screlu(acc_stm), screlu(acc_other)] + b2[k]` with
//! `screlu(x) = clamp(x, 0, 1)²` and k the position's output bucket (`nnue::bucket`); the
//! engine's evaluation is `out · SCALE` centipawns.
//! Loss: `|sigmoid(out · SCALE / K) − target|^P`, target = λ·result + (1 − λ)·
//! sigmoid(score / K), λ, K and the power P (2 unless told) the [`Objective`]'s. Only the columns of active features get gradients (sparse
//! first layer); Adam then updates every parameter once per batch.

use super::data::{Positions, Sample};
use crate::nnue::{self, KingBuckets, Network, OUTPUT_WEIGHT_LIMIT, QA, QB, SCALE, bucket};

/// What a position is fitted to: a mix of the game's result (weight `lambda`) and the search's
/// score, both as a win expectation, the score (and the net's output) through a logistic of
/// `eval_scale` centipawns (at 400, a score of +400 is 73%). The loss is the error to the
/// power `power`: 2 is the squared error; above 2 large errors weigh more against small ones.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Objective {
    pub lambda: f32,
    pub eval_scale: f32,
    pub power: f32,
}

impl Objective {
    /// The expectation a score (or an output, in centipawns) stands for.
    #[inline]
    fn expectation(self, centipawns: f32) -> f32 {
        sigmoid(centipawns / self.eval_scale)
    }

    /// The loss of an error (prediction minus target) and its derivative by the error.
    #[inline(always)]
    fn loss_and_slope(self, err: f32) -> (f32, f32) {
        if self.power == 2.0 {
            (err * err, 2.0 * err)
        } else {
            let e = err.abs();
            let below = e.powf(self.power - 1.0);
            (below * e, self.power * below * err.signum())
        }
    }
}

/// All parameters (or gradients, or Adam moments) of a network in one flat vector:
/// W1 (features × hidden, features = 768 × king buckets), b1 (hidden), W2 (buckets × 2 ×
/// hidden, bucket by bucket), b2 (buckets).
#[derive(Clone, Debug, PartialEq)]
pub struct Params {
    pub king_buckets: KingBuckets,
    pub hidden: usize,
    pub buckets: usize,
    pub values: Vec<f32>,
}

/// The number of parameters of a net of this shape.
pub fn param_count(king_buckets: &KingBuckets, hidden: usize, buckets: usize) -> usize {
    king_buckets.features() * hidden + hidden + buckets * (2 * hidden + 1)
}

impl Params {
    /// How many weights stand at the limit `Adam::update` clips them to: a count that grows
    /// epoch after epoch says the quantisation's range, not the data, shapes the net.
    pub fn at_limit(&self) -> usize {
        self.values
            .iter()
            .filter(|w| w.abs() >= OUTPUT_WEIGHT_LIMIT)
            .count()
    }

    pub fn zeros(king_buckets: KingBuckets, hidden: usize, buckets: usize) -> Params {
        Params {
            king_buckets,
            hidden,
            buckets,
            values: vec![0.0; param_count(&king_buckets, hidden, buckets)],
        }
    }

    /// All zero, of this one's shape.
    pub fn zeros_like(&self) -> Params {
        Params::zeros(self.king_buckets, self.hidden, self.buckets)
    }

    /// Small random weights (uniform, scaled by fan-in) from `seed`.
    pub fn random(king_buckets: KingBuckets, hidden: usize, buckets: usize, seed: u64) -> Params {
        use rand::rngs::StdRng;
        use rand::{RngExt, SeedableRng};
        let mut rng = StdRng::seed_from_u64(seed);
        let mut p = Params::zeros(king_buckets, hidden, buckets);
        let b1 = p.b1_at();
        let (w1, rest) = p.values.split_at_mut(b1);
        let r1 = 1.0 / (32.0f32).sqrt();
        for w in w1.iter_mut() {
            *w = rng.random_range(-r1..r1) * 0.5;
        }
        let r2 = 1.0 / ((2 * hidden) as f32).sqrt();
        for w in rest[hidden..hidden + buckets * 2 * hidden].iter_mut() {
            *w = rng.random_range(-r2..r2);
        }
        p
    }

    /// The same network with `hidden` units (at least as many): the new units' first-layer
    /// weights random (from `seed`, as [`Params::random`] draws them), their bias and output
    /// weights zero. It computes exactly what this one does, and training moves the new units
    /// from there (their output weights get gradients at once): a net grown a step.
    pub fn widened(&self, hidden: usize, seed: u64) -> Params {
        use rand::rngs::StdRng;
        use rand::{RngExt, SeedableRng};
        let old = self.hidden;
        assert!(hidden >= old);
        let mut rng = StdRng::seed_from_u64(seed);
        let mut p = Params::zeros(self.king_buckets, hidden, self.buckets);
        let r1 = 1.0 / (32.0f32).sqrt();
        for f in 0..self.king_buckets.features() {
            let column = &mut p.values[f * hidden..(f + 1) * hidden];
            column[..old].copy_from_slice(&self.values[f * old..(f + 1) * old]);
            for w in &mut column[old..] {
                *w = rng.random_range(-r1..r1) * 0.5;
            }
        }
        let (b1, old_b1) = (p.b1_at(), self.b1_at());
        p.values[b1..b1 + old].copy_from_slice(&self.values[old_b1..old_b1 + old]);
        for b in 0..self.buckets {
            let (to, _) = p.output_at(b);
            let (from, _) = self.output_at(b);
            for half in 0..2 {
                p.values[to + half * hidden..to + half * hidden + old]
                    .copy_from_slice(&self.values[from + half * old..from + (half + 1) * old]);
            }
        }
        let (b2, old_b2) = (p.b2_at(), self.b2_at());
        p.values[b2..].copy_from_slice(&self.values[old_b2..]);
        p
    }

    /// The same net (one without king buckets) with `king_buckets`: every bucket starts as a
    /// copy of its one set of features, so the new net evaluates a position exactly as this one
    /// when both kings stand on files a–d, as this one evaluates the mirror image when both
    /// stand on e–h, and otherwise (one side's view mirrored, the other's not) only nearly so;
    /// training then lets the buckets part.
    pub fn with_king_buckets(&self, king_buckets: KingBuckets) -> Params {
        assert_eq!(self.king_buckets, KingBuckets::NONE);
        let mut p = Params::zeros(king_buckets, self.hidden, self.buckets);
        let w1 = self.b1_at();
        for b in 0..king_buckets.count {
            p.values[b * w1..(b + 1) * w1].copy_from_slice(&self.values[..w1]);
        }
        let rest = p.b1_at();
        p.values[rest..].copy_from_slice(&self.values[w1..]);
        p
    }

    pub fn b1_at(&self) -> usize {
        self.king_buckets.features() * self.hidden
    }

    pub fn w2_at(&self) -> usize {
        self.b1_at() + self.hidden
    }

    pub fn b2_at(&self) -> usize {
        self.w2_at() + self.buckets * 2 * self.hidden
    }

    /// Where bucket `b`'s output weights start, and where its bias is.
    #[inline]
    fn output_at(&self, b: usize) -> (usize, usize) {
        (self.w2_at() + b * 2 * self.hidden, self.b2_at() + b)
    }
}

/// The training target of a position.
#[inline]
pub fn target(s: &Sample, obj: Objective) -> f32 {
    obj.lambda * s.result + (1.0 - obj.lambda) * obj.expectation(s.score)
}

#[inline]
pub fn sigmoid(x: f32) -> f32 {
    1.0 / (1.0 + (-x).exp())
}

/// The network's output (`out`, in units of SCALE centipawns) for a position; fills `acc`
/// (2 × hidden: side to move's perspective first) on the way.
#[inline(always)]
pub fn forward(p: &Params, s: &Sample, acc: &mut [f32]) -> f32 {
    let h = p.hidden;
    let v = &p.values;
    let (us, them) = acc.split_at_mut(h);
    us.copy_from_slice(&v[p.b1_at()..p.b1_at() + h]);
    them.copy_from_slice(&v[p.b1_at()..p.b1_at() + h]);
    for (fu, ft) in s.perspective_features(&p.king_buckets) {
        let cu = &v[fu * h..fu * h + h];
        let ct = &v[ft * h..ft * h + h];
        for k in 0..h {
            us[k] += cu[k];
            them[k] += ct[k];
        }
    }
    let (w2_at, b2_at) = p.output_at(bucket(p.buckets, s.pieces()));
    let w2 = &v[w2_at..w2_at + 2 * h];
    let mut out = v[b2_at];
    for k in 0..2 * h {
        let c = acc[k].clamp(0.0, 1.0);
        out += c * c * w2[k];
    }
    out
}

/// Adds the gradient of a position's loss to `grad`; returns the loss.
#[inline(always)]
pub fn backward(p: &Params, s: &Sample, obj: Objective, acc: &mut [f32], grad: &mut Params) -> f32 {
    let h = p.hidden;
    let out = forward(p, s, acc);
    let scale = SCALE as f32 / obj.eval_scale;
    let pred = sigmoid(out * scale);
    let t = target(s, obj);
    let (loss, slope) = obj.loss_and_slope(pred - t);
    let g_out = slope * pred * (1.0 - pred) * scale;
    let b1_at = p.b1_at();
    let (w2_at, b2_at) = p.output_at(bucket(p.buckets, s.pieces()));
    grad.values[b2_at] += g_out;
    // Gradient at the accumulators, reusing `acc` for it.
    let w2 = &p.values[w2_at..w2_at + 2 * h];
    for ((a, g), w) in acc
        .iter_mut()
        .zip(&mut grad.values[w2_at..w2_at + 2 * h])
        .zip(w2)
    {
        let c = a.clamp(0.0, 1.0);
        *g += g_out * c * c;
        *a = if *a > 0.0 && *a < 1.0 {
            g_out * w * 2.0 * *a
        } else {
            0.0
        };
    }
    let (g_us, g_them) = acc.split_at(h);
    for k in 0..h {
        grad.values[b1_at + k] += g_us[k] + g_them[k];
    }
    for (fu, ft) in s.perspective_features(&p.king_buckets) {
        let cu = &mut grad.values[fu * h..fu * h + h];
        for k in 0..h {
            cu[k] += g_us[k];
        }
        let ct = &mut grad.values[ft * h..ft * h + h];
        for k in 0..h {
            ct[k] += g_them[k];
        }
    }
    loss
}

/// Gradient (summed, not averaged) and summed loss over the positions of `entries`
/// (`Positions::entry`).
#[inline(always)]
fn batch_generic(
    p: &Params,
    positions: &Positions,
    entries: &[u32],
    obj: Objective,
    grad: &mut Params,
) -> f64 {
    let mut acc = vec![0.0; 2 * p.hidden];
    let mut loss = 0.0f64;
    for &e in entries {
        let s = positions.entry(e);
        loss += f64::from(backward(p, &s, obj, &mut acc, grad));
    }
    loss
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2,fma")]
fn batch_avx2(
    p: &Params,
    positions: &Positions,
    entries: &[u32],
    obj: Objective,
    grad: &mut Params,
) -> f64 {
    batch_generic(p, positions, entries, obj, grad)
}

/// Gradient and loss over `entries`, compiled for AVX2 when the CPU has it.
pub fn batch_gradient(
    p: &Params,
    positions: &Positions,
    entries: &[u32],
    obj: Objective,
    grad: &mut Params,
) -> f64 {
    #[cfg(target_arch = "x86_64")]
    if std::arch::is_x86_feature_detected!("avx2") && std::arch::is_x86_feature_detected!("fma") {
        // SAFETY: the CPU has the features the function was compiled for.
        return unsafe { batch_avx2(p, positions, entries, obj, grad) };
    }
    batch_generic(p, positions, entries, obj, grad)
}

/// The loss of a position (no gradient); fills `acc` as [`forward`] does.
pub fn position_loss(p: &Params, s: &Sample, obj: Objective, acc: &mut [f32]) -> f32 {
    let out = forward(p, s, acc);
    obj.loss_and_slope(obj.expectation(out * SCALE as f32) - target(s, obj))
        .0
}

/// Adam with bias correction.
pub struct Adam {
    pub m: Params,
    pub v: Params,
    pub step: u64,
}

impl Adam {
    /// Adam's state for parameters of the shape of `p`.
    pub fn new(p: &Params) -> Adam {
        Adam {
            m: p.zeros_like(),
            v: p.zeros_like(),
            step: 0,
        }
    }

    /// One step along `grad` (already averaged over the batch), with decoupled weight decay
    /// (each weight also shrinks by `lr · decay` of itself; AdamW), then the weights are
    /// clipped to what the quantisation can hold.
    pub fn update(&mut self, p: &mut Params, grad: &Params, lr: f32, decay: f32) {
        const B1: f32 = 0.9;
        const B2: f32 = 0.999;
        const EPS: f32 = 1e-8;
        self.step += 1;
        let c1 = 1.0 - B1.powi(self.step.min(1 << 20) as i32);
        let c2 = 1.0 - B2.powi(self.step.min(1 << 20) as i32);
        let step = lr * c2.sqrt() / c1;
        let keep = 1.0 - lr * decay;
        for (((w, g), m), v) in p
            .values
            .iter_mut()
            .zip(&grad.values)
            .zip(self.m.values.iter_mut())
            .zip(self.v.values.iter_mut())
        {
            *m = B1 * *m + (1.0 - B1) * g;
            *v = B2 * *v + (1.0 - B2) * g * g;
            *w = keep * *w - step * *m / (v.sqrt() + EPS);
        }
        // The first layer too: 32 columns and the bias within ±1.98 keep every accumulator
        // inside an i16 (33 × 1.98 × 255 < 32767).
        for w in p.values.iter_mut() {
            *w = w.clamp(-OUTPUT_WEIGHT_LIMIT, OUTPUT_WEIGHT_LIMIT);
        }
    }
}

/// The engine's quantized network from float parameters (the hidden width must be one the
/// engine plays: `nnue::valid_hidden`).
pub fn quantize(p: &Params) -> Network {
    assert!(nnue::valid_hidden(p.hidden), "hidden width {}", p.hidden);
    let q = |x: f32, s: i32| (x * s as f32).round().clamp(-32767.0, 32767.0) as i16;
    let v = &p.values;
    Network {
        hidden: p.hidden,
        king_buckets: p.king_buckets,
        feature_weights: v[..p.b1_at()].iter().map(|&x| q(x, QA)).collect(),
        feature_bias: v[p.b1_at()..p.w2_at()].iter().map(|&x| q(x, QA)).collect(),
        output_weights: v[p.w2_at()..p.b2_at()].iter().map(|&x| q(x, QB)).collect(),
        output_bias: v[p.b2_at()..]
            .iter()
            .map(|&x| (x * (QA * QB) as f32).round() as i32)
            .collect(),
    }
}

/// The float parameters a quantized network stands for (the inverse of [`quantize`], so
/// `quantize(&dequantize(net))` is `net` again): where `--init` starts a run.
pub fn dequantize(net: &Network) -> Params {
    let mut p = Params::zeros(net.king_buckets, net.hidden, net.buckets());
    let (qa, qb) = (QA as f32, QB as f32);
    let values = net
        .feature_weights
        .iter()
        .chain(&net.feature_bias)
        .map(|&x| f32::from(x) / qa)
        .chain(net.output_weights.iter().map(|&x| f32::from(x) / qb))
        .chain(net.output_bias.iter().map(|&x| x as f32 / (qa * qb)));
    for (to, from) in p.values.iter_mut().zip(values) {
        *to = from;
    }
    p
}

/// Checkpoint magic: `SCOUTCK4` (hidden, buckets, epochs, step, the king-bucket layout's 72
/// bytes as net files store it, then the run's record: its length and its text); `SCOUTCK3`
/// (the same without the record), `SCOUTCK2` (without the layout either) and `SCOUTCKP`
/// (without the bucket count either), written by earlier trainers, are read without a record,
/// as nets without king buckets (before `SCOUTCK3`) and, for `SCOUTCKP`, with one output
/// bucket.
const CHECKPOINT_MAGIC: &[u8; 8] = b"SCOUTCK4";

/// What a checkpoint holds.
pub struct Checkpoint {
    pub params: Params,
    pub adam: Adam,
    pub epochs_done: u32,
    /// The run that wrote it (`Config::run_record`: its schedule and data files); `None` in
    /// the checkpoints of earlier trainers.
    pub run: Option<String>,
}

/// A checkpoint: parameters, Adam's state, the epochs done and the run's record.
pub fn save_checkpoint(
    path: &str,
    p: &Params,
    adam: &Adam,
    epochs_done: u32,
    run: &str,
) -> std::io::Result<()> {
    let mut out = Vec::with_capacity(12 * p.values.len() + 108 + run.len());
    out.extend_from_slice(CHECKPOINT_MAGIC);
    out.extend_from_slice(&(p.hidden as u32).to_le_bytes());
    out.extend_from_slice(&(p.buckets as u32).to_le_bytes());
    out.extend_from_slice(&epochs_done.to_le_bytes());
    out.extend_from_slice(&adam.step.to_le_bytes());
    out.extend_from_slice(&p.king_buckets.to_bytes());
    out.extend_from_slice(&(run.len() as u32).to_le_bytes());
    out.extend_from_slice(run.as_bytes());
    for x in p.values.iter().chain(&adam.m.values).chain(&adam.v.values) {
        out.extend_from_slice(&x.to_le_bytes());
    }
    crate::training::write_atomically(path, &out)
}

/// Reads a checkpoint written by [`save_checkpoint`] (or by an earlier trainer).
pub fn load_checkpoint(path: &str) -> Result<Checkpoint, String> {
    let bytes = std::fs::read(path).map_err(|e| format!("{path}: {e}"))?;
    let truncated = || format!("{path}: truncated checkpoint");
    let u32_at = |at: usize| u32::from_le_bytes(bytes[at..at + 4].try_into().expect("4"));
    let magic = bytes.get(..8).unwrap_or_default();
    let (hidden, buckets, epochs, header) = match magic {
        m if [&CHECKPOINT_MAGIC[..], b"SCOUTCK3", b"SCOUTCK2"].contains(&m)
            && bytes.len() >= 28 =>
        {
            (u32_at(8) as usize, u32_at(12) as usize, u32_at(16), 20)
        }
        b"SCOUTCKP" if bytes.len() >= 24 => (u32_at(8) as usize, 1, u32_at(12), 16),
        _ => return Err(format!("{path}: not a Scout training checkpoint")),
    };
    let step = u64::from_le_bytes(bytes[header..header + 8].try_into().expect("8"));
    let mut header = header + 8;
    let king_buckets = if magic == CHECKPOINT_MAGIC || magic == b"SCOUTCK3" {
        let layout = bytes.get(header..header + 72).ok_or_else(truncated)?;
        header += 72;
        KingBuckets::from_bytes(layout).map_err(|e| format!("{path}: {e}"))?
    } else {
        KingBuckets::NONE
    };
    let run = if magic == CHECKPOINT_MAGIC {
        let len = bytes.get(header..header + 4).ok_or_else(truncated)?;
        let len = u32::from_le_bytes(len.try_into().expect("4")) as usize;
        let text = bytes
            .get(header + 4..(header + 4).saturating_add(len))
            .ok_or_else(truncated)?;
        header += 4 + len;
        Some(
            String::from_utf8(text.to_vec())
                .map_err(|_| format!("{path}: the run's record is not text"))?,
        )
    } else {
        None
    };
    if !nnue::BUCKET_COUNTS.contains(&buckets) || hidden == 0 || hidden > 1 << 16 {
        return Err(format!("{path}: hidden {hidden}, buckets {buckets}"));
    }
    let n = param_count(&king_buckets, hidden, buckets);
    if bytes.len() != header + 12 * n {
        return Err(truncated());
    }
    let floats: Vec<f32> = bytes[header..]
        .chunks_exact(4)
        .map(|c| f32::from_le_bytes(c.try_into().expect("4")))
        .collect();
    let part = |k: usize| Params {
        king_buckets,
        hidden,
        buckets,
        values: floats[k * n..(k + 1) * n].to_vec(),
    };
    let adam = Adam {
        m: part(1),
        v: part(2),
        step,
    };
    Ok(Checkpoint {
        params: part(0),
        adam,
        epochs_done: epochs,
        run,
    })
}
