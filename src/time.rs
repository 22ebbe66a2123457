//! Time management: turns the `go` clock arguments into a soft limit (no new iteration is
//! started after it) and a hard limit (the search stops, checked inside the search).

use std::time::Instant;

use crate::params;

/// A percentage (or hundredths) from the parameter table as a fraction.
fn pct(value: i32) -> f64 {
    f64::from(value) / 100.0
}

/// The clock situation of the side to move, from `go`.
#[derive(Clone, Copy, Debug, Default)]
pub struct Clock {
    /// Remaining time in ms (negative values are treated as 0).
    pub time: Option<i64>,
    pub inc: Option<i64>,
    pub movestogo: Option<u64>,
    pub movetime: Option<i64>,
    /// Move Overhead: time lost per move outside the engine (GUI, pipes), in ms.
    pub overhead: u64,
}

/// Soft and hard limits of one search, measured from its start (or from `ponderhit`).
#[derive(Clone, Debug)]
pub struct TimeManager {
    start: Instant,
    soft_ms: Option<u64>,
    hard_ms: Option<u64>,
    /// The limits come from the game clock (`wtime`/`btime`), not from `movetime`.
    on_clock: bool,
}

/// Moves whose overhead is kept in reserve in sudden death (a long game has many more than
/// the moves to go the clock is shared out over).
const RESERVE_MOVES: u64 = 50;

impl TimeManager {
    /// No time limit.
    pub fn infinite() -> TimeManager {
        TimeManager {
            start: Instant::now(),
            soft_ms: None,
            hard_ms: None,
            on_clock: false,
        }
    }

    /// Limits for a clock. Without `time` or `movetime` the search is not timed.
    pub fn new(clock: Clock) -> TimeManager {
        let mut tm = TimeManager::infinite();
        let overhead = clock.overhead as i64;
        if let Some(mt) = clock.movetime {
            let t = (mt.max(0) - overhead).max(1) as u64;
            tm.soft_ms = Some(t);
            tm.hard_ms = Some(t);
            return tm;
        }
        let Some(time) = clock.time else {
            return tm;
        };
        let inc = clock.inc.unwrap_or(0).max(0);
        // What may be spent in all. Every move costs its overhead whatever we search, so it is
        // kept back for this move and for each move still to come before the clock is
        // refilled (in sudden death: for RESERVE_MOVES), less what the increments will pay.
        // Keeping back only this move's overhead lost a 10+0 game at move 228: the clock
        // had been spent down a few ms per move to nothing.
        let moves_left = clock
            .movestogo
            .map_or(RESERVE_MOVES, |m| m.min(RESERVE_MOVES)) as i64;
        let reserve = overhead + (overhead - inc).max(0) * moves_left;
        let avail = (time.max(0) - reserve).max(1) as f64;
        let assumed = if inc > 0 {
            params::tm_moves_to_go_inc()
        } else {
            params::tm_moves_to_go()
        };
        let mtg = clock.movestogo.unwrap_or(assumed as u64).clamp(1, 50) as f64;
        let (soft, hard) = if mtg <= 1.0 {
            // The last move before the control: most of the remaining time is ours, but
            // not all of it: at 40/10 a hard limit of 80% left 34 ms on the clock after
            // the move (the search overruns its limit by a few ms), 70% leaves a margin a
            // slow pipe cannot eat.
            (avail * 0.45, avail * 0.7)
        } else {
            // This move's share of the clock, and the increment, which comes back as soon as
            // the move is made: the soft limit spends a part of the share and of the
            // increment, so that the clock runs down towards a few increments by the end of a
            // game instead of keeping a fifth of it. Searches overrun the soft limit, so on a
            // clock below `tm_inc_guard` increments only that fraction of the increment is
            // spent: the clock settles near a handful of increments and never sinks to where
            // the hard limit alone (a share of the clock) holds it.
            let share = avail / mtg;
            let inc = inc as f64;
            let guard = inc * f64::from(params::tm_inc_guard());
            let inc_spent = if guard > 0.0 {
                inc * (avail / guard).min(1.0)
            } else {
                0.0
            };
            let most = if mtg <= 3.0 {
                0.6
            } else {
                pct(params::tm_hard_pct())
            };
            let hard = ((share + inc) * f64::from(params::tm_hard_mult())).min(avail * most);
            let soft = share * pct(params::tm_soft_pct()) + inc_spent * pct(params::tm_inc_pct());
            (soft.min(hard), hard)
        };
        tm.soft_ms = Some(soft.max(1.0) as u64);
        tm.hard_ms = Some(hard.max(1.0) as u64);
        tm.on_clock = true;
        tm
    }

