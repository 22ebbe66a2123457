//! NNUE inference: the quantized network, its file format and the evaluation of an accumulator.
//!
//! Architecture (`(768·K → hidden)×2 → 1`, SCReLU, 1 or 8 output buckets): every piece on the
//! board is a feature from White's side and one from Black's (`inputs.rs`: colour relative to
//! the perspective × 6 roles × 64 squares, in one of K sets chosen by the perspective's own king
//! square when the net has king buckets). One shared weight matrix turns each perspective's
//! active features into `hidden` accumulator values (kept up to date move by move,
//! `accumulator.rs`). The output concatenates the side to move's accumulator with the other
//! side's, applies SCReLU (clamp to [0, 1], squared) and takes a dot product with 2·hidden
//! output weights. The hidden width is the net's own (its file says it): any multiple of
//! [`HIDDEN_STEP`] up to [`MAX_HIDDEN`], so a wider net is loaded and played by the same binary;
//! the built-in net has [`DEFAULT_HIDDEN`]. A net with output buckets has eight sets of output
//! weights and biases and uses the one for the number of pieces on the board (`bucket`): the
//! same accumulators, read differently in the opening, the middlegame and the endgame.
//!
//! Quantisation: feature weights and biases × QA (i16), output weights × QB (i16), output bias
//! × QA·QB (i32); the evaluation in centipawns is `(Σ v²·w / QA + bias) · SCALE / (QA·QB)` with
//! `v = clamp(acc, 0, QA)`. Training keeps |output weight| ≤ 127 / QB so that `v·w` fits an
//! i16, which the SIMD kernels (`simd.rs`) rely on.
//!
//! The search reads the net's output scaled by the material on the board (`scale.rs`).
//!
//! Training lives in `training/train`; this module only reads nets (`file.rs`) and evaluates them.

pub mod accumulator;
pub mod file;
pub mod inputs;
pub mod scale;
pub mod simd;

use shakmaty::Color;

use crate::score::EVAL_LIMIT;
pub use inputs::KingBuckets;

/// Output buckets a net may have: one, or one per [`bucket`].
pub const BUCKET_COUNTS: [usize; 2] = [1, 8];

/// The output bucket of a position with `pieces` pieces (kings included) in a net with
/// `buckets` buckets: 2–5 pieces are bucket 0, …, 30–32 bucket 7.
#[inline]
pub fn bucket(buckets: usize, pieces: u32) -> usize {
    debug_assert!(buckets >= 1);
    if buckets == 1 {
        0
    } else {
        (pieces.saturating_sub(2) as usize / 4).min(buckets - 1)
    }
}

/// The hidden width (accumulator values per perspective) of the built-in net and of `train`
/// unless told otherwise.
pub const DEFAULT_HIDDEN: usize = 256;
/// The widest net the engine plays: accumulators have room for this many values.
pub const MAX_HIDDEN: usize = 1024;
/// Hidden widths are multiples of this (one AVX-512 register of i16 lanes).
pub const HIDDEN_STEP: usize = 32;
/// Quantisation of the feature transformer (the accumulator's "1.0").
pub const QA: i32 = 255;
/// Quantisation of the output weights.
pub const QB: i32 = 64;
/// Network output 1.0 is this many centipawns.
pub const SCALE: i32 = 400;
/// Largest output weight the quantisation allows (`QA·w` must fit in an i16 after the clamp).
pub const OUTPUT_WEIGHT_LIMIT: f32 = 127.0 / QB as f32;

// The SIMD output layer sums `clamp(acc)²·w` in i32 lanes, each over a sixteenth of the hidden
// width at most (AVX2: 8 lanes of pairs): no lane may overflow at the widest net.
const _: () = assert!((MAX_HIDDEN / 8) as i64 * (QA * QA) as i64 * 127 <= i32::MAX as i64);

/// Can a net have this hidden width?
pub const fn valid_hidden(hidden: usize) -> bool {
    hidden >= HIDDEN_STEP && hidden <= MAX_HIDDEN && hidden.is_multiple_of(HIDDEN_STEP)
}

/// A quantized network, as loaded from a net file.
#[derive(Clone)]
pub struct Network {
    /// The hidden width: accumulator values per perspective ([`valid_hidden`]).
    pub hidden: usize,
    /// How the features follow the king (none for generations 0–6).
    pub king_buckets: KingBuckets,
    /// `king_buckets.features()` columns of `hidden` values each.
    pub feature_weights: Vec<i16>,
    pub feature_bias: Vec<i16>,
    /// Per output bucket: the side to move's `hidden` weights, then the other side's.
    pub output_weights: Vec<i16>,
    /// One bias per output bucket.
    pub output_bias: Vec<i32>,
}

