//! Tests of the trainer: targets, gradients against finite differences, schedules, resuming,
//! streaming, checkpoints and the float-to-quantized agreement.

use super::*;
use crate::nnue::KingBuckets;
use crate::training::packed::{Outcome, Packed};
use rand::RngExt;
use shakmaty::{Chess, Position, Role};

/// Positions from random games, scored by material (White's view) and labelled with a
/// result that agrees with the material most of the time: a signal a net can learn.
pub(crate) fn material_samples(count: usize, seed: u64) -> Positions {
    let mut rng = StdRng::seed_from_u64(seed);
    let mut samples = Positions::default();
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

/// A short run on two threads without progress output: the tests' common configuration.
fn quick(epochs: u32, batch: usize, lr: f32) -> Config {
    Config {
        epochs,
        batch,
        lr,
        threads: 2,
        progress: false,
        // One output bucket: the small sets here would leave most of eight untrained.
        buckets: 1,
        ..Config::default()
    }
}

/// The same as a training set in memory.
fn material_set(count: usize, seed: u64) -> TrainingSet {
    TrainingSet::Memory(material_samples(count, seed))
}

/// The target mixes the result (λ) with the score's expectation through a logistic of
/// the objective's scale: a score of one scale unit is sigmoid(1) ≈ 73%.
#[test]
fn the_target_mixes_result_and_score_at_the_objective_scale() {
    let samples = material_samples(40, 2);
    let mut decisive = 0;
    for i in 0..samples.len() {
        let s = samples.sample(i);
        let at = |lambda, eval_scale| {
            model::target(
                &s,
                Objective {
                    lambda,
                    eval_scale,
                    power: 2.0,
                },
            )
        };
        let expect = model::sigmoid(s.score / 225.0);
        assert!((at(0.0, 225.0) - expect).abs() < 1e-6);
        assert!((at(1.0, 225.0) - s.result).abs() < 1e-6);
        assert!((at(0.25, 225.0) - (0.25 * s.result + 0.75 * expect)).abs() < 1e-6);
        if s.score.abs() >= 150.0 {
            decisive += 1;
            // A smaller scale makes the same score a surer expectation.
            assert!((at(0.0, 225.0) - 0.5).abs() > (at(0.0, 400.0) - 0.5).abs());
        }
    }
    assert!(decisive > 0, "the samples hold unequal material");
    let one_unit = Packed::new(&Chess::default(), 225, Outcome::Draw, 0);
    let mut positions = Positions::default();
    positions.push(&one_unit);
    let t = model::target(
        &positions.sample(0),
        Objective {
            lambda: 0.0,
            eval_scale: 225.0,
            power: 2.0,
        },
    );
    assert!((t - 0.731_058_6).abs() < 1e-5, "{t}");
}

/// The analytic gradient of one position's loss equals central finite differences, for
/// weights of every part of the network, with one output bucket and with eight (where the
/// other buckets' outputs get no gradient), without and with king buckets, at an evaluation
/// scale other than the default, with the squared error and with another power.
#[test]
fn gradient_equals_finite_differences() {
    let samples = material_samples(8, 1);
    let hidden = 6;
    let layouts = [KingBuckets::NONE, KingBuckets::mirrored(4).unwrap()];
    for (buckets, kb, power) in crate::nnue::BUCKET_COUNTS
        .into_iter()
        .flat_map(|b| layouts.map(|kb| (b, kb)))
        .flat_map(|(b, kb)| [2.0, 2.6].map(|power| (b, kb, power)))
    {
        let obj = Objective {
            lambda: 0.3,
            eval_scale: 225.0,
            power,
        };
        let mut p = Params::random(kb, hidden, buckets, 3);
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
            f64::from(model::position_loss(p, &samples.sample(i), obj, &mut acc))
        };
        let (mut compared, mut first_layer) = (0, 0);
        for i in 0..samples.len() {
            let mut grad = p.zeros_like();
            let mut acc = vec![0.0; 2 * hidden];
            model::backward(&p, &samples.sample(i), obj, &mut acc, &mut grad);
            let (us, them) = samples.sample(i).perspective_features(&kb).next().unwrap();
            let mut probes: Vec<usize> = (0..hidden).map(|k| us * hidden + k).collect();
            probes.extend((0..hidden).map(|k| them * hidden + k));
            probes.extend((0..hidden).map(|k| p.b1_at() + k));
            probes.extend(p.w2_at()..p.values.len());
            for at in probes {
                let h = 3e-3f32;
                let mut plus = p.clone();
                plus.values[at] += h;
                let mut minus = p.clone();
                minus.values[at] -= h;
                let (up, here, down) = (loss(&plus, i), loss(&p, i), loss(&minus, i));
                // A step across a clamp's kink (an accumulator at 0 or 1) has no derivative
                // to compare with: the one-sided slopes disagree there.
                let (right, left) = (up - here, here - down);
                if (right - left).abs() > 0.2 * right.abs().max(left.abs()) + 1e-6 {
                    continue;
                }
                let numeric = (up - down) / (2.0 * f64::from(h));
                let analytic = f64::from(grad.values[at]);
                // f32 losses: rounding noise of about 5e-5 at a step of 1e-3, which failed at a
                // steeper logistic (eval scale below 400); 3e-3 still stays clear of the clamps.
                let tolerance = 2e-3 * numeric.abs().max(analytic.abs()) + 5e-5;
                assert!(
                    (numeric - analytic).abs() <= tolerance,
                    "{buckets} buckets, {kb:?}, power {power}, position {i}, parameter {at}: \
                     analytic {analytic}, numeric {numeric}"
                );
                compared += usize::from(analytic.abs() > 1e-4);
                first_layer += usize::from(analytic.abs() > 1e-4 && at < p.b1_at());
            }
        }
        assert!(compared > 50, "only {compared} non-zero gradients compared");
        assert!(
            first_layer > 10,
            "only {first_layer} first-layer gradients compared"
        );
    }
}

