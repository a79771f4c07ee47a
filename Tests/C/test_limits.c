/* test_limits.c - the library at the limits a user or the system can reach:
 * durations no clock can represent, the process's descriptor limit, many
 * host queues and many subscriptions, pipelines abandoned with timed work
 * pending; with descriptor and live-object counts checked at the end. */
#define _GNU_SOURCE /* dladdr */
#include <dlfcn.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include <signalkit_test.h>

#include "../common/operator_list.h"
#include "support.h"

static void nothing(void *ctx) {
    (void)ctx;
}

/* A work context counting runs and releases. */
struct pair {
    counter *ran;
    counter *released;
};

static void counter_hit_ran(void *ctx) {
    counter_hit(((struct pair *)ctx)->ran);
}

static void pair_release(void *ctx) {
    counter_hit(((struct pair *)ctx)->released);
}

/* Every function that takes a duration accepts the largest ones (and
 * infinity where >= 0 holds) without trapping: the work is scheduled for a
 * time that never comes, and disposing or releasing it frees everything. */
Test(limits, huge_durations_are_accepted_and_abandoned_cleanly, .timeout = SK_TEST_TIMEOUT) {
    /* 4.6e9 s from now is below 2^62 ns of CLOCK_MONOTONIC (about 146
     * years from the system's start), 4.7e9 above it, and so is 2^62 ns
     * less half a second from now (the system has run longer than that):
     * the edge of a real-time queue's clock is a deadline, not a duration
     * (signalkit.h, "Durations"; before, that last one was kept for ever
     * by the debug library and dropped by the release one). */
    const double durations[] = { 1e9, 4.6e9, ldexp(1, 62) / 1e9 - 0.5, 4.7e9, 1e18, 1e300, INFINITY };
    sk_queue *serial = serial_queue("test.limits");
    for (size_t i = 0; i < sizeof durations / sizeof durations[0]; i++) {
        double seconds = durations[i];
        counter ran, released;
        counters_init(2, &ran, &released);
        SK_OK_OR_FAIL(sk_queue_after(serial, seconds, counter_hit_ran, &(struct pair){ &ran, &released }, pair_release));
        sk_disposable *timer = NULL;
        SK_OK_OR_FAIL(sk_timer_start(&timer, serial, seconds, true, nothing, NULL, NULL));
        sk_disposable_dispose(timer);
        sk_disposable_release(timer);

        sk_pipe *pipe = NULL;
        sk_signal *source = NULL;
        SK_OK_OR_FAIL(sk_pipe_create(&pipe, false));
        SK_OK_OR_FAIL(sk_pipe_signal(&source, pipe));
        enum { TIMED = 8 };
        sk_signal *timed[TIMED] = { NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL };
        SK_OK_OR_FAIL(sk_signal_delay(&timed[0], source, seconds, serial));
        sk_signal *alternate = made_signal(sk_signal_complete);
        SK_OK_OR_FAIL(sk_signal_timeout(&timed[1], source, seconds, serial, alternate));
        sk_signal_release(alternate);
        SK_OK_OR_FAIL(sk_signal_debounce(&timed[2], source, seconds, serial));
        SK_OK_OR_FAIL(sk_signal_throttle(&timed[3], source, seconds, serial));
        SK_OK_OR_FAIL(sk_signal_retry(&timed[4], source, seconds, seconds, serial));
        /* Issue 33's timed operators; the delayed retry last, given an
         * error (which ends the pipe) so that its retry is scheduled. */
        SK_OK_OR_FAIL(sk_signal_buffer_time(&timed[5], source, seconds, serial));
        SK_OK_OR_FAIL(sk_signal_sample_period(&timed[6], source, seconds, serial));
        SK_OK_OR_FAIL(sk_signal_retry_count(&timed[7], source, 3, seconds, serial));
        for (int k = 0; k < TIMED; k++) {
            recorder r;
            sk_disposable *d = recorder_start(&r, timed[k]);
            pipe_put_int(pipe, k);
            pipe_put_int(pipe, k + 1);
            if (k == TIMED - 1) {
                sk_value error;
                sk_value_set_int64(&error, -1);
                SK_OK_OR_FAIL(sk_pipe_put_error(pipe, &error));
                /* Retried later (never, beyond what a clock can hold: the
                 * observer is then released at once, as `after`'s work):
                 * the error does not pass. */
                cr_assert_eq(r.errors, 0, "%g s: the delayed retry passed the error", seconds);
            }
            recorder_finish(&r, d);
            sk_signal_release(timed[k]);
        }
        sk_signal_release(source);
        sk_pipe_release(pipe);
        /* The `after` work never ran. Within what a clock can represent it
         * is still scheduled and holds its context (counted, as queued work
         * is); beyond (a deadline at 2^62 ns of the monotonic clock) it is
         * "never": dropped at once, its context released. */
        cr_assert_eq(counter_get(&ran), 0);
        if ((now_seconds() + seconds) * 1e9 < ldexp(1, 62)) {
            cr_assert_eq(counter_get(&released), 0);
            cr_assert_gt(sk_live_objects(), 0, "scheduled work is not counted");
        } else {
            cr_assert(counter_wait(&released, 1, SK_WAIT_SECONDS), "%g s: the context was never released", seconds);
        }
        counters_destroy(2, &ran, &released);
    }
    sk_queue_release(serial);
}

/* Host queues created until the system refuses a descriptor: each refusal
 * is SK_ERR_RESOURCE with nothing created; releasing them all gives every
 * descriptor back. */
Test(limits, host_queues_up_to_the_descriptor_limit, .timeout = SK_TEST_TIMEOUT) {
    if (running_under_valgrind()) {
        cr_skip_test("valgrind does not apply a lowered RLIMIT_NOFILE");
    }
    struct rlimit saved;
    cr_assert_eq(getrlimit(RLIMIT_NOFILE, &saved), 0);
    int baseline = open_fd_count();
    struct rlimit low = saved;
    low.rlim_cur = (rlim_t)baseline + 64;
    cr_assert_eq(setrlimit(RLIMIT_NOFILE, &low), 0);
    enum { MAX_QUEUES = 256 };
    sk_queue *queues[MAX_QUEUES];
    int made = 0;
    int status = SK_OK;
    while (made < MAX_QUEUES) {
        sk_queue *queue = NULL;
        status = sk_queue_create_host(&queue, NULL);
        if (status != SK_OK) {
            cr_assert_null(queue);
            break;
        }
        queues[made++] = queue;
    }
    cr_assert_eq(status, SK_ERR_RESOURCE, "no refusal after %d queues (status %d)", made, status);
    cr_assert_gt(made, 0);
    cr_assert_leq(made, 64);
    /* What was made still works at the limit. */
    counter ran;
    counter_init(&ran);
    SK_OK_OR_FAIL(sk_queue_async(queues[0], counter_hit, &ran, NULL));
    size_t count = 0;
    SK_OK_OR_FAIL(sk_queue_host_drain(queues[0], 0, &count));
    cr_assert_eq(counter_get(&ran), 1);
    for (int i = 0; i < made; i++) {
        sk_queue_release(queues[i]);
    }
    cr_assert_eq(setrlimit(RLIMIT_NOFILE, &saved), 0);
    cr_assert_eq(open_fd_count(), baseline);
    counter_destroy(&ran);
    expect_no_live_objects(0);
}

/* Many subscriptions to one pipe, disposed first-made first, last-made
 * first and interleaved: every remaining one keeps receiving, and at the
 * end nothing is alive. (Timing at scale is measured in the benchmarks.) */
