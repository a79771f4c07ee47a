/*
 * The shapes of SignalKit's operators, for the tests and programs that go
 * over every C operator of the operator table (tools/api/operators.md): the
 * kinds of argument an operator takes after `out` (tools/api/shapes.py
 * defines them and reads each operator's from its declaration), the
 * arguments of one call, and what operator_list.h (written by
 * tools/api/operators.py, `make api-update`) lists of each operator.
 *
 * A program fills an sk_test_args with its choice for every kind an
 * operator takes (sk_test_takes) and calls op->call, which passes them in
 * the C function's order: no program spells an operator's call. The marble
 * table's C runner, the shapes' C test, the abandonment sweep, the cost rows
 * of bench_capi, the API fuzzer (fuzz_operators.h) and the abandonment soak
 * do.
 */
#ifndef SIGNALKIT_TESTS_OPERATOR_SHAPES_H
#define SIGNALKIT_TESTS_OPERATOR_SHAPES_H

#include <stdbool.h>
#include <stddef.h>

#include <signalkit.h>

/* A kind of argument (tools/api/shapes.py, KINDS). */
typedef enum sk_test_kind {
    SK_ARG_NONE,        /* after an operator's last */
    SK_ARG_SOURCE,      /* sk_signal *: the upstream */
    SK_ARG_COUNT,       /* size_t: a count */
    SK_ARG_CONCURRENCY, /* size_t: inner signals at once (merge_map) */
    SK_ARG_RETRIES,     /* size_t: retries (retry_count) */
    SK_ARG_PREDICATE,   /* sk_predicate_fn */
    SK_ARG_MAP,         /* sk_map_fn */
    SK_ARG_VALUE,       /* const sk_value * */
    SK_ARG_INITIAL,     /* const sk_value *: a fold's initial value */
    SK_ARG_FOLD,        /* sk_reduce_fn */
    SK_ARG_OTHER,       /* sk_signal *: another signal */
    SK_ARG_SIGNALS,     /* sk_signal *const *, size_t */
    SK_ARG_SECONDS,     /* double */
    SK_ARG_MOST,        /* double: a longest delay (retry's) */
    SK_ARG_QUEUE,       /* sk_queue * */
    SK_ARG_MAYBE_QUEUE, /* sk_queue *, NULL allowed (combine_latest's) */
    SK_ARG_DELAY,       /* double: retry_count's delay, 0 for none */
    SK_ARG_DELAY_QUEUE, /* sk_queue *: its queue, NULL without a delay */
    SK_ARG_LOOK,        /* sk_value_fn: a side effect of the value */
    SK_ARG_WORK,        /* sk_work_fn: a side effect of no value */
    SK_ARG_INNER,       /* sk_signal_fn: a signal for a value (or an error) */
    SK_ARG_ACTION,      /* sk_take_until_fn */
    SK_ARG_MAKE,        /* sk_deferred_fn */
    SK_ARG_FLAG,        /* bool (take_while's inclusive) */
    SK_ARG_CTX,         /* void *ctx, sk_release_fn release: every function's of the call */
    SK_ARG_CAPACITY,    /* size_t: a bounded place's */
    SK_ARG_OVERFLOW,    /* sk_overflow */
    SK_ARG_ON_DROP      /* sk_drop_fn (its context: the call's ctx) */
} sk_test_kind;

/* The arguments of one call: each kind's field (signals: with its count,
 * ctx: with its release). Only the kinds the operator takes are read. */
typedef struct sk_test_args {
    sk_signal *source;
    size_t count, concurrency, retries;
    sk_predicate_fn predicate;
    sk_map_fn map;
    const sk_value *value, *initial;
    sk_reduce_fn fold;
    sk_signal *other;
    sk_signal *const *signals;
    size_t signal_count;
    double seconds, most, delay;
    sk_queue *queue, *maybe_queue, *delay_queue;
    sk_value_fn look;
    sk_work_fn work;
    sk_signal_fn inner;
    sk_take_until_fn action;
    sk_deferred_fn make;
    bool flag;
    void *ctx;
    sk_release_fn release;
    size_t capacity;
    sk_overflow overflow;
    sk_drop_fn on_drop;
} sk_test_args;

/* The conventions of the marble table an operator follows (its shape
 * column, after a comma). */
enum {
    SK_TEST_OF_SIGNALS = 1, /* its input is a signal of signals */
    SK_TEST_GROUPS = 2      /* its values are groups, [key, signal] */
};

#define SK_TEST_MAX_KINDS 8

typedef struct sk_test_operator {
    const char *name;                    /* the C function's */
    const char *shape;                   /* as the operator table writes it: "unary+bounded" */
    unsigned conventions;                /* SK_TEST_OF_SIGNALS, SK_TEST_GROUPS */
    sk_test_kind kinds[SK_TEST_MAX_KINDS]; /* what it takes after out, in order */
    int (*call)(sk_signal **out, const sk_test_args *args);
} sk_test_operator;

/* A name of the marble table: the operator it applies, the flag the name
 * sets (takeWhileInclusive) and the kinds an `op` line gives, in order
 * (the others are the case's: its queue; or none). */
typedef struct sk_test_marble {
    const char *name;
    const sk_test_operator *op;
    bool flag;
    sk_test_kind words[SK_TEST_MAX_KINDS];
} sk_test_marble;

/* Whether `op` takes an argument of `kind`. */
static inline bool sk_test_takes(const sk_test_operator *op, sk_test_kind kind) {
    for (size_t i = 0; i < SK_TEST_MAX_KINDS && op->kinds[i] != SK_ARG_NONE; i++) {
        if (op->kinds[i] == kind) {
            return true;
        }
    }
    return false;
}

#endif
