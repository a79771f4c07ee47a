/* test_operators_bounded.c - the capacities of the places where values wait
 * besides a delivery (the C layer's Operators_Bounded.swift):
 * sk_signal_zip_bounded, sk_signal_merge_map_bounded,
 * sk_signal_queue_bounded, sk_signal_buffer_time_bounded. A producer far
 * faster than its consumer: the live objects (each value waiting is one)
 * stay within the capacity plus a constant, each policy drops what it says
 * (counted), error and block lose nothing, and every handle is released in
 * every order with values waiting. */

#include <signalkit_test.h>

#include <pthread.h>
#include <math.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "support.h"

/* A fiftieth under the sanitizers, whose instrumentation slows every put
 * some tenfold: still twenty times the capacity, so every policy's drops
 * and the bound are seen (the sanitizers look for races and misuse of
 * memory, which need the threads, not the volume). */
#define LOAD_TOTAL (SK_TEST_SANITIZED ? 20000L : 1000000L)
#define LOAD_CAPACITY 1000L

/* ------------------------------------------------------------------------ */
/* Helpers                                                                  */
/* ------------------------------------------------------------------------ */

/* The drops an on_drop saw: how many, the last count it was given, the
 * first and last value (strings holding numbers; -1 before any). */
typedef struct drops {
    atomic_long count;
    atomic_long last_count;
    atomic_long first;
    atomic_long last;
    atomic_int released;
} drops;

static void drops_init(drops *d) {
    atomic_store(&d->count, 0);
    atomic_store(&d->last_count, 0);
    atomic_store(&d->first, -1);
    atomic_store(&d->last, -1);
    atomic_store(&d->released, 0);
}

static long number_of(const sk_value *value) {
    const char *text = NULL;
    if (sk_value_get_string(value, &text, NULL) != SK_OK) {
        return -2;
    }
    return strtol(text, NULL, 10);
}

static void drops_on_drop(void *ctx, const sk_value *value, uint64_t dropped) {
    drops *d = ctx;
    long n = number_of(value);
    long none = -1;
    atomic_compare_exchange_strong(&d->first, &none, n);
    atomic_store(&d->last, n);
    atomic_fetch_add(&d->count, 1);
    atomic_store(&d->last_count, (long)dropped);
}

static void drops_release(void *ctx) {
    atomic_fetch_add(&((drops *)ctx)->released, 1);
}

static void put_number(sk_pipe *pipe, long n) {
    char text[32];
    snprintf(text, sizeof text, "%ld", n);
    sk_value v = string_value(text);
    SK_OK_OR_FAIL(sk_pipe_put(pipe, &v));
    sk_value_release(&v);
}

/* What a consumer saw: the values (an array's first item for arrays), the
 * first few of them, the error's message. */
typedef struct consumer {
    atomic_long nexts;
    atomic_long items;
    long first[8];
    atomic_int terminated;
    atomic_int mismatched; /* an array whose items differ (zip of equal streams) */
    char error[256];
} consumer;

static void consumer_on_next(void *ctx, const sk_value *value) {
    consumer *c = ctx;
    long index = atomic_fetch_add(&c->nexts, 1);
    size_t count = 0;
    long n;
    if (sk_value_get_array_count(value, &count) == SK_OK) {
        const sk_value *item = NULL;
        n = -3;
        if (count > 0 && sk_value_get_array_item(value, 0, &item) == SK_OK) {
            n = number_of(item);
        }
        for (size_t i = 1; i < count; i++) {
            if (sk_value_get_array_item(value, i, &item) == SK_OK && number_of(item) != n) {
                atomic_fetch_add(&c->mismatched, 1);
            }
        }
        atomic_fetch_add(&c->items, (long)count);
    } else {
        n = number_of(value);
        atomic_fetch_add(&c->items, 1);
    }
    if (index < 8) {
        c->first[index] = n;
    }
}

static void consumer_on_error(void *ctx, const sk_value *error) {
    consumer *c = ctx;
    const char *text = NULL;
    if (sk_value_get_string(error, &text, NULL) == SK_OK) {
        snprintf(c->error, sizeof c->error, "%s", text);
    }
    atomic_store(&c->terminated, 1);
}

static void consumer_on_completed(void *ctx) {
    atomic_store(&((consumer *)ctx)->terminated, 1);
}

static sk_observer consumer_observer(consumer *c) {
    memset(c, 0, sizeof *c);
    sk_observer observer = { .ctx = c, .next = consumer_on_next, .error = consumer_on_error, .completed = consumer_on_completed };
    return observer;
}

static sk_pipe *new_pipe(sk_signal **signal) {
    sk_pipe *pipe = NULL;
    SK_OK_OR_FAIL(sk_pipe_create(&pipe, false));
    SK_OK_OR_FAIL(sk_pipe_signal(signal, pipe));
    return pipe;
}

/* Puts LOAD_TOTAL numbers into `pipe` (stopping once the consumer saw an
 * end); the most live objects above `base` seen while putting. */
static long put_load(sk_pipe *pipe, consumer *c, long base, long *sent) {
    long most = 0;
    *sent = 0;
    for (long i = 0; i < LOAD_TOTAL && !atomic_load(&c->terminated); i++) {
        put_number(pipe, i);
        (*sent)++;
        if ((i & 255) == 0) {
            long live = sk_live_objects() - base;
            most = live > most ? live : most;
        }
    }
    return most;
}

static const char *policy_name(sk_overflow overflow) {
    static const char *const names[] = { "drop newest", "drop oldest", "latest", "error", "block" };
    return names[overflow];
}

/* The first value a drop policy drops when `total` values meet `capacity`
 * (the first `skipped` values never wait), and the value the consumer then
 * gets first among those that waited. */
