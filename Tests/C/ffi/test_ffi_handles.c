/* Handle arguments of the ffi functions are checked at the call, as
 * signalkit.h checks them: a core handle of another kind (a pipe passed as a
 * signal, a signal as a pipe, a pipe as a subscriber) is SK_ERR_WRONG_KIND,
 * a released one (with handle checking on) SK_ERR_RELEASED, each with a
 * message naming the ffi function and the argument, `release(ctx)` run once;
 * a core handle passed where a signature or a trampoline is expected is
 * refused the same way, never written to. A handle of this library passed
 * where another kind is expected is SK_ERR_WRONG_KIND with handle checking
 * off and on; one used after its last release is never read (refused as
 * another kind, or with checking on as released). The signature readers set
 * the message for a handle of another kind. */
#include "ffi_support.h"

TestSuite(ffi_handles, .timeout = SK_TEST_TIMEOUT);

static int64_t twice(int64_t n) { return 2 * n; }
static bool positive(int64_t n) { return n > 0; }
static void next_i64(void *ctx, int64_t n) { tlog_add(ctx, "n:%lld", (long long)n); }
static void error_str(void *ctx, const char *s) { tlog_add(ctx, "e:%s", s); }

/* Asserts that `call` returned `status` with exactly `message`. */
#define EXPECT_FFI_EXACT(call, status, message)                                   \
    do {                                                                          \
        int st_ = (call);                                                         \
        cr_assert_eq(st_, (status), "%s returned %d, expected %d (%s)", #call,    \
                     st_, (status), sk_ffi_last_error_message());                 \
        cr_assert_str_eq(sk_ffi_last_error_message(), (message), "%s", #call);    \
    } while (0)

/* Asserts that a trampoline of `s` feeding `target` (a subscriber, or with
 * `pipe` a pipe) is refused with `status` and exactly `message`, and that
 * the call set its `*out` to NULL. It creates nothing: nothing to
 * release. */
static void expect_trampoline_refused(bool pipe, void *target, sk_ffi_signature *s, int status, const char *message) {
    sk_ffi_trampoline *t = (sk_ffi_trampoline *)&t;
    if (pipe) {
        EXPECT_FFI_EXACT(sk_ffi_trampoline_pipe(&t, target, s), status, message);
    } else {
        EXPECT_FFI_EXACT(sk_ffi_trampoline_subscriber(&t, target, s), status, message);
    }
    cr_assert_null(t);
}

/* Every ffi function that takes a signal, given `bad` instead: `status` and
 * "FUNCTION: signal WHAT" at once, `*out` NULL, release run exactly once
 * per call, nothing created. */
static void check_bad_signal(sk_signal *bad, int status, const char *what) {
    sk_ffi_signature *map_sig = sig("i64(i64)");
    sk_ffi_signature *filter_sig = sig("bool(i64)");
    sk_ffi_signature *next_sig = sig("void(ctx,i64)");
    sk_ffi_signature *error_sig = sig("void(ctx,str)");
    tlog log;
    tlog_init(&log);
    char expected[160];
    long ffi_before = sk_ffi_live_objects();

    sk_signal *out = (sk_signal *)&out;
    snprintf(expected, sizeof expected, "sk_ffi_signal_map: signal %s", what);
    EXPECT_FFI_EXACT(sk_ffi_signal_map(&out, bad, map_sig, FN(twice), &log, tlog_release), status, expected);
    cr_assert_null(out);
    cr_assert_eq(tlog_releases(&log), 1);

    out = (sk_signal *)&out;
    snprintf(expected, sizeof expected, "sk_ffi_signal_filter: signal %s", what);
    EXPECT_FFI_EXACT(sk_ffi_signal_filter(&out, bad, filter_sig, FN(positive), &log, tlog_release), status, expected);
    cr_assert_null(out);
    cr_assert_eq(tlog_releases(&log), 2);

    sk_disposable *d = (sk_disposable *)&d;
    sk_ffi_observer observer = {next_sig, FN(next_i64), error_sig, FN(error_str), NULL, NULL, &log, tlog_release};
    snprintf(expected, sizeof expected, "sk_ffi_signal_start: signal %s", what);
    EXPECT_FFI_EXACT(sk_ffi_signal_start(&d, bad, &observer), status, expected);
    cr_assert_null(d);
    cr_assert_eq(tlog_releases(&log), 3);

    /* No callback ran: the failure is the call's, not the stream's. */
    tlog_expect(&log, "");
    cr_assert_eq(sk_ffi_live_objects(), ffi_before, "the failing calls left ffi objects alive");
    sk_ffi_signature_release(map_sig);
    sk_ffi_signature_release(filter_sig);
    sk_ffi_signature_release(next_sig);
    sk_ffi_signature_release(error_sig);
    tlog_destroy(&log);
}

Test(ffi_handles, wrong_kind_signal_is_refused_at_once_and_release_runs_once) {
    sk_pipe *pipe = NULL;
    SK_OK_OR_FAIL(sk_pipe_create(&pipe, false));
    sk_queue *queue = NULL;
    SK_OK_OR_FAIL(sk_queue_create_host(&queue, "not a signal"));
    sk_disposable *meta = NULL;
    SK_OK_OR_FAIL(sk_disposable_meta(&meta));
    check_bad_signal((sk_signal *)pipe, SK_ERR_WRONG_KIND, "is not a signal");
    check_bad_signal((sk_signal *)queue, SK_ERR_WRONG_KIND, "is not a signal");
    check_bad_signal((sk_signal *)meta, SK_ERR_WRONG_KIND, "is not a signal");
    sk_disposable_release(meta);
    sk_queue_release(queue);
    sk_pipe_release(pipe);
    expect_no_ffi_live_objects();
}

/* A generator that hands its subscriber out through ctx. */
static sk_disposable *keep_subscriber(void *ctx, sk_subscriber *subscriber) {
    *(sk_subscriber **)ctx = sk_subscriber_retain(subscriber);
    return NULL;
}

Test(ffi_handles, wrong_kind_trampoline_target_is_refused) {
    sk_ffi_signature *s = sig("void(i64)");
    sk_pipe *pipe = NULL;
    SK_OK_OR_FAIL(sk_pipe_create(&pipe, false));
    sk_signal *signal = NULL;
    SK_OK_OR_FAIL(sk_pipe_signal(&signal, pipe));
    sk_subscriber *subscriber = NULL;
    sk_signal *manual = NULL;
    SK_OK_OR_FAIL(sk_signal_create(&manual, keep_subscriber, &subscriber, NULL));
    sk_observer nothing = {NULL, NULL, NULL, NULL, NULL};
    sk_disposable *d = NULL;
    SK_OK_OR_FAIL(sk_signal_start(&d, manual, &nothing));
    cr_assert_not_null(subscriber);

    expect_trampoline_refused(false, pipe, s, SK_ERR_WRONG_KIND, "sk_ffi_trampoline_subscriber: subscriber is not a subscriber");
    expect_trampoline_refused(false, signal, s, SK_ERR_WRONG_KIND, "sk_ffi_trampoline_subscriber: subscriber is not a subscriber");
    expect_trampoline_refused(true, signal, s, SK_ERR_WRONG_KIND, "sk_ffi_trampoline_pipe: pipe is not a pipe");
    expect_trampoline_refused(true, subscriber, s, SK_ERR_WRONG_KIND, "sk_ffi_trampoline_pipe: pipe is not a pipe");
    cr_assert_eq(sk_ffi_live_objects(), 1, "only the signature is alive");

    /* The right kinds still work, and checking them changed nothing. */
    sk_ffi_trampoline *t = NULL;
    SK_OK_OR_FAIL(sk_ffi_trampoline_subscriber(&t, subscriber, s));
    sk_ffi_trampoline_release(t);
    SK_OK_OR_FAIL(sk_ffi_trampoline_pipe(&t, pipe, s));
    sk_ffi_trampoline_release(t);

    sk_disposable_dispose(d);
    sk_disposable_release(d);
    sk_subscriber_release(subscriber);
    sk_signal_release(manual);
    sk_signal_release(signal);
    sk_pipe_release(pipe);
    sk_ffi_signature_release(s);
    expect_no_ffi_live_objects();
}

Test(ffi_handles, released_handles_are_reported_with_handle_checking) {
    SK_OK_OR_FAIL(sk_set_handle_checking(true));
    sk_ffi_signature *s = sig("void(i64)");
    sk_signal *signal = NULL;
    SK_OK_OR_FAIL(sk_signal_never(&signal));
    sk_signal_release(signal); /* freed: the pointer is never dereferenced below */
    check_bad_signal(signal, SK_ERR_RELEASED, "was already released (or never was a handle)");

    int not_a_handle = 0;
    check_bad_signal((sk_signal *)&not_a_handle, SK_ERR_RELEASED, "was already released (or never was a handle)");

    sk_pipe *pipe = NULL;
    SK_OK_OR_FAIL(sk_pipe_create(&pipe, false));
    sk_pipe_release(pipe);
    expect_trampoline_refused(true, pipe, s, SK_ERR_RELEASED, "sk_ffi_trampoline_pipe: pipe was already released (or never was a handle)");
    expect_trampoline_refused(false, &not_a_handle, s, SK_ERR_RELEASED,
                              "sk_ffi_trampoline_subscriber: subscriber was already released (or never was a handle)");
    sk_ffi_signature_release(s);
    expect_no_ffi_live_objects();
}

/* A core handle passed where this library's own handles are expected: the
 * status-returning functions refuse it, the others treat it as NULL; none
 * of them writes to it. */
Test(ffi_handles, core_handle_is_not_a_signature_nor_a_trampoline) {
    int64_t one[] = {1};
    sk_signal *signal = ints_signal(one, 1);
    sk_pipe *pipe = NULL;
    SK_OK_OR_FAIL(sk_pipe_create(&pipe, false));
    sk_ffi_signature *not_signature = (sk_ffi_signature *)pipe;
    sk_ffi_trampoline *not_trampoline = (sk_ffi_trampoline *)pipe;
    tlog log;
    tlog_init(&log);

    sk_signal *out = (sk_signal *)&out;
    EXPECT_FFI_EXACT(sk_ffi_signal_map(&out, signal, not_signature, FN(twice), &log, tlog_release), SK_ERR_WRONG_KIND,
                     "sk_ffi_signal_map: signature is not a signature");
    cr_assert_null(out);
    cr_assert_eq(tlog_releases(&log), 1);
    EXPECT_FFI_EXACT(sk_ffi_signal_filter(&out, signal, not_signature, FN(positive), &log, tlog_release), SK_ERR_WRONG_KIND,
                     "sk_ffi_signal_filter: signature is not a signature");
    cr_assert_eq(tlog_releases(&log), 2);
    sk_ffi_observer observer = {not_signature, FN(next_i64), NULL, NULL, NULL, NULL, &log, tlog_release};
    EXPECT_FFI_EXACT(sk_ffi_signal_start(NULL, signal, &observer), SK_ERR_WRONG_KIND,
                     "sk_ffi_signal_start: observer->next_signature is not a signature");
    cr_assert_eq(tlog_releases(&log), 3);
    /* A signature without its function is checked as a handle too (it was
     * ignored, unchecked: signalkit_ffi.h checks every handle argument). */
    sk_ffi_observer unused = {NULL, NULL, not_signature, NULL, NULL, NULL, &log, tlog_release};
    EXPECT_FFI_EXACT(sk_ffi_signal_start(NULL, signal, &unused), SK_ERR_WRONG_KIND,
                     "sk_ffi_signal_start: observer->error_signature is not a signature");
    cr_assert_eq(tlog_releases(&log), 4);
    expect_trampoline_refused(true, pipe, not_signature, SK_ERR_WRONG_KIND, "sk_ffi_trampoline_pipe: signature is not a signature");

    cr_assert_null(sk_ffi_signature_retain(not_signature));
    sk_ffi_signature_release(not_signature);
    cr_assert_eq(sk_ffi_signature_result(not_signature), SK_FFI_VOID);
    cr_assert_eq(sk_ffi_signature_arg_count(not_signature), 0);
    cr_assert_null(sk_ffi_trampoline_function(not_trampoline));
    cr_assert_eq(sk_ffi_trampoline_calls(not_trampoline), 0);
    cr_assert_null(sk_ffi_trampoline_retain(not_trampoline));
    sk_ffi_trampoline_close(not_trampoline);
    sk_ffi_trampoline_release(not_trampoline);

    /* The pipe is intact: it still delivers and is freed by one release. */
    sk_signal *piped = NULL;
    SK_OK_OR_FAIL(sk_pipe_signal(&piped, pipe));
    sk_ffi_signature *next_sig = sig("void(ctx,i64)");
    sk_ffi_observer good = {next_sig, FN(next_i64), NULL, NULL, NULL, NULL, &log, tlog_release};
    SK_OK_OR_FAIL(sk_ffi_signal_start(NULL, piped, &good));
    sk_value v = int_value(5);
    SK_OK_OR_FAIL(sk_pipe_put(pipe, &v));
    tlog_expect(&log, "n:5 ");
    sk_pipe_release(pipe);
    cr_assert(tlog_wait(&log, 1, 5));
    sk_signal_release(piped);
    sk_ffi_signature_release(next_sig);
    sk_signal_release(signal);
    tlog_destroy(&log);
    expect_no_ffi_live_objects();
}

/* The reverse: a handle of this library (a signature, a trampoline) given to
 * a core _release or _retain function, handle checking off. The core tells
 * it is not one of its objects (as sk_pipe_put does: SK_ERR_WRONG_KIND) and
 * does nothing but set its last error: before, sk_signal_release() and
 * sk_subscriber_release() crashed on it. */
Test(ffi_handles, ffi_handle_given_to_a_core_release_is_refused) {
    sk_ffi_signature *s = sig("void(i64)");
    sk_pipe *pipe = NULL;
    SK_OK_OR_FAIL(sk_pipe_create(&pipe, false));
    sk_ffi_trampoline *t = NULL;
    SK_OK_OR_FAIL(sk_ffi_trampoline_pipe(&t, pipe, s));
    void *handles[] = {s, t};
    for (size_t i = 0; i < 2; i++) {
        sk_signal_release((sk_signal *)handles[i]);
        cr_assert(strstr(sk_last_error_message(), "sk_signal_release: the handle is not a signal") != NULL, "%s",
                  sk_last_error_message());
        sk_subscriber_release((sk_subscriber *)handles[i]);
        cr_assert(strstr(sk_last_error_message(), "sk_subscriber_release: the handle is not a subscriber") != NULL,
                  "%s", sk_last_error_message());
        sk_disposable_release((sk_disposable *)handles[i]);
        sk_pipe_release((sk_pipe *)handles[i]);
        sk_queue_release((sk_queue *)handles[i]);
        sk_promise_release((sk_promise *)handles[i]);
        sk_value_promise_release((sk_value_promise *)handles[i]);
        cr_assert_null(sk_signal_retain((sk_signal *)handles[i]));
        cr_assert_null(sk_subscriber_retain((sk_subscriber *)handles[i]));
        cr_assert_null(sk_pipe_retain((sk_pipe *)handles[i]));
    }
    /* Both intact: the signature still parses calls, each freed once. */
    cr_assert_eq(sk_ffi_signature_arg_count(s), 1);
    cr_assert_not_null(sk_ffi_trampoline_function(t));
    sk_ffi_trampoline_release(t);
    sk_ffi_signature_release(s);
    sk_pipe_release(pipe);
    expect_no_ffi_live_objects();
}

/* Sets the ffi library's last error message to a known text, so that a test
 * can tell whether the call after it set one. */
static void reset_ffi_message(void) {
    cr_assert_eq(sk_ffi_signature_parse(NULL, "void()"), SK_ERR_NULL_ARGUMENT);
    cr_assert_str_eq(sk_ffi_last_error_message(), "sk_ffi_signature_parse: out is NULL");
}

/* The signature readers return no status: given a handle of another kind
 * (a core handle, a trampoline) they answer as for NULL and set the
 * message, as the file comment of signalkit_ffi.h says; NULL itself sets
 * none (a reader of NULL is not an error). */
Test(ffi_handles, signature_readers_given_another_kind_set_the_message) {
    sk_ffi_signature *s = sig("void(i64)");
    sk_pipe *pipe = NULL;
    SK_OK_OR_FAIL(sk_pipe_create(&pipe, false));
    sk_signal *signal = NULL;
    SK_OK_OR_FAIL(sk_pipe_signal(&signal, pipe));
    sk_ffi_trampoline *t = NULL;
    SK_OK_OR_FAIL(sk_ffi_trampoline_pipe(&t, pipe, s));
    const sk_ffi_signature *others[] = {(sk_ffi_signature *)pipe, (sk_ffi_signature *)signal, (sk_ffi_signature *)t};
    for (size_t i = 0; i < sizeof others / sizeof others[0]; i++) {
        reset_ffi_message();
        cr_assert_eq(sk_ffi_signature_result(others[i]), SK_FFI_VOID);
        cr_assert_str_eq(sk_ffi_last_error_message(), "sk_ffi_signature_result: signature is not a signature", "handle %zu", i);
        reset_ffi_message();
        cr_assert_eq(sk_ffi_signature_arg_count(others[i]), 0);
        cr_assert_str_eq(sk_ffi_last_error_message(), "sk_ffi_signature_arg_count: signature is not a signature", "handle %zu", i);
        reset_ffi_message();
        cr_assert_eq(sk_ffi_signature_arg(others[i], 0), SK_FFI_VOID);
        cr_assert_str_eq(sk_ffi_last_error_message(), "sk_ffi_signature_arg: signature is not a signature", "handle %zu", i);
    }
    reset_ffi_message();
    cr_assert_eq(sk_ffi_signature_result(NULL), SK_FFI_VOID);
    cr_assert_eq(sk_ffi_signature_arg_count(NULL), 0);
    cr_assert_eq(sk_ffi_signature_arg(NULL, 0), SK_FFI_VOID);
    cr_assert_str_eq(sk_ffi_last_error_message(), "sk_ffi_signature_parse: out is NULL", "NULL set a message");
    /* A real signature reads as before, and sets no message. */
    cr_assert_eq(sk_ffi_signature_arg_count(s), 1);
    cr_assert_eq(sk_ffi_signature_arg(s, 0), SK_FFI_INT64);
    cr_assert_eq(sk_ffi_signature_result(s), SK_FFI_VOID);
    cr_assert_str_eq(sk_ffi_last_error_message(), "sk_ffi_signature_parse: out is NULL");

    sk_ffi_trampoline_release(t);
    sk_signal_release(signal);
    sk_pipe_release(pipe);
    sk_ffi_signature_release(s);
    expect_no_ffi_live_objects();
}

/* A handle of this library passed where a handle of another kind is
 * expected: SK_ERR_WRONG_KIND naming the kind, with handle checking off
 * and on alike (this library knows its live handles in both modes; with
 * checking on the core's registry does not, and before, such a handle got
 * the core's SK_ERR_RELEASED). Nothing is created or released; `release`
 * runs once per call. */
static void check_ffi_handles_are_wrong_kind(void) {
    sk_ffi_signature *s = sig("void(i64)");
    sk_pipe *pipe = NULL;
    SK_OK_OR_FAIL(sk_pipe_create(&pipe, false));
    sk_ffi_trampoline *t = NULL;
    SK_OK_OR_FAIL(sk_ffi_trampoline_pipe(&t, pipe, s));

    check_bad_signal((sk_signal *)s, SK_ERR_WRONG_KIND, "is not a signal");
    check_bad_signal((sk_signal *)t, SK_ERR_WRONG_KIND, "is not a signal");
    expect_trampoline_refused(false, t, s, SK_ERR_WRONG_KIND, "sk_ffi_trampoline_subscriber: subscriber is not a subscriber");
    expect_trampoline_refused(false, s, s, SK_ERR_WRONG_KIND, "sk_ffi_trampoline_subscriber: subscriber is not a subscriber");
    expect_trampoline_refused(true, s, s, SK_ERR_WRONG_KIND, "sk_ffi_trampoline_pipe: pipe is not a pipe");
    expect_trampoline_refused(true, t, s, SK_ERR_WRONG_KIND, "sk_ffi_trampoline_pipe: pipe is not a pipe");
    /* A trampoline as a signature, a signature as a trampoline, and a live
     * core handle as either. */
    expect_trampoline_refused(true, pipe, (sk_ffi_signature *)t, SK_ERR_WRONG_KIND, "sk_ffi_trampoline_pipe: signature is not a signature");
    expect_trampoline_refused(true, pipe, (sk_ffi_signature *)pipe, SK_ERR_WRONG_KIND, "sk_ffi_trampoline_pipe: signature is not a signature");
    cr_assert_null(sk_ffi_trampoline_function((sk_ffi_trampoline *)s));
    cr_assert_str_eq(sk_ffi_last_error_message(), "sk_ffi_trampoline_function: trampoline is not a trampoline");
    cr_assert_eq(sk_ffi_trampoline_calls((sk_ffi_trampoline *)pipe), 0);
    cr_assert_str_eq(sk_ffi_last_error_message(), "sk_ffi_trampoline_calls: trampoline is not a trampoline");
    cr_assert_eq(sk_ffi_signature_arg_count((sk_ffi_signature *)pipe), 0);
    cr_assert_str_eq(sk_ffi_last_error_message(), "sk_ffi_signature_arg_count: signature is not a signature");
    /* The disposable functions: each refuses them too (with checking off
     * they crashed: the class of a disposable, which has a subclass, was
     * asked of the Swift runtime, which read the handle's first word, a
     * tag, as a class). With checking on, a handle of this library is not
     * in the core's registry: released (signalkit_ffi.h). */
    {
        int expected = sk_handle_checking() ? SK_ERR_RELEASED : SK_ERR_WRONG_KIND;
        sk_disposable *meta = NULL, *set = NULL, *dict = NULL;
        SK_OK_OR_FAIL(sk_disposable_meta(&meta));
        SK_OK_OR_FAIL(sk_disposable_set(&set));
        SK_OK_OR_FAIL(sk_disposable_dict(&dict));
        sk_disposable *handles[2] = { (sk_disposable *)s, (sk_disposable *)t };
        for (int i = 0; i < 2; i++) {
            sk_disposable *h = handles[i];
            sk_disposable_dispose(h);
            cr_assert_str_eq(sk_last_error_message(), expected == SK_ERR_RELEASED
                ? "sk_disposable_dispose: disposable was already released (or never was a handle)"
                : "sk_disposable_dispose: disposable is not a disposable");
            cr_assert_eq(sk_disposable_meta_set(h, meta), expected);
            cr_assert_eq(sk_disposable_meta_set(meta, h), expected);
            cr_assert_eq(sk_disposable_set_add(h, set), expected);
            cr_assert_eq(sk_disposable_set_add(set, h), expected);
            cr_assert_eq(sk_disposable_set_remove(set, h), expected);
            cr_assert_eq(sk_disposable_dict_set(h, "k", dict), expected);
            cr_assert_eq(sk_disposable_dict_set(dict, "k", h), expected);
        }
        sk_disposable_release(meta);
        sk_disposable_release(set);
        sk_disposable_release(dict);
    }
    cr_assert_eq(sk_ffi_live_objects(), 2, "only the signature and the trampoline are alive");

    /* Both intact, each freed by one release. */
    cr_assert_eq(sk_ffi_signature_arg_count(s), 1);
    cr_assert_not_null(sk_ffi_trampoline_function(t));
    sk_ffi_trampoline_release(t);
    sk_ffi_signature_release(s);
    sk_pipe_release(pipe);
    expect_no_ffi_live_objects();
}

Test(ffi_handles, ffi_handle_of_another_kind_is_wrong_kind_checking_off) {
    cr_assert(!sk_handle_checking());
    check_ffi_handles_are_wrong_kind();
}

Test(ffi_handles, ffi_handle_of_another_kind_is_wrong_kind_checking_on) {
    SK_OK_OR_FAIL(sk_set_handle_checking(true));
    check_ffi_handles_are_wrong_kind();
}

/* A handle of this library after its last release is never dereferenced:
 * this library keeps its live handles in a registry of its own (in both
 * modes), so the address is simply not found. With handle checking on it
 * is SK_ERR_RELEASED, like a released core handle; off, it cannot be told
 * from a core handle without reading it, and is SK_ERR_WRONG_KIND. The
 * readers and _release functions given one do nothing but set the
 * message. (The addresses are not reused here: the test keeps no other
 * handle of this library alive and creates none after the releases.) */
static void check_released_ffi_handles(bool checking) {
    int status = checking ? SK_ERR_RELEASED : SK_ERR_WRONG_KIND;
    const char *released = "was already released (or never was a handle)";
    const char *what = checking ? released : "is not a signature";
    const char *what_trampoline = checking ? released : "is not a trampoline";
    sk_ffi_signature *s = sig("void(i64)");
    sk_ffi_signature *other = sig("void(i64)");
    sk_pipe *pipe = NULL;
    SK_OK_OR_FAIL(sk_pipe_create(&pipe, false));
    sk_ffi_trampoline *t = NULL;
    SK_OK_OR_FAIL(sk_ffi_trampoline_pipe(&t, pipe, other));
    sk_ffi_trampoline_release(t);
    sk_ffi_signature_release(s);
    cr_assert_eq(sk_ffi_live_objects(), 1);
    char expected[160];

    snprintf(expected, sizeof expected, "sk_ffi_trampoline_pipe: signature %s", what);
    expect_trampoline_refused(true, pipe, s, status, expected);
    sk_ffi_signature_release(s);
    snprintf(expected, sizeof expected, "sk_ffi_signature_release: signature %s", what);
    cr_assert_str_eq(sk_ffi_last_error_message(), expected);
    cr_assert_eq(sk_ffi_signature_result(s), SK_FFI_VOID);
    snprintf(expected, sizeof expected, "sk_ffi_signature_result: signature %s", what);
    cr_assert_str_eq(sk_ffi_last_error_message(), expected);
    sk_ffi_trampoline_release(t);
    snprintf(expected, sizeof expected, "sk_ffi_trampoline_release: trampoline %s", what_trampoline);
    cr_assert_str_eq(sk_ffi_last_error_message(), expected);
    cr_assert_null(sk_ffi_trampoline_function(t));
    cr_assert_eq(sk_ffi_live_objects(), 1, "a release of a released handle changed the count");

    sk_ffi_signature_release(other);
    sk_pipe_release(pipe);
    expect_no_ffi_live_objects();
}

Test(ffi_handles, released_ffi_handles_are_refused_checking_off) {
    check_released_ffi_handles(false);
}

Test(ffi_handles, released_ffi_handles_are_refused_checking_on) {
    SK_OK_OR_FAIL(sk_set_handle_checking(true));
    check_released_ffi_handles(true);
}

/* The core's side, which cannot know this library's handles: with handle
 * checking on, a signature or a trampoline given to a core function is not
 * in the core's registry, and is refused as a released handle
 * (SK_ERR_RELEASED), never touched; off, as a handle of another kind (see
 * ffi_handle_given_to_a_core_release_is_refused). signalkit.h says so. */
Test(ffi_handles, ffi_handle_given_to_the_core_with_checking_on_is_released) {
    SK_OK_OR_FAIL(sk_set_handle_checking(true));
    sk_ffi_signature *s = sig("void(i64)");
    sk_pipe *pipe = NULL;
    SK_OK_OR_FAIL(sk_pipe_create(&pipe, false));
    sk_ffi_trampoline *t = NULL;
    SK_OK_OR_FAIL(sk_ffi_trampoline_pipe(&t, pipe, s));
    void *handles[] = {s, t};
    for (size_t i = 0; i < 2; i++) {
        sk_pipe_release((sk_pipe *)handles[i]);
        cr_assert(strstr(sk_last_error_message(), "sk_pipe_release: the handle was already released (or never was one)") != NULL,
                  "%s", sk_last_error_message());
        cr_assert_null(sk_signal_retain((sk_signal *)handles[i]));
        sk_value v;
        sk_value_set_int64(&v, 1);
        cr_assert_eq(sk_pipe_put((sk_pipe *)handles[i], &v), SK_ERR_RELEASED, "%s", sk_last_error_message());
    }
    cr_assert_eq(sk_ffi_signature_arg_count(s), 1);
    cr_assert_not_null(sk_ffi_trampoline_function(t));
    sk_ffi_trampoline_release(t);
    sk_ffi_signature_release(s);
    sk_pipe_release(pipe);
    expect_no_ffi_live_objects();
}
