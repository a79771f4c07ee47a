/* test_operators_share.c - share and replay (the C layer's
 * Operators_Share.swift over the core's Signal_Share.swift; the shared
 * marble table plays their cases: test_marble_table.c): one upstream
 * subscription for all subscribers, the replay of the last values, a new
 * connection after the last subscriber left, releases and argument errors. */
#include "support.h"

/* Two subscribers of share over a manual source: one start of the source;
 * the last one leaving disposes it; the next subscriber connects anew. */
Test(operators_share, share_connects_once_and_anew_after_the_last_leaves, .timeout = SK_TEST_TIMEOUT) {
    manual_source source;
    sk_signal *upstream = manual_init_signal(&source);
    sk_signal *shared = NULL;
    SK_OK_OR_FAIL(sk_signal_share(&shared, upstream));
    recorder a, b;
    sk_disposable *da = recorder_start(&a, shared);
    sk_disposable *db = recorder_start(&b, shared);
    cr_assert_eq(counter_get(&source.starts), 1);
    subscriber_put_int(manual_subscriber(&source, 0), 7);
    const int64_t seven[] = { 7 };
    recorder_expect(&a, "n", seven, 1);
    recorder_expect(&b, "n", seven, 1);
    recorder_finish(&a, da);
    cr_assert_eq(counter_get(&source.disposed), 0);
    recorder_finish(&b, db);
    cr_assert_eq(counter_get(&source.disposed), 1);
    db = recorder_start(&b, shared);
    cr_assert_eq(counter_get(&source.starts), 2);
    recorder_finish(&b, db);
    sk_signal_release(shared);
    sk_signal_release(upstream);
    manual_destroy(&source);
    expect_no_live_objects(0);
}

/* replay: a subscriber joining the running connection first receives its
 * last `count` values. */
Test(operators_share, replay_gives_a_joining_subscriber_the_last_values, .timeout = SK_TEST_TIMEOUT) {
    manual_source source;
    sk_signal *upstream = manual_init_signal(&source);
    sk_signal *replayed = NULL;
    SK_OK_OR_FAIL(sk_signal_replay(&replayed, upstream, 2));
    recorder a, b;
    sk_disposable *da = recorder_start(&a, replayed);
    for (int64_t i = 1; i <= 3; i++) {
        subscriber_put_int(manual_subscriber(&source, 0), i);
    }
    sk_disposable *db = recorder_start(&b, replayed);
    const int64_t last_two[] = { 2, 3 };
    recorder_expect(&b, "nn", last_two, 2);
    cr_assert_eq(counter_get(&source.starts), 1);
    recorder_finish(&a, da);
    recorder_finish(&b, db);
    sk_signal_release(replayed);
    sk_signal_release(upstream);
    manual_destroy(&source);
    expect_no_live_objects(0);
}

static sk_signal *build_share(sk_signal *s) { sk_signal *o = NULL; SK_OK_OR_FAIL(sk_signal_share(&o, s)); return o; }
static sk_signal *build_replay(sk_signal *s) {
    sk_signal *o = NULL;
    SK_OK_OR_FAIL(sk_signal_replay(&o, s, 3));
    return o;
}

static int replay_two(sk_signal **out, sk_signal *signal) {
    return sk_signal_replay(out, signal, 2);
}

Test(operators_share, dispose_inside_a_value_callback_and_argument_errors, .timeout = SK_TEST_TIMEOUT) {
    expect_dispose_inside_next("share", build_share, 2);
    expect_dispose_inside_next("replay", build_replay, 2);
    bad_args args;
    bad_args_init(&args);
    expect_unary_argument_errors("share", sk_signal_share, args.never, args.not_signal);
    expect_unary_argument_errors("replay", replay_two, args.never, args.not_signal);
    bad_args_destroy(&args);
    expect_no_live_objects(0);
}

/* A subscription only released (not disposed) ends when its source lets go
 * (the misuse table, docs/misuse.md: releasing a subscription's disposable without
 * disposing it): also through share and replay, whose connection must not
 * keep its subscribers alive once the upstream let go of it. */
