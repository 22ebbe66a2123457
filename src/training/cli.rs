//! The training tools' command lines: `scout datagen`, `convert`, `data`, `train`, `rescale`
//! and `wdl-fit`, each read from its `--name value` options into its tool's configuration and run;
//! a line it cannot read gets the usage, a run that fails only its reason.

use std::process::ExitCode;
use std::sync::Arc;

/// Why a tool did not finish: a command line it cannot read (what is wrong, then the usage;
/// exit status 2), or a run that failed on its own terms, a missing file or a full disk (the
/// reason alone, exit status 1; empty when the tool has said it already).
enum Failure {
    Misuse(String),
    Failed(String),
}

/// Errors met while reading the command line are misuse.
impl From<String> for Failure {
    fn from(e: String) -> Self {
        Failure::Misuse(e)
    }
}

impl From<&str> for Failure {
    fn from(e: &str) -> Self {
        Failure::Misuse(e.to_string())
    }
}

/// Runs the training tool `tool` with `args`; `None` when `tool` is not one of them.
pub fn run(tool: &str, args: &[String], usage: fn() -> ExitCode) -> Option<ExitCode> {
    let result = match tool {
        "datagen" => datagen(args),
        "train" => train(args),
        "data" => report(args, super::datasummary::run),
        "wdl-fit" => report(args, |paths| super::wdlfit::run(paths, 3000)),
        "rescale" => rescale(args),
        "convert" => convert(args),
        _ => return None,
    };
    Some(match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(Failure::Misuse(e)) => {
            eprintln!("{tool}: {e}");
            usage()
        }
        Err(Failure::Failed(e)) => {
            if !e.is_empty() {
                eprintln!("{tool}: {e}");
            }
            ExitCode::FAILURE
        }
    })
}

/// Command-line arguments split into positional ones and `--name value` pairs.
type Arguments = (Vec<String>, Vec<(String, String)>);

/// Reads `--name value` options; other arguments are returned as positional.
fn options(args: &[String]) -> Result<Arguments, String> {
    let mut positional = Vec::new();
    let mut named = Vec::new();
    let mut it = args.iter();
    while let Some(a) = it.next() {
        if let Some(name) = a.strip_prefix("--") {
            let value = it.next().ok_or_else(|| format!("--{name} needs a value"))?;
            named.push((name.to_string(), value.clone()));
        } else {
            positional.push(a.clone());
        }
    }
    Ok((positional, named))
}

fn number<T: std::str::FromStr>(name: &str, value: &str) -> Result<T, String> {
    value
        .parse()
        .map_err(|_| format!("--{name}: not a valid number: {value}"))
}

fn datagen(args: &[String]) -> Result<(), Failure> {
    let (positional, named) = options(args)?;
    if !positional.is_empty() {
        return Err(format!("unexpected argument {}", positional[0]).into());
    }
    let mut config = super::datagen::Config::default();
    for (name, value) in named {
        match name.as_str() {
            "games" => config.games = number(&name, &value)?,
            "nodes" => config.nodes = number(&name, &value)?,
            "threads" => config.threads = number(&name, &value)?,
            "random-plies" => config.random_plies = number(&name, &value)?,
            "seed" => config.seed = number(&name, &value)?,
            "out" => config.out = value,
            "net" => {
                config.net = Arc::new(crate::nnue::file::load(&value).map_err(Failure::Failed)?);
            }
            _ => return Err(format!("unknown option --{name}").into()),
        }
    }
    // A datagen that cannot run (its file held by another run, a full disk) is no misuse.
    let n = super::datagen::run(&config)
        .map_err(|e| Failure::Failed(format!("{}: {e}", config.out)))?;
    eprintln!("wrote {n} positions to {}", config.out);
    Ok(())
}

/// `data` and `wdl-fit`: data files in, a report on stdout.
fn report(
    paths: &[String],
    tool: impl Fn(&[String]) -> Result<String, String>,
) -> Result<(), Failure> {
    if paths.is_empty() {
        return Err("no data files given".into());
    }
    print!("{}", tool(paths).map_err(Failure::Failed)?);
    Ok(())
}

