/* serve.c - sk_nats_serve(): a service as a signal of the requests it
 * answered, each reply produced by the user's signal function.
 *
 * Built from signalkit.h's operators. The requests are the messages of an
 * sk_nats_subject() signal (SK_NATS_MESSAGE); sk_signal_merge_map_bounded()
 * calls the handler for each, runs at most `max_concurrent` of their
 * signals at once and keeps the requests beyond in its bounded place. Each
 * handler's signal becomes exactly one outcome, an array whose first item
 * is a tag: sk_signal_first() takes its first value, sk_signal_map() makes
 * it [SK_NATS__REPLY, value], sk_signal_catch() turns its error into
 * [SK_NATS__FAILED, error], and sk_signal_default_if_empty() gives
 * [SK_NATS__EMPTY] when it completed without a value. A last
 * sk_signal_map() publishes the reply (or the NATS service protocol's
 * error headers) to the request's reply subject and passes the request
 * on. So a handler's signal that fails is answered and the service goes
 * on, while a refused publish (that map's sk_callback_fail()) and a handler
 * that fails its own call (merge_map's signal function failing) end the
 * service through the library's failure rule.
 *
 * Lifetimes. The service's context is counted: merge_map's reference, the
 * subject signal's context's (dropped once the subject signal is released
 * and every libnats subscription it made is over), and one per request's
 * last map (dropped with that map). The user's `release` runs with the
 * last, so after everything that could call the handler or `on_drop`. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

/* The tags of an outcome (its item 0, an int64). */
enum { SK_NATS__REPLY = 0, SK_NATS__FAILED = 1, SK_NATS__EMPTY = 2 };

/* The NATS service protocol's error headers (its "micro" services). */
#define SK_NATS__SERVICE_ERROR "Nats-Service-Error"
#define SK_NATS__SERVICE_ERROR_CODE "Nats-Service-Error-Code"

typedef struct sk_nats__service {
    atomic_long references;
    natsConnection *connection;
    char *subject;
    sk_signal_fn handler;
    sk_drop_fn on_drop;
    void *ctx;
    sk_release_fn release;
    sk_value empty; /* [SK_NATS__EMPTY]: default_if_empty's value */
} sk_nats__service;

/* One request's last map: the request (a copy) and the service. */
typedef struct sk_nats__answer {
    sk_nats__service *service;
    sk_value request;
} sk_nats__answer;

static void sk_nats__service_release(void *ctx) {
    sk_nats__service *service = ctx;
    if (atomic_fetch_sub(&service->references, 1) != 1) {
        return;
    }
    if (service->release != NULL) {
        service->release(service->ctx);
    }
    sk_value_release(&service->empty);
    free(service->subject);
    free(service);
}

static void sk_nats__answer_release(void *ctx) {
    sk_nats__answer *answer = ctx;
    sk_value_release(&answer->request);
    sk_nats__service_release(answer->service);
    free(answer);
}

/* [tag] or [tag, item] into `*out` (nil on entry); the status. */
static int sk_nats__outcome(sk_value *out, int64_t tag, const sk_value *item) {
    sk_value items[2] = { { 0 }, { 0 } };
    sk_value_set_int64(&items[0], tag);
    if (item != NULL) {
        items[1] = *item; /* borrowed: the array retains it */
    }
    return sk_value_set_array(out, items, item != NULL ? 2 : 1);
}

/* sk_map_fn: the first value of a handler's signal, tagged. */
static void sk_nats__as_reply(void *ctx, const sk_value *value, sk_value *out) {
    (void)ctx;
    if (sk_nats__outcome(out, SK_NATS__REPLY, value) != SK_OK) {
        sk_nats__fail_call("sk_nats_serve: out of memory for a reply: %s", sk_last_error_message());
    }
}

/* sk_signal_fn of sk_signal_catch(): the error of a handler's signal as an
 * outcome, so that it is answered rather than ending the service. */
static sk_signal *sk_nats__as_failure(void *ctx, const sk_value *error) {
    (void)ctx;
    sk_value outcome = { 0 };
    sk_signal *single = NULL;
    int status = sk_nats__outcome(&outcome, SK_NATS__FAILED, error);
    if (status == SK_OK) {
        status = sk_signal_single(&single, &outcome);
    }
    sk_value_release(&outcome);
    if (status != SK_OK) {
        sk_nats__fail_call("sk_nats_serve: out of memory for an error reply: %s", sk_last_error_message());
    }
    return single;
}

/* Copies `text` into `buffer` as a header value: CR and LF (which would
 * end the header) become spaces; cut at `size - 1` bytes. */
