//! The options a GUI can set (`setoption`): each one's name, default and range, written once
//! here (the `uci` banner announces them from [`ALL`]), their stored values, and the reading of
//! a `setoption` line into them, which clamps a number to its range or refuses what cannot be
//! read, saying so through `warn`. What an option does beyond its stored value (resizing the
//! hash table, starting threads, loading a file) is the controller's (`controller`), told by the
//! [`Effect`] that [`Options::set`] returns.

use crate::strength;
use crate::tablebase::{self, ProbeSettings};
use crate::threads::MAX_THREADS;

/// A spin (integer) option.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Spin {
    pub name: &'static str,
    pub default: i64,
    pub min: i64,
    pub max: i64,
}

/// A check (boolean) option.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Check {
    pub name: &'static str,
    pub default: bool,
}

/// One option as the banner announces it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Spec {
    Spin(Spin),
    Check(Check),
    /// A string option and its default.
    Text(&'static str, &'static str),
    Button(&'static str),
}

/// The value that means "no file" for the path options (`BookFile`, `SyzygyPath`), as GUIs
/// write an empty default.
pub const EMPTY: &str = "<empty>";

pub const HASH: Spin = Spin {
    name: "Hash",
    default: 16,
    min: 1,
    max: 65536,
};
pub const THREADS: Spin = Spin {
    name: "Threads",
    default: 1,
    min: 1,
    max: MAX_THREADS as i64,
};
pub const MULTI_PV: Spin = Spin {
    name: "MultiPV",
    default: 1,
    min: 1,
    max: 256,
};
pub const MOVE_OVERHEAD: Spin = Spin {
    name: "Move Overhead",
    default: 10,
    min: 0,
    max: 5000,
};
pub const PONDER: Check = Check {
    name: "Ponder",
    default: false,
};
pub const CHESS960: Check = Check {
    name: "UCI_Chess960",
    default: false,
};
pub const SHOW_WDL: Check = Check {
    name: "UCI_ShowWDL",
    default: false,
};
pub const EVAL_FILE: &str = "EvalFile";
pub const OWN_BOOK: Check = Check {
    name: "OwnBook",
    default: false,
};
pub const BOOK_FILE: &str = "BookFile";
/// By default the book answers the first 20 moves of each side (40 plies) at most.
pub const BOOK_DEPTH: Spin = Spin {
    name: "BookDepth",
    default: 40,
    min: 0,
    max: 1024,
};
pub const SYZYGY_PATH: &str = "SyzygyPath";
pub const SYZYGY_PROBE_DEPTH: Spin = Spin {
    name: "SyzygyProbeDepth",
    default: 1,
    min: 1,
    max: 100,
};
pub const SYZYGY_PROBE_LIMIT: Spin = Spin {
    name: "SyzygyProbeLimit",
    default: tablebase::MAX_TB_PIECES as i64,
    min: 0,
    max: tablebase::MAX_TB_PIECES as i64,
};
pub const SYZYGY_50_MOVE_RULE: Check = Check {
    name: "Syzygy50MoveRule",
    default: true,
};
pub const LIMIT_STRENGTH: Check = Check {
    name: "UCI_LimitStrength",
    default: false,
};
pub const ELO: Spin = Spin {
    name: "UCI_Elo",
    default: strength::DEFAULT_ELO as i64,
    min: strength::MIN_ELO as i64,
    max: strength::MAX_ELO as i64,
};
pub const CLEAR_HASH: &str = "Clear Hash";

