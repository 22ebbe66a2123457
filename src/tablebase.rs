//! Syzygy endgame tablebases (through the `shakmaty-syzygy` crate). This module owns:
//!
//! - **loading**: `SyzygyPath` (directories separated by `:` or `;`) is read into one
//!   [`Tablebases`] collection, shared by every search thread behind an `Arc`. Every file that
//!   looks like a table has its header checked, so a stray or damaged file is reported when
//!   the path is set instead of failing silently at the first probe;
//! - **probing wrappers**: a WDL probe for the search (only valid right after a capture or a
//!   pawn move, which is when the search asks) and the ranking of the root moves, by DTZ when
//!   the DTZ tables are there and by WDL alone otherwise;
//! - **score conversion**: a tablebase win scores `TB_WIN - ply`, below every mate score and
//!   above every evaluation (see `score::TB_WIN`), a loss the negative, a draw 0; with the
//!   fifty-move rule on (`Syzygy50MoveRule`) a win the rule frustrates scores +1 and a loss it
//!   saves -1: draws, but better and worse ones.
//!
//! A probe that fails (a missing table, an I/O error) is a miss: the search goes on as if
//! there were no tables for that position.

use std::collections::HashSet;
use std::fs;
use std::io::Read;
use std::path::{Path, PathBuf};

use shakmaty::{Chess, Move, Position as _};
use shakmaty_syzygy::{AmbiguousWdl, Dtz, MaybeRounded, Syzygy, Tablebase, Wdl};

use crate::score::{Bound, DRAW, TB_WIN};

/// Largest number of pieces any Syzygy table has.
pub const MAX_TB_PIECES: usize = 7;

/// How the search uses the tables: the `SyzygyProbeDepth`, `SyzygyProbeLimit` and
/// `Syzygy50MoveRule` options.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ProbeSettings {
    /// Below the root, probe only at this remaining depth or more (unless the position has
    /// fewer pieces than the limit).
    pub depth: i32,
    /// Probe only positions with at most this many pieces (0: never probe).
    pub limit: usize,
    /// Count wins and losses the fifty-move rule turns into draws as draws.
    pub rule50: bool,
}

impl Default for ProbeSettings {
    fn default() -> Self {
        ProbeSettings {
            depth: 1,
            limit: MAX_TB_PIECES,
            rule50: true,
        }
    }
}

/// A set of Syzygy tables, loaded from one `SyzygyPath`.
pub struct Tablebases {
    tables: Tablebase<Chess>,
    wdl_tables: usize,
    dtz_tables: usize,
    max_pieces: usize,
}

impl std::fmt::Debug for Tablebases {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Tablebases")
            .field("wdl_tables", &self.wdl_tables)
            .field("dtz_tables", &self.dtz_tables)
            .field("max_pieces", &self.max_pieces)
            .finish()
    }
}

/// What loading a `SyzygyPath` gave: the tables (none when nothing usable was found) and
/// one line per thing worth telling the user (for `info string`).
#[derive(Debug)]
pub struct Loaded {
    pub tables: Option<Tablebases>,
    pub messages: Vec<String>,
}

/// The directories of a `SyzygyPath` value: separated by `;`, and on Unix also by `:`
/// (on Windows `:` belongs to drive letters). Blank entries are dropped.
pub fn split_path(value: &str) -> Vec<String> {
    let separators: &[char] = if cfg!(windows) { &[';'] } else { &[':', ';'] };
    value
        .split(separators)
        .map(str::trim)
        .filter(|d| !d.is_empty())
        .map(str::to_string)
        .collect()
}

/// The table kind a file name claims (`true`: WDL, `false`: DTZ), from its extension.
fn claimed_kind(path: &Path) -> Option<bool> {
    match path.extension()?.to_str()? {
        e if e == Chess::TBW.ext => Some(true),
        e if e == Chess::TBZ.ext => Some(false),
        _ => None,
    }
}

/// Does the file start with the magic bytes of its kind of table?
fn has_magic(path: &Path, wdl: bool) -> std::io::Result<bool> {
    let magic = if wdl {
        Chess::TBW.magic
    } else {
        Chess::TBZ.magic
    };
    let mut head = [0u8; 4];
    fs::File::open(path)?.read_exact(&mut head)?;
    Ok(head == magic)
}