fn convert(args: &[String]) -> Result<(), Failure> {
    let (inputs, named) = options(args)?;
    let (mut out, mut player, mut scale, mut material_scaled) = (None, None, 1.0, false);
    for (name, value) in named {
        match name.as_str() {
            "out" => out = Some(value),
            "player" => player = Some(value),
            "scale" => scale = number::<f64>("scale", &value)?,
            "material-scaled" => material_scaled = number(&name, &value)?,
            _ => return Err(format!("unknown option --{name}").into()),
        }
    }
    let out = out.ok_or("convert needs --out FILE")?;
    if inputs.is_empty() {
        return Err("convert needs at least one PGN file".into());
    }
    let mut stats = super::convert::Stats::default();
    if !(scale.is_finite() && scale > 0.0) {
        return Err(format!("--scale must be a positive number, not {scale}").into());
    }
    let select = super::convert::Select {
        player: player.as_deref(),
        scale,
        material_scaled,
    };
    let result = super::convert::run(&inputs, &out, select, &mut stats);
    if let Err(e) = &result {
        eprintln!("convert: {e}");
        eprintln!("convert: up to there, {stats}");
        eprintln!(
            "convert: {} positions appended to {out} (the games before the error)",
            stats.kept
        );
        // Already said: nothing more to print.
        return Err(Failure::Failed(String::new()));
    }
    eprintln!("convert: {stats}");
    eprintln!("convert: {} positions appended to {out}", stats.kept);
    Ok(())
}

fn train(args: &[String]) -> Result<(), Failure> {
    let (positional, named) = options(args)?;
    let mut config = super::train::Config {
        inputs: positional,
        ..Default::default()
    };
    for (name, value) in named {
        match name.as_str() {
            "epochs" => config.epochs = number(&name, &value)?,
            "lr" => config.lr = number(&name, &value)?,
            "lr-end" => config.lr_end = number(&name, &value)?,
            "weight-decay" => config.weight_decay = number(&name, &value)?,
            "lambda" => config.lambda = number(&name, &value)?,
            "eval-scale" => config.eval_scale = number(&name, &value)?,
            "loss-power" => config.loss_power = number(&name, &value)?,
            "batch" => config.batch = number(&name, &value)?,
            "threads" => config.threads = number(&name, &value)?,
            "seed" => config.seed = number(&name, &value)?,
            "validation" => config.validation_every = number(&name, &value)?,
            "resume" => config.resume = number(&name, &value)?,
            "init" => config.init = Some(value),
            "continue" => config.continue_from = Some(value),
            "stop-after" => config.stop_after = Some(number(&name, &value)?),
            "mirror" => config.mirror = number(&name, &value)?,
            "buckets" => config.buckets = number(&name, &value)?,
            "king-buckets" => {
                use crate::nnue::KingBuckets;
                config.king_buckets = match value.as_str() {
                    "none" => KingBuckets::NONE,
                    _ => number(&name, &value)
                        .ok()
                        .and_then(KingBuckets::mirrored)
                        .ok_or_else(|| format!("--king-buckets {value}: none, 1, 2, 4 or 8"))?,
                }
            }
            "hidden" => config.hidden = number(&name, &value)?,
            "memory" => {
                let mb: usize = number(&name, &value)?;
                config.max_positions =
                    mb.saturating_mul(1_000_000) / super::train::BYTES_PER_POSITION;
            }
            "out" => config.out = value,
            _ => return Err(format!("unknown option --{name}").into()),
        }
    }
    if config.init.is_some() && config.continue_from.is_some() {
        return Err(super::train::INIT_AND_CONTINUE.into());
    }
    super::train::run(&config).map_err(Failure::Failed)
}

fn rescale(args: &[String]) -> Result<(), Failure> {
    let (mut positional, named) = options(args)?;
    if positional.is_empty() {
        return Err("rescale needs the net to rescale".into());
    }
    let mut config = super::rescale::Config {
        net: positional.remove(0),
        out: String::new(),
        factor: None,
        like: None,
        data: positional,
        positions: 100_000,
    };
    for (name, value) in named {
        match name.as_str() {
            "factor" => config.factor = Some(number(&name, &value)?),
            "like" => config.like = Some(value),
            "positions" => config.positions = number(&name, &value)?,
            "out" => config.out = value,
            _ => return Err(format!("unknown option --{name}").into()),
        }
    }
    if config.out.is_empty() {
        return Err("rescale needs --out NET".into());
    }
    print!("{}", super::rescale::run(&config).map_err(Failure::Failed)?);
    Ok(())
}
