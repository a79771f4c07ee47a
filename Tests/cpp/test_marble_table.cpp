/*
 * The shared marble table (Tests/marbles, format in its README.md) run
 * through the C++ layer: every case is played on a signalkit::test
 * virtual_queue with the cold and hot test signals and the recorders of
 * signalkit_test.hpp, its operators are signalkit.hpp's, and its `out`,
 * `also` and `sub` lines are compared with what happened. The Swift and C
 * runners play the same files (Tests/README.md).
 *
 * The files are found at run time: marble_table::files is one test per
 * *.marbles file of the folder (a parameterized test, its parameters
 * listed when the suite starts), so a new file runs with no change
 * here, and marble_table::the_table_is_there fails when the folder cannot be
 * read or holds no file, or when two cases share a name. A line, operator or
 * function this runner does not know fails its case (the
 * marble_table::runner_* tests hold it to that): a table never passes by
 * being skipped.
 *
 * A callable the case makes fail (`!`, the README's "Functions") throws a
 * marble_failure: the runner checks that the error the subscriber receives
 * is "signalkit::NAME: the callable threw: " and its what(). A side effect
 * whose callable would throw (std::terminate) is left, counted and named
 * in the suite's log, neither passed nor failed.
 *
 * A bounded operator's on_drop puts each value into a pipe, recorded as the
 * case's `dropped` line; where its policy ends the stream (error, block)
 * the error received must be its overflow error.
 *
 * The folder is Tests/marbles from the directory the suite runs in (make
 * runs it from the repository's root), or $SK_MARBLES_DIR.
 */
#include "support.hpp"

#include <dirent.h>
#include <signalkit_test.hpp>

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <sstream>
#include <stdexcept>

namespace skt = signalkit::test;

namespace {

/* One frame of the table is one second of virtual time. */
constexpr double table_frame = 1.0;
/* A case whose queue still has work after this many tasks fails. */
constexpr std::size_t most_tasks = 100000;

/* Why a case cannot be played: its message becomes the case's failure. */
struct case_error : std::runtime_error {
    using std::runtime_error::runtime_error;
};

/* A case C++ cannot play as the table writes it (a side effect that fails:
 * a throw there calls std::terminate, docs/misuse.md): left to the C++
 * suite's own tests, counted and named, never passed. */
struct case_left : std::runtime_error {
    using std::runtime_error::runtime_error;
};

/* What a callable of the vocabulary throws where the case says it fails
 * (`!`, README.md's "Functions"). */
struct marble_failure : std::runtime_error {
    using std::runtime_error::runtime_error;
};

/* The case's bounded operator: what its on_drop receives (into `drops`,
 * recorded as the `dropped` line), the words of the error its policy ends
 * the stream with, its host queues. */
struct bounded_log {
    bool used = false;
    std::string expect;
    signalkit::pipe drops = signalkit::pipe::create();
    std::vector<signalkit::queue> hosts;
    std::vector<std::string> received; /* the errors the subscriber received */
    std::size_t side_effect_throws = 0; /* of `thrown`, a side effect's (the hook's) */
};

/* The case's failing callables and what came of them. */
struct failure_log {
    bool used = false;                 /* the case has a `!` */
    std::vector<std::string> thrown;   /* the what() of each exception thrown */
    std::vector<std::string> received; /* the errors the subscriber received */
    std::size_t side_effect_throws = 0; /* of `thrown`, a side effect's (to the failure hook) */

    /* Throws the failure of a callable called with `at` ("" for none). */
    [[noreturn]] void fail(const std::string &at) {
        thrown.push_back("marble callback failed" + (at.empty() ? std::string() : " at " + at));
        throw marble_failure(thrown.back());
    }
};

std::vector<std::string> split_words(const std::string &line) {
    std::istringstream in(line);
    std::vector<std::string> words;
    for (std::string word; in >> word;) {
        words.push_back(word);
    }
    return words;
}

/* The whole of `text` as an integer, or nothing. */
std::optional<std::int64_t> parse_int(const std::string &text) {
    if (text.empty()) {
        return std::nullopt;
    }
    errno = 0;
    char *end = nullptr;
    long long n = std::strtoll(text.c_str(), &end, 10);
    if (errno != 0 || end == text.c_str() || *end != '\0') {
        return std::nullopt;
    }
    return static_cast<std::int64_t>(n);
}

/* An integer (`7`) or a list of integers without spaces (`[1,2]`). */
std::optional<sk::value> parse_value(const std::string &text) {
    if (text.empty() || text[0] != '[') {
        auto n = parse_int(text);
        return n ? std::optional<sk::value>(sk::value(*n)) : std::nullopt;
    }
    if (text.back() != ']') {
        return std::nullopt;
    }
    std::vector<sk::value> items;
    std::string inside = text.substr(1, text.size() - 2);
    if (!inside.empty()) {
        std::string item;
        std::istringstream in(inside + ",");
        while (std::getline(in, item, ',')) {
            auto n = parse_int(item);
            if (!n) {
                return std::nullopt;
            }
            items.emplace_back(*n);
        }
    }
    return sk::value(items);
}

/* A frame number, or -1 for `-`; nothing when it is neither. */
std::optional<long> parse_frame(const std::string &text) {
    if (text == "-") {
        return -1L;
    }
    auto n = parse_int(text);
    if (!n || *n < 0) {
        return std::nullopt;
    }
    return static_cast<long>(*n);
}

/* ------------------------------------------------------------------------ */
/* The functions of the vocabulary                                           */
/* ------------------------------------------------------------------------ */

enum class fn_class { map, predicate, binary };

struct function {
    std::string name;
    std::int64_t k = 0;
    /* `F!K`: throws (into `log`) when called with K. */
    bool fails = false;
    std::int64_t fail_at = 0;
    failure_log *log = nullptr;

