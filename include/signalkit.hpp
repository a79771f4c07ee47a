/*
 * signalkit.hpp - a header-only C++17 interface over the C ABI of SignalKit
 * (signalkit.h, which stays the contract: read it for what each operation
 * does). No C++ is compiled into the library; this header includes only
 * signalkit.h and the standard library.
 *
 *     #include <signalkit.hpp>
 *     namespace sk = signalkit;
 *     auto p = sk::pipe::create();
 *     auto d = (p.signal() | sk::map([](int64_t n) { return n + 1; })
 *                          | sk::filter([](int64_t n) { return n % 2 == 0; }))
 *                  .start([](int64_t n) { std::printf("%lld\n", (long long)n); });
 *     p.put(41);                                    // prints 42
 *     d.dispose();
 *
 * Design, in short:
 *
 * - Handles. signal, subscriber, disposable, queue, pipe, promise and
 *   value_promise are reference-counted like their C handles: a copy calls the
 *   C _retain, the destructor the C _release, a move costs nothing; a
 *   default-constructed or moved-from handle is empty (false). `.get()` gives
 *   the borrowed C pointer, `.detach()` hands the reference over to C code;
 *   `T::adopt(p)` takes over a +1 C reference, `T::borrow(p)` retains one.
 *   Releasing a handle never disposes anything (as in C): a subscription runs
 *   until disposed or terminated, whatever happens to its disposable object
 *   (a timer's disposable is the exception: see start_timer). Disposing does
 *   not wait for a callback already running on another thread: see
 *   signal::start for what a callback may refer to.
 *
 * - Errors. Every call that returns a status in C throws signalkit::error (a
 *   std::runtime_error carrying the sk_status, code(), and the text of
 *   sk_last_error_message()) when the status is not SK_OK. Besides those,
 *   exactly these throw: as<T>() (of value and value_view) on a value of
 *   another kind (error with SK_ERR_WRONG_KIND), and, for an integer type
 *   T, on an int64 out of T's range (error with SK_ERR_INVALID_ARGUMENT:
 *   as<std::int8_t>() on 300, as<unsigned>() or as<std::uint64_t>() on -1),
 *   and as<float>() on a finite double beyond every float (1e300; the
 *   others are rounded to the nearest float);
 *   value(n) for an integer n (or an enumerator of that underlying type)
 *   out of the int64 range, never truncated (error with
 *   SK_ERR_INVALID_ARGUMENT): an unsigned 64-bit n above INT64_MAX, or, in
 *   the GNU dialects (-std=gnu++17) where __int128 is an integer type, a
 *   wider n outside [INT64_MIN, INT64_MAX]; comparing a value with bytes,
 *   an array or a signal (v == x makes value(x): std::bad_alloc); queue::sync,
 *   which rethrows its callable's exception; and std::bad_alloc. Inside a
 *   callback, a typed callable given a value its parameter type cannot
 *   take, and a result (map, reduce_left) a value cannot hold (such as an
 *   __int128 out of the int64 range), are not exceptions: see "Values"
 *   below (an error event or a stop of the process).
 *   Exceptions must be on: with -fno-exceptions the header's first error
 *   is an #error saying so (C++ code without exceptions uses signalkit.h).
 *
 * - Callables. Every callback takes any callable (lambda, function object,
 *   function pointer). Each is moved into one heap box handed to C as `ctx`;
 *   the C `release(ctx)` deletes the box, so each callable is destroyed
 *   exactly once, on the thread and at the time signalkit.h gives for that
 *   release (e.g. when the last subscription of an operator's signal is gone).
 *   So a move-only callable (capturing a std::unique_ptr), passed as an
 *   rvalue, works everywhere; a pipeable operator holding one (`auto op =
 *   map(f)`) is applied once, as an rvalue (`s | std::move(op)`): applying
 *   it as an lvalue copies the callable, and stops at a static_assert that
 *   says so.
 *   The per-event path is a direct, inlinable call: no std::function, no
 *   allocation, no virtual call. An exception never unwinds through the
 *   library (the trampolines are noexcept). A callable of map, filter,
 *   skip_while, take_while, first_where, take_until, scan, reduce_left,
 *   group_by (its key), map_to_signal, catch_error, merge_map or deferred,
 *   or start()'s on_next (sk_signal_start_failable), that throws ends the stream with an error event (sk_callback_fail: the
 *   upstream is disposed; a callable returning a signal stands for one
 *   that fails; group_by's groups delivered before end with it too),
 *   whose value is the string "signalkit::NAME: the callable threw: WHAT"
 *   (NAME the operator, WHAT the exception's what()), or "signalkit::NAME:
 *   the callable threw something that is not a std::exception". A side
 *   effect (before_next, after_next, before_started, before_completed,
 *   after_completed, after_disposed) or an on_drop that throws, or whose
 *   parameter cannot take the value, goes to the failure hook
 *   (set_failure_hook()) and the stream goes on, as in Python and Rust. A
 *   callable of any other callback (start()'s on_error and on_completed,
 *   a generator, queue work, a timer) that throws calls std::terminate:
 *   report failures through the stream there (`catch_error`, values of
 *   errors). (queue::sync is the exception: it runs to completion before
 *   returning, so it carries the callable's result or exception back to
 *   the caller.)
 *
 * - Values. signalkit::value owns an sk_value (copy = a retain of heap kinds,
 *   destruction = sk_value_release; nil, bool, int64 and double never touch
 *   the library). value_view is a borrowed, non-owning sk_value, what
 *   callbacks receive. Both read with kind() and as<T>() for T among bool,
 *   any integer type (from int64), any enumeration (from its underlying
 *   type), double, float (rounded), long double, std::string,
 *   std::string_view, bytes (std::vector<std::uint8_t>), std::vector<value>,
 *   signal, void *, and in C++20 std::u8string, std::u8string_view,
 *   std::span<const std::uint8_t> and std::span<const std::byte> (views, as
 *   string_view is, of the value's own bytes: valid while it is). Made from
 *   those types too (text of char8_t: u8"text"; a span's bytes are copied).
 *   An enumeration, scoped or not, is a value of its underlying type (an
 *   int64, or a bool for `enum class E : bool`), except signalkit::kind,
 *   which does not compile as one (`v == kind::nil` would compare with an
 *   int64: write `v.kind() == kind::nil`). An array's items, each a
 *   value_view borrowed from it (of a temporary value, [i] gives a copy, a
 *   value), are read with size() and [i], or iterated:
 *   `for (value_view item : array)` (begin() and end(); an input iterator;
 *   not of a temporary value, where they would dangle, though a range-for
 *   over one works). A
 *   long double is not a value (it would be rounded to the double a value
 *   holds): value(0.1L) stops at a static_assert saying so; write
 *   value(static_cast<double>(x)). Both compare (== and !=) with another
 *   value or view (sk_value_equal: the kinds must match, value(1) !=
 *   value(1.0)) and, either way round, with anything a value is constructible
 *   from, as with the value made from it: v == 5, v == "text", v == nullptr,
 *   v == shade::dark. Integers, enums, bools, floating-point numbers, strings
 *   and nullptr compare in place and never throw: an integer out of the int64
 *   range, or a null char pointer, equals no value.
 *   A callback's parameter type picks the conversion: `value_view` (free) or
 *   `value` / `const value &` (a copy, free for the inline kinds) receive the
 *   value as it is; any other type T receives `as<T>()` (int64_t, double,
 *   std::string_view, ...). A typed lambda is a promise about the stream:
 *   given a value of another kind, or an integer out of T's range, the
 *   callable is not called, and
 *   - map_to_signal and catch_error, whose callables return a signal,
 *     continue with a signal that fails with a string value: "signalkit::
 *     map_to_signal: the callable's parameter cannot take the value:
 *     sk_value_get_int64: value is a string (SK_KIND_STRING), expected an
 *     int64 (SK_KIND_INT64)";
 *   - map, filter, skip_while, take_while, first_where, take_until, scan,
 *     reduce_left, group_by's key and start()'s on_next end the stream with an error event,
 *     the string "signalkit::map: the callable's parameter cannot take the
 *     value: ..." (sk_callback_fail, as for a throw above); so does a
 *     result a value cannot hold ("signalkit::map: the callable's result
 *     cannot be a value: ...");
 *   - a side effect's or an on_drop's goes to the failure hook, as a throw
 *     there does;
 *   - every other callback (start()'s on_error), which has
 *     no error path, stops the process: it writes out what stdio and the
 *     standard iostreams still buffer, prints that message (naming the
 *     callback, "signalkit::start (on_error): ...") on stderr, and calls
 *     std::abort() (no terminate handler runs).
 *   A callable whose parameter type cannot be read (a
 *   generic lambda, `auto`; a std::bind expression; an overloaded or
 *   template operator()) receives value_view: bind a member function with a
 *   typed lambda instead (`[&w](std::int64_t n) { w.on(n); }`). Any
 *   parameter, a generator's subscriber included, may be taken by value or
 *   by reference, const or not, lvalue or rvalue (a reference refers to the
 *   argument made for that call, which the callable may move from). A
 *   result (map, reduce_left) may be anything a value is constructible
 *   from. A pointer is not (it would silently be a bool): value(p) does not
 *   compile; value::pointer(p) makes a user pointer.
 *
 * - Operators. Each sk_signal_* operator is a member of signal (s.map(f)) and
 *   a namespace-scope function object returning a pipeable (s | map(f) |
 *   take(3)); being objects, not functions, argument-dependent lookup
 *   never picks them over a program's own `filter` or `take`. Names follow
 *   the C ones, except: catch_error (sk_signal_catch), queue_signals
 *   (sk_signal_queue). Durations are seconds as double or any
 *   std::chrono::duration. Queues are borrowed where C borrows them: the
 *   signal retains what it needs.
 *
 * Thread-safety is the C library's: handles may be used from any thread;
 * a single handle object (like a std::shared_ptr) must not be assigned from
 * one thread while used from another.
 */
#ifndef SIGNALKIT_HPP
#define SIGNALKIT_HPP

/* MSVC reports the standard in _MSVC_LANG (__cplusplus only with
 * /Zc:__cplusplus). */
#if (defined(_MSVC_LANG) && _MSVC_LANG < 201703L) || (!defined(_MSVC_LANG) && __cplusplus < 201703L)
#error "signalkit.hpp needs C++17 or later (-std=c++17; CMake: SignalKit::signalkit requires cxx_std_17)"
#endif
/* Every failing call throws signalkit::error: without exceptions
 * (-fno-exceptions) the header cannot report failures. GCC and Clang define
 * __cpp_exceptions when exceptions are on, MSVC _CPPUNWIND. */
#if !defined(__cpp_exceptions) && !defined(_CPPUNWIND)
#error "signalkit.hpp reports failures as exceptions (signalkit::error): compile without -fno-exceptions, or use the C API of signalkit.h"
#endif

#include <signalkit.h>

#include <atomic>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <iostream>
#include <iterator>
#include <limits>
#include <memory>
#include <new>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>
/* C++20's std::span (bytes) and char8_t (UTF-8 text), where available. */
#if ((defined(_MSVC_LANG) && _MSVC_LANG >= 202002L) || __cplusplus >= 202002L) && defined(__has_include)
#if __has_include(<span>)
#include <span>
#endif
#endif
#if defined(__cpp_lib_span) && __cpp_lib_span >= 202002L
#define SIGNALKIT_HAS_SPAN 1
#endif
#if defined(__cpp_char8_t) && defined(__cpp_lib_char8_t)
#define SIGNALKIT_HAS_CHAR8 1
#endif

