//! UCI protocol tests against the real `scout` binary: the handshake and command sequence
//! match runners use, bad input of every kind, stop/quit/isready latency, pondering,
//! searches that must not crash, positions without legal moves, the legality of every move the
//! engine prints (bestmove, ponder, pv, currmove) over the bench positions, Chess960 castling
//! notation, node limits, the Hash option and the opening book (OwnBook, BookFile, BookDepth).
//!
//! Run with `cargo test --release --test uci_protocol` (`-- --nocapture` shows the measured
//! latencies).

use crate::common;

use std::thread::sleep;
use std::time::Instant;

use common::polyglot::{self, BookFile};
use common::*;
use shakmaty::{CastlingMode, Chess, Position};

const STD: CastlingMode = CastlingMode::Standard;

/// Parses a FEN for the tests (standard castling).
fn chess(fen: &str) -> Chess {
    chess_from_fen(fen, STD).unwrap()
}

/// The start position after some moves (test-side bookkeeping).
fn after_moves(start: &Chess, moves: &[&str]) -> Chess {
    play_line(start, moves, STD).unwrap()
}

/// Asserts a search output is legal from `pos`, with the engine's output in the message.
fn assert_legal(e: &Engine, pos: &Chess, out: &SearchOutput, mode: CastlingMode) {
    if let Err(msg) = check_search(pos, out, mode) {
        panic!(
            "{msg}\n--- search output ---\n{}\n{}",
            out.lines.join("\n"),
            e.report()
        );
    }
}

/// Sends `go_cmd`, lets it run a moment, sends `stop` and returns the search output (works both
/// for searches that end by themselves and for those that need `stop`).
fn go_then_stop(e: &mut Engine, go_cmd: &str, run_ms: u64) -> SearchOutput {
    e.send(go_cmd);
    sleep(ms(run_ms));
    e.send("stop");
    let out = e.wait_bestmove(GENEROUS);
    e.assert_alive();
    out
}

/// Sends a command that must be refused with an `info string`, then checks `isready` and that
/// the position (the `Fen:` line of `d`) did not change.
fn refused_keeps_position(e: &mut Engine, cmd: &str, fen_before: &str) {
    e.send(cmd);
    let lines = e.collect_until(
        &format!("an info string refusing {cmd:?}"),
        |l| l.starts_with("info string"),
        GENEROUS,
    );
    assert!(
        lines.iter().all(|l| !l.starts_with("bestmove")),
        "{cmd:?} produced {lines:?}"
    );
    e.isready_ok(GENEROUS);
    let after = e.fen();
    assert_eq!(
        after, fen_before,
        "the position changed after the refused command {cmd:?}"
    );
}

// -------------------------------------------------------------------------------------------
// Handshake and the compliance sequence

#[test]
fn uci_handshake_announces_id_and_options_and_nothing_before() {
    let mut e = Engine::spawn();
    e.expect_no_line("output before `uci`", |_| true, ms(300));
    let lines = e.uci();
    assert_eq!(lines[0], "id name Scout 0.1.0", "first line: {lines:?}");
    assert!(
        lines
            .iter()
            .any(|l| l.starts_with("id author ") && l.len() > "id author ".len()),
        "no id author line: {lines:?}"
    );
    assert_eq!(lines.last().unwrap(), "uciok");
    let expected = [
        ("Hash", "spin"),
        ("Clear Hash", "button"),
        ("Threads", "spin"),
        ("MultiPV", "spin"),
        ("Move Overhead", "spin"),
        ("Ponder", "check"),
        ("UCI_Chess960", "check"),
    ];
    for (name, kind) in expected {
        let prefix = format!("option name {name} type {kind}");
        assert!(
            lines
                .iter()
                .any(|l| l == &prefix || l.starts_with(&format!("{prefix} "))),
            "missing {prefix:?} in {lines:#?}"
        );
    }
    assert!(
        lines.contains(&"option name Hash type spin default 16 min 1 max 65536".to_string()),
        "Hash must be spin default 16 min 1 max 65536: {lines:#?}"
    );
    for l in &lines {
        assert!(
            l.starts_with("id ") || l.starts_with("option name ") || l == "uciok",
            "unexpected line in the uci answer: {l:?}"
        );
    }
    // A second `uci` answers again.
    let again = e.uci();
    assert_eq!(again, lines);
    e.isready_ok(GENEROUS);
    e.assert_alive();
}

#[test]
fn compliance_sequence_of_match_runners() {
    let mut e = Engine::spawn();
    e.uci();
    e.isready_ok(GENEROUS);
    e.send("ucinewgame");
    e.isready_ok(GENEROUS);
    let start = Chess::default();

    e.send("position startpos");
    e.isready_ok(GENEROUS);
    assert_eq!(e.fen(), STARTPOS);

    // White to move, only wtime given: must still answer quickly with a legal move.
    let t = Instant::now();
    e.send("go wtime 100");
    let out = e.wait_bestmove(GENEROUS);
    let took = t.elapsed();
    eprintln!("go wtime 100 (white to move, no btime): bestmove after {took:?}");
    assert_legal(&e, &start, &out, STD);
    assert!(took < ms(1500), "go wtime 100 took {took:?}");

    // Black to move, only wtime given.
    let black = after_moves(&start, &["e2e4"]);
    e.send("position startpos moves e2e4");
    let t = Instant::now();
    e.send("go wtime 100");
    let out = e.wait_bestmove(GENEROUS);
    let took = t.elapsed();
    eprintln!("go wtime 100 (black to move, no btime): bestmove after {took:?}");
    assert_legal(&e, &black, &out, STD);
    assert!(
        took < ms(1500),
        "go wtime 100 with black to move took {took:?}"
    );

    // Both clocks with increments, in either order.
    let fen = "r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq - 2 3";
    let pos = chess(fen);
    e.send(&format!("position fen {fen}"));
    e.isready_ok(GENEROUS);
    assert_eq!(e.fen(), fen);
    for go in [
        "go btime 1000 wtime 1000 binc 10 winc 10",
        "go wtime 1000 btime 1000 winc 10 binc 10",
        "go winc 10 binc 10 wtime 1000 btime 1000",
        "go wtime 1000 btime 1000 movestogo 10",
        "go movetime 100",
    ] {
        let t = Instant::now();
        e.send(go);
        let out = e.wait_bestmove(GENEROUS);
        eprintln!("{go}: bestmove {} after {:?}", out.best, t.elapsed());
        assert_legal(&e, &pos, &out, STD);
        assert!(t.elapsed() < secs(5), "{go} took {:?}", t.elapsed());
        assert!(
            !out.score_lines().is_empty(),
            "{go}: no info line with a score: {:?}",
            out.lines
        );
    }
    e.isready_ok(GENEROUS);
    e.assert_alive();
}

#[test]
fn short_game_with_whole_move_lists() {
    let mut e = Engine::spawn();
    e.uci();
    e.send("ucinewgame");
    e.isready_ok(GENEROUS);
    let mut pos = Chess::default();
    let mut moves: Vec<String> = Vec::new();
    let (mut wtime, mut btime) = (3000i64, 3000i64);
    for ply in 0..20 {
        if pos.legal_moves().is_empty() {
            break;
        }
        let cmd = if moves.is_empty() {
            "position startpos".to_string()
        } else {
            format!("position startpos moves {}", moves.join(" "))
        };
        e.send(&cmd);
        let t = Instant::now();
        e.send(&format!("go wtime {wtime} btime {btime} winc 20 binc 20"));
        let out = e.wait_bestmove(GENEROUS);
        let used = t.elapsed().as_millis() as i64;
        assert_legal(&e, &pos, &out, STD);
        let m = engine_move(&pos, &out.best, STD).unwrap();
        if ply % 2 == 0 {
            wtime = (wtime - used + 20).max(100);
        } else {
            btime = (btime - used + 20).max(100);
        }
        pos.play_unchecked(m);
        moves.push(out.best.clone());
    }
    assert!(moves.len() >= 10, "the game ended too early: {moves:?}");
    e.send(&format!("position startpos moves {}", moves.join(" ")));
    assert_eq!(
        e.fen(),
        fen_of(&pos),
        "the engine's position differs after {moves:?}"
    );
    e.isready_ok(GENEROUS);
    e.assert_alive();
}

