/* test_jetstream.c - sk_nats_js_publish() and sk_nats_js_consume() against
 * a real nats-server with JetStream: every message of N published with its
 * acknowledgement awaited reaches a consumer, in order, and the server
 * never holds more messages awaiting acknowledgement than the consumer's
 * capacity; explicit acknowledgements hold the room until given; a
 * consumer disposed mid-stream leaves nothing alive and its unacknowledged
 * messages come again; the errors in words. */
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "js_tally.h"

static double seconds_now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

static long test_count(long fallback) {
    const char *text = getenv("NATS_JS_TEST_COUNT");
    long count = text != NULL ? strtol(text, NULL, 10) : 0;
    return count > 0 ? count : fallback;
}

/* Publishes `count` indexes to `subject` with sk_nats_js_publish() and
 * waits for its completion: every one acknowledged. */
static void publish_acknowledged(natsConnection *connection, const char *subject, long count, size_t window) {
    sk_signal *source = indexed_signal(count);
    sk_signal *published = NULL;
    cr_assert_eq(sk_nats_js_publish(&published, source, connection, NULL, subject, NULL, window, 2.0, 5), SK_OK, "%s",
                 sk_nats_last_error_message());
    recorder r;
    recorder_init(&r);
    sk_observer observer = recorder_observer(&r);
    sk_disposable *d = NULL;
    cr_assert_eq(sk_signal_start(&d, published, &observer), SK_OK);
    cr_assert(recorder_wait(&r, &r.completions, 1) || recorder_get(&r, &r.errors) > 0, "no completion");
    cr_assert_eq(recorder_get(&r, &r.errors), 0, "%s", r.error);
    cr_assert_eq(recorder_get(&r, &r.nexts), count, "acknowledgements");
    int64_t last = 0;
    cr_assert_eq(sk_value_get_int64(&r.last, &last), SK_OK, "an acknowledgement is the stream sequence");
    cr_assert_geq(last, 1);
    sk_disposable_release(d);
    sk_signal_release(published);
    sk_signal_release(source);
    cr_assert(recorder_wait(&r, &r.releases, 1));
    recorder_destroy(&r);
}

Test(nats_jetstream, every_message_reaches_the_consumer_within_its_room, .timeout = 120) {
    long count = test_count(20000);
    enum { CAPACITY = 100 };
    nats_server server;
    nats_server_start(&server);
    natsConnection *connection = nats_connect(&server, 0);
    jsCtx *js = nats_js(connection);
    nats_add_stream(js, "ALL", "all.>");
    nats_add_consumer(js, "ALL", "reader", "all.>", 30.0, 1000);
    double began = seconds_now();
    publish_acknowledged(connection, "all.x", count, 256);
    double published = seconds_now();

    tally t;
    tally_init(&t, count);
    t.js = js;
    t.stream = "ALL";
    t.durable = "reader";
    t.sample_every = 1000;
    sk_signal *consumer = NULL;
    cr_assert_eq(sk_nats_js_consume(&consumer, connection, NULL, "ALL", "reader", "all.>", SK_NATS_PAYLOAD,
                                    SK_NATS_ACK_AFTER_NEXT, NULL, CAPACITY),
                 SK_OK, "%s", sk_nats_last_error_message());
    sk_observer observer = tally_observer(&t);
    sk_disposable *d = NULL;
    cr_assert_eq(sk_signal_start(&d, consumer, &observer), SK_OK);
    cr_assert(tally_wait(&t, &t.unique, count), "%ld of %ld delivered (%s)", tally_get(&t, &t.unique), count, t.error);
    double consumed = seconds_now();
    /* Every acknowledgement reaches the server: nothing awaits one. */
    double deadline = seconds_now() + NATS_WAIT_SECONDS;
    int64_t ack_pending = -1;
    uint64_t pending = 1;
    while ((ack_pending != 0 || pending != 0) && seconds_now() < deadline) {
        nats_consumer_counts(js, "ALL", "reader", &ack_pending, &pending);
    }
    cr_assert_eq(ack_pending, 0, "messages still awaiting acknowledgement");
    cr_assert_eq(pending, 0u);
    sk_disposable_dispose(d);
    sk_disposable_release(d);
    sk_signal_release(consumer);
    cr_assert(tally_wait(&t, &t.releases, 1));
    cr_assert_eq(t.errors, 0, "%s", t.error);
    cr_assert_eq(t.duplicates, 0);
    cr_assert_eq(t.out_of_order, 0);
    cr_assert_eq(t.strange, 0);
    cr_assert_leq(t.most_ahead, CAPACITY, "the server delivered more than the room");
    printf("nats_jetstream::every_message: %ld published and acknowledged in %.2f s, %ld consumed in order in %.2f s "
           "(capacity %d; the server at most %lld deliveries ahead of the values done when sampled), 0 duplicates\n",
           count, published - began, t.unique, consumed - published, CAPACITY, (long long)t.most_ahead);
    tally_destroy(&t);
    jsCtx_Destroy(js);
    natsConnection_Destroy(connection);
    nats_server_stop(&server);
}

