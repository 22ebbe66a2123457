//! Scores and bounds: the ground floor every part of the engine that handles a score stands on
//! (search, transposition table, tablebases, UCI output, strength levels, the WDL model).
//!
//! Scores are centipawns from the side to move's point of view, in three bands that never
//! overlap, checked at compile time below:
//!
//! - evaluations, within ±`EVAL_LIMIT` (the network's output is clamped to it);
//! - tablebase results: a win `n` plies from the root scores `TB_WIN - n` (a loss the
//!   negative), at least `TB_BOUND`;
//! - mates: mate delivered `n` plies from the root scores `MATE - n` (being mated the
//!   negative), at least `MATE_BOUND`.
//!
//! `TB_BOUND` and above are proven results, which the pruning never treats as estimates.
//! [`Bound`] says what a score searched with a window tells about the true value.

/// Largest static evaluation, in centipawns: far below the tablebase and mate scores.
pub const EVAL_LIMIT: i32 = 9_999;
/// Score of delivering mate at the root (mate in `n` plies scores `MATE - n`).
pub const MATE: i32 = 32_000;
/// Deepest ply the search reaches.
pub const MAX_PLY: usize = 128;
/// Scores at least this large (in absolute value) are mate scores.
pub const MATE_BOUND: i32 = MATE - MAX_PLY as i32;
/// Score of a tablebase win at the root: a win at `ply` scores `TB_WIN - ply` (a loss the
/// negative). Below every mate score, above every evaluation.
pub const TB_WIN: i32 = MATE_BOUND - 1 - MAX_PLY as i32;
/// Scores at least this large (in absolute value) are proven results: tablebase or mate.
pub const TB_BOUND: i32 = TB_WIN - MAX_PLY as i32;
/// Larger than every score.
pub const INFINITY: i32 = MATE + 1;
/// The value of a drawn position.
pub const DRAW: i32 = 0;

// The bands, in order: every evaluation below every tablebase result below every mate, and
// every score inside the 16 bits the transposition table stores.
const _: () = {
    assert!(EVAL_LIMIT < TB_BOUND);
    assert!(TB_WIN - MAX_PLY as i32 >= TB_BOUND);
    assert!(TB_WIN < MATE_BOUND);
    assert!(MATE - MAX_PLY as i32 >= MATE_BOUND);
    assert!(INFINITY > MATE && INFINITY <= i16::MAX as i32);
};

/// Score of being mated at `ply`.
#[inline]
pub fn mated_in(ply: usize) -> i32 {
    -MATE + ply as i32
}

/// Score of mating at `ply`.
#[inline]
pub fn mate_in(ply: usize) -> i32 {
    MATE - ply as i32
}

/// What a score says about the true value (from the window it was searched with).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Bound {
    /// The search failed low (v <= alpha): the true value is at most the score.
    Upper = 1,
    /// The search failed high (v >= beta): the true value is at least the score.
    Lower = 2,
    /// alpha < v < beta: the score is the true value at that depth.
    Exact = 3,
}

impl Bound {
    /// The bound type of a fail-soft result `value` searched with window (alpha, beta).
    pub fn classify(value: i32, alpha: i32, beta: i32) -> Bound {
        if value <= alpha {
            Bound::Upper
        } else if value >= beta {
            Bound::Lower
        } else {
            Bound::Exact
        }
    }

    /// Does a `score` of this kind settle a node searched with window (alpha, beta)? An exact
    /// score always does; a lower bound when it reaches beta, an upper bound when it stays at
    /// or below alpha.
    #[inline]
    pub fn cuts(self, score: i32, alpha: i32, beta: i32) -> bool {
        match self {
            Bound::Exact => true,
            Bound::Lower => score >= beta,
            Bound::Upper => score <= alpha,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_bound_cuts_only_what_it_proves() {
        // A score classified from a window always cuts that window.
        for (v, a, b) in [
            (-5, 0, 10),
            (0, 0, 10),
            (5, 0, 10),
            (10, 0, 10),
            (50, 0, 10),
        ] {
            assert!(Bound::classify(v, a, b).cuts(v, a, b));
        }
        assert!(!Bound::Lower.cuts(5, 0, 10));
        assert!(!Bound::Upper.cuts(5, 0, 10));
        assert!(Bound::Exact.cuts(5, 0, 10));
    }

    #[test]
    fn mate_scores_count_plies_from_the_root() {
        assert_eq!(mate_in(3), MATE - 3);
        assert_eq!(mated_in(4), -(MATE - 4));
        assert!(mate_in(MAX_PLY) >= MATE_BOUND);
        assert!(TB_WIN - (MAX_PLY as i32) >= TB_BOUND);
    }
}
