/* support.c - shared helpers of the C test suite; see support.h. */
#include "support.h"

#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <poll.h>
#include <sched.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

void sk_test_abort(const char *call, int status) {
    fprintf(stderr, "%s returned %d (%s): %s\n", call, status, sk_status_string(status), sk_last_error_message());
    abort();
}

/* ------------------------------------------------------------------------ */
/* Time                                                                      */
/* ------------------------------------------------------------------------ */

double now_seconds(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static struct timespec deadline_after(double seconds) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    double whole = (double)(long)seconds;
    ts.tv_sec += (time_t)whole;
    ts.tv_nsec += (long)((seconds - whole) * 1e9);
    if (ts.tv_nsec >= 1000000000L) {
        ts.tv_sec += 1;
        ts.tv_nsec -= 1000000000L;
    }
    return ts;
}

static void init_monotonic_cond(pthread_cond_t *cond) {
    pthread_condattr_t attr;
    pthread_condattr_init(&attr);
    pthread_condattr_setclock(&attr, CLOCK_MONOTONIC);
    pthread_cond_init(cond, &attr);
    pthread_condattr_destroy(&attr);
}

bool fd_readable_now(int fd) {
    struct pollfd p = { fd, POLLIN, 0 };
    int n;
    do {
        n = poll(&p, 1, 0);
    } while (n < 0 && errno == EINTR);
    return n == 1 && (p.revents & POLLIN) != 0;
}

bool fd_wait_readable(int fd, double seconds) {
    double deadline = now_seconds() + seconds;
    for (;;) {
        double left = deadline - now_seconds();
        if (left < 0) {
            left = 0;
        }
        struct pollfd p = { fd, POLLIN, 0 };
        int n = poll(&p, 1, (int)(left * 1000) + 1);
        if (n == 1 && (p.revents & POLLIN) != 0) {
            return true;
        }
        if (n < 0 && errno == EINTR) {
            continue;
        }
        if (now_seconds() >= deadline) {
            return false;
        }
    }
}

/* `*value`, read under `mutex`. */
static int locked_int(pthread_mutex_t *mutex, const int *value) {
    pthread_mutex_lock(mutex);
    int n = *value;
    pthread_mutex_unlock(mutex);
    return n;
}

sk_signal *new_signal(sk_generator_fn generator, void *ctx, sk_release_fn release) {
    sk_signal *signal = NULL;
    SK_OK_OR_FAIL(sk_signal_create(&signal, generator, ctx, release));
    return signal;
}

/* ------------------------------------------------------------------------ */
/* Recorder                                                                  */
/* ------------------------------------------------------------------------ */

void recorder_init(recorder *r) {
    memset(r, 0, sizeof *r);
    pthread_mutex_init(&r->mutex, NULL);
    init_monotonic_cond(&r->cond);
    r->keep_values = true;
}

void recorder_destroy(recorder *r) {
    pthread_mutex_lock(&r->mutex);
    for (size_t i = 0; i < r->event_count; i++) {
        sk_value_release(&r->events[i].value);
    }
    r->event_count = 0;
    pthread_mutex_unlock(&r->mutex);
    pthread_cond_destroy(&r->cond);
    pthread_mutex_destroy(&r->mutex);
}

/* Records one event under the lock and wakes the waiters. */
static void record(recorder *r, rec_event_kind kind, const sk_value *value) {
    pthread_mutex_lock(&r->mutex);
    bool terminated = r->errors + r->completions > 0;
    if (r->releases > 0 || (terminated && kind != REC_RELEASE)) {
        r->late_events++;
    }
    switch (kind) {
    case REC_NEXT: r->nexts++; break;
    case REC_ERROR: r->errors++; break;
    case REC_COMPLETED: r->completions++; break;
    case REC_RELEASE: r->releases++; break;
    }
    if (r->event_count < REC_MAX_EVENTS) {
        rec_event *e = &r->events[r->event_count++];
        e->kind = kind;
        e->thread = pthread_self();
        sk_value_set_nil(&e->value);
        if (value != NULL && r->keep_values && sk_value_copy(&e->value, value) != SK_OK) {
            r->faults++;
        }
    } else {
        r->dropped_events++;
    }
    pthread_cond_broadcast(&r->cond);
    pthread_mutex_unlock(&r->mutex);
}

static void enter_callback(recorder *r) {
    pthread_mutex_lock(&r->mutex);
    if (r->in_callback > 0) {
        r->overlaps++;
    }
    r->in_callback++;
    pthread_mutex_unlock(&r->mutex);
}

static void leave_callback(recorder *r) {
    pthread_mutex_lock(&r->mutex);
    r->in_callback--;
    pthread_mutex_unlock(&r->mutex);
}

/* One callback of the recorder's observer: records an event of `kind` (its
 * `value`, NULL for a completion), then runs `hook` if set. A next or an
 * error without a value counts as a fault. */
static void rec_callback(recorder *r, rec_event_kind kind, const sk_value *value, rec_hook_fn hook) {
    enter_callback(r);
    if (value == NULL && kind != REC_COMPLETED) {
        pthread_mutex_lock(&r->mutex);
        r->faults++;
        pthread_mutex_unlock(&r->mutex);
    }
    record(r, kind, value);
    if (hook != NULL) {
        hook(r, value);
    }
    leave_callback(r);
}

static void rec_next(void *ctx, const sk_value *value) {
    recorder *r = ctx;
    rec_callback(r, REC_NEXT, value, r->on_next);
}

static void rec_error(void *ctx, const sk_value *error) {
    recorder *r = ctx;
    rec_callback(r, REC_ERROR, error, r->on_error);
}

static void rec_completed(void *ctx) {
    recorder *r = ctx;
    rec_callback(r, REC_COMPLETED, NULL, r->on_completed);
}

static void rec_release(void *ctx) {
    recorder *r = ctx;
    pthread_mutex_lock(&r->mutex);
    /* The release must come after the last callback has returned. */
    if (r->in_callback > 0) {
        r->late_events++;
    }
    pthread_mutex_unlock(&r->mutex);
    record(r, REC_RELEASE, NULL);
}

