//! `genfens`: openings for OpenBench's datagen workers.
//!
//! A worker runs `scout "genfens N seed S book <None|FILE> [extra]" "quit"` and reads N lines
//! `info string genfens <FEN>`, one opening each, then plays its games from them. The openings
//! are made as `datagen` makes its own ([`crate::tools::openings`]: random plies, then a short
//! search that must find the position roughly balanced) from the standard start position, from
//! random Chess960 start positions (`extra` says `frc` or `dfrc`), or from positions drawn at
//! random from a book: an EPD file (one position a line) or a PGN file (each game's last
//! position). A book's positions are read as standard chess if they can be and as Chess960
//! otherwise, and the openings keep the book's castling notation (Shredder-FEN `HAha` or
//! X-FEN `KQkq`). The same seed always gives the same openings; within one command they are
//! all different, unless a small book cannot give that many (then, after a warning, the rest
//! are taken as they come and may repeat).
//!
//! `extra` may say: `plies N` (random plies: N or N+1, at most 200; 8 without a book, 4 with
//! one), `nodes N` (the balance search's budget, 5000), `maxscore CP` (the balance bound, 300), and
//! `frc` or `dfrc` (Chess960 or double Chess960 start positions, without a book).

use std::collections::HashSet;
use std::sync::Arc;
use std::sync::atomic::Ordering;

use rand::rngs::StdRng;
use rand::{RngExt, SeedableRng};
use shakmaty::{
    Bitboard, Board, CastlingMode, Chess, Color, FromSetup, Position as _, Rank, Setup,
};

use crate::nnue::Network;
use crate::position::Position;
use crate::search::{Limits, Searcher, SharedFlags};
use crate::tools::openings::{self, Recipe};
use crate::tools::pgn::{self, Games};
use crate::tt::TranspositionTable;

/// Start positions when there is no book.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Variant {
    Standard,
    /// One of the 960 start positions, the same for both sides.
    Chess960,
    /// Each side's pieces from its own Chess960 start position.
    DoubleChess960,
}

/// A `genfens` command.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Request {
    pub count: u64,
    pub seed: u64,
    /// The book's path (`None`: no book).
    pub book: Option<String>,
    /// Random plies (`None`: 8 without a book, 4 with one).
    pub random_plies: Option<usize>,
    pub nodes: u64,
    pub max_score: i32,
    pub variant: Variant,
}

const DEFAULT_PLIES: usize = 8;
/// Most random plies a request may ask for (random play never ends by itself).
const MAX_PLIES: usize = 200;
const DEFAULT_BOOK_PLIES: usize = 4;
const DEFAULT_NODES: u64 = 5000;
const DEFAULT_MAX_SCORE: i32 = 300;
/// After this many tries in a row without a new balanced opening, the rest of the openings are
/// taken as they come (a small or one-sided book must not stall the worker, which gives up after
/// 15 s without a line).
const RELAX_AFTER: u64 = 200;
/// After this many tries in a row without even a playable position, the command fails.
const GIVE_UP_AFTER: u64 = 10_000;

fn number<T: std::str::FromStr>(what: &str, token: Option<&&str>) -> Result<T, String> {
    let token = token.ok_or_else(|| format!("{what} needs a value"))?;
    token
        .parse()
        .map_err(|_| format!("{what}: '{}' is not a valid number", truncate(token)))
}

fn truncate(s: &str) -> String {
    s.chars().take(40).collect()
}

impl Request {
    /// Reads the arguments after `genfens`: `N seed S book <None|FILE> [extra]`.
    pub fn parse(args: &[&str]) -> Result<Request, String> {
        let mut request = Request {
            count: number("the count", args.first())?,
            seed: 0,
            book: None,
            random_plies: None,
            nodes: DEFAULT_NODES,
            max_score: DEFAULT_MAX_SCORE,
            variant: Variant::Standard,
        };
        let mut seed = None;
        let mut i = 1;
        while i < args.len() {
            let value = args.get(i + 1);
            match args[i].to_ascii_lowercase().as_str() {
                "seed" => seed = Some(number("seed", value)?),
                "book" => {
                    let path = value.ok_or("book needs a file or None")?;
                    request.book = (!path.eq_ignore_ascii_case("none")).then(|| path.to_string());
                }
                "plies" => {
                    let plies = number("plies", value)?;
                    if plies > MAX_PLIES {
                        return Err(format!("plies {plies}: at most {MAX_PLIES}"));
                    }
                    request.random_plies = Some(plies);
                }
                "nodes" => request.nodes = number::<u64>("nodes", value)?.max(1),
                "maxscore" => request.max_score = number("maxscore", value)?,
                "frc" | "chess960" => {
                    request.variant = Variant::Chess960;
                    i += 1;
                    continue;
                }
                "dfrc" => {
                    request.variant = Variant::DoubleChess960;
                    i += 1;
                    continue;
                }
                other => return Err(format!("unknown argument '{}'", truncate(other))),
            }
            i += 2;
        }
        request.seed = seed.ok_or("a seed is needed: genfens N seed S book <None|FILE>")?;
        if request.book.is_some() && request.variant != Variant::Standard {
            return Err("frc and dfrc make start positions: they do not go with a book".into());
        }
        Ok(request)
    }
}

