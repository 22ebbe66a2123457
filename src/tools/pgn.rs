//! Games from PGN files, for `convert` (match games as training data) and `genfens` (PGN
//! books). The `pgn-reader` crate does the parsing; this module turns its callbacks into whole
//! games (start position, legal moves with their comments, result) and every problem into an
//! error that names the game and the line: an illegal move, an unreadable FEN or variant, a
//! game cut off before its result, text that is not PGN at all.
//!
//! Chess960 games are recognised by a `Variant` tag (`Chess960`, `fischerandom`, ...) or by a
//! FEN tag that only reads as Chess960 (Shredder-FEN or X-FEN castling rights, the king or the
//! rooks off their standard squares).

use std::cell::RefCell;
use std::fmt;
use std::io::Read;
use std::ops::ControlFlow;
use std::rc::Rc;

use pgn_reader::{KnownOutcome, Outcome, RawComment, RawTag, Reader, SanPlus, Visitor};
use shakmaty::{CastlingMode, Chess, Color, Move, Position as _};

use crate::position::Position;

/// One move of a game with the comments that follow it (joined by a space; empty if none).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PlayedMove {
    pub mv: Move,
    pub comment: String,
}

/// A whole game.
#[derive(Clone, Debug)]
pub struct Game {
    /// Its place in the file (1 for the first game).
    pub number: u64,
    /// The line where it begins.
    pub line: u64,
    pub start: Chess,
    /// Chess960 when the Variant tag says so or the FEN needs it.
    pub mode: CastlingMode,
    /// The FEN tag wrote its castling rights by file (Shredder-FEN, `HAha`).
    pub shredder: bool,
    /// The players, as the White and Black tags name them (empty without the tag).
    pub white: String,
    pub black: String,
    pub moves: Vec<PlayedMove>,
    /// The position after the last move.
    pub end: Chess,
    /// The result the movetext ends with (`Unknown` for `*`).
    pub outcome: Outcome,
}

impl Game {
    /// The winner (`None`: a draw), or `None` for an unfinished game (`*`).
    pub fn result(&self) -> Option<Option<Color>> {
        match self.outcome {
            Outcome::Known(KnownOutcome::Decisive { winner }) => Some(Some(winner)),
            Outcome::Known(KnownOutcome::Draw) => Some(None),
            Outcome::Unknown => None,
        }
    }
}

/// A problem in a PGN file: which game, where it begins, the line of the problem.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PgnError {
    pub game: u64,
    pub game_line: u64,
    pub line: u64,
    pub message: String,
}

impl fmt::Display for PgnError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.line == self.game_line {
            write!(
                f,
                "game {} at line {}: {}",
                self.game, self.line, self.message
            )
        } else {
            write!(
                f,
                "game {} (from line {}), line {}: {}",
                self.game, self.game_line, self.line, self.message
            )
        }
    }
}

/// Does a FEN write castling rights by file (Shredder-FEN)?
pub fn is_shredder(fen: &str) -> bool {
    fen.split_whitespace()
        .nth(2)
        .is_some_and(|c| c.chars().any(|ch| matches!(ch, 'A'..='H' | 'a'..='h')))
}

/// Reads a FEN as standard chess if it can be, else as Chess960 (as the engine does).
pub fn read_fen(fen: &str, chess960: bool) -> Result<(Chess, CastlingMode), String> {
    Position::from_fen_any(fen, CastlingMode::from_chess960(chess960))
        .map(|(p, mode)| (p.chess().clone(), mode))
}

/// The bytes handed to the PGN reader, kept from the start of the current game on, so that
/// byte offsets can be turned into line numbers.
#[derive(Default)]
struct Track {
    /// Bytes delivered so far.
    delivered: u64,
    /// Offset of `window[0]`.
    window_start: u64,
    window: Vec<u8>,
    /// An offset whose line is known (the start of the current game), and that line.
    mark: u64,
    mark_line: u64,
}

impl Track {
    /// The line of byte `offset` (at or after the mark).
    fn line_at(&self, offset: u64) -> u64 {
        let from = (self.mark - self.window_start) as usize;
        let to = ((offset.max(self.mark) - self.window_start) as usize).min(self.window.len());
        self.mark_line
            + self.window[from..to]
                .iter()
                .filter(|&&b| b == b'\n')
                .count() as u64
    }

