/* subject.c - a subject as a signal: sk_nats_subject() and
 * sk_nats_subject_bounded().
 *
 * Lifetimes. A signal's context (sk_nats__subject) is counted: the signal
 * holds one reference, every subscription one, the bounded variant's drop
 * context one; the user's `release` (bounded variant) runs when the last
 * goes, so after every libnats subscription is over. A subscription's
 * context (sk_nats__subscription) has two references: libnats's, dropped
 * by the subscription's completion callback (natsSubscription_SetOnCompleteCB:
 * it runs once the client has closed the subscription and its message
 * handler has returned for the last time), and the dispose action's,
 * dropped with the action. The last one destroys the natsSubscription and
 * lets the subscriber go. So the message handler never sees freed memory,
 * whichever of a dispose, the connection's close or a slow-consumer error
 * comes first. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

typedef struct sk_nats__subject {
    atomic_long references;
    const char *function; /* the user's function, which names the errors: static */
    natsConnection *connection;
    char *subject;
    char *queue_group;
    sk_nats_shape shape;
    /* sk_nats_subject_bounded(): the user's drop callback and release. */
    sk_drop_fn on_drop;
    void *ctx;
    sk_release_fn release;
} sk_nats__subject;

typedef struct sk_nats__subscription {
    atomic_int references;
    sk_nats__subject *signal;
    sk_subscriber *subscriber;
    natsSubscription *sub;
    atomic_bool disposed;
    /* Touched on the client's delivery thread only (the message handler and
     * the completion callback run there, one after another). */
    bool ended;
    sk_value subject_value; /* the last message's subject (message shape) */
} sk_nats__subscription;

static void sk_nats__subject_release(void *ctx) {
    sk_nats__subject *signal = ctx;
    if (atomic_fetch_sub(&signal->references, 1) != 1) {
        return;
    }
    if (signal->release != NULL) {
        signal->release(signal->ctx);
    }
    free(signal->subject);
    free(signal->queue_group);
    free(signal);
}

static void sk_nats__subscription_release(void *ctx) {
    sk_nats__subscription *s = ctx;
    if (atomic_fetch_sub(&s->references, 1) != 1) {
        return;
    }
    natsSubscription_Destroy(s->sub);
    sk_value_release(&s->subject_value);
    sk_subscriber_release(s->subscriber);
    sk_nats__subject_release(s->signal);
    free(s);
}

/* Reports the client's drops, if any, as the subscription's error; true
 * when it did. The messages the client still holds (and the one in hand,
 * `in_hand`: the message whose delivery found the drops) go with the
 * stream's end, and the error counts them too: every message is delivered
 * or counted. On the delivery thread. */
static bool sk_nats__report_drops(sk_nats__subscription *s, natsSubscription *sub, int in_hand) {
    int64_t dropped = 0;
    if (natsSubscription_GetDropped(sub, &dropped) != NATS_OK || dropped <= 0) {
        return false;
    }
    int limit = 0, held = 0;
    (void)natsSubscription_GetPendingLimits(sub, &limit, NULL);
    (void)natsSubscription_GetPending(sub, &held, NULL);
    held += in_hand;
    s->ended = true;
    /* Unsubscribed before the error is delivered: on the server, the
     * interest is gone once the connection has sent it. */
    (void)natsSubscription_Unsubscribe(sub);
    char also[96] = "";
    if (held > 0) {
        snprintf(also, sizeof also, ", and the stream's end lets go of the %d it still held", held);
    }
    sk_nats__put_error(s->subscriber,
                       "%s: slow consumer on '%s': the client dropped %lld messages "
                       "beyond its pending limit of %d%s (nats: %s)",
                       s->signal->function, s->signal->subject, (long long)dropped, limit, also,
                       natsStatus_GetText(NATS_SLOW_CONSUMER));
    return true;
}

static void sk_nats__on_message(natsConnection *connection, natsSubscription *sub, natsMsg *msg, void *closure) {
    sk_nats__subscription *s = closure;
    (void)connection;
    if (s->ended || sk_nats__report_drops(s, sub, 1)) {
        natsMsg_Destroy(msg);
        return;
    }
    sk_value value;
    int status = sk_nats__message_value_cached(msg, s->signal->shape, &s->subject_value, &value);
    natsMsg_Destroy(msg);
    if (status != SK_OK) {
        s->ended = true;
        sk_nats__put_error(s->subscriber, "%s: a message of '%s' could not become a value: %s",
                           s->signal->function, s->signal->subject, sk_last_error_message());
        return;
    }
    (void)sk_subscriber_put_next(s->subscriber, &value);
    sk_value_release(&value);
}

