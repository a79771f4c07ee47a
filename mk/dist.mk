# Release artifacts (issue 31) and their tests: the Debian packages, the
# binary tarball and the source tarball, into .build-c/dist. What each holds:
# docs/packaging.md; the lintian warnings kept, the symbols file and what is
# reproducible: tools/packaging/debian/NOTES.md.
#
#   dist-deb           libsignalkit0, libsignalkit-dev and libsignalkit0-dbgsym
#                      (.deb, made with dpkg-dev's tools: dpkg-gensymbols,
#                      dpkg-shlibdeps, dpkg-gencontrol, dpkg-deb)
#   dist-tarball       signalkit-VERSION-linux-ARCH.tar.gz, relocatable, and its
#                      -debug.tar.gz (the .debug files, beside the libraries
#                      when unpacked over it)
#   dist-source        signalkit-VERSION.tar.gz: git archive of HEAD, plus
#                      mk/dist/source-date-epoch and mk/dist/files
#   dist-crate         rust/rsignalkit-sys-VERSION.crate and
#                      rust/rsignalkit-VERSION.crate (mk/rust.mk)
#   dist               the release: dist-source, then DIST_BUILT made in a
#                      clean tree unpacked from it at DIST_BUILD_DIR (a whole
#                      Swift build)
#   test-dist          test-dist-deb, test-dist-tarball, test-dist-source,
#                      test-dist-wheel, test-dist-rust (mk/rust.mk): the
#                      artifacts installed and used
#   release-check      make dist as a user runs it, then test-dist's stages
#                      on what it made, the site in Chromium, the Python
#                      package installed from source, and the documented
#                      first commands each in a fresh clone
#   check-reproducible dist here and in a clone in another directory, and the
#                      artifacts compared byte for byte (two Swift builds: not
#                      in make test)
#
# dist-deb and dist-tarball package the libraries `make` built in this tree
# (LIB_UNSTRIPPED, FFI_UNSTRIPPED: split here into the stripped library and
# its debug information), and api.json (which install_tree installs), so
# that test-dist costs no Swift build; `dist` runs the very same recipes in a
# tree that holds nothing but the source tarball, where they make both.
#
# Reproducible: every time stamp is SOURCE_DATE_EPOCH (the last commit's
# time; in an unpacked source tarball, the file dist-source put in it), every
# owner root, every archive sorted by name, no compressor writes a name or
# time, the debug information names the checkout "." (PREFIX_MAP in the
# Makefile), and dist builds at one fixed path (the Swift compiler writes
# the sources' paths into the library in ways no flag maps: NOTES.md).

DIST := $(OUT)/dist
DIST_WORK := $(OUT)/dist-work
DIST_EPOCH_FILE := mk/dist/source-date-epoch
# The files the source tarball was made from, for what would ask git
# (tools/check/check-doc-citations.py; tools/check/check-readme.py skips the history).
DIST_FILES_FILE := mk/dist/files
# Not exported: given only to the tools that make the artifacts (an empty
# one in the environment is an error to the Swift compiler's Clang).
SOURCE_DATE_EPOCH ?= $(if $(wildcard $(DIST_EPOCH_FILE)),$(strip $(file < $(DIST_EPOCH_FILE))),$(shell git log -1 --format=%ct 2>/dev/null))
DIST_ENV := SOURCE_DATE_EPOCH=$(SOURCE_DATE_EPOCH)

DEB_ARCH := $(shell dpkg --print-architecture 2>/dev/null)
DEB_MULTIARCH := $(shell dpkg-architecture -qDEB_HOST_MULTIARCH 2>/dev/null)
# The Debian revision: 1 for each new VERSION.
DEB_REVISION ?= 1
DEB_VERSION := $(VERSION)-$(DEB_REVISION)
DEB_MAINTAINER ?= The SignalKit authors <signalkit@users.noreply.github.com>
DEB_LIBDIR := /usr/lib/$(DEB_MULTIARCH)
DEB_WORK := $(DIST_WORK)/deb
DEB_PACKAGES := libsignalkit0 libsignalkit-dev libsignalkit0-dbgsym
DEBS := $(foreach p,$(DEB_PACKAGES),$(DIST)/$(p)_$(DEB_VERSION)_$(DEB_ARCH).deb)

