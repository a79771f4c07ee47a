/* test_serve.c - sk_nats_serve(): concurrent requests each answered with
 * their own reply; at most max_concurrent handlers' signals at once; a
 * handler's signal that fails, completes empty or gives another kind is
 * answered with the service error headers and the service goes on; a
 * handler that fails its call ends the service with its error; a dispose
 * leaves no interest on the server and nothing alive. */
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>

#include "nats_support.h"

/* Each test's service context begins with the waiter that its release
 * counts on (ctx is shared by the handler, on_drop and release). */
static void count_release(void *ctx) {
    waiter_add(ctx, 1);
}

/* The payload of a request message as text. */
static void request_text(const sk_value *request, char *buffer, size_t size) {
    payload_text(request, buffer, size);
}

static sk_signal *string_signal(const char *text) {
    sk_value value = { 0 };
    cr_assert_eq(sk_value_set_string(&value, text), SK_OK);
    sk_signal *single = NULL;
    cr_assert_eq(sk_signal_single(&single, &value), SK_OK);
    sk_value_release(&value);
    return single;
}

/* --- Many concurrent requests --------------------------------------------- */

typedef struct echo_service {
    waiter released; /* first: see count_release */
    sk_queue *queue; /* where each reply is emitted: not the client's thread */
    atomic_long handled;
} echo_service;

/* Replies "echo: <payload>" from a concurrent queue. */
static sk_signal *echo_handler(void *ctx, const sk_value *request) {
    echo_service *service = ctx;
    char text[128], answer[160];
    request_text(request, text, sizeof text);
    snprintf(answer, sizeof answer, "echo: %s", text);
    sk_signal *single = string_signal(answer), *later = NULL;
    cr_assert_eq(sk_signal_deliver_on(&later, single, service->queue), SK_OK, "%s", sk_last_error_message());
    sk_signal_release(single);
    atomic_fetch_add(&service->handled, 1);
    return later;
}

enum { REQUESTERS = 4, REQUESTS_EACH = 100 };

typedef struct requester {
    natsConnection *connection;
    int index;
    int wrong;
    int failed;
} requester;

static void *request_many(void *arg) {
    requester *q = arg;
    for (int i = 0; i < REQUESTS_EACH; i++) {
        char payload[64], expected[96];
        snprintf(payload, sizeof payload, "requester %d, request %d", q->index, i);
        snprintf(expected, sizeof expected, "echo: %s", payload);
        natsMsg *reply = NULL;
        if (natsConnection_RequestString(&reply, q->connection, "svc.echo", payload, 30000) != NATS_OK) {
            q->failed++;
            continue;
        }
        int length = natsMsg_GetDataLength(reply);
        q->wrong += length != (int)strlen(expected) || memcmp(natsMsg_GetData(reply), expected, (size_t)length) != 0;
        natsMsg_Destroy(reply);
    }
    return NULL;
}

