/* test_queues.c - serial, global and host-drained queues; timers. */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/resource.h>
#include <unistd.h>

#include <signalkit_test.h>

#include "support.h"

/* A unit of work that records where and in what order it ran. */
typedef struct job {
    sk_queue *queue;      /* the queue it should run on (borrowed) */
    counter ran;
    counter released;
    bool on_queue;        /* sk_queue_is_current(queue) inside */
    pthread_t thread;     /* the thread it ran on */
    int released_before_run; /* the release came before the work: a bug */
} job;

static void job_init(job *j, sk_queue *queue) {
    memset(j, 0, sizeof *j);
    j->queue = queue;
    counters_init(2, &j->ran, &j->released);
}

static void job_destroy(job *j) {
    counters_destroy(2, &j->ran, &j->released);
}

static void job_run(void *ctx) {
    job *j = ctx;
    j->on_queue = sk_queue_is_current(j->queue);
    j->thread = pthread_self();
    counter_hit(&j->ran);
}

static void job_release(void *ctx) {
    job *j = ctx;
    if (counter_get(&j->ran) == 0) {
        j->released_before_run++;
    }
    counter_hit(&j->released);
}

/* Waits for the work and its release, and checks both ran exactly once. */
static void expect_job_done(job *j) {
    cr_assert(counter_wait(&j->released, 1, SK_WAIT_SECONDS), "the release did not run");
    cr_assert_eq(counter_get(&j->ran), 1, "the work ran %d times", counter_get(&j->ran));
    cr_assert_eq(counter_get(&j->released), 1, "the release ran %d times", counter_get(&j->released));
    cr_assert_eq(j->released_before_run, 0, "the release ran before the work");
}

/* After a submission of `j` that must have failed: asserts that `status` is
 * `expected`, that the release ran once and, once `queue` is flushed, that
 * the work never ran; then destroys `j`. `what` names the case. */
static void expect_failed_submission(job *j, sk_queue *queue, int status, int expected, const char *what) {
    cr_assert_eq(status, expected, "%s: %d", what, status);
    cr_assert_eq(counter_get(&j->released), 1, "%s: release ran %d times", what, counter_get(&j->released));
    flush_queue(queue);
    cr_assert_eq(counter_get(&j->ran), 0, "%s: the work ran", what);
    job_destroy(j);
}

/* ------------------------------------------------------------------------ */
/* Serial queues                                                             */
/* ------------------------------------------------------------------------ */

Test(queues, serial_async_runs_on_the_queue, .timeout = SK_TEST_TIMEOUT) {
    sk_queue *queue = serial_queue("test.serial");
    cr_assert(!sk_queue_is_current(queue), "the test thread is not the queue");
    cr_assert(!sk_queue_is_current(NULL));
    job j;
    job_init(&j, queue);
    SK_OK_OR_FAIL(sk_queue_async(queue, job_run, &j, job_release));
    expect_job_done(&j);
    cr_assert(j.on_queue, "sk_queue_is_current was false inside the work");
    cr_assert(!pthread_equal(j.thread, pthread_self()), "async ran on the calling thread");
    job_destroy(&j);
    expect_no_live_objects(1, queue);
}

static int64_t order_log[200];
static size_t order_count;

static void append_order(void *ctx) {
    order_log[order_count++] = (int64_t)(intptr_t)ctx;
}

Test(queues, serial_async_keeps_order, .timeout = SK_TEST_TIMEOUT) {
    sk_queue *queue = serial_queue(NULL);
    for (intptr_t i = 0; i < 200; i++) {
        SK_OK_OR_FAIL(sk_queue_async(queue, append_order, (void *)i, NULL));
    }
    flush_queue(queue); /* a sync after them: they have all run */
    cr_assert_eq(order_count, 200);
    for (size_t i = 0; i < 200; i++) {
        cr_assert_eq(order_log[i], (int64_t)i, "position %zu", i);
    }
    expect_no_live_objects(1, queue);
}

Test(queues, serial_sync_runs_on_the_queue_and_waits, .timeout = SK_TEST_TIMEOUT) {
    sk_queue *queue = serial_queue("test.sync");
    job j;
    job_init(&j, queue);
    SK_OK_OR_FAIL(sk_queue_sync(queue, job_run, &j, job_release));
    cr_assert_eq(counter_get(&j.ran), 1, "sync returned before the work ran");
    expect_job_done(&j);
    cr_assert(j.on_queue);
    job_destroy(&j);
    expect_no_live_objects(1, queue);
}

/* Work that, running on its queue, calls async / sync on the same queue:
 * both run inline, before the call returns. */
typedef struct nested {
    sk_queue *queue;
    int inner_ran;
    int inner_ran_before_return_async;
    int inner_ran_before_return_sync;
    bool inner_on_queue;
} nested;

static void inner_work(void *ctx) {
    nested *n = ctx;
    n->inner_ran++;
    n->inner_on_queue = sk_queue_is_current(n->queue);
}

static void outer_work(void *ctx) {
    nested *n = ctx;
    SK_OK_OR_ABORT(sk_queue_async(n->queue, inner_work, n, NULL));
    n->inner_ran_before_return_async = n->inner_ran;
    SK_OK_OR_ABORT(sk_queue_sync(n->queue, inner_work, n, NULL));
    n->inner_ran_before_return_sync = n->inner_ran;
}

Test(queues, async_and_sync_inline_when_already_current, .timeout = SK_TEST_TIMEOUT) {
    sk_queue *queue = serial_queue(NULL);
    nested n;
    memset(&n, 0, sizeof n);
    n.queue = queue;
    SK_OK_OR_FAIL(sk_queue_sync(queue, outer_work, &n, NULL));
    cr_assert_eq(n.inner_ran_before_return_async, 1, "async from the queue itself did not run inline");
    cr_assert_eq(n.inner_ran_before_return_sync, 2, "sync from the queue itself did not run inline");
    cr_assert(n.inner_on_queue);
    expect_no_live_objects(1, queue);
}

/* sk_queue_sync(first) whose work syncs onto second, whose work syncs onto
 * first again: the thread holds first through the outer sync, so the
 * innermost work runs inline, at once (libdispatch stopped the process:
 * SIGILL, a dispatch_sync onto a queue the thread already owns). Inside,
 * sk_queue_is_current keeps its meaning: only second is current. The same
 * through a concurrent queue, whose sync runs the work on the calling
 * thread and holds nothing. */
typedef struct nested_pair {
    sk_queue *first;
    sk_queue *second;
    sk_queue *concurrent;
    int inner_ran;
    /* For each run of the innermost work: whether first, second were current. */
    bool current[2][2];
} nested_pair;

static void pair_innermost(void *ctx) {
    nested_pair *p = ctx;
    if (p->inner_ran < 2) {
        p->current[p->inner_ran][0] = sk_queue_is_current(p->first);
        p->current[p->inner_ran][1] = sk_queue_is_current(p->second);
    }
    p->inner_ran++;
}

static void pair_middle(void *ctx) {
    nested_pair *p = ctx;
    SK_OK_OR_ABORT(sk_queue_sync(p->first, pair_innermost, p, NULL));
}

static void pair_outer(void *ctx) {
    nested_pair *p = ctx;
    SK_OK_OR_ABORT(sk_queue_sync(p->second, pair_middle, p, NULL));
    SK_OK_OR_ABORT(sk_queue_sync(p->concurrent, pair_middle, p, NULL));
}

Test(queues, sync_nested_through_another_queue_back_onto_the_outer_one_runs_inline, .timeout = SK_TEST_TIMEOUT) {
    nested_pair p;
    memset(&p, 0, sizeof p);
    p.first = serial_queue("nested.first");
    p.second = serial_queue("nested.second");
    SK_OK_OR_FAIL(sk_queue_concurrent_default(&p.concurrent));
    SK_OK_OR_FAIL(sk_queue_sync(p.first, pair_outer, &p, NULL));
    cr_assert_eq(p.inner_ran, 2, "the innermost work ran %d times", p.inner_ran);
    cr_assert(!p.current[0][0] && p.current[0][1], "through second: first current %d, second current %d",
              p.current[0][0], p.current[0][1]);
    cr_assert(!p.current[1][0] && !p.current[1][1], "through the concurrent queue: first current %d, second current %d",
              p.current[1][0], p.current[1][1]);
    sk_queue_release(p.concurrent);
    expect_no_live_objects(2, p.first, p.second);
}

Test(queues, after_runs_later_on_the_queue, .timeout = SK_TEST_TIMEOUT) {
    sk_queue *queue = serial_queue(NULL);
    job j;
    job_init(&j, queue);
    double start = now_seconds();
    SK_OK_OR_FAIL(sk_queue_after(queue, 0.05, job_run, &j, job_release));
    cr_assert(counter_wait(&j.ran, 1, SK_WAIT_SECONDS), "the work did not run within the deadline");
    double elapsed = now_seconds() - start;
    cr_assert_geq(elapsed, 0.04, "ran after %.3f s, asked for 0.05 s", elapsed);
    expect_job_done(&j);
    cr_assert(j.on_queue);
    job_destroy(&j);

    job zero;
    job_init(&zero, queue);
    SK_OK_OR_FAIL(sk_queue_after(queue, 0, job_run, &zero, job_release));
    expect_job_done(&zero);
    cr_assert(zero.on_queue);
    job_destroy(&zero);
    expect_no_live_objects(1, queue);
}

