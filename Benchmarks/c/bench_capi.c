/* W1-W9, W2b, W6b and ND of Benchmarks/README.md on the C API
 * (libsignalkit.so through pkg-config, against the staged install), with C
 * callbacks and int64 sk_values.
 *
 *   bench_capi [--reps N] [--workloads W1,W3] [--divide N]
 *                           one JSON line per workload (impl "c")
 *   bench_capi --check      the deterministic allocation figures only
 *   bench_capi --instructions
 *                           W1, W2, W2b, W4, W5 and ND (bench_ffi: NP) for instruction
 *                           counts under callgrind (run.py check; below)
 *
 * Compiled with -DBENCH_FFI (and signalkit-ffi), it is bench_ffi: W1, W3 and
 * W7 with the same pipelines, the sinks being plain `void (void *, int64_t)`
 * functions called through typed subscriptions (sk_ffi_signal_start with
 * "void(ctx,i64)", a libffi call per value); impl "ffi".
 *
 * See Benchmarks/README.md for what each workload times. */
#include <pthread.h>
#include <sched.h>
#include <semaphore.h>
#include <signalkit.h>

#include <valgrind/callgrind.h>

#include "bench.h"

#ifndef BENCH_FFI
#include <signalkit_test.h>

#include "CostRows.h"
#include "operator_list.h"
#endif

#ifdef BENCH_FFI
#include <signalkit_ffi.h>
#define BENCH_IMPL "ffi"
#define LAST_ERROR() (sk_ffi_last_error_message()[0] ? sk_ffi_last_error_message() : sk_last_error_message())
#else
#define BENCH_IMPL "c"
#define LAST_ERROR() sk_last_error_message()
#endif

#define CHECK(call)                                                              \
    do {                                                                         \
        int status_ = (call);                                                    \
        if (status_ != SK_OK) {                                                  \
            fprintf(stderr, "%s:%d: %s failed: %s\n", __FILE__, __LINE__, #call, \
                    LAST_ERROR());                                               \
            exit(1);                                                             \
        }                                                                        \
    } while (0)

static int64_t int_of(const sk_value *value) {
    int64_t n = 0;
    if (sk_value_get_int64(value, &n) != SK_OK) {
        fprintf(stderr, "not an int64 value\n");
        exit(1);
    }
    return n;
}

/* ---- callbacks ---- */

static void add_one(void *ctx, const sk_value *in, sk_value *out) {
    (void)ctx;
    sk_value_set_int64(out, int_of(in) + 1);
}

static void times_two(void *ctx, const sk_value *in, sk_value *out) {
    (void)ctx;
    sk_value_set_int64(out, int_of(in) * 2);
}

static bool is_even(void *ctx, const sk_value *value) {
    (void)ctx;
    return int_of(value) % 2 == 0;
}

/* Wrapping addition, as the spec asks of sinks. */
static int64_t wrapping_add(int64_t a, int64_t b) {
    return (int64_t)((uint64_t)a + (uint64_t)b);
}

#ifdef BENCH_FFI
/* The typed sinks' signature, "void(ctx,i64)" (parsed in main). */
static sk_ffi_signature *sink_signature;

static void sum_i64(void *ctx, int64_t n) {
    int64_t *sum = ctx;
    *sum = wrapping_add(*sum, n);
}

/* NP's sink: a plain sk_value observer (the pipeline's end, as the Python
 * package's subscriber sees it, once). */
static void np_sum_next(void *ctx, const sk_value *value) {
    int64_t *sum = ctx;
    *sum = wrapping_add(*sum, int_of(value));
}

/* Subscribes `fn(ctx, value)` through a typed subscription. */
static void start_sink(sk_disposable **out, sk_signal *signal, void (*fn)(void *, int64_t), void *ctx) {
    sk_ffi_observer observer = { sink_signature, (sk_ffi_fn)fn, NULL, NULL, NULL, NULL, ctx, NULL };
    CHECK(sk_ffi_signal_start(out, signal, &observer));
}

/* The summing sink of W1 and W3. */
static void start_sum(sk_disposable **out, sk_signal *signal, int64_t *sum) {
    start_sink(out, signal, sum_i64, sum);
}
#else
static void sum_next(void *ctx, const sk_value *value) {
    int64_t *sum = ctx;
    *sum = wrapping_add(*sum, int_of(value));
}

static sk_observer sum_observer(int64_t *sum) {
    sk_observer observer = { sum_next, NULL, NULL, sum, NULL };
    return observer;
}

/* The summing sink of W1 and W3. */
static void start_sum(sk_disposable **out, sk_signal *signal, int64_t *sum) {
    sk_observer observer = sum_observer(sum);
    CHECK(sk_signal_start(out, signal, &observer));
}
#endif

/* A cold synchronous source of 0..<n (n behind ctx), then completion. */
static sk_disposable *range_generator(void *ctx, sk_subscriber *subscriber) {
    int64_t n = *(const int64_t *)ctx, i;
    sk_value value;
    for (i = 0; i < n; i++) {
        sk_value_set_int64(&value, i);
        sk_subscriber_put_next(subscriber, &value);
    }
    sk_subscriber_put_completion(subscriber);
    return NULL;
}

/* ---- expected checksums, computed plainly ---- */

static int64_t expected_w1(int64_t n) {
    int64_t i, sum = 0;
    for (i = 0; i < n; i++) {
        if ((i + 1) % 2 == 0) {
            sum = wrapping_add(sum, (i + 1) * 2);
        }
    }
    return sum;
}

#ifndef BENCH_FFI
static int64_t expected_w2(int64_t cycles, int64_t every) {
    int64_t i, sum = 0;
    for (i = 0; i < cycles; i++) {
        if (i % every == 0) {
            sum = wrapping_add(sum, i + 1);
        }
    }
    return sum;
}

#endif

static int64_t sum_below(int64_t n) {
    int64_t i, sum = 0;
    for (i = 0; i < n; i++) {
        sum = wrapping_add(sum, i);
    }
    return sum;
}

#ifndef BENCH_FFI
static int64_t expected_w5(int64_t n) {
    int64_t i, latest[2] = { 0, 0 }, sum = 0;
    int seen[2] = { 0, 0 };
    for (i = 0; i < n; i++) {
        latest[i % 2] = i;
        seen[i % 2] = 1;
        if (seen[0] && seen[1]) {
            sum = wrapping_add(sum, latest[0] + latest[1]);
        }
    }
    return sum;
}

#endif

/* ---- workloads ---- */

/* W1: build, subscribe, run, dispose. */
static int64_t w1(int64_t n, bench_probe *p) {
    int64_t sum = 0;
    sk_signal *source, *a, *b, *c;
    sk_disposable *subscription;
    probe_begin(p);
    CHECK(sk_signal_create(&source, range_generator, &n, NULL));
    CHECK(sk_signal_map(&a, source, add_one, NULL, NULL));
    CHECK(sk_signal_filter(&b, a, is_even, NULL, NULL));
    CHECK(sk_signal_map(&c, b, times_two, NULL, NULL));
    start_sum(&subscription, c, &sum);
    sk_disposable_dispose(subscription);
    sk_disposable_release(subscription);
    sk_signal_release(c);
    sk_signal_release(b);
    sk_signal_release(a);
    sk_signal_release(source);
    probe_end(p);
    return sum;
}

#ifndef BENCH_FFI
/* W2: subscribe the (prebuilt) mapped pipe signal, maybe put, dispose. */
static int64_t w2(int64_t cycles, int64_t every, bench_probe *p) {
    int64_t sum = 0, i;
    sk_pipe *pipe;
    sk_signal *signal, *mapped;
    sk_value value;
    sk_observer observer = sum_observer(&sum);
    CHECK(sk_pipe_create(&pipe, false));
    CHECK(sk_pipe_signal(&signal, pipe));
    CHECK(sk_signal_map(&mapped, signal, add_one, NULL, NULL));
    probe_begin(p);
    for (i = 0; i < cycles; i++) {
        sk_disposable *subscription;
        CHECK(sk_signal_start(&subscription, mapped, &observer));
        if (i % every == 0) {
            sk_value_set_int64(&value, i);
            CHECK(sk_pipe_put(pipe, &value));
        }
        sk_disposable_dispose(subscription);
        sk_disposable_release(subscription);
    }
    sk_value_set_int64(&value, 1000000000);
    CHECK(sk_pipe_put(pipe, &value));
    probe_end(p);
    sk_signal_release(mapped);
    sk_signal_release(signal);
    sk_pipe_release(pipe);
    return sum;
}

/* Starts `pipe`'s signal mapped by add_one, the pipeline built here as a C
 * user writes it where they subscribe, and releases the two intermediate
 * handles at once (W2b, W6b): only the subscription's handle is kept. */
static sk_disposable *start_built(sk_pipe *pipe, const sk_observer *observer) {
    sk_signal *signal, *mapped;
    sk_disposable *subscription;
    CHECK(sk_pipe_signal(&signal, pipe));
    CHECK(sk_signal_map(&mapped, signal, add_one, NULL, NULL));
    CHECK(sk_signal_start(&subscription, mapped, observer));
    sk_signal_release(mapped);
    sk_signal_release(signal);
    return subscription;
}

/* W2b: W2 with the pipeline built per cycle (pipe signal -> map -> start,
 * the intermediate handles released), maybe put, dispose. */
