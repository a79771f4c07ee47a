/* signalkit::value and value_view: constructors, kinds, typed getters,
 * copies and moves, equality, and conversions at callback boundaries. */
#include "support.hpp"

#include <algorithm>
#include <cfloat>
#include <cmath>
#include <cstring>
#include <limits>

using sk_test::track;

SK_TEST(values, constructors_give_each_kind) {
    cr_assert(sk::value().kind() == sk::kind::nil);
    cr_assert(sk::value(nullptr).is_nil());
    cr_assert(sk::value(true).kind() == sk::kind::boolean);
    cr_assert(sk::value(42).kind() == sk::kind::int64);
    cr_assert(sk::value(std::int64_t{-7}).kind() == sk::kind::int64);
    cr_assert(sk::value(static_cast<unsigned char>(7)).kind() == sk::kind::int64);
    cr_assert(sk::value(1.5).kind() == sk::kind::real);
    cr_assert(sk::value(1.5f).kind() == sk::kind::real);
    cr_assert(sk::value("text").kind() == sk::kind::string);
    cr_assert(sk::value(std::string("text")).kind() == sk::kind::string);
    cr_assert(sk::value(std::string_view("text")).kind() == sk::kind::string);
    cr_assert(sk::value(sk::bytes{1, 2, 3}).kind() == sk::kind::bytes);
    cr_assert(sk::value::from_bytes("ab", 2).kind() == sk::kind::bytes);
    cr_assert(sk::value(std::vector<sk::value>{1, "two", 3.0}).kind() == sk::kind::array);
    cr_assert(sk::value(sk::never()).kind() == sk::kind::signal);
    cr_assert(sk::value::pointer(nullptr).kind() == sk::kind::pointer);
}

SK_TEST(values, typed_getters_read_the_contents) {
    cr_assert_eq(sk::value(true).as<bool>(), true);
    cr_assert_eq(sk::value(42).as<std::int64_t>(), 42);
    cr_assert_eq(sk::value(42).as<int>(), 42);
    cr_assert_eq(sk::value(-3).as<short>(), -3);
    cr_assert_eq(sk::value(2.5).as<double>(), 2.5);
    cr_assert(sk::value("héllo").as<std::string>() == "héllo");
    cr_assert(sk::value(std::string_view("a\0b", 3)).as<std::string_view>() == std::string_view("a\0b", 3));
    cr_assert(sk::value(sk::bytes{1, 0, 255}).as<sk::bytes>() == (sk::bytes{1, 0, 255}));
    auto items = sk::value(std::vector<sk::value>{1, "two", std::vector<sk::value>{3.0}});
    cr_assert_eq(items.size(), 3u);
    cr_assert_eq(items[0].as<int>(), 1);
    cr_assert(items[1].as<std::string>() == "two");
    cr_assert_eq(items[2][0].as<double>(), 3.0);
    auto copy = items.as<std::vector<sk::value>>();
    cr_assert_eq(copy.size(), 3u);
    cr_assert(copy[1] == sk::value("two"));
    int x = 0;
    cr_assert_eq(sk::value::pointer(&x).as<void *>(), static_cast<void *>(&x));
    sk::signal s = sk::never();
    cr_assert(sk::value(s).as<sk::signal>() == s);
}

SK_TEST(values, a_getter_of_another_kind_throws_wrong_kind) {
    try {
        (void)sk::value(1).as<std::string>();
        cr_assert_fail("no exception");
    } catch (const sk::error &e) {
        cr_assert_eq(e.code(), SK_ERR_WRONG_KIND);
        cr_assert(std::strstr(e.what(), "sk_value_get_string") != nullptr, "%s", e.what());
    }
    cr_assert_throw((void)sk::value("x").as<std::int64_t>(), sk::error);
    cr_assert_throw((void)sk::value(1).as<double>(), sk::error);
    cr_assert_throw((void)sk::value().as<bool>(), sk::error);
    cr_assert_throw((void)sk::value(1).size(), sk::error);
    cr_assert_throw((void)sk::value(std::vector<sk::value>{}).operator[](0), sk::error);
    cr_assert_throw((void)sk::value(300).as<std::uint8_t>(), sk::error);
}

