/* The meta family (C: test_operators_meta.c, core: Signal_Meta.swift):
 * queue_signals, throttled, then, deferred. */
#include "support.hpp"

using sk_test::events;
using sk_test::ints;
using sk_test::record;
using sk_test::track;
using sk_test::v;

SK_TEST(meta, queue_signals_and_throttled) {
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


SK_TEST(meta, then) {
    auto log = std::make_shared<events>();
    record(ints({1}) | sk::then(ints({2, 3})), log);
    cr_assert(log->ints() == v({1, 2, 3}));
}


SK_TEST(meta, deferred) {
    auto starts = std::make_shared<int>(0);
    auto s = sk::deferred(track([starts] { return sk::single(++*starts); }));
    auto log = std::make_shared<events>();
    record(s, log);
    record(s, log);
    cr_assert(log->ints() == v({1, 2}));
}