// -------------------------------------------------------------------------------------------
// Bad input

#[test]
fn unknown_commands_blank_lines_crlf_tabs_and_garbage() {
    let mut e = Engine::spawn();
    e.uci();
    for cmd in [
        "xboard",
        "foo bar baz",
        "protover 2",
        "flip",
        "perft",
        "perft x",
        "bench x",
        "debug",
    ] {
        e.send(cmd);
        e.expect_line(
            &format!("an info string for {cmd:?}"),
            |l| l.starts_with("info string"),
            GENEROUS,
        );
        e.isready_ok(GENEROUS);
    }
    for cmd in ["", " ", "\t", "\r", " \t \r", "\t\t\t"] {
        e.send(cmd);
        e.isready_ok(GENEROUS);
    }
    // CRLF line endings, tabs and repeated spaces.
    e.send("isready\r");
    e.expect_line("readyok after isready CRLF", |l| l == "readyok", GENEROUS);
    e.send("  \t isready \t ");
    e.expect_line("readyok after padded isready", |l| l == "readyok", GENEROUS);
    e.send("\tposition\t startpos   moves\te2e4  \t e7e5 \r");
    let expected = after_moves(&Chess::default(), &["e2e4", "e7e5"]);
    assert_eq!(e.fen(), fen_of(&expected));
    e.send("position\tfen   rnbqkbnr/pppp1ppp/8/4p3/4P3/8/PPPP1PPP/RNBQKBNR \t w  KQkq e6 0\t2\r");
    assert_eq!(e.fen(), fen_of(&expected));
    // Unknown tokens before a command are skipped (UCI: "ignore unknown tokens").
    e.send("joho isready");
    e.expect_line("readyok after 'joho isready'", |l| l == "readyok", GENEROUS);
    // Invalid UTF-8, control bytes, a very long line.
    for raw in [
        b"\xff\xfe\xfd\n".to_vec(),
        b"\x00\x01\x02\x1b[2J\n".to_vec(),
        b"position \xff startpos\n".to_vec(),
        b"go \xc3\x28 depth 2\n".to_vec(),
        format!("{}\n", "a".repeat(100_000)).into_bytes(),
        format!("position startpos moves {}\n", "e2e4 ".repeat(5000)).into_bytes(),
    ] {
        e.try_send_raw(&raw).unwrap();
        e.isready_ok(GENEROUS);
    }
    // The `go ... depth 2` above may have searched: its bestmove is harmless. Still alive:
    e.drain();
    e.send("position startpos");
    e.send("go depth 3");
    let out = e.wait_bestmove(GENEROUS);
    assert_legal(&e, &Chess::default(), &out, STD);
    e.assert_alive();
}

#[test]
fn bad_fens_leave_the_position_unchanged() {
    let mut e = Engine::spawn();
    e.uci();
    e.send("position startpos moves e2e4 c7c5 g1f3");
    let base = fen_of(&after_moves(&Chess::default(), &["e2e4", "c7c5", "g1f3"]));
    assert_eq!(e.fen(), base);
    for cmd in [
        // two white kings
        "position fen 4k3/8/8/8/8/8/8/3KK3 w - - 0 1",
        // no kings
        "position fen 8/8/8/8/8/8/8/8 w - - 0 1",
        // the side not to move is in check
        "position fen 4k3/8/8/8/8/8/4R3/4K3 w - - 0 1",
        // castling rights without the pieces
        "position fen 4k3/8/8/8/8/8/8/4K3 w KQkq - 0 1",
        // ten pieces on a rank
        "position fen 4k3/pppppppppp/8/8/8/8/8/4K3 w - - 0 1",
        // nine squares on a rank
        "position fen rnbqkbnrr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
        // seven ranks
        "position fen rnbqkbnr/pppppppp/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
        // a pawn on the first rank
        "position fen P3k3/8/8/8/8/8/8/4K3 w - - 0 1",
        // bad side to move
        "position fen rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR x KQkq - 0 1",
        // impossible en passant square
        "position fen 4k3/8/8/8/8/8/8/4K3 w - e3 0 1",
        // negative halfmove clock
        "position fen 4k3/8/8/8/8/8/8/4K3 w - - -5 1",
        // garbage
        "position fen hello world foo bar",
        "position fen ????????/8/8/8/8/8/8/8 w - - 0 1",
        "position fen",
        "position fen 8/8/8",
        "position fen a b c d e f g h",
        "position",
        "position startpos e2e4",
        "position frobnicate",
    ] {
        refused_keeps_position(&mut e, cmd, &base);
    }
    e.assert_alive();
}

#[test]
fn illegal_moves_leave_the_position_unchanged() {
    let mut e = Engine::spawn();
    e.uci();
    e.send("position startpos moves d2d4 d7d5");
    let base = fen_of(&after_moves(&Chess::default(), &["d2d4", "d7d5"]));
    assert_eq!(e.fen(), base);
    for cmd in [
        "position startpos moves e2e5",
        "position startpos moves e7e5",
        "position startpos moves e2e4 e7e5 e1g1",
        "position startpos moves e2e4 e7e5 e2e4",
        "position startpos moves e2e4 e7e5 g1f3 zzzz",
        "position startpos moves e2e4 e7e5 g1f3 b8c6 f1c4 g8f6 e1g1 f8c5 e1g1",
        "position startpos moves a7a8q",
        "position startpos moves e2e4 e7e5 e4e5",
        "position startpos moves e2e4q",
        "position startpos moves e2",
        "position startpos moves e2e4e7e5",
        "position startpos moves 0000",
        "position startpos moves i2i4",
        "position startpos moves E2E4 e7e5 g1f3 \u{00e9}9",
        "position fen 4k3/8/8/8/8/8/8/4K2R w K - 0 1 moves e1c1",
        "position fen 4k3/8/8/8/8/8/8/4K2R w K - 0 1 moves h1h8 e8e7 e1g1",
    ] {
        refused_keeps_position(&mut e, cmd, &base);
    }
    e.assert_alive();
}

#[test]
fn four_field_fens_and_castling_input_notations() {
    let mut e = Engine::spawn();
    e.uci();
    e.send("position fen 4k3/8/8/8/8/8/8/4K2R w K -");
    assert_eq!(e.fen(), "4k3/8/8/8/8/8/8/4K2R w K - 0 1");
    e.send("position fen 4k3/8/8/8/8/8/8/4K2R w K - moves e1g1");
    assert_eq!(e.fen(), "4k3/8/8/8/8/8/8/5RK1 b - - 1 1");
    // King-takes-rook castling input is accepted in standard mode too.
    e.send("position fen 4k3/8/8/8/8/8/8/4K2R w K - 0 1 moves e1h1");
    assert_eq!(e.fen(), "4k3/8/8/8/8/8/8/5RK1 b - - 1 1");
    e.send("position fen 4k3/8/8/8/8/8/8/4K2R w K - 0 1");
    e.send("go depth 3");
    let out = e.wait_bestmove(GENEROUS);
    assert_legal(&e, &chess("4k3/8/8/8/8/8/8/4K2R w K - 0 1"), &out, STD);
    e.assert_alive();
}

#[test]
fn go_before_any_position_searches_the_start_position() {
    let mut e = Engine::spawn();
    e.send("go depth 3");
    let out = e.wait_bestmove(GENEROUS);
    assert_legal(&e, &Chess::default(), &out, STD);
    let mut e = Engine::spawn();
    e.uci();
    e.send("go wtime 1000 btime 1000");
    let out = e.wait_bestmove(GENEROUS);
    assert_legal(&e, &Chess::default(), &out, STD);
    e.isready_ok(GENEROUS);
    e.assert_alive();
}

