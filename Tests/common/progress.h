/* progress.h - liveness as a tested property (issue 77, docs/concepts.md
 * "Where a call can wait"): every library call a test thread makes
 * returns within a bound of other threads' calls, or the run fails,
 * naming the call.
 *
 * A thread wraps its calls: PROGRESS(sk_pipe_put(pipe, &v)) is the call's
 * result, with the call's text and the count of calls the other threads
 * have finished noted on entry. When SIGNALKIT_PROGRESS_BOUND is set (make
 * test-explore sets it: the schedule explorer stretches every window, so
 * that a wait that needs other threads to stop, or to slow down, shows),
 * progress_watch() starts a watchdog thread that looks, every 20 ms, at
 * every thread inside a wrapped call: one still in the same call after the
 * others have finished more than the bound of theirs is starved (a wait
 * that depends on the others stopping: the replay catch-up that issue 77
 * names), and one that sees no call finish anywhere for
 * SIGNALKIT_PROGRESS_STALL seconds (120 by default) while it is inside one
 * is stuck (a wait that never ends: a deadlock, a lost wake-up). Either is
 * printed with the call, the counts and the explorer's seed (which the
 * explorer printed first), then the process aborts: the test or the soak
 * fails.
 *
 * The watchdog only reads; a call's cost is two atomic operations and a
 * thread-local slot. At most PROGRESS_THREADS threads wrap calls (more are
 * not watched). The step of the bound is another thread's finished call,
 * not time: a loaded machine slows every thread alike and moves no verdict.
 * Header-only (static functions), for the C suite and the soak programs. */
#ifndef SIGNALKIT_TESTS_PROGRESS_H
#define SIGNALKIT_TESTS_PROGRESS_H

#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#define PROGRESS_THREADS 512

/* Atomics through the compiler's builtins and __thread, as the C suite's
 * (it is C99). */
typedef struct progress_slot {
    const char *call;        /* atomic; NULL: not inside a wrapped call */
    unsigned long long since; /* atomic; progress_calls when it entered */
} progress_slot;

static progress_slot progress_slots[PROGRESS_THREADS];
static unsigned progress_slot_count;      /* atomic */
static unsigned long long progress_calls; /* atomic */
static __thread progress_slot *progress_mine;
static __thread int progress_unwatched;

static inline void progress_enter(const char *call) {
    if (progress_mine == NULL) {
        if (progress_unwatched) {
            return;
        }
        unsigned index = __atomic_fetch_add(&progress_slot_count, 1, __ATOMIC_RELAXED);
        if (index >= PROGRESS_THREADS) {
            progress_unwatched = 1;
            return;
        }
        progress_mine = &progress_slots[index];
    }
    __atomic_store_n(&progress_mine->since, __atomic_load_n(&progress_calls, __ATOMIC_RELAXED), __ATOMIC_RELAXED);
    __atomic_store_n(&progress_mine->call, call, __ATOMIC_RELEASE);
}

static inline void progress_leave(void) {
    if (progress_mine != NULL) {
        __atomic_store_n(&progress_mine->call, NULL, __ATOMIC_RELEASE);
    }
    __atomic_fetch_add(&progress_calls, 1, __ATOMIC_RELAXED);
}

/* The call's result, the call watched. */
#define PROGRESS(expression)                                                                                  \
    __extension__({                                                                                           \
        progress_enter(#expression);                                                                          \
        __typeof__(expression) progress_result_ = (expression);                                               \
        progress_leave();                                                                                     \
        progress_result_;                                                                                     \
    })

/* A call without a result (a release, a dispose), watched. */
#define PROGRESS_VOID(expression)                                                                             \
    do {                                                                                                      \
        progress_enter(#expression);                                                                          \
        expression;                                                                                           \
        progress_leave();                                                                                     \
    } while (0)

typedef struct progress_watchdog {
    unsigned long long bound;
    double stall_seconds;
} progress_watchdog;

static double progress_now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static void *progress_watch_thread(void *arg) {
    progress_watchdog watch = *(progress_watchdog *)arg;
    free(arg);
    unsigned long long last_calls = __atomic_load_n(&progress_calls, __ATOMIC_RELAXED);
    double last_change = progress_now();
    for (;;) {
        struct timespec pause = {0, 20 * 1000 * 1000};
        nanosleep(&pause, NULL); /* a watchdog's period, not a wait for something */
        unsigned long long calls = __atomic_load_n(&progress_calls, __ATOMIC_RELAXED);
        double now = progress_now();
        if (calls != last_calls) {
            last_calls = calls;
            last_change = now;
        }
        unsigned count = __atomic_load_n(&progress_slot_count, __ATOMIC_RELAXED);
        for (unsigned i = 0; i < count && i < PROGRESS_THREADS; i++) {
            const char *call = __atomic_load_n(&progress_slots[i].call, __ATOMIC_ACQUIRE);
            if (call == NULL) {
                continue;
            }
            unsigned long long since = __atomic_load_n(&progress_slots[i].since, __ATOMIC_RELAXED);
            /* Read again: the same call still (the slot may have left and
             * entered another since). */
            if (__atomic_load_n(&progress_slots[i].call, __ATOMIC_ACQUIRE) != call ||
                __atomic_load_n(&progress_slots[i].since, __ATOMIC_RELAXED) != since) {
                continue;
            }
            if (calls > since && calls - since > watch.bound) {
                fprintf(stderr,
                        "progress: starved: thread %u has been in %s while the other threads finished %llu calls "
                        "(the bound is %llu, SIGNALKIT_PROGRESS_BOUND); the explorer's seed is printed above\n",
                        i, call, calls - since, watch.bound);
                abort();
            }
            if (now - last_change > watch.stall_seconds) {
                fprintf(stderr,
                        "progress: stuck: thread %u is in %s and no call has finished on any thread for %.0f s "
                        "(SIGNALKIT_PROGRESS_STALL); the explorer's seed is printed above\n",
                        i, call, now - last_change);
                abort();
            }
        }
    }
    return NULL;
}

/* Starts the watchdog when SIGNALKIT_PROGRESS_BOUND is set (a count of
 * calls, > 0); does nothing otherwise. Call it once, before the threads
 * start. */
static inline void progress_watch(void) {
    const char *text = getenv("SIGNALKIT_PROGRESS_BOUND");
    if (text == NULL || text[0] == '\0') {
        return;
    }
    progress_watchdog *watch = malloc(sizeof *watch);
    if (watch == NULL) {
        fprintf(stderr, "progress: no memory for the watchdog\n");
        abort();
    }
    watch->bound = strtoull(text, NULL, 10);
    const char *stall = getenv("SIGNALKIT_PROGRESS_STALL");
    watch->stall_seconds = stall != NULL && stall[0] != '\0' ? atof(stall) : 120.0;
    if (watch->bound == 0 || watch->stall_seconds <= 0) {
        fprintf(stderr, "progress: SIGNALKIT_PROGRESS_BOUND must be a count > 0 and SIGNALKIT_PROGRESS_STALL seconds > 0\n");
        abort();
    }
    pthread_t thread;
    if (pthread_create(&thread, NULL, progress_watch_thread, watch) != 0) {
        fprintf(stderr, "progress: cannot start the watchdog thread\n");
        abort();
    }
    pthread_detach(thread);
}

#endif /* SIGNALKIT_TESTS_PROGRESS_H */
