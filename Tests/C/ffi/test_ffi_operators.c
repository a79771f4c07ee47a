/* Typed map and filter: native functions of every result type, conversion
 * failures (argument and result) through the error path, pipelines ending in
 * a typed subscription, ctx release, misuse. */
#include "ffi_support.h"

TestSuite(ffi_operators, .timeout = SK_TEST_TIMEOUT);

static int64_t twice(int64_t n) { return 2 * n; }
static int64_t add_ctx(void *ctx, int64_t n) { return n + *(int64_t *)ctx; }
static int32_t to_i32(int64_t n) { return (int32_t)(n - 1); }
static uint64_t to_u64(int64_t n) { return n < 0 ? UINT64_MAX : (uint64_t)n * 3; }
static double halve(double d) { return d / 2; }
static bool is_even(int64_t n) { return n % 2 == 0; }
static const char *shout(void *ctx, const char *s) {
    char *buffer = ctx; /* owned by the test; copied by the library */
    snprintf(buffer, 64, "%s!", s);
    return buffer;
}
static const char *null_string(int64_t n) { (void)n; return NULL; }
static void *as_pointer(int64_t n) { static char cells[4]; return &cells[n]; }
static const sk_value *same_value(const sk_value *v) { return v; }
static const sk_value *null_value(const sk_value *v) { (void)v; return NULL; }
static bool big(double d) { return d > 1.5; }
/* The ctx of longer_than: the length to exceed and the count of releases
 * (the release function receives the ctx). */
typedef struct {
    counter released; /* first: the ctx is a counter * for counter_hit */
    size_t limit;
} length_ctx;
static bool longer_than(void *ctx, const char *s) { return strlen(s) > ((length_ctx *)ctx)->limit; }

/* Maps (filters) the int64 `values` through (`text`, `fn`, `ctx`) and
 * records the output into `r` (initialised here; the caller
 * recorder_destroy()s it) until it terminates. */
static void run_map(recorder *r, const int64_t *values, size_t count, const char *text, sk_ffi_fn fn, void *ctx, bool filter) {
    sk_signal *source = ints_signal(values, count);
    sk_signal *mapped = typed_operator(source, filter, text, fn, ctx);
    sk_signal_release(source);
    record_to_end(r, mapped);
    sk_signal_release(mapped);
}

Test(ffi_operators, map_integer_results) {
    int64_t in[] = {1, -2, 3};
    recorder r;
    run_map(&r, in, 3, "i64(i64)", FN(twice), NULL, false);
    int64_t doubled[] = {2, -4, 6};
    recorder_expect(&r, "nnncr", doubled, 3);
    recorder_destroy(&r);

    int64_t offset = 100;
    run_map(&r, in, 3, "i64(ctx,i64)", FN(add_ctx), &offset, false);
    int64_t added[] = {101, 98, 103};
    recorder_expect(&r, "nnncr", added, 3);
    recorder_destroy(&r);

    run_map(&r, in, 3, "i32(i64)", FN(to_i32), NULL, false);
    int64_t minus[] = {0, -3, 2};
    recorder_expect(&r, "nnncr", minus, 3);
    recorder_destroy(&r);

    int64_t positive[] = {1, 5};
    run_map(&r, positive, 2, "u64(i64)", FN(to_u64), NULL, false);
    int64_t tripled[] = {3, 15};
    recorder_expect(&r, "nncr", tripled, 2);
    recorder_destroy(&r);
    expect_no_ffi_live_objects();
}

