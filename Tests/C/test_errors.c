/* test_errors.c - status strings and the thread-local last error message. */
#include <limits.h>
#include <stdio.h>
#include <string.h>

#include "support.h"

static const int all_statuses[] = {
    SK_OK, SK_ERR_NULL_ARGUMENT, SK_ERR_WRONG_KIND, SK_ERR_INVALID_ARGUMENT,
    SK_ERR_NO_MEMORY, SK_ERR_BUSY, SK_ERR_UNSUPPORTED, SK_ERR_RELEASED, SK_ERR_RESOURCE
};
#define STATUS_COUNT (sizeof all_statuses / sizeof all_statuses[0])

Test(errors, status_values_are_as_declared, .timeout = SK_TEST_TIMEOUT) {
    /* The ABI: these numbers must never change. */
    cr_assert_eq(SK_OK, 0);
    cr_assert_eq(SK_ERR_NULL_ARGUMENT, -1);
    cr_assert_eq(SK_ERR_WRONG_KIND, -2);
    cr_assert_eq(SK_ERR_INVALID_ARGUMENT, -3);
    cr_assert_eq(SK_ERR_NO_MEMORY, -4);
    cr_assert_eq(SK_ERR_BUSY, -5);
    cr_assert_eq(SK_ERR_UNSUPPORTED, -6);
    cr_assert_eq(SK_ERR_RELEASED, -7);
    cr_assert_eq(SK_ERR_RESOURCE, -8);
}

Test(errors, status_string_for_every_status, .timeout = SK_TEST_TIMEOUT) {
    /* The two the header spells out. */
    cr_assert_str_eq(sk_status_string(SK_OK), "ok");
    cr_assert_str_eq(sk_status_string(SK_ERR_NULL_ARGUMENT), "null argument");
    /* Both of SK_ERR_RESOURCE's causes: a virtual-time advance's task limit
     * is no refusal of the system's (it said so before). */
    cr_assert_str_eq(sk_status_string(SK_ERR_RESOURCE), "resource refused by the system, or a limit reached");
    for (size_t i = 0; i < STATUS_COUNT; i++) {
        const char *text = sk_status_string(all_statuses[i]);
        cr_assert_not_null(text, "status %d", all_statuses[i]);
        cr_assert_gt(strlen(text), 0, "status %d has an empty description", all_statuses[i]);
        cr_assert_str_neq(text, "unknown status", "status %d is described as unknown", all_statuses[i]);
        /* Static: the same pointer every time. */
        cr_assert_eq(sk_status_string(all_statuses[i]), text);
        for (size_t j = 0; j < i; j++) {
            cr_assert_str_neq(text, sk_status_string(all_statuses[j]),
                              "statuses %d and %d share the description \"%s\"", all_statuses[i], all_statuses[j], text);
        }
    }
}

Test(errors, status_string_for_unknown_values, .timeout = SK_TEST_TIMEOUT) {
    const int unknown[] = { 1, 2, -9, -100, 1000, INT_MAX, INT_MIN };
    for (size_t i = 0; i < sizeof unknown / sizeof unknown[0]; i++) {
        const char *text = sk_status_string(unknown[i]);
        cr_assert_not_null(text);
        cr_assert_str_eq(text, "unknown status", "status %d: \"%s\"", unknown[i], text);
    }
}

Test(errors, no_error_yet_is_empty, .timeout = SK_TEST_TIMEOUT) {
    const char *message = sk_last_error_message();
    cr_assert_not_null(message);
    cr_assert_str_eq(message, "");
}

Test(errors, message_names_function_and_argument, .timeout = SK_TEST_TIMEOUT) {
    sk_signal *never = made_signal(sk_signal_never);
    sk_signal *out = (sk_signal *)&out; /* must be overwritten with NULL */
    cr_assert_eq(sk_signal_map(&out, never, NULL, NULL, NULL), SK_ERR_NULL_ARGUMENT);
    cr_assert_null(out);
    const char *message = sk_last_error_message();
    cr_assert_not_null(strstr(message, "sk_signal_map"), "message \"%s\" does not name the function", message);
    cr_assert_not_null(strstr(message, "fn"), "message \"%s\" does not name the argument", message);

    cr_assert_eq(sk_queue_host_fd(NULL, NULL), SK_ERR_NULL_ARGUMENT);
    message = sk_last_error_message();
    cr_assert_not_null(strstr(message, "sk_queue_host_fd"), "message \"%s\"", message);

    int64_t n;
    sk_value text = string_value("x");
    cr_assert_eq(sk_value_get_int64(&text, &n), SK_ERR_WRONG_KIND);
    message = sk_last_error_message();
    cr_assert_not_null(strstr(message, "sk_value_get_int64"), "message \"%s\"", message);
    sk_value_release(&text);

    sk_signal_release(never);
    expect_no_live_objects(0);
}

