/* sk_ffi_callback_fail: a typed callback failing the delivery it handles.
 * Every role (map, filter, next, error, completed), the message forms (given,
 * NULL, a second call), nested deliveries keeping their own failure state,
 * a failing next that disposes its own subscription (the dispose wins), and
 * misuse (no typed callback running on the calling thread). */
#include <semaphore.h>
#include <stdatomic.h>

#include "ffi_support.h"

TestSuite(ffi_callback_fail, .timeout = SK_TEST_TIMEOUT);

/* What a failing callback does: at the value `fail_at` it calls
 * sk_ffi_callback_fail(message) (and, with `again`, a second time with
 * another message), recording the statuses; with `self` it also disposes
 * *self (its own subscription), after the call or, with `dispose_first`,
 * before it. */
typedef struct plan {
    tlog log; /* first: the ctx is a tlog * for tlog_release */
    int64_t fail_at;
    const char *message;
    bool again;
    int calls;
    int status;
    int second_status;
    sk_disposable **self;
    bool dispose_first;
} plan;

static void plan_init(plan *p, int64_t fail_at, const char *message) {
    tlog_init(&p->log);
    p->fail_at = fail_at;
    p->message = message;
    p->again = false;
    p->calls = 0;
    p->status = 1;
    p->second_status = 1;
    p->self = NULL;
    p->dispose_first = false;
}

static void plan_hit(plan *p, int64_t n) {
    p->calls++;
    if (n == p->fail_at) {
        if (p->self != NULL && p->dispose_first) {
            sk_disposable_dispose(*p->self);
        }
        p->status = sk_ffi_callback_fail(p->message);
        if (p->again) {
            p->second_status = sk_ffi_callback_fail("second message");
        }
        if (p->self != NULL && !p->dispose_first) {
            sk_disposable_dispose(*p->self);
        }
    }
}

static int64_t plan_map(void *ctx, int64_t n) {
    plan_hit(ctx, n);
    return n * 10; /* ignored when the call failed */
}

static bool plan_filter(void *ctx, int64_t n) {
    plan_hit(ctx, n);
    return true; /* ignored when the call failed */
}

static void plan_next(void *ctx, int64_t n) {
    tlog_add(ctx, "n:%lld", (long long)n);
    plan_hit(ctx, n);
}

static void plan_error(void *ctx, const char *s) {
    tlog_add(ctx, "e:%s", s);
    plan_hit(ctx, -1); /* fails when fail_at is -1 */
}

static void plan_completed(void *ctx) {
    tlog_add(ctx, "c");
    plan_hit(ctx, -2); /* fails when fail_at is -2 */
}

/* Maps (or filters) a manual source through plan_map (plan_filter), puts
 * 1, 2, 3, then 4 after the upstream was disposed, and checks that the
 * output is `expected` ("nner") with the int64 values `values`, ending with
 * the error text `error`, the upstream disposed, and the function not
 * called after the failure. */
static void check_operator(plan *p, bool filter, const char *expected, const int64_t *values, size_t count, const char *error) {
    pipeline pl;
    pipeline_init(&pl);
    pl.op = typed_operator(pl.upstream, filter, filter ? "bool(ctx,i64)" : "i64(ctx,i64)",
                           filter ? FN(plan_filter) : FN(plan_map), p);
    pipeline_start(&pl);
    for (int64_t n = 1; n <= 3; n++) {
        subscriber_put_int(pipeline_subscriber(&pl), n);
    }
    cr_assert(counter_wait(&pl.source.disposed, 1, SK_WAIT_SECONDS), "upstream not disposed");
    subscriber_put_int(pipeline_subscriber(&pl), 4);
    SK_OK_OR_FAIL(sk_subscriber_put_completion(pipeline_subscriber(&pl)));
    cr_assert(recorder_wait_release(&pl.r));
    recorder_expect(&pl.r, expected, values, count);
    expect_event_string(&pl.r, count, error);
    cr_assert_eq(p->calls, p->fail_at, "the function ran %d times", p->calls); /* not after the failure */
    cr_assert_eq(p->status, SK_OK);
    pipeline_finish(&pl);
    /* The frame is gone once the callback returned. */
    EXPECT_FFI_ERROR(sk_ffi_callback_fail("late"), SK_ERR_UNSUPPORTED, "no typed callback");
}