Test(ffi_operators, map_other_results) {
    int64_t in[] = {0, 1};
    recorder r;
    run_map(&r, in, 2, "bool(i64)", FN(is_even), NULL, false);
    recorder_expect(&r, "nncr", NULL, 0);
    bool b = false;
    SK_OK_OR_FAIL(sk_value_get_bool(&recorder_event(&r, 0)->value, &b));
    cr_assert(b);
    SK_OK_OR_FAIL(sk_value_get_bool(&recorder_event(&r, 1)->value, &b));
    cr_assert_not(b);
    recorder_destroy(&r);

    run_map(&r, in, 2, "ptr(i64)", FN(as_pointer), NULL, false);
    recorder_expect(&r, "nncr", NULL, 0);
    void *p = NULL;
    SK_OK_OR_FAIL(sk_value_get_pointer(&recorder_event(&r, 1)->value, &p));
    cr_assert_eq(p, as_pointer(1));
    recorder_destroy(&r);

    run_map(&r, in, 2, "value(value)", FN(same_value), NULL, false);
    recorder_expect(&r, "nncr", in, 2);
    recorder_destroy(&r);
    expect_no_ffi_live_objects();
}

Test(ffi_operators, map_doubles_and_strings) {
    sk_value d;
    sk_value_set_double(&d, 5.0);
    sk_signal *doubles = NULL;
    SK_OK_OR_FAIL(sk_signal_single(&doubles, &d));
    sk_ffi_signature *half_sig = sig("f64(f64)");
    sk_signal *halved = NULL;
    SK_OK_OR_FAIL(sk_ffi_signal_map(&halved, doubles, half_sig, FN(halve), NULL, NULL));
    recorder r;
    record_to_end(&r, halved);
    recorder_expect(&r, "ncr", NULL, 0);
    double out = 0;
    SK_OK_OR_FAIL(sk_value_get_double(&recorder_event(&r, 0)->value, &out));
    cr_assert_float_eq(out, 2.5, 0);
    recorder_destroy(&r);

    sk_value s = string_value("hey");
    sk_signal *strings = NULL;
    SK_OK_OR_FAIL(sk_signal_single(&strings, &s));
    sk_value_release(&s);
    char buffer[64];
    sk_ffi_signature *shout_sig = sig("str(ctx,str)");
    sk_signal *shouted = NULL;
    SK_OK_OR_FAIL(sk_ffi_signal_map(&shouted, strings, shout_sig, FN(shout), buffer, NULL));
    record_to_end(&r, shouted);
    recorder_expect(&r, "ncr", NULL, 0);
    expect_event_string(&r, 0, "hey!");
    const char *text = NULL;
    SK_OK_OR_FAIL(sk_value_get_string(&recorder_event(&r, 0)->value, &text, NULL));
    cr_assert_neq(text, buffer, "the result string is copied");
    recorder_destroy(&r);

    sk_ffi_signature_release(half_sig);
    sk_ffi_signature_release(shout_sig);
    sk_signal_release(doubles);
    sk_signal_release(halved);
    sk_signal_release(strings);
    sk_signal_release(shouted);
    expect_no_ffi_live_objects();
}

static int8_t to_i8(int64_t n) { return (int8_t)(n - 200); }
static int16_t to_i16(int64_t n) { return (int16_t)-n; }
static uint8_t to_u8(int64_t n) { return (uint8_t)(n + 250); }
static uint16_t to_u16(int64_t n) { return (uint16_t)(n * 1000); }
static uint32_t to_u32(int64_t n) { return (uint32_t)(UINT32_MAX - (uint32_t)n); }
static float third(double d) { return (float)(d / 3); }

/* The narrow results widen to int64 (each returned through libffi, which
 * widens a narrow integral result to a register), a float to the same
 * double. */
