/* Typed subscriptions: native next / error / completed callbacks of every
 * argument type, called through their signatures; conversion failures
 * reported through the error path; disposal; threads; misuse. */
#include "ffi_support.h"

TestSuite(ffi_typed, .timeout = SK_TEST_TIMEOUT);

/* Native callbacks, each logging what it received into the tlog ctx. */
static void next_ctx_i64(void *ctx, int64_t n) { tlog_add(ctx, "n:%lld", (long long)n); }
static void next_ctx_i32(void *ctx, int32_t n) { tlog_add(ctx, "i32:%d", n); }
static void next_ctx_u64(void *ctx, uint64_t n) { tlog_add(ctx, "u64:%llu", (unsigned long long)n); }
static void next_ctx_f64(void *ctx, double d) { tlog_add(ctx, "f64:%.17g", d); }
static void next_ctx_bool(void *ctx, bool b) { tlog_add(ctx, "bool:%d", b ? 1 : 0); }
static void next_ctx_str(void *ctx, const char *s) { tlog_add(ctx, "str:%s", s); }
static void next_ctx_ptr(void *ctx, void *p) { tlog_add(ctx, "ptr:%s", p == NULL ? "NULL" : (const char *)p); }
static void next_ctx_value(void *ctx, const sk_value *v) { tlog_add(ctx, "value:%d", (int)sk_value_kind(v)); }
static void next_ctx_only(void *ctx) { tlog_add(ctx, "tick"); }
static void next_ctx_i8(void *ctx, int8_t n) { tlog_add(ctx, "i8:%d", n); }
static void next_ctx_i16(void *ctx, int16_t n) { tlog_add(ctx, "i16:%d", n); }
static void next_ctx_u8(void *ctx, uint8_t n) { tlog_add(ctx, "u8:%u", (unsigned)n); }
static void next_ctx_u16(void *ctx, uint16_t n) { tlog_add(ctx, "u16:%u", (unsigned)n); }
static void next_ctx_u32(void *ctx, uint32_t n) { tlog_add(ctx, "u32:%lu", (unsigned long)n); }
static void next_ctx_f32(void *ctx, float f) { tlog_add(ctx, "f32:%.9g", (double)f); }

static void error_ctx_str(void *ctx, const char *s) { tlog_add(ctx, "e:%s", s); }
static void error_ctx_value(void *ctx, const sk_value *v) {
    int64_t n = 0;
    sk_value_get_int64(v, &n);
    tlog_add(ctx, "ev:%d:%lld", (int)sk_value_kind(v), (long long)n);
}
static void error_ctx_only(void *ctx) { tlog_add(ctx, "e"); }
static void completed_ctx(void *ctx) { tlog_add(ctx, "c"); }

/* No-ctx callbacks log into a global. */
static tlog global_log;
static void next_i64(int64_t n) { tlog_add(&global_log, "n:%lld", (long long)n); }
static void error_str(const char *s) { tlog_add(&global_log, "e:%s", s); }
static void completed_plain(void) { tlog_add(&global_log, "c"); }

/* sk_ffi_signal_start (into `out`, which may be NULL) over an observer of
 * the signatures parsed from the texts (NULL: none) and the functions given,
 * with `log` as ctx and, with `release`, tlog_release. @return its status.
 * The signatures are released at once: the library retains what it keeps. */
static int start_observer(sk_disposable **out, sk_signal *signal, const char *next_text, sk_ffi_fn next,
                          const char *error_text, sk_ffi_fn error, const char *completed_text,
                          sk_ffi_fn completed, tlog *log, bool release) {
    sk_ffi_signature *next_sig = next_text ? sig(next_text) : NULL;
    sk_ffi_signature *error_sig = error_text ? sig(error_text) : NULL;
    sk_ffi_signature *completed_sig = completed_text ? sig(completed_text) : NULL;
    sk_ffi_observer observer = {next_sig, next, error_sig, error, completed_sig, completed, log, release ? tlog_release : NULL};
    int status = sk_ffi_signal_start(out, signal, &observer);
    sk_ffi_signature_release(next_sig);
    sk_ffi_signature_release(error_sig);
    sk_ffi_signature_release(completed_sig);
    return status;
}

/* An observer over `log`: next as given, a "void(ctx,str)" error and a
 * "void(ctx)" completion. */