Test(errors, success_does_not_clear_message, .timeout = SK_TEST_TIMEOUT) {
    cr_assert_eq(sk_pipe_create(NULL, false), SK_ERR_NULL_ARGUMENT);
    char saved[512];
    snprintf(saved, sizeof saved, "%s", sk_last_error_message());
    cr_assert_not_null(strstr(saved, "sk_pipe_create"), "message \"%s\"", saved);

    sk_pipe *pipe = NULL;
    SK_OK_OR_FAIL(sk_pipe_create(&pipe, false));
    pipe_put_int(pipe, 1);
    cr_assert_str_eq(sk_last_error_message(), saved);
    sk_pipe_release(pipe);

    /* A new failure replaces it. */
    cr_assert_eq(sk_promise_create(NULL), SK_ERR_NULL_ARGUMENT);
    cr_assert_not_null(strstr(sk_last_error_message(), "sk_promise_create"), "message \"%s\"", sk_last_error_message());
    expect_no_live_objects(0);
}

/* Thread-local messages: a failure on one thread is invisible on another. */

typedef struct thread_errors {
    gate failed_here;   /* the other thread has failed a call */
    gate main_failed;   /* the test thread has failed a call */
    char before[512];   /* the other thread's message before any failure */
    char after_own[512];
    char after_main[512];
} thread_errors;

static void *failing_thread(void *arg) {
    thread_errors *t = arg;
    snprintf(t->before, sizeof t->before, "%s", sk_last_error_message());
    if (sk_disposable_meta_set(NULL, NULL) != SK_ERR_NULL_ARGUMENT) {
        snprintf(t->after_own, sizeof t->after_own, "unexpected status");
    } else {
        snprintf(t->after_own, sizeof t->after_own, "%s", sk_last_error_message());
    }
    gate_open(&t->failed_here);
    if (gate_wait(&t->main_failed, SK_WAIT_SECONDS)) {
        snprintf(t->after_main, sizeof t->after_main, "%s", sk_last_error_message());
    }
    return NULL;
}

Test(errors, last_error_is_thread_local, .timeout = SK_TEST_TIMEOUT) {
    thread_errors t;
    memset(&t, 0, sizeof t);
    gate_init(&t.failed_here);
    gate_init(&t.main_failed);

    /* This thread fails first: the new thread must not see it. */
    cr_assert_eq(sk_signal_take(NULL, NULL, 1), SK_ERR_NULL_ARGUMENT);
    char mine[512];
    snprintf(mine, sizeof mine, "%s", sk_last_error_message());
    cr_assert_not_null(strstr(mine, "sk_signal_take"), "message \"%s\"", mine);

    pthread_t thread;
    cr_assert_eq(pthread_create(&thread, NULL, failing_thread, &t), 0);
    cr_assert(gate_wait(&t.failed_here, SK_WAIT_SECONDS));
    /* Its failure did not touch this thread's message. */
    cr_assert_str_eq(sk_last_error_message(), mine);

    cr_assert_eq(sk_value_set_string(NULL, "x"), SK_ERR_NULL_ARGUMENT);
    cr_assert_not_null(strstr(sk_last_error_message(), "sk_value_set_string"));
    gate_open(&t.main_failed);
    pthread_join(thread, NULL);

    cr_assert_str_eq(t.before, "", "a new thread saw \"%s\"", t.before);
    cr_assert_not_null(strstr(t.after_own, "sk_disposable_meta_set"), "own message \"%s\"", t.after_own);
    cr_assert_str_eq(t.after_main, t.after_own, "the other thread's message changed to \"%s\"", t.after_main);

    gate_destroy(&t.failed_here);
    gate_destroy(&t.main_failed);
    expect_no_live_objects(0);
}

/* ------------------------------------------------------------------------ */
/* A failing call's message survives the release it runs                     */
/* ------------------------------------------------------------------------ */

