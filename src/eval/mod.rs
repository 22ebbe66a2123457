//! Static evaluation: a hand-crafted tapered evaluation.
//!
//! Owns everything that scores a position without searching: material, piece-square tables,
//! mobility, pawn structure (cached in a pawn hash table, see [`pawns`]), passed pawns, king
//! safety, piece placement, threats, tempo, special endgame knowledge and endgame scaling.
//! Every weight lives in [`weights`]. Each term is a middlegame/endgame pair ([`S`]); the sum is
//! blended by the game phase (non-pawn material), the endgame half is scaled by an
//! endgame-specific factor and the result is damped as the fifty-move counter grows.
//!
//! The same code computes [`Evaluator::evaluate`] (hot path, no tracing), [`trace`] (the
//! `eval` command) and [`coefficients`] (the tuner's view): it is generic over a [`Tracer`]
//! that ignores or records each term group's contribution and each use of a tunable weight,
//! so the three can never disagree.

/// Declares tunable weights of one element type (`S`, or `i32` for the king-danger formula):
/// one `pub const` per weight (an element or an array of them), plus `LAYOUT` (name and
/// length of each, in declaration order), `COUNT`, `idx::NAME` (the offset of each weight in
/// the flat parameter vector) and `values()` (that vector). The tuner rewrites the values in
/// place.
macro_rules! tunable {
    ($elem:ty; $( $(#[doc = $doc:literal])* $name:ident : $ty:ty = $value:expr ; )*) => {
        $( $(#[doc = $doc])* pub const $name: $ty = $value; )*

        /// Name and number of `S` entries of every tunable weight, in declaration order.
        pub const LAYOUT: &[(&str, usize)] =
            &[ $( (stringify!($name), <$ty as $crate::eval::Flat<$elem>>::LEN), )* ];

        /// Total number of `S` entries in the flat parameter vector.
        pub const COUNT: usize = {
            let mut n = 0;
            let mut i = 0;
            while i < LAYOUT.len() {
                n += LAYOUT[i].1;
                i += 1;
            }
            n
        };

        /// Offset of a weight in the flat parameter vector.
        const fn offset_of(name: &str) -> usize {
            let mut offset = 0;
            let mut i = 0;
            while i < LAYOUT.len() {
                if $crate::eval::const_str_eq(LAYOUT[i].0, name) {
                    return offset;
                }
                offset += LAYOUT[i].1;
                i += 1;
            }
            panic!("unknown weight")
        }

        /// Offsets of the weights in the flat parameter vector, by name.
        pub mod idx {
            $( #[doc = concat!("Offset of `", stringify!($name), "`.")]
               pub const $name: usize = super::offset_of(stringify!($name)); )*
        }

        /// The current weights as one flat vector, in `LAYOUT` order.
        pub fn values() -> Vec<$elem> {
            let mut v = Vec::with_capacity(COUNT);
            $( $crate::eval::Flat::<$elem>::flatten(&$name, &mut v); )*
            v
        }
    };
}

/// Looks up a tunable weight and tells the tracer that `color` used it (`n` times):
/// `w!(t, c, NAME)`, `w!(t, c, NAME[i])`, `w!(t, c, NAME, n)`, `w!(t, c, NAME[i], n)`.
macro_rules! w {
    ($t:expr, $c:expr, $name:ident [$i:expr], $n:expr) => {{
        let (i, n): (usize, i32) = ($i, $n);
        $t.count(weights::idx::$name + i, $c, n);
        $name[i] * n
    }};
    ($t:expr, $c:expr, $name:ident [$i:expr]) => {{
        let i: usize = $i;
        $t.count(weights::idx::$name + i, $c, 1);
        $name[i]
    }};
    ($t:expr, $c:expr, $name:ident, $n:expr) => {{
        let n: i32 = $n;
        $t.count(weights::idx::$name, $c, n);
        $name * n
    }};
    ($t:expr, $c:expr, $name:ident) => {{
        $t.count(weights::idx::$name, $c, 1);
        $name
    }};
}

mod pawns;
mod score;
pub mod weights;

use core::fmt::{self, Write as _};

use shakmaty::attacks::{
    bishop_attacks, king_attacks, knight_attacks, queen_attacks, rook_attacks,
};
use shakmaty::{Bitboard, Board, Chess, Color, Position, Role, Square};

use pawns::{FILE_A, PawnEntry, PawnTable, forward_span, push, relative_rank, squares};
pub use score::S;
use weights::danger::{
    self, KING_ATTACKER_WEIGHT, KING_DANGER_OFFSET, KING_NO_ENEMY_QUEEN, KING_SAFE_CHECK,
    KING_WEAK_ZONE_SQUARE, KING_ZONE_ATTACK,
};
use weights::*;

/// Largest magnitude the evaluation may return; everything above is reserved for mate scores.
pub const EVAL_LIMIT: i32 = 10_000;

/// Game phase of a position with all pieces on the board (N = B = 1, R = 2, Q = 4).
pub const PHASE_MAX: i32 = 24;

/// Denominator of the endgame scale factor.
pub const SCALE_MAX: i32 = 128;

/// Index of a colour in the `[_; 2]` arrays of this module (black 0, white 1).
#[inline]
pub(crate) const fn color_index(c: Color) -> usize {
    c as usize
}

/// Index into a piece-square table (written rank 8 first, from White's view) for a piece of
/// colour `c` on `sq`.
#[inline]
pub(crate) const fn psqt_index(c: Color, sq: Square) -> usize {
    match c {
        Color::White => sq as usize ^ 56,
        Color::Black => sq as usize,
    }
}

/// Piece-square tables by role index (pawn .. king).
const PSQT: [&[S; 64]; 6] = [
    &PSQT_PAWN,
    &PSQT_KNIGHT,
    &PSQT_BISHOP,
    &PSQT_ROOK,
    &PSQT_QUEEN,
    &PSQT_KING,
];

/// Offsets of the piece-square tables in the flat parameter vector, by role index.
const PSQT_IDX: [usize; 6] = [
    weights::idx::PSQT_PAWN,
    weights::idx::PSQT_KNIGHT,
    weights::idx::PSQT_BISHOP,
    weights::idx::PSQT_ROOK,
    weights::idx::PSQT_QUEEN,
    weights::idx::PSQT_KING,
];

/// A tunable weight: an element (`S` or `i32`) or an array of them, flattened for the tuner.
pub trait Flat<T> {
    /// Number of elements.
    const LEN: usize;
    /// Appends the elements to `out`.
    fn flatten(&self, out: &mut Vec<T>);
}

impl Flat<S> for S {
    const LEN: usize = 1;
    fn flatten(&self, out: &mut Vec<S>) {
        out.push(*self);
    }
}

impl Flat<i32> for i32 {
    const LEN: usize = 1;
    fn flatten(&self, out: &mut Vec<i32>) {
        out.push(*self);
    }
}

impl<T: Copy, const N: usize> Flat<T> for [T; N] {
    const LEN: usize = N;
    fn flatten(&self, out: &mut Vec<T>) {
        out.extend_from_slice(self);
    }
}

/// String equality usable in constants (for `weights::idx`).
pub const fn const_str_eq(a: &str, b: &str) -> bool {
    let (a, b) = (a.as_bytes(), b.as_bytes());
    if a.len() != b.len() {
        return false;
    }
    let mut i = 0;
    while i < a.len() {
        if a[i] != b[i] {
            return false;
        }
        i += 1;
    }
    true
}

/// Index of a role in the `[_; 6]` weight tables.
#[inline]
const fn ri(role: Role) -> usize {
    role as usize - 1
}

/// The term groups shown by the trace, in display order.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Term {
    Material,
    Psqt,
    Mobility,
    Pawns,
    Passed,
    KingSafety,
    Pieces,
    Threats,
    Tempo,
    Endgame,
}

const TERM_COUNT: usize = 10;

const TERM_NAMES: [&str; TERM_COUNT] = [
    "Material",
    "PSQT",
    "Mobility",
    "Pawns",
    "Passed",
    "King safety",
    "Pieces",
    "Threats",
    "Tempo",
    "Endgame",
];

/// The blend of the summed terms into the final score.
#[derive(Clone, Copy, Debug, Default)]
struct Summary {
    mg: i32,
    eg: i32,
    phase: i32,
    scale: i32,
    insufficient: bool,
    halfmoves: u32,
    white: i32,
    stm: i32,
}

/// Receives each term group's contribution and each use of a tunable weight; the fast path
/// uses [`NoTrace`].
trait Tracer {
    /// `color` earned `s` in term group `term`.
    fn add(&mut self, term: Term, color: Color, s: S);
    /// `color` used the tunable weight at flat offset `id`, `n` times.
    #[inline(always)]
    fn count(&mut self, _id: usize, _color: Color, _n: i32) {}
    /// `color` earned `s` from a term that is not linear in the tunable weights.
    #[inline(always)]
    fn nonlinear(&mut self, _color: Color, _s: S) {}
    /// `color` earned `s` from a term that does not depend on any tunable weight.
    #[inline(always)]
    fn fixed(&mut self, _color: Color, _s: S) {}
    /// The king-danger sum of `king`'s king contains king-danger weight `id` `f` times.
    #[inline(always)]
    fn danger(&mut self, _king: Color, _id: usize, _f: f32) {}
    fn finish(&mut self, summary: Summary);
}

/// The tracer of the hot path: does nothing and compiles away.
struct NoTrace;

impl Tracer for NoTrace {
    #[inline(always)]
    fn add(&mut self, _: Term, _: Color, _: S) {}
    #[inline(always)]
    fn finish(&mut self, _: Summary) {}
}

/// Records every term group per colour, for the `eval` command.
#[derive(Debug, Default)]
struct Trace {
    terms: [[S; 2]; TERM_COUNT],
    summary: Summary,
}

impl Tracer for Trace {
    fn add(&mut self, term: Term, color: Color, s: S) {
        self.terms[term as usize][color_index(color)] += s;
    }
    fn finish(&mut self, summary: Summary) {
        self.summary = summary;
    }
}

/// Owns the caches the evaluation uses (the pawn hash table). One per search thread.
pub struct Evaluator {
    pawn_table: PawnTable,
}

impl Default for Evaluator {
    fn default() -> Self {
        Evaluator::new()
    }
}

impl fmt::Debug for Evaluator {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Evaluator").finish_non_exhaustive()
    }
}

/// Attack information gathered in the first pass, by colour index.
struct Ctx {
    occupied: u64,
    pieces: [u64; 2],
    pawns: [u64; 2],
    ksq: [Square; 2],
    /// Squares around each king that the enemy's attacks are counted on.
    king_zone: [u64; 2],
    /// Attacks by role index (pawn .. king).
    attacked_by: [[u64; 6]; 2],
    /// Everything attacked, king included.
    attacked: [u64; 2],
    /// Squares attacked at least twice, king included.
    attacked2: [u64; 2],
    /// Number of pieces attacking the enemy king zone.
    king_attackers: [i32; 2],
    /// Those pieces by role index.
    king_attacker_roles: [[i32; 6]; 2],
    /// Number of attacks on enemy king-zone squares.
    king_zone_attacks: [i32; 2],
}

impl Evaluator {
    pub fn new() -> Evaluator {
        Evaluator {
            pawn_table: PawnTable::new(),
        }
    }

    /// Empties the pawn hash table. Never needed for correctness (entries are verified in
    /// full), only to make runs reproducible from a clean state.
    pub fn clear(&mut self) {
        self.pawn_table.clear();
    }

    /// Static evaluation in centipawns from the side to move's point of view.
    #[inline]
    pub fn evaluate(&mut self, pos: &Chess) -> i32 {
        let entry = self.pawn_entry(pos.board());
        evaluate_with(pos, &entry, &mut NoTrace)
    }

    #[inline]
    fn pawn_entry(&mut self, b: &Board) -> PawnEntry {
        let white_pawns = (b.pawns() & b.white()).0;
        let black_pawns = (b.pawns() & b.black()).0;
        self.pawn_table.probe(
            white_pawns,
            black_pawns,
            [king_square(b, Color::Black), king_square(b, Color::White)],
        )
    }
}

#[inline]
fn king_square(b: &Board, c: Color) -> Square {
    b.king_of(c).unwrap_or(match c {
        Color::White => Square::E1,
        Color::Black => Square::E8,
    })
}

/// Adds `s`, earned by `color`, to the white-relative `total` and to the tracer.
#[inline(always)]
fn put<T: Tracer>(t: &mut T, total: &mut S, term: Term, color: Color, s: S) {
    t.add(term, color, s);
    match color {
        Color::White => *total += s,
        Color::Black => *total -= s,
    }
}

/// Sum of the Manhattan distances of `sq`'s file and rank from the four centre squares (0..6).
#[inline]
fn centre_distance(sq: Square) -> i32 {
    let f = sq.file() as i32;
    let r = sq.rank() as i32;
    let fd = if f < 4 { 3 - f } else { f - 4 };
    let rd = if r < 4 { 3 - r } else { r - 4 };
    fd + rd
}

#[inline]
fn manhattan(a: Square, b: Square) -> i32 {
    (a.file() as i32 - b.file() as i32).abs() + (a.rank() as i32 - b.rank() as i32).abs()
}

/// Non-pawn material in simple points (N = B = 3, R = 5, Q = 9).
#[inline]
fn piece_points(b: &Board, c: Color) -> i32 {
    let mine = b.by_color(c);
    3 * (b.knights() & mine).count() as i32
        + 3 * (b.bishops() & mine).count() as i32
        + 5 * (b.rooks() & mine).count() as i32
        + 9 * (b.queens() & mine).count() as i32
}

/// Neither side can possibly mate: no pawns, no rooks or queens, and at most one minor piece
/// each, or two knights against a bare king.
fn insufficient_material(b: &Board) -> bool {
    if (b.pawns() | b.rooks() | b.queens()).any() {
        return false;
    }
    let minors = b.knights() | b.bishops();
    let w = (minors & b.white()).count();
    let bl = (minors & b.black()).count();
    if w <= 1 && bl <= 1 {
        return true;
    }
    let knights_only = |c: Color| {
        (b.knights() & b.by_color(c)).count() == 2 && (b.bishops() & b.by_color(c)).is_empty()
    };
    (w == 2 && bl == 0 && knights_only(Color::White))
        || (bl == 2 && w == 0 && knights_only(Color::Black))
}

/// Endgame scale factor (out of [`SCALE_MAX`]) for the side `strong` that the endgame half
/// favours.
fn scale_factor(b: &Board, strong: Color) -> i32 {
    let weak = !strong;
    let strong_points = piece_points(b, strong);
    let weak_points = piece_points(b, weak);
    let strong_pawns = (b.pawns() & b.by_color(strong)).count();
    if strong_pawns == 0 && strong_points - weak_points <= 3 {
        // Without pawns, an edge of at most a minor piece rarely wins.
        return SCALE_NO_PAWNS_SMALL_EDGE;
    }
    // Opposite-coloured bishops with nothing but pawns besides.
    if strong_points == 3
        && weak_points == 3
        && b.bishops().count() == 2
        && (b.knights() | b.rooks() | b.queens()).is_empty()
    {
        let wb = b.bishops() & b.white();
        let bb = b.bishops() & b.black();
        let light = Bitboard::LIGHT_SQUARES;
        if wb.any() && bb.any() && (wb & light).any() != (bb & light).any() {
            return SCALE_OPPOSITE_BISHOPS;
        }
    }
    SCALE_NORMAL
}

/// The evaluation proper, from the side to move's point of view.
#[inline(always)]
fn evaluate_with<T: Tracer>(pos: &Chess, entry: &PawnEntry, t: &mut T) -> i32 {
    let b = pos.board();
    let stm = pos.turn();
    let occupied = b.occupied().0;
    let ksq = [king_square(b, Color::Black), king_square(b, Color::White)];
    let pawns = [(b.pawns() & b.black()).0, (b.pawns() & b.white()).0];
    let pieces = [b.black().0, b.white().0];

    let mut ctx = Ctx {
        occupied,
        pieces,
        pawns,
        ksq,
        king_zone: [0; 2],
        attacked_by: [[0; 6]; 2],
        attacked: [0; 2],
        attacked2: [0; 2],
        king_attackers: [0; 2],
        king_attacker_roles: [[0; 6]; 2],
        king_zone_attacks: [0; 2],
    };
    for c in [Color::White, Color::Black] {
        let ci = color_index(c);
        let ring = king_attacks(ksq[ci]).0 | (1u64 << ksq[ci] as u32);
        ctx.king_zone[ci] = ring | push(c, ring);
        let pawn_att = pawns::pawn_attacks_bb(c, pawns[ci]);
        let king_att = king_attacks(ksq[ci]).0;
        ctx.attacked_by[ci][ri(Role::Pawn)] = pawn_att;
        ctx.attacked_by[ci][ri(Role::King)] = king_att;
        ctx.attacked[ci] = pawn_att | king_att;
        ctx.attacked2[ci] = pawn_att & king_att;
    }

    let mut total = S::ZERO;

    // First pass: material, piece-square tables, mobility and piece placement; gathers attacks.
    for c in [Color::White, Color::Black] {
        let them = !c;
        let ci = color_index(c);
        let ti = color_index(them);
        let mine = pieces[ci];
        let mobility_area = !mine & !ctx.attacked_by[ti][ri(Role::Pawn)];
        let enemy_zone = ctx.king_zone[ti];

        let mut material = S::ZERO;
        let mut psqt = entry.psqt[ci] + w!(t, c, PSQT_KING[psqt_index(c, ksq[ci])]);
        let mut mobility = S::ZERO;
        let mut placement = S::ZERO;

        material += w!(
            t,
            c,
            MATERIAL[ri(Role::Pawn)],
            pawns[ci].count_ones() as i32
        );

        for role in [Role::Knight, Role::Bishop, Role::Rook, Role::Queen] {
            let set = b.by_role(role).0 & mine;
            if set == 0 {
                continue;
            }
            material += w!(t, c, MATERIAL[ri(role)], set.count_ones() as i32);
            let mut role_attacks = 0u64;
            for sq in squares(set) {
                let square = psqt_index(c, sq);
                t.count(PSQT_IDX[ri(role)] + square, c, 1);
                psqt += PSQT[ri(role)][square];
                let att = match role {
                    Role::Knight => knight_attacks(sq),
                    Role::Bishop => bishop_attacks(sq, Bitboard(occupied)),
                    Role::Rook => rook_attacks(sq, Bitboard(occupied)),
                    _ => queen_attacks(sq, Bitboard(occupied)),
                }
                .0;
                ctx.attacked2[ci] |= ctx.attacked[ci] & att;
                ctx.attacked[ci] |= att;
                role_attacks |= att;

                // Mobility: safe squares reachable.
                let n = (att & mobility_area).count_ones() as usize;
                mobility += match role {
                    Role::Knight => w!(t, c, MOBILITY_KNIGHT[n]),
                    Role::Bishop => w!(t, c, MOBILITY_BISHOP[n]),
                    Role::Rook => w!(t, c, MOBILITY_ROOK[n]),
                    _ => w!(t, c, MOBILITY_QUEEN[n]),
                };

                // King attack: pieces hitting the enemy king zone.
                let zone_hits = att & enemy_zone;
                if zone_hits != 0 {
                    ctx.king_attackers[ci] += 1;
                    ctx.king_attacker_roles[ci][ri(role)] += 1;
                    ctx.king_zone_attacks[ci] += zone_hits.count_ones() as i32;
                }

                let bit = 1u64 << sq as u32;
                match role {
                    // Outposts: safe from enemy pawns and defended by an own pawn.
                    Role::Knight if entry.outposts[ci] & bit != 0 => {
                        placement += w!(t, c, KNIGHT_OUTPOST);
                    }
                    Role::Bishop if entry.outposts[ci] & bit != 0 => {
                        placement += w!(t, c, BISHOP_OUTPOST);
                    }
                    Role::Rook => {
                        // Rooks on open and half-open files, and on the 7th rank.
                        let file = FILE_A << (sq as u32 & 7);
                        if pawns[ci] & file == 0 {
                            placement += if pawns[ti] & file == 0 {
                                w!(t, c, ROOK_OPEN_FILE)
                            } else {
                                w!(t, c, ROOK_SEMIOPEN_FILE)
                            };
                        }
                        if relative_rank(c, sq) == 6 {
                            let seventh = c.fold_wb(0x00FF_0000_0000_0000, 0xFF00);
                            if relative_rank(c, ksq[ti]) == 7 || pawns[ti] & seventh != 0 {
                                placement += w!(t, c, ROOK_ON_SEVENTH);
                            }
                        }
                    }
                    _ => {}
                }
            }
            ctx.attacked_by[ci][ri(role)] = role_attacks;
        }

        // Bishop pair: bishops on both square colours.
        let bishops = b.bishops().0 & mine;
        if bishops & Bitboard::LIGHT_SQUARES.0 != 0 && bishops & Bitboard::DARK_SQUARES.0 != 0 {
            placement += w!(t, c, BISHOP_PAIR);
        }

        put(t, &mut total, Term::Material, c, material);
        put(t, &mut total, Term::Psqt, c, psqt);
        put(t, &mut total, Term::Mobility, c, mobility);
        put(t, &mut total, Term::Pawns, c, entry.structure[ci]);
        put(t, &mut total, Term::Pieces, c, placement);
    }

    // Second pass: terms that need both sides' attacks.
    for c in [Color::White, Color::Black] {
        let king = king_safety(b, &ctx, entry, c, t);
        put(t, &mut total, Term::KingSafety, c, king);
        let threat = threats(b, &ctx, c, t);
        put(t, &mut total, Term::Threats, c, threat);
        let passed = passed_pawns(&ctx, entry, c, stm, t);
        put(t, &mut total, Term::Passed, c, passed);
    }

    // Tempo: the side to move gets the initiative.
    let tempo = w!(t, stm, TEMPO);
    put(t, &mut total, Term::Tempo, stm, tempo);

    // Special endgames: driving a bare king to the edge (and to the right corner for KBNK).
    for c in [Color::White, Color::Black] {
        let them = !c;
        if pieces[color_index(them)] == 1u64 << ksq[color_index(them)] as u32 {
            let s = mop_up(b, c, ksq[color_index(c)], ksq[color_index(them)], t);
            if s != S::ZERO {
                put(t, &mut total, Term::Endgame, c, s);
            }
        }
    }

    // Phase, scaling and the fifty-move damping.
    let phase = ((b.knights() | b.bishops()).count() as i32
        + 2 * b.rooks().count() as i32
        + 4 * b.queens().count() as i32)
        .min(PHASE_MAX);
    let insufficient = insufficient_material(b);
    let strong = if total.eg() > 0 {
        Color::White
    } else {
        Color::Black
    };
    let scale = if insufficient {
        0
    } else {
        scale_factor(b, strong)
    };
    let eg = total.eg() * scale / SCALE_MAX;
    let mut white = (total.mg() * phase + eg * (PHASE_MAX - phase)) / PHASE_MAX;
    // Fifty-move damping: once nothing irreversible has happened for 20 plies, the score
    // shrinks towards the draw the rule will declare. (Only from 20 plies on, so that the
    // transposition table, whose keys ignore the counter, rarely mixes damped and undamped
    // values of the same position.)
    let halfmoves = pos.halfmoves();
    white = white * fifty_move_damping(halfmoves) / 160;
    if insufficient {
        white = 0;
    }
    white = white.clamp(-(EVAL_LIMIT - 1), EVAL_LIMIT - 1);
    let result = match stm {
        Color::White => white,
        Color::Black => -white,
    };
    t.finish(Summary {
        mg: total.mg(),
        eg: total.eg(),
        phase,
        scale,
        insufficient,
        halfmoves,
        white,
        stm: result,
    });
    result
}

/// The fifty-move damping factor, out of 160: 160 up to 20 plies without a capture or pawn
/// move, then falling linearly to 80 at 100 plies.
#[inline]
pub fn fifty_move_damping(halfmoves: u32) -> i32 {
    160 - halfmoves.saturating_sub(20).min(80) as i32
}

/// King safety of `c`'s king: cached shelter terms plus the nonlinear king-danger penalty.
#[inline(always)]
fn king_safety<T: Tracer>(b: &Board, ctx: &Ctx, entry: &PawnEntry, c: Color, t: &mut T) -> S {
    let ci = color_index(c);
    let ti = color_index(!c);
    let mut s = entry.shelter[ci];
    let attackers = ctx.king_attackers[ti];
    if attackers == 0 {
        return s;
    }
    let zone = ctx.king_zone[ci];
    let ksq = ctx.ksq[ci];
    let by = &ctx.attacked_by[ti];
    let defended_by_non_king =
        ctx.attacked[ci] & !(ctx.attacked_by[ci][ri(Role::King)] & !ctx.attacked2[ci]);

    // The attackers' weights count in part when few pieces take part in the attack.
    let percent = KING_ATTACKER_COUNT_PERCENT[attackers.min(7) as usize];
    let mut weights = 0;
    for (r, &weight) in KING_ATTACKER_WEIGHT
        .iter()
        .enumerate()
        .take(ri(Role::Queen) + 1)
        .skip(ri(Role::Knight))
    {
        let n = ctx.king_attacker_roles[ti][r];
        weights += n * weight;
        t.danger(
            c,
            danger::idx::KING_ATTACKER_WEIGHT + r,
            (n * percent) as f32 / 100.0,
        );
    }
    let zone_attacks = ctx.king_zone_attacks[ti];
    let weak = (zone & ctx.attacked[ti] & !defended_by_non_king).count_ones() as i32;
    t.danger(c, danger::idx::KING_ZONE_ATTACK, zone_attacks as f32);
    t.danger(c, danger::idx::KING_WEAK_ZONE_SQUARE, weak as f32);
    t.danger(c, danger::idx::KING_DANGER_OFFSET, 1.0);
    let mut danger = weights * percent / 100
        + KING_ZONE_ATTACK * zone_attacks
        + KING_WEAK_ZONE_SQUARE * weak
        + KING_DANGER_OFFSET;

    // Safe checks: checking squares not occupied by the attacker and either undefended or
    // defended only by our king while attacked twice.
    let safe = !ctx.pieces[ti] & (!ctx.attacked[ci] | (ctx.attacked2[ti] & !defended_by_non_king));
    let occ = Bitboard(ctx.occupied);
    let bishop_lines = bishop_attacks(ksq, occ).0;
    let rook_lines = rook_attacks(ksq, occ).0;
    if knight_attacks(ksq).0 & safe & by[ri(Role::Knight)] != 0 {
        danger += KING_SAFE_CHECK[ri(Role::Knight)];
        t.danger(c, danger::idx::KING_SAFE_CHECK + ri(Role::Knight), 1.0);
    }
    if bishop_lines & safe & by[ri(Role::Bishop)] != 0 {
        danger += KING_SAFE_CHECK[ri(Role::Bishop)];
        t.danger(c, danger::idx::KING_SAFE_CHECK + ri(Role::Bishop), 1.0);
    }
    if rook_lines & safe & by[ri(Role::Rook)] != 0 {
        danger += KING_SAFE_CHECK[ri(Role::Rook)];
        t.danger(c, danger::idx::KING_SAFE_CHECK + ri(Role::Rook), 1.0);
    }
    if (bishop_lines | rook_lines) & safe & by[ri(Role::Queen)] != 0 {
        danger += KING_SAFE_CHECK[ri(Role::Queen)];
        t.danger(c, danger::idx::KING_SAFE_CHECK + ri(Role::Queen), 1.0);
    }
    if b.queens().0 & ctx.pieces[ti] == 0 {
        danger += KING_NO_ENEMY_QUEEN;
        t.danger(c, danger::idx::KING_NO_ENEMY_QUEEN, 1.0);
    }
    if danger > 0 {
        let penalty = S(
            (danger * danger / KING_DANGER_MG_DIVISOR).min(KING_DANGER_MG_MAX),
            danger / KING_DANGER_EG_DIVISOR,
        );
        t.nonlinear(c, -penalty);
        s -= penalty;
    }
    s
}

/// Threats by `c`: pawns attacking pieces, minors attacking rooks and queens, rooks attacking
/// queens, and undefended enemy men under attack.
#[inline(always)]
fn threats<T: Tracer>(b: &Board, ctx: &Ctx, c: Color, t: &mut T) -> S {
    let ci = color_index(c);
    let ti = color_index(!c);
    let by = &ctx.attacked_by[ci];
    let theirs = ctx.pieces[ti];
    let minor_attacks = by[ri(Role::Knight)] | by[ri(Role::Bishop)];
    let undefended_attacked = ctx.attacked[ci] & !ctx.attacked[ti];
    let mut s = S::ZERO;
    for role in [
        Role::Pawn,
        Role::Knight,
        Role::Bishop,
        Role::Rook,
        Role::Queen,
    ] {
        let victims = b.by_role(role).0 & theirs;
        if victims == 0 {
            continue;
        }
        let r = ri(role);
        let count = |set: u64| (victims & set).count_ones() as i32;
        s += w!(t, c, THREAT_BY_PAWN[r], count(by[ri(Role::Pawn)]));
        s += w!(t, c, THREAT_BY_MINOR[r], count(minor_attacks));
        s += w!(t, c, THREAT_BY_ROOK[r], count(by[ri(Role::Rook)]));
        s += w!(t, c, HANGING[r], count(undefended_attacked));
    }
    s
}

/// Passed pawns of `c`: rank, free and safe path, support, king proximity to the stop square
/// and the rule of the square against a king without pieces.
#[inline(always)]
fn passed_pawns<T: Tracer>(ctx: &Ctx, entry: &PawnEntry, c: Color, stm: Color, t: &mut T) -> S {
    let ci = color_index(c);
    let them = !c;
    let ti = color_index(them);
    let passers = entry.passed & ctx.pawns[ci];
    if passers == 0 {
        return S::ZERO;
    }
    let their_pieces_bare = ctx.pieces[ti] & !ctx.pawns[ti] & !(1u64 << ctx.ksq[ti] as u32) == 0;
    let mut s = S::ZERO;
    for sq in squares(passers) {
        let r = relative_rank(c, sq);
        let bit = 1u64 << sq as u32;
        s += w!(t, c, PASSED_RANK[r]);
        if r >= 3 {
            let stop = Square::new(push(c, bit).trailing_zeros());
            let enemy = ctx.ksq[ti].distance(stop).min(5) as i32;
            let own = ctx.ksq[ci].distance(stop).min(5) as i32;
            s += w!(t, c, PASSED_ENEMY_KING_DISTANCE[r], enemy);
            s += w!(t, c, PASSED_OWN_KING_DISTANCE[r], own);
        }
        if ctx.attacked_by[ci][ri(Role::Pawn)] & bit != 0 {
            s += w!(t, c, PASSED_SUPPORTED);
        }
        let path = forward_span(c, bit);
        if path & ctx.occupied == 0 {
            s += w!(t, c, PASSED_FREE_PATH[r]);
            if path & ctx.attacked[ti] == 0 {
                s += w!(t, c, PASSED_SAFE_PATH[r]);
            }
            if their_pieces_bare {
                let promotion = Square::from_coords(
                    sq.file(),
                    c.fold_wb(shakmaty::Rank::Eighth, shakmaty::Rank::First),
                );
                let pawn_moves = 7 - r as i32 - i32::from(r == 1);
                let king_moves = ctx.ksq[ti].distance(promotion) as i32 - i32::from(stm == them);
                if king_moves > pawn_moves {
                    s += w!(t, c, PASSED_UNSTOPPABLE);
                }
            }
        }
    }
    s
}

/// Mating help for `c` against a bare enemy king: push it to the edge and bring the kings
/// together; with king, bishop and knight drive it to a corner of the bishop's colour.
fn mop_up<T: Tracer>(b: &Board, c: Color, own_king: Square, enemy_king: Square, t: &mut T) -> S {
    let mine = b.by_color(c);
    let points = piece_points(b, c);
    let own_pawns = (b.pawns() & mine).count();
    let knights = (b.knights() & mine).count();
    let bishops = b.bishops() & mine;
    let kbnk = own_pawns == 0 && points == 6 && knights == 1 && bishops.count() == 1;
    // Mating material without pawns: a rook or queen, two bishops, or bishop and knight.
    if own_pawns != 0 || (points < 5 && !kbnk && !(bishops.count() == 2 && points == 6)) {
        return S::ZERO;
    }
    // Fixed weights (see weights.rs): the tuner sees this term as a constant.
    let mut s = MOPUP_EDGE * centre_distance(enemy_king)
        + MOPUP_KING_CLOSENESS * (14 - manhattan(own_king, enemy_king));
    if kbnk {
        let corners = if (bishops & Bitboard::DARK_SQUARES).any() {
            [Square::A1, Square::H8]
        } else {
            [Square::H1, Square::A8]
        };
        let d = manhattan(enemy_king, corners[0]).min(manhattan(enemy_king, corners[1]));
        s += KBNK_CORNER * (7 - d).max(0);
    }
    t.fixed(c, s);
    s
}

/// Evaluates without the pawn hash table, through tracer `t`.
fn evaluate_traced<T: Tracer>(pos: &Chess, t: &mut T) -> i32 {
    let b = pos.board();
    let entry = pawns::compute(
        (b.pawns() & b.white()).0,
        (b.pawns() & b.black()).0,
        [king_square(b, Color::Black), king_square(b, Color::White)],
        t,
    );
    evaluate_with(pos, &entry, t)
}

/// What the tuner needs to know about one position's evaluation: how often each side used
/// each tunable weight, the part of the score that is not linear in the weights, and how
/// the middlegame and endgame halves were blended.
#[derive(Clone, Debug)]
pub struct Coefficients {
    /// (flat offset into `weights::values()`, uses by White minus uses by Black), nonzero only.
    pub counts: Vec<(u16, i16)>,
    /// White-relative sum of the nonlinear terms (the king-danger penalties).
    pub nonlinear: S,
    /// White-relative sum of the terms with fixed weights (the endgame drives).
    pub fixed: S,
    /// The king-danger sum of each king (by colour index: black, white) as (flat offset into
    /// `weights::danger::values()`, multiplicity); empty when no enemy piece attacks the king
    /// zone (then no penalty applies).
    pub danger: [Vec<(u16, f32)>; 2],
    /// White-relative sum of all terms before blending.
    pub total: S,
    /// Middlegame weight, out of [`PHASE_MAX`].
    pub phase: i32,
    /// Endgame scale factor, out of [`SCALE_MAX`].
    pub scale: i32,
    /// Fifty-move damping factor, out of 160.
    pub damping: i32,
    /// Neither side can mate: the evaluation is 0 whatever the weights.
    pub insufficient: bool,
    /// The evaluation from White's point of view.
    pub white: i32,
}

/// Collects weight uses for [`coefficients`].
struct CoefficientTrace {
    counts: Vec<i32>,
    nonlinear: S,
    fixed: S,
    danger: [Vec<(u16, f32)>; 2],
    summary: Summary,
}

impl Tracer for CoefficientTrace {
    fn add(&mut self, _: Term, _: Color, _: S) {}
    fn count(&mut self, id: usize, color: Color, n: i32) {
        self.counts[id] += color.fold_wb(n, -n);
    }
    fn nonlinear(&mut self, color: Color, s: S) {
        self.nonlinear += color.fold_wb(s, -s);
    }
    fn fixed(&mut self, color: Color, s: S) {
        self.fixed += color.fold_wb(s, -s);
    }
    fn danger(&mut self, king: Color, id: usize, f: f32) {
        if f != 0.0 {
            self.danger[color_index(king)].push((id as u16, f));
        }
    }
    fn finish(&mut self, summary: Summary) {
        self.summary = summary;
    }
}

/// The evaluation of `pos` broken down for the tuner (see [`Coefficients`]).
pub fn coefficients(pos: &Chess) -> Coefficients {
    let mut t = CoefficientTrace {
        counts: vec![0; weights::COUNT],
        nonlinear: S::ZERO,
        fixed: S::ZERO,
        danger: [Vec::new(), Vec::new()],
        summary: Summary::default(),
    };
    evaluate_traced(pos, &mut t);
    let sm = t.summary;
    Coefficients {
        counts: t
            .counts
            .iter()
            .enumerate()
            .filter(|&(_, &n)| n != 0)
            .map(|(i, &n)| (i as u16, n as i16))
            .collect(),
        nonlinear: t.nonlinear,
        fixed: t.fixed,
        danger: t.danger,
        total: S(sm.mg, sm.eg),
        phase: sm.phase,
        scale: sm.scale,
        damping: fifty_move_damping(sm.halfmoves),
        insufficient: sm.insufficient,
        white: sm.white,
    }
}

/// A human-readable evaluation trace (the `eval` command).
pub fn trace(pos: &Chess) -> String {
    let mut t = Trace::default();
    let result = evaluate_traced(pos, &mut t);
    let sm = t.summary;
    let mut out = String::new();
    let line = "------------+---------------+---------------+---------------";
    let _ = writeln!(
        out,
        "    Term    |     White     |     Black     |     Total"
    );
    let _ = writeln!(
        out,
        "            |    MG     EG  |    MG     EG  |    MG     EG"
    );
    let _ = writeln!(out, "{line}");
    let mut sum = [S::ZERO; 2];
    for (i, name) in TERM_NAMES.iter().enumerate() {
        let [black, white] = t.terms[i];
        sum[0] += black;
        sum[1] += white;
        let total = white - black;
        let _ = writeln!(
            out,
            "{name:>11} | {:>6} {:>6} | {:>6} {:>6} | {:>6} {:>6}",
            white.mg(),
            white.eg(),
            black.mg(),
            black.eg(),
            total.mg(),
            total.eg()
        );
    }
    let _ = writeln!(out, "{line}");
    let total = sum[1] - sum[0];
    let _ = writeln!(
        out,
        "{:>11} | {:>6} {:>6} | {:>6} {:>6} | {:>6} {:>6}",
        "Total",
        sum[1].mg(),
        sum[1].eg(),
        sum[0].mg(),
        sum[0].eg(),
        total.mg(),
        total.eg()
    );
    let _ = writeln!(out);
    let _ = writeln!(out, "Phase: {} / {PHASE_MAX} (middlegame weight)", sm.phase);
    let _ = writeln!(
        out,
        "Scale factor: {} / {SCALE_MAX} (endgame half){}",
        sm.scale,
        if sm.insufficient {
            ", insufficient material: draw"
        } else {
            ""
        }
    );
    let _ = writeln!(
        out,
        "Fifty-move damping: halfmove clock {} -> x({} / 160)",
        sm.halfmoves,
        fifty_move_damping(sm.halfmoves)
    );
    let _ = writeln!(out, "Evaluation (White's view): {:+} cp", sm.white);
    let _ = writeln!(
        out,
        "Evaluation (side to move, {}): {:+} cp",
        pos.turn().fold_wb("white", "black"),
        sm.stm
    );
    debug_assert_eq!(sm.stm, result);
    debug_assert_eq!(sm.mg, total.mg());
    debug_assert_eq!(sm.eg, total.eg());
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use shakmaty::CastlingMode;
    use shakmaty::fen::Fen;

    fn pos(fen: &str) -> Chess {
        fen.parse::<Fen>()
            .expect("valid FEN")
            .into_position(CastlingMode::Standard)
            .expect("legal position")
    }

    /// Evaluation from White's point of view.
    fn white_eval(fen: &str) -> i32 {
        let p = pos(fen);
        let v = Evaluator::new().evaluate(&p);
        p.turn().fold_wb(v, -v)
    }

    #[test]
    fn start_position_is_about_tempo() {
        let v = white_eval("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1");
        assert!(v.abs() < 30, "start position evaluates to {v}");
        assert!(
            v > 0,
            "the side to move should get the tempo bonus, got {v}"
        );
    }

    #[test]
    fn queen_up_is_winning() {
        let v = white_eval("rnb1kbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1");
        assert!(v > 700, "queen up evaluates to {v}");
        let v = white_eval("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNB1KBNR b KQkq - 0 1");
        assert!(v < -700, "queen down evaluates to {v}");
    }

    #[test]
    fn insufficient_material_is_zero() {
        for fen in [
            "8/8/4k3/8/8/3NN3/4K3/8 w - - 0 1",
            "8/8/4k3/8/8/3NN3/4K3/8 b - - 0 1",
            "8/8/4k3/8/8/3B4/4K3/8 w - - 0 1",
            "8/8/4k3/8/8/3N4/4K3/8 b - - 0 1",
            "8/8/4k3/8/8/8/4K3/8 w - - 0 1",
            "8/3n4/4k3/8/8/3B4/4K3/8 w - - 0 1",
        ] {
            assert_eq!(Evaluator::new().evaluate(&pos(fen)), 0, "{fen}");
        }
    }

    #[test]
    fn advanced_passer_is_worth_more() {
        let seventh = white_eval("4k3/P7/8/8/8/8/8/4K3 b - - 0 1");
        let third = white_eval("4k3/8/8/8/8/P7/8/4K3 b - - 0 1");
        assert!(seventh > third + 100, "7th: {seventh}, 3rd: {third}");
        // Also with pieces on the board.
        let seventh = white_eval("3rk3/P4ppp/8/8/8/8/5PPP/3RK3 w - - 0 1");
        let third = white_eval("3rk3/5ppp/8/8/8/P7/5PPP/3RK3 w - - 0 1");
        assert!(seventh > third, "7th: {seventh}, 3rd: {third}");
    }

    #[test]
    fn kbnk_prefers_the_bishops_corner() {
        // Light-squared bishop: a8 and h1 are the mating corners, h8 and a1 are not.
        let right = white_eval("k7/8/8/8/3K4/3BN3/8/8 b - - 0 1");
        let wrong = white_eval("7k/8/8/8/3K4/3BN3/8/8 b - - 0 1");
        assert!(right > wrong, "right corner {right}, wrong corner {wrong}");
        assert!(wrong > 300, "KBNK should still be winning: {wrong}");
    }

    #[test]
    fn opposite_bishops_and_pawnless_edges_are_scaled() {
        // Extra pawns with opposite-coloured bishops are worth much less than with
        // same-coloured bishops (c1 and f8 are dark squares, g8 is light).
        let ocb = white_eval("4k1b1/8/8/8/8/8/PPP5/2B1K3 w - - 0 1");
        let scb = white_eval("4kb2/8/8/8/8/8/PPP5/2B1K3 w - - 0 1");
        assert!(ocb < scb, "opposite {ocb}, same {scb}");
        // Rook against bishop without pawns is close to a draw.
        let v = white_eval("4k3/8/8/3b4/8/8/8/R3K3 w - - 0 1");
        assert!((0..100).contains(&v), "KRKB evaluates to {v}");
    }

    #[test]
    fn fifty_move_counter_damps() {
        let fresh = white_eval("4k3/8/8/8/8/8/PPP5/R3K3 w - - 0 60");
        let stale = white_eval("4k3/8/8/8/8/8/PPP5/R3K3 w - - 90 60");
        assert!(stale < fresh && stale > 0, "fresh {fresh}, stale {stale}");
    }

    #[test]
    fn trace_matches_evaluate() {
        for fen in [
            "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
            "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R b KQkq - 0 10",
            "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 11",
        ] {
            let p = pos(fen);
            let v = Evaluator::new().evaluate(&p);
            let text = trace(&p);
            assert!(
                text.contains(&format!("): {v:+} cp")),
                "trace disagrees with evaluate ({v}):\n{text}"
            );
            for name in TERM_NAMES {
                assert!(text.contains(name), "missing {name}");
            }
        }
    }

    /// Every use of a tunable weight is reported: the weights times the counts, plus the
    /// nonlinear part, rebuild the unblended total exactly.
    #[test]
    fn coefficients_rebuild_the_evaluation() {
        let values = weights::values();
        assert_eq!(values.len(), weights::COUNT);
        let mut fens: Vec<&str> = crate::tools::bench::POSITIONS.lines().collect();
        fens.extend([
            "k7/8/8/8/3K4/3BN3/8/8 b - - 0 1",
            "4k3/P7/8/8/8/8/8/4K3 b - - 0 1",
            "4k1b1/8/8/8/8/8/PPP5/2B1K3 w - - 7 1",
            "8/8/8/8/8/2k5/8/R3K3 w - - 0 1",
        ]);
        let mut with_danger = 0;
        for fen in fens {
            let p = pos(fen);
            let c = coefficients(&p);
            with_danger += usize::from(c.nonlinear != S::ZERO);
            let mut sum = c.nonlinear + c.fixed;
            for &(i, n) in &c.counts {
                sum += values[i as usize] * i32::from(n);
            }
            assert_eq!(sum, c.total, "{fen}");
            // The danger sums rebuild the king-danger penalties, up to the engine's rounding
            // of the attacker-weight percentage.
            let dv = danger::values();
            let mut penalties = S::ZERO;
            for king in [Color::Black, Color::White] {
                let list = &c.danger[color_index(king)];
                let d: f32 = list.iter().map(|&(i, f)| f * dv[i as usize] as f32).sum();
                if !list.is_empty() && d > 0.0 {
                    let mg = (d * d / KING_DANGER_MG_DIVISOR as f32).min(KING_DANGER_MG_MAX as f32);
                    let eg = d / KING_DANGER_EG_DIVISOR as f32;
                    let p = S(mg.round() as i32, eg.round() as i32);
                    penalties += king.fold_wb(-p, p);
                }
            }
            assert!(
                (penalties.mg() - c.nonlinear.mg()).abs() <= 4
                    && (penalties.eg() - c.nonlinear.eg()).abs() <= 1,
                "{fen}: danger model {penalties:?}, engine {:?}",
                c.nonlinear
            );
            let v = Evaluator::new().evaluate(&p);
            assert_eq!(c.white, p.turn().fold_wb(v, -v), "{fen}");
        }
        assert!(
            with_danger >= 10,
            "only {with_danger} positions with king danger"
        );
    }

    #[test]
    fn weight_layout_is_consistent() {
        assert_eq!(weights::idx::MATERIAL, 0);
        assert_eq!(weights::idx::PSQT_PAWN, 6);
        let total: usize = weights::LAYOUT.iter().map(|&(_, n)| n).sum();
        assert_eq!(total, weights::COUNT);
        assert_eq!(weights::values()[weights::idx::TEMPO], TEMPO);
        assert_eq!(
            weights::values()[weights::idx::PSQT_KING + 63],
            PSQT_KING[63]
        );
    }

    #[test]
    fn pawn_table_hits_agree_with_fresh_computation() {
        let mut ev = Evaluator::new();
        let p = pos("r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 10");
        let first = ev.evaluate(&p);
        assert_eq!(ev.evaluate(&p), first);
        assert_eq!(Evaluator::new().evaluate(&p), first);
    }
}
