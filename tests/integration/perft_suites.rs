//! Perft suites: exact leaf counts for the standard and Chess960 suites of `tests/data/perft`
//! through `scout::tools::perft::perft`, and the `scout perft DEPTH FEN` command line (with the
//! other tools' command lines: `bench`, `data`).
//!
//! Depths are chosen so that every test stays quick in `cargo test --release` on two cores:
//! all 128 standard positions up to counts of 5,000,000, all 960 Chess960 positions up to
//! 2,000,000 (about 3 s in all on two cores). The
//! suites are split into several tests so the harness can run them in parallel.

use crate::common;

use std::process::Command;
use std::time::Instant;

use common::*;
use shakmaty::{CastlingMode, Position};

/// Largest count checked in the standard suite.
const STANDARD_LIMIT: u64 = 5_000_000;
/// Largest count checked in the Chess960 suite.
const FISCHER_LIMIT: u64 = 2_000_000;

/// Runs every listed depth with a count up to `limit`; returns (positions, checks, leaves).
fn run_suite(cases: &[PerftCase], mode: CastlingMode, limit: u64) -> (usize, usize, u64) {
    let mut failures = Vec::new();
    let mut checks = 0;
    let mut leaves = 0;
    for case in cases {
        let pos = chess_from_fen(&case.fen, mode)
            .unwrap_or_else(|e| panic!("line {}: cannot set up {:?}: {e}", case.line, case.fen));
        for &(depth, expected) in &case.counts {
            if expected > limit {
                continue;
            }
            let got = scout::tools::perft::perft(&pos, depth);
            checks += 1;
            leaves += got;
            if got != expected {
                failures.push(format!(
                    "line {}: {} depth {depth}: expected {expected}, got {got}",
                    case.line, case.fen
                ));
            }
        }
    }
    assert!(
        failures.is_empty(),
        "{} perft mismatches:\n{}",
        failures.len(),
        failures.join("\n")
    );
    (cases.len(), checks, leaves)
}

fn standard_suite() -> Vec<PerftCase> {
    let cases = parse_perft_suite(&test_data("perft/standard.epd"));
    assert_eq!(cases.len(), 128, "standard.epd should hold 128 positions");
    cases
}

fn fischer_suite() -> Vec<PerftCase> {
    let cases = parse_perft_suite(&test_data("perft/fischer.epd"));
    assert_eq!(cases.len(), 960, "fischer.epd should hold 960 positions");
    cases
}

#[test]
fn suite_files_parse_and_every_position_sets_up() {
    let standard = standard_suite();
    // The last line has no trailing newline and must still be read in full.
    let last = standard.last().unwrap();
    assert_eq!(
        last.fen,
        "rnbqkb1r/ppppp1pp/7n/4Pp2/8/8/PPPP1PPP/RNBQKBNR w KQkq f6 0 3"
    );
    assert_eq!(last.counts, vec![(5, 11139762)]);
    for c in &standard {
        assert!(!c.counts.is_empty(), "line {} has no counts", c.line);
        chess_from_fen(&c.fen, CastlingMode::Standard)
            .unwrap_or_else(|e| panic!("line {}: {e}", c.line));
    }
    // Line 51 has an impossible check (two bishops on one diagonal): accepted only leniently.
    assert_eq!(standard[50].fen, "B6b/8/8/8/2K5/5k2/8/b6B b - - 0 1");
    for c in &fischer_suite() {
        assert_eq!(c.counts.len(), 6, "line {}", c.line);
        chess_from_fen(&c.fen, CastlingMode::Chess960)
            .unwrap_or_else(|e| panic!("line {}: {e}", c.line));
    }
}

/// The standard suite in two halves (run in parallel by the test harness).
fn standard_half(half: usize) {
    let cases = standard_suite();
    let mid = cases.len() / 2;
    let part = if half == 0 {
        &cases[..mid]
    } else {
        &cases[mid..]
    };
    let t = Instant::now();
    let (positions, checks, leaves) = run_suite(part, CastlingMode::Standard, STANDARD_LIMIT);
    eprintln!(
        "standard.epd half {half}: {positions} positions, {checks} counts, {leaves} leaves in {:?}",
        t.elapsed()
    );
    // Every position is checked at least at depth 1..3.
    assert!(checks >= positions * 3 - 2, "only {checks} counts checked");
}