sk_observer recorder_observer(recorder *r) {
    sk_observer observer = { rec_next, rec_error, rec_completed, r, rec_release };
    return observer;
}

bool rec_released(const recorder *r, const void *arg) {
    (void)arg;
    return r->releases >= 1;
}

bool rec_terminated(const recorder *r, const void *arg) {
    (void)arg;
    return r->errors + r->completions >= 1;
}

bool rec_nexts_at_least(const recorder *r, const void *arg) {
    return r->nexts >= *(const int *)arg;
}

bool recorder_wait(recorder *r, rec_predicate pred, const void *arg, double seconds) {
    struct timespec deadline = deadline_after(seconds);
    pthread_mutex_lock(&r->mutex);
    bool ok = pred(r, arg);
    while (!ok) {
        int rc = pthread_cond_timedwait(&r->cond, &r->mutex, &deadline);
        ok = pred(r, arg);
        if (rc == ETIMEDOUT) {
            break;
        }
    }
    pthread_mutex_unlock(&r->mutex);
    return ok;
}

bool recorder_wait_release(recorder *r) {
    return recorder_wait(r, rec_released, NULL, SK_WAIT_SECONDS);
}

bool recorder_wait_nexts(recorder *r, int count) {
    return recorder_wait(r, rec_nexts_at_least, &count, SK_WAIT_SECONDS);
}

bool recorder_wait_terminated(recorder *r) {
    return recorder_wait(r, rec_terminated, NULL, SK_WAIT_SECONDS);
}

int recorder_nexts(recorder *r) {
    return locked_int(&r->mutex, &r->nexts);
}

int recorder_releases(recorder *r) {
    return locked_int(&r->mutex, &r->releases);
}

const char *recorder_log(recorder *r, char *buffer, size_t size) {
    pthread_mutex_lock(&r->mutex);
    size_t n = 0;
    for (size_t i = 0; i < r->event_count && n + 1 < size; i++) {
        buffer[n++] = (char)r->events[i].kind;
    }
    buffer[n] = '\0';
    pthread_mutex_unlock(&r->mutex);
    return buffer;
}

size_t recorder_ints(recorder *r, int64_t *out, size_t max) {
    size_t n = 0;
    pthread_mutex_lock(&r->mutex);
    for (size_t i = 0; i < r->event_count && n < max; i++) {
        if (r->events[i].kind != REC_NEXT) {
            continue;
        }
        int64_t v;
        out[n++] = sk_value_get_int64(&r->events[i].value, &v) == SK_OK ? v : INT64_MIN;
    }
    pthread_mutex_unlock(&r->mutex);
    return n;
}

const rec_event *recorder_event(recorder *r, size_t index) {
    pthread_mutex_lock(&r->mutex);
    const rec_event *e = index < r->event_count ? &r->events[index] : NULL;
    pthread_mutex_unlock(&r->mutex);
    return e;
}

sk_disposable *recorder_start(recorder *r, sk_signal *signal) {
    recorder_init(r);
    sk_observer observer = recorder_observer(r);
    sk_disposable *d = NULL;
    SK_OK_OR_FAIL(sk_signal_start(&d, signal, &observer));
    cr_assert_not_null(d);
    return d;
}

void recorder_finish(recorder *r, sk_disposable *d) {
    sk_disposable_dispose(d);
    sk_disposable_release(d);
    cr_assert_eq(recorder_releases(r), 1, "the observer's release ran %d times", recorder_releases(r));
    recorder_destroy(r);
}

void expect_signal_log(sk_signal *signal, const char *expected, const int64_t *values, size_t count) {
    recorder r;
    sk_disposable *d = recorder_start(&r, signal);
    recorder_expect(&r, expected, values, count);
    recorder_finish(&r, d);
    sk_signal_release(signal);
}

void expect_one_nil(sk_signal *signal) {
    recorder r;
    sk_disposable *d = recorder_start(&r, signal);
    recorder_expect(&r, "ncr", NULL, 0);
    cr_assert_eq(sk_value_kind(&recorder_event(&r, 0)->value), SK_KIND_NIL);
    recorder_finish(&r, d);
    sk_signal_release(signal);
}

void recorder_expect_one(recorder *r, const char *expected, int64_t value) {
    recorder_expect(r, expected, &value, 1);
}

void recorder_expect_error(recorder *r, const sk_value *error) {
    recorder_expect(r, "er", NULL, 0);
    cr_assert(sk_value_equal(&recorder_event(r, 0)->value, error), "not the error put");
}

void recorder_expect(recorder *r, const char *expected, const int64_t *values, size_t count) {
    char log[REC_MAX_EVENTS + 1];
    recorder_log(r, log, sizeof log);
    cr_assert_str_eq(log, expected, "event log \"%s\", expected \"%s\"", log, expected);
    if (values != NULL) {
        int64_t got[REC_MAX_EVENTS];
        size_t n = recorder_ints(r, got, REC_MAX_EVENTS);
        cr_assert_eq(n, count, "%zu values, expected %zu", n, count);
        for (size_t i = 0; i < count; i++) {
            cr_assert_eq(got[i], values[i], "value %zu is %lld, expected %lld", i, (long long)got[i],
                         (long long)values[i]);
        }
    }
    pthread_mutex_lock(&r->mutex);
    int late = r->late_events;
    int faults = r->faults;
    pthread_mutex_unlock(&r->mutex);
    cr_assert_eq(late, 0, "%d callbacks arrived after the terminal event or the release", late);
    cr_assert_eq(faults, 0, "%d callbacks received a NULL value (or could not copy it)", faults);
}

/* ------------------------------------------------------------------------ */
/* Counter                                                                   */
/* ------------------------------------------------------------------------ */

void counter_init(counter *c) {
    memset(c, 0, sizeof *c);
    pthread_mutex_init(&c->mutex, NULL);
    init_monotonic_cond(&c->cond);
}

