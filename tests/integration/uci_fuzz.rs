//! Randomized UCI input: at least 100,000 random and mutated command lines fed to ONE `scout`
//! process, which must keep answering `isready` and never panic or exit.
//!
//! Lines are valid commands (positions from random legal games and the bench positions, `go`
//! with random limits, options, perft...) put through random mutations: dropped, duplicated and
//! swapped tokens, random numbers (huge, negative, malformed), FEN garbage, random case, tabs,
//! CR, truncation, random bytes including invalid UTF-8; plus lines of pure random bytes or
//! random keywords.
//!
//! To keep the run short, lines that would start long work are defused: every line with a `go`
//! token is followed by `stop`, perft depths above 3 and Hash sizes above 16 MB are not sent,
//! and `bench` and `quit` never are. Every 1,000 lines a checkpoint (an unknown option carrying
//! a unique name, then `isready`) must come back in order.
//!
//! The seed is printed; set `SCOUT_FUZZ_SEED` to replay one, `SCOUT_FUZZ_LINES` to change the
//! number of lines.

use crate::common;

use std::time::Instant;

use common::*;
use rand::rngs::StdRng;
use rand::{RngExt, SeedableRng};
use shakmaty::{CastlingMode, Chess, Position};

const DEFAULT_LINES: usize = 100_000;
const CHECK_EVERY: usize = 1_000;

/// Words of the protocol (never `quit` or `bench`).
const WORDS: &[&str] = &[
    "uci",
    "debug",
    "on",
    "off",
    "isready",
    "setoption",
    "name",
    "value",
    "register",
    "later",
    "code",
    "ucinewgame",
    "position",
    "startpos",
    "fen",
    "moves",
    "go",
    "wtime",
    "btime",
    "winc",
    "binc",
    "movestogo",
    "depth",
    "nodes",
    "movetime",
    "mate",
    "infinite",
    "ponder",
    "searchmoves",
    "perft",
    "stop",
    "ponderhit",
    "d",
    "eval",
    "flip",
    "Hash",
    "Clear",
    "Threads",
    "MultiPV",
    "Move",
    "Overhead",
    "Ponder",
    "UCI_Chess960",
    "true",
    "false",
    "e2e4",
    "e7e5",
    "e1g1",
    "e1h1",
    "a7a8q",
    "b7b8n",
    "0000",
    "-",
    "w",
    "b",
    "KQkq",
    "HAha",
    "xboard",
];

const NUMBERS: &[&str] = &[
    "0",
    "-0",
    "+7",
    "1",
    "2",
    "3",
    "-1",
    "-100",
    "18446744073709551615",
    "18446744073709551616",
    "9223372036854775807",
    "9223372036854775808",
    "-9223372036854775808",
    "-9223372036854775809",
    "999999999999999999999999999999",
    "-999999999999999999999999999999",
    "1e9",
    "0x1F",
    "3.5",
    "255",
    "256",
    "65536",
    "4294967296",
    "00000000000000000000000001",
];

const CHESS960_FENS: &[&str] = &[
    "bqnb1rkr/pp3ppp/3ppn2/2p5/5P2/P2P4/NPP1P1PP/BQ1BNRKR w HFhf - 2 9",
    "2nnrbkr/p1qppppp/8/1ppb4/6PP/3PP3/PPP2P2/BQNNRBKR w HEhe - 1 9",
    "b1q1rrkb/pppppppp/3nn3/8/P7/1PPP4/4PPPP/BQNNRKRB w GE - 1 9",
    "qbbnnrkr/2pp2pp/p7/1p2pp2/8/P3PP2/1PPP1KPP/QBBNNR1R w hf - 0 9",
];

struct Fuzzer {
    rng: StdRng,
    fens: Vec<String>,
}

