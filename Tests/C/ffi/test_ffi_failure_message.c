/* The message of a failing call survives the `release` that call runs.
 *
 * A call that fails runs the `release` it was handed before returning, and
 * a binding's release is user code that calls the library (it drops the
 * handles it kept for the callback set, and a drop can fail: a handle of
 * another kind, or one released twice). Before, the ffi functions set their
 * message first and ran `release` after it, so a failing sk_ffi_ call inside
 * the release replaced the message the caller read next; on the paths where
 * the core runs the release (a typed operator past SK_SIGNAL_MAX_DEPTH), a
 * failing core call inside it replaced the core's message before this
 * library copied it. Found by a release that parses a bad signature. */
#include <sys/resource.h>
#include <unistd.h>

#include "ffi_support.h"

TestSuite(ffi_failure_message, .timeout = SK_TEST_TIMEOUT);

/* A release that makes a failing call of each library, then counts. */
static void release_failing_calls(void *ctx) {
    sk_ffi_signature *signature = NULL;
    cr_assert_eq(sk_ffi_signature_parse(&signature, "not a signature"), SK_ERR_INVALID_ARGUMENT);
    cr_assert_eq(sk_pipe_put(NULL, NULL), SK_ERR_NULL_ARGUMENT);
    __atomic_add_fetch((int *)ctx, 1, __ATOMIC_RELAXED);
}

static void next_ctx_i64(void *ctx, int64_t n) {
    (void)ctx;
    (void)n;
}

static int64_t plus_one(int64_t n) { return n + 1; }

Test(ffi_failure_message, refused_calls_keep_their_message) {
    int released = 0;
    sk_signal *never = NULL;
    SK_OK_OR_FAIL(sk_signal_never(&never));
    sk_ffi_signature *next_sig = sig("void(ctx,i64)");
    sk_ffi_signature *map_sig = sig("i64(i64)");
    sk_signal *out = NULL;

    sk_ffi_observer observer = {next_sig, FN(next_ctx_i64), NULL, NULL, NULL, NULL, &released, release_failing_calls};
    cr_assert_eq(sk_ffi_signal_start(NULL, NULL, &observer), SK_ERR_NULL_ARGUMENT);
    cr_assert_str_eq(sk_ffi_last_error_message(), "sk_ffi_signal_start: signal is NULL");
    observer.next_signature = map_sig;
    cr_assert_eq(sk_ffi_signal_start(NULL, never, &observer), SK_ERR_INVALID_ARGUMENT);
    cr_assert_str_eq(sk_ffi_last_error_message(), "sk_ffi_signal_start: observer->next_signature: must return void, returns i64");
    cr_assert_eq(sk_ffi_signal_map(&out, never, next_sig, FN(plus_one), &released, release_failing_calls), SK_ERR_INVALID_ARGUMENT);
    cr_assert_str_eq(sk_ffi_last_error_message(), "sk_ffi_signal_map: signature: must return a value, returns void");
    cr_assert_eq(sk_ffi_signal_filter(&out, never, map_sig, FN(plus_one), &released, release_failing_calls), SK_ERR_INVALID_ARGUMENT);
    cr_assert_str_eq(sk_ffi_last_error_message(), "sk_ffi_signal_filter: signature: must return bool, returns i64");
    cr_assert_eq(sk_ffi_signal_map(NULL, never, map_sig, FN(plus_one), &released, release_failing_calls), SK_ERR_NULL_ARGUMENT);
    cr_assert_str_eq(sk_ffi_last_error_message(), "sk_ffi_signal_map: out is NULL");
    cr_assert_eq(released, 5);

    sk_signal_release(never);
    sk_ffi_signature_release(next_sig);
    sk_ffi_signature_release(map_sig);
    expect_no_ffi_live_objects();
}

/* The core refuses the operator one past SK_SIGNAL_MAX_DEPTH and runs its
 * release (the operator's, which runs the user's) before returning: the
 * message copied from the core is still the core's, as the user's call's
 * (it named sk_signal_create_over, a function the user did not call:
 * "sk_ffi_signal_map: sk_signal_create_over: the pipeline would be ..."). */
