/* test_operators_dispatch.c - deliver-on and run-on (the C layer's
 * Operators_Dispatch.swift): on which thread and queue events are delivered
 * and the upstream is started, and what a disposal drops. */

#include <signalkit_test.h>

#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>

#include "support.h"

/* ------------------------------------------------------------------------ */
/* Deliver on                                                               */
/* ------------------------------------------------------------------------ */

static void *emit_three_and_complete(void *arg) {
    sk_subscriber *subscriber = arg;
    for (int64_t i = 1; i <= 3; i++) {
        sk_value v = int_value(i);
        SK_OK_OR_ABORT(sk_subscriber_put_next(subscriber, &v));
    }
    SK_OK_OR_ABORT(sk_subscriber_put_completion(subscriber));
    return NULL;
}

Test(operators_dispatch, deliver_on_host_queue_delivers_on_draining_thread, .timeout = SK_TEST_TIMEOUT) {
    sk_queue *host = host_queue("test.deliver");
    int fd = host_queue_fd(host);
    pipeline p;
    pipeline_init(&p);
    SK_OK_OR_FAIL(sk_signal_deliver_on(&p.op, p.upstream, host));
    pipeline_start(&p);

    /* Emitted from another thread: nothing arrives until this thread drains. */
    pthread_t thread;
    cr_assert_eq(pthread_create(&thread, NULL, emit_three_and_complete, pipeline_subscriber(&p)), 0);
    pthread_join(thread, NULL);
    recorder_expect(&p.r, "", NULL, 0);
    cr_assert(fd_readable_now(fd));
    SK_OK_OR_FAIL(sk_queue_host_drain(host, 0, NULL));
    const int64_t expected[] = { 1, 2, 3 };
    recorder_expect(&p.r, "nnncr", expected, 3);
    for (size_t i = 0; i < 5; i++) {
        cr_assert(pthread_equal(recorder_event(&p.r, i)->thread, pthread_self()), "event %zu not on the draining thread", i);
    }
    cr_assert(!fd_readable_now(fd));
    pipeline_finish(&p);
    expect_no_live_objects(1, host);
}

/* The order of a queue's work around deliver-on's batches: one log, in
 * which each subscription writes its letter and the value, and the work
 * enqueued between the puts a 'W'. */
typedef struct order_log {
    char text[64];
    size_t length;
} order_log;

typedef struct order_observer {
    order_log *log;
    char letter;
} order_observer;

static void order_append(order_log *log, char c) {
    if (log->length + 1 < sizeof log->text) {
        log->text[log->length++] = c;
        log->text[log->length] = '\0';
    }
}

static void order_next(void *ctx, const sk_value *value) {
    order_observer *o = ctx;
    int64_t n = 0;
    SK_OK_OR_ABORT(sk_value_get_int64(value, &n));
    order_append(o->log, o->letter);
    order_append(o->log, (char)('0' + n));
}

static void order_work(void *ctx) {
    order_append(ctx, 'W');
}

static void order_put(sk_pipe *pipe, int64_t n) {
    sk_value v = int_value(n);
    SK_OK_OR_FAIL(sk_pipe_put(pipe, &v));
}

/* Work enqueued on the queue between two puts runs between their
 * deliveries, as with a dispatch per event, and two deliver-ons onto one
 * queue interleave as their values were put: a value joins the batch
 * waiting only while nothing else was enqueued since (before, a2 and a3
 * joined a1's batch, ahead of W and b1). */
Test(operators_dispatch, deliver_on_keeps_the_order_of_the_queues_other_work, .timeout = SK_TEST_TIMEOUT) {
    sk_queue *host = host_queue("test.deliver.order");
    order_log log = { "", 0 };
    order_observer a = { &log, 'a' }, b = { &log, 'b' };
    sk_pipe *pipes[2] = { NULL, NULL };
    sk_disposable *subscriptions[2] = { NULL, NULL };
    order_observer *observers[2] = { &a, &b };
    for (int i = 0; i < 2; i++) {
        sk_signal *signal = NULL, *delivered = NULL;
        SK_OK_OR_FAIL(sk_pipe_create(&pipes[i], false));
        SK_OK_OR_FAIL(sk_pipe_signal(&signal, pipes[i]));
        SK_OK_OR_FAIL(sk_signal_deliver_on(&delivered, signal, host));
        sk_observer observer = { order_next, NULL, NULL, observers[i], NULL };
        SK_OK_OR_FAIL(sk_signal_start(&subscriptions[i], delivered, &observer));
        sk_signal_release(delivered);
        sk_signal_release(signal);
    }
    order_put(pipes[0], 1);
    SK_OK_OR_FAIL(sk_queue_async(host, order_work, &log, NULL));
    order_put(pipes[0], 2);
    order_put(pipes[0], 3);
    order_put(pipes[1], 1);
    order_put(pipes[0], 4);
    SK_OK_OR_FAIL(sk_queue_host_drain(host, 0, NULL));
    cr_assert_str_eq(log.text, "a1Wa2a3b1a4");
    for (int i = 0; i < 2; i++) {
        sk_disposable_dispose(subscriptions[i]);
        sk_disposable_release(subscriptions[i]);
        sk_pipe_release(pipes[i]);
    }
    expect_no_live_objects(1, host);
}

/* Issue 77: two subscriptions delivering on one queue that lags, released
 * without a dispose while values wait. Each value of each subscription is a
 * batch of its own then (the other's drain was given to the queue between
 * two of them), and a drain moved every event after its batch down: a
 * backlog of n values took O(n^2) to deliver (400,000 values, two
 * subscriptions: minutes, the harness's timeout here), and the released
 * subscriptions and their observers stayed alive all that time (seen as a
 * leak: a feeder thread putting for 50 ms on a loaded machine left them for
 * minutes). Now a backlog drains in O(n): every value arrives, in order,
 * once, and each observer's release runs at the end. A host-drained queue
 * is the queue that lags, so the interleaving is the same every run. */
typedef struct {
    atomic_long next;
    atomic_long expected;
    atomic_int out_of_order;
    atomic_int released;
} backlog_observer;

static void backlog_next(void *ctx, const sk_value *value) {
    backlog_observer *o = ctx;
    int64_t n = -1;
    sk_value_get_int64(value, &n);
    if (n != atomic_load(&o->expected)) {
        atomic_store(&o->out_of_order, 1);
    }
    atomic_store(&o->expected, n + 1);
    atomic_fetch_add(&o->next, 1);
}

static void backlog_release(void *ctx) {
    backlog_observer *o = ctx;
    atomic_fetch_add(&o->released, 1);
}

