//! Match games as training data (`scout convert PGN... --out FILE`).
//!
//! Reads PGNs written by fastchess, cutechess-cli or OpenBench (games in [`crate::tools::pgn`])
//! and writes the positions in the 32-byte records of [`crate::training::packed`], with the same
//! filter as `datagen`: a position is kept when the move played from it has a score comment,
//! is not a book move, is neither a capture nor a promotion, the side to move is not in check
//! and the score is not a mate. The score comment is the match runner's `score/depth ...`
//! (`+0.35/14 0.210s, n=12345, sd=22`, OpenBench's compact `+0.35/14`, mates `+M5`), in pawns
//! from the mover's view; the record holds it in centipawns from White's view, with the game's
//! result. Games ending in `*` are skipped. With `--scale X` every kept score is multiplied by X
//! (rounded): a net rescaled by `scout rescale --factor F` searches in F times its parent's
//! centipawns, and `--scale 1/F` brings its games back to the scale of the parent's data. With
//! `--material-scaled true` every kept score is first divided by the material scale of its
//! position (`nnue/scale.rs`): games of a Scout whose search scales its evaluation by material
//! (session 73 on) come back to the net's own units, as the data generator writes them.
//!
//! Games are written whole, as they are read: a damaged file stops the conversion with an
//! error naming the game and the line, and the records of the games before it stay written.

use std::fs::File;
use std::io::{BufReader, BufWriter, Write};

use shakmaty::{Chess, Position as _};

use crate::tools::pgn::{Game, Games};
use crate::training::packed::{self, GAME_END, Outcome, Packed};

/// A move's score comment, read.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Score {
    /// Centipawns, the mover's view.
    Cp(i32),
    /// A mate score (`+M5`, `-M4`).
    Mate,
}

/// Reads the score at the start of a comment: `[+-]N.NN/DEPTH` or `[+-]MN/DEPTH`. `None` for a
/// comment without one (`book`, OpenBench's `unknown`, fastchess's `/0` for a move it got no
/// score with).
pub fn read_score(comment: &str) -> Option<Score> {
    let head = comment.split_whitespace().next()?;
    let (score, depth) = head.split_once('/')?;
    let depth = depth.trim_end_matches(',');
    if depth.is_empty() || !depth.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let unsigned = score.strip_prefix(['+', '-']).unwrap_or(score);
    if let Some(moves) = unsigned.strip_prefix('M') {
        return (!moves.is_empty() && moves.bytes().all(|b| b.is_ascii_digit()))
            .then_some(Score::Mate);
    }
    if unsigned.is_empty() || !unsigned.bytes().all(|b| b.is_ascii_digit() || b == b'.') {
        return None;
    }
    let pawns: f64 = score.parse().ok()?;
    let cp = (pawns * 100.0).round();
    (cp.abs() < 1e9).then_some(Score::Cp(cp as i32))
}

/// What became of the moves read: every move is either kept or counted under the first
/// reason that applies, in this order.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Stats {
    pub files: u64,
    pub games: u64,
    /// Games ending in `*` (no result to learn from): skipped with all their moves.
    pub unfinished_games: u64,
    pub moves: u64,
    pub kept: u64,
    pub in_unfinished_games: u64,
    /// Moves of the other player, when only one player's moves are kept (`--player`).
    pub other_player: u64,
    pub book: u64,
    pub no_score: u64,
    pub mate: u64,
    pub in_check: u64,
    pub capture: u64,
    pub promotion: u64,
}

impl Stats {
    /// Moves counted under some reason or kept (equals `moves`).
    pub fn accounted(&self) -> u64 {
        self.kept
            + self.in_unfinished_games
            + self.other_player
            + self.book
            + self.no_score
            + self.mate
            + self.in_check
            + self.capture
            + self.promotion
    }
}

impl std::fmt::Display for Stats {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{} file{}, {} games ({} unfinished, skipped), {} moves: {} positions kept; left \
             out: {} in unfinished games, {} of the other player, {} book, {} without a score, \
             {} mate scores, {} in check, {} captures, {} promotions",
            self.files,
            if self.files == 1 { "" } else { "s" },
            self.games,
            self.unfinished_games,
            self.moves,
            self.kept,
            self.in_unfinished_games,
            self.other_player,
            self.book,
            self.no_score,
            self.mate,
            self.in_check,
            self.capture,
            self.promotion
        )
    }
}

/// Which moves are kept and how their scores are written.
#[derive(Clone, Copy, Debug)]
pub struct Select<'a> {
    /// Only the moves of the player the White or Black tag names so (in a gauntlet, the
    /// opponents' scores are in their own engines' units); every move when `None`.
    pub player: Option<&'a str>,
    /// Every kept score times this (rounded to the nearest centipawn).
    pub scale: f64,
    /// The scores are material-scaled (`nnue/scale.rs`): each is unscaled first.
    pub material_scaled: bool,
}

