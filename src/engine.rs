//! The controller: owns the game state, the options and the threads.
//!
//! ```text
//! stdin ─► reader thread ─(Command)─► controller ─(Job)─► search worker ─► stdout
//!            sets `stop` at once          │ answers isready, d, eval    prints info/bestmove
//!                                         ◄──────────(Done)─────────────┘
//! ```
//! The reader thread owns stdin; the worker lives for the whole process and waits for jobs.
//! Only whole lines are written to stdout (each under the stdout lock), so they never
//! interleave. A command that needs the worker idle (`go`, `position`, `ucinewgame`,
//! `setoption`) stops a running search first and waits for its `bestmove`.

use std::io::{BufRead, Write};
use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::thread;
use std::time::Duration;

use crossbeam_channel::{Receiver, Sender, select, unbounded};
use shakmaty::{CastlingMode, Color, Position as _, Square};

use crate::book::{self, Book};
use crate::nnue::{self, Network};
use crate::options::{Effect, Options};
use crate::position::Position;
use crate::score::MAX_PLY;
use crate::search::{IterationInfo, Limits, Reporter, SharedFlags};
use crate::strength::{self, Level};
use crate::tablebase::{ProbeSettings, Tablebases};
use crate::threads::ThreadPool;
use crate::time::{Clock, TimeManager};
use crate::tt::TranspositionTable;
use crate::uci::{self, Command, Go, Start};

/// Writes one line to stdout and flushes it.
pub fn emit(line: &str) {
    let stdout = std::io::stdout();
    let mut lock = stdout.lock();
    let _ = writeln!(lock, "{line}");
    let _ = lock.flush();
}

/// A search for the search thread: the position and everything the search needs with it.
struct SearchJob {
    root: Position,
    history: Vec<u64>,
    limits: Limits,
    time: TimeManager,
    tt: Arc<TranspositionTable>,
    tablebases: Option<Arc<Tablebases>>,
    tb_settings: ProbeSettings,
    mode: CastlingMode,
    /// The root's material for `wdl` in `info` (`None`: UCI_ShowWDL is off).
    wdl_material: Option<u32>,
    /// The level to play at (`None`: full strength).
    strength: Option<Level>,
}

/// Work for the search thread.
enum Job {
    Search(Box<SearchJob>),
    Perft {
        root: Position,
        depth: u32,
        mode: CastlingMode,
    },
    Bench(i32),
    Genfens(Box<crate::tools::genfens::Request>),
    NewGame,
    /// Replace the worker's table (before a resize, so the old one is freed first).
    SetTt(Arc<TranspositionTable>),
    /// Search with this many threads from now on.
    SetThreads(usize),
    /// Evaluate with this network from now on.
    SetNetwork(Arc<Network>),
}

/// Prints the search's progress as UCI `info` lines.
struct UciReporter {
    mode: CastlingMode,
    wdl_material: Option<u32>,
    /// At a level that chooses among several lines: every line shown, by depth and MultiPV
    /// index, written as it would read as the line played (`multipv 1`). `None` at full
    /// strength.
    lines_shown: Option<Vec<ShownLine>>,
}

/// A line as shown: its depth, its MultiPV index and the line as it reads when played.
type ShownLine = (i32, usize, String);

impl UciReporter {
    fn line(&self, info: &IterationInfo) -> String {
        let mut line = uci::info_line(info, self.mode);
        if let Some(material) = self.wdl_material {
            let (w, d, l) = crate::wdl::wdl(info.score, material);
            if let Some(at) = line.find(" nodes ") {
                line.insert_str(at, &format!(" wdl {w} {d} {l}"));
            }
        }
        line
    }

