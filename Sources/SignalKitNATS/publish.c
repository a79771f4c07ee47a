/* publish.c - sk_nats_publish() and sk_nats_publish_encoded(): each value
 * of a signal published to a subject (as it is, or as the user's encoder
 * makes it), then a flush after its completion.
 *
 * Built from signalkit.h's operators: sk_signal_map() publishes each value
 * and passes it on (a refused publish fails the map through
 * sk_callback_fail(), which ends the stream and disposes the upstream, the
 * library's one failure rule), and sk_signal_then() starts, after the
 * completion, a signal whose start flushes the connection and completes or
 * fails.
 *
 * With an encoder, one more sk_signal_map() before the publishing one
 * calls it and makes each value the pair [value, encoded]; the publishing
 * map publishes the encoded item and passes the value on. The encoder runs
 * in a map callback of its own so that its sk_callback_fail() fails that
 * call, whose pair the library then drops: a failing encoder's result is
 * never published, whatever it wrote. */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

typedef struct sk_nats__publisher {
    atomic_long references; /* each map's and the flush signal's */
    const char *function;   /* which names the errors: static */
    natsConnection *connection;
    char *subject;
    int64_t flush_milliseconds;
    double flush_timeout;
    /* sk_nats_publish_encoded(): the user's encoder (NULL: none), its ctx
     * and its release, run with the last reference. */
    sk_map_fn encode;
    void *ctx;
    sk_release_fn release;
} sk_nats__publisher;

static void sk_nats__publisher_release(void *ctx) {
    sk_nats__publisher *p = ctx;
    if (atomic_fetch_sub(&p->references, 1) == 1) {
        if (p->release != NULL) {
            p->release(p->ctx);
        }
        free(p->subject);
        free(p);
    }
}

/* The encoding map: `value` becomes [value, encode(value)]. */
static void sk_nats__encode_value(void *ctx, const sk_value *value, sk_value *out) {
    sk_nats__publisher *p = ctx;
    sk_value pair[2] = { { 0 }, { 0 } };
    p->encode(p->ctx, value, &pair[1]);
    pair[0] = *value; /* borrowed: the array retains it */
    if (sk_value_set_array(out, pair, 2) != SK_OK) {
        /* Ignored when the encoder failed the call first. */
        sk_nats__fail_call("%s: cannot pair a value with its encoding for '%s': %s", p->function, p->subject,
                           sk_last_error_message());
    }
    sk_value_release(&pair[1]);
}

/* The publishing map: publishes `value` (or, with an encoder, the encoded
 * item of the pair) and passes it (or the pair's value) on. */
static void sk_nats__publish_value(void *ctx, const sk_value *value, sk_value *out) {
    sk_nats__publisher *p = ctx;
    const sk_value *published = value, *passed = value;
    if (p->encode != NULL) {
        const sk_value *items = NULL;
        size_t count = 0;
        if (sk_value_get_array_items(value, &items, &count) != SK_OK || count != 2) {
            sk_nats__fail_call("%s: the encoding of a value for '%s' was lost", p->function, p->subject);
            return;
        }
        passed = &items[0];
        published = &items[1];
    }
    const void *data = NULL;
    const char *text_data = NULL;
    size_t length = 0;
    sk_kind kind = sk_value_kind(published);
    int status = kind == SK_KIND_STRING  ? sk_value_get_string(published, &text_data, &length)
                 : kind == SK_KIND_BYTES ? sk_value_get_bytes(published, &data, &length)
                                         : SK_ERR_WRONG_KIND;
    if (text_data != NULL) {
        data = text_data;
    }
    if (status != SK_OK && p->encode != NULL) {
        sk_nats__fail_call("%s: the encoder gave a value of kind %s for '%s': give a string or bytes", p->function,
                           sk_nats__kind_name(kind), p->subject);
        return;
    }
    if (status != SK_OK) {
        sk_nats__fail_call("%s: cannot publish a value of kind %s to '%s': give a string or bytes (sk_signal_map() "
                           "first)",
                           p->function, sk_nats__kind_name(kind), p->subject);
        return;
    }
    natsStatus sent = length > INT_MAX ? NATS_MAX_PAYLOAD
                                       : natsConnection_Publish(p->connection, p->subject, data, (int)length);
    if (sent != NATS_OK) {
        char words[256];
        sk_nats__words(words, sizeof words, sent);
        sk_nats__fail_call("%s: cannot publish %zu bytes to '%s' (%s)", p->function, length, p->subject, words);
        return;
    }
    (void)sk_value_copy(out, passed);
}

