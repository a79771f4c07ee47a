/* Signals and their sources (C: test_signals.c): single, fail, complete,
 * never; create, a subscriber kept to emit later, and create_over. */
#include "support.hpp"

using sk_test::events;
using sk_test::ints;
using sk_test::record;
using sk_test::track;
using sk_test::v;

SK_TEST(signals, sources) {
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


SK_TEST(signals, create_with_a_disposable) {
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


SK_TEST(signals, a_subscriber_kept_emits_later) {
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


SK_TEST(signals, create_over_is_a_custom_operator) {
    auto doubled = sk::signal::create_over(ints({1, 2}), track([](sk::subscriber sub) {
        sub.put_next(0);
        sub.put_completion();
    }));
    auto log = std::make_shared<events>();
    record(doubled, log);
    cr_assert(log->ints() == v({0}));
}