impl Tablebases {
    /// Loads every table found in the directories of `path` (see [`split_path`]). Never
    /// fails: what could not be used is said in the messages, and `tables` is `None` when no
    /// WDL table was found at all.
    pub fn load(path: &str) -> Loaded {
        let mut messages = Vec::new();
        let mut tables = Tablebase::new();
        let mut seen = HashSet::new();
        let (mut wdl_tables, mut dtz_tables) = (0, 0);
        let dirs = split_path(path);
        for dir in &dirs {
            let entries = match fs::read_dir(dir) {
                Ok(entries) => entries,
                Err(e) => {
                    messages.push(format!("SyzygyPath: cannot read directory {dir}: {e}"));
                    continue;
                }
            };
            let mut files: Vec<PathBuf> = entries.filter_map(|e| Some(e.ok()?.path())).collect();
            files.sort();
            let mut found = 0;
            for file in files {
                // Only names ending in .rtbw/.rtbz are candidates; other files are ignored.
                let Some(wdl) = claimed_kind(&file) else {
                    continue;
                };
                let name = file
                    .file_name()
                    .map_or_else(String::new, |n| n.to_string_lossy().into_owned());
                match has_magic(&file, wdl) {
                    Ok(true) => {}
                    Ok(false) => {
                        messages.push(format!(
                            "SyzygyPath: {} is not a Syzygy table (wrong header); skipped",
                            file.display()
                        ));
                        continue;
                    }
                    Err(e) => {
                        messages.push(format!(
                            "SyzygyPath: cannot read {}: {e}; skipped",
                            file.display()
                        ));
                        continue;
                    }
                }
                match tables.add_file(&file) {
                    Ok(()) => {
                        found += 1;
                        // The same table in two directories is one table (the later wins).
                        if seen.insert(name) {
                            if wdl {
                                wdl_tables += 1;
                            } else {
                                dtz_tables += 1;
                            }
                        }
                    }
                    Err(e) if e.kind() == std::io::ErrorKind::InvalidInput => {
                        messages.push(format!(
                            "SyzygyPath: {} is not a table name; skipped",
                            file.display()
                        ));
                    }
                    Err(e) => messages.push(format!(
                        "SyzygyPath: {} cannot be used: {e}; skipped",
                        file.display()
                    )),
                }
            }
            if found == 0 {
                messages.push(format!("SyzygyPath: no tables found in {dir}"));
            }
        }
        if wdl_tables == 0 {
            messages.push(format!(
                "SyzygyPath: no tables found in '{}'; tablebases off",
                path.trim()
            ));
            return Loaded {
                tables: None,
                messages,
            };
        }
        let max_pieces = tables.max_pieces();
        messages.push(format!(
            "SyzygyPath: {wdl_tables} WDL and {dtz_tables} DTZ tables, up to {max_pieces} pieces"
        ));
        Loaded {
            tables: Some(Tablebases {
                tables,
                wdl_tables,
                dtz_tables,
                max_pieces,
            }),
            messages,
        }
    }

    /// Most pieces of any table loaded.
    pub fn max_pieces(&self) -> usize {
        self.max_pieces
    }

    /// Number of WDL tables loaded.
    pub fn wdl_tables(&self) -> usize {
        self.wdl_tables
    }

    /// Number of DTZ tables loaded.
    pub fn dtz_tables(&self) -> usize {
        self.dtz_tables
    }

    /// Is `pos` a position the tables can answer: no castling rights, and at most `limit`
    /// pieces (and no more than the largest table)?
    pub fn covers(&self, pos: &Chess, limit: usize) -> bool {
        !pos.castles().any() && pos.board().occupied().count() <= limit.min(self.max_pieces)
    }

    /// The WDL value of `pos` for the side to move, assuming the last move was a capture or a
    /// pawn move (the halfmove clock is 0); `None` when the tables cannot tell.
    pub fn probe_wdl(&self, pos: &Chess) -> Option<Wdl> {
        self.tables.probe_wdl_after_zeroing(pos).ok()
    }

    /// The DTZ value of `pos` for the side to move (plies to the next capture or pawn move,
    /// or mate, on the optimal line; negative when losing); `None` when the tables cannot
    /// tell (for example when the DTZ table is missing).
    pub fn probe_dtz(&self, pos: &Chess) -> Option<MaybeRounded<Dtz>> {
        self.tables.probe_dtz(pos).ok()
    }

