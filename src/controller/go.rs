//! Reading a `go` against the controller's state: whether the opening book answers it, the
//! clock of the side to move, and the search's limits and strength level. Oddities in the
//! command (a negative time, `movestogo 0`, an illegal `searchmoves` entry) are reported in
//! `info string`s and read leniently. The controller turns the answers into a search job;
//! nothing here touches the threads.

use shakmaty::{CastlingMode, Color};

use super::output::emit;
use crate::book::{self, Book};
use crate::options::Options;
use crate::position::Position;
use crate::score::MAX_PLY;
use crate::search::Limits;
use crate::strength::{self, Level};
use crate::time::Clock;
use crate::uci::{self, Go};

/// A move from the opening book for `go` at `root`, if the book may be used: `OwnBook` on and
/// a book loaded, standard chess, a game on the clock (`wtime`/`btime` given; not `infinite`,
/// `ponder` or `searchmoves`), the game ply below `BookDepth`, and the position in the book
/// with a move of positive weight.
pub(super) fn book_move(
    book: Option<&Book>,
    go: &Go,
    options: &Options,
    root: &Position,
    mode: CastlingMode,
) -> Option<book::Choice> {
    let book = book?;
    let playing = go.wtime.is_some() || go.btime.is_some();
    if !options.own_book
        || options.chess960
        || mode != CastlingMode::Standard
        || !playing
        || go.infinite
        || go.ponder
        || !go.searchmoves.is_empty()
        || book::game_ply(root.chess()) >= options.book_depth
    {
        return None;
    }
    book.choose(root.chess(), &mut rand::rng())
}

/// The clock of the side to move at `root`, with `Move Overhead`.
pub(super) fn clock(go: &Go, root: &Position, options: &Options) -> Clock {
    let white = root.turn() == Color::White;
    let (mut time, mut inc) = if white {
        (go.wtime, go.winc)
    } else {
        (go.btime, go.binc)
    };
    if time.is_none() {
        // Only the opponent's clock was sent (a GUI bug): assume equal clocks.
        time = if white { go.btime } else { go.wtime };
        inc = inc.or(if white { go.binc } else { go.winc });
    }
    if time.is_some_and(|t| t < 0) || go.movetime.is_some_and(|t| t < 0) {
        emit(&uci::info_string("go: negative time read as 0"));
    }
    let mut movestogo = go.movestogo;
    if movestogo == Some(0) {
        emit(&uci::info_string("go: movestogo 0 ignored"));
        movestogo = None;
    }
    Clock {
        time,
        inc,
        movestogo,
        movetime: go.movetime,
        overhead: options.move_overhead,
    }
}

/// The search's limits for `go` at `root` on `clock`, and the level to play at (`None`: full
/// strength).
pub(super) fn limits(
    go: &Go,
    clock: &Clock,
    root: &Position,
    options: &Options,
) -> (Limits, Option<Level>) {
    let timed = clock.time.is_some() || clock.movetime.is_some();
    let mut limits = Limits {
        depth: go.depth.map(|d| d.clamp(1, MAX_PLY as u64 - 1) as i32),
        nodes: go.nodes,
        soft_nodes: None,
        mate: go.mate.map(|m| m.min(MAX_PLY as u64) as i32),
        // A bare `go` searches until `stop`.
        infinite: go.infinite
            || (!timed && go.depth.is_none() && go.nodes.is_none() && go.mate.is_none()),
        searchmoves: go
            .searchmoves
            .iter()
            .filter_map(|t| {
                let m = root.parse_uci_move(t);
                if m.is_none() {
                    emit(&uci::info_string(&format!(
                        "searchmoves: '{t}' is not legal here; ignored"
                    )));
                }
                m
            })
            .collect(),
        multipv: options.multipv,
    };
    // A limited strength is a node budget on one thread and a choice among a few lines;
    // analysis (`go infinite`) is always at full strength.
    let strength =
        (options.limit_strength && !limits.infinite).then(|| strength::level(options.elo));
    if let Some(level) = strength {
        limits.nodes = Some(limits.nodes.map_or(level.nodes, |n| n.min(level.nodes)));
        limits.multipv = level.lines;
    }
    (limits, strength)
}

/// Would this `go` search until `stop`?
pub(super) fn endless(go: &Go) -> bool {
    let limited = go.wtime.is_some()
        || go.btime.is_some()
        || go.movetime.is_some()
        || go.depth.is_some()
        || go.nodes.is_some()
        || go.mate.is_some()
        || go.perft.is_some();
    go.infinite || go.ponder || !limited
}
