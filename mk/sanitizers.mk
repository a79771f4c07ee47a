# Sanitizers and valgrind.
#
# Two sanitized debug builds of the core, each built once per run and shared
# by every suite that needs it:
#   asan-core  .build-asan: AddressSanitizer, and libFuzzer's coverage
#              instrumentation (both in the Swift code too: ASAN_CORE_FLAGS
#              below), so that the fuzz harnesses (mk/fuzz.mk) link
#              against this same build (a program without libFuzzer ignores
#              it: the ASan runtime's coverage hooks do nothing);
#   tsan-core  .build-tsan: ThreadSanitizer, with the Swift tests.
# The ffi library is compiled against each ($(OUT)/asan/lib, $(OUT)/tsan/lib)
# with the clang beside swift, whose sanitizer runtimes match Swift's.
#
# Seven runs, one template (sanitizer_test below): the C suite, the ffi suite
# and the soak (mk/soak.mk) under ASan+UBSan and under TSan, and the Swift
# tests under TSan.

.PHONY: asan-core tsan-core test-valgrind test-valgrind-c test-valgrind-ffi

ASAN_CORE := .build-asan/debug
TSAN_CORE := .build-tsan/debug

# `--sanitize=address --sanitize=fuzzer` reach swiftc as two flags,
# -sanitize=address and -sanitize=fuzzer, in an order SwiftPM does not fix
# (a set's: it changes from one fresh build to another), and swiftc keeps
# only the last -sanitize= it is given. With address last the Swift code had
# ASan and no coverage: 144 counters in the library, the C files' alone, and
# libFuzzer, blind to the Swift code, left fuzz_api at 215 edges after
# 650,000 runs; with fuzzer last it had coverage and no ASan (18,730
# counters). -Xswiftc -sanitize=address,fuzzer, one flag, which SwiftPM
# passes after its own, is the last one and asks for both, every time
# (67,136 counters); the two options stay for the C files (clang adds its
# -fsanitize= flags up) and the link. fuzz-build (mk/fuzz.mk) checks the
# counters.
ASAN_CORE_FLAGS := --sanitize=address --sanitize=fuzzer -Xswiftc -sanitize=address,fuzzer

asan-core: ## the core built with ASan and fuzzing coverage (.build-asan)
	$(begin)
	$(SWIFT) build $(ASAN_CORE_FLAGS) --scratch-path .build-asan --product signalkit
	$(end)

tsan-core: ## the core and the Swift tests built with TSan (.build-tsan), warnings as errors
	$(begin)
	$(SWIFT) build --build-tests --sanitize=thread -Xswiftc -warnings-as-errors --scratch-path .build-tsan
	$(end)

SAN_CFLAGS := -std=c99 -Wall -Wextra -Werror -pedantic -D_DEFAULT_SOURCE -g -fno-omit-frame-pointer -fuse-ld=lld -Iinclude

# Per sanitizer: the core, compiler flags, extra libraries, the environment
# of a run whose reports go to files under $(REPORTS), the tool's name.
asan_CORE := $(ASAN_CORE)
asan_CFLAGS := -fsanitize=address,undefined -fno-sanitize-recover=undefined
asan_LIBS :=
asan_ENV = ASAN_OPTIONS="detect_leaks=1 log_path=$(REPORTS)/report" \
	UBSAN_OPTIONS="print_stacktrace=1 log_path=$(REPORTS)/report"
asan_NAME := AddressSanitizer / UBSan
tsan_CORE := $(TSAN_CORE)
tsan_CFLAGS := -fsanitize=thread
tsan_LIBS := -L$(SWIFT_LIBDIR) -ldispatch -lBlocksRuntime
tsan_ENV = TSAN_OPTIONS="halt_on_error=1 $($(SUITE)_TSAN_OPTIONS) log_path=$(REPORTS)/report"
tsan_NAME := ThreadSanitizer