Test(nats_serve, many_concurrent_requests_each_answered, .timeout = 120) {
    long live = sk_live_objects();
    nats_server server;
    nats_server_start(&server);
    natsConnection *service_connection = nats_connect(&server, 0);
    natsConnection *client = nats_connect(&server, 0);
    echo_service service = { .handled = 0 };
    cr_assert_eq(sk_queue_concurrent_default(&service.queue), SK_OK);
    waiter_init(&service.released);
    sk_signal *signal = NULL;
    cr_assert_eq(sk_nats_serve(&signal, service_connection, "svc.echo", NULL, 8, 1000, SK_OVERFLOW_BLOCK, echo_handler,
                               NULL, &service, count_release),
                 SK_OK);
    recorder r;
    recorder_init(&r);
    sk_observer observer = recorder_observer(&r);
    sk_disposable *d = NULL;
    cr_assert_eq(sk_signal_start(&d, signal, &observer), SK_OK);
    cr_assert_eq(natsConnection_Flush(service_connection), NATS_OK);

    requester requesters[REQUESTERS];
    pthread_t threads[REQUESTERS];
    for (int i = 0; i < REQUESTERS; i++) {
        requesters[i] = (requester){ .connection = client, .index = i };
        cr_assert_eq(pthread_create(&threads[i], NULL, request_many, &requesters[i]), 0);
    }
    for (int i = 0; i < REQUESTERS; i++) {
        pthread_join(threads[i], NULL);
        cr_assert_eq(requesters[i].failed, 0, "requester %d: %d requests had no reply", i, requesters[i].failed);
        cr_assert_eq(requesters[i].wrong, 0, "requester %d: %d wrong replies", i, requesters[i].wrong);
    }
    /* Each request answered is emitted, as the request it was. */
    cr_assert(recorder_wait(&r, &r.nexts, REQUESTERS * REQUESTS_EACH), "%ld emitted", recorder_get(&r, &r.nexts));
    cr_assert_eq(atomic_load(&service.handled), REQUESTERS * REQUESTS_EACH);
    const sk_value *subject = NULL;
    cr_assert_eq(sk_value_get_array_item(&r.last, SK_NATS_ITEM_SUBJECT, &subject), SK_OK);
    const char *subject_text = NULL;
    cr_assert_eq(sk_value_get_string(subject, &subject_text, NULL), SK_OK);
    cr_assert_str_eq(subject_text, "svc.echo");
    cr_assert_eq(recorder_get(&r, &r.errors) + recorder_get(&r, &r.completions), 0, "%s", r.error);
    printf("nats_serve::many_concurrent_requests_each_answered: %d requests from %d threads, each answered\n",
           REQUESTERS * REQUESTS_EACH, REQUESTERS);

    sk_disposable_dispose(d);
    sk_disposable_release(d);
    sk_signal_release(signal);
    cr_assert(waiter_wait(&service.released, 1), "the service's release never ran");
    cr_assert(recorder_wait(&r, &r.releases, 1));
    recorder_destroy(&r);
    sk_queue_release(service.queue);
    waiter_destroy(&service.released);
    natsConnection_Destroy(client);
    natsConnection_Destroy(service_connection);
    nats_server_stop(&server);
    cr_assert_eq(nats_wait_live_objects(live), live); /* the service's release ran: nothing of it is left (a handler's signal let go by the client's thread just after it: waited for) */
}

/* --- max_concurrent held --------------------------------------------------- */

enum { HELD_MAX = 4, HELD_REQUESTS = 20 };

typedef struct held_service {
    waiter released; /* first: see count_release */
    pthread_mutex_t mutex;
    pthread_cond_t changed;
    atomic_long running;
    atomic_long most;
    long called;
    sk_subscriber *subscribers[HELD_REQUESTS]; /* the handlers' signals' subscribers, in the order started */
    long started;
} held_service;

typedef struct held_slot {
    held_service *service;
} held_slot;

static sk_disposable *held_start(void *ctx, sk_subscriber *subscriber) {
    held_service *service = ctx;
    pthread_mutex_lock(&service->mutex);
    cr_assert_lt(service->started, HELD_REQUESTS);
    service->subscribers[service->started++] = sk_subscriber_retain(subscriber);
    pthread_cond_broadcast(&service->changed);
    pthread_mutex_unlock(&service->mutex);
    return NULL;
}

/* A signal that the test completes later, from its own thread. */
static sk_signal *held_handler(void *ctx, const sk_value *request) {
    held_service *service = ctx;
    (void)request;
    long running = atomic_fetch_add(&service->running, 1) + 1;
    long most = atomic_load(&service->most);
    while (running > most && !atomic_compare_exchange_weak(&service->most, &most, running)) {
    }
    pthread_mutex_lock(&service->mutex);
    service->called++;
    pthread_mutex_unlock(&service->mutex);
    sk_signal *signal = NULL;
    cr_assert_eq(sk_signal_create(&signal, held_start, service, NULL), SK_OK);
    return signal;
}

