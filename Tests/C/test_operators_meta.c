/* test_operators_meta.c - the C layer's Operators_Meta.swift (the core's
 * Signal_Meta family): map-to-signal and switch-to-latest (switching to the
 * latest inner signal, disposal of the outer and inner subscriptions, values
 * that are not signals), merge-map and group-by; ignore-values, queue,
 * throttled, then and deferred (values and order, terminal events, long
 * synchronous sequences on a small stack, disposal, argument errors);
 * start-with and concat. */

#include "support.h"

/* ------------------------------------------------------------------------ */
/* Map to signal                                                            */
/* ------------------------------------------------------------------------ */

/* value n >= 0 -> a manual signal over inners[n]; n < 0 -> NULL (empty). */
typedef struct inner_sources {
    manual_source inners[4];
    counter calls;
} inner_sources;

static sk_signal *to_inner(void *ctx, const sk_value *value) {
    inner_sources *t = ctx;
    counter_hit(&t->calls);
    int64_t n = value_int(value);
    if (n < 0) {
        return NULL;
    }
    return manual_signal(&t->inners[n]);
}

static void inner_sources_init(inner_sources *t) {
    for (size_t i = 0; i < 4; i++) {
        manual_init(&t->inners[i]);
    }
    counter_init(&t->calls);
}

static void inner_sources_destroy(inner_sources *t) {
    for (size_t i = 0; i < 4; i++) {
        manual_destroy(&t->inners[i]);
    }
    counter_destroy(&t->calls);
}

/* Map-to-signal over the pipeline's upstream into `t`'s inner sources,
 * started (pipeline_start); map_to_inner_finish ends and releases both and
 * runs the leak check. */
static void map_to_inner_start(pipeline *p, inner_sources *t) {
    pipeline_init(p);
    inner_sources_init(t);
    SK_OK_OR_FAIL(sk_signal_map_to_signal(&p->op, p->upstream, to_inner, t, NULL));
    pipeline_start(p);
}

static void map_to_inner_finish(pipeline *p, inner_sources *t) {
    pipeline_finish(p);
    inner_sources_destroy(t);
    expect_no_live_objects(0);
}

Test(operators_meta, map_to_signal_switches_to_latest_inner, .timeout = SK_TEST_TIMEOUT) {
    pipeline p;
    inner_sources t;
    map_to_inner_start(&p, &t);
    sk_subscriber *o = pipeline_subscriber(&p);

    subscriber_put_int(o, 0);
    cr_assert_eq(counter_get(&t.inners[0].starts), 1);
    subscriber_put_int(manual_subscriber(&t.inners[0], 0), 100);
    subscriber_put_int(o, 1);
    cr_assert_eq(counter_get(&t.inners[0].disposed), 1, "the previous inner was not disposed");
    cr_assert_eq(counter_get(&t.inners[1].starts), 1);
    subscriber_put_int(manual_subscriber(&t.inners[0], 0), 101); /* replaced: dropped */
    subscriber_put_int(manual_subscriber(&t.inners[1], 0), 200);
    SK_OK_OR_FAIL(sk_subscriber_put_completion(manual_subscriber(&t.inners[1], 0)));
    /* An inner's completion does not complete the result. */
    const int64_t so_far[] = { 100, 200 };
    recorder_expect(&p.r, "nn", so_far, 2);

    subscriber_put_int(o, 2);
    SK_OK_OR_FAIL(sk_subscriber_put_completion(o));
    recorder_expect(&p.r, "nn", so_far, 2); /* inner 2 still running */
    subscriber_put_int(manual_subscriber(&t.inners[2], 0), 300);
    SK_OK_OR_FAIL(sk_subscriber_put_completion(manual_subscriber(&t.inners[2], 0)));
    const int64_t all[] = { 100, 200, 300 };
    recorder_expect(&p.r, "nnncr", all, 3);
    cr_assert_eq(counter_get(&t.calls), 3);
    cr_assert_eq(counter_get(&t.inners[1].disposed), 1);
    cr_assert_eq(counter_get(&t.inners[2].disposed), 1);
    map_to_inner_finish(&p, &t);
}

/* The next inner signal starts while the previous one is still subscribed;
 * the previous one is disposed once that start has returned (as in the
 * original: inner signals that share a resource do not tear it down between
 * them). Value 0 maps to inners[0], value 1 to a signal whose start records
 * how many times inners[0] had been disposed. */
typedef struct switch_order {
    inner_sources sources;
    int previous_disposed_at_start;
} switch_order;

static sk_disposable *switch_order_start(void *ctx, sk_subscriber *subscriber) {
    switch_order *t = ctx;
    (void)subscriber;
    t->previous_disposed_at_start = counter_get(&t->sources.inners[0].disposed);
    return manual_action(&t->sources.inners[1]);
}

static sk_signal *switch_order_inner(void *ctx, const sk_value *value) {
    switch_order *t = ctx;
    if (value_int(value) == 0) {
        return manual_signal(&t->sources.inners[0]);
    }
    return new_signal(switch_order_start, t, NULL);
}

Test(operators_meta, map_to_signal_starts_the_next_inner_before_disposing_the_previous, .timeout = SK_TEST_TIMEOUT) {
    pipeline p;
    switch_order t;
    t.previous_disposed_at_start = -1;
    pipeline_init(&p);
    inner_sources_init(&t.sources);
    SK_OK_OR_FAIL(sk_signal_map_to_signal(&p.op, p.upstream, switch_order_inner, &t, NULL));
    pipeline_start(&p);
    sk_subscriber *o = pipeline_subscriber(&p);

    subscriber_put_int(o, 0);
    cr_assert_eq(counter_get(&t.sources.inners[0].starts), 1);
    subscriber_put_int(o, 1);
    cr_assert_eq(t.previous_disposed_at_start, 0, "the previous inner was disposed before the next one started");
    cr_assert_eq(counter_get(&t.sources.inners[0].disposed), 1, "the previous inner was not disposed");
    sk_disposable_dispose(p.d);
    cr_assert_eq(counter_get(&t.sources.inners[1].disposed), 1);
    pipeline_finish(&p);
    inner_sources_destroy(&t.sources);
    expect_no_live_objects(0);
}

Test(operators_meta, map_to_signal_null_means_empty, .timeout = SK_TEST_TIMEOUT) {
    const int64_t input[] = { -1, -1 };
    sk_signal *source = ints_signal(input, 2);
    inner_sources t;
    inner_sources_init(&t);
    sk_signal *switched = NULL;
    SK_OK_OR_FAIL(sk_signal_map_to_signal(&switched, source, to_inner, &t, NULL));
    expect_signal_log(switched, "cr", input, 0);
    cr_assert_eq(counter_get(&t.calls), 2);
    sk_signal_release(source);
    inner_sources_destroy(&t);
    expect_no_live_objects(0);
}

/* A handle that is not a signal, returned by the function: the library
 * takes the reference it was handed (releases it) and the subscription
 * fails with an error value naming the operator. */
static sk_signal *to_handle(void *ctx, const sk_value *value) {
    (void)value;
    return (sk_signal *)ctx;
}