/* The error names the duration refused: a NaN as NaN (not "negative"). */
Test(queues, after_rejects_negative_and_nan, .timeout = SK_TEST_TIMEOUT) {
    sk_queue *queue = serial_queue(NULL);
    const double bad[] = { -0.001, -1, NAN, -INFINITY };
    const char *named[] = { "seconds is -0.001:", "seconds is -1.0:", "seconds is NaN:", "seconds is -inf:" };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        job j;
        job_init(&j, queue);
        cr_assert_eq(sk_queue_after(queue, bad[i], job_run, &j, job_release), SK_ERR_INVALID_ARGUMENT, "seconds %g", bad[i]);
        cr_assert_not_null(strstr(sk_last_error_message(), named[i]), "seconds %g: %s", bad[i], sk_last_error_message());
        cr_assert_eq(counter_get(&j.released), 1, "release did not run when the call failed");
        flush_queue(queue);
        cr_assert_eq(counter_get(&j.ran), 0, "the work ran although the call failed");
        job_destroy(&j);
    }
    expect_no_live_objects(1, queue);
}

/* Every submitting function with a NULL or wrong queue, or a NULL fn: an
 * error, the work never runs, the release runs once before the return. */
Test(queues, submit_errors_run_release, .timeout = SK_TEST_TIMEOUT) {
    sk_signal *not_a_queue = made_signal(sk_signal_never);
    sk_queue *queue = serial_queue(NULL);
    for (int which = 0; which < 3; which++) {
        for (int mistake = 0; mistake < 3; mistake++) {
            job j;
            job_init(&j, queue);
            sk_queue *target = mistake == 0 ? NULL : mistake == 1 ? (sk_queue *)(void *)not_a_queue : queue;
            sk_work_fn fn = mistake == 2 ? NULL : job_run;
            int expected = mistake == 1 ? SK_ERR_WRONG_KIND : SK_ERR_NULL_ARGUMENT;
            int status;
            switch (which) {
            case 0: status = sk_queue_async(target, fn, &j, job_release); break;
            case 1: status = sk_queue_sync(target, fn, &j, job_release); break;
            default: status = sk_queue_after(target, 0, fn, &j, job_release); break;
            }
            char what[48];
            snprintf(what, sizeof what, "function %d, mistake %d", which, mistake);
            expect_failed_submission(&j, queue, status, expected, what);
        }
    }
    sk_signal_release(not_a_queue);
    expect_no_live_objects(1, queue);
}

Test(queues, create_and_global_queues, .timeout = SK_TEST_TIMEOUT) {
    cr_assert_eq(sk_queue_create(NULL, "x"), SK_ERR_NULL_ARGUMENT);
    cr_assert_eq(sk_queue_create_host(NULL, "x"), SK_ERR_NULL_ARGUMENT);
    cr_assert_eq(sk_queue_main(NULL), SK_ERR_NULL_ARGUMENT);
    cr_assert_eq(sk_queue_concurrent_default(NULL), SK_ERR_NULL_ARGUMENT);
    cr_assert_eq(sk_queue_concurrent_background(NULL), SK_ERR_NULL_ARGUMENT);

    sk_queue *main_queue = NULL, *def = NULL, *background = NULL;
    SK_OK_OR_FAIL(sk_queue_main(&main_queue));
    SK_OK_OR_FAIL(sk_queue_concurrent_default(&def));
    SK_OK_OR_FAIL(sk_queue_concurrent_background(&background));
    cr_assert_not_null(main_queue);

    sk_queue *globals[] = { def, background };
    for (size_t i = 0; i < 2; i++) {
        job j;
        job_init(&j, globals[i]);
        SK_OK_OR_FAIL(sk_queue_async(globals[i], job_run, &j, job_release));
        expect_job_done(&j);
        cr_assert(!pthread_equal(j.thread, pthread_self()));
        job_destroy(&j);
        job s;
        job_init(&s, globals[i]);
        SK_OK_OR_FAIL(sk_queue_sync(globals[i], job_run, &s, job_release));
        cr_assert_eq(counter_get(&s.ran), 1);
        expect_job_done(&s);
        job_destroy(&s);
    }
    EXPECT_RETAIN_RELEASE(sk_queue_retain, sk_queue_release, def);
    /* Releasing the shared queues is harmless. */
    sk_queue_release(main_queue);
    sk_queue_release(def);
    sk_queue_release(background);
    SK_OK_OR_FAIL(sk_queue_concurrent_default(&def));
    job again;
    job_init(&again, def);
    SK_OK_OR_FAIL(sk_queue_async(def, job_run, &again, job_release));
    expect_job_done(&again);
    job_destroy(&again);
    sk_queue_release(def);
    expect_no_live_objects(0);
}

/* ------------------------------------------------------------------------ */
/* Host-drained queues                                                       */
/* ------------------------------------------------------------------------ */

/* Drains `host` (at most `max_tasks` tasks; 0: all that are pending) and
 * asserts that the drain said it ran `expected` of them; `why` (may be NULL)
 * is for the message. */
static void drain_expect(sk_queue *host, size_t max_tasks, size_t expected, const char *why) {
    size_t ran = SIZE_MAX;
    SK_OK_OR_FAIL(sk_queue_host_drain(host, max_tasks, &ran));
    cr_assert_eq(ran, expected, "the drain ran %zu tasks, not %zu%s%s", ran, expected, why != NULL ? ": " : "",
                 why != NULL ? why : "");
}

Test(queues, host_fd_readable_while_work_pending, .timeout = SK_TEST_TIMEOUT) {
    sk_queue *host = host_queue("test.host");
    int fd = host_queue_fd(host);
    int again = -1;
    SK_OK_OR_FAIL(sk_queue_host_fd(host, &again));
    cr_assert_eq(again, fd, "the descriptor changed");
    cr_assert(!fd_readable_now(fd), "readable with nothing pending");

    job j;
    job_init(&j, host);
    SK_OK_OR_FAIL(sk_queue_async(host, job_run, &j, job_release));
    cr_assert(fd_readable_now(fd), "not readable after async");
    cr_assert(fd_readable_now(fd), "reading readiness consumed it");
    cr_assert_eq(counter_get(&j.ran), 0, "host work ran outside a drain");

    drain_expect(host, 0, 1, NULL);
    cr_assert_eq(counter_get(&j.ran), 1);
    cr_assert(pthread_equal(j.thread, pthread_self()), "drained work ran on another thread");
    cr_assert(j.on_queue, "sk_queue_is_current false inside a drain");
    cr_assert(!sk_queue_is_current(host), "still current after the drain");
    cr_assert(!fd_readable_now(fd), "still readable after draining everything");
    expect_job_done(&j);

    /* Nothing pending: a drain runs nothing. */
    drain_expect(host, 0, 0, NULL);
    SK_OK_OR_FAIL(sk_queue_host_drain(host, 0, NULL));
    job_destroy(&j);
    expect_no_live_objects(1, host);
}

Test(queues, host_drain_max_tasks, .timeout = SK_TEST_TIMEOUT) {
    sk_queue *host = host_queue(NULL);
    int fd = host_queue_fd(host);
    order_count = 0;
    for (intptr_t i = 0; i < 5; i++) {
        SK_OK_OR_FAIL(sk_queue_async(host, append_order, (void *)i, NULL));
    }
    drain_expect(host, 2, 2, NULL);
    cr_assert_eq(order_count, 2);
    cr_assert(fd_readable_now(fd), "work is still pending");
    drain_expect(host, 1, 1, NULL);
    drain_expect(host, 10, 2, "max_tasks above the pending count runs what is pending");
    cr_assert(!fd_readable_now(fd));
    cr_assert_eq(order_count, 5);
    for (size_t i = 0; i < 5; i++) {
        cr_assert_eq(order_log[i], (int64_t)i, "host queue order at %zu", i);
    }
    expect_no_live_objects(1, host);
}

/* A task that enqueues more work onto its own queue from another thread
 * (where the queue is not current, so the work is really enqueued) and
 * waits until it is enqueued. */
typedef struct requeue {
    sk_queue *host;
    counter second_ran;
    int second_ran_during_first;
} requeue;

static void second_task(void *ctx) {
    counter_hit(&((requeue *)ctx)->second_ran);
}

static void *enqueue_second(void *arg) {
    requeue *q = arg;
    SK_OK_OR_ABORT(sk_queue_async(q->host, second_task, q, NULL));
    return NULL;
}

static void first_task(void *ctx) {
    requeue *q = ctx;
    pthread_t thread;
    if (pthread_create(&thread, NULL, enqueue_second, q) != 0) {
        abort();
    }
    pthread_join(thread, NULL);
    q->second_ran_during_first = counter_get(&q->second_ran);
}

