//! The options a GUI can set (`setoption`): their values and defaults, and the reading of a
//! spin or check value, which clamps a number to its range or refuses what cannot be read,
//! saying so through `warn`. What setting an option does is the controller's (`engine`).

use crate::strength;
use crate::tablebase::{self, ProbeSettings};

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
    fn checks_read_true_and_false_only() {
        let quiet = |_: &str| {};
        assert_eq!(check("X", Some("TRUE"), &quiet), Some(true));
        assert_eq!(check("X", Some("false"), &quiet), Some(false));
        assert_eq!(check("X", Some("yes"), &quiet), None);
        assert_eq!(check("X", None, &quiet), None);
    }
}