#[test]
fn standard_suite_first_half() {
    standard_half(0);
}

#[test]
fn standard_suite_second_half() {
    standard_half(1);
}

/// Every fourth position of the Chess960 suite, starting at `offset` (four tests with offsets
/// 0..4 cover all 960 positions and run in parallel).
fn fischer_part(offset: usize) {
    let cases: Vec<PerftCase> = fischer_suite()
        .into_iter()
        .skip(offset)
        .step_by(4)
        .collect();
    let t = Instant::now();
    let (positions, checks, leaves) = run_suite(&cases, CastlingMode::Chess960, FISCHER_LIMIT);
    eprintln!(
        "fischer.epd part {offset}: {positions} positions, {checks} counts, {leaves} leaves in {:?}",
        t.elapsed()
    );
    assert_eq!(positions, 240);
    // Every position is checked at least at depths 1..3.
    assert!(checks >= positions * 3, "only {checks} counts checked");
}

#[test]
fn fischer_suite_part_0() {
    fischer_part(0);
}

#[test]
fn fischer_suite_part_1() {
    fischer_part(1);
}

#[test]
fn fischer_suite_part_2() {
    fischer_part(2);
}

#[test]
fn fischer_suite_part_3() {
    fischer_part(3);
}

// -------------------------------------------------------------------------------------------
// The command line

/// Runs `scout perft DEPTH FEN...` and checks the divide lines, the summary and the last line.
fn check_cli_perft(depth: u32, fen: &str, mode: CastlingMode, expected: u64) {
    let mut cmd = Command::new(BIN);
    cmd.arg("perft").arg(depth.to_string());
    cmd.args(fen.split_whitespace());
    let out = cmd.output().expect("cannot run scout perft");
    assert!(out.status.success(), "scout perft {depth} {fen}: {:?}", out);
    let text = String::from_utf8(out.stdout).expect("perft output is UTF-8");
    let lines: Vec<String> = text.lines().map(String::from).collect();
    let divide = divide_lines(&lines);
    let pos = chess_from_fen(fen, mode).unwrap();
    // One line per legal root move, in the right notation, each with its subtree count.
    let mut listed: Vec<&str> = divide.iter().map(|(m, _)| m.as_str()).collect();
    listed.sort();
    // (Depth 0 counts the position itself and lists no moves.)
    let mut legal: Vec<String> = if depth == 0 {
        Vec::new()
    } else {
        pos.legal_moves()
            .iter()
            .map(|m| move_text(*m, mode))
            .collect()
    };
    legal.sort();
    assert_eq!(
        listed, legal,
        "root moves of scout perft {depth} {fen}:\n{text}"
    );
    for (m, n) in &divide {
        let child = play_line(&pos, &[m.as_str()], mode).unwrap();
        assert_eq!(
            *n,
            scout::tools::perft::perft(&child, depth - 1),
            "{m} in {fen}"
        );
    }
    let sum: u64 = if depth == 0 {
        1
    } else {
        divide.iter().map(|(_, n)| n).sum()
    };
    assert_eq!(
        sum, expected,
        "divide lines of scout perft {depth} {fen} sum to {sum}:\n{text}"
    );
    assert!(
        lines.contains(&format!("Nodes searched: {expected}")),
        "{text}"
    );
    assert!(
        lines.iter().any(|l| l
            .strip_prefix("Time: ")
            .and_then(|t| t.strip_suffix(" ms"))
            .is_some_and(|t| t.parse::<u64>().is_ok())),
        "no 'Time: T ms' line:\n{text}"
    );
    let last = lines.last().expect("no output");
    assert_eq!(
        nodes_nps_line(last),
        Ok(expected),
        "last line of scout perft {depth} {fen}"
    );
}

