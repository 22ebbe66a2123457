//! Syzygy endgame tablebases, with the 3- and 4-piece tables of `tests/data/syzygy` (the twelve
//! these positions and every position a search or the oracle reaches from them can probe):
//!
//! - over UCI (the real binary): the `Syzygy*` options in the banner; positions whose result
//!   only the tables know get the tables' score (`score cp` near `TB_WIN`, or 0) at depth 3
//!   with `tbhits` > 0, and without tables they do not; `searchmoves` still restricts a root
//!   in the tables; missing, empty and wrong paths only produce `info string`s;
//! - in-process (the library's `Searcher`): won endings (KQvK, KRvK, KBNvK) are converted to
//!   mate within the fifty-move rule against the tables' best defence, and drawn endings
//!   (KPvK, KRvKB) are held against an attacker who always plays the trickiest drawing move.
//!
//! An independent `shakmaty_syzygy::Tablebase` (the oracle) checks every premise and every
//! move.

use crate::common;

use std::collections::HashMap;
use std::sync::Arc;

use common::{Engine, GENEROUS, info_score, info_value, syzygy_dir};
use scout::position::Position;
use scout::score::{MATE_BOUND, TB_BOUND};
use scout::search::{Limits, Searcher, SharedFlags, Silent};
use scout::tablebase::{ProbeSettings, Tablebases};
use scout::time::TimeManager;
use scout::tt::TranspositionTable;
use shakmaty::fen::Fen;
use shakmaty::uci::UciMove;
use shakmaty::{CastlingMode, Chess, Move, Position as _};
use shakmaty_syzygy::{AmbiguousWdl, Tablebase, Wdl};

/// The number of tables in `tests/data/syzygy` (each a WDL and a DTZ file).
const TABLES: usize = 12;

/// The tables' summary line after `SyzygyPath` is set to them.
fn tables_summary() -> String {
    format!("{TABLES} WDL and {TABLES} DTZ tables, up to 4 pieces")
}

/// The tables, loaded independently of Scout.
fn oracle() -> Tablebase<Chess> {
    let mut tb = Tablebase::new();
    let n = tb.add_directory(syzygy_dir()).expect("the tables load");
    assert_eq!(n, 2 * TABLES, "{TABLES} WDL and {TABLES} DTZ files");
    tb
}

fn chess(fen: &str) -> Chess {
    fen.parse::<Fen>()
        .unwrap()
        .into_position(CastlingMode::Standard)
        .unwrap()
}

fn uci(m: Move) -> String {
    UciMove::from_move(m, CastlingMode::Standard).to_string()
}

/// The oracle's WDL for the side to move, with the halfmove clock taken into account.
fn wdl(oracle: &Tablebase<Chess>, pos: &Chess) -> AmbiguousWdl {
    oracle.probe_wdl(pos).expect("the oracle answers")
}

// ---------------------------------------------------------------------------------------
// Over UCI

/// `go depth D` on `fen`; returns the last score line.
fn last_score_line(e: &mut Engine, fen: &str, go: &str) -> (String, String) {
    e.send(&format!("position fen {fen}"));
    e.send(go);
    let out = e.wait_bestmove(GENEROUS);
    for l in out.lines.iter().filter(|l| l.contains(" nodes ")) {
        assert!(
            l.contains(" tbhits "),
            "an info line with nodes but no tbhits: {l}"
        );
    }
    let last = out
        .score_lines()
        .last()
        .map(|l| l.to_string())
        .unwrap_or_else(|| panic!("no score line for {fen}: {:?}", out.lines));
    (last, out.best)
}

fn engine_with_tables() -> Engine {
    let mut e = Engine::spawn();
    e.uci();
    e.send(&format!(
        "setoption name SyzygyPath value {}",
        syzygy_dir().display()
    ));
    let lines = e.collect_until(
        "the tables' summary",
        |l| l.starts_with("info string SyzygyPath:"),
        GENEROUS,
    );
    let summary = lines.last().unwrap();
    assert!(summary.contains(&tables_summary()), "{summary}");
    e.isready_ok(GENEROUS);
    e
}

