/*
 * abandon.c - the abandonment soak (issue 50): random pipelines over every
 * operator of the operator table, torn down under threads with work pending.
 *
 * Each worker thread loops for the given time. A round builds three pipes
 * (some replaying), a generator that emits during its start and one that
 * emits from a thread of its own, and two queues of random kinds (serial,
 * concurrent, host-drained and never drained); then a pipeline of 1 to 6
 * random stages over them: every C operator (../common/operator_list.h,
 * generated from the operator table, so a new operator joins by itself),
 * the custom operators (../common/custom_operator.h: sk_signal_create_over),
 * combine_latest more often (with or without a queue, nested over itself). It starts 1 to 3 subscriptions (plain observers,
 * slow ones, ones that keep a copy of each value, ones that dispose their
 * own subscription from inside next), puts values from the worker, from a
 * helper thread and from queue work, and releases every handle (pipes,
 * signals, queues, disposables, disposed first or not) in a random order
 * while that work is still running.
 *
 * Checked: no crash (the release library's combine_latest use-after-free
 * crashed this within seconds before its fix, see `_sks_handoff`); every
 * observer, and every custom operator's context, released exactly once;
 * once everything has drained,
 * sk_live_objects() is 0. An observer never released is reported with where
 * it was made: its worker, the round's number in that worker's sequence and
 * the round's pipeline ("s6 = sk_signal_queue_bounded(s5; ...)").
 *
 * Not a leak, and not left to chance: a subscription through sk_signal_retry
 * over a signal that fails at each start (a queue over values that are not
 * signals) retries for ever, as documented ("errors never pass"), so it ends
 * only when disposed (docs/misuse.md: a released, undisposed subscription
 * goes on until it ends or its source lets go). Such subscriptions are
 * always disposed (then released) in the teardown, in its random order.
 * restart and restart_if_error loop inside the start instead: they take a
 * pipe only.
 *
 * Memory (issue 50, item 6): while the workers run, the main thread samples
 * once a second the heap in use (glibc's mallinfo2().uordblks, all arenas,
 * mmapped blocks not included), the resident set (/proc/self/statm) and
 * the process's thread count (/proc/self/task). At the end it prints the
 * first and last samples and, over the second half of the run (the first
 * is warm-up: queues' threads, the allocator's arenas and caches), the
 * least-squares slope of each in KiB per minute with its standard error.
 * ABANDON_MAX_HEAP_SLOPE=K (KiB per minute) fails the run when the heap's
 * slope exceeds K; without it the slope is printed only. ABANDON_SAMPLES=FILE
 * writes every sample to FILE (seconds, heap bytes, resident bytes, threads,
 * one line each). mallinfo2 counts freed chunks parked in each thread's
 * tcache as in use, and with libdispatch's threads (100 to 270 here) those
 * fill for many minutes: run with GLIBC_TUNABLES=glibc.malloc.tcache_count=0
 * to measure what is held (as test-abandon-long does: mk/soak.mk), or with
 * live_bytes.so (its header). The workers never
 * sleep: the sampling is the only timed wait (clock_nanosleep, on the main
 * thread).
 *
 * Usage: abandon [seconds [seed [threads [index]]]]; with an index into the
 * operator list (past its end: into the custom operators), the rounds use
 * that operator and combine_latest only (to find which operator a failure
 * needs). The seed is printed; the same
 * seed gives every worker the same sequence of rounds (which pipelines,
 * which observers, which release orders), while the threads' interleaving
 * is the machine's.
 */
#include <dirent.h>
#include <malloc.h>
#include <math.h>
#include <pthread.h>
#include <sched.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "signalkit.h"
#include "operator_list.h"
#include "custom_operator.h"
#include "progress.h"

#define MAX_THREADS 16
#define MAX_STAGES 6

#define SOAK_NAME "abandon"
#include "check.h"

static atomic_long observers_made, observers_released, threads_running, double_releases;
/* Room signals of puts made without waiting (sk_nowait_begin), and their
 * completions. */
static atomic_long rooms_made, rooms_kept, rooms_completed;
/* The custom operators' contexts: made, and released by their `release`
 * (more releases than contexts: one was released twice). */
static atomic_long contexts_made, contexts_released;

/* A worker's random numbers (xorshift64*): one stream per worker. */
typedef struct { uint64_t s; } rng;

static uint64_t next_random(rng *r) {
    r->s ^= r->s >> 12;
    r->s ^= r->s << 25;
    r->s ^= r->s >> 27;
    return r->s * 2685821657736338717ULL;
}

static unsigned pick(rng *r, unsigned n) {
    return (unsigned)(next_random(r) % n);
}

static int64_t int_of(const sk_value *value) {
    int64_t n = 0;
    if (sk_value_get_int64(value, &n) != SK_OK) {
        return 1; /* arrays, signals, nil: counted as 1 */
    }
    return n;
}

/* ------------------------------------------------------------------------ */
/* Observers                                                                 */
/* ------------------------------------------------------------------------ */

/* OBSERVE_FAIL: started with sk_signal_start_failable() (held or not, at
 * random), its value callback fails (sk_callback_fail) at its second value,
 * on whichever thread that is. */
enum { OBSERVE_PLAIN, OBSERVE_SLOW, OBSERVE_COPY, OBSERVE_DISPOSE, OBSERVE_FAIL, OBSERVE_KINDS };

/* Freed when both its references are gone: the library's (its release
 * callback) and the starting worker's (which may hand it its own
 * subscription's disposable after the start returned). */