Test(queues, host_work_enqueued_during_drain_waits_for_next_drain, .timeout = SK_TEST_TIMEOUT) {
    sk_queue *host = host_queue(NULL);
    int fd = host_queue_fd(host);
    requeue q;
    memset(&q, 0, sizeof q);
    q.host = host;
    counter_init(&q.second_ran);
    SK_OK_OR_FAIL(sk_queue_async(host, first_task, &q, NULL));
    drain_expect(host, 0, 1, "the drain ran work enqueued while it ran");
    cr_assert_eq(counter_get(&q.second_ran), 0);
    cr_assert(fd_readable_now(fd), "the new work is pending: the fd must be readable");
    drain_expect(host, 0, 1, NULL);
    cr_assert_eq(counter_get(&q.second_ran), 1);
    cr_assert(!fd_readable_now(fd));
    counter_destroy(&q.second_ran);
    expect_no_live_objects(1, host);
}

/* An edge-triggered epoll set watching `fd` (readable). */
static int watch_edges(int fd) {
    int ep = epoll_create1(EPOLL_CLOEXEC);
    cr_assert_geq(ep, 0, "epoll_create1: %s", strerror(errno));
    struct epoll_event event = {.events = EPOLLIN | EPOLLET, .data.fd = fd};
    cr_assert_eq(epoll_ctl(ep, EPOLL_CTL_ADD, fd, &event), 0, "epoll_ctl: %s", strerror(errno));
    return ep;
}

/* How many edges `ep` reports now (0 or 1), without waiting. */
static int edges_now(int ep) {
    struct epoll_event event;
    int n = epoll_wait(ep, &event, 1, 0);
    cr_assert_geq(n, 0, "epoll_wait: %s", strerror(errno));
    return n;
}

/* signalkit.h, sk_queue_create_host(): an edge-triggered watcher may drain
 * once per event. Before, the descriptor was signalled only when work came
 * to an empty queue: a drain that left work (beyond max_tasks, or enqueued
 * meanwhile) gave no new edge, and the queue never became empty again. */
Test(queues, host_fd_gives_an_edge_for_each_drain_that_leaves_work, .timeout = SK_TEST_TIMEOUT) {
    sk_queue *host = host_queue(NULL);
    int ep = watch_edges(host_queue_fd(host));
    order_count = 0;
    cr_assert_eq(edges_now(ep), 0);
    for (intptr_t i = 0; i < 3; i++) {
        SK_OK_OR_FAIL(sk_queue_async(host, append_order, (void *)i, NULL));
    }
    cr_assert_eq(edges_now(ep), 1, "no edge when work came");
    cr_assert_eq(edges_now(ep), 0, "an edge twice for one signal");
    drain_expect(host, 1, 1, NULL);
    cr_assert_eq(edges_now(ep), 1, "no edge after a drain that left work beyond max_tasks");
    drain_expect(host, 0, 2, NULL);
    cr_assert_eq(edges_now(ep), 0, "an edge after a drain that left nothing");

    /* Work enqueued by another thread during a drain, while the queue held
     * work still to run. */
    requeue q;
    memset(&q, 0, sizeof q);
    q.host = host;
    counter_init(&q.second_ran);
    SK_OK_OR_FAIL(sk_queue_async(host, first_task, &q, NULL));
    SK_OK_OR_FAIL(sk_queue_async(host, append_order, (void *)3, NULL));
    cr_assert_eq(edges_now(ep), 1);
    drain_expect(host, 0, 2, NULL);
    cr_assert_eq(counter_get(&q.second_ran), 0);
    cr_assert_eq(edges_now(ep), 1, "no edge for the work enqueued during the drain");
    drain_expect(host, 0, 1, NULL);
    cr_assert_eq(counter_get(&q.second_ran), 1);
    cr_assert_eq(edges_now(ep), 0);
    cr_assert_eq(order_count, 4);
    close(ep);
    counter_destroy(&q.second_ran);
    expect_no_live_objects(1, host);
}

/* The same with sk_queue_after(0) from inside the task. */
typedef struct after_inside {
    sk_queue *host;
    counter later;
} after_inside;

static void later_task(void *ctx) {
    counter_hit(&((after_inside *)ctx)->later);
}

static void schedule_later(void *ctx) {
    after_inside *a = ctx;
    SK_OK_OR_ABORT(sk_queue_after(a->host, 0, later_task, a, NULL));
}

Test(queues, host_after_from_a_task_runs_in_a_later_drain, .timeout = SK_TEST_TIMEOUT) {
    sk_queue *host = host_queue(NULL);
    int fd = host_queue_fd(host);
    after_inside a;
    a.host = host;
    counter_init(&a.later);
    SK_OK_OR_FAIL(sk_queue_async(host, schedule_later, &a, NULL));
    drain_expect(host, 0, 1, NULL);
    cr_assert_eq(counter_get(&a.later), 0, "after(0) ran inside the drain that scheduled it");
    cr_assert(fd_wait_readable(fd, SK_WAIT_SECONDS), "the fd never became readable");
    drain_expect(host, 0, 1, NULL);
    cr_assert_eq(counter_get(&a.later), 1);
    cr_assert(pthread_equal(a.later.last_thread, pthread_self()));
    counter_destroy(&a.later);
    expect_no_live_objects(1, host);
}

/* sk_queue_async from a task of the host queue runs inline: the queue is current. */
typedef struct host_inline {
    sk_queue *host;
    int inner;
    int inner_before_return;
} host_inline;

static void host_inner(void *ctx) {
    ((host_inline *)ctx)->inner++;
}

static void host_outer(void *ctx) {
    host_inline *h = ctx;
    SK_OK_OR_ABORT(sk_queue_async(h->host, host_inner, h, NULL));
    h->inner_before_return = h->inner;
    SK_OK_OR_ABORT(sk_queue_sync(h->host, host_inner, h, NULL));
}

Test(queues, host_async_inline_when_current, .timeout = SK_TEST_TIMEOUT) {
    sk_queue *host = host_queue(NULL);
    host_inline h;
    memset(&h, 0, sizeof h);
    h.host = host;
    SK_OK_OR_FAIL(sk_queue_async(host, host_outer, &h, NULL));
    drain_expect(host, 0, 1, NULL);
    cr_assert_eq(h.inner_before_return, 1);
    cr_assert_eq(h.inner, 2, "sync from the host queue's own task did not run inline");
    cr_assert(!fd_readable_now(host_queue_fd(host)));
    expect_no_live_objects(1, host);
}

/* sk_queue_sync on a host queue from another thread waits for the drain. */
typedef struct sync_waiter {
    sk_queue *host;
    job j;
    int returned;
} sync_waiter;

static void *sync_from_thread(void *arg) {
    sync_waiter *w = arg;
    SK_OK_OR_ABORT(sk_queue_sync(w->host, job_run, &w->j, job_release));
    __atomic_store_n(&w->returned, 1, __ATOMIC_SEQ_CST);
    return NULL;
}

/* Repeated so that a race in the hand-over shows up. */
#define HOST_SYNC_ROUNDS 2000

Test(queues, host_sync_from_another_thread_waits_for_drain, .timeout = SK_TEST_TIMEOUT) {
    sk_queue *host = host_queue(NULL);
    int fd = host_queue_fd(host);
    for (int round = 0; round < HOST_SYNC_ROUNDS; round++) {
        sync_waiter w;
        memset(&w, 0, sizeof w);
        w.host = host;
        job_init(&w.j, host);
        pthread_t thread;
        cr_assert_eq(pthread_create(&thread, NULL, sync_from_thread, &w), 0);
        cr_assert(fd_wait_readable(fd, SK_WAIT_SECONDS), "the sync's work never became pending");
        cr_assert_eq(__atomic_load_n(&w.returned, __ATOMIC_SEQ_CST), 0, "sync returned before the drain");
        drain_expect(host, 0, 1, NULL);
        pthread_join(thread, NULL);
        cr_assert_eq(w.returned, 1);
        cr_assert(pthread_equal(w.j.thread, pthread_self()), "the work ran on the draining thread");
        cr_assert(w.j.on_queue);
        expect_job_done(&w.j);
        job_destroy(&w.j);
    }
    expect_no_live_objects(1, host);
}

/* The release of work scheduled with sk_queue_after on a host queue runs
 * with the work, on the draining thread, before the drain returns. Repeated:
 * the failure is a race (about 1 in 1000 rounds). */
static int release_thread_ok;
static int release_count;

static void note_release(void *ctx) {
    (void)ctx;
    __atomic_add_fetch(&release_count, 1, __ATOMIC_SEQ_CST);
    if (!pthread_equal(pthread_self(), *(pthread_t *)ctx)) {
        __atomic_store_n(&release_thread_ok, 0, __ATOMIC_SEQ_CST);
    }
}

static void nothing_work(void *ctx) {
    (void)ctx;
}

Test(queues, host_after_release_runs_on_the_draining_thread, .timeout = SK_TEST_TIMEOUT) {
    sk_queue *host = host_queue(NULL);
    int fd = host_queue_fd(host);
    pthread_t self = pthread_self();
    release_thread_ok = 1;
    for (int round = 0; round < 20000; round++) {
        release_count = 0;
        SK_OK_OR_FAIL(sk_queue_after(host, 0, nothing_work, &self, note_release));
        cr_assert(fd_wait_readable(fd, SK_WAIT_SECONDS));
        SK_OK_OR_FAIL(sk_queue_host_drain(host, 0, NULL));
        cr_assert_eq(__atomic_load_n(&release_count, __ATOMIC_SEQ_CST), 1,
                     "round %d: the release had not run when the drain returned", round);
        cr_assert(__atomic_load_n(&release_thread_ok, __ATOMIC_SEQ_CST), "round %d: released on another thread", round);
    }
    expect_no_live_objects(1, host);
}

