/* publish.c - sk_nats_publish(): each value of a signal published to a
 * subject, then a flush after its completion.
 *
 * Built from signalkit.h's operators: sk_signal_map() publishes each value
 * and passes it on (a refused publish fails the map through
 * sk_callback_fail(), which ends the stream and disposes the upstream, the
 * library's one failure rule), and sk_signal_then() starts, after the
 * completion, a signal whose start flushes the connection and completes or
 * fails. */
#include <limits.h>
#include <stdlib.h>

#include "internal.h"

typedef struct sk_nats__publisher {
    atomic_long references; /* the map's and the flush signal's */
    natsConnection *connection;
    char *subject;
    int64_t flush_milliseconds;
    double flush_timeout;
} sk_nats__publisher;

static void sk_nats__publisher_release(void *ctx) {
    sk_nats__publisher *p = ctx;
    if (atomic_fetch_sub(&p->references, 1) == 1) {
        free(p->subject);
        free(p);
    }
}

static void sk_nats__publish_value(void *ctx, const sk_value *value, sk_value *out) {
    sk_nats__publisher *p = ctx;
    char text[512];
    const void *data = NULL;
    const char *text_data = NULL;
    size_t length = 0;
    sk_kind kind = sk_value_kind(value);
    int status = kind == SK_KIND_STRING  ? sk_value_get_string(value, &text_data, &length)
                 : kind == SK_KIND_BYTES ? sk_value_get_bytes(value, &data, &length)
                                         : SK_ERR_WRONG_KIND;
    if (text_data != NULL) {
        data = text_data;
    }
    if (status != SK_OK) {
        snprintf(text, sizeof text,
                 "sk_nats_publish: cannot publish a value of kind %s to '%s': give a string or bytes (sk_signal_map() first)",
                 sk_nats__kind_name(kind), p->subject);
        sk_nats__fail_call("%s", text);
        return;
    }
    natsStatus published = length > INT_MAX ? NATS_MAX_PAYLOAD
                                            : natsConnection_Publish(p->connection, p->subject, data, (int)length);
    if (published != NATS_OK) {
        char words[256];
        sk_nats__words(words, sizeof words, published);
        snprintf(text, sizeof text, "sk_nats_publish: cannot publish %zu bytes to '%s' (%s)", length, p->subject, words);
        sk_nats__fail_call("%s", text);
        return;
    }
    (void)sk_value_copy(out, value);
}

static sk_disposable *sk_nats__flush_start(void *ctx, sk_subscriber *subscriber) {
    sk_nats__publisher *p = ctx;
    natsStatus status = natsConnection_FlushTimeout(p->connection, p->flush_milliseconds);
    if (status == NATS_OK) {
        (void)sk_subscriber_put_completion(subscriber);
    } else {
        char words[256];
        sk_nats__words(words, sizeof words, status);
        sk_nats__put_error(subscriber, "sk_nats_publish: flushing after the last value to '%s' failed within %g s (%s)",
                           p->subject, p->flush_timeout, words);
    }
    return NULL;
}

SK_NATS_EXPORT int sk_nats_publish(sk_signal **out, sk_signal *signal, natsConnection *connection, const char *subject,
                                   double flush_timeout) {
    static const char function[] = "sk_nats_publish";
    if (out != NULL) {
        *out = NULL;
    }
    const char *missing = out == NULL ? "out" : signal == NULL ? "signal" : connection == NULL ? "connection"
                                                                 : subject == NULL             ? "subject"
                                                                                               : NULL;
    if (missing != NULL) {
        return sk_nats__fail(SK_ERR_NULL_ARGUMENT, "%s: %s is NULL", function, missing);
    }
    int64_t milliseconds = sk_nats__milliseconds(flush_timeout);
    if (milliseconds < 0) {
        return sk_nats__fail(SK_ERR_INVALID_ARGUMENT, "%s: flush_timeout %g is not a duration > 0 s and <= 2^31 ms",
                             function, flush_timeout);
    }
    bool failed = false;
    sk_nats__publisher *p = calloc(1, sizeof *p);
    if (p != NULL) {
        p->subject = sk_nats__strdup(subject, &failed);
    }
    if (p == NULL || failed) {
        free(p);
        return sk_nats__fail(SK_ERR_NO_MEMORY, "%s: out of memory for a copy of the subject", function);
    }
    atomic_init(&p->references, 2);
    p->connection = connection;
    p->flush_milliseconds = milliseconds;
    p->flush_timeout = flush_timeout;
    sk_signal *published = NULL, *flush = NULL;
    int status = sk_signal_map(&published, signal, sk_nats__publish_value, p, sk_nats__publisher_release);
    if (status != SK_OK) {
        status = sk_nats__fail_core(status, function);
        sk_nats__publisher_release(p); /* the flush signal's, never made */
        return status;
    }
    status = sk_signal_create(&flush, sk_nats__flush_start, p, sk_nats__publisher_release);
    if (status == SK_OK) {
        status = sk_signal_then(out, published, flush);
    }
    if (status != SK_OK) {
        status = sk_nats__fail_core(status, function);
        if (flush == NULL) {
            sk_nats__publisher_release(p);
        }
    }
    sk_signal_release(flush);
    sk_signal_release(published);
    return status;
}