    /// Ranks the root moves `moves` of `pos` (which [`covers`](Self::covers) must accept)
    /// and keeps those that hold the best result the tables promise. Winning, it keeps only
    /// the moves that reach the next capture, pawn move or mate within `WIN_DTZ_SLACK` plies
    /// of the fastest, so that the search, choosing among them (the equally fast ones, or a
    /// mate it sees), always makes progress; the fifty-move count is part of the result, so a
    /// win is never let slip by the rule. Uses DTZ and the halfmove clock; when a DTZ probe
    /// fails (a missing `.rtbz`), WDL alone (the clock is then ignored). `None` when the
    /// tables cannot rank the moves.
    pub fn rank_root(&self, pos: &Chess, moves: &[Move], rule50: bool) -> Option<RootRanking> {
        if moves.is_empty() {
            return None;
        }
        self.rank_by_dtz(pos, moves, rule50)
            .or_else(|| self.rank_by_wdl(pos, moves, rule50))
    }

    fn rank_by_dtz(&self, pos: &Chess, moves: &[Move], rule50: bool) -> Option<RootRanking> {
        let mut ranked = Vec::with_capacity(moves.len());
        let mut probes = 0;
        for &m in moves {
            let mut child = pos.clone();
            child.play_unchecked(m);
            let (result, plies) = if child.is_checkmate() {
                (AmbiguousWdl::Win, 0)
            } else {
                let dtz = self.probe_dtz(&child)?;
                probes += 1;
                // The child's value with its own clock, turned to our side.
                let result = -AmbiguousWdl::from_dtz_and_halfmoves(dtz, child.halfmoves());
                // Plies from the root to the next zeroing move on the best line: the move
                // itself when it zeroes.
                let plies = if m.is_zeroing() {
                    1
                } else {
                    dtz.ignore_rounding().0.unsigned_abs() + 1
                };
                (result, plies)
            };
            ranked.push((m, class_of(result, rule50), plies, result.signum()));
        }
        let best = ranked.iter().map(|r| r.1).max()?;
        let fastest = ranked.iter().filter(|r| r.1 == best).map(|r| r.2).min()?;
        let winning = ranked.iter().any(|r| r.1 == best && r.3 > 0);
        let mut kept: Vec<(Move, i32, u32)> = ranked
            .iter()
            .filter(|r| r.1 == best && (!winning || r.2 <= fastest + WIN_DTZ_SLACK))
            .map(|r| (r.0, score_of_class(r.1), r.2))
            .collect();
        // Fastest progress first: the search starts from the best-ranked move.
        kept.sort_by_key(|k| k.2);
        Some(RootRanking {
            moves: kept.into_iter().map(|(m, s, _)| (m, s)).collect(),
            probes,
            by_dtz: true,
        })
    }

    fn rank_by_wdl(&self, pos: &Chess, moves: &[Move], rule50: bool) -> Option<RootRanking> {
        let mut ranked = Vec::with_capacity(moves.len());
        let mut probes = 0;
        for &m in moves {
            let mut child = pos.clone();
            child.play_unchecked(m);
            let result = if child.is_checkmate() {
                Wdl::Win
            } else {
                probes += 1;
                -self.probe_wdl(&child)?
            };
            ranked.push((m, class_of(AmbiguousWdl::from(result), rule50)));
        }
        let best = ranked.iter().map(|r| r.1).max()?;
        Some(RootRanking {
            moves: ranked
                .into_iter()
                .filter(|r| r.1 == best)
                .map(|r| (r.0, score_of_class(r.1)))
                .collect(),
            probes,
            by_dtz: false,
        })
    }
}

/// Winning, the root keeps the moves that reach the next capture, pawn move or mate at most
/// this many plies later than the fastest. One ply absorbs the tables' DTZ rounding (a
/// rounded value may be one ply off) but never lets a whole move be wasted: with a slack of
/// two, Scout took 28 moves instead of 14 to mate in KRvK and 37 instead of 29 in KBNvK
/// (against the tables' best defence, 5000 nodes a move), drifting while the fifty-move count
/// allowed it.
pub const WIN_DTZ_SLACK: u32 = 1;

/// The root moves the tables keep, best-ranked first, each with the score the tables give it
/// (`TB_WIN - 1` for a win, which is a win at ply 1).
#[derive(Clone, Debug)]
pub struct RootRanking {
    pub moves: Vec<(Move, i32)>,
    /// Number of probes that answered.
    pub probes: u64,
    /// Ranked by DTZ (`false`: by WDL only).
    pub by_dtz: bool,
}

