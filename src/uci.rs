//! The UCI protocol: turning input lines into typed `Command`s and search results into
//! output lines.
//!
//! vampirc-uci is the protocol vocabulary, used where it is right: it parses the simple
//! commands (`uci`, `debug`, `isready`, `setoption`, `register`, `ucinewgame`, `stop`,
//! `ponderhit`, `quit`) and writes `id`, `option`, `uciok`, `readyok`, `bestmove`, `info`.
//! It never sees raw input: Scout tokenizes every line itself and hands vampirc a rebuilt,
//! single-spaced line of a command whose grammar cannot panic. `position` and `go` are parsed
//! here (vampirc panics on numbers above 255, drops `ponder`, rejects Chess960 and 4-field
//! FENs, and truncates move lists at a bad token), and the lines vampirc writes wrongly
//! (`currmovenumber`, `bestmove 0000`) are written by hand. Scout's own commands (`d`, `eval`,
//! `bench`, `perft`, `genfens`) are parsed here too.

use shakmaty::uci::UciMove as ShakmatyUciMove;
use shakmaty::{CastlingMode, Move, Role};
use vampirc_uci::{
    Duration, UciInfoAttribute, UciMessage, UciMove, UciOptionConfig, UciPiece, UciSquare,
};

use crate::options::Spec;
use crate::score::{Bound, MATE, MATE_BOUND};
use crate::search::IterationInfo;

/// Where a `position` command starts from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Start {
    StartPos,
    Fen(String),
}

/// The arguments of `go`, as typed values (moves still as text: they need the position).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Go {
    pub wtime: Option<i64>,
    pub btime: Option<i64>,
    pub winc: Option<i64>,
    pub binc: Option<i64>,
    pub movestogo: Option<u64>,
    pub depth: Option<u64>,
    pub nodes: Option<u64>,
    pub movetime: Option<i64>,
    pub mate: Option<u64>,
    pub infinite: bool,
    pub ponder: bool,
    pub searchmoves: Vec<String>,
    pub perft: Option<u64>,
    /// What could not be read (reported; the rest of the command still runs).
    pub problems: Vec<String>,
}

/// One input line, understood.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Command {
    Uci,
    Debug(bool),
    IsReady,
    SetOption {
        name: String,
        value: Option<String>,
    },
    Register,
    UciNewGame,
    Position {
        start: Start,
        moves: Vec<String>,
    },
    Go(Go),
    Stop,
    PonderHit,
    Quit,
    /// `d`: print the board.
    Display,
    /// `eval`: print the net's view of the position.
    Eval,
    /// `bench [depth]`.
    Bench(Option<u64>),
    /// `perft depth` (also `go perft depth`).
    Perft(u64),
    /// `genfens N seed S book <None|FILE> [extra]`: openings for OpenBench's datagen.
    Genfens(Box<crate::tools::genfens::Request>),
    /// A blank line.
    Empty,
    /// Something Scout cannot use; the text says what, for an `info string`.
    Invalid(String),
}

/// Keywords that begin a command. Anything before the first one is ignored, as the UCI
/// specification asks ("ignore unknown tokens and try to parse the rest").
const COMMANDS: [&str; 17] = [
    "uci",
    "debug",
    "isready",
    "setoption",
    "register",
    "ucinewgame",
    "position",
    "go",
    "stop",
    "ponderhit",
    "quit",
    "d",
    "eval",
    "bench",
    "perft",
    "flip",
    "genfens",
];