void counter_destroy(counter *c) {
    pthread_cond_destroy(&c->cond);
    pthread_mutex_destroy(&c->mutex);
}

void counter_hit(void *ctx) {
    counter *c = ctx;
    pthread_mutex_lock(&c->mutex);
    c->hits++;
    c->last_thread = pthread_self();
    pthread_cond_broadcast(&c->cond);
    pthread_mutex_unlock(&c->mutex);
}

int counter_get(counter *c) {
    return locked_int(&c->mutex, &c->hits);
}

bool counter_wait(counter *c, int count, double seconds) {
    struct timespec deadline = deadline_after(seconds);
    pthread_mutex_lock(&c->mutex);
    while (c->hits < count) {
        if (pthread_cond_timedwait(&c->cond, &c->mutex, &deadline) == ETIMEDOUT) {
            break;
        }
    }
    bool ok = c->hits >= count;
    pthread_mutex_unlock(&c->mutex);
    return ok;
}

/* counter_init / counter_destroy on each of the `count` counter * that follow. */
static void counters_apply(void (*fn)(counter *c), size_t count, va_list counters) {
    for (size_t i = 0; i < count; i++) {
        fn(va_arg(counters, counter *));
    }
}

void counters_init(size_t count, ...) {
    va_list counters;
    va_start(counters, count);
    counters_apply(counter_init, count, counters);
    va_end(counters);
}

void counters_destroy(size_t count, ...) {
    va_list counters;
    va_start(counters, count);
    counters_apply(counter_destroy, count, counters);
    va_end(counters);
}

/* ------------------------------------------------------------------------ */
/* Char log                                                                  */
/* ------------------------------------------------------------------------ */

void char_log_init(char_log *l) {
    memset(l, 0, sizeof *l);
    pthread_mutex_init(&l->mutex, NULL);
}

void char_log_destroy(char_log *l) {
    pthread_mutex_destroy(&l->mutex);
}

void char_log_append(char_log *l, char c) {
    pthread_mutex_lock(&l->mutex);
    if (l->length + 1 < sizeof l->text) {
        l->text[l->length++] = c;
        l->text[l->length] = '\0';
    }
    pthread_mutex_unlock(&l->mutex);
}

void char_log_expect(char_log *l, const char *expected, const char *what) {
    char text[sizeof l->text];
    pthread_mutex_lock(&l->mutex);
    memcpy(text, l->text, sizeof text);
    pthread_mutex_unlock(&l->mutex);
    cr_assert_str_eq(text, expected, "%s: log \"%s\", expected \"%s\"", what, text, expected);
}

/* ------------------------------------------------------------------------ */
/* Gate                                                                      */
/* ------------------------------------------------------------------------ */

void gate_init(gate *g) {
    counter_init(&g->opened);
}

void gate_destroy(gate *g) {
    counter_destroy(&g->opened);
}

void gate_open(gate *g) {
    counter_hit(&g->opened);
}

bool gate_wait(gate *g, double seconds) {
    return counter_wait(&g->opened, 1, seconds);
}

/* ------------------------------------------------------------------------ */
/* Leak check                                                                */
/* ------------------------------------------------------------------------ */

static void nothing(void *ctx) {
    (void)ctx;
}

void flush_queue(sk_queue *queue) {
    int fd;
    if (sk_queue_host_fd(queue, &fd) == SK_OK) {
        /* Drain until nothing is pending (tasks may enqueue more). */
        size_t ran = 0, empty = 0;
        for (int round = 0; round < 1000 && fd_readable_now(fd); round++) {
            ran = 0;
            SK_OK_OR_FAIL(sk_queue_host_drain(queue, 0, &ran));
            empty += ran == 0 ? 1 : 0;
        }
        cr_assert(!fd_readable_now(fd), "host queue still has work after 1000 drains (%zu of them ran nothing; the last ran %zu tasks)", empty, ran);
    } else {
        SK_OK_OR_FAIL(sk_queue_sync(queue, nothing, NULL, NULL));
    }
}

void expect_no_live_objects(size_t count, ...) {
    va_list queues;
    va_start(queues, count);
    for (size_t i = 0; i < count; i++) {
        sk_queue *queue = va_arg(queues, sk_queue *);
        flush_queue(queue);
        sk_queue_release(queue);
    }
    va_end(queues);
    long live = sk_live_objects();
    cr_assert_eq(live, 0, "%ld library objects still alive at the end of the test", live);
}

/* ------------------------------------------------------------------------ */
/* Values and signals                                                        */
/* ------------------------------------------------------------------------ */

sk_value int_value(int64_t n) {
    sk_value v;
    sk_value_set_int64(&v, n);
    return v;
}

void values_release(size_t count, ...) {
    va_list values;
    va_start(values, count);
    for (size_t i = 0; i < count; i++) {
        sk_value_release(va_arg(values, sk_value *));
    }
    va_end(values);
}

sk_value string_value(const char *text) {
    sk_value v;
    SK_OK_OR_FAIL(sk_value_set_string(&v, text));
    return v;
}

int64_t value_int(const sk_value *value) {
    int64_t n = 0;
    SK_OK_OR_FAIL(sk_value_get_int64(value, &n));
    return n;
}

typedef struct ints_ctx {
    size_t count;
    int64_t values[];
} ints_ctx;

static sk_disposable *ints_generator(void *ctx, sk_subscriber *subscriber) {
    ints_ctx *ints = ctx;
    for (size_t i = 0; i < ints->count; i++) {
        sk_value v = int_value(ints->values[i]);
        SK_OK_OR_ABORT(sk_subscriber_put_next(subscriber, &v));
    }
    SK_OK_OR_ABORT(sk_subscriber_put_completion(subscriber));
    return NULL;
}

sk_signal *made_signal(int (*make)(sk_signal **out)) {
    sk_signal *signal = NULL;
    SK_OK_OR_FAIL(make(&signal));
    cr_assert_not_null(signal);
    return signal;
}

