//! Command-line entry point: `scout` speaks UCI on stdin/stdout; `scout bench [DEPTH]` and
//! `scout perft DEPTH [FEN]` run the tools and exit.

use std::process::ExitCode;
use std::sync::Arc;

use scout::engine::Engine;
use scout::position::Position;
use scout::search::SharedFlags;
use shakmaty::CastlingMode;

fn usage() -> ExitCode {
    eprintln!("usage: scout                      start the UCI engine");
    eprintln!("       scout bench [DEPTH]        fixed-depth search over the bench positions");
    eprintln!("       scout perft DEPTH [FEN]    move-generation count with per-move divide");
    ExitCode::from(2)
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
                None => scout::bench::DEFAULT_DEPTH,
                Some(Ok(d)) if (1..=64).contains(&d) => d,
                _ => return usage(),
            };
            scout::bench::run(depth, &mut std::io::stdout());
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
            let parsed = Position::from_fen(&fen, CastlingMode::Standard)
                .map(|p| (p, CastlingMode::Standard))
                .or_else(|_| {
                    Position::from_fen(&fen, CastlingMode::Chess960)
                        .map(|p| (p, CastlingMode::Chess960))
                });
            match parsed {
                Ok((pos, mode)) => {
                    scout::perft::divide(pos.chess(), depth, mode, &mut std::io::stdout());
                    ExitCode::SUCCESS
                }
                Err(e) => {
                    eprintln!("{e}");
                    ExitCode::from(2)
                }
            }
        }
        Some(_) => usage(),
    }
}
