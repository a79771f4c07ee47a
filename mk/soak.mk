# Soak: Tests/soak/soak.c, four threads doing random operations through the
# C API for a fixed number of iterations, with exact accounting at the end
# (every observer and user pointer released once, nothing alive). It runs
# under ThreadSanitizer and under ASan+UBSan through the sanitizer template
# (mk/sanitizers.mk: test-soak-tsan, test-soak-asan), and under valgrind
# against the release library with fewer iterations (test-valgrind-c).
# SOAK_ITERATIONS per thread; the seed is printed. `make test` runs 5,000
# (10,000 before session 10: halved for CI's 8 minutes, the TSan run being
# its longest stage but two); a longer soak:
#   make test-soak-tsan test-soak-asan SOAK_ITERATIONS=100000

SOAK_ITERATIONS ?= 5000
soak_SOURCES := Tests/soak/soak.c
soak_CFLAGS := -std=gnu99 -Wall -Wextra -Werror -D_DEFAULT_SOURCE -g -O1 -fno-omit-frame-pointer -fuse-ld=lld \
	-Iinclude -ITests/common
soak_LIBS := -lpthread
soak_ARGS = $(SOAK_ITERATIONS)

# The abandonment soak: Tests/soak/abandon.c (what it builds, checks and
# prints: its header), against the staged release library, where the
# optimizer's code motion runs as a user's program sees it (the sanitizer
# cores are unoptimized builds: the combine_latest use-after-free of issue
# 50 never showed there). ABANDON_SECONDS on 4 threads; the seed is printed,
# and `.build-c/abandon SECONDS SEED THREADS` replays its rounds.
# make test runs 10 s; make release-check runs test-abandon-long, 120 s.
#
# Memory (issue 50, item 6): the soak prints the slopes of the heap in use,
# the resident set and the thread count over the second half of its run.
# Neither run bounds them: the heap follows the thread count (libdispatch
# keeps ~72 KiB of continuations per worker thread, and its pool grew for
# minutes, to 100-270 threads; mallinfo2 also counts glibc's per-thread
# tcache as in use), so a bound failed a clean-clone CI run in which the
# pool was still growing at 31 threads/min: +2,425 KiB/min, 0 objects
# alive. What the soak fails on is a subscription left alive (sk_live_objects
# back to 0), which caught the one leak found (periodic operators, before
# bb1bd91: 329 objects). test-abandon-long runs with glibc's tcache off
# (glibc.malloc.tcache_count=0) so that its heap figure is the bytes held;
# ABANDON_MAX_HEAP_SLOPE=K (KiB/min) makes a run fail above K, for a long
# measured run once the pool has settled (docs/performance.md, "Memory over
# time").
ABANDON_SECONDS ?= 10
ABANDON_LONG_SECONDS ?= 120

.PHONY: abandon test-abandon test-abandon-long
abandon: stage
	$(CC) -std=gnu99 -Wall -Wextra -Werror -D_DEFAULT_SOURCE -O1 -g -ITests/common Tests/soak/abandon.c \
		$$($(STAGE_PKG) --cflags --libs signalkit) -lpthread -lm -o $(OUT)/abandon

test-abandon: abandon ## the abandonment soak (Tests/soak/abandon.c) against the release library, ABANDON_SECONDS (10) on 4 threads
	$(begin)
	$(RUN_STAGED) $(OUT)/abandon $(ABANDON_SECONDS)
	$(end)

test-abandon-long: abandon ## test-abandon for ABANDON_LONG_SECONDS (120), glibc's tcache off: make release-check
	$(begin)
	GLIBC_TUNABLES=glibc.malloc.tcache_count=0 $(RUN_STAGED) $(OUT)/abandon $(ABANDON_LONG_SECONDS)
	$(end)

# Nothing after the terminal event: Tests/soak/terminal.c (what it checks:
# its header), TERMINAL_ROUNDS rounds of 8 threads putting while a ninth
# ends the stream (or a map below fails), through the operators whose
# values reach the stages below without a subscriber's call and through
# every operator of the operator table (Tests/common/operator_list.h),
# against the release library (make test, about 3 seconds)
# and against the ASan and TSan cores (make release-check:
# test-terminal-asan, test-terminal-tsan, through mk/sanitizers.mk). The
# seed is printed; `.build-c/terminal ROUNDS SEED` replays the rounds.
TERMINAL_ROUNDS ?= 10000
terminal_SOURCES = Tests/soak/terminal.c
terminal_CFLAGS := -std=gnu99 -Wall -Wextra -Werror -D_DEFAULT_SOURCE -g -O1 -fno-omit-frame-pointer -fuse-ld=lld -Iinclude -ITests/common
terminal_LIBS := -lpthread
terminal_ARGS = $(TERMINAL_ROUNDS)

