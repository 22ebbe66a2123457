//! Human-strength play: what `UCI_LimitStrength` and `UCI_Elo` do to a search.
//!
//! A weaker Scout is the same engine seeing less and choosing less precisely, never one that
//! plays random moves. A level is three knobs:
//! - a **node budget**: the search stops after this many nodes (as `go nodes` would), so the
//!   weakest level sees about two plies and misses deeper tactics as a club player does;
//! - **a few lines** (MultiPV: four at the lower levels, fewer at the top, where every extra
//!   line costs depth and the choice hardly ever leaves the best two) searched with that
//!   budget, so each candidate move has a score;
//! - a **choice by score**: a line `d` centipawns worse than the best is played with a weight
//!   of `exp(-d / spread)`, and never when `d` exceeds the level's `margin`. Small inaccuracies
//!   are common at low levels, a move the search sees losing a piece never is.
//!
//! The table was calibrated in games against Stockfish 15.1's own levels at 5+0.05 with
//! generation 3 built in (session 17). As the net and the search grew stronger, each budget has
//! been re-fitted so that a level plays level with the same level of that calibrated build
//! (commit 699e841, node-bound games at 60+0.6): every row measured within about 50 Elo
//! of it with generation 7 (sessions 78–79). The series, with their error bars, are in the
//! README (*Playing at a human strength*) and docs/results.md. Between two rows the node budget
//! is interpolated geometrically, the rest linearly.

use rand::{Rng, RngExt};

use crate::score::TB_BOUND;
use crate::search::RootMove;

/// The lowest `UCI_Elo` (the range GUIs expect).
pub const MIN_ELO: u32 = 1320;
/// The highest `UCI_Elo`.
pub const MAX_ELO: u32 = 3000;
/// `UCI_Elo`'s default.
pub const DEFAULT_ELO: u32 = 1800;
/// What a requested Elo means for one search.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Level {
    /// The search's node budget.
    pub nodes: u64,
    /// Lines (root moves with a score) to choose from.
    pub lines: usize,
    /// How fast a worse line's weight falls off, in centipawns (0: always the best line).
    pub spread: f64,
    /// A line more than this many centipawns below the best is never played.
    pub margin: i32,
}

/// Rows of the level table: Elo, node budget, lines, spread, margin.
/// Four lines to depth 2 take about 400 nodes (median of the bench positions; 1,400 at the 90th
/// percentile), to depth 3 about 750, depth 4 1,700, depth 5 3,000, depth 7 12,000.
const TABLE: [(u32, u64, usize, f64, i32); 6] = [
    (1320, 670, 4, 90.0, 200),
    (1600, 3_000, 4, 50.0, 140),
    (2000, 9_300, 4, 34.0, 100),
    (2400, 42_500, 4, 15.0, 50),
    (2700, 70_000, 2, 6.0, 25),
    (3000, 220_000, 1, 0.0, 0),
];

/// The level for a requested Elo (clamped to `MIN_ELO..=MAX_ELO`).
pub fn level(elo: u32) -> Level {
    let elo = elo.clamp(MIN_ELO, MAX_ELO);
    let upper = TABLE
        .iter()
        .position(|row| row.0 >= elo)
        .unwrap_or(TABLE.len() - 1)
        .max(1);
    let (e0, n0, l0, s0, m0) = TABLE[upper - 1];
    let (e1, n1, l1, s1, m1) = TABLE[upper];
    let t = (elo - e0) as f64 / (e1 - e0) as f64;
    let nodes = (n0 as f64).ln() + t * ((n1 as f64).ln() - (n0 as f64).ln());
    Level {
        nodes: nodes.exp().round() as u64,
        lines: (l0 as f64 + t * (l1 as f64 - l0 as f64)).round() as usize,
        spread: s0 + t * (s1 - s0),
        margin: (m0 as f64 + t * (m1 - m0) as f64).round() as i32,
    }
}