static int64_t w2b(int64_t cycles, int64_t every, bench_probe *p) {
    int64_t sum = 0, i;
    sk_pipe *pipe;
    sk_value value;
    sk_observer observer = sum_observer(&sum);
    CHECK(sk_pipe_create(&pipe, false));
    probe_begin(p);
    for (i = 0; i < cycles; i++) {
        sk_disposable *subscription = start_built(pipe, &observer);
        if (i % every == 0) {
            sk_value_set_int64(&value, i);
            CHECK(sk_pipe_put(pipe, &value));
        }
        sk_disposable_dispose(subscription);
        sk_disposable_release(subscription);
    }
    sk_value_set_int64(&value, 1000000000);
    CHECK(sk_pipe_put(pipe, &value));
    probe_end(p);
    sk_pipe_release(pipe);
    return sum;
}

#endif

/* W3: `sinks` sinks on one pipe; the puts only are timed. */
static int64_t w3(int64_t sinks, int64_t puts, bench_probe *p) {
    int64_t sum = 0, i;
    sk_pipe *pipe;
    sk_signal *signal;
    sk_value value;
    sk_disposable **subscriptions = calloc((size_t)sinks, sizeof *subscriptions);
    CHECK(sk_pipe_create(&pipe, false));
    CHECK(sk_pipe_signal(&signal, pipe));
    for (i = 0; i < sinks; i++) {
        start_sum(&subscriptions[i], signal, &sum);
    }
    probe_begin(p);
    for (i = 0; i < puts; i++) {
        sk_value_set_int64(&value, i);
        CHECK(sk_pipe_put(pipe, &value));
    }
    probe_end(p);
    for (i = 0; i < sinks; i++) {
        sk_disposable_dispose(subscriptions[i]);
        sk_disposable_release(subscriptions[i]);
    }
    free(subscriptions);
    sk_signal_release(signal);
    sk_pipe_release(pipe);
    return sum;
}

#ifndef BENCH_FFI
/* W3s: one pipe shared (sk_signal_share) by `sinks` summing subscribers; the
 * puts only are timed (issue 41: the operators a user chains, against the
 * C++ peers). */
static int64_t w3share(int64_t sinks, int64_t puts, bench_probe *p) {
    int64_t sum = 0, i;
    sk_pipe *pipe;
    sk_signal *signal, *shared;
    sk_value value;
    sk_disposable **subscriptions = calloc((size_t)sinks, sizeof *subscriptions);
    CHECK(sk_pipe_create(&pipe, false));
    CHECK(sk_pipe_signal(&signal, pipe));
    CHECK(sk_signal_share(&shared, signal));
    for (i = 0; i < sinks; i++) {
        start_sum(&subscriptions[i], shared, &sum);
    }
    probe_begin(p);
    for (i = 0; i < puts; i++) {
        sk_value_set_int64(&value, i);
        CHECK(sk_pipe_put(pipe, &value));
    }
    probe_end(p);
    for (i = 0; i < sinks; i++) {
        sk_disposable_dispose(subscriptions[i]);
        sk_disposable_release(subscriptions[i]);
    }
    free(subscriptions);
    sk_signal_release(shared);
    sk_signal_release(signal);
    sk_pipe_release(pipe);
    return sum;
}

static sk_signal *single_of(void *ctx, const sk_value *value) {
    sk_signal *signal = NULL;
    (void)ctx;
    CHECK(sk_signal_single(&signal, value));
    return signal;
}

/* W4: each value to a one-value inner signal, switch-to-latest. All timed. */
static int64_t w4(int64_t n, bench_probe *p) {
    int64_t sum = 0;
    sk_signal *source, *switched;
    sk_disposable *subscription;
    sk_observer observer = sum_observer(&sum);
    probe_begin(p);
    CHECK(sk_signal_create(&source, range_generator, &n, NULL));
    CHECK(sk_signal_map_to_signal(&switched, source, single_of, NULL, NULL));
    CHECK(sk_signal_start(&subscription, switched, &observer));
    sk_disposable_dispose(subscription);
    sk_disposable_release(subscription);
    sk_signal_release(switched);
    sk_signal_release(source);
    probe_end(p);
    return sum;
}

static void sum_pair(void *ctx, const sk_value *value) {
    int64_t *sum = ctx;
    const sk_value *items;
    CHECK(sk_value_get_array_items(value, &items, NULL));
    *sum = wrapping_add(*sum, wrapping_add(int_of(&items[0]), int_of(&items[1])));
}

/* W5: combine-latest of two pipes; the puts only are timed. */
static int64_t w5(int64_t n, bench_probe *p) {
    int64_t sum = 0, i;
    sk_pipe *pipes[2];
    sk_signal *signals[2], *combined;
    sk_disposable *subscription;
    sk_value value;
    sk_observer observer = { sum_pair, NULL, NULL, &sum, NULL };
    for (i = 0; i < 2; i++) {
        CHECK(sk_pipe_create(&pipes[i], false));
        CHECK(sk_pipe_signal(&signals[i], pipes[i]));
    }
    CHECK(sk_signal_combine_latest(&combined, signals, 2, NULL));
    CHECK(sk_signal_start(&subscription, combined, &observer));
    probe_begin(p);
    for (i = 0; i < n; i++) {
        sk_value_set_int64(&value, i);
        CHECK(sk_pipe_put(pipes[i % 2], &value));
    }
    probe_end(p);
    sk_disposable_dispose(subscription);
    sk_disposable_release(subscription);
    sk_signal_release(combined);
    for (i = 0; i < 2; i++) {
        sk_signal_release(signals[i]);
        sk_pipe_release(pipes[i]);
    }
    return sum;
}

/* W5z: W5 with zip in place of combine-latest; the puts only are timed. */
static int64_t w5zip(int64_t n, bench_probe *p) {
    int64_t sum = 0, i;
    sk_pipe *pipes[2];
    sk_signal *signals[2], *zipped;
    sk_disposable *subscription;
    sk_value value;
    sk_observer observer = { sum_pair, NULL, NULL, &sum, NULL };
    for (i = 0; i < 2; i++) {
        CHECK(sk_pipe_create(&pipes[i], false));
        CHECK(sk_pipe_signal(&signals[i], pipes[i]));
    }
    CHECK(sk_signal_zip(&zipped, signals, 2));
    CHECK(sk_signal_start(&subscription, zipped, &observer));
    probe_begin(p);
    for (i = 0; i < n; i++) {
        sk_value_set_int64(&value, i);
        CHECK(sk_pipe_put(pipes[i % 2], &value));
    }
    probe_end(p);
    sk_disposable_dispose(subscription);
    sk_disposable_release(subscription);
    sk_signal_release(zipped);
    for (i = 0; i < 2; i++) {
        sk_signal_release(signals[i]);
        sk_pipe_release(pipes[i]);
    }
    return sum;
}

static void add_values(void *ctx, const sk_value *accumulator, const sk_value *value, sk_value *out) {
    (void)ctx;
    sk_value_set_int64(out, wrapping_add(int_of(accumulator), int_of(value)));
}

/* W5s: one pipe through scan (a running sum) into a summing sink; put
 * 0..<n. The puts only are timed. */
static int64_t w5scan(int64_t n, bench_probe *p) {
    int64_t sum = 0, i;
    sk_pipe *pipe;
    sk_signal *signal, *scanned;
    sk_disposable *subscription;
    sk_value value;
    sk_observer observer = sum_observer(&sum);
    CHECK(sk_pipe_create(&pipe, false));
    CHECK(sk_pipe_signal(&signal, pipe));
    sk_value_set_int64(&value, 0);
    CHECK(sk_signal_scan(&scanned, signal, &value, add_values, NULL, NULL));
    CHECK(sk_signal_start(&subscription, scanned, &observer));
    probe_begin(p);
    for (i = 0; i < n; i++) {
        sk_value_set_int64(&value, i);
        CHECK(sk_pipe_put(pipe, &value));
    }
    probe_end(p);
    sk_disposable_dispose(subscription);
    sk_disposable_release(subscription);
    sk_signal_release(scanned);
    sk_signal_release(signal);
    sk_pipe_release(pipe);
    return sum;
}

static bool is_negative(void *ctx, const sk_value *value) {
    (void)ctx;
    return int_of(value) < 0;
}

static bool is_not_negative(void *ctx, const sk_value *value) {
    (void)ctx;
    return int_of(value) >= 0;
}

/* Maps the array [a, b] to b - a (`ctx` NULL) or to a + b (not NULL). */
static void combine_pair(void *ctx, const sk_value *value, sk_value *out) {
    const sk_value *items;
    CHECK(sk_value_get_array_items(value, &items, NULL));
    const sk_value *a = &items[0], *b = &items[1];
    sk_value_set_int64(out, ctx == NULL ? int_of(b) - int_of(a) : wrapping_add(int_of(a), int_of(b)));
}

/* W10 (the synchronous operators of issue 33, as AllocCheck's Swift W10): a
 * pipe through scan -> skip -> skip_while -> take_while -> start_with ->
 * pairwise -> map -> with_latest_from -> map, zipped with a second pipe,
 * into a sink; one put into each pipe per round. The first round (before
 * the probe) fills the start_with and the skip. */
