# SignalKit: the libraries, their install and the demonstration. Each other
# concern has a file of its own under mk/, included at the end; `make help`
# lists every target with one line.
#
#   make                both release libraries (libsignalkit.so, libsignalkit-ffi.so)
#   make demo           stage the libraries, run examples/c/search.c
#   make test           the whole test suite (what CI runs: .ci/run)
#   make install        install into $(DESTDIR)$(PREFIX)
#   make docs           the documentation site (C, C++, Python references, operators), .build-c/site
#
# The Debian packages the build and tests need (valgrind, libffi, cmake,
# ...) are installed by tools/install-deps.sh, which `make demo` and `make test`
# run first (it installs only what is missing, through sudo when not root;
# nothing when everything is there). make itself never calls sudo.

# The version is written in one place, the file VERSION
# (docs/maintainers/releasing.md); test-version checks the places that must state it too.
VERSION := $(strip $(file < $(CURDIR)/VERSION))
SOVERSION := 0
PREFIX ?= /usr/local
LIBDIR ?= $(PREFIX)/lib
INCLUDEDIR ?= $(PREFIX)/include
DESTDIR ?=

SWIFT ?= swift
# The Swift toolchain the build needs: 6.x, `swift` on PATH (or SWIFT=path).
# Checked here, once (sub-makes inherit SIGNALKIT_SWIFT_CHECKED), unless
# every goal is one that needs no Swift, so that a missing or older
# toolchain says so instead of "swift: No such file or directory".
# install needs none once make has built the libraries (`make && sudo make
# install`: root's PATH usually has no swift).
NO_SWIFT_GOALS := help clean deps docs test-docs test-header uninstall \
	$(if $(wildcard $(CURDIR)/.build-c/lib/libsignalkit.so.$(VERSION)),$(if $(wildcard $(CURDIR)/.build-c/lib/libsignalkit-ffi.so.$(VERSION)),install))
SWIFT_HELP := README.md ("Two commands") says where to get it; or run make SWIFT=/path/to/swift
ifeq ($(SIGNALKIT_SWIFT_CHECKED),)
ifneq ($(filter-out $(NO_SWIFT_GOALS),$(or $(MAKECMDGOALS),all)),)
SWIFT_FOUND := $(shell $(SWIFT) --version 2>/dev/null | sed -n 's/.*Swift version \([0-9][0-9.]*\).*/\1/p' | head -n 1)
ifeq ($(SWIFT_FOUND),)
$(error '$(SWIFT)' is not on PATH (or does not run): building SignalKit needs the Swift toolchain 6.x (tested with 6.3). $(SWIFT_HELP))
endif
ifneq ($(filter 0 1 2 3 4 5,$(firstword $(subst ., ,$(SWIFT_FOUND)))),)
$(error '$(SWIFT)' is Swift $(SWIFT_FOUND): building SignalKit needs the Swift toolchain 6.x (tested with 6.3). $(SWIFT_HELP))
endif
export SIGNALKIT_SWIFT_CHECKED := 1
endif
endif
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
# The library as linked, with its debug information (LIB is it without):
# the release artifacts keep that information beside them (mk/dist.mk).
LIB_UNSTRIPPED := $(CURDIR)/.build-release/release/libsignalkit.so
STAGE_PKG := PKG_CONFIG_PATH=$(STAGE)/usr/lib/pkgconfig PKG_CONFIG_SYSROOT_DIR=$(STAGE) pkg-config
RUN_STAGED := LD_LIBRARY_PATH=$(STAGE)/usr/lib
CWARN := -std=c99 -Wall -Wextra -Werror -pedantic

