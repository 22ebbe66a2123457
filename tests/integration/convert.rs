//! `scout convert`: match games become training data with exactly the positions and scores the
//! engines printed, and damaged PGNs are refused without losing what came before.
//!
//! The fixtures in tests/data/pgn are fastchess games between two copies of Scout (a standard
//! pair from book openings, one Chess960 game), the engines' own output for every move distilled
//! from fastchess's engine log (`*.expected`: position, bestmove, last score printed), and the
//! standard games rewritten the way cutechess-cli and OpenBench write their comments
//! (tests/data/pgn/fixtures.py says how each was made).
#![cfg(feature = "training")]

use std::path::{Path, PathBuf};
use std::process::Command;

use scout::training::packed::{self, GAME_END, Outcome, Packed};
use shakmaty::fen::Fen;
use shakmaty::uci::UciMove;
use shakmaty::{CastlingMode, Chess, Color, Position};

const BIN: &str = env!("CARGO_BIN_EXE_scout");

fn data(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data/pgn")
        .join(name)
}

/// A scratch directory for one test.
struct Scratch(PathBuf);

impl Scratch {
    fn new(name: &str) -> Scratch {
        let dir = std::env::temp_dir().join(format!("scout-convert-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        Scratch(dir)
    }
    fn path(&self, name: &str) -> PathBuf {
        self.0.join(name)
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// Runs `scout convert INPUTS --out OUT`: success, stderr, and the records in OUT.
fn convert(inputs: &[&Path], out: &Path) -> (bool, String, Vec<Packed>) {
    let output = Command::new(BIN)
        .arg("convert")
        .args(inputs)
        .arg("--out")
        .arg(out)
        .output()
        .expect("the binary runs");
    let bytes = std::fs::read(out).unwrap_or_default();
    assert_eq!(bytes.len() % packed::RECORD, 0);
    let records = bytes
        .chunks_exact(packed::RECORD)
        .map(|c| Packed(c.try_into().unwrap()))
        .collect();
    (
        output.status.success(),
        String::from_utf8_lossy(&output.stderr).into_owned(),
        records,
    )
}

/// What an `.expected` file says the engines did, filtered the way datagen filters: per game,
/// the records that must come out, and the number of engine moves.
fn expected(name: &str) -> Vec<(Vec<Packed>, usize)> {
    let text = std::fs::read_to_string(data(name)).unwrap();
    /// A game's result, its kept positions with White's score, its engine moves.
    type Game = (Outcome, Vec<(Chess, i32)>, usize);
    let mut games: Vec<Game> = Vec::new();
    for line in text.lines() {
        if let Some(rest) = line.strip_prefix("game ") {
            let result = rest.split_whitespace().nth(1).unwrap();
            let outcome = match result {
                "1-0" => Outcome::Win,
                "0-1" => Outcome::Loss,
                "1/2-1/2" => Outcome::Draw,
                other => panic!("result {other}"),
            };
            games.push((outcome, Vec::new(), 0));
            continue;
        }
        let fields: Vec<&str> = line.split(';').collect();
        let fen: Fen = fields[0].parse().unwrap();
        let pos: Chess = fen.into_position(CastlingMode::Chess960).unwrap();
        let mv = UciMove::from_ascii(fields[1].as_bytes())
            .unwrap()
            .to_move(&pos)
            .unwrap_or_else(|_| panic!("{line}"));
        let game = games.last_mut().unwrap();
        game.2 += 1;
        let cp = fields[2]
            .strip_prefix("cp ")
            .map(|s| s.parse::<i32>().unwrap());
        if let Some(cp) = cp
            && !pos.is_check()
            && !mv.is_capture()
            && !mv.is_promotion()
        {
            let white = if pos.turn() == Color::White { cp } else { -cp };
            game.1.push((pos, white));
        }
    }
    games
        .into_iter()
        .map(|(outcome, kept, moves)| {
            let n = kept.len();
            let records = kept
                .iter()
                .enumerate()
                .map(|(i, (p, s))| {
                    Packed::new(p, *s, outcome, if i + 1 == n { GAME_END } else { 0 })
                })
                .collect();
            (records, moves)
        })
        .collect()
}

/// A number from the summary line: the count just before `what`.
fn count(summary: &str, what: &str) -> u64 {
    let at = summary
        .find(what)
        .unwrap_or_else(|| panic!("no '{what}' in {summary}"));
    summary[..at]
        .split_whitespace()
        .last()
        .unwrap()
        .parse()
        .unwrap()
}

#[test]
fn fastchess_games_convert_to_exactly_what_the_engines_printed() {
    let scratch = Scratch::new("fastchess");
    for (pgn, exp, book) in [
        (
            "fastchess_standard.pgn",
            "fastchess_standard.expected",
            5 + 6,
        ),
        ("fastchess_chess960.pgn", "fastchess_chess960.expected", 0),
    ] {
        let out = scratch.path(&format!("{pgn}.bin"));
        let (ok, summary, records) = convert(&[&data(pgn)], &out);
        assert!(ok, "{summary}");
        let games = expected(exp);
        let want: Vec<Packed> = games.iter().flat_map(|g| g.0.clone()).collect();
        assert_eq!(records.len(), want.len(), "{pgn}: {summary}");
        for (i, (got, want)) in records.iter().zip(&want).enumerate() {
            assert_eq!(
                got,
                want,
                "{pgn} record {i}: {:?} {} vs {:?} {}",
                got.position(),
                got.score(),
                want.position(),
                want.score()
            );
        }
        // Every move is accounted for: the engines' moves and the book's.
        let engine_moves: usize = games.iter().map(|g| g.1).sum();
        assert_eq!(
            count(&summary, "moves:"),
            (engine_moves + book) as u64,
            "{summary}"
        );
        assert_eq!(count(&summary, "positions kept"), want.len() as u64);
        assert_eq!(count(&summary, "book"), book as u64);
        for reason in ["captures", "in check", "mate scores", "promotions"] {
            assert!(
                count(&summary, reason) > 0,
                "{pgn}: no {reason} left out: {summary}"
            );
        }
        assert_eq!(count(&summary, "without a score"), 0);
        if pgn.contains("960") {
            assert!(records.iter().any(|r| r.has_castling_rights()));
        }
    }
}

#[test]
fn cutechess_and_openbench_comments_give_the_same_records() {
    let scratch = Scratch::new("styles");
    let (_, _, reference) = convert(&[&data("fastchess_standard.pgn")], &scratch.path("fc.bin"));
    assert!(!reference.is_empty());
    for style in ["cutechess_style.pgn", "openbench_style.pgn"] {
        let (ok, summary, records) =
            convert(&[&data(style)], &scratch.path(&format!("{style}.bin")));
        assert!(ok, "{style}: {summary}");
        assert_eq!(records, reference, "{style}");
    }
}

#[test]
fn several_files_append_in_order() {
    let scratch = Scratch::new("several");
    let out = scratch.path("all.bin");
    let std_pgn = data("fastchess_standard.pgn");
    let frc_pgn = data("fastchess_chess960.pgn");
    let (ok, summary, both) = convert(&[&std_pgn, &frc_pgn], &out);
    assert!(ok, "{summary}");
    let (_, _, a) = convert(&[&std_pgn], &scratch.path("a.bin"));
    let (_, _, b) = convert(&[&frc_pgn], &scratch.path("b.bin"));
    assert_eq!(both, [a.clone(), b].concat());
    // A second run appends (the format is a plain sequence of whole games).
    let (ok, _, twice) = convert(&[&std_pgn], &out);
    assert!(ok);
    assert_eq!(twice.len(), both.len() + a.len());
    assert_eq!(
        packed::count_games(&std::fs::read(&out).unwrap()),
        2 + 1 + 2
    );
}

/// The fixture's text up to (not including) line `n` (1-based).
fn first_lines(text: &str, n: usize) -> String {
    text.split_inclusive('\n').take(n - 1).collect()
}

#[test]
fn damaged_pgns_are_refused_and_the_games_before_kept() {
    let scratch = Scratch::new("damaged");
    let text = std::fs::read_to_string(data("fastchess_standard.pgn")).unwrap();
    let game2_line = text.lines().position(|l| l == "[Round \"2\"]").unwrap() + 1 - 3;
    let first_game = &expected("fastchess_standard.expected")[0].0;

    // Truncated in the middle of game 2's moves.
    let movetext_line = game2_line
        + text
            .lines()
            .skip(game2_line)
            .position(|l| l.starts_with("1."))
            .unwrap()
        + 1;
    let cut_at = movetext_line + 3;
    let truncated = scratch.path("truncated.pgn");
    let mut cut = first_lines(&text, cut_at);
    cut.push_str(&text.lines().nth(cut_at - 1).unwrap()[..20]);
    std::fs::write(&truncated, cut).unwrap();
    let out = scratch.path("truncated.bin");
    let (ok, message, records) = convert(&[&truncated], &out);
    assert!(!ok, "a truncated PGN is refused");
    assert!(
        message.contains(&format!("game 2 (from line {game2_line}), line {cut_at}:")),
        "{message}"
    );
    assert!(message.contains("truncated"), "{message}");
    assert_eq!(&records, first_game, "game 1 is kept");

    // Garbage after game 1: named as game 2, at its line.
    let garbage = scratch.path("garbage.pgn");
    let mut damaged = first_lines(&text, game2_line);
    let garbage_line = damaged.lines().count() + 2;
    damaged.push_str("\n\u{1}\u{7f}GIF89a this is not chess \u{0} at all\n");
    std::fs::write(&garbage, &damaged).unwrap();
    let (ok, message, records) = convert(&[&garbage], &scratch.path("garbage.bin"));
    assert!(!ok);
    assert!(
        message.contains(&format!("game 2 at line {garbage_line}: not PGN")),
        "{message}"
    );
    assert_eq!(&records, first_game);

    // A file that is nothing but garbage, and an empty one.
    let binary = scratch.path("binary.pgn");
    std::fs::write(&binary, [0u8, 159, 146, 150, 255, 0, 13, 10]).unwrap();
    let (ok, message, records) = convert(&[&binary], &scratch.path("binary.bin"));
    assert!(!ok && records.is_empty());
    assert!(message.contains("game 1 at line 1"), "{message}");
    let empty = scratch.path("empty.pgn");
    std::fs::write(&empty, "").unwrap();
    let (ok, message, records) = convert(&[&empty], &scratch.path("empty.bin"));
    assert!(!ok && records.is_empty());
    assert!(message.contains("empty.pgn: no games"), "{message}");

    // An illegal move names its line.
    let illegal = scratch.path("illegal.pgn");
    let mut bad = first_lines(&text, movetext_line + 1);
    bad.push_str("Ka8 {+0.10/5} 1-0\n");
    std::fs::write(&illegal, &bad).unwrap();
    let (ok, message, _) = convert(&[&illegal], &scratch.path("illegal.bin"));
    assert!(!ok);
    assert!(
        message.contains(&format!("line {}: move", movetext_line + 1)),
        "{message}"
    );

    // Files after a damaged one are not read; those before it are kept.
    let out = scratch.path("sequence.bin");
    let (ok, message, records) = convert(
        &[
            &data("fastchess_chess960.pgn"),
            &truncated,
            &data("fastchess_standard.pgn"),
        ],
        &out,
    );
    assert!(
        !ok && message.contains("truncated.pgn: game 2"),
        "{message}"
    );
    let chess960 = &expected("fastchess_chess960.expected")[0].0;
    assert_eq!(records, [chess960.clone(), first_game.clone()].concat());
}

#[test]
fn an_output_that_is_not_scout_data_is_left_alone() {
    let scratch = Scratch::new("output");
    let victim = scratch.path("games.pgn");
    std::fs::copy(data("fastchess_chess960.pgn"), &victim).unwrap();
    let before = std::fs::read(&victim).unwrap();
    let output = Command::new(BIN)
        .args(["convert"])
        .arg(data("fastchess_standard.pgn"))
        .arg("--out")
        .arg(&victim)
        .output()
        .unwrap();
    assert!(!output.status.success());
    assert!(String::from_utf8_lossy(&output.stderr).contains("refusing"));
    assert_eq!(std::fs::read(&victim).unwrap(), before);
}
