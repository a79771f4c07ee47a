/* Operators about errors, repetition, sequencing, side effects and custom
 * generators: catch_error, restart, restart_if_error, queue_signals,
 * throttled, then, deferred, before_next, after_next, before_started,
 * before_completed, after_completed, after_disposed, create_over; and the
 * sources single, fail, complete, never. */
#include "support.hpp"

using sk_test::events;
using sk_test::fails_twice;
using sk_test::ints;
using sk_test::record;
using sk_test::track;
using sk_test::v;

SK_TEST(sequence, sources) {
    auto log = std::make_shared<events>();
    record(sk::single(1), log);
    record(sk::complete(), log);
    record(sk::fail("boom"), log);
    auto d = record(sk::never(), log);
    cr_assert(log->ints() == v({1}));
    cr_assert_eq(log->completions, 2);
    cr_assert_eq(log->errors.size(), 1u);
    cr_assert(log->errors[0].as<std::string>() == "boom");
    d.dispose();
}

SK_TEST(sequence, create_with_a_disposable) {
    auto disposed = std::make_shared<int>(0);
    auto s = sk::create(track([disposed](sk::subscriber sub) {
        sub.put_next(7);
        return sk::disposable::action(track([disposed] { ++*disposed; }));
    }));
    auto log = std::make_shared<events>();
    auto d = record(s, log);
    cr_assert(log->ints() == v({7}));
    cr_assert_eq(*disposed, 0);
    d.dispose();
    cr_assert_eq(*disposed, 1);
    d.dispose();
    cr_assert_eq(*disposed, 1);
}

SK_TEST(sequence, a_subscriber_kept_emits_later) {
    auto kept = std::make_shared<sk::subscriber>();
    auto s = sk::create([kept](sk::subscriber sub) { *kept = sub; });
    auto log = std::make_shared<events>();
    auto d = record(s, log);
    kept->put_next(1);
    kept->put_error("late");
    kept->put_next(2);
    cr_assert(log->ints() == v({1}));
    cr_assert_eq(log->errors.size(), 1u);
    kept->reset();
}

SK_TEST(sequence, create_over_is_a_custom_operator) {
    auto doubled = sk::signal::create_over(ints({1, 2}), track([](sk::subscriber sub) {
        sub.put_next(0);
        sub.put_completion();
    }));
    auto log = std::make_shared<events>();
    record(doubled, log);
    cr_assert(log->ints() == v({0}));
}

SK_TEST(sequence, catch_error) {
    auto log = std::make_shared<events>();
    record(sk::fail("e") | sk::catch_error(track([](std::string_view e) { return sk::single(std::string(e) + "!"); })),
           log);
    record(sk::fail(1) | sk::catch_error([](sk::value_view) { return sk::signal(); }), log);
    cr_assert_eq(log->values.size(), 1u);
    cr_assert(log->values[0].as<std::string>() == "e!");
    cr_assert_eq(log->completions, 2);
}

SK_TEST(sequence, restart_stops_with_a_downstream_take) {
    auto log = std::make_shared<events>();
    record(ints({1, 2}) | sk::restart() | sk::take(5), log);
    cr_assert(log->ints() == v({1, 2, 1, 2, 1}));
}

SK_TEST(sequence, restart_if_error) {
    auto attempts = std::make_shared<int>(0);
    auto s = fails_twice(attempts);
    auto log = std::make_shared<events>();
    record(s | sk::restart_if_error(), log);
    cr_assert(log->ints() == v({3}));
    cr_assert_eq(log->errors.size(), 0u);
}

SK_TEST(sequence, queue_signals_and_throttled) {
    auto log = std::make_shared<events>();
    auto inners = sk::create([](sk::subscriber sub) {
        sub.put_next(sk::value(sk_test::ints({1, 2})));
        sub.put_next(sk::value(sk_test::ints({3})));
        sub.put_completion();
    });
    record(inners | sk::queue_signals(), log);
    record(inners | sk::throttled(), log);
    cr_assert(log->ints() == v({1, 2, 3, 1, 2, 3}));
    cr_assert_eq(log->completions, 2);
}

SK_TEST(sequence, then) {
    auto log = std::make_shared<events>();
    record(ints({1}) | sk::then(ints({2, 3})), log);
    cr_assert(log->ints() == v({1, 2, 3}));
}

SK_TEST(sequence, deferred) {
    auto starts = std::make_shared<int>(0);
    auto s = sk::deferred(track([starts] { return sk::single(++*starts); }));
    auto log = std::make_shared<events>();
    record(s, log);
    record(s, log);
    cr_assert(log->ints() == v({1, 2}));
}

SK_TEST(sequence, side_effects_in_order) {
    auto trace = std::make_shared<std::vector<std::string>>();
    auto s = ints({1}) | sk::before_started(track([trace] { trace->push_back("started"); }))
             | sk::before_next(track([trace](std::int64_t n) { trace->push_back("before " + std::to_string(n)); }))
             | sk::after_next(track([trace](std::int64_t n) { trace->push_back("after " + std::to_string(n)); }))
             | sk::before_completed(track([trace] { trace->push_back("before completed"); }))
             | sk::after_completed(track([trace] { trace->push_back("after completed"); }))
             | sk::after_disposed(track([trace] { trace->push_back("disposed"); }));
    s.start(track([trace](std::int64_t n) { trace->push_back("next " + std::to_string(n)); }), sk::none,
            track([trace] { trace->push_back("completed"); }));
    std::vector<std::string> expected = {"started", "before 1", "next 1", "after 1", "before completed",
                                         "completed", "after completed", "disposed"};
    cr_assert(*trace == expected);
}

SK_TEST(sequence, after_disposed_on_dispose) {
    auto count = std::make_shared<int>(0);
    auto d = (sk::never() | sk::after_disposed(track([count] { ++*count; }))).start();
    cr_assert_eq(*count, 0);
    d.dispose();
    cr_assert_eq(*count, 1);
}
