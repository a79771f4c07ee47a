/* The operators of issue 33 (the C layer's sk_signal_skip ... sk_signal_retry_count,
 * sk_pipe_put_error / sk_pipe_put_completion): each member and its pipeable,
 * with the values the C tests and the shared marble table pin down in
 * detail (Tests/C/test_operators_*.c, Tests/C/test_marble_table.c). */
#include <signalkit_test.hpp>

#include "support.hpp"

using sk_test::events;
using sk_test::ints;
using sk_test::record;
using sk_test::v;

namespace {
sk::value pair(std::int64_t a, std::int64_t b) { return sk::value(std::vector<sk::value>{a, b}); }
} // namespace

SK_TEST(vocabulary, take_family) {
    auto source = ints({1, 2, 3, 4, 1});
    auto small = [](std::int64_t x) { return x < 3; };
    auto log = std::make_shared<events>();
    record(source.skip(3), log);
    cr_assert(log->ints() == v({4, 1}));
    log = std::make_shared<events>();
    record(source | sk::skip_while(small), log);
    cr_assert(log->ints() == v({3, 4, 1}));
    log = std::make_shared<events>();
    record(source.take_while(small), log);
    cr_assert(log->ints() == v({1, 2}));
    log = std::make_shared<events>();
    record(source | sk::take_while(small, true), log);
    cr_assert(log->ints() == v({1, 2, 3}));
    cr_assert_eq(log->completions, 1);
    log = std::make_shared<events>();
    record(source | sk::first(), log);
    record(source.first_where([](std::int64_t x) { return x > 3; }), log);
    record(source | sk::element_at(2), log);
    record(sk::complete() | sk::default_if_empty(7), log);
    record(source.default_if_empty(7) | sk::first(), log);
    cr_assert(log->ints() == v({1, 4, 3, 7, 1}));
    log = std::make_shared<events>();
    record(source | sk::take_until_signal(sk::single(0)), log);
    record(source.take_until_signal(sk::never()) | sk::skip(4), log);
    cr_assert(log->ints() == v({1}));
    cr_assert_eq(log->completions, 2);
}

SK_TEST(vocabulary, scan_pairwise_start_with_concat) {
    auto source = ints({1, 2, 3});
    auto add = [](std::int64_t a, std::int64_t x) { return a + x; };
    auto log = std::make_shared<events>();
    record(source.scan(0, add), log);
    record(source | sk::scan(10, add) | sk::first(), log);
    cr_assert(log->ints() == v({1, 3, 6, 11}));
    log = std::make_shared<events>();
    record(source | sk::pairwise(), log);
    cr_assert_eq(log->values.size(), 2u);
    cr_assert(log->values[0] == pair(1, 2));
    cr_assert(log->values[1] == pair(2, 3));
    log = std::make_shared<events>();
    record(source.start_with(0) | sk::start_with(-1), log);
    record(sk::concat({ints({4}), ints({5})}), log);
    record(sk::signal::concat({}), log);
    cr_assert(log->ints() == v({-1, 0, 1, 2, 3, 4, 5}));
    cr_assert_eq(log->completions, 3);
}

SK_TEST(vocabulary, zip_and_with_latest_from) {
    auto log = std::make_shared<events>();
    record(sk::zip({ints({1, 2, 3}), ints({10, 20})}), log);
    cr_assert_eq(log->values.size(), 2u);
    cr_assert(log->values[0] == pair(1, 10));
    cr_assert(log->values[1] == pair(2, 20));
    auto a = sk::pipe::create(), b = sk::pipe::create();
    log = std::make_shared<events>();
    auto d = record(a.signal() | sk::with_latest_from(b.signal()), log);
    a.put(1);
    b.put(10);
    a.put(2);
    cr_assert_eq(log->values.size(), 1u);
    cr_assert(log->values[0] == pair(2, 10));
    d.dispose();
    auto e = record(a.signal().with_latest_from(b.signal()), log);
    e.dispose();
}

