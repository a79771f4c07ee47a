/* GENERATED FILE, DO NOT EDIT: written by tools/api/operators.py from
 * tools/api/operators.md (`make api-update`). The API fuzzer's operators
 * (operator_list.h), each at its slot: the value of the operator byte that
 * applies it (Tests/fuzz/fuzz_api.c, apply_operator; its hand-written cases
 * are the fuzz-hand lines of tools/api/exceptions.txt). A slot, once given,
 * is kept (api-update reads this file back), and a new operator takes the
 * next after every slot in use (at least 64), so that an input of the corpus
 * keeps its meaning when operators are added. `positive`: its count is at
 * least 1, or its time at least 0.25 s. */
#ifndef SIGNALKIT_TESTS_FUZZ_OPERATORS_H
#define SIGNALKIT_TESTS_FUZZ_OPERATORS_H

#include <stdbool.h>

#include "operator_list.h"

typedef struct fuzz_operator {
    const char *name;
    const sk_test_operator *op;
    bool positive;
} fuzz_operator;

static const fuzz_operator FUZZ_OPERATORS[256] = {
    [0] = {"sk_signal_map", &SK_TEST_OPERATORS[0], false},
    [1] = {"sk_signal_filter", &SK_TEST_OPERATORS[1], false},
    [2] = {"sk_signal_distinct_until_changed", &SK_TEST_OPERATORS[2], false},
    [3] = {"sk_signal_take", &SK_TEST_OPERATORS[4], false},
    [4] = {"sk_signal_take_until", &SK_TEST_OPERATORS[5], false},
    [5] = {"sk_signal_last", &SK_TEST_OPERATORS[14], false},
    [6] = {"sk_signal_ignore_values", &SK_TEST_OPERATORS[31], false},
    [7] = {"sk_signal_then", &SK_TEST_OPERATORS[21], false},
    [8] = {"sk_signal_catch", &SK_TEST_OPERATORS[35], false},
    [9] = {"sk_signal_map_to_signal", &SK_TEST_OPERATORS[23], false},
    [10] = {"sk_signal_switch_to_latest", &SK_TEST_OPERATORS[24], false},
    [11] = {"sk_signal_queue", &SK_TEST_OPERATORS[27], false},
    [12] = {"sk_signal_throttled", &SK_TEST_OPERATORS[29], false},
    [13] = {"sk_signal_reduce_left", &SK_TEST_OPERATORS[40], false},
    [14] = {"sk_signal_deliver_on", &SK_TEST_OPERATORS[48], false},
    [15] = {"sk_signal_run_on", &SK_TEST_OPERATORS[51], false},
    [16] = {"sk_signal_before_next", &SK_TEST_OPERATORS[3], false},
    [17] = {"sk_signal_after_next", &SK_TEST_OPERATORS[43], false},
    [18] = {"sk_signal_after_disposed", &SK_TEST_OPERATORS[47], false},
    [19] = {"sk_signal_before_started", &SK_TEST_OPERATORS[44], false},
    [20] = {"sk_signal_combine_latest", &SK_TEST_OPERATORS[15], false},
    [21] = {"sk_signal_merge", &SK_TEST_OPERATORS[19], false},
    [22] = {"sk_signal_scan", &SK_TEST_OPERATORS[41], false},
    [23] = {"sk_signal_skip", &SK_TEST_OPERATORS[8], false},
    [24] = {"sk_signal_skip_while", &SK_TEST_OPERATORS[9], false},
    [25] = {"sk_signal_take_while", &SK_TEST_OPERATORS[7], false},
    [26] = {"sk_signal_start_with", &SK_TEST_OPERATORS[22], false},
    [27] = {"sk_signal_pairwise", &SK_TEST_OPERATORS[42], false},
    [28] = {"sk_signal_first", &SK_TEST_OPERATORS[10], false},
    [29] = {"sk_signal_element_at", &SK_TEST_OPERATORS[12], false},
    [30] = {"sk_signal_default_if_empty", &SK_TEST_OPERATORS[13], false},
    [31] = {"sk_signal_merge_map", &SK_TEST_OPERATORS[25], true},
    [32] = {"sk_signal_share", &SK_TEST_OPERATORS[33], false},
    [33] = {"sk_signal_replay", &SK_TEST_OPERATORS[34], false},
    [34] = {"sk_signal_buffer_count", &SK_TEST_OPERATORS[56], true},
    [35] = {"sk_signal_zip", &SK_TEST_OPERATORS[16], false},
    [36] = {"sk_signal_with_latest_from", &SK_TEST_OPERATORS[18], false},
    [37] = {"sk_signal_concat", &SK_TEST_OPERATORS[20], false},
    [38] = {"sk_signal_take_until_signal", &SK_TEST_OPERATORS[6], false},
    [39] = {"sk_signal_first_where", &SK_TEST_OPERATORS[11], false},
    [40] = {"sk_signal_before_completed", &SK_TEST_OPERATORS[45], false},
    [41] = {"sk_signal_after_completed", &SK_TEST_OPERATORS[46], false},
    [47] = {"sk_signal_deferred", &SK_TEST_OPERATORS[30], false},
    [48] = {"sk_signal_delay", &SK_TEST_OPERATORS[52], false},
    [49] = {"sk_signal_debounce", &SK_TEST_OPERATORS[54], false},
    [50] = {"sk_signal_throttle", &SK_TEST_OPERATORS[55], false},
    [51] = {"sk_signal_buffer_time", &SK_TEST_OPERATORS[57], true},
    [52] = {"sk_signal_sample_period", &SK_TEST_OPERATORS[60], true},
    [53] = {"sk_signal_timeout", &SK_TEST_OPERATORS[53], false},
    [54] = {"sk_signal_sample", &SK_TEST_OPERATORS[59], false},
    [55] = {"sk_signal_on_backpressure_buffer", &SK_TEST_OPERATORS[50], false},
    [56] = {"sk_signal_deliver_on_bounded", &SK_TEST_OPERATORS[49], false},
    [64] = {"sk_signal_zip_bounded", &SK_TEST_OPERATORS[17], false},
    [65] = {"sk_signal_merge_map_bounded", &SK_TEST_OPERATORS[26], true},
    [66] = {"sk_signal_queue_bounded", &SK_TEST_OPERATORS[28], false},
    [67] = {"sk_signal_buffer_time_bounded", &SK_TEST_OPERATORS[58], true},
};

#endif
