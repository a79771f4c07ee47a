/* test_reentrancy.c - deadlock freedom: every kind of callback (next, error,
 * completed, an observer's release, a value's release, queue work on a
 * serial and on a host-drained queue, a timer) calls back into the library:
 * disposes and releases its own subscription, emits into a pipe it is
 * subscribed to, releases that pipe, starts and disposes a subscription,
 * releases the signal. Each does it on the delivering thread, and each also
 * hands the same work to another thread and waits for it, which deadlocks if
 * the library holds a lock while it calls back. Every wait has a deadline
 * and every test a timeout: a deadlock fails, it does not hang CI. */
#include <stdio.h>
#include <string.h>

#include "support.h"

/* ------------------------------------------------------------------------ */
/* The world a callback acts on                                              */
/* ------------------------------------------------------------------------ */

typedef enum action {
    ACT_DISPOSE_OWN,     /* dispose the subscription being called */
    ACT_RELEASE_OWN,     /* dispose and release its disposable handle */
    ACT_PUT_PIPE,        /* put into the pipe (its subscriber is called nested) */
    ACT_RELEASE_PIPE,    /* release the pipe (its subscription is let go) */
    ACT_START_DISPOSE,   /* start the source signal again, dispose at once */
    ACT_RELEASE_SIGNAL,  /* release the source signal handle */
    ACT_COUNT
} action;

static const char *action_names[ACT_COUNT] = {
    "dispose own", "release own", "put into pipe", "release pipe", "start and dispose", "release signal"
};

typedef struct world {
    action act;
    bool elsewhere; /* run the action on a helper thread and wait for it */
    /* The subscription whose callbacks act. */
    manual_source source;
    sk_signal *signal;
    sk_disposable *own;
    /* A pipe with a recording subscription. */
    sk_pipe *pipe;
    recorder pipe_r;
    sk_disposable *pipe_d;
    counter acted;   /* how many times the action ran to its end */
    int failures;    /* calls that returned an error, or helper threads that timed out */
    pthread_mutex_t mutex;
} world;

static void world_init(world *w, action act, bool elsewhere) {
    memset(w, 0, sizeof *w);
    w->act = act;
    w->elsewhere = elsewhere;
    pthread_mutex_init(&w->mutex, NULL);
    counter_init(&w->acted);
    manual_init(&w->source);
    w->signal = manual_signal(&w->source);
    SK_OK_OR_FAIL(sk_pipe_create(&w->pipe, false));
    sk_signal *pipe_signal = NULL;
    SK_OK_OR_FAIL(sk_pipe_signal(&pipe_signal, w->pipe));
    w->pipe_d = recorder_start(&w->pipe_r, pipe_signal);
    sk_signal_release(pipe_signal);
}

/* world_init, then starts `w->signal` into `r` (initialised here) as the
 * subscription `w->own` the action works on. The caller ends with
 * world_finish and recorder_destroy. */
static void world_start_recorded(world *w, recorder *r, action act, bool elsewhere) {
    world_init(w, act, elsewhere);
    w->own = recorder_start(r, w->signal);
}

/* Runs `run_case` for every action, acting here and on another thread. */
static void run_action_matrix(void (*run_case)(action act_kind, bool elsewhere)) {
    for (int a = 0; a < ACT_COUNT; a++) {
        run_case((action)a, false);
        run_case((action)a, true);
    }
}

/* Takes a pointer field under the world's lock (each is used once). */
static void *take(world *w, void **field) {
    pthread_mutex_lock(&w->mutex);
    void *value = *field;
    *field = NULL;
    pthread_mutex_unlock(&w->mutex);
    return value;
}

static void act_here(world *w) {
    switch (w->act) {
    case ACT_DISPOSE_OWN:
        pthread_mutex_lock(&w->mutex);
        sk_disposable *own = w->own;
        pthread_mutex_unlock(&w->mutex);
        sk_disposable_dispose(own);
        break;
    case ACT_RELEASE_OWN: {
        sk_disposable *d = take(w, (void **)&w->own);
        sk_disposable_dispose(d);
        sk_disposable_release(d);
        break;
    }
    case ACT_PUT_PIPE: {
        sk_value v = int_value(7);
        pthread_mutex_lock(&w->mutex);
        sk_pipe *pipe = w->pipe ? sk_pipe_retain(w->pipe) : NULL;
        pthread_mutex_unlock(&w->mutex);
        if (pipe == NULL || sk_pipe_put(pipe, &v) != SK_OK) {
            __atomic_add_fetch(&w->failures, 1, __ATOMIC_SEQ_CST);
        }
        sk_pipe_release(pipe);
        break;
    }
    case ACT_RELEASE_PIPE:
        sk_pipe_release(take(w, (void **)&w->pipe));
        break;
    case ACT_START_DISPOSE: {
        pthread_mutex_lock(&w->mutex);
        sk_signal *signal = w->signal ? sk_signal_retain(w->signal) : NULL;
        pthread_mutex_unlock(&w->mutex);
        sk_observer nothing = { 0 };
        sk_disposable *d = NULL;
        if (signal == NULL || sk_signal_start(&d, signal, &nothing) != SK_OK) {
            __atomic_add_fetch(&w->failures, 1, __ATOMIC_SEQ_CST);
        }
        sk_disposable_dispose(d);
        sk_disposable_release(d);
        sk_signal_release(signal);
        break;
    }
    case ACT_RELEASE_SIGNAL:
        sk_signal_release(take(w, (void **)&w->signal));
        break;
    default:
        break;
    }
    counter_hit(&w->acted);
}