enum { MANY = 20000, MANY_UNDER_VALGRIND = 2000 };

static int delivered_count;

static void count_next(void *ctx, const sk_value *value) {
    (void)ctx;
    (void)value;
    delivered_count++;
}

Test(limits, many_subscriptions_disposed_in_every_order, .timeout = SK_TEST_TIMEOUT) {
    static sk_disposable *subscriptions[MANY];
    const int many = running_under_valgrind() ? MANY_UNDER_VALGRIND : MANY;
    for (int order = 0; order < 3; order++) {
        sk_pipe *pipe = NULL;
        sk_signal *source = NULL;
        SK_OK_OR_FAIL(sk_pipe_create(&pipe, false));
        SK_OK_OR_FAIL(sk_pipe_signal(&source, pipe));
        sk_observer observer = { count_next, NULL, NULL, NULL, NULL };
        for (int i = 0; i < many; i++) {
            SK_OK_OR_FAIL(sk_signal_start(&subscriptions[i], source, &observer));
        }
        delivered_count = 0;
        pipe_put_int(pipe, 1);
        cr_assert_eq(delivered_count, many);
        for (int k = 0; k < many; k++) {
            int i = order == 0 ? k : order == 1 ? many - 1 - k : (k % 2 == 0 ? k / 2 : many - 1 - k / 2);
            sk_disposable_dispose(subscriptions[i]);
            sk_disposable_release(subscriptions[i]);
            if (k == many / 2) {
                delivered_count = 0;
                pipe_put_int(pipe, 2);
                cr_assert_eq(delivered_count, many - k - 1, "order %d", order);
            }
        }
        delivered_count = 0;
        pipe_put_int(pipe, 3);
        cr_assert_eq(delivered_count, 0);
        sk_signal_release(source);
        sk_pipe_release(pipe);
        expect_no_live_objects(0);
    }
}

/* Timed operators on a serial queue with their timers pending, every handle
 * released without waiting, the subscription disposed or not: the pending
 * work is cancelled or runs into nothing, and everything is freed. */
Test(limits, timed_pipelines_abandoned_with_timers_pending, .timeout = SK_TEST_TIMEOUT) {
    int baseline = -1;
    /* Round 0 warms up (whatever the runtime opens once, for timers and
     * worker threads); rounds 1 and 2 are measured. */
    for (int pass = 0; pass < 3; pass++) {
        int round = pass == 0 ? 0 : pass - 1;
        for (int k = 0; k < 4; k++) {
            sk_queue *serial = NULL;
            sk_pipe *pipe = NULL;
            sk_signal *source = NULL, *timed = NULL;
            SK_OK_OR_FAIL(sk_queue_create(&serial, "test.abandoned"));
            SK_OK_OR_FAIL(sk_pipe_create(&pipe, false));
            SK_OK_OR_FAIL(sk_pipe_signal(&source, pipe));
            switch (k) {
            case 0: SK_OK_OR_FAIL(sk_signal_delay(&timed, source, 3600, serial)); break;
            case 1: {
                sk_signal *alternate = made_signal(sk_signal_complete);
                SK_OK_OR_FAIL(sk_signal_timeout(&timed, source, 3600, serial, alternate));
                sk_signal_release(alternate);
                break;
            }
            case 2: SK_OK_OR_FAIL(sk_signal_debounce(&timed, source, 3600, serial)); break;
            default: SK_OK_OR_FAIL(sk_signal_throttle(&timed, source, 3600, serial)); break;
            }
            recorder r;
            sk_disposable *d = recorder_start(&r, timed);
            pipe_put_int(pipe, 1);
            pipe_put_int(pipe, 2);
            if (round == 0) {
                sk_disposable_dispose(d);
            }
            sk_signal_release(timed);
            sk_signal_release(source);
            sk_pipe_release(pipe);
            sk_queue_release(serial);
            if (round == 1) {
                /* Undisposed, the subscription goes on: its timer is due in
                 * an hour. What it keeps alive is counted; disposing it now
                 * (its handle is the only one left) frees everything. */
                cr_assert_gt(sk_live_objects(), 0, "operator %d: a live subscription is not counted", k);
                /* timeout's upstream answered in time: its timer is
                 * cancelled and nothing holds the subscription but the pipe,
                 * whose release ended it (before: the cancelled timer kept
                 * it, and the observer, until the queue went). */
                cr_assert_eq(recorder_releases(&r), k == 1 ? 1 : 0, "operator %d", k);
                sk_disposable_dispose(d);
            }
            sk_disposable_release(d);
            cr_assert(recorder_wait_release(&r), "operator %d round %d: the observer was never released", k, round);
            recorder_destroy(&r);
            expect_no_live_objects(0);
        }
        if (pass == 0) {
            baseline = open_fd_count();
        }
    }
    /* libdispatch opens descriptors of its own for timers and closes them
     * later, on its thread: a count can differ by one or two either way.
     * A descriptor kept per pipeline would add 8 over the two passes. */
    int open = wait_fd_count_at_most(baseline + 2);
    cr_assert_leq(open, baseline + 2, "%d descriptors open, %d after the warm-up", open, baseline);
}

/* Pipelines as deep as SK_SIGNAL_MAX_DEPTH start and deliver on a small
 * stack; one operator more is refused with a message, its context released.
 * Before the limit, 100 000 nested maps overflowed the stack of the thread
 * that started them. A chain of 20 000 `then`s stays one level deep. */
static void add_one(void *ctx, const sk_value *in, sk_value *out) {
    (void)ctx;
    sk_value_set_int64(out, value_int(in) + 1);
}

typedef struct deep_pipeline {
    int kind; /* 0: map, 1: distinct-until-changed, 2: then */
    int depth_reached;
    int refused_status;
    char refused_message[160];
    int64_t delivered;
    int deliveries;
    int completions;
} deep_pipeline;

static void deep_next(void *ctx, const sk_value *value) {
    deep_pipeline *p = ctx;
    p->delivered = value_int(value);
    p->deliveries++;
}

static void deep_completed(void *ctx) {
    ((deep_pipeline *)ctx)->completions++;
}

static void build_and_run_deep(void *arg) {
    deep_pipeline *p = arg;
    sk_pipe *pipe = NULL;
    sk_signal *signal = NULL;
    SK_OK_OR_ABORT(sk_pipe_create(&pipe, false));
    if (p->kind == 2) {
        sk_value zero = int_value(0);
        SK_OK_OR_ABORT(sk_signal_single(&signal, &zero));
    } else {
        SK_OK_OR_ABORT(sk_pipe_signal(&signal, pipe));
    }
    int limit = p->kind == 2 ? 20000 : SK_SIGNAL_MAX_DEPTH + 10;
    counter released;
    counter_init(&released);
    for (int level = 1; level < limit; level++) {
        sk_signal *next = NULL;
        int status;
        if (p->kind == 0) {
            status = sk_signal_map(&next, signal, add_one, &released, counter_hit);
        } else if (p->kind == 1) {
            status = sk_signal_distinct_until_changed(&next, signal);
        } else {
            sk_signal *step = NULL;
            sk_value v = int_value(level);
            SK_OK_OR_ABORT(level % 5000 == 0 ? sk_signal_single(&step, &v) : sk_signal_complete(&step));
            status = sk_signal_then(&next, signal, step);
            sk_signal_release(step);
        }
        if (status != SK_OK) {
            p->refused_status = status;
            snprintf(p->refused_message, sizeof p->refused_message, "%s", sk_last_error_message());
            cr_assert_null(next);
            break;
        }
        sk_signal_release(signal);
        signal = next;
        p->depth_reached = level + 1;
    }
    if (p->kind == 0) {
        /* The refused map's context was released; the others are held. */
        cr_assert_eq(counter_get(&released), p->refused_status != SK_OK ? 1 : 0);
    }
    sk_observer observer = { deep_next, NULL, deep_completed, p, NULL };
    sk_disposable *d = NULL;
    SK_OK_OR_ABORT(sk_signal_start(&d, signal, &observer));
    pipe_put_int(pipe, 1);
    sk_disposable_dispose(d);
    sk_disposable_release(d);
    sk_signal_release(signal);
    sk_pipe_release(pipe);
    counter_destroy(&released);
}

