/* Integers wider than 64 bits, in the GNU dialects (-std=gnu++17, CMake's
 * default), where __int128 is an integer type (std::is_integral) and so
 * takes the header's integer paths; under -std=c++17 it is not, and
 * value(__int128) does not compile. A signed one out of the int64 range was
 * truncated without an error (value(2^70) was 0, a map's result 3 * 4e9 *
 * 4e9 arrived as -7340232221128654848): it throws, as an unsigned 64-bit one
 * above INT64_MAX does. Built apart from the suite, with both compilers
 * (mk/cpp.mk). */
#include "../support.hpp"

#include <csignal>
#include <limits>

#if !defined(__SIZEOF_INT128__) || defined(__STRICT_ANSI__)
#error "test_wide_integers.cpp is compiled in a GNU dialect (-std=gnu++17) on a compiler with __int128"
#endif

/* __extension__: __int128 is not ISO C++ (-pedantic would warn). */
__extension__ typedef __int128 int128;
__extension__ typedef unsigned __int128 uint128;

static_assert(std::is_integral<int128>::value, "the GNU dialect makes __int128 an integer type");

template <class I> static int code_of_value(I n) {
    try {
        sk::value v(n);
    } catch (const sk::error &e) {
        return e.code();
    }
    return SK_OK;
}

SK_TEST(wide_integers, a_signed_128_bit_integer_out_of_the_int64_range_throws) {
    constexpr auto int64_min = std::numeric_limits<std::int64_t>::min();
    constexpr auto int64_max = std::numeric_limits<std::int64_t>::max();
    cr_assert_eq(code_of_value(static_cast<int128>(1) << 70), SK_ERR_INVALID_ARGUMENT);
    cr_assert_eq(code_of_value(-(static_cast<int128>(1) << 64) + 5), SK_ERR_INVALID_ARGUMENT);
    cr_assert_eq(code_of_value(static_cast<int128>(int64_max) + 1), SK_ERR_INVALID_ARGUMENT);
    cr_assert_eq(code_of_value(static_cast<int128>(int64_min) - 1), SK_ERR_INVALID_ARGUMENT);
    cr_assert_eq(code_of_value(std::numeric_limits<int128>::max()), SK_ERR_INVALID_ARGUMENT);
    cr_assert_eq(code_of_value(std::numeric_limits<int128>::min()), SK_ERR_INVALID_ARGUMENT);
    cr_assert_eq(code_of_value(std::numeric_limits<uint128>::max()), SK_ERR_INVALID_ARGUMENT);
    cr_assert_eq(code_of_value(static_cast<uint128>(int64_max) + 1), SK_ERR_INVALID_ARGUMENT);
    /* The ends of the range and what is inside are kept exactly. */
    cr_assert_eq(sk::value(static_cast<int128>(int64_max)).as<std::int64_t>(), int64_max);
    cr_assert_eq(sk::value(static_cast<int128>(int64_min)).as<std::int64_t>(), int64_min);
    cr_assert_eq(sk::value(static_cast<int128>(-5)).as<std::int64_t>(), -5);
    cr_assert_eq(sk::value(static_cast<uint128>(int64_max)).as<std::int64_t>(), int64_max);
    static_assert(!noexcept(sk::value(int128{1})) && !noexcept(sk::value(uint128{1})),
                  "an integer wider than 64 bits may be out of range");
}

/* Reading back: every int64 fits in __int128; a negative one does not fit
 * in unsigned __int128 (as for the other unsigned types). */
SK_TEST(wide_integers, reading_as_a_128_bit_integer) {
    constexpr auto int64_min = std::numeric_limits<std::int64_t>::min();
    cr_assert(sk::value(int64_min).as<int128>() == static_cast<int128>(int64_min));
    cr_assert(sk::value(7).as<uint128>() == 7u);
    try {
        (void)sk::value(-1).as<uint128>();
        cr_assert_fail("no exception");
    } catch (const sk::error &e) {
        cr_assert_eq(e.code(), SK_ERR_INVALID_ARGUMENT);
    }
}

SK_TEST(wide_integers, a_map_result_in_the_int64_range_is_exact) {
    auto log = std::make_shared<sk_test::events>();
    sk_test::record(sk_test::ints({-3, 3}) | sk::map([](std::int64_t n) { return static_cast<int128>(n) * 1000000000; }),
                    log);
    cr_assert(log->ints() == sk_test::v({-3000000000, 3000000000}));
}

/* A map's result a value cannot hold ends the stream with an error event
 * (the header's trampoline fails the call: sk_callback_fail). */
SK_TEST(wide_integers, a_map_result_out_of_the_int64_range_is_an_error_event) {
    auto log = std::make_shared<sk_test::events>();
    auto p = sk::pipe::create();
    auto d = sk_test::record(p.signal() | sk::map([](std::int64_t n) {
                                 return n == 1 ? static_cast<int128>(n) : static_cast<int128>(n) * 4000000000 * 4000000000;
                             }),
                             log);
    p.put(1);
    p.put(3);
    p.put(1);
    cr_assert(log->ints() == sk_test::v({1}));
    cr_assert_eq(log->errors.size(), 1u);
    std::string message = log->errors[0].as<std::string>();
    cr_assert(message.rfind("signalkit::map: the callable's result cannot be a value: ", 0) == 0, "%s", message.c_str());
}

/* Comparing with a 128-bit integer: one out of the int64 range equals no
 * value (rather than throwing, as making a value of it does, or comparing
 * its truncation); one inside compares as its int64. */
SK_TEST(wide_integers, comparison_with_a_128_bit_integer) {
    constexpr auto int64_min = std::numeric_limits<std::int64_t>::min();
    cr_assert(sk::value(5) == static_cast<int128>(5) && static_cast<uint128>(5) == sk::value(5));
    cr_assert(sk::value(int64_min) == static_cast<int128>(int64_min));
    cr_assert(sk::value(0) != static_cast<int128>(1) << 64, "2^64 truncates to 0");
    cr_assert(sk::value(-1) != std::numeric_limits<uint128>::max());
    cr_assert(sk::value(int64_min) != -(static_cast<int128>(1) << 64) + int64_min);
}
