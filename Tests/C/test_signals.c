/* test_signals.c - signals, observers and subscribers. */
#include <string.h>

#include "support.h"

/* The set-up most tests here share. */

/* Initializes `r` and starts `signal` with an observer recording into it;
 * `subscription` (may be NULL) receives the subscription's disposable. */
static void record_start(recorder *r, sk_signal *signal, sk_disposable **subscription) {
    recorder_init(r);
    sk_observer observer = recorder_observer(r);
    SK_OK_OR_FAIL(sk_signal_start(subscription, signal, &observer));
}

/* A signal driven by hand, started once: manual_run_start initialises the
 * source `s`, makes `signal` (+1) over it and starts it with `r` recording
 * (see record_start), the subscription's disposable into `d` (+1) when
 * `keep` is set (the test releases it), else NULL, and its subscriber
 * (borrowed) into `subscriber`. manual_run_finish
 * releases the signal, destroys `s` and `r` (the subscription is over by
 * now), then checks that nothing is left alive. */
typedef struct manual_run {
    manual_source s;
    sk_signal *signal;
    recorder r;
    sk_disposable *d;
    sk_subscriber *subscriber;
} manual_run;

static void manual_run_start(manual_run *m, bool keep) {
    manual_init(&m->s);
    m->signal = manual_signal(&m->s);
    m->d = NULL;
    record_start(&m->r, m->signal, keep ? &m->d : NULL);
    m->subscriber = manual_subscriber(&m->s, 0);
}

static void manual_run_finish(manual_run *m) {
    sk_signal_release(m->signal);
    manual_destroy(&m->s);
    recorder_destroy(&m->r);
    expect_no_live_objects(0);
}

/* A signal started once into a recorder: recorded_start takes over `signal`
 * (+1), initialises `r` and starts the signal into it, keeping the
 * subscription's disposable in `d` (+1) when `keep` is set, else passing NULL
 * for it. recorded_finish releases `d` (without disposing it), destroys `r`,
 * releases the signal and runs the leak check. */
typedef struct recorded {
    sk_signal *signal;
    recorder r;
    sk_disposable *d;
} recorded;

static void recorded_start(recorded *t, sk_signal *signal, bool keep) {
    t->signal = signal;
    t->d = NULL;
    record_start(&t->r, signal, keep ? &t->d : NULL);
}

static void recorded_finish(recorded *t) {
    sk_disposable_release(t->d);
    recorder_destroy(&t->r);
    sk_signal_release(t->signal);
    expect_no_live_objects(0);
}

/* ------------------------------------------------------------------------ */
/* Basic signals                                                             */
/* ------------------------------------------------------------------------ */

Test(signals, single_emits_a_copy_then_completes, .timeout = SK_TEST_TIMEOUT) {
    sk_value text = string_value("once");
    sk_signal *signal = NULL;
    SK_OK_OR_FAIL(sk_signal_single(&signal, &text));
    sk_value_release(&text); /* the signal keeps its own copy */

    for (int round = 0; round < 2; round++) { /* cold: every start emits again */
        recorder r;
        sk_disposable *subscription = NULL;
        record_start(&r, signal, &subscription);
        cr_assert_not_null(subscription);
        recorder_expect(&r, "ncr", NULL, 0);
        expect_string_event(&r, 0, "once");
        sk_disposable_dispose(subscription); /* after termination: a no-op */
        sk_disposable_release(subscription);
        cr_assert_eq(recorder_releases(&r), 1);
        recorder_destroy(&r);
    }
    sk_signal_release(signal);
    expect_no_live_objects(0);
}

Test(signals, single_of_an_int, .timeout = SK_TEST_TIMEOUT) {
    sk_value v = int_value(42);
    sk_signal *signal = NULL;
    SK_OK_OR_FAIL(sk_signal_single(&signal, &v));
    recorded t;
    recorded_start(&t, signal, false);
    recorder_expect_one(&t.r, "ncr", 42);
    recorded_finish(&t);
}

/* A single's value outlives its handle in whatever was built from it, and
 * every start of that emits it again (the handle builds its signal when
 * used: see sk_signal_single); nothing is left once the last is released. */
Test(signals, single_outlives_its_handle_in_what_was_built_from_it, .timeout = SK_TEST_TIMEOUT) {
    sk_value text = string_value("kept");
    sk_signal *single = NULL, *taken = NULL;
    SK_OK_OR_FAIL(sk_signal_single(&single, &text));
    sk_value_release(&text);
    SK_OK_OR_FAIL(sk_signal_take(&taken, single, 5));
    sk_signal_release(single);
    for (int round = 0; round < 3; round++) {
        recorder r;
        sk_disposable *subscription = NULL;
        record_start(&r, taken, &subscription);
        recorder_expect(&r, "ncr", NULL, 0);
        expect_string_event(&r, 0, "kept");
        sk_disposable_release(subscription);
        recorder_destroy(&r);
    }
    sk_signal_release(taken);
    expect_no_live_objects(0);
}

Test(signals, complete_completes_at_once, .timeout = SK_TEST_TIMEOUT) {
    recorded t;
    recorded_start(&t, made_signal(sk_signal_complete), true);
    recorder_expect(&t.r, "cr", NULL, 0);
    recorded_finish(&t);
}

Test(signals, fail_delivers_a_copy_of_the_error, .timeout = SK_TEST_TIMEOUT) {
    sk_value error = string_value("broken");
    sk_signal *signal = NULL;
    SK_OK_OR_FAIL(sk_signal_fail(&signal, &error));
    recorded t;
    recorded_start(&t, signal, false);
    recorder_expect_error(&t.r, &error);
    sk_value_release(&error);
    recorded_finish(&t);
}

/* never() keeps no reference to its subscriber, and a subscription's
 * disposable does not keep it alive: nothing can deliver, so the observer is
 * released as soon as the start returns. */
Test(signals, never_emits_nothing_and_lets_go_at_once, .timeout = SK_TEST_TIMEOUT) {
    recorded t;
    recorded_start(&t, made_signal(sk_signal_never), true);
    recorder_expect(&t.r, "r", NULL, 0);
    sk_disposable_dispose(t.d);
    sk_disposable_dispose(t.d); /* double dispose: a no-op */
    recorder_expect(&t.r, "r", NULL, 0);
    cr_assert_eq(recorder_releases(&t.r), 1);
    recorded_finish(&t);
}

/* A generator that keeps its subscriber: the observer is released on dispose
 * only, and the generator's disposable is disposed once. */
Test(signals, kept_subscriber_released_on_dispose_only, .timeout = SK_TEST_TIMEOUT) {
    manual_source source;
    sk_signal *signal = manual_init_signal(&source);
    recorder r;
    sk_disposable *subscription = NULL;
    record_start(&r, signal, &subscription);
    recorder_expect(&r, "", NULL, 0);
    sk_disposable_release(subscription); /* releasing does not dispose */
    recorder_expect(&r, "", NULL, 0);
    cr_assert_eq(counter_get(&source.disposed), 0);
    subscriber_put_int(manual_subscriber(&source, 0), 4);
    const int64_t four[] = { 4 };
    recorder_expect(&r, "n", four, 1);
    /* The source lets go: nothing can deliver any more. */
    manual_drop_subscriber(&source, 0);
    recorder_expect(&r, "nr", four, 1);
    cr_assert_eq(counter_get(&source.disposed), 0, "letting go is not disposing");
    recorder_destroy(&r);
    sk_signal_release(signal);
    cr_assert(counter_wait(&source.ctx_released, 1, SK_WAIT_SECONDS));
    manual_destroy(&source);
    expect_no_live_objects(0);
}

