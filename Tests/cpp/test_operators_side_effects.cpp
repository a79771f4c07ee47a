/* The side-effects family (C: test_operators_side_effects.c, core:
 * Signal_SideEffects.swift): before_next, after_next, before_started,
 * before_completed, after_completed, after_disposed. */
#include "support.hpp"

using sk_test::ints;
using sk_test::track;

SK_TEST(side_effects, side_effects_in_order) {
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


SK_TEST(side_effects, after_disposed_on_dispose) {
    auto count = std::make_shared<int>(0);
    auto d = (sk::never() | sk::after_disposed(track([count] { ++*count; }))).start();
    cr_assert_eq(*count, 0);
    d.dispose();
    cr_assert_eq(*count, 1);
}