/* check_operator with a plan of its own that fails at `fail_at` with
 * `message`. */
static void check_failing_operator(int64_t fail_at, const char *message, bool filter, const char *expected, const int64_t *values, size_t count, const char *error) {
    plan p;
    plan_init(&p, fail_at, message);
    check_operator(&p, filter, expected, values, count, error);
    tlog_destroy(&p.log);
}

Test(ffi_callback_fail, map_failure_ends_with_the_message) {
    int64_t tens[] = {10, 20};
    check_failing_operator(3, "three is not allowed", false, "nner", tens, 2, "sk_ffi: map: callback failed: three is not allowed");
    expect_no_ffi_live_objects();
}

Test(ffi_callback_fail, filter_failure_ends_with_the_message) {
    int64_t kept[] = {1, 2};
    check_failing_operator(3, "bad predicate", true, "nner", kept, 2, "sk_ffi: filter: callback failed: bad predicate");
    expect_no_ffi_live_objects();
}

Test(ffi_callback_fail, null_message_and_second_call) {
    check_failing_operator(1, NULL, false, "er", NULL, 0, "sk_ffi: map: callback failed");

    /* A long message is never truncated. */
    char long_message[2000];
    memset(long_message, 'x', sizeof long_message - 1);
    long_message[sizeof long_message - 1] = '\0';
    char expected[2100];
    snprintf(expected, sizeof expected, "sk_ffi: filter: callback failed: %s", long_message);
    int64_t kept[] = {1};
    check_failing_operator(2, long_message, true, "ner", kept, 1, expected);

    /* Only the first call counts; the second still returns SK_OK. */
    plan p;
    plan_init(&p, 2, "first message");
    p.again = true;
    int64_t ten[] = {10};
    check_operator(&p, false, "ner", ten, 1, "sk_ffi: map: callback failed: first message");
    cr_assert_eq(p.second_status, SK_OK);
    tlog_destroy(&p.log);
    expect_no_ffi_live_objects();
}

/* A typed subscription over `signal` with plan_next / plan_error /
 * plan_completed. */
static void start_plan(sk_disposable **out, sk_signal *signal, plan *p) {
    sk_ffi_signature *next = sig("void(ctx,i64)");
    sk_ffi_signature *error = sig("void(ctx,str)");
    sk_ffi_signature *completed = sig("void(ctx)");
    sk_ffi_observer observer = {next, FN(plan_next), error, FN(plan_error), completed, FN(plan_completed), p, tlog_release};
    SK_OK_OR_FAIL(sk_ffi_signal_start(out, signal, &observer));
    sk_ffi_signature_release(next);
    sk_ffi_signature_release(error);
    sk_ffi_signature_release(completed);
}

Test(ffi_callback_fail, next_failure_disposes_and_reaches_the_error_callback) {
    plan p;
    plan_init(&p, 2, "two");
    manual_source source;
    manual_init(&source);
    sk_signal *signal = manual_signal(&source);
    sk_disposable *d = NULL;
    start_plan(&d, signal, &p);
    sk_subscriber *subscriber = manual_subscriber(&source, 0);
    subscriber_put_int(subscriber, 1);
    subscriber_put_int(subscriber, 2);
    cr_assert(counter_wait(&source.disposed, 1, SK_WAIT_SECONDS), "upstream not disposed");
    cr_assert(tlog_wait(&p.log, 3, 1));
    subscriber_put_int(subscriber, 3);
    SK_OK_OR_FAIL(sk_subscriber_put_completion(subscriber));
    tlog_expect(&p.log, "n:1 n:2 e:sk_ffi: next: callback failed: two ");
    cr_assert_eq(tlog_releases(&p.log), 1);
    cr_assert_eq(p.status, SK_OK);
    cr_assert_eq(p.calls, 3); /* next 1, next 2, error */
    sk_disposable_dispose(d); /* after the end: no effect */
    sk_disposable_release(d);
    sk_signal_release(signal);
    manual_destroy(&source);
    tlog_destroy(&p.log);
    EXPECT_FFI_ERROR(sk_ffi_callback_fail("late"), SK_ERR_UNSUPPORTED, "no typed callback");
    expect_no_ffi_live_objects();
}