sk_signal *ints_signal(const int64_t *values, size_t count) {
    ints_ctx *ctx = malloc(sizeof *ctx + count * sizeof(int64_t));
    cr_assert_not_null(ctx);
    ctx->count = count;
    if (count > 0) {
        memcpy(ctx->values, values, count * sizeof(int64_t));
    }
    return new_signal(ints_generator, ctx, free);
}

void pipe_put_int(sk_pipe *pipe, int64_t n) {
    sk_value v = int_value(n);
    SK_OK_OR_FAIL(sk_pipe_put(pipe, &v));
}

void subscriber_put_int(sk_subscriber *subscriber, int64_t n) {
    sk_value v = int_value(n);
    SK_OK_OR_FAIL(sk_subscriber_put_next(subscriber, &v));
}

/* ------------------------------------------------------------------------ */
/* Manual source                                                             */
/* ------------------------------------------------------------------------ */

void manual_init(manual_source *s) {
    memset(s, 0, sizeof *s);
    pthread_mutex_init(&s->mutex, NULL);
    counters_init(4, &s->starts, &s->disposed, &s->disposable_released, &s->ctx_released);
}

void manual_destroy(manual_source *s) {
    for (size_t i = 0; i < MANUAL_MAX_STARTS; i++) {
        manual_drop_subscriber(s, i);
    }
    counters_destroy(4, &s->starts, &s->disposed, &s->disposable_released, &s->ctx_released);
    pthread_mutex_destroy(&s->mutex);
}

static void manual_dispose_action(void *ctx) {
    counter_hit(&((manual_source *)ctx)->disposed);
}

static void manual_disposable_release(void *ctx) {
    counter_hit(&((manual_source *)ctx)->disposable_released);
}

static void manual_ctx_release(void *ctx) {
    counter_hit(&((manual_source *)ctx)->ctx_released);
}

sk_signal *manual_init_signal(manual_source *s) {
    manual_init(s);
    return manual_signal(s);
}

sk_disposable *manual_action(manual_source *s) {
    sk_disposable *disposable = NULL;
    SK_OK_OR_ABORT(sk_disposable_action(&disposable, manual_dispose_action, s, manual_disposable_release));
    return disposable;
}

static sk_disposable *manual_generator(void *ctx, sk_subscriber *subscriber) {
    manual_source *s = ctx;
    pthread_mutex_lock(&s->mutex);
    if (s->started < MANUAL_MAX_STARTS) {
        s->subscribers[s->started] = sk_subscriber_retain(subscriber);
    }
    s->started++;
    pthread_mutex_unlock(&s->mutex);
    counter_hit(&s->starts);
    return manual_action(s);
}

sk_signal *manual_signal(manual_source *s) {
    return new_signal(manual_generator, s, manual_ctx_release);
}

sk_subscriber *manual_subscriber(manual_source *s, size_t index) {
    pthread_mutex_lock(&s->mutex);
    sk_subscriber *subscriber = index < MANUAL_MAX_STARTS ? s->subscribers[index] : NULL;
    pthread_mutex_unlock(&s->mutex);
    return subscriber;
}

void manual_drop_subscriber(manual_source *s, size_t index) {
    pthread_mutex_lock(&s->mutex);
    sk_subscriber *subscriber = NULL;
    if (index < MANUAL_MAX_STARTS) {
        subscriber = s->subscribers[index];
        s->subscribers[index] = NULL;
    }
    pthread_mutex_unlock(&s->mutex);
    sk_subscriber_release(subscriber);
}

typedef struct stack_job {
    void (*body)(void *arg);
    void *arg;
} stack_job;

static void *stack_trampoline(void *arg) {
    stack_job *job = arg;
    job->body(job->arg);
    return NULL;
}

void *run_on_stack(size_t bytes, void *(*body)(void *arg), void *arg) {
    pthread_attr_t attr;
    cr_assert_eq(pthread_attr_init(&attr), 0);
    cr_assert_eq(pthread_attr_setstacksize(&attr, bytes), 0);
    pthread_t thread;
    cr_assert_eq(pthread_create(&thread, &attr, body, arg), 0);
    void *result = NULL;
    cr_assert_eq(pthread_join(thread, &result), 0);
    pthread_attr_destroy(&attr);
    return result;
}

void run_on_small_stack(void (*body)(void *arg), void *arg) {
    stack_job job = { body, arg };
    run_on_stack(SMALL_STACK_BYTES, stack_trampoline, &job);
}

int open_fd_count(void) {
    DIR *dir = opendir("/proc/self/fd");
    cr_assert_not_null(dir, "cannot list /proc/self/fd");
    int count = 0;
    struct dirent *entry;
    while ((entry = readdir(dir)) != NULL) {
        if (entry->d_name[0] != '.') {
            count++;
        }
    }
    closedir(dir);
    return count - 1; /* the directory's own descriptor */
}

bool running_under_valgrind(void) {
    const char *preload = getenv("LD_PRELOAD");
    return preload != NULL && strstr(preload, "vgpreload") != NULL;
}

int wait_fd_count_at_most(int limit) {
    double deadline = now_seconds() + SK_WAIT_SECONDS;
    int count = open_fd_count();
    while (count > limit && now_seconds() < deadline) {
        sched_yield();
        count = open_fd_count();
    }
    return count;
}

/* ------------------------------------------------------------------------ */
/* Operator fixtures                                                         */
/* ------------------------------------------------------------------------ */

