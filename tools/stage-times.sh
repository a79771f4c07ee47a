#!/bin/sh
# Prints the table that ends `make test`: each stage's start (from the start
# of the run) and wall time, in the order they started, then the total wall
# time. A stage that began and did not end failed.
# Usage: stage-times.sh TIMES-DIR [STAGE...]
#   TIMES-DIR holds `start` and, per stage, STAGE.begin and STAGE.end (one
#   `date +%s.%N` each, written by the stage's recipe); the STAGEs named
#   after it that never began are listed as not run.
set -eu
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