TARBALL_NAME := signalkit-$(VERSION)-linux-$(shell uname -m)
TARBALL := $(DIST)/$(TARBALL_NAME).tar.gz
TARBALL_DEBUG := $(DIST)/$(TARBALL_NAME)-debug.tar.gz
SOURCE_NAME := signalkit-$(VERSION)
SOURCE_TARBALL := $(DIST)/$(SOURCE_NAME).tar.gz

# What `dist` builds in the clean tree (dist-wheel: mk/python.mk;
# dist-crate: mk/rust.mk).
DIST_BUILT := dist-deb dist-tarball dist-wheel dist-crate

# The libraries as shipped: stripped (dh_strip's options), with a
# .gnu_debuglink to their .debug file, which keeps the debug information
# (compressed). The same bytes go into the .debs and the tarball.
SPLIT := $(DIST_WORK)/split
SPLIT_LIBS := libsignalkit.so.$(VERSION) libsignalkit-ffi.so.$(VERSION)

# The examples the -dev package and the tarball carry, in
# share/doc/PACKAGE/examples at their paths below examples/
# (tools/packaging/debian/libsignalkit-dev.examples: shell globs; Tests/dist/
# check-examples.sh checks that every example a guide names is there).
# $(call install_examples,DIR): them into DIR.
DIST_EXAMPLES := $(sort $(wildcard $(shell sed -e '/^\#/d' -e '/^$$/d' tools/packaging/debian/libsignalkit-dev.examples)))
install_examples = $(foreach f,$(DIST_EXAMPLES),install -D -m 0644 $(CURDIR)/$(f) $(1)/$(patsubst examples/%,%,$(f));)

# A deterministic archive of a folder's content: names sorted, owner root,
# every time SOURCE_DATE_EPOCH, modes without group or other write.
# $(call dist_tar,DIR,ARCHIVE,TOP): DIR/TOP into ARCHIVE (.tar.gz).
define dist_tar
	chmod -R u+rwX,go+rX,go-w $(1)/$(3)
	find $(1)/$(3) -exec touch -h -d @$(SOURCE_DATE_EPOCH) {} +
	tar -C $(1) --sort=name --owner=0 --group=0 --numeric-owner --mtime=@$(SOURCE_DATE_EPOCH) \
		--format=gnu -cf - $(3) | gzip -9n > $(2)
endef

.PHONY: release-check check-first-commands dist dist-deb dist-tarball dist-source dist-split deb-symbols test-dist test-dist-deb test-dist-tarball \
	test-dist-source check-reproducible test-dist-manifest