Test(signals, constructors_null_arguments, .timeout = SK_TEST_TIMEOUT) {
    sk_value v = int_value(1);
    cr_assert_eq(sk_signal_single(NULL, &v), SK_ERR_NULL_ARGUMENT);
    cr_assert_eq(sk_signal_fail(NULL, &v), SK_ERR_NULL_ARGUMENT);
    cr_assert_eq(sk_signal_complete(NULL), SK_ERR_NULL_ARGUMENT);
    cr_assert_eq(sk_signal_never(NULL), SK_ERR_NULL_ARGUMENT);
    sk_signal *out = (sk_signal *)&out;
    cr_assert_eq(sk_signal_single(&out, NULL), SK_ERR_NULL_ARGUMENT);
    cr_assert_null(out);
    out = (sk_signal *)&out;
    cr_assert_eq(sk_signal_fail(&out, NULL), SK_ERR_NULL_ARGUMENT);
    cr_assert_null(out);
    cr_assert_null(sk_signal_retain(NULL));
    sk_signal_release(NULL);
    expect_no_live_objects(0);
}

Test(signals, retain_returns_the_same_handle, .timeout = SK_TEST_TIMEOUT) {
    manual_source s;
    sk_signal *signal = manual_init_signal(&s);
    cr_assert_eq(sk_signal_retain(signal), signal);
    sk_signal_release(signal);
    cr_assert_eq(counter_get(&s.ctx_released), 0);
    sk_signal_release(signal);
    cr_assert_eq(counter_get(&s.ctx_released), 1);
    manual_destroy(&s);
    expect_no_live_objects(0);
}

/* ------------------------------------------------------------------------ */
/* Created signals                                                           */
/* ------------------------------------------------------------------------ */

Test(signals, create_emits_values_then_completes, .timeout = SK_TEST_TIMEOUT) {
    const int64_t values[] = { 1, 2, 3 };
    recorded t;
    recorded_start(&t, ints_signal(values, 3), true);
    recorder_expect(&t.r, "nnncr", values, 3);
    for (size_t i = 0; i < 4; i++) {
        cr_assert(pthread_equal(recorder_event(&t.r, i)->thread, pthread_self()),
                  "the generator runs, and emits, on the starting thread");
    }
    recorded_finish(&t);
}

Test(signals, create_runs_the_generator_per_start, .timeout = SK_TEST_TIMEOUT) {
    manual_source s;
    sk_signal *signal = manual_init_signal(&s);
    cr_assert_eq(counter_get(&s.starts), 0, "the generator ran before any start");
    recorder r1, r2;
    recorder_init(&r1);
    recorder_init(&r2);
    sk_observer o1 = recorder_observer(&r1), o2 = recorder_observer(&r2);
    sk_disposable *d1 = NULL, *d2 = NULL;
    SK_OK_OR_FAIL(sk_signal_start(&d1, signal, &o1));
    SK_OK_OR_FAIL(sk_signal_start(&d2, signal, &o2));
    cr_assert_eq(counter_get(&s.starts), 2);
    cr_assert_neq(manual_subscriber(&s, 0), manual_subscriber(&s, 1));

    /* Each subscriber reaches only its own observer. */
    subscriber_put_int(manual_subscriber(&s, 1), 20);
    subscriber_put_int(manual_subscriber(&s, 0), 10);
    SK_OK_OR_FAIL(sk_subscriber_put_completion(manual_subscriber(&s, 0)));
    const int64_t e1[] = { 10 }, e2[] = { 20 };
    recorder_expect(&r1, "ncr", e1, 1);
    recorder_expect(&r2, "n", e2, 1);

    sk_disposable_dispose(d2);
    recorder_expect(&r2, "nr", e2, 1);
    cr_assert_eq(counter_get(&s.disposed), 2);
    sk_disposable_release(d1);
    sk_disposable_release(d2);
    sk_signal_release(signal);
    manual_destroy(&s);
    recorder_destroy(&r1);
    recorder_destroy(&r2);
    expect_no_live_objects(0);
}

/* A generator that completes before returning its disposable, an action
 * counted in the manual source given as ctx. */
static sk_disposable *complete_then_return_action(void *ctx, sk_subscriber *subscriber) {
    manual_source *s = ctx;
    SK_OK_OR_ABORT(sk_subscriber_put_completion(subscriber));
    return manual_action(s);
}

Test(signals, generator_disposable_disposed_once_on_synchronous_completion, .timeout = SK_TEST_TIMEOUT) {
    manual_source s;
    manual_init(&s);
    sk_signal *signal = new_signal(complete_then_return_action, &s, NULL);
    recorder r;
    sk_disposable *subscription = NULL;
    record_start(&r, signal, &subscription);
    recorder_expect(&r, "cr", NULL, 0);
    /* Completed before the generator returned its disposable: disposed at once. */
    cr_assert_eq(counter_get(&s.disposed), 1);
    cr_assert_eq(counter_get(&s.disposable_released), 1, "the action's release runs after the action");
    sk_disposable_dispose(subscription);
    cr_assert_eq(counter_get(&s.disposed), 1);
    sk_disposable_release(subscription);
    sk_signal_release(signal);
    manual_destroy(&s);
    recorder_destroy(&r);
    expect_no_live_objects(0);
}

Test(signals, generator_disposable_disposed_once_on_later_completion, .timeout = SK_TEST_TIMEOUT) {
    manual_run m;
    manual_run_start(&m, true);
    cr_assert_eq(counter_get(&m.s.disposed), 0);
    subscriber_put_int(m.subscriber, 5);
    cr_assert_eq(counter_get(&m.s.disposed), 0);
    SK_OK_OR_FAIL(sk_subscriber_put_completion(m.subscriber));
    cr_assert_eq(counter_get(&m.s.disposed), 1);
    cr_assert_eq(counter_get(&m.s.disposable_released), 1);
    recorder_expect_one(&m.r, "ncr", 5);
    sk_disposable_dispose(m.d);
    SK_OK_OR_FAIL(sk_subscriber_put_completion(m.subscriber));
    cr_assert_eq(counter_get(&m.s.disposed), 1);
    sk_disposable_release(m.d);
    manual_run_finish(&m);
}

Test(signals, generator_disposable_disposed_once_on_error, .timeout = SK_TEST_TIMEOUT) {
    manual_run m;
    manual_run_start(&m, false);
    sk_value error = string_value("bad");
    SK_OK_OR_FAIL(sk_subscriber_put_error(m.subscriber, &error));
    SK_OK_OR_FAIL(sk_subscriber_put_error(m.subscriber, &error));
    cr_assert_eq(counter_get(&m.s.disposed), 1);
    recorder_expect_error(&m.r, &error);
    sk_value_release(&error);
    manual_run_finish(&m);
}

