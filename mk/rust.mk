# The Rust crates (Sources/rust, a workspace of rsignalkit-sys and
# rsignalkit; issue 45; guide: docs/rust.md): built and
# tested against the staged install, as a user's cargo finds it
# (rsignalkit-sys's build.rs runs pkg-config with the stage's
# PKG_CONFIG_PATH and SYSROOT), offline (the crates depend on nothing but
# each other), their target folder under .build-c. The tests:
# unit and doc tests (compile_fail ones among them: a non-Send closure is
# refused), the shared marble table, every release order with work pending,
# panics; rsignalkit's examples (its examples/NAME.rs), their output
# compared with examples/NAME.expected; rsignalkit-sys's build script where
# it finds no usable library (Tests/rust/build-script.sh: each way stops
# the build with its message); then clippy with warnings as errors (where clippy is installed)
# and the crates' rustdoc without a warning; last, where Debian's own
# compiler is installed beside another one (RUST_MSRV_CARGO: Debian's cargo
# and rustc 1.63, the crates' rust-version, which tools/install-deps.sh
# always installs), every target of the crates checked with it, so that
# nothing newer than the stated MSRV creeps in.

CARGO ?= cargo
RUST_OUT := $(OUT)/rust
RUST_ENV := RUSTDOCFLAGS="-D warnings" CARGO_TARGET_DIR=$(RUST_OUT) PKG_CONFIG_PATH=$(STAGE)/usr/lib/pkgconfig PKG_CONFIG_SYSROOT_DIR=$(STAGE) \
	$(RUN_STAGED) SIGNALKIT_MARBLES=$(CURDIR)/Tests/marbles
RUST_CARGO := cd Sources/rust && $(RUST_ENV) $(CARGO)
RUST_MSRV_CARGO ?= /usr/bin/cargo
RUST_MSRV_RUSTC ?= /usr/bin/rustc
RUST_MSRV_RUSTDOC ?= /usr/bin/rustdoc
RUST_CRATE := Sources/rust/rsignalkit
# rsignalkit's benchmark program (benches/bench_rust.rs), copied out of
# cargo's folder of hashed names by bench-rust-build.
RUST_BENCH := $(RUST_OUT)/bench_rust

.PHONY: test-rust test-rust-msrv rust-doc bench-rust bench-rust-build dist-crate test-dist-rust

