/* test_request.c - sk_nats_request(): a reply as one value then the
 * completion; a silent service as the timeout's error; no service as the
 * server's "no responders"; each start a new request. */
#include <stdio.h>
#include <string.h>

#include "nats_support.h"

/* The service: replies "echo: <payload>" to each request, through the
 * bridge's own subject signal. */
static void echo_next(void *ctx, const sk_value *message) {
    natsConnection *connection = ctx;
    const sk_value *reply = NULL;
    cr_assert_eq(sk_value_get_array_item(message, SK_NATS_ITEM_REPLY, &reply), SK_OK);
    const char *to = NULL;
    size_t length = 0;
    cr_assert_eq(sk_value_get_string(reply, &to, &length), SK_OK, "a request without a reply subject");
    char text[256], answer[300];
    payload_text(message, text, sizeof text);
    snprintf(answer, sizeof answer, "echo: %s", text);
    cr_assert_eq(natsConnection_PublishString(connection, to, answer), NATS_OK);
}

Test(nats_request, reply_then_completion_and_timeouts, .timeout = 120) {
    long live = sk_live_objects();
    nats_server server;
    nats_server_start(&server);
    natsConnection *service_connection = nats_connect(&server, 0);
    natsConnection *connection = nats_connect(&server, 0);
    sk_signal *service = NULL, *silent = NULL;
    cr_assert_eq(sk_nats_subject(&service, service_connection, "svc.echo", NULL, SK_NATS_MESSAGE), SK_OK);
    cr_assert_eq(sk_nats_subject(&silent, service_connection, "svc.silent", NULL, SK_NATS_MESSAGE), SK_OK);
    sk_observer serving = { echo_next, NULL, NULL, service_connection, NULL };
    sk_observer ignoring = { NULL, NULL, NULL, NULL, NULL };
    sk_disposable *serve = NULL, *ignore = NULL;
    cr_assert_eq(sk_signal_start(&serve, service, &serving), SK_OK);
    cr_assert_eq(sk_signal_start(&ignore, silent, &ignoring), SK_OK);
    cr_assert_eq(natsConnection_Flush(service_connection), NATS_OK);

    /* A reply, twice: each start is a new request. */
    sk_value payload = { 0 };
    cr_assert_eq(sk_value_set_string(&payload, "hi"), SK_OK);
    sk_signal *request = NULL;
    cr_assert_eq(sk_nats_request(&request, connection, "svc.echo", &payload, 5.0, SK_NATS_PAYLOAD), SK_OK);
    sk_value_release(&payload);
    for (int i = 0; i < 2; i++) {
        recorder r;
        recorder_init(&r);
        sk_observer observer = recorder_observer(&r);
        cr_assert_eq(sk_signal_start(NULL, request, &observer), SK_OK);
        cr_assert(recorder_wait(&r, &r.completions, 1), "start %d: %s", i, r.error);
        cr_assert_eq(recorder_get(&r, &r.nexts), 1);
        char text[64];
        payload_text(&r.last, text, sizeof text);
        cr_assert_str_eq(text, "echo: hi");
        cr_assert(recorder_wait(&r, &r.releases, 1));
        recorder_destroy(&r);
    }
    sk_signal_release(request);

    /* A service that never answers: the timeout's error. */
    cr_assert_eq(sk_nats_request(&request, connection, "svc.silent", NULL, 0.2, SK_NATS_MESSAGE), SK_OK);
    recorder r;
    recorder_init(&r);
    sk_observer observer = recorder_observer(&r);
    cr_assert_eq(sk_signal_start(NULL, request, &observer), SK_OK);
    cr_assert(recorder_wait(&r, &r.errors, 1));
    cr_assert(strstr(r.error, "no reply from 'svc.silent' within 0.2 s") != NULL && strstr(r.error, "Timeout") != NULL,
              "%s", r.error);
    printf("nats_request: \"%s\"\n", r.error);
    cr_assert_eq(recorder_get(&r, &r.nexts), 0);
    cr_assert(recorder_wait(&r, &r.releases, 1));
    recorder_destroy(&r);
    sk_signal_release(request);

    /* Nobody listens: the server's "no responders". */
    cr_assert_eq(sk_nats_request(&request, connection, "svc.nobody", NULL, 5.0, SK_NATS_MESSAGE), SK_OK);
    recorder_init(&r);
    observer = recorder_observer(&r);
    cr_assert_eq(sk_signal_start(NULL, request, &observer), SK_OK);
    cr_assert(recorder_wait(&r, &r.errors, 1));
    cr_assert(strstr(r.error, "no responders for 'svc.nobody'") != NULL && strstr(r.error, "No responders") != NULL,
              "%s", r.error);
    printf("nats_request: \"%s\"\n", r.error);
    cr_assert(recorder_wait(&r, &r.releases, 1));
    recorder_destroy(&r);
    sk_signal_release(request);

    /* A request disposed before its reply: its inbox is unsubscribed. The
     * earlier requests' inboxes first gone (their unsubscriptions may reach
     * the server after the releases waited for above: it had 2 once). */
    cr_assert_eq(nats_wait_subscriptions_starting(&server, connection, "_INBOX.", 0), 0);
    cr_assert_eq(sk_nats_request(&request, connection, "svc.silent", NULL, 30.0, SK_NATS_MESSAGE), SK_OK);
    recorder_init(&r);
    observer = recorder_observer(&r);
    sk_disposable *d = NULL;
    cr_assert_eq(sk_signal_start(&d, request, &observer), SK_OK);
    cr_assert_eq(natsConnection_Flush(connection), NATS_OK);
    cr_assert_eq(nats_server_subscriptions_starting(&server, "_INBOX."), 1);
    sk_disposable_dispose(d);
    sk_disposable_release(d);
    cr_assert_eq(nats_wait_subscriptions_starting(&server, connection, "_INBOX.", 0), 0);
    cr_assert(recorder_wait(&r, &r.releases, 1));
    cr_assert_eq(recorder_get(&r, &r.errors) + recorder_get(&r, &r.nexts) + recorder_get(&r, &r.completions), 0);
    recorder_destroy(&r);
    sk_signal_release(request);

    sk_disposable_dispose(serve);
    sk_disposable_dispose(ignore);
    sk_disposable_release(serve);
    sk_disposable_release(ignore);
    sk_signal_release(service);
    sk_signal_release(silent);
    natsConnection_Destroy(connection);
    natsConnection_Destroy(service_connection);
    nats_server_stop(&server);
    (void)live;
}
