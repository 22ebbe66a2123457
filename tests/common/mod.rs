//! Shared helpers for the integration tests: a harness that drives the real `scout` binary
//! over UCI, small chess helpers to check the engine's output against shakmaty, the one place
//! that locates the test data of `tests/data` (`test_data`, `syzygy_dir`), and Polyglot books
//! the tests write themselves (`polyglot`).
//!
//! The harness spawns the binary with piped stdin/stdout/stderr. A background thread reads
//! stdout line by line into a channel (so the engine can never block on a full pipe), another
//! collects stderr (to spot panics). Every wait has a timeout and fails with the output seen
//! so far. The child is killed when the harness is dropped.
//!
//! Timeouts are generous (seconds): the tests run on loaded 2-core CI machines. Only the
//! tests whose point is latency use short limits.

#![allow(dead_code)]

pub mod polyglot;

use std::collections::VecDeque;
use std::fs;
use std::io::{BufRead, BufReader, Read, Write};
use std::path::PathBuf;
use std::process::{Child, ChildStdin, Command, ExitStatus, Stdio};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError};
use std::sync::{Arc, Mutex};
use std::thread;
use std::time::{Duration, Instant};

use shakmaty::fen::Fen;
use shakmaty::uci::UciMove;
use shakmaty::{CastlingMode, Chess, EnPassantMode, FromSetup, Move, Position};

/// The engine binary built by Cargo for these tests.
pub const BIN: &str = env!("CARGO_BIN_EXE_scout");

/// The standard start position.
pub const STARTPOS: &str = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1";

/// A generous timeout for anything that should be quick.
pub const GENEROUS: Duration = Duration::from_secs(20);

pub fn ms(n: u64) -> Duration {
    Duration::from_millis(n)
}

pub fn secs(n: u64) -> Duration {
    Duration::from_secs(n)
}

/// How many output lines to keep for failure messages.
const RECENT: usize = 400;

/// The output of one search: every line up to and including `bestmove`.
#[derive(Debug, Clone)]
pub struct SearchOutput {
    /// All lines received, the `bestmove` line last.
    pub lines: Vec<String>,
    /// The best move text (`0000` when there is no legal move).
    pub best: String,
    /// The ponder move text, when given.
    pub ponder: Option<String>,
}

impl SearchOutput {
    /// The `info` lines that carry a score (one per completed iteration or bound).
    pub fn score_lines(&self) -> Vec<&String> {
        self.lines
            .iter()
            .filter(|l| l.starts_with("info") && l.split_whitespace().any(|t| t == "score"))
            .collect()
    }
}

/// Why waiting for a line ended without one.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NoLine {
    Timeout,
    /// The engine closed its stdout (it exited).
    Closed,
}

/// A running `scout` process.
pub struct Engine {
    child: Child,
    stdin: Option<ChildStdin>,
    lines: Receiver<String>,
    stderr: Arc<Mutex<Vec<String>>>,
    recent: VecDeque<String>,
    sent: VecDeque<String>,
    closed: bool,
}

impl Engine {
    /// Starts `scout` in UCI mode.
    pub fn spawn() -> Engine {
        Engine::from_command(Command::new(BIN))
    }

    /// Starts `scout` with an address-space limit (`ulimit -v`, in KiB), so that requests for
    /// huge tables are refused by the allocator instead of taking the machine's memory.
    pub fn spawn_with_memory_limit_kb(kb: u64) -> Engine {
        let mut cmd = Command::new("sh");
        cmd.arg("-c")
            .arg(format!("ulimit -v {kb} && exec \"$0\""))
            .arg(BIN);
        Engine::from_command(cmd)
    }

