# `make test`: every stage below and those of mk/sanitizers.mk, mk/ffi.mk,
# mk/docs.mk, mk/fuzz.mk, mk/soak.mk, mk/bench.mk, mk/abi.mk, mk/dist.mk and
# mk/api.mk, mk/rust.mk and mk/nats.mk, TEST_JOBS at a time, then a table of each stage's wall time.
# Each stage also runs on its own (make test-c).
#
# The run has two phases. First the two longest builds side by side: the
# release libraries with their stage, the Python wheel and the C and ffi
# suites' binaries (what the single-threaded stages need) beside the TSan
# build. Then the stages. GNU make walks its goals in order and gives a
# freed job slot to the next target of its walk that can start (it does not
# go back to an earlier goal whose prerequisite just ended before the walk
# is over): so TEST_STAGES starts with what can start at once, the Swift
# suite under TSan first (the longest, and it keeps less than a core busy)
# beside the C, ffi and Python runs, then the sanitizer builds and the rest.
# The run is bound by processor time (about 9 minutes of it on 2 cores),
# not by this order; with as many stages at a time as cores, they still
# idled about a fifth of a run of 5.5 minutes (stages that wait, or keep
# less than a core busy), so TEST_JOBS is one more than the cores.
# The 5-minute target, what bounds it and what moved to make release-check
# to keep it: docs/maintainers/make-targets.md.
# valgrind's runs on the release libraries and
# bench-check (callgrind, and the Benchmarks package's own build of the
# core) are the release QA's (make release-check, mk/dist.mk), as is the
# Swift suite's plain run (test-swift: here it runs under TSan,
# test-swift-tsan, and a plain debug build would be a fourth compile),
# the C++ suite under the sanitizers (test-cpp-asan, test-cpp-tsan: the
# C++ layer's memory and threads are the C library's, which test-c-asan
# and test-c-tsan check here) and the model fuzzer (test-fuzz-model, whose
# oracle library is a build of its own).

TEST_JOBS ?= $(shell echo $$(( $$(nproc) + 1 )))
# SIGNALKIT_STAGE_TIMES (environment): another folder for the stamps
# (make release-check's run keeps its own; the make that test-python's
# `pip install Sources/python` runs keeps its own there).
TIMES := $(or $(SIGNALKIT_STAGE_TIMES),$(OUT)/times)

# Every stage's recipe starts with $(begin) and ends with $(end): the table
# is made from these stamps (a stage that began and did not end failed).
# Under `make test` each also says so at once on descriptor 9, the run's own
# standard output, which --output-sync does not hold back (a stage's own
# output comes whole when it ends): "[  42s] start test-c", "[ 101s] done
# test-c (59s)", seconds since the run began. Where descriptor 9 is not open
# (a make that pip runs inside a stage) nothing is said.
progress_line = (printf '[%4ss] %-5s %s%s\n' "$$(( $$(date +%s) - $$(cut -d. -f1 $(TIMES)/start) ))" $(1) $@ "$(2)" >&9) \
	2>/dev/null || :;
progress = $(if $(SIGNALKIT_PROGRESS),$(progress_line))
stage_seconds = $$(( $$(cut -d. -f1 $(TIMES)/$@.end) - $$(cut -d. -f1 $(TIMES)/$@.begin) ))
begin = @mkdir -p $(TIMES) && date +%s.%N > $(TIMES)/$@.begin; $(call progress,start)
end = @date +%s.%N > $(TIMES)/$@.end; $(call progress,done, ($(stage_seconds)s))

# Under run_stages every recipe's processes carry the name of the target
# they make (SIGNALKIT_TARGET), by which tools/heartbeat.py tells a stage
# still at work from one that failed.
ifdef SIGNALKIT_PROGRESS
%: export SIGNALKIT_TARGET = $@
endif

# Whether make only prints the commands (make -n test: the verdict would
# judge stages that never ran).
dry_run = $(findstring n,$(firstword -$(MAKEFLAGS)))

# How often run_stages says which stages are still running.
HEARTBEAT_SECONDS ?= 60