/// The loss at power P is the absolute error to the P: at 2.6, each position's squared error
/// to the 1.3. Training at that power lowers its loss as the square's training does. Powers
/// the gradient cannot use (1 or less, above 4) are refused before any data is read, and a
/// run's record names the power only when it is not the square, so checkpoints written before
/// the flag still resume.
#[test]
fn the_loss_power_raises_the_error_to_it() {
    let samples = material_samples(30, 5);
    let p = Params::random(KingBuckets::NONE, 16, 8, 6);
    let at = |power| Objective {
        lambda: 0.2,
        eval_scale: 400.0,
        power,
    };
    let mut acc = vec![0.0; 32];
    let mut large = 0;
    for i in 0..samples.len() {
        let square = model::position_loss(&p, &samples.sample(i), at(2.0), &mut acc);
        let raised = model::position_loss(&p, &samples.sample(i), at(2.6), &mut acc);
        assert!(
            (raised - square.powf(1.3)).abs() <= 1e-6 * square.max(1e-3),
            "position {i}: {raised} against {square}^1.3"
        );
        large += usize::from(square > 1e-3);
    }
    assert!(large > 5, "only {large} positions with a sizeable error");

    let train_set = material_set(2000, 7);
    let valid_set = material_samples(300, 8);
    let config = Config {
        hidden: 16,
        loss_power: 2.6,
        ..quick(6, 256, 0.005)
    };
    let before = parallel_loss(
        &Params::random(KingBuckets::NONE, 16, config.buckets, config.seed),
        &valid_set,
        config.objective(),
        2,
    );
    let summary = train(&config, &train_set, &valid_set, false).unwrap();
    let after = *summary.validation_losses.last().unwrap();
    assert!(after < 0.5 * before, "validation loss {before} -> {after}");

    for power in [1.0, 0.5, 4.5, f32::NAN] {
        let bad = Config {
            inputs: vec!["/nonexistent/data.bin".to_string()],
            loss_power: power,
            ..Config::default()
        };
        let err = run(&bad).unwrap_err();
        assert!(err.contains("--loss-power"), "{power}: {err}");
    }
    let record = |loss_power| {
        Config {
            loss_power,
            ..Config::default()
        }
        .run_record()
        .unwrap()
    };
    assert!(!record(2.0).contains("--loss-power"));
    assert!(record(2.6).contains("--loss-power 2.6"));
}