typedef struct observer {
    atomic_int references;
    atomic_int released;
    int kind;
    pthread_mutex_t lock; /* guards kept: next may run on several threads at once */
    sk_value kept;
    int has_kept;
    _Atomic(sk_disposable *) own; /* +1, for OBSERVE_DISPOSE */
    atomic_int values; /* for OBSERVE_FAIL: the values its callback saw */
    /* Where it was made, printed at the end if the library never released
     * it: the worker, its round, the signal it observes and the round's
     * pipeline (each signal's operator and inputs). */
    int worker;
    long round;
    int signal;
    char *recipe;
    struct observer *prev, *next; /* in `unreleased`, until released */
} observer;

/* The observers the library still holds (under `unreleased_lock`). */
static pthread_mutex_t unreleased_lock = PTHREAD_MUTEX_INITIALIZER;
static observer *unreleased;

static void unreleased_add(observer *o) {
    pthread_mutex_lock(&unreleased_lock);
    o->prev = NULL;
    o->next = unreleased;
    if (unreleased != NULL) {
        unreleased->prev = o;
    }
    unreleased = o;
    pthread_mutex_unlock(&unreleased_lock);
}

static void unreleased_remove(observer *o) {
    pthread_mutex_lock(&unreleased_lock);
    if (o->prev != NULL) {
        o->prev->next = o->next;
    } else {
        unreleased = o->next;
    }
    if (o->next != NULL) {
        o->next->prev = o->prev;
    }
    pthread_mutex_unlock(&unreleased_lock);
}

/* Prints where the first few observers still held were made. */
static void unreleased_print(void) {
    pthread_mutex_lock(&unreleased_lock);
    int shown = 0;
    for (observer *o = unreleased; o != NULL && shown < 5; o = o->next, shown++) {
        printf("abandon: observer of s%d not released, worker %d round %ld: %s\n", o->signal, o->worker, o->round,
               o->recipe != NULL ? o->recipe : "?");
    }
    pthread_mutex_unlock(&unreleased_lock);
}

static void observer_unref(observer *o) {
    if (atomic_fetch_sub(&o->references, 1) != 1) {
        return;
    }
    sk_disposable *own = atomic_exchange(&o->own, NULL);
    sk_disposable_release(own);
    if (o->has_kept) {
        sk_value_release(&o->kept);
    }
    pthread_mutex_destroy(&o->lock);
    free(o->recipe);
    free(o);
}

static void observer_next(void *ctx, const sk_value *value) {
    observer *o = ctx;
    switch (o->kind) {
    case OBSERVE_SLOW:
        sched_yield();
        break;
    case OBSERVE_COPY: {
        sk_value old;
        int had;
        pthread_mutex_lock(&o->lock);
        had = o->has_kept;
        old = o->kept;
        sk_value_copy(&o->kept, value);
        o->has_kept = 1;
        pthread_mutex_unlock(&o->lock);
        if (had) {
            sk_value_release(&old);
        }
        break;
    }
    case OBSERVE_DISPOSE: {
        sk_disposable *own = atomic_exchange(&o->own, NULL);
        if (own != NULL) {
            sk_disposable_dispose(own);
            sk_disposable_release(own);
        }
        break;
    }
    case OBSERVE_FAIL:
        if (atomic_fetch_add(&o->values, 1) == 1) {
            sk_value error;
            sk_value_set_int64(&error, -1);
            /* Refused only outside a value call: never here. */
            if (sk_callback_fail(&error) != SK_OK) {
                fprintf(stderr, "abandon: sk_callback_fail refused inside a failable observer: %s\n",
                        sk_last_error_message());
                exit(1);
            }
        }
        break;
    default:
        break;
    }
}

static void observer_release(void *ctx) {
    observer *o = ctx;
    if (atomic_fetch_add(&o->released, 1) != 0) {
        atomic_fetch_add(&double_releases, 1);
        return;
    }
    atomic_fetch_add(&observers_released, 1);
    unreleased_remove(o);
    observer_unref(o);
}

/* ------------------------------------------------------------------------ */
/* Sources                                                                   */
/* ------------------------------------------------------------------------ */

/* A generator's context: it emits on its first few starts only, so that a
 * resubscribing operator (restart) over it cannot loop forever. */
typedef struct generator {
    atomic_int starts;
    int count;
} generator;

static void generator_free(void *ctx) {
    free(ctx);
}

static sk_disposable *generate_during_start(void *ctx, sk_subscriber *subscriber) {
    generator *g = ctx;
    if (atomic_fetch_add(&g->starts, 1) < 3) {
        for (int i = 0; i < g->count; i++) {
            sk_value v;
            sk_value_set_int64(&v, i);
            sk_subscriber_put_next(subscriber, &v);
        }
    }
    return NULL;
}

typedef struct emitter {
    sk_subscriber *subscriber;
    int count;
} emitter;

static void *emit_from_thread(void *arg) {
    emitter *e = arg;
    for (int i = 0; i < e->count; i++) {
        sk_value v;
        sk_value_set_int64(&v, i);
        sk_subscriber_put_next(e->subscriber, &v);
    }
    sk_subscriber_release(e->subscriber);
    free(e);
    atomic_fetch_sub(&threads_running, 1);
    return NULL;
}