# $(call run_stages,TIMES-DIR,FIRST,MADE,STAGES): the two phases of make
# test (and of make release-check, mk/dist.mk): FIRST, then STAGES with MADE
# taken as made when FIRST succeeded, TEST_JOBS at a time; then the table
# and one verdict line, the run's last (tools/stage-times.sh --verdict:
# "make test: 25 stages passed", or the stages that failed). Meanwhile,
# every HEARTBEAT_SECONDS, a line names the stages still running
# (tools/heartbeat.py): it reads a pipe that only this recipe's shell
# holds open, so it ends with the run however the run ends (Ctrl-C too).
# The makes and the table write to descriptor 9, the recipe's own standard
# output (not the pipe; a low one may be make's jobserver's), which the
# stages' progress lines use too; the exit status goes through
# TIMES-DIR/exit.
define run_stages
	@rm -rf $(1) && mkdir -p $(1) && date +%s.%N > $(1)/start
	@echo "make $@: first $(2), then $(words $(4)) stages, $(TEST_JOBS) at a time;" \
		"each says when it starts and ends, its output comes whole when it ends;" \
		"every $(HEARTBEAT_SECONDS) s, which are still running"
	@mkdir -p $(1); exec 9>&1; { \
	SIGNALKIT_STAGE_TIMES=$(1) $(MAKE) --no-print-directory -k -j$(TEST_JOBS) --output-sync=target SIGNALKIT_PROGRESS=1 $(2) \
		>&9; \
	first=$$?; \
	SIGNALKIT_STAGE_TIMES=$(1) $(MAKE) --no-print-directory -k -j$(TEST_JOBS) --output-sync=target SIGNALKIT_PROGRESS=1 \
		$$([ $$first -eq 0 ] && printf -- '-o %s ' $(3)) $(4) >&9; \
	status=$$?; sh tools/stage-times.sh $(if $(dry_run),,--verdict "make $@" $$first $$status) $(1) $(4) >&9; \
	if [ $$first -ne 0 ]; then echo $$first; else echo $$status; fi > $(1)/exit; \
	} | $(PYTHON) tools/heartbeat.py $(1) $(HEARTBEAT_SECONDS); \
	exit $$(cat $(1)/exit 2>/dev/null || echo 1)
endef

# The C and ffi suites' binaries (c-tests, ffi-tests) are built there too:
# the release library ends some seconds before the TSan build, and they
# fill the slot it leaves.
TEST_FIRST := tsan-core stage python-wheel c-tests ffi-tests
# The first phase's targets always run (swift build knows what changed): the
# second one, when the first succeeded, takes them as made (-o).
TEST_MADE := tsan-core stage lib ffi python-wheel python-native c-tests ffi-tests
TEST_STAGES := test-swift-tsan test-c test-ffi test-python test-doc-tests \
	test-abandon test-terminal test-c-asan test-ffi-asan test-soak-asan test-fuzz-api test-fuzz-ffi test-c-tsan test-ffi-tsan test-soak-tsan \
	test-examples test-op-examples test-header test-version test-doc-checks test-cmake test-abi \
	test-cpp test-api test-rust test-nats

.PHONY: test test-header test-swift c-tests test-c test-examples test-examples-swift test-cmake test-doc-tests test-version

VERSION_PARTS := $(subst ., ,$(VERSION))

# -k: a failing stage does not stop the others; its output is printed whole
# (--output-sync) and the run fails after the table.
test: deps ## the developer's test suite: build, tests, sanitizers, the model, fuzzers, docs checks (make release-check: the artifacts, valgrind, bench-check); each stage's time at the end
	$(call run_stages,$(TIMES),$(TEST_FIRST),$(TEST_MADE),$(TEST_STAGES))


