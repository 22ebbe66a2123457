//! Analysis features over the real binary: MultiPV line counts and ordering, searchmoves
//! (also with MultiPV), `go mate`, movetime accuracy, and searches with a single legal move.

use crate::common;

use common::{Engine, GENEROUS, info_cp, info_score, info_value, last_multipv_set, pv_of, secs};

#[test]
fn multipv_lines_are_numbered_distinct_and_ordered() {
    let mut e = Engine::spawn();
    e.send("setoption name MultiPV value 4");
    e.send("position fen r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1");
    e.send("go depth 7");
    let out = e.wait_bestmove(GENEROUS);
    let set = last_multipv_set(&out.lines, 4);
    let numbers: Vec<i64> = set
        .iter()
        .map(|l| info_value(l, "multipv").unwrap())
        .collect();
    assert_eq!(numbers, vec![1, 2, 3, 4], "{set:#?}");
    let firsts: Vec<&str> = set.iter().map(|l| pv_of(l)[0]).collect();
    let mut distinct = firsts.clone();
    distinct.sort();
    distinct.dedup();
    assert_eq!(distinct.len(), 4, "first moves must differ: {firsts:?}");
    let scores: Vec<i64> = set.iter().map(|l| info_cp(l)).collect();
    assert!(
        scores.windows(2).all(|w| w[0] >= w[1]),
        "lines not best first: {scores:?}"
    );
    assert_eq!(out.best, firsts[0], "bestmove is the first line's move");
}

#[test]
fn multipv_beyond_the_number_of_legal_moves() {
    let mut e = Engine::spawn();
    e.send("setoption name MultiPV value 10");
    // Three legal moves for white.
    e.send("position fen 7k/8/8/8/8/8/8/K7 w - - 0 1");
    e.send("go depth 4");
    let out = e.wait_bestmove(GENEROUS);
    let set = last_multipv_set(&out.lines, 3);
    assert_eq!(set.len(), 3);
    assert!(
        out.lines
            .iter()
            .all(|l| info_value(l, "multipv").is_none_or(|k| k <= 3))
    );
}

#[test]
fn searchmoves_restricts_the_root_also_with_multipv() {
    let mut e = Engine::spawn();
    e.send("position startpos");
    e.send("go depth 6 searchmoves a2a3 h2h3");
    let out = e.wait_bestmove(GENEROUS);
    assert!(
        ["a2a3", "h2h3"].contains(&out.best.as_str()),
        "bestmove {}",
        out.best
    );
    for l in out.score_lines() {
        assert!(["a2a3", "h2h3"].contains(&pv_of(l)[0]), "{l}");
    }
    e.send("setoption name MultiPV value 3");
    e.send("go depth 5 searchmoves g1f3 b1c3");
    let out = e.wait_bestmove(GENEROUS);
    let set = last_multipv_set(&out.lines, 2);
    let mut firsts: Vec<&str> = set.iter().map(|l| pv_of(l)[0]).collect();
    firsts.sort();
    assert_eq!(firsts, vec!["b1c3", "g1f3"]);
    // An illegal searchmoves entry is reported and ignored.
    e.send("go depth 3 searchmoves e2e5 d2d4");
    let out = e.wait_bestmove(GENEROUS);
    assert_eq!(out.best, "d2d4");
    assert!(
        out.lines
            .iter()
            .any(|l| l.starts_with("info string") && l.contains("e2e5"))
    );
}

#[test]
fn go_mate_stops_when_the_mate_is_proven() {
    let mut e = Engine::spawn();
    e.send("position fen 8/5k2/8/3K4/7Q/R7/8/8 w - - 0 1");
    e.send("go mate 3");
    let out = e.wait_bestmove(secs(30));
    let last = out.score_lines().last().unwrap().to_string();
    assert_eq!(info_score(&last), Some(("mate".to_string(), 3)), "{last}");
}