static void expect_policy_drops(sk_overflow overflow, const drops *d, long total, long capacity, long skipped, long first_delivered, const char *what) {
    const char *policy = policy_name(overflow);
    long dropped = atomic_load(&d->count);
    cr_expect_eq(dropped, total - skipped - capacity, "%s, %s: %ld dropped, expected %ld", what, policy, dropped, total - skipped - capacity);
    cr_expect_eq(atomic_load(&d->last_count), dropped, "%s, %s: the last drop's count", what, policy);
    long first_dropped = atomic_load(&d->first);
    switch (overflow) {
    case SK_OVERFLOW_DROP_NEWEST:
        cr_expect_eq(first_dropped, skipped + capacity, "%s, %s: first dropped %ld", what, policy, first_dropped);
        cr_expect_eq(first_delivered, skipped, "%s, %s: first delivered %ld", what, policy, first_delivered);
        break;
    case SK_OVERFLOW_DROP_OLDEST:
        cr_expect_eq(first_dropped, skipped, "%s, %s: first dropped %ld", what, policy, first_dropped);
        cr_expect_eq(first_delivered, total - capacity, "%s, %s: first delivered %ld", what, policy, first_delivered);
        break;
    default:
        /* latest: the newest waiting value is replaced each time. */
        cr_expect_eq(first_dropped, skipped + capacity - 1, "%s, %s: first dropped %ld", what, policy, first_dropped);
        cr_expect_eq(atomic_load(&d->last), total - 2, "%s, %s: last dropped", what, policy);
        cr_expect_eq(first_delivered, skipped, "%s, %s: first delivered %ld", what, policy, first_delivered);
        break;
    }
}

/* ------------------------------------------------------------------------ */
/* zip                                                                      */
/* ------------------------------------------------------------------------ */

/* One signal of a zip sends everything before the other sends anything. */
static void check_zip_load(sk_overflow overflow) {
    const char *policy = policy_name(overflow);
    sk_signal *inputs[2] = { NULL, NULL };
    sk_pipe *fast = new_pipe(&inputs[0]);
    sk_pipe *slow = new_pipe(&inputs[1]);
    drops d;
    drops_init(&d);
    sk_signal *zipped = NULL;
    SK_OK_OR_FAIL(sk_signal_zip_bounded(&zipped, inputs, 2, (size_t)LOAD_CAPACITY, overflow, drops_on_drop, &d, drops_release));
    consumer c;
    sk_observer observer = consumer_observer(&c);
    sk_disposable *subscription = NULL;
    SK_OK_OR_FAIL(sk_signal_start(&subscription, zipped, &observer));
    long base = sk_live_objects(), sent = 0;
    long most = put_load(fast, &c, base, &sent);
    /* The values waiting and the one being put. */
    cr_expect_leq(most, LOAD_CAPACITY + 2, "zip, %s: %ld values held at once (capacity %ld)", policy, most, LOAD_CAPACITY);
    if (overflow == SK_OVERFLOW_ERROR) {
        /* No loss: the capacity waited, the next overflowed; all were
         * dropped (none had a partner) and the error ended the stream. */
        cr_expect_eq(atomic_load(&c.terminated), 1, "zip, error: no error");
        cr_expect_str_eq(c.error, "sk_signal_zip_bounded: overflow: a value arrived with 1000 values pending (capacity 1000, policy error)");
        cr_expect_eq(atomic_load(&d.count), LOAD_CAPACITY + 1, "zip, error: %ld dropped", atomic_load(&d.count));
        cr_expect_eq(atomic_load(&c.nexts) + atomic_load(&d.count), sent, "zip, error: delivered + dropped != %ld sent", sent);
    } else {
        for (long i = 0; i < 3; i++) {
            put_number(slow, i);
        }
        cr_expect_eq(atomic_load(&c.nexts), 3, "zip, %s: %ld arrays", policy, atomic_load(&c.nexts));
        expect_policy_drops(overflow, &d, LOAD_TOTAL, LOAD_CAPACITY, 0, c.first[0], "zip");
    }
    /* Released with values waiting: they go without being reported. */
    long dropped = atomic_load(&d.count);
    sk_disposable_release(subscription);
    sk_signal_release(zipped);
    sk_signal_release(inputs[0]);
    sk_signal_release(inputs[1]);
    sk_pipe_release(fast);
    sk_pipe_release(slow);
    cr_expect_eq(atomic_load(&d.count), dropped, "zip, %s: values reported on release", policy);
    cr_expect_eq(atomic_load(&d.released), 1, "zip, %s: ctx released %d times", policy, atomic_load(&d.released));
    expect_no_live_objects(0);
}

Test(operators_bounded, zip_bounded_holds_at_most_its_capacity_per_signal_under_load, .timeout = 2 * SK_TEST_TIMEOUT) {
    check_zip_load(SK_OVERFLOW_DROP_NEWEST);
    check_zip_load(SK_OVERFLOW_DROP_OLDEST);
    check_zip_load(SK_OVERFLOW_LATEST);
    check_zip_load(SK_OVERFLOW_ERROR);
}

typedef struct zip_producer {
    sk_pipe *pipe;
    long total;
    long base;
    long most;
} zip_producer;

static void *zip_produce(void *arg) {
    zip_producer *p = arg;
    for (long i = 0; i < p->total; i++) {
        put_number(p->pipe, i);
        if ((i & 255) == 0) {
            long live = sk_live_objects() - p->base;
            p->most = live > p->most ? live : p->most;
        }
    }
    return NULL;
}

/* Block: the producer ahead waits for the other; every pair is delivered,
 * none dropped, and the two items of each array are the same n-th value. */