# The public headers alone, strictly, as C and as C++ (Tests/header);
# signalkit_ffi.h and signalkit_test.h include nothing but signalkit.h;
# signalkit_test.hpp, a C++17 header, nothing but signalkit.hpp,
# signalkit_test.h and standard headers.
test-header: ## signalkit.h, signalkit_ffi.h and signalkit_test.h alone, as C99 and as C++11; signalkit_test.hpp as C++17
	$(begin)
	mkdir -p $(OUT)/header
	set -e; for h in header header_ffi header_test; do \
		$(CC) -std=c99 -Wall -Wextra -pedantic -Werror -Iinclude -c Tests/header/$${h}_c.c -o $(OUT)/header/$${h}_c.o; \
		$(CXX) -std=c++11 -Wall -Wextra -pedantic -Werror -Iinclude -c Tests/header/$${h}_cpp.cpp -o $(OUT)/header/$${h}_cpp.o; \
	done
	! grep -n '#include' include/signalkit_ffi.h | grep -v '"signalkit.h"'
	! grep -n '#include' include/signalkit_test.h | grep -v '"signalkit.h"'
	$(CXX) -std=c++17 -Wall -Wextra -pedantic -Wshadow -Werror -Iinclude -c Tests/header/header_test_hpp.cpp \
		-o $(OUT)/header/header_test_hpp.o
	! grep -n '^#include' include/signalkit_test.hpp | grep -v -E '#include <(signalkit\.hpp|signalkit_test\.h|[a-z_]+)>$$'
	$(end)

test-swift: ## the Swift tests (XCTest), warnings as errors
	$(begin)
	$(SWIFT) build --build-tests -Xswiftc -warnings-as-errors
	$(SWIFT) test --skip-build
	$(end)

C_TESTS := $(wildcard Tests/C/test_*.c)
# The test harness of the C, ffi and C++ suites (Tests/harness: harness.h,
# and the runner, harness.c, whose main each suite's program links; how it
# runs: Tests/README.md, "The test harness").
HARNESS := Tests/harness/harness.c

# The C suite, compiled as a user compiles: against the staged install; and
# the shipped library: only sk_* exported, its soname, no Swift runtime
# dependency.
# The suite's binary is a stage of its own: valgrind (test-valgrind-c, in
# release-check) and the misuse table's check run some of its tests, and
# need it built, not the whole suite run again.
c-tests: stage ## build the C suite against the staged install, without running it
	$(begin)
	$(CC) $(CWARN) -D_DEFAULT_SOURCE $(C_TESTS) Tests/C/support.c $(HARNESS) $$($(STAGE_PKG) --cflags --libs signalkit) \
		-lpthread -o $(OUT)/c-tests
	$(end)

test-c: c-tests ## the C suite against the staged install, plus exports, soname, dependencies
	$(begin)
	nm -D --extern-only --defined-only $(LIB) | awk '{print $$3}' > $(OUT)/exports.txt
	! grep -v -E '^(sk_[a-z]|SIGNALKIT_0$$)' $(OUT)/exports.txt
	readelf -d $(LIB) | grep -q 'SONAME.*libsignalkit.so.$(SOVERSION)'
	! ldd $(LIB) | grep -v -E 'linux-vdso|libc\.so|libm\.so|libstdc\+\+|libgcc_s|ld-linux'
	$(RUN_STAGED) $(OUT)/c-tests --jobs 2
	$(end)

# Every C example but the demo, built through pkg-config, run, and its output
# compared with examples/c/NAME.expected; the Swift example package, output
# compared with examples/swift/NAME.expected; every code block of README.md and docs/;
# README.md's length.
C_EXAMPLES := quickstart threads combine errors marbles merge_map_bounded
# README.md stays short (issue 35): the rest lives in docs/. 330 since the
# fifth language's quick start (Rust, issue 45).
README_MAX_LINES := 330