/// Parses one input line. Never panics, whatever the input.
pub fn parse(line: &str) -> Command {
    let tokens: Vec<&str> = line.split_whitespace().collect();
    if tokens.is_empty() {
        return Command::Empty;
    }
    let Some(start) = tokens
        .iter()
        .position(|t| COMMANDS.contains(&t.to_ascii_lowercase().as_str()))
    else {
        return Command::Invalid(format!("unknown command: {}", truncate(line.trim(), 80)));
    };
    let keyword = tokens[start].to_ascii_lowercase();
    let args = &tokens[start + 1..];
    match keyword.as_str() {
        "position" => parse_position(args),
        "go" => parse_go(args),
        "d" => Command::Display,
        "eval" => Command::Eval,
        "bench" => match args.first() {
            None => Command::Bench(None),
            Some(t) => match t.parse::<u64>() {
                Ok(d) => Command::Bench(Some(d)),
                Err(_) => Command::Invalid(format!("bench: invalid depth '{}'", truncate(t, 20))),
            },
        },
        "perft" => parse_perft(args),
        "genfens" => match crate::tools::genfens::Request::parse(args) {
            Ok(request) => Command::Genfens(Box::new(request)),
            Err(e) => Command::Invalid(format!("error: genfens: {e}")),
        },
        "flip" => Command::Invalid("flip is not supported".into()),
        "setoption" => match parse_simple(&keyword, args) {
            Command::SetOption {
                name,
                value: Some(joined),
            } => Command::SetOption {
                name,
                value: Some(raw_option_value(line, &tokens[start..]).unwrap_or(joined)),
            },
            other => other,
        },
        _ => parse_simple(&keyword, args),
    }
}

/// The value of `setoption name <id> value <x>` as written in the line: everything after the
/// first `value` token, trimmed, with its inner whitespace kept (vampirc sees the tokens joined
/// by single spaces, which would change a path with a run of spaces or a tab in it).
/// `tokens` are slices of `line`, starting at `setoption`.
fn raw_option_value(line: &str, tokens: &[&str]) -> Option<String> {
    // tokens: setoption name <at least one name token> value ...
    let keyword = tokens
        .iter()
        .skip(3)
        .find(|t| t.eq_ignore_ascii_case("value"))?;
    let end = keyword.as_ptr() as usize - line.as_ptr() as usize + keyword.len();
    let raw = line.get(end..)?.trim();
    (!raw.is_empty()).then(|| raw.to_string())
}

fn truncate(s: &str, n: usize) -> String {
    s.chars().take(n).collect()
}

fn parse_perft(args: &[&str]) -> Command {
    match args.first().map(|t| t.parse::<u64>()) {
        Some(Ok(d)) => Command::Perft(d),
        _ => Command::Invalid("perft needs a depth: perft N".into()),
    }
}

/// The simple commands go through vampirc-uci, on a rebuilt line.
fn parse_simple(keyword: &str, args: &[&str]) -> Command {
    let canonical = match keyword {
        "debug" => match args.first().map(|a| a.to_ascii_lowercase()) {
            Some(a) if a == "on" || a == "off" => format!("debug {a}"),
            _ => return Command::Invalid("debug takes on or off".into()),
        },
        "setoption" => {
            // Names and values are free text; keep them as tokens joined by single spaces.
            if args.first().map(|a| a.to_ascii_lowercase()) != Some("name".into()) || args.len() < 2
            {
                return Command::Invalid("setoption needs: setoption name <id> [value <x>]".into());
            }
            format!("setoption {}", args.join(" "))
        }
        "register" => return Command::Register,
        other => other.to_string(),
    };
    match vampirc_uci::parse_one(&canonical) {
        UciMessage::Uci => Command::Uci,
        UciMessage::Debug(on) => Command::Debug(on),
        UciMessage::IsReady => Command::IsReady,
        UciMessage::UciNewGame => Command::UciNewGame,
        UciMessage::Stop => Command::Stop,
        UciMessage::PonderHit => Command::PonderHit,
        UciMessage::Quit => Command::Quit,
        UciMessage::SetOption { name, value } => Command::SetOption {
            name: name.trim().to_string(),
            value: value
                .map(|v| v.trim().to_string())
                .filter(|v| !v.is_empty()),
        },
        _ => Command::Invalid(format!("could not parse: {}", truncate(&canonical, 80))),
    }
}

fn parse_position(args: &[&str]) -> Command {
    let moves_at = args.iter().position(|t| t.eq_ignore_ascii_case("moves"));
    let (setup, moves) = match moves_at {
        Some(i) => (&args[..i], &args[i + 1..]),
        None => (args, &args[args.len()..]),
    };
    let start = match setup.first().map(|t| t.to_ascii_lowercase()) {
        Some(t) if t == "startpos" && setup.len() == 1 => Start::StartPos,
        Some(t) if t == "fen" && setup.len() >= 5 && setup.len() <= 7 => {
            let mut fields: Vec<&str> = setup[1..].to_vec();
            // Four-field FENs (no move counters) are common in EPD files: supply them.
            if fields.len() == 4 {
                fields.extend(["0", "1"]);
            }
            Start::Fen(fields.join(" "))
        }
        Some(t) if t == "fen" => {
            return Command::Invalid("position fen needs 4 to 6 FEN fields".into());
        }
        _ => return Command::Invalid("position needs startpos or fen <FEN>".into()),
    };
    Command::Position {
        start,
        moves: moves.iter().map(|s| s.to_string()).collect(),
    }
}

