//! The transposition table: a shared, lock-free hash of search results.
//!
//! Each entry is two `AtomicU64` words: `key ^ data` and `data`. A reader accepts an entry
//! only when the two words XOR back to its own key, so a torn write by another thread reads
//! as a miss instead of a corrupt hit (the "lockless hashing" scheme). Entries are grouped
//! in buckets of four (one 64-byte cache line); replacement prefers shallow and old entries.
//! Mate and tablebase scores are stored relative to the node (see `score_to_tt` /
//! `score_from_tt`). A bit marks the entries of nodes a principal variation passed through
//! (`is_tt_pv`).

use std::sync::atomic::{AtomicU8, Ordering};

use crate::memory::ZeroedWords;
use crate::score::{Bound, MATE, MATE_BOUND, MAX_PLY, TB_BOUND};

/// The bound stored in two bits (0: an empty or damaged entry).
fn bound_from_bits(bits: u64) -> Option<Bound> {
    match bits {
        1 => Some(Bound::Upper),
        2 => Some(Bound::Lower),
        3 => Some(Bound::Exact),
        _ => None,
    }
}

/// One result, as stored and as probed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Entry {
    /// Encoded best move (`movepick::encode`), 0 for none.
    pub mv: u16,
    /// Score relative to the node that stored it (mate distances counted from that node).
    pub score: i32,
    /// Static evaluation of the position.
    pub eval: i32,
    /// Depth searched, in plies.
    pub depth: i32,
    pub bound: Bound,
    /// The node was searched as a principal-variation node, or below an entry that was.
    pub pv: bool,
}

const BUCKET: usize = 4;
const GEN_BITS: u64 = 5;
const GEN_MASK: u64 = (1 << GEN_BITS) - 1;

impl Entry {
    // data layout: mv 16 | score 16 | eval 16 | depth 8 | bound 2 | generation 5 | pv 1
    fn pack(self, generation: u8) -> u64 {
        (self.mv as u64)
            | ((self.score as i16 as u16 as u64) << 16)
            | ((self.eval as i16 as u16 as u64) << 32)
            | ((self.depth.clamp(0, 255) as u64) << 48)
            | ((self.bound as u64) << 56)
            | (((generation as u64) & GEN_MASK) << 58)
            | (u64::from(self.pv) << 63)
    }

    /// The entry and the generation (search) that wrote it.
    fn unpack(data: u64) -> Option<(Entry, u8)> {
        let entry = Entry {
            mv: data as u16,
            score: (data >> 16) as u16 as i16 as i32,
            eval: (data >> 32) as u16 as i16 as i32,
            depth: ((data >> 48) & 0xff) as i32,
            bound: bound_from_bits((data >> 56) & 3)?,
            pv: data >> 63 != 0,
        };
        Some((entry, ((data >> 58) & GEN_MASK) as u8))
    }
}

/// Whether a node is "TT-PV": a PV node now, or one whose entry says a principal variation
/// passed through it. The node stores the answer again, so the mark lasts.
#[inline]
pub fn is_tt_pv(pv_node: bool, entry: Option<Entry>) -> bool {
    pv_node || entry.is_some_and(|e| e.pv)
}

/// Converts a score from "plies to mate from the root" to "plies to mate from this node"
/// (tablebase wins and losses, which count plies from the root too, likewise).
pub fn score_to_tt(score: i32, ply: usize) -> i32 {
    if score >= TB_BOUND {
        score + ply as i32
    } else if score <= -TB_BOUND {
        score - ply as i32
    } else {
        score
    }
}

/// Converts a stored node-relative mate (or tablebase) score back to root-relative at `ply`.
pub fn score_from_tt(score: i32, ply: usize) -> i32 {
    if score >= TB_BOUND {
        score - ply as i32
    } else if score <= -TB_BOUND {
        score + ply as i32
    } else {
        score
    }
}

/// The shared table. Every operation takes `&self`; resizing makes a new table.
#[derive(Debug)]
pub struct TranspositionTable {
    words: ZeroedWords,
    buckets: usize,
    generation: AtomicU8,
    /// The units of the scores the table holds: [`NO_UNITS`] when it was just made or
    /// cleared, else those the last search claimed with [`TranspositionTable::hold_units`].
    units: AtomicU8,
}

/// The `units` of a table no search has claimed since it was made or cleared.
const NO_UNITS: u8 = 0;
const SCALED: u8 = 1;
const UNSCALED: u8 = 2;

/// Bytes per bucket: four entries of two words each.
const BUCKET_BYTES: usize = BUCKET * 16;

