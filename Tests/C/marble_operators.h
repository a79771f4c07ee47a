/* GENERATED FILE, DO NOT EDIT: written by tools/api/operators.py from
 * tools/api/operators.md (`make api-update`). The marble table's
 * operators whose C function has a standard shape; test_marble_table.c
 * defines marble_operator and builds the others by hand. */
static const marble_operator MARBLE_OPERATORS[] = {
    {"map", SHAPE_MAP, {.map = sk_signal_map}},
    {"filter", SHAPE_PREDICATE, {.predicate = sk_signal_filter}},
    {"distinctUntilChanged", SHAPE_UNARY, {.unary = sk_signal_distinct_until_changed}},
    {"take", SHAPE_COUNT, {.count = sk_signal_take}},
    {"takeUntil", SHAPE_SIGNAL, {.signal = sk_signal_take_until_signal}},
    {"skip", SHAPE_COUNT, {.count = sk_signal_skip}},
    {"skipWhile", SHAPE_PREDICATE, {.predicate = sk_signal_skip_while}},
    {"first", SHAPE_UNARY, {.unary = sk_signal_first}},
    {"firstWhere", SHAPE_PREDICATE, {.predicate = sk_signal_first_where}},
    {"elementAt", SHAPE_COUNT, {.count = sk_signal_element_at}},
    {"defaultIfEmpty", SHAPE_VALUE, {.value = sk_signal_default_if_empty}},
    {"withLatestFrom", SHAPE_SIGNAL, {.signal = sk_signal_with_latest_from}},
    {"merge", SHAPE_SIGNALS, {.signals = sk_signal_merge}},
    {"concat", SHAPE_SIGNALS, {.signals = sk_signal_concat}},
    {"startWith", SHAPE_VALUE, {.value = sk_signal_start_with}},
    {"share", SHAPE_UNARY, {.unary = sk_signal_share}},
    {"replay", SHAPE_COUNT, {.count = sk_signal_replay}},
    {"reduce", SHAPE_REDUCE, {.reduce = sk_signal_reduce_left}},
    {"scan", SHAPE_REDUCE, {.reduce = sk_signal_scan}},
    {"pairwise", SHAPE_UNARY, {.unary = sk_signal_pairwise}},
    {"delay", SHAPE_TIME, {.time = sk_signal_delay}},
    {"debounce", SHAPE_TIME, {.time = sk_signal_debounce}},
    {"throttle", SHAPE_TIME, {.time = sk_signal_throttle}},
    {"bufferCount", SHAPE_COUNT, {.count = sk_signal_buffer_count}},
    {"bufferTime", SHAPE_TIME, {.time = sk_signal_buffer_time}},
    {"sample", SHAPE_SIGNAL, {.signal = sk_signal_sample}},
    {"sampleTime", SHAPE_TIME, {.time = sk_signal_sample_period}},
};