# The debug files leave out .debug_names: the linker concatenates the
# objects' name indexes (the static Swift runtime's among them) into one
# section that gdb refuses with a warning at every load ("Section
# .debug_names ... length 4764 does not match section length 671128,
# ignoring"), then indexes the DWARF itself; without it, it just does.
dist-split: lib ffi
	@test -n "$(SOURCE_DATE_EPOCH)" || { echo "SOURCE_DATE_EPOCH is unset and this is not a git checkout" >&2; exit 1; }
	rm -rf $(SPLIT) && mkdir -p $(SPLIT)
	set -e; for pair in $(LIB_UNSTRIPPED):libsignalkit.so.$(VERSION) $(FFI_UNSTRIPPED):libsignalkit-ffi.so.$(VERSION); do \
		from=$${pair%%:*}; name=$${pair#*:}; \
		objcopy --only-keep-debug --compress-debug-sections --remove-section=.debug_names $$from $(SPLIT)/$$name.debug; \
		objcopy --strip-unneeded --remove-section=.comment --remove-section=.note $$from $(SPLIT)/$$name; \
		(cd $(SPLIT) && objcopy --add-gnu-debuglink=$$name.debug $$name); \
	done

# The three packages' trees are made by install_tree (PREFIX /usr, the
# multiarch LIBDIR), then shared out; each package gets its copyright,
# Debian changelog (made from VERSION, dated SOURCE_DATE_EPOCH) and, for
# libsignalkit0, the upstream CHANGELOG.md. dpkg-gensymbols holds the
# exports to tools/packaging/debian/libsignalkit0.symbols (-c2: a symbol gone or new
# fails: `make deb-symbols` records new ones at VERSION); dpkg-shlibdeps
# makes libsignalkit0's Depends from the libraries' NEEDED entries.
dist-deb: dist-split $(INSTALL_TREE_NEEDS) ## the Debian packages libsignalkit0, libsignalkit-dev, libsignalkit0-dbgsym into .build-c/dist
	$(begin)
	@test -n "$(DEB_MULTIARCH)" || { echo "dist-deb needs dpkg-dev (dpkg-architecture): make deps installs it" >&2; exit 1; }
	rm -rf $(DEB_WORK) $(DEBS) && mkdir -p $(DEB_WORK)/debian $(DIST)
	$(call install_tree,$(DEB_WORK)/root,/usr,$(DEB_LIBDIR),/usr/include)
	set -e; cd $(DEB_WORK)/debian; \
	lib=libsignalkit0/$(DEB_LIBDIR); dev=libsignalkit-dev; dbg=libsignalkit0-dbgsym; \
	mkdir -p $$lib $$dev $$dbg/usr/share/doc libsignalkit0/usr/share/doc/libsignalkit0 \
		libsignalkit0/DEBIAN $$dev/DEBIAN $$dbg/DEBIAN; \
	for name in $(SPLIT_LIBS); do \
		rm $(DEB_WORK)/root$(DEB_LIBDIR)/$$name; install -m 0644 $(SPLIT)/$$name $$lib/; \
		id=$$(readelf -n $(SPLIT)/$$name | sed -n 's/^ *Build ID: //p'); \
		mkdir -p $$dbg/usr/lib/debug/.build-id/$$(echo $$id | cut -c1-2); \
		install -m 0644 $(SPLIT)/$$name.debug $$dbg/usr/lib/debug/.build-id/$$(echo $$id | cut -c1-2)/$$(echo $$id | cut -c3-).debug; \
		echo $$id >> build-ids; \
	done; \
	mv $(DEB_WORK)/root$(DEB_LIBDIR)/libsignalkit.so.$(SOVERSION) $(DEB_WORK)/root$(DEB_LIBDIR)/libsignalkit-ffi.so.$(FFI_SOVERSION) $$lib/; \
	mv $(DEB_WORK)/root/usr $$dev/; \
	ln -s libsignalkit0 $$dbg/usr/share/doc/$$dbg; \
	$(call install_examples,$$dev/usr/share/doc/$$dev/examples) \
	$(PYTHON) $(CURDIR)/tools/packaging/package_readme.py render $(CURDIR)/README.md $$dev/usr/share/doc/$$dev/README.md $$dev; \
	gzip -9n $$dev/usr/share/doc/$$dev/README.md; \
	gzip -9nc $(CURDIR)/CHANGELOG.md > libsignalkit0/usr/share/doc/libsignalkit0/changelog.gz; \
	printf '%s (%s) unstable; urgency=medium\n\n  * SignalKit %s; its changes: %s\n\n -- %s  %s\n' \
		signalkit $(DEB_VERSION) $(VERSION) /usr/share/doc/libsignalkit0/changelog.gz '$(DEB_MAINTAINER)' \
		"$$(date -u -R -d @$(SOURCE_DATE_EPOCH))" > changelog; \
	sed -e 's|@MAINTAINER@|$(DEB_MAINTAINER)|' $(CURDIR)/tools/packaging/debian/control > control; \
	{ cat $(CURDIR)/tools/packaging/debian/copyright; sed -e '1,/^$$/d' -e 's/^$$/./' -e 's/^/ /' $(CURDIR)/LICENSE; } > copyright; \
	for p in libsignalkit0 $$dev; do \
		install -m 0644 copyright $$p/usr/share/doc/$$p/copyright; \
		gzip -9nc changelog > $$p/usr/share/doc/$$p/changelog.Debian.gz; \
	done; \
	echo 'activate-noawait ldconfig' > libsignalkit0/DEBIAN/triggers; \
	printf 'libsignalkit %s libsignalkit0 (>= %s)\nlibsignalkit-ffi %s libsignalkit0 (>= %s)\n' \
		$(SOVERSION) $(VERSION) $(FFI_SOVERSION) $(VERSION) > libsignalkit0/DEBIAN/shlibs
	cd $(DEB_WORK) && dpkg-gensymbols -q -c2 -plibsignalkit0 -Pdebian/libsignalkit0 -v$(VERSION) \
		-I$(CURDIR)/tools/packaging/debian/libsignalkit0.symbols -edebian/libsignalkit0$(DEB_LIBDIR)/*.so.$(VERSION) \
		|| { echo "the libraries' exports differ from tools/packaging/debian/libsignalkit0.symbols: a symbol gone breaks the ABI;" \
			"new ones are recorded with make deb-symbols" >&2; exit 1; }
	cd $(DEB_WORK) && dpkg-shlibdeps -xlibsignalkit0 -Tdebian/libsignalkit0.substvars \
		debian/libsignalkit0$(DEB_LIBDIR)/*.so.$(VERSION)
	set -e; cd $(DEB_WORK); for p in $(DEB_PACKAGES); do \
		echo 'misc:Depends=' >> debian/$$p.substvars; \
		set --; if [ $$p = libsignalkit0-dbgsym ]; then \
			set -- -DAuto-Built-Package=debug-symbols "-DBuild-Ids=$$(echo $$(cat debian/build-ids))"; fi; \
		$(DIST_ENV) dpkg-gencontrol -p$$p -Pdebian/$$p -Tdebian/$$p.substvars -fdebian/files "$$@"; \
		(cd debian/$$p && find . -type f ! -path './DEBIAN/*' -printf '%P\0' | LC_ALL=C sort -z \
			| xargs -0 md5sum > DEBIAN/md5sums); \
		chmod -R u+rwX,go+rX,go-w debian/$$p; \
		find debian/$$p -exec touch -h -d @$(SOURCE_DATE_EPOCH) {} +; \
		$(DIST_ENV) dpkg-deb --root-owner-group --threads-max=1 -Zxz --build debian/$$p $(DIST)/ > /dev/null; \
	done
	@ls -l $(DEBS)
	$(end)

# Records the libraries' exports in tools/packaging/debian/libsignalkit0.symbols: those
# it has keep their version, new ones get VERSION (the version that adds
# them, as test-abi asks). Run it after adding a function to the C API.
deb-symbols: dist-split ## record the libraries' new exports in tools/packaging/debian/libsignalkit0.symbols (at VERSION)
	rm -rf $(DIST_WORK)/symbols && mkdir -p $(DIST_WORK)/symbols/debian/p/DEBIAN $(DIST_WORK)/symbols/debian/p$(DEB_LIBDIR)
	cp $(SPLIT)/*.so.$(VERSION) $(DIST_WORK)/symbols/debian/p$(DEB_LIBDIR)/
	cd $(DIST_WORK)/symbols && dpkg-gensymbols -q -plibsignalkit0 -Pdebian/p -v$(VERSION) \
		-I$(if $(wildcard tools/packaging/debian/libsignalkit0.symbols),$(CURDIR)/tools/packaging/debian/libsignalkit0.symbols,/dev/null) \
		-edebian/p$(DEB_LIBDIR)/*.so.$(VERSION) -O$(CURDIR)/tools/packaging/debian/libsignalkit0.symbols
	@echo "wrote tools/packaging/debian/libsignalkit0.symbols"

# The binary tarball: install_tree under one top folder (its CMake package
# finds everything from where it is; its .pc files too: their prefix is
# ${pcfiledir}/../.., which --define-prefix also gives), the stripped
# libraries, LICENSE, CHANGELOG.md and README.md; the debug files in a
# second tarball with the same top folder, beside the libraries once both
# are unpacked (where gdb looks for a .gnu_debuglink's file).
dist-tarball: dist-split $(INSTALL_TREE_NEEDS) ## signalkit-VERSION-linux-ARCH.tar.gz (relocatable) and its -debug.tar.gz into .build-c/dist
	$(begin)
	rm -rf $(DIST_WORK)/tarball $(DIST_WORK)/tarball-debug $(TARBALL) $(TARBALL_DEBUG)
	mkdir -p $(DIST) $(DIST_WORK)/tarball-debug/$(TARBALL_NAME)/lib
	$(call install_tree,$(DIST_WORK)/tarball,/$(TARBALL_NAME),/$(TARBALL_NAME)/lib,/$(TARBALL_NAME)/include)
	sed -i 's|^prefix=.*|prefix=$${pcfiledir}/../..|' $(DIST_WORK)/tarball/$(TARBALL_NAME)/lib/pkgconfig/*.pc
	set -e; for name in $(SPLIT_LIBS); do \
		install -m 0755 $(SPLIT)/$$name $(DIST_WORK)/tarball/$(TARBALL_NAME)/lib/; \
		install -m 0644 $(SPLIT)/$$name.debug $(DIST_WORK)/tarball-debug/$(TARBALL_NAME)/lib/; \
	done
	install -m 0644 LICENSE CHANGELOG.md $(DIST_WORK)/tarball/$(TARBALL_NAME)/
	$(call install_examples,$(DIST_WORK)/tarball/$(TARBALL_NAME)/share/doc/signalkit/examples)
	$(PYTHON) tools/packaging/package_readme.py render README.md $(DIST_WORK)/tarball/$(TARBALL_NAME)/README.md \
		$(DIST_WORK)/tarball/$(TARBALL_NAME)
	install -m 0644 LICENSE $(DIST_WORK)/tarball-debug/$(TARBALL_NAME)/
	$(call dist_tar,$(DIST_WORK)/tarball,$(TARBALL),$(TARBALL_NAME))
	$(call dist_tar,$(DIST_WORK)/tarball-debug,$(TARBALL_DEBUG),$(TARBALL_NAME))
	@ls -l $(TARBALL) $(TARBALL_DEBUG)
	$(end)

# git archive of HEAD (what is committed: a change not committed is not in
# it), plus what the unpacked tree, which has no git, reads in its place:
# mk/dist/source-date-epoch, the commit's time, and mk/dist/files, the
# files of the commit.
dist-source: ## signalkit-VERSION.tar.gz, the source tarball (git archive of HEAD) into .build-c/dist
	$(begin)
	@git rev-parse --git-dir > /dev/null 2>&1 || { echo "dist-source makes the tarball with git archive:" \
		"run it in a git checkout (this tree is not one: an unpacked source tarball?)" >&2; exit 1; }
	rm -rf $(DIST_WORK)/source && mkdir -p $(DIST_WORK)/source $(DIST)
	git log -1 --format=%ct > $(DIST_WORK)/source/$(notdir $(DIST_EPOCH_FILE))
	git ls-tree -r --name-only HEAD > $(DIST_WORK)/source/$(notdir $(DIST_FILES_FILE))
	chmod 0644 $(DIST_WORK)/source/*
	git archive --format=tar --prefix=$(SOURCE_NAME)/$(dir $(DIST_EPOCH_FILE)) \
		--add-file=$(DIST_WORK)/source/$(notdir $(DIST_EPOCH_FILE)) \
		--add-file=$(DIST_WORK)/source/$(notdir $(DIST_FILES_FILE)) \
		--prefix=$(SOURCE_NAME)/ HEAD | gzip -9n > $(SOURCE_TARBALL)
	@ls -l $(SOURCE_TARBALL)
	$(end)

# The release, each artifact built from a clean tree: the source tarball
# unpacked at DIST_BUILD_DIR, DIST_BUILT made there (a whole Swift release
# build), its artifacts copied here. The build happens at that one path
# whichever directory the checkout is in, as Debian's builders build at
# /build/reproducible-path: the Swift compiler writes where the sources are
# into the library (tools/packaging/debian/NOTES.md, "Reproducible"). flock: one dist at
# a time uses it.
DIST_BUILD_DIR ?= /tmp/signalkit-dist
dist: dist-source ## every release artifact, the binary ones built from the source tarball at a fixed path (DIST_BUILD_DIR)
	$(begin)
	# What an earlier run left (a libsignalkit-doc .deb of an older commit,
	# which the manifest would list beside this run's) goes first: the
	# folder holds this commit's artifacts only (make dist-deb-doc after).
	find $(DIST) -mindepth 1 -maxdepth 1 ! -name $(notdir $(SOURCE_TARBALL)) -exec rm -rf {} +
	mkdir -p $(dir $(DIST_BUILD_DIR))
	flock $(DIST_BUILD_DIR).lock sh -c 'set -e; rm -rf $(DIST_BUILD_DIR) && mkdir -p $(DIST_BUILD_DIR); \
		tar -C $(DIST_BUILD_DIR) -xzf $(SOURCE_TARBALL); \
		$(MAKE) -C $(DIST_BUILD_DIR)/$(SOURCE_NAME) --no-print-directory $(DIST_BUILT); \
		cp -r $(DIST_BUILD_DIR)/$(SOURCE_NAME)/.build-c/dist/. $(DIST)/; rm -rf $(DIST_BUILD_DIR)'
	$(dist_manifest)
	@ls -l $(DIST)
	$(end)

# The release folder's manifest, SHA256SUMS and manifest.json (every
# artifact, its size and SHA-256: tools/packaging/manifest.py), written
# last by each goal that puts an artifact there after make dist
# (dist-deb-doc); test-dist-manifest checks them, and that the check can
# fail (Tests/dist/check-manifest.sh).
dist_manifest = $(PYTHON) tools/packaging/manifest.py write $(DIST)

# The release QA, apart from make test (the developer's loop), in the same
# two phases (run_stages, mk/tests.mk), with a table of its own
# (.build-c/release-times): first `make dist` as a user runs it, which
# builds every binary artifact in a tree unpacked from the source tarball,
# so that a prerequisite the tree happened to have is missing there; then
# the artifacts it made (taken as made: -o) installed and used without
# Swift, the documentation site built and opened in Chromium, the Python
# package installed from its folder, the Swift examples built as a user's
# package, and the goals the README and the
# guides name first, each the first command in a fresh clone (dist ran
# first here from the tarball; check-first-commands runs the others); and
# the checks of the release libraries as built that need their own tools
# and time: valgrind's memcheck (test-valgrind-c, -ffi) and the cost and
# allocation guard under callgrind (bench-check, with the Benchmarks
# package's build of the core); and the Swift suite on the plain debug
# build that make docs makes too (test-swift: make test runs it under TSan,
# with some counts lowered; here at full counts and full speed), the
# C++ suite under ASan and TSan (test-cpp-asan, test-cpp-tsan), the model fuzzer
# (test-fuzz-model: its oracle, the model tester, is a build of its own),
# test-api's self-test (test-api-selftest) and the Rust crates' check with
# rustc 1.63 (test-rust-msrv).
RELEASE_FIRST := dist
RELEASE_MADE := dist dist-source dist-deb dist-tarball dist-wheel dist-crate
RELEASE_STAGES := test-dist-deb test-dist-tarball test-dist-wheel test-dist-rust test-dist-source test-dist-manifest test-python-install \
	test-docs test-examples-swift check-first-commands bench-check test-valgrind-c test-valgrind-ffi test-swift test-abandon-long test-explore \
	test-terminal-asan test-terminal-tsan test-cpp-asan test-cpp-tsan test-fuzz-model test-api-selftest test-rust-msrv
release-check: export FIRST_COMMANDS = docs demo
release-check: deps ## the release QA: make dist from a clean tree, the artifacts installed and used without Swift, the site in Chromium, the documented first commands in fresh clones, valgrind, bench-check, the plain Swift suite
	$(call run_stages,$(OUT)/release-times,$(RELEASE_FIRST),$(RELEASE_MADE),$(RELEASE_STAGES))

# The artifacts' tests (release-check runs them as stages of their own).
test-dist-manifest: ## the release folder's SHA256SUMS (sha256sum -c) and manifest.json against its files
	$(begin)
	sh Tests/dist/check-manifest.sh $(DIST) $(DIST_TEST)/manifest-scratch
	$(end)

test-dist: test-dist-deb test-dist-tarball test-dist-source test-dist-wheel test-dist-rust test-dist-manifest ## the release artifacts installed in scratch folders and used, without Swift
	$(begin)
	$(end)

DIST_TEST := $(OUT)/dist-test
# A new user's shell on Debian, for the steps the documents show
# (tools/check/run-doc-steps.py): the system's own tools, its own python3 (whose pip
# refuses to install outside a venv), nothing of this build's environment
# (no Swift, no pyenv, no LD_LIBRARY_PATH or PKG_CONFIG_PATH).
NEW_USER := env -u LD_LIBRARY_PATH -u PKG_CONFIG_PATH -u PYTHONPATH -u VIRTUAL_ENV PATH=/usr/bin:/bin

# The .debs extracted into a scratch root and used there: Tests/dist/check-deb.sh.
test-dist-deb: dist-deb ## the .debs: lintian, Depends, symbols, ELF needs, debug info, quick starts and CMake from a scratch root, without Swift
	$(begin)
	rm -rf $(DIST_TEST)/deb && mkdir -p $(DIST_TEST)/deb
	sh Tests/dist/check-deb.sh $(DIST) $(DEB_VERSION) $(DIST_TEST)/deb/root
	$(end)

# The binary tarball and its debug tarball unpacked in a scratch folder,
# then moved (it must work wherever it is): its contents, no path of this
# checkout or of its staging in its text files, the .pc files valid and
# naming the licence (pkgconf 1.8 ignores License:, later ones read it),
# plain pkg-config finding the moved tree, every ELF file's needs, the
# libraries stripped with their debug files beside them, the examples the
# guides name in share/doc/signalkit/examples (Tests/dist/check-examples.sh),
# and the quick starts, the search demo and examples/cmake, built from those
# copies, through pkg-config --define-prefix and CMAKE_PREFIX_PATH, without
# Swift (Tests/dist/use.sh); the valgrind recipe of docs/c.md as written,
# the debug files beside the libraries (Tests/dist/valgrind.sh); last, the
# install steps of README.md and docs/packaging.md as written
# (tools/check/run-doc-steps.py tarball), each in a fresh folder with a new HOME
# and a new user's PATH (NEW_USER), the tarball, app.c (the C quick start)
# and CMakeLists.txt (examples/cmake's) beside it; then the program they
# built runs, and so does the CMake build they configured, once built
# (Tests/dist/check-tarball-steps.sh).
test-dist-tarball: dist-tarball ## the binary tarball: unpacked, moved, used through pkg-config --define-prefix and CMake, the README's steps as written, without Swift
	$(begin)
	rm -rf $(DIST_TEST)/tarball && mkdir -p $(DIST_TEST)/tarball/unpacked
	tar -C $(DIST_TEST)/tarball/unpacked -xzf $(TARBALL)
	tar -C $(DIST_TEST)/tarball/unpacked -xzf $(TARBALL_DEBUG)
	mv $(DIST_TEST)/tarball/unpacked/$(TARBALL_NAME) $(DIST_TEST)/tarball/moved
	test "$$(ls -A $(DIST_TEST)/tarball/moved | LC_ALL=C sort | tr '\n' ' ')" = "CHANGELOG.md LICENSE README.md include lib share "
	$(PYTHON) tools/packaging/package_readme.py check $(DIST_TEST)/tarball/moved/README.md $(DIST_TEST)/tarball/moved
	! grep -rn -e '$(CURDIR)' -e '$(TARBALL_NAME)' $(DIST_TEST)/tarball/moved/lib/pkgconfig \
		$(DIST_TEST)/tarball/moved/lib/cmake $(DIST_TEST)/tarball/moved/include
	set -e; for pc in $(DIST_TEST)/tarball/moved/lib/pkgconfig/*.pc; do \
		pkg-config --validate $$pc; grep -qx 'License: MIT' $$pc || { echo "$$pc names no licence" >&2; exit 1; }; done
	test "$$(PKG_CONFIG_PATH=$(DIST_TEST)/tarball/moved/lib/pkgconfig pkg-config --variable=includedir signalkit \
		| xargs realpath)" = $(DIST_TEST)/tarball/moved/include
	sh Tests/dist/check-elf.sh $(DIST_TEST)/tarball/moved
	set -e; for name in $(SPLIT_LIBS); do \
		$(PYTHON) Tests/dist/check-debug.py $(DIST_TEST)/tarball/moved/lib/$$name $(DIST_TEST)/tarball/moved/lib/$$name.debug; \
	done
	sh Tests/dist/check-examples.sh $(DIST_TEST)/tarball/moved/share/doc/signalkit/examples
	sh Tests/dist/use.sh $(DIST_TEST)/tarball/use $(DIST_TEST)/tarball/moved/lib $(DIST_TEST)/tarball/moved \
		$(DIST_TEST)/tarball/moved/share/doc/signalkit/examples \
		env PKG_CONFIG_PATH=$(DIST_TEST)/tarball/moved/lib/pkgconfig pkg-config --define-prefix
	sh Tests/dist/valgrind.sh $(DIST_TEST)/tarball/valgrind $(DIST_TEST)/tarball/moved/lib \
		PKG_CONFIG_PATH=$(DIST_TEST)/tarball/moved/lib/pkgconfig
	rm -rf $(DIST_TEST)/tarball/steps && mkdir -p $(DIST_TEST)/tarball/steps
	cp $(TARBALL) $(DIST_TEST)/tarball/steps/
	cp examples/c/quickstart.c $(DIST_TEST)/tarball/steps/app.c
	cp examples/cmake/CMakeLists.txt $(DIST_TEST)/tarball/steps/
	$(NEW_USER) python3 tools/check/run-doc-steps.py tarball --version $(VERSION) --files $(DIST_TEST)/tarball/steps \
		--scratch $(DIST_TEST)/tarball/steps-run \
		--then 'sh $(CURDIR)/Tests/dist/check-tarball-steps.sh $(TARBALL_NAME) $(CURDIR)/examples/c/quickstart.expected'
	$(end)

# The source tarball unpacked: Tests/dist/check-source.sh (what it holds, and
# that make finds every prerequisite of the README's two commands there).
# It does not build from it (a whole Swift build): `make dist` does. In an
# unpacked source tarball (make test there) nothing to check: the tarball is
# made from git.
#
# Then the documented goals that need no Swift build but the release
# library's, each run first in a fresh clone of HEAD (Tests/dist/first-commands.sh
# --stand-in: the library this tree built stands for that build), so that a
# recipe using a file no prerequisite of its goal makes fails here (issue 42:
# dist-deb and api.json); a few seconds each. make check-first-commands runs
# the others (make dist, make docs) with the real toolchain: minutes.
FIRST_COMMANDS_CHEAP := demo dist-deb dist-tarball dist-crate test-cmake test-header test-version
test-dist-source: $(if $(wildcard $(DIST_FILES_FILE)),,dist-source lib) ## the source tarball: every committed file, make -n demo and test, the doc checks, swift package describe; the cheap documented goals first in a fresh clone
	$(begin)
	$(if $(wildcard $(DIST_FILES_FILE)),@echo "test-dist-source: not run in a source tarball (the tarball is made from git)", \
		rm -rf $(DIST_TEST)/source && mkdir -p $(DIST_TEST)/source && tar -C $(DIST_TEST)/source -xzf $(SOURCE_TARBALL) \
		&& sh Tests/dist/check-source.sh $(DIST_TEST)/source/$(SOURCE_NAME) \
		&& sh Tests/dist/first-commands.sh --stand-in $(LIB_UNSTRIPPED) $(DIST_TEST)/first-commands $(FIRST_COMMANDS_CHEAP))
	$(end)

# The goals README.md and docs/maintainers/make-targets.md give as a first
# command, each run first in a fresh clone of HEAD with the real toolchain
# (Tests/dist/first-commands.sh): a whole Swift build each, minutes; part
# of make release-check (which has run dist first already), and the cheap
# ones again with a stand-in Swift build in test-dist-source.
FIRST_COMMANDS ?= dist docs demo
check-first-commands: ## make dist, make docs and make demo (FIRST_COMMANDS), each first in a fresh clone of HEAD
	$(begin)
	SWIFT=$(SWIFT) sh Tests/dist/first-commands.sh $(DIST_TEST)/first-commands-full $(FIRST_COMMANDS)
	$(end)

# make dist twice from the same commit: here, then in a clone of HEAD in
# another directory with another umask, time zone and locale; then every
# artifact compared byte for byte (cmp -l counts the differing bytes of
# those that differ). Two whole Swift release builds: not part of make test.
REPRO := $(OUT)/reproducible
check-reproducible: ## make dist here and in a clone elsewhere, and compare the artifacts byte for byte
	rm -rf $(REPRO) && mkdir -p $(REPRO)/first
	git clone --quiet --no-hardlinks $(CURDIR) $(REPRO)/elsewhere/clone
	git -C $(REPRO)/elsewhere/clone checkout --quiet --detach $$(git rev-parse HEAD)
	rm -rf $(DIST) && $(MAKE) --no-print-directory dist > $(REPRO)/first.log 2>&1
	cp -R $(DIST)/. $(REPRO)/first/
	cd $(REPRO)/elsewhere/clone && umask 0002 && TZ=Asia/Kolkata LC_ALL=C.UTF-8 \
		$(MAKE) --no-print-directory dist > $(REPRO)/second.log 2>&1
	@# Every artifact, in dist/ and its folders (python/, debug/), by its path there.
	@status=0; for f in $$(cd $(REPRO)/first && find . -type f | LC_ALL=C sort); do \
		mine=$(REPRO)/first/$$f; other=$(REPRO)/elsewhere/clone/.build-c/dist/$$f; \
		if cmp -s $$mine $$other; then echo "identical: $${f#./} (sha256 $$(sha256sum < $$mine | cut -c1-16)...)"; \
		else echo "DIFFERENT: $${f#./}, $$(cmp -l $$mine $$other 2>/dev/null | wc -l) bytes"; status=1; fi; \
	done; exit $$status