    /// After a level chose line `index` of the iteration at `depth`: prints that line again
    /// as line 1, so that the last `info` a GUI or a match runner reads is the line whose
    /// first move is the `bestmove` (and its score).
    fn show_played(&self, depth: i32, index: usize) {
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

fn worker(jobs: Receiver<Job>, done: Sender<()>, flags: Arc<SharedFlags>) {
    let mut pool = ThreadPool::new(Arc::new(TranspositionTable::new(1)), flags.clone());
    for job in jobs {
        match job {
            Job::Search(job) => {
                let SearchJob {
                    root,
                    history,
                    limits,
                    time,
                    tt,
                    tablebases,
                    tb_settings,
                    mode,
                    wdl_material,
                    strength,
                } = *job;
                pool.set_tt(tt);
                pool.set_tablebases(tablebases, tb_settings);
                let choosing = strength.is_some_and(|level| level.lines > 1);
                let mut reporter = UciReporter {
                    mode,
                    wdl_material,
                    lines_shown: choosing.then(Vec::new),
                };
                // A panic in the search must still produce a legal answer, not a time loss.
                let outcome = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                    if strength.is_some() {
                        pool.search_alone(&root, &history, limits, time, &mut reporter)
                    } else {
                        pool.search(&root, &history, limits, time, &mut reporter)
                    }
                }));
                match outcome {
                    Ok(result) => {
                        // A level with several lines plays one of the lines the GUI was shown
                        // (the last completed iteration): a move that led only an unfinished
                        // iteration was never compared with the others by score.
                        let chosen = strength
                            .filter(|level| level.lines > 1)
                            .map(|level| strength::choose(&result.lines, &level, &mut rand::rng()));
                        let line = chosen.and_then(|i| result.lines.get(i).map(|l| (i, l)));
                        let (best, ponder) = match line {
                            Some((index, line)) => {
                                reporter.show_played(result.depth, index);
                                (Some(line.mv), line.pv.get(1).copied())
                            }
                            None => (result.best, result.ponder),
                        };
                        emit(&uci::bestmove(best, ponder, mode))
                    }
                    Err(_) => {
                        emit(&uci::info_string(
                            "internal error in the search; playing a legal move",
                        ));
                        let any = root.chess().legal_moves().first().copied();
                        emit(&uci::bestmove(any, None, mode));
                        let threads = pool.threads();
                        let net = pool.main().network().clone();
                        pool = ThreadPool::new(Arc::new(TranspositionTable::new(1)), flags.clone());
                        pool.set_threads(threads);
                        pool.set_network(net);
                    }
                }
            }
            Job::Perft { root, depth, mode } => {
                let stdout = std::io::stdout();
                let out = &mut stdout.lock();
                crate::tools::perft::divide(root.chess(), depth, mode, &flags.stop, out);
            }
            Job::Bench(depth) => {
                let stdout = std::io::stdout();
                // With the net the engine plays with (`EvalFile` included).
                let net = pool.main().network().clone();
                let out = &mut stdout.lock();
                crate::tools::bench::run_threads(depth, 1, net, flags.clone(), out);
            }
            Job::Genfens(request) => {
                let net = pool.main().network().clone();
                let mut print = |line: &str| emit(line);
                let made = crate::tools::genfens::run(&request, net, flags.clone(), &mut print);
                if let Err(e) = made {
                    emit(&uci::info_string(&format!("error: genfens: {e}")));
                }
            }
            Job::NewGame => pool.new_game(),
            Job::SetTt(tt) => pool.set_tt(tt),
            Job::SetThreads(n) => pool.set_threads(n),
            Job::SetNetwork(net) => pool.set_network(net),
        }
        if done.send(()).is_err() {
            break;
        }
    }
}

/// The controller's state.
pub struct Engine {
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
    debug: bool,
    /// The network the search evaluates with.
    net: Arc<Network>,
    /// The opening book read from `BookFile` (`None`: no file, or it could not be read).
    book: Option<Book>,
    /// The endgame tablebases of `SyzygyPath` (`None`: none).
    tablebases: Option<Arc<Tablebases>>,
}

impl Engine {
    /// Starts the search worker.
    pub fn new(flags: Arc<SharedFlags>) -> Engine {
        let (jobs_tx, jobs_rx) = unbounded();
        let (done_tx, done_rx) = unbounded();
        let worker_flags = flags.clone();
        thread::Builder::new()
            .name("search".into())
            .stack_size(64 * 1024 * 1024)
            .spawn(move || worker(jobs_rx, done_tx, worker_flags))
            .expect("cannot start the search thread");
        let options = Options::default();
        Engine {
            root: Position::default(),
            history: Vec::new(),
            mode: CastlingMode::Standard,
            tt: Arc::new(TranspositionTable::new(options.hash_mb)),
            options,
            flags,
            jobs: jobs_tx,
            done: done_rx,
            busy: false,
            debug: false,
            net: nnue::default_network(),
            book: None,
            tablebases: None,
        }
    }

