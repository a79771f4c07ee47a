/* test_operator_shapes.c - every C operator of the operator table
 * (Tests/common/operator_list.h, generated from the table and the C
 * declarations by `make api-update`) through its shape: its argument errors
 * (a NULL out; for each kind it takes a NULL or a handle of the wrong kind,
 * a NULL function, a capacity of 0, a policy that is none, a delay without
 * its queue: each fails with a message, out set to NULL, a callback's
 * release run once) and one valid build, released with nothing left alive.
 * With the marble table's C runner (test_marble_table.c: its behaviour,
 * when the operator has a marble case) and the abandonment sweep
 * (test_limits.c), this is an operator's C test, so that a new operator
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

static sk_signal *shape_inner(void *ctx, const sk_value *value) {
    (void)ctx;
    (void)value;
    return NULL;
}

static int shape_action(void *ctx, const sk_value *value) {
    (void)ctx;
    (void)value;
    return SK_TAKE_PASS;
}

static sk_signal *shape_make(void *ctx) {
    (void)ctx;
    return NULL;
}

static void shape_drop(void *ctx, const sk_value *value, uint64_t dropped) {
    (void)ctx;
    (void)value;
    (void)dropped;
}

/* One call of `op` with `a` (out NULL when `null_out`): its status. */
static int call(const sk_test_operator *op, const sk_test_args *a, bool null_out, sk_signal **out) {
    return op->call(null_out ? NULL : out, a);
}

/* One call that must fail with `expected`, its release run once if it
 * takes one. */
static void expect_mistake(const sk_test_operator *op, const char *what, const sk_test_args *a, bool null_out,
                           int expected, counter *released) {
    sk_signal *out = (sk_signal *)&out;
    int before = counter_get(released);
    int status = call(op, a, null_out, &out);
    cr_assert_eq(status, expected, "%s with %s returned %d (%s)", op->name, what, status, sk_last_error_message());
    cr_assert(strlen(sk_last_error_message()) > 0, "%s with %s: no error message", op->name, what);
    if (!null_out) {
        cr_assert_null(out, "%s with %s left out set", op->name, what);
    }
    int ran = counter_get(released) - before;
    cr_assert_eq(ran, sk_test_takes(op, SK_ARG_CTX) ? 1 : 0, "%s with %s: the release ran %d times", op->name, what,
                 ran);
}

/* The mistakes one kind of argument can be: for each, the arguments
 * `valid` but for it, and the error it must give. */
static void expect_mistakes_of(const sk_test_operator *op, sk_test_kind kind, const sk_test_args *valid,
                               bad_args *args) {
    sk_test_args a = *valid;
    sk_signal *wrong_pair[2] = {args->never, args->not_signal};
    counter *released = &args->released;
    switch (kind) {
    case SK_ARG_SOURCE:
        a.source = NULL;
        expect_mistake(op, "a NULL signal", &a, false, SK_ERR_NULL_ARGUMENT, released);
        a.source = args->not_signal;
        expect_mistake(op, "a non-signal", &a, false, SK_ERR_WRONG_KIND, released);
        break;
    case SK_ARG_OTHER:
        a.other = NULL;
        expect_mistake(op, "a NULL other signal", &a, false, SK_ERR_NULL_ARGUMENT, released);
        a.other = args->not_signal;
        expect_mistake(op, "a non-signal other", &a, false, SK_ERR_WRONG_KIND, released);
        break;
    case SK_ARG_SIGNALS:
        a.signals = NULL;
        expect_mistake(op, "a NULL array of signals", &a, false, SK_ERR_NULL_ARGUMENT, released);
        a.signals = wrong_pair;
        expect_mistake(op, "a non-signal second", &a, false, SK_ERR_WRONG_KIND, released);
        break;
    case SK_ARG_PREDICATE: a.predicate = NULL; break;
    case SK_ARG_MAP: a.map = NULL; break;
    case SK_ARG_FOLD: a.fold = NULL; break;
    case SK_ARG_LOOK: a.look = NULL; break;
    case SK_ARG_WORK: a.work = NULL; break;
    case SK_ARG_INNER: a.inner = NULL; break;
    case SK_ARG_ACTION: a.action = NULL; break;
    case SK_ARG_MAKE: a.make = NULL; break;
    case SK_ARG_VALUE:
    case SK_ARG_INITIAL:
        a.value = a.initial = NULL;
        expect_mistake(op, "a NULL value", &a, false, SK_ERR_NULL_ARGUMENT, released);
        break;
    case SK_ARG_QUEUE:
        a.queue = NULL;
        expect_mistake(op, "a NULL queue", &a, false, SK_ERR_NULL_ARGUMENT, released);
        a.queue = args->not_queue;
        expect_mistake(op, "a non-queue", &a, false, SK_ERR_WRONG_KIND, released);
        break;
    case SK_ARG_MAYBE_QUEUE: /* NULL allowed */
        a.maybe_queue = args->not_queue;
        expect_mistake(op, "a non-queue", &a, false, SK_ERR_WRONG_KIND, released);
        break;
    case SK_ARG_DELAY_QUEUE: /* NULL only without a delay */
        a.delay = 0.5;
        a.delay_queue = NULL;
        expect_mistake(op, "a delay and no queue", &a, false, SK_ERR_NULL_ARGUMENT, released);
        a.delay_queue = args->not_queue;
        expect_mistake(op, "a non-queue", &a, false, SK_ERR_WRONG_KIND, released);
        break;
    case SK_ARG_CAPACITY:
        a.capacity = 0;
        expect_mistake(op, "a capacity of 0", &a, false, SK_ERR_INVALID_ARGUMENT, released);
        break;
    case SK_ARG_OVERFLOW:
        a.overflow = (sk_overflow)99;
        expect_mistake(op, "a policy that is none", &a, false, SK_ERR_INVALID_ARGUMENT, released);
        break;
    default:
        return; /* no mistake of its own: a count, seconds, a flag, ctx, on_drop */
    }
    if (kind == SK_ARG_PREDICATE || kind == SK_ARG_MAP || kind == SK_ARG_FOLD || kind == SK_ARG_LOOK ||
        kind == SK_ARG_WORK || kind == SK_ARG_INNER || kind == SK_ARG_ACTION || kind == SK_ARG_MAKE) {
        expect_mistake(op, "a NULL callback", &a, false, SK_ERR_NULL_ARGUMENT, released);
    }
}

