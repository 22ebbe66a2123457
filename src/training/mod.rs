//! Everything that makes the network and its data, apart from the engine that plays with them
//! (behind the `training` feature, which the default build enables): `cli` (their command
//! lines), `datagen` (self-play data), `convert` (match PGNs as data), `packed` (the 32-byte
//! record format they write), `datasummary` (`scout data`: what data files hold), `train` (the
//! network's trainer, on the CPU), `rescale` (a net's output brought to another's scale) and
//! `wdlfit` (the fit of the win/draw/loss model that `crate::wdl` reads).
//! The engine's modules never import anything from here; this folder imports from the engine
//! (the search that plays datagen's games, the net file format the trainer writes).

pub mod cli;
pub mod convert;
pub mod datagen;
pub mod datasummary;
pub mod packed;
pub mod rescale;
pub mod train;
pub mod wdlfit;

/// Writes `bytes` to `path` whole or not at all: into `path.tmp` first, then renamed over
/// `path`, so an interrupted write never leaves a torn net or checkpoint behind.
pub fn write_atomically(path: &str, bytes: &[u8]) -> std::io::Result<()> {
    let tmp = format!("{path}.tmp");
    std::fs::write(&tmp, bytes)?;
    std::fs::rename(&tmp, path)
}