Test(ffi_failure_message, an_operator_past_the_depth_limit_keeps_the_core_message) {
    int released = 0;
    sk_ffi_signature *map_sig = sig("i64(i64)");
    sk_signal *signal = NULL;
    SK_OK_OR_FAIL(sk_signal_never(&signal));
    for (int depth = 1; depth < SK_SIGNAL_MAX_DEPTH; depth++) {
        sk_signal *next = NULL;
        SK_OK_OR_FAIL(sk_ffi_signal_map(&next, signal, map_sig, FN(plus_one), NULL, NULL));
        sk_signal_release(signal);
        signal = next;
    }
    sk_signal *out = NULL;
    cr_assert_eq(sk_ffi_signal_map(&out, signal, map_sig, FN(plus_one), &released, release_failing_calls), SK_ERR_INVALID_ARGUMENT);
    char expected[200];
    snprintf(expected, sizeof expected, "sk_ffi_signal_map: the pipeline would be %d operators deep (the limit is SK_SIGNAL_MAX_DEPTH, %d)",
             SK_SIGNAL_MAX_DEPTH + 1, SK_SIGNAL_MAX_DEPTH);
    cr_assert_str_eq(sk_ffi_last_error_message(), expected);
    cr_assert_eq(released, 1);
    cr_assert_null(out);
    sk_signal_release(signal);
    sk_ffi_signature_release(map_sig);
    expect_no_ffi_live_objects();
}

/* The core's message stays what the caller's last failing core call left:
 * sk_last_error_message() promises it until the next failing call, and a
 * successful ffi call is not one. Before, sk_ffi_trampoline_subscriber
 * probed its subscriber with a put that fails (a NULL value), and every
 * successful call left "sk_subscriber_put_next: value is NULL" there. */
static bool is_even(int64_t n) { return n % 2 == 0; }

static void no_next(void *ctx, int64_t n) {
    (void)ctx;
    (void)n;
}

Test(ffi_failure_message, successful_calls_leave_the_core_message_alone) {
    manual_source source;
    sk_signal *signal = manual_init_signal(&source);
    recorder r;
    recorder_init(&r);
    sk_observer observer = recorder_observer(&r);
    sk_disposable *subscription = NULL;
    SK_OK_OR_FAIL(sk_signal_start(&subscription, signal, &observer));
    sk_pipe *pipe = NULL;
    SK_OK_OR_FAIL(sk_pipe_create(&pipe, false));
    sk_ffi_signature *emit_sig = sig("void(i64)");
    sk_ffi_signature *next_sig = sig("void(ctx,i64)");
    sk_ffi_signature *map_sig = sig("i64(i64)");

    cr_assert_eq(sk_pipe_put(NULL, NULL), SK_ERR_NULL_ARGUMENT);
    const char *expected = "sk_pipe_put: pipe is NULL";
    cr_assert_str_eq(sk_last_error_message(), expected);

    sk_ffi_trampoline *to_subscriber = NULL, *to_pipe = NULL;
    SK_OK_OR_FAIL(sk_ffi_trampoline_subscriber(&to_subscriber, manual_subscriber(&source, 0), emit_sig));
    cr_assert_str_eq(sk_last_error_message(), expected, "after sk_ffi_trampoline_subscriber");
    SK_OK_OR_FAIL(sk_ffi_trampoline_pipe(&to_pipe, pipe, emit_sig));
    cr_assert_str_eq(sk_last_error_message(), expected, "after sk_ffi_trampoline_pipe");
    sk_signal *mapped = NULL, *filtered = NULL;
    SK_OK_OR_FAIL(sk_ffi_signal_map(&mapped, signal, map_sig, FN(plus_one), NULL, NULL));
    cr_assert_str_eq(sk_last_error_message(), expected, "after sk_ffi_signal_map");
    sk_ffi_signature *filter_sig = sig("bool(i64)");
    SK_OK_OR_FAIL(sk_ffi_signal_filter(&filtered, signal, filter_sig, FN(is_even), NULL, NULL));
    cr_assert_str_eq(sk_last_error_message(), expected, "after sk_ffi_signal_filter");
    sk_disposable *typed = NULL;
    sk_ffi_observer typed_observer = {next_sig, FN(no_next), NULL, NULL, NULL, NULL, NULL, NULL};
    SK_OK_OR_FAIL(sk_ffi_signal_start(&typed, mapped, &typed_observer));
    cr_assert_str_eq(sk_last_error_message(), expected, "after sk_ffi_signal_start");

    sk_disposable_dispose(typed);
    sk_disposable_release(typed);
    sk_ffi_trampoline_release(to_subscriber);
    sk_ffi_trampoline_release(to_pipe);
    sk_signal_release(mapped);
    sk_signal_release(filtered);
    sk_ffi_signature_release(emit_sig);
    sk_ffi_signature_release(next_sig);
    sk_ffi_signature_release(map_sig);
    sk_ffi_signature_release(filter_sig);
    sk_pipe_release(pipe);
    sk_disposable_dispose(subscription);
    sk_disposable_release(subscription);
    sk_signal_release(signal);
    cr_assert(recorder_wait_release(&r));
    recorder_destroy(&r);
    manual_destroy(&source);
    expect_no_ffi_live_objects();
}

