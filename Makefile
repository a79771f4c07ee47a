# SignalKit: build, install, demo and tests. See README.md.
#
#   make            build the release libsignalkit.so (+ signalkit.pc)
#   make demo       build the library, install it into a staging folder and
#                   run the main demonstration (examples/c/search.c, compiled
#                   through pkg-config)
#   make test       the whole test suite (what CI runs)
#   make install    install into $(DESTDIR)$(PREFIX)
#   make bench      the benchmark suite (Benchmarks/README.md): one table
#   make bench-check  its deterministic allocation checks (part of make test)

VERSION := 0.1.0
SOVERSION := 0
PREFIX ?= /usr/local
LIBDIR ?= $(PREFIX)/lib
INCLUDEDIR ?= $(PREFIX)/include
DESTDIR ?=

SWIFT ?= swift
# The clang beside swift: its sanitizer runtimes match the Swift toolchain's.
SWIFT_BIN := $(dir $(realpath $(shell command -v $(SWIFT))))
CLANG ?= $(SWIFT_BIN)clang
CC ?= cc
SUDO := $(shell [ "$$(id -u)" = 0 ] || echo sudo)

OUT := $(CURDIR)/.build-c
STAGE := $(OUT)/stage
LIB := $(OUT)/lib/libsignalkit.so.$(VERSION)
STAGE_PKG := PKG_CONFIG_PATH=$(STAGE)/usr/lib/pkgconfig PKG_CONFIG_SYSROOT_DIR=$(STAGE) pkg-config
RUN_STAGED := LD_LIBRARY_PATH=$(STAGE)/usr/lib
CWARN := -std=c99 -Wall -Wextra -Werror -pedantic

# The release library: Swift runtime linked in, soname, sk_* exports only. Its
# own scratch path keeps these flags away from the debug build.
RELEASE_FLAGS := -c release --product signalkit --scratch-path .build-release \
	-Xswiftc -static-stdlib \
	-Xlinker --version-script=$(CURDIR)/Sources/SignalKitC/signalkit.map \
	-Xlinker -soname=libsignalkit.so.$(SOVERSION)

.PHONY: all lib install stage demo demo-swift test deps test-header test-swift test-swift-tsan \
	test-c test-c-valgrind test-c-asan test-c-tsan test-examples clean FORCE \
	bench bench-c bench-capi bench-check

all: lib

lib: $(LIB)

$(LIB): FORCE
	$(SWIFT) build $(RELEASE_FLAGS)
	mkdir -p $(OUT)/lib/pkgconfig
	objcopy --strip-debug .build-release/release/libsignalkit.so $(LIB)
	ln -sf libsignalkit.so.$(VERSION) $(OUT)/lib/libsignalkit.so.$(SOVERSION)
	ln -sf libsignalkit.so.$(SOVERSION) $(OUT)/lib/libsignalkit.so
	sed -e 's|@VERSION@|$(VERSION)|g' pkgconfig/signalkit-uninstalled.pc.in > $(OUT)/lib/pkgconfig/signalkit-uninstalled.pc

install: lib
	install -d $(DESTDIR)$(LIBDIR)/pkgconfig $(DESTDIR)$(INCLUDEDIR)
	install -m 0755 $(LIB) $(DESTDIR)$(LIBDIR)/libsignalkit.so.$(VERSION)
	ln -sf libsignalkit.so.$(VERSION) $(DESTDIR)$(LIBDIR)/libsignalkit.so.$(SOVERSION)
	ln -sf libsignalkit.so.$(SOVERSION) $(DESTDIR)$(LIBDIR)/libsignalkit.so
	install -m 0644 include/signalkit.h $(DESTDIR)$(INCLUDEDIR)/signalkit.h
	sed -e 's|@PREFIX@|$(PREFIX)|g' -e 's|@LIBDIR@|$(LIBDIR)|g' \
		-e 's|@INCLUDEDIR@|$(INCLUDEDIR)|g' -e 's|@VERSION@|$(VERSION)|g' \
		pkgconfig/signalkit.pc.in > $(DESTDIR)$(LIBDIR)/pkgconfig/signalkit.pc

# A DESTDIR install under .build-c/stage, used the way a user would use it.
stage:
	rm -rf $(STAGE)
	$(MAKE) --no-print-directory install PREFIX=/usr DESTDIR=$(STAGE)

