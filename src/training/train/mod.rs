//! `scout train`: trains the engine's network on the CPU from `datagen` files.
//!
//! Mini-batch Adam over the training positions, split across threads (each thread sums the
//! gradient of its share of the batch; the shares are added in a fixed order, so a run is
//! reproducible for a given `--seed` and `--threads`, also across `--resume`). The learning rate
//! follows a cosine from `--lr` towards `--lr-end` (a fraction of it, 5% unless told) over the
//! epochs; `--weight-decay` adds decoupled weight decay (AdamW), none unless told.
//! `--hidden` sets the width (any the engine plays: a multiple of 32 up to 1024); `--init NET`
//! starts from a net's weights, grown to `--hidden` if it is narrower
//! (`model::Params::widened`); `--continue CKPT` from another run's checkpoint, its float
//! weights and Adam's moments, on new data with a schedule of its own: one run's learning
//! carried on over data that never sits in one place (a chunk a session, trained and
//! committed before the machine goes). After every epoch the
//! loss on the held-out games is printed with the speed and the memory used, the quantized net
//! is written to `--out` and a checkpoint (float weights and Adam's moments) to `--out`.ckpt,
//! from which `--resume` continues; `--stop-after` ends a run early on purpose, so that a long
//! schedule can be trained in slices.
//!
//! Memory: positions stay 32-byte records until a batch decodes them (`data.rs`); the files are
//! read and split by game in `load.rs`, and data beyond `--memory` is streamed from them in
//! windows (`stream.rs`).

pub mod data;
pub mod load;
pub mod model;
pub mod stream;

use std::time::Instant;

use rand::SeedableRng;
use rand::rngs::StdRng;
use rand::seq::SliceRandom;

use data::Positions;
use load::TrainingSet;
use model::{Adam, Objective, Params};

/// Bytes of memory a training position takes: its record and two shuffle entries (itself and
/// its mirrored copy).
pub const BYTES_PER_POSITION: usize = crate::training::packed::RECORD + 8;

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
    /// Centipawns to one unit of the logistic that turns scores and outputs into expectations.
    pub eval_scale: f32,
    /// The loss is the error to this power (2: the squared error).
    pub loss_power: f32,
    /// One game in this many goes to the validation set (0: none).
    pub validation_every: u64,
    pub threads: usize,
    pub seed: u64,
    pub hidden: usize,
    /// Feature sets by the square of each side's king (`nnue::inputs`); none unless told.
    pub king_buckets: crate::nnue::KingBuckets,
    /// Output buckets (1, or 8 by piece count: `nnue::bucket`).
    pub buckets: usize,
    /// Also train on every position without castling rights mirrored left to right.
    pub mirror: bool,
    /// The most training positions held in memory at once (`--memory` MB divided by
    /// [`BYTES_PER_POSITION`]): more are streamed from the files in windows of this many.
    pub max_positions: usize,
    pub resume: bool,
    /// Start from this net file's weights instead of random ones (a fresh schedule and Adam
    /// state: fine-tuning an earlier generation on new data), grown to `hidden` units if the net
    /// is narrower. `--resume` takes precedence.
    pub init: Option<String>,
    /// Start from the float weights and Adam's moments of this checkpoint, written by another
    /// run (on other data), with a schedule of its own: the run goes on learning where that one
    /// stopped, as if the two runs' data had come one after the other. `--resume` takes
    /// precedence; not with `init`.
    pub continue_from: Option<String>,
    /// Stop this run after this many epochs of the schedule (`--resume` continues it later):
    /// a long run can be trained in slices.
    pub stop_after: Option<u32>,
    pub progress: bool,
}

/// Refused: two starts for one run.
pub const INIT_AND_CONTINUE: &str = "--init and --continue both give the run its start: give one";