test-rust: stage ## the Rust crates' tests (cargo test: unit, doc, compile-fail, marble table, leaks, panics), clippy -D warnings, rustdoc
	$(begin)
	$(RUST_CARGO) test --offline --quiet
	$(RUST_CARGO) test --offline --quiet -p rsignalkit --features ffi --test ffi
	# The failure table again with handle checking on: a subscription's
	# disposable is then an object of its own, not the observer
	# (sk_signal_start_failable's other path, signalkit.h at
	# sk_signal_start_held).
	cd Sources/rust && SIGNALKIT_CHECK_HANDLES=1 $(RUST_ENV) $(CARGO) test --offline --quiet -p rsignalkit --test panics
	if $(CARGO) clippy --version >/dev/null 2>&1; then $(RUST_CARGO) clippy --offline --all-targets --quiet -- -D warnings; \
		else echo "test-rust: no clippy here: lint skipped"; fi
	$(RUST_CARGO) doc --offline --no-deps --quiet
	set -e; for example in $(basename $(notdir $(wildcard $(RUST_CRATE)/examples/*.rs))); do \
		($(RUST_CARGO) run --offline --quiet -p rsignalkit --example $$example) > $(RUST_OUT)/$$example.out; \
		diff -u $(RUST_CRATE)/examples/$$example.expected $(RUST_OUT)/$$example.out; done
	sh Tests/rust/build-script.sh $(RUST_OUT)/build-script $(STAGE) $(CARGO) $(VERSION)
	$(end)

# Every target checked with Debian's rustc 1.63 (the crates' rust-version)
# where it is installed beside another toolchain: make release-check's (a
# second build of the crates, 8 s of processor time).
# Tested, not only checked: a debug build of 1.63 makes larger frames than
# today's compiler, and a test of the stack a conversion needs overflowed
# there only (a tester ran the packaged crate's tests with Debian's cargo).
test-rust-msrv: stage ## the Rust crates checked and tested with Debian's rustc 1.63, their rust-version (where it is installed beside another toolchain): make release-check
	$(begin)
	if [ -x $(RUST_MSRV_CARGO) ] && [ -x $(RUST_MSRV_RUSTC) ] && [ -x $(RUST_MSRV_RUSTDOC) ] && [ "$$(command -v $(CARGO))" != $(RUST_MSRV_CARGO) ]; then \
		$(RUST_MSRV_RUSTC) --version; cd Sources/rust && $(RUST_ENV) CARGO_TARGET_DIR=$(RUST_OUT)/msrv RUSTC=$(RUST_MSRV_RUSTC) \
		RUSTDOC=$(RUST_MSRV_RUSTDOC) sh -c '$(RUST_MSRV_CARGO) check --offline --quiet --all-targets && \
		$(RUST_MSRV_CARGO) test --offline --quiet'; \
		else echo "test-rust-msrv: no second compiler at $(RUST_MSRV_RUSTC): the MSRV check is skipped"; fi
	$(end)

rust-doc: stage ## the Rust crates' reference (rustdoc, warnings as errors) into .build-c/rust/doc
	$(RUST_CARGO) doc --offline --no-deps --quiet

# W1, W2, W2b and W3 through the crate (its benches/bench_rust.rs, release build) beside
# bench_capi's, the same sizes and repetitions (BENCH_REPS, BENCH_DIVIDE of
# mk/bench.mk), and their ratios against the issue's target (1.1 times the
# C API per unit), then the same ratios as instructions per unit under
# callgrind (Benchmarks/rust/instructions.py: what a loaded machine does
# not move). Not part of make test (a clock).
bench-rust: bench-capi bench-rust-build ## the Rust crate against the C API on W1, W2, W2b, W3 (a table of ratios)
	$(RUN_STAGED) $(BENCH_OUT)/bench_capi --reps $(BENCH_REPS) --divide $(BENCH_DIVIDE) --workloads W1,W2,W2b,W3 > $(RUST_OUT)/bench_c.jsonl
	$(RUN_STAGED) $(RUST_BENCH) --reps $(BENCH_REPS) --divide $(BENCH_DIVIDE) --workloads W1,W2,W2b,W3 > $(RUST_OUT)/bench_rust.jsonl
	$(PYTHON) Benchmarks/rust/compare.py $(RUST_OUT)/bench_c.jsonl $(RUST_OUT)/bench_rust.jsonl
	$(RUN_STAGED) $(PYTHON) Benchmarks/rust/instructions.py $(BENCH_OUT)/bench_capi $(RUST_BENCH)

# The program alone (release build against the stage): make bench's Rust
# column and make bench-check's Rust / C instruction ratios run it.
# cargo names the program after a hash (release/deps/bench_rust-HASH): the
# build's JSON messages say which, and it is copied to RUST_BENCH.
bench-rust-build: stage ## the Rust crate's benchmark program (rsignalkit's benches/bench_rust.rs, release)
	mkdir -p $(dir $(RUST_BENCH))
	$(RUST_CARGO) build --offline --release --quiet -p rsignalkit --bench bench_rust --message-format=json-render-diagnostics \
		| sed -n 's/.*"executable":"\([^"]*\)".*/\1/p' > $(RUST_BENCH).path
	@test -s $(RUST_BENCH).path || { echo "bench-rust-build: cargo named no executable for bench_rust" >&2; exit 1; }
	cp "$$(cat $(RUST_BENCH).path)" $(RUST_BENCH)

# The crates as a registry would take them (issue 53): `cargo package` of
# both at once, offline, into .build-c/dist/rust (make dist builds them in
# its clean tree, beside the other artifacts; docs/packaging.md). Each is
# verified there: its packaged copy built alone, rsignalkit's against the
# packaged rsignalkit-sys through a local overlay of the registry that
# cargo makes when it packages interdependent crates together. That needs
# cargo 1.90 or later: Debian 12's cargo (1.65) cannot build rsignalkit's
# copy without rsignalkit-sys on crates.io, so this is the newer cargo's
# work (the crates' rust-version, 1.63, is the compiler's, which test-rust
# checks). cargo's warnings fail it, but one: the manifests name no
# repository, homepage or documentation, because the project has no
# published address yet (as the .debs have no Homepage:
# tools/packaging/debian/NOTES.md); add `repository` to both manifests
# once it has one, and this exception goes. Its CARGO_HOME is a fresh one
# (the crates have no dependencies to fetch): cargo extracts the overlay's
# rsignalkit-sys into CARGO_HOME/registry/src under a name made of the
# overlay's path and the version, and reuses what it finds there, so a
# shared CARGO_HOME verified rsignalkit against the rsignalkit-sys of an
# earlier packaging of the same version in the same folder (make dist's
# tree is always /tmp/signalkit-dist/signalkit-VERSION): new functions of
# the sys crate were "not found".
CRATE_WORK := $(DIST_WORK)/crate
CRATES := $(foreach c,rsignalkit-sys rsignalkit,$(DIST)/rust/$(c)-$(VERSION).crate)
CRATE_KEPT_WARNING := warning: manifest has no documentation, homepage or repository
dist-crate: stage ## the Rust crates rsignalkit-sys and rsignalkit as .crate files, packaged and verified offline, into .build-c/dist/rust
	$(begin)
	@set -- $$($(CARGO) --version | sed -n 's/^cargo \([0-9]*\)\.\([0-9]*\).*/\1 \2/p'); \
	[ "$${1:-0}" -gt 1 ] || [ "$${2:-0}" -ge 90 ] || { echo "dist-crate: '$(CARGO)' is $$($(CARGO) --version):" \
		"packaging rsignalkit with the unpublished rsignalkit-sys, offline, needs cargo 1.90 or later" \
		"(give one with CARGO=/path/to/cargo)" >&2; exit 1; }
	rm -rf $(CRATE_WORK) $(DIST)/rust && mkdir -p $(CRATE_WORK) $(DIST)/rust
	cd Sources/rust && $(RUST_ENV) CARGO_TARGET_DIR=$(CRATE_WORK) CARGO_HOME=$(CRATE_WORK)/cargo-home $(CARGO) package --offline --allow-dirty \
		-p rsignalkit-sys -p rsignalkit > $(CRATE_WORK)/package.log 2>&1 || { cat $(CRATE_WORK)/package.log >&2; exit 1; }
	grep -E '^ *(Packag|Verifying)' $(CRATE_WORK)/package.log
	@if grep '^warning' $(CRATE_WORK)/package.log | grep -vxF '$(CRATE_KEPT_WARNING)'; then \
		cat $(CRATE_WORK)/package.log >&2; echo "dist-crate: cargo package warned (above)" >&2; exit 1; fi
	cp $(foreach c,$(CRATES),$(CRATE_WORK)/package/$(notdir $(c))) $(DIST)/rust/
	@ls -l $(CRATES)
	$(end)

# The .crate files as their users get them (make dist-crate), without
# Swift:
#
# - both unpacked: each holds its README (whose links lead only to what the
#   crate holds: tools/packaging/package_readme.py) and LICENSE (the
#   repository's), the raw one its build script, the safe one its guide
#   (its src/guide.md as it is here: docs/rust.md with the other pages
#   named by their source paths), examples and benchmark; the safe
#   crate's packaged copy, beside the packaged raw one ([patch.crates-io]
#   through --config), passes its tests, its guide's doc tests among them,
#   and documents without a warning, against the stage; and both document
#   as docs.rs builds them, DOCS_RS set and no library to find
#   (Tests/rust/docs-rs.sh: the raw crate's build script links nothing
#   then);
# - the guide's steps, as written (tools/check/run-doc-steps.py), each in a
#   fresh folder with a new HOME and a new user's shell (NEW_USER: the
#   system's cargo and rustc, Debian's 1.63, where tools/install-deps.sh
#   put them), the project made first by its rust-crates steps from the two
#   .crate files: rust-deb against the .debs extracted into a scratch root
#   (PKG_CONFIG_PATH, PKG_CONFIG_SYSROOT_DIR and LD_LIBRARY_PATH stand for
#   what apt does: signalkit.pc and the library where pkg-config and the
#   loader look); rust-tarball against the binary tarball, with no variable
#   but those the steps set; rust-checkout in a fresh clone of HEAD, whose
#   `make` gets the release library this tree built as its Swift build's
#   (Tests/dist/swift-stand-in.sh, as test-dist-source's first commands).
#   After each, the program the steps built prints the quick start's lines
#   and loads libsignalkit.so.0 from where it should: the scratch root, the
#   unpacked tarball through the program's RUNPATH (no variable set), the
#   clone's .build-c/lib (Tests/dist/check-rust-steps.sh). The stage (and
#   the release library it holds) is this tree's own: release-check takes
#   the artifacts as made, not the checkout's build.
RUST_DIST_TEST := $(DIST_TEST)/rust
RUST_EXPECTED := $(CURDIR)/$(RUST_CRATE)/examples/quickstart.expected
RUST_NEW_USER := env -u SIGNALKIT_LIB_DIR -u PKG_CONFIG_SYSROOT_DIR -u PKG_CONFIG_LIBDIR -u CARGO_TARGET_DIR \
	-u RUSTFLAGS -u MAKEFLAGS -u MFLAGS -u MAKELEVEL -u SIGNALKIT_SWIFT_CHECKED -u SIGNALKIT_PROGRESS \
	-u SIGNALKIT_STAGE_TIMES $(NEW_USER)
RUST_DEB_LIBDIR := $(RUST_DIST_TEST)/root/usr/lib/$(DEB_MULTIARCH)
RUST_STEPS := python3 tools/check/run-doc-steps.py --version $(VERSION)
RUST_CHECK := sh $(CURDIR)/Tests/dist/check-rust-steps.sh
test-dist-rust: dist-crate dist-deb dist-tarball stage ## the .crate files: what they hold, the packaged crate tested alone, and docs/rust.md's steps as written against the .debs, the tarball and a checkout
	$(begin)
	rm -rf $(RUST_DIST_TEST) && mkdir -p $(RUST_DIST_TEST)/crates $(RUST_DIST_TEST)/files $(RUST_DIST_TEST)/root
	set -e; for crate in $(CRATES); do tar -C $(RUST_DIST_TEST)/crates -xzf $$crate; done
	set -e; cd $(RUST_DIST_TEST)/crates; \
	for f in rsignalkit-sys-$(VERSION)/build.rs rsignalkit-sys-$(VERSION)/src/lib.rs rsignalkit-$(VERSION)/src/lib.rs \
		rsignalkit-$(VERSION)/examples/quickstart.rs rsignalkit-$(VERSION)/benches/bench_rust.rs \
		rsignalkit-sys-$(VERSION)/README.md rsignalkit-$(VERSION)/README.md; do \
		test -f $$f || { echo "test-dist-rust: the crates lack $$f" >&2; exit 1; }; done; \
	cmp $(CURDIR)/Sources/rust/rsignalkit/src/guide.md rsignalkit-$(VERSION)/src/guide.md; \
	for c in rsignalkit-sys rsignalkit; do cmp $(CURDIR)/LICENSE $$c-$(VERSION)/LICENSE; \
		$(PYTHON) $(CURDIR)/tools/packaging/package_readme.py check $$c-$(VERSION)/README.md $$c-$(VERSION); done
	cd $(RUST_DIST_TEST)/crates/rsignalkit-$(VERSION) && $(RUST_ENV) CARGO_TARGET_DIR=$(RUST_DIST_TEST)/target \
		$(CARGO) test --offline --quiet --config 'patch.crates-io.rsignalkit-sys.path="../rsignalkit-sys-$(VERSION)"'
	cd $(RUST_DIST_TEST)/crates/rsignalkit-$(VERSION) && $(RUST_ENV) CARGO_TARGET_DIR=$(RUST_DIST_TEST)/target \
		$(CARGO) doc --offline --quiet --no-deps --config 'patch.crates-io.rsignalkit-sys.path="../rsignalkit-sys-$(VERSION)"'
	sh Tests/rust/docs-rs.sh $(RUST_DIST_TEST)/crates/rsignalkit-$(VERSION) $(RUST_DIST_TEST)/docs-rs $(CARGO) \
		--config 'patch.crates-io.rsignalkit-sys.path="../rsignalkit-sys-$(VERSION)"'
	cp $(CRATES) $(TARBALL) $(RUST_DIST_TEST)/files/
	set -e; for p in libsignalkit0 libsignalkit-dev; do dpkg -x $(DIST)/$${p}_$(DEB_VERSION)_$(DEB_ARCH).deb $(RUST_DIST_TEST)/root; done
	$(RUST_NEW_USER) PKG_CONFIG_PATH=$(RUST_DEB_LIBDIR)/pkgconfig PKG_CONFIG_SYSROOT_DIR=$(RUST_DIST_TEST)/root \
		LD_LIBRARY_PATH=$(RUST_DEB_LIBDIR) $(RUST_STEPS) rust-deb --setup rust-crates --files $(RUST_DIST_TEST)/files \
		--scratch $(RUST_DIST_TEST)/deb --then '$(RUST_CHECK) app/target/debug/app $(RUST_EXPECTED) $(RUST_DEB_LIBDIR)'
	$(RUST_NEW_USER) $(RUST_STEPS) rust-tarball --setup rust-crates --files $(RUST_DIST_TEST)/files \
		--scratch $(RUST_DIST_TEST)/tarball \
		--then '$(RUST_CHECK) app/target/debug/app $(RUST_EXPECTED) "$$HOME/opt/$(TARBALL_NAME)/lib" "$$HOME/opt/$(TARBALL_NAME)/lib"'
	git clone -q --no-hardlinks $(CURDIR) $(RUST_DIST_TEST)/clone
	git -c advice.detachedHead=false -C $(RUST_DIST_TEST)/clone checkout -q --detach $$(git rev-parse HEAD)
	$(RUST_NEW_USER) SWIFT=$(CURDIR)/Tests/dist/swift-stand-in.sh SIGNALKIT_STAND_IN_LIBRARY=$(LIB_UNSTRIPPED) \
		$(RUST_STEPS) rust-checkout --files $(RUST_DIST_TEST)/clone --scratch $(RUST_DIST_TEST)/checkout \
		--then 'LD_LIBRARY_PATH=$$PWD/.build-c/lib $(RUST_CHECK) ../app/target/debug/app $(RUST_EXPECTED) "$$PWD/.build-c/lib"'
	$(end)