    void fail_if_at(std::int64_t x) const {
        if (fails && x == fail_at) {
            log->fail(std::to_string(x));
        }
    }
};

const struct {
    const char *name;
    fn_class cls;
    bool takes_k;
} functions[] = {
    {"identity", fn_class::map, false}, {"negate", fn_class::map, false},    {"times", fn_class::map, true},
    {"plus", fn_class::map, true},      {"mod", fn_class::map, true},        {"is_even", fn_class::predicate, false},
    {"is_odd", fn_class::predicate, false}, {"always", fn_class::predicate, false},
    {"never", fn_class::predicate, false}, {"lt", fn_class::predicate, true}, {"gt", fn_class::predicate, true},
    {"eq", fn_class::predicate, true},  {"ne", fn_class::predicate, true},   {"add", fn_class::binary, false},
    {"sub", fn_class::binary, false},   {"mul", fn_class::binary, false},    {"max", fn_class::binary, false},
};

/* The function `text` names (`times:3`, `times:3!2` failing at 2), of class
 * `cls`, or a case_error. */
function parse_function(const std::string &written, fn_class cls, failure_log &log) {
    std::size_t bang = written.find('!');
    const std::string text = written.substr(0, bang);
    std::optional<std::int64_t> fail_at;
    if (bang != std::string::npos) {
        fail_at = parse_int(written.substr(bang + 1));
        if (!fail_at) {
            throw case_error("function `" + written + "`: the value after `!` is not an integer");
        }
    }
    std::size_t colon = text.find(':');
    std::string name = text.substr(0, colon);
    for (const auto &known : functions) {
        if (name != known.name) {
            continue;
        }
        if (known.cls != cls) {
            throw case_error("function `" + text + "` is not of the kind this operator takes");
        }
        function f{name, 0};
        if (known.takes_k) {
            auto k = colon == std::string::npos ? std::nullopt : parse_int(text.substr(colon + 1));
            if (!k) {
                throw case_error("function `" + text + "` needs an integer constant (`" + name + ":K`)");
            }
            f.k = *k;
        } else if (colon != std::string::npos) {
            throw case_error("function `" + text + "` takes no constant");
        }
        if (fail_at) {
            f.fails = true;
            f.fail_at = *fail_at;
            f.log = &log;
            log.used = true;
        }
        return f;
    }
    throw case_error("unknown function `" + text + "`");
}

/* The vocabulary's map functions; nil for a value that is not an integer
 * (the diagram then shows it). */
sk::value apply_map(const function &f, sk::value_view v) {
    if (v.kind() != sk::kind::int64) {
        return sk::value();
    }
    std::int64_t x = v.as<std::int64_t>();
    if (f.name == "negate") {
        x = -x;
    } else if (f.name == "times") {
        x *= f.k;
    } else if (f.name == "plus") {
        x += f.k;
    } else if (f.name == "mod") {
        x = f.k == 0 ? 0 : x % f.k;
    }
    f.fail_if_at(v.as<std::int64_t>());
    return sk::value(x);
}

bool apply_predicate(const function &f, sk::value_view v) {
    if (v.kind() != sk::kind::int64) {
        return false;
    }
    std::int64_t x = v.as<std::int64_t>();
    f.fail_if_at(x);
    if (f.name == "is_even") return x % 2 == 0;
    if (f.name == "is_odd") return x % 2 != 0;
    if (f.name == "always") return true;
    if (f.name == "lt") return x < f.k;
    if (f.name == "gt") return x > f.k;
    if (f.name == "eq") return x == f.k;
    if (f.name == "ne") return x != f.k;
    return false; /* never */
}

sk::value apply_binary(const function &f, sk::value_view accumulator, sk::value_view v) {
    if (accumulator.kind() != sk::kind::int64 || v.kind() != sk::kind::int64) {
        return sk::value();
    }
    std::int64_t a = accumulator.as<std::int64_t>(), x = v.as<std::int64_t>();
    f.fail_if_at(x);
    if (f.name == "add") return sk::value(a + x);
    if (f.name == "sub") return sk::value(a - x);
    if (f.name == "mul") return sk::value(a * x);
    return sk::value(x > a ? x : a); /* max */
}

/* The inputs a signal function returns (switchMap's, catch's...): a
 * value `i` the `i`-th; `!` in its place (`failing`) makes the function
 * throw instead (into `log`). */
struct inner_list {
    std::vector<sk::signal> signals;
    std::vector<bool> failing;
    failure_log *log = nullptr;

    /* The `i`-th entry, or the throw of a failing one. */
    sk::signal at(std::size_t i) const {
        if (failing[i]) {
            log->fail(std::to_string(i));
        }
        return signals[i];
    }
};

/* The `i`-th of `inner` for the value `i` (the first for a value that is
 * no integer: catch's error), or an empty handle (the C layer's NULL: no
 * signal) past them. */
sk::signal inner_signal(const inner_list &inner, sk::value_view v) {
    std::int64_t i = v.kind() == sk::kind::int64 ? v.as<std::int64_t>() : 0;
    return i >= 0 && static_cast<std::size_t>(i) < inner.signals.size() ? inner.at(static_cast<std::size_t>(i))
                                                                          : sk::signal();
}

/* ------------------------------------------------------------------------ */
/* Cases                                                                     */
/* ------------------------------------------------------------------------ */

struct input_line {
    std::string name;
    std::string diagram;
    bool hot = false;
};

struct sub_line {
    std::string input;
    long from = -1; /* -1: never subscribed */
    long to = -1;   /* -1: never disposed */
};

struct also_line {
    long from = 0;
    long to = -1;
    std::string diagram;
};

struct marble_case {
    std::string name;
    int line = 0;
    std::vector<input_line> inputs;
    skt::marble_values values;
    std::vector<std::string> ops;
    std::optional<std::string> out;
    std::vector<sub_line> subs;
    std::vector<also_line> also;
    long dispose_at = -1;
    std::optional<std::string> dropped;
    /* `during C XYZ`: the trigger's character and the characters put. */
    std::optional<std::pair<char, std::string>> during;
    /* `fails C`: the subscriber's on_next throws at C's value. */
    std::optional<char> fails;
};

/* What a case plays on: its queue and its inputs. */
struct stage {
    skt::virtual_queue queue;
    const marble_case &c;
    std::map<std::string, skt::test_signal> inputs;
    /* Filled while the operators are applied (parse_function) and run. */
    mutable failure_log failures;
    mutable bounded_log bounded;