/* A next callback that fails and disposes its own subscription, in either
 * order: the dispose wins (signalkit_ffi.h, sk_ffi_callback_fail): no error
 * callback, `release` once, the failing call still SK_OK. */
Test(ffi_callback_fail, next_failure_and_self_dispose_the_dispose_wins) {
    for (int first = 0; first < 2; first++) {
        plan p;
        plan_init(&p, 2, "two");
        sk_disposable *d = NULL;
        p.self = &d;
        p.dispose_first = first == 1;
        manual_source source;
        manual_init(&source);
        sk_signal *signal = manual_signal(&source);
        start_plan(&d, signal, &p);
        sk_subscriber *subscriber = manual_subscriber(&source, 0);
        subscriber_put_int(subscriber, 1);
        subscriber_put_int(subscriber, 2);
        cr_assert(counter_wait(&source.disposed, 1, SK_WAIT_SECONDS), "upstream not disposed");
        cr_assert(tlog_wait(&p.log, 2, 1), "no release");
        subscriber_put_int(subscriber, 3);
        tlog_expect(&p.log, "n:1 n:2 ");
        cr_assert_eq(tlog_releases(&p.log), 1);
        cr_assert_eq(p.status, SK_OK);
        cr_assert_eq(p.calls, 2, "dispose first: %d", first); /* no error callback */
        sk_disposable_release(d);
        sk_signal_release(signal);
        manual_destroy(&source);
        tlog_destroy(&p.log);
    }
    expect_no_ffi_live_objects();
}

/* Starts a typed subscription over `signal` (released here) with a plan
 * failing at `fail_at` with `message`, waits for `entries` log entries and
 * the release, and asserts the log `expected`, SK_OK from the failing call
 * and a single release. */
static void check_terminal_failure(sk_signal *signal, int64_t fail_at, const char *message, int entries, const char *expected) {
    plan p;
    plan_init(&p, fail_at, message);
    start_plan(NULL, signal, &p);
    sk_signal_release(signal);
    cr_assert(tlog_wait(&p.log, entries, 1), "%s: no release", expected);
    tlog_expect(&p.log, expected);
    cr_assert_eq(p.status, SK_OK);
    cr_assert_eq(tlog_releases(&p.log), 1);
    tlog_destroy(&p.log);
}

Test(ffi_callback_fail, error_and_completed_failures_end_nothing_more) {
    /* The error callback fails: release still runs once, nothing after. */
    sk_value error = string_value("boom");
    sk_signal *failing = NULL;
    SK_OK_OR_FAIL(sk_signal_fail(&failing, &error));
    sk_value_release(&error);
    check_terminal_failure(failing, -1, "in error", 1, "e:boom ");

    /* The completed callback fails: likewise. */
    int64_t values[] = {5};
    check_terminal_failure(ints_signal(values, 1), -2, "in completed", 2, "n:5 c ");
    EXPECT_FFI_ERROR(sk_ffi_callback_fail("late"), SK_ERR_UNSUPPORTED, "no typed callback");
    expect_no_ffi_live_objects();
}

/* Nesting: the outer map puts each value into a pipe whose subscriber is a
 * typed next (the inner callback), and fails before or after that put. */
typedef struct nest {
    sk_pipe *pipe;
    int64_t outer_fail_at;
    bool outer_fails_first; /* fail before the nested delivery */
    int outer_status;
    plan inner;
} nest;

static int64_t nest_map(void *ctx, int64_t n) {
    nest *x = ctx;
    if (n == x->outer_fail_at && x->outer_fails_first) {
        x->outer_status = sk_ffi_callback_fail("outer");
    }
    sk_value v = int_value(n);
    SK_OK_OR_ABORT(sk_pipe_put(x->pipe, &v));
    if (n == x->outer_fail_at && !x->outer_fails_first) {
        x->outer_status = sk_ffi_callback_fail("outer");
    }
    return n;
}

/* Runs 1, 2, 3 through the nest and checks the outer output (`expected`,
 * values `values`, then the error text `error` if not NULL) and the inner
 * log (`inner_log`, `inner_released` releases before the pipe goes). */