Test(signals, generator_disposable_disposed_once_on_dispose, .timeout = SK_TEST_TIMEOUT) {
    manual_run m;
    manual_run_start(&m, true);
    subscriber_put_int(m.subscriber, 1);
    sk_disposable_dispose(m.d);
    cr_assert_eq(counter_get(&m.s.disposed), 1);
    cr_assert_eq(counter_get(&m.s.disposable_released), 1);
    const int64_t expected[] = { 1 };
    recorder_expect(&m.r, "nr", expected, 1);
    sk_disposable_dispose(m.d);
    sk_disposable_dispose(m.d);
    cr_assert_eq(counter_get(&m.s.disposed), 1);
    /* Disposed: further emissions return SK_OK and are dropped. */
    subscriber_put_int(m.subscriber, 2);
    SK_OK_OR_FAIL(sk_subscriber_put_completion(m.subscriber));
    recorder_expect(&m.r, "nr", expected, 1);
    sk_disposable_release(m.d);
    manual_run_finish(&m);
}

Test(signals, releasing_the_subscription_does_not_dispose, .timeout = SK_TEST_TIMEOUT) {
    manual_run m;
    manual_run_start(&m, true);
    sk_disposable_release(m.d);
    cr_assert_eq(counter_get(&m.s.disposed), 0);
    subscriber_put_int(m.subscriber, 7);
    SK_OK_OR_FAIL(sk_subscriber_put_completion(m.subscriber));
    recorder_expect_one(&m.r, "ncr", 7);
    manual_run_finish(&m);
}

Test(signals, put_after_completion_is_ignored, .timeout = SK_TEST_TIMEOUT) {
    manual_run m;
    manual_run_start(&m, false);
    subscriber_put_int(m.subscriber, 1);
    SK_OK_OR_FAIL(sk_subscriber_put_completion(m.subscriber));
    /* All of these return SK_OK and deliver nothing. */
    subscriber_put_int(m.subscriber, 2);
    SK_OK_OR_FAIL(sk_subscriber_put_completion(m.subscriber));
    sk_value error = int_value(-1);
    SK_OK_OR_FAIL(sk_subscriber_put_error(m.subscriber, &error));
    recorder_expect_one(&m.r, "ncr", 1);
    manual_run_finish(&m);
}

Test(signals, subscriber_null_and_wrong_arguments, .timeout = SK_TEST_TIMEOUT) {
    manual_run m;
    manual_run_start(&m, false);
    sk_value v = int_value(1);
    cr_assert_eq(sk_subscriber_put_next(NULL, &v), SK_ERR_NULL_ARGUMENT);
    cr_assert_eq(sk_subscriber_put_error(NULL, &v), SK_ERR_NULL_ARGUMENT);
    cr_assert_eq(sk_subscriber_put_completion(NULL), SK_ERR_NULL_ARGUMENT);
    cr_assert_eq(sk_subscriber_put_next(m.subscriber, NULL), SK_ERR_NULL_ARGUMENT);
    cr_assert_eq(sk_subscriber_put_error(m.subscriber, NULL), SK_ERR_NULL_ARGUMENT);
    /* A handle of another kind. */
    cr_assert_eq(sk_subscriber_put_next((sk_subscriber *)(void *)m.signal, &v), SK_ERR_WRONG_KIND);
    cr_assert_eq(sk_subscriber_put_completion((sk_subscriber *)(void *)m.signal), SK_ERR_WRONG_KIND);
    cr_assert_null(sk_subscriber_retain(NULL));
    sk_subscriber_release(NULL);
    /* None of that reached the observer. */
    recorder_expect(&m.r, "", NULL, 0);
    SK_OK_OR_FAIL(sk_subscriber_put_completion(m.subscriber));
    recorder_expect(&m.r, "cr", NULL, 0);
    manual_run_finish(&m);
}

/* ------------------------------------------------------------------------ */
/* Observer release                                                          */
/* ------------------------------------------------------------------------ */

/* The release runs once, after the last callback; recorder_expect checks the
 * order ("...r" last) and that nothing came after it. */
Test(signals, observer_release_runs_once_after_last_callback, .timeout = SK_TEST_TIMEOUT) {
    const int64_t values[] = { 4, 5 };
    sk_signal *signal = ints_signal(values, 2);
    recorder r;
    sk_disposable *subscription = NULL;
    record_start(&r, signal, &subscription);
    recorder_expect(&r, "nncr", values, 2);
    /* Neither dispose nor release of the finished subscription runs it again. */
    sk_disposable_dispose(subscription);
    sk_disposable_release(subscription);
    sk_signal_release(signal);
    cr_assert_eq(recorder_releases(&r), 1);
    recorder_destroy(&r);
    expect_no_live_objects(0);
}

Test(signals, observer_with_only_some_callbacks, .timeout = SK_TEST_TIMEOUT) {
    const int64_t values[] = { 1, 2, 3 };
    sk_signal *signal = ints_signal(values, 3);
    counter released;
    counter_init(&released);
    sk_observer observer = { NULL, NULL, NULL, &released, counter_hit };
    SK_OK_OR_FAIL(sk_signal_start(NULL, signal, &observer));
    cr_assert_eq(counter_get(&released), 1);
    sk_observer bare = { NULL, NULL, NULL, NULL, NULL };
    SK_OK_OR_FAIL(sk_signal_start(NULL, signal, &bare));
    sk_signal_release(signal);
    counter_destroy(&released);
    expect_no_live_objects(0);
}

/* An observer without a value function still holds its context for the
 * whole subscription: its release runs at the dispose, not at the start
 * (its subscription's value callback only holds it), and a value put
 * meanwhile calls nothing. */
Test(signals, observer_without_value_function_holds_its_context_until_dispose, .timeout = SK_TEST_TIMEOUT) {
    sk_pipe *pipe = NULL;
    sk_signal *signal = NULL;
    SK_OK_OR_FAIL(sk_pipe_create(&pipe, false));
    SK_OK_OR_FAIL(sk_pipe_signal(&signal, pipe));
    counter released;
    counter_init(&released);
    sk_observer observer = { NULL, NULL, NULL, &released, counter_hit };
    sk_disposable *d = NULL;
    SK_OK_OR_FAIL(sk_signal_start(&d, signal, &observer));
    cr_assert_eq(counter_get(&released), 0, "released at the start");
    pipe_put_int(pipe, 1);
    cr_assert_eq(counter_get(&released), 0, "released by a value");
    sk_disposable_dispose(d);
    cr_assert_eq(counter_get(&released), 1);
    sk_disposable_release(d);
    sk_signal_release(signal);
    sk_pipe_release(pipe);
    counter_destroy(&released);
    expect_no_live_objects(0);
}

