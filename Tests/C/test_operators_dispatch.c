/* test_operators_dispatch.c - deliver-on and run-on (the C layer's
 * Operators_Dispatch.swift): on which thread and queue events are delivered
 * and the upstream is started, and what a disposal drops. */

#include <signalkit_test.h>

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