Test(limits, pipelines_as_deep_as_the_limit_run_on_a_small_stack, .timeout = SK_TEST_TIMEOUT) {
    for (int kind = 0; kind < 3; kind++) {
        deep_pipeline p;
        memset(&p, 0, sizeof p);
        p.kind = kind;
        run_on_small_stack(build_and_run_deep, &p);
        if (kind == 2) {
            cr_assert_eq(p.refused_status, SK_OK, "then refused at %d: %s", p.depth_reached, p.refused_message);
            cr_assert_eq(p.depth_reached, 20000);
            cr_assert_eq(p.delivered, 15000);
            cr_assert_eq(p.deliveries, 4);
            cr_assert_eq(p.completions, 1);
            continue;
        }
        cr_assert_eq(p.depth_reached, SK_SIGNAL_MAX_DEPTH, "kind %d", kind);
        cr_assert_eq(p.refused_status, SK_ERR_INVALID_ARGUMENT);
        char expected[160];
        snprintf(expected, sizeof expected, "%s: the pipeline would be %d operators deep (the limit is SK_SIGNAL_MAX_DEPTH, %d)",
                 kind == 0 ? "sk_signal_map" : "sk_signal_distinct_until_changed", SK_SIGNAL_MAX_DEPTH + 1, SK_SIGNAL_MAX_DEPTH);
        cr_assert_str_eq(p.refused_message, expected);
        cr_assert_eq(p.deliveries, 1, "kind %d", kind);
        cr_assert_eq(p.delivered, kind == 0 ? 1 + SK_SIGNAL_MAX_DEPTH - 1 : 1, "kind %d", kind);
    }
    expect_no_live_objects(0);
}

/* share, replay and group_by count two levels each (signalkit.h, "Depth"):
 * a chain of one of them as long as the limit allows delivers and completes
 * on a 512 KB stack. Counted one level each, 511 shares or replays
 * overflowed it at the completion (397 fit) and 511 group_bys while
 * delivering (321 fit). */
static void count_delivery(void *ctx, const sk_value *value) {
    (void)value;
    ((deep_pipeline *)ctx)->deliveries++;
}

static void same_key(void *ctx, const sk_value *in, sk_value *out) {
    (void)ctx;
    (void)in;
    sk_value_set_int64(out, 0);
}

static void *build_and_run_two_level_chain(void *arg) {
    deep_pipeline *p = arg;
    sk_pipe *pipe = NULL;
    sk_signal *signal = NULL;
    SK_OK_OR_ABORT(sk_pipe_create(&pipe, false));
    SK_OK_OR_ABORT(sk_pipe_signal(&signal, pipe));
    p->depth_reached = 1;
    for (int level = 1; level < SK_SIGNAL_MAX_DEPTH; level++) {
        sk_signal *next = NULL;
        int status = p->kind == 0   ? sk_signal_share(&next, signal)
                     : p->kind == 1 ? sk_signal_replay(&next, signal, 1)
                                    : sk_signal_group_by(&next, signal, same_key, NULL, NULL);
        if (status != SK_OK) {
            p->refused_status = status;
            snprintf(p->refused_message, sizeof p->refused_message, "%s", sk_last_error_message());
            break;
        }
        sk_signal_release(signal);
        signal = next;
        p->depth_reached = level + 1;
    }
    sk_observer observer = { count_delivery, NULL, deep_completed, p, NULL };
    sk_disposable *d = NULL;
    SK_OK_OR_ABORT(sk_signal_start(&d, signal, &observer));
    pipe_put_int(pipe, 1);
    SK_OK_OR_ABORT(sk_pipe_put_completion(pipe));
    sk_disposable_dispose(d);
    sk_disposable_release(d);
    sk_signal_release(signal);
    sk_pipe_release(pipe);
    return NULL;
}

Test(limits, operators_of_two_levels_run_at_the_limit_on_a_512k_stack, .timeout = SK_TEST_TIMEOUT) {
    static const char *const names[] = { "sk_signal_share", "sk_signal_replay", "sk_signal_group_by" };
    for (int kind = 0; kind < 3; kind++) {
        deep_pipeline p;
        memset(&p, 0, sizeof p);
        p.kind = kind;
        run_on_stack(SK_TEST_SANITIZED ? 8 * 512 * 1024 : 512 * 1024, build_and_run_two_level_chain, &p);
        /* The pipe 1 deep, each operator 2: 255 of them make 511. */
        cr_assert_eq(p.depth_reached, 1 + (SK_SIGNAL_MAX_DEPTH - 1) / 2, "%s: %d", names[kind], p.depth_reached);
        char expected[160];
        snprintf(expected, sizeof expected, "%s: the pipeline would be %d operators deep (the limit is SK_SIGNAL_MAX_DEPTH, %d)",
                 names[kind], SK_SIGNAL_MAX_DEPTH + 1, SK_SIGNAL_MAX_DEPTH);
        cr_assert_str_eq(p.refused_message, expected);
        cr_assert_eq(p.deliveries, 1, "%s", names[kind]);
        cr_assert_eq(p.completions, 1, "%s", names[kind]);
    }
    expect_no_live_objects(0);
}

/* sk_signal_create_over: a custom operator is one deeper than its upstream,
 * keeps it, and is refused past the limit with its context released. */
static sk_disposable *relay_generator(void *ctx, sk_subscriber *subscriber) {
    (void)subscriber;
    (void)ctx;
    return NULL;
}

Test(limits, custom_operators_count_toward_the_pipeline_depth, .timeout = SK_TEST_TIMEOUT) {
    sk_signal *signal = made_signal(sk_signal_never);
    counter released;
    counter_init(&released);
    int built = 1;
    int status = SK_OK;
    while (status == SK_OK) {
        sk_signal *next = NULL;
        status = sk_signal_create_over(&next, signal, relay_generator, &released, counter_hit);
        if (status == SK_OK) {
            sk_signal_release(signal); /* `next` keeps it */
            signal = next;
            built++;
        } else {
            cr_assert_null(next);
        }
    }
    cr_assert_eq(built, SK_SIGNAL_MAX_DEPTH);
    cr_assert_eq(status, SK_ERR_INVALID_ARGUMENT);
    cr_assert_eq(counter_get(&released), 1);
    sk_signal *refused = signal;
    cr_assert_eq(sk_signal_create_over(&refused, NULL, relay_generator, &released, counter_hit), SK_ERR_NULL_ARGUMENT);
    cr_assert_null(refused);
    cr_assert_eq(counter_get(&released), 2);
    sk_signal_release(signal);
    cr_assert_eq(counter_get(&released), SK_SIGNAL_MAX_DEPTH + 1);
    counter_destroy(&released);
    expect_no_live_objects(0);
}