Test(operators_dispatch, deliver_on_backlog_of_interleaved_subscriptions_drains_in_linear_time_and_frees_them, .timeout = SK_TEST_TIMEOUT) {
    /* A drain that is not linear in the backlog shows at the plain build's
     * 400,000 values (a timeout); the sanitizers look at the same path
     * with a tenth of them (19 s of the TSan suite's 119 at 400,000). */
    enum { VALUES = SK_TEST_SANITIZED ? 40000 : 400000, SUBSCRIPTIONS = 2 };
    sk_queue *host = host_queue("test.deliver_on.backlog");
    sk_pipe *pipe = NULL;
    SK_OK_OR_FAIL(sk_pipe_create(&pipe, false));
    backlog_observer observers[SUBSCRIPTIONS];
    for (int i = 0; i < SUBSCRIPTIONS; i++) {
        atomic_init(&observers[i].next, 0);
        atomic_init(&observers[i].expected, 0);
        atomic_init(&observers[i].out_of_order, 0);
        atomic_init(&observers[i].released, 0);
        sk_signal *signal = NULL, *delivered = NULL;
        sk_disposable *subscription = NULL;
        SK_OK_OR_FAIL(sk_pipe_signal(&signal, pipe));
        SK_OK_OR_FAIL(sk_signal_deliver_on(&delivered, signal, host));
        sk_observer observer = { backlog_next, NULL, NULL, &observers[i], backlog_release };
        SK_OK_OR_FAIL(sk_signal_start(&subscription, delivered, &observer));
        /* Released without a dispose: the subscription goes on. */
        sk_disposable_release(subscription);
        sk_signal_release(delivered);
        sk_signal_release(signal);
    }
    for (int64_t n = 0; n < VALUES; n++) {
        sk_value v = int_value(n);
        SK_OK_OR_FAIL(sk_pipe_put(pipe, &v));
    }
    sk_pipe_release(pipe);
    for (int i = 0; i < SUBSCRIPTIONS; i++) {
        cr_assert_eq(atomic_load(&observers[i].released), 0, "observer %d was released with values waiting", i);
    }
    SK_OK_OR_FAIL(sk_queue_host_drain(host, 0, NULL));
    for (int i = 0; i < SUBSCRIPTIONS; i++) {
        cr_assert_eq(atomic_load(&observers[i].next), VALUES, "observer %d received %ld of %d values", i,
                     atomic_load(&observers[i].next), (int)VALUES);
        cr_assert_eq(atomic_load(&observers[i].out_of_order), 0, "observer %d received a value out of order", i);
        cr_assert_eq(atomic_load(&observers[i].released), 1, "observer %d: release ran %d times", i,
                     atomic_load(&observers[i].released));
    }
    expect_no_live_objects(1, host);
}

Test(operators_dispatch, deliver_on_drops_pending_events_after_dispose, .timeout = SK_TEST_TIMEOUT) {
    sk_queue *host = host_queue(NULL);
    pipeline p;
    pipeline_init(&p);
    SK_OK_OR_FAIL(sk_signal_deliver_on(&p.op, p.upstream, host));
    pipeline_start(&p);
    subscriber_put_int(pipeline_subscriber(&p), 1);
    sk_disposable_dispose(p.d);
    flush_queue(host);
    recorder_expect(&p.r, "r", NULL, 0);
    pipeline_finish(&p);
    expect_no_live_objects(1, host);
}

/* The values waiting in a deliver_on at a dispose are released by the
 * dispose, never delivered: they waited for the queue's next drain (on a
 * host-drained queue the host may never drain again, until the queue
 * closed); and a value a put brings after the dispose is released at once. */
Test(operators_dispatch, deliver_on_releases_the_values_waiting_at_a_dispose, .timeout = SK_TEST_TIMEOUT) {
    counter released;
    counter_init(&released);
    sk_queue *host = host_queue("test.deliver_on.dispose");
    sk_pipe *pipe = NULL;
    sk_signal *signal = NULL, *delivered = NULL;
    SK_OK_OR_FAIL(sk_pipe_create(&pipe, false));
    SK_OK_OR_FAIL(sk_pipe_signal(&signal, pipe));
    SK_OK_OR_FAIL(sk_signal_deliver_on(&delivered, signal, host));
    recorder r;
    recorder_init(&r);
    sk_disposable *subscription = recorder_start(&r, delivered);
    for (int i = 0; i < 3; i++) {
        sk_value v;
        SK_OK_OR_FAIL(sk_value_set_pointer(&v, &released, counter_hit));
        SK_OK_OR_FAIL(sk_pipe_put(pipe, &v));
        sk_value_release(&v);
    }
    cr_expect_eq(counter_get(&released), 0, "the values wait for the queue");
    sk_disposable_dispose(subscription);
    cr_expect_eq(counter_get(&released), 3, "the dispose released the values waiting (%d released)", counter_get(&released));
    SK_OK_OR_FAIL(sk_queue_host_drain(host, 0, NULL));
    recorder_expect(&r, "r", NULL, 0);
    recorder_finish(&r, subscription);
    sk_signal_release(delivered);
    sk_signal_release(signal);
    sk_pipe_release(pipe);
    counter_destroy(&released);
    expect_no_live_objects(1, host);
}

/* A deliver-on whose queue (host-drained or virtual-time) closes when its
 * last handle is released, while the subscription stays: the values waiting
 * for the queue are released by the close, and every value put after it is
 * released at once (the header: deliveries still headed for a closed queue
 * are dropped). Before, they piled up, unreleased, until the subscription was
 * disposed (100 000 puts: 100 000 live objects more). */
