/* Callbacks on int64 values shared by the fuzz harness (Tests/fuzz) and the
 * soak test (Tests/soak): values of another kind pass through unchanged. */
#ifndef SK_TEST_INT_CALLBACKS_H
#define SK_TEST_INT_CALLBACKS_H

#include <signalkit.h>

/* sk_map_fn: n -> n + 1. */
static inline void sk_test_add_one(void *ctx, const sk_value *value, sk_value *out) {
    int64_t n;
    (void)ctx;
    if (sk_value_get_int64(value, &n) == SK_OK) {
        sk_value_set_int64(out, n + 1);
    } else {
        sk_value_copy(out, value);
    }
}

/* sk_predicate_fn: even numbers. */
static inline bool sk_test_keep_even(void *ctx, const sk_value *value) {
    int64_t n = 0;
    (void)ctx;
    return sk_value_get_int64(value, &n) != SK_OK || n % 2 == 0;
}

#endif