/* ------------------------------------------------------------------------ */
/* The error of a failed callback when memory runs short                     */
/* ------------------------------------------------------------------------ */

/* Under a sanitizer the program reserves terabytes of shadow memory and
 * malloc does not return NULL under a lowered RLIMIT_AS (test_resources.c
 * says the same). */
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define FFI_TEST_SANITIZED 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer)
#define FFI_TEST_SANITIZED 1
#endif
#endif
#ifndef FFI_TEST_SANITIZED
#define FFI_TEST_SANITIZED 0
#endif

enum { BIG_MESSAGE = 64 << 20 };

static char *big_message;

static size_t mapped_bytes(void) {
    FILE *statm = fopen("/proc/self/statm", "r");
    cr_assert_not_null(statm);
    unsigned long pages = 0;
    cr_assert_eq(fscanf(statm, "%lu", &pages), 1);
    fclose(statm);
    return (size_t)pages * (size_t)sysconf(_SC_PAGESIZE);
}

static int64_t fail_with_big_message(int64_t n) {
    sk_ffi_callback_fail(big_message);
    return n;
}

static void capture_error_text(void *ctx, const sk_value *error) {
    char *text = ctx;
    const char *got = "(not a string)";
    sk_value_get_string(error, &got, NULL);
    snprintf(text, 200, "%s", got);
}

/* The error a map whose function fails with big_message ends with, with
 * room in the address space for `room` more bytes while the value is put. */
static void error_with_room(size_t room, char *text) {
    sk_pipe *pipe = NULL;
    sk_signal *source = NULL;
    SK_OK_OR_FAIL(sk_pipe_create(&pipe, false));
    SK_OK_OR_FAIL(sk_pipe_signal(&source, pipe));
    sk_signal *mapped = typed_operator(source, false, "i64(i64)", FN(fail_with_big_message), NULL);
    strcpy(text, "(no error)");
    sk_observer observer = {NULL, capture_error_text, NULL, text, NULL};
    sk_disposable *subscription = NULL;
    SK_OK_OR_FAIL(sk_signal_start(&subscription, mapped, &observer));
    sk_value one;
    sk_value_set_int64(&one, 1);
    struct rlimit saved;
    cr_assert_eq(getrlimit(RLIMIT_AS, &saved), 0);
    struct rlimit low = saved;
    low.rlim_cur = (rlim_t)(mapped_bytes() + room);
    cr_assert_eq(setrlimit(RLIMIT_AS, &low), 0);
    int status = sk_pipe_put(pipe, &one);
    cr_assert_eq(setrlimit(RLIMIT_AS, &saved), 0);
    SK_OK_OR_FAIL(status);
    sk_disposable_release(subscription);
    sk_signal_release(mapped);
    sk_signal_release(source);
    sk_pipe_release(pipe);
}

/* A failure message that can be copied (sk_ffi_callback_fail) but not made
 * into the error: the error is still the string of the documented shape,
 * with MESSAGE "(message lost: out of memory)". Before, the text was
 * "sk_ffi: callback failed (description unavailable: out of memory)" (no
 * ROLE) when there was no room for the text, and the error was nil when
 * there was none for the value made of it. */
Test(ffi_failure_message, a_failure_message_too_big_for_the_memory_left_is_reported_lost) {
    if (running_under_valgrind() || FFI_TEST_SANITIZED) {
        cr_skip_test("a sanitizer or valgrind does not return NULL from malloc under a lowered RLIMIT_AS");
    }
    big_message = malloc(BIG_MESSAGE + 1);
    cr_assert_not_null(big_message);
    memset(big_message, 'm', BIG_MESSAGE);
    big_message[BIG_MESSAGE] = '\0';
    char text[200];
    /* Room for the copy of the message, not for the text of the error. */
    error_with_room(BIG_MESSAGE + BIG_MESSAGE / 2, text);
    cr_assert_str_eq(text, "sk_ffi: map: callback failed: (message lost: out of memory)");
    /* Room for the copy and the text, not for the value made of it. */
    error_with_room(2 * (size_t)BIG_MESSAGE + BIG_MESSAGE / 2, text);
    cr_assert_str_eq(text, "sk_ffi: map: callback failed: (message lost: out of memory)");
    /* With room, the message itself. */
    error_with_room(8 * (size_t)BIG_MESSAGE, text);
    cr_assert(strncmp(text, "sk_ffi: map: callback failed: mmmm", 34) == 0, "%s", text);
    free(big_message);
    expect_no_ffi_live_objects();
}