/// The result classes the root ranks by, best last. With the fifty-move rule the wins it
/// frustrates rank below real wins and above plain draws (the opponent may still go wrong),
/// and likewise for losses; without it they are plain wins and losses.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Class {
    Loss,
    MaybeLoss,
    BlessedLoss,
    Draw,
    CursedWin,
    MaybeWin,
    Win,
}

fn class_of(wdl: AmbiguousWdl, rule50: bool) -> Class {
    match (wdl, rule50) {
        (AmbiguousWdl::Win, _) => Class::Win,
        (AmbiguousWdl::MaybeWin, true) => Class::MaybeWin,
        (AmbiguousWdl::CursedWin, true) => Class::CursedWin,
        (AmbiguousWdl::MaybeWin | AmbiguousWdl::CursedWin, false) => Class::Win,
        (AmbiguousWdl::Draw, _) => Class::Draw,
        (AmbiguousWdl::BlessedLoss, true) => Class::BlessedLoss,
        (AmbiguousWdl::MaybeLoss, true) => Class::MaybeLoss,
        (AmbiguousWdl::BlessedLoss | AmbiguousWdl::MaybeLoss, false) => Class::Loss,
        (AmbiguousWdl::Loss, _) => Class::Loss,
    }
}

/// The root score of a move of class `c` (its child is at ply 1).
fn score_of_class(c: Class) -> i32 {
    match c {
        Class::Win | Class::MaybeWin => TB_WIN - 1,
        Class::CursedWin => DRAW + 1,
        Class::Draw => DRAW,
        Class::BlessedLoss => DRAW - 1,
        Class::MaybeLoss | Class::Loss => -(TB_WIN - 1),
    }
}