static void check_deliver_on_closed_queue(bool host) {
    counter released;
    counter_init(&released);
    sk_queue *queue = NULL;
    if (host) {
        SK_OK_OR_FAIL(sk_queue_create_host(&queue, "closing"));
    } else {
        SK_OK_OR_FAIL(sk_queue_create_virtual(&queue, "closing"));
    }
    sk_pipe *pipe = NULL;
    sk_signal *signal = NULL, *delivered = NULL;
    SK_OK_OR_FAIL(sk_pipe_create(&pipe, false));
    SK_OK_OR_FAIL(sk_pipe_signal(&signal, pipe));
    SK_OK_OR_FAIL(sk_signal_deliver_on(&delivered, signal, queue));
    sk_observer observer = {0};
    sk_disposable *subscription = NULL;
    SK_OK_OR_FAIL(sk_signal_start(&subscription, delivered, &observer));
    for (int i = 0; i < 10; i++) {
        sk_value v;
        SK_OK_OR_FAIL(sk_value_set_pointer(&v, &released, counter_hit));
        SK_OK_OR_FAIL(sk_pipe_put(pipe, &v));
        sk_value_release(&v);
    }
    cr_expect_eq(counter_get(&released), 0, "%s: released before the close", host ? "host" : "virtual");
    sk_queue_release(queue);
    cr_expect_eq(counter_get(&released), 10, "%s: the waiting values are released by the close", host ? "host" : "virtual");
    long live = sk_live_objects();
    for (int i = 0; i < 1000; i++) {
        sk_value v;
        SK_OK_OR_FAIL(sk_value_set_pointer(&v, &released, counter_hit));
        SK_OK_OR_FAIL(sk_pipe_put(pipe, &v));
        sk_value_release(&v);
    }
    cr_expect_eq(counter_get(&released), 1010, "%s: values put after the close are released at once (%d released)",
                 host ? "host" : "virtual", counter_get(&released));
    cr_expect_eq(sk_live_objects(), live, "%s: live objects grew from %ld to %ld", host ? "host" : "virtual", live, sk_live_objects());
    sk_disposable_dispose(subscription);
    sk_disposable_release(subscription);
    sk_signal_release(delivered);
    sk_signal_release(signal);
    sk_pipe_release(pipe);
    counter_destroy(&released);
    expect_no_live_objects(0);
}

Test(operators_dispatch, deliver_on_a_closed_queue_drops_its_values, .timeout = SK_TEST_TIMEOUT) {
    check_deliver_on_closed_queue(true);
    check_deliver_on_closed_queue(false);
}

/* ------------------------------------------------------------------------ */
/* Run on                                                                   */
/* ------------------------------------------------------------------------ */

/* Run-on on `queue` over the probe source of `t` (probe_run_init). */
static void run_on_init(probe_run *t, sk_queue *queue) {
    probe_run_init(t, queue);
    SK_OK_OR_FAIL(sk_signal_run_on(&t->op, t->source, queue));
}

Test(operators_dispatch, run_on_starts_the_upstream_on_the_queue, .timeout = SK_TEST_TIMEOUT) {
    sk_queue *host = host_queue("test.run_on");
    int fd = host_queue_fd(host);
    probe_run t;
    run_on_init(&t, host);
    probe_run_start(&t);
    cr_assert_eq(probe_starts(&t.p), 0, "started before the queue ran");
    cr_assert(fd_readable_now(fd), "the start was not enqueued");
    SK_OK_OR_FAIL(sk_queue_host_drain(host, 0, NULL));
    cr_assert_eq(probe_starts(&t.p), 1);
    cr_assert_eq(t.p.starts_on_queue, 1, "not started on the queue");
    cr_assert(pthread_equal(t.p.thread, pthread_self()), "not started on the draining thread");
    /* Events are delivered where they are emitted: here, outside the queue. */
    subscriber_put_int(t.p.subscriber, 7);
    SK_OK_OR_FAIL(sk_subscriber_put_completion(t.p.subscriber));
    recorder_expect_one(&t.r, "ncr", 7);
    cr_assert_eq(counter_get(&t.p.disposed), 1);
    probe_run_finish(&t);
    cr_assert_eq(t.released, 1);
    expect_no_live_objects(1, host);
}

Test(operators_dispatch, run_on_disposed_before_the_queue_runs_never_starts, .timeout = SK_TEST_TIMEOUT) {
    sk_queue *host = host_queue(NULL);
    probe_run t;
    run_on_init(&t, host);
    probe_run_dispose_before_the_start(&t, host);
    probe_run_finish(&t);
    expect_no_live_objects(1, host);
}

typedef struct inline_start {
    sk_signal *signal;
    probe_source *p;
    recorder *r;
    sk_disposable *d;
    int starts_when_start_returned;
} inline_start;

static void start_from_the_queue(void *arg) {
    inline_start *s = arg;
    sk_observer observer = recorder_observer(s->r);
    SK_OK_OR_ABORT(sk_signal_start(&s->d, s->signal, &observer));
    s->starts_when_start_returned = probe_starts(s->p);
}

Test(operators_dispatch, run_on_starts_inline_when_already_on_the_queue, .timeout = SK_TEST_TIMEOUT) {
    sk_queue *queue = serial_queue("test.run_on.inline");
    probe_run t;
    run_on_init(&t, queue);
    recorder_init(&t.r);
    inline_start s = { t.op, &t.p, &t.r, NULL, -1 };
    SK_OK_OR_FAIL(sk_queue_sync(queue, start_from_the_queue, &s, NULL));
    cr_assert_eq(s.starts_when_start_returned, 1, "not started inline");
    cr_assert_eq(t.p.starts_on_queue, 1);
    t.d = s.d;
    probe_run_finish(&t);
    cr_assert_eq(t.disposed, 1);
    expect_no_live_objects(1, queue);
}

/* ------------------------------------------------------------------------ */
/* Bounded buffers: sk_signal_on_backpressure_buffer,                       */
/* sk_signal_deliver_on_bounded                                             */
/* ------------------------------------------------------------------------ */

/* What a drop callback saw: the values (ints), the counts it was given,
 * whether its release ran. Written from the producing thread only. */
typedef struct drop_log {
    int64_t values[64];
    uint64_t counts[64];
    size_t count;
    int released;
} drop_log;

static void drop_log_on_drop(void *ctx, const sk_value *value, uint64_t dropped) {
    drop_log *log = ctx;
    if (log->count < 64) {
        log->values[log->count] = value_int(value);
        log->counts[log->count] = dropped;
    }
    log->count++;
}

static void drop_log_release(void *ctx) {
    ((drop_log *)ctx)->released++;
}

static void expect_drops(const drop_log *log, const int64_t *values, size_t count, const char *what) {
    cr_assert_eq(log->count, count, "%s: %zu drops, expected %zu", what, log->count, count);
    for (size_t i = 0; i < count; i++) {
        cr_expect_eq(log->values[i], values[i], "%s: drop %zu is %lld, expected %lld", what, i, (long long)log->values[i], (long long)values[i]);
        cr_expect_eq(log->counts[i], (uint64_t)(i + 1), "%s: drop %zu counted %llu", what, i, (unsigned long long)log->counts[i]);
    }
}

/* Value 0's delivery puts 1..5 reentrantly into a buffer of 2. */
static void put_one_to_five(recorder *r, const sk_value *value) {
    if (value_int(value) == 0) {
        for (int64_t i = 1; i <= 5; i++) {
            subscriber_put_int(r->user, i);
        }
    }
}

