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
 * message copied from the core is still the core's. */
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
    snprintf(expected, sizeof expected, "sk_ffi_signal_map: sk_signal_create_over: the pipeline would be %d operators deep (the limit is SK_SIGNAL_MAX_DEPTH, %d)",
             SK_SIGNAL_MAX_DEPTH + 1, SK_SIGNAL_MAX_DEPTH);
    cr_assert_str_eq(sk_ffi_last_error_message(), expected);
    cr_assert_eq(released, 1);
    cr_assert_null(out);
    sk_signal_release(signal);
    sk_ffi_signature_release(map_sig);
    expect_no_ffi_live_objects();
}
