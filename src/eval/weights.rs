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
    MATERIAL: [S; 6] = [S(71, 100), S(345, 329), S(344, 359), S(455, 592), S(1032, 1041), S(0, 0)];

    // ---------------------------------------------------------------------------------------------
    // Piece-square tables
    // ---------------------------------------------------------------------------------------------

    /// Piece-square table for pawns: central pawns advancing in the middlegame, any pawn advancing in the endgame.
    PSQT_PAWN: [S; 64] = [
        // rank 8
        S(0, 0), S(0, 0), S(0, 0), S(0, 0), S(0, 0), S(0, 0), S(0, 0), S(0, 0),
        // rank 7
        S(11, 37), S(12, 82), S(42, 51), S(73, 90), S(12, 37), S(40, 49), S(68, 40), S(25, 33),
        // rank 6
        S(33, 34), S(5, 30), S(-5, 11), S(31, 22), S(20, 38), S(2, 13), S(18, 17), S(22, 24),
        // rank 5
        S(-13, 35), S(-4, 0), S(11, 12), S(12, 9), S(21, 9), S(16, 15), S(6, 28), S(-18, 9),
        // rank 4
        S(-6, 14), S(-10, -9), S(9, -16), S(9, -12), S(10, 1), S(-16, 6), S(-1, 22), S(-15, 7),
        // rank 3
        S(-4, 22), S(-14, 9), S(7, -14), S(-8, 18), S(-5, -6), S(-11, 14), S(15, 10), S(-17, 22),
        // rank 2
        S(-6, 23), S(-7, 7), S(-1, -10), S(1, 11), S(-7, 23), S(1, 21), S(19, 7), S(-10, 11),
        // rank 1
        S(0, 0), S(0, 0), S(0, 0), S(0, 0), S(0, 0), S(0, 0), S(0, 0), S(0, 0),
    ];

    /// Piece-square table for knights: the centre and the enemy half, never the rim.
    PSQT_KNIGHT: [S; 64] = [
        // rank 8
        S(-72, -75), S(-26, -34), S(-14, -24), S(-8, -18), S(-8, -18), S(-14, -24), S(-26, -34), S(-44, -48),
        // rank 7
        S(-6, -74), S(-36, 9), S(6, -8), S(27, 23), S(-20, 15), S(26, 17), S(-4, -20), S(7, -17),
        // rank 6
        S(-1, 1), S(-8, 12), S(-10, 15), S(48, -23), S(30, -5), S(42, 17), S(-25, 20), S(17, -9),
        // rank 5
        S(-44, -19), S(3, -15), S(-13, 30), S(23, 30), S(21, 28), S(40, 26), S(26, 1), S(12, -10),
        // rank 4
        S(-17, -23), S(-4, 20), S(4, -5), S(20, 22), S(22, 17), S(6, 18), S(-7, -29), S(-1, 5),
        // rank 3
        S(-6, -58), S(-7, 15), S(-3, 23), S(-8, 33), S(25, 27), S(12, -19), S(6, 8), S(-4, 3),
        // rank 2
        S(-63, -3), S(11, -55), S(4, -34), S(-3, -20), S(14, -14), S(-1, 8), S(14, -47), S(-5, -8),
        // rank 1
        S(-42, -48), S(-19, -16), S(-17, -2), S(14, 6), S(-13, -1), S(-32, -47), S(-9, -17), S(-42, -48),
    ];

    /// Piece-square table for bishops: central squares and the two long diagonals.
    PSQT_BISHOP: [S; 64] = [
        // rank 8
        S(17, -28), S(-12, -17), S(-44, 20), S(-37, -12), S(-29, -36), S(-44, 20), S(-12, -17), S(-14, -24),
        // rank 7
        S(-37, 8), S(32, -21), S(24, 18), S(-31, 29), S(18, -26), S(30, 6), S(-32, 19), S(-16, 12),
        // rank 6
        S(19, -5), S(-24, 1), S(-14, -8), S(-1, 33), S(38, 27), S(2, 21), S(24, -30), S(24, -7),
        // rank 5
        S(2, -17), S(2, 13), S(-20, 28), S(34, 27), S(-7, 37), S(-7, 8), S(10, -8), S(23, -40),
        // rank 4
        S(-6, 2), S(13, 11), S(0, 11), S(30, 18), S(16, 1), S(-10, 12), S(20, 9), S(-17, -21),
        // rank 3
        S(-19, 18), S(26, -36), S(23, -3), S(3, 15), S(7, -12), S(26, -24), S(-1, -1), S(11, 10),
        // rank 2
        S(-32, -45), S(13, -4), S(-11, 21), S(22, -28), S(11, -18), S(28, -4), S(20, -17), S(23, 6),
        // rank 1
        S(-35, -47), S(-16, -31), S(-5, -30), S(-25, -22), S(-12, -33), S(-22, -24), S(16, -48), S(17, 5),
    ];

    /// Piece-square table for rooks: central files and the 7th rank.
    PSQT_ROOK: [S; 64] = [
        // rank 8
        S(33, 32), S(22, 28), S(-18, 20), S(-17, 26), S(31, 30), S(15, 28), S(37, -17), S(27, 20),
        // rank 7
        S(5, 31), S(-1, 36), S(32, -5), S(-5, -4), S(3, -6), S(46, 5), S(-16, 19), S(29, 15),
        // rank 6
        S(4, 28), S(1, 20), S(14, 0), S(30, -7), S(16, 23), S(31, -2), S(29, 21), S(-9, 19),
        // rank 5
        S(17, 15), S(-34, 30), S(-21, 18), S(-4, 26), S(-21, -14), S(28, 23), S(-33, 34), S(-15, 18),
        // rank 4
        S(-34, 21), S(-4, 24), S(13, 11), S(-17, 23), S(-27, 30), S(14, -10), S(-24, 2), S(8, 3),
        // rank 3
        S(-4, 4), S(-15, 12), S(19, -28), S(25, -10), S(-15, 13), S(-17, -5), S(-6, -21), S(-32, -9),
        // rank 2
        S(-10, -6), S(-34, 9), S(4, 8), S(31, -27), S(-11, 9), S(19, -20), S(-2, -29), S(-37, -17),
        // rank 1
        S(-5, -6), S(2, -21), S(1, -9), S(9, -17), S(10, -28), S(22, -18), S(-15, 4), S(-9, -13),
    ];

    /// Piece-square table for queens: mild centralisation, more so in the endgame.
    PSQT_QUEEN: [S; 64] = [
        // rank 8
        S(-30, 4), S(21, 13), S(-11, 11), S(-34, 27), S(-3, -2), S(-6, -8), S(-9, -18), S(10, -22),
        // rank 7
        S(17, 9), S(-11, 22), S(11, 27), S(27, -15), S(16, 34), S(25, 24), S(21, -1), S(-9, 15),
        // rank 6
        S(-7, 18), S(22, 26), S(-17, 39), S(-18, 11), S(34, 36), S(25, 27), S(-22, 32), S(20, 18),
        // rank 5
        S(-15, 22), S(-27, 43), S(15, 10), S(-10, 40), S(-8, 36), S(17, -28), S(-1, 19), S(-25, 25),
        // rank 4
        S(-23, 26), S(-5, 27), S(-25, 44), S(-21, 50), S(-8, 13), S(-20, 39), S(3, 19), S(9, -2),
        // rank 3
        S(-15, -43), S(-16, 22), S(14, -28), S(-5, -12), S(-14, 40), S(5, 9), S(-3, 11), S(23, 8),
        // rank 2
        S(-22, -55), S(-16, 15), S(4, -38), S(9, -33), S(-1, -23), S(5, -31), S(7, -50), S(-19, -44),
        // rank 1
        S(-37, -32), S(-4, -63), S(-8, -46), S(-8, -39), S(-11, -31), S(10, -47), S(-7, -58), S(-12, -38),
    ];

    /// Piece-square table for kings: tucked away on the wing in the middlegame, central and active in the endgame.
    PSQT_KING: [S; 64] = [
        // rank 8
        S(-74, -48), S(-78, -28), S(-78, -16), S(-78, -8), S(-78, -8), S(-78, -16), S(-78, -28), S(-74, -48),
        // rank 7
        S(-68, -32), S(-34, -30), S(-72, 0), S(-40, 14), S(-104, 9), S(-107, 14), S(-48, 6), S(-68, -32),
        // rank 6
        S(-62, -20), S(-51, 9), S(-74, 24), S(-63, -5), S(-90, -9), S(-86, -12), S(-89, 16), S(-31, -1),
        // rank 5
        S(-47, -13), S(-50, -16), S(-42, 15), S(-22, -1), S(-16, -2), S(-40, 6), S(-87, -19), S(-31, -4),
        // rank 4
        S(-28, -2), S(-44, -6), S(-67, -8), S(-53, 3), S(-18, 8), S(-34, 28), S(-15, 15), S(-8, -2),
        // rank 3
        S(-54, -15), S(9, -18), S(-11, 2), S(-46, 0), S(-55, 5), S(-11, -5), S(2, -6), S(2, -10),
        // rank 2
        S(30, -59), S(17, -27), S(17, -23), S(-29, -10), S(-43, -2), S(0, -20), S(6, -11), S(-16, -13),
        // rank 1
        S(33, -40), S(31, -51), S(31, -41), S(-36, -29), S(6, -42), S(-18, -14), S(12, -20), S(27, -39),
    ];

    // ---------------------------------------------------------------------------------------------
    // Mobility: indexed by the number of safe squares a piece attacks (squares not occupied by own
    // pieces and not attacked by enemy pawns).
    // ---------------------------------------------------------------------------------------------

    /// Knight mobility: a knight with few safe squares is a poor piece.
    MOBILITY_KNIGHT: [S; 9] = [
        S(-36, -49),
        S(-16, -24),
        S(-4, 0),
        S(6, 12),
        S(13, 22),
        S(16, 25),
        S(20, 26),
        S(18, 34),
        S(54, -2),
    ];

    /// Bishop mobility: open diagonals make a bishop strong.
    MOBILITY_BISHOP: [S; 14] = [
        S(-20, -84),
        S(-11, -28),
        S(-4, -26),
        S(4, -5),
        S(5, 6),
        S(7, 14),
        S(10, 26),
        S(3, 43),
        S(11, 34),
        S(7, 30),
        S(29, 24),
        S(13, 37),
        S(18, 15),
        S(10, 36),
    ];

    /// Rook mobility: a rook wants open lines, mostly in the endgame.
    MOBILITY_ROOK: [S; 15] = [
        S(-34, -47),
        S(-21, -21),
        S(-21, 11),
        S(-12, 1),
        S(-8, 16),
        S(-2, 24),
        S(2, 33),
        S(7, 37),
        S(-5, 57),
        S(0, 56),
        S(-1, 62),
        S(25, 57),
        S(-6, 75),
        S(33, 66),
        S(1, 59),
    ];

    /// Queen mobility: small in the middlegame (the queen should not roam early), larger later.
    MOBILITY_QUEEN: [S; 28] = [
        S(-17, -90),
        S(-7, -70),
        S(-6, -50),
        S(-7, -39),
        S(-8, -32),
        S(-2, -24),
        S(-3, 26),
        S(9, 10),
        S(16, -3),
        S(5, 52),
        S(11, 55),
        S(-2, 62),
        S(23, 49),
        S(12, 62),
        S(26, 52),
        S(23, 60),
        S(37, 62),
        S(31, 60),
        S(24, 66),
        S(32, 67),
        S(44, 62),
        S(56, 18),
        S(60, 27),
        S(65, 10),
        S(22, 44),
        S(22, 44),
        S(23, 45),
        S(23, 45),
    ];

    // ---------------------------------------------------------------------------------------------
    // Pawn structure (cached in the pawn hash table)
    // ---------------------------------------------------------------------------------------------

    /// Doubled pawn: a pawn with another own pawn behind it on the same file.
    PAWN_DOUBLED: S = S(4, -8);

    /// Isolated pawn: no own pawn on either adjacent file.
    PAWN_ISOLATED: S = S(-8, -12);

    /// Backward pawn: cannot be supported by an own pawn and its stop square is held by an enemy pawn.
    PAWN_BACKWARD: S = S(-8, -25);

    /// Supported pawn (defended by an own pawn), by relative rank.
    PAWN_SUPPORTED: [S; 8] = [
        S(0, 0),
        S(0, 0),
        S(7, 2),
        S(11, 10),
        S(16, 13),
        S(53, 22),
        S(17, 24),
        S(0, 0),
    ];

    /// Phalanx pawn (an own pawn beside it on the same rank), by relative rank.
    PAWN_PHALANX: [S; 8] = [
        S(0, 0),
        S(5, 1),
        S(9, 5),
        S(7, 15),
        S(22, 33),
        S(8, 62),
        S(45, 50),
        S(0, 0),
    ];

    // ---------------------------------------------------------------------------------------------
    // Passed pawns (evaluated every time: they depend on pieces and kings)
    // ---------------------------------------------------------------------------------------------

    /// Passed pawn base bonus, by relative rank.
    PASSED_RANK: [S; 8] = [
        S(0, 0),
        S(-4, 2),
        S(-5, 26),
        S(9, 32),
        S(30, 44),
        S(46, 78),
        S(76, 132),
        S(0, 0),
    ];

    /// Passed pawn whose path to promotion holds no piece, by relative rank.
    PASSED_FREE_PATH: [S; 8] = [
        S(0, 0),
        S(31, -21),
        S(-23, 13),
        S(-20, 18),
        S(11, 11),
        S(14, 16),
        S(32, 39),
        S(0, 0),
    ];

    /// Passed pawn whose path is free and not attacked by the enemy, by relative rank.
    PASSED_SAFE_PATH: [S; 8] = [
        S(0, 0),
        S(-2, 29),
        S(-21, 18),
        S(-34, 24),
        S(-17, 27),
        S(49, 33),
        S(54, 96),
        S(0, 0),
    ];

    /// Passed pawn defended by an own pawn.
    PASSED_SUPPORTED: S = S(10, 5);

    /// Per square of distance between the enemy king and the passer's stop square, by relative rank.
    PASSED_ENEMY_KING_DISTANCE: [S; 8] = [
        S(0, 0),
        S(0, 0),
        S(0, 0),
        S(-3, 17),
        S(7, 27),
        S(2, 35),
        S(3, 30),
        S(0, 0),
    ];

    /// Per square of distance between the own king and the passer's stop square (a penalty), by
    /// relative rank.
    PASSED_OWN_KING_DISTANCE: [S; 8] = [
        S(0, 0),
        S(0, 0),
        S(0, 0),
        S(2, -13),
        S(-6, -19),
        S(-5, -17),
        S(-11, -22),
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
        S(-12, 9),
        S(9, -14),
        S(5, -13),
        S(-10, -7),
        S(-7, -3),
        S(-8, -6),
        S(20, -4),
        S(0, 0),
    ];

    /// Enemy pawn storming one of the three files around the king, by its rank relative to the
    /// king's side (index 0: no such pawn).
    KING_STORM: [S; 8] = [
        S(0, 0),
        S(13, 28),
        S(-19, 17),
        S(-2, -3),
        S(-19, -6),
        S(4, 0),
        S(2, -20),
        S(0, 0),
    ];

    /// Storming enemy pawn that is blocked by an own pawn directly in front of it.
    KING_STORM_BLOCKED: [S; 8] = [
        S(0, 0),
        S(0, 0),
        S(-28, -30),
        S(19, -6),
        S(10, -17),
        S(15, -15),
        S(3, -1),
        S(0, 0),
    ];

    /// A file next to (or at) the king with no own pawn.
    KING_SEMIOPEN_FILE: S = S(-3, 1);

    /// A file next to (or at) the king with no pawn at all (added to the half-open penalty).
    KING_OPEN_FILE: S = S(-17, -17);

    /// Per square of distance from the king to its nearest own pawn (endgame king activity).
    KING_PAWN_DISTANCE: S = S(4, -16);

    // ---------------------------------------------------------------------------------------------
    // Pieces
    // ---------------------------------------------------------------------------------------------

    /// Two bishops on opposite-coloured squares.
    BISHOP_PAIR: S = S(38, 59);

    /// Rook on a file with no pawns.
    ROOK_OPEN_FILE: S = S(47, 2);

    /// Rook on a file with enemy pawns but no own pawns.
    ROOK_SEMIOPEN_FILE: S = S(30, 12);

    /// Rook on the 7th rank while the enemy king is on the 8th or enemy pawns are on the 7th.
    ROOK_ON_SEVENTH: S = S(-13, 28);

    /// Knight on an outpost: relative rank 4-6, defended by an own pawn, never attackable by an
    /// enemy pawn.
    KNIGHT_OUTPOST: S = S(41, 22);

    /// Bishop on an outpost (same definition as for knights).
    BISHOP_OUTPOST: S = S(24, 21);

    // ---------------------------------------------------------------------------------------------
    // Threats
    // ---------------------------------------------------------------------------------------------

    /// A pawn attacks an enemy piece, by the attacked piece's type.
    THREAT_BY_PAWN: [S; 6] = [S(18, -14), S(57, 13), S(62, 58), S(67, 48), S(54, 24), S(0, 0)];

    /// A knight or bishop attacks an enemy piece, by the attacked piece's type (rook and queen).
    THREAT_BY_MINOR: [S; 6] = [S(-3, 12), S(17, 26), S(25, 27), S(43, 36), S(34, 37), S(0, 0)];

    /// A rook attacks an enemy piece, by the attacked piece's type (queen).
    THREAT_BY_ROOK: [S; 6] = [S(-14, 8), S(21, 13), S(9, 20), S(0, 0), S(65, 2), S(0, 0)];

    /// An enemy piece or pawn attacked by us and defended by nothing, by its type.
    HANGING: [S; 6] = [S(16, 30), S(31, 20), S(17, 27), S(13, 11), S(14, 3), S(0, 0)];

    // ---------------------------------------------------------------------------------------------
    // Tempo
    // ---------------------------------------------------------------------------------------------

    /// Bonus for the side to move.
    TEMPO: S = S(18, 11);
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
        KING_ATTACKER_WEIGHT: [i32; 6] = [0, 43, 20, 49, 53, 0];

        /// King danger: per attack on a king-zone square.
        KING_ZONE_ATTACK: i32 = 16;

        /// King danger: per king-zone square attacked by the enemy and defended by no own pawn or piece.
        KING_WEAK_ZONE_SQUARE: i32 = 27;

        /// King danger: a safe check is available to the enemy with this piece type.
        KING_SAFE_CHECK: [i32; 6] = [0, 85, 71, 111, 92, 0];

        /// King danger: the attacker has no queen.
        KING_NO_ENEMY_QUEEN: i32 = -224;

        /// King danger: constant offset.
        KING_DANGER_OFFSET: i32 = -18;
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
