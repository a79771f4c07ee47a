/* GENERATED FILE, DO NOT EDIT: written by tools/api/operators.py from
 * tools/api/operators.md (`make api-update`). The API fuzzer's operators
 * of a standard shape (operator_shapes.h), each at its slot: the value of
 * the operator byte that applies it (Tests/fuzz/fuzz_api.c, apply_operator).
 * A slot, once given, is kept (api-update reads this file back), and a new
 * operator takes the next after every slot in use (at least 64), so that
 * an input of the corpus keeps its meaning when operators are added.
 * `positive`: its count is at least 1, or its time at least 0.25 s. */
#ifndef SIGNALKIT_TESTS_FUZZ_OPERATORS_H
#define SIGNALKIT_TESTS_FUZZ_OPERATORS_H

#include <stdbool.h>

#include "operator_shapes.h"

typedef struct fuzz_operator {
    sk_test_operator op;
    bool positive;
} fuzz_operator;

static const fuzz_operator FUZZ_OPERATORS[256] = {
    [0] = {{"sk_signal_map", NULL, SHAPE_MAP, {.map = sk_signal_map}}, false},
    [1] = {{"sk_signal_filter", NULL, SHAPE_PREDICATE, {.predicate = sk_signal_filter}}, false},
    [2] = {{"sk_signal_distinct_until_changed", NULL, SHAPE_UNARY, {.unary = sk_signal_distinct_until_changed}}, false},
    [3] = {{"sk_signal_take", NULL, SHAPE_COUNT, {.count = sk_signal_take}}, false},
    [5] = {{"sk_signal_last", NULL, SHAPE_UNARY, {.unary = sk_signal_last}}, false},
    [6] = {{"sk_signal_ignore_values", NULL, SHAPE_UNARY, {.unary = sk_signal_ignore_values}}, false},
    [7] = {{"sk_signal_then", NULL, SHAPE_SIGNAL, {.signal = sk_signal_then}}, false},
    [10] = {{"sk_signal_switch_to_latest", NULL, SHAPE_UNARY, {.unary = sk_signal_switch_to_latest}}, false},
    [11] = {{"sk_signal_queue", NULL, SHAPE_UNARY, {.unary = sk_signal_queue}}, false},
    [12] = {{"sk_signal_throttled", NULL, SHAPE_UNARY, {.unary = sk_signal_throttled}}, false},
    [13] = {{"sk_signal_reduce_left", NULL, SHAPE_REDUCE, {.reduce = sk_signal_reduce_left}}, false},
    [14] = {{"sk_signal_deliver_on", NULL, SHAPE_ON, {.on = sk_signal_deliver_on}}, false},
    [15] = {{"sk_signal_run_on", NULL, SHAPE_ON, {.on = sk_signal_run_on}}, false},
    [16] = {{"sk_signal_before_next", NULL, SHAPE_TAP, {.tap = sk_signal_before_next}}, false},
    [17] = {{"sk_signal_after_next", NULL, SHAPE_TAP, {.tap = sk_signal_after_next}}, false},
    [18] = {{"sk_signal_after_disposed", NULL, SHAPE_WORK, {.work = sk_signal_after_disposed}}, false},
    [19] = {{"sk_signal_before_started", NULL, SHAPE_WORK, {.work = sk_signal_before_started}}, false},
    [21] = {{"sk_signal_merge", NULL, SHAPE_SIGNALS, {.signals = sk_signal_merge}}, false},
    [22] = {{"sk_signal_scan", NULL, SHAPE_REDUCE, {.reduce = sk_signal_scan}}, false},
    [23] = {{"sk_signal_skip", NULL, SHAPE_COUNT, {.count = sk_signal_skip}}, false},
    [24] = {{"sk_signal_skip_while", NULL, SHAPE_PREDICATE, {.predicate = sk_signal_skip_while}}, false},
    [26] = {{"sk_signal_start_with", NULL, SHAPE_VALUE, {.value = sk_signal_start_with}}, false},
    [27] = {{"sk_signal_pairwise", NULL, SHAPE_UNARY, {.unary = sk_signal_pairwise}}, false},
    [28] = {{"sk_signal_first", NULL, SHAPE_UNARY, {.unary = sk_signal_first}}, false},
    [29] = {{"sk_signal_element_at", NULL, SHAPE_COUNT, {.count = sk_signal_element_at}}, false},
    [30] = {{"sk_signal_default_if_empty", NULL, SHAPE_VALUE, {.value = sk_signal_default_if_empty}}, false},
    [32] = {{"sk_signal_share", NULL, SHAPE_UNARY, {.unary = sk_signal_share}}, false},
    [33] = {{"sk_signal_replay", NULL, SHAPE_COUNT, {.count = sk_signal_replay}}, false},
    [34] = {{"sk_signal_buffer_count", NULL, SHAPE_COUNT, {.count = sk_signal_buffer_count}}, true},
    [35] = {{"sk_signal_zip", NULL, SHAPE_SIGNALS, {.signals = sk_signal_zip}}, false},
    [36] = {{"sk_signal_with_latest_from", NULL, SHAPE_SIGNAL, {.signal = sk_signal_with_latest_from}}, false},
    [37] = {{"sk_signal_concat", NULL, SHAPE_SIGNALS, {.signals = sk_signal_concat}}, false},
    [38] = {{"sk_signal_take_until_signal", NULL, SHAPE_SIGNAL, {.signal = sk_signal_take_until_signal}}, false},
    [39] = {{"sk_signal_first_where", NULL, SHAPE_PREDICATE, {.predicate = sk_signal_first_where}}, false},
    [40] = {{"sk_signal_before_completed", NULL, SHAPE_WORK, {.work = sk_signal_before_completed}}, false},
    [41] = {{"sk_signal_after_completed", NULL, SHAPE_WORK, {.work = sk_signal_after_completed}}, false},
    [48] = {{"sk_signal_delay", NULL, SHAPE_TIME, {.time = sk_signal_delay}}, false},
    [49] = {{"sk_signal_debounce", NULL, SHAPE_TIME, {.time = sk_signal_debounce}}, false},
    [50] = {{"sk_signal_throttle", NULL, SHAPE_TIME, {.time = sk_signal_throttle}}, false},
    [51] = {{"sk_signal_buffer_time", NULL, SHAPE_TIME, {.time = sk_signal_buffer_time}}, true},
    [52] = {{"sk_signal_sample_period", NULL, SHAPE_TIME, {.time = sk_signal_sample_period}}, true},
    [54] = {{"sk_signal_sample", NULL, SHAPE_SIGNAL, {.signal = sk_signal_sample}}, false},
};

#endif