static void check_reentrant(sk_overflow overflow, const char *log_expected, const int64_t *delivered, size_t delivered_count,
                            const int64_t *dropped, size_t dropped_count, const char *what) {
    drop_log drops = {0};
    pipeline p;
    pipeline_init(&p);
    SK_OK_OR_FAIL(sk_signal_on_backpressure_buffer(&p.op, p.upstream, 2, overflow, drop_log_on_drop, &drops, drop_log_release));
    p.r.on_next = put_one_to_five;
    pipeline_start(&p);
    p.r.user = pipeline_subscriber(&p);
    subscriber_put_int(pipeline_subscriber(&p), 0);
    subscriber_put_int(pipeline_subscriber(&p), 6);
    recorder_expect(&p.r, log_expected, delivered, delivered_count);
    expect_drops(&drops, dropped, dropped_count, what);
    pipeline_finish(&p);
    cr_expect_eq(drops.released, 1, "%s: the drop callback's release ran %d times", what, drops.released);
    expect_no_live_objects(0);
}

Test(operators_dispatch, on_backpressure_buffer_policies_for_reentrant_puts, .timeout = SK_TEST_TIMEOUT) {
    const int64_t newest[] = { 0, 1, 2, 6 }, newest_dropped[] = { 3, 4, 5 };
    check_reentrant(SK_OVERFLOW_DROP_NEWEST, "nnnn", newest, 4, newest_dropped, 3, "drop newest");
    const int64_t oldest[] = { 0, 4, 5, 6 }, oldest_dropped[] = { 1, 2, 3 };
    check_reentrant(SK_OVERFLOW_DROP_OLDEST, "nnnn", oldest, 4, oldest_dropped, 3, "drop oldest");
    const int64_t latest[] = { 0, 1, 5, 6 }, latest_dropped[] = { 2, 3, 4 };
    check_reentrant(SK_OVERFLOW_LATEST, "nnnn", latest, 4, latest_dropped, 3, "latest");
    const int64_t failed[] = { 0, 1, 2 }, failed_dropped[] = { 3, 4, 5 };
    check_reentrant(SK_OVERFLOW_ERROR, "nnner", failed, 3, failed_dropped, 3, "error");
    check_reentrant(SK_OVERFLOW_BLOCK, "nnner", failed, 3, failed_dropped, 3, "block (reentrant: refused)");
}

Test(operators_dispatch, on_backpressure_buffer_error_names_the_operator_and_the_capacity, .timeout = SK_TEST_TIMEOUT) {
    const char *expected[] = {
        "sk_signal_on_backpressure_buffer: overflow: a value arrived with 2 values pending (capacity 2, policy error)",
        "sk_signal_on_backpressure_buffer: cannot block: the buffer is full (capacity 2) and the value was put by a thread that would wait for itself forever (the one that delivers its values, or one that feeds another input of a zip or is still starting them)",
    };
    sk_overflow policies[] = { SK_OVERFLOW_ERROR, SK_OVERFLOW_BLOCK };
    for (size_t i = 0; i < 2; i++) {
        pipeline p;
        pipeline_init(&p);
        SK_OK_OR_FAIL(sk_signal_on_backpressure_buffer(&p.op, p.upstream, 2, policies[i], NULL, NULL, NULL));
        p.r.on_next = put_one_to_five;
        pipeline_start(&p);
        p.r.user = pipeline_subscriber(&p);
        subscriber_put_int(pipeline_subscriber(&p), 0);
        const rec_event *error = recorder_event(&p.r, 3);
        cr_assert(error != NULL);
        const char *text = NULL;
        SK_OK_OR_FAIL(sk_value_get_string(&error->value, &text, NULL));
        cr_expect_str_eq(text, expected[i]);
        pipeline_finish(&p);
    }
    expect_no_live_objects(0);
}

/* deliver_on_bounded onto a host queue: ten values put before a drain. */
static void check_host_drained(sk_overflow overflow, const int64_t *delivered, size_t delivered_count, const char *log_expected,
                               const int64_t *dropped, size_t dropped_count, const char *what) {
    sk_queue *host = host_queue("test.bounded");
    drop_log drops = {0};
    pipeline p;
    pipeline_init(&p);
    SK_OK_OR_FAIL(sk_signal_deliver_on_bounded(&p.op, p.upstream, host, 3, overflow, drop_log_on_drop, &drops, drop_log_release));
    pipeline_start(&p);
    for (int64_t i = 0; i < 10; i++) {
        subscriber_put_int(pipeline_subscriber(&p), i);
    }
    recorder_expect(&p.r, "", NULL, 0);
    SK_OK_OR_FAIL(sk_queue_host_drain(host, 0, NULL));
    recorder_expect(&p.r, log_expected, delivered, delivered_count);
    expect_drops(&drops, dropped, dropped_count, what);
    pipeline_finish(&p);
    sk_queue_release(host);
    cr_expect_eq(drops.released, 1, "%s: the drop callback's release ran %d times", what, drops.released);
    expect_no_live_objects(0);
}

Test(operators_dispatch, deliver_on_bounded_policies_on_a_host_queue, .timeout = SK_TEST_TIMEOUT) {
    const int64_t newest[] = { 0, 1, 2 }, newest_dropped[] = { 3, 4, 5, 6, 7, 8, 9 };
    check_host_drained(SK_OVERFLOW_DROP_NEWEST, newest, 3, "nnn", newest_dropped, 7, "drop newest");
    const int64_t oldest[] = { 7, 8, 9 }, oldest_dropped[] = { 0, 1, 2, 3, 4, 5, 6 };
    check_host_drained(SK_OVERFLOW_DROP_OLDEST, oldest, 3, "nnn", oldest_dropped, 7, "drop oldest");
    const int64_t latest[] = { 0, 1, 9 }, latest_dropped[] = { 2, 3, 4, 5, 6, 7, 8 };
    check_host_drained(SK_OVERFLOW_LATEST, latest, 3, "nnn", latest_dropped, 7, "latest");
    check_host_drained(SK_OVERFLOW_ERROR, newest, 3, "nnner", newest_dropped, 7, "error");
    /* A host-drained queue's drainer may be the producer: block refuses. */
    check_host_drained(SK_OVERFLOW_BLOCK, newest, 3, "nnner", newest_dropped, 7, "block");
}

/* Values pending in a deliver_on_bounded onto a host-drained or
 * virtual-time queue when that queue closes (its last handle released):
 * reported to on_drop while the subscription lives; released without a
 * report once it is disposed, as the header says of values pending at a
 * dispose (they were reported when the queue closed after the dispose). */
