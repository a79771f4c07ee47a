/* internal.h - what the files of libsignalkit-nats share (not installed).
 *
 * The bridge holds no reactive logic of its own: each file turns libnats
 * callbacks into puts into a subscriber of signalkit.h's public API, and
 * builds the rest (bounded places, publishing per value, the flush after
 * completion) from that API's operators. */
#ifndef SK_NATS_INTERNAL_H
#define SK_NATS_INTERNAL_H

#include <stdarg.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "signalkit_nats.h"

#define SK_NATS_EXPORT __attribute__((visibility("default")))

/* errors.c ---------------------------------------------------------------- */

/* Formats the calling thread's last error message (sk_nats_last_error_message())
 * and returns `status`. */
int sk_nats__fail(int status, const char *format, ...) __attribute__((format(printf, 2, 3)));
/* The same with the core's last message, after a failing signalkit.h call
 * made for `function` (the user's call), and returns `status`. */
int sk_nats__fail_core(int status, const char *function);
/* SK_OK when `signal` (`queue`), the argument `name` of `function`, is
 * NULL (the caller checks NULLs) or a live handle of its kind; otherwise
 * SK_ERR_WRONG_KIND (SK_ERR_RELEASED for a released handle, with handle
 * checking on) with the last error set. */
int sk_nats__check_signal(const char *function, const char *name, sk_signal *signal);
int sk_nats__check_queue(const char *function, const char *name, sk_queue *queue);
/* Writes the client's words for `status` into `buffer`: "nats: <text>",
 * or "nats: <text>: <detail>" when the calling thread's last libnats error
 * is that status and says more (nats_GetLastError()). */
void sk_nats__words(char *buffer, size_t size, natsStatus status);
/* Ends `subscriber` with an error value of kind SK_KIND_STRING formatted
 * from `format` (at most 511 bytes: cut there). When even that string
 * cannot be allocated, the error is the shorter "sk_nats: out of memory"
 * or, failing that, nil: the subscription ends in every case. */
void sk_nats__put_error(sk_subscriber *subscriber, const char *format, ...) __attribute__((format(printf, 2, 3)));
/* Fails the operator callback running on the calling thread
 * (sk_callback_fail()) with an error value of kind SK_KIND_STRING formatted
 * from `format` (at most 511 bytes), or "sk_nats: out of memory". */
void sk_nats__fail_call(const char *format, ...) __attribute__((format(printf, 1, 2)));
/* A duplicate of `text` (NULL gives NULL), or NULL with *failed set when
 * malloc refuses. */
char *sk_nats__strdup(const char *text, bool *failed);
/* Checks `subject` as one a message may be published to, by the server's
 * rules (libnats checks none of them at a publish: the server took "a b"
 * for the subject "a" with the reply "b", and closed a JetStream
 * publisher's connection over one): at least one token, tokens separated by
 * '.' and none empty, no whitespace or other control character, no token
 * that is a wildcard ('*' or '>'). Returns SK_OK, or fails the call with
 * SK_ERR_INVALID_ARGUMENT: "FUNCTION: cannot publish to 'a b': a subject
 * has no whitespace". */
int sk_nats__check_publish_subject(const char *function, const char *subject);
/* A timeout in seconds as libnats's milliseconds (at least 1), or -1 when
 * it is not > 0 and finite, or above 2^31 ms. */
int64_t sk_nats__milliseconds(double seconds);

/* Called by a subscription's completion callback before it lets its
 * natsSubscription go: a round trip on the connection (at most
 * SK_NATS__SETTLE_MS), after which the client's reader thread holds no
 * pointer to the subscription. libnats 3.4.1 (Debian 12) looks a
 * subscription up for an incoming message and locks it after letting go of
 * the lookup's lock, without a reference: a natsSubscription_Destroy() in
 * that window frees it under the reader (a crash found by test_dispose.c,
 * about 1 run in 3; later nats.c releases hold the lock). Messages the
 * server sent before the reply to the round trip's PING are read before
 * it, so once the flush has returned the reader is past them. On a closed
 * connection it returns at once (the reader is gone). */
#define SK_NATS__SETTLE_MS 10000
void sk_nats__settle(natsConnection *connection);

/* The name of a value kind, for messages ("int64"). */
const char *sk_nats__kind_name(sk_kind kind);

/* jetstream.c ------------------------------------------------------------- */

/* What the JetStream functions keep of the user's jsOptions: copies of
 * Prefix and Domain, and Wait. */
typedef struct sk_nats__js_options {
    char *prefix;
    char *domain;
    int64_t wait;
} sk_nats__js_options;

/* Copies `options` (NULL: nothing) into `*out`; false when malloc
 * refuses (then nothing is kept). */
bool sk_nats__js_options_copy(sk_nats__js_options *out, const jsOptions *options);
void sk_nats__js_options_free(sk_nats__js_options *options);
/* jsOptions_Init(`to`), then the kept fields. */
void sk_nats__js_options_apply(const sk_nats__js_options *options, jsOptions *to);

/* subject.c --------------------------------------------------------------- */

/* sk_nats_subject()'s signal, whose running errors are named after
 * `function` (static text), and whose context runs `release(ctx)` (may be
 * NULL) with its last reference: once the signal is released and every
 * libnats subscription it made is over. On error `release` has run and the
 * last error names `function`. */
int sk_nats__subject_signal(const char *function, sk_signal **out, natsConnection *connection, const char *subject,
                            const char *queue_group, sk_nats_shape shape, void *ctx, sk_release_fn release);

/* message.c --------------------------------------------------------------- */

/* Writes the value of `msg` in `shape` into `*out` (nil on error) and
 * returns SK_OK, or the failing sk_value_ call's status (the message is
 * then the core's). `msg` stays the caller's. */
int sk_nats__message_value(natsMsg *msg, sk_nats_shape shape, sk_value *out);
/* The same, the subject item a new reference to `*subject_cache` when that
 * holds the same text (else a new string, then kept there: nil at first,
 * released by the caller). One thread at a time per cache. */
int sk_nats__message_value_cached(natsMsg *msg, sk_nats_shape shape, sk_value *subject_cache, sk_value *out);

#endif /* SK_NATS_INTERNAL_H */
