/* test_concurrent_queue.c - bounded concurrent queues
 * (sk_queue_create_concurrent): at most max_workers jobs at once, every job
 * run once, the counts refused, sync from its own work, the release with
 * jobs pending. What the system refusing a thread does is in
 * test_resources.c (resources::concurrent_queue_thread_refused_is_a_resource_error). */
#include <stdint.h>
#include <string.h>

#include "support.h"

/* Jobs that count how many run at once, and block until the gate opens. */
typedef struct crowd {
    int running;
    int most;
    int ran;
    counter entered;  /* a hit per job that started */
    counter finished; /* a hit per job's release */
    gate open;
    bool blocks;      /* whether the jobs wait for `open` */
} crowd;

static void crowd_init(crowd *c, bool blocks) {
    c->running = 0;
    c->most = 0;
    c->ran = 0;
    counters_init(2, &c->entered, &c->finished);
    gate_init(&c->open);
    c->blocks = blocks;
}

static void crowd_destroy(crowd *c) {
    counters_destroy(2, &c->entered, &c->finished);
    gate_destroy(&c->open);
}

static void crowd_job(void *ctx) {
    crowd *c = ctx;
    int now = __atomic_add_fetch(&c->running, 1, __ATOMIC_SEQ_CST);
    int most = __atomic_load_n(&c->most, __ATOMIC_SEQ_CST);
    while (now > most && !__atomic_compare_exchange_n(&c->most, &most, now, true, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST)) {
    }
    counter_hit(&c->entered);
    if (c->blocks) {
        /* A gate never opened shows in the test thread's counts. */
        (void)gate_wait(&c->open, SK_WAIT_SECONDS);
    }
    __atomic_add_fetch(&c->ran, 1, __ATOMIC_SEQ_CST);
    __atomic_sub_fetch(&c->running, 1, __ATOMIC_SEQ_CST);
}

static void crowd_release(void *ctx) {
    counter_hit(&((crowd *)ctx)->finished);
}

/* 12 jobs that block until released on a queue of 3 workers: 3 start (each
 * counts itself on entry) and no fourth while they block; once the gate
 * opens all 12 run, never more than 3 at once. An unbounded queue starts
 * all 12 at once: seen failing with max_workers ignored (every job on its
 * own thread; also with 4 times the workers started). */
Test(concurrent_queue, never_more_than_max_workers_jobs_at_once, .timeout = SK_TEST_TIMEOUT) {
    sk_queue *queue = NULL;
    SK_OK_OR_FAIL(sk_queue_create_concurrent(&queue, 3, "bounded"));
    cr_assert_not_null(queue);
    crowd c;
    crowd_init(&c, true);
    enum { JOBS = 12 };
    for (int i = 0; i < JOBS; i++) {
        SK_OK_OR_FAIL(sk_queue_async(queue, crowd_job, &c, crowd_release));
    }
    cr_assert(counter_wait(&c.entered, 3, SK_WAIT_SECONDS), "3 jobs did not start: %d", counter_get(&c.entered));
    /* Every worker is blocked in a job: a fourth job cannot have started. */
    cr_assert_eq(counter_get(&c.entered), 3);
    cr_assert_eq(__atomic_load_n(&c.running, __ATOMIC_SEQ_CST), 3);
    gate_open(&c.open);
    cr_assert(counter_wait(&c.finished, JOBS, SK_WAIT_SECONDS), "%d of %d jobs finished", counter_get(&c.finished),
              JOBS);
    cr_assert_eq(__atomic_load_n(&c.ran, __ATOMIC_SEQ_CST), JOBS);
    cr_assert_eq(__atomic_load_n(&c.most, __ATOMIC_SEQ_CST), 3, "at most %d jobs ran at once", __atomic_load_n(&c.most, __ATOMIC_SEQ_CST));
    sk_queue_release(queue);
    expect_no_live_objects(0);
    crowd_destroy(&c);
}

/* Threads of the test thread's own, each submitting jobs at once. */
typedef struct submitter {
    sk_queue *queue;
    crowd *c;
    int jobs;
    int failures;
} submitter;

