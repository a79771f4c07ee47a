/*
 * soak.c - a bounded multi-threaded soak of the C API, for ThreadSanitizer
 * and AddressSanitizer builds (make test-soak-tsan, make test-soak-asan).
 *
 * Four workers do random operations for a fixed number of iterations: put
 * values of several kinds (user pointers with counting releases among them)
 * into two shared pipes, start tracked subscriptions on shared pipelines
 * (map, filter, distinct, take, merge, combine-latest, map-to-signal, a hop
 * onto a serial queue, a hop onto a host-drained queue that a dedicated
 * thread drains), dispose them, release them without disposing, and dispose
 * from inside their own callbacks.
 *
 * Checked: no callback after the observer's terminal event or release, none
 * on a thread after that thread's dispose returned; at the end, once
 * everything is released and the queues flushed, every observer and every
 * user pointer was released exactly once and sk_live_objects() is 0.
 *
 * Usage: soak [iterations-per-worker [seed]]
 */
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "signalkit.h"
#include "int_callbacks.h"

#define WORKERS 4
#define PIPELINES 13
#define MAX_OBSERVERS 200000
#define MAX_POINTERS 200000
#define OWN 8

#define SOAK_NAME "soak"
#include "check.h"

static atomic_int violations;

static void violation(const char *what) {
    if (atomic_fetch_add(&violations, 1) < 10) {
        fprintf(stderr, "soak: violation: %s\n", what);
    }
}

/* A violation about one observer's callback: which callback, and on which
 * pipeline (an index into pipelines[], see build_world). */
static void callback_violation(const char *what, const char *callback, int pipeline) {
    char text[160];
    snprintf(text, sizeof text, "%s (%s callback, pipeline %d)", what, callback, pipeline);
    violation(text);
}

/* ------------------------------------------------------------------------ */
/* Tracked observers                                                         */
/* ------------------------------------------------------------------------ */

typedef struct observer {
    atomic_int terminated;
    atomic_int releases;
    atomic_int disposed;          /* set by the disposing thread after dispose returned */
    pthread_t disposer;
    atomic_int dispose_inside;    /* dispose from inside the next callback */
    _Atomic(sk_disposable *) own; /* retained: for disposing from inside */
    int pipeline;                 /* the index in pipelines[] it was started on */
} observer;

static observer *observers[MAX_OBSERVERS];
static atomic_int observer_count;

static void check_callback(observer *o, const char *callback) {
    if (atomic_load(&o->releases) != 0) {
        callback_violation("a callback after the release", callback, o->pipeline);
    }
    if (atomic_load(&o->disposed) && pthread_equal(o->disposer, pthread_self())) {
        callback_violation("a callback on the disposing thread after dispose returned", callback, o->pipeline);
    }
}

static void on_next(void *ctx, const sk_value *value) {
    observer *o = ctx;
    (void)value;
    check_callback(o, "next");
    if (atomic_load(&o->terminated)) {
        callback_violation("next after the terminal event", "next", o->pipeline);
    }
    if (atomic_exchange(&o->dispose_inside, 0)) {
        sk_disposable *d = atomic_exchange(&o->own, NULL);
        sk_disposable_dispose(d);
        sk_disposable_release(d);
    }
}

static void on_terminal(observer *o, const char *callback) {
    check_callback(o, callback);
    if (atomic_exchange(&o->terminated, 1)) {
        callback_violation("a second terminal event", callback, o->pipeline);
    }
}

static void on_error(void *ctx, const sk_value *error) {
    (void)error;
    on_terminal(ctx, "error");
}

static void on_completed(void *ctx) {
    on_terminal(ctx, "completed");
}

static void on_release(void *ctx) {
    observer *o = ctx;
    if (atomic_fetch_add(&o->releases, 1) != 0) {
        violation("an observer released twice");
    }
    sk_disposable_release(atomic_exchange(&o->own, NULL));
}

/* ------------------------------------------------------------------------ */
/* Shared world                                                              */
/* ------------------------------------------------------------------------ */

static sk_pipe *pipes[2];
static sk_signal *pipelines[PIPELINES];
static sk_queue *serial, *host;
static atomic_int stop_draining;
static atomic_int pointer_releases[MAX_POINTERS];
static atomic_int pointer_count;

static void pointer_release(void *p) {
    if (atomic_fetch_add((atomic_int *)p, 1) != 0) {
        violation("a user pointer released twice");
    }
}



static sk_signal *single_of(void *ctx, const sk_value *value) {
    (void)ctx;
    sk_signal *s = NULL;
    CHECK(sk_signal_single(&s, value));
    return s;
}