static bool held_wait_started(held_service *service, long count) {
    struct timespec deadline;
    clock_gettime(CLOCK_REALTIME, &deadline);
    deadline.tv_sec += (time_t)NATS_WAIT_SECONDS;
    pthread_mutex_lock(&service->mutex);
    int status = 0;
    while (service->started < count && status == 0) {
        status = pthread_cond_timedwait(&service->changed, &service->mutex, &deadline);
    }
    bool reached = service->started >= count;
    pthread_mutex_unlock(&service->mutex);
    return reached;
}

typedef struct reply_counter {
    waiter replies;
    atomic_long wrong;
} reply_counter;

static void reply_next(void *ctx, const sk_value *value) {
    reply_counter *c = ctx;
    char text[64];
    payload_text(value, text, sizeof text);
    if (strncmp(text, "done ", 5) != 0) {
        atomic_fetch_add(&c->wrong, 1);
    }
    waiter_add(&c->replies, 1);
}

Test(nats_serve, max_concurrent_is_held, .timeout = 120) {
    long live = sk_live_objects();
    nats_server server;
    nats_server_start(&server);
    natsConnection *service_connection = nats_connect(&server, 0);
    natsConnection *client = nats_connect(&server, 0);
    held_service service = { .running = 0, .most = 0 };
    pthread_mutex_init(&service.mutex, NULL);
    pthread_cond_init(&service.changed, NULL);
    waiter_init(&service.released);
    sk_signal *signal = NULL;
    cr_assert_eq(sk_nats_serve(&signal, service_connection, "svc.held", NULL, HELD_MAX, HELD_REQUESTS,
                               SK_OVERFLOW_ERROR, held_handler, NULL, &service, count_release),
                 SK_OK);
    recorder r;
    recorder_init(&r);
    sk_observer observer = recorder_observer(&r);
    sk_disposable *d = NULL;
    cr_assert_eq(sk_signal_start(&d, signal, &observer), SK_OK);
    cr_assert_eq(natsConnection_Flush(service_connection), NATS_OK);

    /* All the requests at once, each a signal of its reply. */
    reply_counter counter = { .wrong = 0 };
    waiter_init(&counter.replies);
    sk_signal *requests[HELD_REQUESTS];
    for (int i = 0; i < HELD_REQUESTS; i++) {
        cr_assert_eq(sk_nats_request(&requests[i], client, "svc.held", NULL, 60.0, SK_NATS_PAYLOAD), SK_OK);
        sk_observer counting = { reply_next, NULL, NULL, &counter, NULL };
        cr_assert_eq(sk_signal_start(NULL, requests[i], &counting), SK_OK);
    }
    cr_assert_eq(natsConnection_Flush(client), NATS_OK);
    /* Every request has reached the service's connection (the client's
     * round trip came back after the server had routed them; the
     * service's, after they were read), and as many handlers as may run
     * are running. */
    cr_assert_eq(natsConnection_Flush(service_connection), NATS_OK);
    natsStatistics *stats = NULL;
    uint64_t in = 0;
    cr_assert_eq(natsStatistics_Create(&stats), NATS_OK);
    cr_assert_eq(natsConnection_GetStats(service_connection, stats), NATS_OK);
    cr_assert_eq(natsStatistics_GetCounts(stats, &in, NULL, NULL, NULL, NULL), NATS_OK);
    natsStatistics_Destroy(stats);
    cr_assert_eq(in, (uint64_t)HELD_REQUESTS);
    cr_assert(held_wait_started(&service, HELD_MAX), "%ld handlers called, %ld started; %s", service.called,
              service.started, r.error);

    /* Complete them one at a time, from this thread: each makes room for
     * exactly one more. */
    for (long i = 0; i < HELD_REQUESTS; i++) {
        long expected = i + HELD_MAX < HELD_REQUESTS ? i + HELD_MAX : HELD_REQUESTS;
        cr_assert(held_wait_started(&service, expected), "%ld handlers started, %ld expected", service.started,
                  expected);
        pthread_mutex_lock(&service.mutex);
        sk_subscriber *subscriber = service.subscribers[i];
        service.subscribers[i] = NULL;
        pthread_mutex_unlock(&service.mutex);
        atomic_fetch_sub(&service.running, 1);
        char text[32];
        snprintf(text, sizeof text, "done %ld", i);
        sk_value value = { 0 };
        cr_assert_eq(sk_value_set_string(&value, text), SK_OK);
        cr_assert_eq(sk_subscriber_put_next(subscriber, &value), SK_OK);
        sk_value_release(&value);
        sk_subscriber_release(subscriber);
    }
    cr_assert(waiter_wait(&counter.replies, HELD_REQUESTS), "%ld replies", waiter_get(&counter.replies));
    cr_assert_eq(atomic_load(&counter.wrong), 0);
    cr_assert(recorder_wait(&r, &r.nexts, HELD_REQUESTS));
    cr_assert_eq(service.called, HELD_REQUESTS);
    cr_assert_eq(atomic_load(&service.most), HELD_MAX, "at most %d handlers' signals at once, %ld seen", HELD_MAX,
                 atomic_load(&service.most));
    cr_assert_eq(recorder_get(&r, &r.errors), 0, "%s", r.error);
    printf("nats_serve::max_concurrent_is_held: %d requests, at most %ld handlers' signals at once\n", HELD_REQUESTS,
           atomic_load(&service.most));

    sk_disposable_dispose(d);
    sk_disposable_release(d);
    sk_signal_release(signal);
    for (int i = 0; i < HELD_REQUESTS; i++) {
        sk_signal_release(requests[i]);
    }
    cr_assert(waiter_wait(&service.released, 1));
    recorder_destroy(&r);
    waiter_destroy(&service.released);
    pthread_mutex_destroy(&service.mutex);
    pthread_cond_destroy(&service.changed);
    waiter_destroy(&counter.replies);
    natsConnection_Destroy(client);
    natsConnection_Destroy(service_connection);
    nats_server_stop(&server);
    /* The requests' inboxes are let go of by the client a moment after
     * their observers' release, with no event to wait on (nats_support.h). */
    cr_assert_eq(nats_wait_live_objects(live), live);
}

