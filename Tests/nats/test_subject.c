/* test_subject.c - a subject as a signal: every message in order, the
 * message shape (payload, subject, reply, headers), queue groups. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "nats_support.h"

/* Every message of N reaches the signal, in the publisher's order. */
typedef struct ordered {
    int64_t expected;   /* the next index; delivery thread only */
    int64_t out_of_order;
    waiter done;
    int64_t count;
} ordered;

static void ordered_next(void *ctx, const sk_value *value) {
    ordered *o = ctx;
    if (payload_index(value) != o->expected) {
        o->out_of_order++;
    }
    o->expected++;
    if (o->expected == o->count) {
        waiter_add(&o->done, 1);
    }
}

static void ordered_error(void *ctx, const sk_value *error) {
    const char *text = "";
    size_t length;
    sk_value_get_string(error, &text, &length);
    cr_assert_fail("the subscription failed after %lld values: %s", (long long)((ordered *)ctx)->expected, text);
}

static double seconds_now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

Test(nats_subject, every_message_in_order, .timeout = 300) {
    const char *count_text = getenv("NATS_TEST_COUNT");
    int64_t count = count_text != NULL ? atoll(count_text) : 1000000;
    long live = sk_live_objects();
    nats_server server;
    nats_server_start(&server);
    /* The subscriber's client may hold every message: the test is about
     * the bridge losing none, not about the client's limits (those are
     * test_overflow.c's). */
    natsConnection *subscriber = nats_connect(&server, (int)count + 1);
    natsConnection *publisher = nats_connect(&server, 0);
    ordered o = { .count = count };
    waiter_init(&o.done);
    sk_signal *signal = NULL;
    cr_assert_eq(sk_nats_subject(&signal, subscriber, "order.test", NULL, SK_NATS_PAYLOAD), SK_OK);
    sk_observer observer = { ordered_next, ordered_error, NULL, &o, NULL };
    sk_disposable *d = NULL;
    cr_assert_eq(sk_signal_start(&d, signal, &observer), SK_OK);
    cr_assert_eq(natsConnection_Flush(subscriber), NATS_OK); /* the server has the interest */
    double start = seconds_now();
    for (int64_t i = 0; i < count; i++) {
        publish_index(publisher, "order.test", i);
    }
    cr_assert_eq(natsConnection_Flush(publisher), NATS_OK);
    cr_assert(waiter_wait(&o.done, 1), "%lld of %lld messages arrived", (long long)o.expected, (long long)count);
    double elapsed = seconds_now() - start;
    printf("nats_subject::every_message_in_order: %lld messages in %.2f s (%.0f per second), %lld out of order\n",
           (long long)count, elapsed, (double)count / elapsed, (long long)o.out_of_order);
    cr_assert_eq(o.out_of_order, 0);
    sk_disposable_dispose(d);
    sk_disposable_release(d);
    sk_signal_release(signal);
    cr_assert_eq(natsConnection_Flush(subscriber), NATS_OK);
    cr_assert_eq(nats_server_subscriptions(&server, "order.test"), 0);
    natsConnection_Destroy(publisher);
    natsConnection_Destroy(subscriber); /* closes: the subscription's last callbacks run */
    waiter_destroy(&o.done);
    nats_server_stop(&server);
    /* The connection's destroy waits for no delivery thread; the live count
     * is test_dispose.c's, which waits for the signal's release. */
    (void)live;
}

/* A message with a reply subject and headers, as SK_NATS_MESSAGE. */
static const char *item_string(const sk_value *message, size_t index) {
    const sk_value *item = NULL;
    cr_assert_eq(sk_value_get_array_item(message, index, &item), SK_OK);
    const char *text = NULL;
    size_t length = 0;
    cr_assert_eq(sk_value_get_string(item, &text, &length), SK_OK, "item %zu is not a string", index);
    return text;
}