namespace signalkit {

/* ------------------------------------------------------------------------ */
/* Errors                                                                    */
/* ------------------------------------------------------------------------ */

/* A failed C call: code() is its sk_status, what() the library's message. */
class error : public std::runtime_error {
public:
    /* An error of status `code` (an sk_status) whose what() is `message`:
     * what the header throws; a program may throw one too. */
    error(int code, const std::string &message) : std::runtime_error(message), code_(code) {}
    /* The sk_status of the failure (SK_ERR_WRONG_KIND, ...). */
    int code() const noexcept { return code_; }
    /* A short English description of code(), "null argument" say
     * (sk_status_string): a static string, "unknown status" for an int that
     * is not an sk_status. */
    const char *status_string() const noexcept { return sk_status_string(code_); }

private:
    int code_;
};

namespace detail {
/* Out of line, so that the calls that check a status stay small. */
#if defined(__GNUC__)
#define SIGNALKIT_COLD __attribute__((noinline, cold))
#else
#define SIGNALKIT_COLD
#endif
[[noreturn]] SIGNALKIT_COLD inline void throw_status(int status) {
    const char *message = sk_last_error_message();
    throw error(status, (message != nullptr && message[0] != '\0') ? message : sk_status_string(status));
}
inline void check(int status) {
    if (status != SK_OK) {
        throw_status(status);
    }
}
} // namespace detail

/* The failure hook: what a side effect (before_next, after_next,
 * before_started, before_completed, after_completed, after_disposed) or a
 * bounded operator's on_drop that throws, or that cannot take its argument,
 * comes to: hook(where, what), `where` the callback's name ("before_next",
 * "on_drop"), `what` the exception's what() (or "something that is not a
 * std::exception"); the stream goes on, as in Python and Rust
 * (docs/misuse.md, "A callback that fails"). Called on the thread that
 * called the callback, never under a library lock; it must not throw. The
 * default (nullptr) prints "signalkit: WHERE threw: WHAT (the stream goes
 * on)" on stderr. */
using failure_hook_fn = void (*)(const char *where, const char *what);

namespace detail {
inline std::atomic<failure_hook_fn> &failure_hook_slot() noexcept {
    static std::atomic<failure_hook_fn> slot{nullptr};
    return slot;
}
/* Called from inside a catch block: the exception in flight to the hook. */
SIGNALKIT_COLD inline void report_failure(const char *where) noexcept {
    failure_hook_fn hook = failure_hook_slot().load(std::memory_order_acquire);
    try {
        throw;
    } catch (const std::exception &e) {
        if (hook != nullptr) {
            hook(where, e.what());
        } else {
            std::fprintf(stderr, "signalkit: %s threw: %s (the stream goes on)\n", where, e.what());
        }
    } catch (...) {
        const char *what = "something that is not a std::exception";
        if (hook != nullptr) {
            hook(where, what);
        } else {
            std::fprintf(stderr, "signalkit: %s threw: %s (the stream goes on)\n", where, what);
        }
    }
}
} // namespace detail

/* Sets the failure hook (nullptr: the default); returns the one before.
 * Thread-safe. */
inline failure_hook_fn set_failure_hook(failure_hook_fn hook) noexcept {
    return detail::failure_hook_slot().exchange(hook, std::memory_order_acq_rel);
}

/* ------------------------------------------------------------------------ */
/* Handles                                                                   */
/* ------------------------------------------------------------------------ */

namespace detail {
template <class T> struct ref_traits;
#define SIGNALKIT_REF_TRAITS(type)                                             \
    template <> struct ref_traits<type> {                                      \
        static void retain(type *p) noexcept { type##_retain(p); }             \
        static void release(type *p) noexcept { type##_release(p); }           \
    };
SIGNALKIT_REF_TRAITS(sk_signal)
SIGNALKIT_REF_TRAITS(sk_subscriber)
SIGNALKIT_REF_TRAITS(sk_disposable)
SIGNALKIT_REF_TRAITS(sk_queue)
SIGNALKIT_REF_TRAITS(sk_pipe)
SIGNALKIT_REF_TRAITS(sk_promise)
SIGNALKIT_REF_TRAITS(sk_value_promise)
#undef SIGNALKIT_REF_TRAITS

/* The shared part of every handle class: one C reference, or none. */
template <class T, class Derived> class handle {
public:
    using c_type = T;
    handle() noexcept = default;
    handle(const handle &other) noexcept : p_(other.p_) { ref_traits<T>::retain(p_); }
    handle(handle &&other) noexcept : p_(other.p_) { other.p_ = nullptr; }
    handle &operator=(const handle &other) noexcept {
        T *old = p_;
        p_ = other.p_;
        ref_traits<T>::retain(p_);
        ref_traits<T>::release(old);
        return *this;
    }
    handle &operator=(handle &&other) noexcept {
        if (this != &other) {
            T *old = p_;
            p_ = other.p_;
            other.p_ = nullptr;
            ref_traits<T>::release(old);
        }
        return *this;
    }
    ~handle() { ref_traits<T>::release(p_); }

    /* Takes over a +1 reference. */
    static Derived adopt(T *p) noexcept {
        Derived d;
        d.p_ = p;
        return d;
    }
    /* Retains a borrowed pointer. */
    static Derived borrow(T *p) noexcept {
        ref_traits<T>::retain(p);
        return adopt(p);
    }
    /* The C pointer, borrowed (valid while this handle holds it). */
    T *get() const noexcept { return p_; }
    /* Gives the reference up (+1 for the caller); the handle becomes empty. */
    T *detach() noexcept {
        T *p = p_;
        p_ = nullptr;
        return p;
    }
    /* Drops the reference now. */
    void reset() noexcept { ref_traits<T>::release(detach()); }
    /* Names the handle in live_objects_report() (sk_handle_set_name: kept
     * only while handle checking is on; nullptr removes the name). */
    void set_name(const char *name) const { detail::check(sk_handle_set_name(p_, name)); }
    void set_name(const std::string &name) const { set_name(name.c_str()); }
    explicit operator bool() const noexcept { return p_ != nullptr; }
    friend bool operator==(const handle &a, const handle &b) noexcept { return a.p_ == b.p_; }
    friend bool operator!=(const handle &a, const handle &b) noexcept { return a.p_ != b.p_; }

protected:
    T *p_ = nullptr;
};
} // namespace detail

class value;
class value_view;
class signal;
class subscriber;
class disposable;
class queue;

/* ------------------------------------------------------------------------ */
/* Durations                                                                 */
/* ------------------------------------------------------------------------ */

/* Seconds, from a double or any std::chrono::duration. */
struct seconds_t {
    /* The number of seconds the C function is given: a negative or NaN
     * one makes the call throw error (SK_ERR_INVALID_ARGUMENT); the rest is
     * in signalkit.h's conventions. */
    double count;
    /* `s` seconds (implicit: `debounce(0.25, q)`). */
    seconds_t(double s) noexcept : count(s) {}
    /* A std::chrono::duration, converted to seconds as a double (implicit:
     * `debounce(std::chrono::milliseconds(250), q)`). */
    template <class Rep, class Period>
    seconds_t(std::chrono::duration<Rep, Period> d) noexcept
        : count(std::chrono::duration_cast<std::chrono::duration<double>>(d).count()) {}
};

/* ------------------------------------------------------------------------ */
/* Values                                                                    */
/* ------------------------------------------------------------------------ */

/* The kind of a value, as kind() reads it: sk_kind's (nil, boolean, int64,
 * real for a double, string, bytes, array, pointer, signal). Not a value
 * itself: `v.kind() == kind::nil` tests a value's kind. */
enum class kind {
    nil = SK_KIND_NIL,
    boolean = SK_KIND_BOOL,
    int64 = SK_KIND_INT64,
    real = SK_KIND_DOUBLE,
    string = SK_KIND_STRING,
    bytes = SK_KIND_BYTES,
    array = SK_KIND_ARRAY,
    pointer = SK_KIND_POINTER,
    signal = SK_KIND_SIGNAL
};

/* A byte string, as value::as<bytes>() returns it. */
using bytes = std::vector<std::uint8_t>;

namespace detail {
/* Whether integer type I has values out of the int64 range: an unsigned
 * 64-bit type, and any type wider than 64 bits (__int128 and unsigned
 * __int128 are integer types in the GNU dialects, -std=gnu++17: CMake's
 * default). int64 has 63 value bits. */
template <class I> struct exceeds_int64 : std::bool_constant<(std::numeric_limits<I>::digits > 63)> {};
/* Whether n of such a type is in the int64 range. Only a signed type is
 * checked against INT64_MIN: converted to an unsigned type it is 2^63. */
template <class I> constexpr bool in_int64_range(I n) noexcept {
    if constexpr (std::is_signed<I>::value) {
        if (n < static_cast<I>(std::numeric_limits<std::int64_t>::min())) {
            return false;
        }
    }
    return n <= static_cast<I>(std::numeric_limits<std::int64_t>::max());
}
/* Whether P is an object, function or member pointer other than a C string
 * (char *), which value() rejects at compile time. */
template <class P>
struct is_non_string_pointer
    : std::bool_constant<(std::is_member_pointer<P>::value ||
                          (std::is_pointer<P>::value &&
                           !std::is_same<std::remove_cv_t<std::remove_pointer_t<P>>, char>::value
#if defined(SIGNALKIT_HAS_CHAR8)
                           && !std::is_same<std::remove_cv_t<std::remove_pointer_t<P>>, char8_t>::value
#endif
                           ))> {};
/* Whether P points to characters other than char (and char8_t) or to
 * bytes: text in another encoding, or a byte buffer. */
template <class P, class = void> struct is_char_pointer : std::false_type {};
template <class P>
struct is_char_pointer<P, std::enable_if_t<std::is_pointer<P>::value>>
    : std::bool_constant<std::is_same<std::remove_cv_t<std::remove_pointer_t<P>>, wchar_t>::value ||
                         std::is_same<std::remove_cv_t<std::remove_pointer_t<P>>, char16_t>::value ||
                         std::is_same<std::remove_cv_t<std::remove_pointer_t<P>>, char32_t>::value ||
                         std::is_same<std::remove_cv_t<std::remove_pointer_t<P>>, signed char>::value ||
                         std::is_same<std::remove_cv_t<std::remove_pointer_t<P>>, unsigned char>::value ||
                         std::is_same<std::remove_cv_t<std::remove_pointer_t<P>>, std::byte>::value> {};
/* Whether T is text compared in place: a C string, std::string(_view),
 * and their char8_t forms (C++20). */
template <class U>
struct is_text : std::bool_constant<std::is_same<U, const char *>::value || std::is_same<U, char *>::value ||
                                    std::is_same<U, std::string>::value || std::is_same<U, std::string_view>::value
#if defined(SIGNALKIT_HAS_CHAR8)
                                    || std::is_same<U, const char8_t *>::value || std::is_same<U, char8_t *>::value ||
                                    std::is_same<U, std::u8string>::value ||
                                    std::is_same<U, std::u8string_view>::value
#endif
                                    > {};
template <class T> struct reader_as;
template <class Derived> class reader;
/* Whether T is a value, a value_view or derived from one: what reader's
 * own comparison takes. */
template <class T>
struct is_reader : std::disjunction<std::is_base_of<reader<value>, T>, std::is_base_of<reader<value_view>, T>> {};
/* Whether `v == x` compares v with value(x): x is of a type a value is
 * constructible from (a pointer or a long double included, so that comparing
 * with one stops at the constructor's static_assert, which says why). */
template <class T>
struct is_value_operand
    : std::conjunction<std::negation<is_reader<T>>, std::is_constructible<value, const T &>> {};
template <class T> bool equals_operand(const sk_value *v, const T &x);

/* An array's items in order, each a value_view borrowed from the array
 * (valid while the array is): what reader's begin() and end() return. An
 * input iterator, as each item is made when it is read. */
class array_iterator {
public:
    using iterator_category = std::input_iterator_tag;
    using value_type = value_view;
    using difference_type = std::ptrdiff_t;
    using pointer = void;
    using reference = value_view;
    array_iterator() noexcept = default;
    array_iterator(const sk_value *array, std::size_t index) noexcept : array_(array), index_(index) {}
    value_view operator*() const;
    array_iterator &operator++() noexcept {
        ++index_;
        return *this;
    }
    array_iterator operator++(int) noexcept {
        array_iterator old = *this;
        ++index_;
        return old;
    }
    friend bool operator==(const array_iterator &a, const array_iterator &b) noexcept {
        return a.array_ == b.array_ && a.index_ == b.index_;
    }
    friend bool operator!=(const array_iterator &a, const array_iterator &b) noexcept { return !(a == b); }

private:
    const sk_value *array_ = nullptr;
    std::size_t index_ = 0;
};

/* The read side shared by value and value_view. */
template <class Derived> class reader {
public:
    signalkit::kind kind() const noexcept { return static_cast<signalkit::kind>(sk_value_kind(raw())); }
    bool is_nil() const noexcept { return kind() == signalkit::kind::nil; }
    /* The contents as T (see the top of the file); throws error
     * (SK_ERR_WRONG_KIND) when the value has another kind, and error
     * (SK_ERR_INVALID_ARGUMENT) when T is an integer type that cannot hold
     * the int64. */
    template <class T> T as() const { return reader_as<T>::get(raw()); }
    /* The number of items of an array (throws for other kinds). */
    std::size_t size() const {
        std::size_t n = 0;
        check(sk_value_get_array_count(raw(), &n));
        return n;
    }
    /* Item `index` of an array, borrowed from it. */
    value_view operator[](std::size_t index) const;
    /* An array's items, borrowed from it: `for (value_view item : array)`,
     * std::find(array.begin(), array.end(), 5). begin() and end() throw, as
     * size() does, for a value of another kind. */
    array_iterator begin() const {
        (void)size(); /* throws for a value of another kind */
        return array_iterator(raw(), 0);
    }
    array_iterator end() const { return array_iterator(raw(), size()); }

    template <class Other> bool operator==(const reader<Other> &other) const noexcept {
        return sk_value_equal(raw(), other.raw());
    }
    template <class Other> bool operator!=(const reader<Other> &other) const noexcept {
        return !sk_value_equal(raw(), other.raw());
    }
    /* Comparison with anything a value is constructible from, either way
     * round (v == 5, "text" != v, v == nullptr, v == shade::dark): whether
     * this value equals value(x) (sk_value_equal: the kinds must match, so
     * value(1) == 1.0 is false). Booleans, integers, enums, floating-point
     * numbers, strings and nullptr are compared in place, without making a
     * value, and never throw: an integer out of the int64 range, or a null
     * char pointer, equals no value. Other operands (bytes, arrays, signals)
     * are made into a value first, which may throw what making it throws
     * (std::bad_alloc). */
    template <class T, std::enable_if_t<is_value_operand<T>::value, int> = 0>
    friend bool operator==(const reader &a, const T &x) {
        return equals_operand(a.raw(), x);
    }
    template <class T, std::enable_if_t<is_value_operand<T>::value, int> = 0>
    friend bool operator==(const T &x, const reader &a) {
        return equals_operand(a.raw(), x);
    }
    template <class T, std::enable_if_t<is_value_operand<T>::value, int> = 0>
    friend bool operator!=(const reader &a, const T &x) {
        return !equals_operand(a.raw(), x);
    }
    template <class T, std::enable_if_t<is_value_operand<T>::value, int> = 0>
    friend bool operator!=(const T &x, const reader &a) {
        return !equals_operand(a.raw(), x);
    }
    const sk_value *raw() const noexcept { return static_cast<const Derived *>(this)->get(); }
};
} // namespace detail

/* A borrowed sk_value: what callbacks receive. Valid while the value it
 * points at is (for a callback: during the call); copy it into a value to
 * keep it. */
class value_view : public detail::reader<value_view> {
public:
    /* Views `v`, borrowed, not copied: `v` must stay valid while the view
     * is used. */
    explicit value_view(const sk_value *v) noexcept : v_(v) {}
    /* The viewed sk_value, borrowed. */
    const sk_value *get() const noexcept { return v_; }

private:
    const sk_value *v_;
};

/* An owned sk_value. */
class value : public detail::reader<value> {
public:
    /* A nil value. */
    value() noexcept { set_nil(); }
    /* A nil value, as value() (`v = nullptr`). */
    value(std::nullptr_t) noexcept { set_nil(); }
    /* A bool. */
    value(bool b) noexcept {
        v_.kind = SK_KIND_BOOL;
        v_.u.int64 = 0;
        v_.u.boolean = b;
    }
    /* Any integer type, as int64; an integer out of the int64 range (an
     * unsigned 64-bit one above INT64_MAX; a wider one, such as __int128,
     * outside [INT64_MIN, INT64_MAX]) throws error (SK_ERR_INVALID_ARGUMENT),
     * the only integers that can. */
    template <class I, std::enable_if_t<std::is_integral<I>::value && !std::is_same<I, bool>::value, int> = 0>
    value(I n) noexcept(!detail::exceeds_int64<I>::value) {
        if constexpr (detail::exceeds_int64<I>::value) {
            if (!detail::in_int64_range(n)) {
                throw error(SK_ERR_INVALID_ARGUMENT, "signalkit::value: the integer is out of the int64 range");
            }
        }
        v_.kind = SK_KIND_INT64;
        v_.u.int64 = static_cast<std::int64_t>(n);
    }
    /* An enumeration (scoped or not), as its underlying type: an integer
     * (or a bool, for an enum whose underlying type is bool). as<E>() reads
     * it back, refusing an int64 out of the underlying type's range. */
    template <class E, std::enable_if_t<std::is_enum<E>::value && !std::is_same<E, signalkit::kind>::value, int> = 0>
    value(E e) noexcept(!detail::exceeds_int64<std::underlying_type_t<E>>::value)
        : value(static_cast<std::underlying_type_t<E>>(e)) {}
    /* Except signalkit::kind: `v == kind::nil` would compare v with an
     * int64 (false for a nil v), where `v.kind() == kind::nil` is meant. */
    template <class E, std::enable_if_t<std::is_same<E, signalkit::kind>::value, int> = 0> value(E) {
        static_assert(sizeof(E) == 0, "signalkit::value: a signalkit::kind is not a value; to test a value's kind, "
                                      "compare v.kind() == signalkit::kind::...");
    }
    /* A long double is not a value: a value holds a double, which would
     * round it (0.1L) or overflow (1e400L); say which double is meant. */
    template <class F, std::enable_if_t<std::is_same<F, long double>::value, int> = 0> value(F) {
        static_assert(sizeof(F) == 0, "signalkit::value: a long double does not convert to a value (a value holds "
                                      "a double, which would round it); convert it explicitly: "
                                      "value(static_cast<double>(x))");
    }
    /* A pointer is not a value (it would convert to bool): see below. */
    template <class P, std::enable_if_t<detail::is_non_string_pointer<P>::value && !detail::is_char_pointer<P>::value,
                                        int> = 0>
    value(P) {
        static_assert(sizeof(P) == 0, "signalkit::value: a pointer does not convert to a value (C++ would make it "
                                      "a bool); use signalkit::value::pointer(p) for a user pointer (a function "
                                      "pointer: store it in an object and pass that object's address)");
    }
    /* A pointer to other characters or bytes (L"text", an unsigned char
     * buffer) is most likely text or bytes, not a user pointer: say so. */
    template <class P, std::enable_if_t<detail::is_char_pointer<P>::value, int> = 0> value(P) {
        static_assert(sizeof(P) == 0, "signalkit::value: a pointer to wchar_t, char16_t, char32_t, signed char, "
                                      "unsigned char or std::byte is not text: a value's text is UTF-8 (const char *, "
                                      "std::string, u8\"...\" in C++20); bytes are value::from_bytes(p, length)");
    }
    /* A double (a float too, exactly). */
    value(double d) noexcept {
        v_.kind = SK_KIND_DOUBLE;
        v_.u.real = d;
    }
    /* A string: a copy of NUL-terminated UTF-8 text (sk_value_set_string);
     * a null `text` throws error (SK_ERR_NULL_ARGUMENT). */
    value(const char *text) {
        set_nil();
        detail::check(sk_value_set_string(&v_, text));
    }
    /* A string: a copy of the text, embedded NULs included
     * (sk_value_set_string_n). */
    value(std::string_view text) {
        set_nil();
        detail::check(sk_value_set_string_n(&v_, text.data(), text.size()));
    }
    /* A string: a copy of the text, embedded NULs included. */
    value(const std::string &text) : value(std::string_view(text)) {}
#if defined(SIGNALKIT_HAS_CHAR8)
    /* C++20's UTF-8 text: u8"text", std::u8string, std::u8string_view. */
    value(const char8_t *text) : value(reinterpret_cast<const char *>(text)) {}
    value(std::u8string_view text) : value(std::string_view(reinterpret_cast<const char *>(text.data()), text.size())) {}
    value(const std::u8string &text) : value(std::u8string_view(text)) {}
#endif
#if defined(SIGNALKIT_HAS_SPAN)
    /* Bytes from contiguous bytes (copied), C++20: a span, or what converts
     * to one, such as a std::array or a std::vector<std::byte> (a C array
     * decays to a pointer first, refused above: write std::span(array)). */
    value(std::span<const std::uint8_t> data) {
        set_nil();
        detail::check(sk_value_set_bytes(&v_, data.data(), data.size()));
    }
    value(std::span<const std::byte> data) {
        set_nil();
        detail::check(sk_value_set_bytes(&v_, data.data(), data.size()));
    }
    /* The same for what converts to one of those spans (a std::array of
     * bytes, a std::vector<std::byte>), taken directly: a conversion to a
     * value through a span would be two user conversions, which C++ does
     * not make where a value is expected (pipe.put(v), a value argument). */
    template <class R, std::enable_if_t<!std::is_array<R>::value &&
                                            (std::is_convertible<const R &, std::span<const std::uint8_t>>::value ||
                                             std::is_convertible<const R &, std::span<const std::byte>>::value),
                                        int> = 0>
    value(const R &range) : value(byte_span(range)) {}

private:
    /* The span of `range` that one of the constructors above takes. */
    template <class R> static auto byte_span(const R &range) {
        if constexpr (std::is_convertible<const R &, std::span<const std::uint8_t>>::value) {
            return std::span<const std::uint8_t>(range);
        } else {
            return std::span<const std::byte>(range);
        }
    }

public:
#endif
    /* Bytes: a copy of `data` (sk_value_set_bytes). */
    value(const bytes &data) {
        set_nil();
        detail::check(sk_value_set_bytes(&v_, data.data(), data.size()));
    }
    /* An array of the items, copied (a retain for heap kinds;
     * sk_value_set_array): nesting deeper than SK_VALUE_MAX_DEPTH throws
     * error (SK_ERR_INVALID_ARGUMENT). */
    value(const std::vector<value> &items) {
        set_nil();
        static_assert(sizeof(value) == sizeof(sk_value), "value is an sk_value");
        detail::check(sk_value_set_array(&v_, items.empty() ? nullptr : items.front().get(), items.size()));
    }
    /* A value holding the signal `s`, retained (sk_value_set_signal); an
     * empty `s` throws error (SK_ERR_NULL_ARGUMENT). */
    value(const signal &s);

    /* Bytes from memory (copied). */
    static value from_bytes(const void *data, std::size_t length) {
        value v;
        detail::check(sk_value_set_bytes(&v.v_, data, length));
        return v;
    }
    /* A user pointer; `release(pointer)`, if given, runs when the last copy
     * is released (also if this call throws). */
    static value pointer(void *p, sk_release_fn release = nullptr) {
        value v;
        detail::check(sk_value_set_pointer(&v.v_, p, release));
        return v;
    }
    /* Takes over an owned sk_value. */
    static value adopt(const sk_value &owned) noexcept {
        value v;
        v.v_ = owned;
        return v;
    }
    /* Copies a borrowed sk_value (a retain for heap kinds). */
    static value borrow(const sk_value *borrowed) {
        value v;
        v.copy_from(borrowed);
        return v;
    }

    /* A copy of `other`: a heap kind's immutable contents are shared,
     * retained (sk_value_copy), not duplicated. */
    value(const value &other) { copy_from(&other.v_); }
    /* A copy of the viewed value, as above: how a callback keeps its
     * argument beyond the call. */
    value(value_view other) { copy_from(other.get()); }
    /* Takes over `other`'s contents; `other` becomes nil. */
    value(value &&other) noexcept : v_(other.v_) { other.set_nil(); }
    /* Replaces the contents with a copy of `other`'s, releasing the old ones;
     * if the copy throws, this value is unchanged. */
    value &operator=(const value &other) {
        if (this != &other) {
            value copy(other);
            swap(copy);
        }
        return *this;
    }
    /* Takes over `other`'s contents, releasing the old ones; `other`
     * becomes nil. */
    value &operator=(value &&other) noexcept {
        value moved(std::move(other));
        swap(moved);
        return *this;
    }
    ~value() {
        if (v_.kind > SK_KIND_DOUBLE) {
            sk_value_release(&v_);
        }
    }
    /* Exchanges the contents of the two values (no retain, no release). */
    void swap(value &other) noexcept { std::swap(v_, other.v_); }

    /* The owned sk_value, borrowed: valid while this value lives and is not
     * assigned to or moved from. */
    const sk_value *get() const noexcept { return &v_; }
    /* Item `index` of an array: borrowed from this value, or, from a
     * temporary value, a copy, so that `auto item = make_array()[0]` owns
     * its item as it would from a temporary std::vector (a view into the
     * array destroyed at the end of that statement was a use after free). */
    value_view operator[](std::size_t index) const & { return detail::reader<value>::operator[](index); }
    /* Item `index` of a temporary array: a copy, which outlives the array
     * (see above). Throws as the borrowing one does. */
    value operator[](std::size_t index) && { return value(detail::reader<value>::operator[](index)); }
    /* Iterators borrow from this value: not from a temporary, gone at the
     * end of the statement (`for (value_view item : make_array())` keeps
     * the temporary for the loop, so that works). */
    detail::array_iterator begin() const & { return detail::reader<value>::begin(); }
    /* The end of the items, as begin() (throws, as size() does, for a value
     * of another kind). */
    detail::array_iterator end() const & { return detail::reader<value>::end(); }
    detail::array_iterator begin() && = delete;
    detail::array_iterator end() && = delete;
    /* Gives the owned sk_value up; this value becomes nil. */
    sk_value detach() noexcept {
        sk_value v = v_;
        set_nil();
        return v;
    }

private:
    void set_nil() noexcept {
        v_.kind = SK_KIND_NIL;
        v_.u.int64 = 0;
    }
    void copy_from(const sk_value *src) {
        if (src != nullptr && src->kind <= SK_KIND_DOUBLE) {
            v_ = *src;
        } else {
            set_nil();
            detail::check(sk_value_copy(&v_, src));
        }
    }
    sk_value v_;
};

namespace detail {
/* The bytes of a text operand (is_text). */
inline std::string_view text_of(std::string_view text) noexcept { return text; }
#if defined(SIGNALKIT_HAS_CHAR8)
inline std::string_view text_of(std::u8string_view text) noexcept {
    return std::string_view(reinterpret_cast<const char *>(text.data()), text.size());
}
#endif
/* reader's comparison with a non-value operand (see there). */
template <class T> bool equals_operand(const sk_value *v, const T &x) {
    using U = std::decay_t<T>;
    const sk_kind k = sk_value_kind(v);
    if constexpr (std::is_enum<U>::value && !std::is_same<U, signalkit::kind>::value) {
        return equals_operand(v, static_cast<std::underlying_type_t<U>>(x));
    } else if constexpr (std::is_same<U, std::nullptr_t>::value) {
        return k == SK_KIND_NIL;
    } else if constexpr (std::is_same<U, bool>::value) {
        bool b = false;
        return k == SK_KIND_BOOL && sk_value_get_bool(v, &b) == SK_OK && b == x;
    } else if constexpr (std::is_integral<U>::value) {
        std::int64_t n = 0;
        if (k != SK_KIND_INT64 || sk_value_get_int64(v, &n) != SK_OK) {
            return false;
        }
        if constexpr (exceeds_int64<U>::value) {
            if (!in_int64_range(x)) {
                return false;
            }
        }
        return n == static_cast<std::int64_t>(x);
    } else if constexpr (std::is_same<U, double>::value || std::is_same<U, float>::value) {
        double d = 0;
        return k == SK_KIND_DOUBLE && sk_value_get_double(v, &d) == SK_OK && d == static_cast<double>(x);
    } else if constexpr (is_text<U>::value) {
        if constexpr (std::is_pointer<T>::value) {
            if (x == nullptr) {
                return false;
            }
        }
        const char *text = nullptr;
        std::size_t length = 0;
        if (k != SK_KIND_STRING || sk_value_get_string(v, &text, &length) != SK_OK) {
            return false;
        }
        return std::string_view(text, length) == text_of(x);
    } else {
        return sk_value_equal(v, value(x).get());
    }
}
} // namespace detail

/* ------------------------------------------------------------------------ */
/* Callables                                                                 */
/* ------------------------------------------------------------------------ */

namespace detail {
/* One heap box per callable, passed as ctx; `release` deletes it. */
template <class F> struct box {
    F f;
    template <class G> explicit box(G &&g) : f(std::forward<G>(g)) {}
    static void release(void *ctx) noexcept { delete static_cast<box *>(ctx); }
    static F &of(void *ctx) noexcept { return static_cast<box *>(ctx)->f; }
};
template <class F> void *make_box(F &&f) { return new box<std::decay_t<F>>(std::forward<F>(f)); }
/* Two callables in one box, for the C functions whose two callbacks share
 * one ctx (sk_signal_merge_map_bounded's function and on_drop): `first`
 * and `second` stand for a box of one of them where a trampoline takes a
 * box type (their `of`); `release` deletes both. */
template <class F, class D> struct box_pair {
    F f;
    D d;
    static void release(void *ctx) noexcept { delete static_cast<box_pair *>(ctx); }
    struct first {
        static F &of(void *ctx) noexcept { return static_cast<box_pair *>(ctx)->f; }
    };
    struct second {
        static D &of(void *ctx) noexcept { return static_cast<box_pair *>(ctx)->d; }
    };
};

/* The parameter types of a callable: its operator() or function type;
 * `generic` for overloaded or template ones. */
struct generic {};
template <class T> struct signature_of { using args = generic; };
#define SIGNALKIT_SIGNATURE(...)                                                \
    template <class R, class... A> struct signature_of<__VA_ARGS__> { using args = std::tuple<A...>; };
SIGNALKIT_SIGNATURE(R(A...))
SIGNALKIT_SIGNATURE(R (*)(A...))
SIGNALKIT_SIGNATURE(R(A...) noexcept)
SIGNALKIT_SIGNATURE(R (*)(A...) noexcept)
#undef SIGNALKIT_SIGNATURE
#define SIGNALKIT_MEMBER_SIGNATURE(...)                                         \
    template <class R, class C, class... A> struct signature_of<R (C::*)(A...) __VA_ARGS__> {      \
        using args = std::tuple<A...>;                                          \
    };
SIGNALKIT_MEMBER_SIGNATURE()
SIGNALKIT_MEMBER_SIGNATURE(const)
SIGNALKIT_MEMBER_SIGNATURE(&)
SIGNALKIT_MEMBER_SIGNATURE(const &)
SIGNALKIT_MEMBER_SIGNATURE(noexcept)
SIGNALKIT_MEMBER_SIGNATURE(const noexcept)
SIGNALKIT_MEMBER_SIGNATURE(& noexcept)
SIGNALKIT_MEMBER_SIGNATURE(const & noexcept)
#undef SIGNALKIT_MEMBER_SIGNATURE

template <class F, class = void> struct args_of { using type = typename signature_of<F>::args; };
template <class F> struct args_of<F, std::void_t<decltype(&F::operator())>> {
    using type = typename signature_of<decltype(&F::operator())>::args;
};

/* The type argument I of F receives. */
template <class Args, std::size_t I, class = void> struct arg_at { using type = value_view; };
template <class Args, std::size_t I>
struct arg_at<Args, I, std::enable_if_t<(I < std::tuple_size<Args>::value)>> {
    using type = std::decay_t<std::tuple_element_t<I, Args>>;
};
template <std::size_t I> struct arg_at<generic, I, void> { using type = value_view; };
template <class F, std::size_t I> using arg_t = typename arg_at<typename args_of<std::decay_t<F>>::type, I>::type;

/* A typed callable's argument that its parameter type cannot take, or a
 * result a value cannot hold, in a callback that has no way to report it
 * (see "Values" above): writes out what the program's stdio and standard
 * iostreams still buffer, then "signalkit::WHERE: WHAT: MESSAGE" on stderr,
 * then aborts. */
[[noreturn]] SIGNALKIT_COLD inline void conversion_failed(const char *where, const char *what,
                                                          const char *message) noexcept {
    try {
        std::cout.flush();
        std::clog.flush();
        std::wcout.flush();
        std::wclog.flush();
    } catch (...) {
        /* a stream set to throw: what it kept is lost, the message is not */
    }
    std::fflush(nullptr);
    std::fprintf(stderr, "signalkit::%s: %s: %s\n", where, what, message);
    std::fflush(stderr);
    std::abort();
}
constexpr const char *cannot_take = "the callable's parameter cannot take the value";

/* A borrowed sk_value as argument type A: read() throws error for a value
 * A cannot take; get() is for a callback without an error path, named by
 * `where` ("map"), and stops the process instead (conversion_failed). */
template <class A> struct from_c {
    static A read(const sk_value *v) { return value_view(v).as<A>(); }
    static A get(const sk_value *v, const char *where) noexcept {
        try {
            return read(v);
        } catch (const error &e) {
            conversion_failed(where, cannot_take, e.what());
        } catch (...) {
            conversion_failed(where, cannot_take, "out of memory");
        }
    }
};
template <> struct from_c<value_view> {
    static value_view read(const sk_value *v) noexcept { return value_view(v); }
    static value_view get(const sk_value *v, const char *) noexcept { return value_view(v); }
};
template <> struct from_c<value> {
    static value read(const sk_value *v) { return value::borrow(v); }
    static value get(const sk_value *v, const char *) { return value::borrow(v); }
};


/* Whether `f` can be called with arguments of types A..., as invoke_args
 * passes them. */
template <class F, class... A>
struct invocable_with : std::disjunction<std::is_invocable<F, A &&...>, std::is_invocable<F, A &...>> {};

/* Calls `f` with the arguments made for the call (temporaries of the
 * caller's full expression): as rvalues when `f` takes them so (by value,
 * then moved; by const or rvalue reference), else as lvalues, for a
 * parameter taken as a non-const lvalue reference (`std::string &`, a
 * generator's `subscriber &`), which an rvalue cannot bind. */
template <class F, class... A> decltype(auto) invoke_args(F &f, A &&...args) {
    if constexpr (std::is_invocable<F &, A &&...>::value) {
        return f(std::forward<A>(args)...);
    } else {
        return f(args...);
    }
}
/* Fails the operator callback's call that is running (sk_callback_fail)
 * with the string value "signalkit::WHERE: WHAT: MESSAGE" (": MESSAGE"
 * left out when MESSAGE is null), for the callbacks that can fail (map,
 * filter, skip_while, take_while, first_where, take_until, scan,
 * reduce_left, group_by's key: see "Callables" above). If that is refused
 * (a callback the library does not run as an operator callback), stops
 * the process as conversion_failed does. */
SIGNALKIT_COLD inline void fail_call(const char *where, const char *what, const char *message) noexcept {
    sk_value error;
    int made = SK_ERR_NO_MEMORY;
    try {
        std::string text = std::string("signalkit::") + where + ": " + what;
        if (message != nullptr) {
            text += ": ";
            text += message;
        }
        made = sk_value_set_string(&error, text.c_str());
    } catch (...) {
        /* no memory for the text: the short form below */
    }
    if (made != SK_OK) {
        std::string_view lost = "signalkit: a callable failed (its message lost: out of memory)";
        made = sk_value_set_string(&error, lost.data());
    }
    int status = made == SK_OK ? sk_callback_fail(&error) : made;
    sk_value_release(&error);
    if (status != SK_OK) {
        conversion_failed(where, what, message != nullptr ? message : "");
    }
}

/* Runs `body` (the call of an operator callback's callable); what it throws
 * fails the call (fail_call): a std::exception with its what(), anything
 * else with a fixed text. */
template <class Body> inline void failing_on_throw(const char *where, Body &&body) noexcept {
    try {
        body();
    } catch (const std::exception &e) {
        fail_call(where, "the callable threw", e.what());
    } catch (...) {
        fail_call(where, "the callable threw something that is not a std::exception", nullptr);
    }
}

/* The argument of type A for an operator callback that can fail: empty,
 * the call failed (fail_call), when A cannot take the value. */
template <class A> inline std::optional<A> failing_arg(const sk_value *v, const char *where) noexcept {
    try {
        return std::optional<A>(from_c<A>::read(v));
    } catch (const error &e) {
        fail_call(where, cannot_take, e.what());
    } catch (...) {
        fail_call(where, cannot_take, "out of memory");
    }
    return std::nullopt;
}

/* to_c for an operator callback that can fail: a result a value cannot hold
 * fails the call (fail_call). */
template <class R> inline void failing_to_c(R &&result, sk_value *out, const char *where) noexcept {
    try {
        value v(std::forward<R>(result));
        *out = v.detach();
    } catch (const error &e) {
        fail_call(where, "the callable's result cannot be a value", e.what());
    } catch (...) {
        fail_call(where, "the callable's result cannot be a value", "out of memory");
    }
}

/* The body of a map's callback: the argument, the call, the result, each
 * of which may fail the call. */
template <class F, class G> inline void map_body(G &g, const sk_value *v, sk_value *out, const char *where) noexcept {
    auto argument = failing_arg<arg_t<F, 0>>(v, where);
    if (!argument) {
        return;
    }
    failing_on_throw(where, [&] { failing_to_c(invoke_args(g, std::move(*argument)), out, where); });
}

/* The body of a predicate's (or take_until's) callback, R its result
 * type: R() when the call failed. */
template <class R, class F, class G> inline R predicate_body(G &g, const sk_value *v, const char *where) noexcept {
    auto argument = failing_arg<arg_t<F, 0>>(v, where);
    R result = R();
    if (argument) {
        failing_on_throw(where, [&] { result = static_cast<R>(invoke_args(g, std::move(*argument))); });
    }
    return result;
}

/* The body of a fold's callback (scan, reduce_left). */
template <class F, class G> inline void fold_body(G &g, const sk_value *acc, const sk_value *v, sk_value *out, const char *where) noexcept {
    auto accumulator = failing_arg<arg_t<F, 0>>(acc, where);
    if (!accumulator) {
        return;
    }
    auto argument = failing_arg<arg_t<F, 1>>(v, where);
    if (!argument) {
        return;
    }
    failing_on_throw(where, [&] { failing_to_c(invoke_args(g, std::move(*accumulator), std::move(*argument)), out, where); });
}
} // namespace detail

/* What a take_until callable returns: a bitwise OR of these (or an int). */
enum take_action : int { take_drop = 0, take_pass = SK_TAKE_PASS, take_complete = SK_TAKE_COMPLETE };
/* What a bounded buffer does with a value that arrives when it is full
 * (signal::on_backpressure_buffer, signal::deliver_on with a capacity): the
 * policies of sk_overflow, which signalkit.h describes. */
enum class overflow : int {
    drop_newest = SK_OVERFLOW_DROP_NEWEST,
    drop_oldest = SK_OVERFLOW_DROP_OLDEST,
    latest = SK_OVERFLOW_LATEST,
    error = SK_OVERFLOW_ERROR,
    block = SK_OVERFLOW_BLOCK
};
/* Both actions' bits: `take_pass | take_complete` passes the value, then
 * completes. */
constexpr take_action operator|(take_action a, take_action b) noexcept {
    return static_cast<take_action>(static_cast<int>(a) | static_cast<int>(b));
}

/* ------------------------------------------------------------------------ */
/* Disposables, subscribers, queues                                          */
/* ------------------------------------------------------------------------ */

/* A subscription's (or any resource's) cancellation: an sk_disposable.
 * Copies share one C reference count; releasing the last one never disposes
 * (call dispose). dispose() may be called from any thread (signalkit.h
 * gives each call's thread). */
class disposable : public detail::handle<sk_disposable, disposable> {
public:
    disposable() noexcept = default;
    /* Only the first call has an effect; an empty handle is a no-op. */
    void dispose() const noexcept { sk_disposable_dispose(p_); }

    /* Calls `f()` on the first dispose; `f` is destroyed after that, or when
     * the disposable is freed undisposed. */
    template <class F> static disposable action(F &&f) {
        using B = detail::box<std::decay_t<F>>;
        sk_disposable *d = nullptr;
        detail::check(sk_disposable_action(&d, &run<B>, detail::make_box(std::forward<F>(f)), &B::release));
        return adopt(d);
    }
    /* A new meta disposable, a slot holding one disposable at a time, filled
     * with meta_set() (sk_disposable_meta; SwiftSignalKit's MetaDisposable). */
    static disposable meta() { return make(&sk_disposable_meta); }
    /* A new set of disposables disposed together, filled with add()
     * (sk_disposable_set; SwiftSignalKit's DisposableSet). */
    static disposable set() { return make(&sk_disposable_set); }
    /* A new dictionary of disposables by string key, filled with dict_set()
     * (sk_disposable_dict; SwiftSignalKit's DisposableDict). */
    static disposable dict() { return make(&sk_disposable_dict); }
    /* Puts `d` (retained) into this meta disposable, disposing the one it
     * replaces; an empty `d` empties the slot; if this one is disposed,
     * disposes `d` at once (sk_disposable_meta_set). Throws error
     * (SK_ERR_WRONG_KIND) when this is not a meta disposable. */
    void meta_set(const disposable &d) const { detail::check(sk_disposable_meta_set(p_, d.get())); }
    /* Adds `d` (retained) to this set; if the set is disposed, disposes `d`
     * at once (sk_disposable_set_add). Throws error SK_ERR_WRONG_KIND when
     * this is not a set, SK_ERR_NULL_ARGUMENT for an empty `d`. */
    void add(const disposable &d) const { detail::check(sk_disposable_set_add(p_, d.get())); }
    /* Takes `d` out of this set without disposing it; one the set does not
     * hold is a no-op (sk_disposable_set_remove). Throws as add(). */
    void remove(const disposable &d) const { detail::check(sk_disposable_set_remove(p_, d.get())); }
    /* Keys are compared byte for byte (sk_disposable_dict_set), up to the
     * first NUL of `key`: "a" and std::string("a\0b", 3) are one key. */
    void dict_set(const std::string &key, const disposable &d) const {
        detail::check(sk_disposable_dict_set(p_, key.c_str(), d.get()));
    }

private:
    template <class B> static void run(void *ctx) noexcept { B::of(ctx)(); }
    static disposable make(int (*fn)(sk_disposable **)) {
        sk_disposable *d = nullptr;
        detail::check(fn(&d));
        return adopt(d);
    }
};

/* Disposes its disposable when it goes out of scope (move-only). Like
 * dispose(), the destructor does not wait for a callback running on another
 * thread (see signal::start): a subscription's callables must not refer to
 * an object destroyed with the scoped_disposable, such as `this` when it is
 * a member. */
class scoped_disposable {
public:
    scoped_disposable() noexcept = default;
    /* Owns `d`, to dispose it at the end of the scope (implicit:
     * `scoped_disposable sub = s.start(f);`). */
    scoped_disposable(disposable d) noexcept : d_(std::move(d)) {}
    /* Takes over the other's disposable; the other is left empty and
     * disposes nothing. */
    scoped_disposable(scoped_disposable &&) noexcept = default;
    /* Disposes the disposable held, then takes over `other`'s (`other` is
     * left empty). */
    scoped_disposable &operator=(scoped_disposable &&other) noexcept {
        if (this != &other) {
            d_.dispose();
            d_ = std::move(other.d_);
        }
        return *this;
    }
    ~scoped_disposable() { d_.dispose(); }
    /* The disposable held (empty after release() or a move). */
    const disposable &get() const noexcept { return d_; }
    /* Gives the disposable up without disposing it; this one becomes empty
     * and disposes nothing. */
    disposable release() noexcept { return std::move(d_); }

private:
    disposable d_;
};

/* The receiving end a generator emits into (from any thread). */
class subscriber : public detail::handle<sk_subscriber, subscriber> {
public:
    subscriber() noexcept = default;
    /* Emits `v` (copied as needed); the next callback runs on the calling
     * thread. After a terminal event or disposal it does nothing
     * (sk_subscriber_put_next). */
    void put_next(const value &v) const { detail::check(sk_subscriber_put_next(p_, v.get())); }
    /* Ends the subscription with the error `e`, the error callback running
     * on the calling thread; after a terminal event or disposal it does
     * nothing (sk_subscriber_put_error). */
    void put_error(const value &e) const { detail::check(sk_subscriber_put_error(p_, e.get())); }
    /* Ends the subscription with the completion, the completed callback
     * running on the calling thread; after a terminal event or disposal it
     * does nothing (sk_subscriber_put_completion). */
    void put_completion() const { detail::check(sk_subscriber_put_completion(p_)); }
};

/* Where work runs: a serial or concurrent library queue, a bounded
 * concurrent queue (a thread pool), the main queue, or a host-drained queue (fd() and drain(): the host's own thread runs
 * its work). An sk_queue: the thread each call may be made from is the one
 * signalkit.h gives for its sk_queue_ function. */
class queue : public detail::handle<sk_queue, queue> {
public:
    queue() noexcept = default;
    /* A serial queue on a library thread. */
    static queue serial(const char *name = nullptr) {
        sk_queue *q = nullptr;
        detail::check(sk_queue_create(&q, name));
        return adopt(q);
    }
    /* A host-drained serial queue: its work runs inside drain(); fd() is
     * readable while work is pending. */
    static queue host(const char *name = nullptr) {
        sk_queue *q = nullptr;
        detail::check(sk_queue_create_host(&q, name));
        return adopt(q);
    }
    /* A concurrent queue whose work runs on at most `max_workers` threads
     * of its own, 1 to SK_QUEUE_MAX_WORKERS (sk_queue_create_concurrent:
     * the threads start here; throws error SK_ERR_INVALID_ARGUMENT for a
     * count outside, SK_ERR_RESOURCE when the system refuses a thread). */
    static queue concurrent(std::size_t max_workers, const char *name = nullptr) {
        sk_queue *q = nullptr;
        detail::check(sk_queue_create_concurrent(&q, max_workers, name));
        return adopt(q);
    }
    /* The shared main queue (sk_queue_main). Its work runs only while the
     * main thread drains the main dispatch queue (a Swift program, a
     * CoreFoundation run loop): in a plain C++ program, work given it from
     * another thread never runs. To run work on the main thread, drain a
     * host() queue there. */
    static queue main() { return make(&sk_queue_main); }
    /* The shared concurrent queue of default priority
     * (sk_queue_concurrent_default): work runs in parallel on the library's
     * worker threads; never current (is_current()). */
    static queue concurrent_default() { return make(&sk_queue_concurrent_default); }
    /* The same at background priority (sk_queue_concurrent_background). */
    static queue concurrent_background() { return make(&sk_queue_concurrent_background); }

    /* The descriptor of a host-drained queue (host()), readable while work
     * is pending: poll it, then drain(). The queue owns it: do not close it.
     * Throws error (SK_ERR_WRONG_KIND) for another queue (sk_queue_host_fd). */
    int fd() const {
        int fd = -1;
        detail::check(sk_queue_host_fd(p_, &fd));
        return fd;
    }
    /* Runs up to `max_tasks` pending tasks (0: all pending); how many ran. */
    std::size_t drain(std::size_t max_tasks = 0) const {
        std::size_t ran = 0;
        detail::check(sk_queue_host_drain(p_, max_tasks, &ran));
        return ran;
    }
    /* Whether the caller runs on this queue, the innermost one only
     * (sk_queue_is_current); false for an empty handle, and always for a
     * concurrent queue. */
    bool is_current() const noexcept { return sk_queue_is_current(p_); }

    /* Runs `f()` on the queue (inline when already on it). */
    template <class F> void async(F &&f) const {
        using B = detail::box<std::decay_t<F>>;
        detail::check(sk_queue_async(p_, &run<B>, detail::make_box(std::forward<F>(f)), &B::release));
    }
    /* Runs `f()` on the queue after `delay`. */
    template <class F> void after(seconds_t delay, F &&f) const {
        using B = detail::box<std::decay_t<F>>;
        detail::check(sk_queue_after(p_, delay.count, &run<B>, detail::make_box(std::forward<F>(f)), &B::release));
    }
    /* Runs `f()` on the queue, waits, and returns its result or rethrows its
     * exception (see sk_queue_sync for the main and host-drained queues, and
     * for nested syncs, which run inline on a queue the thread holds). A
     * reference result is returned as that reference (to what f referred). */
    template <class F> auto sync(F &&f) const -> decltype(f()) {
        using R = decltype(f());
        sync_state<std::remove_reference_t<F>, R> state(f);
        detail::check(sk_queue_sync(p_, &sync_run<std::remove_reference_t<F>, R>, &state, nullptr));
        if (state.exception) {
            std::rethrow_exception(state.exception);
        }
        return state.take();
    }

private:
    template <class B> static void run(void *ctx) noexcept { B::of(ctx)(); }
    template <class F, class R> struct sync_state {
        explicit sync_state(F &fn) : f(fn) {}
        F &f;
        std::exception_ptr exception{};
        alignas(R) unsigned char storage[sizeof(R)];
        bool has = false;
        void call() {
            new (storage) R(f());
            has = true;
        }
        R take() {
            R *r = std::launder(reinterpret_cast<R *>(storage));
            R out(std::move(*r));
            r->~R();
            has = false;
            return out;
        }
        ~sync_state() {
            if (has) {
                std::launder(reinterpret_cast<R *>(storage))->~R();
            }
        }
    };
    template <class F, class R> struct sync_state<F, R &> {
        explicit sync_state(F &fn) : f(fn) {}
        F &f;
        std::exception_ptr exception{};
        R *result = nullptr;
        void call() { result = std::addressof(f()); }
        R &take() { return *result; }
    };
    template <class F, class R> struct sync_state<F, R &&> {
        explicit sync_state(F &fn) : f(fn) {}
        F &f;
        std::exception_ptr exception{};
        R *result = nullptr;
        void call() {
            R &&r = f();
            result = std::addressof(r);
        }
        R &&take() { return static_cast<R &&>(*result); }
    };
    template <class F> struct sync_state<F, void> {
        explicit sync_state(F &fn) : f(fn) {}
        F &f;
        std::exception_ptr exception{};
        void call() { f(); }
        void take() {}
    };
    template <class F, class R> static void sync_run(void *ctx) noexcept {
        auto *state = static_cast<sync_state<F, R> *>(ctx);
        try {
            state->call();
        } catch (...) {
            state->exception = std::current_exception();
        }
    }
    static queue make(int (*fn)(sk_queue **)) {
        sk_queue *q = nullptr;
        detail::check(fn(&q));
        return adopt(q);
    }
};

/* Calls `f()` on `q` after `delay`, and every `delay` when `repeat`; the
 * disposable stops it (releasing it undisposed stops it too). The disposable
 * is returned once the timer is armed, so `f` may run (on `q`'s thread)
 * before the caller has it: a repeating `f` that must stop itself reads a
 * flag or state of its own rather than a disposable stored after this
 * returns (sk_timer_start hands its callback the disposable from the first
 * call). */
template <class F> disposable start_timer(const queue &q, seconds_t delay, bool repeat, F &&f) {
    using B = detail::box<std::decay_t<F>>;
    sk_disposable *d = nullptr;
    detail::check(sk_timer_start(&d, q.get(), delay.count, repeat,
                                 [](void *ctx) noexcept { B::of(ctx)(); },
                                 detail::make_box(std::forward<F>(f)), &B::release));
    return disposable::adopt(d);
}

/* ------------------------------------------------------------------------ */
/* Signals                                                                   */
/* ------------------------------------------------------------------------ */

/* The absent callback of start(). */
struct none_t {};
/* An absent callback: `s.start(none, on_error)`. */
constexpr none_t none{};

namespace detail {
/* A call of start()'s on_next `f` with `v`: its observer is started by
 * sk_signal_start_failable, so a throw, or a parameter that cannot take the
 * value, ends the stream with an error event (fail_call), as an operator's
 * callable does. */
template <class F> inline void next_call(F &f, const sk_value *v) noexcept {
    auto argument = failing_arg<arg_t<std::remove_const_t<F>, 0>>(v, "start (on_next)");
    if (!argument) {
        return;
    }
    failing_on_throw("start (on_next)", [&] { invoke_args(f, std::move(*argument)); });
}
template <class N, class E, class C> struct observer_box {
    N next;
    E error;
    C completed;
    static void release(void *ctx) noexcept { delete static_cast<observer_box *>(ctx); }
    static void on_next(void *ctx, const sk_value *v) noexcept {
        next_call(static_cast<observer_box *>(ctx)->next, v);
    }
    static void on_error(void *ctx, const sk_value *v) noexcept {
        auto &f = static_cast<observer_box *>(ctx)->error;
        invoke_args(f, from_c<arg_t<E, 0>>::get(v, "start (on_error)"));
    }
    static void on_completed(void *ctx) noexcept { static_cast<observer_box *>(ctx)->completed(); }
};
/* A value callback that travels in the observer's ctx itself, with no box
 * and no release function (then sk_signal_start makes one object per
 * subscription instead of two, and nothing is allocated here): a callable
 * that fits in a pointer, is trivially copyable and destructible, and is
 * called as const (a lambda capturing one reference or pointer, a function
 * pointer). Each call reads a copy of those bytes; nothing is destroyed.
 * map's and filter's functions travel the same way (then the library runs
 * the outermost such stage in its subscriptions' handles: one object per
 * subscription fewer). */
template <class N, class = void> struct next_in_ctx : std::false_type {};
template <class N>
struct next_in_ctx<N, std::enable_if_t<(sizeof(N) <= sizeof(void *) && alignof(N) <= alignof(void *) &&
                                        std::is_trivially_copyable<N>::value &&
                                        std::is_trivially_destructible<N>::value &&
                                        invocable_with<const N &, arg_t<N, 0>>::value)>> : std::true_type {
    static void *pack(const N &f) noexcept {
        void *ctx = nullptr;
        std::memcpy(&ctx, &f, sizeof(N));
        return ctx;
    }
    /* The callable packed in `ctx`, copied into `storage` (alignas(N), at
     * least sizeof(N) bytes, alive while the result is used). */
    static const N &unpack(void *ctx, unsigned char *storage) noexcept {
        std::memcpy(storage, &ctx, sizeof(N));
        return *std::launder(reinterpret_cast<const N *>(storage));
    }
    static void on_next(void *ctx, const sk_value *v) noexcept {
        alignas(N) unsigned char storage[sizeof(N)];
        next_call(unpack(ctx, storage), v);
    }
};

template <class B, class N, class E, class C> sk_observer make_observer(B *b) {
    sk_observer o{nullptr, nullptr, nullptr, b, &B::release};
    if constexpr (!std::is_same<N, none_t>::value) {
        o.next = &B::on_next;
    }
    if constexpr (!std::is_same<E, none_t>::value) {
        o.error = &B::on_error;
    }
    if constexpr (!std::is_same<C, none_t>::value) {
        o.completed = &B::on_completed;
    }
    return o;
}

/* Every on_drop's call (the bounded operators' and the bounded pipe's): a
 * throw, or a value its parameter cannot take, goes to the failure hook as
 * "on_drop" and the stream goes on (misuse.md's table). The pipe's called
 * the callable unguarded: either ended the process. */
template <class B, class F> void on_drop_call(void *ctx, const sk_value *v, std::uint64_t dropped) noexcept {
    try {
        auto &g = B::of(ctx);
        invoke_args(g, from_c<arg_t<F, 0>>::read(v), dropped);
    } catch (...) {
        report_failure("on_drop");
    }
}
} // namespace detail

/* A cold stream of values, an sk_signal: nothing runs until subscribe(),
 * and each subscription runs it anew. Operators return new signals (the
 * receiver is unchanged), also as pipeable functions (`s | map(f)`). A
 * signal may be shared and subscribed from any thread; its callbacks run
 * on the thread signalkit.h gives for each operator. */
class signal : public detail::handle<sk_signal, signal> {
public:
    signal() noexcept = default;

    /* ---- sources ---- */

    /* A signal whose start calls `generator(subscriber)`; the generator
     * returns void, or a disposable disposed when the subscription ends.
     * The generator is destroyed once the signal is gone. */
    template <class G> static signal create(G &&generator) {
        using B = detail::box<std::decay_t<G>>;
        sk_signal *s = nullptr;
        detail::check(sk_signal_create(&s, &generate<B>, detail::make_box(std::forward<G>(generator)), &B::release));
        return adopt(s);
    }
    /* A custom operator: create() for a generator that starts `upstream`
     * (that start is linked to the subscriber, as sk_signal_create_over()
     * says: start `upstream` itself, not a signal built over it). */
    template <class G> static signal create_over(const signal &upstream, G &&generator) {
        using B = detail::box<std::decay_t<G>>;
        sk_signal *s = nullptr;
        detail::check(sk_signal_create_over(&s, upstream.get(), &generate<B>,
                                            detail::make_box(std::forward<G>(generator)), &B::release));
        return adopt(s);
    }
    /* Emits a copy of `v`, then completes, during the start
     * (sk_signal_single). */
    static signal single(const value &v) { return make(&sk_signal_single, v.get()); }
    /* Fails at once with a copy of `e`, during the start (sk_signal_fail). */
    static signal fail(const value &e) { return make(&sk_signal_fail, e.get()); }
    /* Completes at once, during the start (sk_signal_complete). */
    static signal complete() { return make0(&sk_signal_complete); }
    /* Never emits nor terminates: no callback ever runs (sk_signal_never). */
    static signal never() { return make0(&sk_signal_never); }
    /* Calls `f()` (returning a signal; empty means complete at once) at each
     * start. */
    template <class F> static signal deferred(F &&f) {
        using B = detail::box<std::decay_t<F>>;
        sk_signal *s = nullptr;
        detail::check(sk_signal_deferred(&s, [](void *ctx) noexcept -> sk_signal * {
            sk_signal *r = nullptr;
            detail::failing_on_throw("deferred", [&] { r = signal(B::of(ctx)()).detach(); });
            return r;
        }, detail::make_box(std::forward<F>(f)), &B::release));
        return adopt(s);
    }
    /* Arrays of the latest value of each signal, once all have emitted;
     * completes when all complete. Delivered on `q` when given, else on
     * the thread of each input's event (sk_signal_combine_latest; no
     * signals: an empty array, then the completion, during the start). */
    static signal combine_latest(const std::vector<signal> &signals, const queue &q = queue()) {
        sk_signal *s = nullptr;
        detail::check(sk_signal_combine_latest(&s, raw_array(signals), signals.size(), q.get()));
        return adopt(s);
    }
    /* Every value of the signals, as each comes; completes when all
     * complete (sk_signal_merge). */
    static signal merge(const std::vector<signal> &signals) {
        sk_signal *s = nullptr;
        detail::check(sk_signal_merge(&s, raw_array(signals), signals.size()));
        return adopt(s);
    }
    /* Arrays of the n-th value of each signal (sk_signal_zip). */
    static signal zip(const std::vector<signal> &signals) {
        sk_signal *s = nullptr;
        detail::check(sk_signal_zip(&s, raw_array(signals), signals.size()));
        return adopt(s);
    }
    /* zip() with at most `capacity` values waiting per signal, `policy`
     * deciding about the next (sk_signal_zip_bounded). */
    static signal zip(const std::vector<signal> &signals, std::size_t capacity, overflow policy) {
        sk_signal *s = nullptr;
        detail::check(sk_signal_zip_bounded(&s, raw_array(signals), signals.size(), capacity, static_cast<sk_overflow>(policy), nullptr,
                                            nullptr, nullptr));
        return adopt(s);
    }
    /* The same, each dropped value passed to `on_drop(value, dropped)` as
     * deliver_on's. */
    template <class F> static signal zip(const std::vector<signal> &signals, std::size_t capacity, overflow policy, F &&on_drop) {
        using B = detail::box<std::decay_t<F>>;
        sk_signal *s = nullptr;
        detail::check(sk_signal_zip_bounded(&s, raw_array(signals), signals.size(), capacity, static_cast<sk_overflow>(policy),
                                            &on_drop_trampoline<B, F>, detail::make_box(std::forward<F>(on_drop)), &B::release));
        return adopt(s);
    }
    /* The signals one after the other (sk_signal_concat). */
    static signal concat(const std::vector<signal> &signals) {
        sk_signal *s = nullptr;
        detail::check(sk_signal_concat(&s, raw_array(signals), signals.size()));
        return adopt(s);
    }

    /* ---- subscribing ---- */

    /* Starts the signal with up to three callables (`none` for an absent
     * one): on_next(value as its parameter type), on_error(likewise),
     * on_completed(). They are destroyed together, once, after the last of
     * them returned (see sk_observer). The subscription runs until it
     * terminates or the returned disposable is disposed. Which thread
     * calls them, and what they may do during the start that delivers them
     * (the disposable exists only once start() returns), is signalkit.h's:
     * its conventions, "Callbacks" and "Thread-safety".
     *
     * Disposing does not wait for callbacks running on other threads (it may
     * be called from inside one, so waiting could deadlock): when dispose()
     * returns, or a scoped_disposable is destroyed, no callback starts on
     * the disposing thread, but one that started elsewhere (say, on the
     * queue of a deliver_on) may still be running. The callables are
     * destroyed only after it returned. So let a callable own what its
     * callback uses (capture a std::shared_ptr, not `this` or a reference
     * to an object the disposing scope destroys), or wait for the callable's
     * destruction before freeing what it refers to. */
    template <class N = none_t, class E = none_t, class C = none_t>
    disposable start(N &&on_next = N(), E &&on_error = E(), C &&on_completed = C()) const {
        using DN = std::decay_t<N>;
        sk_observer o;
        if constexpr (std::conjunction<std::negation<std::is_same<DN, none_t>>, std::is_same<std::decay_t<E>, none_t>,
                                       std::is_same<std::decay_t<C>, none_t>, detail::next_in_ctx<DN>>::value) {
            o = sk_observer{&detail::next_in_ctx<DN>::on_next, nullptr, nullptr,
                            detail::next_in_ctx<DN>::pack(on_next), nullptr};
        } else {
            using B = detail::observer_box<DN, std::decay_t<E>, std::decay_t<C>>;
            B *b = new B{std::forward<N>(on_next), std::forward<E>(on_error), std::forward<C>(on_completed)};
            o = detail::make_observer<B, DN, std::decay_t<E>, std::decay_t<C>>(b);
        }
        sk_disposable *d = nullptr;
        detail::check(sk_signal_start_failable(&d, p_, &o, 0));
        return disposable::adopt(d);
    }
    /* Another name for start(): the same callables, the same disposable. */
    template <class N = none_t, class E = none_t, class C = none_t>
    disposable subscribe(N &&on_next = N(), E &&on_error = E(), C &&on_completed = C()) const {
        return start(std::forward<N>(on_next), std::forward<E>(on_error), std::forward<C>(on_completed));
    }

    /* ---- operators (signalkit.h describes each) ---- */

    /* Each value through `f` (sk_signal_map); `f` takes the value's type
     * and returns anything value() accepts. */
    template <class F> signal map(F &&f) const {
        using DF = std::decay_t<F>;
        if constexpr (detail::next_in_ctx<DF>::value) {
            return with_ctx(&sk_signal_map, [](void *ctx, const sk_value *v, sk_value *out) noexcept {
                alignas(DF) unsigned char storage[sizeof(DF)];
                const DF &g = detail::next_in_ctx<DF>::unpack(ctx, storage);
                detail::map_body<F>(g, v, out, "map");
            }, detail::next_in_ctx<DF>::pack(f));
        } else {
            using B = detail::box<DF>;
            return with_fn(&sk_signal_map, [](void *ctx, const sk_value *v, sk_value *out) noexcept {
                auto &g = B::of(ctx);
                detail::map_body<F>(g, v, out, "map");
            }, std::forward<F>(f));
        }
    }
    /* The values for which `f` returns true (sk_signal_filter). */
    template <class F> signal filter(F &&f) const {
        using DF = std::decay_t<F>;
        if constexpr (detail::next_in_ctx<DF>::value) {
            return with_ctx(&sk_signal_filter, [](void *ctx, const sk_value *v) noexcept -> bool {
                alignas(DF) unsigned char storage[sizeof(DF)];
                const DF &g = detail::next_in_ctx<DF>::unpack(ctx, storage);
                return detail::predicate_body<bool, F>(g, v, "filter");
            }, detail::next_in_ctx<DF>::pack(f));
        } else {
            using B = detail::box<DF>;
            return with_fn(&sk_signal_filter, [](void *ctx, const sk_value *v) noexcept -> bool {
                auto &g = B::of(ctx);
                return detail::predicate_body<bool, F>(g, v, "filter");
            }, std::forward<F>(f));
        }
    }
    /* Each value to the signal `f` returns, the latest one replacing the one
     * before (sk_signal_map_to_signal: a switch). */
    template <class F> signal map_to_signal(F &&f) const {
        return with_fn(&sk_signal_map_to_signal, &to_signal<detail::box<std::decay_t<F>>, F, map_to_signal_name>,
                       std::forward<F>(f));
    }
    /* Delivers every event on `q`, at most `capacity` values waiting, `policy`
     * deciding about the next (sk_signal_deliver_on_bounded). */
    signal deliver_on(const queue &q, std::size_t capacity, overflow policy) const {
        sk_signal *s = nullptr;
        detail::check(sk_signal_deliver_on_bounded(&s, p_, q.get(), capacity, static_cast<sk_overflow>(policy), nullptr, nullptr, nullptr));
        return adopt(s);
    }
    /* The same, each dropped value passed to `on_drop(value, dropped)`:
     * the value (as its first parameter's type; value_view is free) and
     * this subscription's count of drops so far (std::uint64_t), on the
     * thread that dropped it. */
    template <class F> signal deliver_on(const queue &q, std::size_t capacity, overflow policy, F &&on_drop) const {
        using B = detail::box<std::decay_t<F>>;
        sk_signal *s = nullptr;
        detail::check(sk_signal_deliver_on_bounded(&s, p_, q.get(), capacity, static_cast<sk_overflow>(policy), &on_drop_trampoline<B, F>,
                                                   detail::make_box(std::forward<F>(on_drop)), &B::release));
        return adopt(s);
    }
    /* `f(value)` returns a take_action (take_pass, take_complete, both OR-ed,
     * or take_drop) or an int of those bits; not a bool. */
    template <class F> signal take_until(F &&f) const {
        using B = detail::box<std::decay_t<F>>;
        static_assert(!std::is_same<std::decay_t<decltype(detail::invoke_args(std::declval<std::decay_t<F> &>(),
                                                                          std::declval<detail::arg_t<F, 0>>()))>,
                                    bool>::value,
                      "signalkit::take_until: the callable returns bool; return take_pass, take_complete, "
                      "take_pass | take_complete or take_drop (a bitwise OR of the take flags, or an int)");
        return with_fn(&sk_signal_take_until, [](void *ctx, const sk_value *v) noexcept -> int {
            auto &g = B::of(ctx);
            return detail::predicate_body<int, F>(g, v, "take_until");
        }, std::forward<F>(f));
    }
    /* `f(error)` returns the signal to continue with (sk_signal_catch). */
    template <class F> signal catch_error(F &&f) const {
        return with_fn(&sk_signal_catch, &to_signal<detail::box<std::decay_t<F>>, F, catch_error_name>,
                       std::forward<F>(f));
    }
    /* On error, starts again after min(max_delay, n * delay_increment) on
     * `q`; errors never pass (sk_signal_retry). */
    signal retry(seconds_t delay_increment, seconds_t max_delay, const queue &q) const {
        return op(&sk_signal_retry, delay_increment.count, max_delay.count, q.get());
    }
    /* queue_signals() with at most `capacity` signals waiting their turn,
     * `policy` deciding about the next (sk_signal_queue_bounded). */
    signal queue_signals(std::size_t capacity, overflow policy) const {
        sk_signal *s = nullptr;
        detail::check(sk_signal_queue_bounded(&s, p_, capacity, static_cast<sk_overflow>(policy), nullptr, nullptr, nullptr));
        return adopt(s);
    }
    /* The same, each dropped signal (never started) passed to
     * `on_drop(value, dropped)` as deliver_on's: the value holds the
     * signal (its first parameter a signal, or a value_view whose
     * as<signal>() gives it). */
    template <class F> signal queue_signals(std::size_t capacity, overflow policy, F &&on_drop) const {
        using B = detail::box<std::decay_t<F>>;
        sk_signal *s = nullptr;
        detail::check(sk_signal_queue_bounded(&s, p_, capacity, static_cast<sk_overflow>(policy), &on_drop_trampoline<B, F>,
                                              detail::make_box(std::forward<F>(on_drop)), &B::release));
        return adopt(s);
    }
    /* The signal, or `alternate` if it delivers nothing within `delay`, timed
     * on `q` (sk_signal_timeout). */
    signal timeout(seconds_t delay, const queue &q, const signal &alternate) const {
        return op(&sk_signal_timeout, delay.count, q.get(), alternate.get());
    }
    /* Passes values while `f(value)` is true, then completes; `inclusive`
     * passes the value that ended it too (sk_signal_take_while). */
    template <class F> signal take_while(F &&f, bool inclusive = false) const {
        using B = detail::box<std::decay_t<F>>;
        sk_signal *s = nullptr;
        detail::check(sk_signal_take_while(&s, p_, &predicate_call<B, F, take_while_name>,
                                           detail::make_box(std::forward<F>(f)), &B::release, inclusive));
        return adopt(s);
    }
    /* `f(value)` returns a signal; at most `max_concurrent` run at once. */
    template <class F> signal merge_map(std::size_t max_concurrent, F &&f) const {
        using B = detail::box<std::decay_t<F>>;
        sk_signal *s = nullptr;
        detail::check(sk_signal_merge_map(&s, p_, max_concurrent, &to_signal<B, F, merge_map_name>,
                                          detail::make_box(std::forward<F>(f)), &B::release));
        return adopt(s);
    }
    /* merge_map() with at most `capacity` values waiting for a free slot,
     * `policy` deciding about the next (sk_signal_merge_map_bounded; drops
     * are counted, not reported: the overload with on_drop reports them). */
    template <class F> signal merge_map(std::size_t max_concurrent, std::size_t capacity, overflow policy, F &&f) const {
        using B = detail::box<std::decay_t<F>>;
        sk_signal *s = nullptr;
        detail::check(sk_signal_merge_map_bounded(&s, p_, max_concurrent, capacity, static_cast<sk_overflow>(policy),
                                                  &to_signal<B, F, merge_map_name>, nullptr, detail::make_box(std::forward<F>(f)),
                                                  &B::release));
        return adopt(s);
    }
    /* The same, each dropped value passed to `on_drop(value, dropped)` as
     * deliver_on's; `f` and `on_drop` share the C function's one context,
     * released after the last call of either. */
    template <class F, class D>
    signal merge_map(std::size_t max_concurrent, std::size_t capacity, overflow policy, F &&f, D &&on_drop) const {
        using P = detail::box_pair<std::decay_t<F>, std::decay_t<D>>;
        sk_signal *s = nullptr;
        detail::check(sk_signal_merge_map_bounded(&s, p_, max_concurrent, capacity, static_cast<sk_overflow>(policy),
                                                  &to_signal<typename P::first, F, merge_map_name>,
                                                  &on_drop_trampoline<typename P::second, D>,
                                                  new P{std::forward<F>(f), std::forward<D>(on_drop)}, &P::release));
        return adopt(s);
    }
    /* buffer_time() collecting at most `capacity` values per window,
     * `policy` deciding about the next (sk_signal_buffer_time_bounded). */
    signal buffer_time(seconds_t window, const queue &q, std::size_t capacity, overflow policy) const {
        sk_signal *s = nullptr;
        detail::check(sk_signal_buffer_time_bounded(&s, p_, window.count, q.get(), capacity, static_cast<sk_overflow>(policy), nullptr,
                                                    nullptr, nullptr));
        return adopt(s);
    }
    /* The same, each dropped value passed to `on_drop(value, dropped)` as
     * deliver_on's. */
    template <class F> signal buffer_time(seconds_t window, const queue &q, std::size_t capacity, overflow policy, F &&on_drop) const {
        using B = detail::box<std::decay_t<F>>;
        sk_signal *s = nullptr;
        detail::check(sk_signal_buffer_time_bounded(&s, p_, window.count, q.get(), capacity, static_cast<sk_overflow>(policy),
                                                    &on_drop_trampoline<B, F>, detail::make_box(std::forward<F>(on_drop)),
                                                    &B::release));
        return adopt(s);
    }
    /* At most `count` retries at once (sk_signal_retry_count), or each
     * `delay` after the error on `q`. */
    signal retry_count(std::size_t count) const {
        return op(&sk_signal_retry_count, count, 0.0, static_cast<sk_queue *>(nullptr));
    }
    /* As retry_count(count), each retry `delay` after the error, on `q`
     * (sk_signal_retry_count). */
    signal retry_count(std::size_t count, seconds_t delay, const queue &q) const {
        return op(&sk_signal_retry_count, count, delay.count, q.get());
    }

    /* ---- operators of a standard shape, or of one with the bounded
     * modifier: generated from tools/api/operators.md (make api-update;
     * tools/api/bindings.py) ---- */
    // BEGIN operators (generated)
    /* Drops a value equal (sk_value_equal()) to the one delivered before it
     * (sk_signal_distinct_until_changed). */
    signal distinct_until_changed() const { return op(&sk_signal_distinct_until_changed); }
    /* Calls `f(value)` just before each value is delivered; otherwise passes every event through
     * untouched (sk_signal_before_next). `f(value)` takes the value as its parameter's type. */
    template <class F> signal before_next(F &&f) const {
        return with_fn(&sk_signal_before_next, &value_call<detail::box<std::decay_t<F>>, F, before_next_name>,
                       std::forward<F>(f));
    }
    /* The first `count` values, then completion right after the count-th (sk_signal_take). */
    signal take(std::size_t count) const { return op(&sk_signal_take, count); }
    /* The values of `signal` until `notifier` emits a value: then the completion, and both are
     * disposed (sk_signal_take_until_signal). */
    signal take_until_signal(const signal &notifier) const {
        return op(&sk_signal_take_until_signal, notifier.get());
    }
    /* Drops the first `count` values, then passes every value (sk_signal_skip). */
    signal skip(std::size_t count) const { return op(&sk_signal_skip, count); }
    /* Drops values while `f` returns true; from the first value for which it returns false, passes
     * every value (`f` is not called again) (sk_signal_skip_while). `f(value)` takes the value as
     * its parameter's type and returns a bool. */
    template <class F> signal skip_while(F &&f) const {
        return with_fn(&sk_signal_skip_while, &predicate_call<detail::box<std::decay_t<F>>, F, skip_while_name>,
                       std::forward<F>(f));
    }
    /* The first value, then the completion (as sk_signal_take() of 1) (sk_signal_first). */
    signal first() const { return op(&sk_signal_first); }
    /* The first value for which `f` returns true, then the completion (sk_signal_first_where).
     * `f(value)` takes the value as its parameter's type and returns a bool. */
    template <class F> signal first_where(F &&f) const {
        return with_fn(&sk_signal_first_where, &predicate_call<detail::box<std::decay_t<F>>, F, first_where_name>,
                       std::forward<F>(f));
    }
    /* Only the value at `index` (0 for the first), then the completion (sk_signal_element_at). */
    signal element_at(std::size_t index) const { return op(&sk_signal_element_at, index); }
    /* Every value; when `signal` completes without having emitted one, a copy of `v` first, then
     * the completion (sk_signal_default_if_empty). */
    signal default_if_empty(const value &v) const { return op(&sk_signal_default_if_empty, v.get()); }
    /* Only the last value, when `signal` completes (sk_signal_last). */
    signal last() const { return op(&sk_signal_last); }
    /* Each value of `signal` as the array [value, latest value of `other`]; values that come before
     * `other` has emitted are dropped (sk_signal_with_latest_from). */
    signal with_latest_from(const signal &other) const { return op(&sk_signal_with_latest_from, other.get()); }
    /* The values of `signal`, then, once it has completed, those of `next`, then the completion of
     * `next` (sk_signal_then). */
    signal then(const signal &next) const { return op(&sk_signal_then, next.get()); }
    /* A copy of `v` first, during the start, then the events of `signal` (started afterwards)
     * (sk_signal_start_with). */
    signal start_with(const value &v) const { return op(&sk_signal_start_with, v.get()); }
    /* For a signal of signals (values of SK_KIND_SIGNAL): runs the latest
     * (sk_signal_switch_to_latest). */
    signal switch_to_latest() const { return op(&sk_signal_switch_to_latest); }
    /* For a signal of signals (values of SK_KIND_SIGNAL): runs them one after another, in arrival
     * order (sk_signal_queue). */
    signal queue_signals() const { return op(&sk_signal_queue); }
    /* As sk_signal_queue(), but only the latest waiting signal is kept (sk_signal_throttled). */
    signal throttled() const { return op(&sk_signal_throttled); }
    /* Drops every value; passes only the error or the completion (sk_signal_ignore_values). */
    signal ignore_values() const { return op(&sk_signal_ignore_values); }
    /* Splits the values by the key `f` gives each: the first value of a new key delivers the array
     * [key, group], where group (of kind SK_KIND_SIGNAL) delivers every value of that key, that
     * first one included (sk_signal_group_by). `f(value)` takes the value as its parameter's type
     * and returns anything value() accepts. */
    template <class F> signal group_by(F &&f) const {
        return with_fn(&sk_signal_group_by, &map_call<detail::box<std::decay_t<F>>, F, group_by_name>,
                       std::forward<F>(f));
    }
    /* One subscription to `signal` shared by all subscribers of the result (sk_signal_share). */
    signal share() const { return op(&sk_signal_share); }
    /* As sk_signal_share(), and a subscriber that joins a running connection first receives its
     * last `count` values (fewer if fewer came), oldest first (sk_signal_replay). */
    signal replay(std::size_t count) const { return op(&sk_signal_replay, count); }
    /* Starts `signal` again each time it completes, forever: the result never completes
     * (sk_signal_restart). */
    signal restart() const { return op(&sk_signal_restart); }
    /* Starts `signal` again at once each time it fails; errors never pass
     * (sk_signal_restart_if_error). */
    signal restart_if_error() const { return op(&sk_signal_restart_if_error); }
    /* Folds the values; emits the accumulator when `signal` completes (sk_signal_reduce_left).
     * `f(accumulator, value)` returns the new accumulator (anything value() accepts). */
    template <class F> signal reduce_left(const value &initial, F &&f) const {
        using B = detail::box<std::decay_t<F>>;
        sk_signal *s = nullptr;
        detail::check(sk_signal_reduce_left(&s, p_, initial.get(), &reduce_call<B, F, reduce_left_name>,
                      detail::make_box(std::forward<F>(f)), &B::release));
        return adopt(s);
    }
    /* Folds each value into an accumulator and delivers every accumulator: `f(initial, v1)`, then
     * `f(that, v2)`,  (sk_signal_scan). `f(accumulator, value)` returns the new accumulator
     * (anything value() accepts). */
    template <class F> signal scan(const value &initial, F &&f) const {
        using B = detail::box<std::decay_t<F>>;
        sk_signal *s = nullptr;
        detail::check(sk_signal_scan(&s, p_, initial.get(), &reduce_call<B, F, scan_name>,
                      detail::make_box(std::forward<F>(f)), &B::release));
        return adopt(s);
    }
    /* From the second value on, the array [previous value, value] (sk_signal_pairwise). */
    signal pairwise() const { return op(&sk_signal_pairwise); }
    /* Calls `f(value)` right after each value was delivered (after the downstream callback
     * returned); otherwise passes every event through untouched (sk_signal_after_next). `f(value)`
     * takes the value as its parameter's type. */
    template <class F> signal after_next(F &&f) const {
        return with_fn(&sk_signal_after_next, &value_call<detail::box<std::decay_t<F>>, F, after_next_name>,
                       std::forward<F>(f));
    }
    /* Calls `f()` at each start, before `signal` is started; otherwise passes every event through
     * untouched (sk_signal_before_started). */
    template <class F> signal before_started(F &&f) const {
        return with_fn(&sk_signal_before_started, &work_call<detail::box<std::decay_t<F>>, before_started_name>,
                       std::forward<F>(f));
    }
    /* Calls `f()` when `signal` completes, just before the completion is delivered; otherwise
     * passes every event through untouched (sk_signal_before_completed). */
    template <class F> signal before_completed(F &&f) const {
        return with_fn(&sk_signal_before_completed, &work_call<detail::box<std::decay_t<F>>, before_completed_name>,
                       std::forward<F>(f));
    }
    /* Calls `f()` when `signal` completes, right after the completion was delivered (after the
     * downstream callback returned); otherwise passes every event through untouched
     * (sk_signal_after_completed). */
    template <class F> signal after_completed(F &&f) const {
        return with_fn(&sk_signal_after_completed, &work_call<detail::box<std::decay_t<F>>, after_completed_name>,
                       std::forward<F>(f));
    }
    /* Calls `f()` exactly once per subscription, when it ends, right after the subscription to
     * `signal` was disposed; otherwise passes every event through untouched
     * (sk_signal_after_disposed). */
    template <class F> signal after_disposed(F &&f) const {
        return with_fn(&sk_signal_after_disposed, &work_call<detail::box<std::decay_t<F>>, after_disposed_name>,
                       std::forward<F>(f));
    }
    /* Every event delivered on `q` (sk_signal_deliver_on). */
    signal deliver_on(const queue &q) const { return op(&sk_signal_deliver_on, q.get()); }
    /* The values one at a time, at most `capacity` waiting while one is delivered, `policy`
     * deciding about the next (sk_signal_on_backpressure_buffer). */
    signal on_backpressure_buffer(std::size_t capacity, overflow policy) const {
        sk_signal *s = nullptr;
        detail::check(sk_signal_on_backpressure_buffer(&s, p_, capacity, static_cast<sk_overflow>(policy), nullptr, nullptr, nullptr));
        return adopt(s);
    }
    /* The same, each dropped value passed to `on_drop(value, dropped)`, `dropped` the count of
     * drops so far, on the thread that dropped it. */
    template <class F> signal on_backpressure_buffer(std::size_t capacity, overflow policy, F &&on_drop) const {
        using B = detail::box<std::decay_t<F>>;
        sk_signal *s = nullptr;
        detail::check(sk_signal_on_backpressure_buffer(&s, p_, capacity, static_cast<sk_overflow>(policy), &on_drop_trampoline<B, F>,
                      detail::make_box(std::forward<F>(on_drop)), &B::release));
        return adopt(s);
    }
    /* Starts `signal` (runs its generator) on `q` (sk_signal_run_on). */
    signal run_on(const queue &q) const { return op(&sk_signal_run_on, q.get()); }
    /* Starts `signal` `seconds` after the start (sk_signal_delay). Timed on `q`. */
    signal delay(seconds_t seconds, const queue &q) const {
        return op(&sk_signal_delay, seconds.count, q.get());
    }
    /* The latest value once `seconds` pass without a new one (sk_signal_debounce). Timed on `q`. */
    signal debounce(seconds_t seconds, const queue &q) const {
        return op(&sk_signal_debounce, seconds.count, q.get());
    }
    /* At most one value per `seconds`, on the trailing edge (sk_signal_throttle). Timed on `q`. */
    signal throttle(seconds_t seconds, const queue &q) const {
        return op(&sk_signal_throttle, seconds.count, q.get());
    }
    /* The values collected into arrays of `count`, each delivered once full
     * (sk_signal_buffer_count). */
    signal buffer_count(std::size_t count) const { return op(&sk_signal_buffer_count, count); }
    /* The values collected during each window of `seconds`, delivered as an array when the window
     * ends (an empty window delivers nothing) (sk_signal_buffer_time). Timed on `q`. */
    signal buffer_time(seconds_t seconds, const queue &q) const {
        return op(&sk_signal_buffer_time, seconds.count, q.get());
    }
    /* At each value of `sampler`, the latest value of `signal` if it emitted one since the previous
     * sample (sk_signal_sample). */
    signal sample(const signal &sampler) const { return op(&sk_signal_sample, sampler.get()); }
    /* At the end of each period of `seconds`, the latest value of `signal` if it emitted one since
     * the previous sample (sk_signal_sample_period). Timed on `q`. */
    signal sample_period(seconds_t seconds, const queue &q) const {
        return op(&sk_signal_sample_period, seconds.count, q.get());
    }
    // END operators (generated)

private:
    template <class B> static sk_disposable *generate(void *ctx, sk_subscriber *s) noexcept {
        auto &g = B::of(ctx);
        using R = decltype(detail::invoke_args(g, std::declval<subscriber>()));
        if constexpr (std::is_void<R>::value) {
            detail::invoke_args(g, subscriber::borrow(s));
            return nullptr;
        } else {
            disposable d = detail::invoke_args(g, subscriber::borrow(s));
            return d.detach();
        }
    }
    /* The names the callbacks shared by two operators give in messages. */
    static constexpr char map_to_signal_name[] = "map_to_signal";
    static constexpr char catch_error_name[] = "catch_error";
    static constexpr char take_while_name[] = "take_while";
    static constexpr char merge_map_name[] = "merge_map";
    // BEGIN operator names (generated)
    static constexpr char before_next_name[] = "before_next";
    static constexpr char skip_while_name[] = "skip_while";
    static constexpr char first_where_name[] = "first_where";
    static constexpr char group_by_name[] = "group_by";
    static constexpr char reduce_left_name[] = "reduce_left";
    static constexpr char scan_name[] = "scan";
    static constexpr char after_next_name[] = "after_next";
    static constexpr char before_started_name[] = "before_started";
    static constexpr char before_completed_name[] = "before_completed";
    static constexpr char after_completed_name[] = "after_completed";
    static constexpr char after_disposed_name[] = "after_disposed";
    // END operator names (generated)
    /* A value the callable's parameter cannot take fails the returned
     * signal, with the message naming both kinds; the callable is not
     * called. */
    template <class B, class F, const char *Name> static sk_signal *to_signal(void *ctx, const sk_value *v) noexcept {
        using A = detail::arg_t<F, 0>;
        std::optional<A> argument;
        try {
            argument.emplace(detail::from_c<A>::read(v));
        } catch (const error &e) {
            try {
                return fail(std::string("signalkit::") + Name + ": " + detail::cannot_take + ": " + e.what()).detach();
            } catch (...) {
                detail::fail_call(Name, detail::cannot_take, "out of memory");
                return nullptr;
            }
        } catch (...) {
            /* No memory for the argument (a std::string): the call fails,
             * as map's does (detail::failing_arg). */
            detail::fail_call(Name, detail::cannot_take, "out of memory");
            return nullptr;
        }
        sk_signal *r = nullptr;
        detail::failing_on_throw(Name, [&] { r = signal(detail::invoke_args(B::of(ctx), std::move(*argument))).detach(); });
        return r;
    }
    /* A side effect's value (before_next, after_next): a throw, or a value
     * its parameter cannot take, goes to the failure hook. */
    template <class B, class F, const char *Name> static void value_call(void *ctx, const sk_value *v) noexcept {
        try {
            detail::invoke_args(B::of(ctx), detail::from_c<detail::arg_t<F, 0>>::read(v));
        } catch (...) {
            detail::report_failure(Name);
        }
    }
    /* A side effect without a value (before_started, ...): a throw goes to
     * the failure hook. */
    template <class B, const char *Name> static void work_call(void *ctx) noexcept {
        try {
            B::of(ctx)();
        } catch (...) {
            detail::report_failure(Name);
        }
    }
    /* group_by's key (the map shape's callback): an operator callback, so a
     * throw, an argument its parameter cannot take or a result a value
     * cannot hold fails the call as map's does (detail::map_body). */
    template <class B, class F, const char *Name>
    static void map_call(void *ctx, const sk_value *v, sk_value *out) noexcept {
        detail::map_body<F>(B::of(ctx), v, out, Name);
    }
    template <class B, class F, const char *Name>
    static void reduce_call(void *ctx, const sk_value *acc, const sk_value *v, sk_value *out) noexcept {
        detail::fold_body<F>(B::of(ctx), acc, v, out, Name);
    }
    template <class B, class F, const char *Name> static bool predicate_call(void *ctx, const sk_value *v) noexcept {
        return detail::predicate_body<bool, F>(B::of(ctx), v, Name);
    }

    static sk_signal *const *raw_array(const std::vector<signal> &signals) noexcept {
        static_assert(sizeof(signal) == sizeof(sk_signal *), "signal is an sk_signal pointer");
        return signals.empty() ? nullptr : reinterpret_cast<sk_signal *const *>(signals.data());
    }
    template <class T> struct same { using type = T; };
    template <class... A> signal op(int (*fn)(sk_signal **, sk_signal *, A...), typename same<A>::type... args) const {
        sk_signal *s = nullptr;
        detail::check(fn(&s, p_, args...));
        return adopt(s);
    }
    /* An operator whose function travels in `ctx` itself (no release). */
    template <class Fn, class Tr> signal with_ctx(Fn fn, Tr trampoline, void *ctx) const {
        sk_signal *s = nullptr;
        detail::check(fn(&s, p_, trampoline, ctx, nullptr));
        return adopt(s);
    }
    template <class B, class F> static void on_drop_trampoline(void *ctx, const sk_value *v, std::uint64_t dropped) noexcept {
        detail::on_drop_call<B, F>(ctx, v, dropped);
    }
    template <class Fn, class Tr, class F> signal with_fn(Fn fn, Tr trampoline, F &&f) const {
        using B = detail::box<std::decay_t<F>>;
        sk_signal *s = nullptr;
        detail::check(fn(&s, p_, trampoline, detail::make_box(std::forward<F>(f)), &B::release));
        return adopt(s);
    }
    static signal make(int (*fn)(sk_signal **, const sk_value *), const sk_value *v) {
        sk_signal *s = nullptr;
        detail::check(fn(&s, v));
        return adopt(s);
    }
    static signal make0(int (*fn)(sk_signal **)) {
        sk_signal *s = nullptr;
        detail::check(fn(&s));
        return adopt(s);
    }
};

inline value::value(const signal &s) {
    set_nil();
    detail::check(sk_value_set_signal(&v_, s.get()));
}

/* ------------------------------------------------------------------------ */
/* Subjects                                                                  */
/* ------------------------------------------------------------------------ */

/* A hot source: put() reaches the current subscribers of signal(). */
class pipe : public detail::handle<sk_pipe, pipe> {
public:
    pipe() noexcept = default;
    /* A new pipe; with `replay`, a new subscriber first receives the latest
     * value put, on the subscribing thread (sk_pipe_create). */
    static pipe create(bool replay = false) {
        sk_pipe *p = nullptr;
        detail::check(sk_pipe_create(&p, replay));
        return adopt(p);
    }
    /* A pipe whose values put from inside its own callbacks wait, at most
     * `capacity` per delivering thread, `policy` deciding about the next
     * (sk_pipe_create_bounded): dropped, or the pipe fails after the values
     * waiting (overflow::error; overflow::block, which cannot wait there). */
    static pipe create_bounded(std::size_t capacity, overflow policy, bool replay = false) {
        sk_pipe *p = nullptr;
        detail::check(sk_pipe_create_bounded(&p, replay, capacity, static_cast<sk_overflow>(policy), nullptr, nullptr, nullptr));
        return adopt(p);
    }
    /* The same, each dropped value passed to `on_drop(value, dropped)` as
     * signal::on_backpressure_buffer's. */
    template <class F> static pipe create_bounded(std::size_t capacity, overflow policy, F &&on_drop, bool replay = false) {
        using B = detail::box<std::decay_t<F>>;
        sk_pipe *p = nullptr;
        detail::check(sk_pipe_create_bounded(&p, replay, capacity, static_cast<sk_overflow>(policy), &on_drop_trampoline<B, F>,
                                             detail::make_box(std::forward<F>(on_drop)), &B::release));
        return adopt(p);
    }
    /* Delivers a copy of `v` to every current subscriber, on the calling
     * thread (sk_pipe_put): put from one thread when order matters. Once the
     * pipe has ended, the value is dropped. */
    void put(const value &v) const { detail::check(sk_pipe_put(p_, v.get())); }
    /* Ends the pipe: its current and later subscribers fail with `e`
     * (sk_pipe_put_error), or complete (put_completion). */
    void put_error(const value &e) const { detail::check(sk_pipe_put_error(p_, e.get())); }
    /* Ends the pipe with the completion: its current subscribers complete,
     * and later ones do at once; only the first end counts
     * (sk_pipe_put_completion). */
    void put_completion() const { detail::check(sk_pipe_put_completion(p_)); }
    /* The pipe's signal (sk_pipe_signal). It does not keep the pipe alive:
     * once the pipe's last handle is released, its subscriptions receive
     * nothing more and never terminate. */
    signalkit::signal signal() const {
        sk_signal *s = nullptr;
        detail::check(sk_pipe_signal(&s, p_));
        return signalkit::signal::adopt(s);
    }

private:
    template <class B, class F> static void on_drop_trampoline(void *ctx, const sk_value *v, std::uint64_t dropped) noexcept {
        detail::on_drop_call<B, F>(ctx, v, dropped);
    }
};

/* Holds the latest value of the signal set into it. */
class promise : public detail::handle<sk_promise, promise> {
public:
    promise() noexcept = default;
    /* A new promise, with no source yet (sk_promise_create). */
    static promise create() {
        sk_promise *p = nullptr;
        detail::check(sk_promise_create(&p));
        return adopt(p);
    }
    /* Replaces the source with `source`, started on the calling thread: the
     * previous one is disposed and its latest value forgotten; an error of
     * `source` ends it as a completion would (sk_promise_set). A `source`
     * built over this promise's own signal is a cycle, never freed (see
     * sk_promise_set). */
    void set(const signalkit::signal &source) const { detail::check(sk_promise_set(p_, source.get())); }
    /* The latest value, if any, then every new one (sk_promise_get). The
     * signal and its subscriptions keep the promise alive. */
    signalkit::signal signal() const {
        sk_signal *s = nullptr;
        detail::check(sk_promise_get(&s, p_));
        return signalkit::signal::adopt(s);
    }
};

/* A scope in which the calling thread's puts never wait for room
 * (sk_nowait_begin): a put that finds a full bounded place of
 * overflow::block leaves its value there, beyond the capacity. end() ends
 * the scope and returns its room signal (sk_nowait_end): empty when no put
 * found a full place, else a signal that completes once each such place has
 * room again; wait for it before the next put. The destructor ends a scope
 * that end() did not. Neither copyable nor movable: the scope is the
 * calling thread's, for the block that made it. */
class nowait_scope {
public:
    nowait_scope() { detail::check(sk_nowait_begin()); }
    nowait_scope(const nowait_scope &) = delete;
    nowait_scope &operator=(const nowait_scope &) = delete;
    ~nowait_scope() {
        if (open_) {
            sk_signal *room = nullptr;
            if (sk_nowait_end(&room) == SK_OK) {
                sk_signal_release(room);
            }
        }
    }
    /* Ends the scope (once): its room signal, empty when nothing waits. */
    signalkit::signal end() {
        open_ = false;
        sk_signal *room = nullptr;
        detail::check(sk_nowait_end(&room));
        return signalkit::signal::adopt(room);
    }

private:
    bool open_ = true;
};

/* Holds a value set directly. */
class value_promise : public detail::handle<sk_value_promise, value_promise> {
public:
    value_promise() noexcept = default;
    /* No value yet. A lone bool is `ignore_repeated`: a bool initial value
     * is written create(value(true)) (or create(true, false)). */
    static value_promise create(bool ignore_repeated = false) { return make(nullptr, ignore_repeated); }
    /* Holding `initial` (anything a value is constructible from: create(42),
     * create("text"), create(2.5), create(some_value), ...). */
    static value_promise create(const value &initial, bool ignore_repeated = false) {
        return make(initial.get(), ignore_repeated);
    }
    /* The same for any other type a value is constructible from:
     * create(value(initial), ignore_repeated). */
    template <class T, std::enable_if_t<!std::is_same<std::decay_t<T>, bool>::value &&
                                            !std::is_same<std::decay_t<T>, value>::value &&
                                            std::is_constructible<value, T>::value,
                                        int> = 0>
    static value_promise create(T &&initial, bool ignore_repeated = false) {
        return create(value(std::forward<T>(initial)), ignore_repeated);
    }
    /* Stores a copy of `v` and delivers it to every subscriber on the calling
     * thread, unless created with `ignore_repeated` and `v` equals the
     * current value (sk_value_promise_set). */
    void set(const value &v) const { detail::check(sk_value_promise_set(p_, v.get())); }
    /* The current value, if any, then every new one (sk_value_promise_get).
     * The signal and its subscriptions keep the value promise alive: one
     * holding its own signal as its value is a cycle, never freed (see
     * sk_value_promise_get). */
    signalkit::signal signal() const {
        sk_signal *s = nullptr;
        detail::check(sk_value_promise_get(&s, p_));
        return signalkit::signal::adopt(s);
    }

private:
    static value_promise make(const sk_value *initial, bool ignore_repeated) {
        sk_value_promise *p = nullptr;
        detail::check(sk_value_promise_create(&p, initial, ignore_repeated));
        return adopt(p);
    }
};

/* ------------------------------------------------------------------------ */
/* Reading values                                                            */
/* ------------------------------------------------------------------------ */

namespace detail {
inline value_view array_iterator::operator*() const {
    const sk_value *item = nullptr;
    check(sk_value_get_array_item(array_, index_, &item));
    return value_view(item);
}
template <class Derived> value_view reader<Derived>::operator[](std::size_t index) const {
    const sk_value *item = nullptr;
    check(sk_value_get_array_item(raw(), index, &item));
    return value_view(item);
}
template <class T> struct reader_as {
    static_assert((std::is_integral<T>::value || std::is_enum<T>::value) && !std::is_same<T, signalkit::kind>::value,
                  "value::as<T>: T is not a type a value converts to (the kind of a value is kind())");
    static T get(const sk_value *v) {
        if constexpr (std::is_enum<T>::value) {
            return static_cast<T>(reader_as<std::underlying_type_t<T>>::get(v));
        } else {
            return get_integer(v);
        }
    }
    static T get_integer(const sk_value *v) {
        std::int64_t n = 0;
        check(sk_value_get_int64(v, &n));
        if (!std::is_same<T, std::int64_t>::value &&
            ((std::is_unsigned<T>::value && n < 0) || static_cast<std::int64_t>(static_cast<T>(n)) != n)) {
            throw error(SK_ERR_INVALID_ARGUMENT, "signalkit::value::as: the int64 value is out of the type's range");
        }
        return static_cast<T>(n);
    }
};
template <> struct reader_as<bool> {
    static bool get(const sk_value *v) {
        bool b = false;
        check(sk_value_get_bool(v, &b));
        return b;
    }
};
template <> struct reader_as<double> {
    static double get(const sk_value *v) {
        double d = 0;
        check(sk_value_get_double(v, &d));
        return d;
    }
};
/* A float parameter or as<float>() (value(1.5f) makes a double): the double
 * rounded to the nearest float, as C++ converts it, except that a finite
 * double beyond every float is refused rather than made infinite (as the
 * ffi library's f32 does); infinities and NaN convert. */
template <> struct reader_as<float> {
    static float get(const sk_value *v) {
        double d = reader_as<double>::get(v);
        double magnitude = d < 0 ? -d : d;
        if (magnitude > static_cast<double>(std::numeric_limits<float>::max()) &&
            magnitude <= std::numeric_limits<double>::max()) {
            throw error(SK_ERR_INVALID_ARGUMENT, "signalkit::value::as: the double is out of the range of float");
        }
        return static_cast<float>(d);
    }
};
/* Every double is a long double exactly. */
template <> struct reader_as<long double> {
    static long double get(const sk_value *v) { return reader_as<double>::get(v); }
};
template <> struct reader_as<std::string_view> {
    static std::string_view get(const sk_value *v) {
        const char *text = nullptr;
        std::size_t length = 0;
        check(sk_value_get_string(v, &text, &length));
        return std::string_view(text, length);
    }
};
template <> struct reader_as<std::string> {
    static std::string get(const sk_value *v) { return std::string(reader_as<std::string_view>::get(v)); }
};
#if defined(SIGNALKIT_HAS_CHAR8)
template <> struct reader_as<std::u8string_view> {
    static std::u8string_view get(const sk_value *v) {
        std::string_view text = reader_as<std::string_view>::get(v);
        return std::u8string_view(reinterpret_cast<const char8_t *>(text.data()), text.size());
    }
};
template <> struct reader_as<std::u8string> {
    static std::u8string get(const sk_value *v) { return std::u8string(reader_as<std::u8string_view>::get(v)); }
};
#endif
#if defined(SIGNALKIT_HAS_SPAN)
template <> struct reader_as<std::span<const std::uint8_t>> {
    static std::span<const std::uint8_t> get(const sk_value *v) {
        const void *data = nullptr;
        std::size_t length = 0;
        check(sk_value_get_bytes(v, &data, &length));
        return std::span<const std::uint8_t>(static_cast<const std::uint8_t *>(data), length);
    }
};
template <> struct reader_as<std::span<const std::byte>> {
    static std::span<const std::byte> get(const sk_value *v) {
        return std::as_bytes(reader_as<std::span<const std::uint8_t>>::get(v));
    }
};
#endif
template <> struct reader_as<bytes> {
    static bytes get(const sk_value *v) {
        const void *data = nullptr;
        std::size_t length = 0;
        check(sk_value_get_bytes(v, &data, &length));
        const auto *b = static_cast<const std::uint8_t *>(data);
        return bytes(b, b + length);
    }
};
template <> struct reader_as<std::vector<value>> {
    static std::vector<value> get(const sk_value *v) {
        const sk_value *first = nullptr;
        std::size_t n = 0;
        check(sk_value_get_array_items(v, &first, &n));
        std::vector<value> items;
        items.reserve(n);
        for (std::size_t i = 0; i < n; i++) {
            items.push_back(value::borrow(&first[i]));
        }
        return items;
    }
};
template <> struct reader_as<signal> {
    static signal get(const sk_value *v) {
        sk_signal *s = nullptr;
        check(sk_value_get_signal(v, &s));
        return signal::borrow(s);
    }
};
template <> struct reader_as<void *> {
    static void *get(const sk_value *v) {
        void *p = nullptr;
        check(sk_value_get_pointer(v, &p));
        return p;
    }
};
template <> struct reader_as<value> {
    static value get(const sk_value *v) { return value::borrow(v); }
};
template <> struct reader_as<value_view> {
    static value_view get(const sk_value *v) noexcept { return value_view(v); }
};
} // namespace detail

/* ------------------------------------------------------------------------ */
/* Pipeable operators                                                        */
/* ------------------------------------------------------------------------ */

/* An operator waiting for its input signal: `s | op` is op(s). */
template <class F> struct pipeable {
    /* The operator: called with the input signal, returns the output one. */
    F apply;
};
/* An operator of your own from `f`, a callable from signal to signal:
 * `s | make_pipeable([](const signal &in) { return in.take(1); })`. */
template <class F> pipeable<std::decay_t<F>> make_pipeable(F &&f) { return {std::forward<F>(f)}; }
/* A kept operator applied (`s | op`): op.apply(s), which copies a callable
 * the operator holds (a move-only one stops at a static_assert). */
template <class F> signal operator|(const signal &s, const pipeable<F> &op) { return op.apply(s); }
/* A temporary operator applied (`s | map(f)`, `s | std::move(op)`): the
 * callable it holds is moved into the new signal. */
template <class F> signal operator|(const signal &s, pipeable<F> &&op) { return std::move(op.apply)(s); }

/* What applying a kept pipeable (an lvalue, `s | op`) of a move-only
 * callable says: that copies the callable, which cannot be copied. */
#define SIGNALKIT_MOVE_ONLY_REUSED                                                                         \
    "signalkit: this operator holds a move-only callable and is applied as an lvalue, which copies it; "   \
    "apply it once as `s | std::move(op)`, or write the operator in place (`s | signalkit::map(f)`)"
namespace detail {
/* One argument a pipeable keeps (its index tells equal types apart). */
template <std::size_t I, class T> struct op_arg {
    T value;
};
/* The arguments a pipeable keeps, each in an op_arg: not a std::tuple,
 * whose instantiation over a lambda's closure type makes g++ 12 see that
 * type as no longer trivially copyable (a captureless lambda then lost its
 * allocation-free path, next_in_ctx). */
template <class Indices, class... A> struct op_args;
template <std::size_t... I, class... A> struct op_args<std::index_sequence<I...>, A...> : op_arg<I, A>... {
    template <class... B> explicit op_args(std::in_place_t, B &&...b) : op_arg<I, A>{std::forward<B>(b)}... {}
    /* Member()(s, the arguments copied). */
    template <class Member> signal call(const signal &s) const & {
        return Member()(s, static_cast<const op_arg<I, A> &>(*this).value...);
    }
    /* Member()(s, the arguments moved). */
    template <class Member> signal call(const signal &s) && {
        return Member()(s, std::move(static_cast<op_arg<I, A> &>(*this).value)...);
    }
};
/* A pipeable of a member of signal: the member's arguments kept, moved into
 * the call when the pipeable is an rvalue (the usual `s | map(f)`), copied
 * when it is reused (`s | op`). At namespace scope, so that the copying
 * overload is only instantiated when a pipeable is reused (a move-only
 * callable compiles until then). */
template <class Member, class... A> struct member_op {
    op_args<std::index_sequence_for<A...>, A...> args;
    signal operator()(const signal &s) const & {
        static_assert(std::conjunction<std::is_copy_constructible<A>...>::value, SIGNALKIT_MOVE_ONLY_REUSED);
        return args.template call<Member>(s);
    }
    signal operator()(const signal &s) && { return std::move(args).template call<Member>(s); }
};
} // namespace detail

/* The pipeable form of the member `name` of signal: signalkit::name(args...)
 * keeps the arguments, and `s | name(args...)` is `s.name(args...)`.
 * signalkit::name is an object (a function object of detail::name##_fn),
 * not a function: argument-dependent lookup never finds it, so that a
 * program's own function of that name, called unqualified on signalkit
 * types (its `filter(values, p)` over a std::vector<signalkit::value>),
 * stays the program's; `signalkit::name(...)`, and `name(...)` after
 * `using namespace signalkit`, call it as before. */
#define SIGNALKIT_DETAIL_PIPEABLE(name)                                                             \
    namespace detail {                                                                              \
    struct name##_member {                                                                          \
        template <class... A>                                                                       \
        auto operator()(const signal &s, A &&...a) const -> decltype(s.name(std::forward<A>(a)...)) { \
            return s.name(std::forward<A>(a)...);                                                   \
        }                                                                                           \
    };                                                                                              \
    struct name##_fn {                                                                              \
        template <class... A>                                                                       \
        pipeable<member_op<name##_member, std::decay_t<A>...>> operator()(A &&...a) const {         \
            static_assert(std::is_invocable<name##_member, const signal &, std::decay_t<A>...>::value, \
                          "signalkit::" #name ": no member signal::" #name " takes these arguments");  \
            return {member_op<name##_member, std::decay_t<A>...>{                                   \
                op_args<std::index_sequence_for<A...>, std::decay_t<A>...>(std::in_place, std::forward<A>(a)...)}}; \
        }                                                                                           \
    };                                                                                              \
    }                                                                                               \
    inline constexpr detail::name##_fn name{};
