/* GENERATED FILE, DO NOT EDIT: written by tools/api/operators.py from
 * tools/api/operators.md and the C declarations (`make api-update`). Every
 * C operator of the operator table: a call of it with the arguments of its
 * kinds (operator_shapes.h), its entry, and the marble table's names. */
#ifndef SIGNALKIT_TESTS_OPERATOR_LIST_H
#define SIGNALKIT_TESTS_OPERATOR_LIST_H

#include "operator_shapes.h"

static inline int sk_test_call_map(sk_signal **out, const sk_test_args *a) {
    return sk_signal_map(out, a->source, a->map, a->ctx, a->release);
}
static inline int sk_test_call_filter(sk_signal **out, const sk_test_args *a) {
    return sk_signal_filter(out, a->source, a->predicate, a->ctx, a->release);
}
static inline int sk_test_call_distinct_until_changed(sk_signal **out, const sk_test_args *a) {
    return sk_signal_distinct_until_changed(out, a->source);
}
static inline int sk_test_call_before_next(sk_signal **out, const sk_test_args *a) {
    return sk_signal_before_next(out, a->source, a->look, a->ctx, a->release);
}
static inline int sk_test_call_take(sk_signal **out, const sk_test_args *a) {
    return sk_signal_take(out, a->source, a->count);
}
static inline int sk_test_call_take_until(sk_signal **out, const sk_test_args *a) {
    return sk_signal_take_until(out, a->source, a->action, a->ctx, a->release);
}
static inline int sk_test_call_take_until_signal(sk_signal **out, const sk_test_args *a) {
    return sk_signal_take_until_signal(out, a->source, a->other);
}
static inline int sk_test_call_take_while(sk_signal **out, const sk_test_args *a) {
    return sk_signal_take_while(out, a->source, a->predicate, a->ctx, a->release, a->flag);
}
static inline int sk_test_call_skip(sk_signal **out, const sk_test_args *a) {
    return sk_signal_skip(out, a->source, a->count);
}
static inline int sk_test_call_skip_while(sk_signal **out, const sk_test_args *a) {
    return sk_signal_skip_while(out, a->source, a->predicate, a->ctx, a->release);
}
static inline int sk_test_call_first(sk_signal **out, const sk_test_args *a) {
    return sk_signal_first(out, a->source);
}
static inline int sk_test_call_first_where(sk_signal **out, const sk_test_args *a) {
    return sk_signal_first_where(out, a->source, a->predicate, a->ctx, a->release);
}
static inline int sk_test_call_element_at(sk_signal **out, const sk_test_args *a) {
    return sk_signal_element_at(out, a->source, a->count);
}
static inline int sk_test_call_default_if_empty(sk_signal **out, const sk_test_args *a) {
    return sk_signal_default_if_empty(out, a->source, a->value);
}
static inline int sk_test_call_last(sk_signal **out, const sk_test_args *a) {
    return sk_signal_last(out, a->source);
}
static inline int sk_test_call_combine_latest(sk_signal **out, const sk_test_args *a) {
    return sk_signal_combine_latest(out, a->signals, a->signal_count, a->maybe_queue);
}
static inline int sk_test_call_zip(sk_signal **out, const sk_test_args *a) {
    return sk_signal_zip(out, a->signals, a->signal_count);
}
static inline int sk_test_call_zip_bounded(sk_signal **out, const sk_test_args *a) {
    return sk_signal_zip_bounded(out, a->signals, a->signal_count, a->capacity, a->overflow, a->on_drop, a->ctx, a->release);
}
static inline int sk_test_call_with_latest_from(sk_signal **out, const sk_test_args *a) {
    return sk_signal_with_latest_from(out, a->source, a->other);
}
static inline int sk_test_call_merge(sk_signal **out, const sk_test_args *a) {
    return sk_signal_merge(out, a->signals, a->signal_count);
}
static inline int sk_test_call_concat(sk_signal **out, const sk_test_args *a) {
    return sk_signal_concat(out, a->signals, a->signal_count);
}
static inline int sk_test_call_then(sk_signal **out, const sk_test_args *a) {
    return sk_signal_then(out, a->source, a->other);
}
static inline int sk_test_call_start_with(sk_signal **out, const sk_test_args *a) {
    return sk_signal_start_with(out, a->source, a->value);
}
static inline int sk_test_call_map_to_signal(sk_signal **out, const sk_test_args *a) {
    return sk_signal_map_to_signal(out, a->source, a->inner, a->ctx, a->release);
}
static inline int sk_test_call_switch_to_latest(sk_signal **out, const sk_test_args *a) {
    return sk_signal_switch_to_latest(out, a->source);
}
static inline int sk_test_call_merge_map(sk_signal **out, const sk_test_args *a) {
    return sk_signal_merge_map(out, a->source, a->concurrency, a->inner, a->ctx, a->release);
}
static inline int sk_test_call_merge_map_bounded(sk_signal **out, const sk_test_args *a) {
    return sk_signal_merge_map_bounded(out, a->source, a->concurrency, a->capacity, a->overflow, a->inner, a->on_drop, a->ctx, a->release);
}
static inline int sk_test_call_queue(sk_signal **out, const sk_test_args *a) {
    return sk_signal_queue(out, a->source);
}
static inline int sk_test_call_queue_bounded(sk_signal **out, const sk_test_args *a) {
    return sk_signal_queue_bounded(out, a->source, a->capacity, a->overflow, a->on_drop, a->ctx, a->release);
}
static inline int sk_test_call_throttled(sk_signal **out, const sk_test_args *a) {
    return sk_signal_throttled(out, a->source);
}
static inline int sk_test_call_deferred(sk_signal **out, const sk_test_args *a) {
    return sk_signal_deferred(out, a->make, a->ctx, a->release);
}
static inline int sk_test_call_ignore_values(sk_signal **out, const sk_test_args *a) {
    return sk_signal_ignore_values(out, a->source);
}
static inline int sk_test_call_group_by(sk_signal **out, const sk_test_args *a) {
    return sk_signal_group_by(out, a->source, a->map, a->ctx, a->release);
}
static inline int sk_test_call_share(sk_signal **out, const sk_test_args *a) {
    return sk_signal_share(out, a->source);
}
static inline int sk_test_call_replay(sk_signal **out, const sk_test_args *a) {
    return sk_signal_replay(out, a->source, a->count);
}
static inline int sk_test_call_catch(sk_signal **out, const sk_test_args *a) {
    return sk_signal_catch(out, a->source, a->inner, a->ctx, a->release);
}
static inline int sk_test_call_restart(sk_signal **out, const sk_test_args *a) {
    return sk_signal_restart(out, a->source);
}
static inline int sk_test_call_restart_if_error(sk_signal **out, const sk_test_args *a) {
    return sk_signal_restart_if_error(out, a->source);
}
static inline int sk_test_call_retry(sk_signal **out, const sk_test_args *a) {
    return sk_signal_retry(out, a->source, a->seconds, a->most, a->queue);
}
static inline int sk_test_call_retry_count(sk_signal **out, const sk_test_args *a) {
    return sk_signal_retry_count(out, a->source, a->retries, a->delay, a->delay_queue);
}
static inline int sk_test_call_reduce_left(sk_signal **out, const sk_test_args *a) {
    return sk_signal_reduce_left(out, a->source, a->initial, a->fold, a->ctx, a->release);
}
static inline int sk_test_call_scan(sk_signal **out, const sk_test_args *a) {
    return sk_signal_scan(out, a->source, a->initial, a->fold, a->ctx, a->release);
}
static inline int sk_test_call_pairwise(sk_signal **out, const sk_test_args *a) {
    return sk_signal_pairwise(out, a->source);
}
static inline int sk_test_call_after_next(sk_signal **out, const sk_test_args *a) {
    return sk_signal_after_next(out, a->source, a->look, a->ctx, a->release);
}
static inline int sk_test_call_before_started(sk_signal **out, const sk_test_args *a) {
    return sk_signal_before_started(out, a->source, a->work, a->ctx, a->release);
}
static inline int sk_test_call_before_completed(sk_signal **out, const sk_test_args *a) {
    return sk_signal_before_completed(out, a->source, a->work, a->ctx, a->release);
}
static inline int sk_test_call_after_completed(sk_signal **out, const sk_test_args *a) {
    return sk_signal_after_completed(out, a->source, a->work, a->ctx, a->release);
}
static inline int sk_test_call_after_disposed(sk_signal **out, const sk_test_args *a) {
    return sk_signal_after_disposed(out, a->source, a->work, a->ctx, a->release);
}
static inline int sk_test_call_deliver_on(sk_signal **out, const sk_test_args *a) {
    return sk_signal_deliver_on(out, a->source, a->queue);
}
static inline int sk_test_call_deliver_on_bounded(sk_signal **out, const sk_test_args *a) {
    return sk_signal_deliver_on_bounded(out, a->source, a->queue, a->capacity, a->overflow, a->on_drop, a->ctx, a->release);
}
static inline int sk_test_call_on_backpressure_buffer(sk_signal **out, const sk_test_args *a) {
    return sk_signal_on_backpressure_buffer(out, a->source, a->capacity, a->overflow, a->on_drop, a->ctx, a->release);
}
static inline int sk_test_call_run_on(sk_signal **out, const sk_test_args *a) {
    return sk_signal_run_on(out, a->source, a->queue);
}
static inline int sk_test_call_delay(sk_signal **out, const sk_test_args *a) {
    return sk_signal_delay(out, a->source, a->seconds, a->queue);
}
static inline int sk_test_call_timeout(sk_signal **out, const sk_test_args *a) {
    return sk_signal_timeout(out, a->source, a->seconds, a->queue, a->other);
}
static inline int sk_test_call_debounce(sk_signal **out, const sk_test_args *a) {
    return sk_signal_debounce(out, a->source, a->seconds, a->queue);
}
static inline int sk_test_call_throttle(sk_signal **out, const sk_test_args *a) {
    return sk_signal_throttle(out, a->source, a->seconds, a->queue);
}
static inline int sk_test_call_buffer_count(sk_signal **out, const sk_test_args *a) {
    return sk_signal_buffer_count(out, a->source, a->count);
}
static inline int sk_test_call_buffer_time(sk_signal **out, const sk_test_args *a) {
    return sk_signal_buffer_time(out, a->source, a->seconds, a->queue);
}
static inline int sk_test_call_buffer_time_bounded(sk_signal **out, const sk_test_args *a) {
    return sk_signal_buffer_time_bounded(out, a->source, a->seconds, a->queue, a->capacity, a->overflow, a->on_drop, a->ctx, a->release);
}
static inline int sk_test_call_sample(sk_signal **out, const sk_test_args *a) {
    return sk_signal_sample(out, a->source, a->other);
}
static inline int sk_test_call_sample_period(sk_signal **out, const sk_test_args *a) {
    return sk_signal_sample_period(out, a->source, a->seconds, a->queue);
}

