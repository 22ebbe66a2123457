//! The opening book: reading a Polyglot `.bin` file, probing it for a position, and choosing
//! one of its moves at random, weighted by the book's weights.
//!
//! A Polyglot book is a sequence of 16-byte big-endian entries sorted by key:
//! `u64 key, u16 move, u16 weight, u32 learn`. The whole file is read into memory (a typical
//! book is one or two MB) and probed by binary search. The key is the Polyglot Zobrist hash,
//! which shakmaty's `Zobrist64` reproduces when the en-passant file is hashed the Polyglot way:
//! only when a pawn of the side to move stands beside the pawn that just advanced two squares
//! (a pseudo-legal capture, legal or not): `EnPassantMode::PseudoLegal`. (The search's keys use
//! `EnPassantMode::Legal`, so they differ from the book's in the rare position where that
//! capture would expose the king.)
//!
//! A move is 15 bits: to-square in bits 0–5, from-square in bits 6–11 (square = file + 8 ×
//! rank), promotion in bits 12–14 (1 knight, 2 bishop, 3 rook, 4 queen). Castling is written
//! king-takes-own-rook (`e1h1`, `e1a1`, `e8h8`, `e8a8`), which is how shakmaty's `Move::Castle`
//! names its squares, so every legal move is encoded and the entries are matched against them;
//! an entry that matches no legal move is skipped. Books are for standard chess only: the
//! engine never asks the book in Chess960.
//!
//! When to use the book (the `OwnBook`, `BookFile`, `BookDepth` options, the kind of `go`) is
//! the controller's decision (`controller/go.rs`); this module only answers what the book holds.

use std::path::Path;

use rand::{Rng, RngExt};
use shakmaty::zobrist::Zobrist64;
use shakmaty::{Chess, Color, EnPassantMode, Move, Position as _, Role};

/// Size of one book entry in bytes.
pub const ENTRY_SIZE: usize = 16;

/// The largest book file read (the biggest published books are a few hundred MB).
pub const MAX_FILE_BYTES: u64 = 1 << 30;

/// One entry of the book file.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Entry {
    pub key: u64,
    pub mv: u16,
    pub weight: u16,
    pub learn: u32,
}

impl Entry {
    /// Decodes one 16-byte big-endian entry.
    pub fn from_bytes(b: &[u8; ENTRY_SIZE]) -> Entry {
        Entry {
            key: u64::from_be_bytes(b[0..8].try_into().unwrap()),
            mv: u16::from_be_bytes([b[8], b[9]]),
            weight: u16::from_be_bytes([b[10], b[11]]),
            learn: u32::from_be_bytes([b[12], b[13], b[14], b[15]]),
        }
    }
}

/// A legal book move of a position with its weight (the sum over duplicate entries).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BookMove {
    pub mv: Move,
    pub weight: u32,
}

/// The move chosen for a position: the move, its weight, and the total weight of the
/// position's book moves.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Choice {
    pub mv: Move,
    pub weight: u32,
    pub total: u32,
}

/// A Polyglot book held in memory.
#[derive(Clone, Debug)]
pub struct Book {
    entries: Vec<Entry>,
}

impl Book {
    /// Reads a book file. Refuses (with a message saying why) a file that is missing,
    /// unreadable, empty, not a whole number of entries long, or not sorted by key.
    pub fn open(path: &Path) -> Result<Book, String> {
        let cannot = |e: std::io::Error| format!("cannot read {}: {e}", path.display());
        // Only a regular file of sensible size: a device such as /dev/zero would never end.
        let meta = std::fs::metadata(path).map_err(cannot)?;
        if !meta.is_file() {
            return Err(format!("{} is not a file", path.display()));
        }
        if meta.len() > MAX_FILE_BYTES {
            return Err(format!(
                "{} is {} MB, more than the {} MB a book may have",
                path.display(),
                meta.len() >> 20,
                MAX_FILE_BYTES >> 20
            ));
        }
        let bytes = std::fs::read(path).map_err(cannot)?;
        Book::from_bytes(&bytes).map_err(|e| format!("{}: {e}", path.display()))
    }

