/* The cost table's rows (issue 41; Benchmarks/README.md, "Per-operator
 * cost"): what each row's operator is given, in one place for the three
 * programs that measure them, bench_capi.c (the C API), bench_cpp.cpp (the
 * C++ header) and OperatorCost (the Swift API, through this target). A row
 * is one operator between a pipe and a plain subscriber; it is named after
 * its C function without `sk_signal_`.
 *
 * Every operator gets, by the kinds of its shape (tools/api/shapes.py): a
 * count of 1, COST_CONCURRENCY inner signals at once, COST_RETRIES
 * retries and no delay, a predicate that holds, +1 as a map, 0 as a value
 * or initial value, the running sum as a fold, a second pipe that never
 * emits as the other signal, the same pipe twice for the operators of
 * several signals (two values per put; the operators of a signal of
 * signals, `of signals` in the operator table, get a pipe of signals, each
 * put the same one-value signal), a one-value signal from a signal
 * function (deferred's: the pipe's signal), a take_until function that
 * passes each value, a side effect that does nothing, COST_SECONDS on a
 * virtual-time queue advanced by COST_ADVANCE after the start and after the
 * puts (COST_MOST the longest delay of retry's; combine_latest no queue),
 * a capacity of COST_CAPACITY dropping the newest (the bounded places with
 * room to spare: nothing is dropped, and a drop callback, in C, exits).
 * The exceptions below keep an operator open and working for every put;
 * each says what it measures. Header-only for the C programs; the
 * callgrind requests are functions (CostRows.c) for Swift. */
#ifndef COST_ROWS_H
#define COST_ROWS_H

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The smaller counted run's puts; the larger has twice as many. */
#define COST_PUTS 2000
#define COST_SECONDS 0.001
#define COST_ADVANCE 0.01
#define COST_CONCURRENCY 2
#define COST_RETRIES 3
#define COST_MOST 1.0
#define COST_CAPACITY 1048576 /* 2^20 */

static inline bool cost_is(const char *row, const char *name) {
    return strcmp(row, name) == 0;
}

/* take and element_at: 2^40, never reached (a count of 1 would end them at
 * the first put). */
static inline uint64_t cost_count(const char *row) {
    return cost_is(row, "take") || cost_is(row, "element_at") ? (uint64_t)1 << 40 : 1;
}

/* timeout: a deadline never reached (3,600 s), not COST_SECONDS (it would
 * switch to the other signal at the first advance). */
static inline double cost_seconds(const char *row) {
    return cost_is(row, "timeout") ? 3600 : COST_SECONDS;
}

/* skip_while and first_where get a predicate that never holds: skip_while
 * passes every value, first_where waits (drops each). */
static inline bool cost_predicate_holds(const char *row) {
    return !(cost_is(row, "skip_while") || cost_is(row, "first_where"));
}

/* group_by: a constant key (one group, not subscribed), not +1 (a group
 * per value). */
static inline bool cost_constant_key(const char *row) {
    return cost_is(row, "group_by");
}

/* with_latest_from's other signal: a replaying pipe holding one value
 * (a pipe that never emits would make it drop every value). */
static inline bool cost_replaying_other(const char *row) {
    return cost_is(row, "with_latest_from");
}

/* deliver_on_each: deliver_on with its queue advanced after every put, so
 * that each value gets a dispatch of its own (the deliver_on row advances
 * it after the last put: one dispatch drains them all). */
static inline bool cost_advance_each_put(const char *row) {
    return cost_is(row, "deliver_on_each");
}

/* Values each put delivers to the subscriber, in hundredths, where not 1:
 * the operators that drop or wait, merge and combine_latest of the same pipe
 * twice, a buffer of 100. The programs check each row's deliveries, so that
 * a row that stopped early cannot look cheap. */
static inline int cost_deliveries_hundredths(const char *row) {
    static const char *const none[] = {
        "first", "first_where", "element_at", "last", "ignore_values", "reduce_left", "group_by", "sample",
        "debounce", "throttle", "buffer_time", "sample_period", "buffer_time_bounded",
    };
    size_t i;
    for (i = 0; i < sizeof none / sizeof none[0]; i++) {
        if (cost_is(row, none[i])) {
            return 0;
        }
    }
    if (cost_is(row, "merge") || cost_is(row, "combine_latest")) {
        return 200;
    }
    if (cost_is(row, "buffer_count_100")) {
        return 1;
    }
    return 100;
}

/* Callgrind's counters zeroed and its collection toggled on (run.py starts
 * it with --collect-atstart=no); the Swift program's COUNTED, as the C
 * programs' macros of valgrind/callgrind.h. Nothing outside callgrind. */
void cost_counted_begin(void);
/* The collection toggled off, the counters dumped under `label` ("op:map n"). */
void cost_counted_end(const char *label);

#ifdef __cplusplus
}
#endif

#endif
