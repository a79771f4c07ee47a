/*
 * test_model.c - the C model-based tester's own tests (Tests/common/
 * model_oracle.h, Tests/README.md): the regression cases it found, which
 * the library and the C model must agree on, and its printer, parser and
 * shrinker. The C model stays as fuzz_model's in-process oracle
 * (Tests/fuzz/fuzz_model.c); these cases keep it right. The random sweep
 * over the C API that this file ran is the Swift model tester's now: its
 * second runner, Tests/SwiftSignalKitTests/Model/CLibraryRunner.swift, runs
 * every random case through the C API (ModelDifferentialTests), and these
 * cases too (ModelCRegressionTests).
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>

#include "support.h"
#include "../common/model_oracle.h"

/* The library agrees with the model on the case written as text. */
static void expect_agreement(const char *pipeline, const char *script) {
    mcase c;
    mtext report = {NULL, 0, 0};
    mverdict verdict;
    cr_assert(mcase_parse(&c, pipeline, script), "malformed case: %s / %s", pipeline, script);
    verdict = mcase_check(&c, 0, &report);
    cr_assert_neq(verdict, MV_INVALID, "not a valid case: %s / %s", pipeline, script);
    cr_assert_eq(verdict, MV_AGREE, "%s / %s\n%s", pipeline, script, report.s != NULL ? report.s : "");
    mt_free(&report);
}

/* expect_agreement on each of the `count` cases of `cases`, given as
 * pipeline, script, pipeline, script... */
static void expect_agreements(const char *const *cases, size_t count) {
    cr_assert_eq(count % 2, 0, "a pipeline without its script");
    for (size_t i = 0; i + 1 < count; i += 2) {
        expect_agreement(cases[i], cases[i + 1]);
    }
}

/* A regression test, a row each: its name, then one or more cases as
 * pipeline, script pairs that the library and the model must agree on. */
#define AGREEMENT_TEST(name, ...)                                              \
    Test(model, name, .timeout = SK_TEST_TIMEOUT) {                            \
        static const char *const cases[] = { __VA_ARGS__ };                    \
        expect_agreements(cases, sizeof cases / sizeof cases[0]);              \
    }

/* ------------------------------------------------------------------------ */
/* The tester itself                                                          */
/* ------------------------------------------------------------------------ */

/* A case prints as text that reads back as the same case. */
Test(model, cases_print_and_parse_back, .timeout = SK_TEST_TIMEOUT) {
    uint64_t k;
    for (k = 0; k < 200; k++) {
        mcase c, parsed;
        mchooser chooser;
        char *pipeline, *script, *pipeline2, *script2;
        memset(&chooser, 0, sizeof chooser);
        chooser.state = 42 + k;
        mcase_generate(&c, &chooser);
        mcase_print(&c, &pipeline, &script);
        cr_assert(mcase_parse(&parsed, pipeline, script), "%s / %s", pipeline, script);
        mcase_print(&parsed, &pipeline2, &script2);
        cr_assert_str_eq(pipeline2, pipeline);
        cr_assert_str_eq(script2, script);
        free(pipeline);
        free(script);
        free(pipeline2);
        free(script2);
    }
}

static bool completes_during_a_step(const mcase *c, void *arg) {
    moutcome o;
    int k;
    (void)arg;
    if (!model_run(c, &o)) {
        return false;
    }
    for (k = 0; k < o.nevents; k++) {
        if (o.events[k].kind == 'c' && o.events[k].step >= 0) {
            return true;
        }
    }
    return false;
}

/* The shrinker reduces a case to a minimal one with the same failure (here
 * a stand-in failure: "completes during a step"). */