    /// Reads a book from the bytes of a file (see `open`).
    pub fn from_bytes(bytes: &[u8]) -> Result<Book, String> {
        if bytes.is_empty() {
            return Err("the file is empty".into());
        }
        if !bytes.len().is_multiple_of(ENTRY_SIZE) {
            return Err(format!(
                "{} bytes is not a whole number of {ENTRY_SIZE}-byte entries (truncated?)",
                bytes.len()
            ));
        }
        let entries: Vec<Entry> = bytes
            .chunks_exact(ENTRY_SIZE)
            .map(|c| Entry::from_bytes(c.try_into().unwrap()))
            .collect();
        if let Some(i) = entries.windows(2).position(|w| w[0].key > w[1].key) {
            return Err(format!(
                "entries are not sorted by key (entry {}); not a Polyglot book?",
                i + 1
            ));
        }
        Ok(Book { entries })
    }

    /// Number of entries.
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// Is the book empty? (Never, for a book that `open` accepted.)
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// The entries stored under `key`, in file order (binary search).
    pub fn entries(&self, key: u64) -> &[Entry] {
        let start = self.entries.partition_point(|e| e.key < key);
        let len = self.entries[start..].partition_point(|e| e.key == key);
        &self.entries[start..start + len]
    }

    /// The legal book moves of `pos`, in file order, duplicates merged (weights added).
    /// Entries that decode to no legal move are skipped.
    pub fn moves(&self, pos: &Chess) -> Vec<BookMove> {
        let entries = self.entries(key(pos));
        if entries.is_empty() {
            return Vec::new();
        }
        let legal = pos.legal_moves();
        let mut out: Vec<BookMove> = Vec::new();
        for e in entries {
            let Some(mv) = decode_move(&legal, e.mv) else {
                continue;
            };
            match out.iter_mut().find(|b| b.mv == mv) {
                Some(b) => b.weight += u32::from(e.weight),
                None => out.push(BookMove {
                    mv,
                    weight: u32::from(e.weight),
                }),
            }
        }
        out
    }

    /// A book move for `pos`, chosen at random with probability weight / total; `None` when
    /// the position is not in the book or all its moves have weight 0.
    pub fn choose<R: Rng + ?Sized>(&self, pos: &Chess, rng: &mut R) -> Option<Choice> {
        let moves = self.moves(pos);
        let i = pick_weighted(&moves, rng)?;
        Some(Choice {
            mv: moves[i].mv,
            weight: moves[i].weight,
            total: moves.iter().map(|m| m.weight).sum(),
        })
    }
}

/// The Polyglot key of a position.
pub fn key(pos: &Chess) -> u64 {
    pos.zobrist_hash::<Zobrist64>(EnPassantMode::PseudoLegal).0
}

/// The Polyglot encoding of a move (castling as king-takes-own-rook).
pub fn encode_move(m: Move) -> u16 {
    let from = m.from().map_or(0, |s| s as u16);
    let to = m.to() as u16;
    let promotion = match m.promotion() {
        Some(Role::Knight) => 1,
        Some(Role::Bishop) => 2,
        Some(Role::Rook) => 3,
        Some(Role::Queen) => 4,
        _ => 0,
    };
    to | (from << 6) | (promotion << 12)
}

/// The move of `legal` (a position's legal moves) that a Polyglot move stands for, if any.
pub fn decode_move(legal: &[Move], raw: u16) -> Option<Move> {
    let raw = raw & 0x7fff;
    legal.iter().copied().find(|&m| encode_move(m) == raw)
}