static const sk_test_operator SK_TEST_OPERATORS[] = {
    {"sk_signal_map", "map", 0, {SK_ARG_SOURCE, SK_ARG_MAP, SK_ARG_CTX}, sk_test_call_map},
    {"sk_signal_filter", "predicate", 0, {SK_ARG_SOURCE, SK_ARG_PREDICATE, SK_ARG_CTX}, sk_test_call_filter},
    {"sk_signal_distinct_until_changed", "unary", 0, {SK_ARG_SOURCE}, sk_test_call_distinct_until_changed},
    {"sk_signal_before_next", "tap", 0, {SK_ARG_SOURCE, SK_ARG_LOOK, SK_ARG_CTX}, sk_test_call_before_next},
    {"sk_signal_take", "count", 0, {SK_ARG_SOURCE, SK_ARG_COUNT}, sk_test_call_take},
    {"sk_signal_take_until", "action", 0, {SK_ARG_SOURCE, SK_ARG_ACTION, SK_ARG_CTX}, sk_test_call_take_until},
    {"sk_signal_take_until_signal", "signal", 0, {SK_ARG_SOURCE, SK_ARG_OTHER}, sk_test_call_take_until_signal},
    {"sk_signal_take_while", "predicate+inclusive", 0, {SK_ARG_SOURCE, SK_ARG_PREDICATE, SK_ARG_CTX, SK_ARG_FLAG}, sk_test_call_take_while},
    {"sk_signal_skip", "count", 0, {SK_ARG_SOURCE, SK_ARG_COUNT}, sk_test_call_skip},
    {"sk_signal_skip_while", "predicate", 0, {SK_ARG_SOURCE, SK_ARG_PREDICATE, SK_ARG_CTX}, sk_test_call_skip_while},
    {"sk_signal_first", "unary", 0, {SK_ARG_SOURCE}, sk_test_call_first},
    {"sk_signal_first_where", "predicate", 0, {SK_ARG_SOURCE, SK_ARG_PREDICATE, SK_ARG_CTX}, sk_test_call_first_where},
    {"sk_signal_element_at", "count", 0, {SK_ARG_SOURCE, SK_ARG_COUNT}, sk_test_call_element_at},
    {"sk_signal_default_if_empty", "value", 0, {SK_ARG_SOURCE, SK_ARG_VALUE}, sk_test_call_default_if_empty},
    {"sk_signal_last", "unary", 0, {SK_ARG_SOURCE}, sk_test_call_last},
    {"sk_signal_combine_latest", "signals_queue", 0, {SK_ARG_SIGNALS, SK_ARG_MAYBE_QUEUE}, sk_test_call_combine_latest},
    {"sk_signal_zip", "signals", 0, {SK_ARG_SIGNALS}, sk_test_call_zip},
    {"sk_signal_zip_bounded", "signals+bounded", 0, {SK_ARG_SIGNALS, SK_ARG_CAPACITY, SK_ARG_OVERFLOW, SK_ARG_ON_DROP, SK_ARG_CTX}, sk_test_call_zip_bounded},
    {"sk_signal_with_latest_from", "signal", 0, {SK_ARG_SOURCE, SK_ARG_OTHER}, sk_test_call_with_latest_from},
    {"sk_signal_merge", "signals", 0, {SK_ARG_SIGNALS}, sk_test_call_merge},
    {"sk_signal_concat", "signals", 0, {SK_ARG_SIGNALS}, sk_test_call_concat},
    {"sk_signal_then", "signal", 0, {SK_ARG_SOURCE, SK_ARG_OTHER}, sk_test_call_then},
    {"sk_signal_start_with", "value", 0, {SK_ARG_SOURCE, SK_ARG_VALUE}, sk_test_call_start_with},
    {"sk_signal_map_to_signal", "inner", 0, {SK_ARG_SOURCE, SK_ARG_INNER, SK_ARG_CTX}, sk_test_call_map_to_signal},
    {"sk_signal_switch_to_latest", "unary", SK_TEST_OF_SIGNALS, {SK_ARG_SOURCE}, sk_test_call_switch_to_latest},
    {"sk_signal_merge_map", "concurrent", 0, {SK_ARG_SOURCE, SK_ARG_CONCURRENCY, SK_ARG_INNER, SK_ARG_CTX}, sk_test_call_merge_map},
    {"sk_signal_merge_map_bounded", "concurrent+bounded", 0, {SK_ARG_SOURCE, SK_ARG_CONCURRENCY, SK_ARG_CAPACITY, SK_ARG_OVERFLOW, SK_ARG_INNER, SK_ARG_ON_DROP, SK_ARG_CTX}, sk_test_call_merge_map_bounded},
    {"sk_signal_queue", "unary", SK_TEST_OF_SIGNALS, {SK_ARG_SOURCE}, sk_test_call_queue},
    {"sk_signal_queue_bounded", "unary+bounded", SK_TEST_OF_SIGNALS, {SK_ARG_SOURCE, SK_ARG_CAPACITY, SK_ARG_OVERFLOW, SK_ARG_ON_DROP, SK_ARG_CTX}, sk_test_call_queue_bounded},
    {"sk_signal_throttled", "unary", SK_TEST_OF_SIGNALS, {SK_ARG_SOURCE}, sk_test_call_throttled},
    {"sk_signal_deferred", "deferred", 0, {SK_ARG_MAKE, SK_ARG_CTX}, sk_test_call_deferred},
    {"sk_signal_ignore_values", "unary", 0, {SK_ARG_SOURCE}, sk_test_call_ignore_values},
    {"sk_signal_group_by", "map", SK_TEST_GROUPS, {SK_ARG_SOURCE, SK_ARG_MAP, SK_ARG_CTX}, sk_test_call_group_by},
    {"sk_signal_share", "unary", 0, {SK_ARG_SOURCE}, sk_test_call_share},
    {"sk_signal_replay", "count", 0, {SK_ARG_SOURCE, SK_ARG_COUNT}, sk_test_call_replay},
    {"sk_signal_catch", "inner", 0, {SK_ARG_SOURCE, SK_ARG_INNER, SK_ARG_CTX}, sk_test_call_catch},
    {"sk_signal_restart", "unary", 0, {SK_ARG_SOURCE}, sk_test_call_restart},
    {"sk_signal_restart_if_error", "unary", 0, {SK_ARG_SOURCE}, sk_test_call_restart_if_error},
    {"sk_signal_retry", "backoff", 0, {SK_ARG_SOURCE, SK_ARG_SECONDS, SK_ARG_MOST, SK_ARG_QUEUE}, sk_test_call_retry},
    {"sk_signal_retry_count", "retries", 0, {SK_ARG_SOURCE, SK_ARG_RETRIES, SK_ARG_DELAY, SK_ARG_DELAY_QUEUE}, sk_test_call_retry_count},
    {"sk_signal_reduce_left", "reduce", 0, {SK_ARG_SOURCE, SK_ARG_INITIAL, SK_ARG_FOLD, SK_ARG_CTX}, sk_test_call_reduce_left},
    {"sk_signal_scan", "reduce", 0, {SK_ARG_SOURCE, SK_ARG_INITIAL, SK_ARG_FOLD, SK_ARG_CTX}, sk_test_call_scan},
    {"sk_signal_pairwise", "unary", 0, {SK_ARG_SOURCE}, sk_test_call_pairwise},
    {"sk_signal_after_next", "tap", 0, {SK_ARG_SOURCE, SK_ARG_LOOK, SK_ARG_CTX}, sk_test_call_after_next},
    {"sk_signal_before_started", "work", 0, {SK_ARG_SOURCE, SK_ARG_WORK, SK_ARG_CTX}, sk_test_call_before_started},
    {"sk_signal_before_completed", "work", 0, {SK_ARG_SOURCE, SK_ARG_WORK, SK_ARG_CTX}, sk_test_call_before_completed},
    {"sk_signal_after_completed", "work", 0, {SK_ARG_SOURCE, SK_ARG_WORK, SK_ARG_CTX}, sk_test_call_after_completed},
    {"sk_signal_after_disposed", "work", 0, {SK_ARG_SOURCE, SK_ARG_WORK, SK_ARG_CTX}, sk_test_call_after_disposed},
    {"sk_signal_deliver_on", "on", 0, {SK_ARG_SOURCE, SK_ARG_QUEUE}, sk_test_call_deliver_on},
    {"sk_signal_deliver_on_bounded", "on+bounded", 0, {SK_ARG_SOURCE, SK_ARG_QUEUE, SK_ARG_CAPACITY, SK_ARG_OVERFLOW, SK_ARG_ON_DROP, SK_ARG_CTX}, sk_test_call_deliver_on_bounded},
    {"sk_signal_on_backpressure_buffer", "unary+bounded", 0, {SK_ARG_SOURCE, SK_ARG_CAPACITY, SK_ARG_OVERFLOW, SK_ARG_ON_DROP, SK_ARG_CTX}, sk_test_call_on_backpressure_buffer},
    {"sk_signal_run_on", "on", 0, {SK_ARG_SOURCE, SK_ARG_QUEUE}, sk_test_call_run_on},
    {"sk_signal_delay", "time", 0, {SK_ARG_SOURCE, SK_ARG_SECONDS, SK_ARG_QUEUE}, sk_test_call_delay},
    {"sk_signal_timeout", "deadline", 0, {SK_ARG_SOURCE, SK_ARG_SECONDS, SK_ARG_QUEUE, SK_ARG_OTHER}, sk_test_call_timeout},
    {"sk_signal_debounce", "time", 0, {SK_ARG_SOURCE, SK_ARG_SECONDS, SK_ARG_QUEUE}, sk_test_call_debounce},
    {"sk_signal_throttle", "time", 0, {SK_ARG_SOURCE, SK_ARG_SECONDS, SK_ARG_QUEUE}, sk_test_call_throttle},
    {"sk_signal_buffer_count", "count", 0, {SK_ARG_SOURCE, SK_ARG_COUNT}, sk_test_call_buffer_count},
    {"sk_signal_buffer_time", "time", 0, {SK_ARG_SOURCE, SK_ARG_SECONDS, SK_ARG_QUEUE}, sk_test_call_buffer_time},
    {"sk_signal_buffer_time_bounded", "time+bounded", 0, {SK_ARG_SOURCE, SK_ARG_SECONDS, SK_ARG_QUEUE, SK_ARG_CAPACITY, SK_ARG_OVERFLOW, SK_ARG_ON_DROP, SK_ARG_CTX}, sk_test_call_buffer_time_bounded},
    {"sk_signal_sample", "signal", 0, {SK_ARG_SOURCE, SK_ARG_OTHER}, sk_test_call_sample},
    {"sk_signal_sample_period", "time", 0, {SK_ARG_SOURCE, SK_ARG_SECONDS, SK_ARG_QUEUE}, sk_test_call_sample_period},
};

