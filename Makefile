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
	@pkg-config --exists libffi || { echo "installing libffi-dev"; \
		$(SUDO) apt-get update -qq && $(SUDO) apt-get install -y -qq libffi-dev; }

test: deps test-header test-swift test-c test-c-valgrind test-c-asan test-examples test-swift-tsan bench-check

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

test-c-valgrind: test-c
	$(RUN_STAGED) valgrind --quiet --error-exitcode=99 --leak-check=full --errors-for-leak-kinds=definite \
		--trace-children=yes $(OUT)/c-tests --jobs 1 --filter 'values/*'

# The C suite against sanitized debug builds of the library, compiled with the
# clang beside swift (its sanitizer runtimes match the Swift side's).
SWIFT_LIBDIR := $(SWIFT_BIN)../lib/swift/linux
SAN_CFLAGS := -std=c99 -Wall -Wextra -Werror -pedantic -D_DEFAULT_SOURCE -g -fno-omit-frame-pointer -fuse-ld=lld -Iinclude
CRITERION_FLAGS = $$(pkg-config --cflags --libs criterion) -lpthread

test-c-asan:
	$(SWIFT) build --sanitize=address --scratch-path .build-asan --product signalkit
	$(CLANG) $(SAN_CFLAGS) -fsanitize=address,undefined -fno-sanitize-recover=undefined $(C_TESTS) Tests/C/support.c \
		-L.build-asan/debug -lsignalkit -Wl,-rpath,$(CURDIR)/.build-asan/debug -Wl,-rpath,$(SWIFT_LIBDIR) \
		$(CRITERION_FLAGS) -o $(OUT)/c-tests-asan
	ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 $(OUT)/c-tests-asan --jobs 2

# Not yet part of `make test`: Criterion cannot map its inheritable arena
# under ThreadSanitizer's memory layout ("Could not initialize inheritable
# arena"), so the C threading tests need a TSan-compatible runner first.
test-c-tsan:
	$(SWIFT) build --sanitize=thread --scratch-path .build-tsan --product signalkit
	$(CLANG) $(SAN_CFLAGS) -fsanitize=thread $(C_TESTS) Tests/C/support.c \
		-L.build-tsan/debug -lsignalkit -L$(SWIFT_LIBDIR) -ldispatch -lBlocksRuntime \
		-Wl,-rpath,$(CURDIR)/.build-tsan/debug -Wl,-rpath,$(SWIFT_LIBDIR) \
		$(CRITERION_FLAGS) -o $(OUT)/c-tests-tsan
	TSAN_OPTIONS="halt_on_error=1" $(OUT)/c-tests-tsan --jobs 2

test-examples: stage
	$(CC) $(CWARN) examples/c/quickstart.c $$($(STAGE_PKG) --cflags --libs signalkit) -o $(OUT)/quickstart
	test "$$($(RUN_STAGED) $(OUT)/quickstart)" = 42
	cd examples/swift && $(SWIFT) build -Xswiftc -warnings-as-errors

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

bench-c: bench-capi
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
	rm -rf .build .build-release .build-tsan .build-asan .build-c examples/swift/.build Benchmarks/.build