Test(operators_share, a_released_subscription_ends_when_the_source_lets_go, .timeout = SK_TEST_TIMEOUT) {
    for (size_t count = 0; count < 3; count++) {
        sk_pipe *pipe = NULL;
        sk_signal *source = NULL, *shared = NULL;
        SK_OK_OR_FAIL(sk_pipe_create(&pipe, false));
        SK_OK_OR_FAIL(sk_pipe_signal(&source, pipe));
        SK_OK_OR_FAIL(sk_signal_replay(&shared, source, count));
        recorder a, b;
        sk_disposable *da = recorder_start(&a, shared);
        sk_disposable *db = recorder_start(&b, shared);
        sk_value one = int_value(1);
        SK_OK_OR_FAIL(sk_pipe_put(pipe, &one));
        sk_disposable_release(da);
        sk_disposable_release(db);
        sk_signal_release(shared);
        sk_signal_release(source);
        cr_assert_eq(recorder_releases(&a), 0);
        sk_pipe_release(pipe);
        cr_assert_eq(recorder_releases(&a), 1, "replay(%zu): the first observer was not released", count);
        cr_assert_eq(recorder_releases(&b), 1, "replay(%zu): the second observer was not released", count);
        recorder_expect(&a, "nr", NULL, 0);
        recorder_destroy(&a);
        recorder_destroy(&b);
        expect_no_live_objects(0);
    }
}

/* ctx: the int64 at which the map fails (with the error -N); doubles the rest. */
static void doubled_failing_at(void *ctx, const sk_value *value, sk_value *out) {
    int64_t n = value_int(value);
    sk_value_set_int64(out, n * 2);
    if (n == *(const int64_t *)ctx) {
        sk_value error = int_value(-n);
        SK_OK_OR_ABORT(sk_callback_fail(&error));
    }
}

/* A subscriber whose map below share fails leaves the connection at its
 * error, without a dispose: the other subscriber keeps the upstream and its
 * values; when it is the last, the upstream is disposed; the next subscriber
 * connects anew. (A share subscription is the session pipe's own: its end
 * by a failing stage below releases what it holds, which leaves.) */
Test(operators_share, a_subscriber_ended_by_a_failing_stage_below_leaves_the_connection, .timeout = SK_TEST_TIMEOUT) {
    manual_source source;
    sk_signal *upstream = manual_init_signal(&source);
    sk_signal *shared = NULL, *failing = NULL;
    SK_OK_OR_FAIL(sk_signal_share(&shared, upstream));
    int64_t fails_at = 2;
    SK_OK_OR_FAIL(sk_signal_map(&failing, shared, doubled_failing_at, &fails_at, NULL));
    recorder a, b;
    sk_disposable *da = recorder_start(&a, failing);
    sk_disposable *db = recorder_start(&b, shared);
    cr_assert_eq(counter_get(&source.starts), 1);
    subscriber_put_int(manual_subscriber(&source, 0), 1);
    subscriber_put_int(manual_subscriber(&source, 0), 2);
    subscriber_put_int(manual_subscriber(&source, 0), 3);
    const int64_t a_values[] = { 2 };
    recorder_expect(&a, "ner", a_values, 1);
    sk_value minus_two = int_value(-2);
    cr_assert(sk_value_equal(&recorder_event(&a, 1)->value, &minus_two), "the map's error");
    const int64_t b_values[] = { 1, 2, 3 };
    recorder_expect(&b, "nnn", b_values, 3);
    cr_assert_eq(counter_get(&source.disposed), 0, "the other subscriber still holds the connection");
    recorder_finish(&b, db);
    cr_assert_eq(counter_get(&source.disposed), 1, "the last subscriber's leaving disposed the upstream");
    recorder_finish(&a, da);
    /* Alone: its failure disconnects at once, before any dispose. */
    da = recorder_start(&a, failing);
    cr_assert_eq(counter_get(&source.starts), 2, "a new connection");
    subscriber_put_int(manual_subscriber(&source, 1), 2);
    recorder_expect(&a, "er", NULL, 0);
    cr_assert(sk_value_equal(&recorder_event(&a, 0)->value, &minus_two), "the map's error");
    cr_assert_eq(counter_get(&source.disposed), 2, "the failure below the only subscriber disconnected the upstream");
    recorder_finish(&a, da);
    sk_signal_release(failing);
    sk_signal_release(shared);
    sk_signal_release(upstream);
    manual_destroy(&source);
    expect_no_live_objects(0);
}
