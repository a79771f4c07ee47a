/* test_operators_combine.c - combine-latest and merge (the C layer's
 * Operators_Combine.swift and Operators_Merge.swift): the arrays combined, completion when every
 * input completed, delivery on a queue, and argument errors. */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

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

/* With no signals, the queue is not used (as in the original, whose
 * combineLatest of an empty array is a `single` of it): the empty array and
 * the completion come at once, during the start, on the starting thread. */
Test(operators_combine, combine_latest_of_nothing_on_a_queue_emits_during_the_start, .timeout = SK_TEST_TIMEOUT) {
    sk_queue *queue = serial_queue("test.combine.nothing");
    sk_signal *combined = NULL;
    SK_OK_OR_FAIL(sk_signal_combine_latest(&combined, NULL, 0, queue));
    recorder r;
    sk_disposable *d = recorder_start(&r, combined);
    recorder_expect(&r, "ncr", NULL, 0); /* before the start returned */
    cr_assert(pthread_equal(recorder_event(&r, 0)->thread, pthread_self()), "not delivered on the starting thread");
    cr_assert(pthread_equal(recorder_event(&r, 1)->thread, pthread_self()), "not completed on the starting thread");
    recorder_finish(&r, d);
    sk_signal_release(combined);
    expect_no_live_objects(1, queue);
}