#[test]
fn odd_go_arguments_are_reported_and_survived() {
    let mut e = Engine::spawn();
    e.uci();
    let pos = after_moves(&Chess::default(), &["e2e4"]);
    e.send("position startpos moves e2e4");
    // Each of these prints an info string and still gives a legal bestmove.
    for (go, needs_stop) in [
        ("go wtime -100 btime -100", false),
        ("go wtime -1 btime -1 winc -5 binc -5", false),
        ("go movetime -50", false),
        ("go wtime 1000 btime 1000 movestogo 0", false),
        ("go depth 99999999999999999999999", true),
        (
            "go wtime 99999999999999999999999 btime 99999999999999999999999",
            true,
        ),
        ("go nodes 184467440737095516150", true),
        ("go depth -3", true),
        ("go depth", true),
        ("go frobnicate 7", true),
        ("go depth x nodes y", true),
    ] {
        e.send(go);
        e.expect_line(
            &format!("an info string for {go:?}"),
            |l| l.starts_with("info string"),
            GENEROUS,
        );
        if needs_stop {
            sleep(ms(100));
            e.send("stop");
        }
        let out = e.wait_bestmove(GENEROUS);
        assert_legal(&e, &pos, &out, STD);
        e.isready_ok(GENEROUS);
    }
    // Extreme but valid values: no info string needed, but no crash either.
    for go in [
        "go nodes 18446744073709551615",
        "go wtime 9223372036854775807 btime 9223372036854775807 winc 9223372036854775807 binc 9223372036854775807",
        "go movetime 9223372036854775807",
        "go movestogo 18446744073709551615 wtime 1000 btime 1000",
        "go wtime 0 btime 0",
        "go movetime 0",
        "go nodes 0",
        "go nodes 1",
        "go depth 0",
        "go mate 0",
        "go searchmoves",
        "go searchmoves zzzz e2e4 depth 3",
        "go searchmoves d7d5 depth 3",
        "go infinite depth 2",
        "go ponder",
    ] {
        let out = go_then_stop(&mut e, go, 150);
        assert_legal(&e, &pos, &out, STD);
        if go == "go searchmoves d7d5 depth 3" {
            assert_eq!(out.best, "d7d5", "searchmoves ignored: {:?}", out.lines);
        }
        e.isready_ok(GENEROUS);
    }
    e.assert_alive();
}

#[test]
fn unknown_and_out_of_range_options() {
    let mut e = Engine::spawn();
    e.uci();
    for cmd in [
        "setoption name Foo value 3",
        "setoption name Nonexistent",
        "setoption name",
        "setoption",
        "setoption value 3",
        "setoption name MultiPV value 1000",
        "setoption name MultiPV value -1000",
        "setoption name MultiPV value 99999999999999999999999",
        "setoption name Move Overhead value -5",
        "setoption name Move Overhead value 999999",
        "setoption name Threads value 0",
        "setoption name Threads value many",
        "setoption name Hash value -99999999999999999999999",
        "setoption name Hash value zero",
        "setoption name Ponder value maybe",
        "setoption name UCI_Chess960 value 2",
    ] {
        e.send(cmd);
        e.expect_line(
            &format!("an info string for {cmd:?}"),
            |l| l.starts_with("info string"),
            GENEROUS,
        );
        e.isready_ok(GENEROUS);
    }
    // Still searching normally (MultiPV was clamped to at most 256, Hash to 1 MB).
    e.send("setoption name MultiPV value 1");
    e.send("go depth 4");
    let out = e.wait_bestmove(GENEROUS);
    assert_legal(&e, &Chess::default(), &out, STD);
    e.assert_alive();
}

// -------------------------------------------------------------------------------------------
// Latency: stop, quit, end of input, isready

/// The non-empty lines of a FEN file.
fn fen_lines(text: &str) -> Vec<&str> {
    text.lines()
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .collect()
}

fn median(mut v: Vec<std::time::Duration>) -> std::time::Duration {
    v.sort();
    v[v.len() / 2]
}

/// Starts `go infinite` on each position, sends `stop` after 300 ms and measures how long the
/// (legal) `bestmove` takes; returns the times and their median.
fn stop_latencies(
    e: &mut Engine,
    fens: &[&str],
) -> (Vec<std::time::Duration>, std::time::Duration) {
    let mut times = Vec::new();
    for fen in fens {
        e.send(&format!("position fen {fen}"));
        e.send("go infinite");
        sleep(ms(300));
        e.drain();
        let t = Instant::now();
        e.send("stop");
        let out = e.wait_bestmove(GENEROUS);
        times.push(t.elapsed());
        assert_legal(e, &chess(fen), &out, STD);
    }
    let m = median(times.clone());
    (times, m)
}

#[test]
fn stop_answers_quickly() {
    let mut e = Engine::spawn();
    e.uci();
    e.isready_ok(GENEROUS);
    let positions = [
        STARTPOS,
        "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
        "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1",
        "r1bq1rk1/pp2bppp/2n1pn2/3p4/2PP4/2N1PN2/PP3PPP/R2QKB1R w KQ - 0 8",
        "4k3/8/8/8/8/8/8/4K3 w - - 0 1",
    ];
    let (times, m) = stop_latencies(&mut e, &positions);
    eprintln!("stop -> bestmove latencies {times:?}, median {m:?} (requirement: 10 ms)");
    assert!(m < ms(100), "stop took {m:?} (median of {times:?})");
    e.assert_alive();
}

/// `perft` and `bench` typed in UCI mode end at `stop`, or at any command that needs the
/// engine, so `isready` is answered at once: without it `perft 12` kept the engine busy for
/// hours.
#[test]
fn perft_and_bench_stop_like_a_search() {
    let mut e = Engine::spawn();
    e.uci();
    e.send("perft 12");
    sleep(ms(300));
    e.send("stop");
    e.expect_line(
        "perft's stop notice",
        |l| l == "info string perft stopped: the counts are incomplete",
        GENEROUS,
    );
    e.isready_ok(GENEROUS);

    e.send("bench 40");
    sleep(ms(300));
    e.send("position startpos");
    e.expect_line(
        "bench's stop notice",
        |l| l.starts_with("info string bench stopped at position 1"),
        GENEROUS,
    );
    e.isready_ok(GENEROUS);
    // The engine is itself again: a search after the stopped bench runs to its depth.
    e.send("go depth 5");
    let out = e.wait_bestmove(GENEROUS);
    assert_legal(&e, &Chess::default(), &out, STD);
    assert!(out.lines.iter().any(|l| l.contains("info depth 5 ")));
    e.assert_alive();
}

#[test]
fn quit_mid_search_exits_promptly() {
    let mut e = Engine::spawn();
    e.uci();
    e.send("position startpos");
    e.send("go infinite");
    sleep(ms(300));
    let t = Instant::now();
    e.send("quit");
    let status = e.wait_exit(secs(2));
    eprintln!("quit mid-search: exited after {:?}", t.elapsed());
    let status = status.unwrap_or_else(|| panic!("still running 2 s after quit\n{}", e.report()));
    assert!(status.success(), "exit status {status}");
    e.assert_no_panic();

    // The same while pondering.
    let mut e = Engine::spawn();
    e.send("go ponder wtime 1000 btime 1000");
    sleep(ms(300));
    let t = Instant::now();
    e.send("quit");
    let status = e.wait_exit(secs(2));
    eprintln!("quit while pondering: exited after {:?}", t.elapsed());
    assert!(
        status.is_some(),
        "still running 2 s after quit while pondering\n{}",
        e.report()
    );
    e.assert_no_panic();
}

#[test]
fn end_of_input_mid_search_exits_promptly() {
    let mut e = Engine::spawn();
    e.uci();
    e.send("position startpos moves e2e4");
    e.send("go infinite");
    sleep(ms(300));
    let t = Instant::now();
    e.close_stdin();
    let status = e.wait_exit(secs(2));
    eprintln!("end of input mid-search: exited after {:?}", t.elapsed());
    let status =
        status.unwrap_or_else(|| panic!("still running 2 s after stdin closed\n{}", e.report()));
    assert!(status.success(), "exit status {status}");
    e.assert_no_panic();

    // And when idle.
    let mut e = Engine::spawn();
    e.uci();
    e.close_stdin();
    assert!(
        e.wait_exit(secs(2)).is_some(),
        "idle engine did not exit at end of input"
    );
}

