//! The controller: owns the game state, the options and the threads, and turns each UCI
//! command into what it asks for.
//!
//! ```text
//! stdin ─► input thread ─(Command)─► controller ─(Job)─► search worker ─► threads ─► search
//!          input.rs                  mod.rs, go.rs       worker.rs       (eval, TT, move picker)
//!          sets `stop` at once       answers isready,        │
//!                                    d, eval                 ├─► `info` lines (reporter.rs)
//!                                        ▲                   ├─► `bestmove`
//!                                        └──────(done)───────┘
//! ```
//! The input thread owns stdin; the worker thread lives for the whole process, owns the
//! thread pool (`threads`) and waits for jobs. Everything printed goes through `output.rs`:
//! only whole lines, each under the stdout lock, so they never interleave. A command that
//! needs the worker idle (`go`, `position`, `ucinewgame`, `setoption`) stops a running search
//! first and waits for its `bestmove`.
//!
//! This file handles the commands: the position, the options and what they load (net, book,
//! tablebases), and the work sent to the worker; `go.rs` reads a `go` (book move, clock,
//! limits, strength). Imports here flow one way: this file uses `go`, `input` and `worker`;
//! `worker` uses `reporter`; all but `input` print with `output`.

mod go;
mod input;
mod output;
mod reporter;
mod worker;

use std::io::Write;
use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::time::Duration;

use crossbeam_channel::{Receiver, Sender, select};
use shakmaty::{CastlingMode, Position as _, Square};

use crate::book::Book;
use crate::nnue::{self, Network};
use crate::options::{Effect, Options};
use crate::position::Position;
use crate::search::SharedFlags;
use crate::tablebase::Tablebases;
use crate::time::TimeManager;
use crate::tt::TranspositionTable;
use crate::uci::{self, Command, Go, Start};
use output::emit;
use worker::{Job, SearchJob};

/// The controller's state.
pub struct Controller {
    root: Position,
    /// Keys of the game positions before `root` (for repetition detection).
    history: Vec<u64>,
    mode: CastlingMode,
    options: Options,
    tt: Arc<TranspositionTable>,
    flags: Arc<SharedFlags>,
    jobs: Sender<Job>,
    done: Receiver<()>,
    busy: bool,
    /// The network the search evaluates with.
    net: Arc<Network>,
    /// The opening book read from `BookFile` (`None`: no file, or it could not be read).
    book: Option<Book>,
    /// The endgame tablebases of `SyzygyPath` (`None`: none).
    tablebases: Option<Arc<Tablebases>>,
}

impl Controller {
    /// Starts the search worker.
    pub fn new(flags: Arc<SharedFlags>) -> Controller {
        let (jobs, done) = worker::spawn(flags.clone());
        let options = Options::default();
        Controller {
            root: Position::default(),
            history: Vec::new(),
            mode: CastlingMode::Standard,
            tt: Arc::new(TranspositionTable::new(options.hash_mb)),
            options,
            flags,
            jobs,
            done,
            busy: false,
            net: nnue::default_network(),
            book: None,
            tablebases: None,
        }
    }

    /// Reads commands from stdin until `quit` or the end of input.
    pub fn run(mut self) {
        let cmd_rx = input::spawn(self.flags.clone());
        loop {
            select! {
                recv(cmd_rx) -> cmd => match cmd {
                    Ok(cmd) => if !self.handle(cmd) {
                        break;
                    },
                    Err(_) => break,
                },
                recv(self.done) -> done => {
                    self.busy = false;
                    if done.is_err() {
                        // The worker is gone: nothing more can be searched.
                        emit(&uci::info_string("the search thread has stopped; exiting"));
                        break;
                    }
                }
            }
        }
        self.quit();
    }