impl Default for Select<'_> {
    fn default() -> Self {
        Select {
            player: None,
            scale: 1.0,
            material_scaled: false,
        }
    }
}

/// The kept positions of one game, as records (the last one flagged as the game's end), the
/// moves and scores as `select` says.
pub fn game_records(game: &Game, select: Select, stats: &mut Stats) -> Vec<Packed> {
    stats.games += 1;
    stats.moves += game.moves.len() as u64;
    let Some(winner) = game.result() else {
        stats.unfinished_games += 1;
        stats.in_unfinished_games += game.moves.len() as u64;
        return Vec::new();
    };
    let outcome = Outcome::for_white(winner);
    let mut kept: Vec<(Chess, i32)> = Vec::new();
    let mut pos = game.start.clone();
    for played in &game.moves {
        let mover = pos.turn().fold_wb(&game.white, &game.black);
        let counter = if select.player.is_some_and(|p| p != mover) {
            Some(&mut stats.other_player)
        } else if played.comment.trim().eq_ignore_ascii_case("book") {
            Some(&mut stats.book)
        } else {
            match read_score(&played.comment) {
                None => Some(&mut stats.no_score),
                Some(Score::Mate) => Some(&mut stats.mate),
                Some(Score::Cp(_)) if pos.is_check() => Some(&mut stats.in_check),
                Some(Score::Cp(_)) if played.mv.is_capture() => Some(&mut stats.capture),
                Some(Score::Cp(_)) if played.mv.is_promotion() => Some(&mut stats.promotion),
                Some(Score::Cp(cp)) => {
                    let cp = if select.material_scaled {
                        crate::nnue::scale::unscaled(cp, pos.board())
                    } else {
                        cp
                    };
                    let cp = (f64::from(cp) * select.scale).round() as i32;
                    kept.push((pos.clone(), pos.turn().fold_wb(cp, -cp)));
                    None
                }
            }
        };
        if let Some(counter) = counter {
            *counter += 1;
        }
        pos.play_unchecked(played.mv);
    }
    stats.kept += kept.len() as u64;
    let last = kept.len().saturating_sub(1);
    kept.iter()
        .enumerate()
        .map(|(i, (p, score))| {
            Packed::new(p, *score, outcome, if i == last { GAME_END } else { 0 })
        })
        .collect()
}

/// Converts one PGN input, writing each game's records as soon as the game is read (the moves
/// and scores `select` says). On a damaged game, the error names it; everything before it is
/// written.
pub fn convert(
    input: impl std::io::Read,
    out: &mut impl Write,
    select: Select,
    stats: &mut Stats,
) -> Result<(), String> {
    let games_before = stats.games;
    for game in Games::new(input) {
        let game = game.map_err(|e| e.to_string())?;
        for record in game_records(&game, select, stats) {
            out.write_all(&record.0).map_err(|e| e.to_string())?;
        }
    }
    if stats.games == games_before {
        return Err("no games in it".to_string());
    }
    Ok(())
}

/// Opens the output for appending, refusing a file that is not whole Scout records ending
/// with a whole game (so that a wrong path never damages another file).
fn open_output(path: &str) -> Result<File, String> {
    match std::fs::metadata(path) {
        Ok(meta) => {
            let bytes = std::fs::read(path).map_err(|e| format!("{path}: {e}"))?;
            if meta.len() > 0 && packed::complete_length(&bytes) != bytes.len() {
                return Err(format!(
                    "{path} is not a file of whole Scout records (it would be appended to): \
                     refusing to touch it"
                ));
            }
        }
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            if let Some(dir) = std::path::Path::new(path).parent()
                && !dir.as_os_str().is_empty()
            {
                std::fs::create_dir_all(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
            }
        }
        Err(e) => return Err(format!("{path}: {e}")),
    }
    File::options()
        .create(true)
        .append(true)
        .open(path)
        .map_err(|e| format!("{path}: {e}"))
}

