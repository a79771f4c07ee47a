/*
 * collide.c - the schedule explorer's yardstick (issue 50, item 5): how
 * soon a build finds a lifetime race in the spin-locked state of
 * combine_latest.
 *
 * Each round builds a nested combination over three pipes,
 * combine_latest(combine_latest(p0, p1), p2), with no queue, and one
 * observer that copies every value it receives (an array of an array and
 * an integer) and releases the copy. Three threads, one per pipe, then put
 * PUTS values each into their pipe at once, so that the outer combination's
 * two inputs replace and read each other's latest value on two threads all
 * the time: the inner one's arrays, heap objects, in one slot. Then every
 * handle is released and the next round begins, until the time is up.
 *
 * Against a correct library it ends with status 0 and prints its rounds.
 * Against a build with a lifetime bug in that state (make explore-measure:
 * issue 50's crash, `SIGNALKIT_PLANT_UNLOCK_BUG`, or a read after the
 * unlock, `SIGNALKIT_PLANT_LIFETIME_BUG`), it crashes, or sees a value that
 * is not one that was put: Tests/soak/explore-measure.sh times how long
 * that takes, for the explorer's build against the plain one.
 *
 * Usage: collide [seconds [puts]]. Nothing is random here: the schedule is
 * the machine's, or the explorer's (SIGNALKIT_EXPLORE_SEED).
 */
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "signalkit.h"

#define PIPES 3

#define SOAK_NAME "collide"
#include "check.h"

static sk_pipe *pipes[PIPES];
static pthread_barrier_t round_start, round_end;
static atomic_bool finished;
static long puts_per_round = 2000;
static atomic_long received;

static double now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

/* Every value is [[a, b], c], each an integer below puts_per_round. */
static void check_int(const sk_value *value) {
    int64_t n = 0;
    if (sk_value_get_int64(value, &n) != SK_OK || n < 0 || n >= puts_per_round) {
        fprintf(stderr, "collide: a value that was never put\n");
        abort();
    }
}

static void on_next(void *ctx, const sk_value *value) {
    (void)ctx;
    sk_value copy;
    CHECK(sk_value_copy(&copy, value));
    const sk_value *inner = NULL;
    const sk_value *last = NULL;
    size_t outer_count = 0;
    size_t inner_count = 0;
    CHECK(sk_value_get_array_count(&copy, &outer_count));
    if (outer_count != 2) {
        fprintf(stderr, "collide: an array of %zu values, not 2\n", outer_count);
        abort();
    }
    CHECK(sk_value_get_array_item(&copy, 0, &inner));
    CHECK(sk_value_get_array_item(&copy, 1, &last));
    CHECK(sk_value_get_array_count(inner, &inner_count));
    if (inner_count != 2) {
        fprintf(stderr, "collide: an inner array of %zu values, not 2\n", inner_count);
        abort();
    }
    for (size_t i = 0; i < 2; i++) {
        const sk_value *item = NULL;
        CHECK(sk_value_get_array_item(inner, i, &item));
        check_int(item);
    }
    check_int(last);
    sk_value_release(&copy);
    atomic_fetch_add_explicit(&received, 1, memory_order_relaxed);
}

static void *putter(void *arg) {
    size_t index = (size_t)(uintptr_t)arg;
    for (;;) {
        pthread_barrier_wait(&round_start);
        if (atomic_load(&finished)) {
            return NULL;
        }
        for (long i = 0; i < puts_per_round; i++) {
            sk_value v;
            sk_value_set_int64(&v, i);
            sk_pipe_put(pipes[index], &v);
        }
        pthread_barrier_wait(&round_end);
    }
}

int main(int argc, char **argv) {
    double seconds = argc > 1 ? atof(argv[1]) : 10;
    if (argc > 2) {
        puts_per_round = atol(argv[2]);
    }
    pthread_barrier_init(&round_start, NULL, PIPES + 1);
    pthread_barrier_init(&round_end, NULL, PIPES + 1);
    pthread_t threads[PIPES];
    for (size_t i = 0; i < PIPES; i++) {
        pthread_create(&threads[i], NULL, putter, (void *)(uintptr_t)i);
    }
    double start = now();
    long rounds = 0;
    while (now() - start < seconds) {
        sk_signal *inputs[PIPES];
        for (size_t i = 0; i < PIPES; i++) {
            CHECK(sk_pipe_create(&pipes[i], false));
            CHECK(sk_pipe_signal(&inputs[i], pipes[i]));
        }
        sk_signal *inner = NULL;
        sk_signal *outer = NULL;
        CHECK(sk_signal_combine_latest(&inner, inputs, 2, NULL));
        sk_signal *outer_inputs[2] = {inner, inputs[2]};
        CHECK(sk_signal_combine_latest(&outer, outer_inputs, 2, NULL));
        sk_observer observer = {on_next, NULL, NULL, NULL, NULL};
        sk_disposable *subscription = NULL;
        CHECK(sk_signal_start(&subscription, outer, &observer));
        pthread_barrier_wait(&round_start);
        pthread_barrier_wait(&round_end);
        sk_disposable_dispose(subscription);
        sk_disposable_release(subscription);
        sk_signal_release(outer);
        sk_signal_release(inner);
        for (size_t i = 0; i < PIPES; i++) {
            sk_signal_release(inputs[i]);
            sk_pipe_release(pipes[i]);
        }
        rounds++;
    }
    atomic_store(&finished, true);
    pthread_barrier_wait(&round_start);
    for (size_t i = 0; i < PIPES; i++) {
        pthread_join(threads[i], NULL);
    }
    long alive = sk_live_objects();
    printf("collide: %ld rounds of %ld puts per pipe in %.1f s, %ld values received, %ld objects alive\n",
           rounds, puts_per_round, now() - start, atomic_load(&received), alive);
    return alive == 0 ? 0 : 1;
}