static sk_disposable *sk_nats__flush_start(void *ctx, sk_subscriber *subscriber) {
    sk_nats__publisher *p = ctx;
    natsStatus status = natsConnection_FlushTimeout(p->connection, p->flush_milliseconds);
    if (status == NATS_OK) {
        (void)sk_subscriber_put_completion(subscriber);
    } else {
        char words[256];
        sk_nats__words(words, sizeof words, status);
        sk_nats__put_error(subscriber, "%s: flushing after the last value to '%s' failed within %g s (%s)", p->function,
                           p->subject, p->flush_timeout, words);
    }
    return NULL;
}

/* `text` for a message, quoted: control characters escaped (\t, \n, \r,
 * \f, \xNN), cut at `size` with "..." when longer. */
static void sk_nats__quote(char *buffer, size_t size, const char *text) {
    size_t at = 0;
    for (const unsigned char *c = (const unsigned char *)text; *c != '\0'; c++) {
        char piece[5];
        switch (*c) {
        case '\t': snprintf(piece, sizeof piece, "\\t"); break;
        case '\n': snprintf(piece, sizeof piece, "\\n"); break;
        case '\r': snprintf(piece, sizeof piece, "\\r"); break;
        case '\f': snprintf(piece, sizeof piece, "\\f"); break;
        default:
            if (*c < 0x20 || *c == 0x7f) {
                snprintf(piece, sizeof piece, "\\x%02x", *c);
            } else {
                piece[0] = (char)*c;
                piece[1] = '\0';
            }
        }
        size_t length = strlen(piece);
        if (at + length + 4 > size) {
            snprintf(buffer + at, size - at, "...");
            return;
        }
        memcpy(buffer + at, piece, length);
        at += length;
    }
    buffer[at] = '\0';
}

int sk_nats__check_publish_subject(const char *function, const char *subject) {
    const char *problem = NULL;
    if (*subject == '\0') {
        problem = "the subject is empty";
    }
    for (const char *token = subject; problem == NULL;) {
        const char *end = strchr(token, '.');
        size_t length = end != NULL ? (size_t)(end - token) : strlen(token);
        if (length == 0) {
            problem = "a token between dots is empty (a subject neither begins nor ends with '.', nor has \"..\")";
            break;
        }
        if (length == 1 && (*token == '*' || *token == '>')) {
            problem = "a wildcard ('*', '>') matches subjects to subscribe to, a message is published to one subject";
            break;
        }
        for (size_t i = 0; i < length; i++) {
            unsigned char c = (unsigned char)token[i];
            if (c == ' ' || c < 0x20 || c == 0x7f) {
                problem = "a subject has no whitespace or control characters";
                break;
            }
        }
        if (end == NULL) {
            break;
        }
        token = end + 1;
    }
    if (problem == NULL) {
        return SK_OK;
    }
    char quoted[128];
    sk_nats__quote(quoted, sizeof quoted, subject);
    return sk_nats__fail(SK_ERR_INVALID_ARGUMENT, "%s: cannot publish to '%s': %s", function, quoted, problem);
}

/* sk_nats_publish() with an optional encoder (`encode` NULL: none). On
 * error `release` has run. */
