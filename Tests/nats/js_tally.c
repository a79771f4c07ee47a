/* js_tally.c - see js_tally.h. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "js_tally.h"

void tally_init(tally *t, long count) {
    memset(t, 0, sizeof *t);
    pthread_mutex_init(&t->mutex, NULL);
    pthread_cond_init(&t->changed, NULL);
    t->count = count;
    t->seen = calloc((size_t)count, 1);
    t->largest = -1;
    cr_assert_not_null(t->seen);
}

void tally_destroy(tally *t) {
    for (long i = 0; i < t->kept_count; i++) {
        sk_value_release(&t->kept[i]);
    }
    free(t->seen);
    pthread_mutex_destroy(&t->mutex);
    pthread_cond_destroy(&t->changed);
}

static void tally_next(void *ctx, const sk_value *value) {
    tally *t = ctx;
    int64_t index = payload_index(value);
    bool keep = false;
    pthread_mutex_lock(&t->mutex);
    t->values++;
    if (index < 0 || index >= t->count) {
        t->strange++;
    } else if (t->seen[index]) {
        t->duplicates++;
    } else {
        t->seen[index] = 1;
        t->unique++;
        if (index < t->largest) {
            t->out_of_order++;
        }
    }
    if (index > t->largest) {
        t->largest = index;
    }
    if (t->explicit_ack && t->kept_count < t->keep && t->kept_count < 64) {
        sk_value_copy(&t->kept[t->kept_count++], value);
        keep = true;
    }
    bool sample = t->sample_every > 0 && t->values % t->sample_every == 0;
    long number = t->values;
    bool ack = t->explicit_ack && !keep && t->ack_in_next;
    pthread_cond_broadcast(&t->changed);
    pthread_mutex_unlock(&t->mutex);
    if (ack) {
        cr_assert_eq(sk_nats_ack(value, SK_NATS_ACK), SK_OK, "%s", sk_nats_last_error_message());
    }
    if (sample) {
        int64_t ack_pending = 0;
        uint64_t pending = 0;
        uint64_t delivered = nats_consumer_counts(t->js, t->stream, t->durable, &ack_pending, &pending);
        int64_t ahead = (int64_t)delivered - (int64_t)(number - 1);
        pthread_mutex_lock(&t->mutex);
        if (ahead > t->most_ahead) {
            t->most_ahead = ahead;
        }
        pthread_mutex_unlock(&t->mutex);
    }
}

static void tally_error(void *ctx, const sk_value *error) {
    tally *t = ctx;
    pthread_mutex_lock(&t->mutex);
    if (t->errors++ == 0) {
        const char *text = NULL;
        size_t length = 0;
        if (sk_value_get_string(error, &text, &length) != SK_OK) {
            text = "(not a string)";
        }
        snprintf(t->error, sizeof t->error, "%s", text);
    }
    pthread_cond_broadcast(&t->changed);
    pthread_mutex_unlock(&t->mutex);
}

static void tally_release(void *ctx) {
    tally *t = ctx;
    pthread_mutex_lock(&t->mutex);
    t->releases++;
    pthread_cond_broadcast(&t->changed);
    pthread_mutex_unlock(&t->mutex);
}

sk_observer tally_observer(tally *t) {
    sk_observer observer = { tally_next, tally_error, NULL, t, tally_release };
    return observer;
}

bool tally_wait(tally *t, const long *field, long count) {
    struct timespec deadline;
    clock_gettime(CLOCK_REALTIME, &deadline);
    deadline.tv_sec += (time_t)NATS_WAIT_SECONDS;
    pthread_mutex_lock(&t->mutex);
    int status = 0;
    while (*field < count && t->errors == 0 && status == 0) {
        status = pthread_cond_timedwait(&t->changed, &t->mutex, &deadline);
    }
    bool reached = *field >= count;
    pthread_mutex_unlock(&t->mutex);
    return reached;
}

long tally_get(tally *t, const long *field) {
    pthread_mutex_lock(&t->mutex);
    long value = *field;
    pthread_mutex_unlock(&t->mutex);
    return value;
}