    /// Runs command-line arguments as UCI lines (`scout "go depth 5" "quit"`), each to its end
    /// (a search, bench, perft or genfens finishes before the next line is read), then exits;
    /// stdin is not read. Returns whether every line was a command (a typo such as `benchh` is
    /// answered with an `info string`, and the process then exits with a failure). An argument
    /// may hold several lines. A search that only `stop` could end (`go infinite`, `go ponder`,
    /// a `go` without a limit) is refused.
    pub fn run_lines(mut self, args: &[String]) -> bool {
        let mut understood = true;
        for line in args.iter().flat_map(|a| a.lines()) {
            let cmd = uci::parse(line);
            if matches!(cmd, Command::Invalid(_)) {
                understood = false;
            }
            if let Command::Go(go) = &cmd
                && go::endless(go)
            {
                emit(&uci::info_string(
                    "go: on the command line a search needs a limit (depth, nodes, \
                     movetime, mate or a clock): nothing can stop it",
                ));
                continue;
            }
            if !self.handle(cmd) {
                break;
            }
            if self.busy {
                if self.done.recv().is_err() {
                    emit(&uci::info_string("the search thread has stopped; exiting"));
                    break;
                }
                self.busy = false;
            }
        }
        self.quit();
        understood
    }

    fn quit(&mut self) {
        self.flags.halt();
        // Give a running search a moment to print its bestmove, but never hang on it.
        if self.busy {
            let _ = self.done.recv_timeout(Duration::from_millis(500));
        }
        let _ = std::io::stdout().flush();
    }

    /// Stops a running search and waits until the worker is idle (its bestmove printed).
    fn wait_idle(&mut self) {
        if self.busy {
            self.flags.halt();
            let _ = self.done.recv();
            self.busy = false;
        }
    }

    /// Applies one command. Returns `false` for `quit`: the engine is to exit.
    fn handle(&mut self, cmd: Command) -> bool {
        match cmd {
            Command::Uci => {
                for line in uci::uci_banner() {
                    emit(&line);
                }
            }
            Command::IsReady => emit(&uci::readyok()),
            // Debug mode adds nothing to Scout's output: the command is accepted and ignored.
            Command::Debug(_) => {}
            Command::Register => emit(&uci::info_string("no registration needed")),
            Command::Empty => {}
            Command::Invalid(msg) => emit(&uci::info_string(&msg)),
            Command::Stop => {
                // The reader raised the flag already, but a `go` queued before this `stop`
                // has cleared it since: raise it again. Without a search it has no effect
                // (the next piece of work re-arms the flags), and it also ends pondering
                // when the search it was meant for ended before it arrived.
                self.flags.halt();
            }
            Command::PonderHit => self.flags.pondering.store(false, Ordering::SeqCst),
            Command::Quit => return false,
            Command::UciNewGame => {
                self.wait_idle();
                self.tt.clear();
                self.send(Job::NewGame);
                self.wait_idle();
            }
            Command::SetOption { name, value } => {
                self.wait_idle();
                self.set_option(&name, value.as_deref());
            }
            Command::Position { start, moves } => {
                self.wait_idle();
                self.set_position(start, &moves);
            }
            Command::Go(go) => {
                self.wait_idle();
                self.go(go);
            }
            Command::Display => self.display(),
            Command::Eval => emit(nnue::explain(&self.net, self.root.chess()).trim_end()),
            Command::Bench(depth) => {
                self.wait_idle();
                let depth = depth.map_or(crate::tools::bench::DEFAULT_DEPTH, |d| {
                    d.clamp(1, 64) as i32
                });
                // Like a search, the bench ends at `stop` (and so at any later command).
                self.flags.arm(false);
                self.send(Job::Bench(depth));
            }
            Command::Perft(depth) => {
                self.wait_idle();
                self.perft(depth);
            }
            Command::Genfens(request) => {
                self.wait_idle();
                // Like a search, it ends at `stop` (and so at any later command).
                self.flags.arm(false);
                self.send(Job::Genfens(request));
            }
        }
        true
    }

    fn send(&mut self, job: Job) {
        self.busy = true;
        if self.jobs.send(job).is_err() {
            self.busy = false;
        }
    }

    fn perft(&mut self, depth: u64) {
        let depth = depth.min(20) as u32;
        self.flags.arm(false);
        self.send(Job::Perft {
            root: self.root.clone(),
            depth,
            mode: self.mode,
        });
    }