Test(operators_combine, merge_of_nothing_completes_at_once, .timeout = SK_TEST_TIMEOUT) {
    sk_signal *merged = NULL;
    SK_OK_OR_FAIL(sk_signal_merge(&merged, NULL, 0));
    expect_signal_log(merged, "cr", NULL, 0);
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

/* Arrays that callbacks only borrow are reused by the library (an emission
 * nobody kept is refilled for the next one): what a callback reads must be
 * the combination of that put, whether earlier emissions were kept or not,
 * and a kept copy must never change afterwards. */

#define REUSE_MAX_INPUTS 3
#define REUSE_PUTS 2000
#define REUSE_KEPT 64

typedef struct reuse_sink {
    size_t inputs;
    int64_t seen[REUSE_PUTS][REUSE_MAX_INPUTS]; /* read while borrowed */
    size_t count;
    sk_value kept[REUSE_KEPT]; /* copies of some emissions */
    size_t kept_at[REUSE_KEPT]; /* the emission each copy is of */
    size_t kept_count;
    uint64_t keep_mask; /* keep emission i when bit (i % 64) is set */
} reuse_sink;

static void reuse_next(void *ctx, const sk_value *value) {
    reuse_sink *sink = ctx;
    cr_assert_lt(sink->count, REUSE_PUTS);
    cr_assert_eq(array_ints(value, sink->seen[sink->count], REUSE_MAX_INPUTS), sink->inputs);
    if (((sink->keep_mask >> (sink->count % 64)) & 1) && sink->kept_count < REUSE_KEPT) {
        SK_OK_OR_FAIL(sk_value_copy(&sink->kept[sink->kept_count], value));
        sink->kept_at[sink->kept_count++] = sink->count;
    }
    sink->count++;
}

static uint64_t reuse_random(uint64_t *state) {
    uint64_t z = (*state += 0x9E3779B97F4A7C15u);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9u;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBu;
    return z ^ (z >> 31);
}

/* Two inputs (the library combines them as a pair) and three (as an array),
 * with emissions kept never, always, at two, and at random. */
Test(operators_combine, combine_latest_reused_arrays_match_a_model, .timeout = SK_TEST_TIMEOUT) {
    const uint64_t masks[] = { 0, UINT64_MAX, 0x8000000000000001u, 0 };
    for (size_t run = 0; run < 2 * sizeof masks / sizeof masks[0]; run++) {
        size_t inputs_count = run < 4 ? 2 : 3;
        uint64_t random = 0x5EED + run;
        static reuse_sink sink;
        memset(&sink, 0, sizeof sink);
        sink.inputs = inputs_count;
        sink.keep_mask = run % 4 == 3 ? reuse_random(&random) : masks[run % 4];
        sk_pipe *pipes[REUSE_MAX_INPUTS];
        sk_signal *inputs[REUSE_MAX_INPUTS], *combined = NULL;
        for (size_t i = 0; i < inputs_count; i++) {
            SK_OK_OR_FAIL(sk_pipe_create(&pipes[i], false));
            SK_OK_OR_FAIL(sk_pipe_signal(&inputs[i], pipes[i]));
        }
        SK_OK_OR_FAIL(sk_signal_combine_latest(&combined, inputs, inputs_count, NULL));
        sk_observer observer = { reuse_next, NULL, NULL, &sink, NULL };
        sk_disposable *d = NULL;
        SK_OK_OR_FAIL(sk_signal_start(&d, combined, &observer));
        /* The model: the latest value of each input, and every combination. */
        int64_t latest[REUSE_MAX_INPUTS] = { 0 };
        size_t known = 0;
        bool seen_input[REUSE_MAX_INPUTS] = { false };
        static int64_t expected[REUSE_PUTS][REUSE_MAX_INPUTS];
        size_t emissions = 0;
        for (int64_t n = 0; n < REUSE_PUTS; n++) {
            size_t input = (size_t)(reuse_random(&random) % inputs_count);
            pipe_put_int(pipes[input], n);
            latest[input] = n;
            if (!seen_input[input]) {
                seen_input[input] = true;
                known++;
            }
            if (known == inputs_count) {
                memcpy(expected[emissions++], latest, sizeof latest);
            }
        }
        cr_assert_eq(sink.count, emissions, "run %zu: %zu emissions, expected %zu", run, sink.count, emissions);
        for (size_t e = 0; e < emissions; e++) {
            cr_assert(memcmp(sink.seen[e], expected[e], inputs_count * sizeof(int64_t)) == 0,
                      "run %zu: emission %zu read [%lld, %lld, %lld], expected [%lld, %lld, %lld]", run, e,
                      (long long)sink.seen[e][0], (long long)sink.seen[e][1], (long long)sink.seen[e][2],
                      (long long)expected[e][0], (long long)expected[e][1], (long long)expected[e][2]);
        }
        cr_assert(run % 4 == 0 || sink.kept_count > 0, "run %zu kept nothing", run);
        for (size_t k = 0; k < sink.kept_count; k++) {
            int64_t got[REUSE_MAX_INPUTS];
            cr_assert_eq(array_ints(&sink.kept[k], got, REUSE_MAX_INPUTS), inputs_count);
            cr_assert(memcmp(got, expected[sink.kept_at[k]], inputs_count * sizeof(int64_t)) == 0,
                      "run %zu: the copy of emission %zu changed after it was kept", run, sink.kept_at[k]);
            sk_value_release(&sink.kept[k]);
        }
        sk_disposable_dispose(d);
        sk_disposable_release(d);
        sk_signal_release(combined);
        for (size_t i = 0; i < inputs_count; i++) {
            sk_signal_release(inputs[i]);
            sk_pipe_release(pipes[i]);
        }
        expect_no_live_objects(0);
    }
}

/* Heap items in reused arrays: each string a callback reads is the one put,
 * and none outlives the subscription. */
typedef struct string_sink {
    char seen[8][16];
    size_t count;
} string_sink;

static void string_pair_next(void *ctx, const sk_value *value) {
    string_sink *sink = ctx;
    const sk_value *a = NULL, *b = NULL;
    const char *ta = NULL, *tb = NULL;
    SK_OK_OR_FAIL(sk_value_get_array_item(value, 0, &a));
    SK_OK_OR_FAIL(sk_value_get_array_item(value, 1, &b));
    SK_OK_OR_FAIL(sk_value_get_string(a, &ta, NULL));
    SK_OK_OR_FAIL(sk_value_get_string(b, &tb, NULL));
    cr_assert_lt(sink->count, 8);
    snprintf(sink->seen[sink->count++], sizeof sink->seen[0], "%s%s", ta, tb);
}

/* Two pipes combined (sk_signal_combine_latest) and started with one
 * observer: one subscription's pairs, which it reuses. */
typedef struct combined_pair {
    sk_pipe *pipes[2];
    sk_signal *inputs[2];
    sk_signal *combined;
    sk_disposable *subscription;
} combined_pair;

static void combined_pair_start(combined_pair *c, sk_observer observer) {
    for (size_t i = 0; i < 2; i++) {
        SK_OK_OR_FAIL(sk_pipe_create(&c->pipes[i], false));
        SK_OK_OR_FAIL(sk_pipe_signal(&c->inputs[i], c->pipes[i]));
    }
    SK_OK_OR_FAIL(sk_signal_combine_latest(&c->combined, c->inputs, 2, NULL));
    SK_OK_OR_FAIL(sk_signal_start(&c->subscription, c->combined, &observer));
}

/* Disposes and releases everything `combined_pair_start` made; nothing
 * outlives it. */
static void combined_pair_end(combined_pair *c) {
    sk_disposable_dispose(c->subscription);
    sk_disposable_release(c->subscription);
    sk_signal_release(c->combined);
    for (size_t i = 0; i < 2; i++) {
        sk_signal_release(c->inputs[i]);
        sk_pipe_release(c->pipes[i]);
    }
    expect_no_live_objects(0);
}

Test(operators_combine, combine_latest_reused_arrays_of_strings, .timeout = SK_TEST_TIMEOUT) {
    string_sink sink = { .count = 0 };
    combined_pair c;
    combined_pair_start(&c, (sk_observer){ string_pair_next, NULL, NULL, &sink, NULL });
    const char *puts[][2] = { { "0", "a" }, { "1", "b" }, { "1", "c" }, { "0", "d" }, { "1", "e" } };
    for (size_t i = 0; i < 5; i++) {
        sk_value text = string_value(puts[i][1]);
        SK_OK_OR_FAIL(sk_pipe_put(c.pipes[puts[i][0][0] - '0'], &text));
        sk_value_release(&text);
    }
    const char *expected[] = { "ab", "ac", "dc", "de" };
    cr_assert_eq(sink.count, 4);
    for (size_t i = 0; i < 4; i++) {
        cr_assert_str_eq(sink.seen[i], expected[i]);
    }
    combined_pair_end(&c);
}

/* The items of a pair as text: an int as its digits, a string as itself,
 * an array as "[count]". */
static void item_text(const sk_value *item, char *out, size_t size) {
    const char *text = NULL;
    size_t count = 0;
    switch (sk_value_kind(item)) {
    case SK_KIND_INT64:
        snprintf(out, size, "%lld", (long long)value_int(item));
        break;
    case SK_KIND_STRING:
        SK_OK_OR_FAIL(sk_value_get_string(item, &text, NULL));
        snprintf(out, size, "%s", text);
        break;
    case SK_KIND_ARRAY:
        SK_OK_OR_FAIL(sk_value_get_array_count(item, &count));
        snprintf(out, size, "[%zu]", count);
        break;
    default:
        snprintf(out, size, "kind %d", (int)sk_value_kind(item));
    }
}

typedef struct mixed_sink {
    char seen[16][24];
    size_t count;
} mixed_sink;

static void mixed_pair_next(void *ctx, const sk_value *value) {
    mixed_sink *sink = ctx;
    const sk_value *items = NULL;
    size_t count = 0;
    char a[10], b[10];
    SK_OK_OR_FAIL(sk_value_get_array_items(value, &items, &count));
    cr_assert_eq(count, 2);
    item_text(&items[0], a, sizeof a);
    item_text(&items[1], b, sizeof b);
    cr_assert_lt(sink->count, 16);
    snprintf(sink->seen[sink->count++], sizeof sink->seen[0], "%s,%s", a, b);
}

/* One subscription's reused pair refilled with every mix of kinds: numbers
 * after numbers (refilled in place without a retain or a release), strings
 * and an array replacing numbers and replaced by them. Each emission reads
 * what was put (a heap item not retained would be read after its release),
 * and nothing outlives the subscription (a replaced heap item not released
 * would). */
Test(operators_combine, combine_latest_reused_pairs_of_mixed_kinds, .timeout = SK_TEST_TIMEOUT) {
    mixed_sink sink = { .count = 0 };
    combined_pair c;
    combined_pair_start(&c, (sk_observer){ mixed_pair_next, NULL, NULL, &sink, NULL });
    sk_value three[3] = { int_value(1), int_value(2), int_value(3) };
    /* Input and value: "i" an int, "s" a string, "a" an array of three. */
    const struct { int input; char kind; int64_t n; const char *text; } puts[] = {
        { 0, 'i', 1, NULL }, { 1, 'i', 2, NULL }, { 0, 's', 0, "a" }, { 1, 'i', 3, NULL },
        { 0, 'i', 4, NULL }, { 1, 'i', 5, NULL }, { 1, 's', 0, "b" }, { 0, 'i', 6, NULL },
        { 1, 'i', 7, NULL }, { 0, 'a', 0, NULL }, { 0, 'i', 8, NULL }, { 1, 'i', 9, NULL },
    };
    for (size_t i = 0; i < sizeof puts / sizeof puts[0]; i++) {
        sk_value v;
        if (puts[i].kind == 'i') {
            v = int_value(puts[i].n);
        } else if (puts[i].kind == 's') {
            v = string_value(puts[i].text);
        } else {
            SK_OK_OR_FAIL(sk_value_set_array(&v, three, 3));
        }
        SK_OK_OR_FAIL(sk_pipe_put(c.pipes[puts[i].input], &v));
        sk_value_release(&v); /* the pair holds its own reference */
    }
    const char *expected[] = { "1,2", "a,2", "a,3", "4,3", "4,5", "4,b", "6,b", "6,7", "[3],7", "8,7", "8,9" };
    size_t expected_count = sizeof expected / sizeof expected[0];
    cr_assert_eq(sink.count, expected_count, "%zu emissions", sink.count);
    for (size_t i = 0; i < expected_count; i++) {
        cr_assert_str_eq(sink.seen[i], expected[i], "emission %zu", i);
    }
    combined_pair_end(&c);
}

/* A stage after the combination (a C map) whose function disposes the
 * subscription: the value it returns for that put reaches nobody, nothing
 * is delivered afterwards, and every object goes away. The map checks the
 * combination's subscription between its function and the observer, so the
 * combination must hand it its own subscription's state. */
typedef struct disposing_map {
    sk_disposable *subscription; /* set once sk_signal_start returned */
    int64_t dispose_at; /* the sum of the pair at which to dispose */
    int calls;
} disposing_map;

static void sum_pair_disposing(void *ctx, const sk_value *value, sk_value *out) {
    disposing_map *m = ctx;
    int64_t pair[2];
    cr_assert_geq(array_ints(value, pair, 2), 2);
    m->calls++;
    if (pair[0] + pair[1] == m->dispose_at) {
        sk_disposable_dispose(m->subscription);
    }
    sk_value_set_int64(out, pair[0] + pair[1]);
}

Test(operators_combine, combine_latest_then_a_stage_that_disposes, .timeout = SK_TEST_TIMEOUT) {
    for (size_t inputs_count = 2; inputs_count <= 3; inputs_count++) {
        sk_pipe *pipes[3];
        sk_signal *inputs[3], *combined = NULL, *summed = NULL;
        for (size_t i = 0; i < inputs_count; i++) {
            SK_OK_OR_FAIL(sk_pipe_create(&pipes[i], false));
            SK_OK_OR_FAIL(sk_pipe_signal(&inputs[i], pipes[i]));
        }
        /* Two inputs are combined as a pair, three as an array (the map sums
         * the first two items; the third input is put 0 first). */
        SK_OK_OR_FAIL(sk_signal_combine_latest(&combined, inputs, inputs_count, NULL));
        disposing_map m = { NULL, 23, 0 };
        SK_OK_OR_FAIL(sk_signal_map(&summed, combined, sum_pair_disposing, &m, NULL));
        recorder r;
        m.subscription = recorder_start(&r, summed);
        for (size_t i = 2; i < inputs_count; i++) {
            pipe_put_int(pipes[i], 0);
        }
        pipe_put_int(pipes[0], 1);
        pipe_put_int(pipes[1], 10); /* 11 */
        pipe_put_int(pipes[0], 3);  /* 13 */
        pipe_put_int(pipes[1], 20); /* 23: disposes in the map */
        pipe_put_int(pipes[0], 5);  /* after dispose: not combined */
        cr_assert_eq(m.calls, 3, "%zu inputs: the map ran %d times, expected 3", inputs_count, m.calls);
        int64_t expected[] = { 11, 13 };
        recorder_expect(&r, "nnr", expected, 2);
        recorder_finish(&r, m.subscription);
        sk_signal_release(summed);
        sk_signal_release(combined);
        for (size_t i = 0; i < inputs_count; i++) {
            sk_signal_release(inputs[i]);
            sk_pipe_release(pipes[i]);
        }
        expect_no_live_objects(0);
    }
}

/* The recorded event `index` is an array of `count` items: a, b, then zeros. */
static void expect_combination(size_t count, recorder *r, size_t index, int64_t a, int64_t b) {
    const rec_event *e = recorder_event(r, index);
    cr_assert_not_null(e);
    cr_assert_eq(e->kind, REC_NEXT);
    int64_t got[4] = { 0 };
    cr_assert_eq(array_ints(&e->value, got, 4), count);
    cr_assert(got[0] == a && got[1] == b && got[2] == 0, "event %zu is [%lld, %lld, %lld], expected [%lld, %lld, 0]",
              index, (long long)got[0], (long long)got[1], (long long)got[2], (long long)a, (long long)b);
}

/* The array a combination hands on is lent for the call: a stage that keeps
 * it (distinct-until-changed keeps the previous value, last the latest, the
 * recorder a copy made with sk_value_copy) must keep the array it was given,
 * unchanged by later puts, and the library must make a fresh array for the
 * next emission rather than refill the kept one. Two inputs (the pair) and
 * three (the array form). */
Test(operators_combine, combine_latest_lent_arrays_kept_by_stages, .timeout = SK_TEST_TIMEOUT) {
    long live_at_start = sk_live_objects();
    for (size_t inputs_count = 2; inputs_count <= 3; inputs_count++) {
        sk_pipe *pipes[3];
        sk_signal *inputs[3], *combined = NULL, *distinct = NULL, *taken = NULL, *last = NULL;
        for (size_t i = 0; i < inputs_count; i++) {
            SK_OK_OR_FAIL(sk_pipe_create(&pipes[i], false));
            SK_OK_OR_FAIL(sk_pipe_signal(&inputs[i], pipes[i]));
        }
        SK_OK_OR_FAIL(sk_signal_combine_latest(&combined, inputs, inputs_count, NULL));
        SK_OK_OR_FAIL(sk_signal_distinct_until_changed(&distinct, combined));
        SK_OK_OR_FAIL(sk_signal_take(&taken, combined, 3));
        SK_OK_OR_FAIL(sk_signal_last(&last, taken));
        recorder distinct_r, last_r, plain_r;
        sk_disposable *distinct_d = recorder_start(&distinct_r, distinct);
        sk_disposable *last_d = recorder_start(&last_r, last);
        sk_disposable *plain_d = recorder_start(&plain_r, combined);
        for (size_t i = 2; i < inputs_count; i++) {
            pipe_put_int(pipes[i], 0);
        }
        pipe_put_int(pipes[0], 1);
        pipe_put_int(pipes[1], 1); /* [1, 1] */
        pipe_put_int(pipes[0], 1); /* [1, 1] again: not distinct */
        pipe_put_int(pipes[1], 2); /* [1, 2]: the third, last's */
        pipe_put_int(pipes[1], 2); /* [1, 2] again */
        pipe_put_int(pipes[0], 3); /* [3, 2] */
        /* Read after every put: each copy holds the values of its put. */
        recorder_expect(&distinct_r, "nnn", NULL, 0);
        expect_combination(inputs_count, &distinct_r, 0, 1, 1);
        expect_combination(inputs_count, &distinct_r, 1, 1, 2);
        expect_combination(inputs_count, &distinct_r, 2, 3, 2);
        recorder_expect(&last_r, "ncr", NULL, 0);
        expect_combination(inputs_count, &last_r, 0, 1, 2);
        recorder_expect(&plain_r, "nnnnn", NULL, 0);
        expect_combination(inputs_count, &plain_r, 0, 1, 1);
        expect_combination(inputs_count, &plain_r, 1, 1, 1);
        expect_combination(inputs_count, &plain_r, 2, 1, 2);
        expect_combination(inputs_count, &plain_r, 3, 1, 2);
        expect_combination(inputs_count, &plain_r, 4, 3, 2);
        recorder_finish(&distinct_r, distinct_d);
        recorder_finish(&last_r, last_d);
        recorder_finish(&plain_r, plain_d);
        sk_signal_release(last);
        sk_signal_release(taken);
        sk_signal_release(distinct);
        sk_signal_release(combined);
        for (size_t i = 0; i < inputs_count; i++) {
            sk_signal_release(inputs[i]);
            sk_pipe_release(pipes[i]);
        }
        cr_assert_eq(sk_live_objects(), live_at_start, "%zu inputs: %ld objects live, %ld at the start", inputs_count,
                     sk_live_objects(), live_at_start);
    }
}

/* A callback that only borrows the array reads each put's combination in
 * it; one that copies it (sk_value_copy) and reads the copy after later
 * puts sees the values of the put it copied. */
typedef struct copying_sink {
    sk_value copy; /* of the second emission */
    size_t count;
    int64_t borrowed[8][2];
} copying_sink;

static void copying_next(void *ctx, const sk_value *value) {
    copying_sink *sink = ctx;
    cr_assert_lt(sink->count, 8);
    cr_assert_eq(array_ints(value, sink->borrowed[sink->count], 2), 2);
    if (sink->count == 1) {
        SK_OK_OR_FAIL(sk_value_copy(&sink->copy, value));
    }
    sink->count++;
}

Test(operators_combine, combine_latest_copy_of_a_lent_array_keeps_its_values, .timeout = SK_TEST_TIMEOUT) {
    long live_at_start = sk_live_objects();
    sk_pipe *pipes[2];
    sk_signal *inputs[2], *combined = NULL;
    for (size_t i = 0; i < 2; i++) {
        SK_OK_OR_FAIL(sk_pipe_create(&pipes[i], false));
        SK_OK_OR_FAIL(sk_pipe_signal(&inputs[i], pipes[i]));
    }
    SK_OK_OR_FAIL(sk_signal_combine_latest(&combined, inputs, 2, NULL));
    copying_sink sink = { .count = 0 };
    sk_observer observer = { copying_next, NULL, NULL, &sink, NULL };
    sk_disposable *d = NULL;
    SK_OK_OR_FAIL(sk_signal_start(&d, combined, &observer));
    pipe_put_int(pipes[0], 1);
    pipe_put_int(pipes[1], 10); /* [1, 10] */
    pipe_put_int(pipes[0], 2);  /* [2, 10]: copied */
    pipe_put_int(pipes[1], 20); /* [2, 20] */
    pipe_put_int(pipes[0], 3);  /* [3, 20] */
    pipe_put_int(pipes[1], 30); /* [3, 30] */
    const int64_t expected[][2] = { { 1, 10 }, { 2, 10 }, { 2, 20 }, { 3, 20 }, { 3, 30 } };
    cr_assert_eq(sink.count, 5);
    for (size_t i = 0; i < 5; i++) {
        cr_assert(sink.borrowed[i][0] == expected[i][0] && sink.borrowed[i][1] == expected[i][1],
                  "emission %zu read [%lld, %lld]", i, (long long)sink.borrowed[i][0], (long long)sink.borrowed[i][1]);
    }
    int64_t copied[2];
    cr_assert_eq(array_ints(&sink.copy, copied, 2), 2);
    cr_assert(copied[0] == 2 && copied[1] == 10, "the copy reads [%lld, %lld] after later puts", (long long)copied[0],
              (long long)copied[1]);
    sk_value_release(&sink.copy);
    sk_disposable_dispose(d);
    sk_disposable_release(d);
    sk_signal_release(combined);
    for (size_t i = 0; i < 2; i++) {
        sk_signal_release(inputs[i]);
        sk_pipe_release(pipes[i]);
    }
    cr_assert_eq(sk_live_objects(), live_at_start);
}

/* Two threads putting into the two inputs at once (no queue: the emissions
 * run concurrently): every callback reads a combination that does not change
 * while it reads it, each item from its own input, and (under TSan) nothing
 * races. */
#define CONCURRENT_PUTS 20000

typedef struct concurrent_sink {
    pthread_mutex_t mutex;
    int faults;
    int64_t calls;
} concurrent_sink;

static void concurrent_next(void *ctx, const sk_value *value) {
    concurrent_sink *sink = ctx;
    int64_t first[2], again[2];
    array_ints(value, first, 2);
    for (volatile int spin = 0; spin < 50; spin++) {
    }
    array_ints(value, again, 2);
    pthread_mutex_lock(&sink->mutex);
    if (first[0] != again[0] || first[1] != again[1] || first[0] < 0 || first[1] < CONCURRENT_PUTS) {
        sink->faults++;
    }
    sink->calls++;
    pthread_mutex_unlock(&sink->mutex);
}

typedef struct concurrent_putter {
    sk_pipe *pipe;
    int64_t base;
} concurrent_putter;

static void *concurrent_put(void *arg) {
    concurrent_putter *putter = arg;
    for (int64_t n = 0; n < CONCURRENT_PUTS; n++) {
        pipe_put_int(putter->pipe, putter->base + n);
    }
    return NULL;
}

Test(operators_combine, combine_latest_reused_arrays_across_threads, .timeout = SK_TEST_TIMEOUT) {
    sk_pipe *pipes[2];
    sk_signal *inputs[2], *combined = NULL;
    for (size_t i = 0; i < 2; i++) {
        SK_OK_OR_FAIL(sk_pipe_create(&pipes[i], false));
        SK_OK_OR_FAIL(sk_pipe_signal(&inputs[i], pipes[i]));
    }
    SK_OK_OR_FAIL(sk_signal_combine_latest(&combined, inputs, 2, NULL));
    concurrent_sink sink = { .faults = 0, .calls = 0 };
    pthread_mutex_init(&sink.mutex, NULL);
    sk_observer observer = { concurrent_next, NULL, NULL, &sink, NULL };
    sk_disposable *d = NULL;
    SK_OK_OR_FAIL(sk_signal_start(&d, combined, &observer));
    pipe_put_int(pipes[0], 0);
    pipe_put_int(pipes[1], CONCURRENT_PUTS);
    concurrent_putter putters[2] = { { pipes[0], 1 }, { pipes[1], CONCURRENT_PUTS + 1 } };
    pthread_t threads[2];
    for (size_t i = 0; i < 2; i++) {
        cr_assert_eq(pthread_create(&threads[i], NULL, concurrent_put, &putters[i]), 0);
    }
    for (size_t i = 0; i < 2; i++) {
        pthread_join(threads[i], NULL);
    }
    cr_assert_eq(sink.calls, 1 + 2 * CONCURRENT_PUTS);
    cr_assert_eq(sink.faults, 0, "%d combinations changed while read (or were out of range)", sink.faults);
    sk_disposable_dispose(d);
    sk_disposable_release(d);
    sk_signal_release(combined);
    for (size_t i = 0; i < 2; i++) {
        sk_signal_release(inputs[i]);
        sk_pipe_release(pipes[i]);
    }
    pthread_mutex_destroy(&sink.mutex);
    expect_no_live_objects(0);
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

/* ------------------------------------------------------------------------ */
/* zip, with_latest_from (the core's Signal_Combine+Zip.swift; the shared    */
/* marble table plays their cases: test_marble_table.c)                      */
/* ------------------------------------------------------------------------ */

/* zip pairs the n-th values and completes when an input has no more;
 * values kept by a callback (copied) stay intact: each array is new. */
Test(operators_combine, zip_pairs_in_order_and_completes_with_the_shortest, .timeout = SK_TEST_TIMEOUT) {
    const int64_t a[] = { 1, 2, 3 }, b[] = { 10, 20 };
    sk_signal *inputs[] = { ints_signal(a, 3), ints_signal(b, 2) };
    sk_signal *zipped = NULL, *empty = NULL;
    SK_OK_OR_FAIL(sk_signal_zip(&zipped, inputs, 2));
    SK_OK_OR_FAIL(sk_signal_zip(&empty, NULL, 0));
    recorder r;
    sk_disposable *d = recorder_start(&r, zipped);
    cr_assert_eq(recorder_nexts(&r), 2);
    expect_pair(&r, 0, 1, 10);
    expect_pair(&r, 1, 2, 20);
    cr_assert_eq(recorder_event(&r, 2)->kind, REC_COMPLETED);
    recorder_finish(&r, d);
    expect_signal_log(empty, "cr", NULL, 0); /* releases empty */
    sk_signal_release(zipped);
    sk_signal_release(inputs[0]);
    sk_signal_release(inputs[1]);
    expect_no_live_objects(0);
}

/* with_latest_from: each value with the other's latest; values before the
 * other emitted are dropped. */
Test(operators_combine, with_latest_from_pairs_with_the_latest, .timeout = SK_TEST_TIMEOUT) {
    sk_pipe *main_pipe = NULL, *other_pipe = NULL;
    sk_signal *main_signal = NULL, *other = NULL, *op = NULL;
    SK_OK_OR_FAIL(sk_pipe_create(&main_pipe, false));
    SK_OK_OR_FAIL(sk_pipe_create(&other_pipe, false));
    SK_OK_OR_FAIL(sk_pipe_signal(&main_signal, main_pipe));
    SK_OK_OR_FAIL(sk_pipe_signal(&other, other_pipe));
    SK_OK_OR_FAIL(sk_signal_with_latest_from(&op, main_signal, other));
    recorder r;
    sk_disposable *d = recorder_start(&r, op);
    sk_value v = int_value(1);
    SK_OK_OR_FAIL(sk_pipe_put(main_pipe, &v)); /* dropped */
    v = int_value(10);
    SK_OK_OR_FAIL(sk_pipe_put(other_pipe, &v));
    v = int_value(2);
    SK_OK_OR_FAIL(sk_pipe_put(main_pipe, &v));
    v = int_value(20);
    SK_OK_OR_FAIL(sk_pipe_put(other_pipe, &v));
    v = int_value(3);
    SK_OK_OR_FAIL(sk_pipe_put(main_pipe, &v));
    cr_assert_eq(recorder_nexts(&r), 2);
    expect_pair(&r, 0, 2, 10);
    expect_pair(&r, 1, 3, 20);
    recorder_finish(&r, d);
    sk_signal_release(op);
    sk_signal_release(main_signal);
    sk_signal_release(other);
    sk_pipe_release(main_pipe);
    sk_pipe_release(other_pipe);
    expect_no_live_objects(0);
}

static sk_signal *build_zip(sk_signal *s) {
    sk_signal *both[] = { s, s };
    sk_signal *o = NULL;
    SK_OK_OR_FAIL(sk_signal_zip(&o, both, 2));
    return o;
}
static sk_signal *build_with_latest_from(sk_signal *s) {
    sk_signal *o = NULL;
    SK_OK_OR_FAIL(sk_signal_with_latest_from(&o, s, s));
    return o;
}

Test(operators_combine, zip_and_with_latest_from_dispose_inside_a_value_callback, .timeout = SK_TEST_TIMEOUT) {
    expect_dispose_inside_next("zip", build_zip, 2);
    expect_dispose_inside_next("with_latest_from", build_with_latest_from, 2);
    expect_no_live_objects(0);
}

Test(operators_combine, zip_and_with_latest_from_argument_errors, .timeout = SK_TEST_TIMEOUT) {
    bad_args args;
    bad_args_init(&args);
    sk_signal *never = args.never, *not_signal = args.not_signal, *out = NULL;
    sk_signal *some[] = { never, not_signal };
    EXPECT_FAILURE_NULL_OUT(sk_signal_zip(NULL, some, 1), SK_ERR_NULL_ARGUMENT, NULL);
    EXPECT_FAILURE(sk_signal_zip(&out, NULL, 1), SK_ERR_NULL_ARGUMENT, NULL);
    EXPECT_FAILURE(sk_signal_zip(&out, some, 2), SK_ERR_WRONG_KIND, NULL);
    EXPECT_FAILURE(sk_signal_zip(&out, some, SIZE_MAX), SK_ERR_INVALID_ARGUMENT, NULL);
    EXPECT_FAILURE_NULL_OUT(sk_signal_with_latest_from(NULL, never, never), SK_ERR_NULL_ARGUMENT, NULL);
    EXPECT_FAILURE(sk_signal_with_latest_from(&out, NULL, never), SK_ERR_NULL_ARGUMENT, NULL);
    EXPECT_FAILURE(sk_signal_with_latest_from(&out, never, NULL), SK_ERR_NULL_ARGUMENT, NULL);
    EXPECT_FAILURE(sk_signal_with_latest_from(&out, not_signal, never), SK_ERR_WRONG_KIND, NULL);
    EXPECT_FAILURE(sk_signal_with_latest_from(&out, never, not_signal), SK_ERR_WRONG_KIND, NULL);
    bad_args_destroy(&args);
    expect_no_live_objects(0);
}
