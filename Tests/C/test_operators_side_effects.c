/* test_operators_side_effects.c - before-next, after-next, before-started,
 * before-completed, after-completed and after-disposed (the C layer's
 * Operators_SideEffects.swift): when each callback runs relative to the
 * events delivered (one shared trace), on which thread, how often, its
 * release, disposal, and argument errors. */

#include "support.h"

/* ------------------------------------------------------------------------ */
/* Helpers                                                                  */
/* ------------------------------------------------------------------------ */

/* A side effect's context. Its callbacks and the recorder's hooks append to
 * one trace: 'v' value effect, 'w' work effect, 'S' upstream started, 'N'
 * next delivered, 'E' error delivered, 'C' completion delivered. */
typedef struct effect {
    pthread_mutex_t mutex;
    char_log trace;
    int64_t values[16];
    size_t value_count;
    pthread_t thread;     /* of the latest effect call */
    counter *observed; /* optional: its count is read at each effect call */
    int observed_at_call;
    counter calls;
    counter released;
} effect;

static void effect_init(effect *e) {
    memset(e, 0, sizeof *e);
    pthread_mutex_init(&e->mutex, NULL);
    char_log_init(&e->trace);
    e->observed_at_call = -1;
    counters_init(2, &e->calls, &e->released);
}

static void effect_destroy(effect *e) {
    counters_destroy(2, &e->calls, &e->released);
    char_log_destroy(&e->trace);
    pthread_mutex_destroy(&e->mutex);
}

static void trace_add(effect *e, char c) {
    char_log_append(&e->trace, c);
}

static void expect_trace(effect *e, const char *expected) {
    char_log_expect(&e->trace, expected, "trace");
}

static void effect_called(effect *e, char c) {
    pthread_mutex_lock(&e->mutex);
    e->thread = pthread_self();
    if (e->observed != NULL) {
        e->observed_at_call = counter_get(e->observed);
    }
    pthread_mutex_unlock(&e->mutex);
    trace_add(e, c);
    counter_hit(&e->calls);
}

static void value_effect(void *ctx, const sk_value *value) {
    effect *e = ctx;
    int64_t n = INT64_MIN;
    sk_value_get_int64(value, &n);
    pthread_mutex_lock(&e->mutex);
    if (e->value_count < 16) {
        e->values[e->value_count++] = n;
    }
    pthread_mutex_unlock(&e->mutex);
    effect_called(e, 'v');
}

static void work_effect(void *ctx) {
    effect_called(ctx, 'w');
}

static void effect_release(void *ctx) {
    counter_hit(&((effect *)ctx)->released);
}

static void hook_next(recorder *r, const sk_value *value) {
    (void)value;
    trace_add(r->user, 'N');
}

static void hook_error(recorder *r, const sk_value *value) {
    (void)value;
    trace_add(r->user, 'E');
}

static void hook_completed(recorder *r, const sk_value *value) {
    (void)value;
    trace_add(r->user, 'C');
}

/* Makes `r` (initialised, not started) trace its events into `e`. */
static void trace_events(recorder *r, effect *e) {
    r->user = e;
    r->on_next = hook_next;
    r->on_error = hook_error;
    r->on_completed = hook_completed;
}

/* Starts `signal` into `r`, whose events are traced into `e`. */
static sk_disposable *start_traced(recorder *r, effect *e, sk_signal *signal) {
    recorder_init(r);
    trace_events(r, e);
    sk_observer observer = recorder_observer(r);
    sk_disposable *d = NULL;
    SK_OK_OR_FAIL(sk_signal_start(&d, signal, &observer));
    return d;
}

/* The six side-effect operators, by index. */
enum { BEFORE_NEXT, AFTER_NEXT, BEFORE_STARTED, BEFORE_COMPLETED, AFTER_COMPLETED, AFTER_DISPOSED, EFFECT_COUNT };

static const char *const effect_names[EFFECT_COUNT] = {
    "before_next", "after_next", "before_started", "before_completed", "after_completed", "after_disposed",
};