/* Work put on a host queue with sk_queue_async from another thread: its
 * release runs with it, on the draining thread, even when the submitting
 * thread is still inside sk_queue_async when the drain runs the work. */
typedef struct async_submitter {
    sk_queue *host;
    pthread_t *drainer;
    int rounds;
    int failures;
} async_submitter;

static void *submit_async_works(void *arg) {
    async_submitter *a = arg;
    for (int i = 0; i < a->rounds; i++) {
        if (sk_queue_async(a->host, nothing_work, a->drainer, note_release) != SK_OK) {
            a->failures++;
        }
    }
    return NULL;
}

Test(queues, host_async_release_runs_on_the_draining_thread, .timeout = SK_TEST_TIMEOUT) {
    sk_queue *host = host_queue(NULL);
    pthread_t self = pthread_self();
    release_thread_ok = 1;
    release_count = 0;
    async_submitter a = { host, &self, 20000, 0 };
    pthread_t thread;
    cr_assert_eq(pthread_create(&thread, NULL, submit_async_works, &a), 0);
    double deadline = now_seconds() + SK_WAIT_SECONDS;
    while (__atomic_load_n(&release_count, __ATOMIC_SEQ_CST) < a.rounds && now_seconds() < deadline) {
        fd_wait_readable(host_queue_fd(host), 0.1);
        SK_OK_OR_FAIL(sk_queue_host_drain(host, 0, NULL));
    }
    pthread_join(thread, NULL);
    cr_assert_eq(a.failures, 0);
    cr_assert_eq(__atomic_load_n(&release_count, __ATOMIC_SEQ_CST), a.rounds);
    cr_assert(__atomic_load_n(&release_thread_ok, __ATOMIC_SEQ_CST), "a release ran on the submitting thread");
    expect_no_live_objects(1, host);
}

/* A drain called from one of the queue's own tasks is busy too (drains do
 * not nest), and says so: its message used to name another thread. */
typedef struct nested_drain {
    sk_queue *host;
    int status;
    size_t ran;
    char message[256];
} nested_drain;

/* A host-drained queue's task that syncs onto a virtual-time queue, whose
 * work syncs back onto the host queue, on the draining thread: the
 * innermost work runs inline (it waited for ever for a drain, this
 * thread's own: the virtual queue's sync had made that queue current).
 * Inside, only the virtual queue is current. */
typedef struct host_through_virtual {
    sk_queue *host;
    sk_queue *virtual_queue;
    int ran;
    bool host_current;
    bool virtual_current;
} host_through_virtual;

static void htv_inner(void *ctx) {
    host_through_virtual *p = ctx;
    p->ran++;
    p->host_current = sk_queue_is_current(p->host);
    p->virtual_current = sk_queue_is_current(p->virtual_queue);
}

static void htv_middle(void *ctx) {
    host_through_virtual *p = ctx;
    SK_OK_OR_ABORT(sk_queue_sync(p->host, htv_inner, p, NULL));
}

static void htv_task(void *ctx) {
    host_through_virtual *p = ctx;
    SK_OK_OR_ABORT(sk_queue_sync(p->virtual_queue, htv_middle, p, NULL));
}

Test(queues, host_task_syncing_back_through_a_virtual_queue_runs_inline, .timeout = SK_TEST_TIMEOUT) {
    host_through_virtual p;
    memset(&p, 0, sizeof p);
    p.host = host_queue(NULL);
    SK_OK_OR_FAIL(sk_queue_create_virtual(&p.virtual_queue, "through"));
    SK_OK_OR_FAIL(sk_queue_async(p.host, htv_task, &p, NULL));
    drain_expect(p.host, 0, 1, "the task syncing through the virtual queue");
    cr_assert_eq(p.ran, 1, "the innermost work ran %d times", p.ran);
    cr_assert(!p.host_current && p.virtual_current, "inside: host current %d, virtual current %d", p.host_current,
              p.virtual_current);
    sk_queue_release(p.virtual_queue);
    expect_no_live_objects(1, p.host);
}

static void drain_from_a_task(void *ctx) {
    nested_drain *n = ctx;
    n->ran = 99;
    n->status = sk_queue_host_drain(n->host, 0, &n->ran);
    snprintf(n->message, sizeof n->message, "%s", sk_last_error_message());
}

Test(queues, host_drain_from_its_own_task_is_busy_and_says_so, .timeout = SK_TEST_TIMEOUT) {
    sk_queue *host = host_queue(NULL);
    nested_drain n;
    memset(&n, 0, sizeof n);
    n.host = host;
    SK_OK_OR_FAIL(sk_queue_async(host, drain_from_a_task, &n, NULL));
    drain_expect(host, 0, 1, NULL);
    cr_assert_eq(n.status, SK_ERR_BUSY, "a nested drain returned %d", n.status);
    cr_assert_eq(n.ran, 0, "out_ran must be 0 when busy");
    cr_assert_not_null(strstr(n.message, "this thread is draining this queue already"), "%s", n.message);
    expect_no_live_objects(1, host);
}

/* SK_ERR_BUSY: one thread is inside a task of a drain; another drains. */
typedef struct busy {
    sk_queue *host;
    gate inside;  /* the first drain's task has started */
    gate proceed; /* the task may return */
    int first_status;
    size_t first_ran;
} busy;

static void blocking_task(void *ctx) {
    busy *b = ctx;
    gate_open(&b->inside);
    gate_wait(&b->proceed, SK_WAIT_SECONDS);
}

static void *drain_on_thread(void *arg) {
    busy *b = arg;
    b->first_status = sk_queue_host_drain(b->host, 0, &b->first_ran);
    return NULL;
}

Test(queues, host_drain_busy_on_a_second_thread, .timeout = SK_TEST_TIMEOUT) {
    sk_queue *host = host_queue(NULL);
    busy b;
    memset(&b, 0, sizeof b);
    b.host = host;
    gate_init(&b.inside);
    gate_init(&b.proceed);
    SK_OK_OR_FAIL(sk_queue_async(host, blocking_task, &b, NULL));
    pthread_t thread;
    cr_assert_eq(pthread_create(&thread, NULL, drain_on_thread, &b), 0);
    cr_assert(gate_wait(&b.inside, SK_WAIT_SECONDS), "the first drain never ran its task");

    job j;
    job_init(&j, host);
    SK_OK_OR_FAIL(sk_queue_async(host, job_run, &j, job_release));
    size_t ran = 99;
    int status = sk_queue_host_drain(host, 0, &ran);
    cr_assert_eq(status, SK_ERR_BUSY, "a concurrent drain returned %d", status);
    cr_assert_eq(ran, 0, "out_ran must be 0 when busy");
    cr_assert_eq(counter_get(&j.ran), 0, "a busy drain ran work");
    cr_assert_not_null(strstr(sk_last_error_message(), "sk_queue_host_drain"));

    gate_open(&b.proceed);
    pthread_join(thread, NULL);
    cr_assert_eq(b.first_status, SK_OK);
    cr_assert_eq(b.first_ran, 1);
    /* Now the job drains normally. */
    drain_expect(host, 0, 1, NULL);
    expect_job_done(&j);
    job_destroy(&j);
    gate_destroy(&b.inside);
    gate_destroy(&b.proceed);
    expect_no_live_objects(1, host);
}

Test(queues, host_queue_released_with_pending_work, .timeout = SK_TEST_TIMEOUT) {
    sk_queue *host = host_queue(NULL);
    job a, b;
    job_init(&a, host);
    job_init(&b, host);
    SK_OK_OR_FAIL(sk_queue_async(host, job_run, &a, job_release));
    SK_OK_OR_FAIL(sk_queue_async(host, job_run, &b, job_release));
    /* Never drained: the work never runs, but its contexts are released and
     * nothing is left alive. */
    sk_queue_release(host);
    cr_assert_eq(counter_get(&a.ran) + counter_get(&b.ran), 0);
    cr_assert(counter_wait(&a.released, 1, SK_WAIT_SECONDS));
    cr_assert(counter_wait(&b.released, 1, SK_WAIT_SECONDS));
    cr_assert_eq(counter_get(&a.released) + counter_get(&b.released), 2);
    job_destroy(&a);
    job_destroy(&b);
    expect_no_live_objects(0);
}

static bool fd_is_open(int fd) {
    return fcntl(fd, F_GETFD) != -1;
}

/* A thread blocked in sk_queue_sync on a host queue whose last handle
 * another thread releases: the close drops the sync's work like any pending
 * work (its release runs on the releasing thread, before sk_queue_release
 * returns; the descriptor is closed) and the sync returns SK_ERR_RELEASED.
 * Before: the sync kept the queue's handle alive while it waited, so the
 * release closed nothing and the sync waited for ever. */
