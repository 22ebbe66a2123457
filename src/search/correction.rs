//! Correction history: how far, on average, the network's static evaluation has been from
//! what the search then found, remembered by features of the position that change slowly
//! along a game: the pawn structure, and each side's placement of its other pieces. The static
//! evaluation the search stands on (pruning margins, `improving`, quiescence's stand-pat) is
//! corrected by those average errors; the TT keeps the raw one.
//!
//! The bet: the net misjudges some structures systematically in a given game (a blocked
//! centre, a passed pawn it undervalues, a king shelter), and the searches below the same
//! structure keep saying so; standing on a corrected estimate prunes fewer good moves and more
//! bad ones. With `SearchConfig::exact` (no selective steps) nothing is corrected, so the
//! window theorem still holds.

use shakmaty::Color;

use crate::position::Position;
use crate::score::TB_BOUND;

/// Entries of each table per side to move (a power of two: a key's low bits index it).
const ENTRIES: usize = 16_384;
/// One centipawn of correction is `GRAIN` units of an entry.
const GRAIN: i32 = 256;
/// The weights of an update are out of `WEIGHT_SCALE`.
const WEIGHT_SCALE: i32 = 256;
/// The largest weight an update gets (a deep search's result moves the average by half).
const MAX_WEIGHT: i32 = 128;
/// No table's correction goes beyond this many centipawns either way.
const MAX_CORRECTION: i32 = 96;

/// The tables. The correction is their weighted mean: the pawn structure's counts half, each
/// side's piece placement a quarter.
#[derive(Clone, Copy)]
enum Table {
    Pawns,
    WhitePieces,
    BlackPieces,
}

const TABLES: [Table; 3] = [Table::Pawns, Table::WhitePieces, Table::BlackPieces];

/// The correction tables of one search thread (they live across searches, like the
/// histories, and are cleared on `ucinewgame`).
#[derive(Clone, Debug)]
pub struct CorrectionHistory {
    table: Vec<i16>,
}

impl Default for CorrectionHistory {
    fn default() -> Self {
        CorrectionHistory {
            table: vec![0; TABLES.len() * 2 * ENTRIES],
        }
    }
}

/// Where a position's entries lie in each table, in the order of `TABLES`: computed once per
/// node, read to correct its evaluation and written when its search is done.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Slots([usize; 3]);

impl Slots {
    /// The entries of `pos`.
    #[inline]
    pub fn of(pos: &Position) -> Slots {
        let side = pos.turn() as usize * ENTRIES;
        let slot =
            |t: Table, key: u64| (t as usize * 2 * ENTRIES) + side + (key as usize & (ENTRIES - 1));
        Slots([
            slot(Table::Pawns, pos.pawn_key()),
            slot(Table::WhitePieces, pos.non_pawn_key(Color::White)),
            slot(Table::BlackPieces, pos.non_pawn_key(Color::Black)),
        ])
    }
}

impl CorrectionHistory {
    /// Forgets every correction.
    pub fn clear(&mut self) {
        self.table.fill(0);
    }

    /// The raw static evaluation `raw` of the position at `slots` corrected by the average
    /// errors of its features, kept inside the evaluation band (a corrected score is never
    /// mistaken for a mate or a tablebase result).
    #[inline]
    pub fn correct(&self, slots: Slots, raw: i32) -> i32 {
        let [pawns, white, black] = slots.0.map(|i| i32::from(self.table[i]));
        let units = 2 * pawns + white + black;
        (raw + units / (4 * GRAIN)).clamp(-TB_BOUND + 1, TB_BOUND - 1)
    }

    /// A search of `depth` found `searched` where the raw static evaluation of the position
    /// at `slots` said `raw`: move each feature's average error towards the difference, the
    /// more the deeper the search.
    #[inline]
    pub fn update(&mut self, slots: Slots, depth: i32, raw: i32, searched: i32) {
        let error = (searched - raw).clamp(-2 * MAX_CORRECTION, 2 * MAX_CORRECTION) * GRAIN;
        let weight = (depth + 1).pow(2).min(MAX_WEIGHT);
        for i in slots.0 {
            let entry = &mut self.table[i];
            let blended =
                (i32::from(*entry) * (WEIGHT_SCALE - weight) + error * weight) / WEIGHT_SCALE;
            *entry = blended.clamp(-MAX_CORRECTION * GRAIN, MAX_CORRECTION * GRAIN) as i16;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use shakmaty::CastlingMode;

    fn pos(fen: &str) -> Position {
        Position::from_fen(fen, CastlingMode::Standard).unwrap()
    }

    #[test]
    fn an_empty_table_corrects_nothing() {
        let h = CorrectionHistory::default();
        let p = pos("rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1");
        assert_eq!(h.correct(Slots::of(&p), 37), 37);
        assert_eq!(h.correct(Slots::of(&p), -TB_BOUND - 50), -TB_BOUND + 1);
    }

    #[test]
    fn deep_searches_pull_the_correction_towards_the_error_up_to_its_cap() {
        let mut h = CorrectionHistory::default();
        let p = pos("4k3/pp3ppp/8/8/8/8/PP3PPP/4K3 w - - 0 1");
        h.update(Slots::of(&p), 1, 0, 20);
        let shallow = h.correct(Slots::of(&p), 0);
        assert!((0..5).contains(&shallow), "{shallow}");
        for _ in 0..20 {
            h.update(Slots::of(&p), 12, 0, 20);
        }
        assert_eq!(
            h.correct(Slots::of(&p), 0),
            19,
            "converges to the error (less rounding)"
        );
        for _ in 0..20 {
            h.update(Slots::of(&p), 12, 0, 500);
        }
        assert_eq!(h.correct(Slots::of(&p), 100), 100 + MAX_CORRECTION);
        for _ in 0..40 {
            h.update(Slots::of(&p), 12, 0, -500);
        }
        assert_eq!(h.correct(Slots::of(&p), 100), 100 - MAX_CORRECTION);
        h.clear();
        assert_eq!(h.correct(Slots::of(&p), 100), 100);
    }

    #[test]
    fn each_feature_corrects_by_its_weight_and_sides_to_move_are_apart() {
        let mut h = CorrectionHistory::default();
        let white = pos("4k3/pp3ppp/8/8/8/8/PP3PPP/4K3 w - - 0 1");
        // The same position with the other side to move.
        let black = pos("4k3/pp3ppp/8/8/8/8/PP3PPP/4K3 b - - 0 1");
        // The same pawns and Black pieces; White's pieces differ (a quarter is unknown).
        let with_rook = pos("4k3/pp3ppp/8/8/8/8/PP3PPP/R3K3 w - - 0 1");
        // The same pieces; other pawns (half is unknown).
        let other_pawns = pos("4k3/pp3ppp/8/8/8/7P/PP3PP1/4K3 w - - 0 1");
        for _ in 0..20 {
            h.update(Slots::of(&white), 10, 0, 40);
        }
        assert_eq!(
            h.correct(Slots::of(&white), 0),
            39,
            "the mean of three tables at the error"
        );
        assert_eq!(
            h.correct(Slots::of(&with_rook), 0),
            29,
            "pawns and Black's pieces: three quarters"
        );
        assert_eq!(
            h.correct(Slots::of(&other_pawns), 0),
            19,
            "the pieces alone: half"
        );
        assert_eq!(h.correct(Slots::of(&black), 0), 0);
    }
}