const GO_KEYWORDS: [&str; 13] = [
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
];

/// Is `token` the value of the preceding keyword (present and not a keyword itself)?
fn takes_value(token: Option<&&str>) -> bool {
    token.is_some_and(|t| !GO_KEYWORDS.contains(&t.to_ascii_lowercase().as_str()))
}

fn parse_go(args: &[&str]) -> Command {
    let mut go = Go::default();
    let mut problems = Vec::new();
    let mut i = 0;
    while i < args.len() {
        let key = args[i].to_ascii_lowercase();
        i += 1;
        match key.as_str() {
            "infinite" => go.infinite = true,
            "ponder" => go.ponder = true,
            "searchmoves" => {
                while i < args.len()
                    && !GO_KEYWORDS.contains(&args[i].to_ascii_lowercase().as_str())
                {
                    go.searchmoves.push(args[i].to_string());
                    i += 1;
                }
            }
            "wtime" | "btime" | "winc" | "binc" | "movetime" => {
                let v = args.get(i).and_then(|t| t.parse::<i64>().ok());
                if v.is_none() {
                    problems.push(format!("{key} needs a number"));
                }
                i += usize::from(takes_value(args.get(i)));
                match key.as_str() {
                    "wtime" => go.wtime = v,
                    "btime" => go.btime = v,
                    "winc" => go.winc = v,
                    "binc" => go.binc = v,
                    _ => go.movetime = v,
                }
            }
            "movestogo" | "depth" | "nodes" | "mate" | "perft" => {
                let v = args.get(i).and_then(|t| t.parse::<u64>().ok());
                if v.is_none() {
                    problems.push(format!("{key} needs a non-negative number below 2^64"));
                }
                i += usize::from(takes_value(args.get(i)));
                match key.as_str() {
                    "movestogo" => go.movestogo = v,
                    "depth" => go.depth = v,
                    "nodes" => go.nodes = v,
                    "mate" => go.mate = v,
                    _ => go.perft = v,
                }
            }
            other => problems.push(format!("ignored unknown token '{}'", truncate(other, 20))),
        }
    }
    go.problems = problems;
    Command::Go(go)
}

// ---------------------------------------------------------------------------------------
// Output

/// A shakmaty move in UCI notation (`e1g1` castling, or king-takes-rook in Chess960 mode).
pub fn move_text(m: Move, mode: CastlingMode) -> String {
    ShakmatyUciMove::from_move(m, mode).to_string()
}

/// The same move in vampirc-uci's representation.
fn vampirc_move(m: Move, mode: CastlingMode) -> Option<UciMove> {
    match ShakmatyUciMove::from_move(m, mode) {
        ShakmatyUciMove::Normal {
            from,
            to,
            promotion,
        } => Some(UciMove {
            from: square(from),
            to: square(to),
            promotion: promotion.map(|r| match r {
                Role::Knight => UciPiece::Knight,
                Role::Bishop => UciPiece::Bishop,
                Role::Rook => UciPiece::Rook,
                Role::King => UciPiece::King,
                Role::Pawn => UciPiece::Pawn,
                Role::Queen => UciPiece::Queen,
            }),
        }),
        _ => None,
    }
}

fn square(sq: shakmaty::Square) -> UciSquare {
    UciSquare {
        file: sq.file().char(),
        rank: sq.rank() as u8 + 1,
    }
}

/// `id name`, `id author`, the options and `uciok`.
pub fn uci_banner() -> Vec<String> {
    let mut lines = vec![
        UciMessage::id_name(crate::NAME).to_string(),
        UciMessage::id_author(crate::AUTHOR).to_string(),
    ];
    for opt in option_configs() {
        lines.push(UciMessage::Option(opt).to_string());
    }
    lines.push(UciMessage::UciOk.to_string());
    lines
}