/* --- Failing handlers' signals ---------------------------------------------- */

/* "bad": a signal failing with a string; "empty": NULL; "number": an int64
 * first value; "hang": never answers; else "ok: <payload>". */
static sk_signal *choosing_handler(void *ctx, const sk_value *request) {
    (void)ctx;
    char text[64], answer[96];
    request_text(request, text, sizeof text);
    sk_signal *signal = NULL;
    if (strcmp(text, "bad") == 0) {
        sk_value error = { 0 };
        cr_assert_eq(sk_value_set_string(&error, "bad input:\r\nrefused"), SK_OK);
        cr_assert_eq(sk_signal_fail(&signal, &error), SK_OK);
        sk_value_release(&error);
    } else if (strcmp(text, "empty") == 0) {
        signal = NULL;
    } else if (strcmp(text, "number") == 0) {
        sk_value number = { 0 };
        sk_value_set_int64(&number, 7);
        cr_assert_eq(sk_signal_single(&signal, &number), SK_OK);
    } else if (strcmp(text, "hang") == 0) {
        cr_assert_eq(sk_signal_never(&signal), SK_OK);
    } else {
        snprintf(answer, sizeof answer, "ok: %s", text);
        signal = string_signal(answer);
    }
    return signal;
}

/* A request through libnats itself, to read the reply's headers: the
 * payload into `text`, the error header into `error` ("" when none). */
