//! `scout train`: trains the engine's network on the CPU from `datagen` files.
//!
//! Mini-batch Adam over the training positions, split across threads (each thread sums the
//! gradient of its share of the batch; the shares are added in a fixed order, so a run is
//! reproducible for a given `--seed` and `--threads`, also across `--resume`). The learning rate
//! follows a cosine from `--lr` towards `--lr-end` (a fraction of it, 5% unless told) over the
//! epochs; `--weight-decay` adds decoupled weight decay (AdamW), none unless told. After every
//! epoch the loss on the held-out games is printed, the quantized net is written to `--out` and
//! a checkpoint (float weights and Adam's moments) to `--out`.ckpt, from which `--resume`
//! continues; `--stop-after` ends a run early on purpose, so that a long schedule can be trained
//! in slices.

pub mod data;
pub mod model;

use std::time::Instant;

use rand::SeedableRng;
use rand::rngs::StdRng;
use rand::seq::SliceRandom;

use data::Samples;
use model::{Adam, Params};

/// What `scout train` does.
#[derive(Clone, Debug)]
pub struct Config {
    pub inputs: Vec<String>,
    pub out: String,
    pub epochs: u32,
    pub batch: usize,
    pub lr: f32,
    /// The learning rate at the end of the schedule, as a fraction of `lr`.
    pub lr_end: f32,
    /// Decoupled weight decay: every step also shrinks each weight by `lr · weight_decay` of
    /// itself (0: plain Adam).
    pub weight_decay: f32,
    /// Weight of the game result in the target (the rest is the search score).
    pub lambda: f32,
    /// One game in this many goes to the validation set (0: none).
    pub validation_every: u64,
    pub threads: usize,
    pub seed: u64,
    pub hidden: usize,
    /// Output buckets (1, or 8 by piece count: `nnue::bucket`).
    pub buckets: usize,
    /// Also train on every position without castling rights mirrored left to right.
    pub mirror: bool,
    pub resume: bool,
    /// Start from this net file's weights instead of random ones (a fresh schedule and Adam
    /// state: fine-tuning an earlier generation on new data). `--resume` takes precedence.
    pub init: Option<String>,
    /// Stop this run after this many epochs of the schedule (`--resume` continues it later):
    /// a long run can be trained in slices.
    pub stop_after: Option<u32>,
    pub progress: bool,
}

impl Default for Config {
    fn default() -> Self {
        Config {
            inputs: Vec::new(),
            out: "scout.nnue".to_string(),
            epochs: 20,
            batch: 4096,
            lr: 0.001,
            lr_end: 0.05,
            weight_decay: 0.0,
            // The score alone: with a few million positions from tens of thousands of games,
            // the results are learnt game by game (validation loss rising from the second
            // epoch) and the nets play worse; docs/results.md, session 7.
            lambda: 0.0,
            validation_every: 20,
            threads: std::thread::available_parallelism().map_or(1, |n| n.get()),
            seed: 1,
            hidden: crate::nnue::DEFAULT_HIDDEN,
            // Eight buckets did not pay on generation 1's 2.4M positions: -12.7 +/- 33.5 Elo
            // against the same data without (docs/results.md, session 8).
            buckets: 1,
            mirror: true,
            resume: false,
            init: None,
            stop_after: None,
            progress: true,
        }
    }
}

/// What a training run ended with.
#[derive(Clone, Debug)]
pub struct Summary {
    pub params: Params,
    pub train_losses: Vec<f64>,
    pub validation_losses: Vec<f64>,
}

/// The learning rate of `epoch` (0-based) of `epochs`: a cosine from `lr` towards
/// `lr · end`.
pub fn learning_rate(lr: f32, end: f32, epoch: u32, epochs: u32) -> f32 {
    let t = epoch as f32 / epochs.max(1) as f32;
    lr * (end + (1.0 - end) * 0.5 * (1.0 + (std::f32::consts::PI * t).cos()))
}