Test(model, shrinker_reduces_a_failing_case, .timeout = SK_TEST_TIMEOUT) {
    mcase c;
    char *pipeline, *script;
    cr_assert(mcase_parse(&c, "then(take(2, filter(even, subject(1))), merge([just([3, 4]), take(1, pipe(1))]))",
                          "put(1, 5) send(1, 2) send(1, 1) put(0, 3) send(1, 4) put(1, 6)"));
    cr_assert(completes_during_a_step(&c, NULL));
    mcase_shrink(&c, completes_during_a_step, NULL);
    mcase_print(&c, &pipeline, &script);
    cr_assert(completes_during_a_step(&c, NULL));
    /* take(1, pipe(0)) with put(0, 0), or the same with a subject */
    cr_assert(strncmp(pipeline, "take(1, ", 8) == 0 && strchr(pipeline + 8, '(') != NULL &&
                  strchr(strchr(pipeline + 8, '(') + 1, '(') == NULL && c.nsteps == 1,
              "%s / %s", pipeline, script);
    free(pipeline);
    free(script);
}

/* ------------------------------------------------------------------------ */
/* Semantics the model relies on                                             */
/* ------------------------------------------------------------------------ */

AGREEMENT_TEST(take_completes_right_after_the_nth_value, "take(2, pipe(0))", "put(0, 1) put(0, 2) put(0, 3)")

AGREEMENT_TEST(take_stops_a_synchronous_restart,
               "take(3, restart(just([1, 2])))", "",
               "take(2, restart_if_error(fail([5], 1)))", "")

AGREEMENT_TEST(then_runs_the_second_after_the_first,
               "then(take(1, pipe(0)), merge([just([7]), pipe(0)]))", "put(0, 1) put(0, 2)")

AGREEMENT_TEST(an_error_ends_everything, "combine([pipe(0), subject(0)])", "put(0, 1) send(0, 2) fail(0, 4) put(0, 3)")

AGREEMENT_TEST(last_of_nothing_is_nil,
               "last(just([]))", "",
               "last(subject(0))", "send(0, 1) send(0, 2) complete(0)")

AGREEMENT_TEST(distinct_compares_with_the_previous_value,
               "distinct(pipe(0))", "put(0, 1) put(0, 1) put(0, 2) put(0, 1)")

AGREEMENT_TEST(switch_to_latest_over_signal_values,
               "meta(switch_to_latest, pipe(0), merge([just([10]), pipe(1)]))", "put(0, 1) put(1, 5) put(0, 2) put(1, 6)",
               "meta(queue, pipe(0), take(1, pipe(1)))", "put(0, 1) put(0, 2) put(1, 5) put(1, 6)",
               "meta(throttled, pipe(0), take(1, pipe(1)))", "put(0, 1) put(0, 2) put(0, 3) put(1, 5) put(1, 6)")

AGREEMENT_TEST(a_pipe_delivers_to_a_snapshot_in_subscription_order,
               "merge([then(take(1, pipe(0)), pipe(0)), map(double, pipe(0))])", "put(0, 1) put(0, 2)")

/* Pipe 2 replays: a new subscriber gets the latest value at once, even
 * during the pipe's own delivery; a value put during that replay reaches the
 * new subscriber right after it. */
AGREEMENT_TEST(replaying_pipe,
               "then(take(1, pipe(2)), take(2, pipe(2)))", "put(2, 1) put(2, 2)",
               "then(ignore(take(1, pipe(0))), merge([pipe(2), pipe(2)]))", "put(2, 5) put_on_next(2, 7) put(0, 1)")

AGREEMENT_TEST(dispose_and_put_inside_a_callback,
               "merge([pipe(0), pipe(0), pipe(0)])", "dispose_on_next put(0, 1) put(0, 2)",
               "merge([pipe(0), map(increment, pipe(0))])", "put_on_next(0, 7) put(0, 1) put(0, 2)")

/* An inner signal of map_to_signal replaced while it was still starting (by
 * a value it emitted): the rest of what it emits is dropped. (Found in the
 * Swift tester, where the model had it wrong.) */
