//! Material scaling: the net's output as the search reads it, shrunk as the pieces come off.
//!
//! The search multiplies every evaluation by `(14,750 + 845·N + 845·B + 1,225·R + 2,345·Q) /
//! 32,768`, counting both sides' knights, bishops, rooks and queens (pawns and kings do not
//! count): about 0.95 with every piece on the board, 0.45 with pawns and kings alone. The bet:
//! Scout's nets score endgames larger than the results behind them (its own WDL model puts an
//! even chance of a win at +0.80 with every piece, at +3.66 with 20 points of material), and a
//! search that overrates endgames trades into them. Measured against the same search without
//! it, at 0.68 with pawns alone: +50.4 ± 16.1 at 25,000 nodes (1,000 games) and +47.2 ± 28.2 at
//! 8+0.08 (200 games; docs/results.md, sessions 72 and 73). Against that first scale, the same
//! 0.95 at the start and less at the end: 0.60 +3.1 ± 15.8, 0.52 +17.8 ± 14.6, 0.45 +34.0 ±
//! 19.7 at 25,000 nodes (1,000, 1,271 and 595 games), and 0.45 +23.9 ± 26.9 at 8+0.08 (160
//! games; session 74). Around it, level at 25,000 nodes: 0.38 at the end −9.9 ± 16.9 (879
//! games), 1.00 and 0.85 at the start −0.7 ± 15.3 and −3.1 ± 15.9 (1,000 each; sessions
//! 74–76); the pruning margins scaled alike −0.9 ± 11.3 (2,000 games, session 76).
//!
//! The data generator turns it off (`matscale` in `SCOUT_DISABLE` terms), so that the labels a
//! net learns from stay in the net's own units; match scores of a scaling Scout are brought back
//! to them with [`unscaled`] (`convert --material-scaled`), and so is the score the WDL model
//! reads, since it was fitted on unscaled scores. [`unscaled`] inverts this build's scale only:
//! games of a Scout with another scale are converted with that Scout's own binary. The
//! limited-strength levels search unscaled, as they were calibrated (`threads.rs`).

use shakmaty::{Board, Role};

/// The scale's unit: a scale of `ONE` leaves the evaluation as it is.
pub const ONE: i32 = 32_768;
/// The scale with no piece on the board but pawns and kings.
const BASE: i32 = 14_750;
/// Each piece's part of the scale, whichever side it belongs to.
const WEIGHTS: [(Role, i32); 4] = [
    (Role::Knight, 845),
    (Role::Bishop, 845),
    (Role::Rook, 1_225),
    (Role::Queen, 2_345),
];

/// The scale of `board` in 1/[`ONE`]ths: 31,100 with every piece, 14,750 with none.
#[inline]
pub fn material_scale(board: &Board) -> i32 {
    BASE + WEIGHTS
        .iter()
        .map(|&(role, w)| board.by_role(role).count() as i32 * w)
        .sum::<i32>()
}

/// The net's evaluation `raw` as the search uses it on `board` (rounded toward zero, so a
/// score and its negation scale alike).
#[inline]
pub fn scaled(raw: i32, board: &Board) -> i32 {
    (i64::from(raw) * i64::from(material_scale(board)) / i64::from(ONE)) as i32
}

/// A scaled score back in the net's own units (the inverse of [`scaled`] up to rounding).
pub fn unscaled(score: i32, board: &Board) -> i32 {
    let scale = i64::from(material_scale(board));
    let num = i64::from(score) * i64::from(ONE);
    // Rounded to the nearest, halves away from zero, alike for both signs.
    ((num.abs() + scale / 2) / scale * num.signum()) as i32
}

#[cfg(test)]
mod tests {
    use super::*;

    fn board(fen: &str) -> Board {
        fen.parse().unwrap()
    }

    #[test]
    fn the_scale_runs_from_all_pieces_to_none() {
        let start = board("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR");
        assert_eq!(material_scale(&start), 31_100);
        let pawns = board("4k3/pppppppp/8/8/8/8/PPPPPPPP/4K3");
        assert_eq!(material_scale(&pawns), BASE);
        // One rook and one knight, on different sides: the side does not matter.
        let rn = board("4k3/8/8/8/8/8/8/R3K1n1");
        assert_eq!(material_scale(&rn), BASE + 1_225 + 845);
        assert_eq!(scaled(1_000, &start), 949);
        assert_eq!(scaled(-1_000, &start), -949);
        assert_eq!(scaled(1_000, &pawns), 450);
        assert_eq!(scaled(0, &pawns), 0);
    }

    #[test]
    fn unscaling_inverts_scaling() {
        let boards = [
            board("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR"),
            board("4k3/pppppppp/8/8/8/8/PPPPPPPP/4K3"),
            board("r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R"),
        ];
        for b in &boards {
            for raw in [-3_000, -731, -1, 0, 1, 57, 250, 2_999] {
                let back = unscaled(scaled(raw, b), b);
                // Scaling truncates below one centipawn of the scaled score, which is 1/scale
                // of the net's; unscaling rounds to the nearest.
                let bound = f64::from(ONE) / f64::from(material_scale(b)) + 0.5;
                assert!(f64::from((back - raw).abs()) <= bound, "{raw} -> {back}");
                assert_eq!(unscaled(-scaled(raw, b), b), -back);
            }
        }
    }
}