/* One for each operator member of class signal (`s | take(3)`, `s | map(f)`),
 * written by tools/api/generate.py (`make api-update`) from the class; `make
 * test-api` fails when the list is not the class's. */
// BEGIN pipeables (generated)
SIGNALKIT_DETAIL_PIPEABLE(map)
SIGNALKIT_DETAIL_PIPEABLE(filter)
SIGNALKIT_DETAIL_PIPEABLE(map_to_signal)
SIGNALKIT_DETAIL_PIPEABLE(deliver_on)
SIGNALKIT_DETAIL_PIPEABLE(take_until)
SIGNALKIT_DETAIL_PIPEABLE(catch_error)
SIGNALKIT_DETAIL_PIPEABLE(retry)
SIGNALKIT_DETAIL_PIPEABLE(queue_signals)
SIGNALKIT_DETAIL_PIPEABLE(timeout)
SIGNALKIT_DETAIL_PIPEABLE(take_while)
SIGNALKIT_DETAIL_PIPEABLE(merge_map)
SIGNALKIT_DETAIL_PIPEABLE(buffer_time)
SIGNALKIT_DETAIL_PIPEABLE(retry_count)
SIGNALKIT_DETAIL_PIPEABLE(distinct_until_changed)
SIGNALKIT_DETAIL_PIPEABLE(before_next)
SIGNALKIT_DETAIL_PIPEABLE(take)
SIGNALKIT_DETAIL_PIPEABLE(take_until_signal)
SIGNALKIT_DETAIL_PIPEABLE(skip)
SIGNALKIT_DETAIL_PIPEABLE(skip_while)
SIGNALKIT_DETAIL_PIPEABLE(first)
SIGNALKIT_DETAIL_PIPEABLE(first_where)
SIGNALKIT_DETAIL_PIPEABLE(element_at)
SIGNALKIT_DETAIL_PIPEABLE(default_if_empty)
SIGNALKIT_DETAIL_PIPEABLE(last)
SIGNALKIT_DETAIL_PIPEABLE(with_latest_from)
SIGNALKIT_DETAIL_PIPEABLE(then)
SIGNALKIT_DETAIL_PIPEABLE(start_with)
SIGNALKIT_DETAIL_PIPEABLE(switch_to_latest)
SIGNALKIT_DETAIL_PIPEABLE(throttled)
SIGNALKIT_DETAIL_PIPEABLE(ignore_values)
SIGNALKIT_DETAIL_PIPEABLE(group_by)
SIGNALKIT_DETAIL_PIPEABLE(share)
SIGNALKIT_DETAIL_PIPEABLE(replay)
SIGNALKIT_DETAIL_PIPEABLE(restart)
SIGNALKIT_DETAIL_PIPEABLE(restart_if_error)
SIGNALKIT_DETAIL_PIPEABLE(reduce_left)
SIGNALKIT_DETAIL_PIPEABLE(scan)
SIGNALKIT_DETAIL_PIPEABLE(pairwise)
SIGNALKIT_DETAIL_PIPEABLE(after_next)
SIGNALKIT_DETAIL_PIPEABLE(before_started)
SIGNALKIT_DETAIL_PIPEABLE(before_completed)
SIGNALKIT_DETAIL_PIPEABLE(after_completed)
SIGNALKIT_DETAIL_PIPEABLE(after_disposed)
SIGNALKIT_DETAIL_PIPEABLE(on_backpressure_buffer)
SIGNALKIT_DETAIL_PIPEABLE(run_on)
SIGNALKIT_DETAIL_PIPEABLE(delay)
SIGNALKIT_DETAIL_PIPEABLE(debounce)
SIGNALKIT_DETAIL_PIPEABLE(throttle)
SIGNALKIT_DETAIL_PIPEABLE(buffer_count)
SIGNALKIT_DETAIL_PIPEABLE(sample)
SIGNALKIT_DETAIL_PIPEABLE(sample_period)
// END pipeables (generated)
#undef SIGNALKIT_DETAIL_PIPEABLE
#undef SIGNALKIT_MOVE_ONLY_REUSED

