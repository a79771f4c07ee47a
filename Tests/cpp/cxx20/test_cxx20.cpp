/* What only C++20 has: std::span (bytes) and char8_t (UTF-8 text). A span
 * of bytes was no value (value::from_bytes(s.data(), s.size()) was the way)
 * and bytes could only be read as a copy (as<bytes>()); u8"text" stopped at
 * the pointer static_assert, which sent the user to value::pointer(p), and a
 * std::u8string had no constructor. Built apart from the suite, with both
 * compilers, -std=c++20 (mk/cpp.mk). */
#include "../support.hpp"

#include <array>
#include <cstddef>
#include <span>
#include <string>

#if __cplusplus < 202002L || !defined(SIGNALKIT_HAS_SPAN) || !defined(SIGNALKIT_HAS_CHAR8)
#error "test_cxx20.cpp is compiled as C++20 (-std=c++20), with std::span and char8_t"
#endif

SK_TEST(cxx20, a_span_of_bytes_is_a_bytes_value) {
    std::array<std::uint8_t, 3> raw{1, 0, 255};
    sk::value v{std::span<const std::uint8_t>(raw)};
    cr_assert(v.kind() == sk::kind::bytes);
    cr_assert(v.as<sk::bytes>() == (sk::bytes{1, 0, 255}));
    sk::value from_array(raw); /* any contiguous bytes, through the span */
    cr_assert(from_array == v);
    std::vector<std::byte> bytes{std::byte{7}, std::byte{8}};
    sk::value from_bytes(bytes);
    cr_assert(from_bytes.as<sk::bytes>() == (sk::bytes{7, 8}));
    cr_assert(from_bytes == std::span<const std::byte>(bytes));
    /* A vector of uint8_t is still the bytes constructor's. */
    cr_assert(sk::value(sk::bytes{4}).as<sk::bytes>() == (sk::bytes{4}));
    /* Read as a view of the value's own bytes (valid while it is). */
    std::span<const std::uint8_t> view = v.as<std::span<const std::uint8_t>>();
    cr_assert_eq(view.size(), 3u);
    cr_assert(view[0] == 1 && view[1] == 0 && view[2] == 255);
    std::span<const std::byte> as_bytes = from_bytes.as<std::span<const std::byte>>();
    cr_assert(as_bytes.size() == 2 && as_bytes[1] == std::byte{8});
    cr_assert_throw((void)sk::value("text").as<std::span<const std::uint8_t>>(), sk::error);
    /* A typed callback receives the bytes without a copy. */
    std::size_t total = 0;
    auto d = sk::single(sk::value(raw)).start([&total](std::span<const std::uint8_t> b) {
        for (auto byte : b) {
            total += byte;
        }
    });
    cr_assert_eq(total, 256u);
}

/* Where a value is expected (a put, a promise's set, a single), a byte
 * container converts at once: through a span it took two user conversions,
 * which C++ does not make there ("cannot convert std::vector<std::byte> to
 * const signalkit::value &"). */
static sk::value through_a_parameter(const sk::value &v) {
    return v;
}

SK_TEST(cxx20, byte_containers_convert_where_a_value_is_expected) {
    std::vector<std::byte> bytes{std::byte{1}, std::byte{2}};
    std::array<std::uint8_t, 3> raw{3, 4, 5};
    std::array<std::byte, 1> one{std::byte{6}};
    cr_assert(through_a_parameter(bytes).as<sk::bytes>() == (sk::bytes{1, 2}));
    cr_assert(through_a_parameter(raw).as<sk::bytes>() == (sk::bytes{3, 4, 5}));
    sk::value assigned = one;
    cr_assert(assigned.as<sk::bytes>() == (sk::bytes{6}));
    auto pipe = sk::pipe::create();
    std::vector<sk::bytes> got;
    auto d = pipe.signal().start([&got](std::span<const std::uint8_t> b) { got.emplace_back(b.begin(), b.end()); });
    pipe.put(bytes);
    pipe.put(raw);
    cr_assert(got == (std::vector<sk::bytes>{{1, 2}, {3, 4, 5}}));
    /* A C array still stops at the pointer's static_assert (compile_fail). */
}

SK_TEST(cxx20, char8_t_text_is_a_string_value) {
    sk::value literal(u8"héllo");
    cr_assert(literal.kind() == sk::kind::string);
    cr_assert(literal.as<std::string>() == "h\xc3\xa9llo");
    cr_assert(literal.as<std::u8string>() == u8"héllo");
    cr_assert(literal.as<std::u8string_view>() == std::u8string_view(u8"héllo"));
    cr_assert(sk::value(std::u8string(u8"a\0b", 3)).as<std::string_view>() == std::string_view("a\0b", 3));
    cr_assert(sk::value(std::u8string_view(u8"xy")) == "xy");
    cr_assert(literal == u8"héllo" && u8"héllo" == literal && literal != std::u8string(u8"hello"));
    const char8_t *null_text = nullptr;
    cr_assert(literal != null_text);
    try {
        sk::value v(null_text);
        cr_assert_fail("no exception");
    } catch (const sk::error &e) {
        cr_assert_eq(e.code(), SK_ERR_NULL_ARGUMENT);
    }
    std::u8string seen;
    auto d = (sk::single(u8"ok") | sk::map([](std::u8string_view t) { return std::u8string(t) + u8"!"; }))
                 .start([&seen](const std::u8string &t) { seen = t; });
    cr_assert(seen == u8"ok!");
}