static sk_disposable *generate_on_thread(void *ctx, sk_subscriber *subscriber) {
    generator *g = ctx;
    if (atomic_fetch_add(&g->starts, 1) >= 3) {
        return NULL;
    }
    emitter *e = malloc(sizeof *e);
    if (e == NULL) {
        return NULL;
    }
    e->subscriber = sk_subscriber_retain(subscriber);
    e->count = g->count;
    pthread_attr_t attributes;
    pthread_t thread;
    pthread_attr_init(&attributes);
    pthread_attr_setdetachstate(&attributes, PTHREAD_CREATE_DETACHED);
    atomic_fetch_add(&threads_running, 1);
    if (pthread_create(&thread, &attributes, emit_from_thread, e) != 0) {
        atomic_fetch_sub(&threads_running, 1);
        sk_subscriber_release(subscriber);
        free(e);
    }
    pthread_attr_destroy(&attributes);
    return NULL;
}

/* ------------------------------------------------------------------------ */
/* Stage callbacks                                                           */
/* ------------------------------------------------------------------------ */

static bool is_odd(void *ctx, const sk_value *value) {
    (void)ctx;
    return int_of(value) % 2 != 0;
}

static void add_one(void *ctx, const sk_value *value, sk_value *out) {
    (void)ctx;
    sk_value_set_int64(out, int_of(value) + 1);
}

static void sum(void *ctx, const sk_value *accumulator, const sk_value *value, sk_value *out) {
    (void)ctx;
    sk_value_set_int64(out, int_of(accumulator) + int_of(value));
}

static void look(void *ctx, const sk_value *value) {
    (void)ctx;
    (void)value;
}

static void work(void *ctx) {
    (void)ctx;
}

/* take_until's: passes each value, and completes after a 6. */
static int pass_until_six(void *ctx, const sk_value *value) {
    (void)ctx;
    return SK_TAKE_PASS | (int_of(value) == 6 ? SK_TAKE_COMPLETE : 0);
}

/* The signal function's, at each call, and deferred's, at each start: the
 * round's signal in ctx (+1). */
static sk_signal *inner_signal(void *ctx, const sk_value *value) {
    (void)value;
    return sk_signal_retain(ctx);
}

static sk_signal *made_signal(void *ctx) {
    return sk_signal_retain(ctx);
}

static void release_signal(void *ctx) {
    sk_signal_release(ctx);
}

/* The context the soak gives a custom operator: only counted, so that a
 * second release is a count too high, not a write into freed memory. */
static char counted_context;

static void release_counted_context(void *ctx) {
    (void)ctx;
    atomic_fetch_add(&contexts_released, 1);
}

/* ------------------------------------------------------------------------ */
/* A round                                                                   */
/* ------------------------------------------------------------------------ */

enum { PIPES = 3, GENERATORS = 2, QUEUES = 2 };
enum { MAX_SIGNALS = PIPES + GENERATORS + MAX_STAGES, MAX_SUBSCRIPTIONS = 3 };

typedef struct round_state {
    sk_pipe *pipes[PIPES];
    sk_queue *queues[QUEUES];
    sk_signal *signals[MAX_SIGNALS];
    int signal_count;
    sk_disposable *subscriptions[MAX_SUBSCRIPTIONS];
    int subscription_count;
    /* A subscription through sk_signal_retry over a signal that fails at
     * each start retries for ever, by design ("errors never pass"): it ends
     * only when disposed. loops[i]: signal i has such a retry in it (or may:
     * any input of its stage has); must_dispose[i]: subscription i observes
     * one, and tear_down disposes it before releasing it. */
    bool loops[MAX_SIGNALS];
    bool next_loops; /* for the stage being added */
    bool must_dispose[MAX_SUBSCRIPTIONS];
    int worker;
    long round;
    char recipe[1024]; /* "s5 = sk_signal_map(s2); ...": for the failure's report */
    size_t recipe_length;
} round_state;

/* Appends to the round's recipe (cut at its size). */
static void describe(round_state *r, const char *format, ...) __attribute__((format(printf, 2, 3)));
static void describe(round_state *r, const char *format, ...) {
    size_t room = sizeof r->recipe - r->recipe_length;
    if (room <= 1) {
        return;
    }
    va_list arguments;
    va_start(arguments, format);
    int n = vsnprintf(r->recipe + r->recipe_length, room, format, arguments);
    va_end(arguments);
    if (n > 0) {
        r->recipe_length += (size_t)n < room ? (size_t)n : room - 1;
    }
}

static int index_of(round_state *r, sk_signal *signal) {
    for (int i = 0; i < r->signal_count; i++) {
        if (r->signals[i] == signal) {
            return i;
        }
    }
    return -1;
}

static bool loops(round_state *r, sk_signal *signal) {
    int i = index_of(r, signal);
    return i >= 0 && r->loops[i];
}

typedef struct putter {
    sk_pipe *pipes[PIPES];
    uint64_t seed;
} putter;

static void room_completed(void *ctx) {
    (void)ctx;
    atomic_fetch_add(&rooms_completed, 1);
}

/* A put, half of them inside an sk_nowait_begin() scope: a full bounded
 * place of the block policy then takes the value beyond its capacity, and
 * the scope's room signal is started, its subscription disposed or not,
 * every handle released at once (the room signal, which does not keep its
 * places alive, must still end: its places get room, end or are freed). */
static void put_maybe_without_waiting(sk_pipe *pipe, const sk_value *v, rng *g) {
    if (pick(g, 2) == 0) {
        (void)PROGRESS(sk_pipe_put(pipe, v));
        return;
    }
    sk_signal *room = NULL;
    CHECK(sk_nowait_begin());
    (void)PROGRESS(sk_pipe_put(pipe, v));
    CHECK(sk_nowait_end(&room));
    if (room == NULL) {
        return;
    }
    atomic_fetch_add(&rooms_made, 1);
    sk_observer waiting = {NULL, NULL, room_completed, NULL, NULL};
    sk_disposable *subscription = NULL;
    CHECK(sk_signal_start(&subscription, room, &waiting));
    if (pick(g, 2) == 0) {
        sk_disposable_dispose(subscription);
    } else {
        atomic_fetch_add(&rooms_kept, 1); /* must complete */
    }
    sk_disposable_release(subscription);
    sk_signal_release(room);
}