/// The index of a move drawn with probability weight / total; `None` when the total is 0.
pub fn pick_weighted<R: Rng + ?Sized>(moves: &[BookMove], rng: &mut R) -> Option<usize> {
    let total: u64 = moves.iter().map(|m| u64::from(m.weight)).sum();
    if total == 0 {
        return None;
    }
    let mut r = rng.random_range(0..total);
    for (i, m) in moves.iter().enumerate() {
        let w = u64::from(m.weight);
        if r < w {
            return Some(i);
        }
        r -= w;
    }
    unreachable!("the draw is below the total weight")
}

/// The game ply of a position: 0 at the start, counted from the fullmove number and the side
/// to move (what `BookDepth` is compared with).
pub fn game_ply(pos: &Chess) -> u32 {
    let full = pos.fullmoves().get();
    (full - 1).saturating_mul(2) + u32::from(pos.turn() == Color::Black)
}

/// The Polyglot books the tests write (shared with the integration tests).
#[cfg(test)]
#[allow(dead_code)]
#[path = "../tests/common/polyglot.rs"]
mod test_books;

#[cfg(test)]
mod tests {
    use super::test_books::{self, AFTER_C4, AFTER_E4, PUBLISHED_KEYS, START, TEST_BOOK};
    use super::*;
    use rand::SeedableRng;
    use rand::rngs::StdRng;
    use shakmaty::fen::Fen;
    use shakmaty::uci::UciMove;
    use shakmaty::{CastlingMode, FromSetup};

    fn play(moves: &[&str]) -> Chess {
        let mut pos = Chess::default();
        for text in moves {
            let m = text.parse::<UciMove>().unwrap().to_move(&pos).unwrap();
            pos.play_unchecked(m);
        }
        pos
    }

    fn from_fen(fen: &str) -> Chess {
        let setup = fen.parse::<Fen>().unwrap().into_setup();
        Chess::from_setup(setup, CastlingMode::Standard).unwrap()
    }

    fn uci(m: Move) -> String {
        UciMove::from_move(m, CastlingMode::Standard).to_string()
    }

    /// The test book (`tests/common/polyglot.rs`), read from its bytes.
    fn test_book() -> Book {
        Book::from_bytes(&test_books::to_bytes(&TEST_BOOK)).unwrap()
    }

    /// A position's legal book moves as (move, weight).
    fn listed(book: &Book, pos: &Chess) -> Vec<(String, u32)> {
        book.moves(pos)
            .iter()
            .map(|b| (uci(b.mv), b.weight))
            .collect()
    }

    fn owned(moves: &[(&str, u32)]) -> Vec<(String, u32)> {
        moves.iter().map(|&(m, w)| (m.to_string(), w)).collect()
    }

    /// The test keys published with the Polyglot book format.
    #[test]
    fn polyglot_test_keys() {
        for (moves, expected) in PUBLISHED_KEYS {
            assert_eq!(key(&play(moves)), expected, "Polyglot key after {moves:?}");
        }
    }

    /// Polyglot hashes the en-passant file when a capture is pseudo-legal, even when it would
    /// expose the king; shakmaty's `Legal` mode would leave it out.
    #[test]
    fn en_passant_file_is_hashed_for_a_pinned_capturer() {
        // Black has just played d7d5; the e5 pawn could take en passant, but the rook on a5
        // pins it along the fifth rank against the king on h5.
        let pinned = from_fen("4k3/8/8/r2pP2K/8/8/8/8 w - d6 0 2");
        assert!(pinned.en_passant_moves().is_empty());
        let without_ep = from_fen("4k3/8/8/r2pP2K/8/8/8/8 w - - 0 2");
        // Polyglot's random number for the en-passant file d (Random64[772 + 3]).
        assert_eq!(key(&pinned) ^ key(&without_ep), 0x1c99ded33cb890a1);
        // The same number separates the published keys with and without a capturer
        // beside the pawn on another file: f (Random64[772 + 5]) after e4 d5 e5 f5.
        let with_f = play(&["e2e4", "d7d5", "e4e5", "f7f5"]);
        let no_f = from_fen("rnbqkbnr/ppp1p1pp/8/3pPp2/8/8/PPPP1PPP/RNBQKBNR w KQkq - 0 3");
        assert_eq!(key(&with_f) ^ key(&no_f), 0xd0e4427a5514fb72);
    }

