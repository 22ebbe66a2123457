//! The options a GUI can set (`setoption`): their values and defaults, and the reading of a
//! `setoption` line into them, which clamps a number to its range or refuses what cannot be
//! read, saying so through `warn`. What an option does beyond its stored value (resizing the
//! hash table, starting threads, loading a file) is the controller's (`engine`), told by the
//! [`Effect`] that [`Options::set`] returns.

use crate::strength;
use crate::tablebase::{self, ProbeSettings};
use crate::threads::MAX_THREADS;

/// `BookDepth`'s default: the book answers the first 20 moves of each side (40 plies) at most.
pub const DEFAULT_BOOK_DEPTH: u32 = 40;
/// `BookDepth`'s maximum.
pub const MAX_BOOK_DEPTH: u32 = 1024;

/// The options a GUI can set.
#[derive(Clone, Debug)]
pub struct Options {
    pub hash_mb: usize,
    pub threads: usize,
    pub multipv: usize,
    pub move_overhead: u64,
    pub ponder: bool,
    pub chess960: bool,
    pub show_wdl: bool,
    /// Play book moves (`OwnBook`).
    pub own_book: bool,
    /// The Polyglot book's path as given (`BookFile`; empty: none).
    pub book_file: String,
    /// The book is used while the game ply is below this (`BookDepth`).
    pub book_depth: u32,
    /// `SyzygyPath` as given (`<empty>`: no tables).
    pub syzygy_path: String,
    /// `SyzygyProbeDepth`, `SyzygyProbeLimit`, `Syzygy50MoveRule`.
    pub syzygy: ProbeSettings,
    /// `UCI_LimitStrength`: play at `elo` instead of full strength.
    pub limit_strength: bool,
    /// `UCI_Elo`.
    pub elo: u32,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            hash_mb: 16,
            threads: 1,
            multipv: 1,
            move_overhead: 10,
            ponder: false,
            chess960: false,
            show_wdl: false,
            own_book: false,
            book_file: String::new(),
            book_depth: DEFAULT_BOOK_DEPTH,
            syzygy_path: tablebase::EMPTY_PATH.to_string(),
            syzygy: ProbeSettings::default(),
            limit_strength: false,
            elo: strength::DEFAULT_ELO,
        }
    }
}

/// What the controller has to do after [`Options::set`], beyond the stored value.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Effect {
    /// Nothing: the value is stored, or it was refused with a message.
    Nothing,
    /// `Hash`: make a table of `hash_mb` megabytes.
    ResizeHash,
    /// `Clear Hash`: clear the table and say so.
    ClearHash,
    /// `Syzygy50MoveRule` changed: clear the table quietly (stored scores of cursed wins and
    /// blessed losses meant the other rule).
    StaleScores,
    /// `Threads`: start or stop helpers to have `threads`.
    SetThreads,
    /// `UCI_Chess960` given: re-read the position in the new mode.
    CastlingMode,
    /// `OwnBook` switched on: say so if no book is loaded.
    OwnBookOn,
    /// `EvalFile`: load this net (empty: the embedded one).
    LoadEvalFile(String),
    /// `BookFile`: read this book (empty: none).
    LoadBook(String),
    /// `SyzygyPath`: load the tables of this path.
    LoadTablebases(String),
    /// No option of that name.
    Unknown,
}

