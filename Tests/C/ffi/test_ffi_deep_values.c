/* Values nested as deep as the core accepts (SK_VALUE_MAX_DEPTH levels of
 * arrays) through every conversion of this library: value arguments and
 * results of typed callbacks, error descriptions, trampoline arguments;
 * and a trampoline whose arguments would nest one level deeper (refused by
 * the core, reported to the subscriber). The conversions never walk into
 * an array (convert.c copies or describes the outer value only). */
#include "ffi_support.h"

TestSuite(ffi_deep_values, .timeout = SK_TEST_TIMEOUT);

/* `levels` nested arrays around the int64 `leaf` (+1). */
static sk_value nested(int levels, int64_t leaf) {
    sk_value value = int_value(leaf);
    for (int level = 0; level < levels; level++) {
        sk_value array;
        SK_OK_OR_FAIL(sk_value_set_array(&array, &value, 1));
        sk_value_release(&value);
        value = array;
    }
    return value;
}

static const sk_value *same(const sk_value *value) { return value; }

typedef struct {
    tlog log;
    const sk_value *expected;
    int equal;
} deep_ctx;

static void next_value(void *ctx, const sk_value *value) {
    deep_ctx *d = ctx;
    if (sk_value_equal(value, d->expected)) {
        __atomic_add_fetch(&d->equal, 1, __ATOMIC_RELAXED);
    }
    tlog_add(&d->log, "n");
}

static void error_str(void *ctx, const char *s) { tlog_add(&((deep_ctx *)ctx)->log, "e:%s", s); }

static void release_deep(void *ctx) { tlog_release(&((deep_ctx *)ctx)->log); }

/* Starts `signal` with a typed "void(ctx,value)" next and "void(ctx,str)"
 * error over `d`. */
static void start_deep(sk_signal *signal, deep_ctx *d) {
    sk_ffi_signature *next = sig("void(ctx,value)");
    sk_ffi_signature *error = sig("void(ctx,str)");
    sk_ffi_observer o = {next, FN(next_value), error, FN(error_str), NULL, NULL, d, release_deep};
    SK_OK_OR_FAIL(sk_ffi_signal_start(NULL, signal, &o));
    sk_ffi_signature_release(next);
    sk_ffi_signature_release(error);
}

Test(ffi_deep_values, deepest_values_through_typed_callbacks) {
    sk_value deep = nested(SK_VALUE_MAX_DEPTH, 7);

    /* A typed map "value(value)" (argument and result) and a typed next
     * "void(ctx,value)". */
    deep_ctx d = {.expected = &deep};
    tlog_init(&d.log);
    sk_signal *single = NULL;
    SK_OK_OR_FAIL(sk_signal_single(&single, &deep));
    sk_ffi_signature *map_sig = sig("value(value)");
    sk_signal *mapped = NULL;
    SK_OK_OR_FAIL(sk_ffi_signal_map(&mapped, single, map_sig, FN(same), NULL, NULL));
    start_deep(mapped, &d);
    cr_assert(tlog_wait(&d.log, 1, 1));
    tlog_expect(&d.log, "n ");
    cr_assert_eq(__atomic_load_n(&d.equal, __ATOMIC_RELAXED), 1);
    sk_signal_release(mapped);
    sk_signal_release(single);
    sk_ffi_signature_release(map_sig);
    tlog_destroy(&d.log);

    /* The same value as an error, to a str argument: its description. */
    deep_ctx e = {.expected = &deep};
    tlog_init(&e.log);
    sk_signal *failing = NULL;
    SK_OK_OR_FAIL(sk_signal_fail(&failing, &deep));
    start_deep(failing, &e);
    cr_assert(tlog_wait(&e.log, 1, 1));
    tlog_expect(&e.log, "e:sk_ffi: error of kind array: 1 item ");
    sk_signal_release(failing);
    tlog_destroy(&e.log);

    sk_value_release(&deep);
    expect_no_ffi_live_objects();
}