static void *put_from_thread(void *arg) {
    putter *p = arg;
    rng r = {p->seed | 1};
    for (int i = 0; i < 40; i++) {
        sk_value v;
        sk_value_set_int64(&v, i);
        put_maybe_without_waiting(p->pipes[pick(&r, PIPES)], &v, &r);
    }
    for (int i = 0; i < PIPES; i++) {
        sk_pipe_release(p->pipes[i]);
    }
    free(p);
    atomic_fetch_sub(&threads_running, 1);
    return NULL;
}

static void put_from_queue(void *ctx) {
    sk_value v;
    sk_value_set_int64(&v, 7);
    sk_pipe_put(ctx, &v);
}

static void release_pipe(void *ctx) {
    sk_pipe_release(ctx);
}

static sk_signal *any_signal(round_state *r, rng *g) {
    return r->signals[pick(g, (unsigned)r->signal_count)];
}

static sk_queue *any_queue(round_state *r, rng *g) {
    return r->queues[pick(g, QUEUES)];
}

/* Applies a random stage over a random signal of the round; returns the
 * new signal (+1) or NULL when the library refused it (which it may: a
 * depth limit, a queue kind an operator does not take). */
static int only = -1;

/* The operators a stage may apply: the table's, then the custom ones. */
#define OPERATOR_COUNT (SK_TEST_OPERATOR_COUNT + SK_TEST_CUSTOM_OPERATOR_COUNT)

static const sk_test_operator *operator_at(size_t i) {
    return i < SK_TEST_OPERATOR_COUNT ? &SK_TEST_OPERATORS[i] : &SK_TEST_CUSTOM_OPERATORS[i - SK_TEST_OPERATOR_COUNT];
}

/* combine_latest of two or three signals of the round, the newest first,
 * with a queue or without: the operator whose use-after-free this soak
 * found, given more rounds than the others. */
static sk_signal *combine(round_state *r, rng *g) {
    sk_signal *out = NULL;
    sk_signal *inputs[3] = {r->signals[r->signal_count - 1], any_signal(r, g), any_signal(r, g)};
    size_t count = 2 + pick(g, 2);
    sk_queue *queue = pick(g, 2) == 0 ? NULL : any_queue(r, g);
    sk_signal_combine_latest(&out, inputs, count, queue);
    r->next_loops = loops(r, inputs[0]) || loops(r, inputs[1]) || (count == 3 && loops(r, inputs[2]));
    describe(r, "s%d = combine_latest(s%d, s%d", out != NULL ? r->signal_count : -1, index_of(r, inputs[0]),
             index_of(r, inputs[1]));
    if (count == 3) {
        describe(r, ", s%d", index_of(r, inputs[2]));
    }
    describe(r, "; %s); ", queue == NULL ? "no queue" : queue == r->queues[0] ? "q0" : "q1");
    return out;
}

static sk_signal *add_stage(round_state *r, rng *g) {
    sk_signal *in = any_signal(r, g);
    sk_signal *out = NULL;
    unsigned choice = pick(g, (unsigned)OPERATOR_COUNT + 4);
    if (only >= 0) {
        choice = pick(g, 2) == 0 ? (unsigned)only : (unsigned)OPERATOR_COUNT;
    }
    if (choice >= OPERATOR_COUNT) {
        return combine(r, g);
    }
    const sk_test_operator *op = operator_at(choice);
    if (strcmp(op->name, "sk_signal_restart") == 0 || strcmp(op->name, "sk_signal_restart_if_error") == 0) {
        /* They resubscribe at once, forever, by design: over an input that
         * ends during its start (an error of a queue over values that are
         * not signals, a take over the generator) they would loop in the
         * start. A pipe's signal ends only when told to, and no round
         * tells it. */
        in = r->signals[pick(g, PIPES)];
    }
    sk_value value;
    sk_value_set_int64(&value, 1);
    sk_signal *inputs[2] = {in, any_signal(r, g)};
    /* No block policy: a producer would wait for ever on a queue that is
     * never drained. */
    static const sk_overflow policies[] = {SK_OVERFLOW_DROP_NEWEST, SK_OVERFLOW_DROP_OLDEST, SK_OVERFLOW_LATEST,
                                           SK_OVERFLOW_ERROR};
    sk_test_args a = {
        .source = in, .predicate = is_odd, .map = add_one, .value = &value, .initial = &value, .fold = sum,
        .signals = inputs, .signal_count = 2, .most = 0.002, .look = look, .work = work, .inner = inner_signal,
        .action = pass_until_six, .make = made_signal,
    };
    /* The random choices in a fixed order (a seed replays them). */
    a.count = a.concurrency = a.retries = 1 + pick(g, 3);
    a.other = any_signal(r, g);
    a.seconds = 0.0005 * (1 + pick(g, 4));
    a.queue = any_queue(r, g);
    a.maybe_queue = pick(g, 2) == 0 ? NULL : any_queue(r, g);
    if (pick(g, 2) == 0) {
        a.delay = 0.0005;
        a.delay_queue = any_queue(r, g);
    }
    a.flag = pick(g, 2) == 0;
    a.capacity = 1 + pick(g, 4);
    a.overflow = policies[pick(g, 4)];
    sk_signal *given = NULL;
    if (sk_test_takes(op, SK_ARG_INNER) || sk_test_takes(op, SK_ARG_MAKE)) {
        /* The signal they give: one of the round's, kept by the stage. */
        given = sk_signal_retain(any_signal(r, g));
        a.ctx = given;
        a.release = release_signal;
    } else if (choice >= SK_TEST_OPERATOR_COUNT) {
        /* The custom operator runs this release once its own context
         * goes (custom_operator.h): counted, so that the end sees that
         * context never released or released twice. */
        atomic_fetch_add(&contexts_made, 1);
        a.ctx = &counted_context;
        a.release = release_counted_context;
    }
    op->call(&out, &a);
    r->next_loops = strcmp(op->name, "sk_signal_retry") == 0 || loops(r, in) || loops(r, inputs[1]) ||
                    loops(r, a.other) || (given != NULL && loops(r, given));
    describe(r, "s%d = %s(s%d; other s%d, s%d; q%d; capacity %zu, overflow %d; ctx s%d); ",
             out != NULL ? r->signal_count : -1, op->name, index_of(r, in), index_of(r, inputs[1]),
             index_of(r, a.other), a.queue == r->queues[0] ? 0 : 1, a.capacity, (int)a.overflow,
             given != NULL ? index_of(r, given) : -1);
    return out;
}