impl Options {
    /// Applies `setoption name <name> value <value>` (the name in any case) to the stored
    /// values; a bad value leaves the option unchanged and is reported through `warn`.
    pub fn set(&mut self, name: &str, value: Option<&str>, warn: &dyn Fn(&str)) -> Effect {
        let number = |min: i64, max: i64| spin(name, value, min, max, warn);
        let boolean = || check(name, value, warn);
        let text = || value.unwrap_or("").trim().to_string();
        match name.to_ascii_lowercase().as_str() {
            "hash" => number(1, 65536).map_or(Effect::Nothing, |mb| {
                self.hash_mb = mb as usize;
                Effect::ResizeHash
            }),
            "clear hash" => Effect::ClearHash,
            "threads" => number(1, MAX_THREADS as i64).map_or(Effect::Nothing, |n| {
                self.threads = n as usize;
                Effect::SetThreads
            }),
            "multipv" => {
                if let Some(n) = number(1, 256) {
                    self.multipv = n as usize;
                }
                Effect::Nothing
            }
            "move overhead" => {
                if let Some(n) = number(0, 5000) {
                    self.move_overhead = n as u64;
                }
                Effect::Nothing
            }
            "ponder" => {
                if let Some(b) = boolean() {
                    self.ponder = b;
                }
                Effect::Nothing
            }
            "uci_chess960" => boolean().map_or(Effect::Nothing, |b| {
                self.chess960 = b;
                Effect::CastlingMode
            }),
            "uci_showwdl" => {
                if let Some(b) = boolean() {
                    self.show_wdl = b;
                }
                Effect::Nothing
            }
            "evalfile" => Effect::LoadEvalFile(text()),
            "ownbook" => match boolean() {
                Some(b) => {
                    self.own_book = b;
                    if b {
                        Effect::OwnBookOn
                    } else {
                        Effect::Nothing
                    }
                }
                None => Effect::Nothing,
            },
            "bookfile" => {
                let path = text();
                self.book_file = if path == "<empty>" {
                    String::new()
                } else {
                    path
                };
                Effect::LoadBook(self.book_file.clone())
            }
            "bookdepth" => {
                if let Some(n) = number(0, MAX_BOOK_DEPTH as i64) {
                    self.book_depth = n as u32;
                }
                Effect::Nothing
            }
            "syzygypath" => {
                self.syzygy_path = text();
                Effect::LoadTablebases(self.syzygy_path.clone())
            }
            "syzygyprobedepth" => {
                if let Some(n) = number(1, 100) {
                    self.syzygy.depth = n as i32;
                }
                Effect::Nothing
            }
            "syzygyprobelimit" => {
                if let Some(n) = number(0, tablebase::MAX_TB_PIECES as i64) {
                    self.syzygy.limit = n as usize;
                }
                Effect::Nothing
            }
            "syzygy50moverule" => match boolean() {
                Some(b) if b != self.syzygy.rule50 => {
                    self.syzygy.rule50 = b;
                    Effect::StaleScores
                }
                _ => Effect::Nothing,
            },
            "uci_limitstrength" => {
                if let Some(b) = boolean() {
                    self.limit_strength = b;
                }
                Effect::Nothing
            }
            "uci_elo" => {
                if let Some(n) = number(strength::MIN_ELO as i64, strength::MAX_ELO as i64) {
                    self.elo = n as u32;
                }
                Effect::Nothing
            }
            _ => Effect::Unknown,
        }
    }
}

/// Reads a spin value for option `name`: clamped to `min..=max` (numbers beyond 64 bits go to
/// the nearest end), `None` when it is not a number.
pub fn spin(
    name: &str,
    value: Option<&str>,
    min: i64,
    max: i64,
    warn: &dyn Fn(&str),
) -> Option<i64> {
    let raw = value?;
    let digits = raw.strip_prefix('-').unwrap_or(raw);
    let parsed = match raw.parse::<i64>() {
        Ok(v) => v,
        Err(_) if !digits.is_empty() && digits.chars().all(|c| c.is_ascii_digit()) => {
            if raw.starts_with('-') {
                i64::MIN
            } else {
                i64::MAX
            }
        }
        Err(_) => {
            warn(&format!(
                "option {name}: '{raw}' is not a number; unchanged"
            ));
            return None;
        }
    };
    let clamped = parsed.clamp(min, max);
    if clamped != parsed {
        warn(&format!(
            "option {name}: {raw} is out of range {min}..{max}; using {clamped}"
        ));
    }
    Some(clamped)
}

