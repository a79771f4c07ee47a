/*
 * terminal.c - nothing after the terminal event (issue 50): rounds of 8
 * threads putting values into one subscription while a ninth ends it.
 *
 * The promise checked is the conventions' "Callbacks" rule of signalkit.h:
 * a value callback that has begun returns before the terminal callback
 * runs, and none begins after it. Each observer counts the value callbacks
 * running; its terminal callback fails the run if one is, and a value
 * callback fails it if the terminal callback has already run.
 *
 * A round is one of: a generator's subscriber put into from the threads
 * (sk_subscriber_put_next), or a pipe (sk_pipe_put); directly, or through
 * an operator whose values reach the stages below without a subscriber's
 * call of its own (share, combine_latest with a second pipe, with_latest_from
 * of one, start_with); seen directly, through a fused map, through a map
 * and a take that never fills (separate subscribers, so the terminal event
 * crosses two of them), or through a map whose function fails
 * (sk_callback_fail) at a random call, on a putting thread; started with
 * sk_signal_start() or sk_signal_start_held(); ended with a completion or
 * an error, after a random number of values (an error alone through
 * combine_latest and with_latest_from, whose second pipe never ends), or
 * by the failing map. Every observer must be released once and receive
 * exactly one terminal event.
 *
 * Usage: terminal [rounds [seed]]; the seed is printed. Exit status 1 on a
 * violation, with the round and what was seen.
 */
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "signalkit.h"

#define PUTTERS 8
#define PUTS_PER_THREAD 64

#define SOAK_NAME "terminal"
#include "check.h"

typedef struct {
    atomic_int in_next;     /* value callbacks running */
    atomic_int terminals;   /* terminal callbacks run */
    atomic_int releases;
    atomic_long late_values; /* value callbacks begun after the terminal one */
    atomic_long overlaps;    /* terminal callbacks run while a value one ran */
} observation;

typedef struct {
    int source;     /* 0: generator, 1: pipe */
    int between;    /* 0: none, 1: share, 2: combine_latest, 3: with_latest_from, 4: start_with */
    int chain;      /* 0: none, 1: map (fused), 2: map then take, 3: a map that fails */
    int held;       /* sk_signal_start_held() */
    int error;      /* end with an error, else a completion */
    long end_after; /* values put before the end */
    sk_subscriber *subscriber;
    sk_pipe *pipe;
    sk_pipe *other; /* combine_latest's and with_latest_from's second signal */
    atomic_long puts;
    atomic_long mapped; /* calls of the failing map */
} round_state;

static round_state current;
static observation seen;
static pthread_barrier_t start_barrier, end_barrier;
static atomic_int stopping;

static void on_next(void *ctx, const sk_value *value) {
    (void)value;
    observation *o = ctx;
    if (atomic_load(&o->terminals) != 0) {
        atomic_fetch_add(&o->late_values, 1);
    }
    atomic_fetch_add(&o->in_next, 1);
    /* A little work, so that calls overlap. */
    for (volatile int i = 0; i < 50; i++) {
    }
    atomic_fetch_sub(&o->in_next, 1);
}

static void on_terminal(observation *o) {
    if (atomic_load(&o->in_next) != 0) {
        atomic_fetch_add(&o->overlaps, 1);
    }
    for (volatile int i = 0; i < 50; i++) {
    }
    if (atomic_load(&o->in_next) != 0) {
        atomic_fetch_add(&o->overlaps, 1);
    }
    atomic_fetch_add(&o->terminals, 1);
}

static void on_error(void *ctx, const sk_value *error) {
    (void)error;
    on_terminal(ctx);
}

static void on_completed(void *ctx) {
    on_terminal(ctx);
}

static void on_release(void *ctx) {
    observation *o = ctx;
    atomic_fetch_add(&o->releases, 1);
}

static sk_disposable *generator(void *ctx, sk_subscriber *subscriber) {
    round_state *r = ctx;
    r->subscriber = sk_subscriber_retain(subscriber);
    return NULL;
}

