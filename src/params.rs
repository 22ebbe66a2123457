//! The engine's tunable numbers: every margin, depth limit and reduction constant of the
//! search's selective steps, and the shares of the clock time management spends, in one table
//! with the range a tuner may move each one in.
//!
//! Each entry is read through a function of its name (`params::rfp_margin()`). In the normal
//! build that function returns the constant, so the compiler sees a literal and nothing is
//! paid for the indirection. In a tuning build (`cargo build --release --features tune`) the
//! values live in atomics that `setoption` changes: [`TABLE`] lists them with their ranges,
//! and [`set`] stores one. Reductions and margins are integers; fractional constants are
//! written in hundredths (`lmr_base` 75 is 0.75).

/// One tunable number: its name (a UCI option in the tuning build), the value the engine
/// plays with, the range a tuner may explore and the step SPSA perturbs it by at the end of a
/// tune (OpenBench's `c_end`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Param {
    pub name: &'static str,
    pub default: i32,
    pub min: i32,
    pub max: i32,
    pub step: i32,
}

macro_rules! tunables {
    ($($(#[doc = $doc:literal])* $name:ident = $default:literal, $min:literal..=$max:literal, step $step:literal;)*) => {
        /// Every tunable number, in the order of this file.
        pub const TABLE: &[Param] = &[$(Param {
            name: stringify!($name),
            default: $default,
            min: $min,
            max: $max,
            step: $step,
        }),*];

        // Every default within its range, every range non-empty, every step positive.
        const _: () = {
            $(assert!($min <= $default && $default <= $max && $step > 0);)*
        };

        $(
            $(#[doc = $doc])*
            #[cfg(not(feature = "tune"))]
            #[inline(always)]
            pub fn $name() -> i32 {
                $default
            }

            $(#[doc = $doc])*
            #[cfg(feature = "tune")]
            #[inline(always)]
            pub fn $name() -> i32 {
                values::$name.load(std::sync::atomic::Ordering::Relaxed)
            }
        )*

        #[cfg(feature = "tune")]
        #[allow(non_upper_case_globals)]
        mod values {
            use std::sync::atomic::AtomicI32;
            $(pub static $name: AtomicI32 = AtomicI32::new($default);)*
        }

        /// Stores `value` (clamped to the range) in the tunable called `name` (any case).
        /// Returns the value stored, `None` for an unknown name.
        #[cfg(feature = "tune")]
        pub fn set(name: &str, value: i32) -> Option<i32> {
            $(if name.eq_ignore_ascii_case(stringify!($name)) {
                let v = value.clamp($min, $max);
                values::$name.store(v, std::sync::atomic::Ordering::Relaxed);
                return Some(v);
            })*
            None
        }
    };
}

tunables! {
    // Aspiration windows (search/root.rs).
    /// Iterations from this depth on search a window around the last score.
    asp_min_depth = 4, 2..=8, step 1;
    /// Half-width of the first aspiration window, in cp; it widens by half again on each fail.
    asp_delta = 15, 5..=40, step 3;

    // Static pruning before the move loop (search/alphabeta.rs, steps 3.6-3.9).
    /// Reverse futility pruning applies at this depth and below.
    rfp_max_depth = 8, 4..=12, step 1;
    /// Reverse futility pruning: how far above beta the eval must be, per ply of depth.
    rfp_margin = 80, 30..=150, step 8;
    /// Razoring applies at this depth and below.
    razor_max_depth = 3, 1..=6, step 1;
    /// Razoring: how far below alpha the eval must be, per ply of depth.
    razor_margin = 250, 100..=500, step 20;
    /// Null-move pruning applies from this depth on.
    nmp_min_depth = 3, 2..=5, step 1;
    /// Null-move reduction: this many plies...
    nmp_base = 3, 2..=5, step 1;
    /// ...plus one per this many plies of depth...
    nmp_depth_div = 4, 2..=8, step 1;
    /// ...plus one per this many cp the eval exceeds beta...
    nmp_eval_div = 200, 80..=400, step 20;
    /// ...at most this many for the eval.
    nmp_eval_max = 3, 1..=5, step 1;
    /// Internal iterative reduction applies from this depth on.
    iir_min_depth = 4, 2..=8, step 1;

    // Pruning in the move loop (step 3.11).
    /// Late-move pruning applies at this depth and below.
    lmp_max_depth = 8, 4..=12, step 1;
    /// Late-move pruning: quiet moves beyond (lmp_base + depth^2) / 2 are skipped (twice as
    /// many when improving).
    lmp_base = 3, 1..=8, step 1;
    /// Futility pruning applies at this depth and below.
    fut_max_depth = 8, 4..=12, step 1;
    /// Futility pruning: a quiet move is skipped when the eval plus this...
    fut_base = 100, 0..=250, step 10;
    /// ...plus this per ply of depth does not reach alpha.
    fut_margin = 110, 50..=200, step 10;
    /// SEE pruning applies at this depth and below.
    see_max_depth = 8, 4..=12, step 1;
    /// SEE pruning: a quiet move losing more than this per ply of depth is skipped.
    see_quiet_margin = 60, 20..=120, step 6;
    /// SEE pruning: a capture losing more than this per ply of depth squared is skipped.
    see_noisy_margin = 25, 10..=60, step 3;

    // Extensions (step 3.12).
    /// Singular extensions apply from this depth on...
    se_min_depth = 8, 5..=12, step 1;
    /// ...to a TT move stored at most this many plies shallower...
    se_tt_depth_margin = 3, 1..=5, step 1;
    /// ...which is singular when every other move fails low against the TT score minus this
    /// per ply of depth.
    se_beta_margin = 2, 1..=6, step 1;

    // Late-move reductions (step 3.13).
    /// Late-move reductions apply from this depth on.
    lmr_min_depth = 3, 2..=5, step 1;
    /// Reduction base, in hundredths of a ply: lmr_base/100 + ln(depth) ln(move) / (lmr_div/100).
    lmr_base = 75, 0..=150, step 10;
    /// Reduction divisor, in hundredths (see `lmr_base`).
    lmr_div = 225, 150..=350, step 15;
    /// A quiet move's ordering score changes its reduction by one ply per this much (two at
    /// most either way).
    lmr_history_div = 8000, 4000..=16000, step 500;

    // Quiescence (search/quiescence.rs).
    /// Out of check, after this many moves only recaptures are searched.
    qs_move_count = 3, 2..=6, step 1;
    /// Delta pruning: a capture is skipped when the eval plus what it wins plus this does not
    /// reach alpha.
    qs_delta_margin = 200, 50..=400, step 20;

    // Time management (time.rs): a move's share is the clock (less the reserve) shared over
    // the moves to go; the soft limit (no new iteration after it) spends part of the share and
    // of the increment, scaled by how settled the search is.
    /// Moves to go assumed in sudden death without an increment.
    tm_moves_to_go = 30, 15..=50, step 3;
    /// Moves to go assumed in sudden death with an increment.
    tm_moves_to_go_inc = 25, 10..=50, step 3;
    /// The soft limit: this percentage of the share...
    tm_soft_pct = 60, 30..=100, step 5;
    /// ...plus this percentage of the increment...
    tm_inc_pct = 100, 40..=150, step 8;
    /// ...all of it while the clock holds this many increments, in proportion below.
    tm_inc_guard = 10, 2..=30, step 2;
    /// The hard limit (the search stops): this many times the share and the increment...
    tm_hard_mult = 5, 2..=8, step 1;
    /// ...but at most this percentage of the clock.
    tm_hard_pct = 40, 20..=60, step 4;
    /// The soft limit never shrinks below this percentage, however settled the search.
    tm_scale_min = 50, 20..=80, step 5;
    /// A best move that held for an iteration takes this many hundredths off the scale (up to
    /// eight iterations, from 1.2).
    tm_stable_step = 5, 0..=10, step 1;
    /// The scale for the best move's share of the nodes: this (in hundredths) less the share.
    tm_share_base = 160, 120..=200, step 8;
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_unique_and_read_back() {
        let mut names: Vec<&str> = TABLE.iter().map(|p| p.name).collect();
        names.sort_unstable();
        names.dedup();
        assert_eq!(names.len(), TABLE.len());
        let rfp = TABLE.iter().find(|p| p.name == "rfp_margin").unwrap();
        assert_eq!(rfp_margin(), rfp.default);
    }
}