static void sk_nats__header_text(char *buffer, size_t size, const char *text) {
    size_t i = 0;
    for (; text[i] != '\0' && i + 1 < size; i++) {
        buffer[i] = text[i] == '\r' || text[i] == '\n' ? ' ' : text[i];
    }
    buffer[i] = '\0';
}

/* Publishes an empty reply to `to` with the service error headers: `text`
 * and the code 500. */
static natsStatus sk_nats__publish_error(natsConnection *connection, const char *to, const char *text) {
    char value[512];
    sk_nats__header_text(value, sizeof value, text);
    natsMsg *msg = NULL;
    natsStatus status = natsMsg_Create(&msg, to, NULL, NULL, 0);
    if (status == NATS_OK) {
        status = natsMsgHeader_Set(msg, SK_NATS__SERVICE_ERROR, value);
    }
    if (status == NATS_OK) {
        status = natsMsgHeader_Set(msg, SK_NATS__SERVICE_ERROR_CODE, "500");
    }
    if (status == NATS_OK) {
        status = natsConnection_PublishMsg(connection, msg);
    }
    natsMsg_Destroy(msg);
    return status;
}

/* sk_map_fn of a request's last map: publishes the reply that `outcome`
 * says (nothing for a request without a reply subject) and passes the
 * request on. A refused publish fails the call: the service ends. */
static void sk_nats__reply(void *ctx, const sk_value *outcome, sk_value *out) {
    sk_nats__answer *answer = ctx;
    sk_nats__service *service = answer->service;
    const sk_value *reply_item = NULL, *tag_item = NULL, *item = NULL;
    const char *to = NULL;
    if (sk_value_get_array_item(&answer->request, SK_NATS_ITEM_REPLY, &reply_item) == SK_OK &&
        sk_value_kind(reply_item) == SK_KIND_STRING) {
        (void)sk_value_get_string(reply_item, &to, NULL);
    }
    if (to != NULL) {
        int64_t tag = SK_NATS__EMPTY;
        if (sk_value_get_array_item(outcome, 0, &tag_item) == SK_OK) {
            (void)sk_value_get_int64(tag_item, &tag);
        }
        if (tag != SK_NATS__EMPTY) {
            (void)sk_value_get_array_item(outcome, 1, &item);
        }
        char text[512];
        const char *error_text = NULL, *data = NULL;
        const void *bytes = NULL;
        size_t length = 0;
        sk_kind kind = sk_value_kind(item);
        if (tag == SK_NATS__REPLY && kind == SK_KIND_STRING) {
            (void)sk_value_get_string(item, &data, &length);
            bytes = data;
        } else if (tag == SK_NATS__REPLY && kind == SK_KIND_BYTES) {
            (void)sk_value_get_bytes(item, &bytes, &length);
        } else if (tag == SK_NATS__REPLY) {
            snprintf(text, sizeof text,
                     "sk_nats_serve: the handler's signal gave a value of kind %s: give a string or bytes",
                     sk_nats__kind_name(kind));
            error_text = text;
        } else if (tag == SK_NATS__FAILED && kind == SK_KIND_STRING) {
            (void)sk_value_get_string(item, &error_text, NULL);
        } else if (tag == SK_NATS__FAILED) {
            snprintf(text, sizeof text, "sk_nats_serve: the handler's signal failed with an error value of kind %s",
                     sk_nats__kind_name(kind));
            error_text = text;
        } else {
            error_text = "sk_nats_serve: the handler's signal completed without a value";
        }
        natsStatus status = error_text != NULL ? sk_nats__publish_error(service->connection, to, error_text)
                            : length > INT32_MAX
                                ? NATS_MAX_PAYLOAD
                                : natsConnection_Publish(service->connection, to, bytes, (int)length);
        if (status != NATS_OK) {
            char words[256];
            sk_nats__words(words, sizeof words, status);
            sk_nats__fail_call("sk_nats_serve: cannot publish the %sreply to a request on '%s' (%s)",
                               error_text != NULL ? "error " : "", service->subject, words);
            return;
        }
    }
    if (sk_value_copy(out, &answer->request) != SK_OK) {
        sk_nats__fail_call("sk_nats_serve: cannot pass on a request on '%s': %s", service->subject,
                           sk_last_error_message());
    }
}

/* merge_map's signal function: the handler's signal for `request`, made
 * into the signal that answers it. */
