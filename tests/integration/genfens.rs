//! Command-line UCI lines and `genfens`, run on the real binary the way an OpenBench worker
//! runs it: `scout "genfens N seed S book <None|FILE> [extra]" "quit"`.

use std::collections::HashSet;
use std::io::Read;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use shakmaty::fen::Fen;
use shakmaty::{CastlingMode, Chess, EnPassantMode, Position};

const BIN: &str = env!("CARGO_BIN_EXE_scout");

/// Runs the binary with these arguments and stdin closed; returns its stdout lines. Fails if it
/// has not exited after a generous time (a stall) or exits unsuccessfully.
fn run(args: &[&str]) -> Vec<String> {
    let (success, lines) = run_status(args);
    assert!(success, "{args:?} failed: {lines:?}");
    lines
}

/// `run` without the check of the exit status: whether the process succeeded, and its lines.
fn run_status(args: &[&str]) -> (bool, Vec<String>) {
    let mut child = Command::new(BIN)
        .args(args)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("the binary starts");
    let mut stdout = child.stdout.take().unwrap();
    let reader = std::thread::spawn(move || {
        let mut text = String::new();
        stdout.read_to_string(&mut text).unwrap();
        text
    });
    let deadline = Instant::now() + Duration::from_secs(600);
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        if Instant::now() > deadline {
            let _ = child.kill();
            panic!("{args:?} did not exit");
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    let lines = reader.join().unwrap().lines().map(str::to_string).collect();
    (status.success(), lines)
}

/// A training tool that cannot read its command line prints what is wrong and the usage (exit
/// status 2); one whose run fails prints the reason alone (exit status 1), as a script expects.
#[test]
fn training_tools_tell_misuse_from_failure() {
    let missing = "tests/data/no-such-file.bin";
    for (args, code, reason) in [
        (&["data"][..], 2, "no data files given"),
        (&["train", "--bogus", "1"], 2, "unknown option --bogus"),
        (&["rescale", "nets/gen0.nnue"], 2, "rescale needs --out NET"),
        (
            &["train", "--init", "a.nnue", "--continue", "b.ckpt", missing],
            2,
            "--init and --continue",
        ),
        (
            &["train", "--continue", missing, "--out", "x.nnue", missing],
            1,
            missing,
        ),
        (&["data", missing], 1, missing),
        (&["wdl-fit", missing], 1, missing),
        (
            &["train", "--epochs", "1", "--out", "x.nnue", missing],
            1,
            missing,
        ),
        (&["datagen", "--net", missing, "--games", "1"], 1, missing),
    ] {
        let out = Command::new(BIN)
            .args(args)
            .current_dir(env!("CARGO_MANIFEST_DIR"))
            .stdin(Stdio::null())
            .output()
            .expect("the binary runs");
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(code), "{args:?}: {stderr}");
        let first = stderr.lines().next().unwrap_or_default();
        assert!(
            first.starts_with(&format!("{}: ", args[0])),
            "{args:?}: {stderr}"
        );
        assert!(first.contains(reason), "{args:?}: {stderr}");
        assert_eq!(
            stderr.contains("usage: scout"),
            code == 2,
            "{args:?}: {stderr}"
        );
    }
}

/// The FENs of the `info string genfens` lines (other lines are ignored, as OpenBench does).
fn genfens(line: &str) -> Vec<String> {
    run(&[line, "quit"])
        .iter()
        .filter_map(|l| l.strip_prefix("info string genfens ").map(str::to_string))
        .collect()
}

/// Reads a FEN the way a match runner would in the given mode.
fn parse(fen: &str, mode: CastlingMode) -> Option<Chess> {
    let parsed: Fen = fen.parse().ok()?;
    parsed.into_position(mode).ok()
}

fn epd_key(fen: &str) -> String {
    fen.split(' ').take(4).collect::<Vec<_>>().join(" ")
}

fn fen_of(pos: &Chess) -> String {
    Fen::from_position(pos, EnPassantMode::Legal).to_string()
}

