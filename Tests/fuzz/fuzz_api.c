/*
 * fuzz_api.c - libFuzzer harness over the C API (include/signalkit.h).
 *
 * Each input is decoded into a sequence of calls over a few slots of each
 * kind of handle: pipes, signals (pipe signals, single/complete/fail/never,
 * generators that keep their subscribers so later steps can emit into them,
 * value promises, and operators chained on any of them), subscriptions with
 * tracked observers, one host-drained queue and one virtual-time queue (the
 * time operators' clock: the only queues used, so a run is deterministic).
 * Every operator of signalkit.h is applied (apply_operator): through its
 * shape (fuzz_operators.h, generated from the operator table), or, the
 * loops and group_by, by a case of their own; so is a custom operator made
 * with sk_signal_create_over (custom_operator.h). The operator byte is a slot
 * number, never reduced modulo the count of operators, so that adding one
 * keeps the meaning of every committed input. Steps create,
 * chain, start, put values of every kind, dispose, release, drain and
 * advance the clock in any order.
 *
 * Invariants, checked as the calls happen (abort() with a message):
 * - an observer's release runs at most once, and no callback comes after it;
 * - no callback after the observer's terminal event;
 * - no callback after its dispose returned (single-threaded here);
 * - a user pointer's release runs at most once.
 * At the end of each input everything is disposed and released and the host
 * queue drained; then every observer and every user pointer was released
 * exactly once, and sk_live_objects() == 0.
 *
 * The first byte's low bit turns handle checking on (sk_set_handle_checking).
 *
 * A subscription to a value promise keeps the promise alive until it is
 * disposed (as in the original): one released without dispose is permanent
 * by contract, not a leak. Signals built on value promises are marked, and
 * their subscriptions are always disposed before they are released.
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "signalkit.h"
#include "signalkit_test.h"
#include "int_callbacks.h"
#include "fuzz_operators.h"
#include "custom_operator.h"

#define FAIL(...)                                                              \
    do {                                                                       \
        fprintf(stderr, "fuzz_api: " __VA_ARGS__);                             \
        fprintf(stderr, "\n");                                                 \
        abort();                                                               \
    } while (0)

#define SIGNALS 8
#define PIPES 4
#define SUBSCRIPTIONS 8
#define SUBSCRIBERS 8
#define PROMISES 2
#define MAX_TRACKERS 256
#define MAX_POINTERS 256
#define MAX_DEPTH 48

/* ------------------------------------------------------------------------ */
/* Input                                                                     */
/* ------------------------------------------------------------------------ */

typedef struct input {
    const uint8_t *data;
    size_t size;
} input;

static uint8_t next_byte(input *in) {
    if (in->size == 0) {
        return 0;
    }
    in->size--;
    return *in->data++;
}

static bool tracing;

#define TRACE(...)                                                             \
    do {                                                                       \
        if (tracing) {                                                         \
            fprintf(stderr, __VA_ARGS__);                                      \
        }                                                                      \
    } while (0)

/* ------------------------------------------------------------------------ */
/* Tracked observers and pointers                                            */
/* ------------------------------------------------------------------------ */

typedef struct tracker {
    bool used;
    bool terminated;
    bool disposed;  /* its dispose has returned */
    int releases;
    /* Started by sk_signal_start_failable: its value callback fails at the
     * fail_at-th value (0: never); failed once it has. */
    int fail_at;
    int nexts;
    bool failed;
} tracker;

static tracker trackers[MAX_TRACKERS];
static size_t tracker_count;
static int pointer_releases[MAX_POINTERS];
static size_t pointer_count;

static void check_alive(tracker *t, const char *what) {
    if (t->releases > 0) {
        FAIL("%s after the observer's release", what);
    }
    if (t->terminated) {
        FAIL("%s after the terminal event", what);
    }
    if (t->disposed) {
        FAIL("%s after dispose returned", what);
    }
}

