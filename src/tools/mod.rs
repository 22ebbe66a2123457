//! The tools that serve the engine but are not part of it: `perft` and `bench` (measurement),
//! `datagen` (self-play training data), `packed` (its format) and `datasummary` (what data
//! files hold), `train` (the network's trainer) and `wdlfit` (the fit of the win/draw/loss
//! model).
//! The engine's own modules never depend on anything here except `bench` and `perft`, which the
//! UCI front end also offers as commands.

pub mod bench;
pub mod datagen;
pub mod datasummary;
pub mod packed;
pub mod perft;
pub mod train;
pub mod wdlfit;
