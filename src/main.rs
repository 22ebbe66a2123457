//! Command-line entry point: `scout` speaks UCI on stdin/stdout; `scout bench [DEPTH [THREADS
//! [NET]]]`, `scout perft DEPTH [FEN]`, `scout spsa` (a tuning build's parameters) and the
//! training tools (`scout datagen ...`, `data ...`, `convert ...`, `train ...`, `rescale ...`,
//! `wdl-fit ...`) run and exit. Any other arguments are UCI lines, run in order before the
//! engine exits (`scout "genfens 10 seed 1 book None" "quit"`, as OpenBench does).

use std::process::ExitCode;
use std::sync::Arc;

use scout::controller::Controller;
use scout::position::Position;
use scout::search::SharedFlags;
use shakmaty::CastlingMode;

/// What `scout --help` prints (and a wrong command line, on stderr).
const USAGE: &str = "\
usage: scout                      start the UCI engine
       scout \"UCI LINE\"...        run the lines as UCI commands, then exit
       scout bench [DEPTH [THREADS [NET]]]
                                  fixed-depth search over the bench positions
                                  (with the built-in net, or the net file NET)
       scout perft DEPTH [FEN]    move-generation count with per-move divide
       scout spsa                 the tunable parameters as OpenBench SPSA input
                                  (a build with --features tune)
       scout datagen [--games N] [--nodes N] [--threads N] [--random-plies N]
                     [--seed N] [--net NET] [--out FILE]  self-play training data
       scout train --out NET [--epochs N] [--lr X] [--lr-end FRACTION]
                   [--weight-decay X] [--lambda X] [--eval-scale K] [--loss-power P]
                   [--batch N] [--hidden N] [--memory MB] [--king-buckets none|1|2|4|8]
                   [--buckets 1|8] [--threads N] [--seed N] [--validation N] [--resume true]
                   [--stop-after EPOCHS] [--mirror false] [--init NET | --continue CKPT]
                   DATA...
                                  trains the network on datagen files
       scout data DATA...         what datagen files hold: games, results,
                                  duplicates, pieces and scores
       scout rescale NET|CKPT --out NET [--factor X] [--like REF DATA... [--positions N]]
                                  the net with its output scaled by X, or to REF's
                                  scale measured on the positions of DATA
       scout wdl-fit DATA...      fits the win/draw/loss model to datagen files
       scout convert PGN... --out FILE [--player NAME] [--scale X] [--material-scaled true]
                                  match games (fastchess, cutechess, OpenBench)
                                  as training data, appended to FILE (scores
                                  times X: 1/F for a net rescaled by F)
";

/// A command line Scout does not understand: the usage on stderr, exit status 2.
fn usage() -> ExitCode {
    eprint!("{USAGE}");
    ExitCode::from(2)
}

/// `scout --help`, or `--help`/`-h` after a tool's name: the usage on stdout.
fn help() -> ExitCode {
    print!("{USAGE}");
    ExitCode::SUCCESS
}

/// `scout spsa`: in a tuning build, every tunable parameter as a line of OpenBench's SPSA input
/// (`name, int, value, min, max, c_end, r_end`), the step as `c_end` and 0.002 as `r_end`.
fn spsa() -> ExitCode {
    if cfg!(feature = "tune") {
        for p in scout::params::TABLE {
            println!(
                "{}, int, {}, {}, {}, {}, 0.002",
                p.name, p.default, p.min, p.max, p.step
            );
        }
        ExitCode::SUCCESS
    } else {
        eprintln!(
            "spsa: the parameters are UCI options only in a tuning build: \
             cargo build --release --features tune"
        );
        ExitCode::from(2)
    }
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    match args.first().map(String::as_str) {
        Some(
            "bench" | "perft" | "spsa" | "datagen" | "convert" | "data" | "train" | "rescale"
            | "wdl-fit",
        ) if args[1..].iter().any(|a| a == "--help" || a == "-h") => help(),
        None => {
            Controller::new(Arc::new(SharedFlags::default())).run();
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
        #[cfg(feature = "training")]
        Some(tool @ ("datagen" | "convert" | "data" | "train" | "rescale" | "wdl-fit")) => {
            scout::training::cli::run(tool, &args[1..], usage).unwrap_or_else(usage)
        }
        #[cfg(not(feature = "training"))]
        Some("datagen" | "convert" | "data" | "train" | "rescale" | "wdl-fit") => {
            eprintln!("this build has no training tools: build it with the default features");
            ExitCode::from(2)
        }
        Some("spsa") => spsa(),
        Some("-h" | "--help" | "help") => help(),
        Some(_) => {
            if Controller::new(Arc::new(SharedFlags::default())).run_lines(&args) {
                ExitCode::SUCCESS
            } else {
                ExitCode::from(2)
            }
        }
    }
}