/// Every option, in the order the banner announces them.
pub const ALL: &[Spec] = &[
    Spec::Spin(HASH),
    Spec::Button(CLEAR_HASH),
    Spec::Spin(THREADS),
    Spec::Spin(MULTI_PV),
    Spec::Spin(MOVE_OVERHEAD),
    Spec::Check(PONDER),
    Spec::Check(CHESS960),
    Spec::Check(SHOW_WDL),
    Spec::Text(EVAL_FILE, crate::nnue::DEFAULT_EVAL_FILE),
    Spec::Check(OWN_BOOK),
    Spec::Text(BOOK_FILE, EMPTY),
    Spec::Spin(BOOK_DEPTH),
    Spec::Text(SYZYGY_PATH, EMPTY),
    Spec::Spin(SYZYGY_PROBE_DEPTH),
    Spec::Spin(SYZYGY_PROBE_LIMIT),
    Spec::Check(SYZYGY_50_MOVE_RULE),
    Spec::Check(LIMIT_STRENGTH),
    Spec::Spin(ELO),
];

/// The options a GUI can set, as far as anything reads them later (`Ponder` is only
/// acknowledged; the files are loaded at once by the controller).
#[derive(Clone, Debug)]
pub struct Options {
    pub hash_mb: usize,
    pub threads: usize,
    pub multipv: usize,
    pub move_overhead: u64,
    pub chess960: bool,
    pub show_wdl: bool,
    /// Play book moves (`OwnBook`).
    pub own_book: bool,
    /// The book is used while the game ply is below this (`BookDepth`).
    pub book_depth: u32,
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
            hash_mb: HASH.default as usize,
            threads: THREADS.default as usize,
            multipv: MULTI_PV.default as usize,
            move_overhead: MOVE_OVERHEAD.default as u64,
            chess960: CHESS960.default,
            show_wdl: SHOW_WDL.default,
            own_book: OWN_BOOK.default,
            book_depth: BOOK_DEPTH.default as u32,
            syzygy: ProbeSettings {
                depth: SYZYGY_PROBE_DEPTH.default as i32,
                limit: SYZYGY_PROBE_LIMIT.default as usize,
                rule50: SYZYGY_50_MOVE_RULE.default,
            },
            limit_strength: LIMIT_STRENGTH.default,
            elo: ELO.default as u32,
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
    /// `UCI_LimitStrength` changed: the searches to come score in the other units (a level
    /// searches without the material scaling), so the table and the correction histories
    /// are brought to them now, before the next move's clock runs.
    StrengthSwitched,
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
    /// `SyzygyPath`: load the tables of this path (empty: none).
    LoadTablebases(String),
    /// No option of that name.
    Unknown,
}

