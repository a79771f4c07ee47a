/* test_publish.c - sk_nats_publish(): a signal's values reach a
 * subscriber of the subject, the completion waits for the flush, and the
 * client's refusals end it with its error in words;
 * sk_nats_publish_encoded(): a user encoder's results published, the
 * values passed on, a failing encoder ending the stream. */
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>

#include "nats_support.h"

typedef struct received {
    pthread_mutex_t mutex;
    long count;
    long out_of_order;
    waiter arrived;
} received;

static void received_next(void *ctx, const sk_value *value) {
    received *r = ctx;
    char text[32], expected[32];
    payload_text(value, text, sizeof text);
    pthread_mutex_lock(&r->mutex);
    snprintf(expected, sizeof expected, "value %ld", r->count);
    r->out_of_order += strcmp(text, expected) != 0;
    r->count++;
    pthread_mutex_unlock(&r->mutex);
    waiter_add(&r->arrived, 1);
}

Test(nats_publish, values_reach_a_subscriber, .timeout = 120) {
    enum { COUNT = 10000 };
    long live = sk_live_objects();
    nats_server server;
    nats_server_start(&server);
    natsConnection *consumer = nats_connect(&server, 0);
    natsConnection *producer = nats_connect(&server, 0);
    received got = { .count = 0 };
    pthread_mutex_init(&got.mutex, NULL);
    waiter_init(&got.arrived);
    sk_signal *subject = NULL;
    cr_assert_eq(sk_nats_subject(&subject, consumer, "publish.test", NULL, SK_NATS_PAYLOAD), SK_OK);
    sk_observer consuming = { received_next, NULL, NULL, &got, NULL };
    sk_disposable *consumption = NULL;
    cr_assert_eq(sk_signal_start(&consumption, subject, &consuming), SK_OK);
    cr_assert_eq(natsConnection_Flush(consumer), NATS_OK);

    sk_pipe *pipe = NULL;
    sk_signal *values = NULL, *published = NULL;
    cr_assert_eq(sk_pipe_create(&pipe, false), SK_OK);
    cr_assert_eq(sk_pipe_signal(&values, pipe), SK_OK);
    cr_assert_eq(sk_nats_publish(&published, values, producer, "publish.test", 10.0), SK_OK);
    recorder r;
    recorder_init(&r);
    sk_observer observer = recorder_observer(&r);
    sk_disposable *d = NULL;
    cr_assert_eq(sk_signal_start(&d, published, &observer), SK_OK);
    for (int i = 0; i < COUNT; i++) {
        char text[32];
        snprintf(text, sizeof text, "value %d", i);
        sk_value value = { 0 };
        /* strings and bytes alike */
        cr_assert_eq(i % 2 ? sk_value_set_string(&value, text) : sk_value_set_bytes(&value, text, strlen(text)), SK_OK);
        cr_assert_eq(sk_pipe_put(pipe, &value), SK_OK);
        sk_value_release(&value);
    }
    cr_assert_eq(sk_pipe_put_completion(pipe), SK_OK);
    cr_assert(recorder_wait(&r, &r.completions, 1), "error: %s", r.error);
    cr_assert_eq(recorder_get(&r, &r.nexts), COUNT); /* each value passed on */
    cr_assert(waiter_wait(&got.arrived, COUNT), "%ld of %d arrived", waiter_get(&got.arrived), COUNT);
    cr_assert_eq(got.out_of_order, 0);
    printf("nats_publish::values_reach_a_subscriber: %d published through a signal, %ld received in order\n", COUNT,
           got.count);
    cr_assert(recorder_wait(&r, &r.releases, 1));
    sk_disposable_release(d);
    sk_signal_release(published);
    sk_signal_release(values);
    sk_pipe_release(pipe);
    sk_disposable_dispose(consumption);
    sk_disposable_release(consumption);
    sk_signal_release(subject);
    recorder_destroy(&r);
    natsConnection_Destroy(producer);
    natsConnection_Destroy(consumer);
    nats_server_stop(&server);
    (void)live;
}