test-examples: stage ## the C examples (output checked) and the code blocks of README.md and docs/
	$(begin)
	set -e; for e in $(C_EXAMPLES); do \
		$(CC) $(CWARN) -D_DEFAULT_SOURCE examples/c/$$e.c $$($(STAGE_PKG) --cflags --libs signalkit) -lpthread -o $(OUT)/$$e; \
		$(RUN_STAGED) $(OUT)/$$e > $(OUT)/$$e.out; \
		diff -u examples/c/$$e.expected $(OUT)/$$e.out; \
	done
	$(PYTHON) tools/check/check-readme.py README.md $(wildcard docs/*.md docs/*/*.md) Sources/python/README.md Benchmarks/README.md \
		Tests/README.md Sources/SwiftSignalKit/INTERNALS.md examples/README.md Tests/marbles/README.md \
		$(wildcard Sources/rust/*/README.md)
	@lines=$$(wc -l < README.md); [ $$lines -le $(README_MAX_LINES) ] || { echo "README.md has $$lines lines," \
		"more than $(README_MAX_LINES): it is what a newcomer reads in five minutes; move the details into docs/" >&2; exit 1; }
	$(end)

# The Swift examples, a package that depends on SignalKit as a user's does
# (so SwiftPM builds the core again inside it: part of make release-check,
# not of make test, whose other stages share four builds of the core): the
# search demo, the README's example, the Swift guide's bounded mergeMap and
# the operator pages' examples (tools/docs/examples.py), output checked.
test-examples-swift: ## the Swift example package (the search demo, the README's example, the Swift guide's, the operator pages' examples) built as a user's package, output checked
	$(begin)
	cd examples/swift && $(SWIFT) build -Xswiftc -warnings-as-errors
	set -e; for e in SearchDemo ReadmeExample BoundedMergeMap; do \
		examples/swift/.build/debug/$$e > $(OUT)/$$e.out; \
		diff -u examples/swift/$$e.expected $(OUT)/$$e.out; \
	done
	@# The operator pages' Swift examples (tools/docs/examples.py), one target.
	set -e; for f in examples/swift/OperatorExamples.expected/*.txt; do \
		op=$$(basename $$f .txt); \
		examples/swift/.build/debug/OperatorExamples $$op > $(OUT)/OperatorExamples-$$op.out; \
		diff -u $$f $(OUT)/OperatorExamples-$$op.out; \
	done
	$(end)

# The CMake package as a CMake user meets it: installed (DESTDIR, PREFIX
# /opt/signalkit), then the installed tree moved elsewhere, which it must
# survive (relocatable; no path of this checkout in its text files); the
# example project configured against it, built and run (output checked);
# version requests met and refused as the versioning policy (docs/maintainers/releasing.md) says, and
# SignalKit::signalkit requiring cxx_std_17 and holding the four headers
# (Tests/cmake); components requested, met and refused, and no target
# defined when not found, against
# copies of the moved tree without the ffi or the core library
# (Tests/cmake/components.sh); the moved .pc files used with pkg-config
# --define-prefix, their URL (if any) the one README.md gives; api.json
# installed as built. The example's build prints no warning, under make -j
# too.
CMAKE_TEST := $(OUT)/cmake-test
CMAKE_PREFIX := $(CMAKE_TEST)/moved

test-cmake: $(INSTALL_TREE_NEEDS) ## the CMake package: install, move, configure examples/cmake against it, build, run
	$(begin)
	rm -rf $(CMAKE_TEST) && mkdir -p $(CMAKE_TEST)
	$(call install_tree,$(CMAKE_TEST)/destdir,/opt/signalkit,/opt/signalkit/lib,/opt/signalkit/include)
	mv $(CMAKE_TEST)/destdir/opt/signalkit $(CMAKE_PREFIX)
	! grep -rn -e '$(CURDIR)' -e '/opt/signalkit/' $(CMAKE_PREFIX)/lib/cmake $(CMAKE_PREFIX)/lib/pkgconfig $(CMAKE_PREFIX)/include
	cmake -S examples/cmake -B $(CMAKE_TEST)/build -DCMAKE_PREFIX_PATH=$(CMAKE_PREFIX) -Wdev -Werror=dev > $(CMAKE_TEST)/configure.log
	@# The example's build is one file: its make gets none of this make's
	@# flags (under make -j they name a jobserver it is not given, and it
	@# warned "jobserver unavailable"); its output, warnings included, must
	@# hold none.
	env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL cmake --build $(CMAKE_TEST)/build > $(CMAKE_TEST)/build.log 2>&1 || \
		{ cat $(CMAKE_TEST)/build.log; exit 1; }
	! grep -n -i warning $(CMAKE_TEST)/build.log
	$(CMAKE_TEST)/build/app > $(CMAKE_TEST)/app.out
	diff -u examples/cmake/app.expected $(CMAKE_TEST)/app.out
	@# Met: the requests below, and the one the installed config's comment shows.
	set -e; M=$(word 1,$(VERSION_PARTS)) m=$(word 2,$(VERSION_PARTS)) p=$(word 3,$(VERSION_PARTS)); \
	shown=$$(sed -n 's/^#   find_package(SignalKit \([^ ]*\) CONFIG REQUIRED)$$/\1/p' $(CMAKE_PREFIX)/lib/cmake/SignalKit/SignalKitConfig.cmake); \
	test -n "$$shown" || { echo "SignalKitConfig.cmake shows no find_package request"; exit 1; }; \
	for request in $$M.$$m $$M.$$m.$$p $$M.$$((m - 1))...$$M.$$((m + 1)) "$$M.0...<$$M.$$((m + 1))" $$shown; do \
		cmake -S Tests/cmake -B $(CMAKE_TEST)/version -DCMAKE_PREFIX_PATH=$(CMAKE_PREFIX) "-DREQUEST=$$request" > /dev/null; \
		rm -rf $(CMAKE_TEST)/version; done
	set -e; M=$(word 1,$(VERSION_PARTS)) m=$(word 2,$(VERSION_PARTS)) p=$(word 3,$(VERSION_PARTS)); \
	for request in $$M.$$((m - 1)) $$M.$$((m + 1)) $$((M + 1)).0 $$M.$$m.$$((p + 1)) $$M.$$((m + 1))...$$M.$$((m + 2)); do \
		if cmake -S Tests/cmake -B $(CMAKE_TEST)/version -DCMAKE_PREFIX_PATH=$(CMAKE_PREFIX) "-DREQUEST=$$request" \
			> /dev/null 2>&1; then echo "find_package(SignalKit $$request) was met by $(VERSION)"; exit 1; fi; \
		rm -rf $(CMAKE_TEST)/version; done
	sh Tests/cmake/components.sh $(CMAKE_PREFIX) $(CMAKE_TEST)/components
	test "$$(echo $$(PKG_CONFIG_PATH=$(CMAKE_PREFIX)/lib/pkgconfig pkg-config --define-prefix --cflags --libs signalkit))" = \
		"-I$(CMAKE_PREFIX)/include -L$(CMAKE_PREFIX)/lib -lsignalkit"
	test "$$(echo $$(PKG_CONFIG_PATH=$(CMAKE_PREFIX)/lib/pkgconfig pkg-config --define-prefix --libs signalkit-ffi))" = \
		"-L$(CMAKE_PREFIX)/lib -lsignalkit-ffi -lsignalkit"
	test -f "$$(PKG_CONFIG_PATH=$(CMAKE_PREFIX)/lib/pkgconfig pkg-config --define-prefix --variable=valgrind_suppressions signalkit)"
	@# A .pc file's URL (there is none until the project has an address) is the one README.md gives.
	set -e; for url in $$(sed -n 's/^URL: *//p' $(CMAKE_PREFIX)/lib/pkgconfig/*.pc); do \
		grep -qF "$$url" README.md || { echo "the .pc files' URL $$url is not the one README.md gives"; exit 1; }; done
	cmp $(OUT)/api.json $(CMAKE_PREFIX)/share/signalkit/api.json
	$(end)

# VERSION is the one place the version is written: the header's SK_VERSION_*,
# the ABI record, CHANGELOG.md and README.md are held to it, and so are the
# staged .pc files and CMake package, which the install makes from it.
test-version: stage ## every place that states the version agrees with VERSION (tools/check/check-version.py)
	$(begin)
	$(PYTHON) tools/check/check-version.py $(STAGE)/usr
	$(end)

# Every test the misuse table (docs/misuse.md) names exists; every row names one;
# every error code of sk_status (api.json) has a row.
test-doc-tests: c-tests ffi-tests $(OUT)/api.json ## every test docs/misuse.md's misuse table names exists, every row and error code has one
	$(begin)
	$(RUN_STAGED) sh tools/check/check-doc-tests.sh --api $(OUT)/api.json $(OUT)/c-tests $(OUT)/ffi-tests
	$(end)