static void on_next(void *ctx, const sk_value *value) {
    if (value == NULL) {
        FAIL("next with a NULL value");
    }
    check_alive(ctx, "next");
    tracker *t = ctx;
    if (t->failed) {
        FAIL("next after the value callback failed");
    }
    if (t->fail_at != 0 && ++t->nexts == t->fail_at) {
        sk_value error;
        sk_value_set_int64(&error, -t->fail_at);
        if (sk_callback_fail(&error) != SK_OK) {
            FAIL("sk_callback_fail in a failable observer: %s", sk_last_error_message());
        }
        t->failed = true;
    }
}

static void on_error(void *ctx, const sk_value *error) {
    if (error == NULL) {
        FAIL("error with a NULL value");
    }
    check_alive(ctx, "error");
    ((tracker *)ctx)->terminated = true;
}

static void on_completed(void *ctx) {
    check_alive(ctx, "completed");
    ((tracker *)ctx)->terminated = true;
}

static void on_release(void *ctx) {
    tracker *t = ctx;
    if (++t->releases > 1) {
        FAIL("an observer's release ran twice");
    }
}

static void pointer_release(void *p) {
    int *count = p;
    if (++*count > 1) {
        FAIL("a user pointer's release ran twice");
    }
}

/* ------------------------------------------------------------------------ */
/* The world                                                                 */
/* ------------------------------------------------------------------------ */

static sk_signal *signals[SIGNALS];
static int depth[SIGNALS]; /* cost: the subscriptions one start makes */
static bool promised[SIGNALS]; /* built on a value promise */
static sk_pipe *pipes[PIPES];
static sk_disposable *subscriptions[SUBSCRIPTIONS];
static tracker *subscription_trackers[SUBSCRIPTIONS];
static bool subscription_promised[SUBSCRIPTIONS];
static sk_subscriber *subscribers[SUBSCRIBERS];
static sk_value_promise *promises[PROMISES];
static sk_queue *host;
static sk_queue *clock_queue; /* virtual time: the time operators' queue */

static void put_marked_signal(size_t slot, sk_signal *signal, int d, bool from_promise) {
    slot %= SIGNALS;
    sk_signal_release(signals[slot]);
    signals[slot] = signal;
    depth[slot] = d;
    promised[slot] = from_promise;
}

static void put_signal(size_t slot, sk_signal *signal, int d) {
    put_marked_signal(slot, signal, d, false);
}

/* A value of any kind from the input (+1: the caller releases it). Without
 * `signals`, no signal values: a value promise holding a signal built on
 * itself is a reference cycle the program made (as with the original), which
 * no reference-counted library can break. */
static sk_value make_value_of(input *in, bool with_signals) {
    sk_value v;
    sk_value_set_nil(&v);
    uint8_t kind = next_byte(in) % (with_signals ? 9 : 8);
    switch (kind) {
    case 0:
        break;
    case 1:
        sk_value_set_bool(&v, next_byte(in) & 1);
        break;
    case 2:
        sk_value_set_int64(&v, (int64_t)(int8_t)next_byte(in));
        break;
    case 3:
        sk_value_set_double(&v, (double)next_byte(in) / 4.0);
        break;
    case 4: {
        char text[4] = { (char)('a' + next_byte(in) % 4), (char)('a' + next_byte(in) % 4), 0, 0 };
        if (sk_value_set_string(&v, text) != SK_OK) {
            FAIL("sk_value_set_string: %s", sk_last_error_message());
        }
        break;
    }
    case 5: {
        uint8_t bytes[3] = { next_byte(in), 0, next_byte(in) };
        if (sk_value_set_bytes(&v, bytes, sizeof bytes) != SK_OK) {
            FAIL("sk_value_set_bytes: %s", sk_last_error_message());
        }
        break;
    }
    case 6: {
        sk_value items[2];
        sk_value_set_int64(&items[0], next_byte(in) % 3);
        sk_value_set_nil(&items[1]);
        if (sk_value_set_array(&v, items, 2) != SK_OK) {
            FAIL("sk_value_set_array: %s", sk_last_error_message());
        }
        break;
    }
    case 7:
        if (pointer_count < MAX_POINTERS) {
            if (sk_value_set_pointer(&v, &pointer_releases[pointer_count++], pointer_release) != SK_OK) {
                FAIL("sk_value_set_pointer: %s", sk_last_error_message());
            }
        }
        break;
    default: {
        size_t slot = next_byte(in) % SIGNALS;
        sk_signal *s = promised[slot] ? NULL : signals[slot];
        if (s != NULL && sk_value_set_signal(&v, s) != SK_OK) {
            FAIL("sk_value_set_signal: %s", sk_last_error_message());
        }
        break;
    }
    }
    return v;
}