static sk_disposable *countdown_generator(void *ctx, sk_subscriber *subscriber) {
    countdown *c = ctx;
    pthread_mutex_lock(&c->mutex);
    int n = ++c->starts;
    if (c->expected_queue != NULL && !sk_queue_is_current(c->expected_queue)) {
        c->off_queue++;
    }
    bool hold = n > c->limit && c->held == NULL;
    if (hold) {
        c->held = sk_subscriber_retain(subscriber);
    }
    pthread_mutex_unlock(&c->mutex);
    counter_hit(&c->start_count);
    if (n <= c->limit) {
        sk_value v = int_value(n);
        SK_OK_OR_ABORT(sk_subscriber_put_next(subscriber, &v));
        if (c->fail) {
            SK_OK_OR_ABORT(sk_subscriber_put_error(subscriber, &v));
        } else {
            SK_OK_OR_ABORT(sk_subscriber_put_completion(subscriber));
        }
        return NULL;
    }
    sk_disposable *d = NULL;
    SK_OK_OR_ABORT(sk_disposable_action(&d, counter_hit, &c->disposed, NULL));
    return d;
}

static void countdown_ctx_release(void *ctx) {
    counter_hit(&((countdown *)ctx)->released);
}

void countdown_init(countdown *c, int limit, bool fail) {
    memset(c, 0, sizeof *c);
    pthread_mutex_init(&c->mutex, NULL);
    c->limit = limit;
    c->fail = fail;
    counters_init(3, &c->start_count, &c->disposed, &c->released);
}

void countdown_destroy(countdown *c) {
    sk_subscriber_release(c->held);
    counters_destroy(3, &c->start_count, &c->disposed, &c->released);
    pthread_mutex_destroy(&c->mutex);
}

sk_signal *countdown_signal_counted(countdown *c) {
    return new_signal(countdown_generator, c, countdown_ctx_release);
}

int countdown_starts(countdown *c) {
    return locked_int(&c->mutex, &c->starts);
}

void start_loop(void *arg) {
    loop_run *run = arg;
    sk_observer observer = recorder_observer(run->r);
    SK_OK_OR_ABORT(sk_signal_start(&run->d, run->signal, &observer));
}

void countdown_run_init(countdown_run *t, int limit, bool fail) {
    countdown_init(&t->c, limit, fail);
    t->source = countdown_signal_counted(&t->c);
    t->op = NULL;
    t->d = NULL;
    t->stopped = false;
}

void countdown_run_start(countdown_run *t) {
    t->d = recorder_start(&t->r, t->op);
}

void countdown_run_start_looping(countdown_run *t) {
    recorder_init(&t->r);
    loop_run run = { t->op, &t->r, NULL };
    run_on_small_stack(start_loop, &run);
    t->d = run.d;
    cr_assert_eq(countdown_starts(&t->c), t->c.limit + 1);
}

void countdown_run_loop(countdown_run *t, bool fail, int (*fn)(sk_signal **out, sk_signal *signal)) {
    countdown_run_init(t, LOOPS, fail);
    SK_OK_OR_FAIL(fn(&t->op, t->source));
    countdown_run_start_looping(t);
}

void countdown_run_stop(countdown_run *t) {
    recorder_finish(&t->r, t->d);
    t->stopped = true;
}

void countdown_run_finish(countdown_run *t) {
    if (!t->stopped) {
        countdown_run_stop(t);
    }
    sk_signal_release(t->op);
    sk_signal_release(t->source);
    t->released_at_finish = counter_get(&t->c.released);
    countdown_destroy(&t->c);
}

void expect_string_event(recorder *r, size_t index, const char *expected) {
    const rec_event *e = recorder_event(r, index);
    cr_assert_not_null(e, "no event %zu", index);
    const char *text = NULL;
    SK_OK_OR_FAIL(sk_value_get_string(&e->value, &text, NULL));
    cr_assert_str_eq(text, expected, "event %zu is \"%s\", expected \"%s\"", index, text, expected);
}

void expect_string_error(recorder *r, size_t index, const char *needle) {
    const rec_event *e = recorder_event(r, index);
    cr_assert_not_null(e);
    cr_assert_eq(e->kind, REC_ERROR);
    const char *text = NULL;
    SK_OK_OR_FAIL(sk_value_get_string(&e->value, &text, NULL));
    cr_assert(strstr(text, needle) != NULL, "error \"%s\" does not mention \"%s\"", text, needle);
}

void expect_only_the_error(pipeline *p, const char *text) {
    pipeline_start(p);
    subscriber_put_int(pipeline_subscriber(p), 1);
    sk_value error = string_value(text);
    SK_OK_OR_FAIL(sk_subscriber_put_error(pipeline_subscriber(p), &error));
    recorder_expect(&p->r, "er", NULL, 0);
    cr_assert(sk_value_equal(&recorder_event(&p->r, 0)->value, &error));
    sk_value_release(&error);
}

static sk_disposable *probe_generator(void *ctx, sk_subscriber *subscriber) {
    probe_source *p = ctx;
    bool on_queue = p->queue != NULL && sk_queue_is_current(p->queue);
    pthread_mutex_lock(&p->mutex);
    p->starts++;
    p->starts_on_queue += on_queue ? 1 : 0;
    p->thread = pthread_self();
    sk_subscriber *previous = p->subscriber;
    p->subscriber = sk_subscriber_retain(subscriber);
    pthread_mutex_unlock(&p->mutex);
    sk_subscriber_release(previous);
    sk_disposable *d = NULL;
    SK_OK_OR_ABORT(sk_disposable_action(&d, counter_hit, &p->disposed, NULL));
    return d;
}

static void probe_release(void *ctx) {
    counter_hit(&((probe_source *)ctx)->released);
}

void probe_source_init(probe_source *p, sk_queue *queue) {
    memset(p, 0, sizeof *p);
    pthread_mutex_init(&p->mutex, NULL);
    p->queue = queue;
    counters_init(2, &p->disposed, &p->released);
}

void probe_source_destroy(probe_source *p) {
    sk_subscriber_release(p->subscriber);
    counters_destroy(2, &p->disposed, &p->released);
    pthread_mutex_destroy(&p->mutex);
}

sk_signal *probe_signal(probe_source *p) {
    return new_signal(probe_generator, p, probe_release);
}

int probe_starts(probe_source *p) {
    return locked_int(&p->mutex, &p->starts);
}

bool probe_started(void *arg) {
    return probe_starts(arg) >= 1;
}

