/* js_tally.h - what the JetStream tests count of a consumer's values: each
 * index seen (a bitmap), duplicates, values out of order, the largest
 * number of messages the server had awaiting acknowledgement when sampled;
 * and the values kept for explicit acknowledgements. Tests wait on it with
 * a deadline. */
#ifndef SK_NATS_JS_TALLY_H
#define SK_NATS_JS_TALLY_H

#include "nats_support.h"

typedef struct tally {
    pthread_mutex_t mutex;
    pthread_cond_t changed;
    long count;           /* indexes expected: 0 .. count-1 */
    unsigned char *seen;  /* one byte per index */
    long unique;          /* indexes seen at least once */
    long values;          /* values delivered */
    long duplicates;      /* values of an index seen before */
    long out_of_order;    /* first sightings below the largest index seen */
    long strange;         /* values that are no index in range */
    int64_t largest;
    long errors;
    long releases;
    char error[512];
    /* Sampling the server: every `sample_every` values (0: never), from
     * inside `next` of the value numbered v (from 1), how many deliveries
     * the consumer made beyond the v - 1 values before: at most the room,
     * when fetches ask for no more (the value in `next` is not yet done).
     * The largest seen. */
    jsCtx *js;
    const char *stream;
    const char *durable;
    long sample_every;
    int64_t most_ahead;
    /* Explicit acknowledgements: `keep` values are kept unacknowledged
     * (copies in `kept`); the others are acknowledged in `next` when
     * `ack_in_next` is set. */
    bool explicit_ack;
    bool ack_in_next;
    long keep;
    long kept_count;
    sk_value kept[64];
} tally;

void tally_init(tally *t, long count);
void tally_destroy(tally *t);
sk_observer tally_observer(tally *t);
/* Waits until `*field` reaches `count`, with the deadline. */
bool tally_wait(tally *t, const long *field, long count);
long tally_get(tally *t, const long *field);

#endif