/* Every public function that takes a `release` runs it when it fails, before
 * returning, and a release is user code that may call the library: a
 * binding's release drops the handles it kept for the callback set, and a
 * drop can fail (a handle of another kind, one released twice with handle
 * checking on). Such a failing call inside the release must not replace the
 * message of the call that ran it: sk_last_error_message() describes the
 * caller's failing call until the caller's next one. Before, most of these
 * functions set their message first and let the release run after it (when
 * the context was let go at the end of the call), so the caller read the
 * release's message instead (found by a new-user exploration of the ffi
 * library, whose bindings' releases do exactly that). 67 of the 90 rows
 * below failed so, every one but those refused before the context was made
 * (a NULL fn or action, a negative duration, sk_signal_create_over's NULL
 * upstream, sk_signal_reduce_left's and sk_timer_start's NULL out).
 *
 * The table below makes each of these functions fail in each way it can
 * while it holds a release, once with no release (the reference message) and
 * once with a release that makes failing calls of its own. Two failures
 * are not in it: a refusal of the system's timers (SK_ERR_RESOURCE, which a
 * test cannot provoke; it ends through the same code as the queue rows) and
 * sk_queue_sync's work dropped by a queue closed meanwhile (its release
 * runs on the closing thread, not the caller's). */

/* What every failing call is given: a valid signal, one at the depth limit
 * (one more operator is refused), a valid queue, a handle of another kind
 * than any asked for, and with handle checking on, released handles. */
typedef struct release_fixtures {
    sk_signal *never;
    sk_signal *deepest;
    sk_queue *queue;
    sk_pipe *other_kind;
    sk_signal *released_signal; /* NULL unless handle checking is on */
    sk_queue *released_queue;   /* NULL unless handle checking is on */
} release_fixtures;

/* The context of the release under test: how often it ran, on which thread,
 * and whether its own calls failed as they should (so that the test cannot
 * pass with a release whose calls did not set a message). */
typedef struct failing_release {
    const release_fixtures *fixtures;
    int runs;
    int own_failures;
    pthread_t thread;
} failing_release;

static void release_making_failing_calls(void *ctx) {
    failing_release *r = ctx;
    r->runs++;
    r->thread = pthread_self();
    if (sk_pipe_put(NULL, NULL) == SK_ERR_NULL_ARGUMENT && strstr(sk_last_error_message(), "sk_pipe_put") != NULL) {
        r->own_failures++;
    }
    if (r->fixtures->released_signal != NULL) {
        /* What a binding's release does when it drops a handle twice. */
        sk_signal_release(r->fixtures->released_signal);
        if (strstr(sk_last_error_message(), "sk_signal_release") != NULL) {
            r->own_failures++;
        }
    }
}

static void ignore_work(void *ctx) { (void)ctx; }
static void ignore_map(void *ctx, const sk_value *value, sk_value *out) { (void)ctx; (void)value; (void)out; }
static bool ignore_predicate(void *ctx, const sk_value *value) { (void)ctx; (void)value; return true; }
static sk_signal *ignore_signal_fn(void *ctx, const sk_value *value) { (void)ctx; (void)value; return NULL; }
static int ignore_take_until(void *ctx, const sk_value *value) { (void)ctx; (void)value; return SK_TAKE_PASS; }
static void ignore_reduce(void *ctx, const sk_value *a, const sk_value *b, sk_value *out) { (void)ctx; (void)a; (void)b; (void)out; }
static void ignore_value(void *ctx, const sk_value *value) { (void)ctx; (void)value; }
static sk_signal *ignore_deferred(void *ctx) { (void)ctx; return NULL; }
static sk_disposable *ignore_generator(void *ctx, sk_subscriber *subscriber) { (void)ctx; (void)subscriber; return NULL; }

/* The operators that take a signal, a callback and its release, each as
 * op(out, signal, with a callback or NULL, ctx, release). */
typedef int (*callback_operator)(sk_signal **out, sk_signal *signal, bool with_fn, void *ctx, sk_release_fn release);

#define CALLBACK_OPERATOR(name, fn)                                                                     \
    static int call_##name(sk_signal **out, sk_signal *signal, bool with_fn, void *ctx, sk_release_fn release) { \
        return name(out, signal, with_fn ? fn : NULL, ctx, release);                                    \
    }