static void *act_thread(void *arg) {
    act_here(arg);
    return NULL;
}

/* What every callback of the test calls: the action, here or on a helper
 * thread that the callback waits for (with a deadline). */
static void act(world *w) {
    if (!w->elsewhere) {
        act_here(w);
        return;
    }
    int before = counter_get(&w->acted);
    pthread_t thread;
    if (pthread_create(&thread, NULL, act_thread, w) != 0) {
        __atomic_add_fetch(&w->failures, 1, __ATOMIC_SEQ_CST);
        return;
    }
    if (!counter_wait(&w->acted, before + 1, SK_WAIT_SECONDS)) {
        /* The helper is stuck behind something this callback holds. */
        __atomic_add_fetch(&w->failures, 1, __ATOMIC_SEQ_CST);
        pthread_detach(thread);
        return;
    }
    pthread_join(thread, NULL);
}

/* Checks the outcome every action must leave, then tears the world down
 * (the caller then checks that nothing is left). */
static void world_finish(world *w, const char *where) {
    cr_assert_eq(w->failures, 0, "%s, %s: %d failures (a call failed or a helper thread was stuck)", where,
                 action_names[w->act], w->failures);
    cr_assert_geq(counter_get(&w->acted), 1, "%s, %s: the action never ran", where, action_names[w->act]);
    if (w->act == ACT_PUT_PIPE) {
        cr_assert(recorder_wait_nexts(&w->pipe_r, counter_get(&w->acted)),
                  "%s: the nested put was not delivered", where);
    }
    if (w->act == ACT_RELEASE_PIPE) {
        /* The pipe is gone: its subscription was let go. */
        cr_assert(recorder_wait_release(&w->pipe_r), "%s: the pipe's subscriber was not released", where);
    }
    sk_disposable_dispose(w->pipe_d);
    sk_disposable_release(w->pipe_d);
    cr_assert(recorder_wait_release(&w->pipe_r));
    cr_assert_eq(recorder_releases(&w->pipe_r), 1);
    cr_assert_eq(w->pipe_r.late_events, 0);
    recorder_destroy(&w->pipe_r);
    sk_pipe_release(w->pipe);
    sk_disposable *own = w->own;
    sk_disposable_dispose(own);
    sk_disposable_release(own);
    sk_signal_release(w->signal);
    manual_destroy(&w->source);
    counter_destroy(&w->acted);
    pthread_mutex_destroy(&w->mutex);
}

/* ------------------------------------------------------------------------ */
/* Observer callbacks                                                        */
/* ------------------------------------------------------------------------ */

typedef enum callback_kind { CB_NEXT, CB_ERROR, CB_COMPLETED, CB_RELEASE } callback_kind;

typedef struct acting_observer {
    world *w;
    callback_kind kind;
    counter calls;
    counter released;
} acting_observer;

/* One callback of kind `kind` of the acting observer `ctx`: counts it and
 * acts if it is the observer's kind. */
static void observer_called(void *ctx, callback_kind kind) {
    acting_observer *o = ctx;
    counter_hit(&o->calls);
    if (o->kind == kind) {
        act(o->w);
    }
}

static void on_next(void *ctx, const sk_value *value) {
    (void)value;
    observer_called(ctx, CB_NEXT);
}

static void on_error(void *ctx, const sk_value *error) {
    (void)error;
    observer_called(ctx, CB_ERROR);
}

static void on_completed(void *ctx) {
    observer_called(ctx, CB_COMPLETED);
}

static void on_release(void *ctx) {
    acting_observer *o = ctx;
    if (o->kind == CB_RELEASE) {
        act(o->w);
    }
    counter_hit(&o->released);
}

/* Starts the world's signal into an observer that acts from `kind`, then
 * drives it (from the test thread, or from an emitting thread) so that the
 * callback runs. */
