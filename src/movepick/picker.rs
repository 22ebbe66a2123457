//! The move picker: the order in which the search tries a node's moves.
//!
//! The main search tries the transposition-table move first, before any generation (it is
//! checked for legality with `is_legal`, which only generates moves to one square). Then, out of
//! check, the picker goes in stages, each generated only when the ones before have not cut the
//! node off: winning captures and queen promotions (MVV-LVA plus capture history; each judged by
//! SEE only when it comes up, a losing one put aside), the two killers and the countermove
//! (checked with `is_legal`), quiet moves by history (plus a bonus for taking a piece out of a
//! cheaper piece's attack, minus one for walking into it), the losing captures, and quiet
//! under-promotions last. The order is the one [`ordering_score`] gives the full list, ties
//! in generation order: a test compares the staged picker with one stable sort. In check, every
//! evasion is generated and scored at once. Quiescence uses captures and queen promotions only,
//! or every evasion when in check; out of check it generates just those ([`noisy_moves`]).

use arrayvec::ArrayVec;
use shakmaty::{Bitboard, Chess, Color, File, Move, MoveList, Position, Role, Square, attacks};

use super::history::Histories;
use super::{is_quiescence_move, noisy_moves};
use crate::see;

const GOOD_NOISY: i32 = 2_000_000;
const KILLER_1: i32 = 1_000_000;
const KILLER_2: i32 = 999_000;
const COUNTER: i32 = 998_000;
const BAD_NOISY: i32 = -2_000_000;
/// A quiet under-promotion's score: after every other move.
const UNDER_PROMOTION: i32 = BAD_NOISY - 100_000;
/// A noisy move is a winning one (ordered before the killers) when it loses at most this much by
/// SEE; the others come after the quiet moves.
const GOOD_NOISY_SEE: i32 = -50;
/// Added to a quiet move that takes a piece out of an attack by a cheaper piece, taken from
/// one that walks into such an attack: about the weight of the two histories together.
const ESCAPE: i32 = 16_384;

/// What the side not to move attacks, for ordering quiet moves.
#[derive(Clone, Copy, Debug, Default)]
pub struct Threats {
    /// The squares where a piece of the side to move is attacked by a cheaper enemy piece: for
    /// knights and bishops (attacked by a pawn), rooks (by a pawn or minor piece) and queens (by
    /// a pawn, minor piece or rook), in that order.
    by_cheaper: [Bitboard; 3],
    /// Every square an enemy piece attacks (the butterfly history's context).
    pub all: Bitboard,
}

impl Threats {
    /// The attacks of the side not to move in `pos` (each piece's on the current occupancy).
    pub fn of(pos: &Chess) -> Threats {
        let board = pos.board();
        let them = !pos.turn();
        let theirs = board.by_color(them);
        let occupied = board.occupied();
        // Pawn attacks by shifting all pawns at once (a pawn on the a-file or h-file attacks
        // one square only).
        let pawns = board.pawns() & theirs;
        let (towards_a, towards_h) = match them {
            Color::White => (7, 9),
            Color::Black => (-9, -7),
        };
        let by_pawns = (pawns & !Bitboard::from_file(File::A)).shift(towards_a)
            | (pawns & !Bitboard::from_file(File::H)).shift(towards_h);
        let mut by_minors = by_pawns;
        for sq in board.knights() & theirs {
            by_minors |= attacks::knight_attacks(sq);
        }
        for sq in board.bishops() & theirs {
            by_minors |= attacks::bishop_attacks(sq, occupied);
        }
        let mut by_rooks = by_minors;
        for sq in board.rooks() & theirs {
            by_rooks |= attacks::rook_attacks(sq, occupied);
        }
        let mut all = by_rooks;
        for sq in board.queens() & theirs {
            all |= attacks::queen_attacks(sq, occupied);
        }
        if let Some(king) = board.king_of(them) {
            all |= attacks::king_attacks(king);
        }
        Threats {
            by_cheaper: [by_pawns, by_minors, by_rooks],
            all,
        }
    }

    /// The threat bonus of the quiet move `m` (see [`ESCAPE`]).
    fn escape_bonus(&self, m: Move) -> i32 {
        let danger = match m.role() {
            Role::Knight | Role::Bishop => self.by_cheaper[0],
            Role::Rook => self.by_cheaper[1],
            Role::Queen => self.by_cheaper[2],
            _ => return 0,
        };
        let from = m.from().is_some_and(|sq| danger.contains(sq));
        match (from, danger.contains(m.to())) {
            (true, false) => ESCAPE,
            (_, true) => -ESCAPE,
            _ => 0,
        }
    }
}