demo: stage
	$(CC) $(CWARN) -D_DEFAULT_SOURCE examples/c/search.c $$($(STAGE_PKG) --cflags --libs signalkit) -o $(OUT)/search
	$(RUN_STAGED) $(OUT)/search

demo-swift:
	cd examples/swift && $(SWIFT) run -c release SearchDemo

# Test dependencies a fresh Debian machine lacks.
deps:
	@pkg-config --exists criterion || { echo "installing libcriterion-dev"; \
		$(SUDO) apt-get update -qq && $(SUDO) apt-get install -y -qq libcriterion-dev; }
	@command -v valgrind >/dev/null || { echo "installing valgrind"; \
		$(SUDO) apt-get update -qq && $(SUDO) apt-get install -y -qq valgrind; }

test: deps test-header test-swift test-c test-c-valgrind test-c-asan test-examples test-swift-tsan test-c-tsan bench-check

# The public header alone, strictly, as C and as C++.
test-header:
	mkdir -p $(OUT)
	printf '#include "signalkit.h"\nint main(void) { return 0; }\n' > $(OUT)/header.c
	$(CC) -std=c99 -Wall -Wextra -pedantic -Werror -Iinclude -c $(OUT)/header.c -o $(OUT)/header-c.o
	cp $(OUT)/header.c $(OUT)/header.cpp
	c++ -std=c++11 -Wall -Wextra -pedantic -Werror -Iinclude -c $(OUT)/header.cpp -o $(OUT)/header-cpp.o

test-swift:
	$(SWIFT) build --build-tests -Xswiftc -warnings-as-errors
	$(SWIFT) test --skip-build

test-swift-tsan:
	$(SWIFT) build --build-tests --sanitize=thread --scratch-path .build-tsan
	TSAN_OPTIONS="halt_on_error=1" $(SWIFT) test --skip-build --sanitize=thread --scratch-path .build-tsan

C_TESTS := $(wildcard Tests/C/test_*.c)

# The C suite, compiled as a user compiles: against the staged install.
test-c: stage
	$(CC) $(CWARN) -D_DEFAULT_SOURCE $(C_TESTS) Tests/C/support.c $$($(STAGE_PKG) --cflags --libs signalkit) \
		$$(pkg-config --cflags --libs criterion) -lpthread -o $(OUT)/c-tests
	nm -D --extern-only --defined-only $(LIB) | awk '{print $$3}' > $(OUT)/exports.txt
	! grep -v -E '^(sk_[a-z]|SIGNALKIT_0$$)' $(OUT)/exports.txt
	readelf -d $(LIB) | grep -q 'SONAME.*libsignalkit.so.$(SOVERSION)'
	! ldd $(LIB) | grep -v -E 'linux-vdso|libc\.so|libm\.so|libstdc\+\+|libgcc_s|ld-linux'
	$(RUN_STAGED) $(OUT)/c-tests --jobs 2

# The C suite under memcheck, every test process traced (the release
# library, debug info stripped), but for the suites listed below. The cost
# is valgrind starting a process per test (2 to 3 s each), not the tests:
# 7 min with 2 jobs on 2 cores shared with another build (2026-11-23). The
# whole `make test` times are in README.md.
# Definite leaks only: --show-possibly-lost=no silences the Swift runtime's
# metadata caches, which live until exit. Criterion does not look at a test
# process's exit status once the test has reported, so --error-exitcode
# alone let a leak or a bad read in a test pass: every process logs to its
# own file, and an error marker in any of them fails the target (checked
# once with a test that leaked a malloc).
VALGRIND_LOGS := $(OUT)/valgrind
# Runs a test command whose sanitizer reports go to files under $(1) (the
# command's status is kept); any report fails the target, printed.
san_reports = rm -rf $(1) && mkdir -p $(1)
san_check = status=$$?; if ls $(1)/report.* >/dev/null 2>&1; then \
		cat $(1)/report.*; echo "$(2) reported (above)"; exit 1; fi; exit $$status
valgrind_run = $(RUN_STAGED) valgrind --quiet --error-exitcode=99 --leak-check=full --errors-for-leak-kinds=definite \
		--show-possibly-lost=no --error-markers=SK-VALGRIND-ERROR,SK-VALGRIND-END \
		--log-file=$(1)/%p.log --trace-children=yes