    /* A bounded operator's policy by the table's name; the error it ends
     * the stream with is expected (error: the overflow, block: its
     * refusal, as it cannot wait on the virtual clock's one thread). */
    sk::overflow policy(const std::string &op, const std::string &name) const {
        const std::map<std::string, std::pair<sk::overflow, const char *>> policies = {
            {"dropNewest", {sk::overflow::drop_newest, ""}}, {"dropOldest", {sk::overflow::drop_oldest, ""}},
            {"latest", {sk::overflow::latest, ""}}, {"error", {sk::overflow::error, ": overflow: "}},
            {"block", {sk::overflow::block, ": cannot block: "}}};
        auto found = policies.find(name);
        if (found == policies.end()) {
            throw case_error("`" + op + "`: `" + name + "` is no policy (dropNewest, dropOldest, latest, error, block)");
        }
        bounded.used = true;
        bounded.expect = found->second.second;
        return found->second.first;
    }
    /* The bounded operators' on_drop. */
    std::function<void(sk::value_view, std::uint64_t)> on_drop() const {
        sk::pipe drops = bounded.drops;
        return [drops](sk::value_view v, std::uint64_t) { drops.put(sk::value(v)); };
    }

    const sk::signal &input(const std::string &op, const std::string &name) const {
        auto found = inputs.find(name);
        if (found == inputs.end()) {
            throw case_error("`" + op + "` names no input `" + name + "`");
        }
        return found->second.signal;
    }
    /* The inputs named by words `first`... of an `op` line. */
    std::vector<sk::signal> named(const std::vector<std::string> &w, std::size_t first) const {
        std::vector<sk::signal> out;
        for (std::size_t i = first; i < w.size(); i++) {
            out.push_back(input(w[0], w[i]));
        }
        if (out.empty()) {
            throw case_error("`" + w[0] + "` needs at least one input");
        }
        return out;
    }
    /* The same for a signal function, where `!` may stand for a failure. */
    inner_list named_or_failing(const std::vector<std::string> &w, std::size_t first) const {
        inner_list out;
        out.log = &failures;
        for (std::size_t i = first; i < w.size(); i++) {
            bool failing = w[i] == "!";
            out.signals.push_back(failing ? sk::signal() : input(w[0], w[i]));
            out.failing.push_back(failing);
            failures.used = failures.used || failing;
        }
        if (out.signals.empty()) {
            throw case_error("`" + w[0] + "` needs at least one input");
        }
        return out;
    }
    /* Inputs no function of the case can fail in place of. */
    inner_list named_list(const std::vector<std::string> &w, std::size_t first) const {
        std::vector<sk::signal> signals = named(w, first);
        std::vector<bool> failing(signals.size(), false);
        return inner_list{std::move(signals), std::move(failing), &failures};
    }
};

void need(const std::vector<std::string> &w, std::size_t arguments) {
    if (w.size() != arguments + 1) {
        throw case_error("`" + w[0] + "` takes " + std::to_string(arguments) + " argument(s), got " +
                         std::to_string(w.size() - 1));
    }
}

std::int64_t int_argument(const std::vector<std::string> &w, std::size_t i) {
    auto n = i < w.size() ? parse_int(w[i]) : std::nullopt;
    if (!n) {
        throw case_error("`" + w[0] + "`: argument " + std::to_string(i) + " is not an integer");
    }
    return *n;
}

/* A count of the table as a size_t: a negative one is one past any. */
std::size_t count_or_max(std::int64_t n) { return n < 0 ? SIZE_MAX : static_cast<std::size_t>(n); }
std::size_t count_or_zero(std::int64_t n) { return n < 0 ? 0 : static_cast<std::size_t>(n); }

/* An `op` line's words, read as the kinds of argument of its operator's
 * shape (marble_operators.hpp says which word is which): a count (negative:
 * one past any; a capacity or a number of retries: 0), a function of the
 * vocabulary, a value, an input's name, inputs' names (`!` where a signal
 * function fails), frames on the case's queue, a policy. */
struct operation {
    const stage &st;
    const std::vector<std::string> &w;
    const sk::signal &s;