# Per suite: its program's sources, flags and libraries (beside the core's),
# the sanitized libraries it needs, its arguments. The swift suite has no
# sources: its program is `swift test` over the tests built by tsan-core.
# The C, ffi and C++ suites' runner (Tests/harness) forks each test from
# itself, --jobs at a time.
c_SOURCES = $(C_TESTS) Tests/C/support.c $(HARNESS)
c_CFLAGS = $(SAN_CFLAGS)
c_LIBS = -lpthread
c_ARGS := --jobs 2
ffi_SOURCES = $(FFI_TESTS) Tests/C/support.c $(HARNESS)
ffi_CFLAGS = $(SAN_CFLAGS) -ITests/C
ffi_LIBS = -L$(OUT)/$(SAN)/lib -lsignalkit-ffi -Wl,-rpath,$(OUT)/$(SAN)/lib -lpthread
ffi_NEEDS = $(OUT)/$(1)/lib/libsignalkit-ffi.so
ffi_ARGS := --jobs 2
swift_PROGRAM = $(SWIFT) test --skip-build --sanitize=thread --scratch-path .build-tsan
# TSan sleeps a second before a process exits (atexit_sleep_ms, to let
# threads still running race with the exit): the Swift suite's tests whose
# subject may stop the process run in a child process each
# (ChildProcess.swift), and those 11 seconds were a sixth of the run. Their
# subject is how the child ends, not a race at its exit. Every test of the
# C, ffi and C++ suites is a process that exits (cpp_*: mk/cpp.mk), 584
# of them in the C suite's run: a thread a test leaves running is seen
# racing while the test runs, not in an extra second after it.
swift_TSAN_OPTIONS := atexit_sleep_ms=0
c_TSAN_OPTIONS := atexit_sleep_ms=0
ffi_TSAN_OPTIONS := atexit_sleep_ms=0
# soak_SOURCES, soak_CFLAGS, soak_ARGS, and terminal_*: mk/soak.mk.

# Every report goes to a file under $(REPORTS), and any file fails the run,
# printed (checked once with a test that leaked a malloc and once with a
# race in a thread the test left running). The harness also fails a test
# whose process a sanitizer ended (ASan's status 1 for a leak found at the
# exit, ThreadSanitizer's 66), but a report in a process a test forked is the
# test's to notice, and the soaks are programs of their own. The program's
# own status is kept.
san_check = status=$$?; if ls $(REPORTS)/report.* >/dev/null 2>&1; then \
	cat $(REPORTS)/report.*; echo "$($(SAN)_NAME) reported (above)"; exit 1; fi; exit $$status

sanitizer_compile = $(CLANG) $($(SUITE)_CFLAGS) $($(SAN)_CFLAGS) $($(SUITE)_SOURCES) \
	-L$($(SAN)_CORE) -lsignalkit $($(SAN)_LIBS) $($(SUITE)_LIBS) \
	-Wl,-rpath,$(CURDIR)/$($(SAN)_CORE) -Wl,-rpath,$(SWIFT_LIBDIR) -o $(OUT)/$(SAN)/$(SUITE)-tests

sanitizer_program = $($(SAN)_ENV) $(or $($(SUITE)_PROGRAM),$(OUT)/$(SAN)/$(SUITE)-tests) $($(SUITE)_ARGS)

define sanitizer_run
	$(begin)
	rm -rf $(REPORTS) && mkdir -p $(REPORTS)
	$(if $($(SUITE)_SOURCES),$(sanitizer_compile))
	$(sanitizer_program); $(san_check)
	$(end)
endef

# $(call sanitizer_test,SUITE,SANITIZER): the target test-SUITE-SANITIZER.
define sanitizer_test
test-$(1)-$(2): SUITE := $(1)
test-$(1)-$(2): SAN := $(2)
test-$(1)-$(2): REPORTS := $(OUT)/$(2)/$(1)-reports
test-$(1)-$(2): $(2)-core $(call $(1)_NEEDS,$(2))
	$$(sanitizer_run)
endef