    /// The line of the last non-blank byte before `offset` (not before the mark).
    fn content_line_before(&self, offset: u64) -> u64 {
        let from = (self.mark - self.window_start) as usize;
        let mut to = ((offset.max(self.mark) - self.window_start) as usize).min(self.window.len());
        while to > from && self.window[to - 1].is_ascii_whitespace() {
            to -= 1;
        }
        self.line_at(self.window_start + to.saturating_sub(1).max(from) as u64)
    }

    /// Moves the mark to `offset` and forgets the bytes before it.
    fn set_mark(&mut self, offset: u64) {
        self.mark_line = self.line_at(offset);
        self.mark = offset;
        let drop = (offset - self.window_start) as usize;
        if drop >= 1 << 16 || drop == self.window.len() {
            self.window.drain(..drop);
            self.window_start = offset;
        }
    }
}

/// The input, counted on its way to the PGN reader.
struct Tracked<R> {
    inner: R,
    track: Rc<RefCell<Track>>,
}

impl<R: Read> Read for Tracked<R> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let n = self.inner.read(buf)?;
        let mut track = self.track.borrow_mut();
        track.delivered += n as u64;
        track.window.extend_from_slice(&buf[..n]);
        Ok(n)
    }
}

/// The games of a PGN input, in order. After the first error the iteration ends.
pub struct Games<R: Read> {
    reader: Reader<Tracked<R>>,
    track: Rc<RefCell<Track>>,
    number: u64,
    failed: bool,
}

impl<R: Read> Games<R> {
    pub fn new(input: R) -> Games<R> {
        let track = Rc::new(RefCell::new(Track {
            mark_line: 1,
            ..Track::default()
        }));
        let reader = Reader::build(Tracked {
            inner: input,
            track: track.clone(),
        })
        .set_supported_tag_line_length(4096)
        .set_supported_comment_length(4096)
        .finish();
        Games {
            reader,
            track,
            number: 0,
            failed: false,
        }
    }

    /// The offset of the next byte the reader will parse.
    fn consumed(&self) -> u64 {
        self.track.borrow().delivered - self.reader.buffer().len() as u64
    }

    fn error(&mut self, line: u64, message: String) -> Option<Result<Game, PgnError>> {
        self.failed = true;
        Some(Err(PgnError {
            game: self.number.max(1),
            game_line: self.track.borrow().mark_line,
            line,
            message,
        }))
    }
}

impl<R: Read> Iterator for Games<R> {
    type Item = Result<Game, PgnError>;

    fn next(&mut self) -> Option<Self::Item> {
        if self.failed {
            return None;
        }
        match self.reader.has_more() {
            Ok(true) => {}
            Ok(false) => return None,
            Err(e) => {
                let line = self.track.borrow().line_at(self.consumed());
                return self.error(line, e.to_string());
            }
        }
        self.number += 1;
        let start = self.consumed();
        self.track.borrow_mut().set_mark(start);
        let read = self.reader.read_game(&mut Collector);
        let here = self.consumed();
        let (line, last_line) = {
            let t = self.track.borrow();
            (t.line_at(here), t.content_line_before(here))
        };
        let game_line = self.track.borrow().mark_line;
        match read {
            Err(e) => self.error(last_line, format!("{e}: the file is truncated or damaged")),
            Ok(None) => None,
            Ok(Some(Err(Failure::Tags(message)))) => self.error(game_line, message),
            Ok(Some(Err(Failure::Move(message)))) => self.error(line, message),
            Ok(Some(Ok(state))) => match state.outcome {
                None if !state.tags && state.moves.is_empty() => self.error(
                    last_line,
                    "not PGN: no tags, no moves and no result".to_string(),
                ),
                None => self.error(
                    last_line,
                    "the game ends without a result (1-0, 0-1, 1/2-1/2 or *): the file is \
                     truncated or damaged"
                        .to_string(),
                ),
                Some(outcome) => Some(Ok(Game {
                    number: self.number,
                    line: game_line,
                    start: state.start,
                    mode: state.mode,
                    shredder: state.shredder,
                    white: state.white,
                    black: state.black,
                    moves: state.moves,
                    end: state.pos,
                    outcome,
                })),
            },
        }
    }
}

/// Why a game could not be read: something in its tags, or at the token just read.
enum Failure {
    Tags(String),
    Move(String),
}

#[derive(Default)]
struct Tags {
    any: bool,
    fen: Option<String>,
    variant: Option<String>,
    white: String,
    black: String,
}