/// The options Scout announces: `options::ALL`, and in a tuning build every search parameter
/// of `params::TABLE` as a spin option.
fn option_configs() -> Vec<UciOptionConfig> {
    let spin = |name: &str, default, min, max| UciOptionConfig::Spin {
        name: name.to_string(),
        default: Some(default),
        min: Some(min),
        max: Some(max),
    };
    let mut configs: Vec<UciOptionConfig> = crate::options::ALL
        .iter()
        .map(|spec| match *spec {
            Spec::Spin(s) => spin(s.name, s.default, s.min, s.max),
            Spec::Check(c) => UciOptionConfig::Check {
                name: c.name.to_string(),
                default: Some(c.default),
            },
            Spec::Text(name, default) => UciOptionConfig::String {
                name: name.to_string(),
                default: Some(default.to_string()),
            },
            Spec::Button(name) => UciOptionConfig::Button {
                name: name.to_string(),
            },
        })
        .collect();
    if cfg!(feature = "tune") {
        for p in crate::params::TABLE {
            configs.push(spin(p.name, p.default.into(), p.min.into(), p.max.into()));
        }
    }
    configs
}

pub fn readyok() -> String {
    UciMessage::ReadyOk.to_string()
}

/// `info string ...` (one line; newlines in the text become spaces).
pub fn info_string(text: &str) -> String {
    UciMessage::info_string(text.replace(['\n', '\r'], " ")).to_string()
}

/// `bestmove M [ponder P]`, or `bestmove 0000` when there is no legal move.
pub fn bestmove(best: Option<Move>, ponder: Option<Move>, mode: CastlingMode) -> String {
    match best.and_then(|b| vampirc_move(b, mode)) {
        Some(b) => match ponder.and_then(|p| vampirc_move(p, mode)) {
            Some(p) => UciMessage::best_move_with_ponder(b, p).to_string(),
            None => UciMessage::best_move(b).to_string(),
        },
        None => "bestmove 0000".to_string(),
    }
}

/// The score attribute: centipawns, or mate in moves (negative: being mated). Tablebase
/// wins and losses (`TB_WIN - ply`) lie below `MATE_BOUND`: they print as (large) centipawns.
fn score_attribute(score: i32, bound: Bound) -> UciInfoAttribute {
    let (cp, mate) = if score.abs() >= MATE_BOUND {
        let plies = MATE - score.abs();
        let moves = (plies + 1) / 2;
        let signed = if score > 0 { moves } else { -moves };
        (
            None,
            Some(signed.clamp(i8::MIN as i32, i8::MAX as i32) as i8),
        )
    } else {
        (Some(score), None)
    };
    UciInfoAttribute::Score {
        cp,
        mate,
        lower_bound: (bound == Bound::Lower).then_some(true),
        upper_bound: (bound == Bound::Upper).then_some(true),
    }
}

/// The `info` line after an iteration (or one MultiPV line).
pub fn info_line(info: &IterationInfo, mode: CastlingMode) -> String {
    let nps = info.nodes * 1000 / info.elapsed_ms.max(1);
    let attrs = vec![
        UciInfoAttribute::Depth(info.depth.clamp(0, 255) as u8),
        UciInfoAttribute::SelDepth(info.seldepth.min(255) as u8),
        UciInfoAttribute::MultiPv(info.multipv.min(u16::MAX as usize) as u16),
        score_attribute(info.score, info.bound),
        UciInfoAttribute::Nodes(info.nodes),
        UciInfoAttribute::Nps(nps),
        UciInfoAttribute::HashFull(info.hashfull.min(1000) as u16),
        UciInfoAttribute::TbHits(info.tbhits),
        UciInfoAttribute::Time(Duration::milliseconds(info.elapsed_ms as i64)),
    ];
    let mut line = UciMessage::Info(attrs).to_string();
    if !info.pv.is_empty() {
        let pv: Vec<UciMove> = info
            .pv
            .iter()
            .filter_map(|m| vampirc_move(*m, mode))
            .collect();
        line.push(' ');
        line.push_str(&UciInfoAttribute::Pv(pv).to_string());
    }
    line
}