/// The mean loss over `samples`, on `threads` threads.
fn parallel_loss(p: &Params, samples: &Samples, lambda: f32, threads: usize) -> f64 {
    if samples.is_empty() {
        return f64::NAN;
    }
    let idx: Vec<u32> = (0..samples.len() as u32).collect();
    let chunk = idx.len().div_ceil(threads.max(1));
    let total: f64 = std::thread::scope(|s| {
        let handles: Vec<_> = idx
            .chunks(chunk)
            .map(|part| {
                s.spawn(move || {
                    let mut acc = vec![0.0; 2 * p.hidden];
                    part.iter()
                        .map(|&i| {
                            let loss =
                                model::position_loss(p, samples, i as usize, lambda, &mut acc);
                            f64::from(loss)
                        })
                        .sum::<f64>()
                })
            })
            .collect();
        handles
            .into_iter()
            .map(|h| h.join().expect("loss thread"))
            .sum()
    });
    total / samples.len() as f64
}

/// Trains on already loaded samples. Writes the net and checkpoint after each epoch when
/// `write` is set.
pub fn train(
    config: &Config,
    train: &Samples,
    valid: &Samples,
    write: bool,
) -> Result<Summary, String> {
    if train.is_empty() {
        return Err("no training positions".to_string());
    }
    let checkpoint = format!("{}.ckpt", config.out);
    let (mut params, mut adam, first_epoch) = if config.resume {
        let (p, a, e) = model::load_checkpoint(&checkpoint)?;
        if (p.hidden, p.buckets) != (config.hidden, config.buckets) {
            return Err(format!(
                "{checkpoint}: hidden width {} and {} buckets, not {} and {}",
                p.hidden, p.buckets, config.hidden, config.buckets
            ));
        }
        if config.progress {
            eprintln!("resuming from {checkpoint} after epoch {e}");
        }
        (p, a, e)
    } else if let Some(path) = &config.init {
        let net = crate::nnue::file::load(path)?;
        if (net.hidden, net.buckets()) != (config.hidden, config.buckets) {
            return Err(format!(
                "{path}: hidden width {} and {} buckets, not {} and {}",
                net.hidden,
                net.buckets(),
                config.hidden,
                config.buckets
            ));
        }
        if config.progress {
            eprintln!("starting from the weights of {path}");
        }
        (
            model::dequantize(&net),
            Adam::new(config.hidden, config.buckets),
            0,
        )
    } else {
        (
            Params::random(config.hidden, config.buckets, config.seed),
            Adam::new(config.hidden, config.buckets),
            0,
        )
    };
    let threads = config.threads.max(1);
    let mut grads: Vec<Params> = (0..threads)
        .map(|_| Params::zeros(config.hidden, config.buckets))
        .collect();
    let mut order: Vec<u32> = (0..train.len() as u32).collect();
    let mut summary = Summary {
        params: params.clone(),
        train_losses: Vec::new(),
        validation_losses: Vec::new(),
    };
    let start = Instant::now();
    let last_epoch = config
        .stop_after
        .map_or(config.epochs, |n| n.min(config.epochs));
    for epoch in first_epoch..last_epoch {
        let epoch_start = Instant::now();
        let lr = learning_rate(config.lr, config.lr_end, epoch, config.epochs);
        // Each epoch's order depends on the seed and the epoch alone, so a resumed run
        // continues exactly as the uninterrupted one.
        let mut rng = StdRng::seed_from_u64(config.seed ^ (u64::from(epoch) << 32));
        order
            .iter_mut()
            .enumerate()
            .for_each(|(i, o)| *o = i as u32);
        order.shuffle(&mut rng);
        let mut loss_sum = 0.0f64;
        for batch in order.chunks(config.batch.max(1)) {
            let chunk = batch.len().div_ceil(threads);
            let p = &params;
            let losses: Vec<f64> = std::thread::scope(|s| {
                let handles: Vec<_> = batch
                    .chunks(chunk)
                    .zip(grads.iter_mut())
                    .map(|(part, g)| {
                        s.spawn(move || {
                            g.values.fill(0.0);
                            model::batch_gradient(p, train, part, config.lambda, g)
                        })
                    })
                    .collect();
                handles
                    .into_iter()
                    .map(|h| h.join().expect("gradient thread"))
                    .collect()
            });
            loss_sum += losses.iter().sum::<f64>();
            let used = batch.len().div_ceil(chunk);
            let (first, rest) = grads.split_at_mut(1);
            for g in &rest[..used - 1] {
                for (a, b) in first[0].values.iter_mut().zip(&g.values) {
                    *a += b;
                }
            }
            let inv = 1.0 / batch.len() as f32;
            for a in first[0].values.iter_mut() {
                *a *= inv;
            }
            adam.update(&mut params, &first[0], lr, config.weight_decay);
        }
        let train_loss = loss_sum / train.len() as f64;
        let valid_loss = parallel_loss(&params, valid, config.lambda, threads);
        let secs = epoch_start.elapsed().as_secs_f64();
        summary.train_losses.push(train_loss);
        summary.validation_losses.push(valid_loss);
        if config.progress {
            eprintln!(
                "epoch {:>3}/{}  lr {lr:.6}  train loss {train_loss:.6}  validation loss \
                 {valid_loss:.6}  {:.0} positions/s  {:.0}s",
                epoch + 1,
                config.epochs,
                train.len() as f64 / secs,
                start.elapsed().as_secs_f64()
            );
        }
        if write {
            let net = model::quantize(&params);
            let tmp = format!("{}.tmp", config.out);
            std::fs::write(&tmp, crate::nnue::file::write(&net))
                .and_then(|()| std::fs::rename(&tmp, &config.out))
                .map_err(|e| format!("{}: {e}", config.out))?;
            model::save_checkpoint(&checkpoint, &params, &adam, epoch + 1)
                .map_err(|e| format!("{checkpoint}: {e}"))?;
        }
    }
    summary.params = params;
    Ok(summary)
}

