/* The catch family (C: test_operators_catch.c, core: Signal_Catch.swift):
 * catch_error, restart, restart_if_error. */
#include "support.hpp"

using sk_test::events;
using sk_test::fails_twice;
using sk_test::ints;
using sk_test::record;
using sk_test::track;
using sk_test::v;

SK_TEST(catch, catch_error) {
    auto log = std::make_shared<events>();
    record(sk::fail("e") | sk::catch_error(track([](std::string_view e) { return sk::single(std::string(e) + "!"); })),
           log);
    record(sk::fail(1) | sk::catch_error([](sk::value_view) { return sk::signal(); }), log);
    cr_assert_eq(log->values.size(), 1u);
    cr_assert(log->values[0].as<std::string>() == "e!");
    cr_assert_eq(log->completions, 2);
}


SK_TEST(catch, restart_stops_with_a_downstream_take) {
    auto log = std::make_shared<events>();
    record(ints({1, 2}) | sk::restart() | sk::take(5), log);
    cr_assert(log->ints() == v({1, 2, 1, 2, 1}));
}


SK_TEST(catch, restart_if_error) {
    auto attempts = std::make_shared<int>(0);
    auto s = fails_twice(attempts);
    auto log = std::make_shared<events>();
    record(s | sk::restart_if_error(), log);
    cr_assert(log->ints() == v({3}));
    cr_assert_eq(log->errors.size(), 0u);
}

