/* Handles: reference counting (copy = retain, destruction = release, move
 * free), adopt / borrow / detach interop with C, disposables, subjects
 * (pipe, promise, value_promise), and the lifetime of every kind of
 * callable: destroyed exactly once, when and where the C contract says. */
#include "support.hpp"

using sk_test::events;
using sk_test::ints;
using sk_test::record;
using sk_test::track;
using sk_test::v;

SK_TEST(handles, copies_retain_and_moves_are_free) {
    auto p = sk::pipe::create();
    long base = sk::live_objects();
    sk::pipe copy = p;
    cr_assert(copy == p);
    sk::pipe moved = std::move(copy);
    cr_assert_not(copy);
    cr_assert(moved == p);
    cr_assert_eq(sk::live_objects(), base);
    copy = moved;
    moved = sk::pipe();
    cr_assert_not(moved);
    cr_assert(copy == p);
    auto &same = p; /* self-assignment keeps the handle */
    p = same;
    cr_assert(p);
}

SK_TEST(handles, a_handle_outlives_its_copies) {
    sk::signal s;
    {
        auto p = sk::pipe::create();
        s = p.signal();
    }
    cr_assert(s);
    auto log = std::make_shared<events>();
    record(s, log); /* the pipe is gone: nothing will come, the observer is released */
    cr_assert_eq(log->values.size(), 0u);
}

SK_TEST(handles, adopt_borrow_detach_interoperate_with_c) {
    sk_signal *raw = nullptr;
    cr_assert_eq(sk_signal_never(&raw), SK_OK);
    sk::signal borrowed = sk::signal::borrow(raw); /* +1 */
    sk::signal adopted = sk::signal::adopt(raw);   /* takes the original */
    cr_assert(borrowed.get() == raw && adopted.get() == raw);
    sk_signal *given = adopted.detach();
    cr_assert_not(adopted);
    sk_signal_release(given);
    sk_disposable *d = nullptr;
    sk_observer o = {nullptr, nullptr, nullptr, nullptr, nullptr};
    cr_assert_eq(sk_signal_start(&d, borrowed.get(), &o), SK_OK);
    sk::disposable::adopt(d).dispose();
}

SK_TEST(handles, releasing_a_disposable_does_not_dispose) {
    auto p = sk::pipe::create();
    auto log = std::make_shared<events>();
    record(p.signal(), log); /* its disposable dropped at once */
    p.put(1);
    cr_assert(log->ints() == v({1}));
}

SK_TEST(handles, scoped_disposable_disposes) {
    auto p = sk::pipe::create();
    auto log = std::make_shared<events>();
    {
        sk::scoped_disposable scope = record(p.signal(), log);
        p.put(1);
    }
    p.put(2);
    cr_assert(log->ints() == v({1}));
}

SK_TEST(handles, disposable_action_runs_once_and_dies) {
    int ran = 0;
    auto d = sk::disposable::action(track([&] { ran++; }));
    d.dispose();
    d.dispose();
    cr_assert_eq(ran, 1);
    cr_assert_eq(sk_test::alive(), 0);
    {
        auto never = sk::disposable::action(track([&] { ran++; }));
    }
    cr_assert_eq(ran, 1);
    cr_assert_eq(sk_test::alive(), 0, "released undisposed: destroyed without running");
}

SK_TEST(handles, meta_set_and_dict) {
    int a = 0, b = 0, c = 0;
    auto meta = sk::disposable::meta();
    meta.meta_set(sk::disposable::action([&] { a++; }));
    meta.meta_set(sk::disposable::action([&] { b++; }));
    cr_assert_eq(a, 1);
    auto set = sk::disposable::set();
    auto x = sk::disposable::action([&] { c++; });
    set.add(x);
    set.add(meta);
    set.remove(x);
    set.dispose();
    cr_assert_eq(b, 1);
    cr_assert_eq(c, 0);
    auto dict = sk::disposable::dict();
    dict.dict_set("k", x);
    dict.dict_set("k", sk::disposable());
    cr_assert_eq(c, 1);
    dict.dispose();
}

SK_TEST(handles, pipe_with_replay) {
    auto p = sk::pipe::create(true);
    p.put(1);
    p.put(2);
    auto log = std::make_shared<events>();
    auto d = record(p.signal(), log);
    p.put(3);
    cr_assert(log->ints() == v({2, 3}));
    d.dispose();
}

