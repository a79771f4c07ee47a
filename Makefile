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

test: deps test-header test-swift test-c test-c-valgrind test-c-asan test-examples test-swift-tsan

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

clean:
	rm -rf .build .build-release .build-tsan .build-asan .build-c examples/swift/.build

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

test: test-ffi test-ffi-valgrind test-ffi-asan test-python test-doc-tests

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
	$(RUN_STAGED) valgrind --quiet --error-exitcode=99 --leak-check=full --errors-for-leak-kinds=definite \
		--show-possibly-lost=no --trace-children=yes $(OUT)/ffi-tests --jobs 2

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
	ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 $(OUT)/ffi-tests-asan --jobs 2

# The ffi library and suite under ThreadSanitizer, against the TSan debug
# core. Not yet part of `make test`: it needs the TSan-compatible Criterion
# start-up (Tests/C/tsan/*.c) that the C suite's TSan target brings.
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
	TSAN_OPTIONS="halt_on_error=1" $(OUT)/ffi-tests-tsan --jobs 2

# The Python examples and their tests (ctypes only), against the staged
# install: SIGNALKIT_LIB_DIR tells signalkit.py where the libraries are.
test-python: stage
	cd examples/python && PYTHONDONTWRITEBYTECODE=1 SIGNALKIT_LIB_DIR=$(STAGE)/usr/lib $(PYTHON) -m unittest -v