Test(signals, observer_copied_from_the_stack, .timeout = SK_TEST_TIMEOUT) {
    manual_source s;
    sk_signal *signal = manual_init_signal(&s);
    recorder r;
    recorder_init(&r);
    {
        sk_observer observer = recorder_observer(&r);
        SK_OK_OR_FAIL(sk_signal_start(NULL, signal, &observer));
        memset(&observer, 0xA5, sizeof observer); /* the library copied it */
    }
    subscriber_put_int(manual_subscriber(&s, 0), 3);
    SK_OK_OR_FAIL(sk_subscriber_put_completion(manual_subscriber(&s, 0)));
    recorder_expect_one(&r, "ncr", 3);
    sk_signal_release(signal);
    manual_destroy(&s);
    recorder_destroy(&r);
    expect_no_live_objects(0);
}

/* Starts `signal` into `r` (initialised here), the disposable's out preset
 * to garbage, and asserts that the start fails with `expected`, sets the out
 * to NULL and runs the observer's release (the log reads "r"). */
static void expect_start_fails(recorder *r, sk_signal *signal, int expected) {
    recorder_init(r);
    sk_observer observer = recorder_observer(r);
    sk_disposable *subscription = (sk_disposable *)&subscription;
    cr_assert_eq(sk_signal_start(&subscription, signal, &observer), expected);
    cr_assert_null(subscription);
    recorder_expect(r, "r", NULL, 0);
}

Test(signals, start_null_signal_runs_observer_release, .timeout = SK_TEST_TIMEOUT) {
    recorder r;
    expect_start_fails(&r, NULL, SK_ERR_NULL_ARGUMENT);
    sk_observer observer = recorder_observer(&r);
    cr_assert_eq(sk_signal_start(NULL, NULL, &observer), SK_ERR_NULL_ARGUMENT);
    cr_assert_eq(recorder_releases(&r), 2, "each failed start runs the release once");
    recorder_destroy(&r);
    expect_no_live_objects(0);
}

Test(signals, start_wrong_kind_runs_observer_release, .timeout = SK_TEST_TIMEOUT) {
    sk_pipe *pipe = NULL;
    SK_OK_OR_FAIL(sk_pipe_create(&pipe, false));
    recorder r;
    expect_start_fails(&r, (sk_signal *)(void *)pipe, SK_ERR_WRONG_KIND);
    sk_pipe_release(pipe);
    recorder_destroy(&r);
    expect_no_live_objects(0);
}

Test(signals, start_null_observer, .timeout = SK_TEST_TIMEOUT) {
    manual_source s;
    sk_signal *signal = manual_init_signal(&s);
    sk_disposable *subscription = (sk_disposable *)&subscription;
    cr_assert_eq(sk_signal_start(&subscription, signal, NULL), SK_ERR_NULL_ARGUMENT);
    cr_assert_null(subscription);
    cr_assert_eq(counter_get(&s.starts), 0, "a failed start ran the generator");
    sk_signal_release(signal);
    manual_destroy(&s);
    expect_no_live_objects(0);
}

Test(signals, start_without_out_runs_until_termination, .timeout = SK_TEST_TIMEOUT) {
    manual_run m;
    manual_run_start(&m, false);
    sk_signal_release(m.signal);
    subscriber_put_int(m.subscriber, 1);
    subscriber_put_int(m.subscriber, 2);
    cr_assert_eq(recorder_releases(&m.r), 0);
    SK_OK_OR_FAIL(sk_subscriber_put_completion(m.subscriber));
    const int64_t expected[] = { 1, 2 };
    recorder_expect(&m.r, "nncr", expected, 2);
    cr_assert_eq(counter_get(&m.s.disposed), 1);
    manual_destroy(&m.s);
    recorder_destroy(&m.r);
    expect_no_live_objects(0);
}

/* ------------------------------------------------------------------------ */
/* Generator context                                                         */
/* ------------------------------------------------------------------------ */

Test(signals, create_null_generator_runs_release, .timeout = SK_TEST_TIMEOUT) {
    counter released;
    counter_init(&released);
    sk_signal *signal = (sk_signal *)&signal;
    cr_assert_eq(sk_signal_create(&signal, NULL, &released, counter_hit), SK_ERR_NULL_ARGUMENT);
    cr_assert_null(signal);
    cr_assert_eq(counter_get(&released), 1);
    cr_assert_eq(sk_signal_create(NULL, NULL, &released, counter_hit), SK_ERR_NULL_ARGUMENT);
    cr_assert_eq(counter_get(&released), 2);
    cr_assert_eq(sk_signal_create(NULL, complete_then_return_action, &released, counter_hit), SK_ERR_NULL_ARGUMENT);
    cr_assert_eq(counter_get(&released), 3);
    cr_assert_eq(sk_signal_create(&signal, NULL, NULL, NULL), SK_ERR_NULL_ARGUMENT);
    counter_destroy(&released);
    expect_no_live_objects(0);
}

Test(signals, generator_context_released_when_signal_gone, .timeout = SK_TEST_TIMEOUT) {
    manual_run m;
    manual_run_start(&m, true);

    /* An operator's m.signal holds a reference. */
    sk_signal *taken = NULL;
    SK_OK_OR_FAIL(sk_signal_take(&taken, m.signal, 10));
    sk_signal_release(m.signal);
    cr_assert_eq(counter_get(&m.s.ctx_released), 0, "released while an operator's m.signal holds it");
    sk_signal_release(taken);
    /* The m.signal is gone; the live m.d keeps what it needs itself
     * (the retained m.subscriber, the returned disposable). */
    cr_assert_eq(counter_get(&m.s.ctx_released), 1);
    subscriber_put_int(m.subscriber, 8);
    const int64_t expected[] = { 8 };
    recorder_expect(&m.r, "n", expected, 1);
    sk_disposable_dispose(m.d);
    recorder_expect(&m.r, "nr", expected, 1);
    cr_assert_eq(counter_get(&m.s.disposed), 1);
    cr_assert_eq(counter_get(&m.s.ctx_released), 1);
    sk_disposable_release(m.d);
    manual_destroy(&m.s);
    recorder_destroy(&m.r);
    expect_no_live_objects(0);
}

/* The last reference to a signal dropped from inside its own generator: the
 * context must stay alive until the generator returns. */
typedef struct self_releasing {
    sk_signal *signal;
    counter released;
    int released_during_start;
    int ran;
} self_releasing;

static void self_releasing_release(void *ctx) {
    counter_hit(&((self_releasing *)ctx)->released);
}

static sk_disposable *release_own_signal(void *ctx, sk_subscriber *subscriber) {
    self_releasing *t = ctx;
    sk_signal *signal = t->signal;
    t->signal = NULL;
    sk_signal_release(signal); /* the last reference */
    t->released_during_start = counter_get(&t->released);
    t->ran++;
    sk_value v = int_value(t->ran);
    SK_OK_OR_ABORT(sk_subscriber_put_next(subscriber, &v));
    SK_OK_OR_ABORT(sk_subscriber_put_completion(subscriber));
    return NULL;
}

