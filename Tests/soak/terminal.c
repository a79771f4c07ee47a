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
 * of one, start_with), or through any operator of the operator table
 * (Tests/common/operator_list.h: every one but those whose input is a
 * signal of signals and the resubscribing ones, restart and retry, which
 * would start the ended pipe again for ever) over the pipe and a second
 * one that replays a value; seen directly, through a fused map, through a
 * map and a take that never fills (separate subscribers, so the terminal
 * event crosses two of them), or through a map whose function fails
 * (sk_callback_fail) at a random call, on a putting thread (for a table
 * operator that takes a function, its own function fails instead);
 * started with sk_signal_start() or sk_signal_start_held(); ended with a
 * completion or an error, after a random number of values (an error alone
 * through combine_latest and with_latest_from, whose second pipe never
 * ends; the second pipe's error, while the threads put into the first,
 * for a table operator in some rounds), or by the failing function. A
 * table operator's round ends both pipes when the threads are done, and
 * waits for the observer's release (its events may come later, on a
 * queue: the table's timing operators). Every observer must be released
 * once and receive exactly one terminal event.
 *
 * Usage: terminal [rounds [seed]]; the seed is printed. Exit status 1 on a
 * violation, with the round and what was seen.
 */
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <semaphore.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "operator_list.h"
#include "signalkit.h"

#define PUTTERS 8
#define PUTS_PER_THREAD 64
/* How long a round waits for its observer's release before it fails (a
 * stream that never ends): far beyond any round's time, even under a
 * sanitizer on a loaded machine. */
#define RELEASE_WAIT_SECONDS 60

#define SOAK_NAME "terminal"
#include "check.h"

typedef struct {
    atomic_int in_next;     /* value callbacks running */
    atomic_int terminals;   /* terminal callbacks run */
    atomic_int releases;
    atomic_long late_values; /* value callbacks begun after the terminal one */
    atomic_long overlaps;    /* terminal callbacks run while a value one ran */
} observation;

enum { BETWEEN_TABLE = 5 };

typedef struct {
    int source;     /* 0: generator, 1: pipe */
    int between;    /* 0: none, 1: share, 2: combine_latest, 3: with_latest_from, 4: start_with,
                       BETWEEN_TABLE: the operator of the table at `op` */
    int op;         /* BETWEEN_TABLE's: an index into SK_TEST_OPERATORS */
    int chain;      /* 0: none, 1: map (fused), 2: map then take, 3: a map that fails
                       (for a table operator that takes a function: its function fails) */
    int op_fails;   /* chain 3 with the table operator's own function failing */
    int end_other;  /* a table operator's round ended by an error of `other` */
    int held;       /* sk_signal_start_held() */
    int error;      /* end with an error, else a completion */
    long end_after; /* values put before the end */
    sk_subscriber *subscriber;
    sk_pipe *pipe;
    sk_pipe *other; /* combine_latest's, with_latest_from's and the table operators' second signal */
    sk_signal *source_signal; /* a table operator's: the pipe's signal (deferred's) */
    atomic_long puts;
    atomic_long mapped; /* calls of the failing map */
} round_state;

static round_state current;
static observation seen;
static sem_t released; /* posted by each release of the observer */
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
    sem_post(&released);
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

/* The failing function of chain 3 (a map below, or the table operator's
 * own function): fails at its call end_after + 1 (never at the first,
 * start_with's value, which comes while the subscription starts: ended
 * there, it would never start the source the threads put into). */
static void count_call(round_state *r) {
    if (atomic_fetch_add(&r->mapped, 1) == r->end_after + 1) {
        sk_value error;
        sk_inline_value_set_int64(&error, -2);
        CHECK(sk_callback_fail(&error));
    }
}

static void plus_one_failing(void *ctx, const sk_value *value, sk_value *out) {
    plus_one(NULL, value, out);
    count_call(ctx);
}

/* A table operator's functions (ctx: the round), each failing through
 * count_call in a round of op_fails. */
static void table_map(void *ctx, const sk_value *value, sk_value *out) {
    round_state *r = ctx;
    plus_one(NULL, value, out);
    if (r->op_fails) {
        count_call(r);
    }
}

static bool table_predicate(void *ctx, const sk_value *value) {
    round_state *r = ctx;
    int64_t v = 0;
    sk_value_get_int64(value, &v);
    if (r->op_fails) {
        count_call(r);
    }
    return v % 5 != 0;
}

static void table_fold(void *ctx, const sk_value *accumulator, const sk_value *value, sk_value *out) {
    round_state *r = ctx;
    int64_t a = 0, v = 0;
    sk_value_get_int64(accumulator, &a);
    sk_value_get_int64(value, &v);
    sk_inline_value_set_int64(out, a + v);
    if (r->op_fails) {
        count_call(r);
    }
}