Test(nats_jetstream, explicit_acknowledgements_hold_the_room, .timeout = 120) {
    enum { COUNT = 100, CAPACITY = 8 };
    nats_server server;
    nats_server_start(&server);
    natsConnection *connection = nats_connect(&server, 0);
    jsCtx *js = nats_js(connection);
    nats_add_stream(js, "EXP", "exp.>");
    nats_add_consumer(js, "EXP", "hand", "exp.>", 30.0, 1000);
    publish_acknowledged(connection, "exp.x", COUNT, 16);

    tally t;
    tally_init(&t, COUNT);
    t.explicit_ack = true;
    t.keep = CAPACITY;
    sk_signal *consumer = NULL;
    cr_assert_eq(sk_nats_js_consume(&consumer, connection, NULL, "EXP", "hand", "exp.>", SK_NATS_PAYLOAD,
                                    SK_NATS_ACK_EXPLICIT, NULL, CAPACITY),
                 SK_ERR_INVALID_ARGUMENT);
    printf("nats_jetstream: \"%s\"\n", sk_nats_last_error_message());
    cr_assert_eq(sk_nats_js_consume(&consumer, connection, NULL, "EXP", "hand", "exp.>", SK_NATS_MESSAGE,
                                    SK_NATS_ACK_EXPLICIT, NULL, CAPACITY),
                 SK_OK, "%s", sk_nats_last_error_message());
    sk_observer observer = tally_observer(&t);
    sk_disposable *d = NULL;
    cr_assert_eq(sk_signal_start(&d, consumer, &observer), SK_OK);
    cr_assert(tally_wait(&t, &t.values, CAPACITY), "%ld values (%s)", tally_get(&t, &t.values), t.error);
    /* The kept values hold the whole room: the server has exactly them
     * awaiting acknowledgement, and the rest waits there. */
    double deadline = seconds_now() + NATS_WAIT_SECONDS;
    int64_t ack_pending = 0;
    uint64_t pending = 0;
    do {
        nats_consumer_counts(js, "EXP", "hand", &ack_pending, &pending);
    } while ((ack_pending != CAPACITY || pending != COUNT - CAPACITY) && seconds_now() < deadline);
    cr_assert_eq(ack_pending, CAPACITY);
    cr_assert_eq(pending, (uint64_t)(COUNT - CAPACITY));
    cr_assert_eq(tally_get(&t, &t.values), CAPACITY, "a value beyond the room");
    /* Not a handle; an unknown kind. */
    sk_value not_one = { 0 };
    sk_value_set_int64(&not_one, 7);
    cr_assert_eq(sk_nats_ack(&not_one, SK_NATS_ACK), SK_ERR_INVALID_ARGUMENT);
    printf("nats_jetstream: \"%s\"\n", sk_nats_last_error_message());
    cr_assert_eq(sk_nats_ack(NULL, SK_NATS_ACK), SK_ERR_NULL_ARGUMENT);
    pthread_mutex_lock(&t.mutex);
    cr_assert_eq(sk_nats_ack(&t.kept[0], (sk_nats_ack_kind)9), SK_ERR_INVALID_ARGUMENT);
    /* The first is refused (-NAK): it comes again; the others are
     * acknowledged (the second twice: once counts); the handle alone works
     * as well as the value. */
    cr_assert_eq(sk_nats_ack(&t.kept[0], SK_NATS_IN_PROGRESS), SK_OK);
    cr_assert_eq(sk_nats_ack(&t.kept[0], SK_NATS_NAK), SK_OK);
    const sk_value *handle = NULL;
    cr_assert_eq(sk_value_get_array_item(&t.kept[1], SK_NATS_ITEM_ACK, &handle), SK_OK);
    cr_assert_eq(sk_nats_ack(handle, SK_NATS_ACK), SK_OK);
    cr_assert_eq(sk_nats_ack(&t.kept[1], SK_NATS_ACK), SK_OK);
    for (long i = 2; i < t.kept_count; i++) {
        cr_assert_eq(sk_nats_ack(&t.kept[i], SK_NATS_ACK), SK_OK, "%s", sk_nats_last_error_message());
    }
    t.ack_in_next = true;
    pthread_mutex_unlock(&t.mutex);
    cr_assert(tally_wait(&t, &t.unique, COUNT), "%ld of %d (%s)", tally_get(&t, &t.unique), COUNT, t.error);
    cr_assert(tally_wait(&t, &t.duplicates, 1), "the refused message did not come again");
    deadline = seconds_now() + NATS_WAIT_SECONDS;
    do {
        nats_consumer_counts(js, "EXP", "hand", &ack_pending, &pending);
    } while ((ack_pending != 0 || pending != 0) && seconds_now() < deadline);
    cr_assert_eq(ack_pending, 0);
    sk_disposable_dispose(d);
    sk_disposable_release(d);
    sk_signal_release(consumer);
    cr_assert(tally_wait(&t, &t.releases, 1));
    printf("nats_jetstream::explicit: %d kept held the room of %d (%lld awaiting acknowledgement, %llu waiting on the "
           "server); then %ld of %d delivered, %ld again after -NAK\n",
           CAPACITY, CAPACITY, (long long)CAPACITY, (unsigned long long)(COUNT - CAPACITY), t.unique, COUNT,
           t.duplicates);
    tally_destroy(&t);
    jsCtx_Destroy(js);
    natsConnection_Destroy(connection);
    nats_server_stop(&server);
}