static void check_queue_closed(sk_queue *queue, bool disposed_first, const char *what) {
    drop_log drops = {0};
    pipeline p;
    pipeline_init(&p);
    SK_OK_OR_FAIL(sk_signal_deliver_on_bounded(&p.op, p.upstream, queue, 3, SK_OVERFLOW_DROP_NEWEST, drop_log_on_drop, &drops, drop_log_release));
    pipeline_start(&p);
    for (int64_t i = 0; i < 3; i++) {
        subscriber_put_int(pipeline_subscriber(&p), i);
    }
    if (disposed_first) {
        pipeline_stop(&p);
    }
    sk_queue_release(queue);
    recorder_expect(&p.r, "", NULL, 0);
    if (disposed_first) {
        expect_drops(&drops, NULL, 0, what);
    } else {
        const int64_t pending[] = { 0, 1, 2 };
        expect_drops(&drops, pending, 3, what);
    }
    pipeline_finish(&p);
    cr_expect_eq(drops.released, 1, "%s: the drop callback's release ran %d times", what, drops.released);
    expect_no_live_objects(0);
}

Test(operators_dispatch, deliver_on_bounded_reports_values_a_closing_queue_drops_only_while_subscribed, .timeout = SK_TEST_TIMEOUT) {
    sk_queue *queue = NULL;
    check_queue_closed(host_queue("test.bounded.close"), false, "host-drained, subscribed");
    check_queue_closed(host_queue("test.bounded.close"), true, "host-drained, disposed");
    SK_OK_OR_FAIL(sk_queue_create_virtual(&queue, "test.bounded.close"));
    check_queue_closed(queue, false, "virtual-time, subscribed");
    SK_OK_OR_FAIL(sk_queue_create_virtual(&queue, "test.bounded.close"));
    check_queue_closed(queue, true, "virtual-time, disposed");
}

Test(operators_dispatch, bounded_buffers_refuse_bad_arguments, .timeout = SK_TEST_TIMEOUT) {
    sk_queue *host = host_queue(NULL);
    sk_pipe *pipe = NULL;
    sk_signal *signal = NULL, *out = NULL;
    SK_OK_OR_FAIL(sk_pipe_create(&pipe, false));
    SK_OK_OR_FAIL(sk_pipe_signal(&signal, pipe));
    drop_log drops = {0};
    cr_expect_eq(sk_signal_on_backpressure_buffer(&out, signal, 0, SK_OVERFLOW_DROP_NEWEST, drop_log_on_drop, &drops, drop_log_release), SK_ERR_INVALID_ARGUMENT);
    cr_expect_str_eq(sk_last_error_message(), "sk_signal_on_backpressure_buffer: capacity is 0 (a bounded buffer holds at least one value)");
    cr_expect_eq(drops.released, 1);
    cr_expect_eq(sk_signal_deliver_on_bounded(&out, signal, host, 4, (sk_overflow)9, drop_log_on_drop, &drops, drop_log_release), SK_ERR_INVALID_ARGUMENT);
    cr_expect_str_eq(sk_last_error_message(), "sk_signal_deliver_on_bounded: overflow 9 is no sk_overflow (SK_OVERFLOW_DROP_NEWEST ... SK_OVERFLOW_BLOCK)");
    cr_expect_eq(drops.released, 2);
    /* A negative number is named as the caller wrote it (it read 4294967295). */
    cr_expect_eq(sk_signal_deliver_on_bounded(&out, signal, host, 4, (sk_overflow)-1, NULL, NULL, NULL), SK_ERR_INVALID_ARGUMENT);
    cr_expect_str_eq(sk_last_error_message(), "sk_signal_deliver_on_bounded: overflow -1 is no sk_overflow (SK_OVERFLOW_DROP_NEWEST ... SK_OVERFLOW_BLOCK)");
    cr_expect_eq(sk_signal_deliver_on_bounded(&out, signal, NULL, 4, SK_OVERFLOW_LATEST, drop_log_on_drop, &drops, drop_log_release), SK_ERR_NULL_ARGUMENT);
    cr_expect_eq(drops.released, 3);
    cr_expect_eq(sk_signal_deliver_on_bounded(&out, NULL, host, 4, SK_OVERFLOW_LATEST, NULL, &drops, drop_log_release), SK_ERR_NULL_ARGUMENT);
    cr_expect_eq(drops.released, 4);
    cr_expect_eq(sk_signal_on_backpressure_buffer(NULL, signal, 4, SK_OVERFLOW_LATEST, NULL, &drops, drop_log_release), SK_ERR_NULL_ARGUMENT);
    cr_expect_eq(drops.released, 5);
    cr_expect_null(out);
    /* Without a callback the context is still released, once. */
    SK_OK_OR_FAIL(sk_signal_on_backpressure_buffer(&out, signal, SIZE_MAX, SK_OVERFLOW_LATEST, NULL, &drops, drop_log_release));
    sk_signal_release(out);
    cr_expect_eq(drops.released, 6);
    sk_signal_release(signal);
    sk_pipe_release(pipe);
    sk_queue_release(host);
    expect_no_live_objects(0);
}

/* The load test: a producer much faster than its consumer sends 1,000,000
 * string values through deliver_on_bounded(serial queue, capacity 1000).
 * The live objects (each value pending is one) stay within the capacity
 * plus a constant; with error and block nothing is lost: delivered +
 * dropped is a prefix of what was sent, in order (error), or everything
 * (block). */
typedef struct load_consumer {
    atomic_long delivered;
    atomic_long next_expected;
    atomic_int out_of_order;
    atomic_int terminated;
    /* The first delivery waits until the producer opens the gate: by then it
     * has put more values than the capacity (half of it for block), so
     * every policy meets a full buffer, however fast the consumer (under the
     * sanitizers the slowed puts let it keep up, and nothing overflowed). */
    pthread_mutex_t gate_lock;
    pthread_cond_t gate_opened;
    int open;
} load_consumer;

static void load_open_gate(load_consumer *c) {
    pthread_mutex_lock(&c->gate_lock);
    c->open = 1;
    pthread_cond_broadcast(&c->gate_opened);
    pthread_mutex_unlock(&c->gate_lock);
}