static void plus_one(void *ctx, const sk_value *value, sk_value *out) {
    (void)ctx;
    int64_t v = 0;
    sk_value_get_int64(value, &v);
    sk_inline_value_set_int64(out, v + 1);
}

/* The map of chain 3: fails at its call end_after + 1 (never at the first,
 * start_with's value, which comes while the subscription starts: ended
 * there, it would never start the source the threads put into). */
static void plus_one_failing(void *ctx, const sk_value *value, sk_value *out) {
    round_state *r = ctx;
    plus_one(NULL, value, out);
    if (atomic_fetch_add(&r->mapped, 1) == r->end_after + 1) {
        sk_value error;
        sk_inline_value_set_int64(&error, -2);
        CHECK(sk_callback_fail(&error));
    }
}

static void put(round_state *r, int64_t v) {
    sk_value value;
    sk_inline_value_set_int64(&value, v);
    if (r->source == 0) {
        CHECK(sk_subscriber_put_next(r->subscriber, &value));
    } else {
        CHECK(sk_pipe_put(r->pipe, &value));
    }
    atomic_fetch_add(&r->puts, 1);
}

static void end(round_state *r) {
    sk_value error;
    sk_inline_value_set_int64(&error, -1);
    if (r->source == 0) {
        CHECK(r->error ? sk_subscriber_put_error(r->subscriber, &error) : sk_subscriber_put_completion(r->subscriber));
    } else {
        CHECK(r->error ? sk_pipe_put_error(r->pipe, &error) : sk_pipe_put_completion(r->pipe));
    }
}

static void *putter(void *arg) {
    int64_t index = (int64_t)(intptr_t)arg;
    for (;;) {
        pthread_barrier_wait(&start_barrier);
        if (atomic_load(&stopping)) {
            return NULL;
        }
        for (int i = 0; i < PUTS_PER_THREAD; i++) {
            put(&current, index * PUTS_PER_THREAD + i);
        }
        pthread_barrier_wait(&end_barrier);
    }
}

static void *ender(void *arg) {
    (void)arg;
    for (;;) {
        pthread_barrier_wait(&start_barrier);
        if (atomic_load(&stopping)) {
            return NULL;
        }
        if (current.chain != 3) {
            while (atomic_load(&current.puts) < current.end_after) {
                sched_yield();
            }
            end(&current);
        }
        pthread_barrier_wait(&end_barrier);
    }
}

static const char *const between_names[] = {"directly", "share", "combine_latest", "with_latest_from", "start_with"};

static uint64_t next_random(uint64_t *s) {
    *s ^= *s >> 12;
    *s ^= *s << 25;
    *s ^= *s >> 27;
    return *s * 2685821657736338717ULL;
}