Test(operators_bounded, zip_bounded_block_loses_nothing, .timeout = 2 * SK_TEST_TIMEOUT) {
    const long total = SK_TEST_SANITIZED ? 20000 : 200000, capacity = 16;
    sk_signal *inputs[2] = { NULL, NULL };
    sk_pipe *a = new_pipe(&inputs[0]);
    sk_pipe *b = new_pipe(&inputs[1]);
    drops d;
    drops_init(&d);
    sk_signal *zipped = NULL;
    SK_OK_OR_FAIL(sk_signal_zip_bounded(&zipped, inputs, 2, (size_t)capacity, SK_OVERFLOW_BLOCK, drops_on_drop, &d, NULL));
    consumer c;
    sk_observer observer = consumer_observer(&c);
    sk_disposable *subscription = NULL;
    SK_OK_OR_FAIL(sk_signal_start(&subscription, zipped, &observer));
    long base = sk_live_objects();
    zip_producer producers[2] = { { a, total, base, 0 }, { b, total, base, 0 } };
    pthread_t threads[2];
    for (int i = 0; i < 2; i++) {
        cr_assert_eq(pthread_create(&threads[i], NULL, zip_produce, &producers[i]), 0);
    }
    for (int i = 0; i < 2; i++) {
        pthread_join(threads[i], NULL);
    }
    cr_expect_eq(atomic_load(&c.nexts), total, "%ld of %ld pairs", atomic_load(&c.nexts), total);
    cr_expect_eq(atomic_load(&c.mismatched), 0, "pairs of different indexes");
    cr_expect_eq(atomic_load(&d.count), 0, "%ld dropped", atomic_load(&d.count));
    cr_expect_str_eq(c.error, "");
    /* Waiting on one side, the arrays being delivered, one being put each. */
    long most = producers[0].most > producers[1].most ? producers[0].most : producers[1].most;
    cr_expect_leq(most, capacity + 8, "%ld values held at once (capacity %ld)", most, capacity);
    sk_disposable_release(subscription);
    sk_signal_release(zipped);
    sk_signal_release(inputs[0]);
    sk_signal_release(inputs[1]);
    sk_pipe_release(a);
    sk_pipe_release(b);
    expect_no_live_objects(0);
}

/* ------------------------------------------------------------------------ */
/* merge_map, queue                                                         */
/* ------------------------------------------------------------------------ */

/* Every value maps to a signal that never completes: the first runs, the
 * rest wait for its slot. */
static sk_signal *never_signal(void *ctx, const sk_value *value) {
    (void)ctx;
    (void)value;
    sk_signal *signal = NULL;
    SK_OK_OR_FAIL(sk_signal_never(&signal));
    return signal;
}

static void check_merge_map_load(sk_overflow overflow) {
    const char *policy = policy_name(overflow);
    sk_signal *signal = NULL;
    sk_pipe *pipe = new_pipe(&signal);
    drops d;
    drops_init(&d);
    sk_signal *mapped = NULL;
    SK_OK_OR_FAIL(sk_signal_merge_map_bounded(&mapped, signal, 1, (size_t)LOAD_CAPACITY, overflow, never_signal, drops_on_drop, &d, drops_release));
    consumer c;
    sk_observer observer = consumer_observer(&c);
    sk_disposable *subscription = NULL;
    SK_OK_OR_FAIL(sk_signal_start(&subscription, mapped, &observer));
    long base = sk_live_objects(), sent = 0;
    long most = put_load(pipe, &c, base, &sent);
    /* The values waiting, the one being put, the running inner signal. */
    cr_expect_leq(most, LOAD_CAPACITY + 4, "merge_map, %s: %ld values held at once (capacity %ld)", policy, most, LOAD_CAPACITY);
    if (overflow == SK_OVERFLOW_ERROR) {
        cr_expect_eq(atomic_load(&c.terminated), 1, "merge_map, error: no error");
        cr_expect_str_eq(c.error, "sk_signal_merge_map_bounded: overflow: a value arrived with 1000 values pending (capacity 1000, policy error)");
        /* Value 0 ran; 1...1000 waited; 1001 overflowed: they are dropped. */
        cr_expect_eq(atomic_load(&d.count), LOAD_CAPACITY + 1, "merge_map, error: %ld dropped", atomic_load(&d.count));
        cr_expect_eq(1 + atomic_load(&d.count), sent, "merge_map, error: started + dropped != %ld sent", sent);
    } else {
        long first_waiting = overflow == SK_OVERFLOW_DROP_OLDEST ? LOAD_TOTAL - LOAD_CAPACITY : 1;
        expect_policy_drops(overflow, &d, LOAD_TOTAL, LOAD_CAPACITY, 1, first_waiting, "merge_map");
    }
    long dropped = atomic_load(&d.count);
    sk_disposable_release(subscription);
    sk_signal_release(mapped);
    sk_signal_release(signal);
    sk_pipe_release(pipe);
    cr_expect_eq(atomic_load(&d.count), dropped, "merge_map, %s: values reported on release", policy);
    cr_expect_eq(atomic_load(&d.released), 1, "merge_map, %s: ctx released %d times", policy, atomic_load(&d.released));
    expect_no_live_objects(0);
}

Test(operators_bounded, merge_map_bounded_holds_at_most_its_capacity_under_load, .timeout = 2 * SK_TEST_TIMEOUT) {
    check_merge_map_load(SK_OVERFLOW_DROP_NEWEST);
    check_merge_map_load(SK_OVERFLOW_DROP_OLDEST);
    check_merge_map_load(SK_OVERFLOW_LATEST);
    check_merge_map_load(SK_OVERFLOW_ERROR);
}

/* Each value maps to a signal that emits it on `queue` and completes there:
 * block makes the producer wait for the slot; nothing is lost. */
static sk_signal *on_queue_signal(void *ctx, const sk_value *value) {
    sk_signal *just = NULL, *delivered = NULL;
    SK_OK_OR_FAIL(sk_signal_single(&just, value));
    SK_OK_OR_FAIL(sk_signal_deliver_on(&delivered, just, ctx));
    sk_signal_release(just);
    return delivered;
}

Test(operators_bounded, merge_map_bounded_block_loses_nothing, .timeout = 2 * SK_TEST_TIMEOUT) {
    const long total = SK_TEST_SANITIZED ? 5000 : 50000;
    sk_queue *queue = serial_queue("test.bounded.merge_map");
    sk_signal *signal = NULL;
    sk_pipe *pipe = new_pipe(&signal);
    drops d;
    drops_init(&d);
    sk_signal *mapped = NULL;
    SK_OK_OR_FAIL(sk_signal_merge_map_bounded(&mapped, signal, 2, 8, SK_OVERFLOW_BLOCK, on_queue_signal, drops_on_drop, queue, NULL));
    consumer c;
    sk_observer observer = consumer_observer(&c);
    sk_disposable *subscription = NULL;
    SK_OK_OR_FAIL(sk_signal_start(&subscription, mapped, &observer));
    long base = sk_live_objects(), most = 0;
    for (long i = 0; i < total; i++) {
        put_number(pipe, i);
        if ((i & 255) == 0) {
            long live = sk_live_objects() - base;
            most = live > most ? live : most;
        }
    }
    SK_OK_OR_FAIL(sk_pipe_put_completion(pipe));
    flush_queue(queue);
    cr_expect_eq(atomic_load(&c.nexts), total, "%ld of %ld delivered", atomic_load(&c.nexts), total);
    cr_expect_eq(atomic_load(&d.count), 0, "%ld dropped", atomic_load(&d.count));
    cr_expect_eq(atomic_load(&c.terminated), 1, "not completed");
    /* 8 waiting, 2 running (each a few objects), one being put. */
    cr_expect_leq(most, 8 + 2 * 4 + 2, "%ld objects held at once", most);
    sk_disposable_release(subscription);
    sk_signal_release(mapped);
    sk_signal_release(signal);
    sk_pipe_release(pipe);
    flush_queue(queue);
    sk_queue_release(queue);
    expect_no_live_objects(0);
}