/// The book's positions, as FEN keys, and every position one move after them.
fn book_and_next(fens: &[&str], mode: CastlingMode) -> (HashSet<String>, HashSet<String>) {
    let mut book = HashSet::new();
    let mut next = HashSet::new();
    for fen in fens {
        let pos = parse(fen, mode).expect("a valid book position");
        book.insert(epd_key(&fen_of(&pos)));
        for m in pos.legal_moves() {
            let mut after = pos.clone();
            after.play_unchecked(m);
            next.insert(epd_key(&fen_of(&after)));
        }
    }
    (book, next)
}

fn book_lines(path: &str) -> Vec<String> {
    std::fs::read_to_string(format!("{}/{path}", env!("CARGO_MANIFEST_DIR")))
        .unwrap()
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| {
            // EPD operations to plain clocks: only the first four fields matter here.
            let f: Vec<&str> = l.split_whitespace().take(4).collect();
            format!("{} 0 1", f.join(" "))
        })
        .collect()
}

#[test]
fn openings_without_a_book_are_legal_distinct_and_reproducible() {
    let a = genfens("genfens 100 seed 7 book None");
    assert_eq!(a.len(), 100);
    let keys: HashSet<String> = a.iter().map(|f| epd_key(f)).collect();
    assert_eq!(keys.len(), 100, "all different");
    for fen in &a {
        let pos = parse(fen, CastlingMode::Standard).unwrap_or_else(|| panic!("{fen}"));
        assert!(!pos.legal_moves().is_empty(), "{fen} is over");
        // 8 or 9 random plies from the start: move 5, either side to move.
        assert_eq!(pos.fullmoves().get(), 5, "{fen}");
        assert_eq!(fen.split(' ').count(), 6, "{fen}: six fields");
    }
    assert_eq!(a, genfens("genfens 100 seed 7 book None"), "same seed");
    let b = genfens("genfens 100 seed 8 book None");
    assert!(
        b.iter().all(|f| !keys.contains(&epd_key(f))),
        "another seed, other openings"
    );
}

#[test]
fn openings_from_an_epd_book_start_at_its_positions() {
    let lines = book_lines("tests/data/genfens/standard.epd");
    let fens: Vec<&str> = lines.iter().map(String::as_str).collect();
    let (book, next) = book_and_next(&fens, CastlingMode::Standard);
    // `plies 0`: the book's position itself or one random ply after it.
    let out = genfens("genfens 5 seed 3 book tests/data/genfens/standard.epd plies 0");
    assert_eq!(out.len(), 5);
    for fen in &out {
        let key = epd_key(fen);
        assert!(
            book.contains(&key) || next.contains(&key),
            "{fen} is not from the book"
        );
    }
    assert_eq!(
        out.iter().map(|f| epd_key(f)).collect::<HashSet<_>>().len(),
        5
    );
    // EPD clocks (`hmvc 1; fmvn 2;`) are kept.
    let drawn = genfens("genfens 20 seed 5 book tests/data/genfens/standard.epd plies 0");
    let nf6 = drawn
        .iter()
        .find(|f| f.starts_with("rnbqkb1r/pppppppp/5n2/8/3P4/8/PPP1PPPP/RNBQKBNR w KQkq - "))
        .expect("seed 5 draws 1. d4 Nf6 without a random ply");
    assert!(nf6.ends_with(" 1 2"), "{nf6}");
    // The default (4 or 5 random plies) goes further than the book.
    for fen in genfens("genfens 10 seed 3 book tests/data/genfens/standard.epd") {
        let key = epd_key(&fen);
        assert!(!book.contains(&key) && !next.contains(&key), "{fen}");
        assert!(parse(&fen, CastlingMode::Standard).is_some(), "{fen}");
    }
}