impl std::fmt::Debug for Network {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // The file's checksum names the net (the same number `file.rs` writes last).
        let bytes = file::write(self);
        let checksum = u64::from_le_bytes(bytes[bytes.len() - 8..].try_into().unwrap());
        write!(
            f,
            "Network({}->{}x2->1, SCReLU, king buckets {}, {} output buckets, checksum \
             {checksum:016x})",
            self.king_buckets.features(),
            self.hidden,
            self.king_buckets.describe(),
            self.buckets()
        )
    }
}

impl Network {
    /// The weights of one feature.
    #[inline]
    pub fn column(&self, feature: usize) -> &[i16] {
        &self.feature_weights[feature * self.hidden..(feature + 1) * self.hidden]
    }

    /// The number of output buckets.
    #[inline]
    pub fn buckets(&self) -> usize {
        self.output_bias.len()
    }

    /// The same net with `hidden` units, the new ones all zero: it evaluates every position
    /// exactly as this one does, at the cost of the wider net (what a wider net costs in speed
    /// is measured with it, on the same search tree).
    pub fn widened(&self, hidden: usize) -> Network {
        assert!(valid_hidden(hidden) && hidden >= self.hidden);
        let pad = |values: &[i16], width: usize| -> Vec<i16> {
            values
                .chunks_exact(width)
                .flat_map(|row| {
                    row.iter()
                        .copied()
                        .chain(std::iter::repeat_n(0, hidden - width))
                })
                .collect()
        };
        Network {
            hidden,
            king_buckets: self.king_buckets,
            feature_weights: pad(&self.feature_weights, self.hidden),
            feature_bias: pad(&self.feature_bias, self.hidden),
            output_weights: pad(&self.output_weights, self.hidden),
            output_bias: self.output_bias.clone(),
        }
    }

    /// The evaluation in centipawns for the side to move, from the two perspectives'
    /// accumulators (`us` is the side to move's), with `pieces` pieces on the board.
    #[inline]
    pub fn output(&self, kernels: simd::Kernels, us: &[i16], them: &[i16], pieces: u32) -> i32 {
        let h = self.hidden;
        let b = bucket(self.buckets(), pieces);
        let weights = &self.output_weights[2 * h * b..2 * h * (b + 1)];
        let sum = kernels.screlu_dot(us, &weights[..h]) + kernels.screlu_dot(them, &weights[h..]);
        let cp = (sum / i64::from(QA) + i64::from(self.output_bias[b])) * i64::from(SCALE)
            / i64::from(QA * QB);
        // Within the range of static evaluations, far from mate scores.
        cp.clamp(-i64::from(EVAL_LIMIT), i64::from(EVAL_LIMIT)) as i32
    }
}

/// The evaluation of `board` with `turn` to move, computed from scratch, in centipawns for the
/// side to move.
pub fn evaluate_board(net: &Network, board: &shakmaty::Board, turn: Color) -> i32 {
    let pieces = board.occupied().count() as u32;
    accumulator::Accumulator::refresh(net, board).evaluate(
        net,
        simd::Kernels::detect(),
        turn,
        pieces,
    )
}

/// The net's view of a position for a person (the `eval` command): the evaluation, and for
/// every piece but the kings what it is worth here, the evaluation minus the evaluation with
/// that piece taken off, in pawns from White's point of view.
pub fn explain(net: &Network, pos: &shakmaty::Chess) -> String {
    use shakmaty::{File, Position, Rank, Role, Square};
    let turn = pos.turn();
    let white = |v: i32| if turn == Color::White { v } else { -v };
    let total = white(evaluate_board(net, pos.board(), turn));
    let mut out = String::from(
        "NNUE: what each piece is worth here (eval minus eval without it), pawns, White's view\n",
    );
    for rank in Rank::ALL.into_iter().rev() {
        out.push_str("+-------+-------+-------+-------+-------+-------+-------+-------+\n|");
        let mut values = String::from("|");
        for file in File::ALL {
            let sq = Square::from_coords(file, rank);
            match pos.board().piece_at(sq) {
                Some(piece) => {
                    out.push_str(&format!("   {}   |", piece.char()));
                    if piece.role == Role::King {
                        values.push_str("       |");
                    } else {
                        let mut without = pos.board().clone();
                        without.discard_piece_at(sq);
                        let rest = white(evaluate_board(net, &without, turn));
                        values.push_str(&format!(" {:+5.2} |", (total - rest) as f64 / 100.0));
                    }
                }
                None => {
                    out.push_str("       |");
                    values.push_str("       |");
                }
            }
        }
        out.push_str(&format!(" {}\n{values}\n", rank.char()));
    }
    out.push_str("+-------+-------+-------+-------+-------+-------+-------+-------+\n");
    out.push_str("    a       b       c       d       e       f       g       h\n");
    out.push_str(&format!(
        "NNUE evaluation: {:+.2} (White's view), {:+} cp for the side to move\n",
        total as f64 / 100.0,
        white(total)
    ));
    let scaled = scale::scaled(total, pos.board());
    out.push_str(&format!(
        "Scaled by material (x{:.3}, as the search reads it): {:+.2} (White's view)\n",
        f64::from(scale::material_scale(pos.board())) / f64::from(scale::ONE),
        scaled as f64 / 100.0
    ));
    out
}

