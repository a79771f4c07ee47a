# The Rust crate (Sources/rust, issue 45; guide: docs/rust.md): built and
# tested against the staged install, as a user's cargo finds it (build.rs
# runs pkg-config with the stage's PKG_CONFIG_PATH and SYSROOT), offline
# (the crate has no dependency), its target folder under .build-c. The tests:
# unit and doc tests (compile_fail ones among them: a non-Send closure is
# refused), the shared marble table, every release order with work pending,
# panics; the examples (examples/rust, a package that depends on the crate
# by path), their output compared with NAME.expected; then clippy with warnings as errors (where clippy is installed)
# and the crate's rustdoc without a warning; last, where Debian's own
# compiler is installed beside another one (RUST_MSRV_CARGO, apt-get install
# cargo: rustc 1.63, the crate's rust-version), every target of the crate
# checked with it, so that nothing newer than the stated MSRV creeps in.

CARGO ?= cargo
RUST_OUT := $(OUT)/rust
RUST_ENV := RUSTDOCFLAGS="-D warnings" CARGO_TARGET_DIR=$(RUST_OUT) PKG_CONFIG_PATH=$(STAGE)/usr/lib/pkgconfig PKG_CONFIG_SYSROOT_DIR=$(STAGE) \
	$(RUN_STAGED) SIGNALKIT_MARBLES=$(CURDIR)/Tests/marbles
RUST_CARGO := cd Sources/rust && $(RUST_ENV) $(CARGO)
RUST_MSRV_CARGO ?= /usr/bin/cargo
RUST_MSRV_RUSTC ?= /usr/bin/rustc

.PHONY: test-rust rust-doc

test-rust: stage ## the Rust crate's tests (cargo test: unit, doc, compile-fail, marble table, leaks, panics), clippy -D warnings, rustdoc
	$(begin)
	$(RUST_CARGO) test --offline --quiet
	if $(CARGO) clippy --version >/dev/null 2>&1; then $(RUST_CARGO) clippy --offline --all-targets --quiet -- -D warnings; \
		else echo "test-rust: no clippy here: lint skipped"; fi
	$(RUST_CARGO) doc --offline --no-deps --quiet
	set -e; for example in quickstart host_loop; do \
		(cd examples/rust && $(RUST_ENV) $(CARGO) run --offline --quiet --bin $$example) > $(RUST_OUT)/$$example.out; \
		diff -u examples/rust/$$example.expected $(RUST_OUT)/$$example.out; done
	if [ -x $(RUST_MSRV_CARGO) ] && [ -x $(RUST_MSRV_RUSTC) ] && [ "$$(command -v $(CARGO))" != $(RUST_MSRV_CARGO) ]; then \
		$(RUST_MSRV_RUSTC) --version; cd Sources/rust && $(RUST_ENV) CARGO_TARGET_DIR=$(RUST_OUT)/msrv RUSTC=$(RUST_MSRV_RUSTC) \
		$(RUST_MSRV_CARGO) check --offline --quiet --all-targets; \
		else echo "test-rust: no second compiler at $(RUST_MSRV_RUSTC): the MSRV check is skipped"; fi
	$(end)

rust-doc: stage ## the Rust crate's reference (rustdoc, warnings as errors) into .build-c/rust/doc
	$(RUST_CARGO) doc --offline --no-deps --quiet