typedef struct closing_sync {
    sk_queue *host;
    job j;
    int status;
    char message[256];
    gate returned;
} closing_sync;

static void *sync_until_closed(void *arg) {
    closing_sync *c = arg;
    c->status = sk_queue_sync(c->host, job_run, &c->j, job_release);
    snprintf(c->message, sizeof c->message, "%s", sk_last_error_message());
    gate_open(&c->returned);
    return NULL;
}

#define CLOSING_SYNC_ROUNDS 100

Test(queues, host_queue_released_while_a_sync_waits_drops_the_work_and_the_sync_returns, .timeout = SK_TEST_TIMEOUT) {
    for (int round = 0; round < CLOSING_SYNC_ROUNDS; round++) {
        closing_sync c;
        memset(&c, 0, sizeof c);
        c.host = host_queue(NULL);
        job_init(&c.j, c.host);
        gate_init(&c.returned);
        int fd = host_queue_fd(c.host);
        pthread_t thread;
        cr_assert_eq(pthread_create(&thread, NULL, sync_until_closed, &c), 0);
        cr_assert(fd_wait_readable(fd, SK_WAIT_SECONDS), "the sync's work never became pending");
        sk_queue_release(c.host);
        cr_assert_eq(counter_get(&c.j.released), 1, "round %d: the sync's work was not released by sk_queue_release", round);
        cr_assert(pthread_equal(c.j.released.last_thread, pthread_self()), "the work was released on another thread");
        cr_assert(!fd_is_open(fd), "round %d: the descriptor is still open after the last release", round);
        cr_assert(gate_wait(&c.returned, SK_WAIT_SECONDS), "round %d: sk_queue_sync never returned after the close", round);
        pthread_join(thread, NULL);
        cr_assert_eq(c.status, SK_ERR_RELEASED, "round %d: sk_queue_sync returned %d (%s)", round, c.status, c.message);
        cr_assert_not_null(strstr(c.message, "sk_queue_sync"), "%s", c.message);
        cr_assert_not_null(strstr(c.message, "closed"), "%s", c.message);
        cr_assert_eq(counter_get(&c.j.ran), 0, "the dropped work ran");
        cr_assert_eq(counter_get(&c.j.released), 1);
        job_destroy(&c.j);
        gate_destroy(&c.returned);
        cr_assert_eq(sk_live_objects(), 0, "round %d: %ld objects alive", round, sk_live_objects());
    }
}

/* The last handle released inside one of the queue's tasks, during a drain:
 * the close happens there (the descriptor is closed before the release
 * returns), and the tasks the drain had not run yet are dropped (released
 * on the draining thread, before the drain returns), not run. Before: the
 * drain kept the handle alive until it returned and ran them. */
typedef struct self_close {
    sk_queue *host;
    int fd;
    int fd_open_after_release;
} self_close;

static void release_host_inside(void *ctx) {
    self_close *s = ctx;
    sk_queue_release(s->host);
    s->fd_open_after_release = fd_is_open(s->fd);
}

Test(queues, host_queue_released_inside_its_task_drops_the_rest_of_the_drain, .timeout = SK_TEST_TIMEOUT) {
    self_close s;
    memset(&s, 0, sizeof s);
    s.host = host_queue(NULL);
    s.fd = host_queue_fd(s.host);
    job a, b;
    job_init(&a, s.host);
    job_init(&b, s.host);
    SK_OK_OR_FAIL(sk_queue_async(s.host, release_host_inside, &s, NULL));
    SK_OK_OR_FAIL(sk_queue_async(s.host, job_run, &a, job_release));
    SK_OK_OR_FAIL(sk_queue_async(s.host, job_run, &b, job_release));
    size_t ran = 99;
    SK_OK_OR_FAIL(sk_queue_host_drain(s.host, 0, &ran));
    cr_assert_eq(ran, 1, "the drain ran %zu tasks: work ran after the close", ran);
    cr_assert(!s.fd_open_after_release, "the descriptor was still open after the last release");
    cr_assert_eq(counter_get(&a.ran) + counter_get(&b.ran), 0, "work ran after the queue was closed");
    cr_assert_eq(counter_get(&a.released), 1);
    cr_assert_eq(counter_get(&b.released), 1);
    cr_assert(pthread_equal(a.released.last_thread, pthread_self()));
    cr_assert(pthread_equal(b.released.last_thread, pthread_self()));
    job_destroy(&a);
    job_destroy(&b);
    expect_no_live_objects(0);
}

/* The last handle released by another thread while a drain runs one of the
 * queue's tasks: the tasks that drain had not reached are dropped by the
 * release (released on the releasing thread), and the drain returns after
 * the task it was running. */
Test(queues, host_queue_released_during_a_drain_drops_the_tasks_not_reached, .timeout = SK_TEST_TIMEOUT) {
    busy b;
    memset(&b, 0, sizeof b);
    b.host = host_queue(NULL);
    gate_init(&b.inside);
    gate_init(&b.proceed);
    job j;
    job_init(&j, b.host);
    SK_OK_OR_FAIL(sk_queue_async(b.host, blocking_task, &b, NULL));
    SK_OK_OR_FAIL(sk_queue_async(b.host, job_run, &j, job_release));
    pthread_t thread;
    cr_assert_eq(pthread_create(&thread, NULL, drain_on_thread, &b), 0);
    cr_assert(gate_wait(&b.inside, SK_WAIT_SECONDS), "the drain never ran its first task");
    sk_queue_release(b.host);
    cr_assert_eq(counter_get(&j.released), 1, "the task not reached was not released by sk_queue_release");
    cr_assert(pthread_equal(j.released.last_thread, pthread_self()), "released on another thread");
    gate_open(&b.proceed);
    pthread_join(thread, NULL);
    cr_assert_eq(b.first_status, SK_OK);
    cr_assert_eq(b.first_ran, 1, "the drain ran %zu tasks", b.first_ran);
    cr_assert_eq(counter_get(&j.ran), 0, "a task ran after the close");
    job_destroy(&j);
    gate_destroy(&b.inside);
    gate_destroy(&b.proceed);
    expect_no_live_objects(0);
}

Test(queues, host_functions_on_other_queues, .timeout = SK_TEST_TIMEOUT) {
    sk_queue *serial = NULL, *global = NULL;
    SK_OK_OR_FAIL(sk_queue_create(&serial, NULL));
    SK_OK_OR_FAIL(sk_queue_concurrent_default(&global));
    sk_queue *others[] = { serial, global };
    for (size_t i = 0; i < 2; i++) {
        int fd = 12345;
        cr_assert_eq(sk_queue_host_fd(others[i], &fd), SK_ERR_WRONG_KIND);
        size_t ran = 99;
        cr_assert_eq(sk_queue_host_drain(others[i], 0, &ran), SK_ERR_WRONG_KIND);
        cr_assert_eq(ran, 0);
    }
    int fd;
    cr_assert_eq(sk_queue_host_fd(NULL, &fd), SK_ERR_NULL_ARGUMENT);
    cr_assert_eq(sk_queue_host_drain(NULL, 0, NULL), SK_ERR_NULL_ARGUMENT);
    sk_queue *host = host_queue(NULL);
    cr_assert_eq(sk_queue_host_fd(host, NULL), SK_ERR_NULL_ARGUMENT);
    sk_signal *signal = made_signal(sk_signal_never);
    cr_assert_eq(sk_queue_host_fd((sk_queue *)(void *)signal, &fd), SK_ERR_WRONG_KIND);
    cr_assert_eq(sk_queue_host_drain((sk_queue *)(void *)signal, 0, NULL), SK_ERR_WRONG_KIND);
    sk_signal_release(signal);
    sk_queue_release(global);
    expect_no_live_objects(2, serial, host);
}

/* A program that polls the descriptor sk_queue_host_fd() gave must not
 * poll a number left over from before the call: on every error `*out_fd` is
 * -1, as `*out` is NULL for the functions handing out handles (it was left
 * as it was for a NULL or wrong-kind handle, -1 only for another queue). */
Test(queues, host_fd_is_minus_one_on_every_error, .timeout = SK_TEST_TIMEOUT) {
    sk_queue *serial = NULL;
    SK_OK_OR_FAIL(sk_queue_create(&serial, NULL));
    sk_signal *signal = made_signal(sk_signal_never);
    sk_queue *refused[] = { NULL, (sk_queue *)(void *)signal, serial };
    const int statuses[] = { SK_ERR_NULL_ARGUMENT, SK_ERR_WRONG_KIND, SK_ERR_WRONG_KIND };
    for (size_t i = 0; i < 3; i++) {
        int fd = 12345;
        cr_assert_eq(sk_queue_host_fd(refused[i], &fd), statuses[i], "case %zu", i);
        cr_assert_eq(fd, -1, "case %zu: fd %d", i, fd);
    }
    sk_signal_release(signal);
    expect_no_live_objects(1, serial);
}

/* ------------------------------------------------------------------------ */
/* Timers                                                                    */
/* ------------------------------------------------------------------------ */

