/* test_operators_combine.c - combine-latest and merge (the C layer's
 * Operators_Combine.swift): the arrays combined, completion when every
 * input completed, delivery on a queue, and argument errors. */
#include <stdint.h>

#include "support.h"

/* ------------------------------------------------------------------------ */
/* Helpers                                                                  */
/* ------------------------------------------------------------------------ */

/* The int64 items of an array value, into `out`. */
static size_t array_ints(const sk_value *array, int64_t *out, size_t max) {
    size_t count = 0;
    SK_OK_OR_FAIL(sk_value_get_array_count(array, &count));
    for (size_t i = 0; i < count && i < max; i++) {
        const sk_value *item = NULL;
        SK_OK_OR_FAIL(sk_value_get_array_item(array, i, &item));
        out[i] = value_int(item);
    }
    return count;
}

static void expect_pair(recorder *r, size_t index, int64_t a, int64_t b) {
    const rec_event *e = recorder_event(r, index);
    cr_assert_not_null(e);
    cr_assert_eq(e->kind, REC_NEXT);
    int64_t got[4];
    cr_assert_eq(array_ints(&e->value, got, 4), 2);
    cr_assert(got[0] == a && got[1] == b, "event %zu is [%lld, %lld], expected [%lld, %lld]", index,
              (long long)got[0], (long long)got[1], (long long)a, (long long)b);
}

/* ------------------------------------------------------------------------ */
/* Combine latest                                                           */
/* ------------------------------------------------------------------------ */

Test(operators_combine, combine_latest_arrays, .timeout = SK_TEST_TIMEOUT) {
    manual_source a, b;
    manual_init(&a);
    manual_init(&b);
    sk_signal *inputs[2] = { manual_signal(&a), manual_signal(&b) };
    sk_signal *combined = NULL;
    SK_OK_OR_FAIL(sk_signal_combine_latest(&combined, inputs, 2, NULL));
    recorder r;
    sk_disposable *d = recorder_start(&r, combined);
    subscriber_put_int(manual_subscriber(&a, 0), 1);
    subscriber_put_int(manual_subscriber(&a, 0), 2);
    recorder_expect(&r, "", NULL, 0); /* b has not emitted yet */
    subscriber_put_int(manual_subscriber(&b, 0), 10);
    subscriber_put_int(manual_subscriber(&a, 0), 3);
    SK_OK_OR_FAIL(sk_subscriber_put_completion(manual_subscriber(&a, 0)));
    subscriber_put_int(manual_subscriber(&b, 0), 20);
    recorder_expect(&r, "nnn", NULL, 0); /* a's completion alone does not complete */
    expect_pair(&r, 0, 2, 10);
    expect_pair(&r, 1, 3, 10);
    expect_pair(&r, 2, 3, 20);
    SK_OK_OR_FAIL(sk_subscriber_put_completion(manual_subscriber(&b, 0)));
    recorder_expect(&r, "nnncr", NULL, 0);
    recorder_finish(&r, d);
    sk_signal_release(combined);
    sk_signal_release(inputs[0]);
    sk_signal_release(inputs[1]);
    manual_destroy(&a);
    manual_destroy(&b);
    expect_no_live_objects(0);
}

Test(operators_combine, combine_latest_of_nothing, .timeout = SK_TEST_TIMEOUT) {
    sk_signal *combined = NULL;
    SK_OK_OR_FAIL(sk_signal_combine_latest(&combined, NULL, 0, NULL));
    recorder r;
    sk_disposable *d = recorder_start(&r, combined);
    recorder_expect(&r, "ncr", NULL, 0);
    const sk_value *value = &recorder_event(&r, 0)->value;
    cr_assert_eq(sk_value_kind(value), SK_KIND_ARRAY);
    size_t count = 99;
    SK_OK_OR_FAIL(sk_value_get_array_count(value, &count));
    cr_assert_eq(count, 0);
    recorder_finish(&r, d);
    sk_signal_release(combined);
    expect_no_live_objects(0);
}

/* Counts nexts delivered on the queue in r->user. */
static void check_on_queue(recorder *r, const sk_value *value) {
    (void)value;
    if (!sk_queue_is_current(r->user)) {
        pthread_mutex_lock(&r->mutex);
        r->faults++;
        pthread_mutex_unlock(&r->mutex);
    }
}

Test(operators_combine, combine_latest_on_a_queue, .timeout = SK_TEST_TIMEOUT) {
    sk_queue *queue = NULL;
    SK_OK_OR_FAIL(sk_queue_create(&queue, "test.combine"));
    manual_source a, b;
    manual_init(&a);
    manual_init(&b);
    sk_signal *inputs[2] = { manual_signal(&a), manual_signal(&b) };
    sk_signal *combined = NULL;
    SK_OK_OR_FAIL(sk_signal_combine_latest(&combined, inputs, 2, queue));
    recorder r;
    recorder_init(&r);
    r.user = queue;
    r.on_next = check_on_queue;
    sk_observer observer = recorder_observer(&r);
    sk_disposable *d = NULL;
    SK_OK_OR_FAIL(sk_signal_start(&d, combined, &observer));
    subscriber_put_int(manual_subscriber(&a, 0), 1);
    subscriber_put_int(manual_subscriber(&b, 0), 2);
    subscriber_put_int(manual_subscriber(&b, 0), 3);
    SK_OK_OR_FAIL(sk_subscriber_put_completion(manual_subscriber(&a, 0)));
    SK_OK_OR_FAIL(sk_subscriber_put_completion(manual_subscriber(&b, 0)));
    cr_assert(recorder_wait_release(&r), "no completion within the deadline");
    recorder_expect(&r, "nncr", NULL, 0); /* also checks faults: every next was on the queue */
    expect_pair(&r, 0, 1, 2);
    expect_pair(&r, 1, 1, 3);
    cr_assert(!pthread_equal(recorder_event(&r, 0)->thread, pthread_self()), "delivered on the emitting thread");
    recorder_finish(&r, d);
    sk_signal_release(combined);
    sk_signal_release(inputs[0]);
    sk_signal_release(inputs[1]);
    manual_destroy(&a);
    manual_destroy(&b);
    expect_no_live_objects(1, queue);
}