Test(ffi_operators, map_narrow_integer_and_f32_results) {
    static const struct {
        const char *text;
        sk_ffi_fn fn;
        int64_t in;
        int64_t out;
    } cases[] = {
        {"i8(i64)", FN(to_i8), 100, -100},
        {"i16(i64)", FN(to_i16), 32768, -32768},
        {"u8(i64)", FN(to_u8), 5, 255},
        {"u16(i64)", FN(to_u16), 65, 65000},
        {"u32(i64)", FN(to_u32), 0, UINT32_MAX},
    };
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        recorder r;
        run_map(&r, &cases[c].in, 1, cases[c].text, cases[c].fn, NULL, false);
        recorder_expect(&r, "ncr", &cases[c].out, 1);
        recorder_destroy(&r);
    }
    sk_value d;
    sk_value_set_double(&d, 1.0);
    sk_signal *doubles = NULL;
    SK_OK_OR_FAIL(sk_signal_single(&doubles, &d));
    sk_signal *thirds = typed_operator(doubles, false, "f32(f64)", FN(third), NULL);
    sk_signal_release(doubles);
    recorder r;
    record_to_end(&r, thirds);
    sk_signal_release(thirds);
    recorder_expect(&r, "ncr", NULL, 0);
    double out = 0;
    SK_OK_OR_FAIL(sk_value_get_double(&recorder_event(&r, 0)->value, &out));
    cr_assert_eq(out, (double)(1.0f / 3.0f), "%.17g", out);
    recorder_destroy(&r);
    expect_no_ffi_live_objects();
}

/* Runs a map over a manual source, puts `value`, and expects an error whose
 * text is `expected`, the upstream disposed, and nothing after. */
static void check_map_failure(const char *text, sk_ffi_fn fn, sk_value value, const char *expected) {
    pipeline p;
    pipeline_init(&p);
    p.op = typed_operator(p.upstream, false, text, fn, NULL);
    pipeline_start(&p);
    SK_OK_OR_FAIL(sk_subscriber_put_next(pipeline_subscriber(&p), &value));
    sk_value_release(&value);
    cr_assert(counter_wait(&p.source.disposed, 1, SK_WAIT_SECONDS), "%s: upstream not disposed", text);
    subscriber_put_int(pipeline_subscriber(&p), 2);
    cr_assert(recorder_wait_release(&p.r));
    recorder_expect(&p.r, "er", NULL, 0);
    expect_event_string(&p.r, 0, expected);
    pipeline_finish(&p);
}

Test(ffi_operators, map_conversion_failures_end_with_an_error) {
    check_map_failure("u64(i64)", FN(to_u64), int_value(-1), "sk_ffi: map: result (u64): u64 18446744073709551615 out of range of int64");
    check_map_failure("str(i64)", FN(null_string), int_value(1), "sk_ffi: map: result (str): NULL returned as str");
    check_map_failure("value(value)", FN(null_value), int_value(1), "sk_ffi: map: result (value): NULL returned as value");
    check_map_failure("i32(i64)", FN(to_i32), string_value("x"), "sk_ffi: map: argument 0 (i64): string \"x\" does not convert to i64");
    check_map_failure("f64(f64)", FN(halve), int_value(INT64_MAX), "sk_ffi: map: argument 0 (f64): int64 9223372036854775807 is outside +-2^53 (the range in which a double holds every integer)");
    expect_no_ffi_live_objects();
}

Test(ffi_operators, filter_with_native_predicates) {
    int64_t in[] = {1, 2, 3, 4};
    recorder r;
    run_map(&r, in, 4, "bool(i64)", FN(is_even), NULL, true);
    int64_t evens[] = {2, 4};
    recorder_expect(&r, "nncr", evens, 2);
    recorder_destroy(&r);

    run_map(&r, in, 4, "bool(f64)", FN(big), NULL, true);
    int64_t bigs[] = {2, 3, 4};
    recorder_expect(&r, "nnncr", bigs, 3);
    recorder_destroy(&r);

    sk_value words[] = {string_value("a"), string_value("abc"), string_value("ab")};
    sk_signal *singles[3];
    for (int i = 0; i < 3; i++) {
        SK_OK_OR_FAIL(sk_signal_single(&singles[i], &words[i]));
        sk_value_release(&words[i]);
    }
    sk_signal *merged = NULL;
    SK_OK_OR_FAIL(sk_signal_merge(&merged, singles, 3));
    length_ctx ctx;
    ctx.limit = 1;
    counter_init(&ctx.released);
    sk_ffi_signature *s = sig("bool(ctx,str)");
    sk_signal *longer = NULL;
    SK_OK_OR_FAIL(sk_ffi_signal_filter(&longer, merged, s, FN(longer_than), &ctx, counter_hit));
    record_to_end(&r, longer);
    recorder_expect(&r, "nncr", NULL, 0);
    expect_event_string(&r, 0, "abc");
    expect_event_string(&r, 1, "ab");
    recorder_destroy(&r);
    cr_assert_eq(counter_get(&ctx.released), 0, "released while the signal is alive");
    sk_signal_release(longer);
    cr_assert_eq(counter_get(&ctx.released), 1);
    for (int i = 0; i < 3; i++) {
        sk_signal_release(singles[i]);
    }
    sk_signal_release(merged);
    sk_ffi_signature_release(s);
    counter_destroy(&ctx.released);
    expect_no_ffi_live_objects();
}