static int start_typed(sk_disposable **out, sk_signal *signal, tlog *log, const char *next_text, sk_ffi_fn next) {
    return start_observer(out, signal, next_text, next, "void(ctx,str)", FN(error_ctx_str), "void(ctx)", FN(completed_ctx), log, true);
}

/* A manual source and a typed subscription (start_typed) to its signal,
 * logging into `log`. manual_typed_close releases all of it; the caller
 * ends the subscription first. */
typedef struct manual_typed {
    tlog log;
    manual_source source;
    sk_signal *signal;
    sk_disposable *subscription;
} manual_typed;

static void manual_typed_open(manual_typed *m, const char *next_text, sk_ffi_fn next) {
    tlog_init(&m->log);
    manual_init(&m->source);
    m->signal = manual_signal(&m->source);
    m->subscription = NULL;
    SK_OK_OR_FAIL(start_typed(&m->subscription, m->signal, &m->log, next_text, next));
    cr_assert_not_null(manual_subscriber(&m->source, 0));
}

static void manual_typed_close(manual_typed *m) {
    sk_disposable_release(m->subscription);
    sk_signal_release(m->signal);
    manual_destroy(&m->source);
    tlog_destroy(&m->log);
}

/* Delivers `value` (consumed) then completion to a typed `next`, and
 * asserts the log. */
static void check_in(const char *next_text, sk_ffi_fn next, sk_value value, const char *expected) {
    tlog log;
    tlog_init(&log);
    sk_signal *signal = NULL;
    SK_OK_OR_FAIL(sk_signal_single(&signal, &value));
    sk_value_release(&value);
    SK_OK_OR_FAIL(start_typed(NULL, signal, &log, next_text, next));
    sk_signal_release(signal);
    cr_assert(tlog_wait(&log, 1, 1), "%s: no release", next_text);
    tlog_expect(&log, expected);
    cr_assert_eq(tlog_releases(&log), 1, "%s", next_text);
    tlog_destroy(&log);
}

static sk_value pointer_value(void *p) {
    sk_value v;
    SK_OK_OR_FAIL(sk_value_set_pointer(&v, p, NULL));
    return v;
}

static sk_value double_value(double d) {
    sk_value v;
    sk_value_set_double(&v, d);
    return v;
}

static sk_value bool_value(bool b) {
    sk_value v;
    sk_value_set_bool(&v, b);
    return v;
}

static sk_value nil_value(void) {
    sk_value v;
    sk_value_set_nil(&v);
    return v;
}

Test(ffi_typed, next_i64_with_ctx_then_completed) {
    tlog log;
    tlog_init(&log);
    int64_t values[] = {1, -2, INT64_MAX, INT64_MIN};
    sk_signal *signal = ints_signal(values, 4);
    SK_OK_OR_FAIL(start_typed(NULL, signal, &log, "void(ctx,i64)", FN(next_ctx_i64)));
    sk_signal_release(signal);
    cr_assert(tlog_wait(&log, 5, 1));
    tlog_expect(&log, "n:1 n:-2 n:9223372036854775807 n:-9223372036854775808 c ");
    cr_assert_eq(tlog_releases(&log), 1);
    tlog_destroy(&log);
    expect_no_ffi_live_objects();
}

Test(ffi_typed, callbacks_without_ctx) {
    tlog_init(&global_log);
    sk_ffi_signature *next = sig("void(i64)");
    sk_ffi_signature *error = sig("void(str)");
    sk_ffi_signature *done = sig("void()");
    sk_ffi_observer observer = {next, FN(next_i64), error, FN(error_str), done, FN(completed_plain), &global_log, tlog_release};
    int64_t values[] = {7, 8};
    sk_signal *signal = ints_signal(values, 2);
    sk_disposable *d = NULL;
    SK_OK_OR_FAIL(sk_ffi_signal_start(&d, signal, &observer));
    cr_assert_not_null(d);
    cr_assert(tlog_wait(&global_log, 3, 1));
    tlog_expect(&global_log, "n:7 n:8 c ");
    sk_disposable_release(d);
    sk_signal_release(signal);
    sk_ffi_signature_release(next);
    sk_ffi_signature_release(error);
    sk_ffi_signature_release(done);
    cr_assert_eq(tlog_releases(&global_log), 1);
    tlog_destroy(&global_log);
    expect_no_ffi_live_objects();
}

