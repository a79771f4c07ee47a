# SignalKit: the libraries, their install and the demonstration. Each other
# concern has a file of its own under mk/, included at the end; `make help`
# lists every target with one line.
#
#   make                the release libsignalkit.so (+ signalkit.pc)
#   make demo           stage the libraries, run examples/c/search.c
#   make test           the whole test suite (what CI runs: .ci/run)
#   make install        install into $(DESTDIR)$(PREFIX)
#
# The Debian packages the build and tests need (Criterion, valgrind, libffi,
# ...) are installed by .ci/install-deps.sh, which `make demo` and `make test`
# run first (it installs only what is missing, through sudo when not root;
# nothing when everything is there). make itself never calls sudo.

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
SWIFT_LIBDIR := $(SWIFT_BIN)../lib/swift/linux
CC ?= cc
CXX := c++
PYTHON ?= python3

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

.DEFAULT_GOAL := all
.PHONY: all lib install stage demo demo-swift deps clean help

all: lib ## the release libsignalkit.so and signalkit.pc (the default goal)

# Always run: swift build knows what changed.
lib: ## the release libsignalkit.so (static Swift runtime, sk_* only)
	$(begin)
	$(SWIFT) build $(RELEASE_FLAGS)
	mkdir -p $(OUT)/lib/pkgconfig
	objcopy --strip-debug .build-release/release/libsignalkit.so $(LIB)
	ln -sf libsignalkit.so.$(VERSION) $(OUT)/lib/libsignalkit.so.$(SOVERSION)
	ln -sf libsignalkit.so.$(SOVERSION) $(OUT)/lib/libsignalkit.so
	sed -e 's|@VERSION@|$(VERSION)|g' pkgconfig/signalkit-uninstalled.pc.in > $(OUT)/lib/pkgconfig/signalkit-uninstalled.pc
	$(end)

# $(call install_core,DESTDIR,LIBDIR,INCLUDEDIR,PREFIX)
define install_core
	install -d $(1)$(2)/pkgconfig $(1)$(3)
	install -m 0755 $(LIB) $(1)$(2)/libsignalkit.so.$(VERSION)
	ln -sf libsignalkit.so.$(VERSION) $(1)$(2)/libsignalkit.so.$(SOVERSION)
	ln -sf libsignalkit.so.$(SOVERSION) $(1)$(2)/libsignalkit.so
	install -m 0644 include/signalkit.h include/signalkit.hpp $(1)$(3)/
	sed -e 's|@PREFIX@|$(4)|g' -e 's|@LIBDIR@|$(2)|g' \
		-e 's|@INCLUDEDIR@|$(3)|g' -e 's|@VERSION@|$(VERSION)|g' \
		pkgconfig/signalkit.pc.in > $(1)$(2)/pkgconfig/signalkit.pc
endef

install: lib ffi ## install both libraries, headers and .pc files into $(DESTDIR)$(PREFIX)
	$(call install_core,$(DESTDIR),$(LIBDIR),$(INCLUDEDIR),$(PREFIX))
	$(call install_ffi,$(DESTDIR),$(LIBDIR),$(INCLUDEDIR),$(PREFIX))

# An install with PREFIX=/usr under .build-c/stage, used the way a user would
# use it: the C tests, examples, Python and benchmarks build against it.
stage: lib ffi ## install into .build-c/stage (what the tests build against)
	$(begin)
	rm -rf $(STAGE)
	$(call install_core,$(STAGE),/usr/lib,/usr/include,/usr)
	$(call install_ffi,$(STAGE),/usr/lib,/usr/include,/usr)
	$(end)

demo: deps stage ## build examples/c/search.c through pkg-config against the stage and run it
	$(CC) $(CWARN) -D_DEFAULT_SOURCE examples/c/search.c $$($(STAGE_PKG) --cflags --libs signalkit) -o $(OUT)/search
	$(RUN_STAGED) $(OUT)/search

demo-swift: ## the same demonstration in Swift (examples/swift, a package of its own)
	cd examples/swift && $(SWIFT) run -c release SearchDemo

deps: ## install the missing Debian packages the build and tests need (.ci/install-deps.sh)
	@sh .ci/install-deps.sh

clean: ## remove every build folder
	rm -rf .build .build-release .build-tsan .build-asan .build-fuzz .build-c examples/swift/.build \
		Benchmarks/.build Benchmarks/Suite/.build

help: ## this list
	@awk -F ':.*## ' 'FNR == 1 { file = FILENAME } \
		/^[a-zA-Z0-9_.-]+:.*## / { if (file) { print file ":"; file = "" } printf "  %-18s %s\n", $$1, $$2 }' \
		$(MAKEFILE_LIST)

include mk/ffi.mk mk/tests.mk mk/sanitizers.mk mk/fuzz.mk mk/soak.mk mk/bench.mk mk/cpp.mk