Test(signals, generator_context_outlives_start_in_progress, .timeout = SK_TEST_TIMEOUT) {
    self_releasing t;
    memset(&t, 0, sizeof t);
    counter_init(&t.released);
    SK_OK_OR_FAIL(sk_signal_create(&t.signal, release_own_signal, &t, self_releasing_release));
    recorder r;
    record_start(&r, t.signal, NULL);
    cr_assert_eq(t.ran, 1);
    cr_assert_eq(t.released_during_start, 0, "the context was released while its generator ran");
    cr_assert_eq(counter_get(&t.released), 1);
    recorder_expect_one(&r, "ncr", 1);
    recorder_destroy(&r);
    counter_destroy(&t.released);
    expect_no_live_objects(0);
}

/* ------------------------------------------------------------------------ */
/* Re-entrancy                                                               */
/* ------------------------------------------------------------------------ */

typedef struct dispose_inside {
    sk_disposable *subscription;
} dispose_inside;

static void dispose_on_first_next(recorder *r, const sk_value *value) {
    (void)value;
    dispose_inside *d = r->user;
    sk_disposable_dispose(d->subscription);
}

Test(signals, dispose_from_inside_next, .timeout = SK_TEST_TIMEOUT) {
    manual_source s;
    sk_signal *signal = manual_init_signal(&s);
    recorder r;
    recorder_init(&r);
    dispose_inside d = { NULL };
    r.user = &d;
    r.on_next = dispose_on_first_next;
    sk_observer observer = recorder_observer(&r);
    SK_OK_OR_FAIL(sk_signal_start(&d.subscription, signal, &observer));
    subscriber_put_int(manual_subscriber(&s, 0), 1);
    /* Disposed from inside: the release waited for the callback to return. */
    const int64_t expected[] = { 1 };
    recorder_expect(&r, "nr", expected, 1);
    cr_assert_eq(counter_get(&s.disposed), 1);
    subscriber_put_int(manual_subscriber(&s, 0), 2);
    SK_OK_OR_FAIL(sk_subscriber_put_completion(manual_subscriber(&s, 0)));
    recorder_expect(&r, "nr", expected, 1);
    sk_disposable_release(d.subscription);
    sk_signal_release(signal);
    manual_destroy(&s);
    recorder_destroy(&r);
    expect_no_live_objects(0);
}

static void complete_own_subscriber(recorder *r, const sk_value *value) {
    (void)value;
    manual_source *s = r->user;
    SK_OK_OR_ABORT(sk_subscriber_put_completion(manual_subscriber(s, 0)));
}

Test(signals, complete_from_inside_next, .timeout = SK_TEST_TIMEOUT) {
    manual_source s;
    sk_signal *signal = manual_init_signal(&s);
    recorder r;
    recorder_init(&r);
    r.user = &s;
    r.on_next = complete_own_subscriber;
    sk_observer observer = recorder_observer(&r);
    SK_OK_OR_FAIL(sk_signal_start(NULL, signal, &observer));
    subscriber_put_int(manual_subscriber(&s, 0), 1);
    subscriber_put_int(manual_subscriber(&s, 0), 2);
    recorder_expect_one(&r, "ncr", 1);
    cr_assert_eq(counter_get(&s.disposed), 1);
    sk_signal_release(signal);
    manual_destroy(&s);
    recorder_destroy(&r);
    expect_no_live_objects(0);
}

static void forward_plus_100(recorder *r, const sk_value *value) {
    manual_source *other = r->user;
    sk_value v = int_value(value_int(value) + 100);
    SK_OK_OR_ABORT(sk_subscriber_put_next(manual_subscriber(other, 0), &v));
}

Test(signals, emit_from_inside_next_into_another_subscriber, .timeout = SK_TEST_TIMEOUT) {
    manual_source a, b;
    manual_init(&a);
    manual_init(&b);
    sk_signal *sa = manual_signal(&a), *sb = manual_signal(&b);
    recorder ra, rb;
    recorder_init(&ra);
    recorder_init(&rb);
    ra.user = &b;
    ra.on_next = forward_plus_100;
    sk_observer oa = recorder_observer(&ra), ob = recorder_observer(&rb);
    SK_OK_OR_FAIL(sk_signal_start(NULL, sa, &oa));
    SK_OK_OR_FAIL(sk_signal_start(NULL, sb, &ob));
    subscriber_put_int(manual_subscriber(&a, 0), 1);
    /* Delivered synchronously, nested inside a's callback. */
    recorder_expect_one(&rb, "n", 101);
    subscriber_put_int(manual_subscriber(&a, 0), 2);
    SK_OK_OR_FAIL(sk_subscriber_put_completion(manual_subscriber(&a, 0)));
    SK_OK_OR_FAIL(sk_subscriber_put_completion(manual_subscriber(&b, 0)));
    const int64_t ea[] = { 1, 2 }, eb2[] = { 101, 102 };
    recorder_expect(&ra, "nncr", ea, 2);
    recorder_expect(&rb, "nncr", eb2, 2);
    sk_signal_release(sa);
    sk_signal_release(sb);
    manual_destroy(&a);
    manual_destroy(&b);
    recorder_destroy(&ra);
    recorder_destroy(&rb);
    expect_no_live_objects(0);
}

/* ------------------------------------------------------------------------ */
/* Emitting from another thread                                              */
/* ------------------------------------------------------------------------ */

enum { FROM_THREAD_COUNT = 100 };

static void *emit_later(void *arg) {
    manual_source *s = arg;
    sk_subscriber *subscriber = sk_subscriber_retain(manual_subscriber(s, 0));
    manual_drop_subscriber(s, 0); /* this thread now owns the only reference */
    for (int64_t i = 0; i < FROM_THREAD_COUNT; i++) {
        sk_value v = int_value(i);
        SK_OK_OR_ABORT(sk_subscriber_put_next(subscriber, &v));
    }
    SK_OK_OR_ABORT(sk_subscriber_put_completion(subscriber));
    sk_subscriber_release(subscriber);
    return NULL;
}

Test(signals, retained_subscriber_emits_from_another_thread, .timeout = SK_TEST_TIMEOUT) {
    manual_run m;
    manual_run_start(&m, true);
    sk_signal_release(m.signal);
    pthread_t thread;
    cr_assert_eq(pthread_create(&thread, NULL, emit_later, &m.s), 0);
    cr_assert(recorder_wait_release(&m.r), "no release within the deadline");
    pthread_join(thread, NULL);

    int64_t expected[FROM_THREAD_COUNT];
    char log[FROM_THREAD_COUNT + 3];
    for (int i = 0; i < FROM_THREAD_COUNT; i++) {
        expected[i] = i;
        log[i] = 'n';
    }
    strcpy(log + FROM_THREAD_COUNT, "cr");
    recorder_expect(&m.r, log, expected, FROM_THREAD_COUNT);
    for (size_t i = 0; i < FROM_THREAD_COUNT + 2; i++) {
        cr_assert(pthread_equal(recorder_event(&m.r, i)->thread, thread), "event %zu not on the emitting thread", i);
    }
    cr_assert_eq(counter_get(&m.s.disposed), 1);
    sk_disposable_release(m.d);
    manual_destroy(&m.s);
    recorder_destroy(&m.r);
    expect_no_live_objects(0);
}

/* ------------------------------------------------------------------------ */
/* Observers without a release function                                     */
/* ------------------------------------------------------------------------ */

