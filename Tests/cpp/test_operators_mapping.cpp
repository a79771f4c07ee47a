/* Operators that transform, select and combine values: map, filter,
 * distinct_until_changed, take, take_until, map_to_signal, switch_to_latest,
 * combine_latest, merge, last, ignore_values, reduce_left; and the pipe
 * syntax itself (rvalue and reused pipeables, member and free forms). */
#include "support.hpp"

using sk_test::events;
using sk_test::ints;
using sk_test::record;
using sk_test::track;
using sk_test::v;

SK_TEST(mapping, map_filter_map_chain) {
    auto log = std::make_shared<events>();
    record(ints({0, 1, 2, 3, 4, 5}) | sk::map(track([](std::int64_t n) { return n + 1; }))
               | sk::filter(track([](std::int64_t n) { return n % 2 == 0; }))
               | sk::map(track([](std::int64_t n) { return n * 2; })),
           log);
    cr_assert(log->ints() == v({4, 8, 12}));
    cr_assert_eq(log->completions, 1);
}

SK_TEST(mapping, member_form_equals_pipe_form) {
    auto log = std::make_shared<events>();
    record(ints({1, 2, 3}).map(track([](std::int64_t n) { return n * n; })).take(2), log);
    cr_assert(log->ints() == v({1, 4}));
}

SK_TEST(mapping, a_pipeable_can_be_reused) {
    auto add = sk::map(track([](std::int64_t n) { return n + 100; }));
    auto log = std::make_shared<events>();
    auto a = ints({1}) | add;
    auto b = ints({2}) | add;
    record(a, log);
    record(b, log);
    cr_assert(log->ints() == v({101, 102}));
    cr_assert_eq(sk_test::alive(), 1 + 2 + 2, "the pipeable's callable, a copy per signal, the two sources' generators");
}

SK_TEST(mapping, callables_die_with_their_signal) {
    {
        auto s = ints({1}) | sk::map(track([](std::int64_t n) { return n; }));
        cr_assert_gt(sk_test::alive(), 0);
    }
    cr_assert_eq(sk_test::alive(), 0);
}

SK_TEST(mapping, mutable_and_move_only_callables) {
    auto log = std::make_shared<events>();
    auto counter = std::make_unique<int>(0);
    record(ints({5, 5, 5}) | sk::map([c = std::move(counter)](std::int64_t n) mutable { return n + (*c)++; }), log);
    cr_assert(log->ints() == v({5, 6, 7}));
}

/* Every pipeable that takes a callable takes a move-only one (moved into
 * its box, as the header says). The pipeable form of reduce_left did not
 * compile with one: its operator was a local struct of a function template,
 * whose members are all instantiated, the copying one (for a reused
 * pipeable) included. */
SK_TEST(mapping, every_pipeable_takes_a_move_only_callable) {
    auto log = std::make_shared<events>();
    auto one = [] { return std::make_unique<std::int64_t>(1); };
    record(ints({1, 2, 3}) | sk::map([u = one()](std::int64_t n) { return n + *u; })
               | sk::filter([u = one()](std::int64_t n) { return n > *u; })
               | sk::take_until([u = one()](std::int64_t) { return sk::take_pass; })
               | sk::map_to_signal([u = one()](std::int64_t n) { return sk::single(n * 10 + *u); })
               | sk::catch_error([u = one()](sk::value_view) { return sk::complete(); })
               | sk::before_next([u = one()](sk::value_view) {}) | sk::after_next([u = one()](sk::value_view) {})
               | sk::before_started([u = one()] {}) | sk::before_completed([u = one()] {})
               | sk::after_completed([u = one()] {}) | sk::after_disposed([u = one()] {})
               | sk::reduce_left(0, [u = one()](std::int64_t acc, std::int64_t n) { return acc + n * *u; }),
           log);
    cr_assert(log->ints() == v({21 + 31 + 41}));
    cr_assert_eq(log->completions, 1);
}

static std::int64_t triple(std::int64_t n) { return 3 * n; }
static bool positive(std::int64_t n) { return n > 0; }

SK_TEST(mapping, function_pointers) {
    auto log = std::make_shared<events>();
    record(ints({-1, 2}) | sk::filter(positive) | sk::map(&triple), log);
    cr_assert(log->ints() == v({6}));
}

/* Small callables (no capture, or one pointer) travel in the C ctx, with
 * no box: map and filter over a pipe, started with a value callback alone
 * (the path where the library runs the outermost stage in the
 * subscription's handle) and with every callback, give the same values;
 * disposing stops them; nothing is left alive. */