/* A consumer whose room its observer holds whole (explicit acknowledgements
 * kept) still ends, in words, when the connection closes: before, the
 * fetcher waited for room given back, which may never come (an acceptance
 * program held its values 5 s after the close without an error). */
Test(nats_jetstream, a_full_room_still_hears_the_connection_close, .timeout = 120) {
    enum { COUNT = 20, CAPACITY = 4 };
    nats_server server;
    nats_server_start(&server);
    natsConnection *connection = nats_connect(&server, 0);
    jsCtx *js = nats_js(connection);
    nats_add_stream(js, "FULL", "full.>");
    nats_add_consumer(js, "FULL", "held", "full.>", 30.0, 1000);
    publish_acknowledged(connection, "full.x", COUNT, 16);
    tally t;
    tally_init(&t, COUNT);
    t.explicit_ack = true;
    t.keep = CAPACITY;
    sk_signal *consumer = NULL;
    cr_assert_eq(sk_nats_js_consume(&consumer, connection, NULL, "FULL", "held", "full.>", SK_NATS_MESSAGE,
                                    SK_NATS_ACK_EXPLICIT, NULL, CAPACITY),
                 SK_OK, "%s", sk_nats_last_error_message());
    sk_observer observer = tally_observer(&t);
    sk_disposable *d = NULL;
    cr_assert_eq(sk_signal_start(&d, consumer, &observer), SK_OK);
    cr_assert(tally_wait(&t, &t.values, CAPACITY), "%ld values (%s)", tally_get(&t, &t.values), t.error);
    jsCtx_Destroy(js);
    natsConnection_Close(connection);
    /* The kept values still hold the whole room. */
    cr_assert(tally_wait(&t, &t.errors, 1), "no error after the close, the room held");
    cr_assert_eq(tally_get(&t, &t.values), CAPACITY);
    pthread_mutex_lock(&t.mutex);
    cr_assert_str_eq(t.error, "sk_nats_js_consume: the connection of the consumer 'held' was closed (nats: Connection "
                              "Closed)");
    pthread_mutex_unlock(&t.mutex);
    printf("nats_jetstream: \"%s\"\n", t.error);
    sk_disposable_dispose(d);
    sk_disposable_release(d);
    sk_signal_release(consumer);
    tally_destroy(&t);
    natsConnection_Destroy(connection);
    nats_server_stop(&server);
}

/* sk_nats_js_publish() whose connection closes while publishes await
 * their acknowledgement (the server stopped, so that none comes): the
 * stream ends with the close in words, and nothing stays alive. libnats
 * tells a publish's outcome through the context's reply subscription,
 * which the close ends: before, the stream never ended (an acceptance
 * program, 6 of 9 runs), nor did a producer waiting for room. */