static void expect_failure_from_returned_handle(sk_signal *handle, const char *expected) {
    const int64_t input[] = { 1 };
    sk_signal *source = ints_signal(input, 1);
    sk_signal *switched = NULL;
    SK_OK_OR_FAIL(sk_signal_map_to_signal(&switched, source, to_handle, handle, NULL));
    recorder r;
    sk_disposable *d = recorder_start(&r, switched);
    recorder_expect(&r, "er", NULL, 0);
    expect_string_event(&r, 0, expected);
    recorder_finish(&r, d);
    sk_signal_release(switched);
    sk_signal_release(source);
}

Test(operators_meta, map_to_signal_fn_returning_another_kind_of_handle_fails, .timeout = SK_TEST_TIMEOUT) {
    sk_pipe *pipe = NULL;
    SK_OK_OR_FAIL(sk_pipe_create(&pipe, false));
    expect_failure_from_returned_handle((sk_signal *)(void *)pipe,
                                        "sk_signal_map_to_signal: fn returned a handle that is not a signal");
    expect_no_live_objects(0); /* the pipe's reference was taken */
}

/* With handle checking on, a handle that is not in the registry (released,
 * or a pointer that never was a handle) is reported as such, as the
 * conventions say of every handle the library is given (it was reported as
 * "not a signal"). A pointer that never was a handle, rather than a released
 * one: the allocator may reuse a released handle's address for an object
 * that the test makes afterwards (it did under TSan), which then reads as
 * live. */
Test(operators_meta, map_to_signal_fn_returning_a_dead_handle_fails_saying_so, .timeout = SK_TEST_TIMEOUT) {
    SK_OK_OR_FAIL(sk_set_handle_checking(true));
    static uint64_t never_a_handle[16];
    expect_failure_from_returned_handle((sk_signal *)(void *)never_a_handle,
                                        "sk_signal_map_to_signal: fn returned a released handle (or one that never was a handle)");
    expect_no_live_objects(0);
}

Test(operators_meta, map_to_signal_dispose_disposes_outer_and_inner, .timeout = SK_TEST_TIMEOUT) {
    pipeline p;
    inner_sources t;
    map_to_inner_start(&p, &t);
    subscriber_put_int(pipeline_subscriber(&p), 3);
    sk_disposable_dispose(p.d);
    cr_assert_eq(counter_get(&p.source.disposed), 1);
    cr_assert_eq(counter_get(&t.inners[3].disposed), 1);
    recorder_expect(&p.r, "r", NULL, 0);
    map_to_inner_finish(&p, &t);
}

/* ------------------------------------------------------------------------ */
/* Switch to latest                                                         */
/* ------------------------------------------------------------------------ */

Test(operators_meta, switch_to_latest_of_signal_values, .timeout = SK_TEST_TIMEOUT) {
    pipeline p;
    pipeline_start_unary(&p, sk_signal_switch_to_latest);
    manual_source *inner = &p.inner[0];

    sk_signal *first = sk_signal_retain(p.inner_signal[0]);
    sk_value v;
    SK_OK_OR_FAIL(sk_value_set_signal(&v, first));
    sk_signal_release(first);
    SK_OK_OR_FAIL(sk_subscriber_put_next(pipeline_subscriber(&p), &v));
    sk_value_release(&v);
    subscriber_put_int(manual_subscriber(inner, 0), 1);

    const int64_t two[] = { 2 };
    sk_signal *second = ints_signal(two, 1);
    SK_OK_OR_FAIL(sk_value_set_signal(&v, second));
    sk_signal_release(second);
    SK_OK_OR_FAIL(sk_subscriber_put_next(pipeline_subscriber(&p), &v));
    sk_value_release(&v);
    cr_assert_eq(counter_get(&inner->disposed), 1, "the previous inner was not disposed");
    subscriber_put_int(manual_subscriber(inner, 0), 99);
    SK_OK_OR_FAIL(sk_subscriber_put_completion(pipeline_subscriber(&p)));
    const int64_t expected[] = { 1, 2 };
    recorder_expect(&p.r, "nncr", expected, 2);
    pipeline_finish(&p);
    expect_no_live_objects(0);
}

Test(operators_meta, switch_to_latest_non_signal_value_is_an_error, .timeout = SK_TEST_TIMEOUT) {
    pipeline p;
    pipeline_start_unary(&p, sk_signal_switch_to_latest);
    subscriber_put_int(pipeline_subscriber(&p), 5);
    recorder_expect(&p.r, "er", NULL, 0);
    const sk_value *error = &recorder_event(&p.r, 0)->value;
    cr_assert_eq(sk_value_kind(error), SK_KIND_STRING, "the error has kind %d", (int)sk_value_kind(error));
    const char *text = NULL;
    size_t length = 0;
    SK_OK_OR_FAIL(sk_value_get_string(error, &text, &length));
    cr_assert_gt(length, 0, "the error string is empty");
    cr_assert_eq(counter_get(&p.source.disposed), 1, "the error ends the subscription");
    pipeline_finish(&p);
    expect_no_live_objects(0);
}

/* ------------------------------------------------------------------------ */
/* merge_map, group_by (the core's Signal_Meta+MergeMap.swift and            */
/* Signal_Meta+GroupBy.swift; the shared marble table plays their cases:     */
/* test_marble_table.c)                                                      */
/* ------------------------------------------------------------------------ */

/* merge_map runs at most max_concurrent inner signals: a third value waits
 * until one of two running completes. */
Test(operators_meta, merge_map_bounds_the_running_inner_signals, .timeout = SK_TEST_TIMEOUT) {
    pipeline p;
    inner_sources t;
    pipeline_init(&p);
    inner_sources_init(&t);
    SK_OK_OR_FAIL(sk_signal_merge_map(&p.op, p.upstream, 2, to_inner, &t, NULL));
    pipeline_start(&p);
    for (int64_t i = 0; i < 3; i++) {
        subscriber_put_int(pipeline_subscriber(&p), i);
    }
    cr_assert_eq(counter_get(&t.inners[0].starts), 1);
    cr_assert_eq(counter_get(&t.inners[1].starts), 1);
    cr_assert_eq(counter_get(&t.inners[2].starts), 0, "a third inner signal ran past max_concurrent");
    subscriber_put_int(manual_subscriber(&t.inners[1], 0), 5);
    SK_OK_OR_FAIL(sk_subscriber_put_completion(manual_subscriber(&t.inners[1], 0)));
    cr_assert_eq(counter_get(&t.inners[2].starts), 1);
    subscriber_put_int(manual_subscriber(&t.inners[0], 0), 6);
    const int64_t expected[] = { 5, 6 };
    recorder_expect(&p.r, "nn", expected, 2);
    map_to_inner_finish(&p, &t);
}

/* The key of an int: its parity. */
static void parity(void *ctx, const sk_value *value, sk_value *out) {
    (void)ctx;
    sk_value_set_int64(out, value_int(value) % 2);
}

/* group_by's observer: subscribes each group as it comes into `groups`. */
typedef struct grouping {
    recorder groups[2];
    sk_disposable *d[2];
    int count;
} grouping;