AGREEMENT_TEST(an_inner_signal_replaced_while_starting_is_dropped,
               "meta(map_to_signal, subject(1), just([0, 0]))", "send_on_next(1, 0) send(1, 0)")

/* take(n) completes once every value it admitted has been delivered: when
 * the n-th arrives from inside the callback of an earlier one, the
 * completion waits until that earlier delivery is over (here the inner
 * take(2) completes only after the outer take(1) has, and restart does not
 * start again). (The model had it wrong.) Seed 29385, shrunk. */
AGREEMENT_TEST(take_completes_once_every_admitted_value_was_delivered,
               "take(1, restart(take(2, subject(0))))", "send_on_next(0, 0) send(0, 0)")

/* scan folds one event at a time: a value sent to its source from inside
 * the delivery of its result waits until that delivery has returned; here
 * the inner signal's error ends everything first, so it never arrives (the
 * Swift model's behaveScan, the library's serial drain). (The model had it
 * wrong: found by make test-fuzz-model, shrunk.) */
AGREEMENT_TEST(scan_holds_a_value_sent_from_inside_its_delivery,
               "meta(map_to_signal, scan(0, subject(0)), fail([0], 0))", "send_on_next(0, 0) send(0, 0)",
               "scan(0, subject(0))", "send_on_next(0, 1) send(0, 2) send(0, 3) complete(0)")

/* share and replay: equal ops of a case are one shared signal. A second
 * subscriber joins the running connection (and gets what comes after;
 * replay(n): the last n values first), connects anew once the first ended
 * (then), joins from inside the connection's own delivery (an inner signal
 * over it); an upstream that lets go of its subscriber (never) ends the
 * subscribers without an event. */
AGREEMENT_TEST(share_and_replay_are_one_connection_per_case,
               "merge([share(pipe(0)), map(double, share(pipe(0)))])", "put(0, 1) put(0, 2)",
               "then(share(just([1, 2])), share(just([1, 2])))", "",
               "meta(map_to_signal, pipe(1), replay(2, pipe(0)))", "put(1, 0) put(0, 1) put(0, 2) put(1, 10) put(0, 3)",
               "merge([replay(2, subject(0)), meta(map_to_signal, replay(2, subject(0)), replay(2, subject(0)))])",
               "send(0, 1) send(0, 2) send(0, 3) complete(0) send(0, 4)",
               "merge([share(never), share(never)])", "",
               "combine([share(subject(0)), map(negate, share(subject(0)))])", "send(0, 1) dispose send(0, 2)")

/* The Swift model's regression cases for share (bugs 4 and 5 of
 * Tests/README.md), in C: a subscriber that ended below, or was disposed
 * while its start still ran, no longer counts; a shared upstream that is
 * delivering is not abandoned. */
AGREEMENT_TEST(a_shared_signals_ended_subscriber_no_longer_counts,
               "merge_map(1, just([0, 0]), take(1, share(subject(1))))", "send(1, 0)",
               "meta(queue, just([0, 0]), take(1, share(subject(1))))", "send(1, 0)",
               "meta(map_to_signal, subject(1), share(just([0])))", "send_on_next(1, 0) send(1, 0)",
               "share(last(take_until(until_at_least_3, pipe(2))))", "send_on_next(0, 0) put(2, 3)")

/* then, the meta operators (the library's _SignalQueueState) and restart
 * (SignalResubscriber) follow a part, inner signal or round that completed
 * before its start returned only once that start has returned (a
 * trampoline): meanwhile the shared connection's completion reaches its
 * other subscribers. Here the first then's share completes while connecting
 * (inside its start), the inner then's share (joined earlier) gets the
 * completion next and starts just([7]) at once: 8 comes before 101. (The
 * model started the next part at once: found by fuzz_model, shrunk; the
 * Swift model does the same, and its generator does not make such cases.) */
