//! Pawn structure: bitboard helpers for pawn spans and fills, the pawn-structure terms that
//! depend only on the pawns (and the kings' squares), and the pawn hash table caching them.
//!
//! An entry caches, per colour: the structure score (doubled, isolated, backward, supported,
//! phalanx), the pawns' piece-square score, the king's pawn shelter / storm / open-file score
//! and king-to-pawn distance, the outpost squares, and the set of passed pawns (both colours).
//! Entries store the full key (both pawn bitboards and both king squares), so a hit is exact.

use shakmaty::{Color, Square};

use super::score::S;
use super::weights::*;
use super::{NoTrace, Tracer, color_index, psqt_index, weights};

/// The a-file.
pub(super) const FILE_A: u64 = 0x0101_0101_0101_0101;
/// The h-file.
pub(super) const FILE_H: u64 = FILE_A << 7;

/// Every square on or above each set square (towards rank 8).
#[inline]
pub(super) const fn north_fill(mut b: u64) -> u64 {
    b |= b << 8;
    b |= b << 16;
    b |= b << 32;
    b
}

/// Every square on or below each set square (towards rank 1).
#[inline]
pub(super) const fn south_fill(mut b: u64) -> u64 {
    b |= b >> 8;
    b |= b >> 16;
    b |= b >> 32;
    b
}

/// Moves every square one rank forward from `c`'s point of view.
#[inline]
pub(super) const fn push(c: Color, b: u64) -> u64 {
    match c {
        Color::White => b << 8,
        Color::Black => b >> 8,
    }
}

/// Fills forward from `c`'s point of view, including the squares themselves.
#[inline]
pub(super) const fn forward_fill(c: Color, b: u64) -> u64 {
    match c {
        Color::White => north_fill(b),
        Color::Black => south_fill(b),
    }
}

/// The squares strictly in front of each set square, from `c`'s point of view.
#[inline]
pub(super) const fn forward_span(c: Color, b: u64) -> u64 {
    forward_fill(c, push(c, b))
}

/// The squares attacked by pawns of colour `c` standing on `b`.
#[inline]
pub(super) const fn pawn_attacks_bb(c: Color, b: u64) -> u64 {
    match c {
        Color::White => ((b & !FILE_A) << 7) | ((b & !FILE_H) << 9),
        Color::Black => ((b & !FILE_A) >> 9) | ((b & !FILE_H) >> 7),
    }
}

/// Every square that pawns of colour `c` on `b` attack now or could attack after advancing.
#[inline]
pub(super) const fn attack_span(c: Color, b: u64) -> u64 {
    pawn_attacks_bb(c, forward_fill(c, b))
}

/// The squares directly beside each set square (same rank, adjacent files).
#[inline]
pub(super) const fn beside(b: u64) -> u64 {
    ((b & !FILE_A) >> 1) | ((b & !FILE_H) << 1)
}

/// Whole files of every set square.
#[inline]
pub(super) const fn file_fill(b: u64) -> u64 {
    north_fill(b) | south_fill(b)
}

/// The rank of `sq` from `c`'s point of view (0 = own back rank).
#[inline]
pub(super) const fn relative_rank(c: Color, sq: Square) -> usize {
    match c {
        Color::White => sq.rank() as usize,
        Color::Black => 7 - sq.rank() as usize,
    }
}

/// Iterates over the squares of a raw bitboard.
#[inline]
pub(super) fn squares(b: u64) -> impl Iterator<Item = Square> {
    shakmaty::Bitboard(b).into_iter()
}

/// Relative ranks 4 to 6, where outposts live, by colour index (black, white).
const OUTPOST_RANKS: [u64; 2] = [0x0000_00FF_FFFF_0000, 0x0000_FFFF_FF00_0000];

/// Number of entries of the pawn hash table (a power of two).
const TABLE_SIZE: usize = 1 << 14;

/// Cached pawn-structure data for one pawn configuration and pair of king squares.
#[derive(Clone, Copy, Debug)]
pub(super) struct PawnEntry {
    white_pawns: u64,
    black_pawns: u64,
    kings: u16,
    /// Pawn-structure score, by colour index.
    pub structure: [S; 2],
    /// Piece-square score of the pawns, by colour index.
    pub psqt: [S; 2],
    /// Shelter, storm, open files near the king and king-to-pawn distance, by colour index.
    pub shelter: [S; 2],
    /// Outpost squares for each colour's minor pieces, by colour index.
    pub outposts: [u64; 2],
    /// Passed pawns of both colours.
    pub passed: u64,
}

impl PawnEntry {
    const EMPTY: PawnEntry = PawnEntry {
        white_pawns: u64::MAX,
        black_pawns: u64::MAX,
        kings: 0,
        structure: [S::ZERO; 2],
        psqt: [S::ZERO; 2],
        shelter: [S::ZERO; 2],
        outposts: [0; 2],
        passed: 0,
    };
}

/// The pawn hash table.
pub(super) struct PawnTable {
    entries: Vec<PawnEntry>,
}

impl PawnTable {
    pub(super) fn new() -> PawnTable {
        PawnTable {
            entries: vec![PawnEntry::EMPTY; TABLE_SIZE],
        }
    }

    /// Forgets every entry.
    pub(super) fn clear(&mut self) {
        self.entries.fill(PawnEntry::EMPTY);
    }