static void build(round_state *r, rng *g) {
    r->signal_count = 0;
    r->subscription_count = 0;
    r->recipe_length = 0;
    r->recipe[0] = '\0';
    memset(r->loops, 0, sizeof r->loops);
    for (int i = 0; i < PIPES; i++) {
        bool replaying = pick(g, 2) == 0;
        CHECK(sk_pipe_create(&r->pipes[i], replaying));
        CHECK(sk_pipe_signal(&r->signals[r->signal_count++], r->pipes[i]));
        describe(r, "s%d = a%s pipe; ", i, replaying ? " replaying" : "");
    }
    for (int i = 0; i < GENERATORS; i++) {
        generator *gen = calloc(1, sizeof *gen);
        if (gen == NULL) {
            exit(2);
        }
        gen->count = 1 + (int)pick(g, 20);
        CHECK(sk_signal_create(&r->signals[r->signal_count++], i == 0 ? generate_during_start : generate_on_thread,
                               gen, generator_free));
        describe(r, "s%d = %d values %s; ", r->signal_count - 1, gen->count,
                 i == 0 ? "during its start" : "from a thread");
    }
    for (int i = 0; i < QUEUES; i++) {
        switch (pick(g, 4)) {
        case 0: CHECK(sk_queue_create_concurrent(&r->queues[i], 2, "abandon pool")); describe(r, "q%d concurrent; ", i); break;
        case 1: CHECK(sk_queue_create_host(&r->queues[i], "abandon host")); describe(r, "q%d host; ", i); break;
        default: CHECK(sk_queue_create(&r->queues[i], "abandon serial")); describe(r, "q%d serial; ", i); break;
        }
    }
    int stages = 1 + (int)pick(g, MAX_STAGES);
    /* One round in three combines only, nested (a combination of
     * combinations over the pipes): the shape of the release library's
     * crash, where two threads' puts meet in one combination's state. */
    bool combining = pick(g, 3) == 0;
    for (int i = 0; i < stages; i++) {
        sk_signal *made = combining ? combine(r, g) : add_stage(r, g);
        if (made != NULL) {
            r->loops[r->signal_count] = r->next_loops;
            r->signals[r->signal_count++] = made;
        }
    }
}

static void subscribe(round_state *r, rng *g) {
    int count = 1 + (int)pick(g, MAX_SUBSCRIPTIONS);
    for (int i = 0; i < count; i++) {
        observer *o = calloc(1, sizeof *o);
        if (o == NULL) {
            exit(2);
        }
        atomic_init(&o->references, 2);
        atomic_init(&o->values, 0);
        o->kind = (int)pick(g, OBSERVE_KINDS);
        pthread_mutex_init(&o->lock, NULL);
        atomic_fetch_add(&observers_made, 1);
        /* The newest signals most often: the pipeline's end. */
        int index = r->signal_count - 1 - (int)pick(g, 2 + (unsigned)(r->signal_count - 1) / 2);
        o->worker = r->worker;
        o->round = r->round;
        int signal = index < 0 ? 0 : index;
        o->signal = signal;
        o->recipe = strdup(r->recipe);
        unreleased_add(o);
        sk_observer callbacks = {observer_next, NULL, NULL, o, observer_release};
        sk_disposable *subscription = NULL;
        if (o->kind == OBSERVE_FAIL) {
            int held = (int)pick(g, 2);
            CHECK(PROGRESS(sk_signal_start_failable(&subscription, r->signals[signal], &callbacks, held)));
        } else {
            CHECK(PROGRESS(sk_signal_start(&subscription, r->signals[signal], &callbacks)));
        }
        if (o->kind == OBSERVE_DISPOSE) {
            atomic_store(&o->own, sk_disposable_retain(subscription));
        }
        /* `o` may be freed from here on (the library may have let go of
         * it already): only `signal` is read after. */
        observer_unref(o);
        r->must_dispose[r->subscription_count] = r->loops[signal];
        r->subscriptions[r->subscription_count++] = subscription;
    }
}

/* Puts from the worker, from a helper thread and from queue work. Returns
 * whether the helper thread started (then *thread is to be joined). */