#[test]
fn isready_is_answered_during_a_search() {
    let mut e = Engine::spawn();
    e.uci();
    e.send("position startpos");
    e.send("go infinite");
    sleep(ms(300));
    e.drain();
    let mut times = Vec::new();
    for _ in 0..5 {
        let t = Instant::now();
        e.send("isready");
        let lines = e.collect_until("readyok during the search", |l| l == "readyok", GENEROUS);
        times.push(t.elapsed());
        assert!(
            lines.iter().all(|l| !l.starts_with("bestmove")),
            "the search ended on isready: {lines:?}"
        );
        sleep(ms(50));
    }
    let m = median(times.clone());
    eprintln!("isready during search: {times:?}, median {m:?}");
    assert!(
        m < ms(100),
        "readyok took {m:?} during a search ({times:?})"
    );
    // The search goes on until stop.
    e.expect_no_line(
        "bestmove before stop",
        |l| l.starts_with("bestmove"),
        ms(300),
    );
    e.send("stop");
    let out = e.wait_bestmove(GENEROUS);
    assert_legal(&e, &Chess::default(), &out, STD);
    e.assert_alive();
}

#[test]
fn go_during_a_search_gives_two_bestmoves() {
    let mut e = Engine::spawn();
    e.uci();
    let pos = after_moves(&Chess::default(), &["e2e4", "e7e5"]);
    e.send("position startpos moves e2e4 e7e5");
    e.send("go infinite");
    sleep(ms(300));
    e.send("go depth 4");
    let first = e.wait_bestmove(GENEROUS);
    assert_legal(&e, &pos, &first, STD);
    let second = e.wait_bestmove(GENEROUS);
    assert_legal(&e, &pos, &second, STD);
    assert!(
        second.lines.iter().any(|l| l.starts_with("info depth 4 ")),
        "the second search (depth 4) did not reach depth 4: {:?}",
        second.lines
    );
    e.isready_ok(GENEROUS);
    e.expect_no_line("a third bestmove", |l| l.starts_with("bestmove"), ms(300));
    e.assert_alive();
}

#[test]
fn position_ucinewgame_setoption_mid_search_stop_it_first() {
    let mut e = Engine::spawn();
    e.uci();
    let start = Chess::default();
    for cmd in [
        "position startpos moves e2e4",
        "ucinewgame",
        "setoption name MultiPV value 1",
    ] {
        e.send("position startpos");
        e.send("go infinite");
        sleep(ms(200));
        e.send(cmd);
        let out = e.wait_bestmove(GENEROUS);
        assert_legal(&e, &start, &out, STD);
        e.isready_ok(GENEROUS);
        if cmd.starts_with("position") {
            assert_eq!(e.fen(), fen_of(&after_moves(&start, &["e2e4"])));
        }
        e.expect_no_line("a second bestmove", |l| l.starts_with("bestmove"), ms(200));
    }
    e.assert_alive();
}

// -------------------------------------------------------------------------------------------
// Pondering

#[test]
fn ponder_then_ponderhit() {
    let mut e = Engine::spawn();
    e.uci();
    e.send("setoption name Ponder value true");
    e.send("position startpos moves e2e4");
    e.send("go wtime 1000 btime 1000");
    let pos = after_moves(&Chess::default(), &["e2e4"]);
    let out = e.wait_bestmove(GENEROUS);
    assert_legal(&e, &pos, &out, STD);
    // Ponder on the engine's predicted reply (or any legal reply).
    let mut after = pos.clone();
    after.play_unchecked(engine_move(&pos, &out.best, STD).unwrap());
    let reply = match &out.ponder {
        Some(p) => p.clone(),
        None => move_text(after.legal_moves()[0], STD),
    };
    let ponder_pos = play_line(&after, &[reply.as_str()], STD).unwrap();
    e.send(&format!(
        "position startpos moves e2e4 {} {reply}",
        out.best
    ));
    e.send("go ponder wtime 1000 btime 1000");
    e.expect_no_line(
        "bestmove while pondering",
        |l| l.starts_with("bestmove"),
        ms(500),
    );
    let t = Instant::now();
    e.send("ponderhit");
    let out = e.wait_bestmove(secs(10));
    eprintln!("ponderhit -> bestmove after {:?}", t.elapsed());
    assert_legal(&e, &ponder_pos, &out, STD);

    // A ponder search with a depth limit that finishes early still waits for ponderhit.
    e.send("go ponder depth 2");
    e.expect_no_line(
        "bestmove while pondering at depth 2",
        |l| l.starts_with("bestmove"),
        ms(500),
    );
    let t = Instant::now();
    e.send("ponderhit");
    let out = e.wait_bestmove(GENEROUS);
    eprintln!(
        "ponderhit after a finished ponder search -> bestmove after {:?}",
        t.elapsed()
    );
    assert!(
        t.elapsed() < secs(2),
        "bestmove took {:?} after ponderhit",
        t.elapsed()
    );
    assert_legal(&e, &ponder_pos, &out, STD);
    e.isready_ok(GENEROUS);
    e.assert_alive();
}

#[test]
fn ponder_then_stop() {
    let mut e = Engine::spawn();
    e.uci();
    e.send("setoption name Ponder value true");
    let pos = after_moves(&Chess::default(), &["d2d4", "g8f6"]);
    e.send("position startpos moves d2d4 g8f6");
    e.send("go ponder wtime 1000 btime 1000 winc 10 binc 10");
    e.expect_no_line(
        "bestmove while pondering",
        |l| l.starts_with("bestmove"),
        ms(500),
    );
    e.drain();
    let t = Instant::now();
    e.send("stop");
    let out = e.wait_bestmove(GENEROUS);
    let took = t.elapsed();
    eprintln!("stop while pondering -> bestmove after {took:?}");
    assert!(
        took < ms(500),
        "bestmove took {took:?} after stop while pondering"
    );
    assert_legal(&e, &pos, &out, STD);
    e.isready_ok(GENEROUS);
    e.expect_no_line("a second bestmove", |l| l.starts_with("bestmove"), ms(200));
    e.assert_alive();
}

// -------------------------------------------------------------------------------------------
// Searches that must not crash

#[test]
fn huge_depth_mate_and_movestogo_do_not_crash() {
    let mut e = Engine::spawn();
    e.uci();
    let pos = Chess::default();
    e.send("position startpos");
    for go in [
        "go depth 256",
        "go depth 1000",
        "go depth 255",
        "go mate 300",
        "go mate 1000",
    ] {
        e.send(go);
        sleep(ms(300));
        e.isready_ok(GENEROUS);
        e.send("stop");
        let out = e.wait_bestmove(GENEROUS);
        assert_legal(&e, &pos, &out, STD);
        e.assert_alive();
    }
    for go in [
        "go movestogo 300 wtime 1000 btime 1000",
        "go movestogo 1000 wtime 1000 btime 1000 winc 1000 binc 1000",
        "go movestogo 1 wtime 100 btime 100",
    ] {
        e.send(go);
        let out = e.wait_bestmove(GENEROUS);
        assert_legal(&e, &pos, &out, STD);
        e.assert_alive();
    }
    // A mate search that finds the mate.
    let fen = "6k1/5ppp/8/8/8/8/5PPP/R5K1 w - - 0 1";
    e.send(&format!("position fen {fen}"));
    e.send("go mate 1");
    let out = e.wait_bestmove(GENEROUS);
    assert_legal(&e, &chess(fen), &out, STD);
    assert_eq!(out.best, "a1a8");
    assert!(
        out.score_lines()
            .iter()
            .any(|l| info_score(l) == Some(("mate".to_string(), 1))),
        "no 'score mate 1' in {:?}",
        out.lines
    );
    e.isready_ok(GENEROUS);
    e.assert_alive();
}

/// The score of the last scored `info` line of a search.
fn final_score(out: &SearchOutput) -> (String, i64) {
    let line = out
        .score_lines()
        .last()
        .copied()
        .cloned()
        .unwrap_or_default();
    info_score(&line).unwrap_or_else(|| panic!("no score in {:?}", out.lines))
}