    /// Reads commands from stdin until `quit` or the end of input.
    pub fn run(mut self) {
        let (cmd_tx, cmd_rx) = unbounded::<Command>();
        let reader_flags = self.flags.clone();
        thread::Builder::new()
            .name("stdin".into())
            .spawn(move || read_stdin(cmd_tx, reader_flags))
            .expect("cannot start the input thread");
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
                && endless(go)
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
    pub fn handle(&mut self, cmd: Command) -> bool {
        match cmd {
            Command::Uci => {
                for line in uci::uci_banner() {
                    emit(&line);
                }
            }
            Command::IsReady => emit(&uci::readyok()),
            Command::Debug(on) => self.debug = on,
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

    /// A move from the opening book for `go`, if the book may be used: `OwnBook` on and a book
    /// loaded, standard chess, a game on the clock (`wtime`/`btime` given; not `infinite`,
    /// `ponder` or `searchmoves`), the game ply below `BookDepth`, and the position in the
    /// book with a move of positive weight.
    fn book_move(&self, go: &Go) -> Option<book::Choice> {
        let book = self.book.as_ref()?;
        let playing = go.wtime.is_some() || go.btime.is_some();
        if !self.options.own_book
            || self.options.chess960
            || self.mode != CastlingMode::Standard
            || !playing
            || go.infinite
            || go.ponder
            || !go.searchmoves.is_empty()
            || book::game_ply(self.root.chess()) >= self.options.book_depth
        {
            return None;
        }
        book.choose(self.root.chess(), &mut rand::rng())
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

    fn go(&mut self, go: Go) {
        for p in &go.problems {
            emit(&uci::info_string(&format!("go: {p}")));
        }
        if let Some(depth) = go.perft {
            self.perft(depth);
            return;
        }
        if let Some(choice) = self.book_move(&go) {
            let text = uci::move_text(choice.mv, self.mode);
            emit(&uci::info_string(&format!(
                "book move {text} (weight {} of total {})",
                choice.weight, choice.total
            )));
            emit(&uci::bestmove(Some(choice.mv), None, self.mode));
            return;
        }
        let white = self.root.turn() == Color::White;
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
        let clock = Clock {
            time,
            inc,
            movestogo,
            movetime: go.movetime,
            overhead: self.options.move_overhead,
        };
        let timed = time.is_some() || go.movetime.is_some();
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
                    let m = self.root.parse_uci_move(t);
                    if m.is_none() {
                        emit(&uci::info_string(&format!(
                            "searchmoves: '{t}' is not legal here; ignored"
                        )));
                    }
                    m
                })
                .collect(),
            multipv: self.options.multipv,
        };
        // A limited strength is a node budget on one thread and a choice among a few lines;
        // analysis (`go infinite`) is always at full strength.
        let strength = (self.options.limit_strength && !limits.infinite)
            .then(|| strength::level(self.options.elo));
        if let Some(level) = strength {
            limits.nodes = Some(limits.nodes.map_or(level.nodes, |n| n.min(level.nodes)));
            limits.multipv = level.lines;
        }
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
            wdl_material: self
                .options
                .show_wdl
                .then(|| crate::wdl::material(self.root.chess().board())),
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
        let fen =
            shakmaty::fen::Fen::from_position(self.root.chess(), shakmaty::EnPassantMode::Legal);
        lines.push(format!("Fen: {fen}"));
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

/// Would this `go` search until `stop`?
fn endless(go: &Go) -> bool {
    let limited = go.wtime.is_some()
        || go.btime.is_some()
        || go.movetime.is_some()
        || go.depth.is_some()
        || go.nodes.is_some()
        || go.mate.is_some()
        || go.perft.is_some();
    go.infinite || go.ponder || !limited
}

/// The input thread: reads lines, parses them and forwards them; raises the stop flag at once
/// on `stop` and `quit` so the search reacts without waiting for the controller.
fn read_stdin(commands: Sender<Command>, flags: Arc<SharedFlags>) {
    let stdin = std::io::stdin();
    let mut lock = stdin.lock();
    let mut buf = Vec::new();
    loop {
        buf.clear();
        match lock.read_until(b'\n', &mut buf) {
            Ok(0) | Err(_) => break,
            Ok(_) => {}
        }
        // Invalid UTF-8 is replaced rather than rejected: the line is still parsed.
        let line = String::from_utf8_lossy(&buf);
        let cmd = uci::parse(&line);
        match cmd {
            Command::Stop => flags.stop.store(true, Ordering::SeqCst),
            Command::Quit => {
                flags.halt();
            }
            _ => {}
        }
        let quit = cmd == Command::Quit;
        if commands.send(cmd).is_err() || quit {
            return;
        }
    }
    // End of input: quit.
    flags.stop.store(true, Ordering::SeqCst);
    let _ = commands.send(Command::Quit);
}