/* Signals started at run time nest inside the start or the delivery that
 * made them, to any depth a program builds, which no signal's depth shows:
 * 30,000 deferred signals, each returned by the previous one's function,
 * died of a stack overflow on an 8 MB main thread (22,000 did), and so did
 * recursive sk_signal_map_to_signal, sk_signal_catch and
 * sk_signal_switch_to_latest. Once less than a quarter of the thread's
 * stack is left the nested start is refused instead: the operator's signal
 * fails with a message naming the stack, which travels back through every
 * level to the observer. Each shape runs unbounded on a thread of
 * RUN_TIME_NESTING_STACK (so that the refusal comes after some hundreds of
 * levels, under the sanitizers too) and must end with that error,
 * everything released. */
#define RUN_TIME_NESTING_STACK (1024 * 1024)
#define RUN_TIME_NESTING_CAP 1000000 /* far past what any stack holds */

enum nesting_shape { NEST_DEFERRED, NEST_MAP_TO_SIGNAL, NEST_CATCH, NEST_SWITCH_TO_LATEST, NEST_SHAPES };

typedef struct nesting {
    enum nesting_shape shape;
    long levels; /* signals made by the recursion */
    int nexts;
    int errors;
    char error[300];
    int completions;
} nesting;

static sk_signal *nest_level(nesting *n, const sk_value *value);

static sk_signal *nest_deferred(void *ctx) {
    nesting *n = ctx;
    sk_value one = int_value(1);
    return nest_level(n, &one);
}

static sk_signal *nest_again(void *ctx, const sk_value *value) {
    return nest_level(ctx, value);
}

static sk_signal *nest_level(nesting *n, const sk_value *value) {
    if (++n->levels > RUN_TIME_NESTING_CAP) {
        return NULL; /* an empty signal: the recursion was never refused */
    }
    sk_signal *source = NULL;
    sk_signal *out = NULL;
    switch (n->shape) {
    case NEST_DEFERRED:
        SK_OK_OR_ABORT(sk_signal_deferred(&out, nest_deferred, n, NULL));
        return out;
    case NEST_MAP_TO_SIGNAL:
        SK_OK_OR_ABORT(sk_signal_single(&source, value));
        SK_OK_OR_ABORT(sk_signal_map_to_signal(&out, source, nest_again, n, NULL));
        break;
    case NEST_CATCH:
        SK_OK_OR_ABORT(sk_signal_fail(&source, value));
        SK_OK_OR_ABORT(sk_signal_catch(&out, source, nest_again, n, NULL));
        break;
    case NEST_SWITCH_TO_LATEST: {
        sk_signal *inner = NULL;
        sk_signal *outer = NULL;
        sk_value carried;
        SK_OK_OR_ABORT(sk_signal_single(&source, value));
        SK_OK_OR_ABORT(sk_signal_map_to_signal(&inner, source, nest_again, n, NULL));
        SK_OK_OR_ABORT(sk_value_set_signal(&carried, inner));
        sk_signal_release(inner);
        SK_OK_OR_ABORT(sk_signal_single(&outer, &carried));
        sk_value_release(&carried);
        SK_OK_OR_ABORT(sk_signal_switch_to_latest(&out, outer));
        sk_signal_release(outer);
        break;
    }
    default:
        cr_assert_fail("shape %d", (int)n->shape);
    }
    sk_signal_release(source);
    return out;
}

static void nesting_next(void *ctx, const sk_value *value) {
    (void)value;
    ((nesting *)ctx)->nexts++;
}

static void nesting_error(void *ctx, const sk_value *error) {
    nesting *n = ctx;
    const char *text = "(not a string)";
    sk_value_get_string(error, &text, NULL);
    if (n->errors++ == 0) {
        snprintf(n->error, sizeof n->error, "%s", text);
    }
}

static void nesting_completed(void *ctx) {
    ((nesting *)ctx)->completions++;
}

static void *run_nesting(void *arg) {
    nesting *n = arg;
    sk_value one = int_value(1);
    sk_signal *signal = nest_level(n, &one);
    sk_observer observer = { nesting_next, nesting_error, nesting_completed, n, NULL };
    sk_disposable *d = NULL;
    SK_OK_OR_ABORT(sk_signal_start(&d, signal, &observer));
    sk_disposable_release(d);
    sk_signal_release(signal);
    return NULL;
}

Test(limits, signals_nested_at_run_time_past_the_stack_fail_with_an_error, .timeout = SK_TEST_TIMEOUT) {
    static const char *const names[NEST_SHAPES] = {
        "sk_signal_deferred", "sk_signal_map_to_signal", "sk_signal_catch", NULL,
    };
    for (int shape = 0; shape < NEST_SHAPES; shape++) {
        nesting n;
        memset(&n, 0, sizeof n);
        n.shape = (enum nesting_shape)shape;
        run_on_stack(RUN_TIME_NESTING_STACK, run_nesting, &n);
        cr_assert_lt(n.levels, RUN_TIME_NESTING_CAP, "shape %d: never refused", shape);
        cr_assert_gt(n.levels, 50, "shape %d: refused after %ld levels", shape, n.levels);
        cr_assert_eq(n.nexts, 0, "shape %d", shape);
        cr_assert_eq(n.completions, 0, "shape %d", shape);
        cr_assert_eq(n.errors, 1, "shape %d: %d errors", shape, n.errors);
        /* switch_to_latest's levels are refused by whichever of its two
         * run-time starts meets the low stack first. */
        char expected[120];
        if (names[shape] != NULL) {
            snprintf(expected, sizeof expected, "%s: not started: ", names[shape]);
            cr_assert(strncmp(n.error, expected, strlen(expected)) == 0, "shape %d: %s", shape, n.error);
        } else {
            cr_assert(strstr(n.error, ": not started: ") != NULL, "shape %d: %s", shape, n.error);
        }
        snprintf(expected, sizeof expected, "-byte stack, less than a quarter");
        cr_assert(strstr(n.error, expected) != NULL, "shape %d: %s", shape, n.error);
    }
    expect_no_live_objects(0);
}

/* ------------------------------------------------------------------------ */
/* The operators of issue 33 abandoned with work pending                      */
/* ------------------------------------------------------------------------ */

/* Each operator over one pipe (and a second one, and a host queue for the
 * timed ones), subscribed, fed so that it holds work (values kept, inner
 * subscriptions, timers and deliveries pending on the host queue that is
 * never drained, values waiting in a bounded place), then every handle
 * released in every order, the subscription disposed first or not: the
 * observer is released exactly once, every callback context exactly once,
 * and sk_live_objects() is back to 0. Every C operator: an index into the
 * operator list (../common/operator_list.h, made from the operator table
 * by make api-update), built through its shape with the arguments below
 * (sweep_build). */

/* The handles of one round, by kind: each is released once, in the order
 * the round gives. */
enum { H_PIPE_A, H_SOURCE_A, H_PIPE_B, H_SOURCE_B, H_OPERATOR, H_SUBSCRIPTION, H_QUEUE, H_COUNT };

typedef struct sweep_round {
    sk_pipe *pipe_a, *pipe_b;
    sk_signal *source_a, *source_b, *made;
    sk_queue *queue;
    sk_disposable *subscription;
    counter contexts_released;
    int contexts; /* callback contexts handed to the library */
} sweep_round;

static bool sweep_never(void *ctx, const sk_value *value) {
    (void)ctx;
    (void)value;
    return false;
}

static void sweep_add(void *ctx, const sk_value *accumulator, const sk_value *value, sk_value *out) {
    (void)ctx;
    sk_value_set_int64(out, value_int(accumulator) + value_int(value));
}

static void sweep_parity(void *ctx, const sk_value *value, sk_value *out) {
    (void)ctx;
    sk_value_set_int64(out, value_int(value) % 2);
}

