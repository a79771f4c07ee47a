# The Rust crate (Sources/rust, issue 45; guide: docs/rust.md): built and
# tested against the staged install, as a user's cargo finds it (build.rs
# runs pkg-config with the stage's PKG_CONFIG_PATH and SYSROOT), offline
# (the crate has no dependency), its target folder under .build-c. The tests:
# unit and doc tests (compile_fail ones among them: a non-Send closure is
# refused), the shared marble table, every release order with work pending,
# panics; then clippy with warnings as errors (where clippy is installed)
# and the crate's rustdoc without a warning.

CARGO ?= cargo
RUST_OUT := $(OUT)/rust
RUST_ENV := RUSTDOCFLAGS="-D warnings" CARGO_TARGET_DIR=$(RUST_OUT) PKG_CONFIG_PATH=$(STAGE)/usr/lib/pkgconfig PKG_CONFIG_SYSROOT_DIR=$(STAGE) \
	$(RUN_STAGED) SIGNALKIT_MARBLES=$(CURDIR)/Tests/marbles
RUST_CARGO := cd Sources/rust && $(RUST_ENV) $(CARGO)

.PHONY: test-rust rust-doc

test-rust: stage ## the Rust crate's tests (cargo test: unit, doc, compile-fail, marble table, leaks, panics), clippy -D warnings, rustdoc
	$(begin)
	$(RUST_CARGO) test --offline --quiet
	if $(CARGO) clippy --version >/dev/null 2>&1; then $(RUST_CARGO) clippy --offline --all-targets --quiet -- -D warnings; \
		else echo "test-rust: no clippy here: lint skipped"; fi
	$(RUST_CARGO) doc --offline --no-deps --quiet
	$(end)

rust-doc: stage ## the Rust crate's reference (rustdoc, warnings as errors) into .build-c/rust/doc
	$(RUST_CARGO) doc --offline --no-deps --quiet