    /// `setoption`: the value is stored by `Options::set`; what it changes beyond that is done
    /// here.
    fn set_option(&mut self, name: &str, value: Option<&str>) {
        let warn = |message: &str| emit(&uci::info_string(message));
        match self.options.set(name, value, &warn) {
            Effect::Nothing => {}
            Effect::ResizeHash => {
                // Free the old table everywhere first, so both never exist at once.
                self.tt = Arc::new(TranspositionTable::new(1));
                self.send(Job::SetTt(self.tt.clone()));
                self.wait_idle();
                self.tt = Arc::new(TranspositionTable::new(self.options.hash_mb));
                let used = self.tt.size_mb();
                emit(&uci::info_string(&format!("hash table {used} MB")));
            }
            Effect::ClearHash => {
                self.tt.clear();
                emit(&uci::info_string("hash table cleared"));
            }
            Effect::StaleScores => self.tt.clear(),
            Effect::StrengthSwitched => {
                self.send(Job::Units {
                    tt: self.tt.clone(),
                    level: self.options.limit_strength,
                });
                self.wait_idle();
            }
            Effect::SetThreads => {
                self.send(Job::SetThreads(self.options.threads));
                self.wait_idle();
            }
            Effect::CastlingMode => {
                self.mode = if self.options.chess960 {
                    CastlingMode::Chess960
                } else {
                    CastlingMode::Standard
                };
                // Re-read the current position in the new mode (castling notation changes).
                if let Ok(p) = Position::from_fen(&self.root.fen(), self.mode) {
                    self.root = p;
                }
            }
            Effect::OwnBookOn => {
                if self.book.is_none() {
                    emit(&uci::info_string(
                        "OwnBook is on but no book is loaded: set BookFile to a Polyglot .bin",
                    ));
                }
            }
            Effect::LoadEvalFile(path) => self.set_eval_file(&path),
            Effect::LoadBook(path) => self.set_book_file(&path),
            Effect::LoadTablebases(path) => self.set_syzygy_path(&path),
            Effect::Unknown => emit(&uci::info_string(&format!("unknown option '{name}'"))),
        }
    }

    /// `EvalFile`: loads a net, or goes back to the default with an empty value or
    /// `<default>`. A file that cannot be used is refused at once and the current net kept.
    fn set_eval_file(&mut self, path: &str) {
        let net = if path.is_empty() || path == nnue::DEFAULT_EVAL_FILE {
            nnue::default_network()
        } else {
            match nnue::file::load(path) {
                Ok(net) => Arc::new(net),
                Err(e) => {
                    emit(&uci::info_string(&format!(
                        "EvalFile refused: {e}; the evaluation is unchanged"
                    )));
                    return;
                }
            }
        };
        let what = if path.is_empty() || path == nnue::DEFAULT_EVAL_FILE {
            format!("the embedded net ({net:?})")
        } else {
            format!("{path} ({net:?})")
        };
        self.net = net.clone();
        self.send(Job::SetNetwork(net));
        self.wait_idle();
        // Stored static evaluations came from the old evaluation.
        self.tt.clear();
        emit(&uci::info_string(&format!("evaluating with {what}")));
    }

    /// `BookFile`: reads the book now, so a bad file is reported at once (and the book is
    /// then off). An empty path (no value, an empty one or `<empty>`) unloads the book.
    fn set_book_file(&mut self, path: &str) {
        self.book = None;
        if path.is_empty() {
            emit(&uci::info_string("no book file: the book is off"));
            return;
        }
        match Book::open(std::path::Path::new(path)) {
            Ok(b) => {
                emit(&uci::info_string(&format!(
                    "book {path}: {} entries",
                    b.len()
                )));
                self.book = Some(b);
            }
            Err(e) => emit(&uci::info_string(&format!("book off: {e}"))),
        }
    }

    /// `SyzygyPath`: loads the tables of every directory listed (an empty value or `<empty>`
    /// switches them off). Whatever the path holds, the engine goes on: problems are reported
    /// in `info string`s, and without a usable table the search runs without tables.
    fn set_syzygy_path(&mut self, path: &str) {
        if path.is_empty() {
            self.tablebases = None;
            emit(&uci::info_string("SyzygyPath: no tablebases"));
            return;
        }
        let loaded = Tablebases::load(path);
        for message in &loaded.messages {
            emit(&uci::info_string(message));
        }
        self.tablebases = loaded.tables.map(Arc::new);
    }

