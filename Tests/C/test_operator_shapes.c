/* test_operator_shapes.c - every C operator of a standard shape
 * (Tests/common/operator_list.h, generated from the operator table by
 * `make api-update`) through its shape: its argument errors (a NULL out,
 * signal, callback, value, other signal or queue, and a handle of the wrong
 * kind each fail with a message, out set to NULL, a callback's release run
 * once) and one valid build, released with nothing left alive. With the
 * marble table's C runner (test_marble_table.c: its behaviour, when the
 * operator has a marble case) and the abandonment sweep (test_limits.c),
 * this is an operator's C test, so that a new operator of a standard shape
 * needs no hand-written one (tools/api/check.py counts the list as tested). */
#include <math.h>

#include "../common/operator_list.h"
#include "support.h"

static bool shape_predicate(void *ctx, const sk_value *value) {
    (void)ctx;
    (void)value;
    return true;
}

static void shape_map(void *ctx, const sk_value *value, sk_value *out) {
    (void)ctx;
    (void)value;
    sk_value_set_int64(out, 1);
}

static void shape_reduce(void *ctx, const sk_value *acc, const sk_value *value, sk_value *out) {
    (void)ctx;
    (void)acc;
    (void)value;
    sk_value_set_int64(out, 1);
}

static void shape_look(void *ctx, const sk_value *value) {
    (void)ctx;
    (void)value;
}

static void shape_work(void *ctx) {
    (void)ctx;
}

/* The arguments one call of an operator gets: `valid` ones but for the
 * mistake it makes. */
typedef struct shape_call {
    bool null_out;
    sk_signal *signal;
    bool with_callback;
    const sk_value *value;
    sk_signal *other;
    sk_queue *queue;
} shape_call;

/* Calls `op` through its shape with `c`'s arguments; a callback shape gets
 * `released` as its context and counter_hit as its release. */
static int call_shape(const sk_test_operator *op, const shape_call *c, sk_signal **out, counter *released) {
    sk_signal **o = c->null_out ? NULL : out;
    sk_signal *pair[2] = { c->signal, c->other };
    switch (op->shape) {
    case SHAPE_UNARY: return op->fn.unary(o, c->signal);
    case SHAPE_COUNT: return op->fn.count(o, c->signal, 2);
    case SHAPE_VALUE: return op->fn.value(o, c->signal, c->value);
    case SHAPE_SIGNAL: return op->fn.signal(o, c->signal, c->other);
    case SHAPE_SIGNALS: return op->fn.signals(o, c->signal == NULL ? NULL : pair, 2);
    case SHAPE_TIME: return op->fn.time(o, c->signal, 0.5, c->queue);
    case SHAPE_ON: return op->fn.on(o, c->signal, c->queue);
    case SHAPE_PREDICATE:
        return op->fn.predicate(o, c->signal, c->with_callback ? shape_predicate : NULL, released, counter_hit);
    case SHAPE_MAP: return op->fn.map(o, c->signal, c->with_callback ? shape_map : NULL, released, counter_hit);
    case SHAPE_REDUCE:
        return op->fn.reduce(o, c->signal, c->value, c->with_callback ? shape_reduce : NULL, released, counter_hit);
    case SHAPE_TAP: return op->fn.tap(o, c->signal, c->with_callback ? shape_look : NULL, released, counter_hit);
    case SHAPE_WORK: return op->fn.work(o, c->signal, c->with_callback ? shape_work : NULL, released, counter_hit);
    }
    cr_assert_fail("%s: shape %d unknown", op->name, (int)op->shape);
    return SK_ERR_INVALID_ARGUMENT;
}

static bool has_callback(sk_test_shape shape) {
    return shape == SHAPE_PREDICATE || shape == SHAPE_MAP || shape == SHAPE_REDUCE || shape == SHAPE_TAP ||
           shape == SHAPE_WORK;
}