#[test]
fn movetime_is_used_but_not_exceeded() {
    let mut e = Engine::spawn();
    e.send("setoption name Move Overhead value 20");
    e.send("position startpos");
    for movetime in [100u64, 500, 1000] {
        let t = std::time::Instant::now();
        e.send(&format!("go movetime {movetime}"));
        e.wait_bestmove(GENEROUS);
        let ms = t.elapsed().as_millis() as u64;
        eprintln!("go movetime {movetime}: bestmove after {ms} ms");
        // The limit itself is exact (`time.rs`: movetime less the overhead); what is measured
        // here also holds the process's start and pipes, which a loaded machine can stretch
        // by tens of ms, so the bound only catches a search that ignores movetime.
        assert!(ms <= movetime + 250, "movetime {movetime} took {ms} ms");
        assert!(ms >= movetime / 2, "movetime {movetime} used only {ms} ms");
    }
}

/// `UCI_ShowWDL`: every scored `info` line carries `wdl W D L` (per mille, summing to 1000,
/// before the pv), a winning score means more wins than losses, a mate is certain; off by
/// default.
#[test]
fn show_wdl_prints_win_draw_loss_chances() {
    let wdl_of = |line: &str| -> Option<(u32, u32, u32)> {
        let t: Vec<&str> = line.split_whitespace().collect();
        let i = t.iter().position(|&x| x == "wdl")?;
        let n = |k: usize| t[i + k].parse::<u32>().unwrap();
        assert!(i < t.iter().position(|&x| x == "pv").unwrap_or(usize::MAX));
        Some((n(1), n(2), n(3)))
    };
    let mut e = Engine::spawn();
    e.send("uci");
    let banner = e.collect_until("uciok", |l| l == "uciok", GENEROUS);
    assert!(
        banner
            .iter()
            .any(|l| l == "option name UCI_ShowWDL type check default false")
    );
    e.send("position startpos");
    e.send("go depth 5");
    let out = e.wait_bestmove(GENEROUS);
    assert!(
        out.lines.iter().all(|l| wdl_of(l).is_none()),
        "wdl while off"
    );

    e.send("setoption name UCI_ShowWDL value true");
    // White is a queen up.
    e.send("position fen 4k3/pppp4/8/8/8/8/PPPP4/3QK3 w - - 0 1");
    e.send("go depth 8");
    let out = e.wait_bestmove(GENEROUS);
    let scored: Vec<&String> = out.lines.iter().filter(|l| l.contains(" score ")).collect();
    assert!(!scored.is_empty());
    for line in &scored {
        let (w, d, l) = wdl_of(line).unwrap_or_else(|| panic!("no wdl: {line}"));
        assert_eq!(w + d + l, 1000, "{line}");
        assert!(w > 900 && l < 10, "{line}");
    }
    // Mate in one: certain.
    e.send("position fen 6k1/5ppp/8/8/8/8/8/R5K1 w - - 0 1");
    e.send("go depth 4");
    let out = e.wait_bestmove(GENEROUS);
    let last = *out.score_lines().last().expect("a scored line");
    assert!(last.contains("score mate 1"), "{last}");
    assert_eq!(wdl_of(last), Some((1000, 0, 0)), "{last}");
}

/// Black's only legal move is Kb8, after which Rd8 mates.
const SINGLE_MOVE_MATED: &str = "2k5/8/1K6/8/8/8/8/3R4 b - - 1 1";
/// Black's only legal move is Kxf7, in a full middlegame.
const SINGLE_MOVE_MIDDLEGAME: &str =
    "r1bqkb1r/pppp1Qpp/2n2n2/4p3/4P3/8/PPPP1PPP/RNB1KBNR b KQkq - 0 4";
/// The depth at which a single legal move on the clock is answered.
const SINGLE_MOVE_DEPTH: i64 = scout::search::SINGLE_MOVE_DEPTH as i64;

/// The depth and score of the last scored info line.
fn last_depth_and_score(lines: &[String]) -> (i64, (String, i64)) {
    let last = lines
        .iter()
        .rfind(|l| l.starts_with("info depth") && l.contains(" score "))
        .unwrap_or_else(|| panic!("no scored info line in {lines:#?}"));
    (
        info_value(last, "depth").unwrap(),
        info_score(last).unwrap(),
    )
}