#[test]
fn a_chess960_book_is_recognised_and_its_notation_kept() {
    for (path, shredder) in [
        ("tests/data/genfens/frc_shredder.epd", true),
        ("tests/data/genfens/frc_xfen.epd", false),
    ] {
        let lines = book_lines(path);
        let fens: Vec<&str> = lines.iter().map(String::as_str).collect();
        let (book, next) = book_and_next(&fens, CastlingMode::Chess960);
        let out = genfens(&format!("genfens 3 seed 11 book {path} plies 0"));
        assert_eq!(out.len(), 3, "{path}");
        for fen in &out {
            let pos = parse(fen, CastlingMode::Chess960).unwrap_or_else(|| panic!("{fen}"));
            let key = epd_key(&fen_of(&pos));
            assert!(
                book.contains(&key) || next.contains(&key),
                "{fen} not from {path}"
            );
            let castling = fen.split(' ').nth(2).unwrap();
            let by_file = castling.chars().any(|c| matches!(c, 'A'..='H' | 'a'..='h'));
            let by_side = castling.chars().any(|c| "KQkq".contains(c));
            if shredder {
                assert!(!by_side, "{fen}: Shredder-FEN expected");
            } else {
                assert!(!by_file, "{fen}: X-FEN expected");
            }
        }
        // Deeper openings from the same book stay legal Chess960 positions.
        for fen in genfens(&format!("genfens 10 seed 2 book {path}")) {
            assert!(parse(&fen, CastlingMode::Chess960).is_some(), "{fen}");
        }
    }
}

#[test]
fn openings_from_a_pgn_book_start_at_its_games_ends() {
    let ends = [
        "r1bqkbnr/pppp1ppp/2n5/1B2p3/4P3/5N2/PPPP1PPP/RNBQK2R b KQkq - 3 3",
        "rnbqk2r/pppp1ppp/4pn2/8/1bPP4/2N5/PP2PPPP/R1BQKBNR w KQkq - 2 4",
        "r1bqk1nr/pp1pppbp/2n3p1/2p5/2P5/2N3P1/PP1PPPBP/R1BQK1NR w KQkq - 4 5",
    ];
    let (book, next) = book_and_next(&ends, CastlingMode::Standard);
    let out = genfens("genfens 3 seed 4 book tests/data/genfens/book.pgn plies 0 maxscore 2000");
    assert_eq!(out.len(), 3);
    for fen in &out {
        let key = epd_key(fen);
        assert!(
            book.contains(&key) || next.contains(&key),
            "{fen} is not from the book"
        );
    }
}

#[test]
fn chess960_start_positions_without_a_book() {
    for variant in ["frc", "dfrc"] {
        let out = genfens(&format!("genfens 20 seed 9 book None {variant}"));
        assert_eq!(out.len(), 20);
        let keys: HashSet<String> = out.iter().map(|f| epd_key(f)).collect();
        assert_eq!(keys.len(), 20);
        for fen in &out {
            let pos = parse(fen, CastlingMode::Chess960).unwrap_or_else(|| panic!("{fen}"));
            assert!(!pos.legal_moves().is_empty());
            assert!(
                !fen.split(' ')
                    .nth(2)
                    .unwrap()
                    .contains(['K', 'Q', 'k', 'q']),
                "{fen}"
            );
        }
        // Start positions (a random ply at most): Black's back rank mirrors White's in
        // Chess960, and in double Chess960 almost never.
        let starts = genfens(&format!("genfens 20 seed 9 book None {variant} plies 0"));
        let mirrored = starts
            .iter()
            .filter(|fen| {
                let ranks: Vec<&str> = fen.split([' ', '/']).take(8).collect();
                ranks[0].to_ascii_uppercase() == ranks[7]
            })
            .count();
        if variant == "frc" {
            assert!(mirrored >= 10, "{starts:?}");
        } else {
            assert!(mirrored <= 2, "{starts:?}");
        }
    }
}