static void *submit_jobs(void *arg) {
    submitter *s = arg;
    for (int i = 0; i < s->jobs; i++) {
        if (sk_queue_async(s->queue, crowd_job, s->c, crowd_release) != SK_OK) {
            s->failures++;
        }
    }
    return NULL;
}

/* 4 threads submit 500 short jobs each to 2 workers: every job runs once
 * and its release runs once, never more than 2 at once (order is not
 * promised). */
Test(concurrent_queue, every_job_runs_once, .timeout = SK_TEST_TIMEOUT) {
    sk_queue *queue = NULL;
    SK_OK_OR_FAIL(sk_queue_create_concurrent(&queue, 2, NULL));
    crowd c;
    crowd_init(&c, false);
    enum { THREADS = 4, EACH = 500 };
    pthread_t threads[THREADS];
    submitter subs[THREADS];
    for (int i = 0; i < THREADS; i++) {
        subs[i] = (submitter){queue, &c, EACH, 0};
        cr_assert_eq(pthread_create(&threads[i], NULL, submit_jobs, &subs[i]), 0);
    }
    for (int i = 0; i < THREADS; i++) {
        pthread_join(threads[i], NULL);
        cr_assert_eq(subs[i].failures, 0);
    }
    cr_assert(counter_wait(&c.finished, THREADS * EACH, SK_WAIT_SECONDS), "%d releases",
              counter_get(&c.finished));
    cr_assert_eq(__atomic_load_n(&c.ran, __ATOMIC_SEQ_CST), THREADS * EACH);
    cr_assert_eq(counter_get(&c.finished), THREADS * EACH);
    cr_assert_leq(__atomic_load_n(&c.most, __ATOMIC_SEQ_CST), 2);
    sk_queue_release(queue);
    expect_no_live_objects(0);
    crowd_destroy(&c);
}

/* 0, above SK_QUEUE_MAX_WORKERS and SIZE_MAX are refused, with words that
 * say the range; a NULL out is refused; nothing is made. */
Test(concurrent_queue, worker_counts_outside_the_range_are_refused, .timeout = SK_TEST_TIMEOUT) {
    const size_t counts[] = {0, SK_QUEUE_MAX_WORKERS + 1, (size_t)INT64_MAX, SIZE_MAX};
    for (size_t i = 0; i < sizeof counts / sizeof counts[0]; i++) {
        sk_queue *queue = (sk_queue *)&queue;
        cr_assert_eq(sk_queue_create_concurrent(&queue, counts[i], "q"), SK_ERR_INVALID_ARGUMENT, "%zu", counts[i]);
        cr_assert_null(queue);
        cr_assert(strstr(sk_last_error_message(), "1 to 1024 workers") != NULL, "%zu: %s", counts[i],
                  sk_last_error_message());
    }
    cr_assert(strstr(sk_last_error_message(), "max_workers is above 1024") != NULL, "%s", sk_last_error_message());
    cr_assert_eq(sk_queue_create_concurrent(NULL, 1, NULL), SK_ERR_NULL_ARGUMENT);
    expect_no_live_objects(0);
}

typedef struct self_sync {
    sk_queue *queue;
    counter inner;
    counter done;
    bool current;
} self_sync;

static void self_sync_inner(void *ctx) {
    counter_hit(&((self_sync *)ctx)->inner);
}

static void self_sync_job(void *ctx) {
    self_sync *s = ctx;
    s->current = sk_queue_is_current(s->queue);
    SK_OK_OR_ABORT(sk_queue_sync(s->queue, self_sync_inner, s, NULL));
    counter_hit(&s->done);
}

/* With one worker, a job that syncs onto its own queue runs the work at
 * once (waiting for another worker would wait for ever); the queue is not
 * current inside its own work; a sync from outside runs and returns. */
