//! Polyglot books the tests write themselves, so that no third-party book is needed.
//!
//! The positions of the test book are those of the test keys published with the Polyglot book
//! format (the line `e2e4 d7d5 e4e5 f7f5 e1e2 e8f7` and the line `a2a4 b7b5 h2h4 b5b4 c2c4
//! b4c3 a1a3`), and the book stores them under the published keys, written here as numbers: a
//! reader finds them only if it computes Polyglot's keys, as it must for any book. Moves are
//! encoded here from their coordinates, independently of the engine's encoder. Entries are
//! written as Polyglot does: 16 bytes big-endian (`key u64, move u16, weight u16, learn u32`),
//! sorted by key, entries of one key in the order given.
//!
//! This file uses only the standard library: the library's unit tests (`src/book.rs`) include
//! it as well as the integration tests.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};

/// The published Polyglot test keys: moves from the start position and the key after them.
pub const PUBLISHED_KEYS: [(&[&str], u64); 9] = [
    (&[], START),
    (&["e2e4"], AFTER_E4),
    (&["e2e4", "d7d5"], AFTER_E4_D5),
    (&["e2e4", "d7d5", "e4e5"], AFTER_E4_D5_E5),
    // White's e5 pawn stands beside f5: the en-passant file is hashed.
    (&["e2e4", "d7d5", "e4e5", "f7f5"], AFTER_F5),
    (&["e2e4", "d7d5", "e4e5", "f7f5", "e1e2"], AFTER_KE2),
    (&["e2e4", "d7d5", "e4e5", "f7f5", "e1e2", "e8f7"], AFTER_KF7),
    (&["a2a4", "b7b5", "h2h4", "b5b4", "c2c4"], AFTER_C4),
    (
        &["a2a4", "b7b5", "h2h4", "b5b4", "c2c4", "b4c3", "a1a3"],
        AFTER_RA3,
    ),
];

pub const START: u64 = 0x463b96181691fc9c;
pub const AFTER_E4: u64 = 0x823c9b50fd114196;
pub const AFTER_E4_D5: u64 = 0x0756b94461c50fb0;
pub const AFTER_E4_D5_E5: u64 = 0x662fafb965db29d4;
pub const AFTER_F5: u64 = 0x22a48b5a8e47ff78;
pub const AFTER_KE2: u64 = 0x652a607ca3f242c1;
pub const AFTER_KF7: u64 = 0x00fdd303c946bdd9;
pub const AFTER_C4: u64 = 0x3c8123ea7b067637;
pub const AFTER_RA3: u64 = 0x5c3f9b829b279560;

/// One book entry; the move in coordinates (`e2e4`, `a7a8q`; castling king-takes-rook, `e1h1`).
#[derive(Clone, Copy, Debug)]
pub struct Entry {
    pub key: u64,
    pub mv: &'static str,
    pub weight: u16,
    pub learn: u32,
}

const fn entry(key: u64, mv: &'static str, weight: u16, learn: u32) -> Entry {
    Entry {
        key,
        mv,
        weight,
        learn,
    }
}

/// The test book. At the start 1.e4 is stored twice (weights 5 and 2: 7 in all), then 1.d4
/// (3), 1.c4 (1) and 1.Nf3 with weight 0; after 1.e4 one entry (`e7e4`) is no legal move and
/// must be skipped; the line goes on to the position after 3...Kf7 with an en-passant capture
/// (`e5f6`) among the moves. In the second line Black's en-passant capture `b4c3` is stored.
/// Positions outside these lines are out of the book.
pub const TEST_BOOK: [Entry; 17] = [
    entry(START, "e2e4", 5, 1),
    entry(START, "d2d4", 3, 0),
    entry(START, "c2c4", 1, 0),
    entry(START, "g1f3", 0, 0),
    entry(START, "e2e4", 2, 0x0102_0304),
    entry(AFTER_E4, "d7d5", 4, 0),
    entry(AFTER_E4, "e7e4", 9, 0),
    entry(AFTER_E4, "e7e5", 2, 0),
    entry(AFTER_E4, "c7c5", 2, 0),
    entry(AFTER_E4_D5, "e4d5", 10, 0),
    entry(AFTER_E4_D5, "e4e5", 1, 0),
    entry(AFTER_E4_D5_E5, "f7f5", 1, 0),
    entry(AFTER_F5, "e5f6", 2, 0),
    entry(AFTER_F5, "e1e2", 1, 0),
    entry(AFTER_KE2, "e8f7", 1, 0),
    entry(AFTER_KF7, "e2e3", 1, 0),
    entry(AFTER_C4, "b4c3", 1, 0),
];

/// The legal moves the test book gives the start position, duplicates merged:
/// (move, weight), in file order.
pub const START_MOVES: [(&str, u32); 4] = [("e2e4", 7), ("d2d4", 3), ("c2c4", 1), ("g1f3", 0)];

/// The legal moves the test book gives the position after 1.e4 (`e7e4` skipped).
pub const AFTER_E4_MOVES: [(&str, u32); 3] = [("d7d5", 4), ("e7e5", 2), ("c7c5", 2)];

/// The Polyglot encoding of a move in coordinates: to-square in bits 0–5, from-square in bits
/// 6–11 (square = file + 8 × rank), promotion in bits 12–14 (1 knight ... 4 queen).
pub fn encode(mv: &str) -> u16 {
    let b = mv.as_bytes();
    let square = |file: u8, rank: u8| {
        assert!(
            (b'a'..=b'h').contains(&file) && (b'1'..=b'8').contains(&rank),
            "{mv}"
        );
        u16::from(file - b'a') + 8 * u16::from(rank - b'1')
    };
    let promotion = match b.get(4) {
        None => 0,
        Some(b'n') => 1,
        Some(b'b') => 2,
        Some(b'r') => 3,
        Some(b'q') => 4,
        Some(_) => panic!("not a promotion piece: {mv}"),
    };
    square(b[2], b[3]) | (square(b[0], b[1]) << 6) | (promotion << 12)
}

/// The bytes of a book file holding `entries`, sorted by key (a stable sort: the entries of
/// one key keep their order).
pub fn to_bytes(entries: &[Entry]) -> Vec<u8> {
    let mut sorted = entries.to_vec();
    sorted.sort_by_key(|e| e.key);
    let mut out = Vec::with_capacity(16 * sorted.len());
    for e in sorted {
        out.extend_from_slice(&e.key.to_be_bytes());
        out.extend_from_slice(&encode(e.mv).to_be_bytes());
        out.extend_from_slice(&e.weight.to_be_bytes());
        out.extend_from_slice(&e.learn.to_be_bytes());
    }
    out
}

/// A book file written in a directory of its own under the system's temporary directory,
/// removed (with the directory) when dropped.
pub struct BookFile {
    pub path: PathBuf,
}

impl BookFile {
    /// Writes `entries` as `<temp>/scout-test-book-<pid>-<n>/<name>` (`name` may hold spaces).
    pub fn write(name: &str, entries: &[Entry]) -> BookFile {
        static COUNT: AtomicUsize = AtomicUsize::new(0);
        let n = COUNT.fetch_add(1, Ordering::Relaxed);
        let dir = std::env::temp_dir().join(format!("scout-test-book-{}-{n}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join(name);
        std::fs::write(&path, to_bytes(entries)).unwrap();
        BookFile { path }
    }

    pub fn path(&self) -> &Path {
        &self.path
    }
}

impl Drop for BookFile {
    fn drop(&mut self) {
        if let Some(dir) = self.path.parent() {
            let _ = std::fs::remove_dir_all(dir);
        }
    }
}