    bool has(std::size_t i) const { return w.size() > i; }
    const std::string &word(std::size_t i) const {
        if (!has(i)) {
            throw case_error("`" + w[0] + "` needs argument " + std::to_string(i));
        }
        return w[i];
    }
    std::size_t count(std::size_t i) const { return count_or_max(int_argument(w, i)); }
    std::size_t count_or_zero(std::size_t i) const { return ::count_or_zero(int_argument(w, i)); }
    sk::overflow overflow(std::size_t i) const { return st.policy(w[0], word(i)); }
    /* A bounded operator's on_drop: the case's (README.md's `dropped`). */
    std::function<void(sk::value_view, std::uint64_t)> on_drop() const { return st.on_drop(); }
    /* The on_drop of a bounded operator of a signal of signals: a dropped
     * signal recorded as its place among the inputs named from word `i`
     * (the upstream's value that named it). */
    std::function<void(sk::value_view, std::uint64_t)> dropped_signal(std::size_t i) const {
        std::vector<sk::signal> named = st.named(w, i);
        sk::pipe drops = st.bounded.drops;
        return [named, drops](sk::value_view v, std::uint64_t) {
            sk_signal *dropped = v.as<sk::signal>().get();
            auto at = std::find_if(named.begin(), named.end(), [dropped](const sk::signal &n) { return n.get() == dropped; });
            drops.put(sk::value(at == named.end() ? std::int64_t(-1) : std::int64_t(at - named.begin())));
        };
    }
    /* A bounded operator's queue: the case's, or with `host F...` from word
     * `i` a host-drained queue that the case drains at the frames F. */
    sk::queue host_queue(std::size_t i) const {
        if (!has(i)) {
            return st.queue;
        }
        if (w[i] != "host" || !has(i + 1)) {
            throw case_error("`" + w[0] + "` is followed by nothing or by `host` and frames");
        }
        sk::queue on = sk::queue::host("marble host");
        st.bounded.hosts.push_back(on);
        for (std::size_t k = i + 1; k < w.size(); k++) {
            st.queue.after(static_cast<double>(int_argument(w, k)) * table_frame, [on] { on.drain(); });
        }
        return on;
    }
    std::function<bool(sk::value_view)> predicate(std::size_t i) const {
        function f = parse_function(word(i), fn_class::predicate, st.failures);
        return [f](sk::value_view v) { return apply_predicate(f, v); };
    }
    std::function<sk::value(sk::value_view)> map(std::size_t i) const {
        function f = parse_function(word(i), fn_class::map, st.failures);
        return [f](sk::value_view v) { return apply_map(f, v); };
    }
    std::function<sk::value(sk::value_view, sk::value_view)> binary(std::size_t i) const {
        function f = parse_function(word(i), fn_class::binary, st.failures);
        return [f](sk::value_view a, sk::value_view v) { return apply_binary(f, a, v); };
    }
    sk::value value(std::size_t i) const {
        auto v = parse_value(word(i));
        if (!v) {
            throw case_error("`" + w[0] + "`: `" + w[i] + "` is not a value");
        }
        return *v;
    }
    sk::value initial(std::size_t i) const { return sk::value(int_argument(w, i)); }
    const sk::signal &input(std::size_t i) const { return st.input(w[0], word(i)); }
    std::vector<sk::signal> inputs(std::size_t i) const { return st.named(w, i); }
    sk::seconds_t seconds(std::size_t i) const { return static_cast<double>(int_argument(w, i)) * table_frame; }
    const sk::queue &queue() const { return st.queue; }
    /* A signal function over the inputs named from word `i`: the value
     * `k`'s, `!` throwing. */
    std::function<sk::signal(sk::value_view)> inner(std::size_t i) const {
        inner_list inner = st.named_or_failing(w, i);
        return [inner](sk::value_view v) { return inner_signal(inner, v); };
    }
    /* deferred's: the input of word `i` at each start, `!` throwing. */
    std::function<sk::signal()> make(std::size_t i) const {
        word(i);
        inner_list made = st.named_or_failing(std::vector<std::string>(w.begin(), w.begin() + 1 + i), i);
        return [made] { return made.at(0); };
    }
    /* take_until's: pass a value when the predicate of word `i` holds,
     * complete after it when the next one does. */
    std::function<int(sk::value_view)> action(std::size_t i) const {
        function pass = parse_function(word(i), fn_class::predicate, st.failures);
        function complete = parse_function(word(i + 1), fn_class::predicate, st.failures);
        return [pass, complete](sk::value_view v) {
            return (apply_predicate(pass, v) ? sk::take_pass : sk::take_drop) |
                   (apply_predicate(complete, v) ? sk::take_complete : sk::take_drop);
        };
    }
    /* The side effects' functions (the shapes tap and work): they do nothing,
     * and the case checks that the events pass unchanged. Written failing
     * (`beforeNext !3`), the case is left: a side effect's throw calls
     * std::terminate (docs/misuse.md's "A callback that fails"). */
    /* A side effect: `!K` throws when called with K, `!` at every call; a
     * throw goes to the failure hook (signalkit.hpp) and the stream goes
     * on, as in Python and Rust. */
    std::function<void(sk::value_view)> look(std::size_t i) const {
        std::optional<std::int64_t> at = side_effect(i);
        if (!at) {
            return [](sk::value_view) {};
        }
        failure_log *log = &st.failures;
        std::int64_t k = *at;
        return [log, k](sk::value_view v) {
            if (v.kind() == sk::kind::int64 && v.as<std::int64_t>() == k) {
                log->side_effect_throws++;
                log->fail(std::to_string(k));
            }
        };
    }
    std::function<void()> work(std::size_t i) const {
        if (!side_effect(i, true)) {
            return [] {};
        }
        failure_log *log = &st.failures;
        return [log] {
            log->side_effect_throws++;
            log->fail("");
        };
    }
    /* The `!` of word `i`: its value (0 for a bare `!` when `bare`), or
     * nothing for none. */
    std::optional<std::int64_t> side_effect(std::size_t i, bool bare = false) const {
        if (!has(i) || w[i].empty() || w[i][0] != '!') {
            need(w, i - 1);
            return std::nullopt;
        }
        st.failures.used = true;
        if (bare && w[i] == "!") {
            return 0;
        }
        auto k = parse_int(w[i].substr(1));
        if (!k) {
            throw case_error("`" + w[i] + "`: the value after `!` is not an integer");
        }
        return k;
    }
    /* The upstream of an operator of a signal of signals: the value `k` the
     * `k`-th input named from word `i`. */
    sk::signal upstream(std::size_t i) const {
        inner_list inner = st.named_list(w, i);
        return s.map([inner](sk::value_view v) {
            sk::signal chosen = inner_signal(inner, v);
            return chosen ? sk::value(chosen) : sk::value();
        });
    }
    /* groupBy's groups merged, each value as [key, value]. */
    static sk::signal groups(const sk::signal &grouped) {
        return grouped.merge_map(SIZE_MAX, [](sk::value_view group) {
            sk::value key = group[0];
            return group[1].as<sk::signal>().map(
                [key](sk::value_view v) { return sk::value(std::vector<sk::value>{key, sk::value(v)}); });
        });
    }
};

/* The operators of the table, listed in marble_operators.hpp, which make
 * api-update writes from the operator table (tools/api/operators.md) and
 * the shapes (tools/api/shapes.py): each with its number of words (-1: it
 * varies, its call reads them) and its call. */
struct marble_operator {
    const char *name;
    int arguments;
    sk::signal (*apply)(const operation &);
};

#include "marble_operators.hpp"

/* `s` with the `op` line `text` applied; a case_error when it cannot be. */
sk::signal apply(const stage &st, const std::string &text, const sk::signal &s) {
    const std::vector<std::string> w = split_words(text);
    const std::string &op = w.at(0);
    for (const marble_operator &listed : marble_operators) {
        if (op == listed.name) {
            if (listed.arguments >= 0) need(w, static_cast<std::size_t>(listed.arguments));
            return listed.apply(operation{st, w, s});
        }
    }
    if (op == "concatMap") {
        /* mapToQueue, which C++ has not: queue_signals over the values mapped
         * to signals. */
        inner_list inner = st.named_or_failing(w, 1);
        return s.map([inner](sk::value_view v) {
                    sk::signal chosen = inner_signal(inner, v);
                    return chosen ? sk::value(chosen) : sk::value();
                }).queue_signals();
    }
    throw case_error("unknown operator `" + op + "`");
}

/* Whether `text` ends with `tail`. */
bool ends_with(const std::string &text, const std::string &tail) {
    return text.size() >= tail.size() && text.compare(text.size() - tail.size(), tail.size(), tail) == 0;
}

/* What the failure hook heard (signalkit.hpp's set_failure_hook): a side
 * effect's throws, which leave the stream going. */
std::vector<std::string> &hook_heard() {
    static std::vector<std::string> heard;
    return heard;
}
void record_hook(const char *where, const char *what) {
    hook_heard().push_back(std::string(where) + ": " + what);
}

/* What the case's failing callables did not do as the table says
 * (README.md's "Functions"): fail, and have the error the subscriber
 * received carry the what() of what they threw; a side effect's throws
 * go to the failure hook instead, each. */
std::string check_failures(const failure_log &log, const std::string &out) {
    if (log.thrown.empty()) {
        return "\n    no callable failed: the `!` was never reached";
    }
    if (hook_heard().size() != log.side_effect_throws) {
        return "\n    the failure hook heard " + std::to_string(hook_heard().size()) + " throws, the side effects threw " +
               std::to_string(log.side_effect_throws);
    }
    if (out.find('#') == std::string::npos) {
        return "";
    }
    const std::string tail = ": the callable threw: " + log.thrown.front();
    if (log.received.size() != 1 || log.received[0].compare(0, 11, "signalkit::") != 0 ||
        !ends_with(log.received[0], tail)) {
        std::string got;
        for (const auto &e : log.received) {
            got += " \"" + e + "\"";
        }
        return "\n    the error received is not \"signalkit::NAME" + tail + "\": got" + (got.empty() ? " none" : got);
    }
    return "";
}

/* What playing a case came to: what did not hold, one "\n    ..." line
 * each ("" when all did), or why it was left (case_left). */
struct case_result {
    std::string failures;
    std::string left;
};

/* Plays `c`. */
case_result run_case(const marble_case &c) {
    std::string failures;
    hook_heard().clear();
    sk::set_failure_hook(&record_hook);
    stage st{skt::virtual_queue::create(c.name.c_str()), c, {}, {}, {}};
    /* `during`: the first input's latest subscriber. */
    auto latest = std::make_shared<sk::subscriber>();
    const sk::value error("marble error");
    sk::signal s;
    try {
        for (const auto &in : c.inputs) {
            try {
                st.inputs.emplace(in.name, in.hot ? skt::hot(st.queue, table_frame, in.diagram, c.values, error)
                                                  : skt::cold(st.queue, table_frame, in.diagram, c.values, error));
            } catch (const sk::error &e) {
                throw case_error("input " + in.name + ": " + e.what());
            }
        }
        s = st.inputs.at(c.inputs.at(0).name).signal;
        if (c.during) {
            /* The first input, whose latest subscriber the subscriber's
             * first call with the trigger's value puts the values into. */
            sk::signal upstream = s;
            s = sk::signal::create([upstream, latest](const sk::subscriber &sub) {
                *latest = sub;
                return upstream.start([sub](sk::value_view v) { sub.put_next(sk::value(v)); },
                                      [sub](sk::value_view e) { sub.put_error(sk::value(e)); },
                                      [sub] { sub.put_completion(); });
            });
        }
        for (const auto &op : c.ops) {
            try {
                s = apply(st, op, s);
            } catch (const case_left &) {
                throw;
            } catch (const case_error &e) {
                throw case_error("op " + op + ": " + e.what());
            } catch (const sk::error &e) {
                throw case_error("op " + op + ": " + e.what());
            }
        }
    } catch (const case_error &e) {
        return {std::string("\n    ") + e.what(), ""};
    } catch (const case_left &e) {
        return {"", e.what()};
    }
    if (c.during) {
        auto trigger = c.values.find(c.during->first);
        std::vector<sk::value> puts;
        for (char put : c.during->second) {
            auto found = c.values.find(put);
            if (found == c.values.end() || trigger == c.values.end()) {
                return {std::string("\n    `during`: `") + put + "` or its trigger stands for no value", ""};
            }
            puts.push_back(found->second);
        }
        auto done = std::make_shared<bool>(false);
        sk::value on = trigger->second;
        s = s.after_next([on, puts, done, latest](sk::value_view v) {
            if (!*done && v == on) {
                *done = true;
                for (const auto &put : puts) {
                    latest->put_next(put);
                }
            }
        });
    }
    if (c.dropped && !st.bounded.used) {
        return {"\n    `dropped` in a case without a bounded operator", ""};
    }
    if (c.fails) {
        /* The subscriber (start()'s on_next, which may throw) forwards to the
         * recorder's, then throws at the trigger's value. */
        auto trigger = c.values.find(*c.fails);
        if (trigger == c.values.end()) {
            return {std::string("\n    `fails`: `") + *c.fails + "` stands for no value", ""};
        }
        st.failures.used = true;
        failure_log *log = &st.failures;
        sk::value on = trigger->second;
        std::string at(1, *c.fails);
        sk::signal upstream = s;
        s = sk::signal::create([upstream, on, at, log](const sk::subscriber &sub) {
            return upstream.start(
                [sub, on, at, log](sk::value_view v) {
                    sub.put_next(sk::value(v));
                    if (v == on) {
                        log->fail(at);
                    }
                },
                [sub](sk::value_view e) { sub.put_error(sk::value(e)); }, [sub] { sub.put_completion(); });
        });
    }

    if (st.failures.used) {
        /* Keeps the error the subscriber receives (the recorder prints any
         * as `#`) and passes it on unchanged, at the same frame. */
        failure_log *log = &st.failures;
        s = s.catch_error([log](sk::value_view e) {
            log->received.push_back(e.kind() == sk::kind::string ? e.as<std::string>() : "(not a string)");
            return sk::signal::fail(sk::value(e));
        });
    }
    if (!st.bounded.expect.empty()) {
        bounded_log *log = &st.bounded;
        s = s.catch_error([log](sk::value_view e) {
            log->received.push_back(e.kind() == sk::kind::string ? e.as<std::string>() : "(not a string)");
            return sk::signal::fail(sk::value(e));
        });
    }
    skt::recorder drops;
    if (st.bounded.used) {
        drops = skt::record(st.bounded.drops.signal(), st.queue, table_frame);
    }
    skt::recorder out = skt::record(s, st.queue, table_frame);
    if (c.dispose_at >= 0) {
        st.queue.after(static_cast<double>(c.dispose_at) * table_frame, [&out] { out.dispose(); });
    }
    std::vector<skt::recorder> also(c.also.size());
    for (std::size_t i = 0; i < c.also.size(); i++) {
        st.queue.after(static_cast<double>(c.also[i].from) * table_frame,
                       [&also, &s, &st, i] { also[i] = skt::record(s, st.queue, table_frame); });
        if (c.also[i].to >= 0) {
            st.queue.after(static_cast<double>(c.also[i].to) * table_frame, [&also, i] { also[i].dispose(); });
        }
    }
    try {
        st.queue.run(most_tasks);
    } catch (const sk::error &e) {
        failures += "\n    the queue still had work after " + std::to_string(most_tasks) + " tasks: " + e.what();
    }

    auto compare = [&](const skt::recorder &r, const std::string &expected, const std::string &who) {
        std::string got = r.diagram(c.values);
        if (got != expected) {
            failures += "\n    " + who + ": expected " + expected + ", got " + got;
        }
    };
    compare(out, *c.out, "out");
    if (st.bounded.used) {
        compare(drops, c.dropped.value_or(""), "dropped");
    }
    if (!st.bounded.expect.empty() && c.out->find('#') != std::string::npos &&
        (st.bounded.received.size() != 1 || st.bounded.received[0].find(st.bounded.expect) == std::string::npos)) {
        std::string got;
        for (const auto &e : st.bounded.received) {
            got += " \"" + e + "\"";
        }
        failures += "\n    the error received is not the overflow error with \"" + st.bounded.expect + "\": got" +
                    (got.empty() ? " none" : got);
    }
    for (std::size_t i = 0; i < c.also.size(); i++) {
        std::string who = "also " + std::to_string(i + 1);
        if (!also[i]) {
            failures += "\n    " + who + " never subscribed";
        } else {
            compare(also[i], c.also[i].diagram, who);
        }
    }
    /* The subscription logs of the inputs named by `sub` lines. */
    for (const auto &in : c.inputs) {
        std::string expected;
        bool named = false;
        for (const auto &sub : c.subs) {
            if (sub.input != in.name) {
                continue;
            }
            named = true;
            if (sub.from < 0) {
                continue;
            }
            expected += (expected.empty() ? "^" : " ^") + std::to_string(sub.from);
            if (sub.to >= 0) {
                expected += " !" + std::to_string(sub.to);
            }
        }
        if (named) {
            std::string got = st.inputs.at(in.name).subscriptions.text();
            if (got != expected) {
                failures += "\n    subscriptions of " + in.name + ": expected \"" + expected + "\", got \"" + got + "\"";
            }
        }
    }
    out.dispose();
    for (auto &r : also) {
        r.dispose();
    }
    if (drops) {
        drops.dispose();
    }
    if (st.failures.used) {
        failures += check_failures(st.failures, *c.out);
    }
    return {failures, ""};
}

/* What a file's cases came to. */
struct report {
    int passed = 0;
    int failed = 0;
    std::string text;
    std::vector<std::string> names;
    std::vector<std::string> left; /* "NAME: why" of each case left */

