# `make test`: every stage below and those of mk/sanitizers.mk, mk/ffi.mk,
# mk/fuzz.mk, mk/soak.mk and mk/bench.mk, TEST_JOBS at a time, then a table
# of each stage's wall time. Each stage also runs on its own (make test-c).
#
# make starts the stages in the order of TEST_STAGES, as soon as what they
# need is built. The order starts the two longest chains first (the release
# library, which most stages need, and the TSan build) and then keeps the
# single-threaded stages (valgrind, Python, fuzzing, Criterion runs) beside
# one Swift build at a time rather than two builds side by side.

TEST_JOBS ?= 2
TIMES := $(OUT)/times

# Every stage's recipe starts with $(begin) and ends with $(end): the table
# is made from these stamps (a stage that began and did not end failed).
begin = @mkdir -p $(TIMES) && date +%s.%N > $(TIMES)/$@.begin
end = @date +%s.%N > $(TIMES)/$@.end

TEST_STAGES := test-c test-swift-tsan test-ffi test-valgrind-c test-valgrind-ffi test-python test-doc-tests \
	test-c-asan test-ffi-asan test-soak-asan test-fuzz-api test-fuzz-model test-fuzz-ffi test-c-tsan test-ffi-tsan test-soak-tsan \
	test-swift test-examples bench-check test-header test-cpp test-cpp-asan test-cpp-tsan

.PHONY: test test-header test-swift test-c test-examples test-doc-tests

# -k: a failing stage does not stop the others; its output is printed whole
# (--output-sync) and the run fails after the table.
test: deps ## the whole test suite (what CI runs); each stage's time at the end
	@rm -rf $(TIMES) && mkdir -p $(TIMES) && date +%s.%N > $(TIMES)/start
	@$(MAKE) --no-print-directory -k -j$(TEST_JOBS) --output-sync=target $(TEST_STAGES); \
	status=$$?; sh .ci/stage-times.sh $(TIMES) $(TEST_STAGES); exit $$status


# The public headers alone, strictly, as C and as C++ (Tests/header);
# signalkit_ffi.h includes nothing but signalkit.h.
test-header: ## signalkit.h and signalkit_ffi.h alone, as C99 and as C++11
	$(begin)
	mkdir -p $(OUT)/header
	set -e; for h in header header_ffi; do \
		$(CC) -std=c99 -Wall -Wextra -pedantic -Werror -Iinclude -c Tests/header/$${h}_c.c -o $(OUT)/header/$${h}_c.o; \
		$(CXX) -std=c++11 -Wall -Wextra -pedantic -Werror -Iinclude -c Tests/header/$${h}_cpp.cpp -o $(OUT)/header/$${h}_cpp.o; \
	done
	! grep -n '#include' include/signalkit_ffi.h | grep -v '"signalkit.h"'
	$(end)

test-swift: ## the Swift tests (XCTest), warnings as errors
	$(begin)
	$(SWIFT) build --build-tests -Xswiftc -warnings-as-errors
	$(SWIFT) test --skip-build
	$(end)

C_TESTS := $(wildcard Tests/C/test_*.c)
CRITERION_FLAGS = $$(pkg-config --cflags --libs criterion) -lpthread

# The C suite, compiled as a user compiles: against the staged install; and
# the shipped library: only sk_* exported, its soname, no Swift runtime
# dependency.
test-c: stage ## the C suite (Criterion) against the staged install, plus exports, soname, dependencies
	$(begin)
	$(CC) $(CWARN) -D_DEFAULT_SOURCE $(C_TESTS) Tests/C/support.c $$($(STAGE_PKG) --cflags --libs signalkit) \
		$(CRITERION_FLAGS) -o $(OUT)/c-tests
	nm -D --extern-only --defined-only $(LIB) | awk '{print $$3}' > $(OUT)/exports.txt
	! grep -v -E '^(sk_[a-z]|SIGNALKIT_0$$)' $(OUT)/exports.txt
	readelf -d $(LIB) | grep -q 'SONAME.*libsignalkit.so.$(SOVERSION)'
	! ldd $(LIB) | grep -v -E 'linux-vdso|libc\.so|libm\.so|libstdc\+\+|libgcc_s|ld-linux'
	$(RUN_STAGED) $(OUT)/c-tests --jobs 2
	$(end)

# Every C example but the demo, built through pkg-config, run, and its output
# compared with examples/c/NAME.expected; the Swift example package, output
# compared with examples/swift/NAME.expected; every code block of README.md.
C_EXAMPLES := quickstart threads combine errors

test-examples: stage ## the C and Swift examples (output checked) and README.md's code blocks
	$(begin)
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
	$(PYTHON) .ci/check-readme.py README.md
	$(end)

# Every test the README's misuse table names exists.
test-doc-tests: test-c test-ffi ## every test README.md's misuse table names exists
	$(begin)
	$(RUN_STAGED) sh .ci/check-doc-tests.sh $(OUT)/c-tests $(OUT)/ffi-tests
	$(end)