/* An observer without a release function: the library makes its
 * subscription's disposable the observer too (one object; with an error or
 * completion callback too, a larger one). What C can see must not change:
 * events, dispose, the disposable of a source that let go, releasing the
 * handle before the subscription ends, disposing and releasing it from
 * inside its own callback, and nothing left alive at the end. */

static void add_ten(void *ctx, const sk_value *in, sk_value *out);

typedef struct bare_sink {
    int64_t sum;
    int nexts, errors, completions;
    sk_disposable *self; /* for bare_dispose_self_on_next */
} bare_sink;

static void bare_next(void *ctx, const sk_value *value) {
    bare_sink *sink = ctx;
    sink->sum += value_int(value);
    sink->nexts++;
}

static void bare_error(void *ctx, const sk_value *error) {
    bare_sink *sink = ctx;
    sink->sum += value_int(error);
    sink->errors++;
}

static void bare_completed(void *ctx) {
    ((bare_sink *)ctx)->completions++;
}

static sk_observer bare_observer(bare_sink *sink) {
    sk_observer observer = { bare_next, bare_error, bare_completed, sink, NULL };
    return observer;
}

static sk_observer next_only_observer(bare_sink *sink) {
    sk_observer observer = { bare_next, NULL, NULL, sink, NULL };
    return observer;
}

Test(signals, bare_observer_events_and_dispose, .timeout = SK_TEST_TIMEOUT) {
    manual_source s;
    sk_signal *signal = manual_init_signal(&s);
    bare_sink sink = { 0 };
    sk_observer observer = next_only_observer(&sink);
    sk_disposable *d = NULL;
    SK_OK_OR_FAIL(sk_signal_start(&d, signal, &observer));
    cr_assert_not_null(d);
    subscriber_put_int(manual_subscriber(&s, 0), 1);
    subscriber_put_int(manual_subscriber(&s, 0), 2);
    sk_disposable_dispose(d);
    cr_assert_eq(counter_get(&s.disposed), 1);
    subscriber_put_int(manual_subscriber(&s, 0), 4);
    SK_OK_OR_FAIL(sk_subscriber_put_completion(manual_subscriber(&s, 0)));
    cr_assert(sink.sum == 3 && sink.nexts == 2 && sink.completions == 0, "sum %lld, %d nexts, %d completions",
              (long long)sink.sum, sink.nexts, sink.completions);
    sk_disposable_dispose(d);
    cr_assert_eq(counter_get(&s.disposed), 1);
    sk_disposable_release(d);
    sk_signal_release(signal);
    manual_destroy(&s);
    expect_no_live_objects(0);
}

Test(signals, bare_observer_error_and_completion, .timeout = SK_TEST_TIMEOUT) {
    bare_sink sink = { 0 };
    sk_observer observer = bare_observer(&sink);
    sk_value error = int_value(40);
    sk_signal *failing = NULL, *completing = NULL;
    SK_OK_OR_FAIL(sk_signal_fail(&failing, &error));
    SK_OK_OR_FAIL(sk_signal_complete(&completing));
    sk_disposable *d1 = NULL, *d2 = NULL;
    SK_OK_OR_FAIL(sk_signal_start(&d1, failing, &observer));
    SK_OK_OR_FAIL(sk_signal_start(&d2, completing, &observer));
    cr_assert(sink.sum == 40 && sink.errors == 1 && sink.completions == 1 && sink.nexts == 0);
    /* Ended: disposing does nothing more. */
    sk_disposable_dispose(d1);
    sk_disposable_dispose(d2);
    cr_assert(sink.errors == 1 && sink.completions == 1);
    sk_disposable_release(d1);
    sk_disposable_release(d2);
    sk_signal_release(failing);
    sk_signal_release(completing);
    expect_no_live_objects(0);
}

/* With error and completion callbacks but no release function, the handle
 * is the observer too: one object per subscription (the pipe and its signal
 * are the other live objects), the pipe's error reaches the error callback
 * through the stage the handle runs, and nothing comes after it. */
Test(signals, bare_observer_with_every_callback_is_one_object, .timeout = SK_TEST_TIMEOUT) {
    sk_pipe *pipe = NULL;
    sk_signal *signal = NULL, *mapped = NULL;
    SK_OK_OR_FAIL(sk_pipe_create(&pipe, false));
    SK_OK_OR_FAIL(sk_pipe_signal(&signal, pipe));
    SK_OK_OR_FAIL(sk_signal_map(&mapped, signal, add_ten, NULL, NULL));
    bare_sink sink = { 0 };
    sk_observer observer = bare_observer(&sink);
    sk_disposable *d = NULL;
    SK_OK_OR_FAIL(sk_signal_start(&d, mapped, &observer));
    cr_assert_eq(sk_live_objects(), 4, "%ld objects alive, expected the pipe, two signals and the subscription",
                 sk_live_objects());
    pipe_put_int(pipe, 1);
    sk_value error = int_value(100);
    SK_OK_OR_FAIL(sk_pipe_put_error(pipe, &error));
    pipe_put_int(pipe, 2);
    cr_assert(sink.sum == 111 && sink.nexts == 1 && sink.errors == 1 && sink.completions == 0,
              "sum %lld, %d nexts, %d errors", (long long)sink.sum, sink.nexts, sink.errors);
    sk_disposable_release(d);
    sk_signal_release(mapped);
    sk_signal_release(signal);
    sk_pipe_release(pipe);
    expect_no_live_objects(0);
}

/* The source lets go of its subscriber (so of the callbacks) while the handle
 * is held: disposing the handle still disposes what the generator returned. */
Test(signals, bare_observer_dispose_after_the_source_let_go, .timeout = SK_TEST_TIMEOUT) {
    manual_source s;
    sk_signal *signal = manual_init_signal(&s);
    bare_sink sink = { 0 };
    sk_observer observer = next_only_observer(&sink);
    sk_disposable *d = NULL;
    SK_OK_OR_FAIL(sk_signal_start(&d, signal, &observer));
    subscriber_put_int(manual_subscriber(&s, 0), 5);
    manual_drop_subscriber(&s, 0);
    cr_assert_eq(counter_get(&s.disposed), 0);
    cr_assert_gt(sk_live_objects(), 0, "the handle is not counted");
    sk_disposable_dispose(d);
    cr_assert_eq(counter_get(&s.disposed), 1);
    cr_assert(sink.sum == 5 && sink.nexts == 1);
    sk_disposable_release(d);
    sk_signal_release(signal);
    manual_destroy(&s);
    expect_no_live_objects(0);
}

/* The handle released first: the subscription goes on (releasing does not
 * dispose) until its pipe is released, and then nothing is left alive. */