static void check_nest(int64_t outer_fail_at, bool outer_fails_first, int64_t inner_fail_at, const char *expected, const int64_t *values, size_t count, const char *error, const char *inner_log, int inner_released) {
    nest x;
    x.outer_fail_at = outer_fail_at;
    x.outer_fails_first = outer_fails_first;
    x.outer_status = 1;
    plan_init(&x.inner, inner_fail_at, "inner");
    SK_OK_OR_FAIL(sk_pipe_create(&x.pipe, false));
    sk_signal *piped = NULL;
    SK_OK_OR_FAIL(sk_pipe_signal(&piped, x.pipe));
    sk_disposable *inner = NULL;
    start_plan(&inner, piped, &x.inner);

    int64_t in[] = {1, 2, 3};
    sk_signal *source = ints_signal(in, 3);
    sk_signal *mapped = typed_operator(source, false, "i64(ctx,i64)", FN(nest_map), &x);
    recorder r;
    record_to_end(&r, mapped);
    recorder_expect(&r, expected, values, count);
    if (error != NULL) {
        expect_event_string(&r, count, error);
        cr_assert_eq(x.outer_status, SK_OK);
    }
    recorder_destroy(&r);
    tlog_expect(&x.inner.log, inner_log);
    cr_assert_eq(tlog_releases(&x.inner.log), inner_released);
    sk_disposable_dispose(inner);
    sk_disposable_release(inner);
    cr_assert(tlog_wait(&x.inner.log, 0, 1));
    cr_assert_eq(tlog_releases(&x.inner.log), 1);
    sk_signal_release(mapped);
    sk_signal_release(source);
    sk_signal_release(piped);
    sk_pipe_release(x.pipe);
    tlog_destroy(&x.inner.log);
    EXPECT_FFI_ERROR(sk_ffi_callback_fail("late"), SK_ERR_UNSUPPORTED, "no typed callback");
}

Test(ffi_callback_fail, nested_deliveries_keep_their_own_failure_state) {
    int64_t all[] = {1, 2, 3};
    /* The inner callback fails: the outer map goes on untouched. */
    check_nest(0, false, 2, "nnncr", all, 3, NULL, "n:1 n:2 e:sk_ffi: next: callback failed: inner ", 1);
    /* The outer fails after a nested delivery that succeeded: only the
     * outer subscription ends; the inner one stays subscribed. */
    int64_t one[] = {1};
    check_nest(2, false, 0, "ner", one, 1, "sk_ffi: map: callback failed: outer", "n:1 n:2 ", 0);
    /* The outer fails before the nested delivery: the inner one does not
     * inherit the failure. */
    check_nest(2, true, 0, "ner", one, 1, "sk_ffi: map: callback failed: outer", "n:1 n:2 ", 0);
    /* Both fail, each with its own message. */
    check_nest(2, false, 2, "ner", one, 1, "sk_ffi: map: callback failed: outer", "n:1 n:2 e:sk_ffi: next: callback failed: inner ", 1);
    check_nest(2, true, 2, "ner", one, 1, "sk_ffi: map: callback failed: outer", "n:1 n:2 e:sk_ffi: next: callback failed: inner ", 1);
    expect_no_ffi_live_objects();
}

/* The next function's failure waits for the next calls running on other
 * threads (signalkit.h's conventions, "Order of events"): one thread is
 * held inside next (value 1) while this one's value (2) fails; the error
 * callback runs once the held call has returned, on its thread. Before,
 * the typed subscription called next outside the calls its subscriber
 * counts, and the error ran at once, beside the held call. */
typedef struct held_next {
    sem_t inside, release;
    atomic_int in_next, errors, overlaps;
    pthread_t error_thread;
    sk_pipe *pipe;
} held_next;

static void held_next_fn(void *ctx, int64_t n) {
    held_next *h = ctx;
    atomic_fetch_add(&h->in_next, 1);
    if (n == 1) {
        sem_post(&h->inside);
        sem_wait(&h->release);
    } else {
        sk_ffi_callback_fail("two");
    }
    atomic_fetch_sub(&h->in_next, 1);
}

static void held_error_fn(void *ctx, const char *message) {
    held_next *h = ctx;
    (void)message;
    if (atomic_load(&h->in_next) != 0) {
        atomic_fetch_add(&h->overlaps, 1);
    }
    h->error_thread = pthread_self();
    atomic_fetch_add(&h->errors, 1);
}

static void *put_one(void *arg) {
    held_next *h = arg;
    sk_value one = int_value(1);
    SK_OK_OR_ABORT(sk_pipe_put(h->pipe, &one));
    return NULL;
}