    void fail(const std::string &where, const std::string &what) {
        failed++;
        text += where + (what.compare(0, 1, "\n") == 0 ? "" : ": ") + what + "\n";
    }
};

/* Reads `in` (named `path` in messages) and plays each of its cases. */
report run_table(std::istream &in, const std::string &path) {
    report r;
    std::optional<marble_case> c;
    bool broken = false;
    int number = 0;
    for (std::string line; std::getline(in, line);) {
        number++;
        if (!line.empty() && line.back() == '\r') {
            line.pop_back();
        }
        const std::vector<std::string> w = split_words(line);
        const std::string where = path + ":" + std::to_string(number);
        if (w.empty() || w[0][0] == '#') {
            continue;
        }
        const std::string &key = w[0];
        if (key == "case") {
            if (c || w.size() != 2) {
                r.fail(where, "`case` inside a case, or without a name");
                broken = true;
                continue;
            }
            c.emplace();
            c->name = w[1];
            c->line = number;
            r.names.push_back(w[1]);
            broken = false;
            for (char digit = '0'; digit <= '9'; digit++) {
                c->values[digit] = sk::value(static_cast<std::int64_t>(digit - '0'));
            }
            continue;
        }
        if (!c) {
            r.fail(where, "`" + key + "` outside a case");
            continue;
        }
        if (broken) {
            if (key == "end") {
                c.reset();
            }
            continue;
        }
        bool ok = true;
        /* The rest of the line after its first `n` words, as written. */
        auto rest = [&line](std::size_t n) {
            std::size_t at = 0;
            for (std::size_t i = 0; i < n; i++) {
                at = line.find_first_not_of(" \t", at);
                at = line.find_first_of(" \t", at);
            }
            at = line.find_first_not_of(" \t", at);
            std::string text = line.substr(at);
            return text.substr(0, text.find_last_not_of(" \t") + 1);
        };
        if (key == "in" || key == "hot") {
            ok = w.size() >= 3;
            if (ok) {
                c->inputs.push_back(input_line{w[1], rest(2), key == "hot"});
            }
        } else if (key == "value") {
            auto v = w.size() == 3 && w[1].size() == 1 ? parse_value(w[2]) : std::nullopt;
            ok = v.has_value();
            if (ok) {
                c->values[w[1][0]] = *v;
            }
        } else if (key == "op") {
            ok = w.size() >= 2;
            if (ok) {
                c->ops.push_back(rest(1));
            }
        } else if (key == "out") {
            ok = w.size() == 2 && !c->out;
            if (ok) {
                c->out = w[1];
            }
        } else if (key == "sub") {
            sub_line sub;
            if (w.size() == 3) {
                ok = w[2] == "never";
            } else if (w.size() == 4) {
                auto from = parse_frame(w[2]), to = parse_frame(w[3]);
                ok = from && *from >= 0 && to;
                if (ok) {
                    sub.from = *from;
                    sub.to = *to;
                }
            } else {
                ok = false;
            }
            if (ok) {
                sub.input = w[1];
                c->subs.push_back(sub);
            }
        } else if (key == "dropped") {
            ok = w.size() == 2 && !c->dropped;
            if (ok) {
                c->dropped = w[1];
            }
        } else if (key == "during") {
            ok = w.size() == 3 && w[1].size() == 1 && !c->during;
            if (ok) {
                c->during = std::make_pair(w[1][0], w[2]);
            }
        } else if (key == "fails") {
            ok = w.size() == 2 && w[1].size() == 1 && !c->fails;
            if (ok) {
                c->fails = w[1][0];
            }
        } else if (key == "dispose") {
            auto at = w.size() == 2 ? parse_frame(w[1]) : std::nullopt;
            ok = at && *at >= 0;
            if (ok) {
                c->dispose_at = *at;
            }
        } else if (key == "also") {
            auto from = w.size() == 4 ? parse_frame(w[1]) : std::nullopt;
            auto to = w.size() == 4 ? parse_frame(w[2]) : std::nullopt;
            ok = from && *from >= 0 && to;
            if (ok) {
                c->also.push_back(also_line{*from, *to, w[3]});
            }
        } else if (key == "end") {
            marble_case done = std::move(*c);
            c.reset();
            const std::string at = path + ":" + std::to_string(done.line) + ": case " + done.name;
            if (!done.out || done.inputs.empty()) {
                r.fail(at, "no `out` or no input");
                continue;
            }
            auto unknown = std::find_if(done.subs.begin(), done.subs.end(), [&done](const sub_line &sub) {
                return std::none_of(done.inputs.begin(), done.inputs.end(),
                                    [&sub](const input_line &i) { return i.name == sub.input; });
            });
            if (unknown != done.subs.end()) {
                r.fail(at, "`sub` names no input `" + unknown->input + "`");
                continue;
            }
            case_result result = run_case(done);
            if (!result.left.empty()) {
                r.left.push_back(done.name + ": " + result.left);
            } else if (result.failures.empty()) {
                r.passed++;
            } else {
                r.fail(at, result.failures);
            }
            continue;
        } else {
            ok = false;
        }
        if (!ok) {
            r.fail(where, "a line this runner cannot read (case " + c->name + "): " + line);
            broken = true;
        }
    }
    if (c) {
        r.fail(path, "case " + c->name + " has no `end`");
    }
    return r;
}

report run_text(const std::string &text) {
    std::istringstream in(text);
    return run_table(in, "(text)");
}

std::string marbles_dir() {
    const char *dir = std::getenv("SK_MARBLES_DIR");
    return dir && dir[0] ? dir : "Tests/marbles";
}

/* The *.marbles files of the folder, sorted; empty when it cannot be read. */
std::vector<std::string> table_files() {
    std::vector<std::string> names;
    DIR *dir = opendir(marbles_dir().c_str());
    if (!dir) {
        return names;
    }
    for (struct dirent *entry = readdir(dir); entry; entry = readdir(dir)) {
        std::string name = entry->d_name;
        if (name.size() > 8 && name.compare(name.size() - 8, 8, ".marbles") == 0) {
            names.push_back(name);
        }
    }
    closedir(dir);
    std::sort(names.begin(), names.end());
    return names;
}

/* A file's name as a parameter of marble_table::files (plain bytes in
 * cr_malloc's memory: the runner makes them, and each test's process,
 * forked from it, has its copy). */
struct table_file {
    char name[256];
};

} // namespace