static void request_with_headers(natsConnection *client, const char *subject, const char *payload, char *text,
                                 char *error, char *code) {
    natsMsg *reply = NULL;
    cr_assert_eq(natsConnection_RequestString(&reply, client, subject, payload, 30000), NATS_OK, "no reply to %s",
                 payload);
    int length = natsMsg_GetDataLength(reply);
    memcpy(text, natsMsg_GetData(reply), (size_t)length);
    text[length] = '\0';
    const char *value = NULL;
    error[0] = code[0] = '\0';
    if (natsMsgHeader_Get(reply, "Nats-Service-Error", &value) == NATS_OK) {
        snprintf(error, 256, "%s", value);
    }
    if (natsMsgHeader_Get(reply, "Nats-Service-Error-Code", &value) == NATS_OK) {
        snprintf(code, 16, "%s", value);
    }
    natsMsg_Destroy(reply);
}

Test(nats_serve, failing_signals_are_answered_with_error_headers, .timeout = 120) {
    long live = sk_live_objects();
    nats_server server;
    nats_server_start(&server);
    natsConnection *service_connection = nats_connect(&server, 0);
    natsConnection *client = nats_connect(&server, 0);
    waiter released;
    waiter_init(&released);
    sk_signal *signal = NULL;
    cr_assert_eq(sk_nats_serve(&signal, service_connection, "svc.choose", "choosers", 2, 16, SK_OVERFLOW_BLOCK,
                               choosing_handler, NULL, &released, count_release),
                 SK_OK);
    recorder r;
    recorder_init(&r);
    sk_observer observer = recorder_observer(&r);
    sk_disposable *d = NULL;
    cr_assert_eq(sk_signal_start(&d, signal, &observer), SK_OK);
    cr_assert_eq(natsConnection_Flush(service_connection), NATS_OK);
    cr_assert_eq(nats_server_subscriptions(&server, "svc.choose"), 1);

    char text[256], error[256], code[16];
    request_with_headers(client, "svc.choose", "first", text, error, code);
    cr_assert_str_eq(text, "ok: first");
    cr_assert_str_eq(error, "");
    cr_assert_str_eq(code, "");

    request_with_headers(client, "svc.choose", "bad", text, error, code);
    cr_assert_str_eq(text, "");
    cr_assert_str_eq(error, "bad input:  refused"); /* CR and LF would end the header */
    cr_assert_str_eq(code, "500");

    request_with_headers(client, "svc.choose", "empty", text, error, code);
    cr_assert_str_eq(error, "sk_nats_serve: the handler's signal completed without a value");
    cr_assert_str_eq(code, "500");

    request_with_headers(client, "svc.choose", "number", text, error, code);
    cr_assert_str_eq(error, "sk_nats_serve: the handler's signal gave a value of kind int64: give a string or bytes");
    cr_assert_str_eq(code, "500");
    printf("nats_serve: Nats-Service-Error: \"%s\"\n", error);

    /* The service goes on. */
    request_with_headers(client, "svc.choose", "after", text, error, code);
    cr_assert_str_eq(text, "ok: after");
    cr_assert_str_eq(error, "");

    /* A request without a reply subject: handled, emitted, nothing
     * published (its reply item is nil). */
    cr_assert_eq(natsConnection_PublishString(client, "svc.choose", "one way"), NATS_OK);
    cr_assert(recorder_wait(&r, &r.nexts, 6), "%ld emitted", recorder_get(&r, &r.nexts));
    pthread_mutex_lock(&r.mutex);
    const sk_value *reply = NULL;
    cr_assert_eq(sk_value_get_array_item(&r.last, SK_NATS_ITEM_REPLY, &reply), SK_OK);
    cr_assert_eq(sk_value_kind(reply), SK_KIND_NIL);
    payload_text(&r.last, text, sizeof text);
    cr_assert_str_eq(text, "one way");
    payload_text(&r.first[1], text, sizeof text);
    cr_assert_str_eq(text, "bad", "the requests are emitted as they are answered");
    pthread_mutex_unlock(&r.mutex);
    cr_assert_eq(recorder_get(&r, &r.errors) + recorder_get(&r, &r.completions), 0, "%s", r.error);

    sk_disposable_dispose(d);
    sk_disposable_release(d);
    sk_signal_release(signal);
    cr_assert(waiter_wait(&released, 1));
    recorder_destroy(&r);
    waiter_destroy(&released);
    natsConnection_Destroy(client);
    natsConnection_Destroy(service_connection);
    nats_server_stop(&server);
    cr_assert_eq(nats_wait_live_objects(live), live); /* the service's release ran: nothing of it is left (a handler's signal let go by the client's thread just after it: waited for) */
}

