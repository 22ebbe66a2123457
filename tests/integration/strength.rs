//! Human-strength play over the real binary: `UCI_LimitStrength` and `UCI_Elo` are announced
//! and clamped, a limited search keeps to its level's node budget (also with more threads and
//! a larger MultiPV), plays one of its lines within the level's margin and shows it last,
//! varies between equal moves and never gives away what the search sees; analysis stays at
//! full strength. (How strong each level plays is measured by games: see the README.)

use crate::common;

use common::{
    Engine, GENEROUS, chess_from_fen, engine_move, info_cp, info_value, last_multipv_set, pv_of,
};
use shakmaty::{CastlingMode, Position};

const STD: CastlingMode = CastlingMode::Standard;
use scout::strength::{self, MAX_ELO, MIN_ELO};

fn limited(elo: u32) -> Engine {
    let mut e = Engine::spawn();
    e.send("setoption name UCI_LimitStrength value true");
    e.send(&format!("setoption name UCI_Elo value {elo}"));
    e
}

#[test]
fn options_are_announced_and_clamped() {
    let mut e = Engine::spawn();
    let lines = e.uci();
    assert!(
        lines
            .iter()
            .any(|l| l == "option name UCI_LimitStrength type check default false"),
        "{lines:#?}"
    );
    let elo = format!(
        "option name UCI_Elo type spin default {} min {MIN_ELO} max {MAX_ELO}",
        strength::DEFAULT_ELO
    );
    assert!(lines.contains(&elo), "{lines:#?}");
    e.send("setoption name UCI_Elo value 99999");
    e.expect_line(
        "range info",
        |l| l.contains("out of range") && l.contains("3000"),
        GENEROUS,
    );
    e.send("setoption name UCI_Elo value strong");
    e.expect_line("number info", |l| l.contains("not a number"), GENEROUS);
    e.send("setoption name UCI_LimitStrength value maybe");
    e.expect_line("boolean info", |l| l.contains("true or false"), GENEROUS);
    e.assert_alive();
}

#[test]
fn a_limited_search_plays_one_of_its_lines_within_the_margin() {
    for elo in [MIN_ELO, 2000, 2600] {
        let level = strength::level(elo);
        let mut e = limited(elo);
        e.send("position fen r1bqk2r/pp2bppp/2n1pn2/3p4/2PP4/2N2N2/PP2BPPP/R1BQK2R w KQkq - 0 8");
        for _ in 0..4 {
            // A depth far beyond the budget: the node budget is what stops the search.
            e.send("go depth 40");
            let out = e.wait_bestmove(GENEROUS);
            let nodes = nodes_of(&out);
            // The node budget is checked every few nodes: a little overshoot, no more.
            assert!(
                nodes <= level.nodes + 200,
                "{elo}: {nodes} nodes for a budget of {}",
                level.nodes
            );
            // The last line printed is the line played, as line 1; the lines before it are
            // the ones the level chose from.
            let scored = out.score_lines();
            let (shown_last, before) = scored.split_last().expect("scored lines");
            assert_eq!(info_value(shown_last, "multipv"), Some(1), "{shown_last}");
            assert_eq!(pv_of(shown_last)[0], out.best, "{elo}: {shown_last}");
            let before: Vec<String> = before.iter().map(|l| l.to_string()).collect();
            let set = last_multipv_set(&before, level.lines);
            let best = info_cp(&set[0]);
            let played = set
                .iter()
                .find(|l| pv_of(l)[0] == out.best)
                .unwrap_or_else(|| panic!("{elo}: {} is none of {set:#?}", out.best));
            assert_eq!(
                shown_last.replacen(" multipv 1 ", "", 1),
                played.replacen(
                    &format!(" multipv {} ", info_value(played, "multipv").unwrap()),
                    "",
                    1
                ),
                "{elo}: the line played is shown again as it was"
            );
            assert!(
                info_cp(played) >= best - level.margin as i64,
                "{elo}: {played} is more than {} below {best}",
                level.margin
            );
        }
    }
}

#[test]
fn weak_levels_vary_between_equal_moves() {
    let mut e = limited(MIN_ELO);
    e.send("position startpos");
    let mut played = Vec::new();
    for _ in 0..12 {
        e.send("go depth 40");
        played.push(e.wait_bestmove(GENEROUS).best);
    }
    played.sort();
    played.dedup();
    // Four lines within a few centipawns, each drawn with a weight near 1/4: twelve equal
    // answers would happen about once in four million runs.
    assert!(played.len() >= 2, "always {played:?}");
}