.PHONY: terminal test-terminal
terminal: stage
	$(CC) -std=gnu99 -Wall -Wextra -Werror -D_DEFAULT_SOURCE -O1 -g -ITests/common Tests/soak/terminal.c \
		$$($(STAGE_PKG) --cflags --libs signalkit) -lpthread -o $(OUT)/terminal

test-terminal: terminal ## nothing after the terminal event (Tests/soak/terminal.c), TERMINAL_ROUNDS (10,000) rounds against the release library
	$(begin)
	$(RUN_STAGED) $(OUT)/terminal $(TERMINAL_ROUNDS)
	$(end)

# The schedule explorer (Sources/SwiftSignalKit/Support/ScheduleExplorer.swift):
# the release library built with SIGNALKIT_EXPLORE (and SKS_EXPLORE for the
# shim), in which every handoff between threads may yield, spin or sleep a
# few microseconds, the spin lock's holder may wait after its unlock for a
# waiting thread to take it, and a thread of the explorer's own interrupts
# the library's threads some thousands of times a second (preemption
# injection: what widens a window no site marks), all chosen by generators
# seeded from SIGNALKIT_EXPLORE_SEED (printed). test-explore runs the
# abandonment soak (EXPLORE_SECONDS, 60), the two yardsticks
# (Tests/soak/collide.c and fanout.c, COLLIDE_SECONDS each) and the C suite's thread tests
# against it, the soak and the churn of subscriptions to a replaying pipe
# (subscribe_and_dispose_while_putting) under the progress watchdog
# (Tests/common/progress.h, PROGRESS_BOUND): a call that does not return
# while the other threads finish PROGRESS_BOUND calls fails the run, with
# the seed (issue 77: a new subscriber's catch-up, unbounded before, was
# found in 2 to 5 s); make release-check runs it. A seed replays the
# perturbations of each thread (not the preemptions' timing):
#   SIGNALKIT_EXPLORE_SEED=N LD_LIBRARY_PATH=.build-c/explore .build-c/abandon 60 SEED
#
# explore-watchdog-check (not part of any suite: one more build of the
# core): the watchdog fails a planted wait that never ends
# (SIGNALKIT_PLANT_WAIT_FOREVER: the catch-up waits for the putters to
# leave its backlog empty), on the churn test, within PROGRESS_BOUND calls.
#
# explore-measure (not part of any suite: it takes up to 8 x MEASURE_SEEDS
# x MEASURE_SECONDS): how soon the explorer finds a planted lifetime bug
# against the plain release build, with Tests/soak/explore-measure.sh over
# a yardstick: collide.c for two bugs planted in the combination's
# spin-locked state, SIGNALKIT_PLANT_UNLOCK_BUG, issue 50's crash itself
# (the spin lock's unlock without `_sks_handoff`), and
# SIGNALKIT_PLANT_LIFETIME_BUG (the other value read after the unlock);
# fanout.c for two planted in a pipe's list of subscribers,
# SIGNALKIT_PLANT_RECLAIM_BUG (the buffer lent to the owner slot's delivery
# freed when the list changes, not kept until that delivery is over) and
# SIGNALKIT_PLANT_BIAS_BUG (a thread that ends the bias of a pipe, see
# BroadcasterBias.swift, does not store the revocation: the owner goes on
# without the lock). Eight
# builds, never the library's; one bug:
#   make explore-measure PLANTED=reclaim:SIGNALKIT_PLANT_RECLAIM_BUG:fanout
EXPLORE_SECONDS ?= 60
COLLIDE_SECONDS ?= 20
MEASURE_SECONDS ?= 60
MEASURE_SEEDS ?= 1 2 3 4 5
PROGRESS_BOUND ?= 2000000
EXPLORE_LIB := $(OUT)/explore
EXPLORE_BUILD := -c release --product signalkit -Xswiftc -static-stdlib -Xcc -DSKS_STATIC_SWIFT_RUNTIME \
	-Xlinker --version-script=$(CURDIR)/Sources/SignalKitCAPI/signalkit.map $(LIB_WRAPS) \
	-Xlinker -soname=libsignalkit.so.$(SOVERSION)