static void load_on_next(void *ctx, const sk_value *value) {
    load_consumer *c = ctx;
    if (atomic_load(&c->delivered) == 0) {
        pthread_mutex_lock(&c->gate_lock);
        while (!c->open) {
            pthread_cond_wait(&c->gate_opened, &c->gate_lock);
        }
        pthread_mutex_unlock(&c->gate_lock);
    }
    const char *text = NULL;
    size_t length = 0;
    if (sk_value_get_string(value, &text, &length) != SK_OK) {
        atomic_fetch_add(&c->out_of_order, 1);
        return;
    }
    long n = strtol(text, NULL, 10);
    long expected = atomic_load(&c->next_expected);
    if (n < expected) {
        atomic_fetch_add(&c->out_of_order, 1);
    }
    atomic_store(&c->next_expected, n + 1);
    atomic_fetch_add(&c->delivered, 1);
    /* The slow part: about a microsecond of work per value. */
    volatile unsigned spin = 0;
    for (unsigned i = 0; i < 400; i++) {
        spin += i;
    }
}

static void load_on_end(void *ctx, const sk_value *error) {
    (void)error;
    atomic_store(&((load_consumer *)ctx)->terminated, 1);
}

static void load_on_completed(void *ctx) {
    atomic_store(&((load_consumer *)ctx)->terminated, 1);
}

typedef struct load_drops {
    atomic_long count;
    atomic_long last_count;
    atomic_long first_value; /* the first value dropped, -1 before */
    atomic_long last_value;
} load_drops;

static void load_on_drop(void *ctx, const sk_value *value, uint64_t dropped) {
    load_drops *d = ctx;
    const char *text = NULL;
    long n = sk_value_get_string(value, &text, NULL) == SK_OK ? strtol(text, NULL, 10) : -2;
    long none = -1;
    atomic_compare_exchange_strong(&d->first_value, &none, n);
    atomic_store(&d->last_value, n);
    atomic_fetch_add(&d->count, 1);
    atomic_store(&d->last_count, (long)dropped);
}

static void check_load(sk_overflow overflow, const char *what) {
    /* A fiftieth under the sanitizers, whose instrumentation slows the puts
     * and deliveries some tenfold: still twenty times the capacity. */
    const long total = SK_TEST_SANITIZED ? 20000 : 1000000, capacity = 1000;
    sk_queue *queue = serial_queue("test.bounded.load");
    sk_pipe *pipe = NULL;
    sk_signal *signal = NULL, *bounded = NULL;
    SK_OK_OR_FAIL(sk_pipe_create(&pipe, false));
    SK_OK_OR_FAIL(sk_pipe_signal(&signal, pipe));
    load_drops drops = {0};
    atomic_store(&drops.first_value, -1);
    SK_OK_OR_FAIL(sk_signal_deliver_on_bounded(&bounded, signal, queue, (size_t)capacity, overflow, load_on_drop, &drops, NULL));
    load_consumer consumer = {0};
    pthread_mutex_init(&consumer.gate_lock, NULL);
    pthread_cond_init(&consumer.gate_opened, NULL);
    const long gate_at = overflow == SK_OVERFLOW_BLOCK ? capacity / 2 : capacity + 100;
    sk_observer observer = { .ctx = &consumer, .next = load_on_next, .error = load_on_end, .completed = load_on_completed };
    sk_disposable *subscription = NULL;
    SK_OK_OR_FAIL(sk_signal_start(&subscription, bounded, &observer));
    long base = sk_live_objects();
    long most = 0;
    long sent = 0;
    char text[32];
    for (long i = 0; i < total && !atomic_load(&consumer.terminated); i++) {
        snprintf(text, sizeof text, "%ld", i);
        sk_value v = string_value(text);
        SK_OK_OR_FAIL(sk_pipe_put(pipe, &v));
        sk_value_release(&v);
        sent++;
        if (i == gate_at) {
            load_open_gate(&consumer);
        }
        if ((i & 255) == 0) {
            long live = sk_live_objects() - base;
            most = live > most ? live : most;
        }
    }
    load_open_gate(&consumer);
    SK_OK_OR_FAIL(sk_pipe_put_completion(pipe));
    flush_queue(queue);
    cr_assert(atomic_load(&consumer.terminated), "%s: the consumer saw no end", what);
    /* The values pending (at most the capacity), the one in delivery, and
     * the one being put. */
    cr_expect_leq(most, capacity + 2, "%s: %ld values held at once (capacity %ld)", what, most, capacity);
    long delivered = atomic_load(&consumer.delivered), dropped = atomic_load(&drops.count);
    cr_expect_eq(atomic_load(&consumer.out_of_order), 0, "%s: values out of order", what);
    cr_expect_eq(atomic_load(&drops.last_count), dropped, "%s: the last drop's count", what);
    if (overflow == SK_OVERFLOW_BLOCK) {
        cr_expect_eq(delivered, total, "%s: %ld of %ld delivered", what, delivered, total);
        cr_expect_eq(dropped, 0, "%s: %ld dropped", what, dropped);
    } else if (overflow == SK_OVERFLOW_ERROR) {
        /* Every value the buffer took was delivered (0 .. delivered - 1),
         * every later one dropped (delivered .. delivered + dropped - 1)
         * until the error ended the subscription; the few put after that
         * (before this thread saw the end) reached no subscriber. */
        cr_expect_eq(atomic_load(&consumer.next_expected), delivered, "%s: the values delivered are not 0..%ld", what, delivered - 1);
        cr_expect_eq(atomic_load(&drops.first_value), delivered, "%s: the first value dropped is %ld, not %ld", what, atomic_load(&drops.first_value), delivered);
        cr_expect_eq(atomic_load(&drops.last_value), delivered + dropped - 1, "%s: the drops are not contiguous", what);
        cr_expect_leq(delivered + dropped, sent, "%s: %ld delivered + %ld dropped > %ld sent", what, delivered, dropped, sent);
        cr_expect_geq(delivered, capacity, "%s: %ld delivered, fewer than the capacity", what, delivered);
    } else {
        cr_expect_eq(delivered + dropped, total, "%s: %ld delivered + %ld dropped != %ld", what, delivered, dropped, total);
    }
    if (overflow != SK_OVERFLOW_BLOCK) {
        cr_expect_gt(dropped, 0, "%s: nothing dropped: the buffer never overflowed", what);
    }
    pthread_cond_destroy(&consumer.gate_opened);
    pthread_mutex_destroy(&consumer.gate_lock);
    sk_disposable_dispose(subscription);
    sk_disposable_release(subscription);
    sk_signal_release(bounded);
    sk_signal_release(signal);
    sk_pipe_release(pipe);
    flush_queue(queue);
    sk_queue_release(queue);
    expect_no_live_objects(0);
}