static int sk_nats__publish_make(const char *function, sk_signal **out, sk_signal *signal, natsConnection *connection,
                                 const char *subject, double flush_timeout, sk_map_fn encode, void *ctx,
                                 sk_release_fn release, bool encoded) {
    if (out != NULL) {
        *out = NULL;
    }
    const char *missing = out == NULL          ? "out"
                          : signal == NULL     ? "signal"
                          : connection == NULL ? "connection"
                          : subject == NULL    ? "subject"
                          : encoded && encode == NULL ? "encode"
                                                      : NULL;
    int status = SK_OK;
    int64_t milliseconds = sk_nats__milliseconds(flush_timeout);
    bool failed = false;
    sk_nats__publisher *p = NULL;
    if (missing != NULL) {
        status = sk_nats__fail(SK_ERR_NULL_ARGUMENT, "%s: %s is NULL", function, missing);
    } else if (sk_nats__check_publish_subject(function, subject) != SK_OK) {
        status = SK_ERR_INVALID_ARGUMENT;
    } else if (milliseconds < 0) {
        status = sk_nats__fail(SK_ERR_INVALID_ARGUMENT, "%s: flush_timeout %g is not a duration > 0 s and <= 2^31 ms",
                               function, flush_timeout);
    } else {
        p = calloc(1, sizeof *p);
        if (p != NULL) {
            p->subject = sk_nats__strdup(subject, &failed);
        }
        if (p == NULL || failed) {
            free(p);
            p = NULL;
            status = sk_nats__fail(SK_ERR_NO_MEMORY, "%s: out of memory for a copy of the subject", function);
        }
    }
    if (p == NULL) {
        if (release != NULL) {
            release(ctx);
        }
        return status;
    }
    atomic_init(&p->references, encode != NULL ? 3 : 2);
    p->function = function;
    p->connection = connection;
    p->flush_milliseconds = milliseconds;
    p->flush_timeout = flush_timeout;
    p->encode = encode;
    p->ctx = ctx;
    p->release = release; /* from here, runs with the last reference */
    sk_signal *pairs = NULL, *published = NULL, *flush = NULL;
    /* Each call below takes one reference (an operator's release runs
     * also when it fails); the message is kept before any release runs
     * (the last one runs the user's `release`). */
    if (encode != NULL) {
        status = sk_signal_map(&pairs, signal, sk_nats__encode_value, p, sk_nats__publisher_release);
        status = status != SK_OK ? sk_nats__fail_core(status, function) : SK_OK;
    }
    bool mapped = status == SK_OK; /* the publishing map asked for: its release runs either way */
    if (mapped) {
        status = sk_signal_map(&published, pairs != NULL ? pairs : signal, sk_nats__publish_value, p,
                               sk_nats__publisher_release);
        status = status != SK_OK ? sk_nats__fail_core(status, function) : SK_OK;
    }
    if (status == SK_OK) {
        status = sk_signal_create(&flush, sk_nats__flush_start, p, sk_nats__publisher_release);
        status = status != SK_OK ? sk_nats__fail_core(status, function) : SK_OK;
    }
    if (status == SK_OK) {
        status = sk_signal_then(out, published, flush);
        status = status != SK_OK ? sk_nats__fail_core(status, function) : SK_OK;
    }
    if (!mapped) {
        sk_nats__publisher_release(p); /* the publishing map's, never asked for */
    }
    if (flush == NULL) {
        sk_nats__publisher_release(p); /* the flush signal's, never made */
    }
    sk_signal_release(flush);
    sk_signal_release(published);
    sk_signal_release(pairs);
    return status;
}

SK_NATS_EXPORT int sk_nats_publish(sk_signal **out, sk_signal *signal, natsConnection *connection, const char *subject,
                                   double flush_timeout) {
    return sk_nats__publish_make("sk_nats_publish", out, signal, connection, subject, flush_timeout, NULL, NULL, NULL,
                                 false);
}

SK_NATS_EXPORT int sk_nats_publish_encoded(sk_signal **out, sk_signal *signal, natsConnection *connection,
                                           const char *subject, double flush_timeout, sk_map_fn encode, void *ctx,
                                           sk_release_fn release) {
    return sk_nats__publish_make("sk_nats_publish_encoded", out, signal, connection, subject, flush_timeout, encode,
                                 ctx, release, true);
}