namespace detail {
struct create_fn {
    template <class G> signal operator()(G &&generator) const { return signal::create(std::forward<G>(generator)); }
};
struct deferred_fn {
    template <class F> signal operator()(F &&f) const { return signal::deferred(std::forward<F>(f)); }
};
} // namespace detail
/* Free forms of the sources. signal::create; an object, as the pipeables
 * are (argument-dependent lookup never finds it). */
inline constexpr detail::create_fn create{};
/* signal::deferred; an object, as create. */
inline constexpr detail::deferred_fn deferred{};
/* signal::single. */
inline signal single(const value &v) { return signal::single(v); }
/* signal::fail. */
inline signal fail(const value &e) { return signal::fail(e); }
/* signal::complete. */
inline signal complete() { return signal::complete(); }
/* signal::never. */
inline signal never() { return signal::never(); }
/* signal::merge. */
inline signal merge(const std::vector<signal> &signals) { return signal::merge(signals); }
/* signal::zip, each of its forms (the bounded ones too). */
template <class... A> signal zip(const std::vector<signal> &signals, A &&...a) {
    return signal::zip(signals, std::forward<A>(a)...);
}
/* signal::concat. */
inline signal concat(const std::vector<signal> &signals) { return signal::concat(signals); }
/* signal::combine_latest. */
inline signal combine_latest(const std::vector<signal> &signals, const queue &q = queue()) {
    return signal::combine_latest(signals, q);
}