void probe_run_init(probe_run *t, sk_queue *queue) {
    memset(t, 0, sizeof *t);
    probe_source_init(&t->p, queue);
    probe_source_init(&t->alternate, queue);
    t->source = probe_signal(&t->p);
    t->fallback = probe_signal(&t->alternate);
}

void probe_run_start(probe_run *t) {
    cr_assert_not_null(t->op, "probe_run_start: no operator built");
    t->d = recorder_start(&t->r, t->op);
}

void probe_run_stop(probe_run *t) {
    recorder_finish(&t->r, t->d);
    t->stopped = true;
}

void probe_run_dispose_before_the_start(probe_run *t, sk_queue *queue) {
    probe_run_start(t);
    sk_disposable_dispose(t->d);
    flush_queue(queue);
    cr_assert_eq(probe_starts(&t->p), 0, "started after the dispose");
    recorder_expect(&t->r, "r", NULL, 0);
}

void probe_run_finish(probe_run *t) {
    if (!t->stopped) {
        probe_run_stop(t);
    }
    sk_signal_release(t->op);
    sk_signal_release(t->source);
    sk_signal_release(t->fallback);
    t->disposed = counter_get(&t->p.disposed);
    t->released = counter_get(&t->p.released);
    t->alternate_released = counter_get(&t->alternate.released);
    probe_source_destroy(&t->p);
    probe_source_destroy(&t->alternate);
}

sk_queue *host_queue(const char *name) {
    sk_queue *host = NULL;
    SK_OK_OR_FAIL(sk_queue_create_host(&host, name));
    return host;
}

sk_queue *serial_queue(const char *name) {
    sk_queue *queue = NULL;
    SK_OK_OR_FAIL(sk_queue_create(&queue, name));
    return queue;
}

int host_queue_fd(sk_queue *host) {
    int fd = -1;
    SK_OK_OR_FAIL(sk_queue_host_fd(host, &fd));
    cr_assert_geq(fd, 0);
    return fd;
}

void drain_until(sk_queue *host, bool (*done)(void *arg), void *arg) {
    int fd = host_queue_fd(host);
    double deadline = now_seconds() + SK_WAIT_SECONDS;
    while (!done(arg)) {
        cr_assert(now_seconds() < deadline, "timed out draining the host queue");
        if (fd_wait_readable(fd, deadline - now_seconds())) {
            SK_OK_OR_FAIL(sk_queue_host_drain(host, 0, NULL));
        }
    }
}

typedef struct event_goal {
    recorder *r;
    size_t count;
} event_goal;

static bool has_events(void *arg) {
    event_goal *goal = arg;
    pthread_mutex_lock(&goal->r->mutex);
    size_t have = goal->r->event_count;
    pthread_mutex_unlock(&goal->r->mutex);
    return have >= goal->count;
}

void drain_until_events(sk_queue *host, recorder *r, size_t count) {
    event_goal goal = { r, count };
    drain_until(host, has_events, &goal);
}

int expect_disposal_disposes_upstream(operator_builder build) {
    const char *name = "";
    int which = 0;
    for (;; which++) {
        manual_source s;
        manual_init(&s);
        sk_signal *source = manual_signal(&s);
        sk_signal *op = build(which, source, &s, &name);
        if (op == NULL) {
            sk_signal_release(source);
            manual_destroy(&s);
            break;
        }
        recorder r;
        sk_disposable *d = recorder_start(&r, op);
        cr_assert_eq(counter_get(&s.starts), 1, "%s: not started", name);
        sk_disposable_dispose(d);
        cr_assert_eq(counter_get(&s.disposed), 1, "%s: upstream not disposed", name);
        subscriber_put_int(manual_subscriber(&s, 0), 1);
        SK_OK_OR_FAIL(sk_subscriber_put_completion(manual_subscriber(&s, 0)));
        recorder_expect(&r, "r", NULL, 0);
        cr_assert_eq(counter_get(&s.starts), 1, "%s: started again after the dispose", name);
        recorder_finish(&r, d);
        sk_signal_release(op);
        sk_signal_release(source);
        manual_destroy(&s);
    }
    return which;
}

void expect_release_after_the_subscription(const char *name, callback_operator_call call) {
    manual_source s;
    manual_init(&s);
    sk_signal *source = manual_signal(&s);
    counter released;
    counter_init(&released);
    sk_signal *op = NULL;
    SK_OK_OR_FAIL(call(&op, source, true, &released, counter_hit));
    recorder r;
    sk_disposable *d = recorder_start(&r, op);
    sk_signal_release(op);
    sk_signal_release(source);
    cr_assert_eq(counter_get(&released), 0, "%s: released while subscribed", name);
    sk_disposable_dispose(d);
    cr_assert_eq(counter_get(&released), 1, "%s: release ran %d times", name, counter_get(&released));
    recorder_finish(&r, d);
    counter_destroy(&released);
    manual_destroy(&s);
}

/* Sets up the manual sources and signals and initialises the recorder; the
 * caller builds p->op, then pipeline_start; pipeline_finish releases all. */
void pipeline_init(pipeline *p) {
    memset(p, 0, sizeof *p);
    manual_init(&p->source);
    p->upstream = manual_signal(&p->source);
    for (size_t i = 0; i < PIPELINE_INNER; i++) {
        manual_init(&p->inner[i]);
        p->inner_signal[i] = manual_signal(&p->inner[i]);
    }
    recorder_init(&p->r);
}

/* Starts p->op into the recorder pipeline_init (or pipeline_restart)
 * initialised; the disposable goes to p->d. */
void pipeline_start(pipeline *p) {
    cr_assert_not_null(p->op, "pipeline_start: no operator built");
    sk_observer observer = recorder_observer(&p->r);
    p->d = NULL;
    SK_OK_OR_FAIL(sk_signal_start(&p->d, p->op, &observer));
    cr_assert_not_null(p->d);
}

void pipeline_start_unary(pipeline *p, unary_operator_fn fn) {
    pipeline_init(p);
    SK_OK_OR_FAIL(fn(&p->op, p->upstream));
    pipeline_start(p);
}