/* Unsigned 64-bit integers are range-checked both ways, as the narrower
 * types are when read: value(UINT64_MAX) was int64 -1, and
 * value(-1).as<std::uint64_t>() was 18446744073709551615. */
SK_TEST(values, unsigned_64_bit_integers_are_range_checked) {
    constexpr auto int64_max = std::numeric_limits<std::int64_t>::max();
    cr_assert_eq(sk::value(static_cast<std::uint64_t>(int64_max)).as<std::int64_t>(), int64_max);
    cr_assert_eq(sk::value(std::uint64_t{7}).as<std::uint64_t>(), 7u);
    cr_assert_eq(sk::value(int64_max).as<std::uint64_t>(), static_cast<std::uint64_t>(int64_max));
    cr_assert_eq(sk::value(0).as<std::size_t>(), 0u);
    auto code_of = [](auto f) -> int {
        try {
            f();
        } catch (const sk::error &e) {
            return e.code();
        }
        return SK_OK;
    };
    cr_assert_eq(code_of([] { sk::value v(std::numeric_limits<std::uint64_t>::max()); }), SK_ERR_INVALID_ARGUMENT);
    cr_assert_eq(code_of([] { sk::value v(static_cast<std::uint64_t>(int64_max) + 1); }), SK_ERR_INVALID_ARGUMENT);
    cr_assert_eq(code_of([] { sk::value v(std::numeric_limits<unsigned long long>::max()); }), SK_ERR_INVALID_ARGUMENT);
    cr_assert_eq(code_of([] { (void)sk::value(-1).as<std::uint64_t>(); }), SK_ERR_INVALID_ARGUMENT);
    cr_assert_eq(code_of([] { (void)sk::value(-1).as<std::size_t>(); }), SK_ERR_INVALID_ARGUMENT);
    cr_assert_eq(code_of([] { (void)sk::value(std::numeric_limits<std::int64_t>::min()).as<unsigned long long>(); }),
                 SK_ERR_INVALID_ARGUMENT);
    /* As documented for the narrower types: out of range, not wrong kind. */
    cr_assert_eq(code_of([] { (void)sk::value(300).as<std::int8_t>(); }), SK_ERR_INVALID_ARGUMENT);
    cr_assert_eq(code_of([] { (void)sk::value(-1).as<unsigned>(); }), SK_ERR_INVALID_ARGUMENT);
    /* Only those throw: the other integer constructors stay noexcept. */
    static_assert(noexcept(sk::value(std::int64_t{1})) && noexcept(sk::value(1u)) && noexcept(sk::value(1)),
                  "integers that fit in int64 construct without throwing");
    static_assert(!noexcept(sk::value(std::uint64_t{1})), "an unsigned 64-bit integer may be out of range");
}

SK_TEST(values, copies_share_and_moves_empty) {
    sk::value a("a string long enough to be a heap object of the library");
    long base = sk::live_objects();
    sk::value b = a;
    cr_assert(a == b);
    cr_assert_eq(sk::live_objects(), base, "a copy retains, it allocates nothing");
    sk::value c = std::move(a);
    cr_assert(a.is_nil());
    cr_assert(c == b);
    a = c;
    b = std::move(c);
    cr_assert(c.is_nil());
    cr_assert(a == b);
    auto &same = a;
    a = same;
    cr_assert(a == b);
    sk_value raw = b.detach();
    cr_assert(b.is_nil());
    sk::value adopted = sk::value::adopt(raw);
    cr_assert(adopted == a);
    sk::value borrowed = sk::value::borrow(adopted.get());
    cr_assert(borrowed == adopted);
}