ParameterizedTestParameters(marble_table, files) {
    std::vector<std::string> names = table_files();
    auto *params = static_cast<table_file *>(cr_malloc(sizeof(table_file) * (names.empty() ? 1 : names.size())));
    for (std::size_t i = 0; i < names.size(); i++) {
        std::snprintf(params[i].name, sizeof params[i].name, "%s", names[i].c_str());
    }
    return cr_make_param_array(table_file, params, names.size());
}

/* Every case of one file of the table passes. */
static void play_file(const char *name) {
    std::string path = marbles_dir() + "/" + name;
    std::ifstream in(path);
    cr_assert(in.good(), "%s cannot be opened: %s", path.c_str(), std::strerror(errno));
    report r = run_table(in, path);
    cr_assert(r.failed == 0 && r.passed > 0, "%s: %d case(s) passed, %d failed:\n%s", path.c_str(), r.passed,
              r.failed, r.text.c_str());
    for (const auto &left : r.left) {
        std::fprintf(stderr, "%s: left to the C++ suite's own tests: %s\n", path.c_str(), left.c_str());
    }
}

ParameterizedTest(table_file *file, marble_table, files, .timeout = 20) {
    play_file(file->name);
    sk_test::expect_clean();
}

/* The folder is there, has files, and no two cases share a name. */
SK_TEST(marble_table, the_table_is_there) {
    std::vector<std::string> names = table_files();
    cr_assert(!names.empty(), "%s holds no *.marbles file (or cannot be read)", marbles_dir().c_str());
    std::map<std::string, std::string> seen;
    for (const auto &name : names) {
        std::ifstream in(marbles_dir() + "/" + name);
        cr_assert(in.good(), "%s/%s cannot be opened", marbles_dir().c_str(), name.c_str());
        for (std::string line; std::getline(in, line);) {
            std::vector<std::string> w = split_words(line);
            if (w.size() == 2 && w[0] == "case") {
                auto [at, fresh] = seen.emplace(w[1], name);
                cr_expect(fresh, "case %s is in %s and in %s", w[1].c_str(), at->second.c_str(), name.c_str());
            }
        }
    }
    cr_assert_gt(seen.size(), 0u);
}