/* The signal function's inner signal: the second pipe's (ctx: the round). */
static sk_signal *sweep_inner(void *ctx, const sk_value *value) {
    (void)value;
    return sk_signal_retain(((sweep_round *)ctx)->source_b);
}

/* deferred's: the first pipe's, at each start (ctx: the round). */
static sk_signal *sweep_make(void *ctx) {
    return sk_signal_retain(((sweep_round *)ctx)->source_a);
}

static int sweep_pass(void *ctx, const sk_value *value) {
    (void)ctx;
    (void)value;
    return SK_TAKE_PASS;
}

static void sweep_look(void *ctx, const sk_value *value) {
    (void)ctx;
    (void)value;
}

static void sweep_work(void *ctx) {
    (void)ctx;
}

/* The bounded places' drop callback: the values pending when the host
 * queue closes come here. */
static void sweep_dropped(void *ctx, const sk_value *value, uint64_t dropped) {
    (void)ctx;
    (void)value;
    (void)dropped;
}

/* The release of every call's context (the round, which outlives it). */
static void sweep_context_released(void *ctx) {
    counter_hit(&((sweep_round *)ctx)->contexts_released);
}

/* Whether the operator uses the second pipe; the host queue. */
static bool sweep_uses_b(const sk_test_operator *op) {
    return sk_test_takes(op, SK_ARG_OTHER) || sk_test_takes(op, SK_ARG_SIGNALS) || sk_test_takes(op, SK_ARG_INNER);
}

static bool sweep_uses_queue(const sk_test_operator *op, bool delayed) {
    return sk_test_takes(op, SK_ARG_QUEUE) || sk_test_takes(op, SK_ARG_MAYBE_QUEUE) ||
           (delayed && sk_test_takes(op, SK_ARG_DELAY_QUEUE));
}

/* An operator of the list through its shape: a count of 5, one inner
 * signal at once (the others wait), 1,000 retries, predicates that never
 * hold, the parity as a map, 9 as a value or initial value, the second pipe
 * as the other signal and every inner one, the first pipe's at each start
 * of deferred, 3,600 s on the host queue (a delay of retry_count's too,
 * unless not `delayed`), take_while inclusive, a capacity of 2 dropping
 * the oldest. Every function gets the round as its context, released once. */
static void sweep_build(const sk_test_operator *op, bool delayed, sweep_round *w) {
    sk_value v;
    sk_value_set_int64(&v, 9);
    sk_signal *both[2] = {w->source_a, w->source_b};
    sk_test_args a = {
        .source = w->source_a, .count = 5, .concurrency = 1, .retries = 1000, .predicate = sweep_never,
        .map = sweep_parity, .value = &v, .initial = &v, .fold = sweep_add, .other = w->source_b, .signals = both,
        .signal_count = 2, .seconds = 3600, .most = 3600, .delay = delayed ? 3600 : 0, .queue = w->queue,
        .maybe_queue = w->queue, .delay_queue = delayed ? w->queue : NULL, .look = sweep_look, .work = sweep_work,
        .inner = sweep_inner, .action = sweep_pass, .make = sweep_make, .flag = true, .ctx = w,
        .release = sweep_context_released, .capacity = 2, .overflow = SK_OVERFLOW_DROP_OLDEST,
        .on_drop = sweep_dropped,
    };
    SK_OK_OR_FAIL(op->call(&w->made, &a));
    if (sk_test_takes(op, SK_ARG_CTX)) {
        w->contexts++;
    }
}

/* Puts values (and, for the retries, an error) so that the operator holds
 * work when the handles go. */
static void sweep_feed(const sk_test_operator *op, sweep_round *w) {
    pipe_put_int(w->pipe_a, 1);
    pipe_put_int(w->pipe_a, 2);
    if (w->pipe_b) {
        pipe_put_int(w->pipe_b, 5);
    }
    pipe_put_int(w->pipe_a, 3);
    if (sk_test_takes(op, SK_ARG_RETRIES) || sk_test_takes(op, SK_ARG_MOST)) {
        sk_value error;
        sk_value_set_int64(&error, -1);
        SK_OK_OR_FAIL(sk_pipe_put_error(w->pipe_a, &error));
        pipe_put_int(w->pipe_a, 4);
    }
}

static void sweep_release(sweep_round *w, int handle) {
    switch (handle) {
    case H_PIPE_A: sk_pipe_release(w->pipe_a); break;
    case H_SOURCE_A: sk_signal_release(w->source_a); break;
    case H_PIPE_B: sk_pipe_release(w->pipe_b); break;
    case H_SOURCE_B: sk_signal_release(w->source_b); break;
    case H_OPERATOR: sk_signal_release(w->made); break;
    case H_SUBSCRIPTION: sk_disposable_release(w->subscription); break;
    default: sk_queue_release(w->queue); break;
    }
}

static const char *const HANDLE_NAMES[H_COUNT] = {"pipe A", "source A", "pipe B", "source B", "operator",
                                                  "subscription", "queue"};

static void sweep_round_once(const sk_test_operator *op, bool delayed, const int *order, int count, bool dispose) {
    sweep_round w;
    memset(&w, 0, sizeof w);
    counter_init(&w.contexts_released);
    SK_OK_OR_FAIL(sk_pipe_create(&w.pipe_a, false));
    SK_OK_OR_FAIL(sk_pipe_signal(&w.source_a, w.pipe_a));
    if (sweep_uses_b(op)) {
        SK_OK_OR_FAIL(sk_pipe_create(&w.pipe_b, false));
        SK_OK_OR_FAIL(sk_pipe_signal(&w.source_b, w.pipe_b));
    }
    if (sweep_uses_queue(op, delayed)) {
        w.queue = host_queue("test.sweep");
    }
    sweep_build(op, delayed, &w);
    recorder r;
    recorder_init(&r);
    r.keep_values = false; /* a group_by's groups are signals: no copy kept */
    sk_observer observer = recorder_observer(&r);
    SK_OK_OR_FAIL(sk_signal_start(&w.subscription, w.made, &observer));
    sweep_feed(op, &w);
    if (dispose) {
        sk_disposable_dispose(w.subscription);
    }
    char names[160] = "";
    for (int i = 0; i < count; i++) {
        size_t used = strlen(names);
        snprintf(names + used, sizeof names - used, "%s%s", i ? ", " : "", HANDLE_NAMES[order[i]]);
        sweep_release(&w, order[i]);
    }
    const char *name = op->name;
    cr_assert(recorder_wait_release(&r), "%s, released %s (dispose %d): the observer was never released", name,
              names, dispose);
    cr_assert_eq(recorder_releases(&r), 1, "%s, released %s: the observer released %d times", name, names,
                 recorder_releases(&r));
    cr_assert(counter_wait(&w.contexts_released, w.contexts, SK_WAIT_SECONDS),
              "%s, released %s (dispose %d): %d of %d callback contexts released", name, names, dispose,
              counter_get(&w.contexts_released), w.contexts);
    cr_assert_eq(counter_get(&w.contexts_released), w.contexts);
    cr_assert_eq(sk_live_objects(), 0, "%s, released %s (dispose %d): %ld objects alive", name, names, dispose,
                 sk_live_objects());
    recorder_destroy(&r);
    counter_destroy(&w.contexts_released);
}

/* Every order of the operator's handles, disposed first or not; returns
 * the count of rounds. */
