//! The network's inference: incremental accumulators equal a full refresh at every node of
//! perft trees and along random games (standard and Chess960, every SIMD kernel, nets of
//! several widths, with and without king buckets and their refresh cache), the net's evaluation is colour-symmetric, the search with a net computes
//! exactly minimax's values (its accumulators follow the tree), and `EvalFile` refuses files it
//! cannot use and plays nets of other widths.

use crate::common;

use std::sync::Arc;

use common::{chess_from_fen, parse_perft_suite, test_data};
use rand::rngs::StdRng;
use rand::{RngExt, SeedableRng};
use scout::nnue::accumulator::{Accumulator, AccumulatorStack};
use scout::nnue::simd::Kernels;
use scout::nnue::{DEFAULT_HIDDEN, KingBuckets, Network, evaluate_board, file};
use scout::position::Position;
use scout::score::INFINITY;
use scout::search::{SearchConfig, Searcher, SharedFlags};
use scout::tt::TranspositionTable;
use shakmaty::{CastlingMode, Chess, Color, EnPassantMode, FromSetup, Position as _};

/// A network with pseudo-random weights of realistic size and eight output buckets.
fn random_network(seed: u64) -> Network {
    random_network_of(seed, DEFAULT_HIDDEN)
}

/// The same with `hidden` units.
fn random_network_of(seed: u64, hidden: usize) -> Network {
    random_network_with(seed, KingBuckets::NONE, hidden)
}

/// The same with king buckets.
fn random_network_with(seed: u64, king_buckets: KingBuckets, hidden: usize) -> Network {
    let mut rng = StdRng::seed_from_u64(seed);
    Network {
        hidden,
        king_buckets,
        feature_weights: (0..king_buckets.features() * hidden)
            .map(|_| rng.random_range(-90..=90))
            .collect(),
        feature_bias: (0..hidden).map(|_| rng.random_range(-60..=200)).collect(),
        output_weights: (0..8 * 2 * hidden)
            .map(|_| rng.random_range(-127..=127))
            .collect(),
        output_bias: (0..8).map(|_| rng.random_range(-20_000..20_000)).collect(),
    }
}

fn perft_positions(count: usize) -> Vec<(Chess, CastlingMode)> {
    let mut out = Vec::new();
    for (file, mode, take) in [
        ("perft/standard.epd", CastlingMode::Standard, count),
        ("perft/fischer.epd", CastlingMode::Chess960, count / 2),
    ] {
        for case in parse_perft_suite(&test_data(file)).into_iter().take(take) {
            if let Ok(pos) = chess_from_fen(&case.fen, mode) {
                out.push((pos, mode));
            }
        }
    }
    out
}

/// Walks a perft tree, checking the stack's accumulator against a refresh at every node,
/// and after a null move.
fn walk(stack: &mut AccumulatorStack, net: &Network, pos: &Chess, ply: usize, depth: u32) -> u64 {
    let acc = stack.accumulator(ply).clone();
    assert_eq!(
        acc,
        Accumulator::refresh(net, pos.board()),
        "{}",
        shakmaty::fen::Fen::from_position(pos, EnPassantMode::Legal)
    );
    if depth == 0 {
        return 1;
    }
    stack.push(ply + 1, None, pos.turn(), pos.board());
    assert_eq!(stack.accumulator(ply + 1), &acc, "null move");
    let mut nodes = 1;
    for m in pos.legal_moves() {
        let mut child = pos.clone();
        child.play_unchecked(m);
        stack.push(ply + 1, Some(m), pos.turn(), child.board());
        nodes += walk(stack, net, &child, ply + 1, depth - 1);
    }
    nodes
}

#[test]
fn incremental_accumulators_equal_refresh_on_perft_trees() {
    let nodes = walk_perft_trees(Arc::new(random_network(1)), 24);
    assert!(nodes > 200_000, "only {nodes} nodes checked");
}

/// The same for nets of other widths: a width with loops of its own (384, 1024) and one
/// that runs the loops over the slice's length (160).
#[test]
fn incremental_accumulators_equal_refresh_at_every_width() {
    for hidden in [160, 384, 1024] {
        let nodes = walk_perft_trees(Arc::new(random_network_of(hidden as u64, hidden)), 6);
        assert!(nodes > 50_000, "{hidden}: only {nodes} nodes checked");
    }
}

/// The same for nets with king buckets: king moves that cross a bucket or the mirror line
/// refresh their side from the cache, which follows the tree's branches.
#[test]
fn incremental_accumulators_equal_refresh_with_king_buckets() {
    for count in KingBuckets::COUNTS {
        let kb = KingBuckets::mirrored(count).unwrap();
        let nodes = walk_perft_trees(Arc::new(random_network_with(count as u64, kb, 128)), 8);
        assert!(nodes > 50_000, "{count}: only {nodes} nodes checked");
    }
}