/* Waits for the host queue's fd and drains, until `c` reaches `count`. */
static void drain_until_ran(sk_queue *host, counter *c, int count) {
    int fd = host_queue_fd(host);
    double deadline = now_seconds() + SK_WAIT_SECONDS;
    while (counter_get(c) < count) {
        cr_assert(now_seconds() < deadline, "timed out at %d of %d", counter_get(c), count);
        if (fd_wait_readable(fd, deadline - now_seconds())) {
            SK_OK_OR_FAIL(sk_queue_host_drain(host, 0, NULL));
        }
    }
}

/* Initializes `j` for `queue` and starts a timer (+1) that runs it there:
 * once after `seconds`, or every `seconds` when `repeat`. */
static sk_disposable *start_job_timer(job *j, sk_queue *queue, double seconds, bool repeat) {
    job_init(j, queue);
    sk_disposable *timer = NULL;
    SK_OK_OR_FAIL(sk_timer_start(&timer, queue, seconds, repeat, job_run, j, job_release));
    cr_assert_not_null(timer);
    return timer;
}

/* A job run by a timer: timed_job_start starts a timer (+1, into `timer`)
 * of `seconds`, repeating when `repeat`, that runs `j` (initialised here) on
 * `queue` (the test's). timed_job_finish releases the timer unless the test
 * did (and set it to NULL), destroys `j` and runs the leak check, which
 * flushes and releases `queue`. */
typedef struct timed_job {
    sk_queue *queue;
    job j;
    sk_disposable *timer;
} timed_job;

static void timed_job_start(timed_job *t, sk_queue *queue, double seconds, bool repeat) {
    t->queue = queue;
    t->timer = start_job_timer(&t->j, queue, seconds, repeat);
}

static void timed_job_finish(timed_job *t) {
    sk_disposable_release(t->timer);
    job_destroy(&t->j);
    expect_no_live_objects(1, t->queue);
}

Test(queues, timer_one_shot_on_host_queue, .timeout = SK_TEST_TIMEOUT) {
    timed_job t;
    double start = now_seconds();
    timed_job_start(&t, host_queue(NULL), 0.02, false);
    drain_until_ran(t.queue, &t.j.ran, 1);
    cr_assert_geq(now_seconds() - start, 0.015);
    cr_assert(pthread_equal(t.j.thread, pthread_self()));
    cr_assert(t.j.on_queue);
    /* A fired one-shot timer releases its context when its disposable is
     * disposed (or released). */
    sk_disposable_dispose(t.timer);
    expect_job_done(&t.j);
    sk_disposable_release(t.timer);
    t.timer = NULL;
    cr_assert_eq(counter_get(&t.j.released), 1);
    timed_job_finish(&t);
}

Test(queues, timer_one_shot_released_without_dispose, .timeout = SK_TEST_TIMEOUT) {
    timed_job t;
    timed_job_start(&t, serial_queue(NULL), 0.01, false);
    cr_assert(counter_wait(&t.j.ran, 1, SK_WAIT_SECONDS));
    cr_assert(t.j.on_queue, "a timer on a serial queue fires on it");
    sk_disposable_release(t.timer);
    t.timer = NULL;
    expect_job_done(&t.j);
    timed_job_finish(&t);
}

Test(queues, timer_repeating_until_disposed, .timeout = SK_TEST_TIMEOUT) {
    timed_job t;
    timed_job_start(&t, host_queue(NULL), 0.005, true);
    drain_until_ran(t.queue, &t.j.ran, 3);
    cr_assert_eq(counter_get(&t.j.released), 0, "released while running");
    sk_disposable_dispose(t.timer);
    cr_assert(counter_wait(&t.j.released, 1, SK_WAIT_SECONDS), "no release after dispose");
    int fired = counter_get(&t.j.ran);
    /* Whatever was already pending runs nothing. */
    flush_queue(t.queue);
    cr_assert_eq(counter_get(&t.j.ran), fired, "the timer fired after dispose returned");
    cr_assert_eq(counter_get(&t.j.released), 1);
    cr_assert_eq(t.j.released_before_run, 0);
    timed_job_finish(&t);
}

static void count_tick(void *ctx) {
    counter_hit(ctx);
}

/* signalkit.h, sk_timer_start(): periods that pass while the queue cannot
 * run the timer merge into one call. On a host-drained queue nobody drains,
 * each period was a task of its own (a 0 s timer made 100,000 a second);
 * a serial queue's dispatch timer merged them already. A timer of 1 ms on
 * a serial queue is the clock: 20 of its periods pass undrained. */
Test(queues, timer_periods_on_an_undrained_host_queue_merge_into_one_task, .timeout = SK_TEST_TIMEOUT) {
    sk_queue *host = host_queue(NULL);
    sk_queue *serial = serial_queue(NULL);
    counter ticks, clock;
    counter_init(&ticks);
    counter_init(&clock);
    sk_disposable *timer = NULL, *clock_timer = NULL;
    SK_OK_OR_FAIL(sk_timer_start(&timer, host, 0.001, true, count_tick, &ticks, NULL));
    for (int round = 1; round <= 2; round++) {
        int start = counter_get(&clock);
        if (clock_timer == NULL) {
            SK_OK_OR_FAIL(sk_timer_start(&clock_timer, serial, 0.001, true, count_tick, &clock, NULL));
        }
        cr_assert(counter_wait(&clock, start + 20, SK_WAIT_SECONDS), "the serial queue's timer stopped");
        cr_assert(fd_wait_readable(host_queue_fd(host), SK_WAIT_SECONDS), "no firing pending after 20 periods");
        drain_expect(host, 0, 1, "the periods that passed undrained");
        cr_assert_eq(counter_get(&ticks), round);
    }
    sk_disposable_dispose(clock_timer);
    sk_disposable_release(clock_timer);
    sk_disposable_dispose(timer);
    sk_disposable_release(timer);
    /* A firing of either timer that had begun when its dispose came ends
     * before its counter goes (and holds its queue until then). */
    flush_queue(host);
    flush_queue(serial);
    counter_destroy(&ticks);
    counter_destroy(&clock);
    expect_no_live_objects(2, host, serial);
}

Test(queues, timer_repeating_stopped_by_release, .timeout = SK_TEST_TIMEOUT) {
    timed_job t;
    timed_job_start(&t, host_queue(NULL), 0.005, true);
    drain_until_ran(t.queue, &t.j.ran, 2);
    sk_disposable_release(t.timer);
    t.timer = NULL;
    cr_assert(counter_wait(&t.j.released, 1, SK_WAIT_SECONDS), "no release after releasing the disposable");
    int fired = counter_get(&t.j.ran);
    flush_queue(t.queue);
    cr_assert_eq(counter_get(&t.j.ran), fired, "the timer fired after its disposable was released");
    timed_job_finish(&t);
}

Test(queues, timer_disposed_before_firing, .timeout = SK_TEST_TIMEOUT) {
    timed_job t;
    timed_job_start(&t, host_queue(NULL), 30, false);
    sk_disposable_dispose(t.timer);
    cr_assert(counter_wait(&t.j.released, 1, SK_WAIT_SECONDS));
    cr_assert_eq(counter_get(&t.j.ran), 0);
    timed_job_finish(&t);
}

/* A timer whose fn reaches its own disposable through the variable that
 * sk_timer_start's `out` pointed to (to stop itself). */
typedef struct self_reaching_timer {
    sk_disposable *timer;
    bool saw_null;
    counter fired;
} self_reaching_timer;

static void self_reaching_timer_fired(void *ctx) {
    self_reaching_timer *t = ctx;
    if (t->timer == NULL) {
        t->saw_null = true;
    }
    counter_hit(&t->fired);
}

/* The disposable is written to `*out` before the timer is armed, so that
 * fn may read it from its first call. It was written after: a timer of 0 s
 * ran fn first about one time in three (found by ThreadSanitizer on a
 * timer that released its own disposable, /tmp/exp-c/p9_self.c), and fn
 * read NULL there. */
Test(queues, timer_fn_reaches_its_disposable_from_the_first_call, .timeout = SK_TEST_TIMEOUT) {
    sk_queue *queue = serial_queue("timer");
    for (int i = 0; i < 100; i++) {
        self_reaching_timer t;
        t.timer = NULL;
        t.saw_null = false;
        counter_init(&t.fired);
        SK_OK_OR_FAIL(sk_timer_start(&t.timer, queue, 0, false, self_reaching_timer_fired, &t, NULL));
        cr_assert(counter_wait(&t.fired, 1, SK_WAIT_SECONDS), "the timer did not fire");
        cr_assert_not(t.saw_null, "round %d: fn ran before the disposable was in *out", i);
        sk_disposable_release(t.timer);
        counter_destroy(&t.fired);
    }
    expect_no_live_objects(1, queue);
}