# The release library: Swift runtime linked in, soname, sk_* exports only. Its
# own scratch path keeps these flags away from the debug build. --wrap=open:
# libdispatch's calls of open() go through Sources/SignalKitHeader/open_wrap.c;
# --wrap=pthread_create: every thread the library asks for, through
# Sources/SignalKitHeader/thread_wrap.c (sk_set_thread_refused_hook());
# --wrap of swift::swift_abortAllocationFailure: the Swift runtime's stop
# when malloc refuses it memory, through Sources/SignalKitHeader/alloc_wrap.c
# (SIGABRT with a message made without memory; the runtime's own crashed).
# Reproducible (mk/dist.mk's check-reproducible, mk/python.mk's
# check-dist-wheel-reproducible): the same commit built in another directory
# gives the same bytes (but for what tools/packaging/debian/NOTES.md lists). The
# checkout's path is written "." in the debug information and file names
# (the prefix maps); no DWARF unit names the Clang module cache, whose
# folder names hash the checkout's path (-no-clang-module-breadcrumbs); no
# object file keeps the hash of its LLVM module (.swift_modhash, which
# hashes the unmapped source path: -disable-incremental-llvm-codegen, which
# only lets an unchanged object file be kept). The linker's build ID, a hash
# of the whole file, then no longer depends on where the checkout is.
# The debug information the release artifacts keep (mk/dist.mk) is DWARF 4:
# Debian 12's valgrind (3.19) gives up on the whole file at DWARF 5's forms
# ("unhandled dwarf2 abbrev form code 0x25 ... I can't recover"), which
# clang 21 and gcc 12 write by default (the C targets and
# libsignalkit-ffi); swiftc writes 4 today, pinned here. RELEASE_CDEBUG is
# the C compilers' flags for it. The C targets' thread-locals are reached
# through TLS descriptors (-mtls-dialect=gnu2): for a library loaded at
# start-up, a call that returns an offset, about ten instructions where
# __tls_get_addr takes eighteen; every run of operator callbacks reaches
# one (sk_callback_fail's state, Sources/SignalKitCAPI/CallbackFailure.swift).
RELEASE_CDEBUG := -g -gdwarf-4
# SKS_STATIC_SWIFT_RUNTIME tells the C shims that the Swift runtime is
# linked into the library (-static-stdlib), where they can reach its
# thread-id cache to correct it in a forked child (shims.c).
PREFIX_MAP := $(CURDIR)=.
LIB_WRAPS := -Xlinker --wrap=open -Xlinker --wrap=pthread_create \
	-Xlinker --wrap=_ZN5swift28swift_abortAllocationFailureEmm
RELEASE_FLAGS := -c release --product signalkit --scratch-path .build-release \
	-Xcc -DSKS_STATIC_SWIFT_RUNTIME \
	-Xswiftc -dwarf-version=4 -Xcc -gdwarf-4 -Xcc -mtls-dialect=gnu2 \
	-Xswiftc -static-stdlib -Xswiftc -file-prefix-map -Xswiftc $(PREFIX_MAP) -Xcc -ffile-prefix-map=$(PREFIX_MAP) \
	-Xswiftc -Xfrontend -Xswiftc -no-clang-module-breadcrumbs \
	-Xlinker --version-script=$(CURDIR)/Sources/SignalKitCAPI/signalkit.map \
	$(LIB_WRAPS) \
	-Xlinker -soname=libsignalkit.so.$(SOVERSION) \
	-Xswiftc -Xfrontend -Xswiftc -disable-incremental-llvm-codegen

.DEFAULT_GOAL := all
.PHONY: all lib install uninstall stage demo demo-swift deps clean help

all: lib ffi $(OUT)/api.json ## both release libraries, libsignalkit.so and libsignalkit-ffi.so, and api.json (the default goal)

# Always run: swift build knows what changed.
lib: ## the release libsignalkit.so (static Swift runtime, sk_* only)
	$(begin)
	$(SWIFT) build $(RELEASE_FLAGS)
	mkdir -p $(OUT)/lib/pkgconfig
	objcopy --strip-debug $(LIB_UNSTRIPPED) $(LIB)
	ln -sf libsignalkit.so.$(VERSION) $(OUT)/lib/libsignalkit.so.$(SOVERSION)
	ln -sf libsignalkit.so.$(SOVERSION) $(OUT)/lib/libsignalkit.so
	sed -e 's|@VERSION@|$(VERSION)|g' pkgconfig/signalkit-uninstalled.pc.in > $(OUT)/lib/pkgconfig/signalkit-uninstalled.pc
	$(end)