impl Fuzzer {
    fn pick<'a, T>(&mut self, items: &'a [T]) -> &'a T {
        &items[self.rng.random_range(0..items.len())]
    }

    fn chance(&mut self, percent: u32) -> bool {
        self.rng.random_range(0..100) < percent
    }

    fn number(&mut self) -> String {
        match self.rng.random_range(0..6) {
            0 => self.rng.random_range(0..10u32).to_string(),
            1 => self.rng.random_range(0..100_000u32).to_string(),
            2 => format!("-{}", self.rng.random_range(1..100_000u32)),
            3 => {
                let n = self.rng.random_range(19..40);
                let mut s: String = (0..n)
                    .map(|_| char::from(b'0' + self.rng.random_range(0..10u8)))
                    .collect();
                if self.chance(30) {
                    s.insert(0, '-');
                }
                s
            }
            _ => self.pick(NUMBERS).to_string(),
        }
    }

    /// A random legal game from `start`; returns the final position and the moves.
    fn random_game(
        &mut self,
        start: &Chess,
        mode: CastlingMode,
        max: usize,
    ) -> (Chess, Vec<String>) {
        let mut pos = start.clone();
        let mut moves = Vec::new();
        let n = self.rng.random_range(0..=max);
        for _ in 0..n {
            let legal = pos.legal_moves();
            if legal.is_empty() {
                break;
            }
            let m = legal[self.rng.random_range(0..legal.len())];
            moves.push(move_text(m, mode));
            pos.play_unchecked(m);
        }
        (pos, moves)
    }

    fn some_moves(&mut self, pos: &Chess) -> Vec<String> {
        let legal = pos.legal_moves();
        let mut out = Vec::new();
        for _ in 0..self.rng.random_range(0..4) {
            if !legal.is_empty() && self.chance(70) {
                out.push(move_text(
                    legal[self.rng.random_range(0..legal.len())],
                    CastlingMode::Standard,
                ));
            } else {
                out.push(
                    self.pick(&["e2e4", "a1a8", "zz", "e7e8q", "0000", "e1g1"])
                        .to_string(),
                );
            }
        }
        out
    }

    fn position_line(&mut self) -> String {
        if self.chance(40) {
            let (pos, moves) = self.random_game(&Chess::default(), CastlingMode::Standard, 40);
            if self.chance(50) || moves.is_empty() {
                if self.chance(30) {
                    self.fens.push(fen_of(&pos));
                }
                format!("position startpos moves {}", moves.join(" "))
            } else {
                format!("position fen {}", fen_of(&pos))
            }
        } else if self.chance(15) {
            let fen = self.pick(CHESS960_FENS).to_string();
            let pos = chess_from_fen(&fen, CastlingMode::Chess960).unwrap();
            let (_, moves) = self.random_game(&pos, CastlingMode::Chess960, 6);
            format!("position fen {fen} moves {}", moves.join(" "))
        } else {
            let fen = self.fens[self.rng.random_range(0..self.fens.len())].clone();
            let pos = chess_from_fen(&fen, CastlingMode::Standard).unwrap();
            let (_, moves) = self.random_game(&pos, CastlingMode::Standard, 8);
            if moves.is_empty() {
                format!("position fen {fen}")
            } else {
                format!("position fen {fen} moves {}", moves.join(" "))
            }
        }
    }

    fn go_line(&mut self) -> String {
        let mut parts = vec!["go".to_string()];
        if self.chance(25) {
            parts.push("perft".into());
            parts.push(self.rng.random_range(0..=3u32).to_string());
            return parts.join(" ");
        }
        let n = self.rng.random_range(0..4);
        for _ in 0..n {
            let key = *self.pick(&[
                "depth",
                "nodes",
                "movetime",
                "wtime",
                "btime",
                "winc",
                "binc",
                "movestogo",
                "mate",
                "infinite",
                "ponder",
                "searchmoves",
            ]);
            parts.push(key.to_string());
            match key {
                "infinite" | "ponder" => {}
                "searchmoves" => {
                    let moves = self.some_moves(&Chess::default());
                    parts.extend(moves);
                }
                "depth" => parts.push(self.rng.random_range(1..=6u32).to_string()),
                "mate" => parts.push(self.rng.random_range(1..=4u32).to_string()),
                "nodes" => parts.push(self.rng.random_range(1..=5000u32).to_string()),
                _ => parts.push(self.rng.random_range(0..=3000u32).to_string()),
            }
        }
        parts.join(" ")
    }

    fn option_line(&mut self) -> String {
        match self.rng.random_range(0..9) {
            0 => format!(
                "setoption name Hash value {}",
                self.rng.random_range(1..=16u32)
            ),
            1 => "setoption name Clear Hash".into(),
            2 => format!("setoption name Threads value {}", self.number()),
            3 => format!(
                "setoption name MultiPV value {}",
                self.rng.random_range(1..=5u32)
            ),
            4 => format!("setoption name Move Overhead value {}", self.number()),
            5 => format!(
                "setoption name Ponder value {}",
                self.pick(&["true", "false", "maybe"])
            ),
            6 => format!(
                "setoption name UCI_Chess960 value {}",
                self.pick(&["true", "false", "TRUE"])
            ),
            7 => format!(
                "setoption name {} value {}",
                self.pick(WORDS),
                self.number()
            ),
            _ => format!("setoption name MultiPV value {}", self.number()),
        }
    }

    /// A valid (or nearly valid) command.
    fn command(&mut self) -> String {
        match self.rng.random_range(0..100) {
            0..=24 => self.position_line(),
            25..=31 => self.go_line(),
            32..=36 => format!("perft {}", self.rng.random_range(0..=2u32)),
            37..=46 => self.option_line(),
            47..=49 => "ucinewgame".into(),
            50..=54 => "d".into(),
            55..=57 => "eval".into(),
            58..=65 => "isready".into(),
            66..=69 => "uci".into(),
            70..=73 => "stop".into(),
            74..=76 => "ponderhit".into(),
            77..=79 => format!("debug {}", self.pick(&["on", "off", "maybe"])),
            80..=81 => "register later".into(),
            82..=86 => {
                let fen = self.fens[self.rng.random_range(0..self.fens.len())].clone();
                format!("position fen {}", self.fen_garbage(&fen))
            }
            _ => {
                let n = self.rng.random_range(0..8);
                (0..n)
                    .map(|_| self.pick(WORDS).to_string())
                    .collect::<Vec<_>>()
                    .join(" ")
            }
        }
    }

    /// A FEN with random edits.
    fn fen_garbage(&mut self, fen: &str) -> String {
        const ALPHABET: &[u8] = b"pnbrqkPNBRQK123456789/ wb-KQkqabcdefghAH0x";
        let mut chars: Vec<u8> = fen.as_bytes().to_vec();
        for _ in 0..self.rng.random_range(1..6) {
            let c = *self.pick(ALPHABET);
            match self.rng.random_range(0..3) {
                0 if !chars.is_empty() => {
                    let i = self.rng.random_range(0..chars.len());
                    chars[i] = c;
                }
                1 if !chars.is_empty() => {
                    let i = self.rng.random_range(0..chars.len());
                    chars.remove(i);
                }
                _ => {
                    let i = self.rng.random_range(0..=chars.len());
                    chars.insert(i, c);
                }
            }
        }
        String::from_utf8(chars).unwrap()
    }

    /// Token-level and byte-level mutations of a line.
    fn mutate(&mut self, line: &str) -> Vec<u8> {
        let mut tokens: Vec<String> = line.split(' ').map(String::from).collect();
        for _ in 0..self.rng.random_range(0..4) {
            let len = tokens.len();
            match self.rng.random_range(0..9) {
                0 if len > 0 => {
                    tokens.remove(self.rng.random_range(0..len));
                }
                1 if len > 0 => {
                    let i = self.rng.random_range(0..len);
                    let t = tokens[i].clone();
                    tokens.insert(i, t);
                }
                2 if len > 1 => {
                    let (i, j) = (self.rng.random_range(0..len), self.rng.random_range(0..len));
                    tokens.swap(i, j);
                }
                3 if len > 0 => {
                    let i = self.rng.random_range(0..len);
                    tokens[i] = self.number();
                }
                4 => {
                    let i = self.rng.random_range(0..=len);
                    let w = if self.chance(50) {
                        self.pick(WORDS).to_string()
                    } else {
                        self.number()
                    };
                    tokens.insert(i, w);
                }
                5 if len > 0 => {
                    let i = self.rng.random_range(0..len);
                    tokens[i] = tokens[i].to_uppercase();
                }
                6 if len > 0 => {
                    let i = self.rng.random_range(0..len);
                    tokens[i] = self.fen_garbage(&tokens[i].clone());
                }
                _ => {}
            }
        }
        // Separators: single spaces mostly, sometimes tabs, runs of spaces, CR.
        let mut bytes = Vec::new();
        for (i, t) in tokens.iter().enumerate() {
            if i > 0 {
                match self.rng.random_range(0..20) {
                    0 => bytes.push(b'\t'),
                    1 => bytes.extend_from_slice(b"   "),
                    2 => bytes.extend_from_slice(b" \t \r "),
                    _ => bytes.push(b' '),
                }
            }
            bytes.extend_from_slice(t.as_bytes());
        }
        if self.chance(5) && !bytes.is_empty() {
            let cut = self.rng.random_range(0..bytes.len());
            bytes.truncate(cut);
        }
        if self.chance(5) {
            for _ in 0..self.rng.random_range(1..4) {
                let i = self.rng.random_range(0..=bytes.len());
                bytes.insert(i, self.random_byte());
            }
        }
        if self.chance(10) {
            bytes.insert(0, b' ');
        }
        bytes
    }

    fn random_byte(&mut self) -> u8 {
        loop {
            let b: u8 = self.rng.random();
            if b != b'\n' {
                return b;
            }
        }
    }

    /// One fuzz line, without its newline.
    fn line(&mut self) -> Vec<u8> {
        match self.rng.random_range(0..100) {
            0..=4 => (0..self.rng.random_range(0..120))
                .map(|_| self.random_byte())
                .collect(),
            5..=54 => self.command().into_bytes(),
            _ => {
                let c = self.command();
                self.mutate(&c)
            }
        }
    }
}