static void subscribe_group(recorder *r, const sk_value *group) {
    grouping *g = r->user;
    const sk_value *key = NULL, *item = NULL;
    sk_signal *signal = NULL;
    SK_OK_OR_ABORT(sk_value_get_array_item(group, 0, &key));
    SK_OK_OR_ABORT(sk_value_get_array_item(group, 1, &item));
    SK_OK_OR_ABORT(sk_value_get_signal(item, &signal));
    int64_t k = value_int(key);
    if (k < 0 || k > 1 || g->count >= 2) {
        sk_test_abort("group_by: an unexpected group", SK_ERR_INVALID_ARGUMENT);
    }
    g->count++;
    g->d[k] = recorder_start(&g->groups[k], signal);
}

Test(operators_meta, group_by_splits_by_key_and_completes_every_group, .timeout = SK_TEST_TIMEOUT) {
    const int64_t input[] = { 1, 2, 3, 4, 5 };
    sk_signal *ints = ints_signal(input, 5);
    sk_signal *grouped = NULL;
    SK_OK_OR_FAIL(sk_signal_group_by(&grouped, ints, parity, NULL, NULL));
    grouping g = { 0 };
    recorder r;
    recorder_init(&r);
    r.user = &g;
    r.on_next = subscribe_group;
    sk_observer observer = recorder_observer(&r);
    sk_disposable *d = NULL;
    SK_OK_OR_FAIL(sk_signal_start(&d, grouped, &observer));
    cr_assert_eq(g.count, 2);
    const int64_t odd[] = { 1, 3, 5 }, even[] = { 2, 4 };
    recorder_expect(&g.groups[1], "nnncr", odd, 3);
    recorder_expect(&g.groups[0], "nncr", even, 2);
    recorder_expect(&r, "nncr", NULL, 0);
    for (int i = 0; i < 2; i++) {
        recorder_finish(&g.groups[i], g.d[i]);
    }
    recorder_finish(&r, d);
    sk_signal_release(grouped);
    sk_signal_release(ints);
    expect_no_live_objects(0);
}

/* The order in which group_by's groups end: each group's observer and the
 * result's write their key (-1 for the result) to `log`. */
#define ORDER_KEYS 10

typedef struct end_log {
    int64_t ends[ORDER_KEYS + 1];
    int count;
    sk_disposable *groups[ORDER_KEYS];
    int started;
} end_log;

typedef struct group_end {
    end_log *log;
    int64_t key;
} group_end;

static group_end group_ends[ORDER_KEYS];

static void log_end(void *ctx) {
    group_end *end = ctx;
    if (end->log->count > ORDER_KEYS) {
        sk_test_abort("group_by: more ends than groups", SK_ERR_INVALID_ARGUMENT);
    }
    end->log->ends[end->log->count++] = end->key;
}

static void log_error_end(void *ctx, const sk_value *error) {
    (void)error;
    log_end(ctx);
}

static void identity_key(void *ctx, const sk_value *value, sk_value *out) {
    (void)ctx;
    sk_value_set_int64(out, value_int(value));
}

/* The result's value callback (its context the result's own group_end, of
 * key -1): starts each group with an observer logging its end. */
static void start_logged_group(void *ctx, const sk_value *pair) {
    end_log *log = ((group_end *)ctx)->log;
    const sk_value *key = NULL, *item = NULL;
    sk_signal *signal = NULL;
    SK_OK_OR_ABORT(sk_value_get_array_item(pair, 0, &key));
    SK_OK_OR_ABORT(sk_value_get_array_item(pair, 1, &item));
    SK_OK_OR_ABORT(sk_value_get_signal(item, &signal));
    if (log->started >= ORDER_KEYS) {
        sk_test_abort("group_by: more groups than keys", SK_ERR_INVALID_ARGUMENT);
    }
    group_end *end = &group_ends[log->started];
    end->log = log;
    end->key = value_int(key);
    sk_observer observer = { NULL, log_error_end, log_end, end, NULL };
    SK_OK_OR_ABORT(sk_signal_start(&log->groups[log->started], signal, &observer));
    log->started++;
}

/* The groups end in the order they were delivered, whatever their keys, then
 * the result, for a completion and for an error (they ended in the order of
 * a Swift dictionary, which changes from one process to the next). */
Test(operators_meta, group_by_ends_the_groups_in_the_order_they_were_delivered, .timeout = SK_TEST_TIMEOUT) {
    const int64_t keys[ORDER_KEYS] = { 7, 3, 12, 0, 5, 9, 1, 4, 11, 2 };
    for (int fails = 0; fails < 2; fails++) {
        sk_pipe *pipe = NULL;
        sk_signal *source = NULL, *grouped = NULL;
        sk_disposable *d = NULL;
        end_log log = { .count = 0 };
        group_end outer = { &log, -1 };
        SK_OK_OR_FAIL(sk_pipe_create(&pipe, false));
        SK_OK_OR_FAIL(sk_pipe_signal(&source, pipe));
        SK_OK_OR_FAIL(sk_signal_group_by(&grouped, source, identity_key, NULL, NULL));
        sk_observer observer = { start_logged_group, log_error_end, log_end, &outer, NULL };
        SK_OK_OR_FAIL(sk_signal_start(&d, grouped, &observer));
        for (int i = 0; i < ORDER_KEYS; i++) {
            sk_value v = int_value(keys[i]);
            SK_OK_OR_FAIL(sk_pipe_put(pipe, &v));
        }
        if (fails) {
            sk_value error = int_value(-2);
            SK_OK_OR_FAIL(sk_pipe_put_error(pipe, &error));
        } else {
            SK_OK_OR_FAIL(sk_pipe_put_completion(pipe));
        }
        cr_assert_eq(log.count, ORDER_KEYS + 1, "%d ends", log.count);
        cr_assert_eq(log.ends[ORDER_KEYS], -1, "the result ends last");
        for (int i = 0; i < ORDER_KEYS; i++) {
            cr_assert_eq(log.ends[i], keys[i], "%s: end %d is group %lld, expected %lld", fails ? "error" : "completion", i,
                         (long long)log.ends[i], (long long)keys[i]);
        }
        for (int i = 0; i < ORDER_KEYS; i++) {
            sk_disposable_release(log.groups[i]);
        }
        sk_disposable_release(d);
        sk_signal_release(grouped);
        sk_signal_release(source);
        sk_pipe_release(pipe);
    }
    expect_no_live_objects(0);
}

/* Issue 40: group_by under threads. GROUP_THREADS threads put GROUP_PUTS
 * values each into one pipe; each of the GROUP_KEYS groups is subscribed
 * from the callback that receives its [key, group] array, as the header
 * advises. Before the fix a value another thread put while an array was
 * being delivered went to a group nobody had subscribed yet: 3 to 11 of
 * 32,000 were lost in every run. A quarter under the sanitizers (whose
 * instrumentation slows each put some tenfold), where it looks for races;
 * the release library's run (test-c) keeps the count that lost values. */
#define GROUP_THREADS 8
#define GROUP_PUTS (SK_TEST_SANITIZED ? 1000 : 4000)
#define GROUP_KEYS 64

typedef struct many_groups {
    pthread_mutex_t mutex;
    recorder groups[GROUP_KEYS];
    sk_disposable *d[GROUP_KEYS];
    int count;
    int faults;
} many_groups;

/* The key of the i-th value of each thread (value i * GROUP_THREADS +
 * thread): i % GROUP_KEYS, so that every thread puts every key, at about the
 * same time. */
