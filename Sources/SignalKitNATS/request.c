/* request.c - sk_nats_request(): a request as a signal of one reply.
 *
 * Each start subscribes to a new inbox with libnats's timeout (its handler
 * gets NULL when nothing came in time), then publishes the request with
 * that inbox as the reply subject. The first call of the handler ends the
 * subscription (reply and completion, or the error) and unsubscribes from
 * inside the handler, as libnats advises. Lifetimes as in subject.c: the
 * start's context has libnats's reference (dropped by the completion
 * callback) and the dispose action's. */
#include <stdlib.h>
#include <string.h>

#include "internal.h"

typedef struct sk_nats__requester {
    atomic_long references;
    natsConnection *connection;
    char *subject;
    void *payload;
    size_t length;
    int64_t milliseconds;
    double timeout;
    sk_nats_shape shape;
} sk_nats__requester;

typedef struct sk_nats__request {
    atomic_int references;
    sk_nats__requester *requester;
    sk_subscriber *subscriber;
    natsSubscription *sub;
    atomic_bool disposed;
    atomic_bool answered; /* the handler ran, or the start failed: nothing more to report */
} sk_nats__request;

static void sk_nats__requester_release(void *ctx) {
    sk_nats__requester *r = ctx;
    if (atomic_fetch_sub(&r->references, 1) == 1) {
        free(r->subject);
        free(r->payload);
        free(r);
    }
}

static void sk_nats__request_release(void *ctx) {
    sk_nats__request *q = ctx;
    if (atomic_fetch_sub(&q->references, 1) != 1) {
        return;
    }
    natsSubscription_Destroy(q->sub);
    sk_subscriber_release(q->subscriber);
    sk_nats__requester_release(q->requester);
    free(q);
}

static void sk_nats__on_reply(natsConnection *connection, natsSubscription *sub, natsMsg *msg, void *closure) {
    sk_nats__request *q = closure;
    sk_nats__requester *r = q->requester;
    (void)connection;
    if (atomic_exchange(&q->answered, true)) {
        natsMsg_Destroy(msg);
        return;
    }
    if (msg == NULL) {
        sk_nats__put_error(q->subscriber, "sk_nats_request: no reply from '%s' within %g s (nats: %s)", r->subject,
                           r->timeout, natsStatus_GetText(NATS_TIMEOUT));
    } else if (natsMsg_IsNoResponders(msg)) {
        sk_nats__put_error(q->subscriber, "sk_nats_request: no responders for '%s' (nats: %s)", r->subject,
                           natsStatus_GetText(NATS_NO_RESPONDERS));
    } else {
        sk_value value;
        int status = sk_nats__message_value(msg, r->shape, &value);
        if (status == SK_OK) {
            (void)sk_subscriber_put_next(q->subscriber, &value);
            sk_value_release(&value);
            (void)sk_subscriber_put_completion(q->subscriber);
        } else {
            sk_nats__put_error(q->subscriber, "sk_nats_request: the reply from '%s' could not become a value: %s",
                               r->subject, sk_last_error_message());
        }
    }
    natsMsg_Destroy(msg);
    sk_subscriber_release(q->subscriber); /* answered: nothing reads it any more */
    q->subscriber = NULL;
    (void)natsSubscription_Unsubscribe(sub);
}

static void sk_nats__on_request_complete(void *closure) {
    sk_nats__request *q = closure;
    if (!atomic_load(&q->disposed) && !atomic_exchange(&q->answered, true)) {
        natsConnection *connection = q->requester->connection;
        natsStatus why = natsConnection_IsClosed(connection)     ? NATS_CONNECTION_CLOSED
                         : natsConnection_IsDraining(connection) ? NATS_DRAINING
                                                                 : NATS_INVALID_SUBSCRIPTION;
        sk_nats__put_error(q->subscriber, "sk_nats_request: the wait for a reply from '%s' was closed by the client (nats: %s)",
                           q->requester->subject, natsStatus_GetText(why));
    }
    sk_nats__settle(q->requester->connection);
    sk_nats__request_release(q);
}

static void sk_nats__request_dispose(void *ctx) {
    sk_nats__request *q = ctx;
    atomic_store(&q->disposed, true);
    (void)natsSubscription_Unsubscribe(q->sub);
}