static void sk_nats__on_complete(void *closure) {
    sk_nats__subscription *s = closure;
    if (!s->ended && !atomic_load(&s->disposed) && !sk_nats__report_drops(s, s->sub, 0)) {
        natsConnection *connection = s->signal->connection;
        natsStatus why = natsConnection_IsClosed(connection)     ? NATS_CONNECTION_CLOSED
                         : natsConnection_IsDraining(connection) ? NATS_DRAINING
                                                                 : NATS_INVALID_SUBSCRIPTION;
        sk_nats__put_error(s->subscriber, "%s: the subscription to '%s' was closed by the client (nats: %s)",
                           s->signal->function, s->signal->subject, natsStatus_GetText(why));
    }
    sk_nats__settle(s->signal->connection);
    sk_nats__subscription_release(s);
}

static void sk_nats__dispose(void *ctx) {
    sk_nats__subscription *s = ctx;
    atomic_store(&s->disposed, true);
    (void)natsSubscription_Unsubscribe(s->sub); /* fails harmlessly once closed */
}

static sk_disposable *sk_nats__subject_start(void *ctx, sk_subscriber *subscriber) {
    sk_nats__subject *signal = ctx;
    sk_nats__subscription *s = calloc(1, sizeof *s);
    if (s == NULL) {
        sk_nats__put_error(subscriber, "%s: out of memory for a subscription to '%s'", signal->function,
                           signal->subject);
        return NULL;
    }
    /* Everything the handler reads is set before the subscription exists:
     * a message may reach it before natsConnection_Subscribe() returns. */
    atomic_fetch_add(&signal->references, 1); /* the start holds one too: never the last here */
    s->signal = signal;
    s->subscriber = sk_subscriber_retain(subscriber);
    atomic_init(&s->references, 2);
    atomic_init(&s->disposed, false);
    natsStatus status = signal->queue_group != NULL
                            ? natsConnection_QueueSubscribe(&s->sub, signal->connection, signal->subject,
                                                            signal->queue_group, sk_nats__on_message, s)
                            : natsConnection_Subscribe(&s->sub, signal->connection, signal->subject,
                                                       sk_nats__on_message, s);
    if (status != NATS_OK) {
        char words[256];
        sk_nats__words(words, sizeof words, status);
        sk_subscriber_release(s->subscriber);
        atomic_fetch_sub(&signal->references, 1);
        free(s); /* no subscription: the handler never ran */
        if (signal->queue_group != NULL) {
            sk_nats__put_error(subscriber, "%s: cannot subscribe to '%s' in the queue group '%s' (%s)",
                               signal->function, signal->subject, signal->queue_group, words);
        } else {
            sk_nats__put_error(subscriber, "%s: cannot subscribe to '%s' (%s)", signal->function, signal->subject,
                               words);
        }
        return NULL;
    }
    status = natsSubscription_SetOnCompleteCB(s->sub, sk_nats__on_complete, s);
    if (status != NATS_OK) {
        /* The client closed the subscription between its creation and here
         * (the connection closed meanwhile): its message handler may still
         * be running with `s`, and libnats will not say when it is done, so
         * `s` is never freed (a few dozen bytes and the subscriber's
         * reference) rather than freed under it. */
        char words[256];
        sk_nats__words(words, sizeof words, status);
        sk_nats__put_error(subscriber, "%s: the subscription to '%s' was closed as it was made (%s)",
                           signal->function, signal->subject, words);
        return NULL;
    }
    sk_disposable *disposable = NULL;
    (void)sk_disposable_action(&disposable, sk_nats__dispose, s, sk_nats__subscription_release);
    return disposable;
}

/* Validates and makes a signal's context with one reference; on error runs
 * `release` and returns NULL with the last error set. */