SK_TEST(vocabulary, merge_map_and_group_by) {
    auto inner = sk::pipe::create();
    auto log = std::make_shared<events>();
    auto d = record(ints({1, 2}) | sk::merge_map(1, [inner](std::int64_t) { return inner.signal() | sk::first(); }),
                    log);
    inner.put(5); /* completes the first inner signal: the second starts */
    inner.put(6);
    cr_assert(log->ints() == v({5, 6}));
    cr_assert_eq(log->completions, 1);
    d.dispose();
    auto keys = std::make_shared<events>();
    auto groups = std::make_shared<std::vector<sk::disposable>>();
    auto grouped = ints({1, 2, 3}).group_by([](std::int64_t x) { return x % 2; });
    auto g = grouped.start([keys, groups](const sk::value &group) {
        auto items = group.as<std::vector<sk::value>>();
        keys->values.push_back(items[0]);
        groups->push_back(record(items[1].as<sk::signal>(), keys));
    });
    cr_assert_eq(groups->size(), 2u);
    cr_assert(keys->ints() == v({1, 1, 0, 2, 3}), "each key, then its group's values, in order");
    groups->clear();
    auto h = ints({1}) | sk::group_by([](std::int64_t x) { return x; });
    (void)h;
}

SK_TEST(vocabulary, share_and_replay) {
    auto source = sk::pipe::create();
    auto shared = source.signal() | sk::replay(2);
    auto first = std::make_shared<events>(), second = std::make_shared<events>();
    auto d1 = record(shared, first);
    source.put(1);
    source.put(2);
    source.put(3);
    auto d2 = record(shared, second);
    cr_assert(second->ints() == v({2, 3}));
    d1.dispose();
    d2.dispose();
    auto once = std::make_shared<int>(0);
    auto kept = std::make_shared<std::vector<sk::subscriber>>();
    auto counted = sk::create([once, kept](sk::subscriber s) {
                       ++*once;
                       kept->push_back(std::move(s));
                   }).share();
    auto e1 = record(counted, first), e2 = record(counted | sk::share(), second);
    cr_assert_eq(*once, 1);
    e1.dispose();
    e2.dispose();
    kept->clear();
    // A generator that lets go of its subscriber without an event ends the
    // connection, so each subscriber connects anew (signalkit.h, share).
    auto dropped = std::make_shared<int>(0);
    auto dropping = sk::create([dropped](sk::subscriber) { ++*dropped; }).share();
    auto f1 = record(dropping, first), f2 = record(dropping, second);
    cr_assert_eq(*dropped, 2);
    f1.dispose();
    f2.dispose();
    auto r = source.signal().replay(1);
    (void)r;
}

SK_TEST(vocabulary, buffer_sample_and_retry_count) {
    auto log = std::make_shared<events>();
    record(ints({1, 2, 3}) | sk::buffer_count(2), log);
    cr_assert_eq(log->values.size(), 2u);
    cr_assert(log->values[0] == pair(1, 2));
    auto source = sk::pipe::create(), ticks = sk::pipe::create();
    log = std::make_shared<events>();
    auto d = record(source.signal() | sk::sample(ticks.signal()), log);
    source.put(1);
    source.put(2);
    ticks.put(0);
    ticks.put(0);
    cr_assert(log->ints() == v({2}));
    d.dispose();
    auto attempts = std::make_shared<int>(0);
    auto failing = sk::create([attempts](sk::subscriber sub) {
        ++*attempts;
        sub.put_error("no");
    });
    log = std::make_shared<events>();
    record(failing | sk::retry_count(2), log);
    cr_assert_eq(*attempts, 3);
    cr_assert_eq(log->errors.size(), 1u);
    auto q = signalkit::test::virtual_queue::create("vocabulary");
    log = std::make_shared<events>();
    auto t = record(source.signal().buffer_time(1.0, q) | sk::sample_period(2.0, q), log);
    source.put(7);
    q.advance_to(2.0);
    cr_assert_eq(log->values.size(), 1u);
    cr_assert(log->values[0] == sk::value(std::vector<sk::value>{7}));
    t.dispose();
    auto later = record(failing.retry_count(1, 1.0, q) | sk::buffer_time(1.0, q), log);
    later.dispose();
    auto p = sk::pipe::create().signal().sample_period(1.0, q);
    (void)p;
}