.PHONY: test-c-asan test-c-tsan test-ffi-asan test-ffi-tsan test-soak-asan test-soak-tsan test-swift-tsan test-terminal-asan test-terminal-tsan
test-c-asan: ## the C suite against the ASan+UBSan core (leaks included)
test-c-tsan: ## the C suite against the TSan core (any report fails)
test-ffi-asan: ## the ffi suite, ffi library and core under ASan+UBSan
test-ffi-tsan: ## the ffi suite, ffi library and core under TSan
test-soak-asan: ## the soak (mk/soak.mk) under ASan+UBSan
test-soak-tsan: ## the soak (mk/soak.mk) under TSan
test-swift-tsan: ## the Swift tests under TSan
test-terminal-asan: ## nothing after the terminal event (mk/soak.mk) under ASan+UBSan
test-terminal-tsan: ## nothing after the terminal event (mk/soak.mk) under TSan
$(foreach suite,c ffi soak terminal,$(foreach san,asan tsan,$(eval $(call sanitizer_test,$(suite),$(san)))))
$(eval $(call sanitizer_test,swift,tsan))

# The ffi library compiled with each sanitizer against that core.
$(OUT)/asan/lib/libsignalkit-ffi.so $(OUT)/tsan/lib/libsignalkit-ffi.so: $(OUT)/%/lib/libsignalkit-ffi.so: %-core
	mkdir -p $(@D)
	$(CLANG) $(SAN_CFLAGS) $(FFI_CFLAGS) $($*_CFLAGS) -shared $(FFI_SOURCES) $$(pkg-config --cflags --libs libffi) -lpthread \
		-L$($*_CORE) -lsignalkit -Wl,-soname,libsignalkit-ffi.so.$(FFI_SOVERSION) -o $(@D)/libsignalkit-ffi.so.$(FFI_SOVERSION)
	ln -sf libsignalkit-ffi.so.$(FFI_SOVERSION) $@

# ------------------------------------------------------------------------ #
# valgrind (memcheck) finds what the sanitizers cannot: reads of
# uninitialised memory, in the release libraries as shipped (optimised,
# Swift runtime linked in, debug info stripped; the release artifacts keep
# it as DWARF 4, which valgrind 3.19 reads, and make test-dist runs the C
# guide's valgrind line on them); the sanitizers run debug builds, and no
# MemorySanitizer build of the Swift runtime exists. Starting a program
# under valgrind costs 2-3 s; the tests of the C and ffi suites are
# processes their runner forks (Tests/harness), which the valgrind running
# it follows at about 0.1 s each (--trace-children=yes: for what a test
# execs), but their own work is many times slower than under the
# sanitizers, so only a few tests run here (the rest run under the
# sanitizers):
#   test-valgrind-c    every C example and the demo; the soak with
#                      VALGRIND_SOAK_ITERATIONS per thread; the fuzz corpora
#                      and regressions of fuzz_api replayed in one process
#                      (Tests/fuzz/replay.c: every value kind, operator,
#                      disposal and release order the fuzzer kept); the
#                      tests VALGRIND_C_TESTS (status strings and error
#                      messages, every value accessor on every kind, the
#                      deepest arrays, the pipelines abandoned on a
#                      closed host queue; the other closing tests run
#                      under ASan's leak check, test-c-asan, at a tenth
#                      of the cost). fuzz_model's corpora are not
#                      replayed here: its oracle is the Swift model tester,
#                      built only in debug (it reaches internals through
#                      @testable import) and into a library of its own with
#                      its own copy of the core, not the release library
#                      this target checks;
#   test-valgrind-ffi  the ffi quick start; the fuzz_ffi corpora and
#                      regressions replayed (signatures, every conversion);
#                      the tests VALGRIND_FFI_TESTS (trampolines and typed
#                      operators, which the fuzzers do not reach).
# Definite and possible leaks fail too, with the suppressions a user of the
# library gets (`pkg-config --variable=valgrind_suppressions signalkit`, the
# installed Sources/valgrind/signalkit.supp: the Swift runtime's caches and
# the thread-local storage of threads, the library's workers and the
# programs' own, reached through interior pointers), and no others: these
# runs show that what users get is enough. Every process logs to
# its own file and an error marker in any of them fails the target (checked
# once with a program that read an uninitialised byte and one that leaked).
# ------------------------------------------------------------------------ #