static int64_t w10(int64_t rounds, bench_probe *p) {
    int64_t sum = 0, i;
    int step;
    sk_pipe *a, *b;
    sk_signal *stages[11], *zipped, *inputs[2];
    sk_disposable *subscription;
    sk_value value;
    sk_observer observer = { sum_pair, NULL, NULL, &sum, NULL };
    CHECK(sk_pipe_create(&a, false));
    CHECK(sk_pipe_create(&b, false));
    CHECK(sk_pipe_signal(&stages[0], a));
    sk_value_set_int64(&value, 0);
    CHECK(sk_signal_scan(&stages[1], stages[0], &value, add_values, NULL, NULL));
    CHECK(sk_signal_skip(&stages[2], stages[1], 1));
    CHECK(sk_signal_skip_while(&stages[3], stages[2], is_negative, NULL, NULL));
    CHECK(sk_signal_take_while(&stages[4], stages[3], is_not_negative, NULL, NULL, false));
    CHECK(sk_signal_start_with(&stages[5], stages[4], &value));
    CHECK(sk_signal_pairwise(&stages[6], stages[5]));
    CHECK(sk_signal_map(&stages[7], stages[6], combine_pair, NULL, NULL));
    sk_value_set_int64(&value, 1);
    CHECK(sk_signal_single(&stages[8], &value));
    CHECK(sk_signal_with_latest_from(&stages[9], stages[7], stages[8]));
    CHECK(sk_signal_map(&stages[10], stages[9], combine_pair, &sum, NULL));
    inputs[0] = stages[10];
    CHECK(sk_pipe_signal(&inputs[1], b));
    CHECK(sk_signal_zip(&zipped, inputs, 2));
    CHECK(sk_signal_start(&subscription, zipped, &observer));
    sk_value_set_int64(&value, 1);
    CHECK(sk_pipe_put(a, &value));
    sk_value_set_int64(&value, 0);
    CHECK(sk_pipe_put(b, &value));
    probe_begin(p);
    for (i = 0; i < rounds; i++) {
        sk_value_set_int64(&value, 1);
        CHECK(sk_pipe_put(a, &value));
        sk_value_set_int64(&value, i);
        CHECK(sk_pipe_put(b, &value));
    }
    probe_end(p);
    sk_disposable_dispose(subscription);
    sk_disposable_release(subscription);
    sk_signal_release(zipped);
    sk_signal_release(inputs[1]);
    for (step = 0; step < 11; step++) {
        sk_signal_release(stages[step]);
    }
    sk_pipe_release(a);
    sk_pipe_release(b);
    return sum;
}

/* W10's sum: the k-th pair (k = 1..rounds) is [3, 0] for k = 1 (a
 * difference of 2 plus the latest 1; the put made before the rounds) and
 * [2, k - 2] after (a difference of 1 plus 1; the value put a round
 * before): 2 + 1 + 2 + ... + rounds. */
static int64_t expected_w10(int64_t rounds) {
    int64_t sum = 2, k;
    for (k = 1; k <= rounds; k++) {
        sum = wrapping_add(sum, k);
    }
    return sum;
}

/* W5z's sum: each odd value and the even one before it. */
static int64_t expected_w5zip(int64_t n) {
    return sum_below(n - n % 2);
}

/* W5s's sum: the running sums of 0..<n, added up. */
static int64_t expected_w5scan(int64_t n) {
    int64_t running = 0, sum = 0, i;
    for (i = 0; i < n; i++) {
        running = wrapping_add(running, i);
        sum = wrapping_add(sum, running);
    }
    return sum;
}

/* W6: `count` live subscriptions of the mapped pipe signal, then one put. */
static int64_t w6(int64_t count, bench_probe *p) {
    int64_t sum = 0, i;
    sk_pipe *pipe;
    sk_signal *signal, *mapped;
    sk_value value;
    sk_observer observer = sum_observer(&sum);
    sk_disposable **subscriptions = calloc((size_t)count, sizeof *subscriptions);
    CHECK(sk_pipe_create(&pipe, false));
    CHECK(sk_pipe_signal(&signal, pipe));
    CHECK(sk_signal_map(&mapped, signal, add_one, NULL, NULL));
    probe_begin(p);
    for (i = 0; i < count; i++) {
        CHECK(sk_signal_start(&subscriptions[i], mapped, &observer));
    }
    probe_live(p);
    sk_value_set_int64(&value, 1);
    CHECK(sk_pipe_put(pipe, &value));
    probe_end(p);
    for (i = 0; i < count; i++) {
        sk_disposable_dispose(subscriptions[i]);
        sk_disposable_release(subscriptions[i]);
    }
    free(subscriptions);
    sk_signal_release(mapped);
    sk_signal_release(signal);
    sk_pipe_release(pipe);
    return sum;
}

/* The live objects (sk_live_objects) W6b saw per subscription, read where
 * its subscriptions are all alive (bench_capi --check). */
static long w6b_live_objects;

/* W6b: W6 with the pipeline built per subscription (start_built: each
 * subscription's intermediate handles released once it has started). */
static int64_t w6b(int64_t count, bench_probe *p) {
    int64_t sum = 0, i;
    sk_pipe *pipe;
    sk_value value;
    sk_observer observer = sum_observer(&sum);
    sk_disposable **subscriptions = calloc((size_t)count, sizeof *subscriptions);
    long objects_before;
    CHECK(sk_pipe_create(&pipe, false));
    objects_before = sk_live_objects();
    probe_begin(p);
    for (i = 0; i < count; i++) {
        subscriptions[i] = start_built(pipe, &observer);
    }
    probe_live(p);
    w6b_live_objects = sk_live_objects() - objects_before;
    sk_value_set_int64(&value, 1);
    CHECK(sk_pipe_put(pipe, &value));
    probe_end(p);
    for (i = 0; i < count; i++) {
        sk_disposable_dispose(subscriptions[i]);
        sk_disposable_release(subscriptions[i]);
    }
    free(subscriptions);
    sk_pipe_release(pipe);
    return sum;
}

#endif

#ifndef BENCH_FFI
static int64_t expected_w8(int64_t subscriptions, int64_t rounds) {
    int64_t round, sum = 0;
    for (round = 0; round < rounds; round++) {
        sum = wrapping_add(sum, (round + 1) * subscriptions);
    }
    return sum;
}

/* W8: `rounds` times subscribe `subscriptions` summing sinks to the (prebuilt)
 * mapped pipe signal, put the round number, dispose (and release) them all in
 * `order`; then one put that must reach nobody. The permutation and the array
 * of handles are made before the timed section. */
static int64_t w8(int64_t subscriptions, int64_t rounds, dispose_order order, bench_probe *p) {
    int64_t sum = 0, round, i;
    sk_pipe *pipe;
    sk_signal *signal, *mapped;
    sk_value value;
    sk_observer observer = sum_observer(&sum);
    size_t *permutation = dispose_permutation((size_t)subscriptions, order);
    sk_disposable **handles = calloc((size_t)subscriptions, sizeof *handles);
    CHECK(sk_pipe_create(&pipe, false));
    CHECK(sk_pipe_signal(&signal, pipe));
    CHECK(sk_signal_map(&mapped, signal, add_one, NULL, NULL));
    probe_begin(p);
    for (round = 0; round < rounds; round++) {
        probe_phase(p, BENCH_SUBSCRIBE);
        for (i = 0; i < subscriptions; i++) {
            CHECK(sk_signal_start(&handles[i], mapped, &observer));
        }
        probe_phase(p, BENCH_DELIVER);
        sk_value_set_int64(&value, round);
        CHECK(sk_pipe_put(pipe, &value));
        probe_phase(p, BENCH_DISPOSE);
        for (i = 0; i < subscriptions; i++) {
            sk_disposable *handle = handles[permutation[i]];
            sk_disposable_dispose(handle);
            sk_disposable_release(handle);
        }
    }
    sk_value_set_int64(&value, 1000000000);
    CHECK(sk_pipe_put(pipe, &value));
    probe_end(p);
    free(handles);
    free(permutation);
    sk_signal_release(mapped);
    sk_signal_release(signal);
    sk_pipe_release(pipe);
    return sum;
}

/* ND: the containers nested, as BenchKit's NestedKind: sk_disposable_meta,
 * sk_disposable_set, sk_disposable_dict. */
typedef enum { NESTED_META, NESTED_SET, NESTED_DICT } nested_kind;
static const char *const NESTED_NAMES[3] = { "meta", "set", "dict" };

static void count_action(void *ctx) {
    (*(int64_t *)ctx)++;
}

/* ND: `rounds` times: nest `depth` containers of `kind`, each holding the
 * next (only the outermost's handle kept), the innermost an action that
 * adds 1 to the sum; dispose the outermost (which disposes them all), then
 * release it (which releases them all). The phases: the nesting
 * (BENCH_SUBSCRIBE) and the dispose and release (BENCH_DISPOSE). */
static int64_t nested(int64_t depth, int64_t rounds, nested_kind kind, bench_probe *p) {
    int64_t sum = 0, round, i;
    probe_begin(p);
    for (round = 0; round < rounds; round++) {
        sk_disposable *inner;
        probe_phase(p, BENCH_SUBSCRIBE);
        CHECK(sk_disposable_action(&inner, count_action, &sum, NULL));
        for (i = 0; i < depth; i++) {
            sk_disposable *outer;
            switch (kind) {
            case NESTED_META:
                CHECK(sk_disposable_meta(&outer));
                CHECK(sk_disposable_meta_set(outer, inner));
                break;
            case NESTED_SET:
                CHECK(sk_disposable_set(&outer));
                CHECK(sk_disposable_set_add(outer, inner));
                break;
            case NESTED_DICT:
                CHECK(sk_disposable_dict(&outer));
                CHECK(sk_disposable_dict_set(outer, "inner", inner));
                break;
            }
            sk_disposable_release(inner);
            inner = outer;
        }
        probe_phase(p, BENCH_DISPOSE);
        sk_disposable_dispose(inner);
        sk_disposable_release(inner);
    }
    probe_end(p);
    return sum;
}