Test(ffi_deep_values, trampoline_arguments_at_and_past_the_depth_limit) {
    sk_value deep = nested(SK_VALUE_MAX_DEPTH, 7);
    sk_ffi_signature *one = sig("void(value)");
    sk_ffi_signature *two = sig("void(value,i64)");

    /* One argument: the value itself, as deep as allowed. */
    sk_pipe *pipe = NULL;
    SK_OK_OR_FAIL(sk_pipe_create(&pipe, false));
    sk_signal *piped = NULL;
    SK_OK_OR_FAIL(sk_pipe_signal(&piped, pipe));
    deep_ctx d = {.expected = &deep};
    tlog_init(&d.log);
    start_deep(piped, &d);
    sk_ffi_trampoline *t = NULL;
    SK_OK_OR_FAIL(sk_ffi_trampoline_pipe(&t, pipe, one));
    ((void (*)(const sk_value *))sk_ffi_trampoline_function(t))(&deep);
    cr_assert_eq(sk_ffi_trampoline_calls(t), 1);
    cr_assert_eq(__atomic_load_n(&d.equal, __ATOMIC_RELAXED), 1);
    sk_ffi_trampoline_release(t);
    sk_pipe_release(pipe);
    cr_assert(tlog_wait(&d.log, 1, 1));
    sk_signal_release(piped);
    tlog_destroy(&d.log);

    /* Two arguments: an array holding it would nest one level too deep;
     * the core refuses it, the subscriber ends with that error, nothing is
     * put. */
    sk_subscriber *subscriber = NULL;
    manual_source source;
    manual_init(&source);
    sk_signal *manual = manual_signal(&source);
    deep_ctx e = {.expected = &deep};
    tlog_init(&e.log);
    start_deep(manual, &e);
    subscriber = manual_subscriber(&source, 0);
    cr_assert_not_null(subscriber);
    SK_OK_OR_FAIL(sk_ffi_trampoline_subscriber(&t, subscriber, two));
    ((void (*)(const sk_value *, int64_t))sk_ffi_trampoline_function(t))(&deep, 1);
    cr_assert_eq(sk_ffi_trampoline_calls(t), 0);
    cr_assert(tlog_wait(&e.log, 1, 1));
    pthread_mutex_lock(&e.log.mutex);
    char text[TLOG_SIZE];
    memcpy(text, e.log.text, TLOG_SIZE);
    pthread_mutex_unlock(&e.log.mutex);
    cr_assert(strncmp(text, "e:sk_ffi: trampoline: sk_value_set_array: ", 42) == 0, "%s", text);
    cr_assert_eq(e.equal, 0);
    sk_ffi_trampoline_release(t);
    sk_signal_release(manual);
    manual_destroy(&source);
    tlog_destroy(&e.log);

    sk_value_release(&deep);
    sk_ffi_signature_release(one);
    sk_ffi_signature_release(two);
    expect_no_ffi_live_objects();
}

/* Typed operators count toward SK_SIGNAL_MAX_DEPTH like the core's (they
 * are built with sk_signal_create_over): a chain one deeper than the limit
 * is refused at the call, its context released once. Before, each typed map
 * counted as a new source and 100 000 of them overflowed the stack. */
static int64_t plus_one(int64_t n) { return n + 1; }

static void count_release(void *ctx) { __atomic_add_fetch((int *)ctx, 1, __ATOMIC_RELAXED); }

/* Maps *signal once more through plus_one (ctx `released`, released by
 * count_release). On success the new signal replaces *signal, whose
 * reference it takes over (the new one keeps the old alive); on failure
 * *signal is left as it was. @return the call's status. */
static int map_once_more(sk_signal **signal, sk_ffi_signature *map_sig, int *released) {
    sk_signal *next = NULL;
    int status = sk_ffi_signal_map(&next, *signal, map_sig, FN(plus_one), released, count_release);
    if (status != SK_OK) {
        cr_assert_null(next);
        return status;
    }
    sk_signal_release(*signal);
    *signal = next;
    return SK_OK;
}

Test(ffi_deep_values, typed_operator_chains_are_bounded_by_the_pipeline_depth) {
    sk_ffi_signature *map_sig = sig("i64(i64)");
    sk_pipe *pipe = NULL;
    sk_signal *signal = NULL;
    SK_OK_OR_FAIL(sk_pipe_create(&pipe, false));
    SK_OK_OR_FAIL(sk_pipe_signal(&signal, pipe));
    int released = 0;
    int built = 1;
    int status = SK_OK;
    while (built <= SK_SIGNAL_MAX_DEPTH && (status = map_once_more(&signal, map_sig, &released)) == SK_OK) {
        built++;
    }
    cr_assert_eq(built, SK_SIGNAL_MAX_DEPTH);
    cr_assert_eq(status, SK_ERR_INVALID_ARGUMENT);
    cr_assert_eq(released, 1, "the refused map's context was released %d times", released);
    char expected[160];
    snprintf(expected, sizeof expected, "sk_ffi_signal_map: the pipeline would be %d operators deep (the limit is SK_SIGNAL_MAX_DEPTH, %d)",
             SK_SIGNAL_MAX_DEPTH + 1, SK_SIGNAL_MAX_DEPTH);
    cr_assert_str_eq(sk_ffi_last_error_message(), expected);
    sk_signal_release(signal);
    sk_pipe_release(pipe);
    sk_ffi_signature_release(map_sig);
    cr_assert_eq(released, SK_SIGNAL_MAX_DEPTH);
    expect_no_ffi_live_objects();
}

