//! The tools the engine itself offers, as UCI commands and on the command line: `perft` and
//! `bench` (measurement) and `genfens` (openings for OpenBench's datagen), with what genfens
//! stands on: `openings` (random balanced openings, which `training::datagen` starts from too)
//! and `pgn` (games read from PGN files, which `training::convert` reads too).
//! Producing training data and training the network is `crate::training`'s.

pub mod bench;
pub mod genfens;
pub mod openings;
pub mod perft;
pub mod pgn;