    #[test]
    fn move_encoding_round_trips_and_castles_king_takes_rook() {
        let pos = from_fen("r3k2r/pPpp1ppp/8/8/8/8/PPPP1PPP/R3K2R w KQkq - 0 1");
        let legal = pos.legal_moves();
        for &m in &legal {
            assert_eq!(decode_move(&legal, encode_move(m)), Some(m), "{}", uci(m));
        }
        // e1h1 = to h1 (7) | from e1 (4) << 6; e1a1 = to a1 (0) | from e1 << 6.
        let short = decode_move(&legal, 7 | (4 << 6)).unwrap();
        let long = decode_move(&legal, 4 << 6).unwrap();
        assert_eq!((uci(short), uci(long)), ("e1g1".into(), "e1c1".into()));
        // b7xa8=N: to a8 (56), from b7 (49), promotion 1.
        let promo = decode_move(&legal, 56 | (49 << 6) | (1 << 12)).unwrap();
        assert_eq!(uci(promo), "b7a8n");
        // Not legal here: e2e4 (no pawn on e2).
        assert_eq!(decode_move(&legal, 28 | (12 << 6)), None);
    }

    /// The test book's own move encoder agrees with `encode_move` on every kind of move.
    #[test]
    fn the_test_books_encode_moves_as_the_engine_does() {
        for fen in [
            "r3k2r/pPpp1ppp/8/8/8/8/PPPP1PPP/R3K2R w KQkq - 0 1",
            "r3k2r/pppp1ppp/8/8/8/8/PPPP1PpP/R3K2R b KQkq - 0 1",
            "rnbqkbnr/ppp1p1pp/8/3pPp2/8/8/PPPP1PPP/RNBQKBNR w KQkq f6 0 3",
        ] {
            let pos = from_fen(fen);
            for m in pos.legal_moves() {
                // Polyglot writes castling king-takes-rook, as Chess960 notation does.
                let text = UciMove::from_move(m, CastlingMode::Chess960).to_string();
                assert_eq!(test_books::encode(&text), encode_move(m), "{fen}: {text}");
            }
        }
    }

    #[test]
    fn start_position_book_moves() {
        let book = test_book();
        assert_eq!(book.len(), TEST_BOOK.len());
        let start = Chess::default();
        // The duplicate 1.e4 entries are merged (5 + 2), in file order; 1.Nf3 is listed with
        // its weight 0.
        assert_eq!(listed(&book, &start), owned(&test_books::START_MOVES));
        assert_eq!(book.entries(START).len(), 5);
        assert_eq!(book.entries(START)[4].learn, 0x0102_0304);
    }