/// Chooses the line to play among `lines` (the last completed iteration's lines, best first;
/// only the first `level.lines` count). Returns the index of the chosen line; 0 when there is
/// nothing to choose.
pub fn choose(lines: &[RootMove], level: &Level, rng: &mut impl Rng) -> usize {
    let Some(best) = lines.first().map(|l| l.score) else {
        return 0;
    };
    if level.spread <= 0.0 || best.abs() >= TB_BOUND {
        // Full precision, or a mate or tablebase result to convert or to delay: the best line.
        return 0;
    }
    let weights: Vec<f64> = lines
        .iter()
        .take(level.lines)
        .map(|l| {
            let loss = best - l.score;
            if loss > level.margin {
                0.0
            } else {
                (-(loss as f64) / level.spread).exp()
            }
        })
        .collect();
    let total: f64 = weights.iter().sum();
    let mut x = rng.random::<f64>() * total;
    for (i, w) in weights.iter().enumerate() {
        if x < *w {
            return i;
        }
        x -= w;
    }
    0
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::score::MATE_BOUND;
    use rand::SeedableRng;
    use rand::rngs::StdRng;
    use shakmaty::{Chess, Position};

    fn lines(scores: &[i32]) -> Vec<RootMove> {
        let moves = Chess::default().legal_moves();
        scores
            .iter()
            .zip(moves)
            .map(|(&score, mv)| RootMove {
                mv,
                score,
                previous_score: score,
                pv: vec![mv],
                seldepth: 0,
                nodes: 0,
                tb_score: None,
            })
            .collect()
    }

    #[test]
    fn levels_follow_the_elo() {
        assert_eq!(level(0), level(MIN_ELO));
        assert_eq!(level(u32::MAX), level(MAX_ELO));
        for row in TABLE {
            let l = level(row.0);
            assert_eq!(
                (l.nodes, l.lines, l.spread, l.margin),
                (row.1, row.2, row.3, row.4)
            );
        }
        let mut last = level(MIN_ELO);
        for elo in MIN_ELO + 1..=MAX_ELO {
            let l = level(elo);
            assert!(l.nodes >= last.nodes && l.lines <= last.lines, "{elo}");
            assert!(l.lines >= 1, "{elo}");
            assert!(l.spread <= last.spread && l.margin <= last.margin, "{elo}");
            last = l;
        }
        assert!(level(MIN_ELO).nodes < level(MAX_ELO).nodes / 100);
    }

    #[test]
    fn choices_stay_within_the_margin_and_favour_better_lines() {
        let level = level(MIN_ELO);
        let ls = lines(&[40, 20, -30, 40 - level.margin, 40 - level.margin - 1]);
        let mut rng = StdRng::seed_from_u64(7);
        let mut counts = [0usize; 5];
        for _ in 0..20_000 {
            counts[choose(&ls, &level, &mut rng)] += 1;
        }
        assert_eq!(
            counts[4], 0,
            "a line beyond the margin was played: {counts:?}"
        );
        assert!(
            counts[3] > 0,
            "a line within the margin was never played: {counts:?}"
        );
        assert!(counts[0] > counts[1] && counts[1] > counts[2] && counts[2] > counts[3]);
        // The weights are exp(-loss / spread): the first two lines' counts show it.
        let expected = (-20.0 / level.spread).exp();
        let ratio = counts[1] as f64 / counts[0] as f64;
        assert!((ratio - expected).abs() < 0.05, "{ratio} vs {expected}");
    }

    #[test]
    fn full_strength_and_mates_take_the_best_line() {
        let mut rng = StdRng::seed_from_u64(3);
        let top = level(MAX_ELO);
        let weak = level(MIN_ELO);
        let equal = lines(&[10, 10, 10]);
        let mate = lines(&[MATE_BOUND + 5, 30, 20]);
        let tb_win = lines(&[TB_BOUND + 50, TB_BOUND + 49, 20]);
        let mated = lines(&[-MATE_BOUND - 5, -MATE_BOUND - 7]);
        for _ in 0..1000 {
            assert_eq!(choose(&equal, &top, &mut rng), 0);
            assert_eq!(choose(&mate, &weak, &mut rng), 0);
            assert_eq!(choose(&mated, &weak, &mut rng), 0);
            assert_eq!(choose(&tb_win, &weak, &mut rng), 0);
        }
        assert_eq!(choose(&[], &weak, &mut rng), 0);
        // Lines beyond the level's count are not candidates, however good.
        let many = lines(&[10, 10, 10, 10, 10, 10]);
        assert!((0..1000).all(|_| choose(&many, &weak, &mut rng) < weak.lines));
    }
}