/// Reads a check value for option `name`: `true` or `false` in any case, else `None`.
pub fn check(name: &str, value: Option<&str>, warn: &dyn Fn(&str)) -> Option<bool> {
    match value.map(|v| v.to_ascii_lowercase()) {
        Some(v) if v == "true" => Some(true),
        Some(v) if v == "false" => Some(false),
        _ => {
            warn(&format!("option {name} takes true or false; unchanged"));
            None
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::cell::RefCell;

    fn read(value: &str, min: i64, max: i64) -> (Option<i64>, Vec<String>) {
        let said = RefCell::new(Vec::new());
        let v = spin("X", Some(value), min, max, &|m| {
            said.borrow_mut().push(m.to_string())
        });
        (v, said.into_inner())
    }

    #[test]
    fn spins_are_clamped_or_refused_with_a_message() {
        assert_eq!(read("12", 1, 64), (Some(12), vec![]));
        let (v, said) = read("100", 1, 64);
        assert_eq!(v, Some(64));
        assert_eq!(said, ["option X: 100 is out of range 1..64; using 64"]);
        assert_eq!(read("-99999999999999999999999", 1, 64).0, Some(1));
        assert_eq!(read("99999999999999999999999", 1, 64).0, Some(64));
        for bad in ["", "-", "12a", "1.5", "--3"] {
            let (v, said) = read(bad, 1, 64);
            assert_eq!(v, None, "{bad:?}");
            assert_eq!(said.len(), 1, "{bad:?}");
        }
    }

    #[test]
    fn setoption_stores_the_value_and_names_the_effect() {
        let said = RefCell::new(Vec::new());
        let warn = |m: &str| said.borrow_mut().push(m.to_string());
        let mut o = Options::default();
        assert_eq!(o.set("HASH", Some("64"), &warn), Effect::ResizeHash);
        assert_eq!(o.hash_mb, 64);
        assert_eq!(o.set("Hash", Some("lots"), &warn), Effect::Nothing);
        assert_eq!(o.hash_mb, 64);
        assert_eq!(o.set("Threads", Some("0"), &warn), Effect::SetThreads);
        assert_eq!(o.threads, 1);
        assert_eq!(o.set("UCI_Elo", Some("99999"), &warn), Effect::Nothing);
        assert_eq!(o.elo, strength::MAX_ELO);
        assert_eq!(
            o.set("uci_chess960", Some("true"), &warn),
            Effect::CastlingMode
        );
        assert!(o.chess960);
        assert_eq!(o.set("OwnBook", Some("true"), &warn), Effect::OwnBookOn);
        assert_eq!(o.set("OwnBook", Some("false"), &warn), Effect::Nothing);
        assert!(!o.own_book);
        assert_eq!(
            o.set("BookFile", Some(" my book.bin "), &warn),
            Effect::LoadBook("my book.bin".into())
        );
        assert_eq!(
            o.set("BookFile", Some("<empty>"), &warn),
            Effect::LoadBook("".into())
        );
        assert_eq!(o.book_file, "");
        assert_eq!(
            o.set("Syzygy50MoveRule", Some("false"), &warn),
            Effect::StaleScores
        );
        assert_eq!(
            o.set("Syzygy50MoveRule", Some("false"), &warn),
            Effect::Nothing
        );
        assert!(!o.syzygy.rule50);
        assert_eq!(o.set("Clear Hash", None, &warn), Effect::ClearHash);
        assert_eq!(o.set("Contempt", Some("10"), &warn), Effect::Unknown);
        // Three refusals or clamps were reported: "lots", Threads 0 and UCI_Elo 99999.
        assert_eq!(said.borrow().len(), 3, "{:?}", said.borrow());
    }

    #[test]
    fn checks_read_true_and_false_only() {
        let quiet = |_: &str| {};
        assert_eq!(check("X", Some("TRUE"), &quiet), Some(true));
        assert_eq!(check("X", Some("false"), &quiet), Some(false));
        assert_eq!(check("X", Some("yes"), &quiet), None);
        assert_eq!(check("X", None, &quiet), None);
    }
}