/* --- A handler that fails its call ------------------------------------------ */

static sk_signal *refusing_handler(void *ctx, const sk_value *request) {
    (void)ctx;
    char text[64];
    request_text(request, text, sizeof text);
    if (strcmp(text, "boom") != 0) {
        return string_signal("fine");
    }
    sk_value error = { 0 };
    cr_assert_eq(sk_value_set_string(&error, "the handler refused 'boom'"), SK_OK);
    cr_assert_eq(sk_callback_fail(&error), SK_OK);
    sk_value_release(&error);
    return string_signal("never published");
}

Test(nats_serve, a_failing_handler_ends_the_service, .timeout = 120) {
    long live = sk_live_objects();
    nats_server server;
    nats_server_start(&server);
    natsConnection *service_connection = nats_connect(&server, 0);
    natsConnection *client = nats_connect(&server, 0);
    waiter released;
    waiter_init(&released);
    sk_signal *signal = NULL;
    cr_assert_eq(sk_nats_serve(&signal, service_connection, "svc.refuse", NULL, 1, 4, SK_OVERFLOW_BLOCK,
                               refusing_handler, NULL, &released, count_release),
                 SK_OK);
    recorder r;
    recorder_init(&r);
    sk_observer observer = recorder_observer(&r);
    cr_assert_eq(sk_signal_start(NULL, signal, &observer), SK_OK);
    cr_assert_eq(natsConnection_Flush(service_connection), NATS_OK);
    char text[256], error[256], code[16];
    request_with_headers(client, "svc.refuse", "first", text, error, code);
    cr_assert_str_eq(text, "fine");

    cr_assert_eq(natsConnection_PublishRequestString(client, "svc.refuse", "_INBOX.nobody", "boom"), NATS_OK);
    cr_assert(recorder_wait(&r, &r.errors, 1));
    cr_assert_str_eq(r.error, "the handler refused 'boom'");
    cr_assert_eq(recorder_get(&r, &r.nexts), 1);
    cr_assert(recorder_wait(&r, &r.releases, 1));
    sk_signal_release(signal);
    /* Everything of the service is over: the server knows no subscription. */
    cr_assert(waiter_wait(&released, 1));
    cr_assert_eq(natsConnection_Flush(service_connection), NATS_OK);
    cr_assert_eq(nats_server_subscriptions(&server, "svc.refuse"), 0);
    recorder_destroy(&r);

    /* A subject the client refuses: the subscription's error, named after
     * the service. */
    cr_assert_eq(sk_nats_serve(&signal, service_connection, "a b", NULL, 1, 4, SK_OVERFLOW_BLOCK, refusing_handler,
                               NULL, &released, count_release),
                 SK_OK);
    recorder_init(&r);
    observer = recorder_observer(&r);
    cr_assert_eq(sk_signal_start(NULL, signal, &observer), SK_OK);
    cr_assert(recorder_wait(&r, &r.errors, 1));
    cr_assert_str_eq(r.error, "sk_nats_serve: cannot subscribe to 'a b' (nats: Invalid Subject)");
    sk_signal_release(signal);
    cr_assert(waiter_wait(&released, 2));
    recorder_destroy(&r);
    waiter_destroy(&released);
    natsConnection_Destroy(client);
    natsConnection_Destroy(service_connection);
    nats_server_stop(&server);
    cr_assert_eq(nats_wait_live_objects(live), live); /* the service's release ran: nothing of it is left (a handler's signal let go by the client's thread just after it: waited for) */
}