/* A pipeline built only with native callbacks: map, filter, typed start. */
static void log_i64(void *ctx, int64_t n) { tlog_add(ctx, "n:%lld", (long long)n); }
static void log_done(void *ctx) { tlog_add(ctx, "c"); }

Test(ffi_operators, native_pipeline_and_release_order) {
    manual_source source;
    manual_init(&source);
    sk_signal *signal = manual_signal(&source);
    sk_ffi_signature *map_sig = sig("i64(i64)");
    sk_ffi_signature *filter_sig = sig("bool(i64)");
    counter map_released, filter_released;
    counter_init(&map_released);
    counter_init(&filter_released);
    sk_signal *mapped = NULL, *filtered = NULL;
    SK_OK_OR_FAIL(sk_ffi_signal_filter(&filtered, signal, filter_sig, FN(is_even), &filter_released, counter_hit));
    SK_OK_OR_FAIL(sk_ffi_signal_map(&mapped, filtered, map_sig, FN(twice), &map_released, counter_hit));
    sk_signal_release(filtered);
    sk_ffi_signature_release(map_sig);
    sk_ffi_signature_release(filter_sig);

    tlog log;
    tlog_init(&log);
    sk_ffi_signature *next_sig = sig("void(ctx,i64)");
    sk_ffi_signature *done_sig = sig("void(ctx)");
    sk_ffi_observer o = {next_sig, FN(log_i64), NULL, NULL, done_sig, FN(log_done), &log, tlog_release};
    sk_disposable *d = NULL;
    SK_OK_OR_FAIL(sk_ffi_signal_start(&d, mapped, &o));
    sk_ffi_signature_release(next_sig);
    sk_ffi_signature_release(done_sig);
    sk_signal_release(mapped);
    /* The subscription keeps the operators' contexts alive. */
    cr_assert_eq(counter_get(&map_released), 0);
    cr_assert_eq(counter_get(&filter_released), 0);
    sk_subscriber *subscriber = manual_subscriber(&source, 0);
    for (int64_t i = 1; i <= 6; i++) {
        subscriber_put_int(subscriber, i);
    }
    SK_OK_OR_FAIL(sk_subscriber_put_completion(subscriber));
    cr_assert(tlog_wait(&log, 4, 1));
    tlog_expect(&log, "n:4 n:8 n:12 c ");
    cr_assert(counter_wait(&map_released, 1, SK_WAIT_SECONDS));
    cr_assert(counter_wait(&filter_released, 1, SK_WAIT_SECONDS));
    cr_assert_eq(counter_get(&map_released), 1);
    cr_assert_eq(counter_get(&filter_released), 1);
    cr_assert_eq(tlog_releases(&log), 1);
    sk_disposable_release(d);
    sk_signal_release(signal);
    manual_destroy(&source);
    counter_destroy(&map_released);
    counter_destroy(&filter_released);
    tlog_destroy(&log);
    expect_no_ffi_live_objects();
}