/* queue_bounded: a signal of signals whose first never completes; the
 * others wait their turn, at most 2 of them. */
Test(operators_bounded, queue_bounded_drops_the_signals_waiting_their_turn, .timeout = SK_TEST_TIMEOUT) {
    sk_signal *signals = NULL;
    sk_pipe *pipe = new_pipe(&signals);
    drops d;
    drops_init(&d);
    sk_signal *queued = NULL;
    SK_OK_OR_FAIL(sk_signal_queue_bounded(&queued, signals, 2, SK_OVERFLOW_DROP_OLDEST, drops_on_drop, &d, drops_release));
    recorder r;
    recorder_init(&r);
    sk_disposable *subscription = recorder_start(&r, queued);
    sk_signal *never = NULL;
    SK_OK_OR_FAIL(sk_signal_never(&never));
    sk_value v;
    SK_OK_OR_FAIL(sk_value_set_signal(&v, never));
    SK_OK_OR_FAIL(sk_pipe_put(pipe, &v));
    sk_value_release(&v);
    for (int64_t i = 1; i <= 5; i++) {
        sk_signal *one = ints_signal(&i, 1);
        SK_OK_OR_FAIL(sk_value_set_signal(&v, one));
        SK_OK_OR_FAIL(sk_pipe_put(pipe, &v));
        sk_value_release(&v);
        sk_signal_release(one);
    }
    /* 1 and 2 waited; 3 dropped 1, 4 dropped 2, 5 dropped 3 (the number is
     * no string: number_of reads -2). */
    cr_expect_eq(atomic_load(&d.count), 3);
    cr_expect_eq(atomic_load(&d.last_count), 3);
    cr_expect_eq(atomic_load(&d.first), -2);
    recorder_expect(&r, "", NULL, 0);
    recorder_finish(&r, subscription);
    sk_signal_release(queued);
    sk_signal_release(signals);
    sk_signal_release(never);
    sk_pipe_release(pipe);
    cr_expect_eq(atomic_load(&d.released), 1);
    recorder_destroy(&r);
    expect_no_live_objects(0);
}

/* ------------------------------------------------------------------------ */
/* buffer_time                                                              */
/* ------------------------------------------------------------------------ */

static void wait_for_gate(void *ctx) {
    gate_wait(ctx, SK_TEST_TIMEOUT);
}

/* buffer_time_bounded with block and a period that never ends (0, or
 * infinite), on a serial queue, from a thread that is not the queue's:
 * refused, and the message says why (the period), not that the value was
 * put by the delivering thread (issue 51). */
Test(operators_bounded, buffer_time_bounded_block_refuses_a_period_that_never_ends, .timeout = SK_TEST_TIMEOUT) {
    const double periods[] = {0, INFINITY};
    for (size_t k = 0; k < 2; k++) {
        sk_queue *queue = NULL;
        SK_OK_OR_FAIL(sk_queue_create(&queue, "test.bounded.never"));
        sk_signal *signal = NULL;
        sk_pipe *pipe = new_pipe(&signal);
        drops d;
        drops_init(&d);
        sk_signal *buffered = NULL;
        SK_OK_OR_FAIL(sk_signal_buffer_time_bounded(&buffered, signal, periods[k], queue, 2, SK_OVERFLOW_BLOCK, drops_on_drop, &d, NULL));
        consumer c;
        sk_observer observer = consumer_observer(&c);
        sk_disposable *subscription = NULL;
        SK_OK_OR_FAIL(sk_signal_start(&subscription, buffered, &observer));
        for (long i = 0; i < 5; i++) {
            put_number(pipe, i);
        }
        flush_queue(queue);
        /* 2 refused; 3 and 4 dropped too unless the error reached the
         * subscription (on the queue) first. */
        cr_expect_eq(atomic_load(&d.first), 2, "period %g", periods[k]);
        cr_expect(strstr(c.error, "sk_signal_buffer_time_bounded: cannot block") == c.error, "error: %s", c.error);
        cr_expect(strstr(c.error, "its period never ends") != NULL, "error: %s", c.error);
        cr_expect(strstr(c.error, "wait for itself") == NULL, "error: %s", c.error);
        sk_disposable_dispose(subscription);
        sk_disposable_release(subscription);
        sk_signal_release(buffered);
        sk_signal_release(signal);
        sk_pipe_release(pipe);
        sk_queue_release(queue);
    }
}