#[test]
fn repetitions_from_position_moves_and_mated_scores() {
    let mut e = Engine::spawn();
    e.uci();
    // Black mates in 6 only with ...Kf1, which returns to the position the FEN gives. After one
    // round of the cycle that is a twofold repetition (no draw): ...Kf1 and a mate score.
    let after_kf1 = "8/8/8/1r6/4K3/8/6R1/q4k2 w - - 1 57";
    let cycle = ["g2g8", "f1e2", "g8g2"];
    e.send(&format!(
        "position fen {after_kf1} moves {}",
        cycle.join(" ")
    ));
    e.send("go depth 14");
    let out = e.wait_bestmove(GENEROUS);
    assert_legal(&e, &after_moves(&chess(after_kf1), &cycle), &out, STD);
    assert_eq!(out.best, "e2f1", "{:?}", out.lines);
    let (kind, n) = final_score(&out);
    assert!(kind == "mate" && n > 0, "{:?}", out.lines);
    // After two rounds ...Kf1 would repeat it a third time: a draw, and nothing else wins.
    let twice = [&cycle[..], &["e2f1"], &cycle[..]].concat();
    e.send(&format!(
        "position fen {after_kf1} moves {}",
        twice.join(" ")
    ));
    e.send("go depth 14");
    let out = e.wait_bestmove(GENEROUS);
    let (kind, n) = final_score(&out);
    assert!(kind == "cp" && n.abs() <= 50, "{:?}", out.lines);
    // The side to move being mated: negative mate distances.
    for (fen, moves) in [
        ("8/6K1/8/8/8/4NQ2/8/7k b - - 0 1", -1),
        ("8/8/3K4/8/8/3Q2R1/8/4k3 b - - 0 1", -2),
    ] {
        e.send(&format!("position fen {fen}"));
        e.send("go depth 12");
        let out = e.wait_bestmove(GENEROUS);
        assert_legal(&e, &chess(fen), &out, STD);
        assert_eq!(final_score(&out), ("mate".to_string(), moves), "{fen}");
    }
    e.assert_alive();
}

#[test]
fn currmove_is_reported_only_after_the_first_second() {
    let mut e = Engine::spawn();
    e.uci();
    let fen = "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1";
    e.send(&format!("position fen {fen}"));
    let currmoves = |out: &SearchOutput| -> Vec<(String, i64)> {
        out.lines
            .iter()
            .filter(|l| l.contains(" currmove "))
            .map(|l| {
                let m = l.split_whitespace().skip_while(|t| *t != "currmove").nth(1);
                let n = info_value(l, "currmovenumber").expect("currmovenumber");
                (m.unwrap_or_default().to_string(), n)
            })
            .collect()
    };
    e.send("go movetime 400");
    let out = e.wait_bestmove(GENEROUS);
    assert!(currmoves(&out).is_empty(), "{:?}", out.lines);
    let started = Instant::now();
    e.send("go movetime 2500");
    let first = e.collect_until("a currmove line", |l| l.contains(" currmove "), GENEROUS);
    assert!(
        started.elapsed() >= ms(1000),
        "currmove after {:?}",
        started.elapsed()
    );
    let mut out = e.wait_bestmove(GENEROUS);
    out.lines.splice(0..0, first);
    assert_legal(&e, &chess(fen), &out, STD);
    let reported = currmoves(&out);
    assert!(!reported.is_empty());
    let legal = chess(fen).legal_moves().len() as i64;
    assert!(
        reported.iter().all(|(_, n)| (1..=legal).contains(n)),
        "{reported:?}"
    );
    e.assert_alive();
}

#[test]
fn no_legal_move_gives_bestmove_0000() {
    let mut e = Engine::spawn();
    e.uci();
    let cases = [
        (
            "rnb1kbnr/pppp1ppp/8/4p3/6Pq/5P2/PPPPP2P/RNBQKBNR w KQkq - 1 3",
            ("mate", 0),
        ),
        ("7k/5Q2/6K1/8/8/8/8/8 b - - 0 1", ("cp", 0)),
        ("k7/1R6/1K6/8/8/8/8/8 b - - 0 1", ("cp", 0)),
        ("R5k1/5ppp/8/8/8/8/8/6K1 b - - 0 1", ("mate", 0)),
    ];
    for (fen, (kind, n)) in cases {
        let pos = chess(fen);
        assert!(pos.legal_moves().is_empty());
        e.send(&format!("position fen {fen}"));
        for (go, needs_stop) in [
            ("go depth 5", false),
            ("go wtime 1000 btime 1000", false),
            ("go nodes 1000", false),
            ("go movetime 100", false),
            ("go infinite", true),
            ("go ponder wtime 1000 btime 1000", true),
        ] {
            e.send(go);
            if needs_stop {
                sleep(ms(100));
                e.send("stop");
            }
            let out = e.wait_bestmove(GENEROUS);
            assert_eq!(
                out.lines.last().unwrap(),
                "bestmove 0000",
                "{fen} / {go}: {:?}",
                out.lines
            );
            let scores: Vec<_> = out
                .score_lines()
                .iter()
                .filter_map(|l| info_score(l))
                .collect();
            assert!(
                scores.contains(&(kind.to_string(), n)),
                "{fen} / {go}: expected an info line with score {kind} {n}: {:?}",
                out.lines
            );
            assert_legal(&e, &pos, &out, STD);
        }
        e.send("go perft 2");
        let last = e.expect_line("perft summary", |l| l.ends_with(" nps"), GENEROUS);
        assert!(
            last.starts_with("0 nodes "),
            "perft of a mate/stalemate: {last:?}"
        );
        e.isready_ok(GENEROUS);
    }
    e.assert_alive();
}

// -------------------------------------------------------------------------------------------
// Legality of every printed move over many positions

#[test]
fn bestmoves_and_pvs_are_legal_on_the_bench_positions() {
    let text = std::fs::read_to_string(crate_root().join("bench-positions/bench.fen")).unwrap();
    let fens = fen_lines(&text);
    assert!(fens.len() >= 50, "bench.fen has {} positions", fens.len());
    let mut e = Engine::spawn();
    e.uci();
    e.send("ucinewgame");
    e.isready_ok(GENEROUS);
    let mut searches = 0;
    // Searches that did not end by themselves; reported together at the end so that one slow
    // position does not hide problems in the others.
    let mut unfinished = Vec::new();
    for (i, fen) in fens.iter().enumerate() {
        let pos = chess(fen);
        e.send(&format!("position fen {fen}"));
        for go in ["go depth 4", "go nodes 2000"] {
            e.send(go);
            let (out, stopped) = go_bounded(&mut e, secs(20));
            let finished = !stopped;
            assert_legal(&e, &pos, &out, STD);
            if !finished {
                unfinished.push(format!(
                    "bench position {} ({fen}): '{go}' gave no bestmove within 20 s (info lines: {})",
                    i + 1,
                    out.score_lines().len()
                ));
            } else if go == "go depth 4" && !pos.legal_moves().is_empty() {
                assert!(
                    out.score_lines()
                        .iter()
                        .any(|l| info_value(l, "depth") == Some(4)),
                    "{fen} / {go}: no depth 4 info line: {:?}",
                    out.lines
                );
            }
            searches += 1;
        }
    }
    // MultiPV: every line's pv legal too.
    e.send("setoption name MultiPV value 4");
    for fen in fens.iter().step_by(5) {
        let pos = chess(fen);
        e.send(&format!("position fen {fen}"));
        e.send("go depth 3");
        let (out, _) = go_bounded(&mut e, secs(20));
        assert_legal(&e, &pos, &out, STD);
        searches += 1;
    }
    eprintln!("{searches} searches checked");
    e.isready_ok(GENEROUS);
    e.assert_alive();
    assert!(
        unfinished.is_empty(),
        "searches that did not finish:\n{}",
        unfinished.join("\n")
    );
}

/// Waits for the bestmove of a search that should end by itself; sends `stop` after `limit`.
/// Returns the output and whether `stop` was needed.
fn go_bounded(e: &mut Engine, limit: std::time::Duration) -> (SearchOutput, bool) {
    let t = Instant::now();
    let mut stopped = false;
    let mut lines = Vec::new();
    loop {
        match e.next_line(ms(200)) {
            Ok(l) => {
                let done = l.starts_with("bestmove");
                lines.push(l);
                if done {
                    break;
                }
            }
            Err(NoLine::Closed) => panic!("the engine exited\n{}", e.report()),
            Err(NoLine::Timeout) => {}
        }
        if !stopped && t.elapsed() > limit {
            stopped = true;
            e.send("stop");
        }
        assert!(
            t.elapsed() < limit + GENEROUS,
            "no bestmove even after stop\n{}",
            e.report()
        );
    }
    let last: Vec<String> = lines
        .last()
        .unwrap()
        .split_whitespace()
        .map(String::from)
        .collect();
    let out = SearchOutput {
        best: last.get(1).cloned().unwrap_or_default(),
        ponder: (last.get(2).map(String::as_str) == Some("ponder")).then(|| last[3].clone()),
        lines,
    };
    (out, stopped)
}