static void key_of_index(void *ctx, const sk_value *value, sk_value *out) {
    (void)ctx;
    sk_value_set_int64(out, (value_int(value) / GROUP_THREADS) % GROUP_KEYS);
}

/* The outer observer's hook: subscribes the group of the array `pair`
 * (any thread). */
static void subscribe_one_of_many(recorder *r, const sk_value *pair) {
    many_groups *g = r->user;
    const sk_value *key = NULL, *item = NULL;
    sk_signal *signal = NULL;
    if (sk_value_get_array_item(pair, 0, &key) != SK_OK || sk_value_get_array_item(pair, 1, &item) != SK_OK
        || sk_value_get_signal(item, &signal) != SK_OK) {
        pthread_mutex_lock(&g->mutex);
        g->faults++;
        pthread_mutex_unlock(&g->mutex);
        return;
    }
    int64_t k = value_int(key);
    sk_observer observer = recorder_observer(&g->groups[k]);
    sk_disposable *d = NULL;
    int status = sk_signal_start(&d, signal, &observer);
    pthread_mutex_lock(&g->mutex);
    if (status != SK_OK || g->d[k] != NULL) {
        g->faults++;
    }
    g->d[k] = d;
    g->count++;
    pthread_mutex_unlock(&g->mutex);
}

typedef struct group_putter {
    sk_pipe *pipe;
    pthread_barrier_t *start;
    int index;
} group_putter;

static void *put_group_values(void *arg) {
    group_putter *job = arg;
    pthread_barrier_wait(job->start);
    for (int i = 0; i < GROUP_PUTS; i++) {
        sk_value v = int_value((int64_t)i * GROUP_THREADS + job->index);
        SK_OK_OR_ABORT(sk_pipe_put(job->pipe, &v));
    }
    return NULL;
}

Test(operators_meta, group_by_loses_no_value_under_threads, .timeout = SK_TEST_TIMEOUT) {
    for (int round = 0; round < 8; round++) {
        sk_pipe *pipe = NULL;
        sk_signal *source = NULL, *grouped = NULL;
        SK_OK_OR_FAIL(sk_pipe_create(&pipe, false));
        SK_OK_OR_FAIL(sk_pipe_signal(&source, pipe));
        SK_OK_OR_FAIL(sk_signal_group_by(&grouped, source, key_of_index, NULL, NULL));
        many_groups *g = calloc(1, sizeof *g);
        cr_assert_not_null(g);
        pthread_mutex_init(&g->mutex, NULL);
        for (int k = 0; k < GROUP_KEYS; k++) {
            recorder_init(&g->groups[k]);
            g->groups[k].keep_values = false;
        }
        recorder outer;
        recorder_init(&outer);
        outer.user = g;
        outer.on_next = subscribe_one_of_many;
        sk_observer observer = recorder_observer(&outer);
        sk_disposable *d = NULL;
        SK_OK_OR_FAIL(sk_signal_start(&d, grouped, &observer));

        pthread_t threads[GROUP_THREADS];
        group_putter jobs[GROUP_THREADS];
        pthread_barrier_t start;
        cr_assert_eq(pthread_barrier_init(&start, NULL, GROUP_THREADS), 0);
        for (int t = 0; t < GROUP_THREADS; t++) {
            jobs[t].pipe = pipe;
            jobs[t].start = &start;
            jobs[t].index = t;
            cr_assert_eq(pthread_create(&threads[t], NULL, put_group_values, &jobs[t]), 0);
        }
        for (int t = 0; t < GROUP_THREADS; t++) {
            pthread_join(threads[t], NULL);
        }
        pthread_barrier_destroy(&start);
        SK_OK_OR_FAIL(sk_pipe_put_completion(pipe));

        cr_assert_eq(g->faults, 0);
        cr_assert_eq(g->count, GROUP_KEYS, "round %d: %d groups subscribed, %d arrays", round, g->count, recorder_nexts(&outer));
        int total = 0, wrong = 0, first_wrong = -1;
        for (int k = 0; k < GROUP_KEYS; k++) {
            /* Key k is the key of i = k, k + GROUP_KEYS, ... below GROUP_PUTS,
             * in every thread. */
            int expected = GROUP_THREADS * ((GROUP_PUTS - k + GROUP_KEYS - 1) / GROUP_KEYS);
            int nexts = recorder_nexts(&g->groups[k]);
            total += nexts;
            if (nexts != expected || g->groups[k].completions != 1 || g->groups[k].late_events != 0) {
                wrong++;
                first_wrong = first_wrong < 0 ? k : first_wrong;
            }
        }
        cr_assert_eq(total, GROUP_THREADS * GROUP_PUTS, "round %d: %d of %d values reached their groups", round, total,
                     GROUP_THREADS * GROUP_PUTS);
        cr_assert_eq(wrong, 0, "round %d: %d groups received another count of values or not one completion (the first: %d)",
                     round, wrong, first_wrong);
        for (int k = 0; k < GROUP_KEYS; k++) {
            recorder_finish(&g->groups[k], g->d[k]);
        }
        recorder_finish(&outer, d);
        pthread_mutex_destroy(&g->mutex);
        free(g);
        sk_signal_release(grouped);
        sk_signal_release(source);
        sk_pipe_release(pipe);
    }
    expect_no_live_objects(0);
}

/* The same race, step by step: while the array of a new group is being
 * delivered, another thread puts a second value of that key (and its put
 * returns); then the group is subscribed. It receives both values. */
typedef struct racing_group {
    sk_pipe *pipe;
    recorder group;
    sk_disposable *d;
} racing_group;

static void *put_three(void *arg) {
    racing_group *rg = arg;
    sk_value v = int_value(3);
    SK_OK_OR_ABORT(sk_pipe_put(rg->pipe, &v));
    return NULL;
}

static void subscribe_after_another_put(recorder *r, const sk_value *pair) {
    racing_group *rg = r->user;
    const sk_value *item = NULL;
    sk_signal *signal = NULL;
    SK_OK_OR_ABORT(sk_value_get_array_item(pair, 1, &item));
    SK_OK_OR_ABORT(sk_value_get_signal(item, &signal));
    pthread_t other;
    if (pthread_create(&other, NULL, put_three, rg) != 0) {
        sk_test_abort("pthread_create", SK_ERR_INVALID_ARGUMENT);
    }
    pthread_join(other, NULL);
    sk_observer observer = recorder_observer(&rg->group);
    SK_OK_OR_ABORT(sk_signal_start(&rg->d, signal, &observer));
}