AGREEMENT_TEST(a_part_completed_while_starting_is_followed_once_its_start_returned,
               "meta(map_to_signal, then(share(just([1])), just([100])), then(share(just([1])), just([7])))", "",
               "meta(map_to_signal, then(replay(3, just([0, 0, 0])), just([0])), "
               "meta(queue, replay(3, just([0, 0, 0])), replay(3, just([0, 0, 0]))))", "",
               "merge([take(2, restart(share(just([1, 2])))), share(just([1, 2]))])", "",
               "merge_map(1, then(replay(1, just([1, 2])), just([100])), then(replay(1, just([1, 2])), replay(1, just([1, 2]))))", "")

/* A shared connection's terminal event put while its pipe delivers (from
 * inside a callback) waits until that delivery is over, after the values
 * put meanwhile, as a SignalPipe's does: not into the backlog of a
 * subscriber getting its replay. Here the inner replay's subscriber gets
 * the replayed 3 and the 3 put during its replay, but the error only after
 * the outer subscriber got that 3 (its new inner signal connects anew:
 * subject 0 subscribed twice). (The model gave the error to the replaying
 * subscriber at once: found by fuzz_model, shrunk; the Swift model does the
 * same.) */
AGREEMENT_TEST(a_shared_terminal_event_put_while_delivering_waits_for_the_delivery,
               "meta(map_to_signal, replay(1, meta(map_to_signal, subject(0), fail([3], 0))), "
               "replay(1, meta(map_to_signal, subject(0), fail([3], 0))))",
               "send_on_next(0, 0) send(0, 0)")

/* A shared upstream starts nothing once every subscriber of its session
 * has ended, also from inside the terminal callback of the last one (its
 * disposal comes after the callback): the completion's callback puts 0
 * into pipe 0, for which merge_map started subject 1 again (subscribed
 * twice; found by fuzz_model, about 1 case in 37,000, shrunk). The
 * session's upstream now links to the session (INTERNALS.md, "Ended during
 * its start"). */
AGREEMENT_TEST(a_shared_upstream_starts_nothing_once_its_last_subscriber_ended,
               "take_while(positive, share(merge_map(0, pipe(0), subject(1))))", "put_on_next(0, 0) put(0, 0) send(1, 0)",
               "take_while(positive, replay(1, merge_map(0, pipe(0), subject(1))))", "put_on_next(0, 0) put(0, 0) send(1, 0)",
               "last(take(1, share(meta(map_to_signal, pipe(1), subject(0)))))", "put(1, 0) put_on_next(1, 0) send(0, 0)")

/* merge_map: at most max_concurrent inner signals (0: SIZE_MAX), the
 * others waiting in order; completes once the outer and every inner signal
 * have. */
AGREEMENT_TEST(merge_map_runs_at_most_max_concurrent,
               "merge_map(1, pipe(0), take(1, pipe(1)))", "put(0, 1) put(0, 2) put(1, 5) put(1, 6)",
               "merge_map(0, just([1, 2]), just([10]))", "",
               "merge_map(2, subject(0), take(1, pipe(1)))",
               "send(0, 1) send(0, 2) send(0, 3) complete(0) put(1, 5) put(1, 6) put(1, 7)")

/* ------------------------------------------------------------------------ */
/* Open library bugs (see Tests/common/model_oracle.h)                       */
/* ------------------------------------------------------------------------ */

/* Disposing restart_if_error over a pipe (or over another restart_if_error)
 * disposes nothing: the subscription stays in the pipe, with its callbacks
 * (here map's context, released only when the pipe goes), or in the
 * subject. (Over a bare pipe, the observer is released all the same, and
 * only the pipe's memory shows the leak.) */
AGREEMENT_TEST(restart_if_error_over_a_pipe_is_disposed,
               "restart_if_error(map(increment, pipe(0)))", "put(0, 1)",
               "restart_if_error(restart_if_error(subject(0)))", "")

/* After the subscription ended during its start (take_until or take
 * completed, an error reached it), then and merge used to start (and at
 * once dispose) their next inputs; through an operator in between too
 * (distinct, dematerialize, restart, take, ...). */