/// Most-valuable-victim, least-valuable-attacker base score of a noisy move.
#[inline]
fn mvv_lva(m: Move) -> i32 {
    let victim = m.capture().map_or(0, see::value);
    let promo = m.promotion().map_or(0, see::value);
    8 * (victim + promo) - see::value(m.role()) / 16
}

/// Everything the ordering needs to know about the node besides the position.
#[derive(Clone, Copy, Debug, Default)]
pub struct OrderingContext {
    pub killers: [Option<Move>; 2],
    pub counter: Option<Move>,
    /// Continuation-history keys (piece index, to-square) of the moves 1 and 2 plies back.
    pub cont: [Option<(usize, Square)>; 2],
}

/// Where the picker is. The main search out of check passes the stages in this order,
/// generating quiet moves only when the noisy moves, killers and countermove have not cut the
/// node off; quiescence and positions in check generate every move at once (`All`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Stage {
    TtMove,
    GenerateNoisy,
    GoodNoisy,
    Killer1,
    Killer2,
    Counter,
    GenerateQuiets,
    Quiets,
    /// Losing captures, then quiet under-promotions.
    Bad,
    GenerateAll,
    All,
}

/// A list of moves with their ordering scores, yielded best first (by selection, or sorted
/// once for the quiet moves, which are more often all tried); of equal scores, the one
/// generated first. (So the staged picker yields exactly what one stable sort of the full list
/// would; a test compares the two.)
///
/// The moves stay where they were generated; what is selected and sorted is one key a move,
/// its score and its place in the list together (see [`ScoredMoves::key`]), so ties need no
/// care and no move is shifted about.
#[derive(Debug, Default)]
struct ScoredMoves {
    moves: MoveList,
    /// One key a move of `moves`, in the order of `moves` until they are taken. (An
    /// `ArrayVec`, not an array: a picker is made at every node, and zeroing 2 KB there would
    /// cost several percent of the search's time.)
    keys: ArrayVec<i64, 256>,
    /// The keys before this one are taken.
    start: usize,
}

impl ScoredMoves {
    /// A move's ordering key: its score, then the earlier of two moves of the same score (the
    /// score in the high bits, the place in `moves` counted down in the low byte). Keys of one
    /// list all differ, so the largest is the next move.
    #[inline]
    fn key(score: i32, index: usize) -> i64 {
        (i64::from(score) << 8) | (255 - index) as i64
    }

    /// The move and score a key stands for.
    #[inline]
    fn unkey(&self, key: i64) -> (Move, i32) {
        (self.moves[255 - (key & 0xff) as usize], (key >> 8) as i32)
    }

    fn clear(&mut self) {
        self.moves.clear();
        self.keys.clear();
        self.start = 0;
    }

    fn push(&mut self, m: Move, score: i32) {
        self.keys.push(Self::key(score, self.moves.len()));
        self.moves.push(m);
    }

    /// Gives every move of `moves` its score (a cleared list that a generator filled).
    fn score_all(&mut self, mut score: impl FnMut(Move) -> i32) {
        debug_assert!(self.keys.is_empty() && self.start == 0);
        for (i, &m) in self.moves.iter().enumerate() {
            self.keys.push(Self::key(score(m), i));
        }
    }

    /// Takes the best move left: selection, for the short lists of noisy moves and evasions.
    fn take_best(&mut self) -> Option<(Move, i32)> {
        let remaining = &mut self.keys[self.start..];
        let (mut best, mut best_key) = (0, *remaining.first()?);
        for (i, &k) in remaining.iter().enumerate().skip(1) {
            if k > best_key {
                best = i;
                best_key = k;
            }
        }
        remaining.swap(0, best);
        self.start += 1;
        Some(self.unkey(best_key))
    }

    /// Sorts the keys left, best first, so that [`ScoredMoves::take_next`] can take them in
    /// turn.
    fn sort(&mut self) {
        self.keys[self.start..].sort_unstable_by(|a, b| b.cmp(a));
    }