#[test]
fn single_legal_move_honours_depth_and_movetime() {
    let mut e = Engine::spawn();
    e.send(&format!("position fen {SINGLE_MOVE_MATED}"));
    for go in ["go depth 6", "go depth 12 movetime 5000"] {
        e.send(go);
        let out = e.wait_bestmove(GENEROUS);
        let depth = go
            .split_whitespace()
            .nth(2)
            .unwrap()
            .parse::<i64>()
            .unwrap();
        assert_eq!(out.best, "c8b8");
        assert_eq!(
            last_depth_and_score(&out.lines),
            (depth, ("mate".to_string(), -1)),
            "{go}: {:#?}",
            out.lines
        );
    }
    // movetime is used (not answered at depth 1): a lower bound only, which a slow machine
    // cannot break.
    e.send(&format!("position fen {SINGLE_MOVE_MIDDLEGAME}"));
    let t = std::time::Instant::now();
    e.send("go movetime 400");
    let out = e.wait_bestmove(GENEROUS);
    let elapsed = t.elapsed().as_millis();
    assert_eq!(out.best, "e8f7");
    assert!(
        elapsed >= 200,
        "go movetime 400 answered after {elapsed} ms"
    );
    assert!(last_depth_and_score(&out.lines).0 > 1, "{:#?}", out.lines);
    // go nodes is honoured too: from a fresh table (a deterministic search), 50,000 nodes
    // go deeper than the single-move depth.
    e.send("ucinewgame");
    e.send("go nodes 50000");
    let out = e.wait_bestmove(GENEROUS);
    let (depth, _) = last_depth_and_score(&out.lines);
    assert!(depth > SINGLE_MOVE_DEPTH, "depth {depth}: {:#?}", out.lines);
}

#[test]
fn single_legal_move_on_the_clock_answers_with_a_real_score() {
    let mut e = Engine::spawn();
    e.send(&format!("position fen {SINGLE_MOVE_MATED}"));
    e.send("go wtime 10000 btime 10000");
    let out = e.wait_bestmove(GENEROUS);
    assert_eq!(out.best, "c8b8");
    let (depth, score) = last_depth_and_score(&out.lines);
    assert_eq!(score, ("mate".to_string(), -1), "{:#?}", out.lines);
    // Answered early: no deeper than the single-move depth.
    assert!(
        (2..=SINGLE_MOVE_DEPTH).contains(&depth),
        "depth {depth}: {:#?}",
        out.lines
    );
    // A real position: searched a few plies, not more than the single-move depth.
    e.send(&format!("position fen {SINGLE_MOVE_MIDDLEGAME}"));
    e.send("go wtime 10000 btime 10000 winc 100 binc 100");
    let out = e.wait_bestmove(GENEROUS);
    assert_eq!(out.best, "e8f7");
    let (depth, (kind, cp)) = last_depth_and_score(&out.lines);
    assert!(
        depth <= SINGLE_MOVE_DEPTH,
        "depth {depth}: {:#?}",
        out.lines
    );
    assert!(
        kind == "cp" && cp > 500,
        "Black is a queen up: {:#?}",
        out.lines
    );
}

/// A proven mate ends a `movetime` or clock search once an iteration twice as deep as the
/// mate confirms it, instead of printing every depth up to the last; `go depth` still
/// reaches its depth.
#[test]
fn proven_mates_end_timed_searches() {
    let mut e = Engine::spawn();
    for go in ["go movetime 20000", "go wtime 60000 btime 60000"] {
        e.send("position fen 6k1/5ppp/8/8/8/8/8/R5K1 w - - 0 1");
        e.send(go);
        let out = e.wait_bestmove(secs(30));
        let depths: Vec<i64> = out
            .lines
            .iter()
            .filter(|l| l.contains(" score "))
            .filter_map(|l| info_value(l, "depth"))
            .collect();
        assert_eq!(out.best, "a1a8", "{go}");
        assert!(
            depths.len() <= 6 && depths.iter().all(|&d| d <= 4),
            "{go}: depths {depths:?}"
        );
    }
    e.send("position fen 6k1/5ppp/8/8/8/8/8/R5K1 w - - 0 1");
    e.send("go depth 12");
    let out = e.wait_bestmove(GENEROUS);
    let last = *out.score_lines().last().expect("a scored line");
    assert_eq!(info_value(last, "depth"), Some(12), "{last}");
    assert!(last.contains("score mate 1"), "{last}");
}
