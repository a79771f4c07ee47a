# The C++ interface, include/signalkit.hpp and include/signalkit_test.hpp
# (header-only, over the C ABI; no C++ in the library): their suite
# (Tests/cpp, on the test harness of Tests/harness), their examples
# (examples/cpp) and the benchmark (Benchmarks/c).
#
#   test-cpp       the suite and the examples with g++, and the examples with
#                  the clang beside swift, -std=c++17 -Wall -Wextra -pedantic
#                  -Wshadow -Werror, through pkg-config against the staged
#                  install (as test-c); the suite as one translation unit
#                  (suite.cpp includes each test file: the headers parsed
#                  and their templates instantiated once, 12 s of g++ against
#                  35 s file by file), which the two sanitizer runs compile
#                  file by file with that clang and the same flags; then
#                  Tests/cpp/gnu with both compilers in the GNU dialect,
#                  and Tests/cpp/cxx20 with both as C++20 (std::span, char8_t);
#                  then the compile-fail checks (Tests/cpp/compile_fail, g++).
#                  The harness's runner (harness.c) is C: compiled apart,
#                  with the C compiler (g++ and clang++ would take a .c
#                  file for C++), into harness.o, which each program links
#   test-cpp-asan  the suite against the ASan+UBSan core (mk/sanitizers.mk)
#   test-cpp-tsan  the suite against the TSan core (these two are make
#                  release-check's: make test keeps within 5 minutes,
#                  mk/tests.mk)
#   bench-cpp      Benchmarks/c/bench_cpp.cpp, W1-W3 beside bench_capi