Test(ffi_typed, every_argument_type_in) {
    static char text_a[] = "pointee";
    check_in("void(ctx,i32)", FN(next_ctx_i32), int_value(-5), "i32:-5 c ");
    check_in("void(ctx,i32)", FN(next_ctx_i32), int_value(INT32_MAX), "i32:2147483647 c ");
    check_in("void(ctx,i32)", FN(next_ctx_i32), int_value(INT32_MIN), "i32:-2147483648 c ");
    check_in("void(ctx,u64)", FN(next_ctx_u64), int_value(5000000000LL), "u64:5000000000 c ");
    check_in("void(ctx,u64)", FN(next_ctx_u64), int_value(INT64_MAX), "u64:9223372036854775807 c ");
    check_in("void(ctx,i64)", FN(next_ctx_i64), int_value(0), "n:0 c ");
    check_in("void(ctx,f64)", FN(next_ctx_f64), double_value(2.5), "f64:2.5 c ");
    check_in("void(ctx,f64)", FN(next_ctx_f64), int_value(-3), "f64:-3 c ");
    check_in("void(ctx,f64)", FN(next_ctx_f64), int_value((int64_t)1 << 53), "f64:9007199254740992 c ");
    check_in("void(ctx,f64)", FN(next_ctx_f64), int_value(-((int64_t)1 << 53)), "f64:-9007199254740992 c ");
    check_in("void(ctx,bool)", FN(next_ctx_bool), bool_value(true), "bool:1 c ");
    check_in("void(ctx,bool)", FN(next_ctx_bool), bool_value(false), "bool:0 c ");
    check_in("void(ctx,str)", FN(next_ctx_str), string_value("h\xc3\xa9llo"), "str:h\xc3\xa9llo c ");
    check_in("void(ctx,str)", FN(next_ctx_str), string_value(""), "str: c ");
    check_in("void(ctx,ptr)", FN(next_ctx_ptr), pointer_value(text_a), "ptr:pointee c ");
    check_in("void(ctx,ptr)", FN(next_ctx_ptr), nil_value(), "ptr:NULL c ");
    check_in("void(ctx,value)", FN(next_ctx_value), string_value("x"), "value:4 c ");
    check_in("void(ctx,value)", FN(next_ctx_value), nil_value(), "value:0 c ");
    check_in("void(ctx)", FN(next_ctx_only), int_value(1), "tick c ");
    check_in("void(ctx,i8)", FN(next_ctx_i8), int_value(INT8_MIN), "i8:-128 c ");
    check_in("void(ctx,i8)", FN(next_ctx_i8), int_value(INT8_MAX), "i8:127 c ");
    check_in("void(ctx,i16)", FN(next_ctx_i16), int_value(INT16_MIN), "i16:-32768 c ");
    check_in("void(ctx,i16)", FN(next_ctx_i16), int_value(INT16_MAX), "i16:32767 c ");
    check_in("void(ctx,u8)", FN(next_ctx_u8), int_value(0), "u8:0 c ");
    check_in("void(ctx,u8)", FN(next_ctx_u8), int_value(UINT8_MAX), "u8:255 c ");
    check_in("void(ctx,u16)", FN(next_ctx_u16), int_value(UINT16_MAX), "u16:65535 c ");
    check_in("void(ctx,u32)", FN(next_ctx_u32), int_value(UINT32_MAX), "u32:4294967295 c ");
    check_in("void(ctx,u32)", FN(next_ctx_u32), int_value(0), "u32:0 c ");
    check_in("void(ctx,f32)", FN(next_ctx_f32), double_value(2.5), "f32:2.5 c ");
    check_in("void(ctx,f32)", FN(next_ctx_f32), double_value(0.1), "f32:0.100000001 c "); /* rounded to the nearest float */
    check_in("void(ctx,f32)", FN(next_ctx_f32), double_value(-1.0 / 0.0), "f32:-inf c ");
    check_in("void(ctx,f32)", FN(next_ctx_f32), int_value((int64_t)1 << 24), "f32:16777216 c ");
    check_in("void(ctx,f32)", FN(next_ctx_f32), int_value(-((int64_t)1 << 24)), "f32:-16777216 c ");
    expect_no_ffi_live_objects();
}

