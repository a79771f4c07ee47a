/* message.c - a NATS message as a value: its payload alone
 * (SK_NATS_PAYLOAD), or [payload, subject, reply or nil, headers or nil]
 * (SK_NATS_MESSAGE), the headers as [key, value] pairs of strings. */
#include <stdlib.h>
#include <string.h>

#include "internal.h"

/* The headers of `msg` as an array of [key, value] pairs, one per value;
 * nil when it has none. */
static int sk_nats__headers_value(natsMsg *msg, sk_value *out) {
    const char **keys = NULL;
    int key_count = 0;
    sk_value_set_nil(out);
    if (natsMsgHeader_Keys(msg, &keys, &key_count) != NATS_OK || key_count <= 0) {
        free((void *)keys);
        return SK_OK;
    }
    size_t capacity = 0, count = 0;
    sk_value *pairs = NULL;
    int status = SK_OK;
    for (int k = 0; k < key_count && status == SK_OK; k++) {
        const char **values = NULL;
        int value_count = 0;
        if (natsMsgHeader_Values(msg, keys[k], &values, &value_count) != NATS_OK) {
            continue;
        }
        for (int v = 0; v < value_count && status == SK_OK; v++) {
            if (count == capacity) {
                size_t grown = capacity == 0 ? 4 : capacity * 2;
                sk_value *bigger = realloc(pairs, grown * sizeof *pairs);
                if (bigger == NULL) {
                    status = SK_ERR_NO_MEMORY;
                    break;
                }
                pairs = bigger;
                capacity = grown;
            }
            sk_value pair[2] = { { 0 }, { 0 } };
            status = sk_value_set_string(&pair[0], keys[k]);
            if (status == SK_OK) {
                status = sk_value_set_string(&pair[1], values[v] != NULL ? values[v] : "");
            }
            if (status == SK_OK) {
                sk_value_set_nil(&pairs[count]);
                status = sk_value_set_array(&pairs[count], pair, 2);
                if (status == SK_OK) {
                    count++;
                }
            }
            sk_value_release(&pair[0]);
            sk_value_release(&pair[1]);
        }
        free((void *)values);
    }
    free((void *)keys);
    if (status == SK_OK) {
        status = sk_value_set_array(out, pairs, count);
    }
    for (size_t i = 0; i < count; i++) {
        sk_value_release(&pairs[i]);
    }
    free(pairs);
    return status;
}

/* The subject of a message as a string value: a new reference to `*cache`
 * when it holds the same text (a subscription to a subject without
 * wildcards sees one subject: one allocation per message saved), else a
 * new string, then kept in `*cache`. `cache` may be NULL. */
static int sk_nats__subject_value(const char *subject, sk_value *cache, sk_value *out) {
    const char *text = NULL;
    size_t length = 0;
    if (cache != NULL && sk_value_kind(cache) == SK_KIND_STRING && sk_value_get_string(cache, &text, &length) == SK_OK &&
        strncmp(text, subject, length) == 0 && subject[length] == '\0') {
        return sk_value_copy(out, cache);
    }
    int status = sk_value_set_string(out, subject);
    if (status == SK_OK && cache != NULL) {
        sk_value_release(cache);
        (void)sk_value_copy(cache, out);
    }
    return status;
}

int sk_nats__message_value(natsMsg *msg, sk_nats_shape shape, sk_value *out) {
    return sk_nats__message_value_cached(msg, shape, NULL, out);
}

int sk_nats__message_value_cached(natsMsg *msg, sk_nats_shape shape, sk_value *subject_cache, sk_value *out) {
    sk_value items[4] = { { 0 }, { 0 }, { 0 }, { 0 } };
    sk_value_set_nil(out);
    int length = natsMsg_GetDataLength(msg);
    int status = sk_value_set_bytes(&items[SK_NATS_ITEM_PAYLOAD], natsMsg_GetData(msg),
                                    length > 0 ? (size_t)length : 0);
    if (status != SK_OK || shape == SK_NATS_PAYLOAD) {
        *out = items[SK_NATS_ITEM_PAYLOAD];
        return status;
    }
    status = sk_nats__subject_value(natsMsg_GetSubject(msg), subject_cache, &items[SK_NATS_ITEM_SUBJECT]);
    const char *reply = natsMsg_GetReply(msg);
    if (status == SK_OK && reply != NULL && reply[0] != '\0') {
        status = sk_value_set_string(&items[SK_NATS_ITEM_REPLY], reply);
    }
    if (status == SK_OK) {
        status = sk_nats__headers_value(msg, &items[SK_NATS_ITEM_HEADERS]);
    }
    if (status == SK_OK) {
        status = sk_value_set_array(out, items, 4);
    }
    for (int i = 0; i < 4; i++) {
        sk_value_release(&items[i]);
    }
    return status;
}