CPP_TESTS := $(wildcard Tests/cpp/test_*.cpp)
# The README's and the C++ guide's examples, each run with its output compared with
# examples/cpp/NAME.expected (and its exit status: 0 when its checks held).
CPP_EXAMPLES := quickstart marbles merge_map_bounded
CPP_STD := -std=c++17 -Wall -Wextra -pedantic -Wshadow -Werror
# What only the GNU dialect (-std=gnu++17, CMake's default) has: __int128 as
# an integer type. Its own program, built with each compiler of
# CPP_COMPILERS, with CPP_STD's warnings.
CPP_GNU_TESTS := $(wildcard Tests/cpp/gnu/test_*.cpp)
CPP_GNU_STD := $(patsubst -std=c++17,-std=gnu++17,$(CPP_STD))
# What only C++20 has (std::span, char8_t): its own program, built with each
# compiler of CPP_COMPILERS, with CPP_STD's warnings.
CPP_CXX20_TESTS := $(wildcard Tests/cpp/cxx20/test_*.cpp)
CPP_CXX20_STD := $(patsubst -std=c++17,-std=c++20,$(CPP_STD))
# Misuses the header must reject at compile time: each file of
# Tests/cpp/compile_fail must fail to compile (g++ -fsyntax-only, CPP_STD,
# then the flags of its `// flags:` line, if any) with an error containing
# the text of its `// expect:` line.
CPP_COMPILE_FAIL := $(wildcard Tests/cpp/compile_fail/*.cpp)
# The C compiler beside swift, kept before test-cpp-*san set CLANG to clang++.
CPP_CLANG_C := $(CLANG)
CPP_COMPILERS := g++ $(CLANG)++
CPP_OUT := $(OUT)/cpp

.PHONY: test-cpp test-cpp-asan test-cpp-tsan bench-cpp

test-cpp: stage ## the C++ headers' suite (g++) and examples (g++ and clang++), against the staged install
	$(begin)
	mkdir -p $(CPP_OUT)
	printf '#include "%s"\n' $(abspath $(CPP_TESTS)) > $(CPP_OUT)/suite.cpp
	$(CC) $(CWARN) -D_DEFAULT_SOURCE -c $(HARNESS) -o $(CPP_OUT)/harness.o
	g++ $(CPP_STD) $(CPP_OUT)/suite.cpp $(CPP_OUT)/harness.o $$($(STAGE_PKG) --cflags --libs signalkit) -lpthread \
		-o $(CPP_OUT)/tests-g++
	$(RUN_STAGED) $(CPP_OUT)/tests-g++ --jobs 2
	set -e; for cxx in $(CPP_COMPILERS); do \
		name=$$(basename $$cxx); \
		for e in $(CPP_EXAMPLES); do \
			$$cxx $(CPP_STD) examples/cpp/$$e.cpp $$($(STAGE_PKG) --cflags --libs signalkit) \
				-o $(CPP_OUT)/$$e-$$name; \
			$(RUN_STAGED) $(CPP_OUT)/$$e-$$name > $(CPP_OUT)/$$e-$$name.out; \
			diff -u examples/cpp/$$e.expected $(CPP_OUT)/$$e-$$name.out; \
		done; \
		$$cxx $(CPP_GNU_STD) $(CPP_GNU_TESTS) $(CPP_OUT)/harness.o $$($(STAGE_PKG) --cflags --libs signalkit) \
			-lpthread -o $(CPP_OUT)/tests-gnu-$$name; \
		$(RUN_STAGED) $(CPP_OUT)/tests-gnu-$$name --jobs 2; \
		$$cxx $(CPP_CXX20_STD) $(CPP_CXX20_TESTS) $(CPP_OUT)/harness.o $$($(STAGE_PKG) --cflags --libs signalkit) \
			-lpthread -o $(CPP_OUT)/tests-cxx20-$$name; \
		$(RUN_STAGED) $(CPP_OUT)/tests-cxx20-$$name --jobs 2; \
	done
	set -e; for f in $(CPP_COMPILE_FAIL); do \
		expect=$$(sed -n 's|^// expect: ||p' $$f); flags=$$(sed -n 's|^// flags: ||p' $$f); \
		test -n "$$expect" || { echo "$$f: no // expect: line"; exit 1; }; \
		err=$(CPP_OUT)/$$(basename $$f .cpp).err; \
		if g++ $(CPP_STD) $$flags -fsyntax-only $$f $$($(STAGE_PKG) --cflags signalkit) 2> $$err; then \
			echo "$$f: compiled, but must fail with: $$expect"; exit 1; fi; \
		grep -qF -- "$$expect" $$err || { cat $$err; echo "$$f: the error is not: $$expect"; exit 1; }; \
	done
	$(end)

# The sanitizer runs: the template of mk/sanitizers.mk, with the clang++
# beside swift (its sanitizer runtimes match Swift's) and the header from
# include/; the harness's runner compiled apart with that clang, as C, with
# the sanitizer's flags.
cpp_SOURCES = $(CPP_TESTS) $(OUT)/$(SAN)/harness.o
cpp_CFLAGS = $(CPP_STD) -g -fno-omit-frame-pointer -fuse-ld=lld -Iinclude
cpp_LIBS = -lpthread
cpp_NEEDS = $(OUT)/$(1)/harness.o
cpp_ARGS := --jobs 2
cpp_TSAN_OPTIONS := atexit_sleep_ms=0
test-cpp-asan test-cpp-tsan: CLANG := $(CLANG)++
test-cpp-asan: ## the C++ suite against the ASan+UBSan core (leaks included)
test-cpp-tsan: ## the C++ suite against the TSan core (any report fails)
$(foreach san,asan tsan,$(eval $(call sanitizer_test,cpp,$(san))))

$(OUT)/asan/harness.o $(OUT)/tsan/harness.o: $(OUT)/%/harness.o: $(HARNESS) Tests/harness/harness.h
	mkdir -p $(@D)
	$(CPP_CLANG_C) $(filter-out -fuse-ld=lld,$(SAN_CFLAGS)) $($*_CFLAGS) -c $< -o $@

# W1-W3 of Benchmarks/README.md through the header, as bench_capi measures
# them through the C API (same sizes, same JSON lines, impl "cpp").
bench-cpp: stage ## the C++ header's benchmark program (Benchmarks/c/bench_cpp.cpp)
	mkdir -p $(BENCH_OUT)
	$(CC) -O2 -std=gnu99 -Wall -Wextra -Werror -c Benchmarks/Sources/MallocCounter/MallocCounter.c \
		-IBenchmarks/Sources/MallocCounter/include -o $(BENCH_OUT)/MallocCounter.o
	g++ -O2 $(CPP_STD) Benchmarks/c/bench_cpp.cpp $(BENCH_OUT)/MallocCounter.o -IBenchmarks/Sources/CostRows/include \
		-IBenchmarks/Sources/MallocCounter/include \
		$$($(STAGE_PKG) --cflags --libs signalkit) -lpthread -o $(BENCH_OUT)/bench_cpp