CALLBACK_OPERATOR(sk_signal_map, ignore_map)
CALLBACK_OPERATOR(sk_signal_filter, ignore_predicate)
CALLBACK_OPERATOR(sk_signal_map_to_signal, ignore_signal_fn)
CALLBACK_OPERATOR(sk_signal_take_until, ignore_take_until)
CALLBACK_OPERATOR(sk_signal_catch, ignore_signal_fn)
CALLBACK_OPERATOR(sk_signal_before_next, ignore_value)
CALLBACK_OPERATOR(sk_signal_after_next, ignore_value)
CALLBACK_OPERATOR(sk_signal_before_started, ignore_work)
CALLBACK_OPERATOR(sk_signal_before_completed, ignore_work)
CALLBACK_OPERATOR(sk_signal_after_completed, ignore_work)
CALLBACK_OPERATOR(sk_signal_after_disposed, ignore_work)

static int call_sk_signal_reduce_left(sk_signal **out, sk_signal *signal, bool with_fn, void *ctx, sk_release_fn release) {
    sk_value initial = {0};
    return sk_signal_reduce_left(out, signal, &initial, with_fn ? ignore_reduce : NULL, ctx, release);
}

static const struct {
    const char *name;
    callback_operator call;
} callback_operators[] = {
    {"sk_signal_map", call_sk_signal_map},
    {"sk_signal_filter", call_sk_signal_filter},
    {"sk_signal_map_to_signal", call_sk_signal_map_to_signal},
    {"sk_signal_take_until", call_sk_signal_take_until},
    {"sk_signal_reduce_left", call_sk_signal_reduce_left},
    {"sk_signal_catch", call_sk_signal_catch},
    {"sk_signal_before_next", call_sk_signal_before_next},
    {"sk_signal_after_next", call_sk_signal_after_next},
    {"sk_signal_before_started", call_sk_signal_before_started},
    {"sk_signal_before_completed", call_sk_signal_before_completed},
    {"sk_signal_after_completed", call_sk_signal_after_completed},
    {"sk_signal_after_disposed", call_sk_signal_after_disposed},
};

/* The ways an operator call fails. */
typedef enum operator_failure {
    OP_NULL_FN,
    OP_NULL_OUT,
    OP_NULL_SIGNAL,
    OP_OTHER_KIND,
    OP_TOO_DEEP,
    OP_RELEASED_SIGNAL, /* handle checking only */
    OP_FAILURE_COUNT
} operator_failure;

static const char *const operator_failure_names[] = {
    "fn is NULL", "out is NULL", "signal is NULL", "signal of another kind", "past SK_SIGNAL_MAX_DEPTH", "signal released",
};

static int call_operator(callback_operator call, operator_failure how, const release_fixtures *f, void *ctx, sk_release_fn release) {
    sk_signal *out = NULL;
    int status;
    switch (how) {
    case OP_NULL_FN: status = call(&out, f->never, false, ctx, release); break;
    case OP_NULL_OUT: status = call(NULL, f->never, true, ctx, release); break;
    case OP_NULL_SIGNAL: status = call(&out, NULL, true, ctx, release); break;
    case OP_OTHER_KIND: status = call(&out, (sk_signal *)f->other_kind, true, ctx, release); break;
    case OP_TOO_DEEP: status = call(&out, f->deepest, true, ctx, release); break;
    default: status = call(&out, f->released_signal, true, ctx, release); break;
    }
    sk_signal_release(out); /* NULL unless the call wrongly succeeded */
    return status;
}

/* The other functions that take a release: one row per way each fails. */
typedef int (*failing_call)(const release_fixtures *f, void *ctx, sk_release_fn release);