SK_TEST(handles, promise) {
    auto promise = sk::promise::create();
    auto source = sk::pipe::create();
    promise.set(source.signal());
    source.put(1);
    auto log = std::make_shared<events>();
    auto d = record(promise.signal(), log);
    source.put(2);
    cr_assert(log->ints() == v({1, 2}));
    d.dispose();
}

SK_TEST(handles, value_promise) {
    auto empty = sk::value_promise::create();
    auto p = sk::value_promise::create(1, true);
    auto log = std::make_shared<events>();
    auto d = record(p.signal(), log);
    auto e = record(empty.signal(), log);
    p.set(1);
    p.set(2);
    empty.set(3);
    cr_assert(log->ints() == v({1, 2, 3}));
    d.dispose();
    e.dispose();
}

/* create(initial) with anything a value is constructible from holds that
 * value (an int, a string literal or a double once picked create(bool): an
 * empty promise ignoring repeats); a lone bool stays ignore_repeated. */
SK_TEST(handles, value_promise_create_takes_an_initial_value) {
    auto first = [](const sk::value_promise &p) {
        std::vector<sk::value> got;
        p.signal().start([&got](const sk::value &v) { got.push_back(v); }).dispose();
        return got;
    };
    auto i = first(sk::value_promise::create(42));
    cr_assert(i.size() == 1 && i[0] == sk::value(42));
    auto t = first(sk::value_promise::create("hello"));
    cr_assert(t.size() == 1 && t[0].as<std::string>() == "hello");
    auto d = first(sk::value_promise::create(2.5));
    cr_assert(d.size() == 1 && d[0] == sk::value(2.5));
    auto s = first(sk::value_promise::create(std::string("text")));
    cr_assert(s.size() == 1 && s[0].as<std::string>() == "text");
    auto u = first(sk::value_promise::create(std::uint8_t{7}, true));
    cr_assert(u.size() == 1 && u[0] == sk::value(7));
    auto b = first(sk::value_promise::create(sk::value(true)));
    cr_assert(b.size() == 1 && b[0] == sk::value(true));
    auto bt = first(sk::value_promise::create(true, false));
    cr_assert(bt.size() == 1 && bt[0] == sk::value(true));
    cr_assert(first(sk::value_promise::create()).empty());
    cr_assert(first(sk::value_promise::create(true)).empty(), "create(bool): ignore_repeated, no value");
    /* create(42) ignores nothing unless asked: a repeat reaches subscribers. */
    auto p = sk::value_promise::create(42);
    int n = 0;
    auto sub = p.signal().start([&n](std::int64_t) { n++; });
    p.set(42);
    cr_assert_eq(n, 2);
    sub.dispose();
}

/* ---- lifetime of callables ---- */

SK_TEST(handles, observer_callables_die_at_completion) {
    ints({1}).start(track([](std::int64_t) {}), track([](sk::value_view) {}), track([] {}));
    cr_assert_eq(sk_test::alive(), 0);
}

SK_TEST(handles, observer_callables_die_at_dispose) {
    auto p = sk::pipe::create();
    auto d = p.signal().start(track([](std::int64_t) {}));
    cr_assert_eq(sk_test::alive(), 1);
    d.dispose();
    cr_assert_eq(sk_test::alive(), 0);
}

/* A value callback that fits in a pointer and is called as const travels in
 * the observer's ctx (no box, no release: one object per subscription);
 * anything else, a mutable lambda included, keeps its own state in a box. */
static std::int64_t seen_by_function;
static void add_to_seen(std::int64_t n) { seen_by_function += n; }
static std::int64_t calls_seen_by_mutable;

SK_TEST(handles, small_value_callbacks_and_mutable_ones) {
    auto p = sk::pipe::create();
    std::int64_t total = 0;
    seen_by_function = 0;
    calls_seen_by_mutable = 0;
    auto by_reference = p.signal().start([&total](std::int64_t n) { total += n; });
    auto by_pointer = p.signal().start(&add_to_seen);
    auto captureless = p.signal().start([](std::int64_t n) { seen_by_function += 10 * n; });
    auto counting = p.signal().start([calls = std::int64_t(0)](std::int64_t) mutable { calls_seen_by_mutable = ++calls; });
    p.put(1);
    p.put(2);
    p.put(3);
    cr_assert_eq(total, 6);
    cr_assert_eq(seen_by_function, 66);
    cr_assert_eq(calls_seen_by_mutable, 3, "a mutable lambda's state was lost between calls");
    by_reference.dispose();
    p.put(4);
    cr_assert_eq(total, 6, "delivered after dispose");
    cr_assert_eq(calls_seen_by_mutable, 4);
}

