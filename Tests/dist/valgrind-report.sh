#!/bin/sh
# Checks a report of valgrind --leak-check=full (Tests/dist/valgrind.sh):
#
#   sh Tests/dist/valgrind-report.sh clean|leak REPORT
#
# Both: the report is complete (valgrind did not give up, on the library's
# debug information for one) and no DWARF form went unread. clean: no
# error, and nothing definitely, indirectly or possibly lost. leak: a
# definite leak reported as an error, made by sk_pipe_create and by
# sk_signal_map. Prints the report's summary lines; exit status 1 when it
# is not as expected.
set -eu
kind=$1 report=$2
fail() {
    echo "valgrind-report.sh: $kind: $*" >&2
    cat "$report" >&2
    exit 1
}
grep -E 'lost:|suppressed:|ERROR SUMMARY' "$report" | sed 's/^==[0-9]*== *//'
grep -q 'ERROR SUMMARY:' "$report" || fail "valgrind did not finish its report"
! grep -qE 'unhandled dwarf2|debuginfo reader|corrupted debuginfo' "$report" || fail "valgrind could not read the debug information"
if [ "$kind" = clean ]; then
    grep -q 'ERROR SUMMARY: 0 errors' "$report" || fail "errors reported"
    ! grep -qE '(definitely|indirectly|possibly) lost: [1-9]' "$report" || fail "memory lost"
else
    grep -qE 'definitely lost: [1-9]' "$report" || fail "the leak is not reported"
    grep -qE 'ERROR SUMMARY: [1-9]' "$report" || fail "the leak is not counted as an error"
    grep -q 'sk_pipe_create' "$report" || fail "the pipe's leak is not reported"
    grep -q 'sk_signal_map' "$report" || fail "the map's leak is not reported"
fi