Test(concurrent_queue, sync_from_its_own_work_runs_there, .timeout = SK_TEST_TIMEOUT) {
    self_sync s = {0};
    counters_init(2, &s.inner, &s.done);
    SK_OK_OR_FAIL(sk_queue_create_concurrent(&s.queue, 1, NULL));
    SK_OK_OR_FAIL(sk_queue_async(s.queue, self_sync_job, &s, NULL));
    cr_assert(counter_wait(&s.done, 1, SK_WAIT_SECONDS), "the job's sync onto its own queue did not return");
    cr_assert_eq(counter_get(&s.inner), 1);
    cr_assert_not(s.current);
    SK_OK_OR_FAIL(sk_queue_sync(s.queue, self_sync_inner, &s, NULL));
    cr_assert_eq(counter_get(&s.inner), 2);
    cr_assert_not(sk_queue_is_current(s.queue));
    sk_queue_release(s.queue);
    expect_no_live_objects(0);
    counters_destroy(2, &s.inner, &s.done);
}

typedef struct late_work {
    counter ran;
    counter released;
} late_work;

static void late_run(void *ctx) {
    counter_hit(&((late_work *)ctx)->ran);
}

static void late_release(void *ctx) {
    counter_hit(&((late_work *)ctx)->released);
}

/* The last handle released while one job blocks the one worker and four
 * wait: the release returns at once, every job still runs once, each
 * release after its job, and nothing is left alive. sk_queue_after work not
 * yet due is dropped with its release run. */
Test(concurrent_queue, released_with_jobs_pending_runs_them, .timeout = SK_TEST_TIMEOUT) {
    sk_queue *queue = NULL;
    SK_OK_OR_FAIL(sk_queue_create_concurrent(&queue, 1, NULL));
    crowd c;
    crowd_init(&c, true);
    for (int i = 0; i < 5; i++) {
        SK_OK_OR_FAIL(sk_queue_async(queue, crowd_job, &c, crowd_release));
    }
    late_work late;
    counters_init(2, &late.ran, &late.released);
    SK_OK_OR_FAIL(sk_queue_after(queue, 1e6, late_run, &late, late_release));
    cr_assert(counter_wait(&c.entered, 1, SK_WAIT_SECONDS));
    sk_queue_release(queue); /* returns while the worker is blocked */
    cr_assert_eq(counter_get(&c.finished), 0);
    gate_open(&c.open);
    cr_assert(counter_wait(&c.finished, 5, SK_WAIT_SECONDS), "%d of 5 jobs finished", counter_get(&c.finished));
    cr_assert_eq(__atomic_load_n(&c.ran, __ATOMIC_SEQ_CST), 5);
    cr_assert_eq(__atomic_load_n(&c.most, __ATOMIC_SEQ_CST), 1);
    cr_assert(counter_wait(&late.released, 1, SK_WAIT_SECONDS), "the after-work not due was not released");
    cr_assert_eq(counter_get(&late.ran), 0);
    cr_assert_eq(counter_get(&late.released), 1);
    expect_no_live_objects(0);
    counters_destroy(2, &late.ran, &late.released);
    crowd_destroy(&c);
}

/* A deliver_on subscription keeps the queue working after its handle is
 * released: the values come on a worker, the observer is released once. */
Test(concurrent_queue, deliver_on_keeps_it_working_after_the_release, .timeout = SK_TEST_TIMEOUT) {
    sk_queue *queue = NULL;
    SK_OK_OR_FAIL(sk_queue_create_concurrent(&queue, 2, NULL));
    sk_pipe *pipe = NULL;
    SK_OK_OR_FAIL(sk_pipe_create(&pipe, false));
    sk_signal *source = NULL, *delivered = NULL;
    SK_OK_OR_FAIL(sk_pipe_signal(&source, pipe));
    SK_OK_OR_FAIL(sk_signal_deliver_on(&delivered, source, queue));
    sk_queue_release(queue);
    recorder r;
    recorder_init(&r);
    sk_disposable *d = recorder_start(&r, delivered);
    sk_value v;
    sk_value_set_int64(&v, 7);
    SK_OK_OR_FAIL(sk_pipe_put(pipe, &v));
    cr_assert(recorder_wait_nexts(&r, 1), "no value delivered");
    cr_assert_neq(recorder_event(&r, 0)->thread, pthread_self());
    sk_disposable_dispose(d);
    sk_disposable_release(d);
    sk_signal_release(source);
    sk_signal_release(delivered);
    sk_pipe_release(pipe);
    cr_assert(recorder_wait_release(&r));
    recorder_destroy(&r);
    expect_no_live_objects(0);
}