static int call_effect(int which, sk_signal **out, sk_signal *signal, bool with_fn, void *ctx, sk_release_fn release) {
    switch (which) {
    case BEFORE_NEXT: return sk_signal_before_next(out, signal, with_fn ? value_effect : NULL, ctx, release);
    case AFTER_NEXT: return sk_signal_after_next(out, signal, with_fn ? value_effect : NULL, ctx, release);
    case BEFORE_STARTED: return sk_signal_before_started(out, signal, with_fn ? work_effect : NULL, ctx, release);
    case BEFORE_COMPLETED: return sk_signal_before_completed(out, signal, with_fn ? work_effect : NULL, ctx, release);
    case AFTER_COMPLETED: return sk_signal_after_completed(out, signal, with_fn ? work_effect : NULL, ctx, release);
    default: return sk_signal_after_disposed(out, signal, with_fn ? work_effect : NULL, ctx, release);
    }
}

static sk_signal *effect_signal(int which, sk_signal *source, effect *e) {
    sk_signal *out = NULL;
    SK_OK_OR_FAIL(call_effect(which, &out, source, true, e, effect_release));
    return out;
}

/* A source that traces 'S' into its effect when started, then emits 1 and 2
 * and completes. */
static sk_disposable *traced_generator(void *ctx, sk_subscriber *subscriber) {
    trace_add(ctx, 'S');
    for (int64_t i = 1; i <= 2; i++) {
        sk_value v = int_value(i);
        SK_OK_OR_ABORT(sk_subscriber_put_next(subscriber, &v));
    }
    SK_OK_OR_ABORT(sk_subscriber_put_completion(subscriber));
    return NULL;
}

static sk_signal *traced_source(effect *e) {
    sk_signal *signal = new_signal(traced_generator, e, NULL);
    return signal;
}

/* Sets up a pipeline (support.h) whose operator is the side effect `which`
 * over the pipeline's manual upstream, with `e` (initialised here) as the
 * effect's context; the caller may set e->observed and the recorder's hooks,
 * then calls pipeline_start. effect_pipeline_finish releases both. */
static void effect_pipeline_init(pipeline *p, effect *e, int which) {
    pipeline_init(p);
    effect_init(e);
    p->op = effect_signal(which, p->upstream, e);
}

static void effect_pipeline_finish(pipeline *p, effect *e) {
    pipeline_finish(p);
    effect_destroy(e);
}

/* Runs operator `which` over the traced source and checks the trace. */
static void expect_effect_trace(int which, const char *expected, int calls) {
    effect e;
    effect_init(&e);
    sk_signal *source = traced_source(&e);
    sk_signal *op = effect_signal(which, source, &e);
    recorder r;
    sk_disposable *d = start_traced(&r, &e, op);
    expect_trace(&e, expected);
    cr_assert_eq(counter_get(&e.calls), calls, "%s: %d calls", effect_names[which], counter_get(&e.calls));
    cr_assert(pthread_equal(e.thread, pthread_self()) || calls == 0, "%s: not on the emitting thread", effect_names[which]);
    const int64_t values[] = { 1, 2 };
    recorder_expect(&r, "nncr", values, 2);
    recorder_finish(&r, d);
    cr_assert_eq(counter_get(&e.released), 0);
    sk_signal_release(op);
    cr_assert_eq(counter_get(&e.released), 1, "%s: release ran %d times", effect_names[which], counter_get(&e.released));
    sk_signal_release(source);
    effect_destroy(&e);
}

/* ------------------------------------------------------------------------ */
/* Order of the effects                                                     */
/* ------------------------------------------------------------------------ */

/* One test per operator, a row each: the operator, the trace the traced
 * source's run must leave, how many times the effect runs. Failure messages
 * name the operator (expect_effect_trace) and the harness the test. */
#define EFFECT_TRACE_TEST(name, which, trace, calls)                                  \
    Test(operators_side_effects, name, .timeout = SK_TEST_TIMEOUT) {                  \
        expect_effect_trace(which, trace, calls);                                     \
        expect_no_live_objects(0);                                                    \
    }

EFFECT_TRACE_TEST(before_next_runs_before_each_delivery, BEFORE_NEXT, "SvNvNC", 2)
EFFECT_TRACE_TEST(after_next_runs_after_each_delivery, AFTER_NEXT, "SNvNvC", 2)
EFFECT_TRACE_TEST(before_started_runs_before_the_upstream_starts, BEFORE_STARTED, "wSNNC", 1)
EFFECT_TRACE_TEST(before_completed_runs_before_the_completion, BEFORE_COMPLETED, "SNNwC", 1)
EFFECT_TRACE_TEST(after_completed_runs_after_the_completion, AFTER_COMPLETED, "SNNCw", 1)
/* A signal terminating synchronously inside its start ends its subscription
 * before sk_signal_start returns: after_disposed has run by then. */
