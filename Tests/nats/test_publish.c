/* test_publish.c - sk_nats_publish(): a signal's values reach a
 * subscriber of the subject, the completion waits for the flush, and the
 * client's refusals end it with its error in words. */
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
    cr_assert_eq(sk_live_objects(), live);
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