Test(queues, timer_errors_run_release, .timeout = SK_TEST_TIMEOUT) {
    sk_queue *queue = serial_queue(NULL);
    sk_signal *signal = made_signal(sk_signal_never);
    struct {
        bool null_out;
        sk_queue *queue;
        double seconds;
        bool null_fn;
        int expected;
    } cases[] = {
        { true, queue, 0.01, false, SK_ERR_NULL_ARGUMENT },
        { false, NULL, 0.01, false, SK_ERR_NULL_ARGUMENT },
        { false, queue, 0.01, true, SK_ERR_NULL_ARGUMENT },
        { false, queue, -1, false, SK_ERR_INVALID_ARGUMENT },
        { false, queue, NAN, false, SK_ERR_INVALID_ARGUMENT },
        { false, (sk_queue *)(void *)signal, 0.01, false, SK_ERR_WRONG_KIND },
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        job j;
        job_init(&j, queue);
        sk_disposable *timer = (sk_disposable *)&timer;
        int status = sk_timer_start(cases[i].null_out ? NULL : &timer, cases[i].queue, cases[i].seconds, false,
                                    cases[i].null_fn ? NULL : job_run, &j, job_release);
        if (!cases[i].null_out) {
            cr_assert_null(timer, "case %zu: out not NULL", i);
        }
        char what[32];
        snprintf(what, sizeof what, "case %zu", i);
        expect_failed_submission(&j, queue, status, cases[i].expected, what);
    }
    sk_signal_release(signal);
    expect_no_live_objects(1, queue);
}

/* Once a work item's release has run, sk_live_objects() no longer counts it.
 * The release runs on a pool thread here; this thread wakes up from it. */
Test(queues, live_objects_not_counting_released_work, .timeout = SK_TEST_TIMEOUT) {
    sk_queue *global = NULL;
    SK_OK_OR_FAIL(sk_queue_concurrent_default(&global));
    long base = sk_live_objects(); /* the queue handle */
    for (int round = 0; round < 2000; round++) {
        job j;
        job_init(&j, global);
        SK_OK_OR_FAIL(sk_queue_async(global, job_run, &j, job_release));
        cr_assert(counter_wait(&j.released, 1, SK_WAIT_SECONDS));
        long live = sk_live_objects();
        cr_assert_eq(live, base, "round %d: %ld objects after the release ran, expected %ld", round, live, base);
        job_destroy(&j);
    }
    sk_queue_release(global);
    expect_no_live_objects(0);
}

/* A pipeline with a deliver-on delivery pending on a host queue: every
 * handle released without a drain, in every order, the subscription disposed
 * first or not. Before, the pending delivery and the queue kept each other
 * (and the eventfd, the subscription and the observer) alive for good, while
 * sk_live_objects() said 0. */
enum { ABANDON_HANDLES = 5 };

static void release_abandoned(int which, sk_queue *host, sk_pipe *pipe, sk_signal *source, sk_signal *delivered, sk_disposable *d) {
    switch (which) {
    case 0: sk_queue_release(host); break;
    case 1: sk_pipe_release(pipe); break;
    case 2: sk_signal_release(source); break;
    case 3: sk_signal_release(delivered); break;
    default: sk_disposable_release(d); break;
    }
}

static void abandon_once(const int *order, bool dispose) {
    sk_queue *host = host_queue("test.abandoned");
    sk_pipe *pipe = NULL;
    sk_signal *source = NULL, *delivered = NULL;
    SK_OK_OR_FAIL(sk_pipe_create(&pipe, false));
    SK_OK_OR_FAIL(sk_pipe_signal(&source, pipe));
    SK_OK_OR_FAIL(sk_signal_deliver_on(&delivered, source, host));
    recorder r;
    sk_disposable *d = recorder_start(&r, delivered);
    pipe_put_int(pipe, 1);
    cr_assert(fd_readable_now(host_queue_fd(host)), "no delivery pending");
    if (dispose) {
        sk_disposable_dispose(d);
    }
    for (int i = 0; i < ABANDON_HANDLES; i++) {
        release_abandoned(order[i], host, pipe, source, delivered, d);
    }
    cr_assert_eq(recorder_nexts(&r), 0, "a delivery ran without a drain");
    cr_assert_eq(recorder_releases(&r), 1, "observer released %d times", recorder_releases(&r));
    cr_assert_eq(sk_live_objects(), 0, "%ld objects alive", sk_live_objects());
    recorder_destroy(&r);
}

Test(queues, host_queue_abandoned_with_a_pending_delivery_frees_everything, .timeout = SK_TEST_TIMEOUT) {
    int order[ABANDON_HANDLES] = { 0, 1, 2, 3, 4 };
    abandon_once(order, false); /* warm-up: whatever the runtime opens once */
    int baseline = open_fd_count();
    int rounds = 0;
    for (int dispose = 0; dispose < 2; dispose++) {
        for (int i = 0; i < ABANDON_HANDLES; i++) {
            order[i] = i;
        }
        do {
            abandon_once(order, dispose != 0);
            cr_assert_eq(open_fd_count(), baseline, "order %d%d%d%d%d (dispose %d): %d descriptors open, %d before",
                         order[0], order[1], order[2], order[3], order[4], dispose, open_fd_count(), baseline);
            rounds++;
        } while (next_permutation(order, ABANDON_HANDLES));
    }
    cr_assert_eq(rounds, 240);
}

/* Releasing the last handle of a host queue closes it: work submitted later
 * through what still refers to it (a deliver-on signal) is dropped and
 * released at once, nothing runs, nothing stays alive. */
Test(queues, host_queue_released_drops_later_deliveries, .timeout = SK_TEST_TIMEOUT) {
    int baseline = open_fd_count();
    sk_queue *host = host_queue(NULL);
    sk_pipe *pipe = NULL;
    sk_signal *source = NULL, *delivered = NULL;
    SK_OK_OR_FAIL(sk_pipe_create(&pipe, false));
    SK_OK_OR_FAIL(sk_pipe_signal(&source, pipe));
    SK_OK_OR_FAIL(sk_signal_deliver_on(&delivered, source, host));
    sk_queue_release(host);
    recorder r;
    sk_disposable *d = recorder_start(&r, delivered);
    pipe_put_int(pipe, 1);
    pipe_put_int(pipe, 2);
    cr_assert_eq(recorder_nexts(&r), 0);
    cr_assert_eq(open_fd_count(), baseline, "the closed queue's descriptor is still open");
    recorder_finish(&r, d);
    sk_signal_release(delivered);
    sk_signal_release(source);
    sk_pipe_release(pipe);
    expect_no_live_objects(0);
}

/* At the descriptor limit, creating a host queue fails with a status and a
 * message, and nothing else changes (before: SIGILL from a precondition). */
Test(queues, host_queue_at_the_descriptor_limit_fails_cleanly, .timeout = SK_TEST_TIMEOUT) {
    if (running_under_valgrind()) {
        cr_skip_test("valgrind does not apply a lowered RLIMIT_NOFILE");
    }
    struct rlimit saved;
    cr_assert_eq(getrlimit(RLIMIT_NOFILE, &saved), 0);
    struct rlimit low = saved;
    low.rlim_cur = 0; /* no new descriptor at all */
    cr_assert_eq(setrlimit(RLIMIT_NOFILE, &low), 0);
    sk_queue *host = (sk_queue *)&saved; /* not NULL: the call must clear it */
    int status = sk_queue_create_host(&host, "test.limit");
    cr_assert_eq(setrlimit(RLIMIT_NOFILE, &saved), 0);
    cr_assert_eq(status, SK_ERR_RESOURCE, "status %d (%s)", status, sk_status_string(status));
    cr_assert_null(host);
    char expected[160];
    snprintf(expected, sizeof expected, "sk_queue_create_host: eventfd failed: %s (errno %d)", strerror(EMFILE), EMFILE);
    cr_assert_str_eq(sk_last_error_message(), expected);
    /* The library still works. */
    host = host_queue(NULL);
    sk_queue_release(host);
    expect_no_live_objects(0);
}

/* ------------------------------------------------------------------------ */
/* Closing a host queue with timed work pending                              */
/* ------------------------------------------------------------------------ */

/* sk_queue_after with a deadline far away, then the last handle released:
 * the work is dropped and released on the releasing thread, before
 * sk_queue_release returns. Before: the dispatch timer behind `after` kept
 * the work (and one live object) until the deadline, then released it on a
 * dispatch thread. */
Test(queues, host_queue_released_drops_after_work_not_yet_due, .timeout = SK_TEST_TIMEOUT) {
    sk_queue *host = host_queue(NULL);
    pthread_t self = pthread_self();
    release_thread_ok = 1;
    release_count = 0;
    SK_OK_OR_FAIL(sk_queue_after(host, 100.0, nothing_work, &self, note_release));
    cr_assert_eq(__atomic_load_n(&release_count, __ATOMIC_SEQ_CST), 0);
    sk_queue_release(host);
    cr_assert_eq(__atomic_load_n(&release_count, __ATOMIC_SEQ_CST), 1,
                 "the release had not run when sk_queue_release returned");
    cr_assert(__atomic_load_n(&release_thread_ok, __ATOMIC_SEQ_CST), "released on another thread");
    cr_assert_eq(sk_live_objects(), 0, "%ld objects alive", sk_live_objects());
}

/* The time-based operators over a pipe on a host queue, subscribed, one
 * value put, then every handle released without a dispose or a drain: the
 * observer is released exactly once, when the last handle goes, and nothing
 * stays alive. `due` makes the operator's timer due (0 s, and its firing
 * already waiting in the queue) instead of 100 s away. Before: the
 * operator's state and its timer kept each other (and the observer) alive
 * for good once the queue had closed. */