/// A game being read.
struct State {
    tags: bool,
    start: Chess,
    mode: CastlingMode,
    shredder: bool,
    white: String,
    black: String,
    pos: Chess,
    moves: Vec<PlayedMove>,
    outcome: Option<Outcome>,
    /// The part read so far of a comment longer than the reader's buffer.
    partial: String,
}

/// The visitor: builds a [`State`] per game.
struct Collector;

fn is_chess960_variant(variant: &str) -> Result<bool, String> {
    match variant.trim().to_ascii_lowercase().as_str() {
        "" | "standard" | "normal" | "chess" => Ok(false),
        "chess960" | "chess 960" | "960" | "fischerandom" | "fischer random" | "fischerrandom"
        | "frc" => Ok(true),
        other => Err(format!("variant '{other}' is neither chess nor Chess960")),
    }
}

impl Visitor for Collector {
    type Tags = Tags;
    type Movetext = State;
    type Output = Result<State, Failure>;

    fn begin_tags(&mut self) -> ControlFlow<Self::Output, Self::Tags> {
        ControlFlow::Continue(Tags::default())
    }

    fn tag(
        &mut self,
        tags: &mut Self::Tags,
        name: &[u8],
        value: RawTag<'_>,
    ) -> ControlFlow<Self::Output> {
        tags.any = true;
        let text = || String::from_utf8_lossy(&value.decode()).into_owned();
        match name {
            b"FEN" => tags.fen = Some(text()),
            b"Variant" => tags.variant = Some(text()),
            b"White" => tags.white = text(),
            b"Black" => tags.black = text(),
            _ => {}
        }
        ControlFlow::Continue(())
    }

    fn begin_movetext(&mut self, tags: Self::Tags) -> ControlFlow<Self::Output, Self::Movetext> {
        let chess960 = match tags.variant.as_deref().map(is_chess960_variant) {
            None => false,
            Some(Ok(v)) => v,
            Some(Err(e)) => return ControlFlow::Break(Err(Failure::Tags(e))),
        };
        let (start, mode, shredder) = match &tags.fen {
            None => {
                let mode = if chess960 {
                    CastlingMode::Chess960
                } else {
                    CastlingMode::Standard
                };
                (Chess::default(), mode, false)
            }
            Some(fen) => match read_fen(fen, chess960) {
                Ok((pos, mode)) => (pos, mode, is_shredder(fen)),
                Err(e) => {
                    return ControlFlow::Break(Err(Failure::Tags(format!("FEN tag '{fen}': {e}"))));
                }
            },
        };
        ControlFlow::Continue(State {
            tags: tags.any,
            pos: start.clone(),
            start,
            mode,
            shredder,
            white: tags.white,
            black: tags.black,
            moves: Vec::new(),
            outcome: None,
            partial: String::new(),
        })
    }

    fn san(&mut self, state: &mut Self::Movetext, san_plus: SanPlus) -> ControlFlow<Self::Output> {
        if state.outcome.is_some() {
            return ControlFlow::Break(Err(Failure::Move(format!(
                "move {san_plus} after the result"
            ))));
        }
        match san_plus.san.to_move(&state.pos) {
            Ok(mv) => {
                state.pos.play_unchecked(mv);
                state.moves.push(PlayedMove {
                    mv,
                    comment: String::new(),
                });
                ControlFlow::Continue(())
            }
            Err(e) => ControlFlow::Break(Err(Failure::Move(format!(
                "move {} ({san_plus}): {e} in {}",
                state.moves.len() / 2 + 1,
                shakmaty::fen::Fen::from_position(&state.pos, shakmaty::EnPassantMode::Legal)
            )))),
        }
    }

    fn partial_comment(
        &mut self,
        state: &mut Self::Movetext,
        comment: RawComment<'_>,
    ) -> ControlFlow<Self::Output> {
        state
            .partial
            .push_str(&String::from_utf8_lossy(comment.as_bytes()));
        ControlFlow::Continue(())
    }

    fn comment(
        &mut self,
        state: &mut Self::Movetext,
        comment: RawComment<'_>,
    ) -> ControlFlow<Self::Output> {
        let mut text = std::mem::take(&mut state.partial);
        text.push_str(&String::from_utf8_lossy(comment.as_bytes()));
        // A comment before the first move (or after the result) belongs to no move.
        if state.outcome.is_none()
            && let Some(last) = state.moves.last_mut()
        {
            if !last.comment.is_empty() {
                last.comment.push(' ');
            }
            last.comment.push_str(text.trim());
        }
        ControlFlow::Continue(())
    }