SK_TEST(mapping, small_callables_over_a_pipe) {
    std::int64_t offset = 100;
    const std::int64_t *by = &offset;
    auto p = sk::pipe::create();
    auto mapped = p.signal() | sk::map([by](std::int64_t n) { return n + *by; });
    auto evens = p.signal() | sk::filter([](std::int64_t n) { return n % 2 == 0; });
    std::int64_t sum_mapped = 0, sum_evens = 0;
    auto d1 = mapped.start([&sum_mapped](std::int64_t n) { sum_mapped += n; });
    auto d2 = evens.start([&sum_evens](std::int64_t n) { sum_evens += n; });
    auto log = std::make_shared<events>();
    auto d3 = record(mapped, log);
    for (std::int64_t i = 1; i <= 4; i++) {
        p.put(i);
    }
    cr_assert_eq(sum_mapped, 410);
    cr_assert_eq(sum_evens, 6);
    cr_assert(log->ints() == v({101, 102, 103, 104}));
    d1.dispose();
    d2.dispose();
    p.put(6);
    cr_assert_eq(sum_mapped, 410, "a value after dispose");
    cr_assert_eq(sum_evens, 6, "a value after dispose");
    cr_assert(log->ints() == v({101, 102, 103, 104, 106}));
    d3.dispose();
}

SK_TEST(mapping, distinct_until_changed) {
    auto log = std::make_shared<events>();
    record(ints({1, 1, 2, 2, 1}) | sk::distinct_until_changed(), log);
    cr_assert(log->ints() == v({1, 2, 1}));
}

SK_TEST(mapping, take) {
    auto log = std::make_shared<events>();
    record(ints({1, 2, 3}) | sk::take(2), log);
    cr_assert(log->ints() == v({1, 2}));
    cr_assert_eq(log->completions, 1);
}

SK_TEST(mapping, take_until) {
    auto log = std::make_shared<events>();
    record(ints({1, 2, 3, 4}) | sk::take_until(track([](std::int64_t n) {
               return n == 3 ? sk::take_pass | sk::take_complete : (n % 2 ? sk::take_pass : sk::take_drop);
           })),
           log);
    cr_assert(log->ints() == v({1, 3}));
    cr_assert_eq(log->completions, 1);
}

SK_TEST(mapping, map_to_signal_and_switch_to_latest) {
    auto log = std::make_shared<events>();
    record(ints({1, 2}) | sk::map_to_signal(track([](std::int64_t n) { return sk::single(n * 10); })), log);
    record(ints({3}) | sk::map(track([](std::int64_t n) { return sk::single(n); })) | sk::switch_to_latest(), log);
    record(ints({4}) | sk::map_to_signal([](std::int64_t) { return sk::signal(); }), log);
    cr_assert(log->ints() == v({10, 20, 3}));
    cr_assert_eq(log->completions, 3);
}

SK_TEST(mapping, combine_latest) {
    auto a = sk::pipe::create(), b = sk::pipe::create();
    auto log = std::make_shared<events>();
    auto d = record(sk::combine_latest({a.signal(), b.signal()}), log);
    a.put(1);
    b.put(2);
    a.put(3);
    cr_assert_eq(log->values.size(), 2u);
    cr_assert(log->values[0] == sk::value(std::vector<sk::value>{1, 2}));
    cr_assert(log->values[1] == sk::value(std::vector<sk::value>{3, 2}));
    d.dispose();
    auto empty = std::make_shared<events>();
    record(sk::combine_latest({}), empty);
    cr_assert_eq(empty->values.size(), 1u);
    cr_assert_eq(empty->values[0].size(), 0u);
}

SK_TEST(mapping, merge) {
    auto log = std::make_shared<events>();
    record(sk::merge({ints({1, 2}), ints({3})}), log);
    cr_assert(log->ints() == v({1, 2, 3}));
    cr_assert_eq(log->completions, 1);
}

SK_TEST(mapping, last_and_ignore_values) {
    auto log = std::make_shared<events>();
    record(ints({1, 2, 3}) | sk::last(), log);
    record(ints({1, 2, 3}) | sk::ignore_values(), log);
    cr_assert(log->ints() == v({3}));
    cr_assert_eq(log->completions, 2);
}

SK_TEST(mapping, reduce_left) {
    auto log = std::make_shared<events>();
    record(ints({1, 2, 3, 4}) | sk::reduce_left(0, track([](std::int64_t acc, std::int64_t n) { return acc + n; })),
           log);
    record(ints({1, 2}) | sk::reduce_left("", [](std::string_view acc, std::int64_t n) {
               return std::string(acc) + std::to_string(n);
           }),
           log);
    cr_assert_eq(log->values.size(), 2u);
    cr_assert_eq(log->values[0].as<int>(), 10);
    cr_assert(log->values[1].as<std::string>() == "12");
}