/// `--memory` unless told: 8,000 MB, 200 million positions.
pub const DEFAULT_MEMORY_MB: usize = 8_000;

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
            // The score alone unless told: trained from nothing on a few million positions, the
            // results are learnt game by game (validation loss rising from the second epoch)
            // and the nets play worse (docs/results.md, session 7). Generation 6, a fine-tune
            // of generation 5, took 15% of the result (`--lambda 0.15`, session 40).
            lambda: 0.0,
            eval_scale: 400.0,
            loss_power: 2.0,
            validation_every: 20,
            threads: std::thread::available_parallelism().map_or(1, |n| n.get()),
            seed: 1,
            hidden: crate::nnue::DEFAULT_HIDDEN,
            king_buckets: crate::nnue::KingBuckets::NONE,
            // Eight unless told: they did not pay on generation 1's 2.4M positions (-12.7 +/-
            // 33.5 Elo, docs/results.md, session 8) but did on generation 4's 8.2M (+36.3
            // against generation 3 where one bucket made +11.1, session 22), and every net
            // since has them (`--buckets 1` for the older recipes).
            buckets: 8,
            mirror: true,
            max_positions: DEFAULT_MEMORY_MB * 1_000_000 / BYTES_PER_POSITION,
            resume: false,
            init: None,
            continue_from: None,
            stop_after: None,
            progress: true,
        }
    }
}

impl Config {
    /// Are positions without castling rights also learnt mirrored left to right? Not with
    /// mirrored king buckets, whose features are the same for a position and its mirror image.
    pub fn learns_mirror_images(&self) -> bool {
        self.mirror && !self.king_buckets.mirror
    }

    /// What the positions are fitted to.
    pub fn objective(&self) -> Objective {
        Objective {
            lambda: self.lambda,
            eval_scale: self.eval_scale,
            power: self.loss_power,
        }
    }

    /// Where the run's checkpoint goes: beside the net, `--out` plus `.ckpt`.
    pub fn checkpoint(&self) -> String {
        format!("{}.ckpt", self.out)
    }