EFFECT_TRACE_TEST(after_disposed_runs_after_a_synchronous_completion, AFTER_DISPOSED, "SNNCw", 1)

Test(operators_side_effects, value_effects_see_each_value, .timeout = SK_TEST_TIMEOUT) {
    for (int which = BEFORE_NEXT; which <= AFTER_NEXT; which++) {
        const int64_t input[] = { 5, -6, 7 };
        sk_signal *ints = ints_signal(input, 3);
        effect e;
        effect_init(&e);
        sk_signal *op = effect_signal(which, ints, &e);
        recorder r;
        sk_disposable *d = recorder_start(&r, op);
        recorder_expect(&r, "nnncr", input, 3);
        cr_assert_eq(e.value_count, 3);
        cr_assert_arr_eq(e.values, input, sizeof input);
        recorder_finish(&r, d);
        sk_signal_release(op);
        sk_signal_release(ints);
        effect_destroy(&e);
    }
    expect_no_live_objects(0);
}

/* after_next still runs when the delivery ended the subscription; values
 * after that are neither delivered nor seen. (A source emitting synchronously
 * inside its start cannot be disposed before the start returns, so its later
 * values would still reach after_next: an asynchronous source here.) */
Test(operators_side_effects, after_next_runs_when_the_delivery_ended_the_subscription, .timeout = SK_TEST_TIMEOUT) {
    manual_source s;
    sk_signal *source = manual_init_signal(&s);
    effect e;
    effect_init(&e);
    sk_signal *op = effect_signal(AFTER_NEXT, source, &e);
    sk_signal *first = NULL;
    SK_OK_OR_FAIL(sk_signal_take(&first, op, 1));
    recorder r;
    sk_disposable *d = start_traced(&r, &e, first);
    subscriber_put_int(manual_subscriber(&s, 0), 1);
    expect_trace(&e, "NCv");
    cr_assert_eq(counter_get(&s.disposed), 1);
    subscriber_put_int(manual_subscriber(&s, 0), 2);
    expect_trace(&e, "NCv");
    recorder_expect_one(&r, "ncr", 1);
    recorder_finish(&r, d);
    sk_signal_release(first);
    sk_signal_release(op);
    sk_signal_release(source);
    cr_assert_eq(counter_get(&e.released), 1);
    manual_destroy(&s);
    effect_destroy(&e);
    expect_no_live_objects(0);
}

Test(operators_side_effects, before_started_runs_at_each_start, .timeout = SK_TEST_TIMEOUT) {
    pipeline p;
    effect e;
    effect_pipeline_init(&p, &e, BEFORE_STARTED);
    e.observed = &p.source.starts;
    pipeline_start(&p);
    cr_assert_eq(e.observed_at_call, 0, "called after the upstream started");
    recorder r2;
    sk_disposable *d2 = recorder_start(&r2, p.op);
    cr_assert_eq(e.observed_at_call, 1);
    cr_assert_eq(counter_get(&e.calls), 2);
    cr_assert_eq(counter_get(&p.source.starts), 2);
    recorder_finish(&r2, d2);
    effect_pipeline_finish(&p, &e);
    expect_no_live_objects(0);
}

/* ------------------------------------------------------------------------ */
/* Errors and disposal skip the completion effects                          */
/* ------------------------------------------------------------------------ */

Test(operators_side_effects, completion_effects_skip_errors_and_disposal, .timeout = SK_TEST_TIMEOUT) {
    for (int which = BEFORE_COMPLETED; which <= AFTER_COMPLETED; which++) {
        for (int ending = 0; ending < 2; ending++) { /* 0: error, 1: dispose */
            pipeline p;
            effect e;
            effect_pipeline_init(&p, &e, which);
            trace_events(&p.r, &e);
            pipeline_start(&p);
            subscriber_put_int(pipeline_subscriber(&p), 1);
            if (ending == 0) {
                sk_value error = int_value(-1);
                SK_OK_OR_FAIL(sk_subscriber_put_error(pipeline_subscriber(&p), &error));
                expect_trace(&e, "NE");
            } else {
                sk_disposable_dispose(p.d);
                SK_OK_OR_FAIL(sk_subscriber_put_completion(pipeline_subscriber(&p)));
                expect_trace(&e, "N");
            }
            cr_assert_eq(counter_get(&e.calls), 0, "%s called (ending %d)", effect_names[which], ending);
            pipeline_finish(&p);
            cr_assert_eq(counter_get(&e.released), 1);
            effect_destroy(&e);
        }
    }
    expect_no_live_objects(0);
}