/// The search score of a WDL probe at `ply`, and what it bounds: a win is at least
/// `TB_WIN - ply` (a mate may be better: lower bound), a loss at most `-(TB_WIN - ply)`
/// (upper bound), a draw is exact. With `rule50`, cursed wins and blessed losses are draws
/// scored +1 and -1.
pub fn wdl_to_score(wdl: Wdl, ply: usize, rule50: bool) -> (i32, Bound) {
    let win = TB_WIN - ply as i32;
    match (wdl, rule50) {
        (Wdl::Win, _) | (Wdl::CursedWin, false) => (win, Bound::Lower),
        (Wdl::Loss, _) | (Wdl::BlessedLoss, false) => (-win, Bound::Upper),
        (Wdl::CursedWin, true) => (DRAW + 1, Bound::Exact),
        (Wdl::BlessedLoss, true) => (DRAW - 1, Bound::Exact),
        (Wdl::Draw, _) => (DRAW, Bound::Exact),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::score::{MATE_BOUND, MAX_PLY, TB_BOUND, mate_in};
    use shakmaty::CastlingMode;
    use shakmaty::fen::Fen;

    /// The tables the tests probe, in the repository (`tests/data/README.md` lists them).
    fn tables_dir() -> PathBuf {
        Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/syzygy")
    }

    fn tables() -> Tablebases {
        let dir = tables_dir();
        assert!(
            dir.is_dir(),
            "the Syzygy tables of the tests are missing from {}",
            dir.display()
        );
        let loaded = Tablebases::load(dir.to_str().unwrap());
        loaded.tables.expect("the test tables load")
    }

    fn chess(fen: &str) -> Chess {
        fen.parse::<Fen>()
            .unwrap()
            .into_position(CastlingMode::Standard)
            .unwrap()
    }

    #[test]
    fn loads_the_test_tables() {
        let tb = tables();
        assert_eq!(tb.max_pieces(), 4);
        assert_eq!((tb.wdl_tables(), tb.dtz_tables()), (12, 12));
    }

    #[test]
    fn probes_known_positions() {
        let tb = tables();
        let cases = [
            // KQvK, either side to move.
            ("8/8/8/4k3/8/8/8/3QK3 w - - 0 1", Wdl::Win),
            ("8/8/8/4k3/8/8/8/3QK3 b - - 0 1", Wdl::Loss),
            // KvK.
            ("8/8/8/4k3/8/8/8/4K3 w - - 0 1", Wdl::Draw),
            // KBNvK: a win, however long.
            ("8/8/8/4k3/8/8/8/2BNK3 w - - 0 1", Wdl::Win),
            ("8/8/8/4k3/8/8/8/2BNK3 b - - 0 1", Wdl::Loss),
            // KNNvK cannot be forced.
            ("8/8/8/4k3/8/8/8/2NNK3 w - - 0 1", Wdl::Draw),
            // KPvK: the defending king in front of a rook pawn draws...
            ("k7/8/8/8/8/8/P7/K7 w - - 0 1", Wdl::Draw),
            // ...the opposition in front of the pawn draws, with the defender to move it wins.
            ("4k3/8/8/8/4P3/4K3/8/8 w - - 0 1", Wdl::Draw),
            ("4k3/8/4K3/4P3/8/8/8/8 b - - 0 1", Wdl::Loss),
            // A pawn the king cannot catch wins.
            ("8/8/8/P7/8/8/8/5k1K w - - 0 1", Wdl::Win),
        ];
        for (fen, expected) in cases {
            assert_eq!(tb.probe_wdl(&chess(fen)), Some(expected), "{fen}");
        }
        // Beyond the tables (5 pieces): no answer, no panic.
        assert_eq!(
            tb.probe_wdl(&chess("8/8/8/4k3/8/8/8/2BNKR2 w - - 0 1")),
            None
        );
        // DTZ: the winning side counts plies to mate, the losing side negative.
        let dtz = tb
            .probe_dtz(&chess("8/8/8/4k3/8/8/8/3QK3 w - - 0 1"))
            .unwrap();
        assert!(dtz.is_positive(), "{dtz:?}");
        assert!(
            tb.probe_dtz(&chess("8/8/8/4k3/8/8/8/3QK3 b - - 0 1"))
                .unwrap()
                .is_negative()
        );
    }

    #[test]
    fn covers_needs_few_pieces_and_no_castling() {
        let tb = tables();
        assert!(tb.covers(&chess("8/8/8/4k3/8/8/8/3QK3 w - - 0 1"), 7));
        assert!(!tb.covers(&chess("8/8/8/4k3/8/8/8/3QK3 w - - 0 1"), 2));
        assert!(!tb.covers(&chess("4k3/8/8/8/8/8/8/R3K3 w Q - 0 1"), 7));
        assert!(!tb.covers(&chess("8/8/8/4k3/8/8/8/2BNKR2 w - - 0 1"), 7));
    }

    #[test]
    fn scores_sit_between_evaluations_and_mates() {
        for ply in 0..MAX_PLY {
            let (win, bound) = wdl_to_score(Wdl::Win, ply, true);
            assert_eq!(bound, Bound::Lower);
            assert!(win < MATE_BOUND && win < mate_in(MAX_PLY - 1));
            assert!(win >= TB_BOUND, "a TB win is recognised as decisive");
            assert!(win > crate::score::EVAL_LIMIT);
            let (loss, bound) = wdl_to_score(Wdl::Loss, ply, true);
            assert_eq!((loss, bound), (-win, Bound::Upper));
            // Nearer wins score higher.
            assert!(wdl_to_score(Wdl::Win, ply + 1, true).0 < win);
        }
        assert_eq!(wdl_to_score(Wdl::Draw, 5, true), (0, Bound::Exact));
        assert_eq!(wdl_to_score(Wdl::CursedWin, 5, true), (1, Bound::Exact));
        assert_eq!(wdl_to_score(Wdl::BlessedLoss, 5, true), (-1, Bound::Exact));
        assert_eq!(
            wdl_to_score(Wdl::CursedWin, 5, false),
            (TB_WIN - 5, Bound::Lower)
        );
        assert_eq!(
            wdl_to_score(Wdl::BlessedLoss, 5, false),
            (-(TB_WIN - 5), Bound::Upper)
        );
    }

    #[test]
    fn root_ranking_keeps_the_best_result() {
        let tb = tables();
        // KPvK: White to move wins only with Kd6 or Kf6; a king retreat draws.
        let pos = chess("4k3/8/4K3/4P3/8/8/8/8 w - - 0 1");
        let legal: Vec<Move> = pos.legal_moves().into_iter().collect();
        let ranking = tb.rank_root(&pos, &legal, true).unwrap();
        assert!(ranking.by_dtz);
        assert!(!ranking.moves.is_empty());
        for &(m, score) in &ranking.moves {
            let mut child = pos.clone();
            child.play_unchecked(m);
            assert_eq!(
                tb.probe_wdl(&child),
                Some(Wdl::Loss),
                "{m} must keep the win"
            );
            assert_eq!(score, TB_WIN - 1);
        }
        // Drawn KPvK: only drawing moves are kept, scored 0 (none loses here, so all stay).
        let pos = chess("4k3/8/8/8/4P3/4K3/8/8 w - - 0 1");
        let legal: Vec<Move> = pos.legal_moves().into_iter().collect();
        let ranking = tb.rank_root(&pos, &legal, true).unwrap();
        assert!(ranking.moves.iter().all(|&(_, s)| s == 0));
        // The defender: Black to move in a drawn position keeps only the drawing move, Kd7
        // (the other five king moves lose the opposition).
        let pos = chess("8/4k3/8/3K4/4P3/8/8/8 b - - 0 1");
        let legal: Vec<Move> = pos.legal_moves().into_iter().collect();
        assert_eq!(legal.len(), 6);
        let ranking = tb.rank_root(&pos, &legal, true).unwrap();
        let kept: Vec<String> = ranking
            .moves
            .iter()
            .map(|(m, _)| m.to_uci(shakmaty::CastlingMode::Standard).to_string())
            .collect();
        assert_eq!(kept, ["e7d7"]);
        assert_eq!(ranking.moves[0].1, 0);
        // Only the moves given are ranked (`searchmoves`): among losing moves, all stay.
        let losing: Vec<Move> = legal
            .iter()
            .copied()
            .filter(|m| m.to().to_string() != "d7")
            .collect();
        let ranking = tb.rank_root(&pos, &losing, true).unwrap();
        assert_eq!(ranking.moves.len(), 5);
        assert!(ranking.moves.iter().all(|&(_, s)| s == -(TB_WIN - 1)));
    }

    #[test]
    fn without_dtz_tables_the_root_is_ranked_by_wdl() {
        let dir = std::env::temp_dir().join(format!("scout-tb-wdl-only-{}", std::process::id()));
        fs::create_dir_all(&dir).unwrap();
        fs::copy(tables_dir().join("KPvK.rtbw"), dir.join("KPvK.rtbw")).unwrap();
        let loaded = Tablebases::load(dir.to_str().unwrap());
        let tb = loaded.tables.expect("a WDL table alone is usable");
        assert_eq!((tb.wdl_tables(), tb.dtz_tables()), (1, 0));
        let pos = chess("8/4k3/8/3K4/4P3/8/8/8 b - - 0 1");
        // A win needs the DTZ table (a draw does not).
        let won = chess("4k3/8/4K3/4P3/8/8/8/8 w - - 0 1");
        assert_eq!(tb.probe_wdl(&won), Some(Wdl::Win));
        assert!(tb.probe_dtz(&won).is_none());
        let legal: Vec<Move> = pos.legal_moves().into_iter().collect();
        let ranking = tb.rank_root(&pos, &legal, true).unwrap();
        assert!(!ranking.by_dtz);
        assert_eq!(ranking.moves.len(), 1);
        assert_eq!(ranking.moves[0].0.to().to_string(), "d7");
        fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn paths_split_on_both_separators() {
        assert_eq!(split_path("/a:/b;/c d"), vec!["/a", "/b", "/c d"]);
        assert_eq!(split_path(" ; : "), Vec::<String>::new());
    }

    #[test]
    fn bad_paths_load_nothing() {
        let loaded = Tablebases::load("/nonexistent/scout-syzygy-test");
        assert!(loaded.tables.is_none());
        assert!(
            loaded.messages.iter().any(|m| m.contains("cannot read")),
            "{:?}",
            loaded.messages
        );
        // A file with a table's name but not a table's contents is refused when loading.
        let dir = std::env::temp_dir().join(format!("scout-tb-unit-{}", std::process::id()));
        fs::create_dir_all(&dir).unwrap();
        fs::write(dir.join("KQvK.rtbw"), vec![0u8; 80]).unwrap();
        fs::write(dir.join("readme.txt"), "not a table").unwrap();
        let loaded = Tablebases::load(dir.to_str().unwrap());
        assert!(loaded.tables.is_none());
        assert!(
            loaded
                .messages
                .iter()
                .any(|m| m.contains("not a Syzygy table")),
            "{:?}",
            loaded.messages
        );
        // The good directory beside a bad one still loads.
        let both = format!("{}:{}", dir.display(), tables_dir().display());
        let loaded = Tablebases::load(&both);
        assert_eq!(loaded.tables.map(|t| t.max_pieces()), Some(4));
        fs::remove_dir_all(&dir).unwrap();
    }
}