/// `info depth D currmove M currmovenumber N` (vampirc writes `currmovenum`, so the last
/// attribute is written by hand).
pub fn currmove_line(depth: i32, m: Move, number: usize, mode: CastlingMode) -> String {
    let mut attrs = vec![UciInfoAttribute::Depth(depth.clamp(0, 255) as u8)];
    if let Some(vm) = vampirc_move(m, mode) {
        attrs.push(UciInfoAttribute::CurrMove(vm));
    }
    attrs.push(UciInfoAttribute::Any(
        "currmovenumber".into(),
        number.to_string(),
    ));
    UciMessage::Info(attrs).to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn simple_commands() {
        assert_eq!(parse("uci"), Command::Uci);
        assert_eq!(parse("  isready \r"), Command::IsReady);
        assert_eq!(parse("UCINEWGAME"), Command::UciNewGame);
        assert_eq!(parse("debug on"), Command::Debug(true));
        assert_eq!(
            parse("xboard"),
            Command::Invalid("unknown command: xboard".into())
        );
        assert_eq!(parse("joho debug off"), Command::Debug(false));
        assert_eq!(parse("\t \t"), Command::Empty);
        assert_eq!(
            parse("setoption  name   Move Overhead value 100"),
            Command::SetOption {
                name: "Move Overhead".into(),
                value: Some("100".into())
            }
        );
        // Values are free text: paths keep their spaces, colons and semicolons.
        assert_eq!(
            parse("setoption name SyzygyPath value /tb/my tables:/tb/5;/tb/6"),
            Command::SetOption {
                name: "SyzygyPath".into(),
                value: Some("/tb/my tables:/tb/5;/tb/6".into())
            }
        );
        assert_eq!(
            parse("setoption name SyzygyPath value <empty>"),
            Command::SetOption {
                name: "SyzygyPath".into(),
                value: Some("<empty>".into())
            }
        );
        assert_eq!(
            parse("setoption name Clear Hash"),
            Command::SetOption {
                name: "Clear Hash".into(),
                value: None
            }
        );
    }

    #[test]
    fn setoption_values_keep_their_spaces() {
        let value = |line: &str| match parse(line) {
            Command::SetOption { value, .. } => value,
            other => panic!("{line:?} gave {other:?}"),
        };
        assert_eq!(
            value("setoption name BookFile value /tmp/my books/a  b\tc.bin\r\n"),
            Some("/tmp/my books/a  b\tc.bin".into())
        );
        assert_eq!(
            value("setoption name BookFile VALUE  C:\\Books\\Value Book.bin"),
            Some("C:\\Books\\Value Book.bin".into())
        );
        assert_eq!(value("setoption name BookFile"), None);
        assert_eq!(
            parse("setoption\tname  Book File   value x"),
            Command::SetOption {
                name: "Book File".into(),
                value: Some("x".into())
            }
        );
    }

    #[test]
    fn position_commands() {
        assert_eq!(
            parse("position startpos moves e2e4 e7e5"),
            Command::Position {
                start: Start::StartPos,
                moves: vec!["e2e4".into(), "e7e5".into()]
            }
        );
        assert_eq!(
            parse("position fen 8/8/8/8/8/8/8/K1k5 w - -"),
            Command::Position {
                start: Start::Fen("8/8/8/8/8/8/8/K1k5 w - - 0 1".into()),
                moves: vec![]
            }
        );
        assert!(matches!(parse("position"), Command::Invalid(_)));
        assert!(matches!(parse("position fen"), Command::Invalid(_)));
    }

    #[test]
    fn go_commands() {
        let Command::Go(go) = parse("go ponder wtime 1000 btime 2000 winc 10 binc 20 movestogo 5")
        else {
            panic!()
        };
        assert!(go.ponder);
        assert_eq!(
            (go.wtime, go.btime, go.winc, go.binc, go.movestogo),
            (Some(1000), Some(2000), Some(10), Some(20), Some(5))
        );
        let Command::Go(go) = parse("go depth 300") else {
            panic!()
        };
        assert_eq!(go.depth, Some(300));
        let Command::Go(go) = parse("go searchmoves e2e4 d2d4 depth 3") else {
            panic!()
        };
        assert_eq!(go.searchmoves, vec!["e2e4", "d2d4"]);
        assert_eq!(go.depth, Some(3));
        assert_eq!(parse("go"), Command::Go(Go::default()));
        let Command::Go(go) = parse("go depth 99999999999999999999999") else {
            panic!()
        };
        assert_eq!((go.depth, go.problems.len()), (None, 1));
        let Command::Go(go) = parse("go wtime -5 btime x depth 4") else {
            panic!()
        };
        assert_eq!(go.wtime, Some(-5));
        assert_eq!(go.depth, Some(4));
        assert_eq!(go.problems.len(), 1);
    }

    #[test]
    fn info_lines_carry_tbhits_and_tablebase_scores_in_centipawns() {
        use crate::score::TB_WIN;
        let info = |score| IterationInfo {
            depth: 3,
            seldepth: 4,
            multipv: 1,
            score,
            bound: Bound::Exact,
            nodes: 1000,
            tbhits: 7,
            elapsed_ms: 10,
            hashfull: 0,
            pv: &[],
            scaled: true,
        };
        let line = info_line(&info(TB_WIN - 1), CastlingMode::Standard);
        assert!(line.contains(&format!("score cp {}", TB_WIN - 1)), "{line}");
        assert!(line.contains(" tbhits 7 "), "{line}");
        let line = info_line(&info(-(TB_WIN - 3)), CastlingMode::Standard);
        assert!(
            line.contains(&format!("score cp {}", -(TB_WIN - 3))),
            "{line}"
        );
        let line = info_line(&info(MATE - 3), CastlingMode::Standard);
        assert!(line.contains("score mate 2"), "{line}");
    }

    #[test]
    fn fuzz_lines_parse_to_the_command_they_begin_with() {
        use rand::{RngExt, SeedableRng, rngs::StdRng};
        let words = [
            "go",
            "depth",
            "300",
            "-1",
            "position",
            "fen",
            "startpos",
            "moves",
            "e2e4",
            "setoption",
            "name",
            "value",
            "Hash",
            "debug",
            "on",
            "uci",
            "99999999999999999999999",
            "\t",
            "ponder",
            "searchmoves",
            "mate",
            "perft",
            "bench",
            "register",
            "later",
        ];
        // What each command keyword may parse to: itself, or a refusal (`go perft N` is perft).
        let family = |c: &Command| match c {
            Command::Uci => "uci",
            Command::Debug(_) => "debug",
            Command::SetOption { .. } => "setoption",
            Command::Register => "register",
            Command::Position { .. } => "position",
            Command::Go(_) => "go",
            Command::Perft(_) => "perft",
            Command::Bench(_) => "bench",
            Command::Empty => "",
            Command::Invalid(_) => "invalid",
            _ => "other",
        };
        let mut rng = StdRng::seed_from_u64(7);
        let mut accepted = 0;
        for _ in 0..20_000 {
            let n = rng.random_range(0..8);
            let line: Vec<&str> = (0..n)
                .map(|_| words[rng.random_range(0..words.len())])
                .collect();
            let text = line.join(" ");
            let cmd = parse(&text);
            // The first command keyword decides; words before it are ignored.
            let keyword = line
                .iter()
                .find(|w| COMMANDS.contains(w))
                .copied()
                .unwrap_or(if text.trim().is_empty() {
                    ""
                } else {
                    "invalid"
                });
            let got = family(&cmd);
            let allowed = got == keyword || got == "invalid" || (keyword == "go" && got == "perft");
            assert!(allowed, "{text:?} parsed as {cmd:?}");
            if let Command::Invalid(why) = &cmd {
                assert!(!why.is_empty() && !why.contains('\n'), "{text:?}: {why:?}");
            } else if !got.is_empty() {
                accepted += 1;
            }
            // Runs of spaces and tabs between tokens do not matter (setoption keeps a value's
            // inner whitespace as written, so it is left out).
            // (A refusal quotes the line, so only its kind is compared.)
            if keyword != "setoption" {
                let spaced = parse(&line.join(" \t  "));
                if got == "invalid" {
                    assert_eq!(family(&spaced), "invalid", "{text:?}");
                } else {
                    assert_eq!(spaced, cmd, "{text:?}");
                }
            }
        }
        // Most lines that begin with a command are commands, not refusals.
        assert!(accepted > 5_000, "{accepted}");
    }
}