/* sk_ffi_signal_map (with `filter`, sk_ffi_signal_filter) of `signal`
 * through `fn` over the signature parsed from `text` (NULL: none), with
 * `released` as ctx and counter_hit as release (neither when `released` is
 * NULL). @return its status. The signature is released after the call. */
static int typed_call(sk_signal **out, bool filter, sk_signal *signal, const char *text, sk_ffi_fn fn, counter *released) {
    sk_ffi_signature *signature = text != NULL ? sig(text) : NULL;
    sk_release_fn release = released != NULL ? counter_hit : NULL;
    int status = filter ? sk_ffi_signal_filter(out, signal, signature, fn, released, release)
                        : sk_ffi_signal_map(out, signal, signature, fn, released, release);
    sk_ffi_signature_release(signature);
    return status;
}

Test(ffi_operators, misuse_is_reported_and_release_runs_once) {
    int64_t one[] = {1};
    sk_signal *signal = ints_signal(one, 1);
    counter released;
    counter_init(&released);
    sk_signal *out = (sk_signal *)&out;
    int expected = 0;

    EXPECT_FFI_ERROR(typed_call(NULL, false, signal, "i64(i64)", FN(twice), &released), SK_ERR_NULL_ARGUMENT, "sk_ffi_signal_map: out is NULL");
    cr_assert_eq(counter_get(&released), ++expected);
    EXPECT_FFI_ERROR(typed_call(&out, false, NULL, "i64(i64)", FN(twice), &released), SK_ERR_NULL_ARGUMENT, "sk_ffi_signal_map: signal is NULL");
    cr_assert_null(out);
    cr_assert_eq(counter_get(&released), ++expected);
    EXPECT_FFI_ERROR(typed_call(&out, false, signal, NULL, FN(twice), &released), SK_ERR_NULL_ARGUMENT, "sk_ffi_signal_map: signature is NULL");
    cr_assert_eq(counter_get(&released), ++expected);
    EXPECT_FFI_ERROR(typed_call(&out, false, signal, "i64(i64)", NULL, &released), SK_ERR_NULL_ARGUMENT, "sk_ffi_signal_map: fn is NULL");
    cr_assert_eq(counter_get(&released), ++expected);
    EXPECT_FFI_ERROR(typed_call(&out, false, signal, "void(i64)", FN(twice), &released), SK_ERR_INVALID_ARGUMENT, "sk_ffi_signal_map: signature: must return a value, returns void");
    cr_assert_eq(counter_get(&released), ++expected);
    EXPECT_FFI_ERROR(typed_call(&out, false, signal, "i64(i64,i64)", FN(twice), &released), SK_ERR_INVALID_ARGUMENT, "sk_ffi_signal_map: signature: takes 2 value arguments, exactly 1 allowed (besides a leading ctx)");
    cr_assert_eq(counter_get(&released), ++expected);
    EXPECT_FFI_ERROR(typed_call(&out, false, signal, "i64(ctx)", FN(twice), &released), SK_ERR_INVALID_ARGUMENT, "sk_ffi_signal_map: signature: takes 0 value arguments, exactly 1 allowed (besides a leading ctx)");
    cr_assert_eq(counter_get(&released), ++expected);
    EXPECT_FFI_ERROR(typed_call(&out, true, signal, "i64(i64)", FN(twice), &released), SK_ERR_INVALID_ARGUMENT, "sk_ffi_signal_filter: signature: must return bool, returns i64");
    cr_assert_eq(counter_get(&released), ++expected);
    EXPECT_FFI_ERROR(typed_call(&out, true, NULL, "i64(i64)", FN(twice), NULL), SK_ERR_NULL_ARGUMENT, "sk_ffi_signal_filter: signal is NULL");
    cr_assert_eq(counter_get(&released), expected);

    sk_signal_release(signal);
    counter_destroy(&released);
    expect_no_ffi_live_objects();
}