impl Options {
    /// Applies `setoption name <name> value <value>` (the name in any case) to the stored
    /// values; a bad value leaves the option unchanged and is reported through `warn`.
    pub fn set(&mut self, name: &str, value: Option<&str>, warn: &dyn Fn(&str)) -> Effect {
        let is = |option: &str| name.eq_ignore_ascii_case(option);
        let number = |spin: Spin| read_spin(name, value, spin.min, spin.max, warn);
        let boolean = || check(name, value, warn);
        let text = || value.unwrap_or("").trim().to_string();
        // A path option's value, where `<empty>` (any case) means none.
        let path = || {
            Some(text())
                .filter(|p| !p.eq_ignore_ascii_case(EMPTY))
                .unwrap_or_default()
        };
        if is(HASH.name) {
            number(HASH).map_or(Effect::Nothing, |mb| {
                self.hash_mb = mb as usize;
                Effect::ResizeHash
            })
        } else if is(CLEAR_HASH) {
            Effect::ClearHash
        } else if is(THREADS.name) {
            number(THREADS).map_or(Effect::Nothing, |n| {
                self.threads = n as usize;
                Effect::SetThreads
            })
        } else if is(MULTI_PV.name) {
            if let Some(n) = number(MULTI_PV) {
                self.multipv = n as usize;
            }
            Effect::Nothing
        } else if is(MOVE_OVERHEAD.name) {
            if let Some(n) = number(MOVE_OVERHEAD) {
                self.move_overhead = n as u64;
            }
            Effect::Nothing
        } else if is(PONDER.name) {
            // Read to refuse a bad value; pondering itself is `go ponder`'s.
            boolean();
            Effect::Nothing
        } else if is(CHESS960.name) {
            boolean().map_or(Effect::Nothing, |b| {
                self.chess960 = b;
                Effect::CastlingMode
            })
        } else if is(SHOW_WDL.name) {
            if let Some(b) = boolean() {
                self.show_wdl = b;
            }
            Effect::Nothing
        } else if is(EVAL_FILE) {
            Effect::LoadEvalFile(text())
        } else if is(OWN_BOOK.name) {
            match boolean() {
                Some(b) => {
                    self.own_book = b;
                    if b {
                        Effect::OwnBookOn
                    } else {
                        Effect::Nothing
                    }
                }
                None => Effect::Nothing,
            }
        } else if is(BOOK_FILE) {
            Effect::LoadBook(path())
        } else if is(BOOK_DEPTH.name) {
            if let Some(n) = number(BOOK_DEPTH) {
                self.book_depth = n as u32;
            }
            Effect::Nothing
        } else if is(SYZYGY_PATH) {
            Effect::LoadTablebases(path())
        } else if is(SYZYGY_PROBE_DEPTH.name) {
            if let Some(n) = number(SYZYGY_PROBE_DEPTH) {
                self.syzygy.depth = n as i32;
            }
            Effect::Nothing
        } else if is(SYZYGY_PROBE_LIMIT.name) {
            if let Some(n) = number(SYZYGY_PROBE_LIMIT) {
                self.syzygy.limit = n as usize;
            }
            Effect::Nothing
        } else if is(SYZYGY_50_MOVE_RULE.name) {
            match boolean() {
                Some(b) if b != self.syzygy.rule50 => {
                    self.syzygy.rule50 = b;
                    Effect::StaleScores
                }
                _ => Effect::Nothing,
            }
        } else if is(LIMIT_STRENGTH.name) {
            match boolean() {
                Some(b) if b != self.limit_strength => {
                    self.limit_strength = b;
                    Effect::StrengthSwitched
                }
                _ => Effect::Nothing,
            }
        } else if is(ELO.name) {
            if let Some(n) = number(ELO) {
                self.elo = n as u32;
            }
            Effect::Nothing
        } else {
            tunable(name, value, warn)
        }
    }
}

/// A tuning build's search parameter (`crate::params`), or else an unknown option.
#[cfg(feature = "tune")]
fn tunable(name: &str, value: Option<&str>, warn: &dyn Fn(&str)) -> Effect {
    let Some(param) = crate::params::TABLE
        .iter()
        .find(|p| p.name.eq_ignore_ascii_case(name))
    else {
        return Effect::Unknown;
    };
    if let Some(v) = read_spin(name, value, param.min.into(), param.max.into(), warn) {
        crate::params::set(param.name, v as i32);
    }
    Effect::Nothing
}

/// Without a tuning build every other name is unknown.
#[cfg(not(feature = "tune"))]
fn tunable(_: &str, _: Option<&str>, _: &dyn Fn(&str)) -> Effect {
    Effect::Unknown
}

/// Reads a spin value for option `name`: clamped to `min..=max` (numbers beyond 64 bits go to
/// the nearest end), `None` when it is not a number.
pub fn read_spin(
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
        let v = read_spin("X", Some(value), min, max, &|m| {
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
        assert_eq!(
            o.set("SyzygyPath", Some("<EMPTY>"), &warn),
            Effect::LoadTablebases("".into())
        );
        assert_eq!(
            o.set("Syzygy50MoveRule", Some("false"), &warn),
            Effect::StaleScores
        );
        assert_eq!(
            o.set("Syzygy50MoveRule", Some("false"), &warn),
            Effect::Nothing
        );
        assert!(!o.syzygy.rule50);
        // A level searches in other units than full strength: switching says so, once.
        for (value, effect) in [
            ("true", Effect::StrengthSwitched),
            ("true", Effect::Nothing),
            ("false", Effect::StrengthSwitched),
            ("false", Effect::Nothing),
        ] {
            assert_eq!(o.set("UCI_LimitStrength", Some(value), &warn), effect);
        }
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