Test(signals, bare_observer_handle_released_before_the_end, .timeout = SK_TEST_TIMEOUT) {
    sk_pipe *pipe = NULL;
    sk_signal *signal = NULL;
    SK_OK_OR_FAIL(sk_pipe_create(&pipe, false));
    SK_OK_OR_FAIL(sk_pipe_signal(&signal, pipe));
    bare_sink sink = { 0 };
    sk_observer observer = next_only_observer(&sink);
    sk_disposable *d = NULL;
    SK_OK_OR_FAIL(sk_signal_start(&d, signal, &observer));
    pipe_put_int(pipe, 1);
    sk_disposable_release(d);
    pipe_put_int(pipe, 2);
    cr_assert(sink.sum == 3 && sink.nexts == 2);
    sk_signal_release(signal);
    cr_assert_gt(sk_live_objects(), 0, "the live subscription is not counted");
    sk_pipe_release(pipe);
    expect_no_live_objects(0);
}

static void bare_dispose_self_on_next(void *ctx, const sk_value *value) {
    bare_sink *sink = ctx;
    bare_next(ctx, value);
    sk_disposable *self = sink->self;
    sink->self = NULL;
    sk_disposable_dispose(self);
    sk_disposable_release(self); /* the last reference C holds */
}

/* Disposed and released from inside its own callback: the callback returns
 * normally, nothing more is delivered, nothing is left alive. */
Test(signals, bare_observer_disposed_and_released_inside_next, .timeout = SK_TEST_TIMEOUT) {
    sk_pipe *pipe = NULL;
    sk_signal *signal = NULL;
    SK_OK_OR_FAIL(sk_pipe_create(&pipe, false));
    SK_OK_OR_FAIL(sk_pipe_signal(&signal, pipe));
    bare_sink sink = { 0 };
    sk_observer observer = { bare_dispose_self_on_next, NULL, NULL, &sink, NULL };
    SK_OK_OR_FAIL(sk_signal_start(&sink.self, signal, &observer));
    pipe_put_int(pipe, 7);
    pipe_put_int(pipe, 8);
    cr_assert(sink.sum == 7 && sink.nexts == 1 && sink.self == NULL);
    cr_assert_eq(sk_live_objects(), 2, "%ld objects alive, expected the pipe and its signal", sk_live_objects());
    sk_signal_release(signal);
    sk_pipe_release(pipe);
    expect_no_live_objects(0);
}

/* With handle checking on, a handle released by C reads as released even
 * while its subscription still runs. */
Test(signals, bare_observer_released_handle_is_reported_with_checking, .timeout = SK_TEST_TIMEOUT) {
    SK_OK_OR_FAIL(sk_set_handle_checking(true));
    sk_pipe *pipe = NULL;
    sk_signal *signal = NULL;
    SK_OK_OR_FAIL(sk_pipe_create(&pipe, false));
    SK_OK_OR_FAIL(sk_pipe_signal(&signal, pipe));
    bare_sink sink = { 0 };
    sk_observer observer = next_only_observer(&sink);
    sk_disposable *d = NULL;
    SK_OK_OR_FAIL(sk_signal_start(&d, signal, &observer));
    sk_disposable_release(d);
    cr_assert_eq(sk_disposable_meta_set(d, NULL), SK_ERR_RELEASED);
    pipe_put_int(pipe, 3);
    cr_assert(sink.sum == 3 && sink.nexts == 1);
    sk_signal_release(signal);
    sk_pipe_release(pipe);
    expect_no_live_objects(0);
    SK_OK_OR_FAIL(sk_set_handle_checking(false));
}

/* ------------------------------------------------------------------------ */
/* Held observers (sk_signal_start_held)                                     */
/* ------------------------------------------------------------------------ */

/* sk_signal_start_held: the events and the dispose are sk_signal_start's;
 * the observer's release runs once the subscription has ended and the
 * disposable's last reference is released, whichever comes last, after the
 * last callback; also on failure; and with handle checking on, when the
 * subscription ends. The pipelines run the stages the disposable absorbs
 * (a map and a filter over a pipe, no release functions). */

static void add_ten(void *ctx, const sk_value *in, sk_value *out) {
    (void)ctx;
    sk_value_set_int64(out, value_int(in) + 10);
}

static bool is_odd(void *ctx, const sk_value *value) {
    (void)ctx;
    return value_int(value) % 2 != 0;
}

/* `pipe`'s signal mapped by add_ten and filtered by is_odd (+1), the
 * intermediate handles released. */
static sk_signal *held_pipeline(sk_pipe *pipe) {
    sk_signal *signal = NULL, *mapped = NULL, *filtered = NULL;
    SK_OK_OR_FAIL(sk_pipe_signal(&signal, pipe));
    SK_OK_OR_FAIL(sk_signal_map(&mapped, signal, add_ten, NULL, NULL));
    SK_OK_OR_FAIL(sk_signal_filter(&filtered, mapped, is_odd, NULL, NULL));
    sk_signal_release(mapped);
    sk_signal_release(signal);
    return filtered;
}

/* Disposed first: the release waits for the disposable's release. */
Test(signals, held_observer_release_waits_for_the_disposable, .timeout = SK_TEST_TIMEOUT) {
    sk_pipe *pipe = NULL;
    SK_OK_OR_FAIL(sk_pipe_create(&pipe, false));
    sk_signal *signal = held_pipeline(pipe);
    recorder r;
    recorder_init(&r);
    sk_observer observer = recorder_observer(&r);
    sk_disposable *d = NULL;
    SK_OK_OR_FAIL(sk_signal_start_held(&d, signal, &observer));
    cr_assert_not_null(d);
    pipe_put_int(pipe, 1);
    pipe_put_int(pipe, 2);
    pipe_put_int(pipe, 3);
    sk_disposable_dispose(d);
    pipe_put_int(pipe, 5);
    cr_assert_eq(recorder_releases(&r), 0, "released while the disposable is held");
    sk_disposable_release(d);
    const int64_t expected[] = { 11, 13 };
    recorder_expect(&r, "nnr", expected, 2);
    sk_signal_release(signal);
    sk_pipe_release(pipe);
    recorder_destroy(&r);
    expect_no_live_objects(0);
}

/* Released first: the subscription goes on, and the release runs when it
 * ends (here with the pipe's error, through the absorbed stages). */
Test(signals, held_observer_released_first_runs_until_the_end, .timeout = SK_TEST_TIMEOUT) {
    sk_pipe *pipe = NULL;
    SK_OK_OR_FAIL(sk_pipe_create(&pipe, false));
    sk_signal *signal = held_pipeline(pipe);
    recorder r;
    recorder_init(&r);
    sk_observer observer = recorder_observer(&r);
    sk_disposable *d = NULL;
    SK_OK_OR_FAIL(sk_signal_start_held(&d, signal, &observer));
    sk_disposable_release(d);
    pipe_put_int(pipe, 1);
    cr_assert_eq(recorder_releases(&r), 0, "released while the subscription runs");
    sk_value error = int_value(40);
    SK_OK_OR_FAIL(sk_pipe_put_error(pipe, &error));
    pipe_put_int(pipe, 3);
    recorder_expect(&r, "ner", NULL, 0);
    cr_assert_eq(value_int(&recorder_event(&r, 0)->value), 11);
    cr_assert_eq(value_int(&recorder_event(&r, 1)->value), 40);
    sk_signal_release(signal);
    sk_pipe_release(pipe);
    recorder_destroy(&r);
    expect_no_live_objects(0);
}