    /// What a resumed run must repeat to continue exactly, one flag or data file a line, as
    /// its checkpoint records it: the schedule, the objective, the seed, and each data file
    /// with its size (a file that grew between slices renumbers the games after it, and so
    /// moves games between the training and validation sets). Not the threads (another count
    /// gives another valid run), the memory budget or where the run stops. A continued run
    /// also names the checkpoint it started from.
    pub fn run_record(&self) -> Result<String, String> {
        let mut lines = vec![
            format!("--epochs {}", self.epochs),
            format!("--batch {}", self.batch),
            format!("--lr {}", self.lr),
            format!("--lr-end {}", self.lr_end),
            format!("--weight-decay {}", self.weight_decay),
            format!("--lambda {}", self.lambda),
            format!("--eval-scale {}", self.eval_scale),
            format!("--validation {}", self.validation_every),
            format!("--seed {}", self.seed),
            format!("--mirror {}", self.mirror),
        ];
        // Only when told, so that the records of runs from before the flag still match.
        if self.loss_power != 2.0 {
            lines.push(format!("--loss-power {}", self.loss_power));
        }
        let size = |path: &str| {
            std::fs::metadata(path)
                .map(|m| m.len())
                .map_err(|e| format!("{path}: {e}"))
        };
        if let Some(from) = &self.continue_from {
            lines.push(format!("--continue {from} ({} bytes)", size(from)?));
        }
        for input in &self.inputs {
            lines.push(format!("{input} ({} bytes)", size(input)?));
        }
        Ok(lines.join("\n"))
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

/// The mean loss over `positions` (not mirrored), on `threads` threads.
fn parallel_loss(p: &Params, positions: &Positions, obj: Objective, threads: usize) -> f64 {
    if positions.is_empty() {
        return f64::NAN;
    }
    let chunk = positions.len().div_ceil(threads.max(1));
    let total: f64 = std::thread::scope(|s| {
        let handles: Vec<_> = (0..positions.len())
            .step_by(chunk)
            .map(|from| {
                s.spawn(move || {
                    let mut acc = vec![0.0; 2 * p.hidden];
                    (from..(from + chunk).min(positions.len()))
                        .map(|i| {
                            let sample = positions.sample(i);
                            f64::from(model::position_loss(p, &sample, obj, &mut acc))
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
    total / positions.len() as f64
}

/// The parameters and Adam's state a run starts from, and the epochs already done; a resumed
/// run's checkpoint must have been written by the run `record` describes.
fn start(config: &Config, record: &str) -> Result<(Params, Adam, u32), String> {
    let checkpoint = config.checkpoint();
    let kb = config.king_buckets;
    if config.resume {
        let model::Checkpoint {
            params: p,
            adam: a,
            epochs_done: e,
            run,
        } = model::load_checkpoint(&checkpoint)?;
        if let Some(run) = run {
            let missing: Vec<&str> = run
                .lines()
                .filter(|l| !record.lines().any(|n| n == *l))
                .collect();
            let new: Vec<&str> = record
                .lines()
                .filter(|l| !run.lines().any(|n| n == *l))
                .collect();
            if !missing.is_empty() || !new.is_empty() {
                let list = |v: Vec<&str>| {
                    if v.is_empty() {
                        "nothing else".to_string()
                    } else {
                        v.join(", ")
                    }
                };
                return Err(format!(
                    "{checkpoint} was written by another run: it had {}, this command has {} \
                     (a run resumes with the flags and data files it started with)",
                    list(missing),
                    list(new)
                ));
            }
        }
        same_shape(&checkpoint, &p, config)?;
        if config.progress {
            eprintln!("resuming from {checkpoint} after epoch {e}");
        }
        Ok((p, a, e))
    } else if let Some(path) = &config.continue_from {
        if config.init.is_some() {
            return Err(INIT_AND_CONTINUE.into());
        }
        let model::Checkpoint { params, adam, .. } = model::load_checkpoint(path)?;
        same_shape(path, &params, config)?;
        if config.progress {
            eprintln!(
                "continuing the learning of {path}: {} Adam steps before this run",
                adam.step
            );
        }
        Ok((params, adam, 0))
    } else if let Some(path) = &config.init {
        let net = crate::nnue::file::load(path)?;
        let none = crate::nnue::KingBuckets::NONE;
        if net.hidden > config.hidden
            || net.buckets() != config.buckets
            || (net.king_buckets != kb && net.king_buckets != none)
        {
            return Err(format!(
                "{path}: hidden width {}, {} buckets and king buckets {}, not {} (or fewer), {} \
                 and {} (or none)",
                net.hidden,
                net.buckets(),
                net.king_buckets.describe(),
                config.hidden,
                config.buckets,
                kb.describe()
            ));
        }
        let mut p = model::dequantize(&net).widened(config.hidden, config.seed);
        if p.king_buckets != kb {
            p = p.with_king_buckets(kb);
        }
        if config.progress {
            let mut grown = String::new();
            if net.hidden < config.hidden {
                grown += &format!(", grown from {} to {} units", net.hidden, config.hidden);
            }
            if net.king_buckets != kb {
                grown += &format!(", copied into king buckets {}", kb.describe());
            }
            eprintln!("starting from the weights of {path}{grown}");
        }
        let adam = Adam::new(&p);
        Ok((p, adam, 0))
    } else {
        let p = Params::random(kb, config.hidden, config.buckets, config.seed);
        let adam = Adam::new(&p);
        Ok((p, adam, 0))
    }
}

/// A checkpoint's parameters have the shape the run trains: its width, output buckets and
/// king buckets.
fn same_shape(path: &str, p: &Params, config: &Config) -> Result<(), String> {
    let kb = config.king_buckets;
    if (p.hidden, p.buckets, p.king_buckets) == (config.hidden, config.buckets, kb) {
        return Ok(());
    }
    Err(format!(
        "{path}: hidden width {}, {} buckets and king buckets {}, not {}, {} and {}",
        p.hidden,
        p.buckets,
        p.king_buckets.describe(),
        config.hidden,
        config.buckets,
        kb.describe()
    ))
}

/// One Adam step on the batch `entries` of `positions`, the gradient summed over `threads`
/// shares in a fixed order; returns the batch's summed loss.
fn step(
    config: &Config,
    params: &mut Params,
    adam: &mut Adam,
    grads: &mut [Params],
    positions: &Positions,
    entries: &[u32],
    lr: f32,
) -> f64 {
    let chunk = entries.len().div_ceil(grads.len());
    let p = &*params;
    let losses: Vec<f64> = std::thread::scope(|s| {
        let handles: Vec<_> = entries
            .chunks(chunk)
            .zip(grads.iter_mut())
            .map(|(part, g)| {
                s.spawn(move || {
                    g.values.fill(0.0);
                    model::batch_gradient(p, positions, part, config.objective(), g)
                })
            })
            .collect();
        handles
            .into_iter()
            .map(|h| h.join().expect("gradient thread"))
            .collect()
    });
    let used = entries.len().div_ceil(chunk);
    let (first, rest) = grads.split_at_mut(1);
    for g in &rest[..used - 1] {
        for (a, b) in first[0].values.iter_mut().zip(&g.values) {
            *a += b;
        }
    }
    let inv = 1.0 / entries.len() as f32;
    for a in first[0].values.iter_mut() {
        *a *= inv;
    }
    adam.update(params, &first[0], lr, config.weight_decay);
    losses.iter().sum()
}

/// Trains on `data` (validating on `valid`). Writes the net and checkpoint after each epoch
/// when `write` is set.
pub fn train(
    config: &Config,
    data: &TrainingSet,
    valid: &Positions,
    write: bool,
) -> Result<Summary, String> {
    if let TrainingSet::Memory(positions) = data
        && positions.is_empty()
    {
        return Err("no training positions".to_string());
    }
    let checkpoint = config.checkpoint();
    let record = config.run_record()?;
    let (mut params, mut adam, first_epoch) = start(config, &record)?;
    let threads = config.threads.max(1);
    let mut grads: Vec<Params> = (0..threads).map(|_| params.zeros_like()).collect();
    let mut order: Vec<u32> = Vec::new();
    let mut window = Positions::default();
    let mut summary = Summary {
        params: params.clone(),
        train_losses: Vec::new(),
        validation_losses: Vec::new(),
    };
    let start = Instant::now();
    let last_epoch = config
        .stop_after
        .map_or(config.epochs, |n| n.min(config.epochs));
    if config.resume && first_epoch >= last_epoch {
        return Err(format!(
            "{checkpoint} holds {first_epoch} of {} epochs: nothing left to train before {} \
             (each slice stops later: raise --stop-after, or leave it out for the rest)",
            config.epochs,
            match config.stop_after {
                Some(n) if n < config.epochs => format!("--stop-after {n}"),
                _ => "the end of the schedule".to_string(),
            }
        ));
    }
    for epoch in first_epoch..last_epoch {
        let epoch_start = Instant::now();
        let lr = learning_rate(config.lr, config.lr_end, epoch, config.epochs);
        // Each epoch's order depends on the seed and the epoch alone, so a resumed run
        // continues exactly as the uninterrupted one.
        let mut rng = StdRng::seed_from_u64(config.seed ^ (u64::from(epoch) << 32));
        let (windows, chunk_order) = match data {
            TrainingSet::Memory(_) => (1, Vec::new()),
            TrainingSet::Stream(s) => (s.windows(), s.order(&mut rng)),
        };
        let (mut loss_sum, mut seen) = (0.0f64, 0u64);
        let mut reading = 0.0f64;
        let mut last_report = Instant::now();
        for w in 0..windows {
            let positions = match data {
                TrainingSet::Memory(p) => p,
                TrainingSet::Stream(s) => {
                    let read = Instant::now();
                    s.load(&chunk_order, w, &mut window)?;
                    reading += read.elapsed().as_secs_f64();
                    &window
                }
            };
            positions.entries(config.learns_mirror_images(), &mut order);
            order.shuffle(&mut rng);
            for batch in order.chunks(config.batch.max(1)) {
                loss_sum += step(
                    config,
                    &mut params,
                    &mut adam,
                    &mut grads,
                    positions,
                    batch,
                    lr,
                );
                seen += batch.len() as u64;
                if config.progress && last_report.elapsed().as_secs() >= 60 {
                    last_report = Instant::now();
                    eprintln!(
                        "  epoch {}: window {}/{windows}, {seen} positions, {:.0} positions/s",
                        epoch + 1,
                        w + 1,
                        seen as f64 / epoch_start.elapsed().as_secs_f64()
                    );
                }
            }
        }
        let train_secs = epoch_start.elapsed().as_secs_f64();
        if seen == 0 {
            return Err("no training positions".to_string());
        }
        let train_loss = loss_sum / seen as f64;
        let valid_loss = parallel_loss(&params, valid, config.objective(), threads);
        summary.train_losses.push(train_loss);
        summary.validation_losses.push(valid_loss);
        if config.progress {
            let memory =
                crate::memory::peak_mb().map_or(String::new(), |mb| format!("  peak {mb} MB"));
            let read = if windows > 1 {
                format!(" ({windows} windows, {reading:.0}s reading)")
            } else {
                String::new()
            };
            eprintln!(
                "epoch {:>3}/{}  lr {lr:.6}  train loss {train_loss:.6}  validation loss \
                 {valid_loss:.6}  {:.0} positions/s{read}  {:.0}s{memory}  {} weights at the \
                 limit",
                epoch + 1,
                config.epochs,
                seen as f64 / train_secs,
                start.elapsed().as_secs_f64(),
                params.at_limit()
            );
        }
        if write {
            let net = model::quantize(&params);
            crate::training::write_atomically(&config.out, &crate::nnue::file::write(&net))
                .map_err(|e| format!("{}: {e}", config.out))?;
            model::save_checkpoint(&checkpoint, &params, &adam, epoch + 1, &record)
                .map_err(|e| format!("{checkpoint}: {e}"))?;
        }
    }
    summary.params = params;
    Ok(summary)
}

/// `scout train`: reads the data, trains, writes the net.
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
    if !(0.0..=1.0).contains(&config.lambda) {
        return Err(format!("--lambda {} is not between 0 and 1", config.lambda));
    }
    if !(config.loss_power > 1.0 && config.loss_power <= 4.0) {
        return Err(format!(
            "--loss-power {} is not above 1 and at most 4",
            config.loss_power
        ));
    }
    if config.eval_scale.is_nan() || config.eval_scale < 1.0 {
        return Err(format!(
            "--eval-scale {} must be at least 1 centipawn",
            config.eval_scale
        ));
    }
    if !(config.weight_decay >= 0.0 && config.lr * config.weight_decay < 1.0) {
        return Err(format!(
            "--weight-decay {} must be at least 0 and below 1 / lr",
            config.weight_decay
        ));
    }
    let checkpoint = config.checkpoint();
    if !config.resume && std::path::Path::new(&checkpoint).exists() {
        return Err(format!(
            "{checkpoint} exists: --resume true continues its run; to start another, remove it \
             or choose another --out"
        ));
    }
    let loading = Instant::now();
    let data = load::open(
        &config.inputs,
        config.validation_every,
        config.max_positions,
    )?;
    if config.progress {
        let held = match &data.train {
            TrainingSet::Memory(_) => "all in memory".to_string(),
            TrainingSet::Stream(s) => format!(
                "more than --memory holds: streamed in {} windows of up to {} positions",
                s.windows(),
                s.window_capacity()
            ),
        };
        eprintln!(
            "{} training and {} validation positions ({} games) read in {:.1}s, {held}; \
             hidden {}, king buckets {}, {} output buckets, lambda {}, eval scale {}, loss power {}, \
             batch {}, lr {} (cosine to {}% of it), weight decay {}, {} epochs, {} threads, seed {}",
            data.train_positions,
            data.valid.len(),
            data.games,
            loading.elapsed().as_secs_f64(),
            config.hidden,
            config.king_buckets.describe(),
            config.buckets,
            config.lambda,
            config.eval_scale,
            config.loss_power,
            config.batch,
            config.lr,
            config.lr_end * 100.0,
            config.weight_decay,
            config.epochs,
            config.threads,
            config.seed
        );
    }
    let summary = train(config, &data.train, &data.valid, true)?;
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
mod tests;