Test(ffi_typed, conversion_failure_ends_the_subscription_through_error) {
    static const char embedded[] = {'a', '\0', 'b'};
    struct {
        const char *signature;
        sk_ffi_fn fn;
        sk_value value;
        const char *expected;
    } cases[24];
    size_t n = 0;
#define CASE(s, f, v, e) do { cases[n].signature = (s); cases[n].fn = FN(f); cases[n].value = (v); cases[n].expected = (e); n++; } while (0)
    CASE("void(ctx,i32)", next_ctx_i32, int_value((int64_t)1 << 40), "e:sk_ffi: next: argument 1 (i32): int64 1099511627776 out of range of i32 ");
    CASE("void(ctx,i32)", next_ctx_i32, int_value((int64_t)INT32_MIN - 1), "e:sk_ffi: next: argument 1 (i32): int64 -2147483649 out of range of i32 ");
    CASE("void(ctx,u64)", next_ctx_u64, int_value(-1), "e:sk_ffi: next: argument 1 (u64): int64 -1 out of range of u64 ");
    CASE("void(ctx,str)", next_ctx_str, int_value(7), "e:sk_ffi: next: argument 1 (str): int64 7 does not convert to str ");
    sk_value with_nul;
    SK_OK_OR_FAIL(sk_value_set_string_n(&with_nul, embedded, sizeof embedded));
    CASE("void(ctx,str)", next_ctx_str, with_nul, "e:sk_ffi: next: argument 1 (str): string with an embedded NUL at byte 1 ");
    CASE("void(ctx,f64)", next_ctx_f64, int_value(((int64_t)1 << 53) + 1), "e:sk_ffi: next: argument 1 (f64): int64 9007199254740993 is outside +-2^53 (the range in which a double holds every integer) ");
    /* 2^62 is held exactly by a double, but is outside the range in which
     * every integer is: refused, so that a stream's type does not depend on
     * which of its values happen to be exact. */
    CASE("void(ctx,f64)", next_ctx_f64, int_value((int64_t)1 << 62), "e:sk_ffi: next: argument 1 (f64): int64 4611686018427387904 is outside +-2^53 (the range in which a double holds every integer) ");
    CASE("void(ctx,f64)", next_ctx_f64, int_value(-((int64_t)1 << 53) - 1), "e:sk_ffi: next: argument 1 (f64): int64 -9007199254740993 is outside +-2^53 (the range in which a double holds every integer) ");
    CASE("void(ctx,bool)", next_ctx_bool, int_value(1), "e:sk_ffi: next: argument 1 (bool): int64 1 does not convert to bool ");
    CASE("void(ctx,i64)", next_ctx_i64, double_value(1.5), "e:sk_ffi: next: argument 1 (i64): double 1.5 does not convert to i64 ");
    CASE("void(ctx,ptr)", next_ctx_ptr, string_value("p"), "e:sk_ffi: next: argument 1 (ptr): string \"p\" does not convert to ptr ");
    CASE("void(ctx,i64)", next_ctx_i64, nil_value(), "e:sk_ffi: next: argument 1 (i64): nil does not convert to i64 ");
    CASE("void(ctx,i8)", next_ctx_i8, int_value(128), "e:sk_ffi: next: argument 1 (i8): int64 128 out of range of i8 ");
    CASE("void(ctx,i8)", next_ctx_i8, int_value(-129), "e:sk_ffi: next: argument 1 (i8): int64 -129 out of range of i8 ");
    CASE("void(ctx,i16)", next_ctx_i16, int_value(32768), "e:sk_ffi: next: argument 1 (i16): int64 32768 out of range of i16 ");
    CASE("void(ctx,u8)", next_ctx_u8, int_value(-1), "e:sk_ffi: next: argument 1 (u8): int64 -1 out of range of u8 ");
    CASE("void(ctx,u8)", next_ctx_u8, int_value(256), "e:sk_ffi: next: argument 1 (u8): int64 256 out of range of u8 ");
    CASE("void(ctx,u16)", next_ctx_u16, int_value(65536), "e:sk_ffi: next: argument 1 (u16): int64 65536 out of range of u16 ");
    CASE("void(ctx,u32)", next_ctx_u32, int_value((int64_t)UINT32_MAX + 1), "e:sk_ffi: next: argument 1 (u32): int64 4294967296 out of range of u32 ");
    CASE("void(ctx,u32)", next_ctx_u32, int_value(-1), "e:sk_ffi: next: argument 1 (u32): int64 -1 out of range of u32 ");
    CASE("void(ctx,f32)", next_ctx_f32, double_value(1e300), "e:sk_ffi: next: argument 1 (f32): double 1.0000000000000001e+300 is outside the range of f32 ");
    CASE("void(ctx,f32)", next_ctx_f32, int_value(((int64_t)1 << 24) + 1), "e:sk_ffi: next: argument 1 (f32): int64 16777217 is outside +-2^24 (the range in which a float holds every integer) ");
    CASE("void(ctx,f32)", next_ctx_f32, string_value("1"), "e:sk_ffi: next: argument 1 (f32): string \"1\" does not convert to f32 ");
    CASE("void(ctx,u16)", next_ctx_u16, double_value(1.0), "e:sk_ffi: next: argument 1 (u16): double 1 does not convert to u16 ");
#undef CASE
    cr_assert_leq(n, sizeof cases / sizeof cases[0]);
    for (size_t c = 0; c < n; c++) {
        manual_typed m;
        manual_typed_open(&m, cases[c].signature, cases[c].fn);
        sk_subscriber *subscriber = manual_subscriber(&m.source, 0);
        SK_OK_OR_FAIL(sk_subscriber_put_next(subscriber, &cases[c].value));
        /* The subscription ended: upstream disposed, nothing more called. */
        cr_assert(counter_wait(&m.source.disposed, 1, SK_WAIT_SECONDS), "%s: upstream not disposed", cases[c].signature);
        subscriber_put_int(subscriber, 1);
        SK_OK_OR_FAIL(sk_subscriber_put_completion(subscriber));
        cr_assert(tlog_wait(&m.log, 1, 1));
        tlog_expect(&m.log, cases[c].expected);
        cr_assert_eq(tlog_releases(&m.log), 1);
        sk_value_release(&cases[c].value);
        manual_typed_close(&m);
    }
    expect_no_ffi_live_objects();
}

