# `make` builds a native release binary; `make EXE=/path/name` puts it there (OpenBench style).
EXE ?= scout
RUSTFLAGS_NATIVE ?= -C target-cpu=native

.PHONY: all clean bench test

all:
	RUSTFLAGS="$(RUSTFLAGS_NATIVE)" cargo build --release --target-dir target/native
	cp target/native/release/scout $(EXE)

bench: all
	./$(EXE) bench

test:
	cargo test --release

clean:
	cargo clean