    #[test]
    fn book_moves_after_a_few_moves_are_legal() {
        let book = test_book();
        // After 1.e4 the entry that is no legal move (e7e4) is skipped.
        let after_e4 = play(&["e2e4"]);
        assert_eq!(book.entries(AFTER_E4).len(), 4);
        assert_eq!(listed(&book, &after_e4), owned(&test_books::AFTER_E4_MOVES));
        // Walk the book breadth-first by its own moves for seven plies: the positions reached
        // are found under the published keys of the e4 line, every entry of them but the one
        // planted (e7e4) decodes to a legal move, and the en-passant capture e5f6 is one.
        let published: Vec<u64> = PUBLISHED_KEYS[..7].iter().map(|&(_, k)| k).collect();
        let mut frontier = vec![Chess::default()];
        let (mut found, mut entries, mut decoded, mut en_passant) = (Vec::new(), 0, 0, 0);
        for _ in 0..7 {
            let mut next = Vec::new();
            for pos in &frontier {
                let moves = book.moves(pos);
                if moves.is_empty() {
                    continue;
                }
                found.push(key(pos));
                entries += book.entries(key(pos)).len();
                decoded += moves.len();
                for b in moves {
                    en_passant += usize::from(b.mv.is_en_passant());
                    let mut child = pos.clone();
                    child.play_unchecked(b.mv);
                    next.push(child);
                }
            }
            frontier = next;
        }
        found.sort_unstable();
        found.dedup();
        let mut expected = published.clone();
        expected.sort_unstable();
        assert_eq!(found, expected, "positions reached in the book");
        // Every entry but the second line's was reached; all of them became moves but e7e4
        // (skipped) and the second 1.e4 (merged with the first).
        assert_eq!(entries, TEST_BOOK.len() - 1);
        assert_eq!(decoded, entries - 2);
        assert_eq!(en_passant, 1);
        // The second line: Black's en-passant capture, stored under the published key.
        let after_c4 = play(&["a2a4", "b7b5", "h2h4", "b5b4", "c2c4"]);
        assert_eq!(key(&after_c4), AFTER_C4);
        let moves = book.moves(&after_c4);
        assert_eq!(moves.len(), 1);
        assert!(moves[0].mv.is_en_passant());
        assert_eq!(uci(moves[0].mv), "b4c3");
        // Positions out of the book.
        assert!(book.moves(&play(&["g2g4", "e7e5", "f2f3"])).is_empty());
        assert!(book.moves(&play(&["d2d4"])).is_empty());
    }

    #[test]
    fn castling_and_promotions_from_a_book_file() {
        // Keys of positions the published list does not hold: computed by `key`, which the
        // published keys check.
        let castles = from_fen("r3k2r/pppppppp/8/8/8/8/PPPPPPPP/R3K2R w KQkq - 0 1");
        let black_castles = from_fen("r3k2r/pppppppp/8/8/8/8/PPPPPPPP/R3K2R b KQkq - 0 1");
        let promotes = from_fen("1n6/P7/8/8/8/8/k6K/8 w - - 0 1");
        let entry = |pos: &Chess, mv, weight| test_books::Entry {
            key: key(pos),
            mv,
            weight,
            learn: 0,
        };
        let entries = [
            entry(&castles, "e1h1", 3),
            entry(&castles, "e1a1", 1),
            entry(&black_castles, "e8a8", 2),
            entry(&promotes, "a7a8q", 4),
            entry(&promotes, "a7b8n", 1),
            entry(&promotes, "a7a8r", 1),
        ];
        let book = Book::from_bytes(&test_books::to_bytes(&entries)).unwrap();
        assert_eq!(listed(&book, &castles), owned(&[("e1g1", 3), ("e1c1", 1)]));
        assert!(book.moves(&castles).iter().all(|b| b.mv.is_castle()));
        assert_eq!(listed(&book, &black_castles), owned(&[("e8c8", 2)]));
        assert_eq!(
            listed(&book, &promotes),
            owned(&[("a7a8q", 4), ("a7b8n", 1), ("a7a8r", 1)])
        );
    }

    #[test]
    fn weighted_choice_follows_the_weights() {
        let m = |text: &str| {
            text.parse::<UciMove>()
                .unwrap()
                .to_move(&Chess::default())
                .unwrap()
        };
        let moves = [
            BookMove {
                mv: m("e2e4"),
                weight: 3,
            },
            BookMove {
                mv: m("d2d4"),
                weight: 0,
            },
            BookMove {
                mv: m("c2c4"),
                weight: 1,
            },
        ];
        let mut rng = StdRng::seed_from_u64(14);
        let mut counts = [0u32; 3];
        for _ in 0..8000 {
            counts[pick_weighted(&moves, &mut rng).unwrap()] += 1;
        }
        assert_eq!(counts[1], 0, "a zero-weight move was chosen: {counts:?}");
        // Expected 6000 : 2000; 5 standard deviations are about 200.
        assert!((5700..=6300).contains(&counts[0]), "{counts:?}");
        assert!((1700..=2300).contains(&counts[2]), "{counts:?}");
        let zero = [BookMove {
            mv: m("e2e4"),
            weight: 0,
        }];
        assert_eq!(pick_weighted(&zero, &mut rng), None);
        assert_eq!(pick_weighted(&[], &mut rng), None);
    }

