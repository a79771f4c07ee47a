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
    pipeline p;
    pipeline_init(&p);
    SK_OK_OR_FAIL(sk_signal_combine_latest(&p.op, p.inner_signal, 2, NULL));
    pipeline_start(&p);
    sk_subscriber *a = pipeline_inner_subscriber(&p, 0), *b = pipeline_inner_subscriber(&p, 1);
    subscriber_put_int(a, 1);
    subscriber_put_int(a, 2);
    recorder_expect(&p.r, "", NULL, 0); /* b has not emitted yet */
    subscriber_put_int(b, 10);
    subscriber_put_int(a, 3);
    SK_OK_OR_FAIL(sk_subscriber_put_completion(a));
    subscriber_put_int(b, 20);
    recorder_expect(&p.r, "nnn", NULL, 0); /* a's completion alone does not complete */
    expect_pair(&p.r, 0, 2, 10);
    expect_pair(&p.r, 1, 3, 10);
    expect_pair(&p.r, 2, 3, 20);
    SK_OK_OR_FAIL(sk_subscriber_put_completion(b));
    recorder_expect(&p.r, "nnncr", NULL, 0);
    pipeline_finish(&p);
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
    sk_queue *queue = serial_queue("test.combine");
    pipeline p;
    pipeline_init(&p);
    SK_OK_OR_FAIL(sk_signal_combine_latest(&p.op, p.inner_signal, 2, queue));
    p.r.user = queue;
    p.r.on_next = check_on_queue;
    pipeline_start(&p);
    sk_subscriber *a = pipeline_inner_subscriber(&p, 0), *b = pipeline_inner_subscriber(&p, 1);
    subscriber_put_int(a, 1);
    subscriber_put_int(b, 2);
    subscriber_put_int(b, 3);
    SK_OK_OR_FAIL(sk_subscriber_put_completion(a));
    SK_OK_OR_FAIL(sk_subscriber_put_completion(b));
    cr_assert(recorder_wait_release(&p.r), "no completion within the deadline");
    recorder_expect(&p.r, "nncr", NULL, 0); /* also checks faults: every next was on the queue */
    expect_pair(&p.r, 0, 1, 2);
    expect_pair(&p.r, 1, 1, 3);
    cr_assert(!pthread_equal(recorder_event(&p.r, 0)->thread, pthread_self()), "delivered on the emitting thread");
    pipeline_finish(&p);
    expect_no_live_objects(1, queue);
}

/* ------------------------------------------------------------------------ */
/* Merge                                                                    */
/* ------------------------------------------------------------------------ */

Test(operators_combine, merge_completes_when_all_complete, .timeout = SK_TEST_TIMEOUT) {
    pipeline p;
    pipeline_init(&p);
    SK_OK_OR_FAIL(sk_signal_merge(&p.op, p.inner_signal, 3));
    pipeline_start(&p);
    subscriber_put_int(pipeline_inner_subscriber(&p, 1), 10);
    subscriber_put_int(pipeline_inner_subscriber(&p, 0), 1);
    SK_OK_OR_FAIL(sk_subscriber_put_completion(pipeline_inner_subscriber(&p, 0)));
    subscriber_put_int(pipeline_inner_subscriber(&p, 2), 20);
    SK_OK_OR_FAIL(sk_subscriber_put_completion(pipeline_inner_subscriber(&p, 2)));
    subscriber_put_int(pipeline_inner_subscriber(&p, 1), 11);
    const int64_t so_far[] = { 10, 1, 20, 11 };
    recorder_expect(&p.r, "nnnn", so_far, 4);
    SK_OK_OR_FAIL(sk_subscriber_put_completion(pipeline_inner_subscriber(&p, 1)));
    recorder_expect(&p.r, "nnnncr", so_far, 4);
    pipeline_stop(&p);
    for (size_t i = 0; i < 3; i++) {
        cr_assert_eq(counter_get(&p.inner[i].disposed), 1);
    }
    pipeline_finish(&p);
    expect_no_live_objects(0);
}

/* ------------------------------------------------------------------------ */
/* Argument errors                                                          */
/* ------------------------------------------------------------------------ */

Test(operators_combine, combine_and_merge_argument_errors, .timeout = SK_TEST_TIMEOUT) {
    sk_signal *never = made_signal(sk_signal_never);
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
    sk_signal *never = made_signal(sk_signal_never);
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