VALGRIND_OUT := $(OUT)/valgrind
VALGRIND_SOAK_ITERATIONS ?= 1000
VALGRIND_C_TESTS := errors/* values/every_accessor_on_every_wrong_kind values/arrays_nest_at_most_the_documented_depth \
	queues/host_queue_abandoned_with_a_*_pending_frees_everything
VALGRIND_FFI_TESTS := ffi_trampoline/* ffi_operators/*
# The harness's --filter for a list of suite/test globs.
test_filter = '@($(subst $(space),|,$(strip $(1))))'
valgrind = $(RUN_STAGED) valgrind --quiet --error-exitcode=99 --leak-check=full --errors-for-leak-kinds=definite,possible \
	--suppressions=$$($(STAGE_PKG) --variable=valgrind_suppressions signalkit) \
	--error-markers=SK-VALGRIND-ERROR,SK-VALGRIND-END --log-file=$(REPORTS)/%p.log
valgrind_check = if grep -l -q SK-VALGRIND-ERROR $(REPORTS)/*.log; then \
	cat $$(grep -l SK-VALGRIND-ERROR $(REPORTS)/*.log); echo "valgrind found errors (above)"; exit 1; fi
# After a command run under $(valgrind): `|| $(valgrind_failed)`.
valgrind_failed = { $(valgrind_check); echo "failed under valgrind"; exit 1; }

test-valgrind: test-valgrind-c test-valgrind-ffi ## valgrind on the release libraries (both targets below)

test-valgrind-c: REPORTS := $(VALGRIND_OUT)/c
test-valgrind-c: c-tests ## valgrind: C examples, demo, soak, fuzz_api replay, a few C tests
	$(begin)
	rm -rf $(REPORTS) && mkdir -p $(REPORTS)
	set -e; for e in $(C_EXAMPLES) search; do \
		$(CC) $(CWARN) -D_DEFAULT_SOURCE examples/c/$$e.c $$($(STAGE_PKG) --cflags --libs signalkit) -lpthread \
			-o $(REPORTS)/$$e; \
		$(valgrind) $(REPORTS)/$$e > $(REPORTS)/$$e.out || $(valgrind_failed); \
	done
	set -e; for e in $(C_EXAMPLES); do diff -u examples/c/$$e.expected $(REPORTS)/$$e.out; done
	$(CC) -std=gnu99 -Wall -Wextra -Werror -D_DEFAULT_SOURCE -O1 -ITests/common Tests/soak/soak.c \
		$$($(STAGE_PKG) --cflags --libs signalkit) -lpthread -o $(REPORTS)/soak
	$(valgrind) $(REPORTS)/soak $(VALGRIND_SOAK_ITERATIONS) || $(valgrind_failed)
	$(CC) $(CWARN) -D_DEFAULT_SOURCE -ITests/common Tests/fuzz/fuzz_api.c Tests/fuzz/replay.c \
		$$($(STAGE_PKG) --cflags --libs signalkit) -o $(REPORTS)/replay_api
	$(valgrind) $(REPORTS)/replay_api Tests/fuzz/regressions/api Tests/fuzz/corpus/api || $(valgrind_failed)
	$(valgrind) --trace-children=yes $(OUT)/c-tests --jobs 2 --filter $(call test_filter,$(VALGRIND_C_TESTS)) || $(valgrind_failed)
	@$(valgrind_check)
	$(end)

test-valgrind-ffi: REPORTS := $(VALGRIND_OUT)/ffi
test-valgrind-ffi: ffi-tests ## valgrind: the ffi quick start, fuzz_ffi replay, some ffi suites
	$(begin)
	rm -rf $(REPORTS) && mkdir -p $(REPORTS)
	$(valgrind) $(OUT)/ffi_quickstart > $(REPORTS)/ffi_quickstart.out || $(valgrind_failed)
	test "$$(cat $(REPORTS)/ffi_quickstart.out)" = "2 4 6"
	$(CC) $(CWARN) -D_DEFAULT_SOURCE Tests/fuzz/fuzz_ffi.c Tests/fuzz/replay.c \
		$$($(STAGE_PKG) --cflags --libs signalkit-ffi) -lm -o $(REPORTS)/replay_ffi
	$(valgrind) $(REPORTS)/replay_ffi Tests/fuzz/regressions/ffi Tests/fuzz/corpus/ffi || $(valgrind_failed)
	$(valgrind) --trace-children=yes $(OUT)/ffi-tests --jobs 2 --filter $(call test_filter,$(VALGRIND_FFI_TESTS)) || $(valgrind_failed)
	@$(valgrind_check)
	$(end)