/// The `EvalFile` value that stands for the net built into the binary.
pub const DEFAULT_EVAL_FILE: &str = "<default>";

/// The net built into the binary: the current generation (README, *Generations*), or the file
/// `make EVALFILE=...` named (`build.rs` chooses).
static DEFAULT_NET: &[u8] = include_bytes!(env!("SCOUT_BUILT_IN_NET"));

/// The default network, read once from the bytes built into the binary.
pub fn default_network() -> std::sync::Arc<Network> {
    static NET: std::sync::OnceLock<std::sync::Arc<Network>> = std::sync::OnceLock::new();
    NET.get_or_init(|| {
        std::sync::Arc::new(file::read(DEFAULT_NET).expect("the embedded net is valid (tested)"))
    })
    .clone()
}

#[cfg(test)]
mod tests {
    use super::*;
    use shakmaty::fen::Fen;
    use shakmaty::{CastlingMode, Chess, Position};

    fn evaluate_fen(fen: &str) -> i32 {
        let pos: Chess = fen
            .parse::<Fen>()
            .unwrap()
            .into_position(CastlingMode::Standard)
            .unwrap();
        evaluate_board(&default_network(), pos.board(), pos.turn())
    }

    /// The bytes built into the binary are a whole net of this architecture, and a trained
    /// one: the start position is about level, a queen is worth a lot to either side.
    #[test]
    fn the_embedded_net_is_a_trained_net_of_this_architecture() {
        let net = file::read(DEFAULT_NET).expect("a valid net");
        assert_eq!(net.hidden, DEFAULT_HIDDEN);
        assert_eq!(
            DEFAULT_NET.len(),
            file::file_len(&net.king_buckets, net.hidden, net.buckets())
        );
        let start = evaluate_fen("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1");
        assert!(start.abs() < 100, "start position: {start}");
        let no_black_queen = "rnb1kbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR";
        let white = evaluate_fen(&format!("{no_black_queen} w KQkq - 0 1"));
        let black = evaluate_fen(&format!("{no_black_queen} b KQkq - 0 1"));
        assert!(white > 500 && black < -500, "a queen up: {white}, {black}");
    }

    /// Buckets by piece count: 2–5 pieces bucket 0, 30–32 bucket 7, one bucket always 0.
    #[test]
    fn output_buckets_follow_the_piece_count() {
        let of = |n| bucket(8, n);
        assert_eq!(
            (of(2), of(5), of(6), of(17), of(29), of(30), of(32)),
            (0, 0, 1, 3, 6, 7, 7)
        );
        assert!((2..=32).all(|n| bucket(1, n) == 0));
    }

    /// A net with buckets evaluates each position with its own bucket's output: with the
    /// output weights zero, bucket b's bias alone (b pawns here).
    #[test]
    fn each_bucket_has_its_own_output() {
        let mut net = file::tests::sample(8);
        net.output_weights.fill(0);
        net.output_bias = (0..8).map(|b| b * QA * QB / 4).collect();
        let eval = |fen: &str| {
            let board: shakmaty::Board = fen.parse().unwrap();
            evaluate_board(&net, &board, Color::White)
        };
        assert_eq!(eval("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR"), 700);
        assert_eq!(eval("4k3/pppppppp/8/8/8/8/PPPPPPPP/4K3"), 400);
        assert_eq!(eval("8/8/4k3/8/8/4K3/8/8"), 0);
    }

    /// A net widened with zero units evaluates every position exactly as the narrower one, with
    /// every kernel: the loops follow the net's width, the extra units count for nothing.
    #[test]
    fn a_widened_net_evaluates_as_the_original() {
        let net = file::tests::sample_of(256, 8);
        let fens = [
            "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR",
            "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R",
            "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8",
        ];
        for hidden in [288, 384, 512, 1024] {
            let wide = net.widened(hidden);
            assert_eq!(wide.hidden, hidden);
            let wide = file::read(&file::write(&wide)).expect("a valid net");
            for fen in fens {
                let board: shakmaty::Board = fen.parse().unwrap();
                for turn in Color::ALL {
                    let narrow = evaluate_board(&net, &board, turn);
                    let acc = accumulator::Accumulator::refresh(&wide, &board);
                    for kernels in simd::Kernels::available() {
                        let pieces = board.occupied().count() as u32;
                        assert_eq!(
                            acc.evaluate(&wide, kernels, turn, pieces),
                            narrow,
                            "{hidden} {kernels:?} {fen}"
                        );
                    }
                }
            }
        }
    }
}