static bool feed(round_state *r, rng *g, pthread_t *thread) {
    bool started = false;
    putter *p = malloc(sizeof *p);
    if (p != NULL) {
        for (int i = 0; i < PIPES; i++) {
            p->pipes[i] = sk_pipe_retain(r->pipes[i]);
        }
        p->seed = next_random(g);
        atomic_fetch_add(&threads_running, 1);
        started = pthread_create(thread, NULL, put_from_thread, p) == 0;
        if (!started) {
            atomic_fetch_sub(&threads_running, 1);
            for (int i = 0; i < PIPES; i++) {
                sk_pipe_release(p->pipes[i]);
            }
            free(p);
        }
    }
    for (int i = 0; i < PIPES; i++) {
        sk_pipe *pipe = sk_pipe_retain(r->pipes[i]);
        /* On failure the release function has run (the pipe is released). */
        sk_queue_async(any_queue(r, g), put_from_queue, pipe, release_pipe);
    }
    for (int i = 0; i < 30; i++) {
        sk_value v;
        sk_value_set_int64(&v, i);
        put_maybe_without_waiting(r->pipes[pick(g, PIPES)], &v, g);
    }
    return started;
}

enum { KIND_PIPE, KIND_SIGNAL, KIND_QUEUE, KIND_DISPOSE, KIND_DISPOSABLE };

static void tear_down(round_state *r, rng *g) {
    void *handles[PIPES + MAX_SIGNALS + QUEUES + MAX_SUBSCRIPTIONS];
    int kinds[PIPES + MAX_SIGNALS + QUEUES + MAX_SUBSCRIPTIONS];
    int n = 0;
    for (int i = 0; i < PIPES; i++) {
        handles[n] = r->pipes[i];
        kinds[n++] = KIND_PIPE;
    }
    for (int i = 0; i < r->signal_count; i++) {
        handles[n] = r->signals[i];
        kinds[n++] = KIND_SIGNAL;
    }
    for (int i = 0; i < QUEUES; i++) {
        handles[n] = r->queues[i];
        kinds[n++] = KIND_QUEUE;
    }
    for (int i = 0; i < r->subscription_count; i++) {
        handles[n] = r->subscriptions[i];
        /* A subscription through a repeating timer (buffer_time,
         * sample_period) released without a dispose used to keep its observer
         * for ever, the timer firing with nothing left to emit: now it ends
         * once its source lets go of it (`_periodic` in the core). */
        kinds[n++] = pick(g, 2) == 0 || r->must_dispose[i] ? KIND_DISPOSE : KIND_DISPOSABLE;
    }
    for (int i = n - 1; i > 0; i--) {
        int j = (int)pick(g, (unsigned)i + 1);
        void *handle = handles[i];
        int kind = kinds[i];
        handles[i] = handles[j];
        kinds[i] = kinds[j];
        handles[j] = handle;
        kinds[j] = kind;
    }
    for (int i = 0; i < n; i++) {
        switch (kinds[i]) {
        case KIND_PIPE: PROGRESS_VOID(sk_pipe_release(handles[i])); break;
        case KIND_SIGNAL: PROGRESS_VOID(sk_signal_release(handles[i])); break;
        case KIND_QUEUE: PROGRESS_VOID(sk_queue_release(handles[i])); break;
        case KIND_DISPOSE: PROGRESS_VOID(sk_disposable_dispose(handles[i])); /* fall through */
        default: PROGRESS_VOID(sk_disposable_release(handles[i])); break;
        }
    }
}

/* ------------------------------------------------------------------------ */
/* Workers and the end                                                       */
/* ------------------------------------------------------------------------ */

static double seconds_to_run;
static uint64_t base_seed;

static double now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

static void *worker(void *arg) {
    int index = (int)(intptr_t)arg;
    rng g = {(base_seed + 0x9E3779B97F4A7C15ULL * (uint64_t)(index + 1)) | 1};
    double end = now() + seconds_to_run;
    long rounds = 0;
    while (now() < end) {
        round_state r;
        r.worker = index;
        r.round = rounds;
        build(&r, &g);
        subscribe(&r, &g);
        pthread_t putter_thread;
        bool putting = feed(&r, &g, &putter_thread);
        /* The helper's puts meet the worker's in the pipeline, or its
         * teardown. */
        bool joined = !putting || pick(&g, 2) == 0;
        if (putting && joined) {
            pthread_join(putter_thread, NULL);
        }
        tear_down(&r, &g);
        if (!joined) {
            pthread_join(putter_thread, NULL);
        }
        rounds++;
    }
    return (void *)rounds;
}

/* ------------------------------------------------------------------------ */
/* Memory samples                                                            */
/* ------------------------------------------------------------------------ */

typedef struct sample {
    double at;      /* seconds since the start */
    double heap;    /* bytes in use in the heap */
    double rss;     /* resident bytes */
    double threads; /* the process's threads */
} sample;

static double resident_bytes(void) {
    FILE *f = fopen("/proc/self/statm", "r");
    unsigned long size = 0, resident = 0;
    if (f != NULL) {
        if (fscanf(f, "%lu %lu", &size, &resident) != 2) {
            resident = 0;
        }
        fclose(f);
    }
    return (double)resident * (double)sysconf(_SC_PAGESIZE);
}

static double thread_count(void) {
    DIR *d = opendir("/proc/self/task");
    int n = 0;
    if (d != NULL) {
        struct dirent *e;
        while ((e = readdir(d)) != NULL) {
            n += e->d_name[0] != '.';
        }
        closedir(d);
    }
    return n;
}

