/* errors.c - libsignalkit-nats's thread-local last error message, the
 * client's words for a status, and the error values that end a
 * subscription. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "internal.h"

static _Thread_local char sk_nats__last_error[512];

int sk_nats__fail(int status, const char *format, ...) {
    va_list args;
    va_start(args, format);
    vsnprintf(sk_nats__last_error, sizeof sk_nats__last_error, format, args);
    va_end(args);
    return status;
}

/* The core's message names the signalkit.h function that failed, which the
 * user did not call: the message is given as the user's call's, in the
 * shape signalkit.h gives its own ("sk_nats_subject_bounded: capacity is 0"). */
int sk_nats__fail_core(int status, const char *function) {
    const char *message = sk_last_error_message();
    const char *rest = message;
    if (strncmp(rest, "sk_", 3) == 0) {
        rest += 3;
        while ((*rest >= 'a' && *rest <= 'z') || (*rest >= '0' && *rest <= '9') || *rest == '_') {
            rest++;
        }
        message = strncmp(rest, ": ", 2) == 0 ? rest + 2 : message;
    }
    return sk_nats__fail(status, "%s: %s", function, message);
}

/* A handle the core's retain refused (sk_signal_retain(), sk_queue_retain():
 * another kind of handle, or with handle checking on a released one): its
 * status, with the core's words under the argument's name. */
static int sk_nats__refused_handle(const char *function, const char *name) {
    const char *message = sk_last_error_message();
    int status = strstr(message, "already released") != NULL ? SK_ERR_RELEASED : SK_ERR_WRONG_KIND;
    const char *rest = strstr(message, ": ");
    return sk_nats__fail(status, "%s: %s: %s", function, name, rest != NULL ? rest + 2 : message);
}

int sk_nats__check_signal(const char *function, const char *name, sk_signal *signal) {
    if (signal == NULL) {
        return SK_OK;
    }
    sk_signal *kept = sk_signal_retain(signal);
    if (kept == NULL) {
        return sk_nats__refused_handle(function, name);
    }
    sk_signal_release(kept);
    return SK_OK;
}

int sk_nats__check_queue(const char *function, const char *name, sk_queue *queue) {
    if (queue == NULL) {
        return SK_OK;
    }
    sk_queue *kept = sk_queue_retain(queue);
    if (kept == NULL) {
        return sk_nats__refused_handle(function, name);
    }
    sk_queue_release(kept);
    return SK_OK;
}

void sk_nats__words(char *buffer, size_t size, natsStatus status) {
    const char *text = natsStatus_GetText(status);
    natsStatus last = NATS_OK;
    const char *detail = nats_GetLastError(&last);
    /* libnats prefixes its detail with where it was set: "(conn.c:3028): ". */
    if (detail != NULL && detail[0] == '(') {
        const char *end = strstr(detail, "): ");
        detail = end != NULL ? end + 3 : detail;
    }
    if (last == status && detail != NULL && detail[0] != '\0' && strcasecmp(detail, text) != 0) {
        snprintf(buffer, size, "nats: %s: %s", text, detail);
    } else {
        snprintf(buffer, size, "nats: %s", text);
    }
}

/* An error value (a string) of `format` and `args`; "sk_nats: out of
 * memory" when even that cannot be made. */
__attribute__((format(printf, 1, 0))) static sk_value sk_nats__error_value(const char *format, va_list args) {
    char text[512];
    vsnprintf(text, sizeof text, format, args);
    sk_value error = { 0 };
    if (sk_value_set_string(&error, text) != SK_OK) {
        (void)sk_value_set_string(&error, "sk_nats: out of memory");
    }
    return error;
}

void sk_nats__put_error(sk_subscriber *subscriber, const char *format, ...) {
    va_list args;
    va_start(args, format);
    sk_value error = sk_nats__error_value(format, args);
    va_end(args);
    (void)sk_subscriber_put_error(subscriber, &error);
    sk_value_release(&error);
}

void sk_nats__fail_call(const char *format, ...) {
    va_list args;
    va_start(args, format);
    sk_value error = sk_nats__error_value(format, args);
    va_end(args);
    (void)sk_callback_fail(&error);
    sk_value_release(&error);
}

char *sk_nats__strdup(const char *text, bool *failed) {
    if (text == NULL) {
        return NULL;
    }
    size_t length = strlen(text) + 1;
    char *copy = malloc(length);
    if (copy == NULL) {
        *failed = true;
        return NULL;
    }
    memcpy(copy, text, length);
    return copy;
}

int64_t sk_nats__milliseconds(double seconds) {
    if (!(seconds > 0) || !isfinite(seconds) || seconds * 1000.0 > 2147483648.0) {
        return -1;
    }
    int64_t milliseconds = (int64_t)ceil(seconds * 1000.0);
    return milliseconds < 1 ? 1 : milliseconds;
}

void sk_nats__settle(natsConnection *connection) {
    (void)natsConnection_FlushTimeout(connection, SK_NATS__SETTLE_MS);
}

const char *sk_nats__kind_name(sk_kind kind) {
    static const char *const names[] = { "nil", "bool", "int64", "double", "string", "bytes", "array", "pointer", "signal" };
    return (unsigned)kind < sizeof names / sizeof names[0] ? names[kind] : "unknown";
}

SK_NATS_EXPORT const char *sk_nats_last_error_message(void) {
    return sk_nats__last_error;
}