/* W9: a summing sink that may run on several threads at once adds to its
 * own counter atomically (relaxed). */
static void atomic_sum_next(void *ctx, const sk_value *value) {
    __atomic_fetch_add((uint64_t *)ctx, (uint64_t)int_of(value), __ATOMIC_RELAXED);
}

#define W9_MAX_THREADS 8
#define W9_MAX_SINKS 64

/* One putting thread of W9: its slice of 0..<puts, after the start line. */
typedef struct w9_thread {
    pthread_t thread;
    sk_pipe *pipe;
    int64_t from, to;
    int *waiting;
} w9_thread;

static void *w9_put(void *arg) {
    w9_thread *job = arg;
    int64_t i;
    sk_value value;
    __atomic_fetch_sub(job->waiting, 1, __ATOMIC_ACQ_REL);
    while (__atomic_load_n(job->waiting, __ATOMIC_ACQUIRE) > 0) {
        sched_yield();
    }
    for (i = job->from; i < job->to; i++) {
        sk_value_set_int64(&value, i);
        CHECK(sk_pipe_put(job->pipe, &value));
    }
    return NULL;
}

/* W9: `sinks` summing sinks directly on one pipe; `puts` values put by
 * `threads` threads at once (the calling thread is thread 0; thread t puts the
 * t-th slice of 0..<puts). Timed: starting the threads, the puts, joining. */
static int64_t w9(int threads, int64_t sinks, int64_t puts, bench_probe *p) {
    int64_t sum = 0, i, share = puts / threads;
    sk_pipe *pipe;
    sk_signal *signal;
    w9_thread jobs[W9_MAX_THREADS];
    int waiting = threads, t;
    uint64_t *sums[W9_MAX_SINKS]; /* each sink's own, allocated apart (as a Swift object) */
    sk_disposable **subscriptions = calloc((size_t)sinks, sizeof *subscriptions);
    CHECK(sk_pipe_create(&pipe, false));
    CHECK(sk_pipe_signal(&signal, pipe));
    if (threads < 1 || threads > W9_MAX_THREADS || sinks > W9_MAX_SINKS) {
        fprintf(stderr, "w9: at most %d threads and %d sinks\n", W9_MAX_THREADS, W9_MAX_SINKS);
        exit(1);
    }
    for (i = 0; i < sinks; i++) {
        sk_observer observer = { atomic_sum_next, NULL, NULL, NULL, NULL };
        sums[i] = calloc(1, sizeof *sums[i]);
        observer.ctx = sums[i];
        CHECK(sk_signal_start(&subscriptions[i], signal, &observer));
    }
    probe_begin(p);
    for (t = 0; t < threads; t++) {
        jobs[t].pipe = pipe;
        jobs[t].from = t * share;
        jobs[t].to = t == threads - 1 ? puts : (t + 1) * share;
        jobs[t].waiting = &waiting;
        if (t > 0 && pthread_create(&jobs[t].thread, NULL, w9_put, &jobs[t]) != 0) {
            fprintf(stderr, "pthread_create failed\n");
            exit(1);
        }
    }
    w9_put(&jobs[0]);
    for (t = 1; t < threads; t++) {
        pthread_join(jobs[t].thread, NULL);
    }
    probe_end(p);
    for (i = 0; i < sinks; i++) {
        sk_disposable_dispose(subscriptions[i]);
        sk_disposable_release(subscriptions[i]);
        sum = wrapping_add(sum, (int64_t)__atomic_load_n(sums[i], __ATOMIC_RELAXED));
        free(sums[i]);
    }
    free(subscriptions);
    sk_signal_release(signal);
    sk_pipe_release(pipe);
    return sum;
}
#endif

typedef struct w7_state {
    int64_t sum;
    int64_t last;
    sem_t done;
} w7_state;

static void w7_add(void *ctx, int64_t n) {
    w7_state *state = ctx;
    state->sum = wrapping_add(state->sum, n);
    if (n == state->last) {
        sem_post(&state->done);
    }
}

#ifndef BENCH_FFI
static void w7_next(void *ctx, const sk_value *value) {
    w7_add(ctx, int_of(value));
}
#endif

/* W7: pipe → deliver-on a serial queue → sink; first put to last delivery.
 * W7b (`capacity` > 0): the same through sk_signal_deliver_on_bounded with
 * room to spare (a capacity of 2n, policy error: an overflow would fail the
 * run's checksum), what a bound costs when it never bites. */
static int64_t w7_with(int64_t n, int64_t capacity, bench_probe *p);

static int64_t w7(int64_t n, bench_probe *p) {
    return w7_with(n, 0, p);
}

#ifndef BENCH_FFI
static int64_t w7b(int64_t n, bench_probe *p) {
    return w7_with(n, 2 * n, p);
}
#endif

/* Holds a queue until `ctx`'s semaphore is posted (w7_held). */
static void w7_hold(void *ctx) {
    while (sem_wait(ctx) != 0) {
    }
}

static int64_t w7_run(int64_t n, int64_t capacity, bool held, bench_probe *p);

static int64_t w7_with(int64_t n, int64_t capacity, bench_probe *p) {
    return w7_run(n, capacity, false, p);
}

/* W7 and W7b as `--instructions` counts them: the queue held (busy) while
 * the n values are put, then let go, so that one drain delivers them all.
 * Free-running, how many values a drain finds depends on how the threads
 * are scheduled (under callgrind, W7's count moved by half from one run to
 * the next); held, the count is the same every run: the puts, one
 * dispatch, the deliveries. */
#ifndef BENCH_FFI
static int64_t w7_held(int64_t n, int64_t capacity, bench_probe *p) {
    return w7_run(n, capacity, true, p);
}
#endif

static int64_t w7_run(int64_t n, int64_t capacity, bool held, bench_probe *p) {
    sem_t hold;
    int64_t i;
    w7_state state;
    sk_queue *queue;
    sk_pipe *pipe;
    sk_signal *signal, *delivered;
    sk_disposable *subscription;
    sk_value value;
#ifndef BENCH_FFI
    sk_observer observer = { w7_next, NULL, NULL, &state, NULL };
#endif
    state.sum = 0;
    state.last = n - 1;
    sem_init(&state.done, 0, 0);
    CHECK(sk_queue_create(&queue, "bench.w7.c"));
    CHECK(sk_pipe_create(&pipe, false));
    CHECK(sk_pipe_signal(&signal, pipe));
    if (capacity > 0) {
        CHECK(sk_signal_deliver_on_bounded(&delivered, signal, queue, (size_t)capacity, SK_OVERFLOW_ERROR, NULL, NULL, NULL));
    } else {
        CHECK(sk_signal_deliver_on(&delivered, signal, queue));
    }
#ifdef BENCH_FFI
    start_sink(&subscription, delivered, w7_add, &state);
#else
    CHECK(sk_signal_start(&subscription, delivered, &observer));
#endif
    sem_init(&hold, 0, 0);
    if (held) {
        CHECK(sk_queue_async(queue, w7_hold, &hold, NULL));
    }
    probe_begin(p);
    for (i = 0; i < n; i++) {
        sk_value_set_int64(&value, i);
        CHECK(sk_pipe_put(pipe, &value));
    }
    if (held) {
        sem_post(&hold);
    }
    while (sem_wait(&state.done) != 0) {
    }
    probe_end(p);
    sem_destroy(&hold);
    sk_disposable_dispose(subscription);
    sk_disposable_release(subscription);
    sk_signal_release(delivered);
    sk_signal_release(signal);
    sk_pipe_release(pipe);
    sk_queue_release(queue);
    sem_destroy(&state.done);
    return state.sum;
}

#ifdef BENCH_FFI
/* The "i64(i64)" signature of NP's map (parsed in main). */
static sk_ffi_signature *np_signature;

/* NP's native function: a plain C function of the signature "i64(i64)", as
 * the Python package passes libc's labs through ctypes. */
static int64_t np_abs(int64_t n) {
    return n < 0 ? -n : n;
}

/* NP, the native pipeline of issue 15 (the Python package's "native stages"
 * benchmark, without Python): one pipe -> the typed map "i64(i64)" (np_abs)
 * -> distinct-until-changed -> take(n) -> last -> a summing sink. The puts
 * (+-i, every value distinct after the map) are timed; take's n-th value
 * completes the chain and last delivers n - 1. */
static int64_t np(int64_t n, bench_probe *p) {
    int64_t sum = 0, i;
    sk_pipe *pipe;
    sk_signal *source, *mapped, *distinct, *taken, *last;
    sk_disposable *subscription;
    sk_value value;
    sk_observer observer = { NULL, NULL, NULL, &sum, NULL };
    observer.next = np_sum_next;
    CHECK(sk_pipe_create(&pipe, false));
    CHECK(sk_pipe_signal(&source, pipe));
    CHECK(sk_ffi_signal_map(&mapped, source, np_signature, (sk_ffi_fn)np_abs, NULL, NULL));
    CHECK(sk_signal_distinct_until_changed(&distinct, mapped));
    CHECK(sk_signal_take(&taken, distinct, (size_t)n));
    CHECK(sk_signal_last(&last, taken));
    CHECK(sk_signal_start(&subscription, last, &observer));
    probe_begin(p);
    for (i = 0; i < n; i++) {
        sk_value_set_int64(&value, i % 2 == 0 ? i : -i);
        CHECK(sk_pipe_put(pipe, &value));
    }
    probe_end(p);
    sk_disposable_dispose(subscription);
    sk_disposable_release(subscription);
    sk_signal_release(last);
    sk_signal_release(taken);
    sk_signal_release(distinct);
    sk_signal_release(mapped);
    sk_signal_release(source);
    sk_pipe_release(pipe);
    return sum;
}
#endif