    /// Restarts the clock (on `ponderhit`).
    pub fn restart(&mut self) {
        self.start = Instant::now();
    }

    pub fn elapsed_ms(&self) -> u64 {
        self.start.elapsed().as_millis() as u64
    }

    /// Do the limits come from the game clock (`wtime`/`btime` without `movetime`)? Only then
    /// is time saved for later moves, e.g. when there is a single legal move.
    pub fn on_clock(&self) -> bool {
        self.on_clock
    }

    /// The soft limit in ms, if any.
    pub fn soft_ms(&self) -> Option<u64> {
        self.soft_ms
    }

    /// The hard limit in ms, if any.
    pub fn hard_ms(&self) -> Option<u64> {
        self.hard_ms
    }

    /// Has the hard limit passed? (Polled inside the search.)
    pub fn hard_limit_reached(&self) -> bool {
        self.hard_ms.is_some_and(|h| self.elapsed_ms() >= h)
    }

    /// May another iteration start? On the clock the soft limit is scaled by how settled the
    /// search is: it stretches when the best move keeps changing or the score dropped, and
    /// shrinks when the same best move survived several iterations and took most of the
    /// nodes. `movetime` asks for exactly that time: its limit is not scaled.
    pub fn should_start_iteration(&self, stability: Stability) -> bool {
        self.scaled_soft_ms(stability)
            .is_none_or(|soft| (self.elapsed_ms() as f64) < soft)
    }

    /// The soft limit for a search as settled as `stability` says (on the clock; `movetime`
    /// keeps its limit), never beyond the hard limit.
    pub fn scaled_soft_ms(&self, stability: Stability) -> Option<f64> {
        let soft = self.soft_ms? as f64;
        if !self.on_clock {
            return Some(soft);
        }
        Some((soft * stability.scale()).min(self.hard_ms.unwrap_or(u64::MAX) as f64))
    }
}

/// What the iterations so far say about the root, for scaling the soft limit.
#[derive(Clone, Copy, Debug, Default)]
pub struct Stability {
    /// A decaying count of best-move changes (halved every iteration).
    pub instability: f64,
    /// Completed iterations in a row that kept the same best move.
    pub stable_iterations: u32,
    /// Fraction of all nodes searched that went below the current best move.
    pub best_move_share: f64,
    /// Best score of this iteration minus that of the previous one, in centipawns.
    pub score_change: i32,
}