Test(operators_meta, group_by_keeps_a_value_put_while_the_group_is_announced, .timeout = SK_TEST_TIMEOUT) {
    racing_group rg = { 0 };
    sk_signal *source = NULL, *grouped = NULL;
    SK_OK_OR_FAIL(sk_pipe_create(&rg.pipe, false));
    SK_OK_OR_FAIL(sk_pipe_signal(&source, rg.pipe));
    SK_OK_OR_FAIL(sk_signal_group_by(&grouped, source, parity, NULL, NULL));
    recorder_init(&rg.group);
    recorder outer;
    recorder_init(&outer);
    outer.user = &rg;
    outer.on_next = subscribe_after_another_put;
    sk_observer observer = recorder_observer(&outer);
    sk_disposable *d = NULL;
    SK_OK_OR_FAIL(sk_signal_start(&d, grouped, &observer));
    sk_value one = int_value(1);
    SK_OK_OR_FAIL(sk_pipe_put(rg.pipe, &one));
    const int64_t expected[] = { 1, 3 };
    recorder_expect(&rg.group, "nn", expected, 2);
    recorder_finish(&rg.group, rg.d);
    recorder_finish(&outer, d);
    sk_signal_release(grouped);
    sk_signal_release(source);
    sk_pipe_release(rg.pipe);
    expect_no_live_objects(0);
}

/* Issue 40: a group subscribed after the source ended receives the terminal
 * event at once, as a pipe's later subscriber does (before: nothing, and a
 * program waiting for the group to end waited forever). */
static void keep_group(recorder *r, const sk_value *pair) {
    sk_signal **kept = r->user;
    const sk_value *item = NULL;
    sk_signal *signal = NULL;
    SK_OK_OR_ABORT(sk_value_get_array_item(pair, 1, &item));
    SK_OK_OR_ABORT(sk_value_get_signal(item, &signal));
    *kept = sk_signal_retain(signal);
}

Test(operators_meta, group_by_a_late_group_subscriber_receives_the_end, .timeout = SK_TEST_TIMEOUT) {
    const int64_t input[] = { 1 };
    sk_signal *ints = ints_signal(input, 1);
    sk_signal *grouped = NULL;
    SK_OK_OR_FAIL(sk_signal_group_by(&grouped, ints, parity, NULL, NULL));
    sk_signal *kept = NULL;
    recorder outer;
    recorder_init(&outer);
    outer.user = &kept;
    outer.on_next = keep_group;
    sk_observer observer = recorder_observer(&outer);
    sk_disposable *d = NULL;
    SK_OK_OR_FAIL(sk_signal_start(&d, grouped, &observer));
    recorder_expect(&outer, "ncr", NULL, 0);
    cr_assert_not_null(kept);
    recorder late;
    recorder_init(&late);
    sk_disposable *ld = recorder_start(&late, kept);
    recorder_expect(&late, "cr", NULL, 0);
    recorder_finish(&late, ld);
    recorder_finish(&outer, d);
    sk_signal_release(kept);
    sk_signal_release(grouped);
    sk_signal_release(ints);
    expect_no_live_objects(0);
}

/* A signal of the one value `value`. */
static sk_signal *to_signal_of_value(void *ctx, const sk_value *value) {
    (void)ctx;
    sk_signal *single = NULL;
    SK_OK_OR_ABORT(sk_signal_single(&single, value));
    return single;
}

static sk_signal *build_merge_map(sk_signal *s) {
    sk_signal *o = NULL;
    SK_OK_OR_FAIL(sk_signal_merge_map(&o, s, 1, to_signal_of_value, NULL, NULL));
    return o;
}
static sk_signal *build_group_by(sk_signal *s) {
    sk_signal *o = NULL;
    SK_OK_OR_FAIL(sk_signal_group_by(&o, s, parity, NULL, NULL));
    return o;
}

Test(operators_meta, merge_map_and_group_by_dispose_inside_a_value_callback, .timeout = SK_TEST_TIMEOUT) {
    expect_dispose_inside_next("merge_map", build_merge_map, 2);
    expect_dispose_inside_next("group_by", build_group_by, 2);
    expect_no_live_objects(0);
}

static int merge_map_call(sk_signal **out, sk_signal *signal, bool with_callback, void *ctx, sk_release_fn release) {
    return sk_signal_merge_map(out, signal, 3, with_callback ? to_signal_of_value : NULL, ctx, release);
}
static int group_by_call(sk_signal **out, sk_signal *signal, bool with_callback, void *ctx, sk_release_fn release) {
    return sk_signal_group_by(out, signal, with_callback ? parity : NULL, ctx, release);
}

Test(operators_meta, merge_map_and_group_by_release_once_and_argument_errors, .timeout = SK_TEST_TIMEOUT) {
    bad_args args;
    bad_args_init(&args);
    sk_signal *out = NULL;
    expect_release_after_the_subscription("merge_map", merge_map_call);
    expect_release_after_the_subscription("group_by", group_by_call);
    expect_callback_argument_errors("merge_map", merge_map_call, &args);
    expect_callback_argument_errors("group_by", group_by_call, &args);
    /* max_concurrent 0: an error, and the release runs. */
    EXPECT_FAILURE(sk_signal_merge_map(&out, args.never, 0, to_signal_of_value, &args.released, counter_hit),
                   SK_ERR_INVALID_ARGUMENT, &args.released);
    cr_assert(strstr(sk_last_error_message(), "max_concurrent") != NULL, "%s", sk_last_error_message());
    EXPECT_FAILURE_NULL_OUT(sk_signal_merge_map(NULL, args.never, 0, to_signal_of_value, &args.released, counter_hit),
                            SK_ERR_INVALID_ARGUMENT, &args.released);
    cr_assert_eq(counter_get(&args.released), 10);
    bad_args_destroy(&args);
    expect_no_live_objects(0);
}

/* ------------------------------------------------------------------------ */
/* ignore-values, queue, throttled, then and deferred (Signal_Meta.swift):   */
/* values and order, terminal events, releases, long synchronous sequences  */
/* on a small stack, disposal and argument errors                            */
/* ------------------------------------------------------------------------ */

/* A signal value wrapping `signal` (borrowed); +1, release it. */
static sk_value signal_value(sk_signal *signal) {
    sk_value v;
    SK_OK_OR_FAIL(sk_value_set_signal(&v, signal));
    return v;
}

/* Puts a value wrapping `signal` (which this consumes) into `subscriber`. */
static void put_signal(sk_subscriber *subscriber, sk_signal *signal) {
    sk_value v = signal_value(signal);
    sk_signal_release(signal);
    SK_OK_OR_FAIL(sk_subscriber_put_next(subscriber, &v));
    sk_value_release(&v);
}

static sk_signal *single_int(int64_t n) {
    sk_value v = int_value(n);
    sk_signal *signal = NULL;
    SK_OK_OR_FAIL(sk_signal_single(&signal, &v));
    return signal;
}

/* ------------------------------------------------------------------------ */
/* Ignore values                                                            */
/* ------------------------------------------------------------------------ */

Test(operators_meta, ignore_values_passes_terminal_events_only, .timeout = SK_TEST_TIMEOUT) {
    const int64_t input[] = { 1, 2, 3 };
    sk_signal *ints = ints_signal(input, 3);
    sk_signal *ignored = NULL;
    SK_OK_OR_FAIL(sk_signal_ignore_values(&ignored, ints));
    expect_signal_log(ignored, "cr", NULL, 0);

    pipeline p;
    pipeline_init(&p);
    SK_OK_OR_FAIL(sk_signal_ignore_values(&p.op, p.upstream));
    expect_only_the_error(&p, "bad");
    pipeline_finish(&p);
    sk_signal_release(ints);
    expect_no_live_objects(0);
}

/* ------------------------------------------------------------------------ */
/* Queue and throttled                                                      */
/* ------------------------------------------------------------------------ */

