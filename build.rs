//! Build script: chooses the net built into the binary. By default it is the current
//! generation, `nets/gen9.nnue` (README, *Generations*); the environment variable
//! `SCOUT_EVALFILE` names another net file, which is how `make EVALFILE=...` (and so an
//! OpenBench worker testing a network) builds Scout with it. The file must at least be a Scout
//! net file (its magic); the engine checks the rest when it first reads it.

use std::path::PathBuf;

/// The net built in unless `SCOUT_EVALFILE` says otherwise.
const DEFAULT_NET: &str = "nets/gen9.nnue";

fn main() {
    println!("cargo:rerun-if-env-changed=SCOUT_EVALFILE");
    let root = PathBuf::from(std::env::var("CARGO_MANIFEST_DIR").expect("set by cargo"));
    let net = match std::env::var("SCOUT_EVALFILE") {
        Ok(path) if !path.trim().is_empty() => root.join(path.trim()),
        _ => root.join(DEFAULT_NET),
    };
    let bytes = std::fs::read(&net)
        .unwrap_or_else(|e| panic!("the net to build in, {}: {e}", net.display()));
    if !bytes.starts_with(b"SCOUTNET") {
        panic!("{} is not a Scout net file (SCOUTNET magic)", net.display());
    }
    println!("cargo:rerun-if-changed={}", net.display());
    println!("cargo:rustc-env=SCOUT_BUILT_IN_NET={}", net.display());
}
