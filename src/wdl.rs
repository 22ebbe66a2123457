//! The win/draw/loss model behind `UCI_ShowWDL`: how often Scout's own self-play games were
//! won, drawn and lost from a given score and amount of material.
//!
//! `P(win) = sigmoid((score − a(m)) / b(m))` and `P(loss) = sigmoid((−score − a(m)) / b(m))`,
//! the draw taking the rest; `m` is the material on the board (pawn 1, knight and bishop 3,
//! rook 5, queen 9, both sides, clamped to 10..78) and `a`, `b` are cubics in `m / 58`. `a` is
//! the score at which a win becomes as likely as not, `b` how quickly it becomes certain. The
//! coefficients are fitted by `scout wdl-fit` (`training/wdlfit.rs`) to the results of the data
//! generator's games; the README gives the data, the fit and its check on held-back games.

use shakmaty::{Board, Role};

use crate::score::{EVAL_LIMIT, MATE_BOUND};

/// Coefficients of `a(m)` (constant first), in centipawns, as printed by `scout wdl-fit` (the
/// README says on which data).
pub const A: [f64; 4] = [626.476, -834.474, 204.093, 84.216];
/// Coefficients of `b(m)` (constant first), in centipawns.
pub const B: [f64; 4] = [150.828, 4.749, -45.687, 24.971];

/// A piece's part of the material count the model reads.
pub const fn piece_value(role: Role) -> u32 {
    match role {
        Role::Pawn => 1,
        Role::Knight | Role::Bishop => 3,
        Role::Rook => 5,
        Role::Queen => 9,
        Role::King => 0,
    }
}

/// The material count the model reads.
pub fn material(board: &Board) -> u32 {
    Role::ALL
        .iter()
        .map(|&role| piece_value(role) * board.by_role(role).count() as u32)
        .sum()
}

/// `x = m / 58` for the polynomials, `m` clamped to the range the data covers.
pub fn material_x(material: u32) -> f64 {
    f64::from(material.clamp(10, 78)) / 58.0
}

fn cubic(c: &[f64; 4], x: f64) -> f64 {
    ((c[3] * x + c[2]) * x + c[1]) * x + c[0]
}

/// The model's parameters `(a, b)` at this material with these coefficients.
pub fn params(a: &[f64; 4], b: &[f64; 4], material: u32) -> (f64, f64) {
    let x = material_x(material);
    (cubic(a, x), cubic(b, x).max(1.0))
}

/// Win and loss probabilities of `score` (side to move's view) under `(a, b)`.
pub fn probabilities(score: f64, a: f64, b: f64) -> (f64, f64) {
    let sigmoid = |t: f64| 1.0 / (1.0 + (-t).exp());
    (sigmoid((score - a) / b), sigmoid((-score - a) / b))
}

/// Win, draw and loss chances in per mille (summing to 1000) for the side to move, for a
/// search score and the material on the board. Mate scores are certain.
pub fn wdl(score: i32, material: u32) -> (u32, u32, u32) {
    if score >= MATE_BOUND {
        return (1000, 0, 0);
    }
    if score <= -MATE_BOUND {
        return (0, 0, 1000);
    }
    let (a, b) = params(&A, &B, material);
    let (w, l) = probabilities(f64::from(score), a, b);
    let w = (w * 1000.0).round() as u32;
    let l = ((l * 1000.0).round() as u32).min(1000 - w);
    (w, 1000 - w - l, l)
}

/// [`wdl`] for a search's score at a root `board`: the model reads the score in the net's own
/// units (it was fitted on the data generator's unscaled scores) and the board's material.
/// `scaled`: the search scaled its evaluations by material (`nnue/scale.rs`), so the score is
/// read back first; a search without the scale (a `UCI_Elo` level) is already in the net's
/// units. Tablebase and mate scores lie beyond every evaluation and were never scaled.
pub fn wdl_at(score: i32, board: &Board, scaled: bool) -> (u32, u32, u32) {
    let raw = if score.abs() > EVAL_LIMIT || !scaled {
        score
    } else {
        crate::nnue::scale::unscaled(score, board)
    };
    wdl(raw, material(board))
}

#[cfg(test)]
mod tests {
    use super::*;
    use shakmaty::{Chess, Position};

    #[test]
    fn wdl_is_a_distribution_that_follows_the_score() {
        let start = material(Chess::default().board());
        assert_eq!(start, 78);
        let mut last_win = 0;
        for score in (-3000..=3000).step_by(50) {
            for m in [0, 10, 30, 58, 78, 100] {
                let (w, d, l) = wdl(score, m);
                assert_eq!(w + d + l, 1000);
                // Symmetric: the other side's view swaps win and loss.
                let (w2, _, l2) = wdl(-score, m);
                assert!(w.abs_diff(l2) <= 1 && l.abs_diff(w2) <= 1, "{score} {m}");
            }
            let (w, _, _) = wdl(score, 40);
            assert!(w >= last_win);
            last_win = w;
        }
        assert_eq!(wdl(MATE_BOUND + 5, 40), (1000, 0, 0));
        assert_eq!(wdl(-MATE_BOUND - 5, 40), (0, 0, 1000));
        // Level: as many wins as losses, and more draws than three pawns up.
        let (w, d, l) = wdl(0, 58);
        assert!(w.abs_diff(l) <= 1 && d > wdl(300, 58).1, "{w} {d} {l}");
    }

    /// At a root, the model reads the search's scaled score as the net's own: a pawn ending
    /// scored +1.35 by the search is the net's +3.00. An unscaled search's score (a level's) is
    /// read as it is.
    #[test]
    fn a_scaled_score_is_read_in_the_nets_units() {
        let board: Board = "4k3/ppp5/8/8/8/8/PPPP4/4K3".parse().unwrap();
        let scaled = crate::nnue::scale::scaled(300, &board);
        assert_eq!(scaled, 135);
        assert_eq!(wdl_at(scaled, &board, true), wdl(300, material(&board)));
        assert_ne!(wdl_at(scaled, &board, true), wdl(scaled, material(&board)));
        assert_eq!(wdl_at(300, &board, false), wdl(300, material(&board)));
        assert_eq!(wdl_at(MATE_BOUND + 3, &board, true), (1000, 0, 0));
    }
}