Test(operators_side_effects, after_disposed_runs_once_per_subscription, .timeout = SK_TEST_TIMEOUT) {
    for (int ending = 0; ending < 3; ending++) { /* 0: dispose, 1: error, 2: completion */
        pipeline p;
        effect e;
        effect_pipeline_init(&p, &e, AFTER_DISPOSED);
        e.observed = &p.source.disposed;
        trace_events(&p.r, &e);
        pipeline_start(&p);
        sk_subscriber *upstream = pipeline_subscriber(&p);
        subscriber_put_int(upstream, 1);
        expect_trace(&e, "N");
        sk_value error = int_value(-1);
        switch (ending) {
        case 0: sk_disposable_dispose(p.d); expect_trace(&e, "Nw"); break;
        case 1: SK_OK_OR_FAIL(sk_subscriber_put_error(upstream, &error)); expect_trace(&e, "NEw"); break;
        default: SK_OK_OR_FAIL(sk_subscriber_put_completion(upstream)); expect_trace(&e, "NCw"); break;
        }
        /* In every case, after the upstream's disposal. */
        cr_assert_eq(e.observed_at_call, 1, "ending %d: upstream disposals at the call", ending);
        cr_assert_eq(counter_get(&p.source.disposed), 1);
        cr_assert(pthread_equal(e.thread, pthread_self()));
        /* Disposing again (and releasing) does not call it again. */
        sk_disposable_dispose(p.d);
        cr_assert_eq(counter_get(&e.calls), 1, "ending %d: %d calls", ending, counter_get(&e.calls));
        pipeline_finish(&p);
        cr_assert_eq(counter_get(&e.calls), 1);
        cr_assert_eq(counter_get(&e.released), 1);
        effect_destroy(&e);
    }
    expect_no_live_objects(0);
}

/* ------------------------------------------------------------------------ */
/* Threads                                                                  */
/* ------------------------------------------------------------------------ */

typedef struct emitter {
    sk_subscriber *subscriber;
    pthread_t thread;
} emitter;

static void *emit_and_complete(void *arg) {
    emitter *em = arg;
    em->thread = pthread_self();
    sk_value v = int_value(1);
    SK_OK_OR_ABORT(sk_subscriber_put_next(em->subscriber, &v));
    SK_OK_OR_ABORT(sk_subscriber_put_completion(em->subscriber));
    return NULL;
}

Test(operators_side_effects, effects_run_on_the_emitting_thread, .timeout = SK_TEST_TIMEOUT) {
    const int which_ones[] = { BEFORE_NEXT, AFTER_NEXT, BEFORE_COMPLETED, AFTER_COMPLETED, AFTER_DISPOSED };
    for (size_t i = 0; i < sizeof which_ones / sizeof which_ones[0]; i++) {
        int which = which_ones[i];
        pipeline p;
        effect e;
        effect_pipeline_init(&p, &e, which);
        pipeline_start(&p);
        emitter em = { pipeline_subscriber(&p), pthread_self() };
        pthread_t thread;
        cr_assert_eq(pthread_create(&thread, NULL, emit_and_complete, &em), 0);
        cr_assert_eq(pthread_join(thread, NULL), 0);
        cr_assert_eq(counter_get(&e.calls), 1, "%s: %d calls", effect_names[which], counter_get(&e.calls));
        cr_assert(pthread_equal(e.thread, em.thread), "%s: not on the emitting thread", effect_names[which]);
        recorder_expect(&p.r, "ncr", NULL, 0);
        effect_pipeline_finish(&p, &e);
    }
    expect_no_live_objects(0);
}

/* ------------------------------------------------------------------------ */
/* Disposal and releases                                                    */
/* ------------------------------------------------------------------------ */