static void take_sample(sample *s, double start) {
    s->at = now() - start;
    s->heap = (double)mallinfo2().uordblks;
    s->rss = resident_bytes();
    s->threads = thread_count();
}

/* The least-squares slope of y over the samples' times (per second), and its
 * standard error. Fewer than 3 samples: 0 and 0. */
static void slope_of(const sample *s, int n, size_t field, double *slope, double *error) {
    *slope = 0;
    *error = 0;
    if (n < 3) {
        return;
    }
    double mean_t = 0, mean_y = 0;
    for (int i = 0; i < n; i++) {
        mean_t += s[i].at;
        mean_y += *(const double *)((const char *)&s[i] + field);
    }
    mean_t /= n;
    mean_y /= n;
    double stt = 0, sty = 0;
    for (int i = 0; i < n; i++) {
        double dt = s[i].at - mean_t;
        stt += dt * dt;
        sty += dt * (*(const double *)((const char *)&s[i] + field) - mean_y);
    }
    if (stt <= 0) {
        return;
    }
    *slope = sty / stt;
    double residuals = 0;
    for (int i = 0; i < n; i++) {
        double r = *(const double *)((const char *)&s[i] + field) - mean_y - *slope * (s[i].at - mean_t);
        residuals += r * r;
    }
    *error = sqrt(residuals / (n - 2) / stt);
}

/* Prints the samples' summary; returns whether the heap's slope is within
 * the bound (ABANDON_MAX_HEAP_SLOPE, KiB per minute), if one is set. */
static bool report_memory(const sample *s, int n) {
    if (n < 1) {
        return true;
    }
    const char *path = getenv("ABANDON_SAMPLES");
    FILE *out = path != NULL && *path != '\0' ? fopen(path, "w") : NULL;
    if (out != NULL) {
        for (int i = 0; i < n; i++) {
            fprintf(out, "%.3f %.0f %.0f %.0f\n", s[i].at, s[i].heap, s[i].rss, s[i].threads);
        }
        fclose(out);
    }
    const sample *first = &s[0], *last = &s[n - 1];
    int half = n / 2;
    double heap_slope, heap_error, rss_slope, rss_error, thread_slope, thread_error;
    slope_of(s + half, n - half, offsetof(sample, heap), &heap_slope, &heap_error);
    slope_of(s + half, n - half, offsetof(sample, rss), &rss_slope, &rss_error);
    slope_of(s + half, n - half, offsetof(sample, threads), &thread_slope, &thread_error);
    double most_threads = 0;
    for (int i = 0; i < n; i++) {
        most_threads = s[i].threads > most_threads ? s[i].threads : most_threads;
    }
    printf("abandon: heap in use %.2f -> %.2f MiB, resident %.2f -> %.2f MiB, threads %.0f -> %.0f (at most %.0f); "
           "%d samples\n",
           first->heap / 1048576, last->heap / 1048576, first->rss / 1048576, last->rss / 1048576, first->threads,
           last->threads, most_threads, n);
    printf("abandon: second half (%.0f s to %.0f s): heap %+.1f +- %.1f KiB/min, resident %+.1f +- %.1f KiB/min, "
           "threads %+.2f +- %.2f /min\n",
           s[half].at, last->at, heap_slope * 60 / 1024, heap_error * 60 / 1024, rss_slope * 60 / 1024,
           rss_error * 60 / 1024, thread_slope * 60, thread_error * 60);
    const char *bound = getenv("ABANDON_MAX_HEAP_SLOPE");
    if (bound != NULL && *bound != '\0') {
        double most = atof(bound);
        if (heap_slope * 60 / 1024 > most) {
            printf("abandon: the heap in use grows %.1f KiB/min in the second half, more than %.1f "
                   "(ABANDON_MAX_HEAP_SLOPE)\n",
                   heap_slope * 60 / 1024, most);
            return false;
        }
    }
    return true;
}