impl TranspositionTable {
    /// A table of at most `mb` megabytes. Returns the table; `size_mb()` tells what was
    /// really allocated (less when the memory is not available).
    pub fn new(mb: usize) -> TranspositionTable {
        let mut mb = mb.max(1);
        if let Some(avail) = crate::memory::available_mb() {
            mb = mb.min((avail as usize / 2).max(1));
        }
        loop {
            let buckets = (mb * 1024 * 1024 / BUCKET_BYTES).max(1);
            if let Some(words) = ZeroedWords::new(buckets * BUCKET * 2) {
                return TranspositionTable {
                    words,
                    buckets,
                    generation: AtomicU8::new(0),
                    units: AtomicU8::new(NO_UNITS),
                };
            }
            mb /= 2;
        }
    }

    /// The size really in use, in megabytes.
    pub fn size_mb(&self) -> usize {
        self.buckets * BUCKET_BYTES / (1024 * 1024)
    }

    /// Empties the table (safe while no search is running; other threads may hold it).
    pub fn clear(&self) {
        for w in self.words.iter() {
            w.store(0, Ordering::Relaxed);
        }
        self.generation.store(0, Ordering::Relaxed);
        self.units.store(NO_UNITS, Ordering::Relaxed);
    }

    /// Before a search whose scores are `scaled` by material (`nnue/scale.rs`) or not: a
    /// table holding entries in the other units is cleared, since they would mislead the
    /// search, and the table holds this search's units from now on. A table just made or
    /// cleared (`ucinewgame`, `Clear Hash`) holds none, so the first search after it clears
    /// nothing again: clearing a large table costs about a second for every 8 GB, taken
    /// from the clock of the move that does it (a switch of level announces its units at
    /// `setoption` instead: `ThreadPool::prepare_units`). Returns whether the table was
    /// cleared. Call it only while no search is running, as `clear`.
    pub fn hold_units(&self, scaled: bool) -> bool {
        let want = if scaled { SCALED } else { UNSCALED };
        let held = self.units.load(Ordering::Relaxed);
        let other_held = held != NO_UNITS && held != want;
        if other_held {
            self.clear();
        }
        self.units.store(want, Ordering::Relaxed);
        other_held
    }

    /// Starts a new search: entries from earlier searches become replaceable sooner.
    pub fn new_search(&self) {
        let g = (self.generation.load(Ordering::Relaxed) as u64 + 1) & GEN_MASK;
        self.generation.store(g as u8, Ordering::Relaxed);
    }

    fn generation(&self) -> u8 {
        self.generation.load(Ordering::Relaxed)
    }

    #[inline]
    fn bucket_start(&self, key: u64) -> usize {
        // Multiply-shift maps the key uniformly onto [0, buckets) without a division.
        let index = ((key as u128 * self.buckets as u128) >> 64) as usize;
        index * BUCKET * 2
    }

    /// Hints the CPU to load the bucket of `key` (called before playing into a position).
    #[inline]
    pub fn prefetch(&self, key: u64) {
        #[cfg(target_arch = "x86_64")]
        // SAFETY: prefetching is only a hint; the pointer stays inside the table.
        unsafe {
            use std::arch::x86_64::{_MM_HINT_T0, _mm_prefetch};
            let ptr = self.words.as_ptr().add(self.bucket_start(key)) as *const i8;
            _mm_prefetch(ptr, _MM_HINT_T0);
        }
        #[cfg(not(target_arch = "x86_64"))]
        let _ = key;
    }

    /// Looks up `key`.
    #[inline]
    pub fn probe(&self, key: u64) -> Option<Entry> {
        let start = self.bucket_start(key);
        for i in 0..BUCKET {
            let check = self.words[start + 2 * i].load(Ordering::Relaxed);
            let data = self.words[start + 2 * i + 1].load(Ordering::Relaxed);
            if check ^ data == key {
                return Entry::unpack(data).map(|(e, _)| e);
            }
        }
        None
    }

    /// Stores a result. Its `score` must already be node-relative (`score_to_tt`); its `eval`
    /// is the node's static evaluation, clamped here into the stored range (a node in check
    /// has none and passes `-INFINITY`).
    pub fn store(&self, key: u64, new: Entry) {
        let mut new = Entry {
            eval: new.eval.clamp(-MATE_BOUND, MATE_BOUND),
            ..new
        };
        let start = self.bucket_start(key);
        let generation = self.generation();
        let mut victim = 0;
        let mut victim_worth = i32::MAX;
        for i in 0..BUCKET {
            let check = self.words[start + 2 * i].load(Ordering::Relaxed);
            let data = self.words[start + 2 * i + 1].load(Ordering::Relaxed);
            let old = Entry::unpack(data);
            if check ^ data == key {
                // Same position: keep the old move when the new result has none, and keep a
                // deeper result from this search unless the new one is exact.
                if let Some((old, old_generation)) = old {
                    if new.bound != Bound::Exact
                        && old_generation == generation
                        && old.depth > new.depth + 3
                    {
                        return;
                    }
                    if new.mv == 0 {
                        new.mv = old.mv;
                    }
                }
                self.write(start + 2 * i, key, new, generation);
                return;
            }
            // Worth of keeping an entry: its depth, minus a penalty for each search it is old.
            let worth = match old {
                None => i32::MIN,
                Some((e, g)) => {
                    let age = (generation as i32 - g as i32) & GEN_MASK as i32;
                    e.depth - 8 * age
                }
            };
            if worth < victim_worth {
                victim_worth = worth;
                victim = i;
            }
        }
        self.write(start + 2 * victim, key, new, generation);
    }

