/* See include/CostRows.h. */
#include "CostRows.h"

#include <valgrind/callgrind.h>

void cost_counted_begin(void) {
    CALLGRIND_ZERO_STATS;
    CALLGRIND_TOGGLE_COLLECT;
}

void cost_counted_end(const char *label) {
    CALLGRIND_TOGGLE_COLLECT;
    CALLGRIND_DUMP_STATS_AT(label);
}
