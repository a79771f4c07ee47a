# Fuzzing (libFuzzer, the clang beside swift): Tests/fuzz/fuzz_api.c over the
# C API, Tests/fuzz/fuzz_model.c over the C API with the reference model as
# oracle (Tests/README.md), Tests/fuzz/fuzz_ffi.c over the ffi signature
# parser and value conversions. They link against the ASan core of mk/sanitizers.mk, built
# with SanitizerCoverage too, so libFuzzer is guided by the Swift code
# (fuzz-build checks that it is: FUZZ_MIN_COUNTERS below); the
# ffi sources are compiled into their harness. fuzz_model's work is Swift,
# the model tester's (Tests/SignalKitModel): its harness links
# libsignalkit-model-fuzz.so (Tests/fuzz/SignalKitModelFuzz), built into the
# same .build-asan with the same flags, which holds its own copy of the core
# (instrumented alike) and runs the cases through that. fuzz_api and
# fuzz_ffi, without libFuzzer, also replay their corpora under valgrind
# (test-valgrind-c, -ffi).

FUZZ_OUT := $(OUT)/fuzz
FUZZ_SECONDS ?= 600
FUZZ_CI_SECONDS ?= 5
FUZZ_HARNESSES := api model ffi
FUZZ_CFLAGS := -std=c99 -Wall -Wextra -Werror -pedantic -D_DEFAULT_SOURCE -g -fuse-ld=lld -Iinclude -ITests/common \
	-fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined
FUZZ_RPATH := -Wl,-rpath,$(CURDIR)/$(ASAN_CORE) -Wl,-rpath,$(SWIFT_LIBDIR)
FUZZ_LINK := -L$(ASAN_CORE) -lsignalkit $(FUZZ_RPATH)
# The core's coverage counters: SanitizerCoverage's inline 8-bit counters,
# one byte per edge, the section __sancov_cntrs of the ASan core's
# libsignalkit.so. With the Swift code instrumented (ASan and coverage) it
# had 67,136 bytes (0x10640; Swift 6.3.1, 2026-11-25); without coverage in
# the Swift code 144 (the C files' alone), without ASan there 18,730
# (asan-core, mk/sanitizers.mk, says how that happened). Below the floor,
# half the good count, fuzz-build fails: the fuzzers would be guided by the
# harnesses' own branches only. The same floor holds for fuzz_model's
# library, libsignalkit-model-fuzz.so, the core and the model tester (it had
# 96,334, 2026-11-26).
FUZZ_MIN_COUNTERS := 33000
FUZZ_LIBRARIES := $(ASAN_CORE)/libsignalkit.so $(ASAN_CORE)/libsignalkit-model-fuzz.so
# The size in bytes of that section of the library $$lib (0 without one).
fuzz_counters = $$(( 0x$$(readelf -SW $$lib | \
	awk '{ for (i = 1; i < NF; i++) if ($$i == "__sancov_cntrs") print $$(i + 4) }' | grep . || echo 0) ))
# No Swift backtracer on a crash (libFuzzer prints the stack), no leak check
# at exit of the fuzzing process (the harnesses check leaks themselves).
FUZZ_ENV := SWIFT_BACKTRACE=enable=no ASAN_OPTIONS=detect_leaks=0
# Fails when the library $$lib has fewer coverage counters than the floor.
check_fuzz_counters = counters=$(fuzz_counters); \
	echo "$$lib: $$counters coverage counters (floor $(FUZZ_MIN_COUNTERS))"; \
	if [ "$$counters" -lt $(FUZZ_MIN_COUNTERS) ]; then echo "fuzz-build: $$lib has $$counters coverage counters" \
		"(__sancov_cntrs), fewer than $(FUZZ_MIN_COUNTERS): its Swift code lacks SanitizerCoverage or ASan, and the" \
		"fuzzers would not see the library. See the -sanitize= flags swiftc got (.build-asan/debug.yaml) and asan-core" \
		"in mk/sanitizers.mk"; exit 1; fi

.PHONY: fuzz-build fuzz-build-model test-fuzz $(FUZZ_HARNESSES:%=test-fuzz-%) fuzz