/* ---- driver ---- */

/* The sizes of Benchmarks/README.md (BenchKit's Sizes.standard); `--divide N`
 * divides them as Sizes.divided(by:) does (W3's and W9's sink counts, W8's
 * small pipe and ND's shallow nesting excepted; W9's puts stay even), for
 * profiling under callgrind. */
static int64_t W1_EVENTS = 5000000, W2_CYCLES = 1000000, W2_EVERY = 100000, W3_SINKS = 1000, W3_PUTS = 10000,
               W4_EVENTS = 1000000, W5_PUTS = 1000000, W6_SUBSCRIPTIONS = 100000, W7_EVENTS = 1000000,
               W8_SMALL_ROUNDS = 1000, W8_LARGE = 1000000, W9_PUTS = 1000000, NP_VALUES = 1000000,
               ND_SMALL_ROUNDS = 1000, ND_LARGE = 1000000;
#ifndef BENCH_FFI
static const int64_t W8_SMALL = 1000, W9_SINKS = 10, ND_SMALL = 1000, W3S_SINKS = 100;
static int64_t W3S_PUTS = 100000;
#endif

static int64_t at_least(int64_t value, int64_t minimum) {
    return value < minimum ? minimum : value;
}

static void divide_sizes(int64_t d) {
    W1_EVENTS = at_least(W1_EVENTS / d, 1);
    W2_CYCLES = at_least(W2_CYCLES / d, 1);
    W2_EVERY = at_least(W2_EVERY / d, 1);
    W3_PUTS = at_least(W3_PUTS / d, 1);
#ifndef BENCH_FFI
    W3S_PUTS = at_least(W3S_PUTS / d, 1);
#endif
    W4_EVENTS = at_least(W4_EVENTS / d, 1);
    W5_PUTS = at_least(W5_PUTS / d, 2);
    W6_SUBSCRIPTIONS = at_least(W6_SUBSCRIPTIONS / d, 1);
    W7_EVENTS = at_least(W7_EVENTS / d, 1);
    W8_SMALL_ROUNDS = at_least(W8_SMALL_ROUNDS / d, 1);
    W8_LARGE = at_least(W8_LARGE / d, 1);
    W9_PUTS = at_least(W9_PUTS / d / 2 * 2, 2);
    NP_VALUES = at_least(NP_VALUES / d, 1);
    ND_SMALL_ROUNDS = at_least(ND_SMALL_ROUNDS / d, 1);
    ND_LARGE = at_least(ND_LARGE / d, 1);
}

/* Whether workload `id` was selected (`--workloads W1,W3`; all by default):
 * the list names it, or the part of it before its first '-' (`W8` selects
 * every `W8-...`). */
static const char *selected_workloads;

static int selected(const char *id) {
    const char *item = selected_workloads;
    size_t whole = strlen(id), prefix = strcspn(id, "-");
    if (item == NULL) {
        return 1;
    }
    while (*item != '\0') {
        size_t length = strcspn(item, ",");
        if ((length == whole && strncmp(item, id, whole) == 0) || (length == prefix && strncmp(item, id, prefix) == 0)) {
            return 1;
        }
        item += length + (item[length] == ',');
    }
    return 0;
}

#ifndef BENCH_FFI
/* "1k" for 1000, "1M" for 1000000, else the number. */
static void size_label(char *out, size_t size, int64_t n) {
    if (n >= 1000000 && n % 1000000 == 0) {
        snprintf(out, size, "%lldM", (long long)(n / 1000000));
    } else if (n >= 1000 && n % 1000 == 0) {
        snprintf(out, size, "%lldk", (long long)(n / 1000));
    } else {
        snprintf(out, size, "%lld", (long long)n);
    }
}
#endif

#define RUN(id, unit, units, with_bytes, expected, call)                      \
    do {                                                                     \
        if (selected(id)) {                                                  \
            BENCH_RUN(BENCH_IMPL, id, unit, units, with_bytes, expected, probe_, call); \
        }                                                                    \
    } while (0)


/* --instructions, run by `valgrind --tool=callgrind --collect-atstart=no`
 * (run.py check): callgrind counts only the runs wrapped in COUNTED, each
 * dumped under its label ("W1 n", "W1 2n"): run.py takes the difference
 * between a workload's runs at 2n and n units, per unit, so that building
 * its pipeline cancels out. Each workload runs once uncounted first (lazy
 * symbol binding and the runtime's first-use work). The instrumentation
 * stays on and only the collection is toggled: turning the instrumentation
 * on and off drops every translation callgrind made, which cost some
 * seconds per hundred counted runs. Outside callgrind the requests do
 * nothing. */
#define COUNTED(label, run)          \
    do {                             \
        CALLGRIND_ZERO_STATS;        \
        CALLGRIND_TOGGLE_COLLECT;    \
        run;                         \
        CALLGRIND_TOGGLE_COLLECT;    \
        CALLGRIND_DUMP_STATS_AT(label); \
    } while (0)

/* A workload counted under `label` and checked against its checksum,
 * which is computed before the count starts (the Swift API's program,
 * OperatorCost, computes its own outside the count too). */
#define COUNTED_RUN(label, impl, id, run, expected) \
    do {                                            \
        int64_t expected_ = (expected);             \
        COUNTED(label, bench_expect(impl, id, run, expected_)); \
    } while (0)

#ifdef BENCH_FFI
/* `checks` checks of `signature` (its result read back, which looks it up
 * in the registry of the ffi library's live handles); the count of those
 * that read the wrong result. */
static int64_t handle_checks(const sk_ffi_signature *signature, int64_t checks) {
    int64_t wrong = 0, i;
    for (i = 0; i < checks; i++) {
        wrong += sk_ffi_signature_result(signature) != SK_FFI_INT64;
    }
    return wrong;
}

/* HC: a handle check with 200,000 other signatures alive (a binding that
 * keeps a signature or a trampoline per callback). The registry had a fixed
 * 1024 chains, so a check walked ~200 nodes under its lock (with 10^6 alive,
 * 240 us per check and 143 s to release them all); it grows with the
 * handles now, and a check costs what it costs with one handle alive. */
static void run_handle_check_instructions(void) {
    enum { MANY = 200000 };
    sk_ffi_signature *first, **others = malloc(MANY * sizeof *others);
    int64_t i;
    if (others == NULL) {
        fprintf(stderr, "bench_ffi: out of memory\n");
        exit(1);
    }
    CHECK(sk_ffi_signature_parse(&first, "i64(i64)"));
    /* Registered after `first`: in a chain they come before it. */
    for (i = 0; i < MANY; i++) {
        CHECK(sk_ffi_signature_parse(&others[i], "void(i64)"));
    }
    bench_expect("ffi", "HC", handle_checks(first, 100), 0);
    COUNTED_RUN("HC n", "ffi", "HC", handle_checks(first, 1000), 0);
    COUNTED_RUN("HC 2n", "ffi", "HC", handle_checks(first, 2000), 0);
    for (i = 0; i < MANY; i++) {
        sk_ffi_signature_release(others[i]);
    }
    free(others);
    sk_ffi_signature_release(first);
}

static void run_ffi_instructions(void) {
    bench_probe a;
    bench_expect("ffi", "NP", np(100, &a), 99);
    COUNTED_RUN("NP n", "ffi", "NP", np(10000, &a), 9999);
    COUNTED_RUN("NP 2n", "ffi", "NP", np(20000, &a), 19999);
    run_handle_check_instructions();
}
#else
/* OP (issue 41): the cost table. One operator between a pipe and a plain
 * observer, the shape a user writes, for every operator of the C API: every
 * one from the operator list (Tests/common/operator_list.h,
 * which `make api-update` writes from the operator table and the C
 * declarations, so that a new operator gets its row with no hand work),
 * built through its shape; two rows more (COST_BY_HAND) built here. `puts`
 * puts of 0..<puts (the operators of a signal of signals put a one-value
 * signal each time); the time and
 * queue operators run on a virtual-time queue, advanced after the start and
 * after the puts, so that a row counts the deliveries the operator makes.
 * run.py takes each row's instructions per put under callgrind (the
 * difference between 4,000 and 2,000 puts, building the pipeline cancels)
 * and its allocations per put (the same difference, MallocCounter); the
 * program checks that each put delivered what the row says
 * (cost_deliveries_hundredths), so that a row that stopped early cannot
 * look cheap. What each row's operator is given: CostRows.h (shared with
 * bench_cpp.cpp and the Swift API's OperatorCost). */

/* The plain observer counts its deliveries and reads nothing, as the C++
 * program's lambda and the Swift program's closure do: a row's figure is
 * its pipeline's cost less the bare row's, so what the observer does per
 * value stays in every row that delivers other than one value per put (a
 * read of each value through the library, sk_value_kind and
 * sk_value_get_int64, ~32 instructions, sk_value_get_array_count ~33 more
 * for an array, made the C rows that deliver nothing look that much
 * cheaper than their C++ rows, and those that deliver two or an array that
 * much dearer). */
typedef struct cost_sink {
    int64_t deliveries; /* value callbacks */
} cost_sink;

static void cost_next(void *ctx, const sk_value *value) {
    cost_sink *sink = ctx;
    (void)value;
    sink->deliveries++;
}