static void check_error(sk_value error, const char *error_text, sk_ffi_fn fn, const char *expected) {
    tlog log;
    tlog_init(&log);
    sk_signal *signal = NULL;
    SK_OK_OR_FAIL(sk_signal_fail(&signal, &error));
    sk_value_release(&error);
    SK_OK_OR_FAIL(start_observer(NULL, signal, NULL, NULL, error_text, fn, "void(ctx)", FN(completed_ctx), &log, true));
    sk_signal_release(signal);
    cr_assert(tlog_wait(&log, 1, 1));
    tlog_expect(&log, expected);
    cr_assert_eq(tlog_releases(&log), 1);
    tlog_destroy(&log);
}

Test(ffi_typed, error_callback_types) {
    check_error(string_value("boom"), "void(ctx,str)", FN(error_ctx_str), "e:boom ");
    check_error(int_value(7), "void(ctx,str)", FN(error_ctx_str), "e:sk_ffi: error of kind int64: 7 ");
    check_error(int_value(7), "void(ctx,value)", FN(error_ctx_value), "ev:2:7 ");
    check_error(int_value(7), "void(ctx)", FN(error_ctx_only), "e ");
    expect_no_ffi_live_objects();
}

Test(ffi_typed, dispose_stops_the_callbacks) {
    manual_typed m;
    manual_typed_open(&m, "void(ctx,i64)", FN(next_ctx_i64));
    sk_subscriber *subscriber = manual_subscriber(&m.source, 0);
    subscriber_put_int(subscriber, 1);
    cr_assert_eq(tlog_releases(&m.log), 0);
    sk_disposable_dispose(m.subscription);
    cr_assert(counter_wait(&m.source.disposed, 1, SK_WAIT_SECONDS));
    subscriber_put_int(subscriber, 2);
    SK_OK_OR_FAIL(sk_subscriber_put_completion(subscriber));
    cr_assert(tlog_wait(&m.log, 1, 1));
    tlog_expect(&m.log, "n:1 ");
    cr_assert_eq(tlog_releases(&m.log), 1);
    manual_typed_close(&m);
    expect_no_ffi_live_objects();
}

/* Values from several threads at once: every one reaches the callback. */
static long total_seen;
static void next_count(void *ctx, int64_t n) {
    (void)ctx;
    __atomic_add_fetch(&total_seen, n, __ATOMIC_RELAXED);
}

/* A round of run_rounds_on_threads: puts 1 into the pipe `arg`. */
static void put_one(void *arg, int thread) {
    (void)thread;
    sk_value v = int_value(1);
    SK_OK_OR_ABORT(sk_pipe_put(arg, &v));
}