    /// The next move of a sorted list.
    fn take_next(&mut self) -> Option<(Move, i32)> {
        let key = *self.keys.get(self.start)?;
        self.start += 1;
        Some(self.unkey(key))
    }
}

/// Yields legal moves best first; see the module comment for the order.
#[derive(Debug)]
pub struct MovePicker {
    stage: Stage,
    tt_move: Option<Move>,
    /// The moves of the current stage.
    list: ScoredMoves,
    /// Losing captures, found while the good ones are picked, and quiet under-promotions.
    bad: ScoredMoves,
    quiescence: bool,
    ctx: OrderingContext,
    /// The enemy's attacks, once a stage has needed them.
    threats: Option<Threats>,
}

impl MovePicker {
    /// The picker for the main search. `tt_move` must already be checked legal (`decode`).
    pub fn new(tt_move: Option<Move>, ctx: OrderingContext) -> MovePicker {
        MovePicker {
            stage: Stage::TtMove,
            tt_move,
            list: ScoredMoves::default(),
            bad: ScoredMoves::default(),
            quiescence: false,
            ctx,
            threats: None,
        }
    }

    /// The picker for quiescence: noisy moves only unless in check (then every evasion).
    pub fn quiescence(tt_move: Option<Move>) -> MovePicker {
        MovePicker {
            quiescence: true,
            ..MovePicker::new(tt_move, OrderingContext::default())
        }
    }

    /// The next move, or `None` when all are exhausted. The score of the move is returned
    /// too: a negative score means a losing capture (used for pruning decisions).
    #[inline]
    pub fn next(&mut self, pos: &Chess, hist: &Histories) -> Option<(Move, i32)> {
        // The most frequent calls, the next quiet move of a sorted list and the next of a
        // generated list of evasions or quiescence moves, cost a few instructions here;
        // `next_staged` sets up for every stage's generation on entry.
        match self.stage {
            Stage::Quiets => {
                if let Some(picked) = self.list.take_next() {
                    return Some(picked);
                }
            }
            Stage::All => return self.list.take_best(),
            _ => {}
        }
        self.next_staged(pos, hist)
    }

    /// [`MovePicker::next`] through the stages.
    fn next_staged(&mut self, pos: &Chess, hist: &Histories) -> Option<(Move, i32)> {
        loop {
            match self.stage {
                Stage::TtMove => {
                    self.stage = if self.quiescence || pos.is_check() {
                        Stage::GenerateAll
                    } else {
                        Stage::GenerateNoisy
                    };
                    if let Some(m) = self.tt_move {
                        if !self.quiescence || pos.is_check() || is_quiescence_move(m) {
                            return Some((m, GOOD_NOISY * 2));
                        }
                        // Quiescence searches no other TT move (a quiet move or a quiet
                        // under-promotion).
                        self.tt_move = None;
                    }
                }
                Stage::GenerateNoisy => {
                    self.list.clear();
                    noisy_moves(pos, &mut self.list.moves);
                    let tt = self.tt_move;
                    self.list.moves.retain(|m| Some(*m) != tt);
                    let us = pos.turn();
                    self.list.score_all(|m| noisy_base(hist, us, m));
                    self.stage = Stage::GoodNoisy;
                }
                Stage::GoodNoisy => match self.list.take_best() {
                    // The exchange is judged only now: a cutoff before spares the rest.
                    Some((m, base)) if see::see_ge(pos, m, GOOD_NOISY_SEE) => {
                        return Some((m, GOOD_NOISY + base));
                    }
                    Some((m, base)) => self.bad.push(m, BAD_NOISY + base),
                    None => self.stage = Stage::Killer1,
                },
                Stage::Killer1 => {
                    self.stage = Stage::Killer2;
                    let k = self.ctx.killers[0];
                    if let Some(m) = self.refutation(pos, k, [None, None]) {
                        return Some((m, KILLER_1));
                    }
                }
                Stage::Killer2 => {
                    self.stage = Stage::Counter;
                    let k = self.ctx.killers[1];
                    if let Some(m) = self.refutation(pos, k, [self.ctx.killers[0], None]) {
                        return Some((m, KILLER_2));
                    }
                }
                Stage::Counter => {
                    self.stage = Stage::GenerateQuiets;
                    let c = self.ctx.counter;
                    if let Some(m) = self.refutation(pos, c, self.ctx.killers) {
                        return Some((m, COUNTER));
                    }
                }
                Stage::GenerateQuiets => {
                    self.generate_quiets(pos, hist);
                    self.list.sort();
                    self.stage = Stage::Quiets;
                }
                Stage::Quiets => match self.list.take_next() {
                    Some(picked) => return Some(picked),
                    None => self.stage = Stage::Bad,
                },
                Stage::Bad => return self.bad.take_best(),
                Stage::GenerateAll => {
                    self.generate_all(pos, hist);
                    self.stage = Stage::All;
                }
                Stage::All => return self.list.take_best(),
            }
        }
    }

