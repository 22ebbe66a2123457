# `make` builds a native release binary; `make EXE=/path/name` puts it there (OpenBench style).
# `make FEATURES=tune` builds the tuning build (the search parameters as UCI options); OpenBench
# passes only EXE (and EVALFILE), so a tune branch sets `FEATURES ?= tune` here.
# `make EVALFILE=net.nnue` builds that net in instead of the current generation (build.rs), as
# OpenBench's workers do for a test with a network.
EXE ?= scout
FEATURES ?=
EVALFILE ?=
RUSTFLAGS_NATIVE ?= -C target-cpu=native

.PHONY: all clean bench test

all:
	SCOUT_EVALFILE="$(EVALFILE)" RUSTFLAGS="$(RUSTFLAGS_NATIVE)" cargo build --release --features "$(FEATURES)" --target-dir target/native
	cp target/native/release/scout $(EXE)

bench: all
	./$(EXE) bench

test:
	cargo test --release

clean:
	cargo clean