/* A chain of typed maps as deep as SK_SIGNAL_MAX_DEPTH allows, ending in a
 * typed subscription, delivers on a thread with 384 KB of stack, well
 * within the 512 KB that include/signalkit.h says a pipeline at the limit
 * needs. Each map nests a frame of its own per value on the delivering
 * thread; before, each of those frames held the text buffers of a failure
 * (why[256], reason[160]) and the chain needed about 465 KB ("i64(i64)")
 * to 495 KB ("str(str)"), leaving almost no room for the callbacks; they
 * now live in functions called only when the value fails, and the chain
 * needs about 270 KB (found by an exploration of libsignalkit-ffi, measured
 * by bisecting the stack size). Under a sanitizer every frame is larger
 * and the bound does not apply: the test runs on a 4 MB stack there. */
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define DEEP_CHAIN_STACK_BYTES (4096 * 1024)
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer)
#define DEEP_CHAIN_STACK_BYTES (4096 * 1024)
#endif
#endif
#ifndef DEEP_CHAIN_STACK_BYTES
#define DEEP_CHAIN_STACK_BYTES (384 * 1024)
#endif

typedef struct {
    const char *map_text;  /* the maps' signature */
    const char *next_text; /* the typed subscription's next signature */
    int depth;             /* operators built, the pipe's signal included */
    long deliveries;
    int64_t delivered;
    char text_delivered[8];
} deep_chain;

static const char *same_text(const char *text) { return text; }

static void deep_next_i64(void *ctx, int64_t n) {
    deep_chain *c = ctx;
    c->delivered = n;
    c->deliveries++;
}

static void deep_next_str(void *ctx, const char *text) {
    deep_chain *c = ctx;
    snprintf(c->text_delivered, sizeof c->text_delivered, "%s", text);
    c->deliveries++;
}

static void *run_deep_chain(void *arg) {
    deep_chain *c = arg;
    bool strings = strstr(c->map_text, "str") != NULL;
    sk_ffi_signature *map_sig = sig(c->map_text);
    sk_ffi_signature *next_sig = sig(c->next_text);
    sk_pipe *pipe = NULL;
    sk_signal *signal = NULL;
    SK_OK_OR_ABORT(sk_pipe_create(&pipe, false));
    SK_OK_OR_ABORT(sk_pipe_signal(&signal, pipe));
    c->depth = 1;
    for (;;) {
        sk_signal *next = NULL;
        sk_ffi_fn fn = strings ? FN(same_text) : FN(plus_one);
        if (sk_ffi_signal_map(&next, signal, map_sig, fn, NULL, NULL) != SK_OK) {
            break;
        }
        sk_signal_release(signal);
        signal = next;
        c->depth++;
    }
    sk_ffi_observer o = {next_sig, strings ? FN(deep_next_str) : FN(deep_next_i64), NULL, NULL, NULL, NULL, c, NULL};
    sk_disposable *d = NULL;
    SK_OK_OR_ABORT(sk_ffi_signal_start(&d, signal, &o));
    sk_value v;
    if (strings) {
        SK_OK_OR_ABORT(sk_value_set_string(&v, "x"));
    } else {
        v = int_value(1);
    }
    SK_OK_OR_ABORT(sk_pipe_put(pipe, &v));
    sk_value_release(&v);
    sk_disposable_dispose(d);
    sk_disposable_release(d);
    sk_signal_release(signal);
    sk_pipe_release(pipe);
    sk_ffi_signature_release(map_sig);
    sk_ffi_signature_release(next_sig);
    return NULL;
}

static void check_deep_chain(deep_chain *c) {
    run_on_stack(DEEP_CHAIN_STACK_BYTES, run_deep_chain, c);
    cr_assert_eq(c->depth, SK_SIGNAL_MAX_DEPTH);
    cr_assert_eq(c->deliveries, 1);
}

Test(ffi_deep_values, typed_chains_at_the_depth_limit_deliver_on_a_small_stack) {
    deep_chain c;
    memset(&c, 0, sizeof c);
    c.map_text = "i64(i64)";
    c.next_text = "void(ctx,i64)";
    check_deep_chain(&c);
    cr_assert_eq(c.delivered, SK_SIGNAL_MAX_DEPTH);
    memset(&c, 0, sizeof c);
    c.map_text = "str(str)";
    c.next_text = "void(ctx,str)";
    check_deep_chain(&c);
    cr_assert_str_eq(c.text_delivered, "x");
    expect_no_ffi_live_objects();
}