Test(ffi_typed, values_from_many_threads_all_arrive) {
    tlog log;
    tlog_init(&log);
    sk_pipe *pipe = NULL;
    SK_OK_OR_FAIL(sk_pipe_create(&pipe, false));
    sk_signal *signal = NULL;
    SK_OK_OR_FAIL(sk_pipe_signal(&signal, pipe));
    sk_disposable *d = NULL;
    SK_OK_OR_FAIL(start_typed(&d, signal, &log, "void(ctx,i64)", FN(next_count)));
    run_rounds_on_threads(4, 5000, put_one, pipe);
    cr_assert_eq(__atomic_load_n(&total_seen, __ATOMIC_RELAXED), 20000);
    sk_disposable_dispose(d);
    cr_assert(tlog_wait(&log, 0, 1));
    sk_disposable_release(d);
    sk_signal_release(signal);
    sk_pipe_release(pipe);
    tlog_destroy(&log);
    expect_no_ffi_live_objects();
}

Test(ffi_typed, misuse_is_reported_and_release_runs_once) {
    tlog log;
    tlog_init(&log);
    int64_t one[] = {1};
    sk_signal *signal = ints_signal(one, 1);
    sk_disposable *d = (sk_disposable *)&d;
    EXPECT_FFI_ERROR(sk_ffi_signal_start(&d, signal, NULL), SK_ERR_NULL_ARGUMENT, "sk_ffi_signal_start: observer is NULL");
    cr_assert_null(d);

    /* Refused observers (next is next_ctx_i64 in all): each call runs the
     * observer's release once, when it has one. */
    const struct {
        bool null_signal;
        const char *next;
        const char *error;
        sk_ffi_fn error_fn;
        const char *completed;
        sk_ffi_fn completed_fn;
        bool release;
        int status;
        const char *message;
    } cases[] = {
        {true, "void(ctx,i64)", NULL, NULL, NULL, NULL, true, SK_ERR_NULL_ARGUMENT, "sk_ffi_signal_start: signal is NULL"},
        {false, NULL, NULL, NULL, NULL, NULL, true, SK_ERR_NULL_ARGUMENT, "observer->next_signature is NULL"},
        {false, "i64(ctx,i64)", NULL, NULL, NULL, NULL, true, SK_ERR_INVALID_ARGUMENT, "observer->next_signature: must return void, returns i64"},
        {false, "void(ctx,i64,i64)", NULL, NULL, NULL, NULL, true, SK_ERR_INVALID_ARGUMENT, "sk_ffi_signal_start: observer->next_signature: takes 2 value arguments, at most 1 allowed (besides a leading ctx)"},
        {false, "void(ctx,i64)", "void(ctx,i64)", FN(error_ctx_str), NULL, NULL, true, SK_ERR_INVALID_ARGUMENT, "observer->error_signature: argument 1 has type i64, only str or value allowed"},
        /* An error signature without its function is not checked. */
        {false, "void(ctx,i64)", "void(ctx,i64)", NULL, NULL, FN(completed_ctx), true, SK_ERR_NULL_ARGUMENT, "observer->completed_signature is NULL"},
        {false, "void(ctx,i64)", "void(ctx,i64)", NULL, "void(ctx,i64)", FN(completed_ctx), true, SK_ERR_INVALID_ARGUMENT, "sk_ffi_signal_start: observer->completed_signature: takes 1 value argument, none allowed (besides a leading ctx)"},
        /* A failing call with no release function is fine too. */
        {false, "void(ctx,i64)", "void(ctx,i64)", NULL, "void(ctx,i64)", FN(completed_ctx), false, SK_ERR_INVALID_ARGUMENT, "observer->completed_signature"},
    };
    int expected_releases = 0;
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        EXPECT_FFI_ERROR(start_observer(NULL, cases[c].null_signal ? NULL : signal, cases[c].next, FN(next_ctx_i64),
                                        cases[c].error, cases[c].error_fn, cases[c].completed, cases[c].completed_fn,
                                        &log, cases[c].release),
                         cases[c].status, cases[c].message);
        expected_releases += cases[c].release ? 1 : 0;
        cr_assert_eq(tlog_releases(&log), expected_releases, "case %zu", c);
    }

    sk_signal_release(signal);
    tlog_expect(&log, "");
    tlog_destroy(&log);
    expect_no_ffi_live_objects();
}