/// Bench position 24 is full of pieces that can capture each other: the quiescence search must
/// still let a shallow search finish at once.
#[test]
fn shallow_search_finishes_in_a_capture_heavy_position() {
    let fen = "k7/2n1n3/1nbNbn2/2NbRBn1/1nbRQR2/2NBRBN1/3N1N2/7K w - - 0 1";
    let pos = chess(fen);
    let mut e = Engine::spawn();
    e.uci();
    e.send(&format!("position fen {fen}"));
    e.send("go depth 1");
    let t = Instant::now();
    let (out, stopped) = go_bounded(&mut e, secs(10));
    let took = t.elapsed();
    eprintln!("go depth 1 in {fen}: bestmove {} after {took:?}", out.best);
    assert_legal(&e, &pos, &out, STD);
    assert!(
        !stopped && !out.score_lines().is_empty(),
        "go depth 1 did not finish within 10 s in {fen} (stopped; output {:?})",
        out.lines
    );
    e.assert_alive();
}

// -------------------------------------------------------------------------------------------
// Chess960

/// The first positions of the Chess960 perft suite where a castling move is legal at once.
fn chess960_positions_with_castling(n: usize) -> Vec<(String, Chess)> {
    let suite = parse_perft_suite(&test_data("perft/fischer.epd"));
    suite
        .into_iter()
        .filter_map(|c| {
            let pos = chess_from_fen(&c.fen, CastlingMode::Chess960).ok()?;
            pos.legal_moves()
                .iter()
                .any(|m| m.is_castle())
                .then_some((c.fen, pos))
        })
        .take(n)
        .collect()
}

#[test]
fn chess960_castling_is_king_takes_rook() {
    let c960 = CastlingMode::Chess960;
    let cases = chess960_positions_with_castling(5);
    assert!(
        !cases.is_empty(),
        "no Chess960 position with a legal castling move"
    );
    let mut e = Engine::spawn();
    e.uci();
    e.send("setoption name UCI_Chess960 value true");
    e.isready_ok(GENEROUS);
    for (fen, pos) in &cases {
        e.send(&format!("position fen {fen}"));
        e.send("go perft 1");
        let lines = e.collect_until("the perft summary", |l| l.ends_with(" nps"), GENEROUS);
        let mut listed: Vec<String> = divide_lines(&lines).into_iter().map(|(m, _)| m).collect();
        listed.sort();
        let mut expected: Vec<String> = pos
            .legal_moves()
            .iter()
            .map(|m| move_text(*m, c960))
            .collect();
        expected.sort();
        assert_eq!(
            listed,
            expected,
            "go perft 1 moves in {fen}:\n{}",
            lines.join("\n")
        );
        let castle = pos
            .legal_moves()
            .iter()
            .copied()
            .find(|m| m.is_castle())
            .unwrap();
        let text = move_text(castle, c960);
        let (king, rook) = match castle {
            shakmaty::Move::Castle { king, rook } => (king, rook),
            _ => unreachable!(),
        };
        assert_eq!(
            text,
            format!("{king}{rook}"),
            "castling must be written king-takes-rook"
        );
        assert!(
            listed.contains(&text),
            "castling {text} missing from go perft 1 in {fen}"
        );

        // Play it through `position ... moves` and check the board.
        e.send(&format!("position fen {fen} moves {text}"));
        let shown = e.fen();
        let shown_pos =
            chess_from_fen(&shown, c960).unwrap_or_else(|err| panic!("d printed {shown:?}: {err}"));
        let mut after = pos.clone();
        after.play_unchecked(castle);
        assert_eq!(
            shown_pos.board(),
            after.board(),
            "board after {text} from {fen}: d says {shown}"
        );
        assert_eq!(shown_pos.turn(), after.turn());
        assert_eq!(
            shown_pos.castles().castling_rights(),
            after.castles().castling_rights(),
            "castling rights after {text} from {fen}: d says {shown}"
        );

        // A search from the Chess960 position prints Chess960 notation.
        e.send(&format!("position fen {fen}"));
        e.send("go depth 4");
        let out = e.wait_bestmove(GENEROUS);
        assert_legal(&e, pos, &out, c960);
        e.send(&format!("position fen {fen}"));
        e.send(&format!("go depth 3 searchmoves {text}"));
        let out = e.wait_bestmove(GENEROUS);
        assert_eq!(
            out.best, text,
            "searchmoves with a castling move: {:?}",
            out.lines
        );
        assert_legal(&e, pos, &out, c960);
    }
    e.isready_ok(GENEROUS);
    e.assert_alive();
}

// -------------------------------------------------------------------------------------------
// Limits and options

#[test]
fn go_nodes_is_respected() {
    let mut e = Engine::spawn();
    e.uci();
    for fen in [
        STARTPOS,
        "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
        "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1",
    ] {
        e.send("ucinewgame");
        e.send(&format!("position fen {fen}"));
        e.send("go nodes 5000");
        let out = e.wait_bestmove(GENEROUS);
        assert_legal(&e, &chess(fen), &out, STD);
        let last = out
            .score_lines()
            .last()
            .map(|l| l.to_string())
            .expect("no info line");
        let nodes = info_value(&last, "nodes").expect("no nodes in the last info line");
        eprintln!("go nodes 5000 in {fen}: last info line reports {nodes} nodes");
        assert!(
            nodes <= 7000,
            "go nodes 5000 searched {nodes} nodes: {last}"
        );
    }
    e.assert_alive();
}

#[test]
fn hash_resize_and_case_insensitive_option_names() {
    let mut e = Engine::spawn();
    e.uci();
    e.send("setoption name Hash value 64");
    let line = e.expect_line(
        "the hash size info string",
        |l| l.starts_with("info string"),
        GENEROUS,
    );
    assert!(
        line.contains("64"),
        "the info string should give the size: {line:?}"
    );
    e.isready_ok(GENEROUS);
    e.send("setoption name HASH value 8");
    let line = e.expect_line(
        "the hash size info string",
        |l| l.starts_with("info string"),
        GENEROUS,
    );
    assert!(line.contains('8') && !line.contains("unknown"), "{line:?}");
    e.send("setoption name hash value -99999999999999999999999");
    let line = e.expect_line(
        "the clamp info string",
        |l| l.starts_with("info string"),
        GENEROUS,
    );
    assert!(!line.contains("unknown"), "{line:?}");
    e.isready_ok(GENEROUS);

    // Names in any case: none is reported unknown, and they take effect.
    for cmd in [
        "setoption name clear hash",
        "setoption name CLEAR HASH",
        "setoption name threads value 1",
        "setoption name move overhead value 20",
        "setoption name PONDER value false",
        "setoption name uci_chess960 value false",
        "setoption name multipv value 3",
    ] {
        e.send(cmd);
        e.send("isready");
        let lines = e.collect_until("readyok", |l| l == "readyok", GENEROUS);
        assert!(
            lines
                .iter()
                .all(|l| !l.to_ascii_lowercase().contains("unknown")),
            "{cmd:?} was not recognised: {lines:?}"
        );
    }
    e.send("position startpos");
    e.send("go depth 4");
    let out = e.wait_bestmove(GENEROUS);
    assert_legal(&e, &Chess::default(), &out, STD);
    for k in 1..=3 {
        assert!(
            out.lines
                .iter()
                .any(|l| info_value(l, "multipv") == Some(k)),
            "'multipv value 3' (lower case) had no effect: no multipv {k} line in {:?}",
            out.lines
        );
    }
    e.assert_alive();
}