/// `scout train`: loads the data, trains, writes the net.
pub fn run(config: &Config) -> Result<(), String> {
    if config.inputs.is_empty() {
        return Err("no data files given".to_string());
    }
    if !crate::nnue::valid_hidden(config.hidden) {
        return Err(format!(
            "--hidden {}: the engine plays widths that are multiples of {} up to {}",
            config.hidden,
            crate::nnue::HIDDEN_STEP,
            crate::nnue::MAX_HIDDEN
        ));
    }
    if !crate::nnue::BUCKET_COUNTS.contains(&config.buckets) {
        return Err(format!(
            "{} output buckets; the engine reads nets with {:?}",
            config.buckets,
            crate::nnue::BUCKET_COUNTS
        ));
    }
    if !(0.0..=1.0).contains(&config.lr_end) {
        return Err(format!(
            "--lr-end {} is not a fraction of --lr between 0 and 1",
            config.lr_end
        ));
    }
    if !(config.weight_decay >= 0.0 && config.lr * config.weight_decay < 1.0) {
        return Err(format!(
            "--weight-decay {} must be at least 0 and below 1 / lr",
            config.weight_decay
        ));
    }
    let loading = Instant::now();
    let (train_set, valid_set) =
        data::load(&config.inputs, config.validation_every, config.mirror)?;
    if config.progress {
        eprintln!(
            "{} training and {} validation positions loaded in {:.1}s; {} output buckets, \
             lambda {}, batch {}, lr {} (cosine to {}% of it), weight decay {}, {} epochs, \
             {} threads, seed {}",
            train_set.len(),
            valid_set.len(),
            loading.elapsed().as_secs_f64(),
            config.buckets,
            config.lambda,
            config.batch,
            config.lr,
            config.lr_end * 100.0,
            config.weight_decay,
            config.epochs,
            config.threads,
            config.seed
        );
    }
    let summary = train(config, &train_set, &valid_set, true)?;
    if config.progress {
        eprintln!(
            "wrote {} (final train loss {:.6}, validation loss {:.6})",
            config.out,
            summary.train_losses.last().copied().unwrap_or(f64::NAN),
            summary
                .validation_losses
                .last()
                .copied()
                .unwrap_or(f64::NAN)
        );
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tools::packed::{Outcome, Packed};
    use rand::RngExt;
    use shakmaty::{Chess, Color, Position, Role};

    /// Positions from random games, scored by material (White's view) and labelled with a
    /// result that agrees with the material most of the time: a signal a net can learn.
    fn material_samples(count: usize, seed: u64) -> Samples {
        let mut rng = StdRng::seed_from_u64(seed);
        let mut samples = Samples::default();
        let value = |r: Role| [0, 100, 300, 310, 500, 900, 0][r as usize];
        while samples.len() < count {
            let mut pos = Chess::default();
            for _ in 0..rng.random_range(10..120) {
                let moves = pos.legal_moves();
                if moves.is_empty() {
                    break;
                }
                // Captures are preferred so that material becomes unequal.
                let captures: Vec<_> = moves.iter().filter(|m| m.is_capture()).collect();
                let m = if !captures.is_empty() && rng.random_range(0..3) > 0 {
                    *captures[rng.random_range(0..captures.len())]
                } else {
                    moves[rng.random_range(0..moves.len())]
                };
                pos.play_unchecked(m);
            }
            let material: i32 = pos
                .board()
                .iter()
                .map(|(_, p)| p.color.fold_wb(1, -1) * value(p.role))
                .sum();
            let outcome = match material {
                m if m > 150 => Outcome::Win,
                m if m < -150 => Outcome::Loss,
                _ => Outcome::Draw,
            };
            samples.push(&Packed::new(&pos, material, outcome, 0));
        }
        samples
    }

    /// The analytic gradient of one position's loss equals central finite differences, for
    /// weights of every part of the network, with one output bucket and with eight (where the
    /// other buckets' outputs get no gradient).
    #[test]
    fn gradient_equals_finite_differences() {
        let samples = material_samples(8, 1);
        let hidden = 6;
        let lambda = 0.3;
        for buckets in crate::nnue::BUCKET_COUNTS {
            let mut p = Params::random(hidden, buckets, 3);
            // Larger weights than the initialisation, so that accumulators land inside (0, 1).
            for w in p.values.iter_mut() {
                *w *= 3.0;
            }
            let (b1, w2) = (p.b1_at(), p.w2_at());
            for w in &mut p.values[b1..w2] {
                *w = 0.4;
            }
            let loss = |p: &Params, i: usize| {
                let mut acc = vec![0.0; 2 * hidden];
                f64::from(model::position_loss(p, &samples, i, lambda, &mut acc))
            };
            let mut compared = 0;
            for i in 0..samples.len() {
                let mut grad = Params::zeros(hidden, buckets);
                let mut acc = vec![0.0; 2 * hidden];
                model::backward(&p, &samples, i, lambda, &mut acc, &mut grad);
                let feature = samples.white_features(i)[0] as usize;
                let mut probes: Vec<usize> = (0..hidden).map(|k| feature * hidden + k).collect();
                probes.extend((0..hidden).map(|k| p.b1_at() + k));
                probes.extend(p.w2_at()..p.values.len());
                for at in probes {
                    let h = 1e-3f32;
                    let mut plus = p.clone();
                    plus.values[at] += h;
                    let mut minus = p.clone();
                    minus.values[at] -= h;
                    let numeric = (loss(&plus, i) - loss(&minus, i)) / (2.0 * f64::from(h));
                    let analytic = f64::from(grad.values[at]);
                    // f32 losses: about 5e-5 of rounding noise in a central difference of step 1e-3.
                    let tolerance = 2e-3 * numeric.abs().max(analytic.abs()) + 5e-5;
                    assert!(
                        (numeric - analytic).abs() <= tolerance,
                        "{buckets} buckets, position {i}, parameter {at}: analytic {analytic}, \
                         numeric {numeric}"
                    );
                    compared += usize::from(analytic.abs() > 1e-4);
                }
            }
            assert!(compared > 50, "only {compared} non-zero gradients compared");
        }
    }

    /// A few thousand positions train to a falling loss in seconds.
    #[test]
    fn training_lowers_the_loss() {
        let train_set = material_samples(3000, 2);
        let valid_set = material_samples(500, 3);
        let config = Config {
            epochs: 8,
            batch: 256,
            lr: 0.005,
            hidden: 32,
            threads: 2,
            progress: false,
            ..Config::default()
        };
        let before = parallel_loss(
            &Params::random(32, config.buckets, config.seed),
            &valid_set,
            0.3,
            2,
        );
        let summary = train(&config, &train_set, &valid_set, false).unwrap();
        let after = *summary.validation_losses.last().unwrap();
        assert!(
            after < 0.5 * before,
            "validation loss {before} -> {after}: {:?}",
            summary.validation_losses
        );
        assert!(summary.train_losses.last() < summary.train_losses.first());
        // The same seed gives the same run.
        let again = train(&config, &train_set, &valid_set, false).unwrap();
        assert_eq!(again.params, summary.params);
    }

    /// The schedule starts at `lr` and falls steadily towards `lr · end`.
    #[test]
    fn the_learning_rate_falls_from_lr_towards_its_end() {
        for end in [0.05, 0.003] {
            let rates: Vec<f32> = (0..=40).map(|e| learning_rate(0.002, end, e, 40)).collect();
            assert_eq!(rates[0], 0.002);
            assert!(
                (rates[40] - 0.002 * end).abs() < 1e-9,
                "{end}: {}",
                rates[40]
            );
            assert!(rates.windows(2).all(|w| w[1] < w[0]), "{rates:?}");
        }
    }

    /// Weight decay alone (a zero gradient) shrinks every weight by `lr · decay` of itself;
    /// in training it keeps the weights smaller than the same run without it. Values the
    /// schedule cannot use are refused before any data is read.
    #[test]
    fn weight_decay_shrinks_the_weights() {
        let p = Params::random(8, 1, 4);
        let mut decayed = p.clone();
        let mut adam = Adam::new(8, 1);
        adam.update(&mut decayed, &Params::zeros(8, 1), 0.01, 2.0);
        for (before, after) in p.values.iter().zip(&decayed.values) {
            assert!((after - 0.98 * before).abs() <= 1e-7, "{before} -> {after}");
        }
        let train_set = material_samples(1500, 8);
        let valid_set = material_samples(200, 9);
        let config = Config {
            epochs: 4,
            batch: 128,
            lr: 0.004,
            hidden: 16,
            threads: 2,
            progress: false,
            ..Config::default()
        };
        let norm = |p: &Params| p.values.iter().map(|w| f64::from(w * w)).sum::<f64>();
        let plain = train(&config, &train_set, &valid_set, false).unwrap();
        let with_decay = Config {
            weight_decay: 5.0,
            ..config.clone()
        };
        let small = train(&with_decay, &train_set, &valid_set, false).unwrap();
        assert!(
            norm(&small.params) < 0.9 * norm(&plain.params),
            "{} against {}",
            norm(&small.params),
            norm(&plain.params)
        );
        for bad in [
            Config {
                lr_end: 1.5,
                ..config.clone()
            },
            Config {
                weight_decay: -0.1,
                ..config.clone()
            },
            Config {
                weight_decay: 1e4,
                ..config.clone()
            },
        ] {
            let bad = Config {
                inputs: vec!["/nonexistent/data.bin".to_string()],
                hidden: crate::nnue::DEFAULT_HIDDEN,
                ..bad
            };
            let err = run(&bad).unwrap_err();
            assert!(
                err.contains("--lr-end") || err.contains("--weight-decay"),
                "{err}"
            );
        }
    }

    /// `--init` starts from a net file's weights: dequantizing and quantizing again gives the
    /// same net; a run started from a trained net goes on from where that net was (its first
    /// epoch ends about at the trained net's loss, far below a first epoch from random
    /// weights); a net of another shape and a missing file are refused.
    #[test]
    fn a_run_can_start_from_a_net_file() {
        let dir = std::env::temp_dir().join(format!("scout-init-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = |name: &str| dir.join(name).to_str().unwrap().to_string();
        let train_set = material_samples(1500, 10);
        let valid_set = material_samples(200, 11);
        let base = Config {
            out: path("base.nnue"),
            epochs: 6,
            batch: 128,
            lr: 0.004,
            threads: 2,
            progress: false,
            ..Config::default()
        };
        let trained = train(&base, &train_set, &valid_set, true).unwrap();
        let net = crate::nnue::file::load(&base.out).unwrap();
        let again = model::quantize(&model::dequantize(&net));
        assert_eq!(
            crate::nnue::file::write(&again),
            crate::nnue::file::write(&net)
        );
        let one_epoch = Config {
            epochs: 1,
            out: path("next.nnue"),
            ..base.clone()
        };
        let from_random = train(&one_epoch, &train_set, &valid_set, false).unwrap();
        let from_net = train(
            &Config {
                init: Some(base.out.clone()),
                ..one_epoch.clone()
            },
            &train_set,
            &valid_set,
            false,
        )
        .unwrap();
        let (random, init, done) = (
            from_random.validation_losses[0],
            from_net.validation_losses[0],
            *trained.validation_losses.last().unwrap(),
        );
        assert!(
            init < 1.2 * done && init < 0.8 * random,
            "first epoch from the net {init}, from random weights {random}, the net {done}"
        );
        for init in [path("missing.nnue"), base.out.clone()] {
            let other = Config {
                init: Some(init),
                buckets: 8,
                ..one_epoch.clone()
            };
            assert!(train(&other, &train_set, &valid_set, false).is_err());
        }
        std::fs::remove_dir_all(&dir).unwrap();
    }

    /// A run stopped after two of four epochs and resumed from its checkpoint ends with the
    /// same weights, losses and net file as the uninterrupted run: the cosine schedule, the
    /// shuffles and Adam's state all continue where they stopped.
    #[test]
    fn a_run_resumed_mid_schedule_equals_the_uninterrupted_run() {
        let dir = std::env::temp_dir().join(format!("scout-resume-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let train_set = material_samples(1500, 6);
        let valid_set = material_samples(200, 7);
        let config = |name: &str| Config {
            out: dir.join(name).to_str().unwrap().to_string(),
            epochs: 4,
            batch: 128,
            lr: 0.004,
            threads: 2,
            progress: false,
            ..Config::default()
        };
        let whole = train(&config("whole.nnue"), &train_set, &valid_set, true).unwrap();
        let first = Config {
            stop_after: Some(2),
            ..config("sliced.nnue")
        };
        let half = train(&first, &train_set, &valid_set, true).unwrap();
        assert_eq!(half.validation_losses.len(), 2);
        assert_ne!(half.params, whole.params);
        let second = Config {
            resume: true,
            ..config("sliced.nnue")
        };
        let rest = train(&second, &train_set, &valid_set, true).unwrap();
        assert_eq!(rest.params, whole.params);
        assert_eq!(
            [half.validation_losses, rest.validation_losses].concat(),
            whole.validation_losses
        );
        let read = |name: &str| std::fs::read(dir.join(name)).unwrap();
        assert_eq!(read("sliced.nnue"), read("whole.nnue"));
        // A checkpoint of another shape is refused.
        let other = Config {
            resume: true,
            buckets: 8,
            ..config("sliced.nnue")
        };
        assert!(train(&other, &train_set, &valid_set, true).is_err());
        std::fs::remove_dir_all(&dir).unwrap();
    }

    /// Checkpoints round-trip (weights, Adam's moments and step, epochs done) with one bucket
    /// and eight; a checkpoint of the format before output buckets reads as one bucket; a
    /// truncated one is refused.
    #[test]
    fn checkpoints_round_trip() {
        let dir = std::env::temp_dir().join(format!("scout-ckpt-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("net.ckpt").to_str().unwrap().to_string();
        for buckets in crate::nnue::BUCKET_COUNTS {
            let p = Params::random(8, buckets, 7);
            let mut adam = Adam::new(8, buckets);
            adam.m = Params::random(8, buckets, 8);
            adam.v = Params::random(8, buckets, 9);
            adam.step = 12_345;
            model::save_checkpoint(&path, &p, &adam, 3).unwrap();
            let (q, back, epochs) = model::load_checkpoint(&path).unwrap();
            assert_eq!((q, epochs), (p.clone(), 3));
            assert_eq!((back.m, back.v, back.step), (adam.m, adam.v, 12_345));
            if buckets == 1 {
                // The old format: magic SCOUTCKP, no bucket count.
                let new = std::fs::read(&path).unwrap();
                let mut old = b"SCOUTCKP".to_vec();
                old.extend_from_slice(&new[8..12]);
                old.extend_from_slice(&new[16..]);
                std::fs::write(&path, &old).unwrap();
                let (q, _, epochs) = model::load_checkpoint(&path).unwrap();
                assert_eq!((q, epochs), (p, 3));
                std::fs::write(&path, &old[..old.len() - 4]).unwrap();
                let refused = model::load_checkpoint(&path).err().unwrap();
                assert!(refused.contains("truncated"), "{refused}");
            }
        }
        std::fs::remove_dir_all(&dir).unwrap();
    }

    /// The engine's quantized evaluation agrees with the trainer's float network: within 1.5 cp
    /// of the float network with the quantized weights (integer arithmetic), and within 8 cp on
    /// average, 40 cp at most, of the unquantized one (on positions within ±1000 cp).
    #[test]
    fn quantized_net_matches_the_float_net() {
        for buckets in crate::nnue::BUCKET_COUNTS {
            quantized_net_matches_the_float_net_with(buckets);
        }
    }

    fn quantized_net_matches_the_float_net_with(buckets: usize) {
        let train_set = material_samples(3000, 4);
        let config = Config {
            epochs: 4,
            batch: 256,
            lr: 0.003,
            threads: 2,
            buckets,
            progress: false,
            ..Config::default()
        };
        let summary = train(&config, &train_set, &Samples::default(), false).unwrap();
        let net = model::quantize(&summary.params);
        // The quantized weights read back as floats: what the engine computes, up to integer
        // rounding.
        let mut dequantized = summary.params.clone();
        let p = &mut dequantized;
        let (b1, w2, b2) = (p.b1_at(), p.w2_at(), p.b2_at());
        let qa = crate::nnue::QA as f32;
        let qb = crate::nnue::QB as f32;
        for (i, w) in p.values.iter_mut().enumerate() {
            *w = match i {
                i if i < b1 => f32::from(net.feature_weights[i]) / qa,
                i if i < w2 => f32::from(net.feature_bias[i - b1]) / qa,
                i if i < b2 => f32::from(net.output_weights[i - w2]) / qb,
                i => net.output_bias[i - b2] as f32 / (qa * qb),
            };
        }
        let check = material_samples(400, 5);
        let mut worst_rounding = 0.0f32;
        let mut total = 0.0f32;
        let mut acc = vec![0.0; 2 * config.hidden];
        let mut compared = 0;
        let mut worst = 0.0f32;
        for i in 0..check.len() {
            let float_cp =
                model::forward(&summary.params, &check, i, &mut acc) * crate::nnue::SCALE as f32;
            if float_cp.abs() > 1000.0 {
                continue;
            }
            // Rebuild the board from the features and evaluate it the engine's way.
            let mut board = shakmaty::Board::empty();
            for &f in check.white_features(i) {
                let f = f as usize;
                let color = if f / 384 == 0 {
                    Color::White
                } else {
                    Color::Black
                };
                let role = Role::try_from((f / 64 % 6 + 1) as u8).unwrap();
                board.set_piece_at(shakmaty::Square::new((f % 64) as u32), role.of(color));
            }
            let turn = if check.black[i] {
                Color::Black
            } else {
                Color::White
            };
            let engine_cp = crate::nnue::evaluate_board(&net, &board, turn);
            let dequantized_cp =
                model::forward(&dequantized, &check, i, &mut acc) * crate::nnue::SCALE as f32;
            worst_rounding = worst_rounding.max((engine_cp as f32 - dequantized_cp).abs());
            worst = worst.max((engine_cp as f32 - float_cp).abs());
            total += (engine_cp as f32 - float_cp).abs();
            compared += 1;
        }
        assert!(compared > 200, "only {compared} positions compared");
        let mean = total / compared as f32;
        assert!(
            worst_rounding <= 1.5,
            "integer rounding: largest difference {worst_rounding} cp"
        );
        assert!(
            mean <= 8.0 && worst <= 40.0,
            "quantisation: mean difference {mean} cp, largest {worst} cp"
        );
        eprintln!("quantisation: mean {mean} cp, largest {worst} cp; rounding {worst_rounding} cp");
    }
}
