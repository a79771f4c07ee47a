/* test_operators_meta.c - map-to-signal and switch-to-latest (the C layer's
 * Operators_Meta.swift): switching to the latest inner signal, disposal of
 * the outer and inner subscriptions, and values that are not signals. */

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

/* Issue 40: group_by under threads. GROUP_THREADS threads put GROUP_PUTS
 * values each into one pipe; each of the GROUP_KEYS groups is subscribed
 * from the callback that receives its [key, group] array, as the header
 * advises. Before the fix a value another thread put while an array was
 * being delivered went to a group nobody had subscribed yet: 3 to 11 of
 * 32,000 were lost in every run. */
#define GROUP_THREADS 8
#define GROUP_PUTS 4000
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