static void plus_one(void *ctx, const sk_value *value, sk_value *out) {
    (void)ctx;
    sk_value_set_int64(out, int_of(value) + 1);
}

static void constant_key(void *ctx, const sk_value *value, sk_value *out) {
    (void)ctx;
    (void)value;
    sk_value_set_int64(out, 0);
}

static bool holds(void *ctx, const sk_value *value) {
    (void)ctx;
    (void)value;
    return true;
}

static bool fails(void *ctx, const sk_value *value) {
    (void)ctx;
    (void)value;
    return false;
}

static int take_pass(void *ctx, const sk_value *value) {
    (void)ctx;
    (void)value;
    return SK_TAKE_PASS;
}

static void look(void *ctx, const sk_value *value) {
    (void)ctx;
    (void)value;
}

static void work(void *ctx) {
    (void)ctx;
}

static sk_signal *deferred_source(void *ctx) {
    return sk_signal_retain(ctx);
}

static void release_signal(void *ctx) {
    sk_signal_release(ctx);
}

static void dropped(void *ctx, const sk_value *value, uint64_t count) {
    (void)ctx;
    (void)value;
    (void)count;
    fprintf(stderr, "bench_capi: a bounded buffer dropped values\n");
    exit(1);
}

/* The rows that are no operator of the list: the bare pipe (the base every
 * row includes), buffer_count of 100 and deliver_on with a dispatch per
 * value (cost_advance_each_put). */
static const char *const COST_BY_HAND[] = {"bare", "buffer_count_100", "deliver_on_each"};
enum { COST_BY_HAND_COUNT = sizeof COST_BY_HAND / sizeof COST_BY_HAND[0] };

/* The resources of one row's run. */
typedef struct cost_run {
    sk_pipe *other_pipe;
    sk_signal *other;
    sk_queue *queue;
} cost_run;

static sk_signal *cost_other(cost_run *run, bool replaying) {
    sk_value zero;
    sk_value_set_int64(&zero, 0);
    CHECK(sk_pipe_create(&run->other_pipe, replaying));
    if (replaying) {
        CHECK(sk_pipe_put(run->other_pipe, &zero));
    }
    CHECK(sk_pipe_signal(&run->other, run->other_pipe));
    return run->other;
}

static sk_queue *cost_queue(cost_run *run) {
    CHECK(sk_queue_create_virtual(&run->queue, "cost"));
    return run->queue;
}

/* An operator of the list through its shape, with CostRows.h's arguments
 * for each kind it takes: no drop callback fires (each exits), deferred's
 * function returns the pipe's signal (its context), combine_latest has no
 * queue and retry_count no delay. */
static void cost_build(const sk_test_operator *op, const char *row, sk_signal *source, cost_run *run,
                       sk_signal **out) {
    sk_signal *both[2] = {source, source};
    sk_value zero;
    sk_value_set_int64(&zero, 0);
    sk_test_args a = {
        .source = source, .count = (size_t)cost_count(row), .concurrency = COST_CONCURRENCY,
        .retries = COST_RETRIES, .predicate = cost_predicate_holds(row) ? holds : fails,
        .map = cost_constant_key(row) ? constant_key : plus_one, .value = &zero, .initial = &zero,
        .fold = add_values, .signals = both, .signal_count = 2, .seconds = cost_seconds(row), .most = COST_MOST,
        .look = look, .work = work, .inner = single_of, .action = take_pass, .make = deferred_source,
        .flag = false, .capacity = COST_CAPACITY, .overflow = SK_OVERFLOW_DROP_NEWEST, .on_drop = dropped,
    };
    if (sk_test_takes(op, SK_ARG_OTHER)) {
        a.other = cost_other(run, cost_replaying_other(row));
    }
    if (sk_test_takes(op, SK_ARG_QUEUE)) {
        a.queue = cost_queue(run);
    }
    if (sk_test_takes(op, SK_ARG_MAKE)) {
        a.ctx = sk_signal_retain(source);
        a.release = release_signal;
    }
    CHECK(op->call(out, &a));
}

static void cost_build_by_hand(const char *row, sk_signal *source, cost_run *run, sk_signal **out) {
    if (strcmp(row, "bare") == 0) {
        *out = sk_signal_retain(source);
    } else if (strcmp(row, "buffer_count_100") == 0) {
        CHECK(sk_signal_buffer_count(out, source, 100));
    } else if (strcmp(row, "deliver_on_each") == 0) {
        CHECK(sk_signal_deliver_on(out, source, cost_queue(run)));
    } else {
        fprintf(stderr, "bench_capi: no row %s\n", row);
        exit(1);
    }
}

/* One row: build, start, `puts` puts, dispose, release; the observer's
 * figures. `op` is the operator of the list, NULL for a row by hand. */
static cost_sink cost_row(const sk_test_operator *op, const char *row, int64_t puts) {
    sk_pipe *pipe;
    sk_signal *source, *made = NULL, *single = NULL;
    sk_disposable *subscription;
    sk_value value;
    cost_run run = {NULL, NULL, NULL};
    cost_sink sink = {0};
    int64_t i;
    bool signals = op != NULL && (op->conventions & SK_TEST_OF_SIGNALS);
    CHECK(sk_pipe_create(&pipe, false));
    CHECK(sk_pipe_signal(&source, pipe));
    if (op != NULL) {
        cost_build(op, row, source, &run, &made);
    } else {
        cost_build_by_hand(row, source, &run, &made);
    }
    if (signals) {
        sk_value one;
        sk_value_set_int64(&one, 1);
        CHECK(sk_signal_single(&single, &one));
        CHECK(sk_value_set_signal(&value, single));
    }
    sk_observer observer = {cost_next, NULL, NULL, &sink, NULL};
    CHECK(sk_signal_start(&subscription, made, &observer));
    if (run.queue != NULL) {
        CHECK(sk_queue_virtual_advance_by(run.queue, COST_ADVANCE, NULL));
    }
    /* Decided once: a string compare per put would count in every row
     * (~40 instructions per put, the bare row's included). */
    bool advance_each = cost_advance_each_put(row);
    for (i = 0; i < puts; i++) {
        if (!signals) {
            sk_value_set_int64(&value, i);
        }
        CHECK(sk_pipe_put(pipe, &value));
        if (advance_each) {
            CHECK(sk_queue_virtual_advance_by(run.queue, COST_ADVANCE, NULL));
        }
    }
    if (run.queue != NULL) {
        CHECK(sk_queue_virtual_advance_by(run.queue, COST_ADVANCE, NULL));
    }
    sk_disposable_dispose(subscription);
    sk_disposable_release(subscription);
    if (signals) {
        sk_value_release(&value);
        sk_signal_release(single);
    }
    sk_signal_release(made);
    sk_signal_release(run.other);
    sk_pipe_release(run.other_pipe);
    sk_queue_release(run.queue);
    sk_signal_release(source);
    sk_pipe_release(pipe);
    return sink;
}

/* A row at 2,000 and 4,000 puts, each counted under its label ("op:map n",
 * "op:map 2n"); its allocations and deliveries per put on stdout. */
static void cost_measure(const sk_test_operator *op, const char *row) {
    char label[80], check[120];
    cost_sink a, b;
    mc_snapshot s0, s1, s2;
    int64_t expected;
    cost_row(op, row, 100);
    snprintf(label, sizeof label, "op:%s n", row);
    s0 = mc_read();
    COUNTED(label, a = cost_row(op, row, COST_PUTS));
    s1 = mc_read();
    snprintf(label, sizeof label, "op:%s 2n", row);
    COUNTED(label, b = cost_row(op, row, 2 * COST_PUTS));
    s2 = mc_read();
    expected = COST_PUTS * cost_deliveries_hundredths(row) / 100;
    if (b.deliveries - a.deliveries != expected) {
        printf("{\"impl\":\"c\",\"workload\":\"op:%s\",\"error\":\"%lld more deliveries for 2,000 more puts, expected %lld\"}\n",
               row, (long long)(b.deliveries - a.deliveries), (long long)expected);
        fflush(stdout);
        exit(1);
    }
    snprintf(check, sizeof check, "c.op.%s.allocs_per_put", row);
    check_line(check, (double)((int64_t)(s2.mallocs + s2.reallocs - s1.mallocs - s1.reallocs) -
                               (int64_t)(s1.mallocs + s1.reallocs - s0.mallocs - s0.reallocs)) / COST_PUTS);
    printf("{\"row\":\"%s\",\"impl\":\"c\",\"function\":\"%s\",\"deliveries_per_put\":%.2f}\n", row,
           op != NULL ? op->name : "", (double)(b.deliveries - a.deliveries) / COST_PUTS);
}

/* COST_ONLY=ROW[,ROW...] (as the Swift program's): whether `row` is run. */
static bool cost_selected(const char *row) {
    const char *only = getenv("COST_ONLY");
    size_t n = strlen(row);
    if (only == NULL) {
        return true;
    }
    for (const char *p = only; *p != '\0';) {
        const char *end = strchr(p, ',');
        size_t len = end != NULL ? (size_t)(end - p) : strlen(p);
        if (len == n && strncmp(p, row, n) == 0) {
            return true;
        }
        p += len + (end != NULL);
    }
    return false;
}

static void run_operator_instructions(void) {
    size_t i;
    for (i = 0; i < COST_BY_HAND_COUNT; i++) {
        if (cost_selected(COST_BY_HAND[i])) {
            cost_measure(NULL, COST_BY_HAND[i]);
        }
    }
    for (i = 0; i < SK_TEST_OPERATOR_COUNT; i++) {
        const char *row = SK_TEST_OPERATORS[i].name + strlen("sk_signal_");
        if (cost_selected(row)) {
            cost_measure(&SK_TEST_OPERATORS[i], row);
        }
    }
    fflush(stdout);
}