static int sweep_every_order(const sk_test_operator *op, bool delayed) {
    int handles[H_COUNT] = {0};
    int count = 0;
    for (int h = 0; h < H_COUNT; h++) {
        bool used = (h != H_PIPE_B && h != H_SOURCE_B && h != H_QUEUE) ||
                    ((h == H_PIPE_B || h == H_SOURCE_B) && sweep_uses_b(op)) ||
                    (h == H_QUEUE && sweep_uses_queue(op, delayed));
        if (used) {
            handles[count++] = h;
        }
    }
    int rounds = 0;
    for (int dispose = 0; dispose < 2; dispose++) {
        int order[H_COUNT];
        memcpy(order, handles, sizeof order);
        do {
            sweep_round_once(op, delayed, order, count, dispose != 0);
            rounds++;
        } while (next_permutation(order, count));
    }
    return rounds;
}

/* Twice the orders of its handles: 4 (48 rounds), with the second pipe (6:
 * 1440), with the queue (5: 240), with both (7: 10,080). */
static int sweep_rounds(const sk_test_operator *op, bool delayed) {
    int handles = 4 + (sweep_uses_b(op) ? 2 : 0) + (sweep_uses_queue(op, delayed) ? 1 : 0);
    int orders = 1;
    for (int i = 2; i <= handles; i++) {
        orders *= i;
    }
    return 2 * orders;
}

/* The operators' indices, in cr_malloc's memory (the runner makes them,
 * and each test's process, forked from it, has its copy). */
ParameterizedTestParameters(limits, every_operator_abandoned_in_every_order_frees_everything) {
    int *ops = cr_malloc(sizeof(int) * SK_TEST_OPERATOR_COUNT);
    size_t count = ops == NULL ? 0 : SK_TEST_OPERATOR_COUNT; /* none: the run then lists no sweep, a visible gap */
    for (size_t i = 0; i < count; i++) {
        ops[i] = (int)i;
    }
    return cr_make_param_array(int, ops, count);
}

ParameterizedTest(int *op, limits, every_operator_abandoned_in_every_order_frees_everything,
                  .timeout = SK_TEST_TIMEOUT) {
    const sk_test_operator *operator = &SK_TEST_OPERATORS[*op];
    cr_assert_eq(sweep_every_order(operator, true), sweep_rounds(operator, true), "%s", operator->name);
    expect_no_live_objects(0);
}

/* retry_count without a delay (the list's round has one): it resubscribes
 * at once, with nothing pending on a queue. */
Test(limits, retry_count_without_a_delay_abandoned_in_every_order_frees_everything, .timeout = SK_TEST_TIMEOUT) {
    const sk_test_operator *retry_count = NULL;
    for (size_t i = 0; i < SK_TEST_OPERATOR_COUNT; i++) {
        if (strcmp(SK_TEST_OPERATORS[i].name, "sk_signal_retry_count") == 0) {
            retry_count = &SK_TEST_OPERATORS[i];
        }
    }
    cr_assert_not_null(retry_count, "sk_signal_retry_count is not in the operator list");
    cr_assert_eq(sweep_every_order(retry_count, false), 48);
    expect_no_live_objects(0);
}

/* ------------------------------------------------------------------------ */
/* Counts (issue 40): every function that takes a count, a limit or a        */
/* capacity, at 1, 2, 3, 2^32, PTRDIFF_MAX + 1 and SIZE_MAX. A count is a    */
/* limit, not a reservation: a huge one is "no limit" (or refused with       */
/* SK_ERR_INVALID_ARGUMENT where the header gives a range), never memory     */
/* asked for up front (buffer_count(2^32) asked for 96 GB and aborted).      */
/* ------------------------------------------------------------------------ */

static const size_t COUNTS[] = {1, 2, 3, (size_t)1 << 32, (size_t)PTRDIFF_MAX + 1, SIZE_MAX};
#define COUNT_CASES (sizeof COUNTS / sizeof COUNTS[0])
static const int64_t THREE[] = {1, 2, 3};

/* The smaller of `count` and 3 (the values of THREE). */
static size_t up_to_three(size_t count) {
    return count < 3 ? count : 3;
}

/* `count` values, then the completion: "n...ncr" in `log` (room for 8). */
static const char *nexts_then_completion(size_t count, char *log) {
    size_t i = 0;
    for (; i < count; i++) {
        log[i] = 'n';
    }
    strcpy(log + i, "cr");
    return log;
}

/* take passes the first min(count, 3) values (all three for a huge count);
 * skip drops as many; element_at passes the value at its index, none past
 * the end; each completes with the three values' completion or earlier. */
Test(limits, take_skip_and_element_at_at_every_count, .timeout = SK_TEST_TIMEOUT) {
    sk_signal *source = ints_signal(THREE, 3);
    for (size_t i = 0; i < COUNT_CASES; i++) {
        size_t n = COUNTS[i];
        char log[8];
        sk_signal *taken = NULL, *skipped = NULL, *at = NULL;
        SK_OK_OR_FAIL(sk_signal_take(&taken, source, n));
        SK_OK_OR_FAIL(sk_signal_skip(&skipped, source, n));
        SK_OK_OR_FAIL(sk_signal_element_at(&at, source, n));
        expect_signal_log(taken, nexts_then_completion(up_to_three(n), log), THREE, up_to_three(n));
        expect_signal_log(skipped, nexts_then_completion(3 - up_to_three(n), log), THREE + up_to_three(n),
                          3 - up_to_three(n));
        expect_signal_log(at, nexts_then_completion(n < 3 ? 1 : 0, log), n < 3 ? THREE + n : NULL, n < 3 ? 1 : 0);
    }
    sk_signal_release(source);
    expect_no_live_objects(0);
}

/* Arrays of `count` values; the completion delivers the rest: with any
 * count of 3 or more, one array of the three values. */
Test(limits, buffer_count_at_every_count, .timeout = SK_TEST_TIMEOUT) {
    sk_signal *source = ints_signal(THREE, 3);
    for (size_t i = 0; i < COUNT_CASES; i++) {
        size_t n = COUNTS[i];
        sk_signal *buffered = NULL;
        SK_OK_OR_FAIL(sk_signal_buffer_count(&buffered, source, n));
        recorder r;
        sk_disposable *d = recorder_start(&r, buffered);
        size_t size = up_to_three(n), arrays = (3 + size - 1) / size;
        char log[8];
        recorder_expect(&r, nexts_then_completion(arrays, log), NULL, 0);
        for (size_t k = 0; k < arrays; k++) {
            size_t first = k * size, length = 3 - first < size ? 3 - first : size;
            recorder_expect_int_array(&r, k, THREE + first, length);
        }
        recorder_finish(&r, d);
        sk_signal_release(buffered);
    }
    sk_signal_release(source);
    expect_no_live_objects(0);
}

/* The bounded buffers at every capacity, drop newest: the three values of a
 * synchronous source pass on_backpressure_buffer (none waits: no delivery
 * is in progress when each arrives); deliver_on_bounded onto a host queue
 * keeps the first min(capacity, 3) of them, put before the drain. A huge
 * capacity reserves nothing (the ring grows as values wait). */
Test(limits, bounded_buffers_at_every_capacity, .timeout = SK_TEST_TIMEOUT) {
    sk_signal *source = ints_signal(THREE, 3);
    for (size_t i = 0; i < COUNT_CASES; i++) {
        size_t n = COUNTS[i];
        sk_signal *buffered = NULL;
        SK_OK_OR_FAIL(sk_signal_on_backpressure_buffer(&buffered, source, n, SK_OVERFLOW_DROP_NEWEST, NULL, NULL, NULL));
        expect_signal_log(buffered, "nnncr", THREE, 3); /* releases it */
        sk_queue *host = host_queue("test.limits.bounded");
        SK_OK_OR_FAIL(sk_signal_deliver_on_bounded(&buffered, source, host, n, SK_OVERFLOW_DROP_NEWEST, NULL, NULL, NULL));
        recorder r;
        sk_disposable *d = recorder_start(&r, buffered);
        SK_OK_OR_FAIL(sk_queue_host_drain(host, 0, NULL));
        char log[8];
        recorder_expect(&r, nexts_then_completion(up_to_three(n), log), THREE, up_to_three(n));
        recorder_finish(&r, d);
        sk_signal_release(buffered);
        sk_queue_release(host);
    }
    sk_signal_release(source);
    expect_no_live_objects(0);
}

