//! History heuristics: statistics of which moves caused beta cutoffs, used for ordering quiet
//! moves and captures and for adjusting late-move reductions.
//!
//! Every table is updated with "gravity": `h += bonus - h * |bonus| / MAX`, which keeps values
//! in (-MAX, MAX) and lets recent results outweigh old ones.

use shakmaty::{Bitboard, Color, Move, Role, Square};

/// Index 0..12 of the moving piece (colour and role) for history tables.
#[inline]
fn piece_index(color: Color, role: Role) -> usize {
    (color as usize) * 6 + role as usize - 1
}

/// The moving piece's role, its from-square and its to-square, as shakmaty's accessors give
/// them (castling goes to the rook's square; a drop, which chess does not have, from its
/// target), read with one match.
#[inline]
fn parts(m: Move) -> (Role, Square, Square) {
    match m {
        Move::Normal { role, from, to, .. } => (role, from, to),
        Move::EnPassant { from, to } => (Role::Pawn, from, to),
        Move::Castle { king, rook } => (Role::King, king, rook),
        Move::Put { role, to } => (role, to, to),
    }
}

/// Saturation bound of every history value.
pub const HISTORY_MAX: i32 = 16_384;

const PIECE_TO: usize = 12 * 64;

/// All history tables of one search thread.
#[derive(Clone, Debug)]
pub struct Histories {
    /// Quiet moves by side to move, whether the enemy attacks the from-square and the
    /// to-square, from-square and to-square ("butterfly" history split by threats).
    quiet: Vec<i16>,
    /// Captures by moving piece, to-square and captured role.
    capture: Vec<i16>,
    /// Continuation history: quiet move (piece, to) after the move (piece, to) 1 or 2 plies back.
    cont: Vec<i16>,
    /// The quiet move that last refuted each (piece, to) move: the countermove.
    counter: Vec<Option<Move>>,
}

impl Default for Histories {
    fn default() -> Self {
        Histories {
            quiet: vec![0; 2 * 4 * 64 * 64],
            capture: vec![0; PIECE_TO * 6],
            cont: vec![0; PIECE_TO * PIECE_TO],
            counter: vec![None; PIECE_TO],
        }
    }
}

#[inline]
fn gravity(entry: &mut i16, bonus: i32) {
    let bonus = bonus.clamp(-HISTORY_MAX, HISTORY_MAX);
    let h = *entry as i32;
    *entry = (h + bonus - h * bonus.abs() / HISTORY_MAX) as i16;
}

/// The bonus for a move that caused (or the malus for one that failed to cause) a cutoff at `depth`.
#[inline]
pub fn bonus(depth: i32) -> i32 {
    (depth * 170 - 100).clamp(0, 1700)
}

impl Histories {
    /// Clears every table (on `ucinewgame`).
    pub fn clear(&mut self) {
        *self = Histories::default();
    }

    /// The butterfly slot of a quiet move, by shakmaty's squares (castling goes to the rook's
    /// square, and only a drop, which chess does not have, lacks a from-square) and by whether
    /// the squares are among those the enemy attacks (`threatened`): the same move is another
    /// bet when it leaves or enters an attacked square. (+23.7 +/- 16.4 at 25,000 nodes a move
    /// against the one table, 1,000 games; docs/results.md, session 53.)
    #[inline]
    fn quiet_index(us: Color, m: Move, threatened: Bitboard) -> usize {
        let (_, from, to) = parts(m);
        Self::butterfly_index(us, from, to, threatened)
    }

    #[inline]
    fn butterfly_index(us: Color, from: Square, to: Square, threatened: Bitboard) -> usize {
        let context =
            2 * usize::from(threatened.contains(from)) + usize::from(threatened.contains(to));
        ((us as usize) * 4 + context) * 4096 + (from as usize) * 64 + to as usize
    }

    #[inline]
    fn capture_index(us: Color, m: Move) -> usize {
        let victim = m.capture().unwrap_or(Role::Pawn) as usize - 1;
        (piece_index(us, m.role()) * 64 + m.to() as usize) * 6 + victim
    }

    /// Key of a move for continuation history and countermoves.
    #[inline]
    pub fn piece_to(us: Color, m: Move) -> (usize, Square) {
        (piece_index(us, m.role()), m.to())
    }

    #[inline]
    fn cont_index(prev: (usize, Square), cur: (usize, Square)) -> usize {
        (prev.0 * 64 + prev.1 as usize) * PIECE_TO + cur.0 * 64 + cur.1 as usize
    }