static sk_value make_value(input *in) {
    return make_value_of(in, true);
}

/* ------------------------------------------------------------------------ */
/* Generators and operator callbacks                                         */
/* ------------------------------------------------------------------------ */

/* Keeps the subscriber in the slot its context names (if free). */
static bool tearing_down;

static sk_disposable *keep_subscriber(void *ctx, sk_subscriber *subscriber) {
    size_t slot = (size_t)(uintptr_t)ctx % SUBSCRIBERS;
    if (subscribers[slot] == NULL && !tearing_down) {
        subscribers[slot] = sk_subscriber_retain(subscriber);
    }
    return NULL;
}



/* take_until's function; it fails (sk_callback_fail, with the value as the
 * error) for the int 2, so that the failure's path (the error, the upstream
 * disposed) meets everything else the fuzzer does, without a case of its
 * own (a new case would shift the selector's modulus and so every input of
 * the corpus). */
static int take_small(void *ctx, const sk_value *value) {
    (void)ctx;
    int64_t n = 0;
    if (sk_value_get_int64(value, &n) == SK_OK && n == 2) {
        if (sk_callback_fail(value) != SK_OK) {
            FAIL("sk_callback_fail in take_until's function: %s", sk_last_error_message());
        }
        return SK_TAKE_PASS;
    }
    if (sk_value_get_int64(value, &n) == SK_OK && n > 3) {
        return SK_TAKE_PASS | SK_TAKE_COMPLETE;
    }
    return SK_TAKE_PASS;
}

/* Every other kind of operator callback fails too, each at an int of its
 * own, so that a failure's path meets every kind of stage the fuzzer
 * builds (docs/misuse.md, "A callback that fails"): fails_at(value, n)
 * calls sk_callback_fail with the value as the error when the value is
 * the int n. The signal functions fail at 11 (catch, map_to_signal,
 * merge_map), a map at 5, a predicate at 7 (filter, skip_while,
 * first_where, take_while), a fold at 9 (scan, reduce), group_by's key
 * at 13. */
static bool fails_at(const sk_value *value, int64_t n) {
    int64_t v = 0;
    if (sk_value_get_int64(value, &v) != SK_OK || v != n) {
        return false;
    }
    if (sk_callback_fail(value) != SK_OK) {
        FAIL("sk_callback_fail at %lld: %s", (long long)n, sk_last_error_message());
    }
    return true;
}

static void add_one(void *ctx, const sk_value *value, sk_value *out) {
    if (!fails_at(value, 5)) {
        sk_test_add_one(ctx, value, out);
    }
}

static bool keep_even(void *ctx, const sk_value *value) {
    return !fails_at(value, 7) && sk_test_keep_even(ctx, value);
}

static sk_signal *single_of(void *ctx, const sk_value *value) {
    (void)ctx;
    sk_signal *s = NULL;
    if (fails_at(value, 11)) {
        return NULL;
    }
    if (sk_value_kind(value) == SK_KIND_BOOL) {
        return NULL; /* an empty signal */
    }
    if (sk_signal_single(&s, value) != SK_OK) {
        FAIL("sk_signal_single: %s", sk_last_error_message());
    }
    return s;
}

static void sum(void *ctx, const sk_value *acc, const sk_value *value, sk_value *out) {
    (void)ctx;
    if (fails_at(value, 9)) {
        return;
    }
    int64_t a = 0, b = 0;
    sk_value_get_int64(acc, &a);
    sk_value_get_int64(value, &b);
    sk_value_set_int64(out, a + (b & 0xff));
}