/* Starts `p`'s operator (a queue or throttled over the pipeline's upstream)
 * again and checks that `value`, a non-signal first in line, fails the new
 * subscription at once with an error mentioning `needle`. */
static void expect_non_signal_fails(pipeline *p, int64_t value, const char *needle) {
    pipeline_restart(p);
    subscriber_put_int(pipeline_subscriber_at(p, 1), value);
    recorder_expect(&p->r, "er", NULL, 0);
    expect_string_error(&p->r, 0, needle);
}

Test(operators_meta, queue_runs_inner_signals_one_after_another, .timeout = SK_TEST_TIMEOUT) {
    pipeline p;
    pipeline_init(&p);
    manual_source *a = &p.inner[0], *c = &p.inner[1];
    SK_OK_OR_FAIL(sk_signal_queue(&p.op, p.upstream));
    pipeline_start(&p);
    sk_subscriber *o = pipeline_subscriber(&p);
    put_signal(o, manual_signal(a));
    put_signal(o, single_int(2));
    put_signal(o, manual_signal(c));
    cr_assert_eq(counter_get(&a->starts), 1);
    cr_assert_eq(counter_get(&c->starts), 0, "started before its turn");
    subscriber_put_int(manual_subscriber(a, 0), 1);
    SK_OK_OR_FAIL(sk_subscriber_put_completion(manual_subscriber(a, 0)));
    cr_assert_eq(counter_get(&c->starts), 1);
    SK_OK_OR_FAIL(sk_subscriber_put_completion(o));
    subscriber_put_int(manual_subscriber(c, 0), 3);
    const int64_t expected[] = { 1, 2, 3 };
    recorder_expect(&p.r, "nnn", expected, 3);
    SK_OK_OR_FAIL(sk_subscriber_put_completion(manual_subscriber(c, 0)));
    recorder_expect(&p.r, "nnncr", expected, 3);
    pipeline_finish(&p);
    expect_no_live_objects(0);
}

Test(operators_meta, queue_non_signal_value_fails_in_its_turn, .timeout = SK_TEST_TIMEOUT) {
    pipeline p;
    pipeline_start_unary(&p, sk_signal_queue);
    sk_subscriber *o = pipeline_subscriber(&p);
    put_signal(o, manual_signal(&p.inner[0]));
    subscriber_put_int(o, 42);
    recorder_expect(&p.r, "", NULL, 0);
    SK_OK_OR_FAIL(sk_subscriber_put_completion(pipeline_inner_subscriber(&p, 0)));
    recorder_expect(&p.r, "er", NULL, 0);
    expect_string_error(&p.r, 0, "sk_signal_queue");
    cr_assert_eq(counter_get(&p.source.disposed), 1, "the error ends the subscription");

    /* First in line: fails at once. */
    expect_non_signal_fails(&p, 42, "sk_signal_queue: expected a signal (SK_KIND_SIGNAL), got an int64 (SK_KIND_INT64)");
    pipeline_finish(&p);
    expect_no_live_objects(0);
}

typedef struct queue_loop {
    sk_subscriber *first;
} queue_loop;

static void complete_first(void *arg) {
    SK_OK_OR_ABORT(sk_subscriber_put_completion(((queue_loop *)arg)->first));
}

Test(operators_meta, queue_of_many_synchronous_signals_without_stack_growth, .timeout = SK_TEST_TIMEOUT) {
    pipeline p;
    pipeline_start_unary(&p, sk_signal_queue);
    sk_subscriber *o = pipeline_subscriber(&p);
    put_signal(o, manual_signal(&p.inner[0]));
    for (int64_t i = 1; i <= LOOPS; i++) {
        put_signal(o, single_int(i));
    }
    SK_OK_OR_FAIL(sk_subscriber_put_completion(o));
    cr_assert_eq(recorder_nexts(&p.r), 0);
    /* Completing the first runs the 10 000 waiting ones, on a small stack. */
    queue_loop loop = { pipeline_inner_subscriber(&p, 0) };
    run_on_small_stack(complete_first, &loop);
    cr_assert_eq(recorder_nexts(&p.r), LOOPS);
    cr_assert_eq(p.r.completions, 1);
    int64_t values[REC_MAX_EVENTS];
    size_t n = recorder_ints(&p.r, values, REC_MAX_EVENTS);
    for (size_t i = 0; i < n; i++) {
        cr_assert_eq(values[i], (int64_t)i + 1);
    }
    pipeline_finish(&p);
    expect_no_live_objects(0);
}

Test(operators_meta, throttled_keeps_only_the_latest_waiting_signal, .timeout = SK_TEST_TIMEOUT) {
    pipeline p;
    pipeline_init(&p);
    manual_source *a = &p.inner[0], *b = &p.inner[1], *c = &p.inner[2];
    SK_OK_OR_FAIL(sk_signal_throttled(&p.op, p.upstream));
    pipeline_start(&p);
    sk_subscriber *o = pipeline_subscriber(&p);
    put_signal(o, manual_signal(a));
    put_signal(o, manual_signal(b));
    subscriber_put_int(o, 99); /* waiting, replaced: dropped whatever its kind */
    put_signal(o, manual_signal(c));
    subscriber_put_int(manual_subscriber(a, 0), 1);
    cr_assert_eq(counter_get(&a->disposed), 0, "the running one is never interrupted");
    SK_OK_OR_FAIL(sk_subscriber_put_completion(manual_subscriber(a, 0)));
    cr_assert_eq(counter_get(&b->starts), 0, "a replaced signal started");
    cr_assert_eq(counter_get(&c->starts), 1);
    subscriber_put_int(manual_subscriber(c, 0), 3);
    SK_OK_OR_FAIL(sk_subscriber_put_completion(o));
    SK_OK_OR_FAIL(sk_subscriber_put_completion(manual_subscriber(c, 0)));
    const int64_t expected[] = { 1, 3 };
    recorder_expect(&p.r, "nncr", expected, 2);

    /* A non-signal value that gets its turn fails. */
    expect_non_signal_fails(&p, 7, "sk_signal_throttled");
    pipeline_finish(&p);
    expect_no_live_objects(0);
}

/* ------------------------------------------------------------------------ */
/* Then and deferred                                                        */
/* ------------------------------------------------------------------------ */