/// A few thousand positions train to a falling loss in seconds.
#[test]
fn training_lowers_the_loss() {
    let train_set = material_set(3000, 2);
    let valid_set = material_samples(500, 3);
    let config = Config {
        hidden: 32,
        ..quick(8, 256, 0.005)
    };
    let before = parallel_loss(
        &Params::random(KingBuckets::NONE, 32, config.buckets, config.seed),
        &valid_set,
        Objective {
            lambda: 0.3,
            eval_scale: 400.0,
            power: 2.0,
        },
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
    let p = Params::random(KingBuckets::NONE, 8, 1, 4);
    let mut decayed = p.clone();
    let mut adam = Adam::new(&p);
    adam.update(&mut decayed, &p.zeros_like(), 0.01, 2.0);
    for (before, after) in p.values.iter().zip(&decayed.values) {
        assert!((after - 0.98 * before).abs() <= 1e-7, "{before} -> {after}");
    }
    let train_set = material_set(1500, 8);
    let valid_set = material_samples(200, 9);
    let config = Config {
        hidden: 16,
        ..quick(4, 128, 0.004)
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
    let train_set = material_set(1500, 10);
    let valid_set = material_samples(200, 11);
    let base = Config {
        out: path("base.nnue"),
        ..quick(6, 128, 0.004)
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
    // A narrower net than --hidden is grown: the grown parameters compute exactly what the
    // net does, and a run from them starts where the net was, the new units learning.
    let narrow = model::dequantize(&net);
    let grown = narrow.widened(384, 5);
    let (mut a, mut b) = (vec![0.0; 2 * 256], vec![0.0; 2 * 384]);
    for i in 0..valid_set.len() {
        let s = valid_set.sample(i);
        assert_eq!(
            model::forward(&narrow, &s, &mut a),
            model::forward(&grown, &s, &mut b)
        );
    }
    let from_grown = train(
        &Config {
            init: Some(base.out.clone()),
            hidden: 384,
            ..one_epoch.clone()
        },
        &train_set,
        &valid_set,
        false,
    )
    .unwrap();
    let grown_loss = from_grown.validation_losses[0];
    assert!(
        grown_loss < 1.2 * done && grown_loss < 0.8 * random,
        "first epoch grown from the net {grown_loss}, the net {done}"
    );
    let w2 = from_grown.params.w2_at();
    assert!(
        from_grown.params.values[w2 + 256..w2 + 384]
            .iter()
            .any(|&w| w != 0.0)
    );
    // Into king buckets: every bucket a copy, so positions whose kings both stand on files
    // a–d (each from its own side) evaluate exactly as before; a run from there starts
    // near the net, and a net with king buckets cannot start a run without them.
    let kb = KingBuckets::mirrored(4).unwrap();
    let bucketed = narrow.with_king_buckets(kb);
    let mut same = 0;
    for i in 0..valid_set.len() {
        let s = valid_set.sample(i);
        let pos = valid_set.records[i].position().unwrap();
        let queenside = |c: shakmaty::Color| {
            pos.board()
                .king_of(c)
                .is_some_and(|k| k.file() <= shakmaty::File::D)
        };
        if queenside(shakmaty::Color::White) && queenside(shakmaty::Color::Black) {
            assert_eq!(
                model::forward(&narrow, &s, &mut a),
                model::forward(&bucketed, &s, &mut b[..512])
            );
            same += 1;
        }
    }
    assert!(same >= 10, "only {same} positions with both kings on a-d");
    let into_buckets = Config {
        init: Some(base.out.clone()),
        king_buckets: kb,
        out: path("kb.nnue"),
        ..one_epoch.clone()
    };
    let from_copy = train(&into_buckets, &train_set, &valid_set, true).unwrap();
    let copy_loss = from_copy.validation_losses[0];
    assert!(
        copy_loss < 0.8 * random,
        "first epoch from the net copied into king buckets {copy_loss}, random {random}"
    );
    let plain_from_bucketed = Config {
        init: Some(into_buckets.out.clone()),
        ..one_epoch.clone()
    };
    let refused = train(&plain_from_bucketed, &train_set, &valid_set, false).unwrap_err();
    assert!(refused.contains("king buckets 4 mirrored"), "{refused}");
    let narrower = Config {
        init: Some(base.out.clone()),
        hidden: 128,
        ..one_epoch.clone()
    };
    assert!(train(&narrower, &train_set, &valid_set, false).is_err());
    std::fs::remove_dir_all(&dir).unwrap();
}

/// A run stopped after two of four epochs and resumed from its checkpoint ends with the
/// same weights, losses and net file as the uninterrupted run: the cosine schedule, the
/// shuffles and Adam's state all continue where they stopped. A resumed run that would not
/// continue the same run is refused: another flag of the schedule, a data file that grew, a
/// slice that stops where the checkpoint already is, a run already complete.
#[test]
fn a_run_resumed_mid_schedule_equals_the_uninterrupted_run() {
    let dir = std::env::temp_dir().join(format!("scout-resume-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let train_set = material_set(1500, 6);
    let valid_set = material_samples(200, 7);
    // The data file the run record names (the positions come from memory here).
    let file = dir.join("d.bin").to_str().unwrap().to_string();
    std::fs::write(&file, [0u8; 64]).unwrap();
    let config = |name: &str| Config {
        out: dir.join(name).to_str().unwrap().to_string(),
        inputs: vec![file.clone()],
        ..quick(4, 128, 0.004)
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
    let refused = |c: &Config| train(c, &train_set, &valid_set, true).err().unwrap();
    let again = refused(&Config {
        resume: true,
        ..first.clone()
    });
    assert!(again.contains("raise --stop-after"), "{again}");
    let other_lr = refused(&Config {
        lr: 0.002,
        ..second.clone()
    });
    assert!(
        other_lr.contains("--lr 0.004") && other_lr.contains("--lr 0.002"),
        "{other_lr}"
    );
    std::fs::write(&file, [0u8; 96]).unwrap();
    let grown = refused(&second);
    assert!(
        grown.contains("(64 bytes)") && grown.contains("(96 bytes)"),
        "{grown}"
    );
    std::fs::write(&file, [0u8; 64]).unwrap();
    let rest = train(&second, &train_set, &valid_set, true).unwrap();
    let done = refused(&second);
    assert!(done.contains("holds 4 of 4 epochs"), "{done}");
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

/// A run continued from another's checkpoint goes on learning where that one stopped: one
/// epoch, then one more continued from its checkpoint (with the seed that gives the second
/// epoch's shuffle of one run), ends with the weights and net file of a single two-epoch run
/// at the same constant rate. Started from the first run's net file instead, with Adam's
/// state afresh, it does not. The checkpoint's shape must be the run's, `--init` and
/// `--continue` are not given together, and the continued run's record names its checkpoint.
#[test]
fn a_continued_run_equals_one_run_through_both_parts() {
    let dir = std::env::temp_dir().join(format!("scout-continue-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = |name: &str| dir.join(name).to_str().unwrap().to_string();
    let train_set = material_set(1500, 14);
    let valid_set = material_samples(200, 15);
    let constant = |epochs: u32, name: &str| Config {
        out: path(name),
        lr_end: 1.0,
        seed: 3,
        ..quick(epochs, 128, 0.004)
    };
    let whole = train(&constant(2, "whole.nnue"), &train_set, &valid_set, true).unwrap();
    train(&constant(1, "first.nnue"), &train_set, &valid_set, true).unwrap();
    let second = Config {
        continue_from: Some(path("first.nnue.ckpt")),
        seed: 3 ^ (1 << 32),
        ..constant(1, "second.nnue")
    };
    let continued = train(&second, &train_set, &valid_set, true).unwrap();
    assert_eq!(continued.params, whole.params);
    assert_eq!(
        continued.validation_losses[..],
        whole.validation_losses[1..]
    );
    let read = |name: &str| std::fs::read(dir.join(name)).unwrap();
    assert_eq!(read("second.nnue"), read("whole.nnue"));
    let checkpoint = model::load_checkpoint(&path("second.nnue.ckpt")).unwrap();
    let whole_checkpoint = model::load_checkpoint(&path("whole.nnue.ckpt")).unwrap();
    assert_eq!(checkpoint.adam.step, whole_checkpoint.adam.step);
    assert!(
        checkpoint
            .run
            .unwrap()
            .contains(&format!("--continue {}", path("first.nnue.ckpt")))
    );
    let afresh = train(
        &Config {
            init: Some(path("first.nnue")),
            continue_from: None,
            ..second.clone()
        },
        &train_set,
        &valid_set,
        false,
    )
    .unwrap();
    assert_ne!(afresh.params, whole.params);
    let refused = |c: &Config| train(c, &train_set, &valid_set, false).unwrap_err();
    let shape = refused(&Config {
        hidden: 64,
        ..second.clone()
    });
    assert!(shape.contains("hidden width 256"), "{shape}");
    let both = refused(&Config {
        init: Some(path("first.nnue")),
        ..second.clone()
    });
    assert!(both.contains("give one"), "{both}");
    std::fs::remove_dir_all(&dir).unwrap();
}

/// Data beyond the memory budget is streamed in windows; such a run learns, and stopped
/// and resumed it ends exactly as the uninterrupted run. `run` itself trains from the
/// files a net of another width that the engine reads.
#[test]
fn a_streamed_run_learns_and_resumes_exactly() {
    let dir = load::tests::temp_dir("streamed");
    let path = |name: &str| dir.join(name).to_str().unwrap().to_string();
    // Games of ten positions.
    let records = material_samples(3000, 12).records;
    let bytes: Vec<u8> = records
        .iter()
        .enumerate()
        .flat_map(|(i, r)| {
            let mut r = *r;
            r.0[31] = u8::from(i % 10 == 9);
            r.0
        })
        .collect();
    std::fs::write(path("d.bin"), bytes).unwrap();
    let inputs = vec![path("d.bin")];
    let data = load::open(&inputs, 10, 400).unwrap();
    let TrainingSet::Stream(stream) = &data.train else {
        panic!("3000 positions do not fit 400")
    };
    assert!(stream.windows() >= 7);
    assert!(data.valid.len() > 150);
    let config = |name: &str| Config {
        out: path(name),
        hidden: 32,
        ..quick(4, 128, 0.004)
    };
    let before = parallel_loss(
        &Params::random(KingBuckets::NONE, 32, 1, 1),
        &data.valid,
        Config::default().objective(),
        2,
    );
    let whole = train(&config("whole.nnue"), &data.train, &data.valid, true).unwrap();
    let after = *whole.validation_losses.last().unwrap();
    assert!(after < 0.5 * before, "validation loss {before} -> {after}");
    let first = Config {
        stop_after: Some(1),
        ..config("sliced.nnue")
    };
    train(&first, &data.train, &data.valid, true).unwrap();
    let second = Config {
        resume: true,
        ..config("sliced.nnue")
    };
    let rest = train(&second, &data.train, &data.valid, true).unwrap();
    assert_eq!(rest.params, whole.params);
    assert_eq!(rest.validation_losses[..], whole.validation_losses[1..]);
    // The command: a 64-wide net, streamed, read back by the engine, with the output buckets
    // `scout train` gives unless told (eight, as every generation since the fourth).
    let command = Config {
        inputs,
        epochs: 1,
        hidden: 64,
        max_positions: 500,
        buckets: Config::default().buckets,
        ..config("run.nnue")
    };
    run(&command).unwrap();
    let net = crate::nnue::file::load(&command.out).unwrap();
    assert_eq!((net.hidden, net.buckets()), (64, 8));
    // Another run does not overwrite the checkpoint of one that might be resumed.
    let exists = run(&command).unwrap_err();
    assert!(exists.contains("run.nnue.ckpt exists"), "{exists}");
    let refused = run(&Config {
        hidden: 100,
        ..command.clone()
    });
    assert!(refused.unwrap_err().contains("--hidden 100"));
    std::fs::remove_dir_all(&dir).unwrap();
}

/// Checkpoints round-trip (weights, Adam's moments and step, epochs done, the run's record)
/// with one bucket and eight, without and with king buckets; checkpoints of the earlier
/// formats (before the record; before king buckets; before output buckets too) read without
/// a record, as nets without king buckets (and one output bucket) where they had none; a
/// truncated one is refused.
#[test]
fn checkpoints_round_trip() {
    let dir = std::env::temp_dir().join(format!("scout-ckpt-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("net.ckpt").to_str().unwrap().to_string();
    let layouts = [
        (1, KingBuckets::NONE),
        (8, KingBuckets::NONE),
        (8, KingBuckets::mirrored(2).unwrap()),
    ];
    for (buckets, kb) in layouts {
        let p = Params::random(kb, 8, buckets, 7);
        let mut adam = Adam::new(&p);
        adam.m = Params::random(kb, 8, buckets, 8);
        adam.v = Params::random(kb, 8, buckets, 9);
        adam.step = 12_345;
        let record = "--lr 0.001\nd.bin (64 bytes)";
        model::save_checkpoint(&path, &p, &adam, 3, record).unwrap();
        let back = model::load_checkpoint(&path).unwrap();
        assert_eq!((back.params, back.epochs_done), (p.clone(), 3));
        assert_eq!(back.run.as_deref(), Some(record));
        let a = back.adam;
        assert_eq!((a.m, a.v, a.step), (adam.m, adam.v, 12_345));
        let new = std::fs::read(&path).unwrap();
        std::fs::write(&path, &new[..new.len() - 4]).unwrap();
        let refused = model::load_checkpoint(&path).err().unwrap();
        assert!(refused.contains("truncated"), "{refused}");
        // The floats begin after the header, the layout and the record. An earlier format:
        // its magic, the header's fields it had, the floats; read back without a record.
        let floats = &new[104 + record.len()..];
        let earlier = |magic: &[u8], fields: &[&[u8]]| {
            let bytes = [&[magic][..], fields, &[floats][..]].concat().concat();
            std::fs::write(&path, &bytes).unwrap();
            let back = model::load_checkpoint(&path).unwrap();
            assert_eq!((&back.params, back.epochs_done), (&p, 3));
            assert!(back.run.is_none());
            bytes
        };
        // Before the run's record: SCOUTCK3 (the layout, no record).
        earlier(b"SCOUTCK3", &[&new[8..100]]);
        if kb != KingBuckets::NONE {
            continue;
        }
        // Before king buckets: SCOUTCK2, no layout.
        earlier(b"SCOUTCK2", &[&new[8..28]]);
        if buckets == 1 {
            // Before output buckets: SCOUTCKP, no bucket count.
            let old = earlier(b"SCOUTCKP", &[&new[8..12], &new[16..28]]);
            std::fs::write(&path, &old[..old.len() - 4]).unwrap();
            let refused = model::load_checkpoint(&path).err().unwrap();
            assert!(refused.contains("truncated"), "{refused}");
        }
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

/// The engine's quantized evaluation agrees with the trainer's float network: within 1.5 cp
/// of the float network with the quantized weights (integer arithmetic), and within 8 cp on
/// average, 40 cp at most, of the unquantized one (on positions within ±1000 cp); with one
/// output bucket and eight, at the built-in net's width and at 384 (the next step), and
/// with king buckets. The net goes through its file, and the engine's incremental
/// evaluation along random moves from the checked positions equals its evaluation from
/// scratch.
#[test]
fn quantized_net_matches_the_float_net() {
    let kb4 = KingBuckets::mirrored(4).unwrap();
    for (kb, hidden, buckets) in [
        (KingBuckets::NONE, 256, 1),
        (KingBuckets::NONE, 256, 8),
        (KingBuckets::NONE, 384, 1),
        (kb4, 256, 8),
    ] {
        quantized_net_matches_the_float_net_with(kb, hidden, buckets);
    }
}

fn quantized_net_matches_the_float_net_with(kb: KingBuckets, hidden: usize, buckets: usize) {
    use crate::nnue::accumulator::AccumulatorStack;
    let train_set = material_set(3000, 4);
    let config = Config {
        hidden,
        king_buckets: kb,
        buckets,
        mirror: false,
        ..quick(4, 256, 0.003)
    };
    let summary = train(&config, &train_set, &Positions::default(), false).unwrap();
    let bytes = crate::nnue::file::write(&model::quantize(&summary.params));
    let net = crate::nnue::file::read(&bytes).unwrap();
    assert_eq!(
        (net.hidden, net.buckets(), net.king_buckets),
        (hidden, buckets, kb)
    );
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
    let net = std::sync::Arc::new(net);
    let mut stack = AccumulatorStack::new(net.clone(), 8);
    let mut rng = StdRng::seed_from_u64(hidden as u64);
    let mut incremental = 0;
    for i in 0..check.len() {
        let sample = check.sample(i);
        let float_cp =
            model::forward(&summary.params, &sample, &mut acc) * crate::nnue::SCALE as f32;
        let pos = check.records[i].position().unwrap();
        let engine_cp = crate::nnue::evaluate_board(&net, pos.board(), pos.turn());
        // Incremental updates along a few random moves equal a refresh.
        stack.reset(&pos);
        let mut line = pos.clone();
        for ply in 1..8 {
            let moves = line.legal_moves();
            if moves.is_empty() {
                break;
            }
            let m = moves[rng.random_range(0..moves.len())];
            let mover = line.turn();
            line.play_unchecked(m);
            stack.push(ply, Some(m), mover, line.board());
            let scratch = crate::nnue::evaluate_board(&net, line.board(), line.turn());
            assert_eq!(stack.evaluate(ply, &line), scratch, "{hidden}");
            incremental += 1;
        }
        if float_cp.abs() > 1000.0 {
            continue;
        }
        let dequantized_cp =
            model::forward(&dequantized, &sample, &mut acc) * crate::nnue::SCALE as f32;
        worst_rounding = worst_rounding.max((engine_cp as f32 - dequantized_cp).abs());
        worst = worst.max((engine_cp as f32 - float_cp).abs());
        total += (engine_cp as f32 - float_cp).abs();
        compared += 1;
    }
    assert!(compared > 200, "only {compared} positions compared");
    assert!(
        incremental > 2000,
        "only {incremental} incremental evaluations"
    );
    let mean = total / compared as f32;
    assert!(
        worst_rounding <= 1.5,
        "{hidden}: integer rounding: largest difference {worst_rounding} cp"
    );
    assert!(
        mean <= 8.0 && worst <= 40.0,
        "{hidden}: quantisation: mean difference {mean} cp, largest {worst} cp"
    );
    eprintln!(
        "hidden {hidden}, {buckets} buckets: quantisation mean {mean} cp, largest {worst} cp; \
         rounding {worst_rounding} cp"
    );
}

/// Adam's step clips every weight to what the quantisation holds, and `at_limit` counts the
/// weights standing there (the count each epoch's line prints).
#[test]
fn adam_clips_to_the_quantisation_and_the_clipped_are_counted() {
    let mut p = Params::zeros(KingBuckets::NONE, 32, 1);
    assert_eq!(p.at_limit(), 0);
    let last = p.values.len() - 1;
    p.values[0] = 5.0;
    p.values[last] = -3.0;
    p.values[1] = 0.5 * crate::nnue::OUTPUT_WEIGHT_LIMIT;
    let mut adam = Adam::new(&p);
    let flat = p.zeros_like();
    adam.update(&mut p, &flat, 0.001, 0.0);
    let limit = crate::nnue::OUTPUT_WEIGHT_LIMIT;
    assert_eq!((p.values[0], p.values[last]), (limit, -limit));
    assert_eq!(p.values[1], 0.5 * limit);
    assert_eq!(p.at_limit(), 2);
}