typedef struct driver {
    world *w;
    callback_kind kind;
} driver;

static void *drive(void *arg) {
    driver *d = arg;
    sk_subscriber *subscriber = manual_subscriber(&d->w->source, 0);
    sk_value v = int_value(1);
    sk_value e = int_value(-1);
    switch (d->kind) {
    case CB_NEXT:
        SK_OK_OR_ABORT(sk_subscriber_put_next(subscriber, &v));
        break;
    case CB_ERROR:
        SK_OK_OR_ABORT(sk_subscriber_put_error(subscriber, &e));
        break;
    case CB_COMPLETED:
    case CB_RELEASE:
        SK_OK_OR_ABORT(sk_subscriber_put_completion(subscriber));
        break;
    }
    return NULL;
}

static void run_observer_case(callback_kind kind, action act_kind, bool elsewhere, bool emit_on_thread) {
    static const char *kinds[] = { "next", "error", "completed", "release" };
    char where[96];
    snprintf(where, sizeof where, "%s callback%s%s", kinds[kind], emit_on_thread ? ", emitted on a thread" : "",
             elsewhere ? ", acting on another thread" : "");
    world w;
    world_init(&w, act_kind, elsewhere);
    acting_observer o;
    o.w = &w;
    o.kind = kind;
    counters_init(2, &o.calls, &o.released);
    sk_observer observer = { on_next, on_error, on_completed, &o, on_release };
    SK_OK_OR_FAIL(sk_signal_start(&w.own, w.signal, &observer));
    driver d = { &w, kind };
    if (emit_on_thread) {
        pthread_t thread;
        cr_assert_eq(pthread_create(&thread, NULL, drive, &d), 0);
        cr_assert(counter_wait(&w.acted, 1, SK_WAIT_SECONDS), "%s, %s: no progress (deadlock?)", where,
                  action_names[act_kind]);
        pthread_join(thread, NULL);
    } else {
        drive(&d);
    }
    cr_assert(counter_wait(&w.acted, 1, SK_WAIT_SECONDS), "%s, %s: the action did not complete", where,
              action_names[act_kind]);
    /* Whatever the action, the subscription ended (or ends with the
     * teardown) and its release runs exactly once. */
    world_finish(&w, where);
    cr_assert_eq(counter_get(&o.released), 1, "%s, %s: the observer's release ran %d times", where,
                 action_names[act_kind], counter_get(&o.released));
    cr_assert_eq(counter_get(&o.calls), 1, "%s, %s: %d callbacks", where, action_names[act_kind],
                 counter_get(&o.calls));
    counters_destroy(2, &o.calls, &o.released);
    expect_no_live_objects(0);
}

static void run_observer_matrix(callback_kind kind) {
    for (int a = 0; a < ACT_COUNT; a++) {
        for (int variant = 0; variant < 4; variant++) {
            run_observer_case(kind, (action)a, variant & 1, variant & 2);
        }
    }
}

Test(reentrancy, from_next, .timeout = SK_TEST_TIMEOUT) {
    run_observer_matrix(CB_NEXT);
}

Test(reentrancy, from_error, .timeout = SK_TEST_TIMEOUT) {
    run_observer_matrix(CB_ERROR);
}

Test(reentrancy, from_completed, .timeout = SK_TEST_TIMEOUT) {
    run_observer_matrix(CB_COMPLETED);
}

Test(reentrancy, from_observer_release, .timeout = SK_TEST_TIMEOUT) {
    run_observer_matrix(CB_RELEASE);
}

/* ------------------------------------------------------------------------ */
/* A value's release                                                         */
/* ------------------------------------------------------------------------ */

static void value_release_acts(void *ctx) {
    act(ctx);
}

/* A user pointer value put into the subscription: its release runs when the
 * last copy goes (here: when the put returns), and acts from there. */
static void run_value_release_case(action act_kind, bool elsewhere) {
    world w;
    recorder r;
    world_start_recorded(&w, &r, act_kind, elsewhere);
    r.keep_values = false; /* so that the put's copy is the last one */
    sk_value pointer;
    SK_OK_OR_FAIL(sk_value_set_pointer(&pointer, &w, value_release_acts));
    SK_OK_OR_FAIL(sk_subscriber_put_next(manual_subscriber(&w.source, 0), &pointer));
    sk_value_release(&pointer);
    cr_assert(counter_wait(&w.acted, 1, SK_WAIT_SECONDS));
    world_finish(&w, elsewhere ? "value release, acting on another thread" : "value release");
    cr_assert_eq(recorder_nexts(&r), 1);
    cr_assert_eq(recorder_releases(&r), 1);
    recorder_destroy(&r);
    expect_no_live_objects(0);
}

