/*
 * ffi_support.h - helpers of the ffi test suite (header only, on top of
 * Tests/C/support.h).
 *
 * - tlog: a thread-safe text log that native callbacks append to ("n:5 c "),
 *   with counters and a deadline wait, so that a test asserts values and
 *   their order with one string comparison.
 * - sig(): parses a signature and fails the test if it does not parse.
 * - expect_no_ffi_live_objects(): the end-of-test leak check of both
 *   libraries.
 * - typed_operator(): a typed map or filter built from a signature text.
 * - record_to_end(), expect_event_string(): a recorder run over a signal to
 *   its end, and the string an event of it carries.
 * - run_rounds_on_threads(): the same work on several threads at once.
 */
#ifndef SK_FFI_TEST_SUPPORT_H
#define SK_FFI_TEST_SUPPORT_H

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include <signalkit_ffi.h>

#include "support.h"

#define TLOG_SIZE 4096

typedef struct tlog {
    pthread_mutex_t mutex;
    pthread_cond_t cond;
    char text[TLOG_SIZE];
    size_t length;
    int entries;
    int releases;
} tlog;

static inline void tlog_init(tlog *log) {
    memset(log, 0, sizeof *log);
    pthread_mutex_init(&log->mutex, NULL);
    pthread_cond_init(&log->cond, NULL);
}

static inline void tlog_destroy(tlog *log) {
    pthread_mutex_destroy(&log->mutex);
    pthread_cond_destroy(&log->cond);
}

/* Appends a formatted entry followed by a space. */
static inline void tlog_add(tlog *log, const char *format, ...) __attribute__((format(printf, 2, 3)));
static inline void tlog_add(tlog *log, const char *format, ...) {
    char entry[256];
    va_list args;
    va_start(args, format);
    vsnprintf(entry, sizeof entry, format, args);
    va_end(args);
    pthread_mutex_lock(&log->mutex);
    int written = snprintf(log->text + log->length, TLOG_SIZE - log->length, "%s ", entry);
    if (written > 0) {
        log->length += (size_t)written < TLOG_SIZE - log->length ? (size_t)written : TLOG_SIZE - 1 - log->length;
    }
    log->entries++;
    pthread_cond_broadcast(&log->cond);
    pthread_mutex_unlock(&log->mutex);
}

/* An sk_release_fn counting into the log (ctx: tlog *). */
static inline void tlog_release(void *ctx) {
    tlog *log = ctx;
    pthread_mutex_lock(&log->mutex);
    log->releases++;
    pthread_cond_broadcast(&log->cond);
    pthread_mutex_unlock(&log->mutex);
}

static inline int tlog_releases(tlog *log) {
    pthread_mutex_lock(&log->mutex);
    int n = log->releases;
    pthread_mutex_unlock(&log->mutex);
    return n;
}

/* Waits until `entries` entries (and `releases` releases) are logged. */
static inline bool tlog_wait(tlog *log, int entries, int releases) {
    double deadline = now_seconds() + SK_WAIT_SECONDS;
    pthread_mutex_lock(&log->mutex);
    while ((log->entries < entries || log->releases < releases) && now_seconds() < deadline) {
        struct timespec until;
        clock_gettime(CLOCK_REALTIME, &until);
        until.tv_nsec += 10 * 1000 * 1000;
        if (until.tv_nsec >= 1000000000L) {
            until.tv_sec++;
            until.tv_nsec -= 1000000000L;
        }
        pthread_cond_timedwait(&log->cond, &log->mutex, &until);
    }
    bool ok = log->entries >= entries && log->releases >= releases;
    pthread_mutex_unlock(&log->mutex);
    return ok;
}

/* Asserts the log reads `expected` (entries separated by spaces, with the
 * trailing space). */
#define tlog_expect(log, expected)                                                 \
    do {                                                                           \
        pthread_mutex_lock(&(log)->mutex);                                         \
        char tlog_copy_[TLOG_SIZE];                                                \
        memcpy(tlog_copy_, (log)->text, TLOG_SIZE);                                \
        pthread_mutex_unlock(&(log)->mutex);                                       \
        cr_assert_str_eq(tlog_copy_, (expected));                                  \
    } while (0)

/* A parsed signature (+1); fails the test if `text` does not parse. */
static inline sk_ffi_signature *sig(const char *text) {
    sk_ffi_signature *signature = NULL;
    int status = sk_ffi_signature_parse(&signature, text);
    cr_assert_eq(status, SK_OK, "parse \"%s\": %d %s", text, status, sk_ffi_last_error_message());
    return signature;
}

