/* GENERATED FILE, DO NOT EDIT: written by tools/api/operators.py from
 * tools/api/operators.md (`make api-update`). Every C operator of a
 * standard shape (operator_shapes.h), with its marble table name. */
#ifndef SIGNALKIT_TESTS_OPERATOR_LIST_H
#define SIGNALKIT_TESTS_OPERATOR_LIST_H

#include "operator_shapes.h"

static const sk_test_operator SK_TEST_OPERATORS[] = {
    {"sk_signal_map", "map", SHAPE_MAP, {.map = sk_signal_map}},
    {"sk_signal_filter", "filter", SHAPE_PREDICATE, {.predicate = sk_signal_filter}},
    {"sk_signal_distinct_until_changed", "distinctUntilChanged", SHAPE_UNARY, {.unary = sk_signal_distinct_until_changed}},
    {"sk_signal_before_next", "beforeNext", SHAPE_TAP, {.tap = sk_signal_before_next}},
    {"sk_signal_take", "take", SHAPE_COUNT, {.count = sk_signal_take}},
    {"sk_signal_take_until_signal", "takeUntil", SHAPE_SIGNAL, {.signal = sk_signal_take_until_signal}},
    {"sk_signal_skip", "skip", SHAPE_COUNT, {.count = sk_signal_skip}},
    {"sk_signal_skip_while", "skipWhile", SHAPE_PREDICATE, {.predicate = sk_signal_skip_while}},
    {"sk_signal_first", "first", SHAPE_UNARY, {.unary = sk_signal_first}},
    {"sk_signal_first_where", "firstWhere", SHAPE_PREDICATE, {.predicate = sk_signal_first_where}},
    {"sk_signal_element_at", "elementAt", SHAPE_COUNT, {.count = sk_signal_element_at}},
    {"sk_signal_default_if_empty", "defaultIfEmpty", SHAPE_VALUE, {.value = sk_signal_default_if_empty}},
    {"sk_signal_last", "last", SHAPE_UNARY, {.unary = sk_signal_last}},
    {"sk_signal_zip", NULL, SHAPE_SIGNALS, {.signals = sk_signal_zip}},
    {"sk_signal_with_latest_from", "withLatestFrom", SHAPE_SIGNAL, {.signal = sk_signal_with_latest_from}},
    {"sk_signal_merge", "merge", SHAPE_SIGNALS, {.signals = sk_signal_merge}},
    {"sk_signal_concat", "concat", SHAPE_SIGNALS, {.signals = sk_signal_concat}},
    {"sk_signal_then", "then", SHAPE_SIGNAL, {.signal = sk_signal_then}},
    {"sk_signal_start_with", "startWith", SHAPE_VALUE, {.value = sk_signal_start_with}},
    {"sk_signal_switch_to_latest", NULL, SHAPE_UNARY, {.unary = sk_signal_switch_to_latest}},
    {"sk_signal_queue", NULL, SHAPE_UNARY, {.unary = sk_signal_queue}},
    {"sk_signal_throttled", NULL, SHAPE_UNARY, {.unary = sk_signal_throttled}},
    {"sk_signal_ignore_values", "ignoreValues", SHAPE_UNARY, {.unary = sk_signal_ignore_values}},
    {"sk_signal_group_by", NULL, SHAPE_MAP, {.map = sk_signal_group_by}},
    {"sk_signal_share", "share", SHAPE_UNARY, {.unary = sk_signal_share}},
    {"sk_signal_replay", "replay", SHAPE_COUNT, {.count = sk_signal_replay}},
    {"sk_signal_restart", "restart", SHAPE_UNARY, {.unary = sk_signal_restart}},
    {"sk_signal_restart_if_error", "restartIfError", SHAPE_UNARY, {.unary = sk_signal_restart_if_error}},
    {"sk_signal_reduce_left", "reduce", SHAPE_REDUCE, {.reduce = sk_signal_reduce_left}},
    {"sk_signal_scan", "scan", SHAPE_REDUCE, {.reduce = sk_signal_scan}},
    {"sk_signal_pairwise", "pairwise", SHAPE_UNARY, {.unary = sk_signal_pairwise}},
    {"sk_signal_after_next", "afterNext", SHAPE_TAP, {.tap = sk_signal_after_next}},
    {"sk_signal_before_started", "beforeStarted", SHAPE_WORK, {.work = sk_signal_before_started}},
    {"sk_signal_before_completed", "beforeCompleted", SHAPE_WORK, {.work = sk_signal_before_completed}},
    {"sk_signal_after_completed", "afterCompleted", SHAPE_WORK, {.work = sk_signal_after_completed}},
    {"sk_signal_after_disposed", "afterDisposed", SHAPE_WORK, {.work = sk_signal_after_disposed}},
    {"sk_signal_deliver_on", "deliverOn", SHAPE_ON, {.on = sk_signal_deliver_on}},
    {"sk_signal_run_on", "runOn", SHAPE_ON, {.on = sk_signal_run_on}},
    {"sk_signal_delay", "delay", SHAPE_TIME, {.time = sk_signal_delay}},
    {"sk_signal_debounce", "debounce", SHAPE_TIME, {.time = sk_signal_debounce}},
    {"sk_signal_throttle", "throttle", SHAPE_TIME, {.time = sk_signal_throttle}},
    {"sk_signal_buffer_count", "bufferCount", SHAPE_COUNT, {.count = sk_signal_buffer_count}},
    {"sk_signal_buffer_time", "bufferTime", SHAPE_TIME, {.time = sk_signal_buffer_time}},
    {"sk_signal_sample", "sample", SHAPE_SIGNAL, {.signal = sk_signal_sample}},
    {"sk_signal_sample_period", "sampleTime", SHAPE_TIME, {.time = sk_signal_sample_period}},
};

#define SK_TEST_OPERATOR_COUNT (sizeof SK_TEST_OPERATORS / sizeof SK_TEST_OPERATORS[0])

#endif