/* --- Dispose ---------------------------------------------------------------- */

Test(nats_serve, dispose_leaves_no_interest_and_nothing_alive, .timeout = 120) {
    long live = sk_live_objects();
    nats_server server;
    nats_server_start(&server);
    natsConnection *service_connection = nats_connect(&server, 0);
    natsConnection *client = nats_connect(&server, 0);
    waiter released;
    waiter_init(&released);
    sk_signal *signal = NULL;
    cr_assert_eq(sk_nats_serve(&signal, service_connection, "svc.dispose", NULL, 2, 8, SK_OVERFLOW_DROP_NEWEST,
                               choosing_handler, NULL, &released, count_release),
                 SK_OK);
    recorder r;
    recorder_init(&r);
    sk_observer observer = recorder_observer(&r);
    sk_disposable *d = NULL;
    cr_assert_eq(sk_signal_start(&d, signal, &observer), SK_OK);
    cr_assert_eq(natsConnection_Flush(service_connection), NATS_OK);
    cr_assert_eq(nats_server_subscriptions(&server, "svc.dispose"), 1);
    char text[256], error[256], code[16];
    request_with_headers(client, "svc.dispose", "answered", text, error, code);
    cr_assert_str_eq(text, "ok: answered");
    /* A handler's signal still running at the dispose: disposed with it. */
    cr_assert_eq(natsConnection_PublishRequestString(client, "svc.dispose", "_INBOX.nobody", "hang"), NATS_OK);
    cr_assert_eq(natsConnection_Flush(client), NATS_OK);
    request_with_headers(client, "svc.dispose", "after the hanging one", text, error, code);
    cr_assert_str_eq(text, "ok: after the hanging one");

    recorder_dispose(&r, d);
    sk_disposable_release(d);
    sk_signal_release(signal);
    /* The service's release runs once its subscription, the handlers'
     * signals and every libnats subscription are over. */
    cr_assert(waiter_wait(&released, 1), "the service's release never ran");
    cr_assert(recorder_wait(&r, &r.releases, 1));
    cr_assert_eq(natsConnection_Flush(service_connection), NATS_OK);
    cr_assert_eq(nats_server_subscriptions(&server, "svc.dispose"), 0);
    cr_assert_eq(recorder_get(&r, &r.nexts), 2);
    cr_assert_eq(recorder_get(&r, &r.errors) + recorder_get(&r, &r.completions), 0, "%s", r.error);
    recorder_destroy(&r); /* its copies of the values */
    /* A handler's signal may be let go by the client's thread just after
     * the service's release: waited for (sk_live_objects_wait), not read
     * once. */
    if (nats_wait_live_objects(live) != live) {
        sk_live_objects_print(stderr);
    }
    cr_assert_eq(sk_live_objects(), live);
    waiter_destroy(&released);
    natsConnection_Destroy(client);
    natsConnection_Destroy(service_connection);
    nats_server_stop(&server);
}

/* A handler whose signal never ends, counting its calls. */
static sk_signal *stuck_handler(void *ctx, const sk_value *request) {
    (void)request;
    waiter_add(ctx, 1);
    sk_signal *never = NULL;
    cr_assert_eq(sk_signal_never(&never), SK_OK);
    return never;
}

/* SK_OVERFLOW_BLOCK, full (one handler's signal running for good, one
 * request waiting, the client's delivery thread waiting for room with the
 * next): the connection's close still ends the service, in the
 * subscription's words. The waiting thread hears nothing: before, the
 * service went on until disposed (an acceptance program, 6 of 6 runs). */