Test(operators_dispatch, deliver_on_bounded_holds_at_most_its_capacity_under_load, .timeout = 2 * SK_TEST_TIMEOUT) {
    if (running_under_valgrind()) {
        return;
    }
    check_load(SK_OVERFLOW_DROP_NEWEST, "drop newest");
    check_load(SK_OVERFLOW_DROP_OLDEST, "drop oldest");
    check_load(SK_OVERFLOW_LATEST, "latest");
    check_load(SK_OVERFLOW_ERROR, "error");
    check_load(SK_OVERFLOW_BLOCK, "block");
}

static void wait_for_gate(void *ctx) {
    gate_wait(ctx, SK_TEST_TIMEOUT);
}

/* Abandonment: the handles released in every order while values wait for a
 * queue that has not run yet; live objects back to 0 once it has. */
Test(operators_dispatch, deliver_on_bounded_handles_released_in_every_order_with_values_pending, .timeout = SK_TEST_TIMEOUT) {
    static const int orders[6][3] = { {0, 1, 2}, {0, 2, 1}, {1, 0, 2}, {1, 2, 0}, {2, 0, 1}, {2, 1, 0} };
    for (size_t order = 0; order < 6; order++) {
        for (int policy = SK_OVERFLOW_DROP_NEWEST; policy <= SK_OVERFLOW_ERROR; policy++) {
            sk_queue *queue = serial_queue("test.bounded.abandon");
            gate g;
            gate_init(&g);
            /* The queue is busy until the gate opens: the values wait. */
            SK_OK_OR_FAIL(sk_queue_async(queue, wait_for_gate, &g, NULL));
            sk_pipe *pipe = NULL;
            sk_signal *signal = NULL, *bounded = NULL;
            SK_OK_OR_FAIL(sk_pipe_create(&pipe, false));
            SK_OK_OR_FAIL(sk_pipe_signal(&signal, pipe));
            SK_OK_OR_FAIL(sk_signal_deliver_on_bounded(&bounded, signal, queue, 4, (sk_overflow)policy, NULL, NULL, NULL));
            sk_observer observer = {0};
            sk_disposable *subscription = NULL;
            SK_OK_OR_FAIL(sk_signal_start(&subscription, bounded, &observer));
            for (int i = 0; i < 10; i++) {
                sk_value v = string_value("pending");
                SK_OK_OR_FAIL(sk_pipe_put(pipe, &v));
                sk_value_release(&v);
            }
            for (int step = 0; step < 3; step++) {
                switch (orders[order][step]) {
                case 0: sk_disposable_release(subscription); break;
                case 1: sk_signal_release(bounded); sk_signal_release(signal); break;
                case 2: sk_pipe_release(pipe); break;
                }
            }
            gate_open(&g);
            flush_queue(queue);
            sk_queue_release(queue);
            gate_destroy(&g);
            expect_no_live_objects(0);
        }
    }
}

/* ------------------------------------------------------------------------ */
/* sk_nowait_begin, sk_nowait_end: puts that never wait for room            */
/* ------------------------------------------------------------------------ */

/* A queue task that holds its serial queue until `open` is opened. */
typedef struct stall {
    gate open;
    counter entered;
} stall;

static void stall_run(void *ctx) {
    stall *s = ctx;
    counter_hit(&s->entered);
    cr_expect(gate_wait(&s->open, SK_WAIT_SECONDS), "the stalled queue was let go");
}

/* A deliver_on_bounded of capacity 2 (SK_OVERFLOW_BLOCK) whose consumer is
 * stalled (its serial queue held by a task until `s.open` opens), three
 * values put into its pipe inside sk_nowait_begin() scopes: the third
 * found the buffer full, and `waited` records its scope's room signal. */
typedef struct stalled_room {
    stall s;
    sk_queue *queue;
    sk_pipe *pipe;
    sk_signal *source, *buffered, *room;
    recorder values, waited;
    sk_disposable *subscription, *wait;
} stalled_room;

static void stalled_room_begin(stalled_room *t, const char *name, drop_log *drops) {
    memset(t, 0, sizeof *t);
    gate_init(&t->s.open);
    counter_init(&t->s.entered);
    SK_OK_OR_FAIL(sk_queue_create(&t->queue, name));
    SK_OK_OR_FAIL(sk_queue_async(t->queue, stall_run, &t->s, NULL));
    cr_assert(counter_wait(&t->s.entered, 1, SK_WAIT_SECONDS), "the queue is stalled");
    SK_OK_OR_FAIL(sk_pipe_create(&t->pipe, false));
    SK_OK_OR_FAIL(sk_pipe_signal(&t->source, t->pipe));
    SK_OK_OR_FAIL(sk_signal_deliver_on_bounded(&t->buffered, t->source, t->queue, 2, SK_OVERFLOW_BLOCK, drops ? drop_log_on_drop : NULL,
                                               drops, drops ? drop_log_release : NULL));
    recorder_init(&t->values);
    t->subscription = recorder_start(&t->values, t->buffered);
    for (int64_t i = 0; i < 3; i++) {
        SK_OK_OR_FAIL(sk_nowait_begin());
        pipe_put_int(t->pipe, i);
        SK_OK_OR_FAIL(sk_nowait_end(&t->room));
        if (i < 2) {
            cr_assert_null(t->room, "value %lld had room: no room signal", (long long)i);
        }
    }
    cr_assert_not_null(t->room, "the third value found the buffer full: a room signal");
    recorder_init(&t->waited);
    t->wait = recorder_start(&t->waited, t->room);
    cr_expect(!rec_terminated(&t->waited, NULL), "no room while the consumer is stalled");
}

/* Expects the room signal completed and its observer released (it waits
 * for them: they come on the thread that made room). */
static void stalled_room_expect_completed(stalled_room *t, const char *why) {
    cr_assert(recorder_wait_terminated(&t->waited), "%s", why);
    cr_assert(recorder_wait_release(&t->waited), "its observer was released");
    recorder_expect(&t->waited, "cr", NULL, 0);
}

static void stalled_room_end(stalled_room *t) {
    /* The queue's drain that delivered the last value may still hold the
     * observer (it lets go of it as it returns): after this flush it has,
     * so the dispose below is the last holder (test-c-tsan, loaded: the
     * release had not run yet at the check, once). */
    flush_queue(t->queue);
    recorder_finish(&t->waited, t->wait);
    recorder_finish(&t->values, t->subscription);
    sk_signal_release(t->room);
    sk_signal_release(t->buffered);
    sk_signal_release(t->source);
    sk_pipe_release(t->pipe);
    expect_no_live_objects(1, t->queue);
    gate_destroy(&t->s.open);
    counter_destroy(&t->s.entered);
}

/* The consumer of a deliver_on_bounded of capacity 2 (SK_OVERFLOW_BLOCK) is
 * stalled: puts made inside scopes never wait; the one that finds the
 * buffer full leaves its value beyond the capacity and its scope's room
 * signal completes only once the consumer goes on; every value arrives, in
 * order. */