static sk_signal *table_inner(void *ctx, const sk_value *value) {
    round_state *r = ctx;
    sk_signal *single = NULL;
    CHECK(sk_signal_single(&single, value));
    if (r->op_fails) {
        count_call(r);
    }
    return single;
}

static int table_action(void *ctx, const sk_value *value) {
    round_state *r = ctx;
    (void)value;
    if (r->op_fails) {
        count_call(r);
    }
    return SK_TAKE_PASS;
}

/* Side effects, which cannot fail (sk_callback_fail). */
static void table_look(void *ctx, const sk_value *value) {
    (void)ctx;
    (void)value;
}

static void table_work(void *ctx) {
    (void)ctx;
}

static sk_signal *table_make(void *ctx) {
    round_state *r = ctx;
    return sk_signal_retain(r->source_signal);
}

/* Whether a table operator takes a function that can fail. */
static bool takes_a_failing_function(const sk_test_operator *op) {
    return sk_test_takes(op, SK_ARG_MAP) || sk_test_takes(op, SK_ARG_PREDICATE) || sk_test_takes(op, SK_ARG_FOLD) ||
           sk_test_takes(op, SK_ARG_INNER) || sk_test_takes(op, SK_ARG_ACTION);
}

/* The table operators a round may take: not those whose input is a signal
 * of signals (the pipe's values are numbers), nor the resubscribing ones
 * (they would start the ended pipe again for ever). */