/* A period far longer than the test: every value waits for the end. */
static void check_buffer_time_load(sk_overflow overflow) {
    const char *policy = policy_name(overflow);
    sk_queue *queue = serial_queue("test.bounded.buffer_time");
    gate g;
    gate_init(&g);
    /* The queue is busy until every value is put: an error reaches the
     * consumer (and ends the upstream) only after the last. */
    SK_OK_OR_FAIL(sk_queue_async(queue, wait_for_gate, &g, NULL));
    sk_signal *signal = NULL;
    sk_pipe *pipe = new_pipe(&signal);
    drops d;
    drops_init(&d);
    sk_signal *buffered = NULL;
    SK_OK_OR_FAIL(sk_signal_buffer_time_bounded(&buffered, signal, 3600, queue, (size_t)LOAD_CAPACITY, overflow, drops_on_drop, &d, drops_release));
    consumer c;
    sk_observer observer = consumer_observer(&c);
    sk_disposable *subscription = NULL;
    SK_OK_OR_FAIL(sk_signal_start(&subscription, buffered, &observer));
    long base = sk_live_objects(), sent = 0;
    long most = put_load(pipe, &c, base, &sent);
    cr_expect_leq(most, LOAD_CAPACITY + 2, "buffer_time, %s: %ld values held at once (capacity %ld)", policy, most, LOAD_CAPACITY);
    SK_OK_OR_FAIL(sk_pipe_put_completion(pipe));
    gate_open(&g);
    flush_queue(queue);
    cr_expect_eq(atomic_load(&c.terminated), 1, "buffer_time, %s: no end", policy);
    cr_expect_eq(atomic_load(&c.nexts), 1, "buffer_time, %s: %ld arrays", policy, atomic_load(&c.nexts));
    cr_expect_eq(atomic_load(&c.items), LOAD_CAPACITY, "buffer_time, %s: %ld values in the array", policy, atomic_load(&c.items));
    if (overflow == SK_OVERFLOW_ERROR) {
        cr_expect_str_eq(c.error, "sk_signal_buffer_time_bounded: overflow: a value arrived with 1000 values pending (capacity 1000, policy error)");
        /* No loss: the capacity delivered, every later value dropped. */
        cr_expect_eq(c.first[0], 0);
        cr_expect_eq(atomic_load(&d.first), LOAD_CAPACITY);
        cr_expect_eq(atomic_load(&c.items) + atomic_load(&d.count), sent, "buffer_time, error: delivered + dropped != %ld sent", sent);
    } else {
        cr_expect_str_eq(c.error, "");
        expect_policy_drops(overflow, &d, LOAD_TOTAL, LOAD_CAPACITY, 0, c.first[0], "buffer_time");
    }
    sk_disposable_release(subscription);
    sk_signal_release(buffered);
    sk_signal_release(signal);
    sk_pipe_release(pipe);
    flush_queue(queue);
    sk_queue_release(queue);
    gate_destroy(&g);
    cr_expect_eq(atomic_load(&d.released), 1, "buffer_time, %s: ctx released %d times", policy, atomic_load(&d.released));
    expect_no_live_objects(0);
}

Test(operators_bounded, buffer_time_bounded_holds_at_most_its_capacity_under_load, .timeout = 2 * SK_TEST_TIMEOUT) {
    check_buffer_time_load(SK_OVERFLOW_DROP_NEWEST);
    check_buffer_time_load(SK_OVERFLOW_DROP_OLDEST);
    check_buffer_time_load(SK_OVERFLOW_LATEST);
    check_buffer_time_load(SK_OVERFLOW_ERROR);
}

/* Block cannot wait for a host queue's period (its drain may be this
 * thread): the stream fails after the values collected. */
/* Issue 77: the block policy of merge_map_bounded, queue_bounded and
 * zip_bounded refuses a producer that is running a host-drained or
 * virtual-time queue's work ("cannot block: ..."), as deliver_on_bounded
 * and buffer_time_bounded refuse such a queue: the queue moves only when
 * that work returns, so the wait could never end. Before, the drain below
 * waited for ever (the harness's timeout). */
static sk_signal *never_ending_inner(void *ctx, const sk_value *value) {
    (void)ctx;
    (void)value;
    sk_signal *never = NULL;
    SK_OK_OR_ABORT(sk_signal_never(&never));
    return never;
}

typedef struct host_puts {
    sk_pipe *pipe;
    long count;
    bool signals; /* queue_bounded: puts signals that never end */
} host_puts;

static void host_puts_work(void *ctx) {
    host_puts *w = ctx;
    for (long i = 0; i < w->count; i++) {
        if (!w->signals) {
            put_number(w->pipe, i);
            continue;
        }
        sk_signal *never = never_ending_inner(NULL, NULL);
        sk_value v;
        SK_OK_OR_ABORT(sk_value_set_signal(&v, never));
        SK_OK_OR_ABORT(sk_pipe_put(w->pipe, &v));
        sk_value_release(&v);
        sk_signal_release(never);
    }
}

typedef enum { REFUSED_MERGE_MAP, REFUSED_QUEUE, REFUSED_ZIP } refused_kind;

static void expect_block_refused_on_a_host_queues_work(refused_kind kind) {
    static const char *const names[] = {"sk_signal_merge_map_bounded", "sk_signal_queue_bounded", "sk_signal_zip_bounded"};
    sk_queue *host = NULL;
    SK_OK_OR_FAIL(sk_queue_create_host(&host, "test.bounded.refuse"));
    sk_signal *signal = NULL, *second_signal = NULL, *bounded = NULL;
    sk_pipe *pipe = new_pipe(&signal);
    sk_pipe *second = NULL;
    drops d;
    drops_init(&d);
    switch (kind) {
    case REFUSED_MERGE_MAP:
        SK_OK_OR_FAIL(sk_signal_merge_map_bounded(&bounded, signal, 1, 2, SK_OVERFLOW_BLOCK, never_ending_inner,
                                                  drops_on_drop, &d, NULL));
        break;
    case REFUSED_QUEUE:
        SK_OK_OR_FAIL(sk_signal_queue_bounded(&bounded, signal, 2, SK_OVERFLOW_BLOCK, drops_on_drop, &d, NULL));
        break;
    case REFUSED_ZIP: {
        second = new_pipe(&second_signal);
        sk_signal *inputs[2] = {signal, second_signal};
        /* Only the first input is fed: it runs ahead. */
        SK_OK_OR_FAIL(sk_signal_zip_bounded(&bounded, inputs, 2, 2, SK_OVERFLOW_BLOCK, drops_on_drop, &d, NULL));
        break;
    }
    }
    consumer c;
    sk_observer observer = consumer_observer(&c);
    sk_disposable *subscription = NULL;
    SK_OK_OR_FAIL(sk_signal_start(&subscription, bounded, &observer));
    host_puts work = {pipe, 6, kind == REFUSED_QUEUE};
    SK_OK_OR_FAIL(sk_queue_async(host, host_puts_work, &work, NULL));
    flush_queue(host);
    char expected[128];
    snprintf(expected, sizeof expected, "%s: cannot block: ", names[kind]);
    cr_expect(strstr(c.error, expected) == c.error, "error: %s", c.error);
    cr_expect(strstr(c.error, "host-drained or virtual-time") != NULL, "error: %s", c.error);
    cr_expect_gt(atomic_load(&d.count), 0, "the value refused goes to on_drop");
    sk_disposable_release(subscription);
    sk_signal_release(bounded);
    sk_signal_release(signal);
    sk_signal_release(second_signal);
    sk_pipe_release(pipe);
    sk_pipe_release(second);
    flush_queue(host);
    expect_no_live_objects(1, host);
}