/* The case, on its own: buffer_count(2^32) over three values then
 * the completion is one array of the three (the process aborted: the
 * Swift runtime was asked for 2^32 slots up front). */
Test(limits, buffer_count_of_two_to_the_32_over_three_values_is_one_final_array, .timeout = SK_TEST_TIMEOUT) {
    sk_signal *source = ints_signal(THREE, 3);
    sk_signal *buffered = NULL;
    SK_OK_OR_FAIL(sk_signal_buffer_count(&buffered, source, (size_t)1 << 32));
    recorder r;
    sk_disposable *d = recorder_start(&r, buffered);
    recorder_expect(&r, "ncr", NULL, 0);
    recorder_expect_int_array(&r, 0, THREE, 3);
    recorder_finish(&r, d);
    sk_signal_release(buffered);
    sk_signal_release(source);
    expect_no_live_objects(0);
}

/* A subscriber joining a running connection gets its last min(count, 3)
 * values: all three for a huge count. */
Test(limits, replay_at_every_count, .timeout = SK_TEST_TIMEOUT) {
    for (size_t i = 0; i < COUNT_CASES; i++) {
        size_t n = COUNTS[i];
        sk_pipe *pipe = NULL;
        sk_signal *source = NULL, *replayed = NULL;
        SK_OK_OR_FAIL(sk_pipe_create(&pipe, false));
        SK_OK_OR_FAIL(sk_pipe_signal(&source, pipe));
        SK_OK_OR_FAIL(sk_signal_replay(&replayed, source, n));
        recorder first, late;
        sk_disposable *connection = recorder_start(&first, replayed);
        for (size_t k = 0; k < 3; k++) {
            pipe_put_int(pipe, THREE[k]);
        }
        sk_disposable *joined = recorder_start(&late, replayed);
        size_t kept = up_to_three(n);
        recorder_expect(&late, kept == 1 ? "n" : kept == 2 ? "nn" : "nnn", THREE + 3 - kept, kept);
        recorder_finish(&late, joined);
        recorder_finish(&first, connection);
        sk_signal_release(replayed);
        sk_signal_release(source);
        sk_pipe_release(pipe);
    }
    expect_no_live_objects(0);
}

/* A source failing on its first five starts (each after one value), then
 * holding its subscriber: `count` retries of 1 to 3 end with the error
 * after count + 1 starts; a huge count retries until the sixth start. */
Test(limits, retry_count_at_every_count, .timeout = SK_TEST_TIMEOUT) {
    for (size_t i = 0; i < COUNT_CASES; i++) {
        size_t n = COUNTS[i];
        countdown c;
        countdown_init(&c, 5, true);
        sk_signal *source = countdown_signal_counted(&c);
        sk_signal *retried = NULL;
        SK_OK_OR_FAIL(sk_signal_retry_count(&retried, source, n, 0, NULL));
        recorder r;
        sk_disposable *d = recorder_start(&r, retried);
        const int64_t starts[] = {1, 2, 3, 4, 5};
        if (n < 5) {
            cr_assert_eq(countdown_starts(&c), (int)n + 1, "count %zu", n);
            recorder_expect(&r, n == 1 ? "nner" : n == 2 ? "nnner" : "nnnner", starts, n + 1);
        } else {
            cr_assert_eq(countdown_starts(&c), 6, "count %zu", n);
            recorder_expect(&r, "nnnnn", starts, 5);
        }
        recorder_finish(&r, d);
        sk_signal_release(retried);
        sk_signal_release(source);
        countdown_destroy(&c);
    }
    expect_no_live_objects(0);
}

/* merge_map's inner signal: the pipe's signal in ctx, started anew. */
static sk_signal *count_inner(void *ctx, const sk_value *value) {
    (void)value;
    return sk_signal_retain((sk_signal *)ctx);
}

/* Three values, each mapped to a subscription to a pipe that never ends:
 * min(max_concurrent, 3) of them run (a value put into the pipe arrives
 * that many times); a huge count runs all three. */
Test(limits, merge_map_at_every_max_concurrent, .timeout = SK_TEST_TIMEOUT) {
    sk_signal *source = ints_signal(THREE, 3);
    for (size_t i = 0; i < COUNT_CASES; i++) {
        size_t n = COUNTS[i];
        sk_pipe *pipe = NULL;
        sk_signal *inner = NULL, *merged = NULL;
        SK_OK_OR_FAIL(sk_pipe_create(&pipe, false));
        SK_OK_OR_FAIL(sk_pipe_signal(&inner, pipe));
        SK_OK_OR_FAIL(sk_signal_merge_map(&merged, source, n, count_inner, inner, NULL));
        recorder r;
        sk_disposable *d = recorder_start(&r, merged);
        pipe_put_int(pipe, 7);
        const int64_t sevens[] = {7, 7, 7};
        size_t running = up_to_three(n);
        recorder_expect(&r, running == 1 ? "n" : running == 2 ? "nn" : "nnn", sevens, running);
        recorder_finish(&r, d);
        sk_signal_release(merged);
        sk_signal_release(inner);
        sk_pipe_release(pipe);
    }
    sk_signal_release(source);
    expect_no_live_objects(0);
}

/* The functions over an array of signals: `count` is the array's length.
 * 1 to 3 copies of the three values work; 2^32 reads the array up to its
 * first NULL (no memory asked for the count: it asked for 32 GB and
 * aborted); PTRDIFF_MAX + 1 and SIZE_MAX are larger than any array of
 * pointers: SK_ERR_INVALID_ARGUMENT. */
Test(limits, signal_arrays_at_every_count, .timeout = SK_TEST_TIMEOUT) {
    sk_signal *source = ints_signal(THREE, 3);
    sk_signal *inputs[4] = {source, source, source, NULL};
    for (size_t i = 0; i < COUNT_CASES; i++) {
        size_t n = COUNTS[i];
        sk_signal *made[4] = {NULL, NULL, NULL, NULL};
        int status[4] = {
            sk_signal_zip(&made[0], inputs, n),
            sk_signal_merge(&made[1], inputs, n),
            sk_signal_concat(&made[2], inputs, n),
            sk_signal_combine_latest(&made[3], inputs, n, NULL),
        };
        for (int f = 0; f < 4; f++) {
            if (n <= 3) {
                cr_assert_eq(status[f], SK_OK, "function %d, count %zu: %s", f, n, sk_last_error_message());
                continue;
            }
            cr_assert_null(made[f]);
            if (n == (size_t)1 << 32) {
                cr_assert_eq(status[f], SK_ERR_NULL_ARGUMENT, "function %d, count %zu", f, n);
            } else {
                cr_assert_eq(status[f], SK_ERR_INVALID_ARGUMENT, "function %d, count %zu", f, n);
            }
        }
        if (n > 3) {
            /* The last call's message (combine_latest's). */
            const char *expected = n == (size_t)1 << 32 ? "signals[3] is NULL" : "larger than any array";
            cr_assert(strstr(sk_last_error_message(), expected) != NULL, "count %zu: %s", n, sk_last_error_message());
            continue;
        }
        /* zip: three arrays of n; merge and concat: 3n values; combine_latest:
         * three arrays, once the last input emits (each input emits its
         * three values and completes within its start). */
        recorder r;
        sk_disposable *d = recorder_start(&r, made[0]);
        cr_assert_eq(recorder_nexts(&r), 3, "zip of %zu", n);
        for (size_t k = 0; k < 3; k++) {
            const int64_t same[] = {THREE[k], THREE[k], THREE[k]};
            recorder_expect_int_array(&r, k, same, n);
        }
        recorder_finish(&r, d);
        d = recorder_start(&r, made[1]);
        cr_assert_eq(recorder_nexts(&r), 3 * (int)n, "merge of %zu", n);
        recorder_finish(&r, d);
        d = recorder_start(&r, made[2]);
        cr_assert_eq(recorder_nexts(&r), 3 * (int)n, "concat of %zu", n);
        recorder_finish(&r, d);
        d = recorder_start(&r, made[3]);
        cr_assert_eq(recorder_nexts(&r), 3, "combine_latest of %zu", n);
        recorder_finish(&r, d);
        for (int f = 0; f < 4; f++) {
            sk_signal_release(made[f]);
        }
    }
    sk_signal_release(source);
    expect_no_live_objects(0);
}

