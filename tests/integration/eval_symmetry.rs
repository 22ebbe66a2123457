//! Evaluation symmetry and range tests, with the net built into the binary.
//!
//! The evaluation is from the side to move's point of view, so a position and its colour
//! mirror (board flipped vertically, colours and side to move swapped) must evaluate to exactly
//! the same number. Checked on every position of the perft suites of `tests/data` (standard and
//! Chess960) and of the bench positions.

use crate::common;

use common::{crate_root, test_data};
use scout::nnue::{Network, default_network, evaluate_board};
use shakmaty::fen::Fen;
use shakmaty::{CastlingMode, Chess, EnPassantMode, FromSetup, Position};

/// Parses FENs, skipping those that shakmaty refuses.
fn parse_all<'a>(fens: impl Iterator<Item = &'a str>, mode: CastlingMode) -> Vec<Chess> {
    fens.filter_map(|fen| {
        let fen = fen.trim();
        if fen.is_empty() || fen.starts_with('#') {
            return None;
        }
        fen.parse::<Fen>().ok()?.into_position(mode).ok()
    })
    .collect()
}

/// The FEN part of an EPD perft line (`FEN ;D1 n ;D2 n ...`).
fn epd_fens(text: &str) -> impl Iterator<Item = &str> {
    text.lines()
        .map(|line| line.split(';').next().unwrap_or(""))
}

fn standard_positions() -> Vec<Chess> {
    let text = test_data("perft/standard.epd");
    parse_all(epd_fens(&text), CastlingMode::Standard)
}

fn fischer_positions() -> Vec<Chess> {
    let text = test_data("perft/fischer.epd");
    parse_all(epd_fens(&text), CastlingMode::Chess960)
}

fn bench_positions() -> Vec<Chess> {
    let path = crate_root().join("bench-positions/bench.fen");
    let text = std::fs::read_to_string(&path)
        .unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()));
    parse_all(text.lines(), CastlingMode::Standard)
}

/// The colour mirror of `pos`, or `None` if shakmaty refuses it.
fn mirrored(pos: &Chess, mode: CastlingMode) -> Option<Chess> {
    let setup = pos.to_setup(EnPassantMode::Legal).into_mirrored();
    Chess::from_setup(setup, mode).ok()
}

/// The net's evaluation of `pos` for the side to move.
fn evaluate(net: &Network, pos: &Chess) -> i32 {
    evaluate_board(net, pos.board(), pos.turn())
}

fn check_symmetry(name: &str, positions: &[Chess], mode: CastlingMode) {
    assert!(!positions.is_empty(), "{name}: no positions parsed");
    let net = default_network();
    let mut failures = Vec::new();
    let mut checked = 0;
    for pos in positions {
        let Some(mirror) = mirrored(pos, mode) else {
            continue;
        };
        checked += 1;
        let a = evaluate(&net, pos);
        let b = evaluate(&net, &mirror);
        if a != b {
            let fen = Fen::from_position(pos, EnPassantMode::Legal);
            failures.push(format!("{fen}: {a} vs mirrored {b}"));
        }
    }
    assert!(checked > 0, "{name}: no mirrored positions");
    assert!(
        failures.is_empty(),
        "{name}: {} asymmetric evaluations:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

#[test]
fn standard_perft_positions_are_symmetric() {
    check_symmetry(
        "standard.epd",
        &standard_positions(),
        CastlingMode::Standard,
    );
}

#[test]
fn fischer_perft_positions_are_symmetric() {
    check_symmetry("fischer.epd", &fischer_positions(), CastlingMode::Chess960);
}

#[test]
fn bench_positions_are_symmetric() {
    let positions = bench_positions();
    assert_eq!(positions.len(), 50, "expected 50 bench positions");
    check_symmetry("bench.fen", &positions, CastlingMode::Standard);
}