Test(nats_subject, message_shape, .timeout = 120) {
    long live = sk_live_objects();
    nats_server server;
    nats_server_start(&server);
    natsConnection *connection = nats_connect(&server, 0);
    recorder r;
    recorder_init(&r);
    sk_signal *signal = NULL;
    cr_assert_eq(sk_nats_subject(&signal, connection, "shape.*", NULL, SK_NATS_MESSAGE), SK_OK);
    sk_observer observer = recorder_observer(&r);
    sk_disposable *d = NULL;
    cr_assert_eq(sk_signal_start(&d, signal, &observer), SK_OK);
    cr_assert_eq(natsConnection_Flush(connection), NATS_OK);

    natsMsg *msg = NULL;
    cr_assert_eq(natsMsg_Create(&msg, "shape.one", "reply.here", "hello", 5), NATS_OK);
    cr_assert_eq(natsMsgHeader_Set(msg, "Kind", "greeting"), NATS_OK);
    cr_assert_eq(natsMsgHeader_Add(msg, "Tag", "a"), NATS_OK);
    cr_assert_eq(natsMsgHeader_Add(msg, "Tag", "b"), NATS_OK);
    cr_assert_eq(natsConnection_PublishMsg(connection, msg), NATS_OK);
    natsMsg_Destroy(msg);
    cr_assert_eq(natsConnection_PublishString(connection, "shape.two", ""), NATS_OK);
    cr_assert(recorder_wait(&r, &r.nexts, 2));
    pthread_mutex_lock(&r.mutex);
    sk_value first = { 0 };
    sk_value_copy(&first, &r.first[0]);
    pthread_mutex_unlock(&r.mutex);
    size_t items = 0;
    cr_assert_eq(sk_value_get_array_count(&first, &items), SK_OK);
    cr_assert_eq(items, 4);
    char text[64];
    payload_text(&first, text, sizeof text);
    cr_assert_str_eq(text, "hello");
    cr_assert_str_eq(item_string(&first, SK_NATS_ITEM_SUBJECT), "shape.one");
    cr_assert_str_eq(item_string(&first, SK_NATS_ITEM_REPLY), "reply.here");
    const sk_value *headers = NULL;
    cr_assert_eq(sk_value_get_array_item(&first, SK_NATS_ITEM_HEADERS, &headers), SK_OK);
    size_t pairs = 0;
    cr_assert_eq(sk_value_get_array_count(headers, &pairs), SK_OK);
    cr_assert_eq(pairs, 3);
    /* Kind=greeting, Tag=a, Tag=b, in some order of keys; each pair two strings. */
    int kind = 0, tag_a = 0, tag_b = 0;
    for (size_t i = 0; i < pairs; i++) {
        const sk_value *pair = NULL;
        cr_assert_eq(sk_value_get_array_item(headers, i, &pair), SK_OK);
        const char *key = item_string(pair, 0), *value = item_string(pair, 1);
        kind += strcmp(key, "Kind") == 0 && strcmp(value, "greeting") == 0;
        tag_a += strcmp(key, "Tag") == 0 && strcmp(value, "a") == 0;
        tag_b += strcmp(key, "Tag") == 0 && strcmp(value, "b") == 0;
    }
    cr_assert(kind == 1 && tag_a == 1 && tag_b == 1);
    sk_value_release(&first);

    /* The second: empty payload, no reply, no headers. */
    pthread_mutex_lock(&r.mutex);
    payload_text(&r.first[1], text, sizeof text);
    cr_assert_str_eq(text, "");
    cr_assert_str_eq(item_string(&r.first[1], SK_NATS_ITEM_SUBJECT), "shape.two");
    const sk_value *reply = NULL, *none = NULL;
    cr_assert_eq(sk_value_get_array_item(&r.first[1], SK_NATS_ITEM_REPLY, &reply), SK_OK);
    cr_assert_eq(sk_value_kind(reply), SK_KIND_NIL);
    cr_assert_eq(sk_value_get_array_item(&r.first[1], SK_NATS_ITEM_HEADERS, &none), SK_OK);
    cr_assert_eq(sk_value_kind(none), SK_KIND_NIL);
    pthread_mutex_unlock(&r.mutex);

    /* Each message its own subject, also where one begins with the one
     * before (the bridge reuses the last subject's string when it is the
     * same). */
    cr_assert_eq(natsConnection_PublishString(connection, "shape.twofold", "3"), NATS_OK);
    cr_assert_eq(natsConnection_PublishString(connection, "shape.two", "4"), NATS_OK);
    cr_assert(recorder_wait(&r, &r.nexts, 4));
    pthread_mutex_lock(&r.mutex);
    cr_assert_str_eq(item_string(&r.first[2], SK_NATS_ITEM_SUBJECT), "shape.twofold");
    cr_assert_str_eq(item_string(&r.first[3], SK_NATS_ITEM_SUBJECT), "shape.two");
    pthread_mutex_unlock(&r.mutex);

    sk_disposable_dispose(d);
    sk_disposable_release(d);
    sk_signal_release(signal);
    cr_assert(recorder_wait(&r, &r.releases, 1));
    cr_assert_eq(recorder_get(&r, &r.errors), 0);
    natsConnection_Destroy(connection);
    recorder_destroy(&r);
    nats_server_stop(&server);
    (void)live;
}

/* Two subscriptions in one queue group share the messages: each once. */
typedef struct grouped {
    unsigned char *seen; /* per index: how many times */
    waiter received;
    pthread_mutex_t mutex;
} grouped;

static void grouped_next(void *ctx, const sk_value *value) {
    grouped *g = ctx;
    int64_t index = payload_index(value);
    pthread_mutex_lock(&g->mutex);
    g->seen[index]++;
    pthread_mutex_unlock(&g->mutex);
    waiter_add(&g->received, 1);
}

Test(nats_subject, queue_group_shares, .timeout = 120) {
    enum { COUNT = 2000 };
    nats_server server;
    nats_server_start(&server);
    natsConnection *connection = nats_connect(&server, 0);
    grouped g = { .seen = calloc(COUNT, 1) };
    waiter_init(&g.received);
    pthread_mutex_init(&g.mutex, NULL);
    sk_signal *signal = NULL;
    cr_assert_eq(sk_nats_subject(&signal, connection, "group.test", "workers", SK_NATS_PAYLOAD), SK_OK);
    sk_observer observer = { grouped_next, NULL, NULL, &g, NULL };
    sk_disposable *a = NULL, *b = NULL;
    cr_assert_eq(sk_signal_start(&a, signal, &observer), SK_OK);
    cr_assert_eq(sk_signal_start(&b, signal, &observer), SK_OK);
    cr_assert_eq(natsConnection_Flush(connection), NATS_OK);
    cr_assert_eq(nats_server_subscriptions(&server, "group.test"), 2);
    for (int i = 0; i < COUNT; i++) {
        publish_index(connection, "group.test", i);
    }
    cr_assert(waiter_wait(&g.received, COUNT));
    sk_disposable_dispose(a);
    sk_disposable_dispose(b);
    cr_assert_eq(natsConnection_Flush(connection), NATS_OK);
    cr_assert_eq(nats_server_subscriptions(&server, "group.test"), 0);
    for (int i = 0; i < COUNT; i++) {
        cr_assert_eq(g.seen[i], 1, "message %d arrived %d times", i, g.seen[i]);
    }
    sk_disposable_release(a);
    sk_disposable_release(b);
    sk_signal_release(signal);
    natsConnection_Destroy(connection);
    nats_server_stop(&server);
    free(g.seen);
}