static void look(void *ctx, const sk_value *value) {
    (void)ctx;
    (void)sk_value_kind(value);
}

static void nothing(void *ctx) {
    (void)ctx;
}

/* group_by's key: an int's parity, else the value's kind. */
static void parity(void *ctx, const sk_value *value, sk_value *out) {
    (void)ctx;
    if (fails_at(value, 13)) {
        return;
    }
    int64_t n = 0;
    if (sk_value_get_int64(value, &n) == SK_OK) {
        sk_value_set_int64(out, n & 1);
    } else {
        sk_value_set_int64(out, -(int64_t)sk_value_kind(value));
    }
}

/* deferred's function: the signal it was made over (ctx), at each start. */
static sk_signal *again(void *ctx) {
    return sk_signal_retain(ctx);
}

static void release_signal(void *ctx) {
    sk_signal_release(ctx);
}

/* A duration from the input: 0 to 1.75 s in quarters, or (periodic) from
 * 0.25 s: a period of 0 would fire every nanosecond of an advance. */
static double seconds_of(input *in, bool periodic) {
    return (double)(next_byte(in) % 8 + periodic) / 4.0;
}

/* `signal` started again at most `count` times (count >= 1) by `loop`
 * (restart or restart_if_error), which would start it for ever: each start
 * delivers a 0 first (start_with), so take(count) ends the loop. */
static int bounded_loop(sk_signal **out, sk_signal *signal, int (*loop)(sk_signal **, sk_signal *), size_t count) {
    sk_value zero;
    sk_value_set_int64(&zero, 0);
    sk_signal *first = NULL, *looped = NULL;
    int status = sk_signal_start_with(&first, signal, &zero);
    if (status == SK_OK) {
        status = loop(&looped, first);
    }
    if (status == SK_OK) {
        status = sk_signal_take(out, looped, count);
    }
    sk_signal_release(looped);
    sk_signal_release(first);
    return status;
}

/* Operators over two signals: `other` too (an operator of the list whose
 * shape takes another signal or signals). */
static bool two_inputs(uint8_t which) {
    const sk_test_operator *op = FUZZ_OPERATORS[which].op;
    return op != NULL && (sk_test_takes(op, SK_ARG_OTHER) || sk_test_takes(op, SK_ARG_SIGNALS));
}

/* The cost of a loop (restart, retry) over a signal of cost `d` that one
 * start of it starts up to `count` times. */
static int loop_cost(int d, size_t count) {
    return (int)count * (d + 2);
}

/* ------------------------------------------------------------------------ */
/* Steps                                                                     */
/* ------------------------------------------------------------------------ */

/* The drop callback of the bounded buffers: counts, so that a drop reaches
 * user code. */
static unsigned long drops_seen;

static void count_drop(void *ctx, const sk_value *value, uint64_t dropped) {
    (void)ctx;
    (void)value;
    drops_seen += dropped > 0;
}

/* The custom operator (custom_operator.h: a map made with
 * sk_signal_create_over), an entry as the list's are. */
static const fuzz_operator FUZZ_CUSTOM_MAP = { "custom map", &SK_TEST_CUSTOM_OPERATORS[0], false };

/* An operator of the list (fuzz_operators.h, generated from the operator
 * table), its arguments those of the hand-written cases; read from the
 * input, in the order of its kinds: a count (1 to 3 where it must be
 * positive, else 0 to 3), a time (seconds_of), whether combine_latest
 * delivers on the host queue, take_while's flag, a capacity of 1 to 4 and
 * any policy (block on the host queue fails the stream when full, never
 * waits; without a queue a reentrant put refuses too). A time's queue is
 * the virtual clock, another the host queue; deferred's function gives the
 * signal it was made over. */