Test(nats_serve, a_full_blocking_service_hears_the_connection_close, .timeout = 120) {
    long live = sk_live_objects();
    nats_server server;
    nats_server_start(&server);
    natsConnection *service_connection = nats_connect(&server, 0);
    natsConnection *client = nats_connect(&server, 0);
    waiter calls;
    waiter_init(&calls);
    sk_signal *signal = NULL;
    cr_assert_eq(sk_nats_serve(&signal, service_connection, "svc.full", NULL, 1, 1, SK_OVERFLOW_BLOCK, stuck_handler,
                               NULL, &calls, NULL),
                 SK_OK);
    recorder r;
    recorder_init(&r);
    sk_observer observer = recorder_observer(&r);
    sk_disposable *d = NULL;
    cr_assert_eq(sk_signal_start(&d, signal, &observer), SK_OK);
    cr_assert_eq(natsConnection_Flush(service_connection), NATS_OK);
    for (int i = 0; i < 10; i++) {
        cr_assert_eq(natsConnection_PublishRequestString(client, "svc.full", "_INBOX.nobody", "stuck"), NATS_OK);
    }
    cr_assert_eq(natsConnection_Flush(client), NATS_OK);
    cr_assert(waiter_wait(&calls, 1), "the handler was never called");
    natsConnection_Close(service_connection);
    cr_assert(recorder_wait(&r, &r.errors, 1), "no error after the close");
    cr_assert_eq(waiter_get(&calls), 1, "a second handler ran: the service was not full");
    pthread_mutex_lock(&r.mutex);
    cr_assert_str_eq(r.error, "sk_nats_serve: the subscription to 'svc.full' was closed by the client (nats: "
                              "Connection Closed)");
    pthread_mutex_unlock(&r.mutex);
    sk_disposable_release(d);
    sk_signal_release(signal);
    cr_assert(recorder_wait(&r, &r.releases, 1));
    recorder_destroy(&r);
    if (nats_wait_live_objects(live) != live) {
        sk_live_objects_print(stderr);
    }
    cr_assert_eq(sk_live_objects(), live);
    waiter_destroy(&calls);
    natsConnection_Destroy(client);
    natsConnection_Destroy(service_connection);
    nats_server_stop(&server);
}

/* --- Refused arguments ------------------------------------------------------- */

Test(nats_serve, bad_arguments_are_refused_with_a_message, .timeout = 60) {
    natsConnection *connection = (natsConnection *)&connection; /* never used */
    sk_signal *signal = (sk_signal *)1;
    waiter released;
    waiter_init(&released);
    cr_assert_eq(sk_nats_serve(&signal, connection, "x", NULL, 1, 1, SK_OVERFLOW_BLOCK, NULL, NULL, &released,
                               count_release),
                 SK_ERR_NULL_ARGUMENT);
    cr_assert_null(signal);
    cr_assert_str_eq(sk_nats_last_error_message(), "sk_nats_serve: handler is NULL");
    cr_assert_eq(waiter_get(&released), 1, "the release ran once");
    cr_assert_eq(sk_nats_serve(&signal, connection, "x", NULL, 1, 0, SK_OVERFLOW_BLOCK, choosing_handler, NULL,
                               &released, count_release),
                 SK_ERR_INVALID_ARGUMENT);
    cr_assert_str_eq(sk_nats_last_error_message(),
                     "sk_nats_serve: capacity is 0 (a bounded buffer holds at least one value)");
    cr_assert_eq(waiter_get(&released), 2);
    cr_assert_eq(sk_nats_serve(&signal, connection, "x", NULL, 0, 4, SK_OVERFLOW_BLOCK, choosing_handler, NULL,
                               &released, count_release),
                 SK_ERR_INVALID_ARGUMENT);
    cr_assert_str_eq(sk_nats_last_error_message(), "sk_nats_serve: max_concurrent must be at least 1");
    cr_assert_eq(waiter_get(&released), 3);
    waiter_destroy(&released);
    cr_assert_eq(sk_live_objects(), 0);
}