/* Publishes `value` alone through sk_nats_publish() on `connection`;
 * expects the stream to fail with an error holding each of `words`. */
static void expect_publish_error(natsConnection *connection, const char *subject, const sk_value *value,
                                 const char *word1, const char *word2) {
    long live = sk_live_objects();
    sk_signal *single = NULL, *published = NULL;
    cr_assert_eq(sk_signal_single(&single, value), SK_OK);
    cr_assert_eq(sk_nats_publish(&published, single, connection, subject, 5.0), SK_OK);
    recorder r;
    recorder_init(&r);
    sk_observer observer = recorder_observer(&r);
    cr_assert_eq(sk_signal_start(NULL, published, &observer), SK_OK);
    cr_assert(recorder_wait(&r, &r.errors, 1));
    cr_assert(strstr(r.error, word1) != NULL && strstr(r.error, word2) != NULL, "the error says: %s", r.error);
    printf("nats_publish: \"%s\"\n", r.error);
    cr_assert_eq(recorder_get(&r, &r.nexts), 0);
    cr_assert_eq(recorder_get(&r, &r.completions), 0);
    cr_assert(recorder_wait(&r, &r.releases, 1));
    sk_signal_release(published);
    sk_signal_release(single);
    recorder_destroy(&r);
    cr_assert_eq(nats_wait_live_objects(live), live);
}

Test(nats_publish, refusals_end_it_with_the_clients_words, .timeout = 120) {
    nats_server server;
    nats_server_start(&server);
    natsConnection *connection = nats_connect(&server, 0);
    sk_value number = { 0 };
    sk_value_set_int64(&number, 42);
    expect_publish_error(connection, "publish.kind", &number, "cannot publish a value of kind int64", "publish.kind");

    int64_t max = natsConnection_GetMaxPayload(connection);
    cr_assert_gt(max, 0);
    char *big = calloc((size_t)max + 1, 1);
    sk_value large = { 0 };
    cr_assert_eq(sk_value_set_bytes(&large, big, (size_t)max + 1), SK_OK);
    free(big);
    expect_publish_error(connection, "publish.big", &large, "cannot publish", "Maximum Payload");
    sk_value_release(&large);

    sk_value text = { 0 };
    cr_assert_eq(sk_value_set_string(&text, "hello"), SK_OK);
    natsConnection_Close(connection);
    expect_publish_error(connection, "publish.closed", &text, "cannot publish 5 bytes to 'publish.closed'",
                         "Connection Closed");
    sk_value_release(&text);
    natsConnection_Destroy(connection);
    nats_server_stop(&server);
}

/* An error of the signal published passes through unchanged. */
Test(nats_publish, upstream_error_passes_through, .timeout = 60) {
    nats_server server;
    nats_server_start(&server);
    natsConnection *connection = nats_connect(&server, 0);
    sk_value error = { 0 };
    cr_assert_eq(sk_value_set_string(&error, "upstream failed"), SK_OK);
    sk_signal *failing = NULL, *published = NULL;
    cr_assert_eq(sk_signal_fail(&failing, &error), SK_OK);
    sk_value_release(&error);
    cr_assert_eq(sk_nats_publish(&published, failing, connection, "publish.upstream", 5.0), SK_OK);
    recorder r;
    recorder_init(&r);
    sk_observer observer = recorder_observer(&r);
    cr_assert_eq(sk_signal_start(NULL, published, &observer), SK_OK);
    cr_assert(recorder_wait(&r, &r.errors, 1));
    cr_assert_str_eq(r.error, "upstream failed");
    cr_assert(recorder_wait(&r, &r.releases, 1));
    sk_signal_release(published);
    sk_signal_release(failing);
    recorder_destroy(&r);
    natsConnection_Destroy(connection);
    nats_server_stop(&server);
}

/* --- sk_nats_publish_encoded() ----------------------------------------------- */

typedef struct encoder {
    atomic_long calls;
    long fail_at;   /* the call that fails (sk_callback_fail), 0: none */
    bool wrong;     /* gives an int64 instead of text */
    waiter released;
    atomic_long releases;
} encoder;

