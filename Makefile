# `make` builds a native release binary; `make EXE=/path/name` puts it there (OpenBench style).
# `make FEATURES=tune` builds the tuning build (the search parameters as UCI options); OpenBench
# passes only EXE, so a tune branch sets `FEATURES ?= tune` here.
EXE ?= scout
FEATURES ?=
RUSTFLAGS_NATIVE ?= -C target-cpu=native

.PHONY: all clean bench test

all:
	RUSTFLAGS="$(RUSTFLAGS_NATIVE)" cargo build --release --features "$(FEATURES)" --target-dir target/native
	cp target/native/release/scout $(EXE)

bench: all
	./$(EXE) bench

test:
	cargo test --release

clean:
	cargo clean