    #[test]
    fn choose_reports_weight_and_total() {
        let book = test_book();
        let start = Chess::default();
        let mut rng = StdRng::seed_from_u64(1);
        let mut counts = std::collections::HashMap::new();
        for _ in 0..4000 {
            let c = book.choose(&start, &mut rng).unwrap();
            assert_eq!(c.total, 11);
            let weight = test_books::START_MOVES
                .iter()
                .find(|&&(m, _)| m == uci(c.mv))
                .map(|&(_, w)| w);
            assert_eq!(Some(c.weight), weight, "{}", uci(c.mv));
            *counts.entry(uci(c.mv)).or_insert(0u32) += 1;
        }
        // Expected 7 : 3 : 1 of 4,000 (2545, 1091, 364); 5 standard deviations are at most
        // 155. The move of weight 0 is never played.
        let count = |m: &str| counts.get(m).copied().unwrap_or(0);
        assert!((2390..=2700).contains(&count("e2e4")), "{counts:?}");
        assert!((940..=1240).contains(&count("d2d4")), "{counts:?}");
        assert!((260..=470).contains(&count("c2c4")), "{counts:?}");
        assert_eq!(count("g1f3"), 0, "{counts:?}");
        assert_eq!(
            book.choose(&play(&["g2g4", "e7e5", "f2f3"]), &mut rng),
            None
        );
        // A position whose only book move has weight 0 has no choice.
        let zero = test_books::Entry {
            key: START,
            mv: "g1f3",
            weight: 0,
            learn: 0,
        };
        let book = Book::from_bytes(&test_books::to_bytes(&[zero])).unwrap();
        assert_eq!(book.moves(&start).len(), 1);
        assert_eq!(book.choose(&start, &mut rng), None);
    }

    #[test]
    fn bad_files_are_refused() {
        let dir = std::env::temp_dir().join(format!("scout-book-test-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        assert!(Book::open(&dir.join("no-such-book.bin")).is_err());
        assert!(Book::open(&dir).is_err(), "a directory is not a book");
        #[cfg(unix)]
        assert!(
            Book::open(Path::new("/dev/zero"))
                .unwrap_err()
                .contains("not a file")
        );
        let whole = test_books::to_bytes(&TEST_BOOK);
        let truncated = dir.join("truncated.bin");
        std::fs::write(&truncated, &whole[..whole.len() - 5]).unwrap();
        let err = Book::open(&truncated).unwrap_err();
        assert!(err.contains("truncated"), "{err}");
        let empty = dir.join("empty.bin");
        std::fs::write(&empty, b"").unwrap();
        assert!(Book::open(&empty).unwrap_err().contains("empty"));
        // Sixteen bytes per entry but out of order: not a book.
        let entry = |key: u64| {
            let mut b = key.to_be_bytes().to_vec();
            b.extend_from_slice(&[0; 8]);
            b
        };
        let unsorted = [entry(2), entry(2), entry(1)].concat();
        assert!(Book::from_bytes(&unsorted).unwrap_err().contains("sorted"));
        std::fs::remove_dir_all(&dir).unwrap();
        // A whole book of one entry works.
        let one = Book::from_bytes(&whole[..16]).unwrap();
        assert_eq!(one.len(), 1);
    }

    #[test]
    fn game_ply_counts_from_the_fullmove_number() {
        assert_eq!(game_ply(&Chess::default()), 0);
        assert_eq!(game_ply(&play(&["e2e4"])), 1);
        assert_eq!(game_ply(&play(&["e2e4", "e7e5", "g1f3"])), 3);
        assert_eq!(game_ply(&from_fen("4k3/8/8/8/8/8/8/4K3 b - - 0 20")), 39);
    }
}