static void run_instructions(void) {
    bench_probe a;
    if (getenv("COST_ONLY") != NULL) {
        /* One row or a few, to profile them. */
        run_operator_instructions();
        return;
    }
    bench_expect("c", "W1", w1(1000, &a), expected_w1(1000));
    COUNTED_RUN("W1 n", "c", "W1", w1(50000, &a), expected_w1(50000));
    COUNTED_RUN("W1 2n", "c", "W1", w1(100000, &a), expected_w1(100000));
    /* A put every 1,000 cycles at n and every 2,000 at 2n: ten puts in
     * each, so that the difference is subscriptions alone. */
    bench_expect("c", "W2", w2(100, 10, &a), expected_w2(100, 10));
    COUNTED_RUN("W2 n", "c", "W2", w2(10000, 1000, &a), expected_w2(10000, 1000));
    COUNTED_RUN("W2 2n", "c", "W2", w2(20000, 2000, &a), expected_w2(20000, 2000));
    bench_expect("c", "W2b", w2b(100, 10, &a), expected_w2(100, 10));
    COUNTED_RUN("W2b n", "c", "W2b", w2b(10000, 1000, &a), expected_w2(10000, 1000));
    COUNTED_RUN("W2b 2n", "c", "W2b", w2b(20000, 2000, &a), expected_w2(20000, 2000));
    bench_expect("c", "W4", w4(100, &a), sum_below(100));
    COUNTED_RUN("W4 n", "c", "W4", w4(10000, &a), sum_below(10000));
    COUNTED_RUN("W4 2n", "c", "W4", w4(20000, &a), sum_below(20000));
    bench_expect("c", "W5", w5(100, &a), expected_w5(100));
    COUNTED_RUN("W5 n", "c", "W5", w5(10000, &a), expected_w5(10000));
    COUNTED_RUN("W5 2n", "c", "W5", w5(20000, &a), expected_w5(20000));
    /* W3, W3s, W5z and W5s as OperatorCost counts them in the Swift API
     * (issue 78: the C API at most 1.2 times the Swift API per unit): W3 and
     * W3s double the puts over the same sinks, a unit is a delivery. */
    bench_expect("c", "W3", w3(1000, 2, &a), 1000 * sum_below(2));
    COUNTED_RUN("W3 n", "c", "W3", w3(1000, 20, &a), 1000 * sum_below(20));
    COUNTED_RUN("W3 2n", "c", "W3", w3(1000, 40, &a), 1000 * sum_below(40));
    bench_expect("c", "W3s", w3share(100, 10, &a), 100 * sum_below(10));
    COUNTED_RUN("W3s n", "c", "W3s", w3share(100, 100, &a), 100 * sum_below(100));
    COUNTED_RUN("W3s 2n", "c", "W3s", w3share(100, 200, &a), 100 * sum_below(200));
    bench_expect("c", "W5z", w5zip(100, &a), expected_w5zip(100));
    COUNTED_RUN("W5z n", "c", "W5z", w5zip(10000, &a), expected_w5zip(10000));
    COUNTED_RUN("W5z 2n", "c", "W5z", w5zip(20000, &a), expected_w5zip(20000));
    bench_expect("c", "W5s", w5scan(100, &a), expected_w5scan(100));
    COUNTED_RUN("W5s n", "c", "W5s", w5scan(10000, &a), expected_w5scan(10000));
    COUNTED_RUN("W5s 2n", "c", "W5s", w5scan(20000, &a), expected_w5scan(20000));
    /* ND: 10,000 and 20,000 nested metas. Linear, the difference is what
     * one container costs; quadratic (the put-off ends taken from the front
     * of an array), it grew with the nesting: tens of thousands. */
    bench_expect("c", "ND", nested(100, 1, NESTED_META, &a), 1);
    COUNTED_RUN("ND n", "c", "ND", nested(10000, 1, NESTED_META, &a), 1);
    COUNTED_RUN("ND 2n", "c", "ND", nested(20000, 1, NESTED_META, &a), 1);
    /* W7 and W7b, held (w7_held): both threads' instructions. */
    bench_expect("c", "W7", w7_held(100, 0, &a), sum_below(100));
    COUNTED_RUN("W7 n", "c", "W7", w7_held(20000, 0, &a), sum_below(20000));
    COUNTED_RUN("W7 2n", "c", "W7", w7_held(40000, 0, &a), sum_below(40000));
    bench_expect("c", "W7b", w7_held(100, 200, &a), sum_below(100));
    COUNTED_RUN("W7b n", "c", "W7b", w7_held(20000, 40000, &a), sum_below(20000));
    COUNTED_RUN("W7b 2n", "c", "W7b", w7_held(40000, 80000, &a), sum_below(40000));
    run_operator_instructions();
}
#endif

#ifdef BENCH_FFI
/* bench_ffi --np-only N: NP alone, once (0: the usual run). */
static int64_t np_only;

/* bench_ffi --check: NP's allocations per value (20,000 against 10,000
 * puts). Its instructions per value are counted by run.py under callgrind
 * (bench_ffi --instructions). */
static void run_ffi_checks(void) {
    bench_probe a, b;
    bench_expect("ffi", "NP", np(100, &a), 99);
    bench_expect("ffi", "NP", np(10000, &a), 9999);
    bench_expect("ffi", "NP", np(20000, &b), 19999);
    check_line("ffi.np.allocs_per_value", (double)(allocs_of(&b) - allocs_of(&a)) / 10000);
    fflush(stdout);
}
#else

static void run_checks(void) {
    bench_probe a, b, c;
    /* W6 first: its live bytes depend on the heap's state (which freed
     * chunks glibc reuses, and how much of each is usable), so that it is
     * measured after W6 alone, whatever the other workloads allocate. */
    bench_expect("c", "W6", w6(100, &a), 200);
    bench_expect("c", "W6", w6(10000, &a), 20000);
    bench_expect("c", "W6", w6(20000, &b), 40000);
    check_line("c.w6.bytes_per_subscription", (double)(b.sample.live_bytes - a.sample.live_bytes) / 10000);
    check_line("c.w6.allocs_per_subscription", (double)(allocs_of(&b) - allocs_of(&a)) / 10000);
    /* W6b: the same with the pipeline built per subscription, and the
     * handles (sk_live_objects) each subscription keeps alive. */
    bench_expect("c", "W6b", w6b(100, &a), 200);
    bench_expect("c", "W6b", w6b(10000, &a), 20000);
    {
        long objects_a = w6b_live_objects;
        bench_expect("c", "W6b", w6b(20000, &b), 40000);
        check_line("c.w6b.bytes_per_subscription", (double)(b.sample.live_bytes - a.sample.live_bytes) / 10000);
        check_line("c.w6b.allocs_per_subscription", (double)(allocs_of(&b) - allocs_of(&a)) / 10000);
        check_line("c.w6b.live_objects_per_subscription", (double)(w6b_live_objects - objects_a) / 10000);
    }

    bench_expect("c", "W1", w1(1000, &a), expected_w1(1000));
    bench_expect("c", "W2", w2(100, 10, &a), expected_w2(100, 10));
    bench_expect("c", "W3", w3(10, 10, &a), 10 * sum_below(10));
    bench_expect("c", "W4", w4(100, &a), sum_below(100));

    bench_expect("c", "W1", w1(100000, &a), expected_w1(100000));
    bench_expect("c", "W1", w1(200000, &b), expected_w1(200000));
    check_line("c.w1.allocs_per_event", (double)(allocs_of(&b) - allocs_of(&a)) / 100000);

    bench_expect("c", "W2", w2(10000, 1000000, &a), expected_w2(10000, 1000000));
    bench_expect("c", "W2", w2(20000, 1000000, &b), expected_w2(20000, 1000000));
    check_line("c.w2.allocs_per_cycle", (double)(allocs_of(&b) - allocs_of(&a)) / 10000);

    bench_expect("c", "W2b", w2b(100, 10, &a), expected_w2(100, 10));
    bench_expect("c", "W2b", w2b(10000, 1000000, &a), expected_w2(10000, 1000000));
    bench_expect("c", "W2b", w2b(20000, 1000000, &b), expected_w2(20000, 1000000));
    check_line("c.w2b.allocs_per_cycle", (double)(allocs_of(&b) - allocs_of(&a)) / 10000);

    bench_expect("c", "W3", w3(100, 1000, &a), 100 * sum_below(1000));
    bench_expect("c", "W3", w3(100, 2000, &b), 100 * sum_below(2000));
    bench_expect("c", "W3", w3(200, 2000, &c), 200 * sum_below(2000));
    check_line("c.w3.allocs_per_put", (double)(allocs_of(&b) - allocs_of(&a)) / 1000);
    check_line("c.w3.allocs_per_delivery", (double)(allocs_of(&c) - allocs_of(&b)) / 200000);

    bench_expect("c", "W4", w4(10000, &a), sum_below(10000));
    bench_expect("c", "W4", w4(20000, &b), sum_below(20000));
    check_line("c.w4.allocs_per_event", (double)(allocs_of(&b) - allocs_of(&a)) / 10000);

    bench_expect("c", "W5", w5(10000, &a), expected_w5(10000));
    bench_expect("c", "W5", w5(20000, &b), expected_w5(20000));
    check_line("c.w5.allocs_per_put", (double)(allocs_of(&b) - allocs_of(&a)) / 10000);

    bench_expect("c", "W5z", w5zip(100, &a), expected_w5zip(100));
    bench_expect("c", "W5z", w5zip(10000, &a), expected_w5zip(10000));
    bench_expect("c", "W5z", w5zip(20000, &b), expected_w5zip(20000));
    check_line("c.w5z.allocs_per_put", (double)(allocs_of(&b) - allocs_of(&a)) / 10000);

    bench_expect("c", "W5s", w5scan(100, &a), expected_w5scan(100));
    bench_expect("c", "W5s", w5scan(10000, &a), expected_w5scan(10000));
    bench_expect("c", "W5s", w5scan(20000, &b), expected_w5scan(20000));
    check_line("c.w5s.allocs_per_put", (double)(allocs_of(&b) - allocs_of(&a)) / 10000);

    /* W10: per round (20,000 against 10,000 rounds). */
    bench_expect("c", "W10", w10(100, &a), expected_w10(100));
    bench_expect("c", "W10", w10(10000, &a), expected_w10(10000));
    bench_expect("c", "W10", w10(20000, &b), expected_w10(20000));
    check_line("c.w10.allocs_per_round", (double)(allocs_of(&b) - allocs_of(&a)) / 10000);

    {
        /* W8 at 1,000 subscriptions: the difference between 20 and 10 rounds,
         * per subscription, for each order; the checked figure is the largest. */
        double worst = 0;
        int order;
        char name[64];
        for (order = 0; order < 3; order++) {
            double per_subscription;
            bench_expect("c", "W8", w8(1000, 10, (dispose_order)order, &a), expected_w8(1000, 10));
            bench_expect("c", "W8", w8(1000, 20, (dispose_order)order, &b), expected_w8(1000, 20));
            per_subscription = (double)(allocs_of(&b) - allocs_of(&a)) / 10000;
            snprintf(name, sizeof name, "c.w8.allocs_per_subscription_1k.%s", ORDER_NAMES[order]);
            check_line(name, per_subscription);
            worst = per_subscription > worst ? per_subscription : worst;
        }
        check_line("c.w8.allocs_per_subscription_1k", worst);
    }

    /* W9 from one thread: per delivery (ten sinks, 20,000 against 10,000 puts). */
    bench_expect("c", "W9", w9(1, 10, 10000, &a), 10 * sum_below(10000));
    bench_expect("c", "W9", w9(1, 10, 20000, &b), 10 * sum_below(20000));
    check_line("c.w9.allocs_per_delivery", (double)(allocs_of(&b) - allocs_of(&a)) / 100000);
    fflush(stdout);
}
#endif