    #[inline]
    fn write(&self, at: usize, key: u64, entry: Entry, generation: u8) {
        let data = entry.pack(generation);
        self.words[at].store(key ^ data, Ordering::Relaxed);
        self.words[at + 1].store(data, Ordering::Relaxed);
    }

    /// Permille of sampled entries written during the current search (UCI `hashfull`).
    pub fn hashfull(&self) -> u32 {
        let generation = self.generation();
        let sample = (1000 / BUCKET).min(self.buckets);
        let mut used = 0;
        for b in 0..sample {
            for i in 0..BUCKET {
                let data = self.words[(b * BUCKET + i) * 2 + 1].load(Ordering::Relaxed);
                if let Some((_, g)) = Entry::unpack(data)
                    && g == generation
                {
                    used += 1;
                }
            }
        }
        (used * 1000 / (sample * BUCKET)) as u32
    }
}

/// Node-relative mate scores (at most `MATE`, plus a ply for safety) fit the i16 score field.
const _: () = assert!(MATE as usize + MAX_PLY < i16::MAX as usize);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pack_roundtrip() {
        let e = Entry {
            mv: 0xabcd,
            score: -31_000,
            eval: 1234,
            depth: 77,
            bound: Bound::Lower,
            pv: true,
        };
        assert_eq!(Entry::unpack(e.pack(27)), Some((e, 27)));
        let e = Entry { pv: false, ..e };
        assert_eq!(Entry::unpack(e.pack(31)), Some((e, 31)));
    }

    /// A table is cleared when a search in the other units claims it, and only then: never
    /// when it was just made or cleared (`ucinewgame` clears it before the first search of a
    /// game, which must not clear it again on its clock), nor for the same units.
    #[test]
    fn a_table_is_cleared_only_when_it_holds_the_other_units() {
        let tt = TranspositionTable::new(1);
        let entry = Entry {
            mv: 1,
            score: 10,
            eval: 10,
            depth: 5,
            bound: Bound::Exact,
            pv: false,
        };
        let key = 0x0123_4567_89ab_cdef;
        assert!(!tt.hold_units(true), "a new table holds no units");
        tt.store(key, entry);
        assert!(!tt.hold_units(true));
        assert!(tt.probe(key).is_some(), "the same units keep the entries");
        assert!(tt.hold_units(false));
        assert!(tt.probe(key).is_none(), "the other units clear them");
        tt.store(key, entry);
        tt.clear();
        assert!(!tt.hold_units(true), "a cleared table holds no units");
        tt.store(key, entry);
        assert!(!tt.hold_units(true));
        assert!(tt.hold_units(false));
    }

    #[test]
    fn store_and_probe() {
        let tt = TranspositionTable::new(1);
        let stored = Entry {
            mv: 77,
            score: 55,
            eval: -20,
            depth: 9,
            bound: Bound::Exact,
            pv: true,
        };
        tt.store(0x1234_5678_9abc_def0, stored);
        assert_eq!(tt.probe(0x1234_5678_9abc_def0), Some(stored));
        assert!(tt.probe(0x1234_5678_9abc_def1).is_none());
    }

    #[test]
    fn mate_scores_are_node_relative() {
        // Mate in 3 plies found at ply 5 is mate in 8 from the root.
        let root_score = MATE - 8;
        let stored = score_to_tt(root_score, 5);
        assert_eq!(stored, MATE - 3);
        // Reached again at ply 2 it is mate in 5 from the root.
        assert_eq!(score_from_tt(stored, 2), MATE - 5);
        let mated = -(MATE - 8);
        assert_eq!(score_to_tt(mated, 5), -(MATE - 3));
        assert_eq!(score_from_tt(score_to_tt(mated, 5), 2), -(MATE - 5));
        assert_eq!(score_to_tt(123, 9), 123);
    }

    #[test]
    fn bound_classification() {
        assert_eq!(Bound::classify(10, 10, 20), Bound::Upper);
        assert_eq!(Bound::classify(11, 10, 20), Bound::Exact);
        assert_eq!(Bound::classify(20, 10, 20), Bound::Lower);
    }

    #[test]
    fn hashfull_counts_current_generation() {
        let tt = TranspositionTable::new(1);
        assert_eq!(tt.hashfull(), 0);
        for k in 0..100_000u64 {
            let entry = Entry {
                mv: 1,
                score: 0,
                eval: 0,
                depth: 1,
                bound: Bound::Exact,
                pv: false,
            };
            tt.store(k.wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1, entry);
        }
        assert!(tt.hashfull() > 900);
        tt.new_search();
        assert_eq!(tt.hashfull(), 0);
    }
}
