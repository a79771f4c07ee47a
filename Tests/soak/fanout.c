/*
 * fanout.c - the schedule explorer's yardstick for a pipe's list of
 * subscribers (issue 79): the delivery that reads the list without a lock
 * while other threads subscribe and dispose.
 *
 * Each round makes a pipe with FIXED observers started before its values,
 * each of which must see every value once, in order (0, 1, 2, ...). One
 * thread puts PUTS values into the pipe (the owner slot's delivery, which
 * reads the subscribers' buffer without holding it), while CHURNERS
 * threads start and dispose observers of their own on the same pipe as
 * fast as they can: every start and dispose changes the list during a
 * delivery. A churned observer must see values in order, never one after
 * its context was released. Then every handle is released, every object
 * must be gone, and the next round begins, until the time is up.
 *
 * Against a correct library it ends with status 0 and prints its rounds.
 * Against a build that frees the list's buffer while a delivery reads it
 * (make explore-measure: `SIGNALKIT_PLANT_RECLAIM_BUG`), it crashes, or an
 * observer misses, repeats or reorders a value, or an object outlives the
 * round: Tests/soak/explore-measure.sh
 * times how long that takes, for the explorer's build against the plain one.
 *
 * Usage: fanout [seconds [puts]]. Nothing is random here: the schedule is
 * the machine's, or the explorer's (SIGNALKIT_EXPLORE_SEED).
 */
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "signalkit.h"

#define FIXED 8
#define CHURNERS 2

#define SOAK_NAME "fanout"
#include "check.h"

enum { ALIVE = 0x5a5a, RELEASED = 0xdead };

/* A churned observer's context: kept (on its churner's list) until the
 * round's end, so that a call after its release finds RELEASED. */
typedef struct churned {
    int state;
    int64_t last;
    struct churned *made_before;
} churned;

static sk_pipe *pipe_;
static sk_signal *signal_;
static pthread_barrier_t round_start, round_end;
static atomic_bool finished;
static atomic_bool putting;
static long puts_per_round = 2000;
static atomic_long churned_count;
static churned *made[CHURNERS];

static double now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

static int64_t int_of(const sk_value *value) {
    int64_t n = -1;
    if (sk_value_get_int64(value, &n) != SK_OK || n < 0 || n >= puts_per_round) {
        fprintf(stderr, "fanout: a value that was never put\n");
        abort();
    }
    return n;
}

/* A fixed observer: every value once, in order. */
static void fixed_next(void *ctx, const sk_value *value) {
    int64_t *next = ctx;
    int64_t n = int_of(value);
    if (n != *next) {
        fprintf(stderr, "fanout: an observer subscribed for the whole round got %lld, expected %lld\n",
                (long long)n, (long long)*next);
        abort();
    }
    *next = n + 1;
}

/* A churned observer: values in order, none after its release. */
static void churned_next(void *ctx, const sk_value *value) {
    churned *c = ctx;
    if (c->state != ALIVE) {
        fprintf(stderr, "fanout: a value after the observer's context was released\n");
        abort();
    }
    int64_t n = int_of(value);
    if (n <= c->last) {
        fprintf(stderr, "fanout: a churned observer got %lld after %lld\n", (long long)n, (long long)c->last);
        abort();
    }
    c->last = n;
}

static void churned_release(void *ctx) {
    churned *c = ctx;
    if (c->state != ALIVE) {
        fprintf(stderr, "fanout: an observer's context released twice\n");
        abort();
    }
    c->state = RELEASED;
}

static void *putter(void *arg) {
    (void)arg;
    for (;;) {
        pthread_barrier_wait(&round_start);
        if (atomic_load(&finished)) {
            return NULL;
        }
        for (long i = 0; i < puts_per_round; i++) {
            sk_value v;
            sk_value_set_int64(&v, i);
            CHECK(sk_pipe_put(pipe_, &v));
        }
        atomic_store(&putting, false);
        pthread_barrier_wait(&round_end);
    }
}