static int pointer_null_out(const release_fixtures *f, void *ctx, sk_release_fn release) {
    (void)f;
    return sk_value_set_pointer(NULL, ctx, release);
}
static int create_null_out(const release_fixtures *f, void *ctx, sk_release_fn release) {
    (void)f;
    return sk_signal_create(NULL, ignore_generator, ctx, release);
}
static int create_null_generator(const release_fixtures *f, void *ctx, sk_release_fn release) {
    (void)f;
    sk_signal *out = NULL;
    int status = sk_signal_create(&out, NULL, ctx, release);
    sk_signal_release(out);
    return status;
}
static int create_over(sk_signal *upstream, sk_generator_fn generator, bool with_out, void *ctx, sk_release_fn release) {
    sk_signal *out = NULL;
    int status = sk_signal_create_over(with_out ? &out : NULL, upstream, generator, ctx, release);
    sk_signal_release(out);
    return status;
}
static int create_over_null_out(const release_fixtures *f, void *ctx, sk_release_fn release) {
    return create_over(f->never, ignore_generator, false, ctx, release);
}
static int create_over_null_upstream(const release_fixtures *f, void *ctx, sk_release_fn release) {
    (void)f;
    return create_over(NULL, ignore_generator, true, ctx, release);
}
static int create_over_null_generator(const release_fixtures *f, void *ctx, sk_release_fn release) {
    return create_over(f->never, NULL, true, ctx, release);
}
static int create_over_other_kind(const release_fixtures *f, void *ctx, sk_release_fn release) {
    return create_over((sk_signal *)f->other_kind, ignore_generator, true, ctx, release);
}
static int create_over_too_deep(const release_fixtures *f, void *ctx, sk_release_fn release) {
    return create_over(f->deepest, ignore_generator, true, ctx, release);
}
static int create_over_released(const release_fixtures *f, void *ctx, sk_release_fn release) {
    return create_over(f->released_signal, ignore_generator, true, ctx, release);
}
static int start(sk_signal *signal, void *ctx, sk_release_fn release) {
    sk_disposable *out = NULL;
    sk_observer observer = {ignore_value, NULL, NULL, ctx, release};
    int status = sk_signal_start(&out, signal, &observer);
    sk_disposable_release(out);
    return status;
}
static int start_null_signal(const release_fixtures *f, void *ctx, sk_release_fn release) {
    (void)f;
    return start(NULL, ctx, release);
}
static int start_other_kind(const release_fixtures *f, void *ctx, sk_release_fn release) {
    return start((sk_signal *)f->other_kind, ctx, release);
}
static int start_released(const release_fixtures *f, void *ctx, sk_release_fn release) {
    return start(f->released_signal, ctx, release);
}
static int action_null_out(const release_fixtures *f, void *ctx, sk_release_fn release) {
    (void)f;
    return sk_disposable_action(NULL, ignore_work, ctx, release);
}
static int action_null_action(const release_fixtures *f, void *ctx, sk_release_fn release) {
    (void)f;
    sk_disposable *out = NULL;
    int status = sk_disposable_action(&out, NULL, ctx, release);
    sk_disposable_release(out);
    return status;
}

/* sk_queue_async, sk_queue_sync, sk_queue_after (after 0 s) and
 * sk_timer_start (after 0 s, with an out), by index. */
static int submit(int which, sk_queue *queue, double seconds, sk_work_fn fn, bool with_out, void *ctx, sk_release_fn release) {
    sk_disposable *out = NULL;
    int status;
    switch (which) {
    case 0: status = sk_queue_async(queue, fn, ctx, release); break;
    case 1: status = sk_queue_sync(queue, fn, ctx, release); break;
    case 2: status = sk_queue_after(queue, seconds, fn, ctx, release); break;
    default: status = sk_timer_start(with_out ? &out : NULL, queue, seconds, false, fn, ctx, release); break;
    }
    if (out != NULL) {
        sk_disposable_dispose(out);
        sk_disposable_release(out);
    }
    return status;
}
#define SUBMIT_ROWS(which, name)                                                                         \
    static int name##_null_fn(const release_fixtures *f, void *ctx, sk_release_fn release) {            \
        return submit(which, f->queue, 0, NULL, true, ctx, release);                                    \
    }                                                                                                   \
    static int name##_null_queue(const release_fixtures *f, void *ctx, sk_release_fn release) {         \
        (void)f;                                                                                        \
        return submit(which, NULL, 0, ignore_work, true, ctx, release);                                 \
    }                                                                                                   \
    static int name##_other_kind(const release_fixtures *f, void *ctx, sk_release_fn release) {         \
        return submit(which, (sk_queue *)f->other_kind, 0, ignore_work, true, ctx, release);            \
    }                                                                                                   \
    static int name##_released(const release_fixtures *f, void *ctx, sk_release_fn release) {           \
        return submit(which, f->released_queue, 0, ignore_work, true, ctx, release);                    \
    }
