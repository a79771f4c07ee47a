# Benchmarks (Benchmarks/README.md). Two Swift packages: Benchmarks/ holds the
# workloads and the allocation check (it depends on the main package only:
# `make bench-check`, part of `make test`, resolves nothing else), and
# Benchmarks/Suite/ the timed suite, with OpenCombine and package-benchmark.
# The C programs are built as a user builds them, through pkg-config against
# the staged install; MallocCounter.c (the same file the Swift runners use)
# counts allocations inside each program. The floors need libffi and the
# toolchain's libdispatch, hence the clang beside swift (dispatch.h needs its
# extensions; libffi casts between function and object pointers, so no
# -pedantic there).

BENCH_OUT := $(OUT)/bench
BENCH_REPS ?= 5
# BENCH_DIVIDE=N: every workload N times smaller (a quick look at the table,
# not a measurement: the floors keep their sizes).
BENCH_DIVIDE ?= 1
SWIFT_DISPATCH := $(SWIFT_BIN)../lib/swift
BENCH_COUNTER := Benchmarks/Sources/MallocCounter/MallocCounter.c -IBenchmarks/Sources/MallocCounter/include

.PHONY: bench bench-c bench-capi bench-ffi bench-check bench-costs bench-peers bench-peers-checkout bench-interleaved

# SwiftPM plans a path dependency's build again when its manifest changes,
# not when a source file is added or removed: a nested package built before
# then fails ("cannot find ... in scope"). So before each nested build: when
# the core's list of files (its Swift files and its C shims') differs from
# that of the last build, drop the nested package's build plan (its
# release.yaml and the target description SwiftPM keeps beside it: a shim
# file added was not seen until that went too; what was compiled stays).
define replan_when_core_files_change
	mkdir -p $(1)
	find Sources/SwiftSignalKit Sources/_SwiftSignalKitShims -name '*.swift' -o -name '*.c' -o -name '*.h' | LC_ALL=C sort > $(1)/core-files.new
	cmp -s $(1)/core-files.new $(1)/core-files || rm -f $(1)/release.yaml $(1)/release/description.json
	mv $(1)/core-files.new $(1)/core-files
endef

bench-capi: stage ## the C API benchmark program (Benchmarks/c/bench_capi.c)
	mkdir -p $(BENCH_OUT)
	$(CC) -O2 $(CWARN) -D_DEFAULT_SOURCE -ITests/common -IBenchmarks/Sources/CostRows/include Benchmarks/c/bench_capi.c $(BENCH_COUNTER) \
		$$($(STAGE_PKG) --cflags --libs signalkit) -lpthread -o $(BENCH_OUT)/bench_capi

# bench_ffi: the same program with typed (libffi) sinks.
bench-ffi: stage ## the same program with typed libffi sinks
	mkdir -p $(BENCH_OUT)
	$(CC) -O2 $(CWARN) -D_DEFAULT_SOURCE -DBENCH_FFI Benchmarks/c/bench_capi.c $(BENCH_COUNTER) \
		$$($(STAGE_PKG) --cflags --libs signalkit-ffi) -lpthread -o $(BENCH_OUT)/bench_ffi

bench-c: bench-capi bench-ffi ## the C benchmark programs and the floors
	$(CLANG) -O2 -std=gnu99 -Wall -Wextra -Werror -D_DEFAULT_SOURCE \
		-DBENCH_HAVE_FFI $$(pkg-config --cflags libffi) \
		-DBENCH_HAVE_DISPATCH -I$(SWIFT_DISPATCH) Benchmarks/c/floors.c $(BENCH_COUNTER) \
		$$(pkg-config --libs libffi) \
		-L$(SWIFT_LIBDIR) -ldispatch -lBlocksRuntime -Wl,-rpath,$(SWIFT_LIBDIR) -lpthread -o $(BENCH_OUT)/floors

# The optional C++ peers, RxCpp 4.1.1 and ReactivePlusPlus 2.1.1
# (header-only; Benchmarks/README.md, "The C++ peers"): their headers live
# in Benchmarks/peers/ (ignored by git, never needed by CI), put there from
# a git clone or mirror of each by bench-peers-checkout, which downloads
# nothing:
#   make bench-peers-checkout RXCPP_GIT=/path/to/RxCpp/.git RPP_GIT=/path/to/ReactivePlusPlus/.git
# bench-peers builds a peer's program when its headers are there, and says
# so in one line when they are not (and removes a program left from before,
# so that make bench does not run a stale one). The headers are looked for
# when make starts: check out and bench in two commands.
PEERS_DIR := Benchmarks/peers
RXCPP_TAG := v4.1.1
RPP_TAG := v2.1.1
PEER_CXX := g++ -O2 -Wall -Wextra -pedantic -IBenchmarks/Sources/MallocCounter/include -IBenchmarks/c

