//! Command-line entry point: `scout` speaks UCI on stdin/stdout; `scout bench [DEPTH [THREADS
//! [NET]]]`, `scout perft DEPTH [FEN]`, `scout datagen ...`, `scout data ...`, `scout convert
//! ...`, `scout train ...` and `scout wdl-fit ...` run the tools and exit. Any other arguments
//! are UCI lines, run in order before the engine exits (`scout "genfens 10 seed 1 book None"
//! "quit"`, as OpenBench does).

use std::process::ExitCode;
use std::sync::Arc;

use scout::engine::Engine;
use scout::position::Position;
use scout::search::SharedFlags;
use shakmaty::CastlingMode;

fn usage() -> ExitCode {
    eprintln!("usage: scout                      start the UCI engine");
    eprintln!("       scout \"UCI LINE\"...        run the lines as UCI commands, then exit");
    eprintln!("       scout bench [DEPTH [THREADS [NET]]]");
    eprintln!("                                  fixed-depth search over the bench positions");
    eprintln!("                                  (with the built-in net, or the net file NET)");
    eprintln!("       scout perft DEPTH [FEN]    move-generation count with per-move divide");
    eprintln!("       scout datagen [--games N] [--nodes N] [--threads N] [--random-plies N]");
    eprintln!("                     [--seed N] [--net NET] [--out FILE]  self-play training data");
    eprintln!("       scout train --out NET [--epochs N] [--lr X] [--lr-end FRACTION]");
    eprintln!("                   [--weight-decay X] [--lambda X] [--batch N] [--hidden N]");
    eprintln!("                   [--memory MB]");
    eprintln!(
        "                   [--buckets 1|8] [--threads N] [--seed N] [--validation N] \
         [--resume true]"
    );
    eprintln!("                   [--stop-after EPOCHS] [--mirror false] [--init NET] DATA...");
    eprintln!("                                  trains the network on datagen files");
    eprintln!("       scout data DATA...             what datagen files hold: games, results,");
    eprintln!("                                  duplicates, pieces and scores");
    eprintln!(
        "       scout wdl-fit DATA...          fits the win/draw/loss model to datagen files"
    );
    eprintln!("       scout convert PGN... --out FILE");
    eprintln!("                                  match games (fastchess, cutechess, OpenBench)");
    eprintln!("                                  as training data, appended to FILE");
    ExitCode::from(2)
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

fn datagen(args: &[String]) -> Result<(), String> {
    let (positional, named) = options(args)?;
    if !positional.is_empty() {
        return Err(format!("unexpected argument {}", positional[0]));
    }
    let mut config = scout::tools::datagen::Config::default();
    for (name, value) in named {
        match name.as_str() {
            "games" => config.games = number(&name, &value)?,
            "nodes" => config.nodes = number(&name, &value)?,
            "threads" => config.threads = number(&name, &value)?,
            "random-plies" => config.random_plies = number(&name, &value)?,
            "seed" => config.seed = number(&name, &value)?,
            "out" => config.out = value,
            "net" => {
                config.net = Arc::new(scout::nnue::file::load(&value)?);
            }
            _ => return Err(format!("unknown option --{name}")),
        }
    }
    let n = scout::tools::datagen::run(&config).map_err(|e| format!("{}: {e}", config.out))?;
    eprintln!("wrote {n} positions to {}", config.out);
    Ok(())
}

fn convert(args: &[String]) -> Result<(), String> {
    let (inputs, named) = options(args)?;
    let mut out = None;
    for (name, value) in named {
        match name.as_str() {
            "out" => out = Some(value),
            _ => return Err(format!("unknown option --{name}")),
        }
    }
    let out = out.ok_or("convert needs --out FILE")?;
    if inputs.is_empty() {
        return Err("convert needs at least one PGN file".to_string());
    }
    let mut stats = scout::tools::convert::Stats::default();
    let result = scout::tools::convert::run(&inputs, &out, &mut stats);
    if let Err(e) = &result {
        eprintln!("convert: {e}");
        eprintln!("convert: up to there, {stats}");
        eprintln!(
            "convert: {} positions appended to {out} (the games before the error)",
            stats.kept
        );
        // Already said: nothing more to print.
        return Err(String::new());
    }
    eprintln!("convert: {stats}");
    eprintln!("convert: {} positions appended to {out}", stats.kept);
    Ok(())
}

fn train(args: &[String]) -> Result<(), String> {
    let (positional, named) = options(args)?;
    let mut config = scout::tools::train::Config {
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
            "batch" => config.batch = number(&name, &value)?,
            "threads" => config.threads = number(&name, &value)?,
            "seed" => config.seed = number(&name, &value)?,
            "validation" => config.validation_every = number(&name, &value)?,
            "resume" => config.resume = number(&name, &value)?,
            "init" => config.init = Some(value),
            "stop-after" => config.stop_after = Some(number(&name, &value)?),
            "mirror" => config.mirror = number(&name, &value)?,
            "buckets" => config.buckets = number(&name, &value)?,
            "hidden" => config.hidden = number(&name, &value)?,
            "memory" => {
                let mb: usize = number(&name, &value)?;
                config.max_positions =
                    mb.saturating_mul(1_000_000) / scout::tools::train::BYTES_PER_POSITION;
            }
            "out" => config.out = value,
            _ => return Err(format!("unknown option --{name}")),
        }
    }
    scout::tools::train::run(&config)
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    match args.first().map(String::as_str) {
        None => {
            Engine::new(Arc::new(SharedFlags::default())).run();
            ExitCode::SUCCESS
        }
        Some("bench") => {
            let depth = match args.get(1).map(|d| d.parse::<i32>()) {
                None => scout::tools::bench::DEFAULT_DEPTH,
                Some(Ok(d)) if (1..=64).contains(&d) => d,
                _ => return usage(),
            };
            let threads = match args.get(2).map(|t| t.parse::<usize>()) {
                None => 1,
                Some(Ok(t)) if (1..=scout::threads::MAX_THREADS).contains(&t) => t,
                _ => return usage(),
            };
            let net = match args.get(3) {
                None => scout::nnue::default_network(),
                Some(path) => match scout::nnue::file::load(path) {
                    Ok(net) => Arc::new(net),
                    Err(e) => {
                        eprintln!("{e}");
                        return ExitCode::from(2);
                    }
                },
            };
            let flags = std::sync::Arc::new(scout::search::SharedFlags::default());
            scout::tools::bench::run_threads(depth, threads, net, flags, &mut std::io::stdout());
            ExitCode::SUCCESS
        }
        Some("perft") => {
            let Some(Ok(depth)) = args.get(1).map(|d| d.parse::<u32>()) else {
                return usage();
            };
            let fen = if args.len() > 2 {
                args[2..].join(" ")
            } else {
                "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1".to_string()
            };
            // Standard castling notation when the FEN allows it, Chess960 otherwise.
            match Position::from_fen_any(&fen, CastlingMode::Standard) {
                Ok((pos, mode)) => {
                    let stop = std::sync::atomic::AtomicBool::new(false);
                    let out = &mut std::io::stdout();
                    scout::tools::perft::divide(pos.chess(), depth, mode, &stop, out);
                    ExitCode::SUCCESS
                }
                Err(e) => {
                    eprintln!("{e}");
                    ExitCode::from(2)
                }
            }
        }
        Some("data") => match scout::tools::datasummary::run(&args[1..]) {
            Ok(report) => {
                print!("{report}");
                ExitCode::SUCCESS
            }
            Err(e) => {
                eprintln!("{e}");
                usage()
            }
        },
        Some("wdl-fit") => match scout::tools::wdlfit::run(&args[1..], 3000) {
            Ok(report) => {
                print!("{report}");
                ExitCode::SUCCESS
            }
            Err(e) => {
                eprintln!("{e}");
                usage()
            }
        },
        Some(tool @ ("datagen" | "train")) => {
            let run = if tool == "datagen" { datagen } else { train };
            match run(&args[1..]) {
                Ok(()) => ExitCode::SUCCESS,
                Err(e) => {
                    eprintln!("{e}");
                    usage()
                }
            }
        }
        Some("convert") => match convert(&args[1..]) {
            Ok(()) => ExitCode::SUCCESS,
            Err(e) => {
                if !e.is_empty() {
                    eprintln!("convert: {e}");
                }
                ExitCode::FAILURE
            }
        },
        Some("-h" | "--help" | "help") => usage(),
        Some(_) => {
            Engine::new(Arc::new(SharedFlags::default())).run_lines(&args);
            ExitCode::SUCCESS
        }
    }
}
