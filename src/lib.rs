//! Scout: a UCI chess engine built on shakmaty's bitboard move generation.
//!
//! One module per concern; `main.rs` only dispatches command-line arguments.

pub mod book;
pub mod controller;
pub mod memory;
pub mod movepick;
pub mod nnue;
pub mod options;
pub mod params;
pub mod position;
pub mod score;
pub mod search;
pub mod see;
pub mod strength;
pub mod tablebase;
pub mod threads;
pub mod time;
pub mod tools;
#[cfg(feature = "training")]
pub mod training;
pub mod tt;
pub mod uci;
pub mod wdl;

/// The engine's name and version as announced by `id name`.
pub const NAME: &str = concat!("Scout ", env!("CARGO_PKG_VERSION"));
/// The engine's authors as announced by `id author`.
pub const AUTHOR: &str = "the Scout developers";