Test(operators_bounded, merge_map_bounded_block_refuses_a_producer_on_a_host_queues_work, .timeout = SK_TEST_TIMEOUT) {
    expect_block_refused_on_a_host_queues_work(REFUSED_MERGE_MAP);
}

Test(operators_bounded, queue_bounded_block_refuses_a_producer_on_a_host_queues_work, .timeout = SK_TEST_TIMEOUT) {
    expect_block_refused_on_a_host_queues_work(REFUSED_QUEUE);
}

Test(operators_bounded, zip_bounded_block_refuses_a_producer_on_a_host_queues_work, .timeout = SK_TEST_TIMEOUT) {
    expect_block_refused_on_a_host_queues_work(REFUSED_ZIP);
}

Test(operators_bounded, buffer_time_bounded_block_refuses_a_host_queue, .timeout = SK_TEST_TIMEOUT) {
    sk_queue *host = NULL;
    SK_OK_OR_FAIL(sk_queue_create_host(&host, "test.bounded.host"));
    sk_signal *signal = NULL;
    sk_pipe *pipe = new_pipe(&signal);
    drops d;
    drops_init(&d);
    sk_signal *buffered = NULL;
    SK_OK_OR_FAIL(sk_signal_buffer_time_bounded(&buffered, signal, 1, host, 2, SK_OVERFLOW_BLOCK, drops_on_drop, &d, NULL));
    consumer c;
    sk_observer observer = consumer_observer(&c);
    sk_disposable *subscription = NULL;
    SK_OK_OR_FAIL(sk_signal_start(&subscription, buffered, &observer));
    for (long i = 0; i < 5; i++) {
        put_number(pipe, i);
    }
    flush_queue(host);
    cr_expect_eq(atomic_load(&d.count), 3);
    cr_expect_eq(atomic_load(&d.first), 2);
    cr_expect_eq(atomic_load(&c.items), 2);
    cr_expect(strstr(c.error, "sk_signal_buffer_time_bounded: cannot block") == c.error, "error: %s", c.error);
    sk_disposable_release(subscription);
    sk_signal_release(buffered);
    sk_signal_release(signal);
    sk_pipe_release(pipe);
    flush_queue(host);
    sk_queue_release(host);
    expect_no_live_objects(0);
}

/* ------------------------------------------------------------------------ */
/* Arguments, abandonment                                                   */
/* ------------------------------------------------------------------------ */

/* A pipe's values put from inside its own callback (issue 50's probe, at
 * 10,000 values of 1 KiB): they wait in the pipe until the delivery is over,
 * before any operator sees them, so an on_backpressure_buffer of capacity 2
 * behind the pipe drops none and the pipe holds them all. A pipe made with
 * sk_pipe_create_bounded holds at most its capacity under every policy:
 * the drops go to on_drop, the error and block policies fail the pipe after
 * the values waiting (block cannot wait: the producer delivers). */
enum { REENTRANT_PUTS = 10000, REENTRANT_CAPACITY = 4 };

typedef struct reentrant {
    sk_pipe *pipe;
    consumer seen;
    long most_alive; /* live objects above the start, seen from the callback */
    long base;
    int produced;
} reentrant;

static void reentrant_next(void *ctx, const sk_value *value) {
    reentrant *r = ctx;
    consumer_on_next(&r->seen, value);
    long alive = sk_live_objects() - r->base;
    r->most_alive = alive > r->most_alive ? alive : r->most_alive;
    if (r->produced) {
        return;
    }
    r->produced = 1;
    char text[1024];
    memset(text, 'x', sizeof text - 1);
    text[sizeof text - 1] = '\0';
    for (long i = 1; i <= REENTRANT_PUTS; i++) {
        int length = snprintf(text, 32, "%ld", i);
        text[length] = ' ';
        sk_value v = string_value(text);
        SK_OK_OR_ABORT(sk_pipe_put(r->pipe, &v));
        sk_value_release(&v);
    }
}

static void reentrant_error(void *ctx, const sk_value *error) {
    consumer_on_error(&((reentrant *)ctx)->seen, error);
}

static void run_reentrant(reentrant *r, sk_pipe *pipe) {
    memset(r, 0, sizeof *r);
    r->pipe = pipe;
    r->base = sk_live_objects();
    sk_signal *signal = NULL;
    SK_OK_OR_FAIL(sk_pipe_signal(&signal, pipe));
    sk_signal *buffered = NULL;
    SK_OK_OR_FAIL(sk_signal_on_backpressure_buffer(&buffered, signal, 2, SK_OVERFLOW_DROP_NEWEST, NULL, NULL, NULL));
    sk_observer observer = { .ctx = r, .next = reentrant_next, .error = reentrant_error };
    sk_disposable *subscription = NULL;
    SK_OK_OR_FAIL(sk_signal_start(&subscription, buffered, &observer));
    put_number(pipe, 0);
    sk_disposable_dispose(subscription);
    sk_disposable_release(subscription);
    sk_signal_release(buffered);
    sk_signal_release(signal);
}

