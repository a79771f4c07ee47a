/*
 * The shapes of SignalKit's operators, for the tests that go over every
 * operator of the operator table (tools/api/operators.md): what a C
 * function takes after `out`, read from its declaration (api.json) by
 * tools/api/operators.py, which writes the list of operators,
 * operator_list.h (`make api-update`). The marble table's C runner and the
 * abandonment sweep of test_limits.c apply each operator through its shape.
 */
#ifndef SIGNALKIT_TESTS_OPERATOR_SHAPES_H
#define SIGNALKIT_TESTS_OPERATOR_SHAPES_H

#include <signalkit.h>

typedef enum sk_test_shape {
    SHAPE_UNARY,     /* (out, signal) */
    SHAPE_COUNT,     /* (out, signal, size_t count) */
    SHAPE_PREDICATE, /* (out, signal, sk_predicate_fn, ctx, release) */
    SHAPE_MAP,       /* (out, signal, sk_map_fn, ctx, release) */
    SHAPE_VALUE,     /* (out, signal, const sk_value *) */
    SHAPE_SIGNAL,    /* (out, signal, sk_signal *other) */
    SHAPE_REDUCE,    /* (out, signal, const sk_value *initial, sk_reduce_fn, ctx, release) */
    SHAPE_SIGNALS,   /* (out, sk_signal *const *signals, size_t count) */
    SHAPE_TIME,      /* (out, signal, double seconds, sk_queue *) */
    SHAPE_ON,        /* (out, signal, sk_queue *) */
    SHAPE_TAP,       /* (out, signal, sk_value_fn, ctx, release) */
    SHAPE_WORK       /* (out, signal, sk_work_fn, ctx, release) */
} sk_test_shape;

typedef struct sk_test_operator {
    const char *name;   /* the C function's */
    const char *marble; /* its name in the marble table (Tests/marbles), or NULL */
    sk_test_shape shape;
    union {
        int (*unary)(sk_signal **, sk_signal *);
        int (*count)(sk_signal **, sk_signal *, size_t);
        int (*predicate)(sk_signal **, sk_signal *, sk_predicate_fn, void *, sk_release_fn);
        int (*map)(sk_signal **, sk_signal *, sk_map_fn, void *, sk_release_fn);
        int (*value)(sk_signal **, sk_signal *, const sk_value *);
        int (*signal)(sk_signal **, sk_signal *, sk_signal *);
        int (*reduce)(sk_signal **, sk_signal *, const sk_value *, sk_reduce_fn, void *, sk_release_fn);
        int (*signals)(sk_signal **, sk_signal *const *, size_t);
        int (*time)(sk_signal **, sk_signal *, double, sk_queue *);
        int (*on)(sk_signal **, sk_signal *, sk_queue *);
        int (*tap)(sk_signal **, sk_signal *, sk_value_fn, void *, sk_release_fn);
        int (*work)(sk_signal **, sk_signal *, sk_work_fn, void *, sk_release_fn);
    } fn;
} sk_test_operator;

#endif