static sk_nats__subject *sk_nats__subject_make(const char *function, sk_signal **out, natsConnection *connection,
                                               const char *subject, const char *queue_group, sk_nats_shape shape,
                                               sk_release_fn release, void *ctx, int *status) {
    if (out != NULL) {
        *out = NULL;
    }
    const char *missing = out == NULL ? "out" : connection == NULL ? "connection" : subject == NULL ? "subject" : NULL;
    if (missing != NULL) {
        *status = sk_nats__fail(SK_ERR_NULL_ARGUMENT, "%s: %s is NULL", function, missing);
    } else if (shape != SK_NATS_MESSAGE && shape != SK_NATS_PAYLOAD) {
        *status = sk_nats__fail(SK_ERR_INVALID_ARGUMENT, "%s: shape %d is no sk_nats_shape", function, (int)shape);
    } else {
        sk_nats__subject *signal = calloc(1, sizeof *signal);
        bool failed = signal == NULL;
        if (!failed) {
            signal->subject = sk_nats__strdup(subject, &failed);
            signal->queue_group = sk_nats__strdup(queue_group, &failed);
        }
        if (!failed) {
            atomic_init(&signal->references, 1);
            signal->function = "sk_nats_subject";
            signal->connection = connection;
            signal->shape = shape;
            return signal;
        }
        if (signal != NULL) {
            free(signal->subject);
            free(signal->queue_group);
            free(signal);
        }
        *status = sk_nats__fail(SK_ERR_NO_MEMORY, "%s: out of memory for a copy of the subject", function);
    }
    if (release != NULL) {
        release(ctx);
    }
    return NULL;
}

SK_NATS_EXPORT int sk_nats_subject(sk_signal **out, natsConnection *connection, const char *subject,
                                   const char *queue_group, sk_nats_shape shape) {
    int status = SK_OK;
    sk_nats__subject *signal =
        sk_nats__subject_make("sk_nats_subject", out, connection, subject, queue_group, shape, NULL, NULL, &status);
    if (signal == NULL) {
        return status;
    }
    status = sk_signal_create(out, sk_nats__subject_start, signal, sk_nats__subject_release);
    if (status != SK_OK) {
        sk_nats__subject_release(signal);
        return sk_nats__fail_core(status, "sk_nats_subject");
    }
    return SK_OK;
}

int sk_nats__subject_signal(const char *function, sk_signal **out, natsConnection *connection, const char *subject,
                            const char *queue_group, sk_nats_shape shape, void *ctx, sk_release_fn release) {
    int status = SK_OK;
    sk_nats__subject *signal =
        sk_nats__subject_make(function, out, connection, subject, queue_group, shape, release, ctx, &status);
    if (signal == NULL) {
        return status;
    }
    signal->function = function;
    signal->ctx = ctx;
    signal->release = release; /* from here, runs with the last reference */
    status = sk_signal_create(out, sk_nats__subject_start, signal, sk_nats__subject_release);
    if (status != SK_OK) {
        sk_nats__subject_release(signal);
        return sk_nats__fail_core(status, function);
    }
    return SK_OK;
}

/* The bounded place's callbacks: the user's on_drop, and a reference to
 * the signal's context, whose last release runs the user's release. */
static void sk_nats__on_drop(void *ctx, const sk_value *value, uint64_t dropped) {
    sk_nats__subject *signal = ctx;
    signal->on_drop(signal->ctx, value, dropped);
}

SK_NATS_EXPORT int sk_nats_subject_bounded(sk_signal **out, natsConnection *connection, const char *subject,
                                           const char *queue_group, sk_nats_shape shape, sk_queue *queue,
                                           size_t capacity, sk_overflow overflow, sk_drop_fn on_drop, void *ctx,
                                           sk_release_fn release) {
    static const char function[] = "sk_nats_subject_bounded";
    int status = SK_OK;
    sk_nats__subject *signal =
        sk_nats__subject_make(function, out, connection, subject, queue_group, shape, release, ctx, &status);
    if (signal == NULL) {
        return status;
    }
    signal->on_drop = on_drop;
    signal->ctx = ctx;
    signal->release = release; /* from here, runs with the last reference */
    sk_signal *raw = NULL;
    status = sk_signal_create(&raw, sk_nats__subject_start, signal, sk_nats__subject_release);
    if (status != SK_OK) {
        sk_nats__subject_release(signal);
        return sk_nats__fail_core(status, function);
    }
    sk_queue *own = NULL;
    if (queue == NULL) {
        status = sk_queue_create(&own, "sk_nats_subject_bounded");
        if (status != SK_OK) {
            status = sk_nats__fail_core(status, function);
            sk_signal_release(raw);
            return status;
        }
        queue = own;
    }
    atomic_fetch_add(&signal->references, 1); /* the bounded place's */
    status = sk_signal_deliver_on_bounded(out, raw, queue, capacity, overflow, on_drop != NULL ? sk_nats__on_drop : NULL,
                                          signal, sk_nats__subject_release);
    if (status != SK_OK) {
        status = sk_nats__fail_core(status, function);
    }
    sk_queue_release(own);
    sk_signal_release(raw);
    return status;
}
