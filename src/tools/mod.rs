//! The tools that serve the engine but are not part of it: `perft` and `bench` (measurement),
//! `datagen` (self-play training data), `openings` (the random balanced openings it starts
//! from), `packed` (its format) and `datasummary` (what data files hold), `genfens` (openings
//! for OpenBench's datagen), `pgn` and `convert` (match games as training data), `train` (the
//! network's trainer) and `wdlfit` (the fit of the win/draw/loss model).
//! The engine's own modules never depend on anything here except `bench`, `perft` and
//! `genfens` (with what it uses: `openings` and `pgn`), which the UCI front end also offers as
//! commands.

pub mod bench;
pub mod convert;
pub mod datagen;
pub mod datasummary;
pub mod genfens;
pub mod openings;
pub mod packed;
pub mod perft;
pub mod pgn;
pub mod train;
pub mod wdlfit;