/// What the engine will do with a line, as far as the test must care: `None` if the line must
/// not be sent; `Some(true)` if it may start a search (send `stop` after it).
fn classify(bytes: &[u8]) -> Option<bool> {
    let text = String::from_utf8_lossy(bytes);
    let tokens: Vec<&str> = text.split_whitespace().collect();
    let lower: Vec<String> = tokens.iter().map(|t| t.to_ascii_lowercase()).collect();
    if lower.iter().any(|t| {
        t == "quit" || t == "bench" || t.to_lowercase() == "quit" || t.to_lowercase() == "bench"
    }) {
        return None;
    }
    for (i, t) in lower.iter().enumerate() {
        if t == "perft"
            && let Some(Ok(d)) = tokens.get(i + 1).map(|n| n.parse::<u64>())
            && d > 3
        {
            return None;
        }
    }
    if lower.iter().any(|t| t == "setoption") && lower.iter().any(|t| t.contains("hash")) {
        for t in &tokens {
            let too_big = match t.parse::<i64>() {
                Ok(v) => v > 16,
                Err(_) => {
                    !t.starts_with('-') && !t.is_empty() && t.chars().all(|c| c.is_ascii_digit())
                }
            };
            if too_big {
                return None;
            }
        }
    }
    Some(lower.iter().any(|t| t == "go"))
}