#[test]
fn uci_banner_announces_the_syzygy_options() {
    let mut e = Engine::spawn();
    let lines = e.uci();
    for expected in [
        "option name SyzygyPath type string default <empty>",
        "option name SyzygyProbeDepth type spin default 1 min 1 max 100",
        "option name SyzygyProbeLimit type spin default 7 min 0 max 7",
        "option name Syzygy50MoveRule type check default true",
    ] {
        assert!(
            lines.iter().any(|l| l == expected),
            "missing {expected:?} in {lines:#?}"
        );
    }
}

/// Positions whose value a shallow search may get wrong and the tables know, with the oracle's
/// verdict for the side to move. (A net can learn some of them: generation 4 scores the rook
/// pawn's draw −14 at depth 3 without tables, where generation 3 saw a pawn up.)
const ONLY_THE_TABLES_KNOW: [(&str, Wdl); 5] = [
    // KPvK: a pawn up, but the defending king holds the opposition.
    ("4k3/8/8/8/4P3/4K3/8/8 w - - 0 1", Wdl::Draw),
    // KPvK: the rook pawn cannot be forced through.
    ("k7/8/8/8/8/8/P7/K7 w - - 0 1", Wdl::Draw),
    // KRvKB: an exchange up, and a dead draw.
    ("8/8/8/3k4/8/2b5/8/R5K1 w - - 0 1", Wdl::Draw),
    // KQvKR: a win.
    ("8/8/2k5/8/4r3/8/8/Q5K1 w - - 0 1", Wdl::Win),
    // KBNvK: a win, far beyond any shallow search.
    ("8/8/8/4k3/8/8/8/2BNK3 w - - 0 1", Wdl::Win),
];

#[test]
fn the_tables_score_what_a_shallow_search_cannot_know() {
    let oracle = oracle();
    let mut with = engine_with_tables();
    let mut without = Engine::spawn();
    without.uci();
    let mut misjudged_without = Vec::new();
    for (fen, verdict) in ONLY_THE_TABLES_KNOW {
        assert_eq!(
            oracle.probe_wdl_after_zeroing(&chess(fen)).unwrap(),
            verdict,
            "premise: {fen}"
        );
        let (line, _) = last_score_line(&mut with, fen, "go depth 3");
        let (kind, cp) = info_score(&line).unwrap();
        assert_eq!(
            kind, "cp",
            "a tablebase score is printed in centipawns: {line}"
        );
        assert!(info_value(&line, "tbhits").unwrap() > 0, "{line}");
        match verdict {
            Wdl::Draw => assert!(cp.abs() <= 1, "a draw: {line}"),
            Wdl::Win => assert!(
                cp >= TB_BOUND as i64 && cp < MATE_BOUND as i64,
                "a tablebase win: {line}"
            ),
            _ => unreachable!(),
        }

        let (line, _) = last_score_line(&mut without, fen, "go depth 3");
        let (kind, cp) = info_score(&line).unwrap();
        assert_eq!(info_value(&line, "tbhits"), Some(0), "{line}");
        assert_eq!(kind, "cp");
        // Without tables the material counts: a draw is scored well away from a draw (the
        // tables give it 0), a win is not known to be one.
        let misjudged = match verdict {
            Wdl::Draw => cp.abs() > 25,
            Wdl::Win => cp < TB_BOUND as i64,
            _ => unreachable!(),
        };
        misjudged_without.push((misjudged, line));
    }
    // The positions are there because the search without tables gets them wrong: most of
    // them it still must (so the scores above came from the tables, not from the search).
    assert!(
        misjudged_without.iter().filter(|(m, _)| *m).count() >= 3,
        "{misjudged_without:#?}"
    );
    with.assert_no_panic();
    without.assert_no_panic();
}