Test(operators_side_effects, disposal_stops_and_disposes_upstream, .timeout = SK_TEST_TIMEOUT) {
    for (int which = 0; which < EFFECT_COUNT; which++) {
        pipeline p;
        effect e;
        effect_pipeline_init(&p, &e, which);
        pipeline_start(&p);
        /* The signals go first: pipeline_finish releases nothing more. */
        sk_signal_release(p.op);
        sk_signal_release(p.upstream);
        p.op = p.upstream = NULL;
        /* before_started never calls fn once the start has returned: its
         * release may (and does) run as soon as the signal is gone. */
        int released_early = which == BEFORE_STARTED ? 1 : 0;
        cr_assert_eq(counter_get(&e.released), released_early, "%s: released while subscribed", effect_names[which]);
        sk_disposable_dispose(p.d);
        cr_assert_eq(counter_get(&p.source.disposed), 1, "%s: upstream not disposed", effect_names[which]);
        /* The source still holds its subscriber: the subscription let go of
         * the callback anyway. */
        cr_assert_eq(counter_get(&e.released), 1, "%s: release ran %d times", effect_names[which], counter_get(&e.released));
        subscriber_put_int(pipeline_subscriber(&p), 1);
        SK_OK_OR_FAIL(sk_subscriber_put_completion(pipeline_subscriber(&p)));
        recorder_expect(&p.r, "r", NULL, 0);
        int expected_calls = which == BEFORE_STARTED || which == AFTER_DISPOSED ? 1 : 0;
        cr_assert_eq(counter_get(&e.calls), expected_calls, "%s: %d calls", effect_names[which], counter_get(&e.calls));
        effect_pipeline_finish(&p, &e);
    }
    expect_no_live_objects(0);
}

Test(operators_side_effects, release_when_the_signal_is_never_started, .timeout = SK_TEST_TIMEOUT) {
    sk_signal *never = made_signal(sk_signal_never);
    for (int which = 0; which < EFFECT_COUNT; which++) {
        effect e;
        effect_init(&e);
        sk_signal *op = effect_signal(which, never, &e);
        sk_signal *derived = NULL;
        SK_OK_OR_FAIL(sk_signal_take(&derived, op, 1));
        sk_signal_release(op);
        cr_assert_eq(counter_get(&e.released), 0, "%s: released while a derived signal holds it", effect_names[which]);
        sk_signal_release(derived);
        cr_assert_eq(counter_get(&e.released), 1, "%s: release ran %d times", effect_names[which], counter_get(&e.released));
        cr_assert_eq(counter_get(&e.calls), 0);
        effect_destroy(&e);
    }
    sk_signal_release(never);
    expect_no_live_objects(0);
}

Test(operators_side_effects, argument_errors_run_release_once, .timeout = SK_TEST_TIMEOUT) {
    sk_signal *never = made_signal(sk_signal_never);
    sk_pipe *pipe = NULL;
    SK_OK_OR_FAIL(sk_pipe_create(&pipe, false));
    for (int which = 0; which < EFFECT_COUNT; which++) {
        struct {
            bool null_out;
            sk_signal *signal;
            bool with_fn;
            int expected;
        } cases[] = {
            { true, never, true, SK_ERR_NULL_ARGUMENT },
            { false, NULL, true, SK_ERR_NULL_ARGUMENT },
            { false, never, false, SK_ERR_NULL_ARGUMENT },
            { false, (sk_signal *)(void *)pipe, true, SK_ERR_WRONG_KIND },
            { true, NULL, false, SK_ERR_NULL_ARGUMENT },
        };
        for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
            counter released;
            counter_init(&released);
            sk_signal *out = (sk_signal *)&out;
            int status = call_effect(which, cases[c].null_out ? NULL : &out, cases[c].signal, cases[c].with_fn, &released,
                                     counter_hit);
            cr_assert_eq(status, cases[c].expected, "%s case %zu: %d", effect_names[which], c, status);
            cr_assert(strstr(sk_last_error_message(), effect_names[which]) != NULL, "%s case %zu: message \"%s\"",
                      effect_names[which], c, sk_last_error_message());
            cr_assert_eq(counter_get(&released), 1, "%s case %zu: release ran %d times", effect_names[which], c,
                         counter_get(&released));
            if (!cases[c].null_out) {
                cr_assert_null(out, "%s case %zu: out not NULL", effect_names[which], c);
            }
            counter_destroy(&released);
        }
    }
    sk_pipe_release(pipe);
    sk_signal_release(never);
    expect_no_live_objects(0);
}