SUBMIT_ROWS(0, async)
SUBMIT_ROWS(1, sync)
SUBMIT_ROWS(2, after)
SUBMIT_ROWS(3, timer)
static int after_negative(const release_fixtures *f, void *ctx, sk_release_fn release) {
    return submit(2, f->queue, -1, ignore_work, true, ctx, release);
}
static int timer_negative(const release_fixtures *f, void *ctx, sk_release_fn release) {
    return submit(3, f->queue, -1, ignore_work, true, ctx, release);
}
static int timer_null_out(const release_fixtures *f, void *ctx, sk_release_fn release) {
    return submit(3, f->queue, 0, ignore_work, false, ctx, release);
}
static int deferred_null_out(const release_fixtures *f, void *ctx, sk_release_fn release) {
    (void)f;
    return sk_signal_deferred(NULL, ignore_deferred, ctx, release);
}
static int deferred_null_fn(const release_fixtures *f, void *ctx, sk_release_fn release) {
    (void)f;
    sk_signal *out = NULL;
    int status = sk_signal_deferred(&out, NULL, ctx, release);
    sk_signal_release(out);
    return status;
}

static int reduce_null_initial(const release_fixtures *f, void *ctx, sk_release_fn release) {
    sk_signal *out = NULL;
    int status = sk_signal_reduce_left(&out, f->never, NULL, ignore_reduce, ctx, release);
    sk_signal_release(out);
    return status;
}

static const struct {
    const char *name;
    const char *how;
    failing_call call;
    bool needs_handle_checking;
} failing_calls[] = {
    {"sk_value_set_pointer", "out is NULL", pointer_null_out, false},
    {"sk_signal_create", "out is NULL", create_null_out, false},
    {"sk_signal_create", "generator is NULL", create_null_generator, false},
    {"sk_signal_create_over", "out is NULL", create_over_null_out, false},
    {"sk_signal_create_over", "upstream is NULL", create_over_null_upstream, false},
    {"sk_signal_create_over", "generator is NULL", create_over_null_generator, false},
    {"sk_signal_create_over", "upstream of another kind", create_over_other_kind, false},
    {"sk_signal_create_over", "past SK_SIGNAL_MAX_DEPTH", create_over_too_deep, false},
    {"sk_signal_create_over", "upstream released", create_over_released, true},
    {"sk_signal_start", "signal is NULL", start_null_signal, false},
    {"sk_signal_start", "signal of another kind", start_other_kind, false},
    {"sk_signal_start", "signal released", start_released, true},
    {"sk_disposable_action", "out is NULL", action_null_out, false},
    {"sk_disposable_action", "action is NULL", action_null_action, false},
    {"sk_queue_async", "fn is NULL", async_null_fn, false},
    {"sk_queue_async", "queue is NULL", async_null_queue, false},
    {"sk_queue_async", "queue of another kind", async_other_kind, false},
    {"sk_queue_async", "queue released", async_released, true},
    {"sk_queue_sync", "fn is NULL", sync_null_fn, false},
    {"sk_queue_sync", "queue is NULL", sync_null_queue, false},
    {"sk_queue_sync", "queue of another kind", sync_other_kind, false},
    {"sk_queue_sync", "queue released", sync_released, true},
    {"sk_queue_after", "fn is NULL", after_null_fn, false},
    {"sk_queue_after", "queue is NULL", after_null_queue, false},
    {"sk_queue_after", "queue of another kind", after_other_kind, false},
    {"sk_queue_after", "queue released", after_released, true},
    {"sk_queue_after", "negative seconds", after_negative, false},
    {"sk_timer_start", "out is NULL", timer_null_out, false},
    {"sk_timer_start", "fn is NULL", timer_null_fn, false},
    {"sk_timer_start", "queue is NULL", timer_null_queue, false},
    {"sk_timer_start", "queue of another kind", timer_other_kind, false},
    {"sk_timer_start", "queue released", timer_released, true},
    {"sk_timer_start", "negative seconds", timer_negative, false},
    {"sk_signal_deferred", "out is NULL", deferred_null_out, false},
    {"sk_signal_deferred", "fn is NULL", deferred_null_fn, false},
    {"sk_signal_reduce_left", "initial is NULL", reduce_null_initial, false},
};

/* Makes the call fail twice: with no release (the reference message), then,
 * after an unrelated failing call, with the release under test. The second
 * call must fail the same way, run the release once on this thread before
 * returning, and leave the reference message. */