    fn set_position(&mut self, start: Start, moves: &[String]) {
        let preferred = if self.options.chess960 {
            CastlingMode::Chess960
        } else {
            CastlingMode::Standard
        };
        let (mut pos, mode) = match start {
            Start::StartPos => (Position::default(), preferred),
            Start::Fen(fen) => match Position::from_fen_any(&fen, preferred) {
                Ok(read) => read,
                Err(e) => {
                    emit(&uci::info_string(&format!(
                        "{e}: '{fen}'; position unchanged"
                    )));
                    return;
                }
            },
        };
        let mut history = Vec::with_capacity(moves.len() + 1);
        for text in moves {
            // Moves are read in both notations (e1g1 and e1h1) whatever the mode.
            let m = pos.parse_uci_move(text).or_else(|| {
                let as960 = Position::from_fen(&pos.fen(), CastlingMode::Chess960).ok()?;
                as960.parse_uci_move(text).filter(|m| m.is_castle())
            });
            let Some(m) = m else {
                emit(&uci::info_string(&format!(
                    "illegal or unreadable move '{}' in position command; position unchanged",
                    text.chars().take(20).collect::<String>()
                )));
                return;
            };
            history.push(pos.key());
            // Positions before an irreversible move can never repeat: forget them.
            if m.is_zeroing() {
                history.clear();
            }
            pos = pos.play(m);
        }
        self.root = pos;
        self.history = history;
        self.mode = mode;
    }

    /// `go`: a perft, a book move, or a search (`go.rs` reads its limits) sent to the worker.
    fn go(&mut self, go: Go) {
        for p in &go.problems {
            emit(&uci::info_string(&format!("go: {p}")));
        }
        if let Some(depth) = go.perft {
            self.perft(depth);
            return;
        }
        let book = self.book.as_ref();
        if let Some(choice) = go::book_move(book, &go, &self.options, &self.root, self.mode) {
            let text = uci::move_text(choice.mv, self.mode);
            emit(&uci::info_string(&format!(
                "book move {text} (weight {} of total {})",
                choice.weight, choice.total
            )));
            emit(&uci::bestmove(Some(choice.mv), None, self.mode));
            return;
        }
        let clock = go::clock(&go, &self.root, &self.options);
        let (limits, strength) = go::limits(&go, &clock, &self.root, &self.options);
        self.flags.arm(go.ponder);
        let job = Job::Search(Box::new(SearchJob {
            root: self.root.clone(),
            history: self.history.clone(),
            limits,
            time: TimeManager::new(clock),
            tt: self.tt.clone(),
            tablebases: self.tablebases.clone(),
            tb_settings: self.options.syzygy,
            mode: self.mode,
            show_wdl: self.options.show_wdl,
            strength,
        }));
        self.send(job);
    }

    fn display(&self) {
        let board = self.root.chess().board();
        let mut lines = vec![" +---+---+---+---+---+---+---+---+".to_string()];
        for rank in (0..8).rev() {
            let mut row = String::from(" |");
            for file in 0..8 {
                let sq = Square::from_coords(shakmaty::File::new(file), shakmaty::Rank::new(rank));
                let c = board.piece_at(sq).map_or(' ', |p| p.char());
                row.push_str(&format!(" {c} |"));
            }
            row.push_str(&format!(" {}", rank + 1));
            lines.push(row);
            lines.push(" +---+---+---+---+---+---+---+---+".to_string());
        }
        lines.push("   a   b   c   d   e   f   g   h".to_string());
        lines.push(String::new());
        lines.push(format!("Fen: {}", self.root.fen()));
        lines.push(format!("Key: {:016X}", self.root.key()));
        let checkers: Vec<String> = self
            .root
            .chess()
            .checkers()
            .into_iter()
            .map(|s| s.to_string())
            .collect();
        lines.push(format!("Checkers: {}", checkers.join(" ")));
        let castling = if self.mode == CastlingMode::Chess960 {
            "Chess960"
        } else {
            "standard"
        };
        lines.push(format!("Castling notation: {castling}"));
        for l in lines {
            emit(&l);
        }
    }
}