/* Completion while the disposable is held: the release waits for it; a
 * signal that is no run of stages (a single) takes the same path. */
Test(signals, held_observer_completion_then_release, .timeout = SK_TEST_TIMEOUT) {
    const int64_t values[] = { 4, 5 };
    sk_signal *signal = ints_signal(values, 2);
    recorder r;
    recorder_init(&r);
    sk_observer observer = recorder_observer(&r);
    sk_disposable *d = NULL;
    SK_OK_OR_FAIL(sk_signal_start_held(&d, signal, &observer));
    cr_assert_eq(recorder_nexts(&r), 2);
    cr_assert_eq(recorder_releases(&r), 0, "released while the disposable is held");
    sk_disposable_dispose(d);
    sk_disposable_release(d);
    recorder_expect(&r, "nncr", values, 2);
    sk_signal_release(signal);
    recorder_destroy(&r);
    expect_no_live_objects(0);
}

/* A pipe's completion reaches the handle that holds the observer (it
 * receives the pipe's terminal event itself); the release waits for the
 * handle. */
Test(signals, held_observer_pipe_completion_reaches_the_handle, .timeout = SK_TEST_TIMEOUT) {
    sk_pipe *pipe = NULL;
    SK_OK_OR_FAIL(sk_pipe_create(&pipe, false));
    sk_signal *signal = held_pipeline(pipe);
    recorder r;
    recorder_init(&r);
    sk_observer observer = recorder_observer(&r);
    sk_disposable *d = NULL;
    SK_OK_OR_FAIL(sk_signal_start_held(&d, signal, &observer));
    pipe_put_int(pipe, 3);
    SK_OK_OR_FAIL(sk_pipe_put_completion(pipe));
    pipe_put_int(pipe, 5);
    cr_assert(recorder_wait_terminated(&r), "no completion");
    cr_assert_eq(recorder_releases(&r), 0, "released while the disposable is held");
    sk_disposable_release(d);
    const int64_t expected[] = { 13 };
    recorder_expect(&r, "ncr", expected, 1);
    sk_signal_release(signal);
    sk_pipe_release(pipe);
    recorder_destroy(&r);
    expect_no_live_objects(0);
}

/* Without `out`: as sk_signal_start, the release runs at the end. */
Test(signals, held_observer_without_out_runs_until_termination, .timeout = SK_TEST_TIMEOUT) {
    sk_pipe *pipe = NULL;
    SK_OK_OR_FAIL(sk_pipe_create(&pipe, false));
    sk_signal *signal = held_pipeline(pipe);
    recorder r;
    recorder_init(&r);
    sk_observer observer = recorder_observer(&r);
    SK_OK_OR_FAIL(sk_signal_start_held(NULL, signal, &observer));
    pipe_put_int(pipe, 5);
    cr_assert_eq(recorder_releases(&r), 0);
    SK_OK_OR_FAIL(sk_pipe_put_completion(pipe));
    const int64_t expected[] = { 15 };
    recorder_expect(&r, "ncr", expected, 1);
    sk_signal_release(signal);
    sk_pipe_release(pipe);
    recorder_destroy(&r);
    expect_no_live_objects(0);
}

/* A failing start runs the release at once, as sk_signal_start's does. */
Test(signals, held_observer_failed_start_runs_release, .timeout = SK_TEST_TIMEOUT) {
    sk_pipe *pipe = NULL;
    SK_OK_OR_FAIL(sk_pipe_create(&pipe, false));
    recorder r;
    recorder_init(&r);
    sk_observer observer = recorder_observer(&r);
    sk_disposable *d = (sk_disposable *)&d;
    cr_assert_eq(sk_signal_start_held(&d, NULL, &observer), SK_ERR_NULL_ARGUMENT);
    cr_assert_null(d);
    cr_assert_eq(sk_signal_start_held(&d, (sk_signal *)(void *)pipe, &observer), SK_ERR_WRONG_KIND);
    cr_assert_null(d);
    cr_assert_eq(sk_signal_start_held(NULL, NULL, &observer), SK_ERR_NULL_ARGUMENT);
    cr_assert_eq(recorder_releases(&r), 3, "each failed start runs the release once");
    cr_assert_eq(sk_signal_start_held(&d, NULL, NULL), SK_ERR_NULL_ARGUMENT);
    cr_assert_null(d);
    sk_pipe_release(pipe);
    recorder_destroy(&r);
    expect_no_live_objects(0);
}

/* With handle checking on the disposable does not hold the observer: the
 * release runs when the subscription ends, the handle still held. */
Test(signals, held_observer_with_checking_released_at_the_end, .timeout = SK_TEST_TIMEOUT) {
    SK_OK_OR_FAIL(sk_set_handle_checking(true));
    sk_pipe *pipe = NULL;
    SK_OK_OR_FAIL(sk_pipe_create(&pipe, false));
    sk_signal *signal = held_pipeline(pipe);
    recorder r;
    recorder_init(&r);
    sk_observer observer = recorder_observer(&r);
    sk_disposable *d = NULL;
    SK_OK_OR_FAIL(sk_signal_start_held(&d, signal, &observer));
    pipe_put_int(pipe, 1);
    sk_disposable_dispose(d);
    const int64_t expected[] = { 11 };
    recorder_expect(&r, "nr", expected, 1);
    sk_disposable_release(d);
    sk_signal_release(signal);
    sk_pipe_release(pipe);
    recorder_destroy(&r);
    expect_no_live_objects(0);
    SK_OK_OR_FAIL(sk_set_handle_checking(false));
}

/* Released from another thread while values arrive: the release runs once,
 * after the last callback (the recorder asserts that no callback overlaps
 * or follows it). */
typedef struct held_putter {
    sk_pipe *pipe;
    int count;
} held_putter;

static void *held_put_values(void *arg) {
    held_putter *p = arg;
    for (int i = 0; i < p->count; i++) {
        pipe_put_int(p->pipe, 2 * i + 1);
    }
    return NULL;
}

Test(signals, held_observer_released_while_another_thread_delivers, .timeout = SK_TEST_TIMEOUT) {
    for (int round = 0; round < 20; round++) {
        sk_pipe *pipe = NULL;
        SK_OK_OR_FAIL(sk_pipe_create(&pipe, false));
        sk_signal *signal = NULL;
        SK_OK_OR_FAIL(sk_pipe_signal(&signal, pipe));
        recorder r;
        recorder_init(&r);
        sk_observer observer = recorder_observer(&r);
        sk_disposable *d = NULL;
        SK_OK_OR_FAIL(sk_signal_start_held(&d, signal, &observer));
        held_putter putter = { pipe, 200 };
        pthread_t thread;
        cr_assert_eq(pthread_create(&thread, NULL, held_put_values, &putter), 0);
        sk_disposable_dispose(d);
        sk_disposable_release(d);
        cr_assert_eq(pthread_join(thread, NULL), 0);
        cr_assert(recorder_wait_release(&r), "the release never ran");
        cr_assert_eq(recorder_releases(&r), 1);
        sk_signal_release(signal);
        sk_pipe_release(pipe);
        recorder_destroy(&r);
        expect_no_live_objects(0);
    }
}