# $(call install_tree,DESTDIR,PREFIX,LIBDIR,INCLUDEDIR): both libraries with
# their soname links, the C and C++ headers, the .pc files, the CMake package
# (LIBDIR/cmake/SignalKit) and the valgrind suppressions
# (PREFIX/share/signalkit/valgrind/signalkit.supp) and api.json
# (PREFIX/share/signalkit/api.json, docs/api-json.md). Paths inside the tree are written relative to
# PREFIX when LIBDIR and INCLUDEDIR are inside it (the default): the .pc files
# as ${prefix}/lib, the CMake package from its own location. So nothing of
# the build machine is in them and the tree may be moved as a whole.
empty :=
space := $(empty) $(empty)
# $(call under,DIR,PATH): PATH relative to DIR if it is inside DIR, else empty.
under = $(patsubst $(1)/%,%,$(filter $(1)/%,$(2)))
# $(call pc_path,PREFIX,PATH): how a .pc file names PATH.
pc_path = $(if $(call under,$(1),$(2)),$${prefix}/$(call under,$(1),$(2)),$(2))
# $(call cmake_prefix,PREFIX,LIBDIR): how the CMake package finds PREFIX.
cmake_prefix = $(if $(call under,$(1),$(2)),$${CMAKE_CURRENT_LIST_DIR}/$(subst $(space),,$(patsubst %,../,$(subst /, ,$(call under,$(1),$(2))) cmake SignalKit)),$(1))
# $(call cmake_path,PREFIX,PATH): how the CMake package names PATH.
cmake_path = $(if $(call under,$(1),$(2)),$${_signalkit_prefix}/$(call under,$(1),$(2)),$(2))
INSTALL_SED = sed -e 's|@PREFIX@|$(2)|g' -e 's|@LIBDIR_PC@|$(call pc_path,$(2),$(3))|g' \
	-e 's|@INCLUDEDIR_PC@|$(call pc_path,$(2),$(4))|g' -e 's|@VERSION@|$(VERSION)|g' \
	-e 's|@PREFIX_EXPR@|$(call cmake_prefix,$(2),$(3))|g' -e 's|@LIBDIR_EXPR@|$(call cmake_path,$(2),$(3))|g' \
	-e 's|@INCLUDEDIR_EXPR@|$(call cmake_path,$(2),$(4))|g' -e 's|@SOVERSION@|$(SOVERSION)|g' \
	-e 's|@FFI_SOVERSION@|$(FFI_SOVERSION)|g' -e 's|@VERSION_MAJOR@|$(word 1,$(subst ., ,$(VERSION)))|g' \
	-e 's|@VERSION_MINOR@|$(word 2,$(subst ., ,$(VERSION)))|g'
# What install_tree installs that make builds: every target whose recipe
# calls install_tree depends on these (a fresh tree has none of them; make
# dist builds in one).
INSTALL_TREE_NEEDS := lib ffi $(OUT)/api.json
define install_tree
	install -d $(1)$(3)/pkgconfig $(1)$(3)/cmake/SignalKit $(1)$(4)
	install -m 0755 $(LIB) $(1)$(3)/libsignalkit.so.$(VERSION)
	ln -sf libsignalkit.so.$(VERSION) $(1)$(3)/libsignalkit.so.$(SOVERSION)
	ln -sf libsignalkit.so.$(SOVERSION) $(1)$(3)/libsignalkit.so
	install -m 0755 $(FFI_LIB) $(1)$(3)/libsignalkit-ffi.so.$(VERSION)
	ln -sf libsignalkit-ffi.so.$(VERSION) $(1)$(3)/libsignalkit-ffi.so.$(FFI_SOVERSION)
	ln -sf libsignalkit-ffi.so.$(FFI_SOVERSION) $(1)$(3)/libsignalkit-ffi.so
	install -m 0644 include/signalkit.h include/signalkit_test.h include/signalkit.hpp include/signalkit_test.hpp \
		include/signalkit_ffi.h $(1)$(4)/
	install -d $(1)$(2)/share/signalkit/valgrind
	install -m 0644 Sources/valgrind/signalkit.supp $(1)$(2)/share/signalkit/valgrind/
	install -m 0644 $(OUT)/api.json $(1)$(2)/share/signalkit/
	$(INSTALL_SED) pkgconfig/signalkit.pc.in > $(1)$(3)/pkgconfig/signalkit.pc
	$(INSTALL_SED) pkgconfig/signalkit-ffi.pc.in > $(1)$(3)/pkgconfig/signalkit-ffi.pc
	$(INSTALL_SED) pkgconfig/SignalKitConfig.cmake.in > $(1)$(3)/cmake/SignalKit/SignalKitConfig.cmake
	$(INSTALL_SED) pkgconfig/SignalKitConfigVersion.cmake.in > $(1)$(3)/cmake/SignalKit/SignalKitConfigVersion.cmake