#[test]
fn a_losing_side_in_the_tables_sees_its_loss() {
    // Black to move in KQvKR: whatever it plays, the tables say it loses (in 26 moves).
    let fen = "8/8/2k5/8/4r3/8/8/Q5K1 b - - 0 1";
    assert_eq!(
        oracle().probe_wdl_after_zeroing(&chess(fen)).unwrap(),
        Wdl::Loss
    );
    let mut e = engine_with_tables();
    let (line, _) = last_score_line(&mut e, fen, "go depth 3");
    let (kind, cp) = info_score(&line).unwrap();
    assert_eq!(kind, "cp", "{line}");
    assert!(
        cp <= -(TB_BOUND as i64) && cp > -(MATE_BOUND as i64),
        "{line}"
    );
}

#[test]
fn searchmoves_still_restricts_a_root_in_the_tables() {
    let oracle = oracle();
    let fen = "8/8/2k5/8/4r3/8/8/Q5K1 w - - 0 1";
    let pos = chess(fen);
    // Two moves that throw the win away: the tables would never keep them.
    let bad: Vec<String> = pos
        .legal_moves()
        .into_iter()
        .filter(|&m| {
            let mut after = pos.clone();
            after.play_unchecked(m);
            wdl(&oracle, &after).signum() >= 0
        })
        .map(uci)
        .take(2)
        .collect();
    assert_eq!(bad.len(), 2, "premise: KQvKR has moves that lose the queen");
    let mut e = engine_with_tables();
    let (line, best) = last_score_line(
        &mut e,
        fen,
        &format!("go depth 3 searchmoves {} {}", bad[0], bad[1]),
    );
    assert!(bad.contains(&best), "bestmove {best} outside {bad:?}");
    let (_, cp) = info_score(&line).unwrap();
    assert!(cp < TB_BOUND as i64, "not a win any more: {line}");
}

#[test]
fn two_threads_count_tbhits_and_see_the_win() {
    let mut e = engine_with_tables();
    e.send("setoption name Threads value 2");
    let (line, _) = last_score_line(&mut e, "8/8/2k5/8/4r3/8/8/Q5K1 b - - 0 1", "go depth 6");
    let (_, cp) = info_score(&line).unwrap();
    assert!(cp <= -(TB_BOUND as i64), "{line}");
    assert!(info_value(&line, "tbhits").unwrap() > 0, "{line}");
}

#[test]
fn probe_limit_zero_and_empty_path_switch_the_tables_off() {
    let fen = "4k3/8/8/8/4P3/4K3/8/8 w - - 0 1";
    let mut e = engine_with_tables();
    e.send("setoption name SyzygyProbeLimit value 0");
    let (line, _) = last_score_line(&mut e, fen, "go depth 3");
    assert_eq!(info_value(&line, "tbhits"), Some(0), "{line}");
    e.send("setoption name syzygyprobelimit value 4");
    let (line, _) = last_score_line(&mut e, fen, "go depth 3");
    assert!(info_value(&line, "tbhits").unwrap() > 0, "{line}");
    for off in ["<empty>", ""] {
        e.send(&format!("setoption name SyzygyPath value {off}"));
        e.expect_line(
            "tables off",
            |l| l == "info string SyzygyPath: no tablebases",
            GENEROUS,
        );
        let (line, _) = last_score_line(&mut e, fen, "go depth 3");
        assert_eq!(info_value(&line, "tbhits"), Some(0), "{line}");
        let (_, cp) = info_score(&line).unwrap();
        // A pawn up, not a tablebase win: the net's own judgement, whatever net is built in.
        assert!(
            cp > 0 && cp < TB_BOUND as i64,
            "the search's own score again: {line}"
        );
        e.send(&format!(
            "setoption name SyzygyPath value {}",
            syzygy_dir().display()
        ));
    }
    e.assert_no_panic();
}