/// A start position as the book wrote it: a FEN with all six fields, and where it came from.
struct Entry {
    line: u64,
    fen: String,
}

/// Where openings start: a book's positions or a variant's start positions.
enum Source {
    Book { path: String, entries: Vec<Entry> },
    Start(Variant),
}

/// An EPD line as a six-field FEN: the four position fields, then the clocks from fields five
/// and six or the `hmvc`/`fmvn` operations (0 and 1 when absent). `None` for a blank line or a
/// comment.
fn epd_to_fen(line: &str) -> Option<String> {
    let line = line.trim();
    if line.is_empty() || line.starts_with('#') {
        return None;
    }
    let fields: Vec<&str> = line.split_whitespace().collect();
    let position = fields.iter().take(4).copied().collect::<Vec<_>>().join(" ");
    let counter = |i: usize| fields.get(i).filter(|f| f.parse::<u32>().is_ok()).copied();
    let (half, full) = match (counter(4), counter(5)) {
        (Some(h), Some(f)) => (h.to_string(), f.to_string()),
        _ => {
            let op = |name: &str| {
                line.split(';').find_map(|op| {
                    let mut words = op.split_whitespace();
                    words.by_ref().find(|w| *w == name)?;
                    words.next()?.parse::<u32>().ok()
                })
            };
            (
                op("hmvc").unwrap_or(0).to_string(),
                op("fmvn").unwrap_or(1).to_string(),
            )
        }
    };
    Some(format!("{position} {half} {full}"))
}

/// The positions of a book: an EPD file, or the last positions of a PGN file's games.
/// The book's positions, and a note for each line that holds no readable position (skipped).
fn load_book(path: &str) -> Result<(Vec<Entry>, Vec<String>), String> {
    let meta = std::fs::metadata(path).map_err(|e| format!("{path}: {e}"))?;
    if !meta.is_file() {
        return Err(format!("{path}: not a file"));
    }
    let is_pgn = std::path::Path::new(path)
        .extension()
        .is_some_and(|e| e.eq_ignore_ascii_case("pgn"));
    let entries = if is_pgn {
        let file = std::fs::File::open(path).map_err(|e| format!("{path}: {e}"))?;
        let mut entries = Vec::new();
        for game in Games::new(std::io::BufReader::new(file)) {
            let game = game.map_err(|e| format!("{path}: {e}"))?;
            let fen = Position::new(game.end.clone()).fen();
            let fen = if game.shredder {
                with_shredder_castling(&game.end, &fen)
            } else {
                fen
            };
            entries.push(Entry {
                line: game.line,
                fen,
            });
        }
        entries
    } else {
        let text = std::fs::read_to_string(path).map_err(|e| format!("{path}: {e}"))?;
        text.lines()
            .enumerate()
            .filter_map(|(i, line)| {
                epd_to_fen(line).map(|fen| Entry {
                    line: i as u64 + 1,
                    fen,
                })
            })
            .collect()
    };
    // Every position is read once now, so that a bad line is found whatever the seed draws.
    let mut skipped = Vec::new();
    let entries: Vec<Entry> = entries
        .into_iter()
        .filter(|entry| match pgn::read_fen(&entry.fen, false) {
            Ok(_) => true,
            Err(e) => {
                skipped.push(format!("{path}, line {}: {e}", entry.line));
                false
            }
        })
        .collect();
    if entries.is_empty() {
        return Err(format!("{path}: no positions in the book"));
    }
    Ok((entries, skipped))
}