/// Compares quiescence's capture generation with shakmaty's full generation filtered to the
/// same moves, in the same order, at every node not in check of a depth-`depth` tree.
fn compare_noisy(pos: &shakmaty::Chess, depth: u32, compared: &mut u64) {
    if !pos.is_check() {
        let mut expected = pos.legal_moves();
        expected.retain(|m| scout::movepick::is_quiescence_move(*m));
        let mut got = shakmaty::MoveList::new();
        scout::movepick::noisy_moves(pos, &mut got);
        assert_eq!(got, expected, "{}", fen_of(pos));
        *compared += 1;
    }
    if depth > 0 {
        for m in pos.legal_moves() {
            let mut child = pos.clone();
            child.play_unchecked(m);
            compare_noisy(&child, depth - 1, compared);
        }
    }
}

#[test]
fn quiescence_generation_matches_the_filtered_full_generation() {
    let mut compared = 0;
    for case in standard_suite() {
        let pos = chess_from_fen(&case.fen, CastlingMode::Standard).unwrap();
        compare_noisy(&pos, 3, &mut compared);
    }
    for case in fischer_suite().into_iter().step_by(8) {
        let pos = chess_from_fen(&case.fen, CastlingMode::Chess960).unwrap();
        compare_noisy(&pos, 2, &mut compared);
    }
    assert!(compared > 500_000, "{compared}");
}

#[test]
fn command_line_perft_divide() {
    let c = CastlingMode::Standard;
    check_cli_perft(3, STARTPOS, c, 8902);
    check_cli_perft(
        3,
        "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
        c,
        97862,
    );
    check_cli_perft(3, "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1", c, 2812);
    let ep = "rnbqkb1r/ppppp1pp/7n/4Pp2/8/8/PPPP1PPP/RNBQKBNR w KQkq f6 0 3";
    let ep_count = scout::tools::perft::perft(&chess_from_fen(ep, c).unwrap(), 3);
    check_cli_perft(3, ep, c, ep_count);
    // A Chess960 Shredder-FEN: castling is listed king-takes-rook.
    let fen = "bqnb1rkr/pp3ppp/3ppn2/2p5/5P2/P2P4/NPP1P1PP/BQ1BNRKR w HFhf - 2 9";
    check_cli_perft(3, fen, CastlingMode::Chess960, 12189);
    // No FEN: the start position.
    let out = Command::new(BIN).args(["perft", "2"]).output().unwrap();
    let text = String::from_utf8(out.stdout).unwrap();
    assert_eq!(
        nodes_nps_line(text.lines().last().unwrap()),
        Ok(400),
        "{text}"
    );
    // Depth 0 and a position without moves.
    check_cli_perft(0, STARTPOS, c, 1);
    check_cli_perft(2, "7k/5Q2/6K1/8/8/8/8/8 b - - 0 1", c, 0);
    // Bad arguments fail cleanly.
    for args in [
        vec!["perft"],
        vec!["perft", "x"],
        vec!["perft", "2", "not", "a", "fen"],
    ] {
        let out = Command::new(BIN).args(&args).output().unwrap();
        assert!(!out.status.success(), "scout {args:?} should fail: {out:?}");
        assert!(
            !String::from_utf8_lossy(&out.stderr).contains("panicked"),
            "{out:?}"
        );
    }
}

#[test]
fn command_line_perft_with_castling_in_chess960() {
    // A Chess960 position where castling is legal at the root: the divide shows it as
    // king-takes-rook and its count is right.
    let suite = fischer_suite();
    let case = suite
        .iter()
        .find(|c| {
            let pos = chess_from_fen(&c.fen, CastlingMode::Chess960).unwrap();
            pos.legal_moves().iter().any(|m| m.is_castle())
        })
        .expect("a Chess960 position with castling");
    let d3 = case.counts.iter().find(|(d, _)| *d == 3).unwrap().1;
    check_cli_perft(3, &case.fen, CastlingMode::Chess960, d3);
}