/* The runner fails what it cannot play, naming the line or operator. */
SK_TEST(marble_table, runner_passes_a_case_that_holds) {
    report r = run_text("case holds\nin a -1-2|\nop map times:10\nvalue x 10\nvalue y 20\nout -x-y|\nsub a 0 4\nend\n");
    cr_assert_eq(r.passed, 1, "%s", r.text.c_str());
    cr_assert_eq(r.failed, 0, "%s", r.text.c_str());
}

/* The drops a bounded operator's on_drop receives, and the overflow error
 * its error policy ends the stream with, are checked. */
SK_TEST(marble_table, runner_checks_drops_and_the_overflow_error) {
    const std::string head = "case d\nin a -1-----6|\nduring 1 2345\n";
    report r = run_text(head + "op onBackpressureBuffer 2 dropNewest\nout -(123)-----6|\ndropped -(45)\nend\n");
    cr_assert_eq(r.passed, 1, "%s", r.text.c_str());
    r = run_text(head + "op onBackpressureBuffer 2 dropNewest\nout -(123)-----6|\ndropped -(44)\nend\n");
    cr_assert_eq(r.failed, 1);
    cr_assert(r.text.find("dropped: expected -(44), got -(45)") != std::string::npos, "%s", r.text.c_str());
    r = run_text(head + "op onBackpressureBuffer 2 error\nout -(123#)\ndropped -(45)\nend\n");
    cr_assert_eq(r.passed, 1, "%s", r.text.c_str());
    /* An error of the input is not the overflow error. */
    r = run_text("case e\nin a -1-#\nop onBackpressureBuffer 2 error\nout -1-#\nend\n");
    cr_assert_eq(r.failed, 1);
    cr_assert(r.text.find("not the overflow error") != std::string::npos, "%s", r.text.c_str());
}