    /// Returns the entry for these pawns and kings, computing and storing it on a miss.
    #[inline]
    pub(super) fn probe(
        &mut self,
        white_pawns: u64,
        black_pawns: u64,
        kings: [Square; 2],
    ) -> PawnEntry {
        let king_key = (kings[0] as u16) | ((kings[1] as u16) << 6);
        let mut h = white_pawns.wrapping_mul(0x9E37_79B9_7F4A_7C15)
            ^ black_pawns
                .rotate_left(29)
                .wrapping_mul(0xC2B2_AE3D_27D4_EB4F)
            ^ u64::from(king_key).wrapping_mul(0x1656_67B1_9E37_79F9);
        h ^= h >> 31;
        let index = (h.wrapping_mul(0x94D0_49BB_1331_11EB) >> 50) as usize & (TABLE_SIZE - 1);
        let slot = &mut self.entries[index];
        if slot.white_pawns != white_pawns
            || slot.black_pawns != black_pawns
            || slot.kings != king_key
        {
            *slot = compute(white_pawns, black_pawns, kings, &mut NoTrace);
        }
        *slot
    }
}

/// Evaluates the pawn structure from scratch. `kings` is indexed by colour index.
pub(super) fn compute<T: Tracer>(
    white_pawns: u64,
    black_pawns: u64,
    kings: [Square; 2],
    t: &mut T,
) -> PawnEntry {
    let pawns = [black_pawns, white_pawns];
    let mut entry = PawnEntry {
        white_pawns,
        black_pawns,
        kings: (kings[0] as u16) | ((kings[1] as u16) << 6),
        ..PawnEntry::EMPTY
    };
    for us in [Color::White, Color::Black] {
        let them = !us;
        let ui = color_index(us);
        let ours = pawns[ui];
        let theirs = pawns[color_index(them)];
        let our_attacks = pawn_attacks_bb(us, ours);
        let their_attacks = pawn_attacks_bb(them, theirs);

        // Passed: no enemy pawn in front on this or an adjacent file, and no own pawn in front.
        let passed = ours
            & !(forward_span(them, theirs) | attack_span(them, theirs))
            & !forward_span(them, ours);
        entry.passed |= passed;

        let doubled = ours & forward_span(us, ours);
        let isolated = ours & !beside(file_fill(ours));
        let phalanx = ours & beside(ours);
        let supported = ours & our_attacks;
        // Backward: no own pawn on an adjacent file can ever defend it, and its stop square is
        // controlled by an enemy pawn.
        let backward =
            ours & !isolated & !(attack_span(us, ours) | beside(ours)) & push(them, their_attacks);

        let mut s = w!(t, us, PAWN_DOUBLED, doubled.count_ones() as i32)
            + w!(t, us, PAWN_ISOLATED, isolated.count_ones() as i32)
            + w!(t, us, PAWN_BACKWARD, backward.count_ones() as i32);
        let mut psqt = S::ZERO;
        for sq in squares(ours) {
            let r = relative_rank(us, sq);
            let bit = 1u64 << sq as u32;
            if supported & bit != 0 {
                s += w!(t, us, PAWN_SUPPORTED[r]);
            }
            if phalanx & bit != 0 {
                s += w!(t, us, PAWN_PHALANX[r]);
            }
            psqt += w!(t, us, PSQT_PAWN[psqt_index(us, sq)]);
        }
        entry.structure[ui] = s;
        entry.psqt[ui] = psqt;
        entry.shelter[ui] = shelter(us, ours, theirs, kings[ui], t);
        entry.outposts[ui] = OUTPOST_RANKS[ui] & our_attacks & !attack_span(them, theirs);
    }
    entry
}

/// Pawn shelter, pawn storm and open files on the three files around `us`'s king, plus the
/// king's distance to its nearest own pawn.
fn shelter<T: Tracer>(us: Color, ours: u64, theirs: u64, ksq: Square, t: &mut T) -> S {
    let krank = ksq.rank() as u32;
    // Squares on the king's rank or in front of it, from `us`'s point of view.
    let in_front = match us {
        Color::White => !0u64 << (8 * krank),
        Color::Black => !0u64 >> (8 * (7 - krank)),
    };
    let centre = (ksq.file() as u32).clamp(1, 6);
    let mut s = S::ZERO;
    for f in centre - 1..=centre + 1 {
        let file = FILE_A << f;
        let own = ours & file & in_front;
        let enemy = theirs & file & in_front;
        // The own pawn nearest the king and the enemy pawn nearest the king on this file.
        let (own_sq, enemy_sq) = match us {
            Color::White => (lowest(own), lowest(enemy)),
            Color::Black => (highest(own), highest(enemy)),
        };
        let own_rank = own_sq.map_or(0, |sq| relative_rank(us, sq));
        s += w!(t, us, KING_SHELTER[own_rank]);
        if let Some(sq) = enemy_sq {
            let enemy_rank = relative_rank(us, sq);
            if own_rank != 0 && enemy_rank == own_rank + 1 {
                s += w!(t, us, KING_STORM_BLOCKED[enemy_rank]);
            } else {
                s += w!(t, us, KING_STORM[enemy_rank]);
            }
        }
        if ours & file == 0 {
            s += w!(t, us, KING_SEMIOPEN_FILE);
            if theirs & file == 0 {
                s += w!(t, us, KING_OPEN_FILE);
            }
        }
    }
    if let Some(d) = squares(ours).map(|sq| ksq.distance(sq)).min() {
        s += w!(t, us, KING_PAWN_DISTANCE, d as i32);
    }
    s
}

#[inline]
fn lowest(b: u64) -> Option<Square> {
    (b != 0).then(|| Square::new(b.trailing_zeros()))
}

#[inline]
fn highest(b: u64) -> Option<Square> {
    (b != 0).then(|| Square::new(63 - b.leading_zeros()))
}
