/* test_errors.c - bad input: the client's refusals (a bad subject, a closed
 * connection, a subscription the client closes) end the stream with the
 * client's error in words; a bad argument is refused by the call, with
 * sk_nats_last_error_message(), and the call's release runs. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "nats_support.h"

/* Starts `signal` and expects its error to hold `word1` and `word2`. */
static void expect_error(sk_signal *signal, const char *word1, const char *word2) {
    long live = sk_live_objects();
    recorder r;
    recorder_init(&r);
    sk_observer observer = recorder_observer(&r);
    cr_assert_eq(sk_signal_start(NULL, signal, &observer), SK_OK);
    cr_assert(recorder_wait(&r, &r.errors, 1));
    cr_assert(strstr(r.error, word1) != NULL && strstr(r.error, word2) != NULL, "the error says: %s", r.error);
    printf("nats_errors: \"%s\"\n", r.error);
    cr_assert(recorder_wait(&r, &r.releases, 1));
    cr_assert_eq(recorder_get(&r, &r.nexts), 0);
    recorder_destroy(&r);
    if (nats_wait_live_objects(live) != live) {
        sk_live_objects_print(stderr); /* what is alive (with SIGNALKIT_CHECK_HANDLES=1) */
    }
    cr_assert_eq(nats_wait_live_objects(live), live);
}

Test(nats_errors, bad_subjects_and_closed_connections, .timeout = 120) {
    nats_server server;
    nats_server_start(&server);
    natsConnection *connection = nats_connect(&server, 0);
    sk_signal *signal = NULL;
    cr_assert_eq(sk_nats_subject(&signal, connection, "a b", NULL, SK_NATS_PAYLOAD), SK_OK);
    expect_error(signal, "sk_nats_subject: cannot subscribe to 'a b'", "Invalid Subject");
    sk_signal_release(signal);
    cr_assert_eq(sk_nats_subject(&signal, connection, "", NULL, SK_NATS_PAYLOAD), SK_OK);
    expect_error(signal, "cannot subscribe to ''", "nats: ");
    sk_signal_release(signal);
    /* A subject no message may be published to is refused at the call
     * (libnats checks none at a publish: the server took "a b" for the
     * subject "a" with the reply "b", and closed a JetStream publisher's
     * connection over it). */
    static const struct {
        const char *subject;
        const char *message;
    } bad[] = {
        { "", "cannot publish to '': the subject is empty" },
        { "a b", "cannot publish to 'a b': a subject has no whitespace or control characters" },
        { "a\tb", "cannot publish to 'a\\tb': a subject has no whitespace" },
        { "a..b", "cannot publish to 'a..b': a token between dots is empty" },
        { ".a", "a token between dots is empty" },
        { "a.", "a token between dots is empty" },
        { "a.*", "cannot publish to 'a.*': a wildcard ('*', '>') matches subjects to subscribe to" },
        { ">", "a wildcard" },
    };
    sk_signal *values = NULL;
    cr_assert_eq(sk_signal_never(&values), SK_OK);
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        cr_assert_eq(sk_nats_request(&signal, connection, bad[i].subject, NULL, 1.0, SK_NATS_PAYLOAD),
                     SK_ERR_INVALID_ARGUMENT, "%s", bad[i].subject);
        cr_assert_null(signal);
        cr_assert(strstr(sk_nats_last_error_message(), "sk_nats_request: ") == sk_nats_last_error_message() &&
                      strstr(sk_nats_last_error_message(), bad[i].message) != NULL,
                  "%s: %s", bad[i].subject, sk_nats_last_error_message());
        cr_assert_eq(sk_nats_publish(&signal, values, connection, bad[i].subject, 1.0), SK_ERR_INVALID_ARGUMENT);
        cr_assert(strstr(sk_nats_last_error_message(), "sk_nats_publish: ") == sk_nats_last_error_message() &&
                      strstr(sk_nats_last_error_message(), bad[i].message) != NULL,
                  "%s: %s", bad[i].subject, sk_nats_last_error_message());
        cr_assert_eq(sk_nats_js_publish(&signal, values, connection, NULL, bad[i].subject, "id", 4, 1.0, 1),
                     SK_ERR_INVALID_ARGUMENT);
        cr_assert(strstr(sk_nats_last_error_message(), "sk_nats_js_publish: ") == sk_nats_last_error_message() &&
                      strstr(sk_nats_last_error_message(), bad[i].message) != NULL,
                  "%s: %s", bad[i].subject, sk_nats_last_error_message());
    }
    /* Tokens of any other characters are the server's to take. */
    cr_assert_eq(sk_nats_publish(&signal, values, connection, "a-b_c.d*e.f>g", 1.0), SK_OK, "%s",
                 sk_nats_last_error_message());
    sk_signal_release(signal);
    sk_signal_release(values);

    /* A live subscription when the connection closes. */
    sk_signal *live_signal = NULL;
    cr_assert_eq(sk_nats_subject(&live_signal, connection, "errors.live", NULL, SK_NATS_PAYLOAD), SK_OK);
    long with_signal = sk_live_objects();
    recorder r;
    recorder_init(&r);
    sk_observer observer = recorder_observer(&r);
    cr_assert_eq(sk_signal_start(NULL, live_signal, &observer), SK_OK);
    natsConnection_Close(connection);
    cr_assert(recorder_wait(&r, &r.errors, 1));
    cr_assert(strstr(r.error, "the subscription to 'errors.live' was closed by the client") != NULL &&
                  strstr(r.error, "Connection Closed") != NULL,
              "%s", r.error);
    printf("nats_errors: \"%s\"\n", r.error);
    cr_assert(recorder_wait(&r, &r.releases, 1));
    recorder_destroy(&r);
    /* The client lets go of the closed subscription on its own thread, a
     * moment after the observer's release: the next baseline waits for it. */
    cr_assert_eq(nats_wait_live_objects(with_signal), with_signal);

    /* Starts on a closed connection. */
    expect_error(live_signal, "cannot subscribe to 'errors.live'", "Connection Closed");
    sk_signal_release(live_signal);
    cr_assert_eq(sk_nats_request(&signal, connection, "svc.any", NULL, 1.0, SK_NATS_PAYLOAD), SK_OK);
    expect_error(signal, "sk_nats_request", "Connection Closed");
    sk_signal_release(signal);
    natsConnection_Destroy(connection);
    nats_server_stop(&server);
}