    fn outcome(
        &mut self,
        state: &mut Self::Movetext,
        outcome: Outcome,
    ) -> ControlFlow<Self::Output> {
        if state.outcome.is_none() {
            state.outcome = Some(outcome);
        }
        ControlFlow::Continue(())
    }

    fn end_game(&mut self, state: Self::Movetext) -> Self::Output {
        Ok(state)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn games(text: &str) -> Vec<Result<Game, PgnError>> {
        Games::new(text.as_bytes()).collect()
    }

    #[test]
    fn games_moves_comments_and_results() {
        let text = "[Event \"a\"]\n[Result \"1-0\"]\n\n1. e4 {book} e5 {+0.35/14 0.210s, n=1, sd=2}\n2. Nf3 { first } { second } 1-0\n\n\
                    [Event \"b\"]\n\n1. d4 d5 *\n";
        let all = games(text);
        assert_eq!(all.len(), 2);
        let a = all[0].as_ref().unwrap();
        assert_eq!((a.number, a.line), (1, 1));
        assert_eq!(a.moves.len(), 3);
        assert_eq!(a.moves[0].comment, "book");
        assert_eq!(a.moves[1].comment, "+0.35/14 0.210s, n=1, sd=2");
        assert_eq!(a.moves[2].comment, "first second");
        assert_eq!(a.result(), Some(Some(Color::White)));
        let b = all[1].as_ref().unwrap();
        assert_eq!((b.number, b.line), (2, 7));
        assert_eq!(b.result(), None);
        assert_eq!(b.moves.len(), 2);
    }

    #[test]
    fn chess960_is_recognised_by_variant_or_fen() {
        let shredder = "[Variant \"fischerandom\"]\n[FEN \"rk2r3/pppppppp/8/8/8/8/PPPPPPPP/RK2R3 w EAea - 0 9\"]\n\n9. O-O O-O 1/2-1/2\n";
        let g = games(shredder).remove(0).unwrap();
        assert_eq!(g.mode, CastlingMode::Chess960);
        assert!(g.shredder);
        assert!(g.moves[0].mv.is_castle());
        assert_eq!(
            Position::new(g.end.clone()).fen(),
            "r4rk1/pppppppp/8/8/8/8/PPPPPPPP/R4RK1 w - - 2 10"
        );
        // No Variant tag: the FEN alone reads only as Chess960.
        let untagged =
            "[FEN \"rk2r3/pppppppp/8/8/8/8/PPPPPPPP/RK2R3 w EAea - 0 9\"]\n\n9. O-O 1-0\n";
        let g = games(untagged).remove(0).unwrap();
        assert_eq!(g.mode, CastlingMode::Chess960);
        let atomic = "[Variant \"atomic\"]\n\n1. e4 1-0\n";
        let e = games(atomic).remove(0).unwrap_err();
        assert!(e.message.contains("atomic"), "{e}");
    }

    #[test]
    fn errors_name_the_game_and_the_line() {
        let text =
            "[Event \"ok\"]\n\n1. e4 e5 1-0\n\n[Event \"bad\"]\n\n1. e4 e5\n2. Ke3 Nc6 0-1\n";
        let all = games(text);
        assert_eq!(all.len(), 2);
        assert!(all[0].is_ok());
        let e = all[1].as_ref().unwrap_err();
        assert_eq!((e.game, e.game_line, e.line), (2, 5, 8), "{e}");
        assert!(
            e.to_string()
                .starts_with("game 2 (from line 5), line 8: move 2 (Ke3)"),
            "{e}"
        );

        let truncated =
            "[Event \"ok\"]\n\n1. e4 e5 1-0\n\n[Event \"cut\"]\n\n1. e4 e5\n2. Nf3 {+0.3";
        let all = games(truncated);
        let e = all[1].as_ref().unwrap_err();
        assert_eq!((e.game, e.line), (2, 8), "{e}");

        let no_result = "[Event \"cut\"]\n\n1. e4 e5\n2. Nf3\n\n\n";
        let e = games(no_result).remove(0).unwrap_err();
        assert_eq!((e.game, e.line), (1, 4), "{e}");
        assert!(e.message.contains("without a result"), "{e}");

        let garbage = "\n\nthis is not a chess game at all\n";
        let e = games(garbage).remove(0).unwrap_err();
        assert_eq!((e.game, e.line), (1, 3), "{e}");

        assert!(games("").is_empty());
        assert!(games("\n  \n").is_empty());
    }
}