/// Walks perft trees of `count` suite positions (and three with castling, en passant and
/// promotions) with every kernel; returns the nodes checked.
fn walk_perft_trees(net: Arc<Network>, count: usize) -> u64 {
    let mut nodes = 0;
    for kernels in Kernels::available() {
        let mut stack = AccumulatorStack::with_kernels(net.clone(), 16, kernels);
        for (pos, _) in perft_positions(count) {
            stack.reset(&pos);
            nodes += walk(&mut stack, &net, &pos, 0, 2);
        }
        // Deeper on the positions with castling, en passant and promotions.
        for fen in [
            "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
            "n1n5/PPPk4/8/8/8/8/4Kppp/5N1N b - - 0 1",
            "rnbqkb1r/ppppp1pp/7n/4Pp2/8/8/PPPP1PPP/RNBQKBNR w KQkq f6 0 3",
        ] {
            let pos = chess_from_fen(fen, CastlingMode::Standard).unwrap();
            stack.reset(&pos);
            nodes += walk(&mut stack, &net, &pos, 0, 3);
        }
    }
    nodes
}

/// Random games, evaluated only at some plies, so that several moves are caught up at once;
/// every kernel's evaluation equals the scalar evaluation from scratch.
#[test]
fn incremental_evaluation_equals_refresh_along_random_games() {
    let mut rng = StdRng::seed_from_u64(3);
    let starts = perft_positions(40);
    let mut checked = 0;
    let nets = [
        random_network(2),
        random_network_with(5, KingBuckets::mirrored(8).unwrap(), 256),
    ];
    for (net, kernels) in nets.map(Arc::new).iter().flat_map(|net| {
        Kernels::available()
            .into_iter()
            .map(move |k| (net.clone(), k))
    }) {
        let mut stack = AccumulatorStack::with_kernels(net.clone(), 260, kernels);
        for (start, _) in &starts {
            let mut pos = start.clone();
            stack.reset(&pos);
            for ply in 1..250 {
                let moves = pos.legal_moves();
                if moves.is_empty() {
                    break;
                }
                let m = moves[rng.random_range(0..moves.len())];
                let mover = pos.turn();
                pos.play_unchecked(m);
                stack.push(ply, Some(m), mover, pos.board());
                if rng.random_range(0..4) == 0 {
                    let expected = Accumulator::refresh(&net, pos.board()).evaluate(
                        &net,
                        Kernels::Scalar,
                        pos.turn(),
                        pos.board().occupied().count() as u32,
                    );
                    assert_eq!(stack.evaluate(ply, &pos), expected, "{kernels:?}");
                    checked += 1;
                }
            }
        }
    }
    assert!(checked > 6_000, "only {checked} evaluations checked");
}

fn mirrored(pos: &Chess, mode: CastlingMode) -> Option<Chess> {
    let setup = pos.to_setup(EnPassantMode::Legal).into_mirrored();
    Chess::from_setup(setup, mode).ok()
}

#[test]
fn net_evaluation_is_colour_symmetric() {
    net_evaluation_is_colour_symmetric_with(random_network(4));
    let kb = KingBuckets::mirrored(4).unwrap();
    net_evaluation_is_colour_symmetric_with(random_network_with(6, kb, 128));
}

fn net_evaluation_is_colour_symmetric_with(net: Network) {
    let mut checked = 0;
    let mut positions = perft_positions(200);
    for fen in scout::tools::bench::POSITIONS.lines() {
        positions.push((
            chess_from_fen(fen, CastlingMode::Standard).unwrap(),
            CastlingMode::Standard,
        ));
    }
    for (pos, mode) in positions {
        let Some(mirror) = mirrored(&pos, mode) else {
            continue;
        };
        let a = evaluate_board(&net, pos.board(), pos.turn());
        let b = evaluate_board(&net, mirror.board(), mirror.turn());
        assert_eq!(a, b, "{:?}", pos.board());
        assert_ne!(pos.turn(), mirror.turn());
        checked += 1;
    }
    assert!(checked > 250, "only {checked} positions");
    // And the side to move matters: the same (asymmetric) board for the other side to move
    // is another number.
    let e4 = chess_from_fen(
        "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1",
        CastlingMode::Standard,
    )
    .unwrap();
    assert_ne!(
        evaluate_board(&net, e4.board(), Color::White),
        evaluate_board(&net, e4.board(), Color::Black)
    );
}

/// The exact search with a net (incremental accumulators) gives minimax's values (which
/// evaluates every leaf from scratch).
#[test]
fn search_with_a_net_equals_minimax() {
    let net = Arc::new(random_network(5));
    let make = || {
        let mut s = Searcher::new(
            Arc::new(TranspositionTable::new(1)),
            Arc::new(SharedFlags::default()),
        );
        s.config = SearchConfig::exact();
        s.set_network(net.clone());
        s
    };
    let (mut exact, mut reference) = (make(), make());
    let mut checked = 0;
    for (pos, mode) in perft_positions(30) {
        let fen = shakmaty::fen::Fen::from_position(&pos, EnPassantMode::Legal).to_string();
        let pos = Position::from_fen(&fen, mode).unwrap();
        for depth in 1..=2 {
            let Some(v) = reference.minimax(&pos, &[], depth, 300_000) else {
                continue;
            };
            let got = exact.search_window(&pos, &[], depth, -INFINITY, INFINITY);
            assert_eq!(got, v, "{fen} depth {depth}");
            checked += 1;
        }
    }
    assert!(checked > 40, "only {checked} searches compared");
}