static bool table_operator_taken(const sk_test_operator *op) {
    return (op->conventions & SK_TEST_OF_SIGNALS) == 0 && strncmp(op->name, "sk_signal_restart", 17) != 0 &&
           strncmp(op->name, "sk_signal_retry", 15) != 0;
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
    if (r->between == BETWEEN_TABLE) {
        if (r->end_other) {
            CHECK(sk_pipe_put_error(r->other, &error));
        } else {
            CHECK(r->error ? sk_pipe_put_error(r->pipe, &error) : sk_pipe_put_completion(r->pipe));
        }
        return;
    }
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

static const char *const between_names[] = {"directly", "share", "combine_latest", "with_latest_from", "start_with",
                                            "the table's"};

/* Waits for the observer's release (sem_post in on_release); false after
 * RELEASE_WAIT_SECONDS. */
static bool wait_for_release(void) {
    struct timespec deadline;
    clock_gettime(CLOCK_REALTIME, &deadline);
    deadline.tv_sec += RELEASE_WAIT_SECONDS;
    while (sem_timedwait(&released, &deadline) != 0) {
        if (errno != EINTR) {
            return false;
        }
    }
    return true;
}

static uint64_t next_random(uint64_t *s) {
    *s ^= *s >> 12;
    *s ^= *s << 25;
    *s ^= *s >> 27;
    return *s * 2685821657736338717ULL;
}

/* A table operator's signal over the pipe's (`signal`, borrowed) and the
 * second pipe's (`other`, borrowed), with the round's arguments. */
static sk_signal *table_signal(round_state *r, sk_signal *signal, sk_signal *other, sk_queue *queue, uint64_t *rng) {
    static const sk_overflow overflows[] = {SK_OVERFLOW_DROP_NEWEST, SK_OVERFLOW_DROP_OLDEST, SK_OVERFLOW_LATEST,
                                            SK_OVERFLOW_ERROR};
    const sk_test_operator *op = &SK_TEST_OPERATORS[r->op];
    sk_value zero;
    sk_inline_value_set_int64(&zero, 0);
    sk_signal *both[2] = {signal, other};
    sk_test_args a = {0};
    a.source = signal;
    a.other = other;
    a.signals = both;
    a.signal_count = 2;
    /* take's and element_at's count is never reached; buffer_count's and
     * replay's are small. */
    a.count = strcmp(op->name, "sk_signal_take") == 0 || strcmp(op->name, "sk_signal_element_at") == 0 ? 1000000 : 3;
    a.concurrency = 2;
    a.predicate = table_predicate;
    a.map = table_map;
    a.fold = table_fold;
    a.inner = table_inner;
    a.action = table_action;
    a.look = table_look;
    a.work = table_work;
    a.make = table_make;
    a.value = &zero;
    a.initial = &zero;
    a.seconds = 0.0005;
    a.most = 0.001;
    a.queue = queue;
    a.maybe_queue = next_random(rng) % 2 == 0 ? NULL : queue;
    a.ctx = r;
    a.capacity = 4;
    a.overflow = overflows[next_random(rng) % (sizeof overflows / sizeof overflows[0])];
    sk_signal *out = NULL;
    CHECK(op->call(&out, &a));
    return out;
}

int main(int argc, char **argv) {
    long rounds = argc > 1 ? atol(argv[1]) : 10000;
    uint64_t seed = argc > 2 ? strtoull(argv[2], NULL, 10) : (uint64_t)time(NULL);
    printf("terminal: %ld rounds of %d threads putting while one ends the stream, seed %llu\n", rounds, PUTTERS,
           (unsigned long long)seed);
    fflush(stdout);
    uint64_t rng = seed * 2654435761ULL + 1;
    sem_init(&released, 0, 0);
    sk_queue *queue = NULL;
    CHECK(sk_queue_create(&queue, "terminal"));
    size_t table_ops[SK_TEST_OPERATOR_COUNT], table_op_count = 0;
    for (size_t i = 0; i < SK_TEST_OPERATOR_COUNT; i++) {
        if (table_operator_taken(&SK_TEST_OPERATORS[i])) {
            table_ops[table_op_count++] = i;
        }
    }
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
        r->between = (int)(next_random(&rng) % 6);
        r->op = (int)table_ops[next_random(&rng) % table_op_count];
        r->chain = (int)(next_random(&rng) % 4);
        r->held = (int)(next_random(&rng) % 2);
        r->error = r->between == 2 || r->between == 3 || (int)(next_random(&rng) % 2);
        r->end_after = (long)(next_random(&rng) % (PUTTERS * PUTS_PER_THREAD / 2));
        r->end_other = 0;
        r->op_fails = 0;
        if (r->between == BETWEEN_TABLE) {
            r->source = 1;
            r->end_other = next_random(&rng) % 3 == 0;
            r->op_fails = r->chain == 3 && takes_a_failing_function(&SK_TEST_OPERATORS[r->op]);
        }
        r->subscriber = NULL;
        r->pipe = NULL;
        r->other = NULL;
        r->source_signal = NULL;
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
            if (r->between == 2 || r->between == 3 || r->between == BETWEEN_TABLE) {
                /* A pipe that replays its one value: each put emits. */
                CHECK(sk_pipe_create(&r->other, true));
                CHECK(sk_pipe_put(r->other, &zero));
                CHECK(sk_pipe_signal(&other, r->other));
            }
            if (r->between == BETWEEN_TABLE) {
                r->source_signal = sk_signal_retain(signal);
                joined = table_signal(r, signal, other, queue, &rng);
            } else if (r->between == 1) {
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
        if (r->chain >= 1 && !r->op_fails) {
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

        /* The observer is released once the subscription has ended and its
         * disposable has been released (sk_signal_start_held()'s may hold
         * it): a table operator's events may come later, on the queue. */
        if (r->between == BETWEEN_TABLE) {
            /* Both pipes end (a second end of a pipe does nothing), so that
             * every operator ends. */
            CHECK(sk_pipe_put_completion(r->pipe));
            CHECK(sk_pipe_put_completion(r->other));
        }
        sk_disposable_release(disposable);
        if (!wait_for_release()) {
            fprintf(stderr, "terminal: round %ld (%s%s%s): the observer was not released within %d seconds\n", round,
                    between_names[r->between], r->between == BETWEEN_TABLE ? " " : "",
                    r->between == BETWEEN_TABLE ? SK_TEST_OPERATORS[r->op].name : "", RELEASE_WAIT_SECONDS);
            return 1;
        }
        sk_signal_release(signal);
        sk_signal_release(r->source_signal);
        sk_subscriber_release(r->subscriber);
        sk_pipe_release(r->pipe);
        sk_pipe_release(r->other);

        long late = atomic_load(&seen.late_values), overlaps = atomic_load(&seen.overlaps);
        int terminals = atomic_load(&seen.terminals), releases = atomic_load(&seen.releases);
        if (late != 0 || overlaps != 0 || terminals != 1 || releases != 1) {
            failures++;
            if (failures <= 10) {
                fprintf(stderr,
                        "terminal: round %ld (%s, %s%s%s, chain %d, %s, %s after %ld values): %ld value callbacks "
                        "began after the terminal one, %ld terminal callbacks overlapped a value one, %d terminal "
                        "events, %d releases\n",
                        round, r->source == 0 ? "generator" : "pipe", between_names[r->between],
                        r->between == BETWEEN_TABLE ? " " : "",
                        r->between == BETWEEN_TABLE ? SK_TEST_OPERATORS[r->op].name : "", r->chain,
                        r->held ? "start_held" : "start",
                        r->op_fails ? "the operator's function failing"
                        : r->chain == 3 ? "failure"
                        : r->end_other ? "the second pipe's error"
                        : r->error ? "error" : "completion",
                        r->end_after, late, overlaps, terminals, releases);
            }
        }
    }
    atomic_store(&stopping, 1);
    pthread_barrier_wait(&start_barrier);
    for (int i = 0; i <= PUTTERS; i++) {
        pthread_join(threads[i], NULL);
    }
    sk_queue_release(queue);
    long alive = sk_live_objects();
    if (alive != 0) {
        fprintf(stderr, "terminal: %ld objects alive at the end\n", alive);
        failures++;
    }
    printf("terminal: %ld rounds, %ld failed\n", rounds, failures);
    return failures == 0 ? 0 : 1;
}
