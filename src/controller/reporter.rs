//! How a search's progress becomes UCI output: each finished line of an iteration as an `info`
//! line (with `wdl` when `UCI_ShowWDL` is on), the move being searched as `currmove`, and, at
//! a limited strength that chooses among several lines, the chosen line printed again last as
//! `multipv 1`.

use shakmaty::{Board, CastlingMode};

use super::output::emit;
use crate::search::{IterationInfo, Reporter};
use crate::uci;

/// Prints the search's progress as UCI `info` lines.
pub(super) struct UciReporter {
    mode: CastlingMode,
    /// The root, when `wdl` is shown.
    wdl_root: Option<Board>,
    /// At a level that chooses among several lines: every line shown, by depth and MultiPV
    /// index, written as it would read as the line played (`multipv 1`). `None` at full
    /// strength.
    lines_shown: Option<Vec<ShownLine>>,
}

/// A line as shown: its depth, its MultiPV index and the line as it reads when played.
type ShownLine = (i32, usize, String);

impl UciReporter {
    /// A reporter for a search in castling notation `mode`, with `wdl` computed at the root
    /// `wdl_root` (`None`: UCI_ShowWDL is off); `choosing`: a level will choose among
    /// the lines shown, so they are kept for [`UciReporter::show_played`].
    pub(super) fn new(mode: CastlingMode, wdl_root: Option<Board>, choosing: bool) -> Self {
        UciReporter {
            mode,
            wdl_root,
            lines_shown: choosing.then(Vec::new),
        }
    }

    fn line(&self, info: &IterationInfo) -> String {
        let mut line = uci::info_line(info, self.mode);
        if let Some(root) = &self.wdl_root {
            let (w, d, l) = crate::wdl::wdl_at(info.score, root, info.scaled);
            if let Some(at) = line.find(" nodes ") {
                line.insert_str(at, &format!(" wdl {w} {d} {l}"));
            }
        }
        line
    }

    /// After a level chose line `index` of the iteration at `depth`: prints that line again
    /// as line 1, so that the last `info` a GUI or a match runner reads is the line whose
    /// first move is the `bestmove` (and its score).
    pub(super) fn show_played(&self, depth: i32, index: usize) {
        let played = self
            .lines_shown
            .iter()
            .flatten()
            .find(|(d, multipv, _)| (*d, *multipv) == (depth, index + 1));
        if let Some((_, _, line)) = played {
            emit(line);
        }
    }
}

impl Reporter for UciReporter {
    fn iteration(&mut self, info: &IterationInfo) {
        let line = self.line(info);
        let as_played = self.lines_shown.is_some().then(|| {
            self.line(&IterationInfo {
                multipv: 1,
                ..info.clone()
            })
        });
        if let (Some(shown), Some(as_played)) = (&mut self.lines_shown, as_played) {
            let key = (info.depth, info.multipv);
            shown.retain(|(d, multipv, _)| (*d, *multipv) != key);
            shown.push((key.0, key.1, as_played));
        }
        emit(&line);
    }

    fn current_move(&mut self, depth: i32, mv: shakmaty::Move, number: usize) {
        emit(&uci::currmove_line(depth, mv, number, self.mode));
    }
}