Test(nats_jetstream, a_closed_connection_ends_a_publish_awaiting_acknowledgements, .timeout = 120) {
    nats_server server;
    nats_server_start(&server);
    natsConnection *connection = nats_connect(&server, 0);
    jsCtx *js = nats_js(connection);
    nats_add_stream(js, "AWAIT", "await.>");
    jsCtx_Destroy(js);
    long baseline = sk_live_objects();
    sk_pipe *pipe = NULL;
    sk_signal *source = NULL, *published = NULL;
    cr_assert_eq(sk_pipe_create(&pipe, false), SK_OK);
    cr_assert_eq(sk_pipe_signal(&source, pipe), SK_OK);
    cr_assert_eq(sk_nats_js_publish(&published, source, connection, NULL, "await.x", NULL, 4, 30.0, 1), SK_OK, "%s",
                 sk_nats_last_error_message());
    recorder r;
    recorder_init(&r);
    sk_observer observer = recorder_observer(&r);
    sk_disposable *d = NULL;
    cr_assert_eq(sk_signal_start(&d, published, &observer), SK_OK);
    cr_assert_eq(kill(server.pid, SIGSTOP), 0);
    for (int i = 0; i < 2; i++) {
        sk_value value;
        cr_assert_eq(sk_value_set_string(&value, "awaited"), SK_OK);
        cr_assert_eq(sk_pipe_put(pipe, &value), SK_OK);
        sk_value_release(&value);
    }
    natsConnection_Close(connection);
    bool ended = recorder_wait(&r, &r.errors, 1);
    cr_assert_eq(kill(server.pid, SIGCONT), 0);
    cr_assert(ended, "no error after the close");
    cr_assert_eq(recorder_get(&r, &r.nexts), 0);
    pthread_mutex_lock(&r.mutex);
    cr_assert_str_eq(r.error, "sk_nats_js_publish: the connection was closed while 2 messages to 'await.x' awaited "
                              "their acknowledgement (nats: Connection Closed)");
    pthread_mutex_unlock(&r.mutex);
    printf("nats_jetstream: \"%s\"\n", r.error);
    sk_disposable_dispose(d);
    sk_disposable_release(d);
    sk_signal_release(published);
    sk_signal_release(source);
    sk_pipe_release(pipe);
    cr_assert(recorder_wait(&r, &r.releases, 1));
    recorder_destroy(&r);
    cr_assert_eq(nats_wait_live_objects(baseline), baseline);
    natsConnection_Destroy(connection);
    nats_server_stop(&server);
}

/* The server's subscriptions to a plain inbox ("_INBOX.<nuid>", no
 * wildcard): a pull subscription's (the request inboxes end with ".*"). */
static int pull_subscriptions(const nats_server *server) {
    char *body = nats_monitor_get(server, "/subsz?subs=1&limit=100000");
    int count = 0;
    for (const char *at = strstr(body, "\"subject\": \"_INBOX."); at != NULL; at = strstr(at + 1, "\"subject\": \"_INBOX.")) {
        const char *end = strchr(at + 13, '"');
        const char *star = strchr(at + 13, '*');
        if (end != NULL && (star == NULL || star > end)) {
            count++;
        }
    }
    free(body);
    return count;
}

/* Disposed after STOP_AT of COUNT values: nothing alive, the pull
 * subscription gone, nothing after the observer's release; then a second
 * start on the same durable consumer. With explicit acknowledgements (given
 * in `next`) every message not acknowledged comes again: all COUNT are
 * seen. After `next`, the bridge cannot tell a value a disposed
 * subscription dropped from one delivered: the messages put while the
 * dispose was under way may be acknowledged unseen; they are counted
 * (lost to this observer), not asserted. */