impl Stability {
    /// The factor applied to the soft limit, from `tm_scale_min` up to several times (the hard
    /// limit caps what it can stretch to).
    pub fn scale(&self) -> f64 {
        // A best move that keeps changing needs time to settle.
        let mut scale = 1.0 + self.instability;
        // A falling score: the opponent found something, look for a way out.
        if self.score_change < -20 {
            scale *= 1.3;
        }
        // A best move that held for several iterations is unlikely to change now...
        scale *= 1.2 - pct(params::tm_stable_step()) * f64::from(self.stable_iterations.min(8));
        // ...especially when the alternatives were refuted with few nodes.
        scale *= (pct(params::tm_share_base()) - self.best_move_share).clamp(0.6, 1.6);
        scale.max(pct(params::tm_scale_min()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn limits(clock: Clock) -> (u64, u64) {
        let tm = TimeManager::new(clock);
        (tm.soft_ms().unwrap(), tm.hard_ms().unwrap())
    }

    #[test]
    fn movetime_minus_overhead() {
        let (s, h) = limits(Clock {
            movetime: Some(1000),
            overhead: 30,
            ..Clock::default()
        });
        assert_eq!((s, h), (970, 970));
    }

    #[test]
    fn limits_stay_inside_the_clock() {
        for overhead in [0i64, 10, 1000] {
            for time in [0i64, 1, 10, 50, 100, 1000, 1011, 10_000, 100_000] {
                for inc in [0i64, 10, 100, 1000, 100_000] {
                    for mtg in [None, Some(1), Some(2), Some(3), Some(4), Some(10), Some(40)] {
                        let clock = Clock {
                            time: Some(time),
                            inc: Some(inc),
                            movestogo: mtg,
                            overhead: overhead as u64,
                            ..Clock::default()
                        };
                        let case = format!("time {time} inc {inc} mtg {mtg:?} overhead {overhead}");
                        let (s, h) = limits(clock);
                        assert!(1 <= s && s <= h, "{case}: soft {s} hard {h}");
                        // The hard limit is a fraction of what is left after the reserve: at
                        // most 70% on the move before the control, 60% two or three moves
                        // before it, `tm_hard_pct` otherwise.
                        let moves_left = mtg.map_or(RESERVE_MOVES, |m| m.min(RESERVE_MOVES));
                        let reserve = overhead + (overhead - inc).max(0) * moves_left as i64;
                        let avail = (time - reserve).max(1) as f64;
                        let most = match mtg {
                            Some(1) => 0.7,
                            Some(2 | 3) => 0.6,
                            _ => pct(params::tm_hard_pct()),
                        };
                        assert!(h as f64 <= (avail * most).max(1.0), "{case}: hard {h}");
                        // Whatever the increment, the move and its overhead fit in the clock.
                        if time >= overhead + 2 {
                            assert!(h as i64 + overhead < time, "{case}: hard {h}");
                        }
                    }
                }
            }
        }
    }

    /// Plays a game of `moves` moves against the clock, each move taking three times its
    /// soft limit (capped by the hard limit) plus `fixed` ms the engine cannot avoid, and
    /// returns the lowest clock seen after a move.
    fn lowest_clock(base: i64, inc: i64, moves_per: Option<u64>, moves: u64, fixed: i64) -> i64 {
        clock_game(base, inc, moves_per, moves, fixed, 3.0).0
    }

    /// `lowest_clock` with each move taking `overrun` times its soft limit; returns the lowest
    /// clock and the clock at the end.
    fn clock_game(
        base: i64,
        inc: i64,
        moves_per: Option<u64>,
        moves: u64,
        fixed: i64,
        overrun: f64,
    ) -> (i64, i64) {
        let mut clock = base;
        let mut lowest = i64::MAX;
        for k in 0..moves {
            let (s, h) = limits(Clock {
                time: Some(clock),
                inc: Some(inc),
                movestogo: moves_per.map(|m| m - k % m),
                overhead: 10,
                ..Clock::default()
            });
            clock -= ((s as f64 * overrun) as u64).min(h) as i64 + fixed;
            lowest = lowest.min(clock);
            clock += inc;
            if moves_per.is_some_and(|m| (k + 1) % m == 0) {
                clock += base;
            }
        }
        (lowest, clock)
    }

    #[test]
    fn long_games_do_not_run_the_clock_down() {
        // 300 moves (600 plies) in sudden death, paying 1 ms per move beyond the search (what
        // the match runner measured in a 10+0 game), or 250 moves paying 2 ms.
        assert!(lowest_clock(10_000, 0, None, 300, 1) > 0);
        assert!(lowest_clock(3_000, 0, None, 300, 1) > 0);
        assert!(lowest_clock(10_000, 0, None, 250, 2) > 0);
        // Repeating controls and increments refill the clock.
        assert!(lowest_clock(10_000, 0, Some(40), 400, 2) > 10);
        // The last move before the control keeps back part of what is left.
        let (last_soft, last_hard) = limits(Clock {
            time: Some(1000),
            movestogo: Some(1),
            overhead: 10,
            ..Clock::default()
        });
        assert!(
            last_soft < last_hard && last_hard <= 700,
            "{last_soft} {last_hard}"
        );
        assert!(lowest_clock(1_000, 10, None, 400, 2) > 10);
        // With an increment that pays the overhead, nothing beyond one overhead is kept back.
        let (with_inc, _) = limits(Clock {
            time: Some(1000),
            inc: Some(10),
            overhead: 10,
            ..Clock::default()
        });
        // 990 ms shared over 25 moves, 60% of it, and the whole increment (the clock holds
        // more than ten of them).
        assert_eq!(with_inc, (990.0 / 25.0 * 0.6 + 10.0) as u64);
    }

    /// At increment controls the clock runs down towards the increment but settles several
    /// increments above it, where the soft limit, not the hard limit's share of the clock,
    /// still decides: a search that overruns its soft limit by half (what a typical last
    /// iteration does) and pays 2 ms a move outside the search keeps more than 4 increments
    /// for 200 moves; one that spends the old formula's (the clock kept a fifth of itself)
    /// would keep far more.
    #[test]
    fn increment_games_settle_a_few_increments_above_zero() {
        for (base, inc) in [(8_000, 80), (10_000, 100), (1_000, 10), (60_000, 600)] {
            let (lowest, clock) = clock_game(base, inc, None, 200, 2, 1.5);
            assert!(lowest > 4 * inc, "{base}+{inc}: lowest clock {lowest} ms");
            // ...and does run down: by move 200 well under a tenth of the base.
            assert!(
                clock < base / 10,
                "{base}+{inc}: {clock} ms left after 200 moves"
            );
        }
    }

    #[test]
    fn negative_time_is_handled() {
        let (s, h) = limits(Clock {
            time: Some(-500),
            ..Clock::default()
        });
        assert!(s >= 1 && h >= 1 && h <= 1);
    }

    #[test]
    fn soft_limit_shrinks_when_stable_and_stretches_when_not() {
        let settled = Stability {
            stable_iterations: 10,
            best_move_share: 0.95,
            ..Stability::default()
        };
        let unsettled = Stability {
            instability: 1.5,
            stable_iterations: 0,
            best_move_share: 0.4,
            score_change: -40,
        };
        assert!(settled.scale() < 0.6, "{}", settled.scale());
        assert!(unsettled.scale() > 2.0, "{}", unsettled.scale());
        // On the clock the soft limit stretches with the instability, up to the hard limit.
        let tm = TimeManager::new(Clock {
            time: Some(10_000),
            overhead: 10,
            ..Clock::default()
        });
        let (soft, hard) = (tm.soft_ms().unwrap() as f64, tm.hard_ms().unwrap() as f64);
        let stretched = tm.scaled_soft_ms(unsettled).unwrap();
        assert!(
            stretched > 2.0 * soft && stretched < hard,
            "{soft} {stretched} {hard}"
        );
        assert!(tm.scaled_soft_ms(settled).unwrap() < 0.6 * soft);
        let frantic = Stability {
            instability: 20.0,
            ..unsettled
        };
        assert_eq!(tm.scaled_soft_ms(frantic), Some(hard));
    }

    #[test]
    fn untimed_without_clock() {
        assert!(TimeManager::new(Clock::default()).hard_ms().is_none());
        assert!(!TimeManager::new(Clock::default()).on_clock());
    }

    #[test]
    fn movetime_is_timed_but_not_on_the_clock() {
        let clock = Clock {
            time: Some(10_000),
            ..Clock::default()
        };
        assert!(TimeManager::new(clock).on_clock());
        let movetime = TimeManager::new(Clock {
            movetime: Some(1000),
            ..Clock::default()
        });
        assert!(movetime.hard_ms().is_some() && !movetime.on_clock());
        // movetime wins over a clock sent with it.
        let both = TimeManager::new(Clock {
            movetime: Some(1000),
            ..clock
        });
        assert!(!both.on_clock());
    }

    #[test]
    fn movetime_is_not_shortened_by_a_settled_search() {
        let settled = Stability {
            stable_iterations: 10,
            best_move_share: 1.0,
            ..Stability::default()
        };
        assert!(settled.scale() < 0.6);
        let movetime = TimeManager::new(Clock {
            movetime: Some(1000),
            ..Clock::default()
        });
        // A scaled limit would stop before 600 ms; movetime goes on to its end.
        assert_eq!(movetime.scaled_soft_ms(settled), Some(1000.0));
    }
}