/* A bounded concurrent queue has 1 to SK_QUEUE_MAX_WORKERS workers: 1 to 3
 * make one, whose work runs; a huge count is refused with the range. */
Test(limits, concurrent_queue_at_every_worker_count, .timeout = SK_TEST_TIMEOUT) {
    for (size_t i = 0; i < COUNT_CASES; i++) {
        size_t n = COUNTS[i];
        sk_queue *queue = (sk_queue *)&queue;
        int status = sk_queue_create_concurrent(&queue, n, "counts");
        if (n > SK_QUEUE_MAX_WORKERS) {
            cr_assert_eq(status, SK_ERR_INVALID_ARGUMENT, "max_workers %zu", n);
            cr_assert_null(queue);
            cr_assert(strstr(sk_last_error_message(), "a bounded concurrent queue has 1 to 1024 workers") != NULL,
                      "max_workers %zu: %s", n, sk_last_error_message());
            continue;
        }
        cr_assert_eq(status, SK_OK, "max_workers %zu: %s", n, sk_last_error_message());
        counter ran;
        counter_init(&ran);
        /* counter_hit as the work and as its release: the release runs once
         * the worker is done with the work, so that nothing of it is still
         * alive when the test checks (seen under TSan: 1 object left). */
        SK_OK_OR_FAIL(sk_queue_async(queue, counter_hit, &ran, counter_hit));
        cr_assert(counter_wait(&ran, 2, SK_WAIT_SECONDS), "max_workers %zu: the work or its release never ran", n);
        sk_queue_release(queue);
        counter_destroy(&ran);
    }
    expect_no_live_objects(0);
}

/* A host queue's drain and a virtual queue's run with five tasks pending:
 * min(max_tasks, 5) run; a huge max_tasks runs all five (the virtual run,
 * stopped at its limit with tasks left, says SK_ERR_RESOURCE). */
Test(limits, drains_at_every_max_tasks, .timeout = SK_TEST_TIMEOUT) {
    for (size_t i = 0; i < COUNT_CASES; i++) {
        size_t n = COUNTS[i], expected = n < 5 ? n : 5;
        sk_queue *host = host_queue("counts");
        sk_queue *virtual_time = NULL;
        SK_OK_OR_FAIL(sk_queue_create_virtual(&virtual_time, "counts"));
        counter host_ran, virtual_ran;
        counters_init(2, &host_ran, &virtual_ran);
        for (int k = 0; k < 5; k++) {
            SK_OK_OR_FAIL(sk_queue_async(host, counter_hit, &host_ran, NULL));
            SK_OK_OR_FAIL(sk_queue_after(virtual_time, k, counter_hit, &virtual_ran, NULL));
        }
        size_t ran = 0;
        SK_OK_OR_FAIL(sk_queue_host_drain(host, n, &ran));
        cr_assert_eq(ran, expected, "max_tasks %zu: %zu ran", n, ran);
        cr_assert_eq(counter_get(&host_ran), (int)expected);
        ran = 0;
        cr_assert_eq(sk_queue_virtual_run(virtual_time, n, &ran), n < 5 ? SK_ERR_RESOURCE : SK_OK, "max_tasks %zu", n);
        cr_assert_eq(ran, expected, "max_tasks %zu: %zu ran", n, ran);
        cr_assert_eq(counter_get(&virtual_ran), (int)expected);
        sk_queue_release(host);
        sk_queue_release(virtual_time);
        counters_destroy(2, &host_ran, &virtual_ran);
    }
    expect_no_live_objects(0);
}

/* Copies of the library loaded beside it (a program with the Python
 * wheel's copy and the system's, or one that loads it after other
 * libraries with initial-exec thread-locals): each takes its thread-locals
 * from the static TLS block glibc keeps for libraries loaded later (about
 * 1.6 KB for all of them). The library took 896 bytes of it, 512 of them
 * the last error's buffer: a second copy failed to load, "cannot allocate
 * memory in static TLS block" (a tester's Python program). Three copies
 * load now, and each keeps its own last error. */
Test(limits, three_more_copies_of_the_library_load_beside_it, .timeout = SK_TEST_TIMEOUT) {
    if (SK_TEST_SANITIZED || running_under_valgrind()) {
        cr_skip_test("the sanitizer builds' library is another build, and valgrind's suppressions name the library's file");
    }
    Dl_info info;
    /* An address inside the library: its static text for SK_OK. */
    cr_assert(dladdr(sk_status_string(SK_OK), &info) != 0 && info.dli_fname != NULL);
    char folder[] = "/tmp/signalkit-copies-XXXXXX";
    cr_assert_not_null(mkdtemp(folder));
    void *copies[3] = {NULL, NULL, NULL};
    char paths[3][sizeof folder + 32];
    for (int i = 0; i < 3; i++) {
        snprintf(paths[i], sizeof paths[i], "%s/copy%d.so", folder, i);
        char command[1024];
        snprintf(command, sizeof command, "cp '%s' '%s'", info.dli_fname, paths[i]);
        cr_assert_eq(system(command), 0, "%s", command);
        copies[i] = dlopen(paths[i], RTLD_NOW | RTLD_LOCAL);
        cr_assert_not_null(copies[i], "copy %d: %s", i + 1, dlerror());
    }
    for (int i = 0; i < 3; i++) {
        int (*get_int64)(const sk_value *, int64_t *) = NULL;
        const char *(*message)(void) = NULL;
        void *found[2] = { dlsym(copies[i], "sk_value_get_int64"), dlsym(copies[i], "sk_last_error_message") };
        cr_assert(found[0] != NULL && found[1] != NULL);
        memcpy(&get_int64, &found[0], sizeof get_int64); /* POSIX: a function's address, as an object pointer */
        memcpy(&message, &found[1], sizeof message);
        cr_assert_eq(get_int64(NULL, NULL), SK_ERR_NULL_ARGUMENT);
        cr_assert_not_null(strstr(message(), "sk_value_get_int64"), "copy %d: %s", i + 1, message());
        remove(paths[i]); /* the loaded copy stays mapped */
    }
    rmdir(folder);
    sk_value value;
    sk_value_set_int64(&value, 1);
    SK_OK_OR_FAIL(sk_value_get_int64(&value, &(int64_t){0}));
}