/* As signalkit.h's conventions and signal::start say: a callable run while
 * a synchronous source emits during start() cannot dispose its own
 * subscription (start() hands the disposable out after the generator ran:
 * the meta disposable disposed at 2 held nothing yet, and disposes the
 * subscription only when set, every value delivered); take_until, asked
 * through a flag the callable sets, stops the deliveries, while the
 * generator runs to its end. */
SK_TEST(handles, a_synchronous_source_is_stopped_from_a_callback_by_take_until) {
    int generated = 0;
    auto source = sk::create(track([&generated](sk::subscriber s) {
        for (int i = 0; i < 10; i++) {
            generated++;
            s.put_next(i);
        }
        s.put_completion();
    }));
    std::vector<std::int64_t> got;
    int completions = 0;
    auto meta = sk::disposable::meta();
    meta.meta_set(source.start(track([meta, &got](std::int64_t n) {
                                   got.push_back(n);
                                   if (n == 2) {
                                       meta.dispose();
                                   }
                               }),
                               sk::none, track([&completions] { completions++; })));
    cr_assert_eq(got.size(), 10u, "disposing during the start took effect");
    cr_assert_eq(completions, 1);

    got.clear();
    generated = 0;
    bool stop = false;
    auto d = (source | sk::take_until(track([&stop](sk::value_view) { return stop ? sk::take_complete : sk::take_pass; })))
                 .start(track([&got, &stop](std::int64_t n) {
                            got.push_back(n);
                            stop = (n == 2);
                        }),
                        sk::none, track([&completions] { completions++; }));
    cr_assert(got == v({0, 1, 2}));
    cr_assert_eq(completions, 2);
    cr_assert_eq(generated, 10, "the generator runs to its end");
}

/* As signal::start and scoped_disposable say: disposing (here, the end of a
 * scoped_disposable) does not wait for a callback running on another
 * thread (the callback may dispose its own subscription, so waiting could
 * deadlock); the callables live until it returned. So what a callback uses
 * must be owned by its callable (the shared gate here), not by the scope
 * that disposes: a `[this]` member subscription whose owner is destroyed
 * right after is a use after free. */
struct gate {
    std::mutex mutex;
    std::condition_variable changed;
    int entered = 0;
    bool open = false;

    void enter_and_wait() {
        std::unique_lock<std::mutex> lock(mutex);
        entered++;
        changed.notify_all();
        changed.wait_for(lock, sk_test::deadline, [this] { return open; });
    }
    bool wait_entered() {
        std::unique_lock<std::mutex> lock(mutex);
        return changed.wait_for(lock, sk_test::deadline, [this] { return entered > 0; });
    }
    void let_go() {
        {
            std::lock_guard<std::mutex> lock(mutex);
            open = true;
        }
        changed.notify_all();
    }
};

SK_TEST(handles, dispose_does_not_wait_for_a_callback_running_elsewhere) {
    auto q = sk::queue::serial("cpp.dispose");
    auto p = sk::pipe::create();
    auto g = std::make_shared<gate>();
    {
        sk::scoped_disposable subscription =
            (p.signal() | sk::deliver_on(q)).start(track([g](std::int64_t) { g->enter_and_wait(); }));
        p.put(1);
        cr_assert(g->wait_entered());
    }
    cr_assert_eq(sk_test::alive(), 1, "the callable was destroyed while it ran");
    p.put(2);
    g->let_go();
    cr_assert(sk_test::tracker::shared().wait_alive_at_most(0));
    std::lock_guard<std::mutex> lock(g->mutex);
    cr_assert_eq(g->entered, 1, "delivered after the dispose");
}

SK_TEST(handles, observer_callables_die_with_the_pipe) {
    auto p = sk::pipe::create();
    auto d = p.signal().start(track([](std::int64_t) {}));
    p.reset();
    cr_assert_eq(sk_test::alive(), 0);
}

SK_TEST(handles, generator_dies_with_its_last_signal) {
    auto s = sk::create(track([](sk::subscriber) {}));
    auto mapped = s | sk::map(track([](sk::value_view x) { return x; }));
    s.reset();
    cr_assert_eq(sk_test::alive(), 2, "the mapped signal holds the source");
    mapped.reset();
    cr_assert_eq(sk_test::alive(), 0);
}