SK_TEST(marble_table, runner_fails_an_unknown_operator) {
    report r = run_text("case unknown\nin a -1|\nop frobnicate 3\nout -1|\nend\n");
    cr_assert_eq(r.passed, 0);
    cr_assert_eq(r.failed, 1);
    cr_assert(r.text.find("unknown operator `frobnicate`") != std::string::npos, "%s", r.text.c_str());
}

SK_TEST(marble_table, runner_fails_an_unknown_function_and_a_bad_argument) {
    report r = run_text("case f\nin a -1|\nop map cube\nout -1|\nend\n"
                        "case g\nin a -1|\nop filter times:2\nout -1|\nend\n"
                        "case h\nin a -1|\nop take two\nout -1|\nend\n"
                        "case i\nin a -1|\nop takeUntil b\nout -1|\nend\n");
    cr_assert_eq(r.passed, 0);
    cr_assert_eq(r.failed, 4, "%s", r.text.c_str());
    for (const char *part : {"unknown function `cube`", "`times:2` is not of the kind", "`take`: argument 1",
                             "names no input `b`"}) {
        cr_expect(r.text.find(part) != std::string::npos, "no \"%s\" in:\n%s", part, r.text.c_str());
    }
}

SK_TEST(marble_table, runner_fails_a_line_it_cannot_read) {
    report r = run_text("case unreadable\nin a -1|\nexpect -1|\nout -1|\nend\n"
                        "case later\nin a -1|\nout -1|\nend\n"
                        "stray\n");
    cr_assert_eq(r.passed, 1, "%s", r.text.c_str());
    cr_assert_eq(r.failed, 2, "%s", r.text.c_str());
    cr_assert(r.text.find("(text):3: a line this runner cannot read (case unreadable): expect -1|") !=
                  std::string::npos,
              "%s", r.text.c_str());
    cr_assert(r.text.find("(text):10: `stray` outside a case") != std::string::npos, "%s", r.text.c_str());
}

SK_TEST(marble_table, runner_fails_what_did_not_happen) {
    report r = run_text("case wrong\nin a -1-2|\nop take 1\nout -1-2|\nsub a 0 -\nend\n"
                        "case no_end\nin a -1|\nout -1|\n");
    cr_assert_eq(r.passed, 0);
    cr_assert_eq(r.failed, 2, "%s", r.text.c_str());
    cr_expect(r.text.find("out: expected -1-2|, got -(1|)") != std::string::npos, "%s", r.text.c_str());
    cr_expect(r.text.find("subscriptions of a: expected \"^0\", got \"^0 !1\"") != std::string::npos, "%s",
              r.text.c_str());
    cr_expect(r.text.find("case no_end has no `end`") != std::string::npos, "%s", r.text.c_str());
}

/* A callable the case makes fail (`!`) must fail, with its what() in the
 * error; a side effect's failure is left, neither passed nor failed. */
SK_TEST(marble_table, runner_checks_failing_callables) {
    report r = run_text("case fails\nin a -1-2|\nop map times:10!2\nvalue x 10\nout -x-#\nsub a 0 3\nend\n"
                        "case never_reached\nin a -1-2|\nop map times:10!5\nvalue x 10\nvalue y 20\nout -x-y|\nend\n"
                        "case side_effect\nin a -1-2|\nop beforeNext !2\nout -1-2|\nend\n");
    /* The side effect's throw goes to the failure hook, the stream on. */
    cr_assert_eq(r.passed, 2, "%s", r.text.c_str());
    cr_assert_eq(r.failed, 1, "%s", r.text.c_str());
    cr_assert(r.text.find("case never_reached\n    no callable failed: the `!` was never reached") != std::string::npos,
              "%s", r.text.c_str());
    cr_assert_eq(r.left.size(), 0u);
}
