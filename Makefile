# SignalKit: build, install, demo and tests. See README.md.
#
#   make            build the release libsignalkit.so (+ signalkit.pc)
#   make demo       build the library, install it into a staging folder and
#                   run the main demonstration (examples/c/search.c, compiled
#                   through pkg-config)
#   make test       the whole test suite (what CI runs)
#   make install    install into $(DESTDIR)$(PREFIX)

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
	test-c test-c-valgrind test-c-asan test-c-tsan test-examples clean FORCE

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

test: deps test-header test-swift test-c test-c-valgrind test-c-asan test-examples test-swift-tsan test-c-tsan

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

# The whole C suite under memcheck, every test process traced (the release
# library, debug info stripped). Measured on 2 shared cores: 3 to 4 min with
# 2 jobs, nearly twice that with 1 (the cost is valgrind starting a process
# per test, not the tests; the slowest test body takes 9 s of its 20). The
# whole `make test` from `make clean`: about 7 min.
# Definite leaks only: --show-possibly-lost=no silences the Swift runtime's
# metadata caches, which live until exit. Criterion does not look at a test
# process's exit status once the test has reported, so --error-exitcode
# alone let a leak or a bad read in a test pass: every process logs to its
# own file, and an error marker in any of them fails the target (checked
# once with a test that leaked a malloc).
VALGRIND_LOGS := $(OUT)/valgrind
test-c-valgrind: test-c
	rm -rf $(VALGRIND_LOGS) && mkdir -p $(VALGRIND_LOGS)
	$(RUN_STAGED) valgrind --quiet --error-exitcode=99 --leak-check=full --errors-for-leak-kinds=definite \
		--show-possibly-lost=no --error-markers=SK-VALGRIND-ERROR,SK-VALGRIND-END \
		--log-file=$(VALGRIND_LOGS)/%p.log --trace-children=yes $(OUT)/c-tests --jobs 2; status=$$?; \
	if grep -l -q SK-VALGRIND-ERROR $(VALGRIND_LOGS)/*.log; then \
		cat $$(grep -l SK-VALGRIND-ERROR $(VALGRIND_LOGS)/*.log); echo "valgrind found errors (above)"; exit 1; fi; exit $$status

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
	rm -rf $(ASAN_LOGS) && mkdir -p $(ASAN_LOGS)
	ASAN_OPTIONS="detect_leaks=1 log_path=$(ASAN_LOGS)/report" \
	UBSAN_OPTIONS="print_stacktrace=1 log_path=$(ASAN_LOGS)/report" $(OUT)/c-tests-asan --jobs 2; status=$$?; \
	if ls $(ASAN_LOGS)/report.* >/dev/null 2>&1; then \
		cat $(ASAN_LOGS)/report.*; echo "AddressSanitizer / UBSan reported (above)"; exit 1; fi; exit $$status

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
	rm -rf $(TSAN_LOGS) && mkdir -p $(TSAN_LOGS)
	TSAN_OPTIONS="halt_on_error=1 log_path=$(TSAN_LOGS)/report" $(OUT)/c-tests-tsan --jobs 2; status=$$?; \
	if ls $(TSAN_LOGS)/report.* >/dev/null 2>&1; then \
		cat $(TSAN_LOGS)/report.*; echo "ThreadSanitizer reported (above)"; exit 1; fi; exit $$status

test-examples: stage
	$(CC) $(CWARN) examples/c/quickstart.c $$($(STAGE_PKG) --cflags --libs signalkit) -o $(OUT)/quickstart
	test "$$($(RUN_STAGED) $(OUT)/quickstart)" = 42
	cd examples/swift && $(SWIFT) build -Xswiftc -warnings-as-errors

clean:
	rm -rf .build .build-release .build-tsan .build-asan .build-c examples/swift/.build
