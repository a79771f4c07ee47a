/* GENERATED FILE, DO NOT EDIT: written by tools/api/operators.py from
 * tools/api/operators.md (`make api-update`). The marble table's
 * operators whose C function has a standard shape, each a call of
 * signalkit.hpp read from its shape; test_marble_table.cpp defines
 * `operation` and `marble_operator` and builds the others by hand. */
const marble_operator marble_operators[] = {
    {"map", 1, [](const operation &a) { return a.s.map(a.map()); }},
    {"filter", 1, [](const operation &a) { return a.s.filter(a.predicate()); }},
    {"distinctUntilChanged", 0, [](const operation &a) { return a.s.distinct_until_changed(); }},
    {"take", 1, [](const operation &a) { return a.s.take(a.count()); }},
    {"takeUntil", 1, [](const operation &a) { return a.s.take_until_signal(a.input()); }},
    {"skip", 1, [](const operation &a) { return a.s.skip(a.count()); }},
    {"skipWhile", 1, [](const operation &a) { return a.s.skip_while(a.predicate()); }},
    {"first", 0, [](const operation &a) { return a.s.first(); }},
    {"firstWhere", 1, [](const operation &a) { return a.s.first_where(a.predicate()); }},
    {"elementAt", 1, [](const operation &a) { return a.s.element_at(a.count()); }},
    {"defaultIfEmpty", 1, [](const operation &a) { return a.s.default_if_empty(a.value()); }},
    {"withLatestFrom", 1, [](const operation &a) { return a.s.with_latest_from(a.input()); }},
    {"merge", -1, [](const operation &a) { return sk::merge(a.inputs()); }},
    {"concat", -1, [](const operation &a) { return sk::concat(a.inputs()); }},
    {"startWith", 1, [](const operation &a) { return a.s.start_with(a.value()); }},
    {"share", 0, [](const operation &a) { return a.s.share(); }},
    {"replay", 1, [](const operation &a) { return a.s.replay(a.count()); }},
    {"reduce", 2, [](const operation &a) { return a.s.reduce_left(a.initial(), a.binary()); }},
    {"scan", 2, [](const operation &a) { return a.s.scan(a.initial(), a.binary()); }},
    {"pairwise", 0, [](const operation &a) { return a.s.pairwise(); }},
    {"delay", 1, [](const operation &a) { return a.s.delay(a.seconds(), a.queue()); }},
    {"debounce", 1, [](const operation &a) { return a.s.debounce(a.seconds(), a.queue()); }},
    {"throttle", 1, [](const operation &a) { return a.s.throttle(a.seconds(), a.queue()); }},
    {"bufferCount", 1, [](const operation &a) { return a.s.buffer_count(a.count()); }},
    {"bufferTime", 1, [](const operation &a) { return a.s.buffer_time(a.seconds(), a.queue()); }},
    {"sample", 1, [](const operation &a) { return a.s.sample(a.input()); }},
    {"sampleTime", 1, [](const operation &a) { return a.s.sample_period(a.seconds(), a.queue()); }},
};