#[test]
fn random_and_mutated_lines_never_break_the_engine() {
    let seed: u64 = std::env::var("SCOUT_FUZZ_SEED")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or_else(|| {
            std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map(|d| d.as_nanos() as u64)
                .unwrap_or(12345)
        });
    let total: usize = std::env::var("SCOUT_FUZZ_LINES")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(DEFAULT_LINES);
    eprintln!("uci_fuzz: seed {seed} ({total} lines; replay with SCOUT_FUZZ_SEED={seed})");

    let bench = std::fs::read_to_string(crate_root().join("bench-positions/bench.fen")).unwrap();
    let mut fens: Vec<String> = bench
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .map(String::from)
        .collect();
    fens.push(STARTPOS.to_string());
    let mut fz = Fuzzer {
        rng: StdRng::seed_from_u64(seed),
        fens,
    };

    let mut e = Engine::spawn();
    e.uci();
    e.send("setoption name Hash value 1");
    e.isready_ok(GENEROUS);

    let start = Instant::now();
    let (mut sent, mut stops, mut dropped, mut checkpoints, mut output_lines, mut bestmoves) =
        (0, 0, 0, 0, 0, 0);
    while sent < total {
        let line = fz.line();
        let Some(searches) = classify(&line) else {
            dropped += 1;
            continue;
        };
        let mut bytes = line;
        bytes.extend_from_slice(if fz.chance(10) { b"\r\n" } else { b"\n" });
        if let Err(err) = e.try_send_raw(&bytes) {
            panic!(
                "seed {seed}: cannot write line {sent} to the engine: {err}\n{}",
                e.report()
            );
        }
        sent += 1;
        if searches {
            e.send("stop");
            stops += 1;
        }
        if sent % CHECK_EVERY == 0 || sent == total {
            checkpoints += 1;
            let marker = format!("FuzzCheckpoint{checkpoints}");
            e.send(&format!("setoption name {marker}"));
            e.send("isready");
            let mut seen = false;
            let lines = e.collect_until(
                &format!("seed {seed}: {marker} then readyok (after {sent} lines)"),
                |l| {
                    seen |= l.contains(&marker);
                    seen && l == "readyok"
                },
                secs(60),
            );
            output_lines += lines.len();
            for l in &lines {
                if l.starts_with("bestmove") {
                    bestmoves += 1;
                    let t: Vec<&str> = l.split_whitespace().collect();
                    let ok = matches!(t.len(), 2 | 4)
                        && (t.len() == 2 || t[2] == "ponder")
                        && t[1..]
                            .iter()
                            .step_by(2)
                            .all(|m| m.len() >= 4 && m.len() <= 5);
                    assert!(
                        ok,
                        "seed {seed}: malformed bestmove line {l:?}\n{}",
                        e.report()
                    );
                }
            }
            e.assert_alive();
        }
    }
    let elapsed = start.elapsed();
    eprintln!(
        "uci_fuzz: {sent} lines (+{stops} stops, {checkpoints} checkpoints, {dropped} unsafe lines skipped) \
         -> {output_lines} output lines, {bestmoves} bestmoves, in {elapsed:?}"
    );

    // Still a working engine.
    e.assert_alive();
    e.send("setoption name UCI_Chess960 value false");
    e.send("setoption name MultiPV value 1");
    e.send("position startpos moves e2e4");
    e.send("go depth 3");
    let out = e.wait_bestmove(GENEROUS);
    let pos = play_line(&Chess::default(), &["e2e4"], CastlingMode::Standard).unwrap();
    if let Err(msg) = check_search(&pos, &out, CastlingMode::Standard) {
        panic!("seed {seed}: after the fuzz: {msg}\n{}", e.report());
    }
    e.isready_ok(GENEROUS);
    e.send("quit");
    assert!(
        e.wait_exit(secs(5)).is_some(),
        "seed {seed}: the engine did not quit"
    );
    e.assert_no_panic();
}

#[test]
fn classify_defuses_dangerous_lines() {
    assert_eq!(classify(b"quit"), None);
    assert_eq!(classify(b"foo BENCH 3"), None);
    assert_eq!(classify(b"perft 4"), None);
    assert_eq!(classify(b"go perft +9"), None);
    assert_eq!(
        classify(b"setoption name Hash value 99999999999999999999"),
        None
    );
    assert_eq!(classify(b"setoption name hash value 4096"), None);
    assert_eq!(classify(b"setoption name Hash value 8"), Some(false));
    assert_eq!(
        classify(b"setoption name Hash value -99999999999999999999"),
        Some(false)
    );
    assert_eq!(classify(b"go perft 3"), Some(true));
    assert_eq!(classify(b"x\tGO depth 9"), Some(true));
    assert_eq!(classify(b"\xff\xfe"), Some(false));
}