SK_TEST(handles, callables_released_on_another_thread) {
    auto q = sk::queue::serial("cpp.release");
    auto log = std::make_shared<events>();
    {
        auto d = record(ints({1}) | sk::map(track([](std::int64_t n) { return n; })) | sk::deliver_on(q), log);
        cr_assert(log->wait_terminated());
    }
    q.sync([] {});
    cr_assert(sk_test::tracker::shared().wait_alive_at_most(0));
}

SK_TEST(handles, a_failed_call_destroys_its_callable) {
    sk::signal empty;
    cr_assert_throw(empty.map(track([](std::int64_t n) { return n; })), sk::error);
    cr_assert_throw(empty.start(track([](std::int64_t) {}), track([](sk::value_view) {})), sk::error);
    cr_assert_throw(sk::queue().async(track([] {})), sk::error);
    cr_assert_eq(sk_test::alive(), 0);
}

/* The list of live objects (handle checking on): each handle with the
 * function that made it and the name given with set_name, oldest first;
 * the callables are "callback"s of the operator they were given to. */
SK_TEST(handles, live_objects_report_names_each_handle) {
    cr_assert_eq(sk_set_handle_checking(true), SK_OK);
    auto p = sk::pipe::create();
    p.set_name("keys");
    auto upper = p.signal() | sk::map([](std::int64_t n) { return n + 1; });
    upper.set_name(std::string("upper"));
    auto objects = sk::live_objects_report();
    cr_assert_eq(objects.size(), 3u);
    cr_assert_eq(objects[0].address, static_cast<const void *>(p.get()));
    cr_assert_eq(objects[0].kind, "pipe");
    cr_assert_eq(objects[0].made_by, "sk_pipe_create");
    cr_assert_eq(objects[0].name, "keys");
    cr_assert_eq(objects[1].kind, "callback");
    cr_assert_eq(objects[1].made_by, "sk_signal_map");
    cr_assert_eq(objects[1].name, "");
    cr_assert_eq(objects[2].address, static_cast<const void *>(upper.get()));
    cr_assert_eq(objects[2].kind, "signal");
    cr_assert_eq(objects[2].name, "upper");
    upper.set_name(nullptr);
    cr_assert_eq(sk::live_objects_report()[2].name, "");
}

/* live_objects_print writes the same list through stdio: one line a live
 * object, with its name; a null FILE is an error. */
SK_TEST(handles, live_objects_print_writes_the_list) {
    cr_assert_eq(sk_set_handle_checking(true), SK_OK);
    auto p = sk::pipe::create();
    p.set_name("keys");
    char text[512] = {0};
    std::FILE *out = fmemopen(text, sizeof text - 1, "w");
    cr_assert(out != nullptr);
    sk::live_objects_print(out);
    std::fclose(out);
    cr_assert(std::strstr(text, "signalkit: 1 live object") != nullptr, "%s", text);
    cr_assert(std::strstr(text, "made by sk_pipe_create, named \"keys\"") != nullptr, "%s", text);
    try {
        sk::live_objects_print(nullptr);
        cr_assert_fail("no exception");
    } catch (const sk::error &e) {
        cr_assert_eq(e.code(), SK_ERR_NULL_ARGUMENT);
    }
}

SK_TEST(handles, live_objects_report_needs_handle_checking) {
    auto p = sk::pipe::create();
    p.set_name("keys"); /* checked, kept nowhere */
    try {
        (void)sk::live_objects_report();
        cr_assert_fail("no exception");
    } catch (const sk::error &e) {
        cr_assert_eq(e.code(), SK_ERR_UNSUPPORTED);
    }
}

SK_TEST(handles, live_objects_wait_is_true_once_released_and_false_at_its_timeout) {
    long base = sk::live_objects();
    {
        auto p = sk::pipe::create();
        cr_assert_not(sk::live_objects_wait(base, 0.01)); /* the pipe is alive: the timeout */
        cr_assert(sk::live_objects_wait(base + 1, 0));
    }
    cr_assert(sk::live_objects_wait(base, 60));
    bool refused = false;
    try {
        (void)sk::live_objects_wait(base, -1);
    } catch (const sk::error &e) {
        refused = e.code() == SK_ERR_INVALID_ARGUMENT;
    }
    cr_assert(refused, "a negative timeout is refused with signalkit::error");
}