static sk_signal *sk_nats__serve_request(void *ctx, const sk_value *request) {
    sk_nats__service *service = ctx;
    sk_signal *handled = service->handler(service->ctx, request);
    /* A handler that failed its call (sk_callback_fail()) failed this
     * call: whatever is returned stands for a signal failing with its
     * error, and the service ends. */
    int status = handled == NULL ? sk_signal_complete(&handled) : SK_OK;
    sk_signal *first = NULL, *outcome = NULL, *caught = NULL, *settled = NULL, *replied = NULL;
    sk_nats__answer *answer = NULL;
    if (status == SK_OK) {
        status = sk_signal_first(&first, handled);
    }
    if (status == SK_OK) {
        status = sk_signal_map(&outcome, first, sk_nats__as_reply, NULL, NULL);
    }
    if (status == SK_OK) {
        status = sk_signal_catch(&caught, outcome, sk_nats__as_failure, NULL, NULL);
    }
    if (status == SK_OK) {
        status = sk_signal_default_if_empty(&settled, caught, &service->empty);
    }
    if (status == SK_OK) {
        answer = calloc(1, sizeof *answer);
        status = answer == NULL ? SK_ERR_NO_MEMORY : sk_value_copy(&answer->request, request);
        if (status != SK_OK) {
            free(answer);
        }
    }
    if (status == SK_OK) {
        atomic_fetch_add(&service->references, 1);
        answer->service = service;
        /* On error the map's release has run: `answer` is gone. */
        status = sk_signal_map(&replied, settled, sk_nats__reply, answer, sk_nats__answer_release);
    }
    if (status != SK_OK) {
        sk_nats__fail_call("sk_nats_serve: cannot make the answer to a request on '%s': %s", service->subject,
                           status == SK_ERR_NO_MEMORY ? "out of memory" : sk_last_error_message());
    }
    sk_signal_release(settled);
    sk_signal_release(caught);
    sk_signal_release(outcome);
    sk_signal_release(first);
    if (status != SK_OK) {
        return handled; /* taken by the library, which fails with the error above */
    }
    sk_signal_release(handled);
    return replied;
}

static void sk_nats__serve_drop(void *ctx, const sk_value *request, uint64_t dropped) {
    sk_nats__service *service = ctx;
    service->on_drop(service->ctx, request, dropped);
}

/* The close watch of a service whose overflow is SK_OVERFLOW_BLOCK: the
 * client's delivery thread waits in merge_map's put for room, and hears
 * nothing else meanwhile, the connection's close included. A signal that
 * never emits looks at the connection every SK_NATS__SERVE_WATCH seconds
 * and fails with the subscription's closing error once it is closed;
 * sk_signal_take_until_signal() passes that error on and disposes
 * merge_map's subscription, which ends the wait. */
#define SK_NATS__SERVE_WATCH 0.25

typedef struct sk_nats__serve_watch {
    atomic_long references; /* the watch signal's, and each running look's */
    natsConnection *connection;
    char *subject;
    sk_queue *queue; /* where the timers run */
} sk_nats__serve_watch;

typedef struct sk_nats__serve_look {
    sk_nats__serve_watch *watch;
    sk_subscriber *subscriber;
    bool said; /* the error was put: on the timer's queue only */
} sk_nats__serve_look;

static void sk_nats__serve_watch_release(void *ctx) {
    sk_nats__serve_watch *watch = ctx;
    if (atomic_fetch_sub(&watch->references, 1) != 1) {
        return;
    }
    sk_queue_release(watch->queue);
    free(watch->subject);
    free(watch);
}

static void sk_nats__serve_look_release(void *ctx) {
    sk_nats__serve_look *look = ctx;
    sk_subscriber_release(look->subscriber);
    sk_nats__serve_watch_release(look->watch);
    free(look);
}

static void sk_nats__serve_look_at(void *ctx) {
    sk_nats__serve_look *look = ctx;
    if (look->said || natsConnection_Status(look->watch->connection) != NATS_CONN_STATUS_CLOSED) {
        return;
    }
    look->said = true;
    sk_nats__put_error(look->subscriber, "sk_nats_serve: the subscription to '%s' was closed by the client (nats: %s)",
                       look->watch->subject, natsStatus_GetText(NATS_CONNECTION_CLOSED));
}

static sk_disposable *sk_nats__serve_watch_start(void *ctx, sk_subscriber *subscriber) {
    sk_nats__serve_watch *watch = ctx;
    sk_nats__serve_look *look = calloc(1, sizeof *look);
    if (look == NULL) {
        sk_nats__put_error(subscriber, "sk_nats_serve: out of memory for the watch of '%s'", watch->subject);
        return NULL;
    }
    atomic_fetch_add(&watch->references, 1);
    look->watch = watch;
    look->subscriber = sk_subscriber_retain(subscriber);
    sk_disposable *timer = NULL;
    if (sk_timer_start(&timer, watch->queue, SK_NATS__SERVE_WATCH, true, sk_nats__serve_look_at, look,
                       sk_nats__serve_look_release) != SK_OK) {
        /* Its release ran (`subscriber` stays borrowed for this call): the
         * service ends, in the timer's words. */
        sk_nats__put_error(subscriber, "sk_nats_serve: cannot watch the connection of '%s': %s", watch->subject,
                           sk_last_error_message());
    }
    return timer;
}

