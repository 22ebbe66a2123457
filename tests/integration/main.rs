//! The integration tests, one test binary: each module below was a test crate of its own, and
//! one binary is linked (with the release profile's LTO) once instead of twelve times, and runs
//! its tests on every core at once instead of one crate after another. `cargo test --release
//! search::` runs one module's tests. (`tests/tune.rs` stays apart: it needs the tuning build.)

#[path = "../common/mod.rs"]
mod common;

mod convert;
mod eval_symmetry;
mod genfens;
mod nnue;
mod openbench;
mod perft_suites;
mod search;
mod strength;
mod syzygy;
mod uci_analysis;
mod uci_fuzz;
mod uci_protocol;