SK_TEST(values, equality_is_structural) {
    cr_assert(sk::value(1) == sk::value(1));
    cr_assert(sk::value(1) != sk::value(2));
    cr_assert(sk::value(1) != sk::value(1.0));
    cr_assert(sk::value("x") == sk::value(std::string("x")));
    cr_assert(sk::value(std::vector<sk::value>{1, "x"}) == sk::value(std::vector<sk::value>{1, "x"}));
}

/* A value compares with anything it is constructible from, either way
 * round, as with the value made from it: `v == 5` did not compile (only
 * `v == sk::value(5)` did), which no C++ user expects of a type built from
 * 5 implicitly. */
SK_TEST(values, compare_with_any_type_they_convert_from) {
    sk::value five(5);
    sk::value_view view(five.get());
    cr_assert(five == 5 && 5 == five && view == 5 && 5 == view);
    cr_assert(five != 6 && 6 != five && !(five != 5) && !(five == 6));
    cr_assert(five == 5u && five == std::int64_t{5} && five == std::uint64_t{5} && five == static_cast<char>(5));
    cr_assert(five != 5.0, "the kinds must match, as for value(5) == value(5.0)");
    cr_assert(five != true && five != "5" && five != nullptr);
    /* An integer no value can hold equals none, without throwing. */
    cr_assert(sk::value(-1) != std::numeric_limits<std::uint64_t>::max());
    cr_assert(!(sk::value(INT64_MAX) == static_cast<std::uint64_t>(INT64_MAX) + 1));
    cr_assert(sk::value(2.5) == 2.5 && sk::value(2.5) == 2.5f && 0.5 != sk::value(2.5));
    cr_assert(sk::value(true) == true && false != sk::value(true));
    cr_assert(sk::value() == nullptr && nullptr == sk::value());
    cr_assert(sk::value("abc") == "abc" && "abc" == sk::value("abc") && sk::value("abc") != "ab");
    cr_assert(sk::value("abc") == std::string("abc") && sk::value("abc") == std::string_view("abc"));
    cr_assert(sk::value(std::string_view("a\0b", 3)) == std::string("a\0b", 3));
    cr_assert(sk::value(std::string_view("a\0b", 3)) != "a");
    const char *null_text = nullptr;
    cr_assert(sk::value("") != null_text && sk::value() != null_text);
    cr_assert((sk::value(sk::bytes{1, 2}) == sk::bytes{1, 2} && sk::value(sk::bytes{1, 2}) != sk::bytes{1}));
    cr_assert((sk::value(std::vector<sk::value>{1, "x"}) == std::vector<sk::value>{1, "x"}));
    sk::signal s = sk::never();
    cr_assert(sk::value(s) == s && s == sk::value(s) && sk::value(s) != sk::never());
    /* In callbacks, where the values are views. */
    std::vector<bool> seen;
    auto d = sk_test::ints({4, 5}).start([&seen](sk::value_view v) { seen.push_back(v == 5); });
    cr_assert(seen == std::vector<bool>({false, true}));
}

enum plain_color { plain_red, plain_green };
enum class shade : short { light = 1, dark = -2 };
enum class switch_state : bool { off, on };
enum class wide : std::uint64_t { top = UINT64_MAX };

/* Enumerations, scoped or not, are values of their underlying type, read
 * back with as<E>() (or an E parameter) within that type's range: they
 * were ambiguous (an unscoped one converts to bool and to double alike) or
 * had no constructor (a scoped one), deep inside the header's overloads. */