    /// A killer or the countermove, if it is a quiet move (or quiet under-promotion) legal here
    /// and not yielded before (the TT move or one of `before`).
    fn refutation(&self, pos: &Chess, m: Option<Move>, before: [Option<Move>; 2]) -> Option<Move> {
        let m = m?;
        let fresh = Some(m) != self.tt_move && !before.contains(&Some(m));
        (fresh && !is_quiescence_move(m) && pos.is_legal(m)).then_some(m)
    }

    /// The enemy's attacks in `pos` (the picker's position), computed once.
    pub fn threats(&mut self, pos: &Chess) -> Threats {
        *self.threats.get_or_insert_with(|| Threats::of(pos))
    }

    /// The quiet moves by history, a piece in danger moved out of it first; quiet
    /// under-promotions go after the losing captures. Every move yielded before is left out.
    fn generate_quiets(&mut self, pos: &Chess, hist: &Histories) {
        let us = pos.turn();
        let threats = self.threats(pos);
        let yielded = [
            self.tt_move,
            self.ctx.killers[0],
            self.ctx.killers[1],
            self.ctx.counter,
        ];
        // Their target squares: most moves need no comparison with them.
        let targets = yielded
            .iter()
            .flatten()
            .fold(Bitboard::EMPTY, |b, m| b.with(m.to()));
        self.list.clear();
        for m in pos.legal_moves() {
            if is_quiescence_move(m) || (targets.contains(m.to()) && yielded.contains(&Some(m))) {
                continue;
            }
            if m.is_promotion() {
                self.bad.push(m, UNDER_PROMOTION);
            } else {
                self.list
                    .push(m, quiet_score(hist, us, m, &self.ctx, &threats));
            }
        }
    }

    /// Every legal move but the TT move (only the noisy ones in quiescence out of check), each
    /// with its [`ordering_score`].
    fn generate_all(&mut self, pos: &Chess, hist: &Histories) {
        self.list.clear();
        if self.quiescence && !pos.is_check() {
            noisy_moves(pos, &mut self.list.moves);
        } else {
            self.list.moves = pos.legal_moves();
        }
        if let Some(tt) = self.tt_move {
            self.list.moves.retain(|m| *m != tt);
        }
        let threats = if self.quiescence {
            Threats::default()
        } else {
            self.threats(pos)
        };
        let (ctx, quiescence) = (self.ctx, self.quiescence);
        self.list
            .score_all(|m| ordering_score(pos, hist, m, &ctx, &threats, quiescence));
    }
}

/// The base score of a noisy move: MVV-LVA and capture history.
#[inline]
fn noisy_base(hist: &Histories, us: Color, m: Move) -> i32 {
    mvv_lva(m) + hist.capture(us, m) / 16
}

/// The score of a quiet move: history, a piece in danger moved out of it first.
#[inline]
fn quiet_score(
    hist: &Histories,
    us: Color,
    m: Move,
    ctx: &OrderingContext,
    threats: &Threats,
) -> i32 {
    hist.quiet_score(us, m, threats.all, &ctx.cont) + threats.escape_bonus(m)
}