static int apply_standard(const fuzz_operator *f, input *in, sk_signal **out, sk_signal *s, sk_signal *other) {
    const sk_test_operator *op = f->op;
    sk_value zero;
    sk_value_set_int64(&zero, 0);
    sk_signal *pair[2] = { s, other };
    sk_test_args a = {
        .source = s, .predicate = keep_even, .map = add_one, .value = &zero, .initial = &zero, .fold = sum,
        .other = other, .signals = pair, .signal_count = 2, .look = look, .work = nothing, .inner = single_of,
        .action = take_small, .make = again, .on_drop = count_drop,
    };
    if (f == &FUZZ_CUSTOM_MAP) {
        /* Its map runs in its relay, an observer's callback, where
         * sk_callback_fail does nothing but fail: the map that never fails.
         * Its context is a user pointer, whose one release the end checks. */
        a.map = sk_test_add_one;
        if (pointer_count < MAX_POINTERS) {
            a.ctx = &pointer_releases[pointer_count++];
            a.release = pointer_release;
        }
    }
    for (size_t k = 0; k < SK_TEST_MAX_KINDS && op->kinds[k] != SK_ARG_NONE; k++) {
        switch (op->kinds[k]) {
        case SK_ARG_COUNT:
        case SK_ARG_CONCURRENCY:
            a.count = a.concurrency = f->positive ? 1 + next_byte(in) % 3 : next_byte(in) % 4;
            TRACE("    count %zu\n", a.count);
            break;
        case SK_ARG_SECONDS:
            a.seconds = seconds_of(in, f->positive);
            TRACE("    seconds %g\n", a.seconds);
            break;
        case SK_ARG_QUEUE: a.queue = sk_test_takes(op, SK_ARG_SECONDS) ? clock_queue : host; break;
        case SK_ARG_MAYBE_QUEUE: a.maybe_queue = (next_byte(in) & 1) ? host : NULL; break;
        case SK_ARG_FLAG: a.flag = next_byte(in) & 1; break;
        case SK_ARG_CAPACITY: a.capacity = 1 + next_byte(in) % 4; break;
        case SK_ARG_OVERFLOW: a.overflow = (sk_overflow)(next_byte(in) % 5); break;
        case SK_ARG_MAKE:
            a.ctx = sk_signal_retain(s);
            a.release = release_signal;
            break;
        default: break;
        }
    }
    return op->call(out, &a);
}

static void apply_operator(input *in) {
    size_t from = next_byte(in) % SIGNALS;
    size_t to = next_byte(in) % SIGNALS;
    size_t other = next_byte(in) % SIGNALS;
    uint8_t which = next_byte(in); /* a slot: fuzz_operators.h, or a case below */
    sk_signal *s = signals[from];
    if (s == NULL || depth[from] >= MAX_DEPTH) {
        return;
    }
    size_t count = 1; /* the starts of `s` one start makes (the loops) */
    sk_signal *out = NULL;
    int status = SK_OK;
    TRACE("  operator %u: %zu (, %zu) -> %zu\n", which, from, other, to);
    if (two_inputs(which) && (signals[other] == NULL || depth[other] >= MAX_DEPTH)) {
        return;
    }
    /* The operators this file applies itself, excused from the list
     * (tools/api/exceptions.txt, fuzz-hand: the loops, whose restarts count in
     * the signal's cost, and group_by's key). A new case takes a number below
     * 64 that no slot of fuzz_operators.h has; an operator of the list needs
     * none: `make api-update` gives it the next slot. */
    switch (which) {
    case 42: status = sk_signal_group_by(&out, s, parity, NULL, NULL); break;
    case 43:
    case 44:
        count = 1 + next_byte(in) % 3;
        status = bounded_loop(&out, s, which == 43 ? sk_signal_restart : sk_signal_restart_if_error, count);
        break;
    case 45: {
        size_t retries = next_byte(in) % 3;
        double delay = (next_byte(in) & 1) ? seconds_of(in, false) : 0.0;
        sk_queue *queue = (next_byte(in) & 1) ? clock_queue : NULL;
        count = 1 + retries;
        status = sk_signal_retry_count(&out, s, retries, delay, queue);
        if (queue == NULL && delay != 0.0) { /* a delay needs a queue: refused, as documented */
            if (status != SK_ERR_NULL_ARGUMENT || out != NULL) {
                FAIL("retry_count with a delay and no queue: %d", status);
            }
            status = sk_signal_retry_count(&out, s, retries, 0.0, NULL);
        }
        break;
    }
    case 46:
        /* Retries for ever, each after at least 0.25 s of the clock: an
         * advance (at most 1.75 s) runs a few. */
        count = 8;
        status = sk_signal_retry(&out, s, seconds_of(in, true), 2.0, clock_queue);
        break;
    case 57:
        /* The custom operator, which the operator table cannot list (it is
         * the test's code): applied through its shape as the list's are. */
        status = apply_standard(&FUZZ_CUSTOM_MAP, in, &out, s, signals[other]);
        break;
    default:
        if (FUZZ_OPERATORS[which].op == NULL) {
            return; /* a slot no operator has yet */
        }
        status = apply_standard(&FUZZ_OPERATORS[which], in, &out, s, signals[other]);
        break;
    }
    if (status != SK_OK || out == NULL) {
        FAIL("operator %u failed: %s", which, sk_last_error_message());
    }
    /* The cost of a signal counts the subscriptions one start makes: inputs
     * of then/combine/merge add up (combining a signal with itself doubles
     * it), so capping it keeps every input's run short. */
    int d = count > 1 ? loop_cost(depth[from], count) : depth[from] + 1;
    bool from_promise = promised[from];
    if (two_inputs(which)) {
        d += depth[other];
        from_promise = from_promise || promised[other];
    }
    put_marked_signal(to, out, d, from_promise);
}