EXPLORE_ON := -Xswiftc -DSIGNALKIT_EXPLORE -Xcc -DSKS_EXPLORE
# fanout runs with freed memory scrubbed (glibc's perturb byte, without
# its per-thread cache, which is never scrubbed): a delivery that reads the
# subscribers' buffer after it was freed reads 0xa5 bytes at once, not
# whenever the memory happens to be reused (without it, neither build found
# SIGNALKIT_PLANT_RECLAIM_BUG in 60 s).
SCRUB := GLIBC_TUNABLES=glibc.malloc.tcache_count=0:glibc.malloc.perturb=165
PLANTED := unlock:SIGNALKIT_PLANT_UNLOCK_BUG:collide lifetime:SIGNALKIT_PLANT_LIFETIME_BUG:collide \
	reclaim:SIGNALKIT_PLANT_RECLAIM_BUG:fanout bias:SIGNALKIT_PLANT_BIAS_BUG:fanout

.PHONY: explore-core test-explore collide fanout explore-measure explore-watchdog-check
explore-core: ## the schedule explorer's build of the library (.build-c/explore)
	$(begin)
	$(SWIFT) build $(EXPLORE_BUILD) $(EXPLORE_ON) --scratch-path .build-explore
	mkdir -p $(EXPLORE_LIB)
	cp .build-explore/release/libsignalkit.so $(EXPLORE_LIB)/libsignalkit.so.$(SOVERSION)
	$(end)

collide fanout: stage
	$(CC) -std=gnu99 -Wall -Wextra -Werror -D_DEFAULT_SOURCE -O1 -g Tests/soak/$@.c \
		$$($(STAGE_PKG) --cflags --libs signalkit) -lpthread -o $(OUT)/$@

test-explore: explore-core abandon collide fanout c-tests ## the abandonment soak, the two yardsticks and the C thread tests against the schedule explorer's build
	$(begin)
	SIGNALKIT_PROGRESS_BOUND=$(PROGRESS_BOUND) LD_LIBRARY_PATH=$(EXPLORE_LIB) $(OUT)/abandon $(EXPLORE_SECONDS)
	LD_LIBRARY_PATH=$(EXPLORE_LIB) $(OUT)/collide $(COLLIDE_SECONDS)
	$(SCRUB) LD_LIBRARY_PATH=$(EXPLORE_LIB) $(OUT)/fanout $(COLLIDE_SECONDS)
	SIGNALKIT_PROGRESS_BOUND=$(PROGRESS_BOUND) LD_LIBRARY_PATH=$(EXPLORE_LIB) $(OUT)/c-tests --jobs 2 \
		--filter 'threads/[acdfms]*'
	$(end)

explore-watchdog-check: c-tests ## the progress watchdog fails a planted wait that never ends (one more build of the core)
	$(SWIFT) build $(EXPLORE_BUILD) $(EXPLORE_ON) -Xswiftc -DSIGNALKIT_PLANT_WAIT_FOREVER --scratch-path .build-planted-wait
	mkdir -p $(OUT)/planted/wait
	cp .build-planted-wait/release/libsignalkit.so $(OUT)/planted/wait/libsignalkit.so.$(SOVERSION)
	! SIGNALKIT_PROGRESS_BOUND=$(PROGRESS_BOUND) LD_LIBRARY_PATH=$(OUT)/planted/wait $(OUT)/c-tests --jobs 1 \
		--filter 'threads/subscribe_and_dispose_while_putting' > $(OUT)/planted/wait/run.log 2>&1
	grep 'progress: starved: .* sk_signal_start' $(OUT)/planted/wait/run.log

explore-measure: collide fanout ## how soon the explorer finds four planted lifetime bugs, against the plain build (MEASURE_SEEDS x MEASURE_SECONDS each)
	set -e; for p in $(PLANTED); do \
		name=$${p%%:*}; rest=$${p#*:}; flag=$${rest%%:*}; \
		$(SWIFT) build $(EXPLORE_BUILD) -Xswiftc -D$$flag --scratch-path .build-planted-$$name; \
		$(SWIFT) build $(EXPLORE_BUILD) $(EXPLORE_ON) -Xswiftc -D$$flag --scratch-path .build-planted-$$name-explore; \
		for b in $$name $$name-explore; do \
			mkdir -p $(OUT)/planted/$$b; \
			cp .build-planted-$$b/release/libsignalkit.so $(OUT)/planted/$$b/libsignalkit.so.$(SOVERSION); \
		done; \
	done
	set -e; for p in $(PLANTED); do \
		name=$${p%%:*}; yardstick=$${p##*:}; echo "planted: $$name ($$yardstick)"; \
		case $$yardstick in fanout) scrub="$(SCRUB)";; *) scrub=;; esac; \
		env $$scrub sh Tests/soak/explore-measure.sh $(OUT)/$$yardstick $(MEASURE_SECONDS) "$(MEASURE_SEEDS)" \
			plain=$(OUT)/planted/$$name explorer=$(OUT)/planted/$$name-explore; \
	done