/* ------------------------------------------------------------------------ */
/* Merge                                                                    */
/* ------------------------------------------------------------------------ */

Test(operators_combine, merge_completes_when_all_complete, .timeout = SK_TEST_TIMEOUT) {
    manual_source s[3];
    sk_signal *inputs[3];
    for (size_t i = 0; i < 3; i++) {
        manual_init(&s[i]);
        inputs[i] = manual_signal(&s[i]);
    }
    sk_signal *merged = NULL;
    SK_OK_OR_FAIL(sk_signal_merge(&merged, inputs, 3));
    recorder r;
    sk_disposable *d = recorder_start(&r, merged);
    subscriber_put_int(manual_subscriber(&s[1], 0), 10);
    subscriber_put_int(manual_subscriber(&s[0], 0), 1);
    SK_OK_OR_FAIL(sk_subscriber_put_completion(manual_subscriber(&s[0], 0)));
    subscriber_put_int(manual_subscriber(&s[2], 0), 20);
    SK_OK_OR_FAIL(sk_subscriber_put_completion(manual_subscriber(&s[2], 0)));
    subscriber_put_int(manual_subscriber(&s[1], 0), 11);
    const int64_t so_far[] = { 10, 1, 20, 11 };
    recorder_expect(&r, "nnnn", so_far, 4);
    SK_OK_OR_FAIL(sk_subscriber_put_completion(manual_subscriber(&s[1], 0)));
    recorder_expect(&r, "nnnncr", so_far, 4);
    recorder_finish(&r, d);
    sk_signal_release(merged);
    for (size_t i = 0; i < 3; i++) {
        sk_signal_release(inputs[i]);
        cr_assert_eq(counter_get(&s[i].disposed), 1);
        manual_destroy(&s[i]);
    }
    expect_no_live_objects(0);
}

/* ------------------------------------------------------------------------ */
/* Argument errors                                                          */
/* ------------------------------------------------------------------------ */

Test(operators_combine, combine_and_merge_argument_errors, .timeout = SK_TEST_TIMEOUT) {
    sk_signal *never = NULL;
    SK_OK_OR_FAIL(sk_signal_never(&never));
    sk_signal *with_null[2] = { never, NULL };
    sk_signal *wrong[2] = { never, (sk_signal *)(void *)never };
    sk_pipe *pipe = NULL;
    SK_OK_OR_FAIL(sk_pipe_create(&pipe, false));
    wrong[1] = (sk_signal *)(void *)pipe;
    sk_signal *out = (sk_signal *)&out;

    cr_assert_eq(sk_signal_combine_latest(NULL, &never, 1, NULL), SK_ERR_NULL_ARGUMENT);
    cr_assert_eq(sk_signal_combine_latest(&out, NULL, 2, NULL), SK_ERR_NULL_ARGUMENT);
    cr_assert_null(out);
    out = (sk_signal *)&out;
    cr_assert_eq(sk_signal_combine_latest(&out, with_null, 2, NULL), SK_ERR_NULL_ARGUMENT);
    cr_assert_null(out);
    cr_assert_eq(sk_signal_combine_latest(&out, wrong, 2, NULL), SK_ERR_WRONG_KIND);
    cr_assert_eq(sk_signal_combine_latest(&out, &never, 1, (sk_queue *)(void *)pipe), SK_ERR_WRONG_KIND);
    cr_assert_null(out);

    cr_assert_eq(sk_signal_merge(NULL, &never, 1), SK_ERR_NULL_ARGUMENT);
    out = (sk_signal *)&out;
    cr_assert_eq(sk_signal_merge(&out, NULL, 2), SK_ERR_NULL_ARGUMENT);
    cr_assert_null(out);
    cr_assert_eq(sk_signal_merge(&out, with_null, 2), SK_ERR_NULL_ARGUMENT);
    cr_assert_eq(sk_signal_merge(&out, wrong, 2), SK_ERR_WRONG_KIND);
    cr_assert_null(out);
    sk_pipe_release(pipe);
    sk_signal_release(never);
    expect_no_live_objects(0);
}

/* A count no array can have (above PTRDIFF_MAX) is detectable misuse. */
Test(operators_combine, huge_counts_rejected, .timeout = SK_TEST_TIMEOUT) {
    sk_signal *never = NULL;
    SK_OK_OR_FAIL(sk_signal_never(&never));
    sk_signal *inputs[1] = { never };
    sk_signal *out = (sk_signal *)&out;
    cr_assert_eq(sk_signal_combine_latest(&out, inputs, SIZE_MAX, NULL), SK_ERR_INVALID_ARGUMENT);
    cr_assert_null(out);
    out = (sk_signal *)&out;
    cr_assert_eq(sk_signal_merge(&out, inputs, SIZE_MAX), SK_ERR_INVALID_ARGUMENT);
    cr_assert_null(out);
    sk_signal_release(never);
    expect_no_live_objects(0);
}