SK_TEST(values, enumerations_are_values_of_their_underlying_type) {
    cr_assert(sk::value(plain_green).kind() == sk::kind::int64 && sk::value(plain_green) == 1);
    cr_assert(sk::value(shade::dark).kind() == sk::kind::int64 && sk::value(shade::dark) == -2);
    cr_assert(sk::value(shade::dark) == shade::dark && shade::light != sk::value(shade::dark));
    cr_assert(sk::value(switch_state::on).kind() == sk::kind::boolean && sk::value(switch_state::on) == true);
    cr_assert(sk::value(shade::dark).as<shade>() == shade::dark);
    cr_assert(sk::value(1).as<plain_color>() == plain_green);
    cr_assert(sk::value(true).as<switch_state>() == switch_state::on);
    try {
        (void)sk::value(70000).as<shade>();
        cr_assert_fail("no exception");
    } catch (const sk::error &e) {
        cr_assert_eq(e.code(), SK_ERR_INVALID_ARGUMENT);
    }
    try {
        sk::value top(wide::top);
        cr_assert_fail("no exception");
    } catch (const sk::error &e) {
        cr_assert_eq(e.code(), SK_ERR_INVALID_ARGUMENT);
    }
    cr_assert(sk::value(-1) != wide::top);
    /* Through a pipe, an operator's result and a typed parameter. */
    auto p = sk::pipe::create();
    std::vector<shade> seen;
    auto d = (p.signal() | sk::map([](shade s) { return s == shade::dark ? shade::light : shade::dark; }))
                 .start([&seen](shade s) { seen.push_back(s); });
    p.put(shade::dark);
    p.put(shade::light);
    cr_assert(seen == std::vector<shade>({shade::light, shade::dark}));
    auto promise = sk::value_promise::create(plain_red);
    std::int64_t held = -1;
    auto d2 = promise.signal().start([&held](std::int64_t n) { held = n; });
    cr_assert_eq(held, 0);
    d.dispose();
    d2.dispose();
}

/* An array value is a range of value_view: `for (item : array)` did not
 * compile (only size() and [i] read the items), nor did the standard
 * algorithms over one. */
SK_TEST(values, an_array_is_a_range_of_its_items) {
    sk::value array(std::vector<sk::value>{1, "two", 3.0, std::vector<sk::value>{4}});
    std::vector<sk::value> items;
    for (sk::value_view item : array) {
        items.emplace_back(item);
    }
    cr_assert_eq(items.size(), 4u);
    cr_assert(items[0] == 1 && items[1] == "two" && items[2] == 3.0);
    cr_assert(items[3][0] == 4);
    cr_assert(std::find(array.begin(), array.end(), "two") != array.end());
    cr_assert(std::find(array.begin(), array.end(), 2) == array.end());
    cr_assert_eq(std::count_if(array.begin(), array.end(), [](sk::value_view v) { return v.kind() == sk::kind::int64; }),
                 1);
    cr_assert(std::vector<sk::value>(array.begin(), array.end()) == array.as<std::vector<sk::value>>());
    auto it = array.begin();
    cr_assert(*it++ == 1 && *it == "two");
    sk::value empty(std::vector<sk::value>{});
    cr_assert(empty.begin() == empty.end());
    /* In a callback, over the borrowed value. */
    std::int64_t sum = 0;
    auto d = sk::single(std::vector<sk::value>{1, 2, 3}).start([&sum](sk::value_view v) {
        for (sk::value_view item : v) {
            sum += item.as<std::int64_t>();
        }
    });
    cr_assert_eq(sum, 6);
    /* Another kind throws, as size() does. */
    sk::value number(1);
    cr_assert_throw((void)number.begin(), sk::error);
    cr_assert_throw((void)number.end(), sk::error);
}

/* A float is read from a double (value(1.5f) makes one), rounded to the
 * nearest float, and a long double exactly: both stopped at the
 * static_assert "T is not a type a value converts to", so a typed callback
 * taking a float did not compile. A finite double beyond every float is
 * refused, as the ffi library's f32 refuses it, rather than made infinite. */