static void dispose_mid_stream(bool explicit_ack) {
    enum { COUNT = 5000, STOP_AT = 1000 };
    const char *durable = explicit_ack ? "half_explicit" : "half";
    long live = sk_live_objects();
    nats_server server;
    nats_server_start(&server);
    natsConnection *connection = nats_connect(&server, 0);
    jsCtx *js = nats_js(connection);
    nats_add_stream(js, "MID", "mid.>");
    nats_add_consumer(js, "MID", durable, "mid.>", 1.0, 1000);
    publish_acknowledged(connection, "mid.x", COUNT, 64);

    tally t;
    tally_init(&t, COUNT);
    t.explicit_ack = explicit_ack;
    t.ack_in_next = true;
    sk_nats_ack_mode mode = explicit_ack ? SK_NATS_ACK_EXPLICIT : SK_NATS_ACK_AFTER_NEXT;
    sk_signal *consumer = NULL;
    cr_assert_eq(sk_nats_js_consume(&consumer, connection, NULL, "MID", durable, "mid.>", SK_NATS_MESSAGE, mode, NULL,
                                    64),
                 SK_OK);
    sk_observer observer = tally_observer(&t);
    sk_disposable *d = NULL;
    cr_assert_eq(sk_signal_start(&d, consumer, &observer), SK_OK);
    cr_assert(tally_wait(&t, &t.values, STOP_AT));
    cr_assert_eq(pull_subscriptions(&server), 1);
    sk_disposable_dispose(d);
    sk_disposable_release(d);
    sk_signal_release(consumer);
    cr_assert(tally_wait(&t, &t.releases, 1), "the observer's release never ran");
    long at_release = tally_get(&t, &t.values);
    /* Everything of the consumer goes once its fetching thread has seen
     * the dispose (within one fetch): poll with the deadline. */
    double deadline = seconds_now() + NATS_WAIT_SECONDS;
    while (sk_live_objects() != live && seconds_now() < deadline) {
        (void)natsConnection_Flush(connection);
    }
    if (sk_live_objects() != live) {
        sk_live_objects_print(stderr);
    }
    cr_assert_eq(sk_live_objects(), live, "objects of the consumer still alive");
    cr_assert_eq(natsConnection_Flush(connection), NATS_OK);
    cr_assert_eq(pull_subscriptions(&server), 0, "the pull subscription stays on the server");
    cr_assert_eq(tally_get(&t, &t.values), at_release, "a value after the release");

    /* A new start on the same durable consumer: what was not acknowledged
     * comes (again), what was fetched and never delivered after AckWait.
     * It ends when the server has nothing left for it. */
    cr_assert_eq(sk_nats_js_consume(&consumer, connection, NULL, "MID", durable, "mid.>", SK_NATS_MESSAGE, mode, NULL,
                                    64),
                 SK_OK);
    pthread_mutex_lock(&t.mutex);
    t.releases = 0;
    pthread_mutex_unlock(&t.mutex);
    cr_assert_eq(sk_signal_start(&d, consumer, &observer), SK_OK);
    int64_t ack_pending = 1;
    uint64_t pending = 1;
    deadline = seconds_now() + NATS_WAIT_SECONDS;
    while ((ack_pending != 0 || pending != 0) && tally_get(&t, &t.unique) < COUNT && seconds_now() < deadline) {
        nats_consumer_counts(js, "MID", durable, &ack_pending, &pending);
        (void)poll(NULL, 0, 5); /* the poll interval; the deadline bounds the whole */
    }
    if (explicit_ack) {
        cr_assert(tally_wait(&t, &t.unique, COUNT), "%ld of %d after the second start (%s)", tally_get(&t, &t.unique),
                  COUNT, t.error);
    }
    sk_disposable_dispose(d);
    sk_disposable_release(d);
    sk_signal_release(consumer);
    cr_assert(tally_wait(&t, &t.releases, 1));
    cr_assert_eq(t.errors, 0, "%s", t.error);
    printf("nats_jetstream::disposed_%s: disposed after %ld of %d, nothing alive, the pull subscription gone; a second "
           "start delivered the rest: %ld of %d seen, %ld duplicates, %ld acknowledged unseen in the dispose\n",
           explicit_ack ? "explicit" : "after_next", at_release, COUNT, t.unique, COUNT, t.duplicates,
           COUNT - t.unique);
    tally_destroy(&t);
    jsCtx_Destroy(js);
    natsConnection_Destroy(connection);
    nats_server_stop(&server);
}

Test(nats_jetstream, disposed_mid_stream_leaves_nothing_alive, .timeout = 120) {
    dispose_mid_stream(false);
}

Test(nats_jetstream, disposed_mid_stream_explicit_loses_nothing, .timeout = 120) {
    dispose_mid_stream(true);
}

/* The errors, in words, through the failure rule. */
static void expect_error(sk_signal *signal, const char *contains) {
    recorder r;
    recorder_init(&r);
    sk_observer observer = recorder_observer(&r);
    sk_disposable *d = NULL;
    cr_assert_eq(sk_signal_start(&d, signal, &observer), SK_OK);
    cr_assert(recorder_wait(&r, &r.errors, 1), "no error (wanted '%s')", contains);
    printf("nats_jetstream: \"%s\"\n", r.error);
    cr_assert_not_null(strstr(r.error, contains), "'%s' does not say '%s'", r.error, contains);
    sk_disposable_release(d);
    sk_signal_release(signal);
    cr_assert(recorder_wait(&r, &r.releases, 1));
    recorder_destroy(&r);
}