#define SK_TEST_OPERATOR_COUNT (sizeof SK_TEST_OPERATORS / sizeof SK_TEST_OPERATORS[0])

/* The marble table's names: each one's operator, the flag it sets and the
 * kinds its `op` line gives (tools/api/shapes.py, marble_layout). */
static const sk_test_marble SK_TEST_MARBLES[] = {
    {"map", &SK_TEST_OPERATORS[0], false, {SK_ARG_MAP}},
    {"filter", &SK_TEST_OPERATORS[1], false, {SK_ARG_PREDICATE}},
    {"distinctUntilChanged", &SK_TEST_OPERATORS[2], false, {SK_ARG_NONE}},
    {"beforeNext", &SK_TEST_OPERATORS[3], false, {SK_ARG_LOOK}},
    {"take", &SK_TEST_OPERATORS[4], false, {SK_ARG_COUNT}},
    {"takeUntilAction", &SK_TEST_OPERATORS[5], false, {SK_ARG_ACTION}},
    {"takeUntil", &SK_TEST_OPERATORS[6], false, {SK_ARG_OTHER}},
    {"takeWhile", &SK_TEST_OPERATORS[7], false, {SK_ARG_PREDICATE}},
    {"takeWhileInclusive", &SK_TEST_OPERATORS[7], true, {SK_ARG_PREDICATE}},
    {"skip", &SK_TEST_OPERATORS[8], false, {SK_ARG_COUNT}},
    {"skipWhile", &SK_TEST_OPERATORS[9], false, {SK_ARG_PREDICATE}},
    {"first", &SK_TEST_OPERATORS[10], false, {SK_ARG_NONE}},
    {"firstWhere", &SK_TEST_OPERATORS[11], false, {SK_ARG_PREDICATE}},
    {"elementAt", &SK_TEST_OPERATORS[12], false, {SK_ARG_COUNT}},
    {"defaultIfEmpty", &SK_TEST_OPERATORS[13], false, {SK_ARG_VALUE}},
    {"last", &SK_TEST_OPERATORS[14], false, {SK_ARG_NONE}},
    {"combineLatest", &SK_TEST_OPERATORS[15], false, {SK_ARG_SIGNALS}},
    {"zip", &SK_TEST_OPERATORS[16], false, {SK_ARG_SIGNALS}},
    {"zip3", &SK_TEST_OPERATORS[16], false, {SK_ARG_SIGNALS}},
    {"zipBounded", &SK_TEST_OPERATORS[17], false, {SK_ARG_CAPACITY, SK_ARG_OVERFLOW, SK_ARG_SIGNALS}},
    {"withLatestFrom", &SK_TEST_OPERATORS[18], false, {SK_ARG_OTHER}},
    {"merge", &SK_TEST_OPERATORS[19], false, {SK_ARG_SIGNALS}},
    {"concat", &SK_TEST_OPERATORS[20], false, {SK_ARG_SIGNALS}},
    {"then", &SK_TEST_OPERATORS[21], false, {SK_ARG_OTHER}},
    {"startWith", &SK_TEST_OPERATORS[22], false, {SK_ARG_VALUE}},
    {"switchMap", &SK_TEST_OPERATORS[23], false, {SK_ARG_INNER}},
    {"switchToLatest", &SK_TEST_OPERATORS[24], false, {SK_ARG_NONE}},
    {"mergeMap", &SK_TEST_OPERATORS[25], false, {SK_ARG_CONCURRENCY, SK_ARG_INNER}},
    {"mergeMapBounded", &SK_TEST_OPERATORS[26], false, {SK_ARG_CONCURRENCY, SK_ARG_CAPACITY, SK_ARG_OVERFLOW, SK_ARG_INNER}},
    {"queue", &SK_TEST_OPERATORS[27], false, {SK_ARG_NONE}},
    {"queueBounded", &SK_TEST_OPERATORS[28], false, {SK_ARG_CAPACITY, SK_ARG_OVERFLOW}},
    {"throttled", &SK_TEST_OPERATORS[29], false, {SK_ARG_NONE}},
    {"deferred", &SK_TEST_OPERATORS[30], false, {SK_ARG_MAKE}},
    {"ignoreValues", &SK_TEST_OPERATORS[31], false, {SK_ARG_NONE}},
    {"groupBy", &SK_TEST_OPERATORS[32], false, {SK_ARG_MAP}},
    {"share", &SK_TEST_OPERATORS[33], false, {SK_ARG_NONE}},
    {"replay", &SK_TEST_OPERATORS[34], false, {SK_ARG_COUNT}},
    {"catch", &SK_TEST_OPERATORS[35], false, {SK_ARG_INNER}},
    {"restart", &SK_TEST_OPERATORS[36], false, {SK_ARG_NONE}},
    {"restartIfError", &SK_TEST_OPERATORS[37], false, {SK_ARG_NONE}},
    {"retryBackoff", &SK_TEST_OPERATORS[38], false, {SK_ARG_SECONDS, SK_ARG_MOST}},
    {"retry", &SK_TEST_OPERATORS[39], false, {SK_ARG_RETRIES, SK_ARG_DELAY}},
    {"retryDelay", &SK_TEST_OPERATORS[39], false, {SK_ARG_RETRIES, SK_ARG_DELAY}},
    {"reduce", &SK_TEST_OPERATORS[40], false, {SK_ARG_FOLD, SK_ARG_INITIAL}},
    {"scan", &SK_TEST_OPERATORS[41], false, {SK_ARG_FOLD, SK_ARG_INITIAL}},
    {"pairwise", &SK_TEST_OPERATORS[42], false, {SK_ARG_NONE}},
    {"afterNext", &SK_TEST_OPERATORS[43], false, {SK_ARG_LOOK}},
    {"beforeStarted", &SK_TEST_OPERATORS[44], false, {SK_ARG_WORK}},
    {"beforeCompleted", &SK_TEST_OPERATORS[45], false, {SK_ARG_WORK}},
    {"afterCompleted", &SK_TEST_OPERATORS[46], false, {SK_ARG_WORK}},
    {"afterDisposed", &SK_TEST_OPERATORS[47], false, {SK_ARG_WORK}},
    {"deliverOn", &SK_TEST_OPERATORS[48], false, {SK_ARG_NONE}},
    {"deliverOnBounded", &SK_TEST_OPERATORS[49], false, {SK_ARG_CAPACITY, SK_ARG_OVERFLOW}},
    {"onBackpressureBuffer", &SK_TEST_OPERATORS[50], false, {SK_ARG_CAPACITY, SK_ARG_OVERFLOW}},
    {"runOn", &SK_TEST_OPERATORS[51], false, {SK_ARG_NONE}},
    {"delay", &SK_TEST_OPERATORS[52], false, {SK_ARG_SECONDS}},
    {"timeout", &SK_TEST_OPERATORS[53], false, {SK_ARG_SECONDS, SK_ARG_OTHER}},
    {"debounce", &SK_TEST_OPERATORS[54], false, {SK_ARG_SECONDS}},
    {"throttle", &SK_TEST_OPERATORS[55], false, {SK_ARG_SECONDS}},
    {"bufferCount", &SK_TEST_OPERATORS[56], false, {SK_ARG_COUNT}},
    {"bufferTime", &SK_TEST_OPERATORS[57], false, {SK_ARG_SECONDS}},
    {"bufferTimeBounded", &SK_TEST_OPERATORS[58], false, {SK_ARG_SECONDS, SK_ARG_CAPACITY, SK_ARG_OVERFLOW}},
    {"sample", &SK_TEST_OPERATORS[59], false, {SK_ARG_OTHER}},
    {"sampleTime", &SK_TEST_OPERATORS[60], false, {SK_ARG_SECONDS}},
};

#define SK_TEST_MARBLE_COUNT (sizeof SK_TEST_MARBLES / sizeof SK_TEST_MARBLES[0])

#endif