int main(int argc, char **argv) {
    int reps = bench_reps(argc, argv);
    bench_probe probe_;
    int i;
    for (i = 1; i + 1 < argc; i++) {
        if (strcmp(argv[i], "--divide") == 0 && atoi(argv[i + 1]) > 1) {
            divide_sizes(atoi(argv[i + 1]));
        } else if (strcmp(argv[i], "--workloads") == 0) {
            selected_workloads = argv[i + 1];
#ifdef BENCH_FFI
        } else if (strcmp(argv[i], "--np-only") == 0) {
            np_only = atoll(argv[i + 1]);
#endif
        }
    }
#ifdef BENCH_FFI
    CHECK(sk_ffi_signature_parse(&sink_signature, "void(ctx,i64)"));
    CHECK(sk_ffi_signature_parse(&np_signature, "i64(i64)"));
    if (bench_has_flag(argc, argv, "--check")) {
        run_ffi_checks();
    } else if (bench_has_flag(argc, argv, "--instructions")) {
        run_ffi_instructions();
    } else if (np_only > 0) {
        /* One run of NP alone, for instruction counts (run.py check). */
        bench_expect("ffi", "NP", np(np_only, &probe_), np_only - 1);
    } else {
        RUN("W1", "event", W1_EVENTS, 0, expected_w1(W1_EVENTS), w1(W1_EVENTS, &probe_));
        RUN("W3", "delivery", (int64_t)W3_SINKS * W3_PUTS, 0, W3_SINKS * sum_below(W3_PUTS), w3(W3_SINKS, W3_PUTS, &probe_));
        RUN("W7", "event", W7_EVENTS, 0, sum_below(W7_EVENTS), w7(W7_EVENTS, &probe_));
        RUN("NP", "value", NP_VALUES, 0, NP_VALUES - 1, np(NP_VALUES, &probe_));
    }
    sk_ffi_signature_release(np_signature);
    sk_ffi_signature_release(sink_signature);
    if (sk_ffi_live_objects() != 0) {
        fprintf(stderr, "ffi objects left: %ld\n", sk_ffi_live_objects());
        return 1;
    }
#else
    if (bench_has_flag(argc, argv, "--check")) {
        run_checks();
        return sk_live_objects() == 0 ? 0 : (fprintf(stderr, "live objects left: %ld\n", sk_live_objects()), 1);
    }
    if (bench_has_flag(argc, argv, "--instructions")) {
        run_instructions();
        return sk_live_objects() == 0 ? 0 : (fprintf(stderr, "live objects left: %ld\n", sk_live_objects()), 1);
    }
    RUN("W1", "event", W1_EVENTS, 0, expected_w1(W1_EVENTS), w1(W1_EVENTS, &probe_));
    RUN("W2", "cycle", W2_CYCLES, 0, expected_w2(W2_CYCLES, W2_EVERY), w2(W2_CYCLES, W2_EVERY, &probe_));
    RUN("W2b", "cycle", W2_CYCLES, 0, expected_w2(W2_CYCLES, W2_EVERY), w2b(W2_CYCLES, W2_EVERY, &probe_));
    RUN("W3", "delivery", (int64_t)W3_SINKS * W3_PUTS, 0, W3_SINKS * sum_below(W3_PUTS), w3(W3_SINKS, W3_PUTS, &probe_));
    RUN("W4", "event", W4_EVENTS, 0, sum_below(W4_EVENTS), w4(W4_EVENTS, &probe_));
    RUN("W5", "put", W5_PUTS, 0, expected_w5(W5_PUTS), w5(W5_PUTS, &probe_));
    RUN("W5z", "put", W5_PUTS, 0, expected_w5zip(W5_PUTS), w5zip(W5_PUTS, &probe_));
    RUN("W5s", "put", W5_PUTS, 0, expected_w5scan(W5_PUTS), w5scan(W5_PUTS, &probe_));
    RUN("W3s", "delivery", W3S_SINKS * W3S_PUTS, 0, W3S_SINKS * sum_below(W3S_PUTS),
        w3share(W3S_SINKS, W3S_PUTS, &probe_));
    RUN("W6", "subscription", W6_SUBSCRIPTIONS, 1, 2 * W6_SUBSCRIPTIONS, w6(W6_SUBSCRIPTIONS, &probe_));
    RUN("W6b", "subscription", W6_SUBSCRIPTIONS, 1, 2 * W6_SUBSCRIPTIONS, w6b(W6_SUBSCRIPTIONS, &probe_));
    RUN("W7", "event", W7_EVENTS, 0, sum_below(W7_EVENTS), w7(W7_EVENTS, &probe_));
    RUN("W7b", "event", W7_EVENTS, 0, sum_below(W7_EVENTS), w7b(W7_EVENTS, &probe_));
    {
        /* W8: the small pipe over its rounds and the large one, each disposed
         * in the three orders: "W8-1k-first" ... "W8-1M-random". */
        int64_t sizes[2][2] = { { W8_SMALL, W8_SMALL_ROUNDS }, { W8_LARGE, 1 } };
        int size, order, threads;
        char id[64], label[32];
        for (size = 0; size < 2; size++) {
            int64_t n = sizes[size][0], rounds = sizes[size][1];
            size_label(label, sizeof label, n);
            for (order = 0; order < 3; order++) {
                snprintf(id, sizeof id, "W8-%s-%s", label, ORDER_NAMES[order]);
                RUN(id, "subscription", n * rounds, BENCH_PHASES, expected_w8(n, rounds),
                    w8(n, rounds, (dispose_order)order, &probe_));
            }
        }
        /* W9: the puts from one thread, then from two at once. */
        for (threads = 1; threads <= 2; threads++) {
            snprintf(id, sizeof id, "W9-%dt", threads);
            RUN(id, "delivery", W9_SINKS * W9_PUTS, 0, W9_SINKS * sum_below(W9_PUTS),
                w9(threads, W9_SINKS, W9_PUTS, &probe_));
        }
        /* ND: the shallow nesting over its rounds and the deep one, of each
         * kind: "ND-1k-meta" ... "ND-1M-dict". */
        {
            int64_t nd_sizes[2][2] = { { ND_SMALL, ND_SMALL_ROUNDS }, { ND_LARGE, 1 } };
            int kind;
            for (size = 0; size < 2; size++) {
                int64_t depth = nd_sizes[size][0], rounds = nd_sizes[size][1];
                size_label(label, sizeof label, depth);
                for (kind = 0; kind < 3; kind++) {
                    snprintf(id, sizeof id, "ND-%s-%s", label, NESTED_NAMES[kind]);
                    RUN(id, "container", depth * rounds, BENCH_PHASES, rounds,
                        nested(depth, rounds, (nested_kind)kind, &probe_));
                }
            }
        }
    }
#endif
    if (sk_live_objects() != 0) {
        fprintf(stderr, "live objects left: %ld\n", sk_live_objects());
        return 1;
    }
    return 0;
}