fuzz-build: asan-core ## fuzz_api and fuzz_ffi, against the ASan core (its coverage counters checked); fuzz_model: fuzz-build-model
	$(begin)
	@lib=$(ASAN_CORE)/libsignalkit.so; $(check_fuzz_counters)
	mkdir -p $(FUZZ_OUT)
	$(CLANG) $(FUZZ_CFLAGS) Tests/fuzz/fuzz_api.c $(FUZZ_LINK) -o $(FUZZ_OUT)/fuzz_api
	$(CLANG) $(FUZZ_CFLAGS) -ISources/SignalKitFFI Tests/fuzz/fuzz_ffi.c $(FFI_SOURCES) \
		$$(pkg-config --cflags --libs libffi) $(FUZZ_LINK) -lpthread -lm -o $(FUZZ_OUT)/fuzz_ffi
	$(end)

# fuzz_model and its oracle, the model tester built into the ASan build
# (libsignalkit-model-fuzz.so: about 28 s of processor time on top of the
# core's): make release-check's, not make test's (make test runs the same
# model against the C API in the Swift suite, Model/, without the fuzzing).
fuzz-build-model: asan-core ## fuzz_model and its oracle library, against the ASan core (coverage counters checked)
	$(begin)
	$(SWIFT) build $(ASAN_CORE_FLAGS) --scratch-path .build-asan --product signalkit-model-fuzz
	@for lib in $(FUZZ_LIBRARIES); do $(check_fuzz_counters); done
	mkdir -p $(FUZZ_OUT)
	$(CLANG) $(FUZZ_CFLAGS) Tests/fuzz/fuzz_model.c -L$(ASAN_CORE) -lsignalkit-model-fuzz $(FUZZ_RPATH) -o $(FUZZ_OUT)/fuzz_model
	$(end)

test-fuzz: $(FUZZ_HARNESSES:%=test-fuzz-%) ## every harness: replay, then FUZZ_CI_SECONDS of fuzzing each

test-fuzz-api: ## fuzz_api: replay its corpora, then fuzz the C API
test-fuzz-model: ## fuzz_model: replay its corpora, then fuzz the C API against the model
test-fuzz-ffi: ## fuzz_ffi: replay its corpora, then fuzz the ffi parser and conversions

# Replays the regressions and the seed corpus, then fuzzes for a bounded time
# from a copy of the corpus (the tree stays clean); with 2 jobs two harnesses
# run at once. A crash leaves its input in $(FUZZ_OUT): add it to
# Tests/fuzz/regressions/ (fuzz_model's prints a Swift regression test to
# add instead: its bytes would make another case once the model's
# generator changes; it has no regressions folder).
test-fuzz-api test-fuzz-ffi: fuzz-build
test-fuzz-model: fuzz-build-model
$(FUZZ_HARNESSES:%=test-fuzz-%): test-fuzz-%:
	$(begin)
	$(FUZZ_ENV) $(FUZZ_OUT)/fuzz_$* -runs=0 $(wildcard Tests/fuzz/regressions/$*) Tests/fuzz/corpus/$*
	rm -rf $(FUZZ_OUT)/corpus-$* && mkdir -p $(FUZZ_OUT)/corpus-$* && cp Tests/fuzz/corpus/$*/* $(FUZZ_OUT)/corpus-$*/
	(cd $(FUZZ_OUT) && $(FUZZ_ENV) ./fuzz_$* -max_total_time=$(FUZZ_CI_SECONDS) -timeout=10 \
		-print_final_stats=1 corpus-$* > fuzz-$*.log 2>&1) || { tail -60 $(FUZZ_OUT)/fuzz-$*.log; exit 1; }
	tail -4 $(FUZZ_OUT)/fuzz-$*.log
	$(end)

# A longer run for developers: FUZZ_SECONDS per harness (default 10 min),
# keeping what it learns in $(FUZZ_OUT)/corpus-*. fuzz_model's process
# grows to about 1.6 GB in 10 min (112,000 runs, 2026-11-26): ASan's heap,
# mapped 447 MB after 5,000 runs and 704 MB after 50,000 while the live
# bytes went from 37 to 50 MB; libFuzzer stops a process at 2 GB
# (-rss_limit_mb), which much longer runs may reach.
fuzz: fuzz-build fuzz-build-model ## fuzz each harness for FUZZ_SECONDS (600), keeping the corpus
	set -e; for h in $(FUZZ_HARNESSES); do mkdir -p $(FUZZ_OUT)/corpus-$$h; \
		(cd $(FUZZ_OUT) && $(FUZZ_ENV) ./fuzz_$$h -max_total_time=$(FUZZ_SECONDS) corpus-$$h ../../Tests/fuzz/corpus/$$h); done