/* `served` watched as above, in `*out` (+1): SK_OK, or the status with the
 * last error set in `function`'s name (nothing in `*out`). */
static int sk_nats__serve_watched(const char *function, sk_signal **out, sk_signal *served,
                                  natsConnection *connection, const char *subject) {
    *out = NULL;
    sk_nats__serve_watch *watch = calloc(1, sizeof *watch);
    bool failed = watch == NULL;
    if (!failed) {
        atomic_init(&watch->references, 1);
        watch->connection = connection;
        watch->subject = sk_nats__strdup(subject, &failed);
    }
    if (failed) {
        if (watch != NULL) {
            sk_nats__serve_watch_release(watch);
        }
        return sk_nats__fail(SK_ERR_NO_MEMORY, "%s: out of memory for the watch of the connection", function);
    }
    int status = sk_queue_create(&watch->queue, "sk_nats_serve");
    if (status != SK_OK) {
        status = sk_nats__fail_core(status, function);
        sk_nats__serve_watch_release(watch);
        return status;
    }
    sk_signal *watcher = NULL;
    status = sk_signal_create(&watcher, sk_nats__serve_watch_start, watch, sk_nats__serve_watch_release);
    if (status == SK_OK) {
        status = sk_signal_take_until_signal(out, served, watcher);
    }
    if (status != SK_OK) {
        status = sk_nats__fail_core(status, function);
    }
    sk_signal_release(watcher);
    return status;
}

SK_NATS_EXPORT int sk_nats_serve(sk_signal **out, natsConnection *connection, const char *subject,
                                 const char *queue_group, size_t max_concurrent, size_t capacity, sk_overflow overflow,
                                 sk_signal_fn handler, sk_drop_fn on_drop, void *ctx, sk_release_fn release) {
    static const char function[] = "sk_nats_serve";
    if (out != NULL) {
        *out = NULL;
    }
    const char *missing = out == NULL          ? "out"
                          : connection == NULL ? "connection"
                          : subject == NULL    ? "subject"
                          : handler == NULL    ? "handler"
                                               : NULL;
    int status = SK_OK;
    sk_nats__service *service = NULL;
    if (missing != NULL) {
        status = sk_nats__fail(SK_ERR_NULL_ARGUMENT, "%s: %s is NULL", function, missing);
    } else {
        bool failed = false;
        service = calloc(1, sizeof *service);
        if (service != NULL) {
            service->subject = sk_nats__strdup(subject, &failed);
            failed = failed || sk_nats__outcome(&service->empty, SK_NATS__EMPTY, NULL) != SK_OK;
        }
        if (service == NULL || failed) {
            if (service != NULL) {
                sk_value_release(&service->empty);
                free(service->subject);
                free(service);
            }
            service = NULL;
            status = sk_nats__fail(SK_ERR_NO_MEMORY, "%s: out of memory for a copy of the subject", function);
        }
    }
    if (service == NULL) {
        if (release != NULL) {
            release(ctx);
        }
        return status;
    }
    atomic_init(&service->references, 2); /* merge_map's and the subject signal's context's */
    service->connection = connection;
    service->handler = handler;
    service->on_drop = on_drop;
    service->ctx = ctx;
    service->release = release; /* from here, runs with the last reference */
    sk_signal *requests = NULL;
    status = sk_nats__subject_signal(function, &requests, connection, subject, queue_group, SK_NATS_MESSAGE, service,
                                     sk_nats__service_release);
    if (status != SK_OK) {
        sk_nats__service_release(service); /* merge_map's, never made */
        return status;
    }
    status = sk_signal_merge_map_bounded(out, requests, max_concurrent, capacity, overflow, sk_nats__serve_request,
                                         on_drop != NULL ? sk_nats__serve_drop : NULL, service,
                                         sk_nats__service_release);
    if (status != SK_OK) {
        status = sk_nats__fail_core(status, function);
    } else if (overflow == SK_OVERFLOW_BLOCK) {
        sk_signal *served = *out;
        status = sk_nats__serve_watched(function, out, served, connection, subject);
        sk_signal_release(served);
    }
    sk_signal_release(requests);
    return status;
}