bench-peers-checkout: ## the C++ peers' headers into Benchmarks/peers/ (RXCPP_GIT=, RPP_GIT=: a clone's git directory)
	@test -n "$(RXCPP_GIT)$(RPP_GIT)" || { echo "usage: make bench-peers-checkout RXCPP_GIT=<RxCpp git dir> RPP_GIT=<ReactivePlusPlus git dir>"; exit 2; }
	rm -f $(BENCH_OUT)/bench_rxcpp $(BENCH_OUT)/bench_rpp
	set -e; if [ -n "$(RXCPP_GIT)" ]; then \
		rm -rf $(PEERS_DIR)/rxcpp; mkdir -p $(PEERS_DIR)/rxcpp; \
		git --git-dir=$(RXCPP_GIT) archive $(RXCPP_TAG) Rx/v2/src license.md | tar -x -C $(PEERS_DIR)/rxcpp; \
		echo "RxCpp $(RXCPP_TAG) in $(PEERS_DIR)/rxcpp"; fi
	set -e; if [ -n "$(RPP_GIT)" ]; then \
		rm -rf $(PEERS_DIR)/rpp; mkdir -p $(PEERS_DIR)/rpp; \
		git --git-dir=$(RPP_GIT) archive $(RPP_TAG) src/rpp LICENSE | tar -x -C $(PEERS_DIR)/rpp; \
		echo "ReactivePlusPlus $(RPP_TAG) in $(PEERS_DIR)/rpp"; fi

# A peer's program is rebuilt when its source, the driver or the headers'
# entry file changed (bench-peers-checkout removes the programs).
RXCPP_HEADERS := $(wildcard $(PEERS_DIR)/rxcpp/Rx/v2/src/rxcpp/rx.hpp)
RPP_HEADERS := $(wildcard $(PEERS_DIR)/rpp/src/rpp/rpp/rpp.hpp)
PEER_DEPS := Benchmarks/c/peer_driver.hpp Benchmarks/c/bench.h Benchmarks/Sources/MallocCounter/MallocCounter.c

$(BENCH_OUT)/bench_rxcpp: Benchmarks/c/bench_rxcpp.cpp $(PEER_DEPS) $(RXCPP_HEADERS)
	mkdir -p $(BENCH_OUT)
	$(CC) -O2 -std=gnu99 -Wall -Wextra -Werror -c Benchmarks/Sources/MallocCounter/MallocCounter.c \
		-IBenchmarks/Sources/MallocCounter/include -o $@.counter.o
	$(PEER_CXX) -std=c++17 -isystem $(PEERS_DIR)/rxcpp/Rx/v2/src $< $@.counter.o -lpthread -o $@

$(BENCH_OUT)/bench_rpp: Benchmarks/c/bench_rpp.cpp $(PEER_DEPS) $(RPP_HEADERS)
	mkdir -p $(BENCH_OUT)
	$(CC) -O2 -std=gnu99 -Wall -Wextra -Werror -c Benchmarks/Sources/MallocCounter/MallocCounter.c \
		-IBenchmarks/Sources/MallocCounter/include -o $@.counter.o
	$(PEER_CXX) -std=c++20 -isystem $(PEERS_DIR)/rpp/src/rpp $< $@.counter.o -lpthread -o $@

bench-peers: $(if $(RXCPP_HEADERS),$(BENCH_OUT)/bench_rxcpp) $(if $(RPP_HEADERS),$(BENCH_OUT)/bench_rpp) ## the C++ peers' benchmark programs, for those whose headers are in Benchmarks/peers/
	@if [ -z "$(RXCPP_HEADERS)" ]; then rm -f $(BENCH_OUT)/bench_rxcpp; \
		echo "RxCpp: no headers in $(PEERS_DIR)/rxcpp, skipped (Benchmarks/README.md, The C++ peers)"; fi
	@if [ -z "$(RPP_HEADERS)" ]; then rm -f $(BENCH_OUT)/bench_rpp; \
		echo "ReactivePlusPlus: no headers in $(PEERS_DIR)/rpp, skipped (Benchmarks/README.md, The C++ peers)"; fi

