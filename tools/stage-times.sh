#!/bin/sh
# Prints the table that ends `make test`: each stage's start (from the start
# of the run) and wall time, in the order they started, then the total wall
# time. A stage that began and did not end failed.
# Usage: stage-times.sh [--verdict RUN FIRST STATUS] TIMES-DIR [STAGE...]
#   TIMES-DIR holds `start` and, per stage, STAGE.begin and STAGE.end (one
#   `date +%s.%N` each, written by the stage's recipe); the STAGEs named
#   after it that never began are listed as not run.
#   --verdict: then one line, the run's last, that says how it went: "RUN:
#   N stages passed" when both phases' makes succeeded (exit statuses FIRST
#   and STATUS) and every STAGE ended, else "RUN: FAILED: ..." naming the
#   stages that failed (and how many passed, how many did not run), or,
#   when make failed outside every stage, that.
set -eu
verdict=
if [ "${1:-}" = --verdict ]; then
    verdict=$2 first=$3 status=$4
    shift 4
fi
dir=$1
shift
now=$(date +%s.%N)
{
    for begin in "$dir"/*.begin; do
        [ -e "$begin" ] || continue
        stage=$(basename "$begin" .begin)
        if [ -e "$dir/$stage.end" ]; then
            echo "$stage $(cat "$begin") $(cat "$dir/$stage.end") ok"
        else
            echo "$stage $(cat "$begin") - FAILED"
        fi
    done
    for stage in "$@"; do
        [ -e "$dir/$stage.begin" ] || echo "$stage 9e99 - NOT-RUN"
    done
} | sort -k2,2g | awk -v start="$(cat "$dir/start")" -v now="$now" '
    function mmss(s) { return sprintf("%d:%04.1f", int(s / 60), s - 60 * int(s / 60)) }
    BEGIN { print ""; printf "%-20s %9s %9s\n", "stage", "start", "wall" }
    $4 == "NOT-RUN" { printf "%-20s %9s %9s  %s\n", $1, "-", "-", "not run (a stage it needs failed)"; next }
    $4 == "FAILED" { printf "%-20s %9s %9s  %s\n", $1, "+" mmss($2 - start), "-", "FAILED (its output is above)"; next }
    { printf "%-20s %9s %9s\n", $1, "+" mmss($2 - start), mmss($3 - $2) }
    END { printf "%-20s %9s %9s\n", "total", "", mmss(now - start) }'

[ -n "$verdict" ] || exit 0
# The verdict: the stages (of either phase) that began and did not end, the
# STAGEs that ended and those that never began.
failed= passed=0 skipped=0 total=$#
for begin in "$dir"/*.begin; do
    [ -e "$begin" ] || continue
    stage=$(basename "$begin" .begin)
    [ -e "$dir/$stage.end" ] || failed="${failed:+$failed, }$stage"
done
for stage in "$@"; do
    if [ -e "$dir/$stage.end" ]; then passed=$((passed + 1))
    elif [ ! -e "$dir/$stage.begin" ]; then skipped=$((skipped + 1)); fi
done
if [ "$first" -eq 0 ] && [ "$status" -eq 0 ] && [ -z "$failed" ] && [ "$passed" -eq "$total" ]; then
    [ "$total" -eq 1 ] && echo "$verdict: 1 stage passed" || echo "$verdict: $total stages passed"
elif [ -n "$failed" ]; then
    echo "$verdict: FAILED: $failed ($passed of $total stages passed, $skipped not run; each failed one's output is above)"
elif [ "$first" -ne 0 ]; then
    echo "$verdict: FAILED before its stages (make's error is above; $skipped of $total stages not run)"
else
    echo "$verdict: FAILED outside its stages (make's error is above; $passed of $total stages passed, $skipped not run)"
fi
