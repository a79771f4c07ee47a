# libsignalkit-nats: NATS subjects as signals over Debian's libnats
# (include/signalkit_nats.h, Sources/SignalKitNATS, docs/nats.md) and its
# tests against a real nats-server (Tests/nats). Optional: the core never
# depends on it, and nothing but these targets builds it. `make deps`
# installs libnats-dev and nats-server (tools/install-deps.sh).
#
#   make nats           the library, against the staged core (make stage)
#   make nats-stage     installs it into the stage beside the core, with
#                       signalkit-nats.pc and the CMake package SignalKitNATS
#   make nats-install   the same into $(DESTDIR)$(PREFIX) (after make install)
#   make test-nats      its tests, each against a nats-server it starts, and
#                       the Rust crate rsignalkit-nats's (Sources/rust)
#   make bench-nats     the bridge against libnats itself (issue 81's ratios)

NATS_SOVERSION := 0
NATS_OUT := $(OUT)/nats
NATS_LIB := $(NATS_OUT)/libsignalkit-nats.so.$(VERSION)
NATS_SOURCES := $(wildcard Sources/SignalKitNATS/*.c)
NATS_TESTS := $(wildcard Tests/nats/*.c)
# C11 (atomics, _Thread_local), warnings as errors; only sk_nats_ exported
# (-fvisibility=hidden, SK_NATS_EXPORT).
NATS_CFLAGS := -std=c11 -Wall -Wextra -Werror -pedantic -fPIC -fvisibility=hidden -D_DEFAULT_SOURCE
RUN_NATS := LD_LIBRARY_PATH=$(STAGE)/usr/lib:$(NATS_OUT)
# Where the tests' servers keep their folders (emptied before each run:
# a test that fails leaves its server's log there).
NATS_TMP := $(NATS_OUT)/tmp
NATS_HELP := libsignalkit-nats needs Debian's libnats-dev and nats-server (make deps installs them)
# The Rust crate rsignalkit-nats (Sources/rust/rsignalkit-nats), outside the
# workspace's default members so that make test-rust never needs libnats:
# cargo as test-rust runs it (RUST_ENV, mk/rust.mk: the stage's pkg-config
# and LD_LIBRARY_PATH), which finds the staged signalkit-nats.pc (make
# nats-stage) and, through it, libnats; its tests' servers under NATS_TMP.
NATS_RUST_CARGO = cd Sources/rust && $(RUST_ENV) TMPDIR=$(NATS_TMP) $(CARGO)
# bench-nats: Benchmarks/nats/bench_nats.c, against the built bridge.
NATS_BENCH := $(NATS_OUT)/bench_nats
NATS_BENCH_MESSAGES ?= 1000000
NATS_BENCH_JS_MESSAGES ?= 200000

.PHONY: nats nats-tests test-nats test-nats-valgrind nats-stage nats-install nats-uninstall bench-nats

# Against the staged core, as a user's library links against an installed
# one; its runpath is $$ORIGIN, as libsignalkit-ffi's.
nats: stage ## libsignalkit-nats.so (NATS subjects as signals, over Debian's libnats), against the staged core
	$(begin)
	@pkg-config --exists libnats || { echo "$(NATS_HELP): libnats.pc not found" >&2; exit 1; }
	mkdir -p $(NATS_OUT)
	$(CC) $(NATS_CFLAGS) -O2 $(RELEASE_CDEBUG) -ffile-prefix-map=$(PREFIX_MAP) -shared -Iinclude $(NATS_SOURCES) \
		$$($(STAGE_PKG) --cflags --libs signalkit) $$(pkg-config --cflags --libs libnats) -lm \
		-Wl,-soname,libsignalkit-nats.so.$(NATS_SOVERSION) -Wl,--no-undefined -Wl,-rpath,'$$ORIGIN' -o $(NATS_LIB)
	ln -sf libsignalkit-nats.so.$(VERSION) $(NATS_OUT)/libsignalkit-nats.so.$(NATS_SOVERSION)
	ln -sf libsignalkit-nats.so.$(NATS_SOVERSION) $(NATS_OUT)/libsignalkit-nats.so
	$(end)

# $(call nats_install_tree,DESTDIR,PREFIX,LIBDIR,INCLUDEDIR): the library
# with its soname links beside libsignalkit (its runpath is $$ORIGIN), the
# header, signalkit-nats.pc and the CMake package SignalKitNATS
# (LIBDIR/cmake/SignalKitNATS: SignalKit::nats), with paths relative to
# PREFIX as install_tree writes the core's (INSTALL_SED, Makefile).
define nats_install_tree
	install -d $(1)$(3)/pkgconfig $(1)$(3)/cmake/SignalKitNATS $(1)$(4)
	install -m 0755 $(NATS_LIB) $(1)$(3)/libsignalkit-nats.so.$(VERSION)
	ln -sf libsignalkit-nats.so.$(VERSION) $(1)$(3)/libsignalkit-nats.so.$(NATS_SOVERSION)
	ln -sf libsignalkit-nats.so.$(NATS_SOVERSION) $(1)$(3)/libsignalkit-nats.so
	install -m 0644 include/signalkit_nats.h $(1)$(4)/
	$(INSTALL_SED) pkgconfig/signalkit-nats.pc.in > $(1)$(3)/pkgconfig/signalkit-nats.pc
	$(INSTALL_SED) -e 's|@NATS_SOVERSION@|$(NATS_SOVERSION)|g' pkgconfig/SignalKitNATSConfig.cmake.in \
		> $(1)$(3)/cmake/SignalKitNATS/SignalKitNATSConfig.cmake
	$(INSTALL_SED) pkgconfig/SignalKitConfigVersion.cmake.in > $(1)$(3)/cmake/SignalKitNATS/SignalKitNATSConfigVersion.cmake
endef
NATS_INSTALLED_FILES = $(addprefix $(LIBDIR)/,libsignalkit-nats.so.$(VERSION) libsignalkit-nats.so.$(NATS_SOVERSION) \
	libsignalkit-nats.so pkgconfig/signalkit-nats.pc cmake/SignalKitNATS/SignalKitNATSConfig.cmake \
	cmake/SignalKitNATS/SignalKitNATSConfigVersion.cmake) $(INCLUDEDIR)/signalkit_nats.h

# `make stage` empties the stage: test-nats installs the bridge again.
nats-stage: nats ## install libsignalkit-nats, its header, .pc and CMake package into the stage, beside the core
	$(begin)
	$(call nats_install_tree,$(STAGE),/usr,/usr/lib,/usr/include)
	$(end)

nats-install: nats ## install libsignalkit-nats, its header, .pc and CMake package into $(DESTDIR)$(PREFIX) (the core: make install)
	$(call nats_install_tree,$(DESTDIR),$(PREFIX),$(LIBDIR),$(INCLUDEDIR))

nats-uninstall: ## remove what nats-install installed from $(DESTDIR)$(PREFIX)
	rm -f $(addprefix $(DESTDIR),$(NATS_INSTALLED_FILES))
	-rmdir $(DESTDIR)$(LIBDIR)/cmake/SignalKitNATS 2>/dev/null

nats-tests: nats ## build the NATS bridge's tests (Tests/nats) without running them
	$(begin)
	$(CC) -std=c11 -Wall -Wextra -Werror -D_DEFAULT_SOURCE -Iinclude $(NATS_TESTS) $(HARNESS) \
		-L$(NATS_OUT) -lsignalkit-nats $$($(STAGE_PKG) --cflags --libs signalkit) $$(pkg-config --cflags --libs libnats) \
		-lpthread -lm -o $(NATS_OUT)/nats-tests
	$(end)

# The exports (sk_nats_ only), the soname, the header alone (strict C99 and
# C++11, as test-header checks signalkit.h), a program built against the
# staged bridge through signalkit-nats.pc and through the CMake package
# (Tests/nats/package), then the tests, one at a time
# (each starts its own nats-server; the first publishes 1,000,000 messages,
# NATS_TEST_COUNT to change it).
test-nats: nats-tests nats-stage test-nats-python ## the NATS bridge against a real nats-server it starts: order of 1,000,000, overflow policies, dispose, publish, request, errors, JetStream (kill and restart of 100,000), the .pc and CMake package; pysignalkit.nats (test-nats-python)
	$(begin)
	@command -v nats-server > /dev/null || test -x /usr/sbin/nats-server || { echo "$(NATS_HELP): no nats-server" >&2; exit 1; }
	nm -D --extern-only --defined-only $(NATS_LIB) | awk '{print $$3}' > $(NATS_OUT)/exports.txt
	! grep -v -E '^sk_nats_[a-z]' $(NATS_OUT)/exports.txt
	readelf -d $(NATS_LIB) | grep -q 'SONAME.*libsignalkit-nats.so.$(NATS_SOVERSION)'
	echo '#include <signalkit_nats.h>' > $(NATS_OUT)/header.c
	$(CC) -std=c99 -Wall -Wextra -pedantic -Werror -Iinclude -c $(NATS_OUT)/header.c -o $(NATS_OUT)/header_c.o
	$(CXX) -std=c++11 -Wall -Wextra -pedantic -Werror -Iinclude -x c++ -c $(NATS_OUT)/header.c -o $(NATS_OUT)/header_cpp.o
	$(CC) -std=c11 -Wall -Wextra -Werror Tests/nats/package/main.c $$($(STAGE_PKG) --cflags --libs signalkit-nats) \
		-o $(NATS_OUT)/package-pc
	LD_LIBRARY_PATH=$(STAGE)/usr/lib $(NATS_OUT)/package-pc
	for component in OFF ON; do \
		rm -rf $(NATS_OUT)/package-cmake && \
		cmake -S Tests/nats/package -B $(NATS_OUT)/package-cmake -DCMAKE_PREFIX_PATH=$(STAGE)/usr -DCOMPONENT=$$component \
			-DREQUEST=$(word 1,$(subst ., ,$(VERSION))).$(word 2,$(subst ., ,$(VERSION))) > $(NATS_OUT)/package-cmake.log \
			|| { cat $(NATS_OUT)/package-cmake.log; exit 1; }; \
		cmake --build $(NATS_OUT)/package-cmake > $(NATS_OUT)/package-cmake.log || { cat $(NATS_OUT)/package-cmake.log; exit 1; }; \
		LD_LIBRARY_PATH=$(STAGE)/usr/lib $(NATS_OUT)/package-cmake/nats_package || exit 1; \
	done
	rm -rf $(NATS_TMP) && mkdir -p $(NATS_TMP)
	TMPDIR=$(NATS_TMP) $(RUN_NATS) $(NATS_OUT)/nats-tests --jobs 1
	$(NATS_RUST_CARGO) test --offline --quiet -p rsignalkit-nats
	if $(CARGO) clippy --version >/dev/null 2>&1; then \
		$(NATS_RUST_CARGO) clippy --offline --quiet -p rsignalkit-nats --all-targets -- -D warnings; \
		else echo "test-nats: no clippy here: the Rust crate's lint skipped"; fi
	$(NATS_RUST_CARGO) doc --offline --no-deps --quiet -p rsignalkit-nats
	if [ -x $(RUST_MSRV_CARGO) ] && [ -x $(RUST_MSRV_RUSTC) ] && [ "$$(command -v $(CARGO))" != $(RUST_MSRV_CARGO) ]; then \
		cd Sources/rust && $(RUST_ENV) TMPDIR=$(NATS_TMP) CARGO_TARGET_DIR=$(RUST_OUT)/msrv RUSTC=$(RUST_MSRV_RUSTC) \
		$(RUST_MSRV_CARGO) check --offline --quiet -p rsignalkit-nats --all-targets; \
		else echo "test-nats: no second compiler at $(RUST_MSRV_RUSTC): the Rust crate's MSRV check is skipped"; fi
	$(end)

# The JetStream tests under valgrind (not part of test-nats: about 30 s):
# libnats 3.4.1's natsSubscription_Fetch() can write past its array (docs/nats.md,
# "Fragile"); a pull consumer on it is checked across a server's kill and
# restart this way.
test-nats-valgrind: nats-tests ## the JetStream tests of the NATS bridge under valgrind, the kill-and-restart included
	$(begin)
	rm -rf $(NATS_TMP) && mkdir -p $(NATS_TMP)
	TMPDIR=$(NATS_TMP) $(RUN_NATS) valgrind --error-exitcode=9 --errors-for-leak-kinds=none -q \
		$(NATS_OUT)/nats-tests --jobs 1 --filter 'nats_jetstream*/*'
	$(end)

# pysignalkit.nats (Sources/python/pysignalkit/nats.py) against a real
# nats-server its tests start: the package's wheel installed into a venv of
# its own (as test-python does, mk/python.mk: the pinned tools' venv on its
# path through a .pth file), the bridge it does not carry named by
# SIGNALKIT_NATS_LIB, and SIGNALKIT_NATS_REQUIRED=1 so that a missing
# bridge or server fails instead of skipping; then mypy --strict on it.
NATS_PY_VENV := $(NATS_OUT)/python-venv
NATS_PY_RUN := $(NATS_OUT)/python-run
NATS_PY_ENV := SIGNALKIT_NATS_LIB=$(NATS_OUT)/libsignalkit-nats.so.$(NATS_SOVERSION) SIGNALKIT_NATS_REQUIRED=1 \
	SIGNALKIT_EXAMPLES=$(CURDIR)/examples/python PYTHONDONTWRITEBYTECODE=1

.PHONY: test-nats-python demo-nats

$(NATS_PY_VENV)/installed: python-wheel
	rm -rf $(NATS_PY_VENV)
	$(PYTHON) -m venv --without-pip $(NATS_PY_VENV)
	$(NATS_PY_VENV)/bin/python -c 'import sys, sysconfig; print(sysconfig.get_path("purelib", vars={"base": sys.argv[1]}))' \
		$(PY_TOOLS) > "$$($(NATS_PY_VENV)/bin/python -c 'import sysconfig; print(sysconfig.get_path("purelib"))')/tools.pth"
	$(PY_PIP) --python $(NATS_PY_VENV)/bin/python install -q --no-deps --no-index $(PY_OUT)/dist/pysignalkit-*.whl
	touch $@

test-nats-python: nats $(NATS_PY_VENV)/installed ## pysignalkit.nats's tests against a real nats-server, the installed wheel with the built libsignalkit-nats
	$(begin)
	@command -v nats-server > /dev/null || test -x /usr/sbin/nats-server || { echo "$(NATS_HELP): no nats-server" >&2; exit 1; }
	rm -rf $(NATS_PY_RUN) && mkdir -p $(NATS_PY_RUN)/tests $(NATS_PY_RUN)/tmp
	cp Sources/python/tests/conftest.py Sources/python/tests/test_nats.py $(NATS_PY_RUN)/tests/
	cd $(NATS_PY_RUN) && TMPDIR=$(NATS_PY_RUN)/tmp $(NATS_PY_ENV) $(NATS_PY_VENV)/bin/python -m pytest -p no:cacheprovider -q tests
	cd $(NATS_PY_RUN) && $(NATS_PY_VENV)/bin/python -m mypy --strict --no-incremental --cache-dir=/dev/null -m pysignalkit.nats
	$(end)

# The bridge against libnats itself, in one run (Benchmarks/nats/bench_nats.c,
# each round every variant in turn, medians of BENCH_REPS rounds): a plain
# libnats subscriber against sk_nats_subject() -> a counting observer
# (issue 81's target: within 1.2 times), libnats's own JetStream pull loop
# against sk_nats_js_consume() (within 1.5 times); against a nats-server
# it starts. A clock: it prints the ratios and their targets, it fails only
# when a run fails. make bench runs it where libnats and nats-server are.
bench-nats: nats ## the NATS bridge against libnats (subscriber, JetStream pull loop): ns per message and the ratios
	$(begin)
	@command -v nats-server > /dev/null || test -x /usr/sbin/nats-server || { echo "$(NATS_HELP): no nats-server" >&2; exit 1; }
	$(CC) -O2 -std=c11 -Wall -Wextra -Werror -D_DEFAULT_SOURCE -Iinclude Benchmarks/nats/bench_nats.c \
		-L$(NATS_OUT) -lsignalkit-nats $$($(STAGE_PKG) --cflags --libs signalkit) $$(pkg-config --cflags --libs libnats) \
		-lpthread -o $(NATS_BENCH)
	rm -rf $(NATS_TMP) && mkdir -p $(NATS_TMP)
	TMPDIR=$(NATS_TMP) $(RUN_NATS) $(NATS_BENCH) --reps $(BENCH_REPS) --messages $(NATS_BENCH_MESSAGES) \
		--js-messages $(NATS_BENCH_JS_MESSAGES)
	$(end)

# The demonstration (examples/nats, docs/nats.md): a producer publishing N
# readings to JetStream with sk_nats_js_publish and a consumer reading
# them with sk_nats_js_consume, windowed (sk_signal_buffer_count) and
# summed (sk_signal_scan), two processes built in C against the staged
# bridge (signalkit-nats.pc), run at once by examples/nats/run_demo.py
# with a nats-server it starts on 127.0.0.1 (a free port, JetStream in a
# temporary folder) and stops; the consumer's total is checked.
NATS_DEMO := $(NATS_OUT)/demo
NATS_DEMO_COUNT ?= 10000
NATS_DEMO_WINDOW ?= 1000

demo-nats: nats-stage ## two processes over a real nats-server's JetStream: a C producer publishing readings, a C consumer windowing and summing them (examples/nats)
	$(begin)
	mkdir -p $(NATS_DEMO)
	for p in producer consumer; do $(CC) -std=c11 -Wall -Wextra -Werror -pedantic -D_DEFAULT_SOURCE examples/nats/$$p.c \
		$$($(STAGE_PKG) --cflags --libs signalkit-nats) -lpthread -o $(NATS_DEMO)/$$p || exit 1; done
	LD_LIBRARY_PATH=$(STAGE)/usr/lib $(PYTHON) examples/nats/run_demo.py $(NATS_DEMO) $(NATS_DEMO_COUNT) $(NATS_DEMO_WINDOW)
	$(end)