    fn from_command(mut cmd: Command) -> Engine {
        cmd.stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        let mut child = cmd
            .spawn()
            .unwrap_or_else(|e| panic!("cannot start {BIN}: {e}"));
        let stdout = child.stdout.take().expect("stdout is piped");
        let stderr_pipe = child.stderr.take().expect("stderr is piped");
        let (tx, rx) = mpsc::channel();
        thread::Builder::new()
            .name("scout-stdout".into())
            .spawn(move || {
                let mut reader = BufReader::new(stdout);
                let mut buf = Vec::new();
                loop {
                    buf.clear();
                    match reader.read_until(b'\n', &mut buf) {
                        Ok(0) | Err(_) => break,
                        Ok(_) => {}
                    }
                    let line = String::from_utf8_lossy(&buf);
                    let line = line.trim_end_matches(['\n', '\r']).to_string();
                    if tx.send(line).is_err() {
                        break;
                    }
                }
            })
            .expect("cannot start the stdout reader");
        let stderr = Arc::new(Mutex::new(Vec::new()));
        let sink = stderr.clone();
        thread::Builder::new()
            .name("scout-stderr".into())
            .spawn(move || {
                let mut text = String::new();
                let mut reader = BufReader::new(stderr_pipe);
                let mut buf = [0u8; 4096];
                loop {
                    match reader.read(&mut buf) {
                        Ok(0) | Err(_) => break,
                        Ok(n) => {
                            text.push_str(&String::from_utf8_lossy(&buf[..n]));
                            while let Some(i) = text.find('\n') {
                                let line: String = text.drain(..=i).collect();
                                sink.lock().unwrap().push(line.trim_end().to_string());
                            }
                        }
                    }
                }
                if !text.is_empty() {
                    sink.lock().unwrap().push(text);
                }
            })
            .expect("cannot start the stderr reader");
        Engine {
            stdin: child.stdin.take(),
            child,
            lines: rx,
            stderr,
            recent: VecDeque::new(),
            sent: VecDeque::new(),
            closed: false,
        }
    }

    /// The process id (for messages).
    pub fn pid(&self) -> u32 {
        self.child.id()
    }

    /// Sends one line (a newline is added).
    pub fn send(&mut self, line: &str) {
        let mut bytes = line.as_bytes().to_vec();
        bytes.push(b'\n');
        if let Err(e) = self.try_send_raw(&bytes) {
            let report = self.report();
            panic!("cannot send {line:?} to the engine: {e}\n{report}");
        }
    }

    /// Sends raw bytes as they are (no newline added).
    pub fn try_send_raw(&mut self, bytes: &[u8]) -> std::io::Result<()> {
        self.note_sent(
            String::from_utf8_lossy(bytes)
                .trim_end_matches('\n')
                .to_string(),
        );
        let stdin = self
            .stdin
            .as_mut()
            .ok_or_else(|| std::io::Error::other("stdin already closed"))?;
        stdin.write_all(bytes)?;
        stdin.flush()
    }

    fn note_sent(&mut self, line: String) {
        if self.sent.len() == 40 {
            self.sent.pop_front();
        }
        self.sent.push_back(line);
    }

    /// Closes the engine's stdin (end of input).
    pub fn close_stdin(&mut self) {
        self.stdin = None;
    }

    /// The next output line within `timeout`.
    pub fn next_line(&mut self, timeout: Duration) -> Result<String, NoLine> {
        if self.closed {
            return Err(NoLine::Closed);
        }
        match self.lines.recv_timeout(timeout) {
            Ok(line) => {
                if self.recent.len() == RECENT {
                    self.recent.pop_front();
                }
                self.recent.push_back(line.clone());
                Ok(line)
            }
            Err(RecvTimeoutError::Timeout) => Err(NoLine::Timeout),
            Err(RecvTimeoutError::Disconnected) => {
                self.closed = true;
                Err(NoLine::Closed)
            }
        }
    }