static void count_release(void *ctx) {
    (*(int *)ctx)++;
}

Test(nats_errors, bad_arguments_are_refused_with_a_message, .timeout = 60) {
    /* No server: these calls never reach the client. A connection pointer
     * that is never used stands for one. */
    natsConnection *connection = (natsConnection *)&connection;
    sk_signal *signal = (sk_signal *)1;
    cr_assert_eq(sk_nats_subject(&signal, connection, NULL, NULL, SK_NATS_PAYLOAD), SK_ERR_NULL_ARGUMENT);
    cr_assert_null(signal);
    cr_assert_str_eq(sk_nats_last_error_message(), "sk_nats_subject: subject is NULL");
    cr_assert_eq(sk_nats_subject(&signal, NULL, "x", NULL, SK_NATS_PAYLOAD), SK_ERR_NULL_ARGUMENT);
    cr_assert_str_eq(sk_nats_last_error_message(), "sk_nats_subject: connection is NULL");
    cr_assert_eq(sk_nats_subject(&signal, connection, "x", NULL, (sk_nats_shape)7), SK_ERR_INVALID_ARGUMENT);
    cr_assert_str_eq(sk_nats_last_error_message(), "sk_nats_subject: shape 7 is no sk_nats_shape");

    int released = 0;
    cr_assert_eq(sk_nats_subject_bounded(&signal, connection, "x", NULL, SK_NATS_PAYLOAD, NULL, 0, SK_OVERFLOW_BLOCK,
                                         NULL, &released, count_release),
                 SK_ERR_INVALID_ARGUMENT);
    cr_assert_null(signal);
    cr_assert_eq(released, 1, "the release ran once");
    cr_assert_str_eq(sk_nats_last_error_message(), "sk_nats_subject_bounded: capacity is 0 (a bounded buffer holds at least one value)");
    cr_assert_eq(sk_nats_subject_bounded(&signal, connection, NULL, NULL, SK_NATS_PAYLOAD, NULL, 4, SK_OVERFLOW_BLOCK,
                                         NULL, &released, count_release),
                 SK_ERR_NULL_ARGUMENT);
    cr_assert_eq(released, 2);

    sk_signal *never = NULL;
    cr_assert_eq(sk_signal_never(&never), SK_OK);
    cr_assert_eq(sk_nats_publish(&signal, never, connection, "x", 0.0), SK_ERR_INVALID_ARGUMENT);
    cr_assert_str_eq(sk_nats_last_error_message(),
                     "sk_nats_publish: flush_timeout 0 is not a duration > 0 s and <= 2^31 ms");
    cr_assert_eq(sk_nats_publish(&signal, never, connection, "x", NAN), SK_ERR_INVALID_ARGUMENT);
    cr_assert_eq(sk_nats_publish(&signal, NULL, connection, "x", 1.0), SK_ERR_NULL_ARGUMENT);
    cr_assert_str_eq(sk_nats_last_error_message(), "sk_nats_publish: signal is NULL");
    sk_value number = { 0 };
    sk_value_set_int64(&number, 1);
    cr_assert_eq(sk_nats_request(&signal, connection, "x", &number, 1.0, SK_NATS_PAYLOAD), SK_ERR_WRONG_KIND);
    cr_assert_str_eq(sk_nats_last_error_message(), "sk_nats_request: payload is neither a string nor bytes");
    cr_assert_eq(sk_nats_request(&signal, connection, "x", NULL, -1.0, SK_NATS_PAYLOAD), SK_ERR_INVALID_ARGUMENT);
    cr_assert_eq(sk_nats_request(&signal, connection, "x", NULL, INFINITY, SK_NATS_PAYLOAD), SK_ERR_INVALID_ARGUMENT);

    /* A handle of another kind is refused at the call, as signalkit.h's
     * functions refuse one (before, js_publish took a queue for its signal
     * and js_consume a signal for its queue: each failed at its start or
     * first delivery, in words that did not name the mistake). */
    sk_queue *queue = NULL;
    cr_assert_eq(sk_queue_create(&queue, "nats_errors.kinds"), SK_OK);
    cr_assert_eq(sk_nats_js_publish(&signal, (sk_signal *)queue, connection, NULL, "x", NULL, 4, 1.0, 1),
                 SK_ERR_WRONG_KIND);
    cr_assert_null(signal);
    cr_assert_str_eq(sk_nats_last_error_message(),
                     "sk_nats_js_publish: signal: the handle is not a signal (nothing was released or retained)");
    cr_assert_eq(sk_nats_js_consume(&signal, connection, NULL, "S", "d", "x", SK_NATS_MESSAGE, SK_NATS_ACK_AFTER_NEXT,
                                    (sk_queue *)never, 4),
                 SK_ERR_WRONG_KIND);
    cr_assert_null(signal);
    cr_assert_str_eq(sk_nats_last_error_message(),
                     "sk_nats_js_consume: queue: the handle is not a queue (nothing was released or retained)");
    /* Names the server would refuse, or take for another consumer each
     * time (an empty durable name: a new ephemeral consumer at each start,
     * every message again; a stream name with a space: a 5 s wait for
     * "Timeout"), are refused at the call. */
    static const struct {
        const char *stream, *durable, *subject, *message;
    } names[] = {
        { "S", "", "x", "sk_nats_js_consume: the durable consumer's name '' is empty" },
        { "S", "a b", "x", "sk_nats_js_consume: the durable consumer's name 'a b' has whitespace or a control character" },
        { "S", "a.b", "x", "sk_nats_js_consume: the durable consumer's name 'a.b' has '.', '*' or '>' (a name, not a subject)" },
        { "ER RS", "d", "x", "sk_nats_js_consume: the stream's name 'ER RS' has whitespace or a control character (NULL: the stream of the subject)" },
        { "", "d", "x", "sk_nats_js_consume: the stream's name '' is empty (NULL: the stream of the subject)" },
        { "a/b", "d", "x", "sk_nats_js_consume: the stream's name 'a/b' has a path separator ('/', '\\')" },
        { NULL, "d", "", "sk_nats_js_consume: subject is empty (the consumer's filter subject)" },
    };
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        signal = (sk_signal *)1;
        cr_assert_eq(sk_nats_js_consume(&signal, connection, NULL, names[i].stream, names[i].durable, names[i].subject,
                                        SK_NATS_MESSAGE, SK_NATS_ACK_AFTER_NEXT, NULL, 4),
                     SK_ERR_INVALID_ARGUMENT, "%s", names[i].message);
        cr_assert_null(signal);
        cr_assert(strstr(sk_nats_last_error_message(), names[i].message) == sk_nats_last_error_message(), "%s",
                  sk_nats_last_error_message());
    }
    sk_queue_release(queue);
    sk_signal_release(never);
    cr_assert_eq(nats_wait_live_objects(0), 0);
}