Test(model, nothing_starts_after_the_subscription_ended_during_its_start, .timeout = SK_TEST_TIMEOUT) {
    expect_agreement("meta(map_to_signal, merge([just([0]), subject(0)]), fail([], 0))", "");
    expect_agreement("take_until(until_at_least_3, then(just([3]), subject(0)))", "");
    expect_agreement("take(1, merge([just([1]), subject(0)]))", "");
    expect_agreement("take(1, distinct(merge([just([1]), subject(0)])))", "");
    expect_agreement("take(1, take(5, merge([just([1]), subject(0)])))", "");
    expect_agreement("take(1, restart(then(just([0]), subject(0))))", "");
    expect_agreement("take_until(until_at_least_3, distinct(catch(fail([3], 0), subject(0))))", "");
    expect_agreement("take(1, distinct(meta(map_to_signal, just([0]), merge([just([1]), subject(0)]))))", "");
}

/* The same for an inner signal of map_to_signal replaced while it is still
 * starting (a value it emitted went round to the outer subject): its catch
 * used to start the alternative all the same. Seed 1592590688, shrunk. */
AGREEMENT_TEST(nothing_starts_in_an_inner_signal_replaced_while_starting,
               "meta(map_to_signal, subject(0), catch(fail([-2], 0), subject(0)))", "send_on_next(0, 0) send(0, 0)",
               "meta(map_to_signal, subject(0), merge([just([1]), subject(1)]))", "send_on_next(0, 0) send(0, 0)")

/* A subscription that ended by its terminal event is disposed once that
 * event has been delivered (SwiftSignalKit's order): meanwhile a value put
 * into a pipe upstream, by a callback the terminal event caused (last's
 * value, then's and catch's next signal), reached a meta operator that was
 * not yet disposed, and it started its inner signal (disposed at once)
 * for a subscription that was over. Directly under the ending operator,
 * through operators in between, after an error from a combine_latest
 * input. Found by fuzz_model in a CI run (the first case, shrunk). */
AGREEMENT_TEST(nothing_starts_while_the_terminal_event_is_delivered,
               "last(take_until(first, meta(map_to_signal, pipe(1), subject(0))))", "put(1, 0) put_on_next(1, 0) send(0, 0)",
               "last(take(1, meta(map_to_signal, pipe(1), subject(0))))", "put(1, 0) put_on_next(1, 0) send(0, 0)",
               "last(take(1, distinct(meta(map_to_signal, pipe(1), subject(0)))))", "put(1, 0) put_on_next(1, 0) send(0, 0)",
               "last(take(1, distinct(distinct(meta(map_to_signal, pipe(1), subject(0))))))", "put(1, 0) put_on_next(1, 0) send(0, 0)",
               "then(ignore(take(1, meta(map_to_signal, pipe(1), subject(0)))), just([7]))", "put(1, 0) put_on_next(1, 0) send(0, 0)",
               "catch(combine([meta(map_to_signal, pipe(1), subject(0)), subject(1)]), just([1]))", "put(1, 0) put_on_next(1, 0) fail(1, 5)",
               "last(take_until(first, merge([meta(map_to_signal, pipe(1), subject(0)), subject(1)])))", "put(1, 0) put_on_next(1, 0) send(1, 0)")

/* The last of that class: a then whose running part completes after its
 * start, from inside the terminal callback of its downstream (the
 * subscriber's completion callback puts into the pipe the part's take(1)
 * waits on), started its next part (disposed at once). Found by the Swift
 * model (seed 149389 of a run from 123456), shrunk. */
AGREEMENT_TEST(then_starts_nothing_when_its_part_completes_inside_a_terminal_callback,
               "take_until(stop_before_negative, merge([pipe(2), then(take(1, pipe(0)), subject(0))]))",
               "put_on_next(0, 0) put(2, -1)")