SK_TEST(values, floats_and_long_doubles_read_from_doubles) {
    cr_assert_eq(sk::value(1.5f).as<float>(), 1.5f);
    cr_assert_eq(sk::value(0.1).as<float>(), 0.1f);
    cr_assert_eq(sk::value(0.1).as<long double>(), static_cast<long double>(0.1));
    cr_assert_eq(sk::value(-1e300).as<long double>(), static_cast<long double>(-1e300));
    cr_assert(std::isinf(sk::value(HUGE_VAL).as<float>()) && std::isnan(sk::value(NAN).as<float>()));
    cr_assert_eq(sk::value(static_cast<double>(FLT_MAX)).as<float>(), FLT_MAX);
    for (double beyond : {1e300, -1e300, static_cast<double>(FLT_MAX) * 2}) {
        try {
            (void)sk::value(beyond).as<float>();
            cr_assert_fail("no exception for %g", beyond);
        } catch (const sk::error &e) {
            cr_assert_eq(e.code(), SK_ERR_INVALID_ARGUMENT);
        }
    }
    cr_assert_throw((void)sk::value(1).as<float>(), sk::error);
    /* Typed callbacks, and a float result (a double, exact). */
    std::vector<float> seen;
    auto d = (sk::single(0.25) | sk::map([](float x) { return x * 2; }))
                 .start([&seen](float x) { seen.push_back(x); });
    cr_assert(seen == std::vector<float>({0.5f}));
    long double wide = 0;
    auto d2 = sk::single(2.5).start([&wide](long double x) { wide = x; });
    cr_assert_eq(wide, 2.5L);
}

static sk::value make_array() {
    return sk::value(std::vector<sk::value>{"a string long enough to live on the heap", 2});
}

/* `auto item = make_array()[0]` kept a view into the temporary array, freed
 * at the end of the statement (ASan: heap-use-after-free reading it), where
 * the same line over a temporary std::vector copies the item. [i] of a
 * temporary value now gives a value; of a value kept in a variable, a view
 * as before. */
SK_TEST(values, an_item_of_a_temporary_array_is_a_copy) {
    auto item = make_array()[0];
    static_assert(std::is_same<decltype(item), sk::value>::value, "an item of a temporary is owned");
    cr_assert(item == "a string long enough to live on the heap");
    cr_assert(make_array()[1] == 2);
    sk::value kept = make_array();
    auto view = kept[0];
    static_assert(std::is_same<decltype(view), sk::value_view>::value, "an item of a kept value is borrowed");
    cr_assert(view == item);
    const sk::value &ref = kept;
    static_assert(std::is_same<decltype(ref[1]), sk::value_view>::value, "an item of a const value is borrowed");
    cr_assert_throw((void)sk::value(1)[0], sk::error);
    /* A range-for over a temporary keeps it for the loop. */
    std::int64_t sum = 0;
    for (sk::value_view v : sk::value(std::vector<sk::value>{3, 4})) {
        sum += v.as<std::int64_t>();
    }
    cr_assert_eq(sum, 7);
}

static void count_release(void *p) { ++*static_cast<int *>(p); }

SK_TEST(values, a_pointer_release_runs_once_with_the_last_copy) {
    int released = 0;
    {
        sk::value a = sk::value::pointer(&released, count_release);
        sk::value b = a;
        a = sk::value();
        cr_assert_eq(released, 0);
    }
    cr_assert_eq(released, 1);
}

SK_TEST(values, callbacks_convert_by_parameter_type) {
    auto p = sk::pipe::create();
    auto signal = p.signal();
    std::vector<std::string> seen;
    auto d1 = signal.start(track([&](std::int64_t n) { seen.push_back("i" + std::to_string(n)); }));
    auto d2 = (signal | sk::filter([](sk::value_view v) { return v.kind() == sk::kind::string; }))
                  .start(track([&](std::string_view t) { seen.push_back("s" + std::string(t)); }));
    auto d3 = (signal | sk::filter([](const sk::value &v) { return v.kind() == sk::kind::real; }))
                  .start(track([&](double x) { seen.push_back("d" + std::to_string(static_cast<int>(x))); }));
    auto d4 = (signal | sk::filter([](auto v) { return v.kind() == sk::kind::boolean; }))
                  .start(track([&](bool b) { seen.push_back(b ? "true" : "false"); }));
    p.put(1);
    d1.dispose(); /* an int64_t parameter is a promise: a string would terminate */
    p.put("x");
    p.put(2.0);
    p.put(true);
    cr_assert_eq(seen.size(), 4u);
    cr_assert(seen[0] == "i1");
    cr_assert(seen[1] == "sx");
    cr_assert(seen[2] == "d2");
    cr_assert(seen[3] == "true");
    d2.dispose();
    d3.dispose();
    d4.dispose();
}