Test(ffi_callback_fail, next_failure_waits_for_the_next_calls_on_other_threads) {
    held_next h;
    memset(&h, 0, sizeof h);
    sem_init(&h.inside, 0, 0);
    sem_init(&h.release, 0, 0);
    sk_signal *signal = NULL;
    SK_OK_OR_FAIL(sk_pipe_create(&h.pipe, false));
    SK_OK_OR_FAIL(sk_pipe_signal(&signal, h.pipe));
    sk_ffi_signature *next_signature = sig("void(ctx,i64)");
    sk_ffi_signature *error_signature = sig("void(ctx,str)");
    sk_ffi_observer observer = {next_signature, FN(held_next_fn), error_signature, FN(held_error_fn), NULL, NULL, &h, NULL};
    sk_disposable *d = NULL;
    SK_OK_OR_FAIL(sk_ffi_signal_start(&d, signal, &observer));
    pthread_t holder;
    cr_assert_eq(pthread_create(&holder, NULL, put_one, &h), 0);
    sem_wait(&h.inside);
    sk_value two = int_value(2);
    SK_OK_OR_FAIL(sk_pipe_put(h.pipe, &two));
    int errors_before = atomic_load(&h.errors);
    sem_post(&h.release);
    pthread_join(holder, NULL);
    cr_assert_eq(errors_before, 0, "the error ran beside the next call held on the other thread");
    cr_assert_eq(atomic_load(&h.errors), 1);
    cr_assert_eq(atomic_load(&h.overlaps), 0);
    cr_assert(pthread_equal(h.error_thread, holder), "the error ran on another thread than the held call's");
    sk_disposable_release(d);
    sk_signal_release(signal);
    sk_pipe_release(h.pipe);
    sk_ffi_signature_release(next_signature);
    sk_ffi_signature_release(error_signature);
    sem_destroy(&h.inside);
    sem_destroy(&h.release);
    expect_no_ffi_live_objects();
}

/* Misuse: calls with no typed callback running on the calling thread. */
static void *fail_from_thread(void *arg) {
    *(int *)arg = sk_ffi_callback_fail("from another thread");
    return NULL;
}

static int64_t map_failing_from_another_thread(void *ctx, int64_t n) {
    pthread_t thread;
    pthread_create(&thread, NULL, fail_from_thread, ctx);
    pthread_join(thread, NULL);
    return n + 1;
}

static int plain_status = 1;
static void plain_next(void *ctx, const sk_value *value) {
    (void)ctx;
    (void)value;
    plain_status = sk_ffi_callback_fail("from a plain observer");
}

Test(ffi_callback_fail, misuse_outside_a_typed_callback) {
    /* On a thread where nothing runs. */
    EXPECT_FFI_ERROR(sk_ffi_callback_fail("nothing runs"), SK_ERR_UNSUPPORTED,
                     "sk_ffi_callback_fail: no typed callback of this library is running on this thread");
    EXPECT_FFI_ERROR(sk_ffi_callback_fail(NULL), SK_ERR_UNSUPPORTED, "no typed callback");

    /* From another thread while a typed callback runs: that thread has no
     * callback running; the delivery is not failed. */
    int status = 1;
    int64_t in[] = {1, 2};
    sk_signal *source = ints_signal(in, 2);
    sk_signal *mapped = typed_operator(source, false, "i64(ctx,i64)", FN(map_failing_from_another_thread), &status);
    recorder r;
    record_to_end(&r, mapped);
    int64_t plus_one[] = {2, 3};
    recorder_expect(&r, "nncr", plus_one, 2);
    recorder_destroy(&r);
    cr_assert_eq(status, SK_ERR_UNSUPPORTED);

    /* From a plain sk_observer (not a typed callback). */
    sk_observer plain = {plain_next, NULL, NULL, NULL, NULL};
    SK_OK_OR_FAIL(sk_signal_start(NULL, source, &plain));
    cr_assert_eq(plain_status, SK_ERR_UNSUPPORTED);
    cr_assert(strstr(sk_ffi_last_error_message(), "no typed callback") != NULL);
    sk_signal_release(mapped);
    sk_signal_release(source);
    expect_no_ffi_live_objects();
}