/// A FEN with its castling rights written by rook file (Shredder-FEN): White's, then Black's,
/// from the h-file down.
pub fn with_shredder_castling(pos: &Chess, fen: &str) -> String {
    let rights = pos.castles().castling_rights();
    let mut castling = String::new();
    for color in Color::ALL {
        for sq in (rights & color.backrank()).into_iter().rev() {
            let file = sq.file().char();
            castling.push(color.fold_wb(file.to_ascii_uppercase(), file));
        }
    }
    if castling.is_empty() {
        castling.push('-');
    }
    let mut fields: Vec<&str> = fen.split(' ').collect();
    if fields.len() > 2 {
        fields[2] = &castling;
    }
    fields.join(" ")
}

/// A Chess960 start position: White's pieces from arrangement `white`, Black's from `black`
/// (0..960 each, 518 is chess), every rook with its castling right.
pub fn chess960_start(white: u32, black: u32) -> Chess {
    let (w, b) = (Board::chess960(white), Board::chess960(black));
    let mut board = Board::empty();
    for (sq, piece) in w.iter().filter(|(_, p)| p.color == Color::White) {
        board.set_piece_at(sq, piece);
    }
    for (sq, piece) in b.iter().filter(|(_, p)| p.color == Color::Black) {
        board.set_piece_at(sq, piece);
    }
    let rooks = board.rooks() & (Bitboard::from(Rank::First) | Bitboard::from(Rank::Eighth));
    let mut setup = Setup::empty();
    setup.board = board;
    setup.castling_rights = rooks;
    Chess::from_setup(setup, CastlingMode::Chess960).expect("a Chess960 start position is legal")
}

impl Source {
    /// A start position and whether openings from it are written in Shredder-FEN.
    fn draw(&self, rng: &mut StdRng) -> Result<(Position, bool), String> {
        match self {
            Source::Book { path, entries } => {
                let entry = &entries[rng.random_range(0..entries.len())];
                let (chess, _) = pgn::read_fen(&entry.fen, false)
                    .map_err(|e| format!("{path}, line {}: {e}", entry.line))?;
                Ok((Position::new(chess), pgn::is_shredder(&entry.fen)))
            }
            Source::Start(Variant::Standard) => Ok((Position::default(), false)),
            Source::Start(Variant::Chess960) => {
                let n = rng.random_range(0..960);
                Ok((Position::new(chess960_start(n, n)), true))
            }
            Source::Start(Variant::DoubleChess960) => {
                let (w, b) = (rng.random_range(0..960), rng.random_range(0..960));
                Ok((Position::new(chess960_start(w, b)), true))
            }
        }
    }
}

