//! Random balanced openings, the start of every self-play game: a few uniformly random plies
//! from a start position, kept only when a short search finds the result roughly balanced.
//! `datagen` begins each of its games with one; `genfens` prints them for OpenBench's datagen
//! workers (who then play the games themselves).

use rand::RngExt;
use rand::rngs::StdRng;
use shakmaty::Position as _;

use crate::position::Position;
use crate::search::{Limits, Searcher, Silent};
use crate::time::TimeManager;

/// How openings are made.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Recipe {
    /// Uniformly random plies from the start position: this many, or one more in half of the
    /// openings at random (so that both colours start on the move).
    pub random_plies: usize,
    /// An opening whose short search scores beyond this (centipawns, either side) is refused.
    pub max_score: i32,
}

/// Plays the recipe's random plies from `start`. `None` when the game ends on the way or the
/// position reached has no legal move.
pub fn random_plies(start: Position, recipe: &Recipe, rng: &mut StdRng) -> Option<Position> {
    let mut pos = start;
    let plies = recipe.random_plies + rng.random_range(0..2usize);
    for _ in 0..plies {
        let moves = pos.chess().legal_moves();
        if moves.is_empty() {
            return None;
        }
        pos = pos.play(moves[rng.random_range(0..moves.len())]);
    }
    (!pos.chess().legal_moves().is_empty()).then_some(pos)
}

/// The balance check: searches `pos` (as the first position of a game) within `limits` and
/// returns the score (side to move's view) when it is within the recipe's bound.
pub fn balanced(
    pos: &Position,
    recipe: &Recipe,
    limits: &Limits,
    searcher: &mut Searcher,
) -> Option<i32> {
    let history = [pos.key()];
    let result = searcher.search(
        pos,
        &history,
        limits.clone(),
        TimeManager::infinite(),
        &mut Silent,
    );
    (result.score.abs() <= recipe.max_score).then_some(result.score)
}

/// Random plies from `start`, then the balance check: an opening, or `None` when this try
/// failed (the caller draws again).
pub fn make(
    start: Position,
    recipe: &Recipe,
    limits: &Limits,
    rng: &mut StdRng,
    searcher: &mut Searcher,
) -> Option<Position> {
    let pos = random_plies(start, recipe, rng)?;
    balanced(&pos, recipe, limits, searcher)?;
    Some(pos)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::search::SharedFlags;
    use crate::tt::TranspositionTable;
    use rand::SeedableRng;
    use std::sync::Arc;

    #[test]
    fn openings_are_reproducible_playable_and_balanced() {
        let recipe = Recipe {
            random_plies: 8,
            max_score: 300,
        };
        let limits = Limits {
            soft_nodes: Some(500),
            nodes: Some(4000),
            ..Limits::default()
        };
        let tt = Arc::new(TranspositionTable::new(1));
        let mut searcher = Searcher::new(tt.clone(), Arc::new(SharedFlags::default()));
        let mut run = |seed: u64| -> Vec<String> {
            let mut rng = StdRng::seed_from_u64(seed);
            let mut fens = Vec::new();
            while fens.len() < 5 {
                tt.clear();
                searcher.new_game();
                if let Some(pos) = make(
                    Position::default(),
                    &recipe,
                    &limits,
                    &mut rng,
                    &mut searcher,
                ) {
                    let plies = pos.chess().fullmoves().get() * 2
                        - if pos.turn().is_white() { 2 } else { 1 };
                    assert!((8..=9).contains(&plies), "{} plies", plies);
                    assert!(!pos.chess().legal_moves().is_empty());
                    fens.push(pos.fen());
                }
            }
            fens
        };
        let a = run(3);
        assert_eq!(a, run(3), "same seed, same openings");
        assert_ne!(a, run(4), "another seed, other openings");
    }

    #[test]
    fn a_lost_position_is_refused() {
        // White to move a queen and rook down.
        let lost = Position::from_fen(
            "rq2kbnr/pppppppp/8/8/8/8/PPPPPPPP/1NB1KBNR w Kk - 0 1",
            shakmaty::CastlingMode::Standard,
        )
        .unwrap();
        let recipe = Recipe {
            random_plies: 0,
            max_score: 300,
        };
        let limits = Limits {
            soft_nodes: Some(2000),
            nodes: Some(16000),
            ..Limits::default()
        };
        let tt = Arc::new(TranspositionTable::new(1));
        let mut searcher = Searcher::new(tt, Arc::new(SharedFlags::default()));
        assert_eq!(balanced(&lost, &recipe, &limits, &mut searcher), None);
        assert!(balanced(&Position::default(), &recipe, &limits, &mut searcher).is_some());
    }
}