/// Converts the PGN files in order, appending to `out`. Stops at the first damaged file with
/// an error naming the file, the game and the line; the records before it stay in `out`.
/// The statistics cover everything read, up to the error.
pub fn run(inputs: &[String], out: &str, select: Select, stats: &mut Stats) -> Result<(), String> {
    if inputs.is_empty() {
        return Err("convert needs at least one PGN file".to_string());
    }
    let mut writer = BufWriter::new(open_output(out)?);
    let mut result = Ok(());
    for path in inputs {
        let converted = File::open(path)
            .map_err(|e| e.to_string())
            .and_then(|f| convert(BufReader::new(f), &mut writer, select, stats));
        stats.files += 1;
        if let Err(e) = converted {
            result = Err(format!("{path}: {e}"));
            break;
        }
    }
    writer.flush().map_err(|e| format!("{out}: {e}"))?;
    result
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn score_comments() {
        assert_eq!(
            read_score("+0.35/14 0.210s, n=12345, sd=22"),
            Some(Score::Cp(35))
        );
        assert_eq!(read_score("-1.29/9 0.1s"), Some(Score::Cp(-129)));
        assert_eq!(read_score("0.00/20 1.000s"), Some(Score::Cp(0)));
        assert_eq!(read_score("+0.29/3"), Some(Score::Cp(29)));
        assert_eq!(read_score("+12.07/30, n=1"), Some(Score::Cp(1207)));
        assert_eq!(read_score("+M5/30 0.5s"), Some(Score::Mate));
        assert_eq!(read_score("-M4/30 0.5s"), Some(Score::Mate));
        assert_eq!(read_score("book"), None);
        assert_eq!(read_score("unknown"), None);
        assert_eq!(read_score("/0 0.001s, n=0, sd=0"), None);
        assert_eq!(read_score("ERR/12 0.1s"), None);
        assert_eq!(read_score("+0.35"), None);
        assert_eq!(read_score("White mates"), None);
    }

    #[test]
    fn filter_scores_and_results() {
        // 1. e4 (book) e5 (Black's view -0.20 → White +20) 2. Nf3 (+0.30) Nc6 (in no check,
        // quiet, -0.25 → +25) 3. Bb5 (mate score) a6 (no comment) 4. Bxc6 (capture) dxc6
        // (capture) 5. O-O (+0.10)
        let text = "[Result \"0-1\"]\n\n1. e4 {book} e5 {-0.20/10} 2. Nf3 {+0.30/11 0.1s} Nc6 \
                    {-0.25/9, n=5} 3. Bb5 {+M9/20} a6 4. Bxc6 {+0.50/9} dxc6 {-0.40/9} 5. O-O \
                    {+0.10/12} 0-1\n";
        let mut stats = Stats::default();
        let mut out = Vec::new();
        convert(text.as_bytes(), &mut out, Select::default(), &mut stats).unwrap();
        let records: Vec<Packed> = out
            .chunks_exact(packed::RECORD)
            .map(|c| Packed(c.try_into().unwrap()))
            .collect();
        let fens: Vec<String> = records
            .iter()
            .map(|r| crate::position::Position::new(r.position().unwrap()).fen())
            .collect();
        assert_eq!(
            fens,
            [
                "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1",
                "rnbqkbnr/pppp1ppp/8/4p3/4P3/8/PPPP1PPP/RNBQKBNR w KQkq - 0 2",
                "rnbqkbnr/pppp1ppp/8/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R b KQkq - 1 2",
                "r1bqkbnr/1pp2ppp/p1p5/4p3/4P3/5N2/PPPP1PPP/RNBQK2R w KQkq - 0 5",
            ]
        );
        let scores: Vec<i16> = records.iter().map(|r| r.score()).collect();
        assert_eq!(scores, [20, 30, 25, 10]);
        assert!(records.iter().all(|r| r.outcome() == Outcome::Loss));
        let flags: Vec<u8> = records.iter().map(|r| r.flags()).collect();
        assert_eq!(flags, [0, 0, 0, GAME_END]);
        assert_eq!(
            stats,
            Stats {
                games: 1,
                moves: 9,
                kept: 4,
                book: 1,
                no_score: 1,
                mate: 1,
                capture: 2,
                ..Stats::default()
            }
        );
        assert_eq!(stats.accounted(), stats.moves);
    }

    /// With a player named, the other player's moves are counted and left out, whichever
    /// colour the player has.
    #[test]
    fn only_the_named_player_is_kept() {
        let text = "[White \"scout\"]\n[Black \"other\"]\n[Result \"1-0\"]\n\n1. e4 {+0.30/10} e5 \
                    {-0.20/10} 2. Nf3 {+0.40/11} Nc6 {-0.25/9} 1-0\n\n\
                    [White \"other\"]\n[Black \"scout\"]\n[Result \"0-1\"]\n\n1. d4 {+0.10/10} d5 \
                    {-0.15/10} 0-1\n";
        let mut stats = Stats::default();
        let mut out = Vec::new();
        let scout = Select {
            player: Some("scout"),
            ..Select::default()
        };
        convert(text.as_bytes(), &mut out, scout, &mut stats).unwrap();
        let scores: Vec<i16> = out
            .chunks_exact(packed::RECORD)
            .map(|c| Packed(c.try_into().unwrap()).score())
            .collect();
        // Scout's e4 (+30) and Nf3 (+40) as White, d5 (-0.15 for Black: +15 for White).
        assert_eq!(scores, [30, 40, 15]);
        assert_eq!((stats.kept, stats.other_player), (3, 3));
        assert_eq!(stats.accounted(), stats.moves);
        let mut all = Stats::default();
        convert(
            text.as_bytes(),
            &mut Vec::new(),
            Select::default(),
            &mut all,
        )
        .unwrap();
        assert_eq!((all.kept, all.other_player), (6, 0));
    }

    /// `--scale` multiplies every kept score, rounded to the nearest centipawn (halves away
    /// from zero, the same for either side), `--material-scaled true` divides it by its
    /// position's material scale; neither changes the choice of moves.
    #[test]
    fn a_scale_multiplies_every_kept_score() {
        let text = "[White \"a\"]\n[Black \"b\"]\n[Result \"1-0\"]\n\n1. e4 {+0.30/10} e5 \
                    {-0.20/10} 2. Nf3 {+0.03/11} Nc6 {-0.15/9} 3. Bb5 {book} a6 {+0.01/9} 1-0\n";
        let scores = |select: Select| {
            let (mut stats, mut out) = (Stats::default(), Vec::new());
            convert(text.as_bytes(), &mut out, select, &mut stats).unwrap();
            let scores: Vec<i16> = out
                .chunks_exact(packed::RECORD)
                .map(|c| Packed(c.try_into().unwrap()).score())
                .collect();
            (scores, stats)
        };
        let (plain, plain_stats) = scores(Select::default());
        assert_eq!(plain, [30, 20, 3, 15, -1]);
        let (scaled, scaled_stats) = scores(Select {
            scale: 1.25,
            ..Select::default()
        });
        // 37.5 → 38, 25, 3.75 → 4, 18.75 → 19, −1.25 → −1.
        assert_eq!(scaled, [38, 25, 4, 19, -1]);
        assert_eq!(scaled_stats, plain_stats);
        let (halved, _) = scores(Select {
            player: Some("b"),
            scale: 0.5,
            ..Select::default()
        });
        // Black's e5 (−0.20: +10 for White), Nc6 (+7.5 → 8), a6 (+0.01 for Black: −0.5 → −1).
        assert_eq!(halved, [10, 8, -1]);
        // Material-scaled scores with every piece on the board: each × 32,768 / 31,100.
        let (unscaled, unscaled_stats) = scores(Select {
            material_scaled: true,
            ..Select::default()
        });
        // 31.6 → 32, 21.07 → 21, 3.16 → 3, 15.8 → 16, 1.05 → 1.
        assert_eq!(unscaled, [32, 21, 3, 16, -1]);
        assert_eq!(unscaled_stats, plain_stats);
    }

    #[test]
    fn check_promotion_and_unfinished_games_are_left_out() {
        // A mate score, a promotion, an unfinished game and a reply to a check.
        let text = "[Result \"1-0\"]\n\n1. e3 {+0.10/5} f6 {-0.10/5} 2. e4 {+0.20/5} g5 \
                    {-0.50/5} 3. Qh5# {+M1/5} 1-0\n\n\
                    [FEN \"8/P6k/8/8/8/8/6K1/8 w - - 0 1\"]\n[Result \"1-0\"]\n\n1. a8=Q \
                    {+9.00/5} 1-0\n\n\
                    [FEN \"7k/8/8/8/8/8/6K1/3Q4 b - - 0 1\"]\n[Result \"*\"]\n\n1... Kh7 \
                    {-9.00/5} *\n\n\
                    [FEN \"k7/8/2K5/8/8/8/8/7R b - - 0 1\"]\n[Result \"1/2-1/2\"]\n\n1... Ka7 \
                    {-5.00/5} 2. Rh7+ {+5.00/5} Ka8 {-6.00/5} 1/2-1/2\n";
        let mut stats = Stats::default();
        let mut out = Vec::new();
        convert(text.as_bytes(), &mut out, Select::default(), &mut stats).unwrap();
        let records: Vec<Packed> = out
            .chunks_exact(packed::RECORD)
            .map(|c| Packed(c.try_into().unwrap()))
            .collect();
        // Game 1: e3, f6, e4, g5 kept; Qh5# is a mate score. Game 2: the promotion. Game 3:
        // unfinished. Game 4: Ka7 and Rh7+ kept, Ka8 (in check) not.
        assert_eq!(records.len(), 6);
        assert_eq!(
            records.iter().map(|r| r.score()).collect::<Vec<_>>(),
            [10, 10, 20, 50, 500, 500]
        );
        assert_eq!(records[4].outcome(), Outcome::Draw);
        assert_eq!(records[0].outcome(), Outcome::Win);
        assert_eq!(stats.in_check, 1);
        assert_eq!(stats.promotion, 1);
        assert_eq!(stats.mate, 1);
        assert_eq!((stats.unfinished_games, stats.in_unfinished_games), (1, 1));
        assert_eq!(stats.accounted(), stats.moves);
    }
}