Test(operators_meta, then_runs_next_after_completion, .timeout = SK_TEST_TIMEOUT) {
    pipeline p;
    pipeline_init(&p);
    manual_source *next = &p.inner[0];
    SK_OK_OR_FAIL(sk_signal_then(&p.op, p.upstream, p.inner_signal[0]));
    sk_signal_release(p.inner_signal[0]); /* borrowed: the result retains it */
    p.inner_signal[0] = NULL;
    pipeline_start(&p);
    subscriber_put_int(pipeline_subscriber(&p), 1);
    cr_assert_eq(counter_get(&next->starts), 0);
    SK_OK_OR_FAIL(sk_subscriber_put_completion(pipeline_subscriber(&p)));
    cr_assert_eq(counter_get(&next->starts), 1);
    subscriber_put_int(manual_subscriber(next, 0), 2);
    recorder_expect(&p.r, "nn", NULL, 0);
    SK_OK_OR_FAIL(sk_subscriber_put_completion(manual_subscriber(next, 0)));
    const int64_t expected[] = { 1, 2 };
    recorder_expect(&p.r, "nncr", expected, 2);

    /* An error of the first: passes, the next never starts. */
    pipeline_restart(&p);
    sk_value error = string_value("first failed");
    SK_OK_OR_FAIL(sk_subscriber_put_error(pipeline_subscriber_at(&p, 1), &error));
    recorder_expect_error(&p.r, &error);
    cr_assert_eq(counter_get(&next->starts), 1);
    sk_value_release(&error);

    /* Disposal while the next runs disposes it. */
    pipeline_restart(&p);
    SK_OK_OR_FAIL(sk_subscriber_put_completion(pipeline_subscriber_at(&p, 2)));
    cr_assert_eq(counter_get(&next->starts), 2);
    sk_disposable_dispose(p.d);
    cr_assert_eq(counter_get(&next->disposed), 2);
    recorder_expect(&p.r, "r", NULL, 0);
    pipeline_finish(&p);
    expect_no_live_objects(0);
}

Test(operators_meta, then_in_a_synchronous_restart_loop_without_stack_growth, .timeout = SK_TEST_TIMEOUT) {
    countdown_run t;
    countdown_run_init(&t, LOOPS, false);
    sk_signal *zero = single_int(0);
    sk_signal *chained = NULL;
    SK_OK_OR_FAIL(sk_signal_then(&chained, t.source, zero));
    SK_OK_OR_FAIL(sk_signal_restart(&t.op, chained));
    countdown_run_start_looping(&t);
    cr_assert_eq(recorder_nexts(&t.r), 2 * LOOPS);
    int64_t values[8];
    size_t n = recorder_ints(&t.r, values, 8);
    const int64_t expected[] = { 1, 0, 2, 0, 3, 0, 4, 0 };
    cr_assert_eq(n, 8);
    cr_assert_arr_eq(values, expected, sizeof expected);
    countdown_run_stop(&t);
    cr_assert_eq(counter_get(&t.c.disposed), 1);
    sk_signal_release(chained);
    sk_signal_release(zero);
    countdown_run_finish(&t);
    expect_no_live_objects(0);
}

/* ctx: a manual source, or NULL to return NULL; counts nothing itself. */
typedef struct deferrer {
    manual_source *source;
    counter calls;
    counter released;
    pthread_t thread;
} deferrer;

static sk_signal *make_deferred(void *ctx) {
    deferrer *f = ctx;
    f->thread = pthread_self();
    counter_hit(&f->calls);
    return f->source != NULL ? manual_signal(f->source) : NULL;
}

static void deferrer_release(void *ctx) {
    counter_hit(&((deferrer *)ctx)->released);
}

Test(operators_meta, deferred_calls_fn_at_each_start, .timeout = SK_TEST_TIMEOUT) {
    pipeline p;
    pipeline_init(&p);
    deferrer f;
    memset(&f, 0, sizeof f);
    f.source = &p.source;
    counters_init(2, &f.calls, &f.released);
    SK_OK_OR_FAIL(sk_signal_deferred(&p.op, make_deferred, &f, deferrer_release));
    cr_assert_eq(counter_get(&f.calls), 0, "called before any start");
    pipeline_start(&p);
    cr_assert(pthread_equal(f.thread, pthread_self()));
    recorder r2;
    sk_disposable *d2 = recorder_start(&r2, p.op);
    cr_assert_eq(counter_get(&f.calls), 2);
    cr_assert_eq(counter_get(&p.source.starts), 2);
    subscriber_put_int(pipeline_subscriber_at(&p, 0), 1);
    SK_OK_OR_FAIL(sk_subscriber_put_completion(pipeline_subscriber_at(&p, 0)));
    subscriber_put_int(pipeline_subscriber_at(&p, 1), 2);
    const int64_t one[] = { 1 }, two[] = { 2 };
    recorder_expect(&p.r, "ncr", one, 1);
    recorder_expect(&r2, "n", two, 1);
    sk_disposable_dispose(d2);
    cr_assert_eq(counter_get(&p.source.disposed), 2);
    pipeline_stop(&p);
    recorder_finish(&r2, d2);
    cr_assert_eq(counter_get(&f.released), 0);

    /* NULL from fn: completes at once. */
    f.source = NULL;
    sk_signal *null_deferred = NULL;
    SK_OK_OR_FAIL(sk_signal_deferred(&null_deferred, make_deferred, &f, NULL));
    sk_disposable *d = recorder_start(&r2, null_deferred);
    recorder_expect(&r2, "cr", NULL, 0);
    recorder_finish(&r2, d);
    sk_signal_release(null_deferred);

    pipeline_finish(&p);
    cr_assert_eq(counter_get(&f.released), 1, "the release ran %d times", counter_get(&f.released));
    counters_destroy(2, &f.calls, &f.released);
    expect_no_live_objects(0);
}

static sk_signal *defer_manual(void *ctx) {
    return manual_signal(ctx);
}

/* ignore-values, then and deferred, for expect_disposal_disposes_upstream. */
static sk_signal *sequence_operator(int which, sk_signal *source, manual_source *s, const char **name) {
    sk_signal *out = NULL;
    switch (which) {
    case 0: *name = "ignore_values"; SK_OK_OR_FAIL(sk_signal_ignore_values(&out, source)); break;
    case 1: *name = "then"; SK_OK_OR_FAIL(sk_signal_then(&out, source, source)); break;
    case 2: *name = "deferred"; SK_OK_OR_FAIL(sk_signal_deferred(&out, defer_manual, s, NULL)); break;
    default: return NULL;
    }
    return out;
}

Test(operators_meta, sequence_disposal_stops_and_disposes_upstream, .timeout = SK_TEST_TIMEOUT) {
    cr_assert_eq(expect_disposal_disposes_upstream(sequence_operator), 3, "not every operator ran");

    /* Queue and throttled: the outer, the running inner; a waiting inner
     * is never started. */
    for (int throttled = 0; throttled < 2; throttled++) {
        pipeline p;
        pipeline_init(&p);
        SK_OK_OR_FAIL(throttled ? sk_signal_throttled(&p.op, p.upstream) : sk_signal_queue(&p.op, p.upstream));
        pipeline_start(&p);
        put_signal(pipeline_subscriber(&p), manual_signal(&p.inner[0]));
        put_signal(pipeline_subscriber(&p), manual_signal(&p.inner[1]));
        sk_disposable_dispose(p.d);
        cr_assert_eq(counter_get(&p.source.disposed), 1);
        cr_assert_eq(counter_get(&p.inner[0].disposed), 1);
        cr_assert_eq(counter_get(&p.inner[1].starts), 0);
        recorder_expect(&p.r, "r", NULL, 0);
        pipeline_finish(&p);
    }
    expect_no_live_objects(0);
}

/* The argument errors of deferred (its release runs once, whatever fails),
 * ignore-values, queue, throttled and then. */