/* Finishes the running subscription (disposes it, checks the release,
 * destroys the recorder) and starts p->op again into a fresh recorder. */
void pipeline_restart(pipeline *p) {
    recorder_finish(&p->r, p->d);
    recorder_init(&p->r);
    pipeline_start(p);
}

sk_subscriber *pipeline_subscriber(pipeline *p) {
    return manual_subscriber(&p->source, 0);
}

sk_subscriber *pipeline_subscriber_at(pipeline *p, size_t index) {
    return manual_subscriber(&p->source, index);
}

sk_subscriber *pipeline_inner_subscriber(pipeline *p, size_t which) {
    cr_assert_lt(which, PIPELINE_INNER);
    return manual_subscriber(&p->inner[which], 0);
}

/* Ends the subscription as recorder_finish does; p->d is NULL after it. */
void pipeline_stop(pipeline *p) {
    cr_assert_not_null(p->d, "pipeline_stop: not started");
    recorder_finish(&p->r, p->d);
    p->d = NULL;
}

/* Ends the subscription (unless pipeline_stop did) and releases what
 * pipeline_init and the test's operator hold: the caller releases nothing
 * more. */
void pipeline_finish(pipeline *p) {
    if (p->d != NULL) {
        pipeline_stop(p);
    }
    sk_signal_release(p->op);
    sk_signal_release(p->upstream);
    manual_destroy(&p->source);
    for (size_t i = 0; i < PIPELINE_INNER; i++) {
        sk_signal_release(p->inner_signal[i]);
        manual_destroy(&p->inner[i]);
    }
}

/* One argument-error call of expect_unary_argument_errors. */
static void expect_unary_failure(const char *name, const char *what, unary_operator_fn fn, bool null_out,
                                 sk_signal *signal, int expected) {
    sk_signal *out = (sk_signal *)&out;
    int status = fn(null_out ? NULL : &out, signal);
    cr_assert_eq(status, expected, "%s with %s returned %d (%s)", name, what, status, sk_last_error_message());
    cr_assert(strlen(sk_last_error_message()) > 0, "%s with %s: no error message", name, what);
    if (!null_out) {
        cr_assert_null(out, "%s with %s left out set", name, what);
    }
}

void expect_unary_argument_errors(const char *name, unary_operator_fn fn, sk_signal *valid, sk_signal *not_signal) {
    expect_unary_failure(name, "a NULL out", fn, true, valid, SK_ERR_NULL_ARGUMENT);
    expect_unary_failure(name, "a NULL signal", fn, false, NULL, SK_ERR_NULL_ARGUMENT);
    expect_unary_failure(name, "a non-signal", fn, false, not_signal, SK_ERR_WRONG_KIND);
}

/* Makes the signal (+1) and the pipe (+1) bad_args_destroy releases. */
void bad_args_init(bad_args *a) {
    memset(a, 0, sizeof *a);
    SK_OK_OR_FAIL(sk_signal_never(&a->never));
    SK_OK_OR_FAIL(sk_pipe_create(&a->pipe, false));
    a->not_signal = (sk_signal *)(void *)a->pipe;
    a->not_queue = (sk_queue *)(void *)a->pipe;
    counter_init(&a->released);
}

void bad_args_destroy(bad_args *a) {
    counter_destroy(&a->released);
    sk_pipe_release(a->pipe);
    sk_signal_release(a->never);
}

void expect_callback_argument_errors(const char *name, callback_operator_call call, bad_args *a) {
    static const struct {
        const char *what;
        bool null_out;
        bool null_signal;
        bool with_callback;
        bool wrong_kind;
        int expected;
    } cases[] = {
        { "a NULL out", true, false, true, false, SK_ERR_NULL_ARGUMENT },
        { "a NULL signal", false, true, true, false, SK_ERR_NULL_ARGUMENT },
        { "a NULL callback", false, false, false, false, SK_ERR_NULL_ARGUMENT },
        { "a non-signal", false, false, true, true, SK_ERR_WRONG_KIND },
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        sk_signal *out = (sk_signal *)&out;
        sk_signal *signal = cases[i].null_signal ? NULL : cases[i].wrong_kind ? a->not_signal : a->never;
        int before = counter_get(&a->released);
        int status = call(cases[i].null_out ? NULL : &out, signal, cases[i].with_callback, &a->released, counter_hit);
        const char *what = cases[i].what;
        cr_assert_eq(status, cases[i].expected, "%s with %s returned %d (%s)", name, what, status,
                     sk_last_error_message());
        cr_assert(strlen(sk_last_error_message()) > 0, "%s with %s: no error message", name, what);
        if (!cases[i].null_out) {
            cr_assert_null(out, "%s with %s left out set", name, what);
        }
        int ran = counter_get(&a->released) - before;
        cr_assert_eq(ran, 1, "%s with %s: the release ran %d times", name, what, ran);
    }
}

/* One failed call of an argument-error check: asserts `status` is
 * `expected` with a non-empty message and, unless the call had no out, that
 * it set `out` to NULL. */
static void expect_failed_call(const char *name, const char *what, int status, int expected, bool null_out,
                               const sk_signal *out) {
    cr_assert_eq(status, expected, "%s with %s returned %d (%s)", name, what, status, sk_last_error_message());
    cr_assert(strlen(sk_last_error_message()) > 0, "%s with %s: no error message", name, what);
    if (!null_out) {
        cr_assert_null(out, "%s with %s left out set", name, what);
    }
}

/* The argument mistakes of a queue or timed operator. */
typedef struct queue_mistake {
    const char *what;
    bool null_out;
    bool null_signal;
    bool wrong_signal;
    bool null_queue;
    bool wrong_queue;
    double seconds;
    int expected;
} queue_mistake;