/* The library's count of live objects (sk_live_objects). */
inline long live_objects() noexcept { return sk_live_objects(); }

/* Waits until at most `at_most` library objects are alive, woken by the
 * releases (sk_live_objects_wait): true, or false once `seconds` passed
 * first; signalkit::error for a negative or NaN `seconds`. */
inline bool live_objects_wait(long at_most, double seconds) {
    int status = sk_live_objects_wait(at_most, seconds);
    if (status == SK_ERR_BUSY) {
        return false;
    }
    detail::check(status);
    return true;
}

/* One live object as sk_live_objects_report() describes it, its strings
 * copied: made_by is empty for an object the library made itself, name
 * for a handle without one (set_name). */
struct live_object {
    /* The object's address: for a handle, the handle (get()); for a value,
     * its object; for a callback, no pointer the caller holds. */
    const void *address;
    /* What it is: "signal", "queue", "string value", "observer",
     * "callback", ... (the list is sk_live_object's). */
    std::string kind;
    /* The C function that made it ("sk_signal_map"); empty for an object
     * the library made itself. */
    std::string made_by;
    /* The name given with set_name(); empty for a handle without one. */
    std::string name;
};

namespace detail {
struct live_objects_sink {
    std::vector<live_object> objects;
    std::exception_ptr failure;
    static void add(void *ctx, const sk_live_object *o) noexcept {
        auto *sink = static_cast<live_objects_sink *>(ctx);
        if (sink->failure) {
            return;
        }
        try {
            sink->objects.push_back(
                live_object{o->address, o->kind, o->made_by != nullptr ? o->made_by : "", o->name != nullptr ? o->name : ""});
        } catch (...) {
            sink->failure = std::current_exception();
        }
    }
};
} // namespace detail

/* Every live object, oldest first (sk_live_objects_report): kept only while
 * handle checking is on, else error (SK_ERR_UNSUPPORTED). To print them,
 * sk_live_objects_print(stderr). */
inline std::vector<live_object> live_objects_report() {
    detail::live_objects_sink sink;
    detail::check(sk_live_objects_report(&detail::live_objects_sink::add, &sink, nullptr));
    if (sink.failure) {
        std::rethrow_exception(sink.failure);
    }
    return std::move(sink.objects);
}

/* The same list written to `out` with stdio, not flushed
 * (sk_live_objects_print), one line each, oldest first; with handle
 * checking off, the count and how to turn it on. Throws signalkit::error
 * (SK_ERR_NULL_ARGUMENT) for a null `out`. */
inline void live_objects_print(std::FILE *out) {
    detail::check(sk_live_objects_print(out));
}

} // namespace signalkit

#endif /* SIGNALKIT_HPP */