/// The one definition of a move's place in the order (the staged picker follows it stage by
/// stage): winning noisy moves (every noisy move in quiescence) by MVV-LVA and capture history,
/// the killers, the countermove, quiet moves, losing captures, quiet under-promotions.
fn ordering_score(
    pos: &Chess,
    hist: &Histories,
    m: Move,
    ctx: &OrderingContext,
    threats: &Threats,
    quiescence: bool,
) -> i32 {
    let us = pos.turn();
    if is_quiescence_move(m) {
        let base = noisy_base(hist, us, m);
        if quiescence || see::see_ge(pos, m, GOOD_NOISY_SEE) {
            GOOD_NOISY + base
        } else {
            BAD_NOISY + base
        }
    } else if Some(m) == ctx.killers[0] {
        KILLER_1
    } else if Some(m) == ctx.killers[1] {
        KILLER_2
    } else if Some(m) == ctx.counter {
        COUNTER
    } else if m.is_promotion() {
        UNDER_PROMOTION
    } else {
        quiet_score(hist, us, m, ctx, threats)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::movepick::{encode, is_noisy};
    use crate::position::Position as Pos;
    use shakmaty::CastlingMode;

    /// The positions of the perft suite (the tests play random plies on from each).
    fn perft_suite() -> impl Iterator<Item = Pos> {
        include_str!("../../tests/data/perft/standard.epd")
            .lines()
            .map(|line| {
                let fen = line.split(';').next().unwrap().trim();
                Pos::from_fen(fen, CastlingMode::Standard).unwrap()
            })
    }

    /// Every move the picker yields, with its score, in order.
    fn drain(mut picker: MovePicker, pos: &Chess, hist: &Histories) -> Vec<(Move, i32)> {
        let mut moves = Vec::new();
        while let Some(picked) = picker.next(pos, hist) {
            moves.push(picked);
        }
        moves
    }

    #[test]
    fn pieces_in_danger_move_out_of_it_first() {
        // The black pawn on d5 attacks the knight on e4; with empty histories the first quiet
        // moves are the knight's escapes, and its moves into a pawn's reach (d6, f6) come last
        // among its moves.
        let pos = Pos::from_fen(
            "rnbqkbnr/ppp1pppp/8/3p4/4N3/8/PPPPPPPP/R1BQKBNR w KQkq - 0 3",
            CastlingMode::Standard,
        )
        .unwrap();
        let hist = Histories::default();
        let picker = MovePicker::new(None, OrderingContext::default());
        let quiets: Vec<Move> = drain(picker, pos.chess(), &hist)
            .into_iter()
            .map(|(m, _)| m)
            .filter(|m| !m.is_capture())
            .collect();
        let knight = |m: &Move| m.from() == Some(Square::E4);
        let unsafe_square = |m: &Move| m.to() == Square::D6 || m.to() == Square::F6;
        let escapes = quiets
            .iter()
            .filter(|m| knight(m) && !unsafe_square(m))
            .count();
        assert_eq!(escapes, 4, "{quiets:?}");
        assert!(
            quiets[..escapes].iter().all(knight),
            "{:?}",
            &quiets[..escapes]
        );
        let first_unsafe = quiets.iter().position(unsafe_square).unwrap();
        assert!(first_unsafe > quiets.len() / 2, "{quiets:?}");
    }

    #[test]
    fn threats_are_every_square_the_enemy_attacks() {
        // On the perft suite's positions and a few random plies from each, the map of the
        // enemy's attacks is shakmaty's `attacks_to` asked square by square.
        use rand::rngs::StdRng;
        use rand::{RngExt, SeedableRng};
        let mut rng = StdRng::seed_from_u64(53);
        let mut checked = 0;
        for mut pos in perft_suite() {
            for _ in 0..6 {
                let board = pos.chess().board();
                let them = !pos.turn();
                let all = Threats::of(pos.chess()).all;
                for sq in Square::ALL {
                    let attacked = board.attacks_to(sq, them, board.occupied()).any();
                    assert_eq!(all.contains(sq), attacked, "{} {sq}", pos.fen());
                }
                checked += 1;
                let moves = pos.chess().legal_moves();
                if moves.is_empty() {
                    break;
                }
                pos = pos.play(moves[rng.random_range(0..moves.len())]);
            }
        }
        assert!(checked > 300, "{checked}");
    }

    #[test]
    fn quiescence_takes_no_quiet_under_promotion_from_the_table() {
        // White can promote on b8 without capturing: to a queen (searched in quiescence) or to a
        // knight (not searched, even as the transposition table's move).
        let pos = Pos::from_fen("8/1P6/8/8/8/8/k7/4K3 w - - 0 1", CastlingMode::Standard).unwrap();
        let hist = Histories::default();
        let yielded = |tt: &str| -> Vec<Move> {
            let picker = MovePicker::quiescence(pos.parse_uci_move(tt));
            let moves = drain(picker, pos.chess(), &hist);
            moves.into_iter().map(|(m, _)| m).collect()
        };
        let queen = pos.parse_uci_move("b7b8q").unwrap();
        assert_eq!(yielded("b7b8n"), [queen]);
        assert_eq!(yielded("b7b8q"), [queen]);
        assert_eq!(yielded("e1d2"), [queen]);
        let mut generated = MoveList::new();
        noisy_moves(pos.chess(), &mut generated);
        assert!(generated.iter().all(|m| is_quiescence_move(*m)));
        assert_eq!(generated.len(), 1);
    }

    #[test]
    fn picker_yields_every_legal_move_once() {
        let pos = Pos::from_fen(
            "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
            CastlingMode::Standard,
        )
        .unwrap();
        let hist = Histories::default();
        let tt = pos.parse_uci_move("e2a6");
        let picker = MovePicker::new(tt, OrderingContext::default());
        let seen: Vec<Move> = drain(picker, pos.chess(), &hist)
            .into_iter()
            .map(|(m, _)| m)
            .collect();
        assert_eq!(seen[0], tt.unwrap());
        assert_eq!(seen.len(), pos.chess().legal_moves().len());
        let mut dedup = seen.clone();
        dedup.sort_by_key(|m| encode(*m));
        dedup.dedup();
        assert_eq!(dedup.len(), seen.len());
        // Good captures come before quiet moves.
        let first_quiet = seen.iter().position(|m| !m.is_capture()).unwrap();
        assert!(seen[1..first_quiet].iter().all(|m| m.is_capture()));
    }

    #[test]
    fn staged_picker_yields_the_order_of_one_stable_sort() {
        use rand::rngs::StdRng;
        use rand::{RngExt, SeedableRng};
        // Positions of the perft suite and a few random plies from each, with random
        // histories, killers, countermoves (legal here or moves of other positions, quiet or
        // not) and TT moves: the picker yields exactly the full legal list sorted (stably) by
        // `ordering_score`.
        let mut rng = StdRng::seed_from_u64(21);
        let mut seen: Vec<Move> = Vec::new();
        let mut checked = 0;
        for mut pos in perft_suite() {
            for _ in 0..8 {
                let moves = pos.chess().legal_moves();
                if moves.is_empty() {
                    break;
                }
                seen.extend(moves.iter().copied());
                let us = pos.turn();
                let any = |rng: &mut StdRng| moves[rng.random_range(0..moves.len())];
                let mut hist = Histories::default();
                let cont = [
                    Some(Histories::piece_to(
                        !us,
                        seen[rng.random_range(0..seen.len())],
                    )),
                    None,
                ];
                for _ in 0..rng.random_range(0..60) {
                    let (best, other) = (any(&mut rng), any(&mut rng));
                    let depth = rng.random_range(1..12);
                    if is_noisy(best) {
                        hist.update_captures(us, Some(best), &[other], depth);
                    } else {
                        let threatened = Threats::of(pos.chess()).all;
                        hist.update_quiets(us, best, &[other], depth, threatened, &cont);
                    }
                }
                let maybe = |rng: &mut StdRng| match rng.random_range(0..5) {
                    0 => None,
                    1 | 2 => Some(any(rng)),
                    _ => Some(seen[rng.random_range(0..seen.len())]),
                };
                let ctx = OrderingContext {
                    killers: [maybe(&mut rng), maybe(&mut rng)],
                    counter: maybe(&mut rng),
                    cont,
                };
                let tt = rng.random_bool(0.5).then(|| any(&mut rng));

                let staged = drain(MovePicker::new(tt, ctx), pos.chess(), &hist);
                let threats = Threats::of(pos.chess());
                let mut sorted: Vec<(Move, i32)> = moves
                    .iter()
                    .filter(|m| Some(**m) != tt)
                    .map(|&m| {
                        (
                            m,
                            ordering_score(pos.chess(), &hist, m, &ctx, &threats, false),
                        )
                    })
                    .collect();
                sorted.sort_by_key(|&(_, s)| std::cmp::Reverse(s));
                if let Some(tt) = tt {
                    sorted.insert(0, (tt, GOOD_NOISY * 2));
                }
                assert_eq!(staged, sorted, "{} {ctx:?} {tt:?}", pos.fen());
                checked += 1;
                pos = pos.play(any(&mut rng));
            }
        }
        assert!(checked > 500, "{checked}");
    }
}