#[test]
fn huge_hash_value_is_clamped_and_the_engine_survives() {
    // The clamped request (65536 MB) is bounded here by an address-space limit so the test does
    // not take half of the machine's memory: the engine must fall back to what it can allocate.
    let mut e = Engine::spawn_with_memory_limit_kb(1_000_000);
    e.uci();
    e.send("setoption name hash value 999999999999999999999");
    let lines = e.collect_until(
        "an info string about the clamp",
        |l| l.starts_with("info string") && l.contains("65536"),
        GENEROUS,
    );
    assert!(lines.iter().all(|l| !l.contains("unknown")), "{lines:?}");
    e.isready_ok(secs(60));
    e.send("position startpos");
    e.send("go depth 5");
    let out = e.wait_bestmove(GENEROUS);
    assert_legal(&e, &Chess::default(), &out, STD);
    e.send("setoption name Hash value 1");
    e.isready_ok(secs(60));
    e.assert_alive();
}

// -------------------------------------------------------------------------------------------
// perft, d, eval over UCI

#[test]
fn perft_d_and_eval_commands() {
    let mut e = Engine::spawn();
    e.uci();
    e.send("position startpos");
    for cmd in ["go perft 3", "perft 3"] {
        e.send(cmd);
        let lines = e.collect_until("perft summary", |l| l.ends_with(" nps"), GENEROUS);
        let divide: Vec<u64> = divide_lines(&lines).into_iter().map(|(_, n)| n).collect();
        assert_eq!(divide.len(), 20, "{cmd}: {lines:?}");
        assert_eq!(divide.iter().sum::<u64>(), 8902);
        assert!(
            lines.contains(&"Nodes searched: 8902".to_string()),
            "{lines:?}"
        );
        assert!(
            lines
                .iter()
                .any(|l| l.starts_with("Time: ") && l.ends_with(" ms")),
            "{lines:?}"
        );
        assert_eq!(nodes_nps_line(lines.last().unwrap()), Ok(8902), "{lines:?}");
        e.isready_ok(GENEROUS);
    }
    e.send("position startpos moves e2e4");
    e.send("d");
    let lines = e.collect_until("Checkers line", |l| l.starts_with("Checkers:"), GENEROUS);
    assert!(lines.iter().any(|l| l.starts_with("Key: ")), "{lines:?}");
    assert!(
        lines
            .iter()
            .any(|l| l == "Fen: rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1"),
        "{lines:?}"
    );
    e.send("position fen rnb1kbnr/pppp1ppp/8/4p3/6Pq/5P2/PPPPP2P/RNBQKBNR w KQkq - 1 3");
    e.send("d");
    let line = e.expect_line("Checkers line", |l| l.starts_with("Checkers:"), GENEROUS);
    assert_eq!(line.trim_end(), "Checkers: h4");
    e.send("eval");
    e.isready_ok(GENEROUS);
    e.assert_alive();
}

// -------------------------------------------------------------------------------------------
// Several search threads (Lazy SMP)

#[test]
fn several_threads_search_legally_stop_promptly_and_share_the_node_limit() {
    let mut e = Engine::spawn();
    e.uci();
    e.send("setoption name Threads value 4");
    e.isready_ok(GENEROUS);
    let text = std::fs::read_to_string(crate_root().join("bench-positions/bench.fen")).unwrap();
    let fens = fen_lines(&text);
    // Fixed-depth and clocked searches give legal moves and PVs.
    for fen in fens.iter().step_by(5) {
        let pos = chess(fen);
        e.send(&format!("position fen {fen}"));
        e.send("go depth 7");
        let out = e.wait_bestmove(GENEROUS);
        assert_legal(&e, &pos, &out, STD);
        e.send("go wtime 2000 btime 2000 winc 20 binc 20");
        let out = e.wait_bestmove(GENEROUS);
        assert_legal(&e, &pos, &out, STD);
    }
    // `go nodes` counts the nodes of every thread.
    e.send("position startpos");
    e.send("go nodes 30000");
    let out = e.wait_bestmove(GENEROUS);
    assert_legal(&e, &Chess::default(), &out, STD);
    let nodes = out
        .score_lines()
        .last()
        .and_then(|l| info_value(l, "nodes"))
        .expect("no nodes in the last info line");
    assert!(
        nodes <= 30_000 + 4 * 2048,
        "go nodes 30000 with 4 threads searched {nodes} nodes"
    );
    // `stop` ends all four threads at once.
    let (times, m) = stop_latencies(&mut e, &[STARTPOS, fens[1], fens[7]]);
    eprintln!("4 threads: stop -> bestmove latencies {times:?}");
    assert!(m < ms(100), "stop took {m:?} (median of {times:?})");
    // Pondering: no bestmove before ponderhit, then a normal timed answer.
    e.send("position startpos moves e2e4 e7e5");
    e.send("go ponder wtime 1000 btime 1000");
    e.expect_no_line(
        "bestmove while pondering",
        |l| l.starts_with("bestmove"),
        ms(400),
    );
    e.send("ponderhit");
    let out = e.wait_bestmove(secs(10));
    assert_legal(
        &e,
        &after_moves(&Chess::default(), &["e2e4", "e7e5"]),
        &out,
        STD,
    );
    // Back to one thread: still answers.
    e.send("setoption name Threads value 1");
    e.send("go depth 5");
    let out = e.wait_bestmove(GENEROUS);
    assert_legal(
        &e,
        &after_moves(&Chess::default(), &["e2e4", "e7e5"]),
        &out,
        STD,
    );
    e.assert_alive();
}

// -------------------------------------------------------------------------------------------
// Opening book (OwnBook, BookFile, BookDepth)

/// The test book of `common::polyglot`, written to a temporary file.
fn test_book() -> BookFile {
    BookFile::write("test-book.bin", &polyglot::TEST_BOOK)
}

/// The `info string book move ...` lines of a search output.
fn book_lines(out: &SearchOutput) -> Vec<&String> {
    out.lines
        .iter()
        .filter(|l| l.starts_with("info string book move"))
        .collect()
}

/// Sets `BookFile` and returns the `info string` that answers it.
fn set_book_file(e: &mut Engine, value: &str) -> String {
    e.send(&format!("setoption name BookFile value {value}"));
    e.expect_line(
        "the info string answering BookFile",
        |l| l.starts_with("info string book ") || l.starts_with("info string no book file"),
        GENEROUS,
    )
}

/// Checks that `out` is a book answer whose moves and weights are `book` (as the test book
/// defines them): exactly one `info string book move M (weight w of total t)` naming the
/// bestmove, with the move's weight and the total of the position's, and no search.
fn assert_book_answer(e: &Engine, book: &[(&str, u32)], out: &SearchOutput) {
    let total: u32 = book.iter().map(|&(_, w)| w).sum();
    let lines = book_lines(out);
    assert_eq!(lines.len(), 1, "one book line expected: {:#?}", out.lines);
    let weight = book
        .iter()
        .find(|&&(m, _)| m == out.best)
        .unwrap_or_else(|| panic!("bestmove {} is not a book move\n{}", out.best, e.report()))
        .1;
    assert!(weight > 0, "a zero-weight book move was played");
    assert_eq!(
        lines[0].as_str(),
        format!(
            "info string book move {} (weight {weight} of total {total})",
            out.best
        )
    );
    assert!(
        out.score_lines().is_empty() && out.ponder.is_none(),
        "a book move is answered without a search: {:#?}",
        out.lines
    );
}

#[test]
fn book_options_are_announced() {
    let mut e = Engine::spawn();
    let lines = e.uci();
    for expected in [
        "option name OwnBook type check default false",
        "option name BookFile type string default <empty>",
        "option name BookDepth type spin default 40 min 0 max 1024",
    ] {
        assert!(
            lines.iter().any(|l| l == expected),
            "missing {expected:?} in {lines:#?}"
        );
    }
}