    /// Collects output lines until one matches `pred` (returned last), failing with the
    /// output seen so far when `timeout` passes or the engine exits first.
    pub fn collect_until(
        &mut self,
        what: &str,
        mut pred: impl FnMut(&str) -> bool,
        timeout: Duration,
    ) -> Vec<String> {
        let deadline = Instant::now() + timeout;
        let mut got = Vec::new();
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            match self.next_line(left) {
                Ok(line) => {
                    let done = pred(&line);
                    got.push(line);
                    if done {
                        return got;
                    }
                }
                Err(why) => {
                    let report = self.report();
                    let why = match why {
                        NoLine::Timeout => format!("no such line within {timeout:?}"),
                        NoLine::Closed => "the engine closed its output (exited)".to_string(),
                    };
                    panic!("waiting for {what}: {why}\n{report}");
                }
            }
        }
    }

    /// Waits for a line matching `pred` and returns it (see `collect_until`).
    pub fn expect_line(
        &mut self,
        what: &str,
        pred: impl FnMut(&str) -> bool,
        timeout: Duration,
    ) -> String {
        self.collect_until(what, pred, timeout).pop().unwrap()
    }

    /// Reads output for `duration`, failing if a line matches `pred`. Returns what was read.
    pub fn expect_no_line(
        &mut self,
        what: &str,
        mut pred: impl FnMut(&str) -> bool,
        duration: Duration,
    ) -> Vec<String> {
        let deadline = Instant::now() + duration;
        let mut got = Vec::new();
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            if left.is_zero() {
                return got;
            }
            match self.next_line(left) {
                Ok(line) => {
                    if pred(&line) {
                        let report = self.report();
                        panic!("unexpected {what}: {line:?}\n{report}");
                    }
                    got.push(line);
                }
                Err(NoLine::Timeout) => return got,
                Err(NoLine::Closed) => {
                    let report = self.report();
                    panic!("the engine exited while checking for no {what}\n{report}");
                }
            }
        }
    }

    /// Everything already printed, without waiting.
    pub fn drain(&mut self) -> Vec<String> {
        let mut got = Vec::new();
        while let Ok(line) = self.next_line(Duration::ZERO) {
            got.push(line);
        }
        got
    }

    /// Waits for `bestmove` and returns the search output.
    pub fn wait_bestmove(&mut self, timeout: Duration) -> SearchOutput {
        let lines = self.collect_until("bestmove", |l| l.starts_with("bestmove"), timeout);
        let last = lines.last().unwrap().clone();
        let tokens: Vec<&str> = last.split_whitespace().collect();
        let best = tokens.get(1).map(|s| s.to_string()).unwrap_or_default();
        let ponder = match tokens.get(2) {
            Some(&"ponder") => tokens.get(3).map(|s| s.to_string()),
            _ => None,
        };
        assert!(
            tokens.len() == 2 || (tokens.len() == 4 && ponder.is_some()),
            "malformed bestmove line {last:?}"
        );
        SearchOutput {
            lines,
            best,
            ponder,
        }
    }

    /// Sends `isready` and waits for `readyok`; returns the round-trip time.
    pub fn isready_ok(&mut self, timeout: Duration) -> Duration {
        let t = Instant::now();
        self.send("isready");
        self.expect_line("readyok", |l| l == "readyok", timeout);
        t.elapsed()
    }

    /// `uci` ... `uciok`; returns the lines.
    pub fn uci(&mut self) -> Vec<String> {
        self.send("uci");
        self.collect_until("uciok", |l| l == "uciok", GENEROUS)
    }

    /// The `Fen:` line of `d`.
    pub fn fen(&mut self) -> String {
        self.send("d");
        let line = self.expect_line("the Fen: line of d", |l| l.starts_with("Fen: "), GENEROUS);
        line["Fen: ".len()..].trim().to_string()
    }

    /// Fails unless the process is running and has printed no panic on stderr.
    pub fn assert_alive(&mut self) {
        if let Ok(Some(status)) = self.child.try_wait() {
            let report = self.report();
            panic!("the engine exited ({status})\n{report}");
        }
        self.assert_no_panic();
    }

    /// Fails if the engine printed a panic message on stderr.
    pub fn assert_no_panic(&self) {
        let err = self.stderr.lock().unwrap();
        if err.iter().any(|l| l.contains("panicked")) {
            panic!("the engine panicked:\n{}", err.join("\n"));
        }
    }

    /// Waits for the process to end; `None` if it is still running after `timeout`.
    pub fn wait_exit(&mut self, timeout: Duration) -> Option<ExitStatus> {
        let deadline = Instant::now() + timeout;
        loop {
            if let Ok(Some(status)) = self.child.try_wait() {
                return Some(status);
            }
            if Instant::now() >= deadline {
                return None;
            }
            thread::sleep(ms(5));
        }
    }

    /// The last lines sent and received and stderr, for failure messages.
    pub fn report(&self) -> String {
        let err = self.stderr.lock().unwrap().join("\n");
        format!(
            "--- last lines sent (newest last) ---\n{}\n--- last lines received (newest last) ---\n{}\n--- stderr ---\n{}",
            self.sent.iter().cloned().collect::<Vec<_>>().join("\n"),
            self.recent.iter().cloned().collect::<Vec<_>>().join("\n"),
            err
        )
    }
}