endef

# $(call install_docs,DESTDIR,PREFIX): the documentation site make docs built
# (.build-c/site: the C, C++ and Python references, the operator pages, the
# benchmark page) into PREFIX/share/doc/signalkit/html, without its Doxygen
# tag files (the build's own index of the references).
DOCS_DIR = $(PREFIX)/share/doc/signalkit/html
define install_docs
	rm -rf $(1)$(2)/share/doc/signalkit/html
	install -d $(1)$(2)/share/doc/signalkit
	cp -R $(OUT)/site $(1)$(2)/share/doc/signalkit/html
	rm -f $(1)$(2)/share/doc/signalkit/html/c/signalkit-c.tag $(1)$(2)/share/doc/signalkit/html/cpp/signalkit-cpp.tag
	chmod -R u+rwX,go+rX,go-w $(1)$(2)/share/doc/signalkit/html
endef

# What install_tree installs, for uninstall.
INSTALLED_FILES = $(foreach l,signalkit signalkit-ffi,$(LIBDIR)/lib$(l).so.$(VERSION) $(LIBDIR)/lib$(l).so \
	$(LIBDIR)/pkgconfig/$(l).pc) $(LIBDIR)/libsignalkit.so.$(SOVERSION) $(LIBDIR)/libsignalkit-ffi.so.$(FFI_SOVERSION) \
	$(LIBDIR)/cmake/SignalKit/SignalKitConfig.cmake $(LIBDIR)/cmake/SignalKit/SignalKitConfigVersion.cmake \
	$(INCLUDEDIR)/signalkit.h $(INCLUDEDIR)/signalkit_test.h $(INCLUDEDIR)/signalkit.hpp $(INCLUDEDIR)/signalkit_test.hpp \
	$(INCLUDEDIR)/signalkit_ffi.h \
	$(PREFIX)/share/signalkit/valgrind/signalkit.supp $(PREFIX)/share/signalkit/api.json

# After an install into the running system (no DESTDIR): the loader's cache
# is refreshed when LIBDIR is one of the directories it searches and we are
# root; otherwise it says what to do.
define refresh_loader
	@if [ -n "$(DESTDIR)" ]; then exit 0; fi; \
	if ldconfig -v -N 2>/dev/null | grep -q '^$(LIBDIR):'; then \
		if [ "$$(id -u)" = 0 ]; then ldconfig && echo "ran ldconfig: the loader's cache is up to date for $(LIBDIR)"; \
		else echo "note: run 'sudo ldconfig' so that programs find libsignalkit.so.$(SOVERSION) in $(LIBDIR)"; fi; \
	else echo "note: $(LIBDIR) is not searched by the loader: link programs with -Wl,-rpath,$(LIBDIR)" \
		"or run them with LD_LIBRARY_PATH=$(LIBDIR)"; fi
endef

# install installs what `make` built and builds only a library that is
# missing: `make && sudo make install` compiles nothing as root (root's PATH
# usually has no swift, and a build as root would leave root's files in the
# checkout). After a change to the sources, run `make` again first. The HTML
# documentation is installed when `make docs` built it (it is never built
# here: it runs the Swift tests' marble table); otherwise install says so.
install: $(if $(wildcard $(LIB)),,lib) $(if $(wildcard $(OUT)/lib/libsignalkit-ffi.so.$(VERSION)),,ffi) \
		$(if $(wildcard $(OUT)/api.json),,$(OUT)/api.json) ## install what make built (both libraries, headers, .pc files, the CMake package, the HTML documentation of make docs) into $(DESTDIR)$(PREFIX)
	$(call install_tree,$(DESTDIR),$(PREFIX),$(LIBDIR),$(INCLUDEDIR))
	$(if $(wildcard $(OUT)/site/index.html),$(call install_docs,$(DESTDIR),$(PREFIX)),@echo "note: no HTML documentation installed: run make docs first (it is installed into $(DOCS_DIR))")
	$(refresh_loader)