int main(int argc, char **argv) {
    long rounds = argc > 1 ? atol(argv[1]) : 10000;
    uint64_t seed = argc > 2 ? strtoull(argv[2], NULL, 10) : (uint64_t)time(NULL);
    printf("terminal: %ld rounds of %d threads putting while one ends the stream, seed %llu\n", rounds, PUTTERS,
           (unsigned long long)seed);
    fflush(stdout);
    uint64_t rng = seed * 2654435761ULL + 1;
    pthread_barrier_init(&start_barrier, NULL, PUTTERS + 2);
    pthread_barrier_init(&end_barrier, NULL, PUTTERS + 2);
    pthread_t threads[PUTTERS + 1];
    for (int i = 0; i < PUTTERS; i++) {
        pthread_create(&threads[i], NULL, putter, (void *)(intptr_t)i);
    }
    pthread_create(&threads[PUTTERS], NULL, ender, NULL);

    long failures = 0;
    for (long round = 0; round < rounds; round++) {
        round_state *r = &current;
        r->source = (int)(next_random(&rng) % 2);
        r->between = (int)(next_random(&rng) % 5);
        r->chain = (int)(next_random(&rng) % 4);
        r->held = (int)(next_random(&rng) % 2);
        r->error = r->between == 2 || r->between == 3 || (int)(next_random(&rng) % 2);
        r->end_after = (long)(next_random(&rng) % (PUTTERS * PUTS_PER_THREAD / 2));
        r->subscriber = NULL;
        r->pipe = NULL;
        r->other = NULL;
        atomic_store(&r->puts, 0);
        atomic_store(&r->mapped, 0);
        atomic_store(&seen.in_next, 0);
        atomic_store(&seen.terminals, 0);
        atomic_store(&seen.releases, 0);
        atomic_store(&seen.late_values, 0);
        atomic_store(&seen.overlaps, 0);

        sk_signal *signal = NULL;
        if (r->source == 0) {
            CHECK(sk_signal_create(&signal, generator, r, NULL));
        } else {
            CHECK(sk_pipe_create(&r->pipe, false));
            CHECK(sk_pipe_signal(&signal, r->pipe));
        }
        if (r->between != 0) {
            sk_signal *joined = NULL, *other = NULL;
            sk_value zero;
            sk_inline_value_set_int64(&zero, 0);
            if (r->between == 2 || r->between == 3) {
                /* A pipe that replays its one value: each put emits. */
                CHECK(sk_pipe_create(&r->other, true));
                CHECK(sk_pipe_put(r->other, &zero));
                CHECK(sk_pipe_signal(&other, r->other));
            }
            if (r->between == 1) {
                CHECK(sk_signal_share(&joined, signal));
            } else if (r->between == 2) {
                sk_signal *both[2] = {signal, other};
                CHECK(sk_signal_combine_latest(&joined, both, 2, NULL));
            } else if (r->between == 3) {
                CHECK(sk_signal_with_latest_from(&joined, signal, other));
            } else {
                CHECK(sk_signal_start_with(&joined, signal, &zero));
            }
            sk_signal_release(other);
            sk_signal_release(signal);
            signal = joined;
        }
        if (r->chain >= 1) {
            sk_signal *mapped = NULL;
            CHECK(r->chain == 3 ? sk_signal_map(&mapped, signal, plus_one_failing, r, NULL)
                                : sk_signal_map(&mapped, signal, plus_one, NULL, NULL));
            sk_signal_release(signal);
            signal = mapped;
        }
        if (r->chain == 2) {
            sk_signal *taken = NULL;
            CHECK(sk_signal_take(&taken, signal, 1000000));
            sk_signal_release(signal);
            signal = taken;
        }
        sk_observer observer = {on_next, on_error, on_completed, &seen, on_release};
        sk_disposable *disposable = NULL;
        CHECK(r->held ? sk_signal_start_held(&disposable, signal, &observer) : sk_signal_start(&disposable, signal, &observer));

        pthread_barrier_wait(&start_barrier);
        pthread_barrier_wait(&end_barrier);

        sk_disposable_release(disposable);
        sk_signal_release(signal);
        sk_subscriber_release(r->subscriber);
        sk_pipe_release(r->pipe);
        sk_pipe_release(r->other);

        long late = atomic_load(&seen.late_values), overlaps = atomic_load(&seen.overlaps);
        int terminals = atomic_load(&seen.terminals), releases = atomic_load(&seen.releases);
        if (late != 0 || overlaps != 0 || terminals != 1 || releases != 1) {
            failures++;
            if (failures <= 10) {
                fprintf(stderr,
                        "terminal: round %ld (%s, %s, chain %d, %s, %s after %ld values): %ld value callbacks began "
                        "after the terminal one, %ld terminal callbacks overlapped a value one, %d terminal events, "
                        "%d releases\n",
                        round, r->source == 0 ? "generator" : "pipe", between_names[r->between], r->chain,
                        r->held ? "start_held" : "start", r->chain == 3 ? "failure" : r->error ? "error" : "completion",
                        r->end_after, late, overlaps, terminals, releases);
            }
        }
    }
    atomic_store(&stopping, 1);
    pthread_barrier_wait(&start_barrier);
    for (int i = 0; i <= PUTTERS; i++) {
        pthread_join(threads[i], NULL);
    }
    long alive = sk_live_objects();
    if (alive != 0) {
        fprintf(stderr, "terminal: %ld objects alive at the end\n", alive);
        failures++;
    }
    printf("terminal: %ld rounds, %ld failed\n", rounds, failures);
    return failures == 0 ? 0 : 1;
}
