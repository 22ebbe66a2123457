//! Every evaluation weight, in one place.
//!
//! Data only. The tunable weights are declared inside `tunable!` (see `eval/mod.rs`): each is
//! an `S(mg, eg)` pair or an array of them, and `scout tune` (see `tune.rs`) rewrites their
//! values in place, keeping the comments. Below the block are the fixed parameters (plain
//! `i32`s of the nonlinear king-danger formula and the endgame scale factors), which the tuner
//! leaves alone. Values are in centipawns. Tables indexed by `[S; 6]` follow shakmaty's role
//! order: pawn, knight, bishop, rook, queen, king. Tables indexed by rank use the rank relative
//! to the piece's owner (index 0 = own back rank, 7 = promotion rank). Piece-square tables are
//! written as seen from White, rank 8 first, and are mirrored for Black.

use super::score::S;

tunable! {
    S;

    // ---------------------------------------------------------------------------------------------
    // Material
    // ---------------------------------------------------------------------------------------------

    /// Material value of each piece type (the king's entry is unused).
    MATERIAL: [S; 6] = [S(82, 110), S(330, 310), S(345, 335), S(470, 560), S(1000, 1010), S(0, 0)];

    // ---------------------------------------------------------------------------------------------
    // Piece-square tables
    // ---------------------------------------------------------------------------------------------

    /// Piece-square table for pawns: central pawns advancing in the middlegame, any pawn advancing in the endgame.
    PSQT_PAWN: [S; 64] = [
        // rank 8
        S(0, 0), S(0, 0), S(0, 0), S(0, 0), S(0, 0), S(0, 0), S(0, 0), S(0, 0),
        // rank 7
        S(30, 58), S(34, 60), S(38, 60), S(40, 60), S(40, 60), S(38, 60), S(34, 60), S(30, 58),
        // rank 6
        S(8, 32), S(14, 34), S(20, 34), S(28, 34), S(28, 34), S(20, 34), S(14, 34), S(8, 32),
        // rank 5
        S(0, 16), S(4, 18), S(10, 18), S(22, 18), S(22, 18), S(10, 18), S(2, 18), S(-2, 16),
        // rank 4
        S(-4, 6), S(0, 8), S(8, 8), S(18, 8), S(18, 8), S(4, 8), S(-2, 8), S(-6, 6),
        // rank 3
        S(-2, 0), S(0, 2), S(4, 2), S(6, 2), S(6, 2), S(0, 2), S(0, 2), S(-4, 0),
        // rank 2
        S(0, -2), S(0, 0), S(0, 0), S(-8, 0), S(-8, 0), S(2, 0), S(4, 0), S(0, -2),
        // rank 1
        S(0, 0), S(0, 0), S(0, 0), S(0, 0), S(0, 0), S(0, 0), S(0, 0), S(0, 0),
    ];

    /// Piece-square table for knights: the centre and the enemy half, never the rim.
    PSQT_KNIGHT: [S; 64] = [
        // rank 8
        S(-44, -48), S(-26, -34), S(-14, -24), S(-8, -18), S(-8, -18), S(-14, -24), S(-26, -34), S(-44, -48),
        // rank 7
        S(-22, -34), S(-4, -20), S(8, -10), S(14, -4), S(14, -4), S(8, -10), S(-4, -20), S(-22, -34),
        // rank 6
        S(-12, -24), S(6, -10), S(18, 0), S(24, 6), S(24, 6), S(18, 0), S(6, -10), S(-12, -24),
        // rank 5
        S(-14, -18), S(4, -4), S(16, 6), S(22, 12), S(22, 12), S(16, 6), S(4, -4), S(-14, -18),
        // rank 4
        S(-18, -18), S(0, -4), S(12, 6), S(18, 12), S(18, 12), S(12, 6), S(0, -4), S(-18, -18),
        // rank 3
        S(-24, -24), S(-6, -10), S(6, 0), S(12, 6), S(12, 6), S(6, 0), S(-6, -10), S(-24, -24),
        // rank 2
        S(-32, -34), S(-14, -20), S(-2, -10), S(4, -4), S(4, -4), S(-2, -10), S(-14, -20), S(-32, -34),
        // rank 1
        S(-42, -48), S(-24, -34), S(-12, -24), S(-6, -18), S(-6, -18), S(-12, -24), S(-24, -34), S(-42, -48),
    ];

    /// Piece-square table for bishops: central squares and the two long diagonals.
    PSQT_BISHOP: [S; 64] = [
        // rank 8
        S(-14, -24), S(-12, -17), S(-8, -12), S(-5, -8), S(-5, -8), S(-8, -12), S(-12, -17), S(-14, -24),
        // rank 7
        S(-12, -17), S(2, -10), S(0, -5), S(3, -1), S(3, -1), S(0, -5), S(2, -10), S(-12, -17),
        // rank 6
        S(-6, -12), S(2, -5), S(12, 0), S(9, 4), S(9, 4), S(12, 0), S(2, -5), S(-6, -12),
        // rank 5
        S(-4, -8), S(4, -1), S(8, 4), S(17, 8), S(17, 8), S(8, 4), S(4, -1), S(-4, -8),
        // rank 4
        S(-4, -8), S(4, -1), S(8, 4), S(17, 8), S(17, 8), S(8, 4), S(4, -1), S(-4, -8),
        // rank 3
        S(-6, -12), S(2, -5), S(12, 0), S(9, 4), S(9, 4), S(12, 0), S(2, -5), S(-6, -12),
        // rank 2
        S(-6, -17), S(8, -10), S(6, -5), S(9, -1), S(9, -1), S(6, -5), S(8, -10), S(-6, -17),
        // rank 1
        S(-12, -24), S(-10, -17), S(-6, -12), S(-3, -8), S(-3, -8), S(-6, -12), S(-10, -17), S(-12, -24),
    ];

    /// Piece-square table for rooks: central files and the 7th rank.
    PSQT_ROOK: [S; 64] = [
        // rank 8
        S(4, 4), S(6, 6), S(10, 6), S(14, 6), S(14, 6), S(10, 6), S(6, 6), S(4, 4),
        // rank 7
        S(10, 6), S(12, 8), S(16, 8), S(20, 8), S(20, 8), S(16, 8), S(12, 8), S(10, 6),
        // rank 6
        S(-2, 2), S(0, 4), S(4, 4), S(8, 4), S(8, 4), S(4, 4), S(0, 4), S(-2, 2),
        // rank 5
        S(-6, 0), S(-4, 2), S(0, 2), S(4, 2), S(4, 2), S(0, 2), S(-4, 2), S(-6, 0),
        // rank 4
        S(-8, -2), S(-6, 0), S(-2, 0), S(2, 0), S(2, 0), S(-2, 0), S(-6, 0), S(-8, -2),
        // rank 3
        S(-10, -4), S(-8, -2), S(-4, -2), S(0, -2), S(0, -2), S(-4, -2), S(-8, -2), S(-10, -4),
        // rank 2
        S(-10, -6), S(-8, -4), S(-4, -4), S(0, -4), S(0, -4), S(-4, -4), S(-8, -4), S(-10, -6),
        // rank 1
        S(-4, -6), S(-2, -4), S(2, -4), S(6, -4), S(6, -4), S(2, -4), S(-2, -4), S(-4, -6),
    ];

    /// Piece-square table for queens: mild centralisation, more so in the endgame.
    PSQT_QUEEN: [S; 64] = [
        // rank 8
        S(-14, -28), S(-9, -18), S(-6, -8), S(-3, -2), S(-3, -2), S(-6, -8), S(-9, -18), S(-14, -28),
        // rank 7
        S(-8, -18), S(-3, -8), S(0, 2), S(3, 8), S(3, 8), S(0, 2), S(-3, -8), S(-8, -18),
        // rank 6
        S(-6, -12), S(-1, -2), S(2, 8), S(5, 14), S(5, 14), S(2, 8), S(-1, -2), S(-6, -12),
        // rank 5
        S(-6, -8), S(-1, 2), S(2, 12), S(5, 18), S(5, 18), S(2, 12), S(-1, 2), S(-6, -8),
        // rank 4
        S(-6, -10), S(-1, 0), S(2, 10), S(5, 16), S(5, 16), S(2, 10), S(-1, 0), S(-6, -10),
        // rank 3
        S(-6, -18), S(-1, -8), S(2, 2), S(5, 8), S(5, 8), S(2, 2), S(-1, -8), S(-6, -18),
        // rank 2
        S(-6, -28), S(-1, -18), S(2, -8), S(5, -2), S(5, -2), S(2, -8), S(-1, -18), S(-6, -28),
        // rank 1
        S(-12, -38), S(-7, -28), S(-4, -18), S(-1, -12), S(-1, -12), S(-4, -18), S(-7, -28), S(-12, -38),
    ];

    /// Piece-square table for kings: tucked away on the wing in the middlegame, central and active in the endgame.
    PSQT_KING: [S; 64] = [
        // rank 8
        S(-74, -48), S(-78, -28), S(-78, -16), S(-78, -8), S(-78, -8), S(-78, -16), S(-78, -28), S(-74, -48),
        // rank 7
        S(-68, -32), S(-72, -12), S(-72, 0), S(-72, 8), S(-72, 8), S(-72, 0), S(-72, -12), S(-68, -32),
        // rank 6
        S(-62, -20), S(-66, 0), S(-66, 12), S(-66, 20), S(-66, 20), S(-66, 12), S(-66, 0), S(-62, -20),
        // rank 5
        S(-56, -16), S(-60, 4), S(-60, 16), S(-60, 24), S(-60, 24), S(-60, 16), S(-60, 4), S(-56, -16),
        // rank 4
        S(-34, -20), S(-38, 0), S(-44, 12), S(-50, 20), S(-50, 20), S(-44, 12), S(-38, 0), S(-34, -20),
        // rank 3
        S(-18, -30), S(-22, -10), S(-28, 2), S(-36, 10), S(-36, 10), S(-30, 2), S(-22, -10), S(-18, -30),
        // rank 2
        S(10, -42), S(8, -22), S(-8, -10), S(-24, -2), S(-24, -2), S(-14, -10), S(6, -22), S(8, -42),
        // rank 1
        S(18, -62), S(26, -42), S(8, -30), S(-12, -22), S(-6, -22), S(-10, -30), S(28, -42), S(20, -62),
    ];

    // ---------------------------------------------------------------------------------------------
    // Mobility: indexed by the number of safe squares a piece attacks (squares not occupied by own
    // pieces and not attacked by enemy pawns).
    // ---------------------------------------------------------------------------------------------

    /// Knight mobility: a knight with few safe squares is a poor piece.
    MOBILITY_KNIGHT: [S; 9] = [
        S(-55, -65),
        S(-32, -42),
        S(-14, -24),
        S(-4, -10),
        S(5, 2),
        S(12, 9),
        S(18, 15),
        S(23, 19),
        S(27, 21),
    ];

    /// Bishop mobility: open diagonals make a bishop strong.
    MOBILITY_BISHOP: [S; 14] = [
        S(-42, -55),
        S(-24, -35),
        S(-10, -18),
        S(0, -6),
        S(7, 4),
        S(14, 12),
        S(20, 19),
        S(25, 25),
        S(29, 30),
        S(32, 34),
        S(35, 37),
        S(37, 39),
        S(39, 41),
        S(41, 43),
    ];

    /// Rook mobility: a rook wants open lines, mostly in the endgame.
    MOBILITY_ROOK: [S; 15] = [
        S(-45, -70),
        S(-24, -40),
        S(-12, -20),
        S(-6, -6),
        S(-2, 5),
        S(0, 13),
        S(3, 21),
        S(6, 28),
        S(9, 34),
        S(12, 40),
        S(14, 44),
        S(16, 48),
        S(18, 51),
        S(19, 53),
        S(20, 54),
    ];

    /// Queen mobility: small in the middlegame (the queen should not roam early), larger later.
    MOBILITY_QUEEN: [S; 28] = [
        S(-30, -50),
        S(-20, -35),
        S(-12, -25),
        S(-8, -15),
        S(-4, -8),
        S(-1, -2),
        S(2, 4),
        S(4, 9),
        S(6, 14),
        S(8, 18),
        S(10, 22),
        S(11, 25),
        S(12, 28),
        S(13, 30),
        S(14, 32),
        S(15, 34),
        S(16, 36),
        S(17, 38),
        S(18, 39),
        S(19, 40),
        S(20, 41),
        S(20, 42),
        S(21, 43),
        S(21, 43),
        S(22, 44),
        S(22, 44),
        S(23, 45),
        S(23, 45),
    ];

    // ---------------------------------------------------------------------------------------------
    // Pawn structure (cached in the pawn hash table)
    // ---------------------------------------------------------------------------------------------

    /// Doubled pawn: a pawn with another own pawn behind it on the same file.
    PAWN_DOUBLED: S = S(-10, -24);

    /// Isolated pawn: no own pawn on either adjacent file.
    PAWN_ISOLATED: S = S(-8, -12);

    /// Backward pawn: cannot be supported by an own pawn and its stop square is held by an enemy pawn.
    PAWN_BACKWARD: S = S(-9, -10);

    /// Supported pawn (defended by an own pawn), by relative rank.
    PAWN_SUPPORTED: [S; 8] = [
        S(0, 0),
        S(0, 0),
        S(6, 4),
        S(8, 7),
        S(12, 12),
        S(20, 26),
        S(34, 48),
        S(0, 0),
    ];

    /// Phalanx pawn (an own pawn beside it on the same rank), by relative rank.
    PAWN_PHALANX: [S; 8] = [
        S(0, 0),
        S(3, 1),
        S(5, 3),
        S(9, 6),
        S(15, 12),
        S(26, 26),
        S(45, 50),
        S(0, 0),
    ];

    // ---------------------------------------------------------------------------------------------
    // Passed pawns (evaluated every time: they depend on pieces and kings)
    // ---------------------------------------------------------------------------------------------

    /// Passed pawn base bonus, by relative rank.
    PASSED_RANK: [S; 8] = [
        S(0, 0),
        S(2, 10),
        S(4, 14),
        S(10, 24),
        S(24, 48),
        S(48, 92),
        S(88, 148),
        S(0, 0),
    ];

    /// Passed pawn whose path to promotion holds no piece, by relative rank.
    PASSED_FREE_PATH: [S; 8] = [
        S(0, 0),
        S(0, 0),
        S(0, 2),
        S(2, 5),
        S(5, 12),
        S(10, 25),
        S(15, 40),
        S(0, 0),
    ];

    /// Passed pawn whose path is free and not attacked by the enemy, by relative rank.
    PASSED_SAFE_PATH: [S; 8] = [
        S(0, 0),
        S(0, 0),
        S(1, 3),
        S(4, 8),
        S(8, 20),
        S(15, 40),
        S(25, 60),
        S(0, 0),
    ];

    /// Passed pawn defended by an own pawn.
    PASSED_SUPPORTED: S = S(8, 16);

    /// Per square of distance between the enemy king and the passer's stop square, by relative rank.
    PASSED_ENEMY_KING_DISTANCE: [S; 8] = [
        S(0, 0),
        S(0, 0),
        S(0, 0),
        S(0, 5),
        S(0, 10),
        S(0, 16),
        S(0, 22),
        S(0, 0),
    ];

    /// Per square of distance between the own king and the passer's stop square (a penalty), by
    /// relative rank.
    PASSED_OWN_KING_DISTANCE: [S; 8] = [
        S(0, 0),
        S(0, 0),
        S(0, 0),
        S(0, -2),
        S(0, -4),
        S(0, -7),
        S(0, -9),
        S(0, 0),
    ];

    /// A passer that the bare enemy king (no enemy pieces) can no longer catch (rule of the square).
    PASSED_UNSTOPPABLE: S = S(0, 550);

    // ---------------------------------------------------------------------------------------------
    // King safety
    // ---------------------------------------------------------------------------------------------

    /// Pawn shelter on each of the three files around the king, by relative rank of the own pawn
    /// nearest in front of the king (index 0: no such pawn).
    KING_SHELTER: [S; 8] = [
        S(-22, 0),
        S(22, 0),
        S(14, 0),
        S(3, 0),
        S(-4, 0),
        S(-8, 0),
        S(-8, 0),
        S(0, 0),
    ];

    /// Enemy pawn storming one of the three files around the king, by its rank relative to the
    /// king's side (index 0: no such pawn).
    KING_STORM: [S; 8] = [
        S(0, 0),
        S(-12, 0),
        S(-36, -4),
        S(-20, -2),
        S(-8, 0),
        S(-3, 0),
        S(0, 0),
        S(0, 0),
    ];

    /// Storming enemy pawn that is blocked by an own pawn directly in front of it.
    KING_STORM_BLOCKED: [S; 8] = [
        S(0, 0),
        S(0, 0),
        S(-8, -4),
        S(-5, 0),
        S(-2, 0),
        S(0, 0),
        S(0, 0),
        S(0, 0),
    ];

    /// A file next to (or at) the king with no own pawn.
    KING_SEMIOPEN_FILE: S = S(-12, 0);

    /// A file next to (or at) the king with no pawn at all (added to the half-open penalty).
    KING_OPEN_FILE: S = S(-8, 0);

    /// Per square of distance from the king to its nearest own pawn (endgame king activity).
    KING_PAWN_DISTANCE: S = S(0, -6);

    // ---------------------------------------------------------------------------------------------
    // Pieces
    // ---------------------------------------------------------------------------------------------

    /// Two bishops on opposite-coloured squares.
    BISHOP_PAIR: S = S(30, 55);

    /// Rook on a file with no pawns.
    ROOK_OPEN_FILE: S = S(32, 10);

    /// Rook on a file with enemy pawns but no own pawns.
    ROOK_SEMIOPEN_FILE: S = S(14, 7);

    /// Rook on the 7th rank while the enemy king is on the 8th or enemy pawns are on the 7th.
    ROOK_ON_SEVENTH: S = S(10, 24);

    /// Knight on an outpost: relative rank 4-6, defended by an own pawn, never attackable by an
    /// enemy pawn.
    KNIGHT_OUTPOST: S = S(26, 16);

    /// Bishop on an outpost (same definition as for knights).
    BISHOP_OUTPOST: S = S(12, 6);

    // ---------------------------------------------------------------------------------------------
    // Threats
    // ---------------------------------------------------------------------------------------------

    /// A pawn attacks an enemy piece, by the attacked piece's type.
    THREAT_BY_PAWN: [S; 6] = [S(0, 0), S(52, 30), S(52, 34), S(70, 40), S(78, 48), S(0, 0)];

    /// A knight or bishop attacks an enemy piece, by the attacked piece's type (rook and queen).
    THREAT_BY_MINOR: [S; 6] = [S(0, 0), S(0, 0), S(0, 0), S(40, 34), S(44, 40), S(0, 0)];

    /// A rook attacks an enemy piece, by the attacked piece's type (queen).
    THREAT_BY_ROOK: [S; 6] = [S(0, 0), S(0, 0), S(0, 0), S(0, 0), S(40, 30), S(0, 0)];

    /// An enemy piece or pawn attacked by us and defended by nothing, by its type.
    HANGING: [S; 6] = [S(4, 12), S(34, 24), S(34, 24), S(34, 26), S(38, 28), S(0, 0)];

    // ---------------------------------------------------------------------------------------------
    // Tempo
    // ---------------------------------------------------------------------------------------------

    /// Bonus for the side to move.
    TEMPO: S = S(18, 8);
}