Test(operators_meta, sequence_argument_errors, .timeout = SK_TEST_TIMEOUT) {
    bad_args args;
    bad_args_init(&args);
    sk_signal *never = args.never, *not_signal = args.not_signal, *out = NULL;
    counter *released = &args.released;

    EXPECT_FAILURE_NULL_OUT(sk_signal_deferred(NULL, defer_manual, released, counter_hit), SK_ERR_NULL_ARGUMENT, released);
    EXPECT_FAILURE(sk_signal_deferred(&out, NULL, released, counter_hit), SK_ERR_NULL_ARGUMENT, released);
    /* NULL out and NULL fn together: still one release. */
    EXPECT_FAILURE_NULL_OUT(sk_signal_deferred(NULL, NULL, released, counter_hit), SK_ERR_NULL_ARGUMENT, released);
    cr_assert_eq(counter_get(released), 3);

    expect_unary_argument_errors("ignore_values", sk_signal_ignore_values, never, not_signal);
    expect_unary_argument_errors("queue", sk_signal_queue, never, not_signal);
    expect_unary_argument_errors("throttled", sk_signal_throttled, never, not_signal);

    EXPECT_FAILURE_NULL_OUT(sk_signal_then(NULL, never, never), SK_ERR_NULL_ARGUMENT, NULL);
    EXPECT_FAILURE(sk_signal_then(&out, NULL, never), SK_ERR_NULL_ARGUMENT, NULL);
    EXPECT_FAILURE(sk_signal_then(&out, never, NULL), SK_ERR_NULL_ARGUMENT, NULL);
    EXPECT_FAILURE(sk_signal_then(&out, not_signal, never), SK_ERR_WRONG_KIND, NULL);
    EXPECT_FAILURE(sk_signal_then(&out, never, not_signal), SK_ERR_WRONG_KIND, NULL);

    bad_args_destroy(&args);
    expect_no_live_objects(0);
}

/* ------------------------------------------------------------------------ */
/* start_with, concat (Signal_Meta+Concat.swift): what C adds to the marble  */
/* table's cases: releases, a dispose inside a callback, argument errors.    */
/* ------------------------------------------------------------------------ */

/* start_with: its value first, then the signal's; concat: the signals one
 * after the other, an empty array completing at once. */
Test(operators_meta, start_with_and_concat, .timeout = SK_TEST_TIMEOUT) {
    const int64_t input[] = { 1, 2, 3 };
    sk_signal *first = ints_signal(input, 1), *rest = ints_signal(input + 1, 2);
    sk_value zero = int_value(0);
    const int64_t with_zero[] = { 0, 1 };
    sk_signal *started = NULL, *joined = NULL, *empty = NULL;
    SK_OK_OR_FAIL(sk_signal_start_with(&started, first, &zero));
    sk_signal *both[] = { first, rest };
    SK_OK_OR_FAIL(sk_signal_concat(&joined, both, 2));
    SK_OK_OR_FAIL(sk_signal_concat(&empty, NULL, 0));
    expect_signal_log(started, "nncr", with_zero, 2);
    expect_signal_log(joined, "nnncr", input, 3);
    expect_signal_log(empty, "cr", NULL, 0); /* each releases its signal */
    sk_signal_release(first);
    sk_signal_release(rest);
    expect_no_live_objects(0);
}

/* concat: an error stops the sequence; the later signals never start. */
Test(operators_meta, concat_error_stops_the_sequence, .timeout = SK_TEST_TIMEOUT) {
    manual_source later;
    sk_signal *later_signal = manual_init_signal(&later);
    sk_value nil;
    sk_value_set_nil(&nil);
    sk_signal *failing = NULL;
    SK_OK_OR_FAIL(sk_signal_fail(&failing, &nil));
    sk_signal *both[] = { failing, later_signal };
    sk_signal *joined = NULL;
    SK_OK_OR_FAIL(sk_signal_concat(&joined, both, 2));
    expect_signal_log(joined, "er", NULL, 0); /* releases joined */
    cr_assert_eq(counter_get(&later.starts), 0);
    sk_signal_release(failing);
    sk_signal_release(later_signal);
    manual_destroy(&later);
    expect_no_live_objects(0);
}

static sk_signal *build_start_with(sk_signal *s) {
    sk_value zero = int_value(0);
    sk_signal *o = NULL;
    SK_OK_OR_FAIL(sk_signal_start_with(&o, s, &zero));
    return o;
}
static sk_signal *build_concat(sk_signal *s) {
    sk_signal *both[] = { s, s };
    sk_signal *o = NULL;
    SK_OK_OR_FAIL(sk_signal_concat(&o, both, 2));
    return o;
}

Test(operators_meta, concat_dispose_inside_a_value_callback, .timeout = SK_TEST_TIMEOUT) {
    expect_dispose_inside_next("concat", build_concat, 2);
    expect_no_live_objects(0);
}

/* start_with's value comes during the start, before the disposable is
 * handed back: disposing from inside it is the sk_signal_take(1) case. */
Test(operators_meta, start_with_then_take_one_never_starts_the_signal, .timeout = SK_TEST_TIMEOUT) {
    manual_source source;
    sk_signal *upstream = manual_init_signal(&source);
    sk_signal *started = build_start_with(upstream), *one = NULL;
    SK_OK_OR_FAIL(sk_signal_take(&one, started, 1));
    const int64_t zero[] = { 0 };
    expect_signal_log(one, "ncr", zero, 1); /* releases one */
    cr_assert_eq(counter_get(&source.starts), 0);
    sk_signal_release(started);
    sk_signal_release(upstream);
    manual_destroy(&source);
    expect_no_live_objects(0);
}

Test(operators_meta, start_with_and_concat_argument_errors, .timeout = SK_TEST_TIMEOUT) {
    bad_args args;
    bad_args_init(&args);
    sk_signal *never = args.never, *not_signal = args.not_signal, *out = NULL;
    sk_value malformed;
    memset(&malformed, 0, sizeof malformed);
    malformed.kind = (sk_kind)99;

    sk_value zero = int_value(0);
    EXPECT_FAILURE_NULL_OUT(sk_signal_start_with(NULL, never, &zero), SK_ERR_NULL_ARGUMENT, NULL);
    EXPECT_FAILURE(sk_signal_start_with(&out, NULL, &zero), SK_ERR_NULL_ARGUMENT, NULL);
    EXPECT_FAILURE(sk_signal_start_with(&out, never, NULL), SK_ERR_NULL_ARGUMENT, NULL);
    EXPECT_FAILURE(sk_signal_start_with(&out, not_signal, &zero), SK_ERR_WRONG_KIND, NULL);
    EXPECT_FAILURE(sk_signal_start_with(&out, never, &malformed), SK_ERR_INVALID_ARGUMENT, NULL);
    sk_signal *some[] = { never, not_signal };
    EXPECT_FAILURE_NULL_OUT(sk_signal_concat(NULL, some, 1), SK_ERR_NULL_ARGUMENT, NULL);
    EXPECT_FAILURE(sk_signal_concat(&out, NULL, 1), SK_ERR_NULL_ARGUMENT, NULL);
    EXPECT_FAILURE(sk_signal_concat(&out, some, 2), SK_ERR_WRONG_KIND, NULL);
    EXPECT_FAILURE(sk_signal_concat(&out, some, SIZE_MAX), SK_ERR_INVALID_ARGUMENT, NULL);

    bad_args_destroy(&args);
    expect_no_live_objects(0);
}