static void never_connected(natsConnection *connection, void *closure) {
    (void)connection;
    (void)closure;
}

/* A connection made with RetryOnFailedConnect that has not reached a server
 * yet: a JetStream publish says so (libnats says only "Not Supported By
 * Server": it has no server's answer yet to know headers are supported). */
Test(nats_errors, a_js_publish_on_a_connection_not_yet_connected_says_so, .timeout = 60) {
    nats_server server;
    nats_server_start(&server);
    char url[256];
    snprintf(url, sizeof url, "%s", server.url);
    nats_server_stop(&server); /* nothing listens there now */
    natsOptions *options = NULL;
    cr_assert_eq(natsOptions_Create(&options), NATS_OK);
    natsOptions_SetURL(options, url);
    /* With a connected callback the connect returns at once (without one it
     * waits until a server answers). */
    natsOptions_SetRetryOnFailedConnect(options, true, never_connected, NULL);
    natsOptions_SetMaxReconnect(options, -1);
    natsOptions_SetReconnectWait(options, 50);
    natsConnection *connection = NULL;
    natsStatus status = natsConnection_Connect(&connection, options);
    natsOptions_Destroy(options);
    cr_assert_eq(status, NATS_NOT_YET_CONNECTED, "%s", natsStatus_GetText(status));
    sk_value one;
    cr_assert_eq(sk_value_set_string(&one, "one"), SK_OK);
    sk_signal *values = NULL, *published = NULL;
    cr_assert_eq(sk_signal_single(&values, &one), SK_OK);
    sk_value_release(&one);
    cr_assert_eq(sk_nats_js_publish(&published, values, connection, NULL, "errors.js", "id", 4, 1.0, 1), SK_OK,
                 "%s", sk_nats_last_error_message());
    expect_error(published, "sk_nats_js_publish", "has not reached a server yet");
    sk_signal_release(published);
    sk_signal_release(values);
    natsConnection_Destroy(connection);
}