/* A parameter taken as a non-const lvalue reference (the generator's
 * `sk::subscriber &`, `std::string &` to move the text out) receives the
 * argument made for the call, as one taken by value does; the header passed
 * every argument as an rvalue, so such a callable did not compile (deep
 * inside the header), though any callable is promised. */
SK_TEST(values, parameters_may_be_non_const_lvalue_references) {
    auto source = sk::create(track([](sk::subscriber &s) {
        s.put_next(1);
        s.put_next(2);
        s.put_completion();
    }));
    std::vector<std::string> texts;
    auto d1 = (source | sk::map(track([](std::int64_t &n) { return std::to_string(n); }))
               | sk::filter(track([](sk::value &v) { return v.kind() == sk::kind::string; }))
               | sk::before_next(track([](sk::value_view &) {}))
               | sk::take_until(track([](std::string &) { return sk::take_pass; })))
                  .start(track([&texts](std::string &t) { texts.push_back(std::move(t)); }));
    cr_assert(texts == std::vector<std::string>({"1", "2"}));
    std::int64_t total = 0;
    auto d2 = (source | sk::reduce_left(0, track([](std::int64_t &acc, std::int64_t &n) { return acc + n; }))
               | sk::map_to_signal(track([](sk::value &v) { return sk::single(v); })))
                  .start([&total](std::int64_t n) { total = n; });
    cr_assert_eq(total, 3);
    std::string error;
    auto d3 = (sk::fail("e") | sk::catch_error(track([](std::string &e) { return sk::fail(e + "!"); })))
                  .start(sk::none, track([&error](std::string &e) { error = std::move(e); }));
    cr_assert(error == "e!");
    /* The small-callable path (a lambda capturing one reference). */
    std::int64_t last = 0;
    auto d4 = sk::single(7).start([&last](std::int64_t &n) { last = n; });
    cr_assert_eq(last, 7);
}

SK_TEST(values, results_convert_from_any_value_type) {
    auto source = sk_test::ints({1, 2});
    auto log = std::make_shared<sk_test::events>();
    sk_test::record(source | sk::map([](std::int64_t n) { return n * 10; }), log);
    sk_test::record(source | sk::map([](std::int64_t n) { return std::to_string(n); }), log);
    sk_test::record(source | sk::map([](std::int64_t n) { return n > 1; }), log);
    sk_test::record(source | sk::map([](std::int64_t n) { return n / 2.0; }), log);
    sk_test::record(source | sk::map([](std::int64_t) { return nullptr; }), log);
    sk_test::record(source | sk::map([](std::int64_t n) { return std::vector<sk::value>{n, n}; }), log);
    sk_test::record(source | sk::map([](sk::value_view v) { return v; }), log);
    cr_assert_eq(log->values.size(), 14u);
    cr_assert(log->values[0] == sk::value(10));
    cr_assert(log->values[3] == sk::value("2"));
    cr_assert(log->values[5] == sk::value(true));
    cr_assert(log->values[6] == sk::value(0.5));
    cr_assert(log->values[8].is_nil());
    cr_assert(log->values[11] == sk::value(std::vector<sk::value>{2, 2}));
    cr_assert(log->values[13] == sk::value(2));
    cr_assert_eq(log->completions, 7);
}

SK_TEST(values, a_signal_value_carries_the_signal) {
    auto inner = sk::single(5);
    auto log = std::make_shared<sk_test::events>();
    sk_test::record(sk::single(sk::value(inner)) | sk::switch_to_latest(), log);
    cr_assert(log->ints() == sk_test::v({5}));
}