valgrind_check = status=$$?; if grep -l -q SK-VALGRIND-ERROR $(1)/*.log; then \
		cat $$(grep -l SK-VALGRIND-ERROR $(1)/*.log); echo "valgrind found errors (above)"; exit 1; fi; exit $$status

# The suites that exercise threads, timers and queues (threads, reentrancy,
# operators_timing, queues, limits) and the concurrent_* tests of the others
# run under the sanitizers only: under valgrind, which runs one thread at a
# time, they are slow (minutes) and their deadlines become flaky, and what
# valgrind adds over ASan (uninitialised reads in the release build) is in
# the value paths the other tests cover.
VALGRIND_SUITES := !(threads|reentrancy|operators_timing|queues|limits)/!(concurrent_*)

test-c-valgrind: test-c
	$(call san_reports,$(VALGRIND_LOGS))
	$(call valgrind_run,$(VALGRIND_LOGS)) $(OUT)/c-tests --jobs 2 --filter '$(VALGRIND_SUITES)'; $(call valgrind_check,$(VALGRIND_LOGS))

# The C suite against sanitized debug builds of the library, compiled with the
# clang beside swift (its sanitizer runtimes match the Swift side's).
SWIFT_LIBDIR := $(SWIFT_BIN)../lib/swift/linux
SAN_CFLAGS := -std=c99 -Wall -Wextra -Werror -pedantic -D_DEFAULT_SOURCE -g -fno-omit-frame-pointer -fuse-ld=lld -Iinclude
CRITERION_FLAGS = $$(pkg-config --cflags --libs criterion) -lpthread

# LeakSanitizer reports at exit, after the test has reported its result, and
# Criterion ignores that exit status (a leak passed): as for TSan below, the
# reports go to files and any file fails the target (checked once with a
# test that leaked a malloc).
ASAN_LOGS := $(OUT)/asan
test-c-asan:
	mkdir -p $(OUT)
	$(SWIFT) build --sanitize=address --scratch-path .build-asan --product signalkit
	$(CLANG) $(SAN_CFLAGS) -fsanitize=address,undefined -fno-sanitize-recover=undefined $(C_TESTS) Tests/C/support.c \
		-L.build-asan/debug -lsignalkit -Wl,-rpath,$(CURDIR)/.build-asan/debug -Wl,-rpath,$(SWIFT_LIBDIR) \
		$(CRITERION_FLAGS) -o $(OUT)/c-tests-asan
	$(call san_reports,$(ASAN_LOGS))
	ASAN_OPTIONS="detect_leaks=1 log_path=$(ASAN_LOGS)/report" \
	UBSAN_OPTIONS="print_stacktrace=1 log_path=$(ASAN_LOGS)/report" $(OUT)/c-tests-asan --jobs 2; \
	$(call san_check,$(ASAN_LOGS),AddressSanitizer / UBSan)

# The whole C suite against a ThreadSanitizer build of the library.
# Criterion places its arenas at random addresses, mostly inside TSan's
# shadow memory ("Could not initialize inheritable arena" about one run in
# two, or a crash in libcriterion later): Tests/C/tsan/criterion_arena.c,
# linked into this build only, keeps them in TSan's application range.
# A report ends its test process (halt_on_error=1), but Criterion ignores the
# exit status of a test that has already reported its result, so a race
# found later (at exit, or in a thread the test left running) would pass:
# reports go to files instead, and any file fails the target (checked once
# with such a race).
TSAN_LOGS := $(OUT)/tsan
test-c-tsan:
	mkdir -p $(OUT)
	$(SWIFT) build --sanitize=thread --scratch-path .build-tsan --product signalkit
	$(CLANG) $(SAN_CFLAGS) -fsanitize=thread $(C_TESTS) Tests/C/support.c Tests/C/tsan/criterion_arena.c \
		-L.build-tsan/debug -lsignalkit -L$(SWIFT_LIBDIR) -ldispatch -lBlocksRuntime \
		-Wl,-rpath,$(CURDIR)/.build-tsan/debug -Wl,-rpath,$(SWIFT_LIBDIR) \
		$(CRITERION_FLAGS) -o $(OUT)/c-tests-tsan
	$(call san_reports,$(TSAN_LOGS))
	TSAN_OPTIONS="halt_on_error=1 log_path=$(TSAN_LOGS)/report" $(OUT)/c-tests-tsan --jobs 2; \
	$(call san_check,$(TSAN_LOGS),ThreadSanitizer)

# Every C example but the demo, built through pkg-config, run, and its output
# compared with examples/c/NAME.expected.
C_EXAMPLES := quickstart threads combine errors

test-examples: stage
	set -e; for e in $(C_EXAMPLES); do \
		$(CC) $(CWARN) -D_DEFAULT_SOURCE examples/c/$$e.c $$($(STAGE_PKG) --cflags --libs signalkit) -lpthread -o $(OUT)/$$e; \
		$(RUN_STAGED) $(OUT)/$$e > $(OUT)/$$e.out; \
		diff -u examples/c/$$e.expected $(OUT)/$$e.out; \
	done
	cd examples/swift && $(SWIFT) build -Xswiftc -warnings-as-errors
	set -e; for e in SearchDemo ReadmeExample; do \
		examples/swift/.build/debug/$$e > $(OUT)/$$e.out; \
		diff -u examples/swift/$$e.expected $(OUT)/$$e.out; \
	done
	python3 .ci/check-readme.py README.md

# Benchmarks (Benchmarks/README.md). The C programs are built as a user builds
# them, through pkg-config against the staged install; MallocCounter.c (the
# same file the Swift runner uses) counts allocations inside each program. The
# floors need libffi (make deps installs it) and the toolchain's libdispatch,
# hence the clang beside swift (dispatch.h needs its extensions; libffi casts
# between function and object pointers, so no -pedantic there).
BENCH_OUT := $(OUT)/bench
BENCH_REPS ?= 5
SWIFT_DISPATCH := $(SWIFT_BIN)../lib/swift
BENCH_COUNTER := Benchmarks/Sources/MallocCounter/MallocCounter.c -IBenchmarks/Sources/MallocCounter/include

bench-capi: stage
	mkdir -p $(BENCH_OUT)
	$(CC) -O2 $(CWARN) -D_DEFAULT_SOURCE Benchmarks/c/bench_capi.c $(BENCH_COUNTER) \
		$$($(STAGE_PKG) --cflags --libs signalkit) -lpthread -o $(BENCH_OUT)/bench_capi

# bench_ffi: the same program with typed (libffi) sinks, when libffi is there.
bench-ffi: stage
	mkdir -p $(BENCH_OUT)
	if pkg-config --exists libffi; then \
		$(CC) -O2 $(CWARN) -D_DEFAULT_SOURCE -DBENCH_FFI Benchmarks/c/bench_capi.c $(BENCH_COUNTER) \
			$$($(STAGE_PKG) --cflags --libs signalkit-ffi) -lpthread -o $(BENCH_OUT)/bench_ffi; fi

bench-c: bench-capi bench-ffi
	$(CLANG) -O2 -std=gnu99 -Wall -Wextra -Werror -D_DEFAULT_SOURCE \
		$$(pkg-config --exists libffi && echo "-DBENCH_HAVE_FFI $$(pkg-config --cflags libffi)") \
		-DBENCH_HAVE_DISPATCH -I$(SWIFT_DISPATCH) Benchmarks/c/floors.c $(BENCH_COUNTER) \
		$$(pkg-config --exists libffi && pkg-config --libs libffi) \
		-L$(SWIFT_LIBDIR) -ldispatch -lBlocksRuntime -Wl,-rpath,$(SWIFT_LIBDIR) -lpthread -o $(BENCH_OUT)/floors

bench: bench-c
	cd Benchmarks && $(SWIFT) build -c release --product SwiftBench
	python3 Benchmarks/run.py bench --reps $(BENCH_REPS) --out $(BENCH_OUT) --stage $(STAGE)/usr/lib \
		--swift Benchmarks/.build/release/SwiftBench

# Deterministic allocation counts against Benchmarks/thresholds.json; no clock.
bench-check: bench-capi
	cd Benchmarks && $(SWIFT) build -c release --product AllocCheck
	python3 Benchmarks/run.py check --out $(BENCH_OUT) --stage $(STAGE)/usr/lib \
		--alloc-check Benchmarks/.build/release/AllocCheck

clean:
	rm -rf .build .build-release .build-tsan .build-asan .build-fuzz .build-c examples/swift/.build Benchmarks/.build

# ------------------------------------------------------------------------ #
# libsignalkit-ffi: native callback types and trampolines through libffi    #
# (include/signalkit_ffi.h, Sources/SignalKitFFI, Tests/C/ffi,              #
# examples/python). A block of its own; it hooks into deps, install and     #
# test by adding prerequisites only.                                        #
# ------------------------------------------------------------------------ #

FFI_SOVERSION := 0
FFI_LIB := $(OUT)/lib/libsignalkit-ffi.so.$(VERSION)
FFI_SOURCES := $(wildcard Sources/SignalKitFFI/*.c)
FFI_DEPS := $(FFI_SOURCES) Sources/SignalKitFFI/internal.h include/signalkit_ffi.h include/signalkit.h
FFI_TESTS := $(wildcard Tests/C/ffi/test_ffi_*.c)
FFI_CFLAGS := -fPIC -fvisibility=hidden -D_DEFAULT_SOURCE
# The in-tree core (signalkit-uninstalled.pc, written by `lib`): the staged
# install cannot be the base, since `stage` installs this library too.
FFI_PKG := PKG_CONFIG_PATH=$(OUT)/lib/pkgconfig pkg-config
PYTHON ?= python3

.PHONY: test-doc-tests ffi install-ffi deps-ffi test-ffi test-ffi-asan test-ffi-tsan test-ffi-valgrind test-python

deps: deps-ffi
deps-ffi:
	@pkg-config --exists libffi || { echo "installing libffi-dev"; \
		$(SUDO) apt-get update -qq && $(SUDO) apt-get install -y -qq libffi-dev; }
	@command -v $(PYTHON) >/dev/null || { echo "installing python3"; \
		$(SUDO) apt-get update -qq && $(SUDO) apt-get install -y -qq python3; }

ffi: $(FFI_LIB)

$(FFI_LIB): $(LIB) $(FFI_DEPS)
	mkdir -p $(OUT)/lib
	$(CC) $(CWARN) $(FFI_CFLAGS) -O2 -shared $(FFI_SOURCES) \
		$$($(FFI_PKG) --cflags --libs signalkit-uninstalled libffi) -lpthread \
		-Wl,-soname,libsignalkit-ffi.so.$(FFI_SOVERSION) -Wl,--no-undefined -o $@
	ln -sf libsignalkit-ffi.so.$(VERSION) $(OUT)/lib/libsignalkit-ffi.so.$(FFI_SOVERSION)
	ln -sf libsignalkit-ffi.so.$(FFI_SOVERSION) $(OUT)/lib/libsignalkit-ffi.so

install: install-ffi
install-ffi: ffi
	install -d $(DESTDIR)$(LIBDIR)/pkgconfig $(DESTDIR)$(INCLUDEDIR)
	install -m 0755 $(FFI_LIB) $(DESTDIR)$(LIBDIR)/libsignalkit-ffi.so.$(VERSION)
	ln -sf libsignalkit-ffi.so.$(VERSION) $(DESTDIR)$(LIBDIR)/libsignalkit-ffi.so.$(FFI_SOVERSION)
	ln -sf libsignalkit-ffi.so.$(FFI_SOVERSION) $(DESTDIR)$(LIBDIR)/libsignalkit-ffi.so
	install -m 0644 include/signalkit_ffi.h $(DESTDIR)$(INCLUDEDIR)/signalkit_ffi.h
	sed -e 's|@PREFIX@|$(PREFIX)|g' -e 's|@LIBDIR@|$(LIBDIR)|g' \
		-e 's|@INCLUDEDIR@|$(INCLUDEDIR)|g' -e 's|@VERSION@|$(VERSION)|g' \
		pkgconfig/signalkit-ffi.pc.in > $(DESTDIR)$(LIBDIR)/pkgconfig/signalkit-ffi.pc

test: test-ffi test-ffi-valgrind test-ffi-asan test-ffi-tsan test-python test-doc-tests

# Every test the README's misuse table names exists.
test-doc-tests: test-c test-ffi
	$(RUN_STAGED) sh .ci/check-doc-tests.sh $(OUT)/c-tests $(OUT)/ffi-tests

# The ffi suite, compiled as a user compiles: against the staged install.
test-ffi: stage
	printf '#include "signalkit_ffi.h"\nint main(void) { return 0; }\n' > $(OUT)/header-ffi.c
	$(CC) $(CWARN) -Iinclude -c $(OUT)/header-ffi.c -o $(OUT)/header-ffi-c.o
	cp $(OUT)/header-ffi.c $(OUT)/header-ffi.cpp
	c++ -std=c++11 -Wall -Wextra -pedantic -Werror -Iinclude -c $(OUT)/header-ffi.cpp -o $(OUT)/header-ffi-cpp.o
	! grep -n '#include' include/signalkit_ffi.h | grep -v '"signalkit.h"'
	nm -D --extern-only --defined-only $(FFI_LIB) | awk '{print $$3}' > $(OUT)/exports-ffi.txt
	! grep -v -E '^sk_ffi_[a-z]' $(OUT)/exports-ffi.txt
	readelf -d $(FFI_LIB) | grep -q 'SONAME.*libsignalkit-ffi.so.$(FFI_SOVERSION)'
	$(CC) $(CWARN) -D_DEFAULT_SOURCE -ITests/C $(FFI_TESTS) Tests/C/support.c \
		$$($(STAGE_PKG) --cflags --libs signalkit-ffi) $(CRITERION_FLAGS) -o $(OUT)/ffi-tests
	$(RUN_STAGED) $(OUT)/ffi-tests --jobs 2
	$(CC) $(CWARN) examples/c/ffi_quickstart.c $$($(STAGE_PKG) --cflags --libs signalkit-ffi) -o $(OUT)/ffi_quickstart
	test "$$($(RUN_STAGED) $(OUT)/ffi_quickstart)" = "2 4 6"

test-ffi-valgrind: test-ffi
	$(call san_reports,$(OUT)/ffi-valgrind)
	$(call valgrind_run,$(OUT)/ffi-valgrind) $(OUT)/ffi-tests --jobs 2; $(call valgrind_check,$(OUT)/ffi-valgrind)

# The ffi library and suite under ASan+UBSan, against the sanitized debug
# core (as test-c-asan), compiled with the clang beside swift.
test-ffi-asan:
	$(SWIFT) build --sanitize=address --scratch-path .build-asan --product signalkit
	mkdir -p $(OUT)/asan
	$(CLANG) $(SAN_CFLAGS) $(FFI_CFLAGS) -fsanitize=address,undefined -fno-sanitize-recover=undefined -shared \
		$(FFI_SOURCES) $$(pkg-config --cflags --libs libffi) -lpthread \
		-L.build-asan/debug -lsignalkit -Wl,-soname,libsignalkit-ffi.so.$(FFI_SOVERSION) -o $(OUT)/asan/libsignalkit-ffi.so.$(FFI_SOVERSION)
	ln -sf libsignalkit-ffi.so.$(FFI_SOVERSION) $(OUT)/asan/libsignalkit-ffi.so
	$(CLANG) $(SAN_CFLAGS) -fsanitize=address,undefined -fno-sanitize-recover=undefined -ITests/C $(FFI_TESTS) Tests/C/support.c \
		-L$(OUT)/asan -lsignalkit-ffi -L.build-asan/debug -lsignalkit \
		-Wl,-rpath,$(OUT)/asan -Wl,-rpath,$(CURDIR)/.build-asan/debug -Wl,-rpath,$(SWIFT_LIBDIR) \
		$(CRITERION_FLAGS) -o $(OUT)/ffi-tests-asan
	$(call san_reports,$(OUT)/ffi-asan-logs)
	ASAN_OPTIONS="detect_leaks=1 log_path=$(OUT)/ffi-asan-logs/report" \
	UBSAN_OPTIONS="print_stacktrace=1 log_path=$(OUT)/ffi-asan-logs/report" $(OUT)/ffi-tests-asan --jobs 2; \
	$(call san_check,$(OUT)/ffi-asan-logs,AddressSanitizer / UBSan)

# The ffi library and suite under ThreadSanitizer, against the TSan debug
# core, with the C suite's TSan-compatible Criterion start-up (Tests/C/tsan).
test-ffi-tsan:
	$(SWIFT) build --sanitize=thread --scratch-path .build-tsan --product signalkit
	mkdir -p $(OUT)/tsan
	$(CLANG) $(SAN_CFLAGS) $(FFI_CFLAGS) -fsanitize=thread -shared \
		$(FFI_SOURCES) $$(pkg-config --cflags --libs libffi) -lpthread \
		-L.build-tsan/debug -lsignalkit -Wl,-soname,libsignalkit-ffi.so.$(FFI_SOVERSION) -o $(OUT)/tsan/libsignalkit-ffi.so.$(FFI_SOVERSION)
	ln -sf libsignalkit-ffi.so.$(FFI_SOVERSION) $(OUT)/tsan/libsignalkit-ffi.so
	$(CLANG) $(SAN_CFLAGS) -fsanitize=thread -ITests/C $(FFI_TESTS) Tests/C/support.c $(wildcard Tests/C/tsan/*.c) \
		-L$(OUT)/tsan -lsignalkit-ffi -L.build-tsan/debug -lsignalkit -L$(SWIFT_LIBDIR) -ldispatch -lBlocksRuntime \
		-Wl,-rpath,$(OUT)/tsan -Wl,-rpath,$(CURDIR)/.build-tsan/debug -Wl,-rpath,$(SWIFT_LIBDIR) \
		$(CRITERION_FLAGS) -o $(OUT)/ffi-tests-tsan
	$(call san_reports,$(OUT)/ffi-tsan-logs)
	TSAN_OPTIONS="halt_on_error=1 log_path=$(OUT)/ffi-tsan-logs/report" $(OUT)/ffi-tests-tsan --jobs 2; \
	$(call san_check,$(OUT)/ffi-tsan-logs,ThreadSanitizer)

# The Python examples and their tests (ctypes only), against the staged
# install: SIGNALKIT_LIB_DIR tells signalkit.py where the libraries are.
test-python: stage
	cd examples/python && PYTHONDONTWRITEBYTECODE=1 SIGNALKIT_LIB_DIR=$(STAGE)/usr/lib $(PYTHON) -m unittest -v

# ------------------------------------------------------------------------ #
# Fuzzing (libFuzzer, the clang beside swift): Tests/fuzz/fuzz_api.c over  #
# the C API, Tests/fuzz/fuzz_model.c over the C API with the reference     #
# model as oracle (Tests/README.md), Tests/fuzz/fuzz_ffi.c over the ffi    #
# signature parser and value conversions. The core is built with           #
# SanitizerCoverage (--sanitize=fuzzer)                                     #
# and ASan, so libFuzzer is guided by the Swift code too; the ffi sources   #
# are compiled into their harness.                                          #
# ------------------------------------------------------------------------ #

FUZZ_OUT := $(OUT)/fuzz
FUZZ_SECONDS ?= 600
FUZZ_CI_SECONDS ?= 60
FUZZ_CFLAGS := -std=c99 -Wall -Wextra -Werror -pedantic -D_DEFAULT_SOURCE -g -fuse-ld=lld -Iinclude -ITests/common \
	-fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined
FUZZ_LINK := -L.build-fuzz/debug -lsignalkit -Wl,-rpath,$(CURDIR)/.build-fuzz/debug -Wl,-rpath,$(SWIFT_LIBDIR)
# No Swift backtracer on a crash (libFuzzer prints the stack), no leak check
# at exit of the fuzzing process (the harnesses check leaks themselves).
FUZZ_ENV := SWIFT_BACKTRACE=enable=no ASAN_OPTIONS=detect_leaks=0

.PHONY: fuzz-build test-fuzz fuzz

fuzz-build:
	mkdir -p $(FUZZ_OUT)
	$(SWIFT) build --sanitize=fuzzer --sanitize=address --scratch-path .build-fuzz --product signalkit
	$(CLANG) $(FUZZ_CFLAGS) Tests/fuzz/fuzz_api.c $(FUZZ_LINK) -o $(FUZZ_OUT)/fuzz_api
	$(CLANG) $(FUZZ_CFLAGS) Tests/fuzz/fuzz_model.c $(FUZZ_LINK) -o $(FUZZ_OUT)/fuzz_model
	$(CLANG) $(FUZZ_CFLAGS) -ISources/SignalKitFFI Tests/fuzz/fuzz_ffi.c $(FFI_SOURCES) \
		$$(pkg-config --cflags --libs libffi) $(FUZZ_LINK) -lpthread -lm -o $(FUZZ_OUT)/fuzz_ffi

# Replays the regressions and the seed corpora, then fuzzes each harness for
# a bounded time from a copy of its corpus (the tree stays clean). A crash
# leaves its input in $(FUZZ_OUT): add it to Tests/fuzz/regressions/.
test-fuzz: fuzz-build
	set -e; for h in api ffi model; do \
		$(FUZZ_ENV) $(FUZZ_OUT)/fuzz_$$h -runs=0 Tests/fuzz/regressions/$$h Tests/fuzz/corpus/$$h; \
		rm -rf $(FUZZ_OUT)/corpus-$$h && mkdir -p $(FUZZ_OUT)/corpus-$$h && cp Tests/fuzz/corpus/$$h/* $(FUZZ_OUT)/corpus-$$h/; \
		(cd $(FUZZ_OUT) && $(FUZZ_ENV) ./fuzz_$$h -max_total_time=$(FUZZ_CI_SECONDS) -timeout=10 \
			-print_final_stats=1 corpus-$$h > fuzz-$$h.log 2>&1) || { tail -60 $(FUZZ_OUT)/fuzz-$$h.log; exit 1; }; \
		tail -4 $(FUZZ_OUT)/fuzz-$$h.log; \
	done

# A longer run for developers: FUZZ_SECONDS per harness (default 10 min),
# keeping what it learns in $(FUZZ_OUT)/corpus-*.
fuzz: fuzz-build
	set -e; for h in api ffi model; do mkdir -p $(FUZZ_OUT)/corpus-$$h; \
		(cd $(FUZZ_OUT) && $(FUZZ_ENV) ./fuzz_$$h -max_total_time=$(FUZZ_SECONDS) corpus-$$h ../../Tests/fuzz/corpus/$$h); done

test: test-fuzz

# ------------------------------------------------------------------------ #
# Soak: Tests/soak/soak.c, four threads doing random operations through the #
# C API for a fixed number of iterations, with exact accounting at the end, #
# under ThreadSanitizer and under AddressSanitizer+UBSan (reports to files,  #
# any report fails). SOAK_ITERATIONS per thread; the seed is printed.        #
# ------------------------------------------------------------------------ #

SOAK_ITERATIONS ?= 10000
SOAK_CFLAGS := -std=gnu99 -Wall -Wextra -Werror -D_DEFAULT_SOURCE -g -O1 -fno-omit-frame-pointer -fuse-ld=lld -Iinclude -ITests/common

.PHONY: test-soak-tsan test-soak-asan

test-soak-tsan:
	mkdir -p $(OUT)
	$(SWIFT) build --sanitize=thread --scratch-path .build-tsan --product signalkit
	$(CLANG) $(SOAK_CFLAGS) -fsanitize=thread Tests/soak/soak.c \
		-L.build-tsan/debug -lsignalkit -L$(SWIFT_LIBDIR) -ldispatch -lBlocksRuntime -lpthread \
		-Wl,-rpath,$(CURDIR)/.build-tsan/debug -Wl,-rpath,$(SWIFT_LIBDIR) -o $(OUT)/soak-tsan
	$(call san_reports,$(OUT)/soak-tsan-logs)
	TSAN_OPTIONS="halt_on_error=1 log_path=$(OUT)/soak-tsan-logs/report" $(OUT)/soak-tsan $(SOAK_ITERATIONS); \
	$(call san_check,$(OUT)/soak-tsan-logs,ThreadSanitizer)

test-soak-asan:
	mkdir -p $(OUT)
	$(SWIFT) build --sanitize=address --scratch-path .build-asan --product signalkit
	$(CLANG) $(SOAK_CFLAGS) -fsanitize=address,undefined -fno-sanitize-recover=undefined Tests/soak/soak.c \
		-L.build-asan/debug -lsignalkit -lpthread \
		-Wl,-rpath,$(CURDIR)/.build-asan/debug -Wl,-rpath,$(SWIFT_LIBDIR) -o $(OUT)/soak-asan
	$(call san_reports,$(OUT)/soak-asan-logs)
	ASAN_OPTIONS="detect_leaks=1 log_path=$(OUT)/soak-asan-logs/report" \
	UBSAN_OPTIONS="print_stacktrace=1 log_path=$(OUT)/soak-asan-logs/report" $(OUT)/soak-asan $(SOAK_ITERATIONS); \
	$(call san_check,$(OUT)/soak-asan-logs,AddressSanitizer / UBSan)

test: test-soak-tsan test-soak-asan