static sk_disposable *sk_nats__request_start(void *ctx, sk_subscriber *subscriber) {
    sk_nats__requester *r = ctx;
    char words[256];
    sk_nats__request *q = calloc(1, sizeof *q);
    natsInbox *inbox = NULL;
    natsStatus status = q == NULL ? NATS_NO_MEMORY : natsInbox_Create(&inbox);
    if (status != NATS_OK) {
        sk_nats__words(words, sizeof words, status);
        sk_nats__put_error(subscriber, "sk_nats_request: cannot make an inbox for a request to '%s' (%s)", r->subject, words);
        free(q);
        return NULL;
    }
    /* Everything the handler reads is set before the subscription exists. */
    atomic_init(&q->answered, false);
    atomic_init(&q->disposed, false);
    atomic_init(&q->references, 2);
    atomic_fetch_add(&r->references, 1); /* the start holds one too: never the last here */
    q->requester = r;
    q->subscriber = sk_subscriber_retain(subscriber);
    status = natsConnection_SubscribeTimeout(&q->sub, r->connection, inbox, r->milliseconds, sk_nats__on_reply, q);
    if (status != NATS_OK) {
        sk_nats__words(words, sizeof words, status);
        sk_nats__put_error(subscriber, "sk_nats_request: cannot subscribe to the reply inbox of '%s' (%s)", r->subject, words);
        natsInbox_Destroy(inbox);
        sk_subscriber_release(q->subscriber);
        atomic_fetch_sub(&r->references, 1);
        free(q); /* no subscription: the handler never ran */
        return NULL;
    }
    status = natsSubscription_SetOnCompleteCB(q->sub, sk_nats__on_request_complete, q);
    if (status != NATS_OK) {
        /* Closed between its creation and here: see subject.c, the same case. */
        sk_nats__words(words, sizeof words, status);
        atomic_store(&q->answered, true);
        sk_nats__put_error(subscriber, "sk_nats_request: the reply inbox of '%s' was closed as it was made (%s)",
                           r->subject, words);
        natsInbox_Destroy(inbox);
        return NULL;
    }
    status = natsConnection_PublishRequest(r->connection, r->subject, inbox, r->payload, (int)r->length);
    natsInbox_Destroy(inbox);
    if (status != NATS_OK) {
        sk_nats__words(words, sizeof words, status);
        if (!atomic_exchange(&q->answered, true)) {
            sk_nats__put_error(subscriber, "sk_nats_request: cannot publish the request to '%s' (%s)", r->subject, words);
            /* Answered: the handler will not read it. Let go now, on the
             * starting thread, rather than when libnats is done. */
            sk_subscriber_release(q->subscriber);
            q->subscriber = NULL;
        }
        (void)natsSubscription_Unsubscribe(q->sub);
        sk_nats__request_release(q); /* the dispose action's, never made */
        return NULL;
    }
    sk_disposable *disposable = NULL;
    (void)sk_disposable_action(&disposable, sk_nats__request_dispose, q, sk_nats__request_release);
    return disposable;
}

SK_NATS_EXPORT int sk_nats_request(sk_signal **out, natsConnection *connection, const char *subject,
                                   const sk_value *payload, double timeout, sk_nats_shape shape) {
    static const char function[] = "sk_nats_request";
    if (out != NULL) {
        *out = NULL;
    }
    const char *missing = out == NULL ? "out" : connection == NULL ? "connection" : subject == NULL ? "subject" : NULL;
    if (missing != NULL) {
        return sk_nats__fail(SK_ERR_NULL_ARGUMENT, "%s: %s is NULL", function, missing);
    }
    if (sk_nats__check_publish_subject(function, subject) != SK_OK) {
        return SK_ERR_INVALID_ARGUMENT;
    }
    int64_t milliseconds = sk_nats__milliseconds(timeout);
    if (milliseconds < 0) {
        return sk_nats__fail(SK_ERR_INVALID_ARGUMENT, "%s: timeout %g is not a duration > 0 s and <= 2^31 ms", function,
                             timeout);
    }
    if (shape != SK_NATS_MESSAGE && shape != SK_NATS_PAYLOAD) {
        return sk_nats__fail(SK_ERR_INVALID_ARGUMENT, "%s: shape %d is no sk_nats_shape", function, (int)shape);
    }
    const void *data = NULL;
    const char *text_data = NULL;
    size_t length = 0;
    if (payload != NULL) {
        sk_kind kind = sk_value_kind(payload);
        int status = kind == SK_KIND_STRING  ? sk_value_get_string(payload, &text_data, &length)
                     : kind == SK_KIND_BYTES ? sk_value_get_bytes(payload, &data, &length)
                                             : SK_ERR_WRONG_KIND;
        if (text_data != NULL) {
            data = text_data;
        }
        if (status == SK_ERR_WRONG_KIND) {
            return sk_nats__fail(status, "%s: payload is neither a string nor bytes", function);
        }
        if (status != SK_OK) {
            return sk_nats__fail_core(status, function);
        }
        if (length > INT32_MAX) {
            return sk_nats__fail(SK_ERR_INVALID_ARGUMENT, "%s: payload of %zu bytes is larger than the client takes",
                                 function, length);
        }
    }
    bool failed = false;
    sk_nats__requester *r = calloc(1, sizeof *r);
    if (r != NULL) {
        r->subject = sk_nats__strdup(subject, &failed);
        if (length > 0) {
            r->payload = malloc(length);
            failed = failed || r->payload == NULL;
        }
    }
    if (r == NULL || failed) {
        if (r != NULL) {
            free(r->subject);
            free(r->payload);
        }
        free(r);
        return sk_nats__fail(SK_ERR_NO_MEMORY, "%s: out of memory for a copy of the request", function);
    }
    if (length > 0) {
        memcpy(r->payload, data, length);
    }
    atomic_init(&r->references, 1);
    r->connection = connection;
    r->length = length;
    r->milliseconds = milliseconds;
    r->timeout = timeout;
    r->shape = shape;
    int status = sk_signal_create(out, sk_nats__request_start, r, sk_nats__requester_release);
    if (status != SK_OK) {
        status = sk_nats__fail_core(status, function);
        sk_nats__requester_release(r);
    }
    return status;
}
