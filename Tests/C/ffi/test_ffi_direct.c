/* The callback shapes called directly (Sources/SignalKitFFI/direct.c, not
 * through ffi_call): an optional ctx, one i64 or f64 argument, a void, bool,
 * i64 or f64 result. Every shape once, as a map (the result's kind and value,
 * the ctx received) or a typed next (void), with values at the edges of
 * their types; a failure reported from a directly called function. */
#include "ffi_support.h"

TestSuite(ffi_direct, .timeout = SK_TEST_TIMEOUT);

static int64_t ctx_of(void *ctx) { return *(int64_t *)ctx; }

static int64_t i_i(int64_t n) { return n - 1; }
static int64_t i_ci(void *ctx, int64_t n) { return n - ctx_of(ctx); }
static int64_t i_f(double d) { return (int64_t)(d * 4); }
static int64_t i_cf(void *ctx, double d) { return (int64_t)(d * 4) + ctx_of(ctx); }
static double f_i(int64_t n) { return (double)n / 4; }
static double f_ci(void *ctx, int64_t n) { return (double)n / 4 + (double)ctx_of(ctx); }
static double f_f(double d) { return -d; }
static double f_cf(void *ctx, double d) { return d * (double)ctx_of(ctx); }
static bool b_i(int64_t n) { return n < 0; }
static bool b_ci(void *ctx, int64_t n) { return n == ctx_of(ctx); }
static bool b_f(double d) { return d < 0; }
static bool b_cf(void *ctx, double d) { return d == (double)ctx_of(ctx); }

/* Maps `in` through (`text`, `fn`, `ctx`); returns the one value it gives
 * (+1, the caller releases it). */
static sk_value map_one(const char *text, sk_ffi_fn fn, void *ctx, sk_value in) {
    sk_signal *source = NULL;
    SK_OK_OR_FAIL(sk_signal_single(&source, &in));
    sk_value_release(&in);
    sk_signal *mapped = typed_operator(source, false, text, fn, ctx);
    sk_signal_release(source);
    recorder r;
    record_to_end(&r, mapped);
    sk_signal_release(mapped);
    recorder_expect(&r, "ncr", NULL, 0);
    sk_value out;
    SK_OK_OR_FAIL(sk_value_copy(&out, &recorder_event(&r, 0)->value));
    recorder_destroy(&r);
    return out;
}

static void expect_int(const char *text, sk_ffi_fn fn, void *ctx, sk_value in, int64_t expected) {
    sk_value out = map_one(text, fn, ctx, in);
    int64_t n = 0;
    cr_assert_eq(sk_value_get_int64(&out, &n), SK_OK, "%s: not an int64", text);
    cr_assert_eq(n, expected, "%s: %lld, expected %lld", text, (long long)n, (long long)expected);
    sk_value_release(&out);
}

static void expect_double(const char *text, sk_ffi_fn fn, void *ctx, sk_value in, double expected) {
    sk_value out = map_one(text, fn, ctx, in);
    double d = 0;
    cr_assert_eq(sk_value_get_double(&out, &d), SK_OK, "%s: not a double", text);
    cr_assert(d == expected, "%s: %.17g, expected %.17g", text, d, expected);
    sk_value_release(&out);
}

static void expect_bool(const char *text, sk_ffi_fn fn, void *ctx, sk_value in, bool expected) {
    sk_value out = map_one(text, fn, ctx, in);
    bool b = !expected;
    cr_assert_eq(sk_value_get_bool(&out, &b), SK_OK, "%s: not a bool", text);
    cr_assert_eq(b, expected, "%s", text);
    sk_value_release(&out);
}

static sk_value double_value(double d) {
    sk_value value;
    sk_value_set_double(&value, d);
    return value;
}