static void start(input *in) {
    size_t from = next_byte(in) % SIGNALS;
    size_t slot = next_byte(in) % SUBSCRIPTIONS;
    if (signals[from] == NULL || tracker_count >= MAX_TRACKERS) {
        return;
    }
    TRACE("  start %zu -> subscription %zu (observer %zu)\n", from, slot, tracker_count);
    tracker *t = &trackers[tracker_count++];
    t->used = true;
    sk_observer observer = { on_next, on_error, on_completed, t, on_release };
    sk_disposable *d = NULL;
    unsigned mode = next_byte(in) % 4;
    if (mode < 2) {
        if (sk_signal_start(&d, signals[from], &observer) != SK_OK) {
            FAIL("sk_signal_start: %s", sk_last_error_message());
        }
    } else {
        /* A failable observer (held or not), failing at its 1st to 3rd value. */
        t->fail_at = 1 + next_byte(in) % 3;
        if (sk_signal_start_failable(&d, signals[from], &observer, mode == 3) != SK_OK) {
            FAIL("sk_signal_start_failable: %s", sk_last_error_message());
        }
    }
    if (subscriptions[slot] != NULL) {
        if (subscription_promised[slot]) {
            sk_disposable_dispose(subscriptions[slot]);
            subscription_trackers[slot]->disposed = true;
        }
        sk_disposable_release(subscriptions[slot]); /* released, not disposed */
    }
    subscriptions[slot] = d;
    subscription_trackers[slot] = t;
    subscription_promised[slot] = promised[from];
}

static void dispose(size_t slot) {
    if (subscriptions[slot] == NULL) {
        return;
    }
    sk_disposable_dispose(subscriptions[slot]);
    subscription_trackers[slot]->disposed = true;
}

static void drain(void) {
    size_t ran = 0;
    int rounds = 0;
    do {
        if (sk_queue_host_drain(host, 0, &ran) != SK_OK) {
            FAIL("sk_queue_host_drain: %s", sk_last_error_message());
        }
    } while (ran > 0 && ++rounds < 1000);
}

/* The clock moved on: what falls due runs (a repeating timer's work at most
 * 1.75 s / 0.25 s times per subscription). */
static void advance(double seconds) {
    if (sk_queue_virtual_advance_by(clock_queue, seconds, NULL) != SK_OK) {
        FAIL("sk_queue_virtual_advance_by: %s", sk_last_error_message());
    }
}