static const queue_mistake queue_mistakes[] = {
    { "a NULL out", true, false, false, false, false, 0.1, SK_ERR_NULL_ARGUMENT },
    { "a NULL signal", false, true, false, false, false, 0.1, SK_ERR_NULL_ARGUMENT },
    { "a NULL queue", false, false, false, true, false, 0.1, SK_ERR_NULL_ARGUMENT },
    { "a non-signal", false, false, true, false, false, 0.1, SK_ERR_WRONG_KIND },
    { "a non-queue", false, false, false, false, true, 0.1, SK_ERR_WRONG_KIND },
    { "a negative duration", false, false, false, false, false, -0.001, SK_ERR_INVALID_ARGUMENT },
    { "a NaN duration", false, false, false, false, false, NAN, SK_ERR_INVALID_ARGUMENT },
    { "a minus infinite duration", false, false, false, false, false, -INFINITY, SK_ERR_INVALID_ARGUMENT },
};

/* Runs the first `count` mistakes through `queue_fn` (or `timed_fn`). */
static void expect_queue_mistakes(const char *name, queue_operator_fn queue_fn, timed_operator_fn timed_fn,
                                  size_t count, bad_args *a, sk_queue *queue) {
    for (size_t i = 0; i < count; i++) {
        const queue_mistake *m = &queue_mistakes[i];
        sk_signal *out = (sk_signal *)&out;
        sk_signal **out_arg = m->null_out ? NULL : &out;
        sk_signal *signal = m->null_signal ? NULL : m->wrong_signal ? a->not_signal : a->never;
        sk_queue *on = m->null_queue ? NULL : m->wrong_queue ? a->not_queue : queue;
        int status = timed_fn != NULL ? timed_fn(out_arg, signal, m->seconds, on) : queue_fn(out_arg, signal, on);
        expect_failed_call(name, m->what, status, m->expected, m->null_out, out);
    }
}

void expect_queue_operator_argument_errors(const char *name, queue_operator_fn fn, bad_args *a, sk_queue *queue) {
    expect_queue_mistakes(name, fn, NULL, 5, a, queue);
}

void expect_timed_operator_argument_errors(const char *name, timed_operator_fn fn, bad_args *a, sk_queue *queue) {
    expect_queue_mistakes(name, NULL, fn, sizeof queue_mistakes / sizeof queue_mistakes[0], a, queue);
    const double durations[] = { 0, INFINITY };
    for (size_t i = 0; i < 2; i++) {
        sk_signal *out = NULL;
        SK_OK_OR_FAIL(fn(&out, a->never, durations[i], queue));
        sk_signal_release(out);
    }
}

/* expect_dispose_inside_next's observer. */
typedef struct dispose_inside {
    sk_disposable *d;
    int nexts;
    int terminals;
    int releases;
} dispose_inside;

static void dispose_inside_next(void *ctx, const sk_value *value) {
    (void)value;
    dispose_inside *state = ctx;
    state->nexts++;
    sk_disposable_dispose(state->d);
}

static void dispose_inside_error(void *ctx, const sk_value *error) {
    (void)error;
    ((dispose_inside *)ctx)->terminals++;
}

static void dispose_inside_completed(void *ctx) {
    ((dispose_inside *)ctx)->terminals++;
}

static void dispose_inside_release(void *ctx) {
    ((dispose_inside *)ctx)->releases++;
}

void expect_dispose_inside_next(const char *name, pipe_operator_builder build, int puts) {
    sk_pipe *pipe = NULL;
    sk_signal *source = NULL;
    SK_OK_OR_FAIL(sk_pipe_create(&pipe, false));
    SK_OK_OR_FAIL(sk_pipe_signal(&source, pipe));
    sk_signal *op = build(source);
    cr_assert_not_null(op, "%s: not built", name);
    dispose_inside state = {0};
    sk_observer observer = {dispose_inside_next, dispose_inside_error, dispose_inside_completed, &state,
                            dispose_inside_release};
    SK_OK_OR_FAIL(sk_signal_start(&state.d, op, &observer));
    for (int i = 1; i <= puts + 1; i++) {
        sk_value value;
        sk_value_set_int64(&value, i);
        SK_OK_OR_FAIL(sk_pipe_put(pipe, &value));
    }
    cr_assert_eq(state.nexts, 1, "%s: %d values arrived after the dispose inside the first", name, state.nexts);
    cr_assert_eq(state.terminals, 0, "%s: a terminal event arrived after the dispose", name);
    cr_assert_eq(state.releases, 1, "%s: the observer's release ran %d times", name, state.releases);
    sk_disposable_release(state.d);
    sk_signal_release(op);
    sk_signal_release(source);
    sk_pipe_release(pipe);
}

void recorder_expect_int_array(recorder *r, size_t index, const int64_t *items, size_t count) {
    const rec_event *event = recorder_event(r, index);
    cr_assert_not_null(event, "no event %zu", index);
    cr_assert_eq(event->kind, REC_NEXT, "event %zu is not a value", index);
    size_t found = 0;
    SK_OK_OR_FAIL(sk_value_get_array_count(&event->value, &found));
    cr_assert_eq(found, count, "event %zu: an array of %zu, not %zu", index, found, count);
    for (size_t i = 0; i < count; i++) {
        const sk_value *item = NULL;
        int64_t n = 0;
        SK_OK_OR_FAIL(sk_value_get_array_item(&event->value, i, &item));
        SK_OK_OR_FAIL(sk_value_get_int64(item, &n));
        cr_assert_eq(n, items[i], "event %zu, item %zu: %lld, not %lld", index, i, (long long)n, (long long)items[i]);
    }
}

bool next_permutation(int *items, int count) {
    int i = count - 2;
    while (i >= 0 && items[i] >= items[i + 1]) {
        i--;
    }
    if (i < 0) {
        return false;
    }
    int j = count - 1;
    while (items[j] <= items[i]) {
        j--;
    }
    int swap = items[i];
    items[i] = items[j];
    items[j] = swap;
    for (int a = i + 1, b = count - 1; a < b; a++, b--) {
        swap = items[a];
        items[a] = items[b];
        items[b] = swap;
    }
    return true;
}