/// `EvalFile` loads a good net, refuses damaged ones at once (keeping the net it has), and
/// `<default>` goes back to the embedded net.
#[test]
fn eval_file_refuses_unusable_files_and_keeps_its_net() {
    let dir = std::env::temp_dir().join(format!("scout-nnue-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let good = file::write(&random_network(6));
    let path = |name: &str| dir.join(name).to_string_lossy().into_owned();
    std::fs::write(path("good.nnue"), &good).unwrap();
    std::fs::write(path("truncated.nnue"), &good[..good.len() / 2]).unwrap();
    let mut corrupt = good.clone();
    corrupt[good.len() / 3] ^= 0x10;
    std::fs::write(path("corrupt.nnue"), &corrupt).unwrap();
    let mut wide = good.clone();
    wide[16..20].copy_from_slice(&500u32.to_le_bytes());
    std::fs::write(path("wide.nnue"), &wide).unwrap();
    let mut padded = good.clone();
    padded[16..20].copy_from_slice(&512u32.to_le_bytes());
    std::fs::write(path("padded.nnue"), &padded).unwrap();
    std::fs::write(path("w384.nnue"), file::write(&random_network_of(7, 384))).unwrap();

    let mut e = common::Engine::spawn();
    e.send("uci");
    let banner = e.collect_until("uciok", |l| l == "uciok", common::GENEROUS);
    assert!(
        banner
            .iter()
            .any(|l| l.starts_with("option name EvalFile type string default")),
        "{banner:?}"
    );
    e.send("position fen r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq - 2 3");
    let eval_line = |e: &mut common::Engine| -> String {
        e.send("eval");
        e.send("isready");
        let lines = e.collect_until("readyok", |l| l == "readyok", common::GENEROUS);
        lines
            .iter()
            .find(|l| l.starts_with("NNUE evaluation"))
            .cloned()
            .unwrap_or_default()
    };
    let embedded = eval_line(&mut e);
    assert!(embedded.starts_with("NNUE evaluation"), "{embedded}");
    e.send(&format!(
        "setoption name EvalFile value {}",
        path("good.nnue")
    ));
    let loaded = e.expect_line(
        "evaluating with",
        |l| l.starts_with("info string evaluating with"),
        common::GENEROUS,
    );
    assert!(loaded.contains("good.nnue"), "{loaded}");
    let with_net = eval_line(&mut e);
    assert!(with_net.starts_with("NNUE evaluation"), "{with_net}");
    assert_ne!(with_net, embedded, "eval ignores EvalFile");
    // `bench` searches with the loaded net: another tree than the embedded net's.
    let bench_nodes = |e: &mut common::Engine| -> String {
        e.send("bench 3");
        e.expect_line("bench", |l| l.ends_with(" nps"), common::GENEROUS)
            .split_whitespace()
            .next()
            .unwrap()
            .to_string()
    };
    let net_nodes = bench_nodes(&mut e);
    for (name, why) in [
        ("truncated.nnue", "truncated"),
        ("corrupt.nnue", "checksum"),
        ("wide.nnue", "architecture"),
        ("padded.nnue", "truncated or padded"),
        ("missing.nnue", "cannot read"),
    ] {
        e.send(&format!("setoption name EvalFile value {}", path(name)));
        let refused = e.expect_line(
            "EvalFile refused",
            |l| l.starts_with("info string EvalFile refused"),
            common::GENEROUS,
        );
        assert!(refused.contains(why), "{name}: {refused}");
        assert_eq!(eval_line(&mut e), with_net, "{name} changed the evaluation");
    }
    // The engine still searches with the net.
    e.send("go depth 6");
    let out = e.wait_bestmove(common::GENEROUS);
    assert!(out.best.len() >= 4);
    // A net of another width is loaded and played.
    e.send(&format!(
        "setoption name EvalFile value {}",
        path("w384.nnue")
    ));
    let loaded = e.expect_line(
        "evaluating with",
        |l| l.starts_with("info string evaluating with"),
        common::GENEROUS,
    );
    assert!(loaded.contains("768->384x2->1"), "{loaded}");
    let wide_eval = eval_line(&mut e);
    assert!(wide_eval.starts_with("NNUE evaluation"), "{wide_eval}");
    assert_ne!(wide_eval, with_net);
    e.send("go depth 6");
    let out = e.wait_bestmove(common::GENEROUS);
    assert!(out.best.len() >= 4);
    assert_ne!(bench_nodes(&mut e), net_nodes, "bench ignores the 384 net");
    e.send("setoption name EvalFile value <default>");
    e.expect_line(
        "evaluating with",
        |l| l.starts_with("info string evaluating with"),
        common::GENEROUS,
    );
    assert_eq!(eval_line(&mut e), embedded);
    assert_ne!(bench_nodes(&mut e), net_nodes, "bench ignores EvalFile");
    let _ = std::fs::remove_dir_all(&dir);
}