static void step(input *in) {
    uint8_t op = next_byte(in) % 17;
    TRACE("step %u\n", op);
    switch (op) {
    case 0: {
        size_t slot = next_byte(in) % PIPES;
        sk_pipe_release(pipes[slot]);
        pipes[slot] = NULL;
        if (sk_pipe_create(&pipes[slot], next_byte(in) & 1) != SK_OK) {
            FAIL("sk_pipe_create");
        }
        break;
    }
    case 1: {
        sk_pipe *p = pipes[next_byte(in) % PIPES];
        sk_signal *s = NULL;
        if (p != NULL) {
            if (sk_pipe_signal(&s, p) != SK_OK) {
                FAIL("sk_pipe_signal: %s", sk_last_error_message());
            }
            put_signal(next_byte(in), s, 0);
        }
        break;
    }
    case 2: {
        uint8_t how = next_byte(in);
        sk_pipe *p = pipes[how % PIPES];
        sk_value v = make_value(in);
        /* Half the puts never wait for room (sk_nowait_begin): a room
         * signal, when one comes, is started and its handles released at
         * once, its subscription disposed or not. */
        bool scoped = (how / PIPES) % 2 == 1;
        if (scoped && sk_nowait_begin() != SK_OK) {
            FAIL("sk_nowait_begin: %s", sk_last_error_message());
        }
        if (p != NULL && sk_pipe_put(p, &v) != SK_OK) {
            FAIL("sk_pipe_put: %s", sk_last_error_message());
        }
        if (scoped) {
            sk_signal *room = NULL;
            if (sk_nowait_end(&room) != SK_OK) {
                FAIL("sk_nowait_end: %s", sk_last_error_message());
            }
            if (room != NULL) {
                sk_observer none = {0};
                sk_disposable *waiting = NULL;
                if (sk_signal_start(&waiting, room, &none) != SK_OK) {
                    FAIL("sk_signal_start of a room signal: %s", sk_last_error_message());
                }
                if ((how / PIPES / 2) % 2 == 1) {
                    sk_disposable_dispose(waiting);
                }
                sk_disposable_release(waiting);
                sk_signal_release(room);
            }
        }
        sk_value_release(&v);
        break;
    }
    case 3: {
        uint8_t which = next_byte(in) % 4;
        sk_value v = make_value(in);
        sk_signal *s = NULL;
        int status = which == 0 ? sk_signal_single(&s, &v)
                   : which == 1 ? sk_signal_complete(&s)
                   : which == 2 ? sk_signal_fail(&s, &v)
                                : sk_signal_never(&s);
        if (status != SK_OK) {
            FAIL("constructor %u: %s", which, sk_last_error_message());
        }
        sk_value_release(&v);
        put_signal(next_byte(in), s, 0);
        break;
    }
    case 4: {
        sk_signal *s = NULL;
        uintptr_t slot = next_byte(in) % SUBSCRIBERS;
        if (sk_signal_create(&s, keep_subscriber, (void *)slot, NULL) != SK_OK) {
            FAIL("sk_signal_create: %s", sk_last_error_message());
        }
        put_signal(next_byte(in), s, 0);
        break;
    }
    case 5:
    case 6:
        apply_operator(in);
        break;
    case 7:
        start(in);
        break;
    case 8:
        dispose(next_byte(in) % SUBSCRIPTIONS);
        break;
    case 9: {
        size_t slot = next_byte(in) % SUBSCRIPTIONS;
        if (subscription_promised[slot]) {
            dispose(slot);
        }
        sk_disposable_release(subscriptions[slot]);
        subscriptions[slot] = NULL;
        break;
    }
    case 10:
        put_signal(next_byte(in), NULL, 0);
        break;
    case 11: {
        size_t slot = next_byte(in) % PIPES;
        sk_pipe_release(pipes[slot]);
        pipes[slot] = NULL;
        break;
    }
    case 12: {
        sk_subscriber *s = subscribers[next_byte(in) % SUBSCRIBERS];
        uint8_t what = next_byte(in) % 4;
        sk_value v = make_value(in);
        if (s != NULL) {
            int status = what == 3 ? sk_subscriber_put_completion(s)
                       : what == 2 ? sk_subscriber_put_error(s, &v)
                                   : sk_subscriber_put_next(s, &v);
            if (status != SK_OK) {
                FAIL("put into a subscriber: %s", sk_last_error_message());
            }
        }
        sk_value_release(&v);
        break;
    }
    case 13: {
        size_t slot = next_byte(in) % SUBSCRIBERS;
        sk_subscriber_release(subscribers[slot]);
        subscribers[slot] = NULL;
        break;
    }
    case 14:
        drain();
        break;
    case 16:
        advance(seconds_of(in, false));
        break;
    default: {
        size_t slot = next_byte(in) % PROMISES;
        uint8_t what = next_byte(in) % 3;
        if (what == 0 || promises[slot] == NULL) {
            sk_value_promise_release(promises[slot]);
            promises[slot] = NULL;
            if (sk_value_promise_create(&promises[slot], NULL, next_byte(in) & 1) != SK_OK) {
                FAIL("sk_value_promise_create");
            }
        } else if (what == 1) {
            sk_value v = make_value_of(in, false);
            if (sk_value_promise_set(promises[slot], &v) != SK_OK) {
                FAIL("sk_value_promise_set: %s", sk_last_error_message());
            }
            sk_value_release(&v);
        } else {
            sk_signal *s = NULL;
            if (sk_value_promise_get(&s, promises[slot]) != SK_OK) {
                FAIL("sk_value_promise_get");
            }
            put_marked_signal(next_byte(in), s, 0, true);
        }
        break;
    }
    }
}