/// Prints `request.count` openings through `emit`, one `info string genfens <FEN>` line each,
/// as they are found. Stops early (without an error) when `flags.stop` is raised. Returns the
/// number printed.
pub fn run(
    request: &Request,
    net: Arc<Network>,
    flags: Arc<SharedFlags>,
    emit: &mut dyn FnMut(&str),
) -> Result<u64, String> {
    let source = match &request.book {
        Some(path) => {
            let (entries, skipped) = load_book(path)?;
            if let Some(first) = skipped.first() {
                emit(&format!(
                    "info string warning: genfens skipped {} book lines that hold no position \
                     (the first: {first})",
                    skipped.len()
                ));
            }
            Source::Book {
                path: path.clone(),
                entries,
            }
        }
        None => Source::Start(request.variant),
    };
    let recipe = Recipe {
        random_plies: request.random_plies.unwrap_or(if request.book.is_some() {
            DEFAULT_BOOK_PLIES
        } else {
            DEFAULT_PLIES
        }),
        max_score: request.max_score,
    };
    let limits = Limits {
        soft_nodes: Some(request.nodes),
        nodes: Some(request.nodes.saturating_mul(8)),
        ..Limits::default()
    };
    let tt = Arc::new(TranspositionTable::new(2));
    let mut searcher = Searcher::new(tt.clone(), flags.clone());
    searcher.set_network(net);
    let mut rng = StdRng::seed_from_u64(request.seed);
    let mut seen = HashSet::new();
    let (mut made, mut failures, mut relaxed) = (0u64, 0u64, false);
    while made < request.count {
        if flags.stop.load(Ordering::Relaxed) {
            break;
        }
        if failures >= GIVE_UP_AFTER {
            return Err(format!(
                "no playable opening in {GIVE_UP_AFTER} tries (the book's positions end too soon?)"
            ));
        }
        let (start, shredder) = source.draw(&mut rng)?;
        let Some(pos) = openings::random_plies(start, &recipe, &mut rng) else {
            failures += 1;
            continue;
        };
        let fen = if shredder {
            with_shredder_castling(pos.chess(), &pos.fen())
        } else {
            pos.fen()
        };
        // Openings that differ only in their clocks are the same opening.
        let key: String = fen.split(' ').take(4).collect::<Vec<_>>().join(" ");
        if !relaxed && failures >= RELAX_AFTER {
            relaxed = true;
            emit(&format!(
                "info string warning: genfens found no new balanced opening in {RELAX_AFTER} \
                 tries; taking the rest as they come"
            ));
        }
        if !relaxed {
            if seen.contains(&key) {
                failures += 1;
                continue;
            }
            tt.clear();
            searcher.new_game();
            let balanced = openings::balanced(&pos, &recipe, &limits, &mut searcher);
            if flags.stop.load(Ordering::Relaxed) {
                break;
            }
            if balanced.is_none() {
                failures += 1;
                continue;
            }
        }
        seen.insert(key);
        emit(&format!("info string genfens {fen}"));
        made += 1;
        failures = 0;
    }
    Ok(made)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn requests_parse() {
        let r = Request::parse(&["10", "seed", "7", "book", "None"]).unwrap();
        assert_eq!((r.count, r.seed, r.book.clone()), (10, 7, None));
        assert_eq!(r.variant, Variant::Standard);
        let r = Request::parse(&[
            "3",
            "seed",
            "1",
            "book",
            "Books/x.epd",
            "plies",
            "2",
            "nodes",
            "900",
        ])
        .unwrap();
        assert_eq!(r.book.as_deref(), Some("Books/x.epd"));
        assert_eq!((r.random_plies, r.nodes), (Some(2), 900));
        let r =
            Request::parse(&["3", "seed", "1", "book", "none", "dfrc", "maxscore", "50"]).unwrap();
        assert_eq!((r.variant, r.max_score), (Variant::DoubleChess960, 50));
        for bad in [
            &["x", "seed", "1"][..],
            &["3", "book", "None"],
            &["3", "seed", "-1"],
            &["3", "seed", "1", "book"],
            &["3", "seed", "1", "sparkle"],
            &["3", "seed", "99999999999999999999999"],
            &["3", "seed", "1", "book", "b.epd", "frc"],
            &[],
        ] {
            assert!(Request::parse(bad).is_err(), "{bad:?}");
        }
    }

    #[test]
    fn epd_lines_become_fens() {
        assert_eq!(
            epd_to_fen(
                "rnbqkbnr/pppp2pp/4pp2/8/2P2P2/P7/1P1PP1PP/RNBQKBNR b KQkq - hmvc 0; fmvn 3;"
            ),
            Some("rnbqkbnr/pppp2pp/4pp2/8/2P2P2/P7/1P1PP1PP/RNBQKBNR b KQkq - 0 3".into())
        );
        assert_eq!(
            epd_to_fen("bqnb1rkr/pp3ppp/3ppn2/2p5/5P2/P2P4/NPP1P1PP/BQ1BNRKR w HFhf - 2 9"),
            Some("bqnb1rkr/pp3ppp/3ppn2/2p5/5P2/P2P4/NPP1P1PP/BQ1BNRKR w HFhf - 2 9".into())
        );
        assert_eq!(
            epd_to_fen("rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - c0 \"e4\";"),
            Some("rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1".into())
        );
        assert_eq!(epd_to_fen("   "), None);
    }

    #[test]
    fn chess960_starts_and_shredder_castling() {
        assert_eq!(
            Position::new(chess960_start(518, 518)).fen(),
            Position::default().fen()
        );
        let pos = chess960_start(0, 959);
        let fen = with_shredder_castling(&pos, &Position::new(pos.clone()).fen());
        assert_eq!(
            fen,
            "rkrnnqbb/pppppppp/8/8/8/8/PPPPPPPP/BBQNNRKR w HFca - 0 1"
        );
        let (back, mode) = pgn::read_fen(&fen, false).unwrap();
        assert_eq!(mode, CastlingMode::Chess960);
        assert_eq!(
            back.castles().castling_rights(),
            pos.castles().castling_rights()
        );
    }
}