/* int64 -> its decimal text. */
static void encode_decimal(void *ctx, const sk_value *value, sk_value *out) {
    encoder *e = ctx;
    long call = atomic_fetch_add(&e->calls, 1) + 1;
    int64_t number = 0;
    cr_assert_eq(sk_value_get_int64(value, &number), SK_OK);
    if (call == e->fail_at) {
        char text[64];
        snprintf(text, sizeof text, "the encoder refused %lld", (long long)number);
        sk_value error = { 0 };
        cr_assert_eq(sk_value_set_string(&error, text), SK_OK);
        cr_assert_eq(sk_callback_fail(&error), SK_OK);
        sk_value_release(&error);
        /* What it writes is not published. */
        cr_assert_eq(sk_value_set_string(out, "never published"), SK_OK);
        return;
    }
    if (e->wrong) {
        sk_value_set_int64(out, number);
        return;
    }
    char text[32];
    snprintf(text, sizeof text, "%lld", (long long)number);
    cr_assert_eq(sk_value_set_string(out, text), SK_OK);
}

static void encoder_release(void *ctx) {
    encoder *e = ctx;
    atomic_fetch_add(&e->releases, 1);
    waiter_add(&e->released, 1);
}

/* The texts a subscriber of the subject received, in order. */
typedef struct texts {
    pthread_mutex_t mutex;
    char items[1100][16];
    long count;
    waiter arrived;
} texts;

static void texts_next(void *ctx, const sk_value *value) {
    texts *t = ctx;
    pthread_mutex_lock(&t->mutex);
    if (t->count < 1100) {
        payload_text(value, t->items[t->count], sizeof t->items[0]);
    }
    t->count++;
    pthread_mutex_unlock(&t->mutex);
    waiter_add(&t->arrived, 1);
}

static void put_int(sk_pipe *pipe, int64_t number) {
    sk_value value = { 0 };
    sk_value_set_int64(&value, number);
    cr_assert_eq(sk_pipe_put(pipe, &value), SK_OK);
}

Test(nats_publish, an_encoder_turns_values_into_messages, .timeout = 120) {
    enum { COUNT = 1000 };
    long live = sk_live_objects();
    nats_server server;
    nats_server_start(&server);
    natsConnection *consumer = nats_connect(&server, 0);
    natsConnection *producer = nats_connect(&server, 0);
    static texts got;
    got.count = 0;
    pthread_mutex_init(&got.mutex, NULL);
    waiter_init(&got.arrived);
    sk_signal *subject = NULL;
    cr_assert_eq(sk_nats_subject(&subject, consumer, "publish.encoded", NULL, SK_NATS_PAYLOAD), SK_OK);
    sk_observer consuming = { texts_next, NULL, NULL, &got, NULL };
    sk_disposable *consumption = NULL;
    cr_assert_eq(sk_signal_start(&consumption, subject, &consuming), SK_OK);
    cr_assert_eq(natsConnection_Flush(consumer), NATS_OK);

    encoder e = { .calls = 0, .fail_at = 0, .wrong = false, .releases = 0 };
    waiter_init(&e.released);
    sk_pipe *pipe = NULL;
    sk_signal *values = NULL, *published = NULL;
    cr_assert_eq(sk_pipe_create(&pipe, false), SK_OK);
    cr_assert_eq(sk_pipe_signal(&values, pipe), SK_OK);
    cr_assert_eq(sk_nats_publish_encoded(&published, values, producer, "publish.encoded", 10.0, encode_decimal, &e,
                                         encoder_release),
                 SK_OK);
    recorder r;
    recorder_init(&r);
    sk_observer observer = recorder_observer(&r);
    cr_assert_eq(sk_signal_start(NULL, published, &observer), SK_OK);
    for (int64_t i = 1; i <= COUNT; i++) {
        put_int(pipe, i);
    }
    cr_assert_eq(sk_pipe_put_completion(pipe), SK_OK);
    cr_assert(recorder_wait(&r, &r.completions, 1), "error: %s", r.error);
    /* The original values passed on: int64s, in order. */
    cr_assert_eq(recorder_get(&r, &r.nexts), COUNT);
    int64_t first = 0, last = 0;
    cr_assert_eq(sk_value_get_int64(&r.first[0], &first), SK_OK);
    cr_assert_eq(sk_value_get_int64(&r.last, &last), SK_OK);
    cr_assert_eq(first, 1);
    cr_assert_eq(last, COUNT);
    /* Their encodings published: the decimal texts, in order. */
    cr_assert(waiter_wait(&got.arrived, COUNT), "%ld of %d arrived", waiter_get(&got.arrived), COUNT);
    for (long i = 0; i < COUNT; i++) {
        char expected[16];
        snprintf(expected, sizeof expected, "%ld", i + 1);
        cr_assert_str_eq(got.items[i], expected);
    }
    cr_assert_eq(atomic_load(&e.calls), COUNT);
    cr_assert(recorder_wait(&r, &r.releases, 1));
    sk_signal_release(published);
    sk_signal_release(values);
    sk_pipe_release(pipe);
    cr_assert(waiter_wait(&e.released, 1), "the encoder's release never ran");
    cr_assert_eq(atomic_load(&e.releases), 1);
    printf("nats_publish::an_encoder_turns_values_into_messages: %d int64s published as their decimal text\n", COUNT);
    sk_disposable_dispose(consumption);
    sk_disposable_release(consumption);
    sk_signal_release(subject);
    recorder_destroy(&r);
    waiter_destroy(&e.released);
    waiter_destroy(&got.arrived);
    natsConnection_Destroy(producer);
    natsConnection_Destroy(consumer);
    nats_server_stop(&server);
    cr_assert_eq(nats_wait_live_objects(live), live);
}