/* ------------------------------------------------------------------------ */
/* One input                                                                 */
/* ------------------------------------------------------------------------ */

static void teardown(void) {
    /* Starts still queued (run-on) may run during the final drains: their
     * generators keep nothing from now on. */
    tearing_down = true;
    for (size_t i = 0; i < SUBSCRIPTIONS; i++) {
        dispose(i);
        sk_disposable_release(subscriptions[i]);
        subscriptions[i] = NULL;
    }
    for (size_t i = 0; i < SUBSCRIBERS; i++) {
        sk_subscriber_release(subscribers[i]);
        subscribers[i] = NULL;
    }
    for (size_t i = 0; i < SIGNALS; i++) {
        put_signal(i, NULL, 0);
    }
    for (size_t i = 0; i < PIPES; i++) {
        sk_pipe_release(pipes[i]);
        pipes[i] = NULL;
    }
    for (size_t i = 0; i < PROMISES; i++) {
        sk_value_promise_release(promises[i]);
        promises[i] = NULL;
    }
    drain();
    /* Work still scheduled on the clock (the timers of subscriptions
     * released without dispose) is dropped with its last handle. */
    sk_queue_release(clock_queue);
    clock_queue = NULL;
    drain();
    sk_queue_release(host);
    host = NULL;
    tearing_down = false;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    input in = { data, size };
    tracing = getenv("FUZZ_API_TRACE") != NULL;
    bool checking = next_byte(&in) & 1;
    if (sk_set_handle_checking(checking) != SK_OK) {
        FAIL("sk_set_handle_checking with %ld objects alive", sk_live_objects());
    }
    memset(trackers, 0, sizeof trackers);
    memset(pointer_releases, 0, sizeof pointer_releases);
    tracker_count = 0;
    pointer_count = 0;
    if (sk_queue_create_host(&host, "fuzz") != SK_OK) {
        FAIL("sk_queue_create_host");
    }
    if (sk_queue_create_virtual(&clock_queue, "fuzz clock") != SK_OK) {
        FAIL("sk_queue_create_virtual");
    }
    for (int steps = 0; in.size > 0 && steps < 256; steps++) {
        step(&in);
    }
    teardown();
    for (size_t i = 0; i < tracker_count; i++) {
        if (trackers[i].releases != 1) {
            FAIL("observer %zu released %d times after everything was released", i, trackers[i].releases);
        }
    }
    for (size_t i = 0; i < pointer_count; i++) {
        if (pointer_releases[i] != 1) {
            FAIL("user pointer %zu released %d times after everything was released", i, pointer_releases[i]);
        }
    }
    if (sk_live_objects() != 0) {
        FAIL("%ld objects alive after everything was released", sk_live_objects());
    }
    return 0;
}