typedef enum { TIMED_DEBOUNCE, TIMED_THROTTLE, TIMED_DELAY, TIMED_TIMEOUT, TIMED_TIMEOUT_SILENT, TIMED_COUNT } timed_op;

static const char *timed_op_name(timed_op op) {
    static const char *names[] = { "debounce", "throttle", "delay", "timeout", "timeout (silent upstream)" };
    return names[op];
}

static sk_signal *timed_signal(timed_op op, sk_signal *source, double seconds, sk_queue *queue) {
    sk_signal *out = NULL;
    switch (op) {
    case TIMED_DEBOUNCE: SK_OK_OR_FAIL(sk_signal_debounce(&out, source, seconds, queue)); break;
    case TIMED_THROTTLE: SK_OK_OR_FAIL(sk_signal_throttle(&out, source, seconds, queue)); break;
    case TIMED_DELAY: SK_OK_OR_FAIL(sk_signal_delay(&out, source, seconds, queue)); break;
    default: SK_OK_OR_FAIL(sk_signal_timeout(&out, source, seconds, queue, source)); break;
    }
    return out;
}

static void abandon_timed_on_host(timed_op op, bool queue_first, bool due) {
    sk_queue *host = host_queue("test.timed");
    sk_pipe *pipe = NULL;
    sk_signal *source = NULL;
    SK_OK_OR_FAIL(sk_pipe_create(&pipe, false));
    SK_OK_OR_FAIL(sk_pipe_signal(&source, pipe));
    sk_signal *timed = timed_signal(op, source, due ? 0.0 : 100.0, host);
    recorder r;
    sk_disposable *d = recorder_start(&r, timed);
    /* debounce and throttle start their timer with the value; delay and
     * timeout at the subscription, and then the timer fires first. */
    bool timer_at_value = op == TIMED_DEBOUNCE || op == TIMED_THROTTLE;
    if (due && !timer_at_value) {
        cr_assert(fd_wait_readable(host_queue_fd(host), SK_WAIT_SECONDS), "%s: the timer never fired", timed_op_name(op));
    }
    if (op != TIMED_TIMEOUT_SILENT) {
        pipe_put_int(pipe, 1);
    }
    if (due && timer_at_value) {
        cr_assert(fd_wait_readable(host_queue_fd(host), SK_WAIT_SECONDS), "%s: the timer never fired", timed_op_name(op));
    }
    if (queue_first) {
        sk_queue_release(host);
        sk_disposable_release(d);
        sk_signal_release(timed);
        sk_signal_release(source);
        sk_pipe_release(pipe);
    } else {
        sk_pipe_release(pipe);
        sk_signal_release(source);
        sk_signal_release(timed);
        sk_disposable_release(d);
        /* timeout's upstream answered in time: its timer is cancelled and
         * the pipe's release ended the subscription (before, the cancelled
         * timer kept it until the queue went); the others wait for their
         * pending timer. */
        cr_assert_eq(recorder_releases(&r), op == TIMED_TIMEOUT ? 1 : 0, "%s: observer released %d times with its queue still open",
                     timed_op_name(op), recorder_releases(&r));
        sk_queue_release(host);
    }
    /* timeout passes the upstream's value at once (the upstream answered in
     * time); the others hold it for their timer. */
    cr_assert_eq(recorder_nexts(&r), op == TIMED_TIMEOUT ? 1 : 0, "%s: %d values delivered without a drain", timed_op_name(op),
                 recorder_nexts(&r));
    cr_assert_eq(recorder_releases(&r), 1, "%s (queue %s, timer %s): observer released %d times", timed_op_name(op),
                 queue_first ? "first" : "last", due ? "due" : "not due", recorder_releases(&r));
    cr_assert_eq(sk_live_objects(), 0, "%s (queue %s, timer %s): %ld objects alive", timed_op_name(op),
                 queue_first ? "first" : "last", due ? "due" : "not due", sk_live_objects());
    recorder_destroy(&r);
}

static void abandon_timed_on_host_every_way(timed_op op) {
    for (int queue_first = 0; queue_first < 2; queue_first++) {
        for (int due = 0; due < 2; due++) {
            abandon_timed_on_host(op, queue_first != 0, due != 0);
        }
    }
}

Test(queues, host_queue_abandoned_with_a_debounce_pending_frees_everything, .timeout = SK_TEST_TIMEOUT) {
    abandon_timed_on_host_every_way(TIMED_DEBOUNCE);
}

Test(queues, host_queue_abandoned_with_a_throttle_pending_frees_everything, .timeout = SK_TEST_TIMEOUT) {
    abandon_timed_on_host_every_way(TIMED_THROTTLE);
}

Test(queues, host_queue_abandoned_with_a_delay_pending_frees_everything, .timeout = SK_TEST_TIMEOUT) {
    abandon_timed_on_host_every_way(TIMED_DELAY);
}

Test(queues, host_queue_abandoned_with_a_timeout_pending_frees_everything, .timeout = SK_TEST_TIMEOUT) {
    abandon_timed_on_host_every_way(TIMED_TIMEOUT);
    abandon_timed_on_host_every_way(TIMED_TIMEOUT_SILENT);
}

/* The close racing the timers it must end: one thread puts values into a
 * pipe debounced on a host queue (each value starts a new timer, due at
 * once or soon, and the timer it replaces dies), while this thread releases
 * the queue's last handle. Whatever the interleaving: nothing runs without
 * a drain, the observer is released exactly once, nothing stays alive.
 * (For ThreadSanitizer above all: the close reads the timers' entries
 * while timers start and die on the other thread.) */
typedef struct close_race {
    sk_pipe *pipe;
    gate started;
    int values;
} close_race;

static void *put_values(void *arg) {
    close_race *c = arg;
    for (int i = 0; i < c->values; i++) {
        pipe_put_int(c->pipe, i);
        if (i == c->values / 4) {
            gate_open(&c->started);
        }
    }
    return NULL;
}

Test(queues, host_queue_closing_while_a_debounce_restarts_its_timer, .timeout = SK_TEST_TIMEOUT) {
    for (int round = 0; round < 50; round++) {
        sk_queue *host = host_queue("test.close_race");
        close_race c;
        memset(&c, 0, sizeof c);
        c.values = 200;
        gate_init(&c.started);
        sk_signal *source = NULL, *debounced = NULL;
        SK_OK_OR_FAIL(sk_pipe_create(&c.pipe, false));
        SK_OK_OR_FAIL(sk_pipe_signal(&source, c.pipe));
        SK_OK_OR_FAIL(sk_signal_debounce(&debounced, source, round % 2 == 0 ? 0.0 : 0.0001, host));
        recorder r;
        sk_disposable *d = recorder_start(&r, debounced);
        pthread_t thread;
        cr_assert_eq(pthread_create(&thread, NULL, put_values, &c), 0);
        cr_assert(gate_wait(&c.started, SK_WAIT_SECONDS));
        sk_queue_release(host);
        pthread_join(thread, NULL);
        cr_assert_eq(recorder_releases(&r), 0, "round %d: observer released with its pipe alive", round);
        sk_disposable_release(d);
        sk_signal_release(debounced);
        sk_signal_release(source);
        sk_pipe_release(c.pipe);
        cr_assert_eq(recorder_nexts(&r), 0, "round %d: a value was delivered without a drain", round);
        cr_assert_eq(recorder_releases(&r), 1, "round %d: observer released %d times", round, recorder_releases(&r));
        cr_assert_eq(sk_live_objects(), 0, "round %d: %ld objects alive", round, sk_live_objects());
        recorder_destroy(&r);
        gate_destroy(&c.started);
    }
}

/* A timer started on a host queue, not due (100 s) or repeating and due
 * (its firing waiting in the queue), then the queue's last handle released
 * while the timer's disposable is still held: the close stops the timer,
 * and its release(ctx) runs on the releasing thread before
 * sk_queue_release returns. Before: the context stayed until the
 * disposable went. */
Test(queues, host_queue_released_stops_its_timers, .timeout = SK_TEST_TIMEOUT) {
    for (int due = 0; due < 2; due++) {
        sk_queue *host = host_queue(NULL);
        pthread_t self = pthread_self();
        release_thread_ok = 1;
        release_count = 0;
        sk_disposable *timer = NULL;
        SK_OK_OR_FAIL(sk_timer_start(&timer, host, due ? 0.001 : 100.0, due != 0, nothing_work, &self, note_release));
        if (due) {
            cr_assert(fd_wait_readable(host_queue_fd(host), SK_WAIT_SECONDS), "the timer never fired");
        }
        sk_queue_release(host);
        cr_assert_eq(__atomic_load_n(&release_count, __ATOMIC_SEQ_CST), 1,
                     "timer %s: the release had not run when sk_queue_release returned", due ? "due" : "not due");
        cr_assert(__atomic_load_n(&release_thread_ok, __ATOMIC_SEQ_CST), "released on another thread");
        sk_disposable_dispose(timer);
        sk_disposable_release(timer);
        cr_assert_eq(__atomic_load_n(&release_count, __ATOMIC_SEQ_CST), 1);
        cr_assert_eq(sk_live_objects(), 0, "%ld objects alive", sk_live_objects());
    }
}