/// A fresh directory under the system's temporary directory.
fn temp_dir(name: &str) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("scout-syzygy-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

#[test]
fn bad_paths_are_reported_and_the_engine_goes_on() {
    let empty = temp_dir("empty");
    let junk = temp_dir("junk");
    std::fs::write(
        junk.join("KQvK.rtbw"),
        b"this is not a tablebase, only text",
    )
    .unwrap();
    std::fs::write(junk.join("KRvK.rtbz"), vec![0u8; 64 + 16]).unwrap();
    std::fs::write(junk.join("notes.txt"), b"nothing to see").unwrap();
    let missing = "/nonexistent/scout/syzygy tables";
    let cases = [
        (missing.to_string(), "cannot read directory"),
        (empty.display().to_string(), "no tables found in"),
        (junk.display().to_string(), "is not a Syzygy table"),
        (
            format!("{}:{missing};{}", empty.display(), junk.display()),
            "no tables found in",
        ),
    ];
    let mut e = Engine::spawn();
    e.uci();
    for (path, complaint) in cases {
        e.send(&format!("setoption name SyzygyPath value {path}"));
        let lines = e.collect_until(
            "tablebases off",
            |l| l.starts_with("info string SyzygyPath: no tables found in '"),
            GENEROUS,
        );
        assert!(
            lines.iter().any(|l| l.contains(complaint)),
            "{path}: expected {complaint:?} in {lines:?}"
        );
        assert!(
            lines
                .iter()
                .all(|l| l.starts_with("info string SyzygyPath:")),
            "{lines:?}"
        );
        e.isready_ok(GENEROUS);
        let (line, best) = last_score_line(&mut e, "8/8/8/4k3/8/8/8/3QK3 w - - 0 1", "go depth 3");
        assert_eq!(info_value(&line, "tbhits"), Some(0), "{line}");
        assert_ne!(best, "0000");
    }
    // A good directory after the bad ones still loads, the bad ones beside it reported.
    e.send(&format!(
        "setoption name SyzygyPath value {};{}",
        junk.display(),
        syzygy_dir().display()
    ));
    e.expect_line(
        "the tables' summary",
        |l| l.contains(&tables_summary()),
        GENEROUS,
    );
    let (line, _) = last_score_line(&mut e, "8/8/8/4k3/8/8/8/3QK3 w - - 0 1", "go depth 3");
    assert!(info_value(&line, "tbhits").unwrap() > 0, "{line}");
    e.isready_ok(GENEROUS);
    e.assert_no_panic();
    let _ = std::fs::remove_dir_all(&empty);
    let _ = std::fs::remove_dir_all(&junk);
}

// ---------------------------------------------------------------------------------------
// Whole endings in-process

/// Scout with (or without) the test tables.
fn scout(with_tables: bool) -> Searcher {
    let mut s = Searcher::new(
        Arc::new(TranspositionTable::new(16)),
        Arc::new(SharedFlags::default()),
    );
    if with_tables {
        let loaded = Tablebases::load(&syzygy_dir().display().to_string());
        s.set_tablebases(
            Some(Arc::new(loaded.tables.expect("tables"))),
            ProbeSettings::default(),
        );
    }
    s
}

/// A game in progress: the position, the keys since the last capture or pawn move (for
/// Scout's repetition detection) and how often each position occurred.
struct Game {
    pos: Position,
    history: Vec<u64>,
    seen: HashMap<u64, u32>,
    moves: Vec<String>,
}

impl Game {
    fn new(fen: &str) -> Game {
        let pos = Position::from_fen(fen, CastlingMode::Standard).unwrap();
        let mut seen = HashMap::new();
        seen.insert(pos.key(), 1);
        Game {
            pos,
            history: Vec::new(),
            seen,
            moves: Vec::new(),
        }
    }

    fn chess(&self) -> &Chess {
        self.pos.chess()
    }

    fn scout_move(&self, s: &mut Searcher, nodes: u64) -> Move {
        let limits = Limits {
            nodes: Some(nodes),
            multipv: 1,
            ..Limits::default()
        };
        s.search(
            &self.pos,
            &self.history,
            limits,
            TimeManager::infinite(),
            &mut Silent,
        )
        .best
        .expect("a legal move")
    }

    fn play(&mut self, m: Move) {
        self.history.push(self.pos.key());
        if m.is_zeroing() {
            self.history.clear();
        }
        self.moves.push(uci(m));
        self.pos = self.pos.play(m);
        *self.seen.entry(self.pos.key()).or_default() += 1;
    }

    fn threefold(&self) -> bool {
        self.seen.get(&self.pos.key()).is_some_and(|&n| n >= 3)
    }
}

/// Plays Scout (with tables, `nodes` per move) on the winning side of `fen` against the
/// oracle's best defence until the game ends; panics unless Scout mates within the fifty-move
/// rule without ever letting the win slip. Returns the number of Scout's moves.
fn convert(oracle: &Tablebase<Chess>, fen: &str, nodes: u64) -> u32 {
    let start = wdl(oracle, &chess(fen));
    assert!(
        matches!(start, AmbiguousWdl::Win | AmbiguousWdl::Loss),
        "premise: {fen} is decisive, not {start:?}"
    );
    let mut s = scout(true);
    let mut game = Game::new(fen);
    let winner = if start == AmbiguousWdl::Win {
        game.chess().turn()
    } else {
        !game.chess().turn()
    };
    let mut scout_moves = 0;
    loop {
        let pos = game.chess().clone();
        if pos.is_game_over() {
            break;
        }
        assert!(
            pos.halfmoves() < 100,
            "{fen}: fifty-move draw after {:?}",
            game.moves
        );
        assert!(
            !game.threefold(),
            "{fen}: threefold repetition after {:?}",
            game.moves
        );
        let m = if pos.turn() == winner {
            scout_moves += 1;
            let m = game.scout_move(&mut s, nodes);
            let mut after = pos.clone();
            after.play_unchecked(m);
            assert!(
                after.is_checkmate() || wdl(oracle, &after) == AmbiguousWdl::Loss,
                "{fen}: {} lets the win slip after {:?}",
                uci(m),
                game.moves
            );
            m
        } else {
            oracle.best_move(&pos).unwrap().expect("a defence").0
        };
        game.play(m);
    }
    assert!(
        game.chess().is_checkmate() && game.chess().turn() != winner,
        "{fen}: the game ended without mate: {:?}",
        game.moves
    );
    scout_moves
}

#[test]
fn won_endings_are_converted_to_mate() {
    let oracle = oracle();
    for (fen, nodes) in [
        // KQvK and KRvK from the middle of the board.
        ("8/8/8/4k3/8/8/8/3QK3 w - - 0 1", 5_000),
        ("8/8/8/3k4/8/8/8/R3K3 w - - 0 1", 5_000),
        // KBNvK, the longest of them (and with the fifty-move count already at 20).
        ("8/8/8/4k3/8/8/8/2BNK3 w - - 20 1", 5_000),
        // KQvKR, the defence to move: it keeps its rook as long as it can.
        ("8/8/2k5/8/4r3/8/8/Q5K1 b - - 0 1", 5_000),
        // KPvK and KRvKP: a pawn to promote, a pawn to win.
        ("4k3/8/4K3/4P3/8/8/8/8 w - - 0 1", 5_000),
        ("8/8/8/8/3k4/8/2p5/4K2R w - - 0 1", 5_000),
        // A tiny budget: the tables' ranking alone must carry the win.
        ("8/8/8/3k4/8/8/8/R3K3 w - - 0 1", 50),
    ] {
        let moves = convert(&oracle, fen, nodes);
        assert!(moves < 50, "{fen}: {moves} moves");
    }
}

#[test]
fn won_endings_are_converted_without_wasting_moves() {
    // Without pawns or captures to make, the next zeroing move is the mate: the tables'
    // distance bounds the game against their best defence. Wandering off the fastest
    // lines (as a search without tables does until the fifty-move count stops it) fails.
    let oracle = oracle();
    for fen in [
        "8/8/8/4k3/8/8/8/3QK3 w - - 0 1",
        "8/8/8/3k4/8/8/8/R3K3 w - - 0 1",
        "8/8/3k4/8/8/8/6K1/7R w - - 0 1",
        "8/8/8/4k3/8/8/8/2BNK3 w - - 20 1",
    ] {
        let dtz = oracle.probe_dtz(&chess(fen)).unwrap().ignore_rounding().0;
        let fastest = dtz.unsigned_abs().div_ceil(2);
        let moves = convert(&oracle, fen, 5_000);
        assert!(
            moves <= fastest + 1,
            "{fen}: mate took {moves} moves, the tables' line {fastest}"
        );
    }
}

/// The attacker's trickiest move in a drawn position: of the moves that keep the draw, the
/// one that leaves the defender the fewest moves that keep it too.
fn trickiest(oracle: &Tablebase<Chess>, pos: &Chess) -> Move {
    let mut best: Option<(usize, Move)> = None;
    for m in pos.legal_moves() {
        let mut after = pos.clone();
        after.play_unchecked(m);
        if after.is_game_over() || wdl(oracle, &after).signum() > 0 {
            continue;
        }
        let holding = after
            .legal_moves()
            .into_iter()
            .filter(|&r| {
                let mut next = after.clone();
                next.play_unchecked(r);
                !next.is_checkmate() && !matches!(wdl(oracle, &next), AmbiguousWdl::Win)
            })
            .count();
        if best.is_none_or(|(n, _)| holding < n) {
            best = Some((holding, m));
        }
    }
    best.expect("a drawing move").1
}

/// Scout (with tables, `nodes` per move) defends the drawn `fen` for `plies` plies against
/// the trickiest attack; panics if one of its moves turns the draw into a loss. Returns how
/// many of Scout's moves had a losing alternative.
fn hold(oracle: &Tablebase<Chess>, fen: &str, plies: usize, nodes: u64) -> usize {
    assert_eq!(
        wdl(oracle, &chess(fen)),
        AmbiguousWdl::Draw,
        "premise: {fen} is drawn"
    );
    let mut s = scout(true);
    let mut game = Game::new(fen);
    let defender = game.chess().turn();
    let mut tested = 0;
    for _ in 0..plies {
        let pos = game.chess().clone();
        if pos.is_game_over() || pos.halfmoves() >= 100 || game.threefold() {
            break;
        }
        let m = if pos.turn() == defender {
            let m = game.scout_move(&mut s, nodes);
            let mut after = pos.clone();
            after.play_unchecked(m);
            assert!(
                !after.is_checkmate() && !matches!(wdl(oracle, &after), AmbiguousWdl::Win),
                "{fen}: {} loses after {:?}",
                uci(m),
                game.moves
            );
            let could_lose = pos.legal_moves().into_iter().any(|r| {
                let mut next = pos.clone();
                next.play_unchecked(r);
                matches!(wdl(oracle, &next), AmbiguousWdl::Win)
            });
            tested += usize::from(could_lose);
            m
        } else {
            trickiest(oracle, &pos)
        };
        game.play(m);
    }
    tested
}

#[test]
fn drawn_endings_are_held() {
    let oracle = oracle();
    let mut tested = 0;
    for fen in [
        // KPvK, the defender to move: only the right king moves hold the opposition.
        "8/4k3/8/3K4/4P3/8/8/8 b - - 0 1",
        "8/8/4k3/8/8/3PK3/8/8 b - - 0 1",
        // KRvKB: bishop moves and king moves that lose.
        "8/8/8/3k4/8/2b5/8/R5K1 b - - 0 1",
    ] {
        tested += hold(&oracle, fen, 40, 2_000);
    }
    assert!(tested >= 10, "the attack must set real problems: {tested}");
}