# Last, the NATS bridge against libnats (bench-nats, mk/nats.mk) where
# libnats and nats-server are installed; one line says it is skipped where
# they are not (the bridge is optional: make bench never needs it).
bench: bench-c bench-cpp bench-peers bench-rust ## the benchmark suite: every workload, every implementation, one table (and the Rust crate's W1, W2, W2b, W3 against the C API; the NATS bridge against libnats where it can be built)
	$(call replan_when_core_files_change,Benchmarks/Suite/.build)
	cd Benchmarks/Suite && $(SWIFT) build -c release --product SwiftBench
	$(PYTHON) Benchmarks/run.py bench --reps $(BENCH_REPS) --divide $(BENCH_DIVIDE) --out $(BENCH_OUT) --stage $(STAGE)/usr/lib \
		--swift Benchmarks/Suite/.build/release/SwiftBench --rust $(RUST_BENCH)
	@if pkg-config --exists libnats && { command -v nats-server > /dev/null || test -x /usr/sbin/nats-server; }; then \
		$(MAKE) --no-print-directory -o stage bench-nats; \
		else echo "bench: no libnats-dev or nats-server here: the NATS bridge's bench-nats skipped (make deps installs them)"; fi

# The workloads compared with the C++ peers (run.py INTERLEAVED_WORKLOADS, or
# BENCH_WORKLOADS=W2b,W4), each program once per round, in turn, BENCH_REPS
# rounds: ratios a shared machine's changing load weighs on alike.
bench-interleaved: bench-c bench-cpp bench-peers ## the Swift, C, C++ and C++ peers' W2, W2b, W3, W4, W6b, W7, W5, W5z, W5s, W3s, interleaved
	$(call replan_when_core_files_change,Benchmarks/Suite/.build)
	cd Benchmarks/Suite && $(SWIFT) build -c release --product SwiftBench
	$(PYTHON) Benchmarks/run.py interleave --reps $(BENCH_REPS) --divide $(BENCH_DIVIDE) --out $(BENCH_OUT) \
		--stage $(STAGE)/usr/lib --swift Benchmarks/Suite/.build/release/SwiftBench $(if $(BENCH_WORKLOADS),--workloads $(BENCH_WORKLOADS))

# The Swift rows' program as callgrind runs it: without its debug information
# (valgrind 3.19 gives up on the toolchain's DWARF 5).
OPERATOR_COST_COPY = mkdir -p $(BENCH_OUT) && objcopy --strip-debug Benchmarks/.build/release/OperatorCost $(BENCH_OUT)/OperatorCost

# Deterministic allocation counts against Benchmarks/thresholds.json; no clock.
# bench_ffi's NP (the native pipeline) also has its instructions per value
# counted under callgrind (valgrind is one of `make deps`), and so has the
# cost table: every operator's row in the C API (bench_capi), the C++ header
# (bench_cpp) and the Swift API (OperatorCost), one callgrind process each;
# and so do the Rust crate's W1, W2, W2b and W3 against the C API's (bench_rust:
# the ratios' limit is issue 45's 1.1).
bench-check: bench-capi bench-ffi bench-cpp bench-rust-build ## allocation counts and instruction counts of the workloads and of every operator's cost row against Benchmarks/thresholds.json
	$(begin)
	$(call replan_when_core_files_change,Benchmarks/.build)
	cd Benchmarks && $(SWIFT) build -c release --product AllocCheck
	cd Benchmarks && $(SWIFT) build -c release --product OperatorCost
	$(OPERATOR_COST_COPY)
	$(PYTHON) Benchmarks/run.py check --out $(BENCH_OUT) --stage $(STAGE)/usr/lib \
		--alloc-check Benchmarks/.build/release/AllocCheck --operator-cost $(BENCH_OUT)/OperatorCost \
		--rust $(RUST_BENCH)
	$(end)

# The cost table (issue 41): every operator's row in the C API, the C++
# header and the Swift API measured as bench-check measures them, written to
# Benchmarks/costs.json, docs/performance.md's table rewritten from it
# (Benchmarks/cost_table.py), and a limit added to thresholds.json for each
# row that has none (say why in the commit that adds it).
bench-costs: bench-capi bench-ffi bench-cpp ## the cost table of every operator: Benchmarks/costs.json, docs/performance.md's table, missing limits
	$(call replan_when_core_files_change,Benchmarks/.build)
	cd Benchmarks && $(SWIFT) build -c release --product OperatorCost
	$(OPERATOR_COST_COPY)
	$(PYTHON) Benchmarks/run.py costs --out $(BENCH_OUT) --stage $(STAGE)/usr/lib \
		--operator-cost $(BENCH_OUT)/OperatorCost