#[test]
fn a_small_book_never_stalls() {
    // One position and no random plies: after the few distinct openings there are, the rest
    // come as they are (with a warning) instead of never.
    let dir = std::env::temp_dir().join(format!("scout-genfens-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let book = dir.join("one.epd");
    std::fs::write(&book, "8/8/8/4k3/8/8/3QK3/8 w - - 0 1\n").unwrap();
    let lines = run(&[
        &format!("genfens 40 seed 1 book {} plies 0", book.display()),
        "quit",
    ]);
    let _ = std::fs::remove_dir_all(&dir);
    let fens: Vec<&String> = lines
        .iter()
        .filter(|l| l.starts_with("info string genfens "))
        .collect();
    assert_eq!(fens.len(), 40);
    let warnings = lines
        .iter()
        .filter(|l| l.starts_with("info string warning: genfens"));
    assert_eq!(warnings.count(), 1, "{lines:?}");
}

#[test]
fn bad_requests_are_refused_without_openings() {
    for line in [
        "genfens 5 seed 1 book tests/data/genfens/no-such-book.epd",
        "genfens 5 book None",
        "genfens many seed 1 book None",
        "genfens 5 seed 1 book None sparkle",
    ] {
        let (_, out) = run_status(&[line, "quit"]);
        assert!(
            out.iter().all(|l| !l.starts_with("info string genfens ")),
            "{line}: {out:?}"
        );
        assert!(
            out.iter().any(|l| l.contains("genfens")),
            "{line}: no message: {out:?}"
        );
    }
}

#[test]
fn command_line_arguments_run_as_uci_lines_then_exit() {
    let out = run(&[
        "uci",
        "position startpos moves e2e4",
        "go depth 4",
        "isready",
        "quit",
        "isready",
    ]);
    assert!(out.iter().any(|l| l == "uciok"));
    let best = out
        .iter()
        .position(|l| l.starts_with("bestmove "))
        .expect("a bestmove");
    let ready: Vec<usize> = (0..out.len()).filter(|&i| out[i] == "readyok").collect();
    // The search finishes before the next line runs, and nothing runs after `quit`.
    assert_eq!(ready.len(), 1, "{out:?}");
    assert!(ready[0] > best, "{out:?}");
    let mv = out[best].split_whitespace().nth(1).unwrap();
    let mut pos = Chess::default();
    pos.play_unchecked(
        shakmaty::uci::UciMove::from_ascii(b"e2e4")
            .unwrap()
            .to_move(&pos)
            .unwrap(),
    );
    let reply = shakmaty::uci::UciMove::from_ascii(mv.as_bytes()).unwrap();
    assert!(reply.to_move(&pos).is_ok(), "{mv} is a legal reply to e4");
    assert!(
        out.iter().any(|l| l.starts_with("info depth 4 ")),
        "{out:?}"
    );

    // Without `quit` the engine exits after the last line; a search only `stop` could end is
    // refused; several lines may come in one argument.
    let out = run(&["go infinite", "position startpos\ngo nodes 500"]);
    assert!(out.iter().any(|l| l.contains("needs a limit")), "{out:?}");
    assert_eq!(
        out.iter().filter(|l| l.starts_with("bestmove ")).count(),
        1,
        "{out:?}"
    );

    // A line that is no command is answered and makes the process fail (a mistyped tool).
    let (success, out) = run_status(&["benchh"]);
    assert!(!success, "{out:?}");
    assert!(
        out.iter()
            .any(|l| l.starts_with("info string unknown command")),
        "{out:?}"
    );

    // `--help`, alone or after a tool's name, prints the usage on stdout and succeeds.
    for args in [
        &["--help"][..],
        &["convert", "--help"],
        &["datagen", "-h"],
        &["bench", "-h"],
    ] {
        let (success, out) = run_status(args);
        assert!(success, "{args:?}: {out:?}");
        assert!(
            out.iter().any(|l| l.starts_with("usage: scout")),
            "{args:?}: {out:?}"
        );
    }

    // Every option the training tools read (the `"name" =>` arms of their command lines) is
    // in the usage, as a whole word (so that `--lr` cannot hide inside `--lr-end`).
    let usage = run(&["--help"]).join("\n");
    let words: Vec<&str> = usage
        .split(|c: char| c.is_whitespace() || c == '[' || c == ']')
        .collect();
    let tools = [
        "datagen", "train", "data", "wdl-fit", "rescale", "convert", "none",
    ];
    let options: Vec<&str> = include_str!("../../src/training/cli.rs")
        .lines()
        .filter_map(|l| l.trim().strip_prefix('"')?.split_once("\" =>"))
        .map(|(name, _)| name)
        .filter(|name| !tools.contains(name))
        .collect();
    assert!(options.len() > 20, "{options:?}");
    for name in options {
        assert!(
            words.contains(&format!("--{name}").as_str()),
            "--{name} not in {usage}"
        );
    }

    // The tools keep their command-line form.
    let out = run(&["perft", "2"]);
    assert!(out.iter().any(|l| l.contains("400")), "{out:?}");
}