// ---------------------------------------------------------------------------------------------
// Endgame drives: not tuned. They do not predict the result (the game is won either way) but
// show the search the way to the mate, so the result-fitting tuner must leave them alone.
// ---------------------------------------------------------------------------------------------

/// Mating a bare king: per unit of the losing king's (Manhattan) distance from the centre.
pub const MOPUP_EDGE: S = S(0, 10);

/// Mating a bare king: per unit of closeness (14 - Manhattan distance) between the kings.
pub const MOPUP_KING_CLOSENESS: S = S(0, 4);

/// KBNK: per unit of closeness (7 - Manhattan distance) of the losing king to the nearest corner
/// of the bishop's colour.
pub const KBNK_CORNER: S = S(0, 24);

// ---------------------------------------------------------------------------------------------
// The king-danger formula: its tunable sum (module `danger`) and the fixed parts that turn it
// into a penalty; the endgame scale factors (fixed).
// ---------------------------------------------------------------------------------------------

/// The tunable parameters of the king-danger sum (see `king_safety` in `eval/mod.rs`): the
/// tuner fits them through the quadratic penalty; the count percentages, divisors and cap
/// below stay fixed.
pub mod danger {
    tunable! {
        i32;

        /// King danger: weight of each piece type attacking the king zone (pawn and king unused).
        KING_ATTACKER_WEIGHT: [i32; 6] = [0, 30, 20, 40, 70, 0];

        /// King danger: per attack on a king-zone square.
        KING_ZONE_ATTACK: i32 = 8;

        /// King danger: per king-zone square attacked by the enemy and defended by no own pawn or piece.
        KING_WEAK_ZONE_SQUARE: i32 = 18;

        /// King danger: a safe check is available to the enemy with this piece type.
        KING_SAFE_CHECK: [i32; 6] = [0, 80, 50, 85, 70, 0];

        /// King danger: the attacker has no queen.
        KING_NO_ENEMY_QUEEN: i32 = -250;

        /// King danger: constant offset.
        KING_DANGER_OFFSET: i32 = -30;
    }
}

/// King danger: percentage of the summed attacker weights counted, by number of attackers.
pub const KING_ATTACKER_COUNT_PERCENT: [i32; 8] = [0, 0, 50, 75, 88, 95, 100, 100];

/// King danger to middlegame penalty: danger * danger / this.
pub const KING_DANGER_MG_DIVISOR: i32 = 700;

/// King danger to endgame penalty: danger / this.
pub const KING_DANGER_EG_DIVISOR: i32 = 10;

/// Upper bound of the king-danger middlegame penalty.
pub const KING_DANGER_MG_MAX: i32 = 1200;

/// Scale factor (out of 128) for the endgame half: normal positions.
pub const SCALE_NORMAL: i32 = 128;

/// Scale factor: opposite-coloured bishops and only pawns otherwise.
pub const SCALE_OPPOSITE_BISHOPS: i32 = 56;

/// Scale factor: the stronger side has no pawns and is less than a rook ahead in pieces.
pub const SCALE_NO_PAWNS_SMALL_EDGE: i32 = 16;