int main(int argc, char **argv) {
    seconds_to_run = argc > 1 ? atof(argv[1]) : 10.0;
    base_seed = argc > 2 ? strtoull(argv[2], NULL, 0) : (uint64_t)time(NULL);
    int threads = argc > 3 ? atoi(argv[3]) : 4;
    if (argc > 4) {
        only = atoi(argv[4]);
    }
    if (threads < 1 || threads > MAX_THREADS) {
        fprintf(stderr, "abandon: threads must be 1 to %d\n", MAX_THREADS);
        return 2;
    }
    if (only >= 0 && (size_t)only >= OPERATOR_COUNT) {
        fprintf(stderr, "abandon: the operator index must be 0 to %zu\n", (size_t)OPERATOR_COUNT - 1);
        return 2;
    }
    if (only >= 0) {
        printf("abandon: %d threads for %.0f s, %s (operator %d) and combine_latest; seed %llu "
               "(replay: abandon %.0f %llu %d %d)\n",
               threads, seconds_to_run, operator_at((size_t)only)->name, only, (unsigned long long)base_seed,
               seconds_to_run, (unsigned long long)base_seed, threads, only);
    } else {
        printf("abandon: %d threads for %.0f s, %zu operators of the table, %zu custom and combine_latest; seed %llu "
               "(replay: abandon %.0f %llu %d)\n",
               threads, seconds_to_run, (size_t)SK_TEST_OPERATOR_COUNT, (size_t)SK_TEST_CUSTOM_OPERATOR_COUNT,
               (unsigned long long)base_seed, seconds_to_run, (unsigned long long)base_seed, threads);
    }
    fflush(stdout);
    progress_watch(); /* with SIGNALKIT_PROGRESS_BOUND (test-explore): every call returns while the others go on */
    pthread_t workers[MAX_THREADS];
    for (int i = 0; i < threads; i++) {
        if (pthread_create(&workers[i], NULL, worker, (void *)(intptr_t)i) != 0) {
            fprintf(stderr, "abandon: cannot start worker %d\n", i);
            return 2;
        }
    }
    /* One sample a second while the workers run (they stop at the start plus
     * the run's seconds), the first at once. */
    int capacity = (int)seconds_to_run + 2;
    sample *samples = calloc((size_t)capacity, sizeof *samples);
    int sampled = 0;
    if (samples == NULL) {
        return 2;
    }
    double start = now();
    struct timespec tick;
    clock_gettime(CLOCK_MONOTONIC, &tick);
    while (sampled < capacity && now() - start <= seconds_to_run) {
        take_sample(&samples[sampled++], start);
        tick.tv_sec += 1;
        while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &tick, NULL) != 0) {
        }
    }
    long rounds = 0;
    for (int i = 0; i < threads; i++) {
        void *result;
        pthread_join(workers[i], &result);
        rounds += (long)result;
    }
    /* Everything is released; what is left is work in flight (threads
     * emitting, queue work, timers firing into disposed subscriptions). It
     * drains by itself: wait for it, yielding, with a generous deadline
     * (as the C suite's waits for the live-object count, which has no event
     * to wait on, do: Tests/C/support.c). */
    double deadline = now() + 60.0;
    while ((atomic_load(&threads_running) != 0 || atomic_load(&observers_released) != atomic_load(&observers_made) ||
            atomic_load(&contexts_released) < atomic_load(&contexts_made) || sk_live_objects() != 0 ||
            atomic_load(&rooms_completed) < atomic_load(&rooms_kept)) &&
           now() < deadline) {
        sched_yield();
    }
    long live = sk_live_objects();
    long made = atomic_load(&observers_made), released = atomic_load(&observers_released);
    long contexts = atomic_load(&contexts_made), released_contexts = atomic_load(&contexts_released);
    printf("abandon: %ld rounds, %ld observers made, %ld released, %ld released twice, %ld custom operators' "
           "contexts made, %ld releases of them, %ld objects alive; %ld room signals of puts made without waiting, "
           "%ld completed\n", rounds, made, released, atomic_load(&double_releases), contexts, released_contexts,
           live, atomic_load(&rooms_made), atomic_load(&rooms_completed));
    if (live != 0) {
        sk_live_objects_print(stderr);
    }
    unreleased_print();
    bool flat = report_memory(samples, sampled);
    free(samples);
    /* The idle tail (ABANDON_IDLE_SECONDS, issue 77: threads come back):
     * nothing runs any more; one sample a second of the threads and the
     * heap, and their slopes over the tail's second half, against the
     * process's threads before the workers started (the main thread, and
     * the explorer's and the progress watchdog's if any). */
    const char *idle_text = getenv("ABANDON_IDLE_SECONDS");
    double idle_seconds = idle_text != NULL && *idle_text != '\0' ? atof(idle_text) : 0;
    if (idle_seconds > 0) {
        int idle_capacity = (int)idle_seconds + 2, idle_sampled = 0;
        sample *idle = calloc((size_t)idle_capacity, sizeof *idle);
        if (idle == NULL) {
            return 2;
        }
        double idle_start = now();
        clock_gettime(CLOCK_MONOTONIC, &tick);
        while (idle_sampled < idle_capacity && now() - idle_start <= idle_seconds) {
            take_sample(&idle[idle_sampled++], idle_start);
            tick.tv_sec += 1;
            while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &tick, NULL) != 0) {
            }
        }
        int back = -1; /* the first sample at the least thread count of the tail */
        double fewest = 1e9;
        for (int i = 0; i < idle_sampled; i++) {
            if (idle[i].threads < fewest) {
                fewest = idle[i].threads;
                back = i;
            }
        }
        printf("abandon: idle for %.0f s: threads %.0f -> %.0f (the fewest, %.0f, from %.0f s on), "
               "heap in use %.2f -> %.2f MiB\n",
               idle_seconds, idle[0].threads, idle[idle_sampled - 1].threads, fewest, back >= 0 ? idle[back].at : 0.0,
               idle[0].heap / 1048576, idle[idle_sampled - 1].heap / 1048576);
        double heap_slope, heap_error, thread_slope, thread_error;
        int half = idle_sampled / 2;
        slope_of(idle + half, idle_sampled - half, offsetof(sample, heap), &heap_slope, &heap_error);
        slope_of(idle + half, idle_sampled - half, offsetof(sample, threads), &thread_slope, &thread_error);
        printf("abandon: idle, second half: heap %+.1f +- %.1f KiB/min, threads %+.2f +- %.2f /min\n",
               heap_slope * 60 / 1024, heap_error * 60 / 1024, thread_slope * 60, thread_error * 60);
        free(idle);
    }
    long kept = atomic_load(&rooms_kept), completed = atomic_load(&rooms_completed);
    if (completed < kept || completed > atomic_load(&rooms_made)) {
        printf("abandon: %ld room signals were kept undisposed, %ld completed\n", kept, completed);
    }
    if (live != 0 || made != released || contexts != released_contexts || atomic_load(&double_releases) != 0 ||
        !flat || completed < kept || completed > atomic_load(&rooms_made)) {
        printf("abandon: FAILED (seed %llu)\n", (unsigned long long)base_seed);
        return 1;
    }
    return 0;
}