Test(operators_bounded, a_pipe_bounds_the_values_put_from_inside_its_own_delivery, .timeout = SK_TEST_TIMEOUT) {
    /* Unbounded: every value waits in the pipe, and is delivered. */
    reentrant r;
    sk_pipe *pipe = NULL;
    SK_OK_OR_FAIL(sk_pipe_create(&pipe, false));
    run_reentrant(&r, pipe);
    cr_assert_eq(atomic_load(&r.seen.nexts), 1 + REENTRANT_PUTS);
    cr_assert_gt(r.most_alive, REENTRANT_PUTS / 2, "the unbounded pipe held %ld objects", r.most_alive);
    sk_pipe_release(pipe);

    for (int policy = SK_OVERFLOW_DROP_NEWEST; policy <= SK_OVERFLOW_BLOCK; policy++) {
        drops d;
        drops_init(&d);
        pipe = NULL;
        SK_OK_OR_FAIL(sk_pipe_create_bounded(&pipe, false, REENTRANT_CAPACITY, (sk_overflow)policy, drops_on_drop, &d,
                                             drops_release));
        run_reentrant(&r, pipe);
        const char *name = policy_name((sk_overflow)policy);
        /* Never more than the capacity waiting (the values and their
         * deliveries), whatever the policy. */
        cr_assert_lt(r.most_alive, 8 * REENTRANT_CAPACITY, "%s: %ld objects alive", name, r.most_alive);
        long delivered = atomic_load(&r.seen.nexts);
        long dropped = atomic_load(&d.count);
        cr_assert_eq(atomic_load(&d.last_count), dropped, "%s", name);
        if (policy == SK_OVERFLOW_ERROR || policy == SK_OVERFLOW_BLOCK) {
            /* The values waiting, then the error; the value that overflowed
             * is dropped, later puts are dropped unreported. */
            cr_assert_eq(delivered, 1 + REENTRANT_CAPACITY, "%s: %ld delivered", name, delivered);
            cr_assert_eq(dropped, 1, "%s", name);
            cr_assert_eq(atomic_load(&d.first), REENTRANT_CAPACITY + 1, "%s", name);
            const char *expected = policy == SK_OVERFLOW_ERROR
                                       ? "sk_pipe_create_bounded: overflow: a value arrived with 4 values pending"
                                       : "sk_pipe_create_bounded: cannot block: the buffer is full (capacity 4)";
            cr_assert(strncmp(r.seen.error, expected, strlen(expected)) == 0, "%s: %s", name, r.seen.error);
        } else {
            /* Every value put is delivered or dropped, once. */
            cr_assert_eq(delivered + dropped, 1 + REENTRANT_PUTS, "%s: %ld + %ld", name, delivered, dropped);
            cr_assert_eq(delivered, 1 + REENTRANT_CAPACITY, "%s: %ld delivered", name, delivered);
            long expected_first = policy == SK_OVERFLOW_DROP_NEWEST ? REENTRANT_CAPACITY + 1
                                  : policy == SK_OVERFLOW_DROP_OLDEST ? 1
                                                                      : REENTRANT_CAPACITY;
            cr_assert_eq(atomic_load(&d.first), expected_first, "%s", name);
            /* drop newest keeps the first ones, the others the last. */
            long last_delivered = r.seen.first[REENTRANT_CAPACITY];
            cr_assert_eq(last_delivered, policy == SK_OVERFLOW_DROP_NEWEST ? REENTRANT_CAPACITY : REENTRANT_PUTS, "%s",
                         name);
            cr_assert_eq(r.seen.error[0], '\0', "%s: %s", name, r.seen.error);
        }
        sk_pipe_release(pipe);
        cr_assert_eq(atomic_load(&d.released), 1, "%s", name);
    }
    expect_no_live_objects(0);
}

Test(operators_bounded, bounded_places_refuse_bad_arguments, .timeout = SK_TEST_TIMEOUT) {
    sk_signal *signal = NULL;
    SK_OK_OR_FAIL(sk_signal_never(&signal));
    sk_queue *queue = serial_queue("test.bounded.arguments");
    sk_signal *inputs[2] = { signal, signal };
    sk_signal *out = signal;
    drops d;
    drops_init(&d);
    cr_expect_eq(sk_signal_zip_bounded(&out, inputs, 2, 0, SK_OVERFLOW_DROP_NEWEST, drops_on_drop, &d, drops_release), SK_ERR_INVALID_ARGUMENT);
    cr_expect_str_eq(sk_last_error_message(), "sk_signal_zip_bounded: capacity is 0 (a bounded buffer holds at least one value)");
    cr_expect_null(out);
    cr_expect_eq(sk_signal_merge_map_bounded(&out, signal, 1, 4, (sk_overflow)9, never_signal, drops_on_drop, &d, drops_release), SK_ERR_INVALID_ARGUMENT);
    cr_expect_str_eq(sk_last_error_message(), "sk_signal_merge_map_bounded: overflow 9 is no sk_overflow (SK_OVERFLOW_DROP_NEWEST ... SK_OVERFLOW_BLOCK)");
    cr_expect_eq(sk_signal_merge_map_bounded(&out, signal, 0, 4, SK_OVERFLOW_LATEST, never_signal, drops_on_drop, &d, drops_release), SK_ERR_INVALID_ARGUMENT);
    cr_expect_str_eq(sk_last_error_message(), "sk_signal_merge_map_bounded: max_concurrent must be at least 1");
    cr_expect_eq(sk_signal_merge_map_bounded(&out, signal, 1, 4, SK_OVERFLOW_LATEST, NULL, drops_on_drop, &d, drops_release), SK_ERR_NULL_ARGUMENT);
    cr_expect_eq(sk_signal_queue_bounded(&out, NULL, 4, SK_OVERFLOW_LATEST, NULL, &d, drops_release), SK_ERR_NULL_ARGUMENT);
    cr_expect_eq(sk_signal_queue_bounded(NULL, signal, 4, SK_OVERFLOW_LATEST, NULL, &d, drops_release), SK_ERR_NULL_ARGUMENT);
    cr_expect_eq(sk_signal_buffer_time_bounded(&out, signal, -1, queue, 4, SK_OVERFLOW_LATEST, NULL, &d, drops_release), SK_ERR_INVALID_ARGUMENT);
    cr_expect_eq(sk_signal_buffer_time_bounded(&out, signal, 1, NULL, 4, SK_OVERFLOW_LATEST, NULL, &d, drops_release), SK_ERR_NULL_ARGUMENT);
    cr_expect_eq(sk_signal_zip_bounded(&out, NULL, 2, 4, SK_OVERFLOW_LATEST, NULL, &d, drops_release), SK_ERR_NULL_ARGUMENT);
    /* Each failure released the context once. */
    cr_expect_eq(atomic_load(&d.released), 9, "ctx released %d times", atomic_load(&d.released));
    /* SIZE_MAX is no bound. */
    SK_OK_OR_FAIL(sk_signal_zip_bounded(&out, inputs, 2, SIZE_MAX, SK_OVERFLOW_ERROR, NULL, &d, drops_release));
    sk_signal_release(out);
    cr_expect_eq(atomic_load(&d.released), 10);
    sk_signal_release(signal);
    sk_queue_release(queue);
    expect_no_live_objects(0);
}