/* One call that must fail with `expected`. */
static void expect_mistake(const sk_test_operator *op, const char *what, const shape_call *c, int expected,
                           counter *released) {
    sk_signal *out = (sk_signal *)&out;
    int before = counter_get(released);
    int status = call_shape(op, c, &out, released);
    cr_assert_eq(status, expected, "%s with %s returned %d (%s)", op->name, what, status, sk_last_error_message());
    cr_assert(strlen(sk_last_error_message()) > 0, "%s with %s: no error message", op->name, what);
    if (!c->null_out) {
        cr_assert_null(out, "%s with %s left out set", op->name, what);
    }
    int ran = counter_get(released) - before;
    cr_assert_eq(ran, has_callback(op->shape) ? 1 : 0, "%s with %s: the release ran %d times", op->name, what, ran);
}

Test(operator_shapes, every_operator_refuses_bad_arguments_and_builds, .timeout = SK_TEST_TIMEOUT) {
    bad_args args;
    bad_args_init(&args);
    sk_queue *queue = NULL;
    SK_OK_OR_FAIL(sk_queue_create_host(&queue, "shapes"));
    sk_value seven;
    sk_value_set_int64(&seven, 7);
    const shape_call valid = { false, args.never, true, &seven, args.never, queue };
    cr_assert_gt(SK_TEST_OPERATOR_COUNT, 40, "the operator list is short: %zu", (size_t)SK_TEST_OPERATOR_COUNT);
    for (size_t i = 0; i < SK_TEST_OPERATOR_COUNT; i++) {
        const sk_test_operator *op = &SK_TEST_OPERATORS[i];
        sk_test_shape shape = op->shape;
        shape_call c = valid;
        c.null_out = true;
        expect_mistake(op, "a NULL out", &c, SK_ERR_NULL_ARGUMENT, &args.released);
        c = valid;
        c.signal = NULL;
        expect_mistake(op, "a NULL signal", &c, SK_ERR_NULL_ARGUMENT, &args.released);
        c = valid;
        c.signal = args.not_signal;
        expect_mistake(op, "a non-signal", &c, SK_ERR_WRONG_KIND, &args.released);
        if (has_callback(shape)) {
            c = valid;
            c.with_callback = false;
            expect_mistake(op, "a NULL callback", &c, SK_ERR_NULL_ARGUMENT, &args.released);
        }
        if (shape == SHAPE_VALUE) {
            c = valid;
            c.value = NULL;
            expect_mistake(op, "a NULL value", &c, SK_ERR_NULL_ARGUMENT, &args.released);
        }
        if (shape == SHAPE_SIGNAL || shape == SHAPE_SIGNALS) {
            c = valid;
            c.other = shape == SHAPE_SIGNAL ? NULL : args.not_signal;
            expect_mistake(op, shape == SHAPE_SIGNAL ? "a NULL other signal" : "a non-signal second", &c,
                           shape == SHAPE_SIGNAL ? SK_ERR_NULL_ARGUMENT : SK_ERR_WRONG_KIND, &args.released);
        }
        if (shape == SHAPE_TIME || shape == SHAPE_ON) {
            c = valid;
            c.queue = NULL;
            expect_mistake(op, "a NULL queue", &c, SK_ERR_NULL_ARGUMENT, &args.released);
            c.queue = args.not_queue;
            expect_mistake(op, "a non-queue", &c, SK_ERR_WRONG_KIND, &args.released);
        }
        sk_signal *out = NULL;
        int before = counter_get(&args.released);
        int status = call_shape(op, &valid, &out, &args.released);
        cr_assert_eq(status, SK_OK, "%s returned %d (%s)", op->name, status, sk_last_error_message());
        cr_assert_not_null(out, "%s made no signal", op->name);
        sk_signal_release(out);
        cr_assert_eq(counter_get(&args.released) - before, has_callback(shape) ? 1 : 0,
                     "%s: its release did not run once with its signal", op->name);
    }
    sk_queue_release(queue);
    bad_args_destroy(&args);
    expect_no_live_objects(0);
}