# The library's own directories go; so do the others install made when they
# are left empty, except in the system's prefixes (/usr, /usr/local), whose
# standard directories stay even when empty: a prefix of the library's own,
# such as /opt/signalkit or a staging DESTDIR, goes entirely.
uninstall: ## remove what install installed from $(DESTDIR)$(PREFIX)
	rm -f $(addprefix $(DESTDIR),$(INSTALLED_FILES))
	rm -rf $(DESTDIR)$(DOCS_DIR)
	@# Each directory goes if empty; one that is not stays, without a message.
	rmdir $(DESTDIR)$(LIBDIR)/cmake/SignalKit $(DESTDIR)$(PREFIX)/share/signalkit/valgrind $(DESTDIR)$(PREFIX)/share/signalkit \
		$(DESTDIR)$(PREFIX)/share/doc/signalkit 2>/dev/null || true
	$(if $(DESTDIR)$(filter-out /usr /usr/local,$(PREFIX)),rmdir $(DESTDIR)$(LIBDIR)/pkgconfig $(DESTDIR)$(LIBDIR)/cmake \
		$(DESTDIR)$(LIBDIR) $(DESTDIR)$(INCLUDEDIR) $(DESTDIR)$(PREFIX)/share/doc $(DESTDIR)$(PREFIX)/share $(DESTDIR)$(PREFIX) 2>/dev/null || true)
	@if [ -z "$(DESTDIR)" ] && [ "$$(id -u)" = 0 ] && ldconfig -v -N 2>/dev/null | grep -q '^$(LIBDIR):'; then \
		ldconfig && echo "ran ldconfig: the loader's cache no longer lists libsignalkit for $(LIBDIR)"; fi

# An install with PREFIX=/usr under .build-c/stage, used the way a user would
# use it: the C tests, examples, Python and benchmarks build against it.
stage: $(INSTALL_TREE_NEEDS) ## install into .build-c/stage (what the tests build against)
	$(begin)
	rm -rf $(STAGE)
	$(call install_tree,$(STAGE),/usr,/usr/lib,/usr/include)
	$(end)

demo: deps stage ## build examples/c/search.c through pkg-config against the stage and run it
	$(CC) $(CWARN) -D_DEFAULT_SOURCE examples/c/search.c $$($(STAGE_PKG) --cflags --libs signalkit) -o $(OUT)/search
	$(RUN_STAGED) $(OUT)/search

demo-swift: ## the same demonstration in Swift (examples/swift, a package of its own)
	cd examples/swift && $(SWIFT) run -c release SearchDemo

deps: ## install the missing Debian packages the build and tests need (tools/install-deps.sh)
	@sh tools/install-deps.sh

clean: ## remove every build folder (and what pip install -e leaves in the tree)
	rm -rf .build .build-release .build-tsan .build-asan .build-fuzz .build-c examples/swift/.build \
		Benchmarks/.build Benchmarks/Suite/.build Package.resolved \
		Sources/python/.editable Sources/python/pysignalkit/_lib Sources/python/pysignalkit/_speedups.abi3.so

help: ## this list
	@awk -F ':.*## ' 'FNR == 1 { file = FILENAME } \
		/^[a-zA-Z0-9_.-]+:.*## / { if (file) { print file ":"; file = "" } printf "  %-18s %s\n", $$1, $$2 }' \
		$(MAKEFILE_LIST)

include mk/ffi.mk mk/tests.mk mk/docs.mk mk/sanitizers.mk mk/fuzz.mk mk/soak.mk mk/bench.mk mk/abi.mk \
	mk/docs-swift.mk mk/cpp.mk mk/dist.mk mk/python.mk mk/api.mk mk/rust.mk mk/nats.mk