Test(reentrancy, from_value_release, .timeout = SK_TEST_TIMEOUT) {
    run_action_matrix(run_value_release_case);
}

/* ------------------------------------------------------------------------ */
/* Queue work and timers                                                     */
/* ------------------------------------------------------------------------ */

static void work_acts(void *ctx) {
    act(ctx);
}

static void work_release_noop(void *ctx) {
    (void)ctx;
}

/* Work on a serial queue and on a host-drained queue, and its release, act;
 * the subscription being acted on delivers on the same queue. */
static void run_queue_case(bool host, bool in_release, action act_kind, bool elsewhere) {
    world w;
    world_init(&w, act_kind, elsewhere);
    sk_queue *queue = NULL;
    if (host) {
        SK_OK_OR_FAIL(sk_queue_create_host(&queue, "reentrancy"));
    } else {
        SK_OK_OR_FAIL(sk_queue_create(&queue, "reentrancy"));
    }
    sk_signal *delivered = NULL;
    SK_OK_OR_FAIL(sk_signal_deliver_on(&delivered, w.signal, queue));
    recorder r;
    w.own = recorder_start(&r, delivered);
    sk_signal_release(delivered);
    if (in_release) {
        SK_OK_OR_FAIL(sk_queue_async(queue, work_release_noop, &w, work_acts));
    } else {
        SK_OK_OR_FAIL(sk_queue_async(queue, work_acts, &w, NULL));
    }
    if (host) {
        double deadline = now_seconds() + SK_WAIT_SECONDS;
        while (counter_get(&w.acted) < 1 && now_seconds() < deadline) {
            int fd = host_queue_fd(queue);
            fd_wait_readable(fd, 0.1);
            SK_OK_OR_FAIL(sk_queue_host_drain(queue, 0, NULL));
        }
    }
    cr_assert(counter_wait(&w.acted, 1, SK_WAIT_SECONDS), "%s queue %s: no progress", host ? "host" : "serial",
              in_release ? "release" : "work");
    flush_queue(queue);
    world_finish(&w, host ? "host queue" : "serial queue");
    cr_assert_leq(recorder_releases(&r), 1);
    recorder_destroy(&r);
    expect_no_live_objects(1, queue);
}

Test(reentrancy, from_queue_work_and_its_release, .timeout = SK_TEST_TIMEOUT) {
    for (int a = 0; a < ACT_COUNT; a++) {
        for (int variant = 0; variant < 8; variant++) {
            run_queue_case(variant & 1, variant & 2, (action)a, variant & 4);
        }
    }
}

/* A timer's callback acts, and also disposes and releases its own timer. */
typedef struct timer_case {
    world *w;
    sk_disposable *timer;
    pthread_mutex_t mutex;
    counter released;
} timer_case;

static void timer_released(void *ctx) {
    counter_hit(&((timer_case *)ctx)->released);
}

static void timer_fired(void *ctx) {
    timer_case *t = ctx;
    pthread_mutex_lock(&t->mutex);
    sk_disposable *timer = t->timer;
    t->timer = NULL;
    pthread_mutex_unlock(&t->mutex);
    sk_disposable_dispose(timer);
    sk_disposable_release(timer);
    act(t->w);
}

static void run_timer_case(action act_kind, bool elsewhere) {
    world w;
    recorder r;
    world_start_recorded(&w, &r, act_kind, elsewhere);
    sk_queue *queue = serial_queue("timer");
    timer_case t;
    t.w = &w;
    t.timer = NULL;
    pthread_mutex_init(&t.mutex, NULL);
    counter_init(&t.released);
    /* The timer's handle is set under the lock the callback takes. */
    pthread_mutex_lock(&t.mutex);
    SK_OK_OR_FAIL(sk_timer_start(&t.timer, queue, 0.001, true, timer_fired, &t, timer_released));
    pthread_mutex_unlock(&t.mutex);
    cr_assert(counter_wait(&w.acted, 1, SK_WAIT_SECONDS), "timer: no progress");
    cr_assert(counter_wait(&t.released, 1, SK_WAIT_SECONDS), "the timer's release did not run");
    flush_queue(queue);
    world_finish(&w, elsewhere ? "timer, acting on another thread" : "timer");
    cr_assert_eq(counter_get(&w.acted), 1, "the repeating timer fired again after disposing itself");
    recorder_destroy(&r);
    expect_no_live_objects(1, queue);
    cr_assert_eq(counter_get(&t.released), 1);
    pthread_mutex_destroy(&t.mutex);
    counter_destroy(&t.released);
}

Test(reentrancy, from_a_timer, .timeout = SK_TEST_TIMEOUT) {
    run_action_matrix(run_timer_case);
}