Test(nats_jetstream, errors_in_words, .timeout = 120) {
    nats_server server;
    nats_server_start(&server);
    natsConnection *connection = nats_connect(&server, 0);
    jsCtx *js = nats_js(connection);
    nats_add_stream(js, "ERR", "err.>");
    sk_signal *signal = NULL;
    sk_signal *source = indexed_signal(3);

    cr_assert_eq(sk_nats_js_publish(&signal, source, connection, NULL, "err.x", NULL, 0, 1.0, 1),
                 SK_ERR_INVALID_ARGUMENT);
    cr_assert_eq(sk_nats_js_publish(&signal, NULL, connection, NULL, "err.x", NULL, 1, 1.0, 1), SK_ERR_NULL_ARGUMENT);
    printf("nats_jetstream: \"%s\"\n", sk_nats_last_error_message());
    cr_assert_eq(sk_nats_js_consume(&signal, connection, NULL, "ERR", "d", "err.>", SK_NATS_PAYLOAD,
                                    SK_NATS_ACK_AFTER_NEXT, NULL, 0),
                 SK_ERR_INVALID_ARGUMENT);
    cr_assert_eq(sk_nats_js_consume(&signal, connection, NULL, "ERR", NULL, "err.>", SK_NATS_PAYLOAD,
                                    SK_NATS_ACK_AFTER_NEXT, NULL, 1),
                 SK_ERR_NULL_ARGUMENT);

    /* No stream listens: "no responders", tried 3 times. */
    cr_assert_eq(sk_nats_js_publish(&signal, source, connection, NULL, "nowhere.x", NULL, 4, 1.0, 3), SK_OK);
    expect_error(signal, "after 3 attempts (nats: No responders");
    /* A value of another kind. */
    sk_value one = { 0 };
    sk_value_set_int64(&one, 1);
    sk_signal *number = NULL;
    cr_assert_eq(sk_signal_single(&number, &one), SK_OK);
    cr_assert_eq(sk_nats_js_publish(&signal, number, connection, NULL, "err.x", NULL, 4, 1.0, 3), SK_OK);
    expect_error(signal, "cannot publish a value of kind int64 to 'err.x'");
    sk_signal_release(number);
    /* A payload beyond the server's maximum. */
    sk_value big = { 0 };
    size_t size = 2 * 1024 * 1024;
    char *zeros = calloc(size, 1);
    cr_assert_eq(sk_value_set_bytes(&big, zeros, size), SK_OK);
    free(zeros);
    sk_signal *large = NULL;
    cr_assert_eq(sk_signal_single(&large, &big), SK_OK);
    sk_value_release(&big);
    cr_assert_eq(sk_nats_js_publish(&signal, large, connection, NULL, "err.x", NULL, 4, 1.0, 3), SK_OK);
    expect_error(signal, "(nats: Maximum Payload Exceeded");
    sk_signal_release(large);
    /* A consumer of a stream that does not exist. */
    cr_assert_eq(sk_nats_js_consume(&signal, connection, NULL, "NOPE", "d", "nope.>", SK_NATS_PAYLOAD,
                                    SK_NATS_ACK_AFTER_NEXT, NULL, 4),
                 SK_OK);
    expect_error(signal, "sk_nats_js_consume: cannot bind to the consumer 'd' of 'NOPE'");
    /* A closed connection. */
    natsConnection *closed = nats_connect(&server, 0);
    natsConnection_Close(closed);
    cr_assert_eq(sk_nats_js_publish(&signal, source, closed, NULL, "err.x", NULL, 4, 1.0, 3), SK_OK);
    expect_error(signal, "(nats: Connection Closed");
    cr_assert_eq(sk_nats_js_consume(&signal, closed, NULL, "ERR", "d", "err.>", SK_NATS_PAYLOAD,
                                    SK_NATS_ACK_AFTER_NEXT, NULL, 4),
                 SK_OK);
    expect_error(signal, "(nats: Connection Closed");
    natsConnection_Destroy(closed);
    sk_signal_release(source);
    jsCtx_Destroy(js);
    natsConnection_Destroy(connection);
    nats_server_stop(&server);
}