static void *churner(void *arg) {
    size_t index = (size_t)(uintptr_t)arg;
    for (;;) {
        pthread_barrier_wait(&round_start);
        if (atomic_load(&finished)) {
            return NULL;
        }
        while (atomic_load_explicit(&putting, memory_order_relaxed)) {
            churned *c = malloc(sizeof *c);
            if (c == NULL) {
                fprintf(stderr, "fanout: out of memory\n");
                exit(2);
            }
            c->state = ALIVE;
            c->last = -1;
            c->made_before = made[index];
            made[index] = c;
            sk_observer observer = {churned_next, NULL, NULL, c, churned_release};
            sk_disposable *subscription = NULL;
            CHECK(sk_signal_start(&subscription, signal_, &observer));
            sk_disposable_dispose(subscription);
            sk_disposable_release(subscription);
            atomic_fetch_add_explicit(&churned_count, 1, memory_order_relaxed);
        }
        pthread_barrier_wait(&round_end);
    }
}

int main(int argc, char **argv) {
    double seconds = argc > 1 ? atof(argv[1]) : 10;
    if (argc > 2) {
        puts_per_round = atol(argv[2]);
    }
    if (puts_per_round < 1) {
        fprintf(stderr, "fanout: puts must be at least 1\n");
        return 2;
    }
    pthread_barrier_init(&round_start, NULL, CHURNERS + 2);
    pthread_barrier_init(&round_end, NULL, CHURNERS + 2);
    pthread_t threads[CHURNERS + 1];
    pthread_create(&threads[0], NULL, putter, NULL);
    for (size_t i = 0; i < CHURNERS; i++) {
        pthread_create(&threads[i + 1], NULL, churner, (void *)(uintptr_t)i);
    }
    double start = now();
    long rounds = 0;
    while (now() - start < seconds) {
        CHECK(sk_pipe_create(&pipe_, false));
        CHECK(sk_pipe_signal(&signal_, pipe_));
        int64_t next[FIXED] = {0};
        sk_disposable *fixed[FIXED];
        for (size_t i = 0; i < FIXED; i++) {
            sk_observer observer = {fixed_next, NULL, NULL, &next[i], NULL};
            CHECK(sk_signal_start(&fixed[i], signal_, &observer));
        }
        atomic_store(&putting, true);
        pthread_barrier_wait(&round_start);
        pthread_barrier_wait(&round_end);
        for (size_t i = 0; i < FIXED; i++) {
            if (next[i] != puts_per_round) {
                fprintf(stderr, "fanout: an observer subscribed for the whole round got %lld values of %ld\n",
                        (long long)next[i], puts_per_round);
                abort();
            }
            sk_disposable_dispose(fixed[i]);
            sk_disposable_release(fixed[i]);
        }
        sk_signal_release(signal_);
        sk_pipe_release(pipe_);
        if (sk_live_objects_wait(0, 10) != SK_OK) {
            fprintf(stderr, "fanout: %ld objects still alive 10 s after the round's handles were released\n",
                    sk_live_objects());
            abort();
        }
        for (size_t i = 0; i < CHURNERS; i++) {
            while (made[i] != NULL) {
                churned *c = made[i];
                if (c->state != RELEASED) {
                    fprintf(stderr, "fanout: a churned observer's context was never released\n");
                    abort();
                }
                made[i] = c->made_before;
                free(c);
            }
        }
        rounds++;
    }
    atomic_store(&finished, true);
    pthread_barrier_wait(&round_start);
    for (size_t i = 0; i < CHURNERS + 1; i++) {
        pthread_join(threads[i], NULL);
    }
    long alive = sk_live_objects();
    printf("fanout: %ld rounds of %ld puts, %d fixed observers, %ld churned, %.1f s, %ld objects alive\n",
           rounds, puts_per_round, FIXED, atomic_load(&churned_count), now() - start, alive);
    return alive == 0 ? 0 : 1;
}