/* The count of values so far, for scan. */
static void count_values(void *ctx, const sk_value *accumulator, const sk_value *value, sk_value *out) {
    (void)ctx;
    (void)value;
    int64_t n = 0;
    CHECK(sk_value_get_int64(accumulator, &n));
    sk_value_set_int64(out, n + 1);
}

static void build_world(void) {
    CHECK(sk_pipe_create(&pipes[0], false));
    CHECK(sk_pipe_create(&pipes[1], true));
    CHECK(sk_queue_create(&serial, "soak"));
    CHECK(sk_queue_create_host(&host, "soak-host"));
    sk_signal *p0, *p1;
    CHECK(sk_pipe_signal(&p0, pipes[0]));
    CHECK(sk_pipe_signal(&p1, pipes[1]));
    pipelines[0] = p0;
    pipelines[1] = p1;
    CHECK(sk_signal_map(&pipelines[2], p0, sk_test_add_one, NULL, NULL));
    CHECK(sk_signal_filter(&pipelines[3], pipelines[2], sk_test_keep_even, NULL, NULL));
    CHECK(sk_signal_deliver_on(&pipelines[4], pipelines[3], serial));
    sk_signal *pair[2] = { p0, p1 };
    CHECK(sk_signal_merge(&pipelines[5], pair, 2));
    CHECK(sk_signal_combine_latest(&pipelines[6], pair, 2, NULL));
    sk_signal *distinct;
    CHECK(sk_signal_distinct_until_changed(&distinct, pipelines[5]));
    CHECK(sk_signal_take(&pipelines[7], distinct, 5));
    sk_signal_release(distinct);
    sk_signal *mapped;
    CHECK(sk_signal_map_to_signal(&mapped, p1, single_of, NULL, NULL));
    CHECK(sk_signal_deliver_on(&pipelines[8], mapped, host));
    sk_signal_release(mapped);
    /* Issue 33's operators: zip, scan, share and merge_map over the pipes. */
    CHECK(sk_signal_zip(&pipelines[9], pair, 2));
    sk_value zero;
    sk_value_set_int64(&zero, 0);
    CHECK(sk_signal_scan(&pipelines[10], p0, &zero, count_values, NULL, NULL));
    CHECK(sk_signal_share(&pipelines[11], pipelines[2]));
    CHECK(sk_signal_merge_map(&pipelines[12], p1, 2, single_of, NULL, NULL));
}

static void *drainer(void *arg) {
    (void)arg;
    int fd = -1;
    CHECK(sk_queue_host_fd(host, &fd));
    while (!atomic_load(&stop_draining)) {
        struct pollfd p = { fd, POLLIN, 0 };
        poll(&p, 1, 20);
        CHECK(sk_queue_host_drain(host, 0, NULL));
    }
    return NULL;
}

/* ------------------------------------------------------------------------ */
/* Workers                                                                   */
/* ------------------------------------------------------------------------ */

static uint64_t next_random(uint64_t *state) {
    uint64_t x = *state;
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    *state = x;
    return x;
}

typedef struct worker {
    uint64_t random;
    long iterations;
    sk_disposable *own[OWN];
    observer *own_observers[OWN];
} worker;

static void put_value(worker *w) {
    sk_value v;
    uint64_t r = next_random(&w->random);
    if (r % 5 == 0) {
        int index = atomic_fetch_add(&pointer_count, 1);
        if (index >= MAX_POINTERS) {
            return;
        }
        CHECK(sk_value_set_pointer(&v, &pointer_releases[index], pointer_release));
    } else if (r % 5 == 1) {
        CHECK(sk_value_set_string(&v, (r & 8) ? "a" : "b"));
    } else {
        sk_value_set_int64(&v, (int64_t)(r % 7));
    }
    CHECK(sk_pipe_put(pipes[(r >> 8) & 1], &v));
    sk_value_release(&v);
}

static void start_one(worker *w) {
    uint64_t r = next_random(&w->random);
    int index = atomic_fetch_add(&observer_count, 1);
    if (index >= MAX_OBSERVERS) {
        return;
    }
    observer *o = calloc(1, sizeof *o);
    if (o == NULL) {
        abort();
    }
    observers[index] = o;
    atomic_store(&o->dispose_inside, (r & 0x30) == 0);
    o->pipeline = (int)((r >> 8) % PIPELINES);
    sk_observer callbacks = { on_next, on_error, on_completed, o, on_release };
    sk_disposable *d = NULL;
    CHECK(sk_signal_start(&d, pipelines[o->pipeline], &callbacks));
    /* The callbacks may already have run (and released); the inside-dispose
     * path gets its own reference, dropped by whoever takes it. */
    sk_disposable *previous = atomic_exchange(&o->own, sk_disposable_retain(d));
    sk_disposable_release(previous);
    if (atomic_load(&o->releases) != 0) {
        sk_disposable_release(atomic_exchange(&o->own, NULL));
    }
    size_t slot = (r >> 16) % OWN;
    if (w->own[slot] != NULL) {
        /* Mostly disposed; now and then only released (it then runs until
         * its pipe is released at the end). */
        if ((r >> 24) % 8 != 0) {
            observer *old = w->own_observers[slot];
            sk_disposable_dispose(w->own[slot]);
            old->disposer = pthread_self();
            atomic_store(&old->disposed, 1);
        }
        sk_disposable_release(w->own[slot]);
    }
    w->own[slot] = d;
    w->own_observers[slot] = o;
}