/* Asserts that `call` returned `status` and that sk_ffi_last_error_message()
 * contains `fragment`. */
#define EXPECT_FFI_ERROR(call, status, fragment)                                   \
    do {                                                                           \
        int st_ = (call);                                                          \
        cr_assert_eq(st_, (status), "%s returned %d, expected %d (%s)", #call, st_, \
                     (status), sk_ffi_last_error_message());                       \
        cr_assert(strstr(sk_ffi_last_error_message(), (fragment)) != NULL,          \
                  "%s: message \"%s\" lacks \"%s\"", #call,                        \
                  sk_ffi_last_error_message(), (fragment));                        \
    } while (0)

/* Both libraries' leak check. The ffi count drops before a user release
 * runs, so no wait is needed. */
static inline void expect_no_ffi_live_objects(void) {
    cr_assert_eq(sk_ffi_live_objects(), 0, "%ld ffi objects still alive", sk_ffi_live_objects());
    expect_no_live_objects(0);
}

/* A new signal (+1, the caller releases it): sk_ffi_signal_map of `source`
 * through `fn`, described by the signature `text`, with `ctx` and no release
 * function; with `filter`, sk_ffi_signal_filter. Fails the test if the call
 * fails. The signature is released: the operator keeps what it needs. */
static inline sk_signal *typed_operator(sk_signal *source, bool filter, const char *text, sk_ffi_fn fn, void *ctx) {
    sk_ffi_signature *signature = sig(text);
    sk_signal *out = NULL;
    if (filter) {
        SK_OK_OR_FAIL(sk_ffi_signal_filter(&out, source, signature, fn, ctx, NULL));
    } else {
        SK_OK_OR_FAIL(sk_ffi_signal_map(&out, source, signature, fn, ctx, NULL));
    }
    sk_ffi_signature_release(signature);
    return out;
}

/* Initialises `r`, starts `signal` into it and waits until the observer's
 * release ran (the signal ended). The caller asserts on `r`, then
 * recorder_destroy()s it; the subscription is over, nothing else to
 * release. */
static inline void record_to_end(recorder *r, sk_signal *signal) {
    recorder_init(r);
    sk_observer observer = recorder_observer(r);
    SK_OK_OR_FAIL(sk_signal_start(NULL, signal, &observer));
    cr_assert(recorder_wait_release(r), "the observer was not released");
}

/* Asserts that the `index`-th event of `r` carries the string `expected`
 * (a next or an error value). Nothing to release. */
static inline void expect_event_string(recorder *r, size_t index, const char *expected) {
    const rec_event *event = recorder_event(r, index);
    cr_assert_not_null(event, "no event %zu", index);
    const char *text = NULL;
    SK_OK_OR_FAIL(sk_value_get_string(&event->value, &text, NULL));
    cr_assert_str_eq(text, expected, "event %zu", index);
}

/* run_rounds_on_threads(): `threads` new threads (at most
 * FFI_MAX_THREADS) each call round(arg, thread) `rounds` times, all at
 * once, `thread` numbering them from 0; it returns once every thread has
 * finished. The threads are joined: nothing to release. `round` runs off the
 * test's thread: it aborts rather than asserts. */
#define FFI_MAX_THREADS 8

typedef void (*thread_round_fn)(void *arg, int thread);

typedef struct thread_rounds {
    thread_round_fn round;
    void *arg;
    int thread;
    int rounds;
} thread_rounds;

static inline void *thread_rounds_main(void *context) {
    const thread_rounds *job = context;
    for (int left = job->rounds; left > 0; left--) {
        job->round(job->arg, job->thread);
    }
    return NULL;
}

static inline void run_rounds_on_threads(int threads, int rounds, thread_round_fn round, void *arg) {
    cr_assert(threads > 0 && threads <= FFI_MAX_THREADS, "%d threads", threads);
    thread_rounds jobs[FFI_MAX_THREADS];
    pthread_t ids[FFI_MAX_THREADS];
    for (int t = 0; t < threads; t++) {
        jobs[t] = (thread_rounds){round, arg, t, rounds};
        cr_assert_eq(pthread_create(&ids[t], NULL, thread_rounds_main, &jobs[t]), 0);
    }
    for (int t = 0; t < threads; t++) {
        pthread_join(ids[t], NULL);
    }
}

/* A function pointer of any type as sk_ffi_fn. */
#define FN(f) ((sk_ffi_fn)(f))

#endif