SK_TEST(vocabulary, pipes_that_end) {
    auto pipe = sk::pipe::create();
    auto log = std::make_shared<events>();
    auto d = record(pipe.signal(), log);
    pipe.put(1);
    pipe.put_completion();
    pipe.put(2);
    pipe.put_error("late");
    cr_assert(log->ints() == v({1}));
    cr_assert_eq(log->completions, 1);
    cr_assert_eq(log->errors.size(), 0u);
    auto failed = sk::pipe::create();
    auto later = std::make_shared<events>();
    failed.put_error("gone");
    record(failed.signal(), later);
    cr_assert_eq(later->errors.size(), 1u);
    cr_assert(later->errors[0].as<std::string>() == "gone");
    d.dispose();
}

/* A program's own functions named as operators (filter, take, create...),
 * called unqualified on signalkit types, stay the program's: the
 * pipeables and the free sources are objects, which argument-dependent
 * lookup never finds (they were function templates taking anything, which
 * it found and preferred, and whose static_assert then stopped the build). */
namespace user_code {
template <class T, class P> std::vector<T> filter(const std::vector<T> &items, P keep) {
    std::vector<T> kept;
    for (const auto &item : items) {
        if (keep(item)) {
            kept.push_back(item);
        }
    }
    return kept;
}
template <class T> std::vector<T> take(const std::vector<T> &items, std::size_t n) {
    return std::vector<T>(items.begin(), items.begin() + static_cast<std::ptrdiff_t>(std::min(n, items.size())));
}
inline int create(const sk::value &) { return 7; }
inline std::vector<sk::value> evens(const std::vector<sk::value> &values) {
    return take(filter(values, [](const sk::value &x) { return x.as<std::int64_t>() % 2 == 0; }), 2);
}
} // namespace user_code

SK_TEST(vocabulary, a_programs_own_functions_of_operator_names_stay_its_own) {
    std::vector<sk::value> values{sk::value(1), sk::value(2), sk::value(3), sk::value(4), sk::value(6)};
    std::vector<sk::value> got = user_code::evens(values);
    cr_assert_eq(got.size(), 2u);
    cr_assert_eq(got[0].as<std::int64_t>(), 2);
    cr_assert_eq(got[1].as<std::int64_t>(), 4);
    using user_code::create;
    cr_assert_eq(create(sk::value(1)), 7);
    // The library's own still work, qualified and after a using-directive.
    auto log = std::make_shared<events>();
    record(ints({1, 2, 3, 4}) | sk::filter([](std::int64_t x) { return x % 2 == 0; }) | sk::take(1), log);
    cr_assert(log->ints() == v({2}));
    {
        using namespace signalkit;
        auto more = std::make_shared<events>();
        record(ints({5, 6}) | map([](std::int64_t x) { return x * 10; }), more);
        cr_assert(more->ints() == v({50, 60}));
    }
}

/* The free zip has the bounded forms of signal::zip (docs/operators.md). */
SK_TEST(vocabulary, the_free_zip_takes_the_bounded_forms) {
    auto fast = sk::pipe::create();
    auto slow = sk::pipe::create();
    auto log = std::make_shared<events>();
    auto dropped = std::make_shared<std::vector<std::int64_t>>();
    auto d = record(sk::zip({fast.signal(), slow.signal()}, 1, sk::overflow::drop_newest,
                            [dropped](std::int64_t n, std::uint64_t) { dropped->push_back(n); }),
                    log);
    fast.put(1);
    fast.put(2);
    slow.put(10);
    cr_assert_eq(log->values.size(), 1u);
    cr_assert(*dropped == v({2}));
    d.dispose();
    auto d2 = record(sk::zip({fast.signal(), slow.signal()}, 2, sk::overflow::drop_oldest), log);
    d2.dispose();
}