static void dispose_one(worker *w) {
    size_t slot = next_random(&w->random) % OWN;
    if (w->own[slot] == NULL) {
        return;
    }
    observer *o = w->own_observers[slot];
    sk_disposable_dispose(w->own[slot]);
    o->disposer = pthread_self();
    atomic_store(&o->disposed, 1);
    sk_disposable_release(w->own[slot]);
    w->own[slot] = NULL;
}

static void *work(void *arg) {
    worker *w = arg;
    for (long i = 0; i < w->iterations; i++) {
        switch (next_random(&w->random) % 8) {
        case 0:
        case 1:
        case 2:
            put_value(w);
            break;
        case 3:
        case 4:
            start_one(w);
            break;
        case 5:
        case 6:
            dispose_one(w);
            break;
        default:
            sk_queue_is_current(serial);
            break;
        }
    }
    for (size_t slot = 0; slot < OWN; slot++) {
        if (w->own[slot] != NULL) {
            if (next_random(&w->random) & 1) {
                sk_disposable_dispose(w->own[slot]);
            }
            sk_disposable_release(w->own[slot]);
        }
    }
    return NULL;
}

static void nothing(void *ctx) {
    (void)ctx;
}

static double now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

int main(int argc, char **argv) {
    long iterations = argc > 1 ? atol(argv[1]) : 5000;
    uint64_t seed = argc > 2 ? strtoull(argv[2], NULL, 0) : (uint64_t)time(NULL);
    printf("soak: %d workers x %ld iterations, seed %llu\n", WORKERS, iterations, (unsigned long long)seed);
    build_world();
    pthread_t drain_thread;
    pthread_create(&drain_thread, NULL, drainer, NULL);
    static worker workers[WORKERS];
    pthread_t threads[WORKERS];
    for (int i = 0; i < WORKERS; i++) {
        workers[i].random = seed * 2654435761u + (uint64_t)i * 40503u + 1;
        workers[i].iterations = iterations;
        pthread_create(&threads[i], NULL, work, &workers[i]);
    }
    for (int i = 0; i < WORKERS; i++) {
        pthread_join(threads[i], NULL);
    }

    /* Everything is let go: pipes released end their subscriptions. */
    for (int i = 0; i < PIPELINES; i++) {
        sk_signal_release(pipelines[i]);
    }
    sk_pipe_release(pipes[0]);
    sk_pipe_release(pipes[1]);
    CHECK(sk_queue_sync(serial, nothing, NULL, NULL));
    atomic_store(&stop_draining, 1);
    pthread_join(drain_thread, NULL);
    size_t ran;
    do {
        CHECK(sk_queue_host_drain(host, 0, &ran));
    } while (ran > 0);
    sk_queue_release(serial);
    sk_queue_release(host);

    double deadline = now() + 10;
    /* Releases that other threads were finishing (a queue's thread dropping
     * its last block) end within the deadline: yield until then. */
    while (sk_live_objects() != 0 && now() < deadline) {
        sched_yield();
    }
    int count = atomic_load(&observer_count);
    count = count > MAX_OBSERVERS ? MAX_OBSERVERS : count;
    for (int i = 0; i < count; i++) {
        if (atomic_load(&observers[i]->releases) != 1) {
            violation("an observer not released exactly once at the end");
        }
        free(observers[i]);
    }
    int pointers = atomic_load(&pointer_count);
    pointers = pointers > MAX_POINTERS ? MAX_POINTERS : pointers;
    for (int i = 0; i < pointers; i++) {
        if (atomic_load(&pointer_releases[i]) != 1) {
            violation("a user pointer not released exactly once at the end");
        }
    }
    if (sk_live_objects() != 0) {
        fprintf(stderr, "soak: %ld objects alive at the end\n", sk_live_objects());
        violation("objects alive at the end");
    }
    printf("soak: %d subscriptions, %d user pointers, %d violations\n", count, pointers, atomic_load(&violations));
    return atomic_load(&violations) == 0 ? 0 : 1;
}