#[test]
fn weak_levels_never_give_away_what_they_see() {
    // The white queen on e4 is attacked by a pawn: the few safe queen moves are all that keep
    // the material, every other move loses the queen.
    let fen = "rnbqkbnr/ppp1pppp/8/3p4/4Q3/8/PPPP1PPP/RNB1KBNR w KQkq - 0 3";
    let pos = chess_from_fen(fen, STD).unwrap();
    let mut e = limited(MIN_ELO);
    e.send(&format!("position fen {fen}"));
    for _ in 0..12 {
        e.send("go wtime 60000 btime 60000");
        let best = e.wait_bestmove(GENEROUS).best;
        let mut after = pos.clone();
        after.play_unchecked(engine_move(&pos, &best, STD).unwrap());
        let queen = after.board().queens() & after.board().white();
        assert!(
            !after.legal_moves().iter().any(|m| queen.contains(m.to())),
            "{best} leaves the queen to be taken"
        );
    }
}

/// The deepest `nodes` of a search's scored lines.
fn nodes_of(out: &common::SearchOutput) -> u64 {
    out.score_lines()
        .iter()
        .filter_map(|l| info_value(l, "nodes"))
        .max()
        .unwrap() as u64
}

#[test]
fn threads_and_multipv_do_not_change_a_level() {
    let level = strength::level(2000);
    let mut e = limited(2000);
    e.send("setoption name Threads value 3");
    e.send("setoption name MultiPV value 8");
    e.send("position fen r1bqk2r/pp2bppp/2n1pn2/3p4/2PP4/2N2N2/PP2BPPP/R1BQK2R w KQkq - 0 8");
    e.send("go depth 40");
    let out = e.wait_bestmove(GENEROUS);
    assert!(nodes_of(&out) <= level.nodes + 200, "{}", nodes_of(&out));
    let most = out
        .score_lines()
        .iter()
        .filter_map(|l| info_value(l, "multipv"))
        .max();
    assert_eq!(most, Some(level.lines as i64));
}

#[test]
fn analysis_is_at_full_strength() {
    let level = strength::level(MIN_ELO);
    let mut e = limited(MIN_ELO);
    e.send("position startpos");
    e.send("go infinite");
    e.expect_line(
        "a line beyond the level's budget",
        |l| info_value(l, "nodes").is_some_and(|n| n as u64 > 10 * level.nodes),
        GENEROUS,
    );
    e.send("stop");
    let out = e.wait_bestmove(GENEROUS);
    assert!(!out.lines.iter().any(|l| l.contains("multipv 2")));
}

#[test]
fn full_strength_is_the_default_and_comes_back() {
    let budget = strength::level(MIN_ELO).nodes;
    let mut fresh = Engine::spawn();
    let mut e = limited(MIN_ELO);
    e.send("setoption name UCI_LimitStrength value false");
    for engine in [&mut fresh, &mut e] {
        engine.send("position startpos");
        engine.send("go depth 6");
        let out = engine.wait_bestmove(GENEROUS);
        let last = out.score_lines().last().unwrap().to_string();
        assert_eq!(info_value(&last, "depth"), Some(6), "{last}");
        assert_eq!(info_value(&last, "multipv"), Some(1), "{last}");
        assert!(nodes_of(&out) > budget);
    }
}

/// `UCI_ShowWDL` at a level: a level searches without the material scale, so its scores are
/// in the net's own units and the model reads them as they are; at full strength the scaled
/// score is read back first. Either way the `wdl` matches the score it is printed with.
#[test]
fn a_levels_wdl_reads_its_unscaled_score() {
    // A pawn up in a pawn ending: the scale is far from one here.
    let fen = "4k3/ppp5/8/8/8/8/PPPP4/4K3 w - - 0 1";
    let board = chess_from_fen(fen, STD).unwrap().board().clone();
    let material = scout::wdl::material(&board);
    let wdl_of = |line: &str| -> (u32, u32, u32) {
        let t: Vec<&str> = line.split_whitespace().collect();
        let i = t.iter().position(|&x| x == "wdl").expect("wdl");
        let n = |k: usize| t[i + k].parse::<u32>().unwrap();
        (n(1), n(2), n(3))
    };
    for limit in [true, false] {
        let mut e = limited(2600);
        e.send(&format!("setoption name UCI_LimitStrength value {limit}"));
        e.send("setoption name UCI_ShowWDL value true");
        e.send(&format!("position fen {fen}"));
        e.send(if limit { "go depth 40" } else { "go depth 8" });
        let out = e.wait_bestmove(GENEROUS);
        let mut decisive = 0;
        for line in out.score_lines().iter().filter(|l| l.contains("score cp")) {
            let cp = info_cp(line) as i32;
            let want = if limit {
                scout::wdl::wdl(cp, material)
            } else {
                scout::wdl::wdl_at(cp, &board, true)
            };
            assert_eq!(wdl_of(line), want, "limited {limit}: {line}");
            // The two readings differ here, so the check tells them apart.
            if scout::wdl::wdl(cp, material) != scout::wdl::wdl_at(cp, &board, true) {
                decisive += 1;
            }
        }
        assert!(
            decisive > 0,
            "limited {limit}: no score the readings tell apart"
        );
    }
}