#[test]
fn own_book_plays_book_moves_on_the_clock_only() {
    let mut e = Engine::spawn();
    e.uci();
    e.send("setoption name ownbook value TRUE");
    let book = test_book();
    let loaded = set_book_file(&mut e, book.path().to_str().unwrap());
    assert!(
        loaded.ends_with(&format!(": {} entries", polyglot::TEST_BOOK.len())),
        "{loaded}"
    );
    e.isready_ok(GENEROUS);
    let start = Chess::default();

    // On the clock: a book move at once, several times (the choice is random; each one is a
    // book move with its weight, never the one of weight 0).
    e.send("position startpos");
    for _ in 0..5 {
        e.send("go wtime 1000 btime 1000");
        let out = e.wait_bestmove(GENEROUS);
        assert_book_answer(&e, &polyglot::START_MOVES, &out);
    }
    // Deeper in the book, with increments and movestogo too; an entry that is no legal move
    // is skipped (and not counted in the total).
    let after_e4 = after_moves(&start, &["e2e4"]);
    e.send("position startpos moves e2e4");
    e.send("go wtime 60000 btime 60000 winc 1000 binc 1000 movestogo 40");
    let out = e.wait_bestmove(GENEROUS);
    assert_book_answer(&e, &polyglot::AFTER_E4_MOVES, &out);
    // An en-passant capture from the book.
    e.send("position startpos moves a2a4 b7b5 h2h4 b5b4 c2c4");
    e.send("go wtime 1000 btime 1000");
    let out = e.wait_bestmove(GENEROUS);
    assert_book_answer(&e, &[("b4c3", 1)], &out);

    // Analysis does not use the book: depth, nodes, movetime, infinite, ponder, searchmoves.
    e.send("position startpos");
    e.send("go depth 5");
    let out = e.wait_bestmove(GENEROUS);
    assert!(book_lines(&out).is_empty(), "{:#?}", out.lines);
    assert_eq!(
        out.score_lines()
            .last()
            .and_then(|l| info_value(l, "depth")),
        Some(5),
        "{:#?}",
        out.lines
    );
    assert_legal(&e, &start, &out, STD);
    for go in ["go nodes 2000", "go movetime 100"] {
        e.send(go);
        let out = e.wait_bestmove(GENEROUS);
        assert!(book_lines(&out).is_empty(), "{go}: {:#?}", out.lines);
        assert!(
            !out.score_lines().is_empty(),
            "{go} searched: {:#?}",
            out.lines
        );
    }
    let out = go_then_stop(&mut e, "go infinite", 100);
    assert!(book_lines(&out).is_empty(), "{:#?}", out.lines);
    let out = go_then_stop(&mut e, "go ponder wtime 1000 btime 1000", 100);
    assert!(book_lines(&out).is_empty(), "{:#?}", out.lines);
    e.send("go wtime 1000 btime 1000 searchmoves g1f3");
    let out = e.wait_bestmove(GENEROUS);
    assert!(book_lines(&out).is_empty(), "{:#?}", out.lines);
    assert_eq!(out.best, "g1f3");

    // Out of book: a search. 1.g4 e5 2.f3 is not in the book (and Qh4 mates).
    let out_of_book = after_moves(&start, &["g2g4", "e7e5", "f2f3"]);
    e.send("position startpos moves g2g4 e7e5 f2f3");
    e.send("go wtime 1000 btime 1000");
    let out = e.wait_bestmove(GENEROUS);
    assert!(book_lines(&out).is_empty(), "{:#?}", out.lines);
    assert_legal(&e, &out_of_book, &out, STD);
    assert_eq!(out.best, "d8h4");

    // BookDepth bounds the game ply: 1 allows the first move only.
    e.send("setoption name BookDepth value 1");
    e.send("position startpos");
    e.send("go wtime 1000 btime 1000");
    let out = e.wait_bestmove(GENEROUS);
    assert_book_answer(&e, &polyglot::START_MOVES, &out);
    e.send("position startpos moves e2e4");
    e.send("go wtime 1000 btime 1000");
    let out = e.wait_bestmove(GENEROUS);
    assert!(book_lines(&out).is_empty(), "{:#?}", out.lines);
    assert_legal(&e, &after_e4, &out, STD);
    e.send("setoption name BookDepth value 40");

    // Never in Chess960.
    e.send("setoption name UCI_Chess960 value true");
    e.send("position startpos");
    e.send("go wtime 1000 btime 1000");
    let out = e.wait_bestmove(GENEROUS);
    assert!(book_lines(&out).is_empty(), "{:#?}", out.lines);
    e.send("setoption name UCI_Chess960 value false");

    // OwnBook off: a search.
    e.send("setoption name OwnBook value false");
    e.send("position startpos");
    e.send("go wtime 1000 btime 1000");
    let out = e.wait_bestmove(GENEROUS);
    assert!(book_lines(&out).is_empty(), "{:#?}", out.lines);
    assert_legal(&e, &start, &out, STD);
    e.assert_alive();
}

#[test]
fn book_file_paths_may_hold_spaces() {
    let dir = std::env::temp_dir().join(format!("scout book test {}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("my  opening\tbook.bin");
    std::fs::write(&path, polyglot::to_bytes(&polyglot::TEST_BOOK)).unwrap();
    let mut e = Engine::spawn();
    e.send("setoption name OwnBook value true");
    let answer = set_book_file(&mut e, path.to_str().unwrap());
    std::fs::remove_dir_all(&dir).unwrap();
    assert!(
        answer.ends_with(&format!(": {} entries", polyglot::TEST_BOOK.len())),
        "{answer}"
    );
    e.send("position startpos");
    e.send("go wtime 1000 btime 1000");
    let out = e.wait_bestmove(GENEROUS);
    assert_book_answer(&e, &polyglot::START_MOVES, &out);
}

#[test]
fn book_castling_is_played_in_uci_notation() {
    // The book stores castling king-takes-rook (e1h1, e8a8); the engine answers with the
    // king's two-square move, as UCI writes castling in standard chess.
    let white = "r3k2r/pppppppp/8/8/8/8/PPPPPPPP/R3K2R w KQkq - 0 1";
    let black = "r3k2r/pppppppp/8/8/8/8/PPPPPPPP/R3K2R b KQkq - 0 1";
    let entry = |fen: &str, mv| polyglot::Entry {
        key: scout::book::key(&chess_from_fen(fen, STD).unwrap()),
        mv,
        weight: 1,
        learn: 0,
    };
    let book = BookFile::write(
        "castling.bin",
        &[entry(white, "e1h1"), entry(black, "e8a8")],
    );
    let mut e = Engine::spawn();
    e.send("setoption name OwnBook value true");
    set_book_file(&mut e, book.path().to_str().unwrap());
    for (fen, castles) in [(white, "e1g1"), (black, "e8c8")] {
        e.send(&format!("position fen {fen}"));
        e.send("go wtime 1000 btime 1000");
        let out = e.wait_bestmove(GENEROUS);
        assert_book_answer(&e, &[(castles, 1)], &out);
    }
    e.assert_alive();
}

#[test]
fn bad_book_files_are_reported_and_the_engine_still_plays() {
    let dir = std::env::temp_dir().join(format!("scout-bad-books-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let book = test_book();
    let whole = polyglot::to_bytes(&polyglot::TEST_BOOK);
    let truncated = dir.join("truncated.bin");
    std::fs::write(&truncated, &whole[..whole.len() - 5]).unwrap();
    let empty = dir.join("empty.bin");
    std::fs::write(&empty, b"").unwrap();
    let missing = dir.join("missing.bin");

    let mut e = Engine::spawn();
    e.send("setoption name OwnBook value true");
    let start = Chess::default();
    for bad in [&missing, &truncated, &empty, &dir] {
        // A good book first, so that the bad one must really switch it off.
        set_book_file(&mut e, book.path().to_str().unwrap());
        let answer = set_book_file(&mut e, bad.to_str().unwrap());
        assert!(
            answer.starts_with("info string book off: "),
            "{}: {answer}",
            bad.display()
        );
        e.send("position startpos");
        e.send("go wtime 1000 btime 1000");
        let out = e.wait_bestmove(GENEROUS);
        assert!(book_lines(&out).is_empty(), "{:#?}", out.lines);
        assert_legal(&e, &start, &out, STD);
    }
    // An empty value (and `<empty>`) unloads the book.
    for none in [
        "setoption name BookFile value <empty>",
        "setoption name BookFile",
    ] {
        set_book_file(&mut e, book.path().to_str().unwrap());
        e.send(none);
        e.expect_line(
            "the info string of an unloaded book",
            |l| l == "info string no book file: the book is off",
            GENEROUS,
        );
        e.send("go wtime 1000 btime 1000");
        let out = e.wait_bestmove(GENEROUS);
        assert!(book_lines(&out).is_empty(), "{none}: {:#?}", out.lines);
    }
    std::fs::remove_dir_all(&dir).unwrap();
    e.assert_alive();
}