impl Drop for Engine {
    fn drop(&mut self) {
        self.stdin = None;
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

// -------------------------------------------------------------------------------------------
// Chess helpers

/// The crate's directory.
pub fn crate_root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// The test data directory, `tests/data` (see its README: the perft suites and the Syzygy
/// tables the tests probe, with their origins and licences).
pub fn test_data_dir() -> PathBuf {
    crate_root().join("tests/data")
}

/// Reads a text file of `tests/data`, e.g. `test_data("perft/standard.epd")`.
pub fn test_data(relative: &str) -> String {
    let path = test_data_dir().join(relative);
    fs::read_to_string(&path)
        .unwrap_or_else(|e| panic!("cannot read the test data file {}: {e}", path.display()))
}

/// The directory of the Syzygy tables the tests probe, `tests/data/syzygy`.
pub fn syzygy_dir() -> PathBuf {
    let dir = test_data_dir().join("syzygy");
    assert!(
        dir.join("KQvK.rtbw").is_file(),
        "the Syzygy tables of the tests are missing from {}",
        dir.display()
    );
    dir
}

/// One line of a perft suite: the FEN and `(depth, count)` pairs.
#[derive(Debug, Clone)]
pub struct PerftCase {
    pub line: usize,
    pub fen: String,
    pub counts: Vec<(u32, u64)>,
}

/// Parses `FEN ;D1 n ;D2 n ...` lines (blank lines skipped; tolerant of a missing final newline).
pub fn parse_perft_suite(text: &str) -> Vec<PerftCase> {
    let mut cases = Vec::new();
    for (i, raw) in text.lines().enumerate() {
        let raw = raw.trim();
        if raw.is_empty() || raw.starts_with('#') {
            continue;
        }
        let mut parts = raw.split(';');
        let fen = parts.next().unwrap().trim().to_string();
        let mut counts = Vec::new();
        for p in parts {
            let mut t = p.split_whitespace();
            let d = t
                .next()
                .unwrap_or_else(|| panic!("line {}: empty field", i + 1));
            let n = t
                .next()
                .unwrap_or_else(|| panic!("line {}: no count after {d}", i + 1));
            let depth: u32 = d
                .strip_prefix('D')
                .and_then(|d| d.parse().ok())
                .unwrap_or_else(|| panic!("line {}: bad depth field {d:?}", i + 1));
            let count: u64 = n
                .parse()
                .unwrap_or_else(|_| panic!("line {}: bad count {n:?}", i + 1));
            counts.push((depth, count));
        }
        cases.push(PerftCase {
            line: i + 1,
            fen,
            counts,
        });
    }
    cases
}

/// Parses a FEN in `mode`, accepting positions with an impossible check (perft suites hold one).
pub fn chess_from_fen(fen: &str, mode: CastlingMode) -> Result<Chess, String> {
    let parsed: Fen = fen.parse().map_err(|e| format!("bad FEN {fen:?}: {e}"))?;
    match Chess::from_setup(parsed.into_setup(), mode) {
        Ok(p) => Ok(p),
        Err(e) => e
            .ignore_impossible_check()
            .map_err(|e| format!("illegal position {fen:?}: {e}")),
    }
}

/// The FEN of a position as shakmaty writes it.
pub fn fen_of(pos: &Chess) -> String {
    Fen::from_position(pos, EnPassantMode::Legal).to_string()
}

/// The UCI text of a move in the given castling notation.
pub fn move_text(m: Move, mode: CastlingMode) -> String {
    UciMove::from_move(m, mode).to_string()
}

/// Reads a move printed by the engine: it must be legal in `pos` and written exactly as UCI
/// writes it in `mode` (castling e1g1 in standard chess, king-takes-rook in Chess960).
pub fn engine_move(pos: &Chess, text: &str, mode: CastlingMode) -> Result<Move, String> {
    let uci: UciMove = text
        .parse()
        .map_err(|_| format!("unreadable move {text:?}"))?;
    let m = uci
        .to_move(pos)
        .map_err(|_| format!("illegal move {text:?} in {}", fen_of(pos)))?;
    let canonical = move_text(m, mode);
    if canonical != text {
        return Err(format!(
            "move {text:?} in {} should be written {canonical:?}",
            fen_of(pos)
        ));
    }
    Ok(m)
}

/// Checks a move sequence (a `pv`) is legal from `pos`; returns the final position.
pub fn play_line(pos: &Chess, moves: &[&str], mode: CastlingMode) -> Result<Chess, String> {
    let mut p = pos.clone();
    for (i, text) in moves.iter().enumerate() {
        let m =
            engine_move(&p, text, mode).map_err(|e| format!("move {} of {moves:?}: {e}", i + 1))?;
        p.play_unchecked(m);
    }
    Ok(p)
}

/// The moves after `pv` in an info line (empty when there is none).
pub fn pv_of(line: &str) -> Vec<&str> {
    let tokens: Vec<&str> = line.split_whitespace().collect();
    match tokens.iter().position(|t| *t == "pv") {
        Some(i) => tokens[i + 1..].to_vec(),
        None => Vec::new(),
    }
}

/// The number after `key` in an info line.
pub fn info_value(line: &str, key: &str) -> Option<i64> {
    let tokens: Vec<&str> = line.split_whitespace().collect();
    let i = tokens.iter().position(|t| *t == key)?;
    tokens.get(i + 1)?.parse().ok()
}

/// The score of an info line: `("cp", n)` or `("mate", n)`.
pub fn info_score(line: &str) -> Option<(String, i64)> {
    let tokens: Vec<&str> = line.split_whitespace().collect();
    let i = tokens.iter().position(|t| *t == "score")?;
    let kind = tokens.get(i + 1)?.to_string();
    let n = tokens.get(i + 2)?.parse().ok()?;
    Some((kind, n))
}

/// The last complete set of MultiPV lines (the lines of the deepest depth printed in full).
pub fn last_multipv_set(lines: &[String], k: usize) -> Vec<String> {
    let scored: Vec<&String> = lines
        .iter()
        .filter(|l| l.starts_with("info depth") && l.contains(" multipv ") && !l.contains("bound"))
        .collect();
    let deepest = scored
        .iter()
        .filter_map(|l| info_value(l, "depth"))
        .filter(|d| {
            let n = scored
                .iter()
                .filter(|l| info_value(l, "depth") == Some(*d))
                .count();
            n >= k
        })
        .max()
        .expect("no complete MultiPV iteration");
    let set: Vec<String> = scored
        .iter()
        .filter(|l| info_value(l, "depth") == Some(deepest))
        .map(|l| l.to_string())
        .collect();
    set[set.len() - k..].to_vec()
}

/// An info line's score as one number: centipawns, or ±100,000 minus the moves to mate.
pub fn info_cp(line: &str) -> i64 {
    match info_score(line).expect("score") {
        (kind, n) if kind == "cp" => n,
        (_, n) => {
            if n > 0 {
                100_000 - n
            } else {
                -100_000 - n
            }
        }
    }
}

/// Checks a whole search output from `pos`: every `pv` and `currmove` legal, no score without a
/// `pv`, the bestmove legal (or `0000` exactly when there is no legal move), the ponder move
/// legal after it.
pub fn check_search(pos: &Chess, out: &SearchOutput, mode: CastlingMode) -> Result<(), String> {
    for line in &out.lines {
        if !line.starts_with("info") || line.starts_with("info string") {
            continue;
        }
        let pv = pv_of(line);
        play_line(pos, &pv, mode).map_err(|e| format!("pv in {line:?}: {e}"))?;
        let scored = line.split_whitespace().any(|t| t == "score");
        if scored && pv.is_empty() && !pos.legal_moves().is_empty() {
            return Err(format!("a score without a pv: {line:?}"));
        }
        let tokens: Vec<&str> = line.split_whitespace().collect();
        if let Some(i) = tokens.iter().position(|t| *t == "currmove") {
            let m = tokens.get(i + 1).ok_or("currmove without a move")?;
            engine_move(pos, m, mode).map_err(|e| format!("currmove in {line:?}: {e}"))?;
        }
    }
    if pos.legal_moves().is_empty() {
        if out.best != "0000" || out.ponder.is_some() {
            return Err(format!(
                "no legal move in {} but the engine said {:?}",
                fen_of(pos),
                out.lines.last()
            ));
        }
        return Ok(());
    }
    let best = engine_move(pos, &out.best, mode).map_err(|e| format!("bestmove: {e}"))?;
    // The last first line shown (`multipv 1`, or no multipv) begins with the move played, also
    // when that move took the lead in an unfinished iteration.
    let last_first = out
        .score_lines()
        .into_iter()
        .rfind(|l| info_value(l, "multipv").is_none_or(|k| k == 1));
    if let Some(last) = last_first
        && pv_of(last).first() != Some(&out.best.as_str())
    {
        return Err(format!(
            "bestmove {} is not the first move of the last first line shown: {last:?}",
            out.best
        ));
    }
    if let Some(p) = &out.ponder {
        let mut after = pos.clone();
        after.play_unchecked(best);
        engine_move(&after, p, mode).map_err(|e| format!("ponder move after {}: {e}", out.best))?;
    }
    Ok(())
}

/// The `move: count` lines of a perft divide (other lines ignored).
pub fn divide_lines(lines: &[String]) -> Vec<(String, u64)> {
    lines
        .iter()
        .filter_map(|l| {
            let (m, n) = l.split_once(": ")?;
            m.parse::<UciMove>().ok()?;
            Some((m.to_string(), n.trim().parse().ok()?))
        })
        .collect()
}

/// Checks the last line of a perft/bench run reads exactly `N nodes M nps`; returns N.
pub fn nodes_nps_line(line: &str) -> Result<u64, String> {
    let t: Vec<&str> = line.split(' ').collect();
    match t.as_slice() {
        [n, "nodes", m, "nps"] => {
            m.parse::<u64>()
                .map_err(|_| format!("bad nps in {line:?}"))?;
            n.parse::<u64>()
                .map_err(|_| format!("bad node count in {line:?}"))
        }
        _ => Err(format!("last line {line:?} is not 'N nodes M nps'")),
    }
}