Test(ffi_direct, every_map_shape) {
    int64_t seven = 7;
    expect_int("i64(i64)", FN(i_i), NULL, int_value(INT64_MIN + 1), INT64_MIN);
    expect_int("i64(ctx,i64)", FN(i_ci), &seven, int_value(-3), -10);
    expect_int("i64(f64)", FN(i_f), NULL, double_value(-2.5), -10);
    expect_int("i64(ctx,f64)", FN(i_cf), &seven, double_value(0.25), 8);
    expect_double("f64(i64)", FN(f_i), NULL, int_value(-3), -0.75);
    expect_double("f64(ctx,i64)", FN(f_ci), &seven, int_value(2), 7.5);
    expect_double("f64(f64)", FN(f_f), NULL, double_value(1e300), -1e300);
    expect_double("f64(ctx,f64)", FN(f_cf), &seven, int_value(3), 21.0); /* an int64 converted to f64 */
    expect_bool("bool(i64)", FN(b_i), NULL, int_value(-1), true);
    expect_bool("bool(i64)", FN(b_i), NULL, int_value(INT64_MAX), false);
    expect_bool("bool(ctx,i64)", FN(b_ci), &seven, int_value(7), true);
    expect_bool("bool(f64)", FN(b_f), NULL, double_value(-0.5), true);
    expect_bool("bool(ctx,f64)", FN(b_cf), &seven, double_value(7.5), false);
    expect_no_ffi_live_objects();
}

static void v_i(int64_t n) { char text[32]; snprintf(text, sizeof text, "%lld", (long long)n); sk_ffi_callback_fail(text); }
static void v_ci(void *ctx, int64_t n) { *(int64_t *)ctx += n; }
static void v_f(double d) { char text[32]; snprintf(text, sizeof text, "%g", d); sk_ffi_callback_fail(text); }
static void v_cf(void *ctx, double d) { *(int64_t *)ctx += (int64_t)(d * 2); }

/* A typed subscription to the single `in` through (`text`, `fn`, `ctx`). */
static void next_one(const char *text, sk_ffi_fn fn, void *ctx, sk_value in) {
    sk_signal *source = NULL;
    SK_OK_OR_FAIL(sk_signal_single(&source, &in));
    sk_value_release(&in);
    sk_ffi_signature *signature = sig(text);
    sk_ffi_observer observer = { signature, fn, NULL, NULL, NULL, NULL, ctx, NULL };
    sk_disposable *subscription = NULL;
    SK_OK_OR_FAIL(sk_ffi_signal_start(&subscription, source, &observer));
    sk_disposable_release(subscription);
    sk_ffi_signature_release(signature);
    sk_signal_release(source);
}

Test(ffi_direct, void_shapes_and_failures) {
    int64_t sum = 1;
    next_one("void(ctx,i64)", FN(v_ci), &sum, int_value(41));
    cr_assert_eq(sum, 42);
    next_one("void(ctx,f64)", FN(v_cf), &sum, double_value(1.5));
    cr_assert_eq(sum, 45);

    /* A next that reports a failure ends its subscription (no error
     * callback here to see it: the map test below checks the message). */
    next_one("void(i64)", FN(v_i), NULL, int_value(3));
    next_one("void(f64)", FN(v_f), NULL, double_value(0.5));
    expect_no_ffi_live_objects();
}

static int64_t fail_i(int64_t n) { char text[32]; snprintf(text, sizeof text, "no %lld", (long long)n); sk_ffi_callback_fail(text); return 0; }

Test(ffi_direct, a_failure_in_a_direct_call_ends_the_map) {
    sk_value in = int_value(5);
    sk_signal *source = NULL;
    SK_OK_OR_FAIL(sk_signal_single(&source, &in));
    sk_signal *mapped = typed_operator(source, false, "i64(i64)", FN(fail_i), NULL);
    sk_signal_release(source);
    recorder r;
    record_to_end(&r, mapped);
    sk_signal_release(mapped);
    recorder_expect(&r, "er", NULL, 0);
    expect_event_string(&r, 0, "sk_ffi: map: callback failed: no 5");
    recorder_destroy(&r);

    /* An argument that does not convert: the function is not called. */
    sk_value text = string_value("x");
    SK_OK_OR_FAIL(sk_signal_single(&source, &text));
    sk_value_release(&text);
    mapped = typed_operator(source, false, "i64(i64)", FN(fail_i), NULL);
    sk_signal_release(source);
    record_to_end(&r, mapped);
    sk_signal_release(mapped);
    recorder_expect(&r, "er", NULL, 0);
    expect_event_string(&r, 0, "sk_ffi: map: argument 0 (i64): string \"x\" does not convert to i64");
    recorder_destroy(&r);
    expect_no_ffi_live_objects();
}