static void mark_disposed(void *ctx) {
    waiter_add(ctx, 1);
}

Test(nats_publish, a_failing_encoder_ends_the_stream, .timeout = 120) {
    nats_server server;
    nats_server_start(&server);
    natsConnection *consumer = nats_connect(&server, 0);
    natsConnection *producer = nats_connect(&server, 0);
    static texts got;
    got.count = 0;
    pthread_mutex_init(&got.mutex, NULL);
    waiter_init(&got.arrived);
    sk_signal *subject = NULL;
    cr_assert_eq(sk_nats_subject(&subject, consumer, "publish.refused", NULL, SK_NATS_PAYLOAD), SK_OK);
    sk_observer consuming = { texts_next, NULL, NULL, &got, NULL };
    sk_disposable *consumption = NULL;
    cr_assert_eq(sk_signal_start(&consumption, subject, &consuming), SK_OK);
    cr_assert_eq(natsConnection_Flush(consumer), NATS_OK);

    encoder e = { .calls = 0, .fail_at = 3, .wrong = false, .releases = 0 };
    waiter_init(&e.released);
    waiter disposed;
    waiter_init(&disposed);
    sk_pipe *pipe = NULL;
    sk_signal *values = NULL, *watched = NULL, *published = NULL;
    cr_assert_eq(sk_pipe_create(&pipe, false), SK_OK);
    cr_assert_eq(sk_pipe_signal(&values, pipe), SK_OK);
    cr_assert_eq(sk_signal_after_disposed(&watched, values, mark_disposed, &disposed, NULL), SK_OK);
    cr_assert_eq(sk_nats_publish_encoded(&published, watched, producer, "publish.refused", 10.0, encode_decimal, &e,
                                         encoder_release),
                 SK_OK);
    recorder r;
    recorder_init(&r);
    sk_observer observer = recorder_observer(&r);
    cr_assert_eq(sk_signal_start(NULL, published, &observer), SK_OK);
    for (int64_t i = 1; i <= 3; i++) {
        put_int(pipe, i);
    }
    cr_assert(recorder_wait(&r, &r.errors, 1));
    cr_assert_str_eq(r.error, "the encoder refused 3");
    cr_assert_eq(recorder_get(&r, &r.nexts), 2, "values 1 and 2 passed on, not 3");
    cr_assert_eq(recorder_get(&r, &r.completions), 0);
    cr_assert(waiter_wait(&disposed, 1), "the upstream was not disposed");
    put_int(pipe, 4); /* no subscriber any more: never encoded */
    cr_assert_eq(atomic_load(&e.calls), 3);
    /* What reached the subject before a marker sent after the failure on
     * the same connection: 1 and 2 only. */
    cr_assert_eq(natsConnection_PublishString(producer, "publish.refused", "marker"), NATS_OK);
    cr_assert(waiter_wait(&got.arrived, 3), "%ld arrived", waiter_get(&got.arrived));
    pthread_mutex_lock(&got.mutex);
    cr_assert_eq(got.count, 3);
    cr_assert_str_eq(got.items[0], "1");
    cr_assert_str_eq(got.items[1], "2");
    cr_assert_str_eq(got.items[2], "marker");
    pthread_mutex_unlock(&got.mutex);
    printf("nats_publish: \"%s\" after 2 values published\n", r.error);

    cr_assert(recorder_wait(&r, &r.releases, 1));
    sk_signal_release(published);
    sk_signal_release(watched);
    sk_signal_release(values);
    sk_pipe_release(pipe);
    cr_assert(waiter_wait(&e.released, 1), "the encoder's release never ran");
    cr_assert_eq(atomic_load(&e.releases), 1);

    /* An encoder giving another kind than text or bytes. */
    encoder wrong = { .calls = 0, .fail_at = 0, .wrong = true, .releases = 0 };
    waiter_init(&wrong.released);
    sk_value number = { 0 };
    sk_value_set_int64(&number, 42);
    sk_signal *single = NULL;
    cr_assert_eq(sk_signal_single(&single, &number), SK_OK);
    cr_assert_eq(sk_nats_publish_encoded(&published, single, producer, "publish.wrong", 10.0, encode_decimal, &wrong,
                                         encoder_release),
                 SK_OK);
    recorder_destroy(&r);
    recorder_init(&r);
    observer = recorder_observer(&r);
    cr_assert_eq(sk_signal_start(NULL, published, &observer), SK_OK);
    cr_assert(recorder_wait(&r, &r.errors, 1));
    cr_assert_str_eq(r.error,
                     "sk_nats_publish_encoded: the encoder gave a value of kind int64 for 'publish.wrong': give a "
                     "string or bytes");
    printf("nats_publish: \"%s\"\n", r.error);
    cr_assert(recorder_wait(&r, &r.releases, 1));
    sk_signal_release(published);
    sk_signal_release(single);
    cr_assert(waiter_wait(&wrong.released, 1));

    /* Refused arguments: the message, and the release run once. */
    encoder refused = { .calls = 0, .releases = 0 };
    waiter_init(&refused.released);
    cr_assert_eq(sk_nats_publish_encoded(&published, single, producer, "x", 1.0, NULL, &refused, encoder_release),
                 SK_ERR_NULL_ARGUMENT);
    cr_assert_null(published);
    cr_assert_str_eq(sk_nats_last_error_message(), "sk_nats_publish_encoded: encode is NULL");
    cr_assert_eq(sk_nats_publish_encoded(&published, single, producer, "x", 0.0, encode_decimal, &refused,
                                         encoder_release),
                 SK_ERR_INVALID_ARGUMENT);
    cr_assert_str_eq(sk_nats_last_error_message(),
                     "sk_nats_publish_encoded: flush_timeout 0 is not a duration > 0 s and <= 2^31 ms");
    cr_assert_eq(atomic_load(&refused.releases), 2);

    sk_disposable_dispose(consumption);
    sk_disposable_release(consumption);
    sk_signal_release(subject);
    recorder_destroy(&r);
    waiter_destroy(&e.released);
    waiter_destroy(&wrong.released);
    waiter_destroy(&refused.released);
    waiter_destroy(&disposed);
    waiter_destroy(&got.arrived);
    natsConnection_Destroy(producer);
    natsConnection_Destroy(consumer);
    nats_server_stop(&server);
}