Test(operators_dispatch, a_put_without_waiting_leaves_its_value_beyond_the_capacity_and_its_room_signal_completes_with_room, .timeout = SK_TEST_TIMEOUT) {
    stalled_room t;
    stalled_room_begin(&t, "nowait", NULL);
    gate_open(&t.s.open);
    stalled_room_expect_completed(&t, "the room signal completed once the consumer went on");
    cr_assert(recorder_wait_nexts(&t.values, 3));
    const int64_t expected[] = {0, 1, 2};
    recorder_expect(&t.values, "nnn", expected, 3);
    stalled_room_end(&t);
}

/* A dispose lets a producer waiting for room go at once, with the queue
 * still stalled (it waited for the queue's next drain, or for ever on a
 * queue that never runs it again), and releases the values pending then,
 * without a report and without delivering them. The producer here is a
 * put made without waiting (its room signal completes when the wait would
 * end: the same wake-up as a blocked thread's). */
Test(operators_dispatch, a_dispose_lets_a_producer_waiting_for_room_go_with_the_queue_stalled, .timeout = SK_TEST_TIMEOUT) {
    drop_log drops = {0};
    stalled_room t;
    stalled_room_begin(&t, "dispose.room", &drops);
    sk_disposable_dispose(t.subscription);
    stalled_room_expect_completed(&t, "the dispose let the waiting producer go, the queue still stalled");
    /* Puts after the dispose neither wait nor reach on_drop. */
    pipe_put_int(t.pipe, 3);
    expect_drops(&drops, NULL, 0, "disposed");
    gate_open(&t.s.open);
    flush_queue(t.queue);
    recorder_expect(&t.values, "r", NULL, 0); /* nothing delivered; the observer released */
    stalled_room_end(&t);
    cr_expect_eq(drops.released, 1, "the drop callback's release ran %d times", drops.released);
}

Test(operators_dispatch, nowait_end_without_a_scope_or_with_null_says_so, .timeout = SK_TEST_TIMEOUT) {
    sk_signal *room = (sk_signal *)&room;
    cr_expect_eq(sk_nowait_end(&room), SK_ERR_UNSUPPORTED);
    cr_expect_null(room, "room is NULL on error");
    cr_expect_str_eq(sk_last_error_message(), "sk_nowait_end: no sk_nowait_begin() scope is open on this thread");
    SK_OK_OR_FAIL(sk_nowait_begin());
    SK_OK_OR_FAIL(sk_nowait_begin());
    cr_expect_eq(sk_nowait_end(NULL), SK_ERR_NULL_ARGUMENT);
    cr_expect_str_eq(sk_last_error_message(), "sk_nowait_end: room is NULL (the scope was ended)");
    SK_OK_OR_FAIL(sk_nowait_end(&room));
    cr_expect_null(room, "a scope without puts: nothing to wait for");
    cr_expect_eq(sk_nowait_end(&room), SK_ERR_UNSUPPORTED, "both scopes were ended");
}

/* Abandonment with a room signal waiting: its place (a deliver_on_bounded
 * of capacity 2 whose queue is stalled, SK_OVERFLOW_BLOCK, five values put
 * without waiting) and the room signal's own subscription; the five handles
 * (the subscription, the bounded signal with its source, the pipe, the room
 * signal, the room's subscription) released in each of their 120 orders,
 * none disposed, then the queue let go: the place is freed once its drain
 * ends (the room signal does not keep it alive), the room signal completes
 * (a freed place has nothing to wait for), its observer is released once,
 * and nothing is left alive. */
Test(operators_dispatch, room_signals_and_their_places_released_in_every_order_while_waiting, .timeout = 2 * SK_TEST_TIMEOUT) {
    int order[5] = {0, 1, 2, 3, 4};
    int orders = 0;
    do {
        sk_queue *queue = NULL;
        SK_OK_OR_FAIL(sk_queue_create(&queue, "nowait.abandon"));
        gate g;
        gate_init(&g);
        SK_OK_OR_FAIL(sk_queue_async(queue, wait_for_gate, &g, NULL));
        sk_pipe *pipe = NULL;
        sk_signal *signal = NULL, *bounded = NULL, *room = NULL;
        SK_OK_OR_FAIL(sk_pipe_create(&pipe, false));
        SK_OK_OR_FAIL(sk_pipe_signal(&signal, pipe));
        SK_OK_OR_FAIL(sk_signal_deliver_on_bounded(&bounded, signal, queue, 2, SK_OVERFLOW_BLOCK, NULL, NULL, NULL));
        sk_observer observer = {0};
        sk_disposable *subscription = NULL;
        SK_OK_OR_FAIL(sk_signal_start(&subscription, bounded, &observer));
        for (int i = 0; i < 5; i++) {
            sk_signal *scope_room = NULL;
            SK_OK_OR_FAIL(sk_nowait_begin());
            sk_value v = string_value("waiting");
            SK_OK_OR_FAIL(sk_pipe_put(pipe, &v));
            sk_value_release(&v);
            SK_OK_OR_FAIL(sk_nowait_end(&scope_room));
            if (scope_room != NULL) {
                sk_signal_release(room);
                room = scope_room;
            }
        }
        cr_assert_not_null(room, "the puts beyond the capacity got a room signal");
        recorder waited;
        recorder_init(&waited);
        sk_observer counted = recorder_observer(&waited);
        sk_disposable *room_subscription = NULL;
        SK_OK_OR_FAIL(sk_signal_start(&room_subscription, room, &counted));
        cr_expect(!rec_terminated(&waited, NULL), "no room while the queue is stalled");
        for (int step = 0; step < 5; step++) {
            switch (order[step]) {
            case 0: sk_disposable_release(subscription); break;
            case 1: sk_signal_release(bounded); sk_signal_release(signal); break;
            case 2: sk_pipe_release(pipe); break;
            case 3: sk_signal_release(room); break;
            case 4: sk_disposable_release(room_subscription); break;
            }
        }
        gate_open(&g);
        cr_assert(recorder_wait_release(&waited), "order %d %d %d %d %d: the room signal ended", order[0], order[1],
                  order[2], order[3], order[4]);
        recorder_expect(&waited, "cr", NULL, 0);
        recorder_destroy(&waited);
        flush_queue(queue);
        sk_queue_release(queue);
        gate_destroy(&g);
        expect_no_live_objects(0);
        orders++;
    } while (next_permutation(order, 5));
    cr_expect_eq(orders, 120);
}