    /// Capture history of a noisy move.
    #[inline]
    pub fn capture(&self, us: Color, m: Move) -> i32 {
        self.capture[Self::capture_index(us, m)] as i32
    }

    /// Ordering score of a quiet move: butterfly (for the enemy's attacks `threatened`) plus
    /// both continuation histories.
    #[inline]
    pub fn quiet_score(
        &self,
        us: Color,
        m: Move,
        threatened: Bitboard,
        cont: &[Option<(usize, Square)>; 2],
    ) -> i32 {
        // The move's parts are read once (each of shakmaty's accessors matches the move).
        let (role, from, to) = parts(m);
        let cur = (piece_index(us, role), to);
        let mut s = self.quiet[Self::butterfly_index(us, from, to, threatened)] as i32;
        for prev in cont.iter().flatten() {
            s += self.cont[Self::cont_index(*prev, cur)] as i32;
        }
        s
    }

    /// The countermove recorded against the previous move.
    pub fn counter(&self, prev: Option<(usize, Square)>) -> Option<Move> {
        prev.and_then(|(p, sq)| self.counter[p * 64 + sq as usize])
    }

    /// Rewards the quiet move `best` that caused a cutoff and punishes the quiets tried before
    /// it, in a node where the enemy attacks `threatened`.
    pub fn update_quiets(
        &mut self,
        us: Color,
        best: Move,
        tried: &[Move],
        depth: i32,
        threatened: Bitboard,
        cont: &[Option<(usize, Square)>; 2],
    ) {
        let b = bonus(depth);
        self.update_quiet(us, best, b, threatened, cont);
        for &m in tried {
            if m != best {
                self.update_quiet(us, m, -b, threatened, cont);
            }
        }
        if let Some((p, sq)) = cont[0] {
            self.counter[p * 64 + sq as usize] = Some(best);
        }
    }

    fn update_quiet(
        &mut self,
        us: Color,
        m: Move,
        b: i32,
        threatened: Bitboard,
        cont: &[Option<(usize, Square)>; 2],
    ) {
        gravity(&mut self.quiet[Self::quiet_index(us, m, threatened)], b);
        let cur = Self::piece_to(us, m);
        for prev in cont.iter().flatten() {
            gravity(&mut self.cont[Self::cont_index(*prev, cur)], b);
        }
    }

    /// Rewards the capture `best` (if it is one) and punishes the captures tried before it.
    pub fn update_captures(&mut self, us: Color, best: Option<Move>, tried: &[Move], depth: i32) {
        let b = bonus(depth);
        if let Some(best) = best {
            gravity(&mut self.capture[Self::capture_index(us, best)], b);
        }
        for &m in tried {
            if Some(m) != best {
                gravity(&mut self.capture[Self::capture_index(us, m)], -b);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn gravity_saturates() {
        let mut h = 0i16;
        for _ in 0..1000 {
            gravity(&mut h, 1700);
        }
        assert!((h as i32) <= HISTORY_MAX && (h as i32) > HISTORY_MAX - 200);
        for _ in 0..1000 {
            gravity(&mut h, -1700);
        }
        assert!((h as i32) >= -HISTORY_MAX && (h as i32) < -HISTORY_MAX + 200);
    }

    #[test]
    fn butterfly_history_is_split_by_the_enemys_attacks() {
        // Ng1-f3 rewarded where the enemy attacks f3 (not g1) scores only where the enemy
        // attacks f3 and not g1: the other three contexts are their own entries, and the
        // squares the move does not touch do not matter.
        let m = Move::Normal {
            role: Role::Knight,
            from: Square::G1,
            capture: None,
            to: Square::F3,
            promotion: None,
        };
        let cont = [None, None];
        let (from, to) = (Bitboard::from(Square::G1), Bitboard::from(Square::F3));
        let mut h = Histories::default();
        h.update_quiets(Color::White, m, &[], 8, to, &cont);
        let score = |threatened| h.quiet_score(Color::White, m, threatened, &cont);
        assert_eq!(score(to), bonus(8));
        assert_eq!(score(to | Bitboard::from(Square::A8)), bonus(8));
        for other in [Bitboard::EMPTY, from, from | to] {
            assert_eq!(score(other), 0, "{other:?}");
        }
        // Black's entries are apart from White's.
        assert_eq!(h.quiet_score(Color::Black, m, to, &cont), 0);
    }
}