static void expect_message_kept(const release_fixtures *f, const char *name, const char *how,
                                int (*call)(const release_fixtures *, const void *, void *, sk_release_fn), const void *row) {
    int reference_status = call(f, row, NULL, NULL);
    cr_assert_lt(reference_status, 0, "%s (%s) did not fail", name, how);
    char reference[512];
    snprintf(reference, sizeof reference, "%s", sk_last_error_message());
    char prefix[64];
    snprintf(prefix, sizeof prefix, "%s: ", name);
    cr_assert_eq(strncmp(reference, prefix, strlen(prefix)), 0, "%s (%s): message \"%s\"", name, how, reference);

    cr_assert_eq(sk_value_set_string(NULL, "x"), SK_ERR_NULL_ARGUMENT);
    failing_release r = {f, 0, 0, pthread_self()};
    int status = call(f, row, &r, release_making_failing_calls);
    /* cr_expect: every row that keeps the wrong message is reported. */
    cr_expect_eq(status, reference_status, "%s (%s): %d, then %d with a release", name, how, reference_status, status);
    cr_expect_eq(r.runs, 1, "%s (%s): the release ran %d times before the call returned", name, how, r.runs);
    cr_expect(pthread_equal(r.thread, pthread_self()), "%s (%s): the release ran on another thread", name, how);
    int expected_failures = f->released_signal != NULL ? 2 : 1;
    cr_expect_eq(r.own_failures, expected_failures, "%s (%s): the release's own calls did not fail as meant", name, how);
    cr_expect_str_eq(sk_last_error_message(), reference, "%s (%s): the message is \"%s\", not \"%s\"",
                     name, how, sk_last_error_message(), reference);
}

static int call_operator_row(const release_fixtures *f, const void *row, void *ctx, sk_release_fn release) {
    const int *indices = row; /* operator, failure */
    return call_operator(callback_operators[indices[0]].call, (operator_failure)indices[1], f, ctx, release);
}

static int call_failing_row(const release_fixtures *f, const void *row, void *ctx, sk_release_fn release) {
    return failing_calls[*(const size_t *)row].call(f, ctx, release);
}

static void expect_every_failing_call_keeps_its_message(bool handle_checking) {
    SK_OK_OR_FAIL(sk_set_handle_checking(handle_checking));
    release_fixtures f = {0};
    SK_OK_OR_FAIL(sk_signal_never(&f.never));
    f.deepest = sk_signal_retain(f.never);
    for (int depth = 1; depth < SK_SIGNAL_MAX_DEPTH; depth++) {
        sk_signal *next = NULL;
        SK_OK_OR_FAIL(sk_signal_map(&next, f.deepest, ignore_map, NULL, NULL));
        sk_signal_release(f.deepest);
        f.deepest = next;
    }
    SK_OK_OR_FAIL(sk_queue_create(&f.queue, "errors.release"));
    SK_OK_OR_FAIL(sk_pipe_create(&f.other_kind, false));
    if (handle_checking) {
        SK_OK_OR_FAIL(sk_signal_never(&f.released_signal));
        sk_signal_release(f.released_signal);
        SK_OK_OR_FAIL(sk_queue_create(&f.released_queue, "errors.released"));
        sk_queue_release(f.released_queue);
    }

    for (int op = 0; op < (int)(sizeof callback_operators / sizeof callback_operators[0]); op++) {
        for (int how = 0; how < OP_FAILURE_COUNT; how++) {
            if (how == OP_RELEASED_SIGNAL && !handle_checking) {
                continue;
            }
            const int row[2] = {op, how};
            expect_message_kept(&f, callback_operators[op].name, operator_failure_names[how], call_operator_row, row);
        }
    }
    for (size_t i = 0; i < sizeof failing_calls / sizeof failing_calls[0]; i++) {
        if (failing_calls[i].needs_handle_checking && !handle_checking) {
            continue;
        }
        expect_message_kept(&f, failing_calls[i].name, failing_calls[i].how, call_failing_row, &i);
    }

    sk_signal_release(f.never);
    sk_signal_release(f.deepest);
    sk_pipe_release(f.other_kind);
    expect_no_live_objects(1, f.queue);
}

Test(errors, a_failing_call_keeps_its_message_through_the_release_it_runs, .timeout = SK_TEST_TIMEOUT) {
    expect_every_failing_call_keeps_its_message(false);
}

Test(errors, a_failing_call_keeps_its_message_through_a_release_dropping_a_released_handle, .timeout = SK_TEST_TIMEOUT) {
    expect_every_failing_call_keeps_its_message(true);
}