Test(operator_shapes, every_operator_refuses_bad_arguments_and_builds, .timeout = SK_TEST_TIMEOUT) {
    bad_args args;
    bad_args_init(&args);
    sk_queue *queue = NULL;
    SK_OK_OR_FAIL(sk_queue_create_host(&queue, "shapes"));
    sk_value seven;
    sk_value_set_int64(&seven, 7);
    sk_signal *pair[2] = {args.never, args.never};
    sk_test_args valid = {
        .source = args.never, .count = 2, .concurrency = 2, .retries = 2, .predicate = shape_predicate,
        .map = shape_map, .value = &seven, .initial = &seven, .fold = shape_reduce, .other = args.never,
        .signals = pair, .signal_count = 2, .seconds = 0.5, .most = 1.0, .delay = 0.0, .queue = queue,
        .maybe_queue = NULL, .delay_queue = NULL, .look = shape_look, .work = shape_work, .inner = shape_inner,
        .action = shape_action, .make = shape_make, .flag = false, .ctx = &args.released, .release = counter_hit,
        .capacity = 2, .overflow = SK_OVERFLOW_DROP_NEWEST, .on_drop = shape_drop,
    };
    cr_assert_gt(SK_TEST_OPERATOR_COUNT, 40, "the operator list is short: %zu", (size_t)SK_TEST_OPERATOR_COUNT);
    for (size_t i = 0; i < SK_TEST_OPERATOR_COUNT; i++) {
        const sk_test_operator *op = &SK_TEST_OPERATORS[i];
        expect_mistake(op, "a NULL out", &valid, true, SK_ERR_NULL_ARGUMENT, &args.released);
        for (size_t k = 0; k < SK_TEST_MAX_KINDS && op->kinds[k] != SK_ARG_NONE; k++) {
            expect_mistakes_of(op, op->kinds[k], &valid, &args);
        }
        sk_signal *out = NULL;
        int before = counter_get(&args.released);
        int status = call(op, &valid, false, &out);
        cr_assert_eq(status, SK_OK, "%s returned %d (%s)", op->name, status, sk_last_error_message());
        cr_assert_not_null(out, "%s made no signal", op->name);
        sk_signal_release(out);
        cr_assert_eq(counter_get(&args.released) - before, sk_test_takes(op, SK_ARG_CTX) ? 1 : 0,
                     "%s: its release did not run once with its signal", op->name);
    }
    sk_queue_release(queue);
    bad_args_destroy(&args);
    expect_no_live_objects(0);
}