/* The handles released in every order while values wait (in the zip, the
 * merge_map and the buffer); live objects back to 0. */
Test(operators_bounded, bounded_places_handles_released_in_every_order_with_values_waiting, .timeout = SK_TEST_TIMEOUT) {
    static const int orders[6][3] = { {0, 1, 2}, {0, 2, 1}, {1, 0, 2}, {1, 2, 0}, {2, 0, 1}, {2, 1, 0} };
    for (int place = 0; place < 3; place++) {
        for (size_t order = 0; order < 6; order++) {
            for (int policy = SK_OVERFLOW_DROP_NEWEST; policy <= SK_OVERFLOW_ERROR; policy++) {
                sk_queue *queue = serial_queue("test.bounded.abandon");
                sk_signal *signal = NULL, *other = NULL, *bounded = NULL;
                sk_pipe *pipe = new_pipe(&signal);
                SK_OK_OR_FAIL(sk_signal_never(&other));
                switch (place) {
                case 0: {
                    sk_signal *inputs[2] = { signal, other };
                    SK_OK_OR_FAIL(sk_signal_zip_bounded(&bounded, inputs, 2, 4, (sk_overflow)policy, NULL, NULL, NULL));
                    break;
                }
                case 1:
                    SK_OK_OR_FAIL(sk_signal_merge_map_bounded(&bounded, signal, 1, 4, (sk_overflow)policy, never_signal, NULL, NULL, NULL));
                    break;
                default:
                    SK_OK_OR_FAIL(sk_signal_buffer_time_bounded(&bounded, signal, 3600, queue, 4, (sk_overflow)policy, NULL, NULL, NULL));
                    break;
                }
                sk_observer observer = {0};
                sk_disposable *subscription = NULL;
                SK_OK_OR_FAIL(sk_signal_start(&subscription, bounded, &observer));
                for (long i = 0; i < 10; i++) {
                    put_number(pipe, i);
                }
                for (int step = 0; step < 3; step++) {
                    switch (orders[order][step]) {
                    case 0:
                        /* A buffer's repeating timer keeps a subscription
                         * that nobody disposes alive (as sk_signal_buffer_time's). */
                        if (place == 2) {
                            sk_disposable_dispose(subscription);
                        }
                        sk_disposable_release(subscription);
                        break;
                    case 1: sk_signal_release(bounded); sk_signal_release(signal); sk_signal_release(other); break;
                    case 2: sk_pipe_release(pipe); break;
                    }
                }
                flush_queue(queue);
                sk_queue_release(queue);
                long live = sk_live_objects();
                cr_assert_eq(live, 0, "place %d, order %zu, %s: %ld objects alive", place, order, policy_name((sk_overflow)policy), live);
            }
        }
    }
}

/* A generator that puts "1" to "5" inside its start. */
static sk_disposable *five_numbers(void *ctx, sk_subscriber *subscriber) {
    (void)ctx;
    for (int i = 1; i <= 5; i++) {
        char text[8];
        snprintf(text, sizeof text, "%d", i);
        sk_value v = string_value(text);
        sk_subscriber_put_next(subscriber, &v);
        sk_value_release(&v);
    }
    return NULL;
}

/* The drops seen while the error had not reached the consumer, and after. */
typedef struct drops_around_error {
    consumer *seen;
    int before;
    int after;
} drops_around_error;

static void count_around_error(void *ctx, const sk_value *value, uint64_t dropped) {
    (void)value;
    (void)dropped;
    drops_around_error *d = ctx;
    if (atomic_load(&d->seen->terminated)) {
        d->after++;
    } else {
        d->before++;
    }
}

/* signalkit.h (sk_signal_zip_bounded, sk_signal_merge_map_bounded): a
 * value put after the failure's error reached the consumer reaches nothing
 * and nothing reports it. A generator still inside its start (the inputs
 * are disposed once the start returned) had its later values passed to
 * on_drop, after the error. */
Test(operators_bounded, nothing_is_reported_once_the_error_reached_the_consumer, .timeout = SK_TEST_TIMEOUT) {
    /* zip's block refuses to wait for the thread starting its inputs (an
     * error too); merge_map's waits for its inner signal (never, here), so
     * only its error policy fails. */
    const sk_overflow policies[] = {SK_OVERFLOW_ERROR, SK_OVERFLOW_BLOCK};
    for (int merge_map = 0; merge_map < 2; merge_map++) {
        for (size_t p = 0; p < (merge_map ? 1u : 2u); p++) {
            consumer seen;
            sk_observer observer = consumer_observer(&seen);
            drops_around_error d = {&seen, 0, 0};
            sk_signal *source = NULL, *other = NULL, *bounded = NULL;
            sk_pipe *pipe = new_pipe(&other);
            sk_disposable *subscription = NULL;
            SK_OK_OR_FAIL(sk_signal_create(&source, five_numbers, NULL, NULL));
            if (merge_map) {
                SK_OK_OR_FAIL(sk_signal_merge_map_bounded(&bounded, source, 1, 1, policies[p], never_signal,
                                                          count_around_error, &d, NULL));
            } else {
                sk_signal *inputs[2] = {source, other};
                SK_OK_OR_FAIL(sk_signal_zip_bounded(&bounded, inputs, 2, 1, policies[p], count_around_error, &d, NULL));
            }
            SK_OK_OR_FAIL(sk_signal_start(&subscription, bounded, &observer));
            cr_assert(atomic_load(&seen.terminated), "%s, policy %zu: no error", merge_map ? "merge_map" : "zip", p);
            cr_assert_gt(d.before, 0);
            cr_assert_eq(d.after, 0, "%s, policy %zu: %d values reported after the error reached the consumer",
                         merge_map ? "merge_map" : "zip", p, d.after);
            sk_disposable_dispose(subscription);
            sk_disposable_release(subscription);
            sk_signal_release(bounded);
            sk_signal_release(source);
            sk_signal_release(other);
            sk_pipe_release(pipe);
        }
    }
    expect_no_live_objects(0);
}