#[test]
fn command_line_bench_with_one_and_several_threads() {
    // One thread: the node count is the library's deterministic bench signature, and two
    // processes agree on every position's nodes, score and move.
    let (expected, _) = scout::tools::bench::run(4, &mut Vec::new());
    let run = || {
        let out = Command::new(BIN).args(["bench", "4"]).output().unwrap();
        assert!(out.status.success(), "{out:?}");
        String::from_utf8(out.stdout).unwrap()
    };
    let text = run();
    assert_eq!(
        nodes_nps_line(text.lines().last().unwrap()),
        Ok(expected),
        "{text}"
    );
    let positions = |text: &str| -> Vec<String> {
        text.lines()
            .filter(|l| l.starts_with("position"))
            .map(str::to_string)
            .collect()
    };
    assert_eq!(positions(&run()), positions(&text));
    // Two threads (Lazy SMP): every position is searched, a move is found wherever one thread
    // found one (positions 30 and 31, stalemate and mate, have none), and the summary line is
    // there; the count varies from run to run.
    let no_move = |text: &str| -> Vec<bool> {
        text.lines()
            .filter(|l| l.starts_with("position"))
            .map(|l| l.ends_with("0000"))
            .collect()
    };
    let one_thread = no_move(&text);
    assert_eq!(one_thread.len(), 50, "{text}");
    assert_eq!(one_thread.iter().filter(|&&n| n).count(), 2, "{text}");
    let out = Command::new(BIN)
        .args(["bench", "4", "2"])
        .output()
        .unwrap();
    assert!(out.status.success(), "{out:?}");
    let text = String::from_utf8(out.stdout).unwrap();
    assert_eq!(no_move(&text), one_thread, "{text}");
    assert!(text.contains("depth 4, 2 threads"), "{text}");
    assert!(
        nodes_nps_line(text.lines().last().unwrap()).is_ok_and(|n| n > 0),
        "{text}"
    );
    // With a net file: the built-in net widened to 384 units (zero units: the same
    // evaluation) searches the same tree; a file that is no net is refused.
    let dir = std::env::temp_dir().join(format!("scout-bench-net-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let wide = dir.join("wide.nnue").to_string_lossy().into_owned();
    let net = scout::nnue::default_network().widened(384);
    std::fs::write(&wide, scout::nnue::file::write(&net)).unwrap();
    let out = Command::new(BIN)
        .args(["bench", "4", "1", &wide])
        .output()
        .unwrap();
    assert!(out.status.success(), "{out:?}");
    let text = String::from_utf8(out.stdout).unwrap();
    assert_eq!(
        nodes_nps_line(text.lines().last().unwrap()),
        Ok(expected),
        "{text}"
    );
    let missing = dir.join("missing.nnue").to_string_lossy().into_owned();
    let out = Command::new(BIN)
        .args(["bench", "4", "1", &missing])
        .output()
        .unwrap();
    assert!(!out.status.success(), "{out:?}");
    std::fs::remove_dir_all(&dir).unwrap();
    // Bad arguments fail cleanly.
    for args in [
        vec!["bench", "0"],
        vec!["bench", "4", "0"],
        vec!["bench", "4", "x"],
    ] {
        let out = Command::new(BIN).args(&args).output().unwrap();
        assert!(!out.status.success(), "scout {args:?} should fail: {out:?}");
    }
}

/// `scout data FILE`: the summary of a data file, on stdout.
#[cfg(feature = "training")]
#[test]
fn command_line_data_summary() {
    use scout::training::packed::{GAME_END, Outcome, Packed};
    let dir = std::env::temp_dir().join(format!("scout-data-cli-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("d.bin").to_string_lossy().into_owned();
    let start = shakmaty::Chess::default();
    let bytes: Vec<u8> = [0, GAME_END, GAME_END]
        .iter()
        .flat_map(|&flags| Packed::new(&start, 15, Outcome::Win, flags).0)
        .collect();
    std::fs::write(&path, bytes).unwrap();
    let out = Command::new(BIN).args(["data", &path]).output().unwrap();
    assert!(out.status.success(), "{out:?}");
    let text = String::from_utf8(out.stdout).unwrap();
    for line in [
        "d.bin: 3 positions, 2 games (1.5 positions a game)",
        "results for White (by game): +2 =0 -0 (win 100.0%, draw 0.0%, loss 0.0%)",
        "duplicates: 2 positions (66.67%) repeat an earlier one",
        "32 pieces            3 100.0%  ########################################",
        "0..99            3 100.0%  ########################################",
    ] {
        assert!(
            text.lines().any(|l| l.ends_with(line)),
            "{line:?} in\n{text}"
        );
    }
    let out = Command::new(BIN).args(["data"]).output().unwrap();
    assert!(!out.status.success(), "{out:?}");
    std::fs::remove_dir_all(&dir).unwrap();
}
