#!/bin/sh
# explore-measure.sh - how soon a build finds a planted lifetime bug, the
# schedule explorer's against the plain one (issue 50, item 5; mk/soak.mk,
# `make explore-measure`).
#
# Usage: explore-measure.sh COLLIDE SECONDS SEEDS NAME=LIBDIR...
# Runs COLLIDE (Tests/soak/collide.c) for at most SECONDS against each
# library folder, once per seed (SIGNALKIT_EXPLORE_SEED, for the explorer's
# builds), the builds of a seed one after the other so that they see the
# same machine; prints one line per run (the time to the failure, or
# "none") and, per build, how many runs failed and the median time to a
# failure, counting a run that did not fail as SECONDS.
set -u
collide=$1
seconds=$2
seeds=$3
shift 3
results=$(mktemp)
trap 'rm -f "$results"' EXIT
for seed in $seeds; do
    for build in "$@"; do
        name=${build%%=*}
        dir=${build#*=}
        start=$(date +%s.%N)
        SIGNALKIT_EXPLORE_SEED=$seed LD_LIBRARY_PATH=$dir timeout -s KILL $((seconds + 60)) \
            "$collide" "$seconds" > /dev/null 2>&1
        status=$?
        end=$(date +%s.%N)
        elapsed=$(echo "$end - $start" | bc)
        if [ $status -eq 0 ]; then
            printf '%-12s seed %-4s none in %s s\n' "$name" "$seed" "$seconds"
            echo "$name 0 $seconds" >> "$results"
        else
            printf '%-12s seed %-4s failed (status %s) after %.2f s\n' "$name" "$seed" "$status" "$elapsed"
            echo "$name 1 $elapsed" >> "$results"
        fi
    done
done
for build in "$@"; do
    name=${build%%=*}
    grep "^$name " "$results" | sort -k3 -g | awk -v name="$name" '
        { failed += $2; t[NR] = $3 }
        END { m = (NR % 2) ? t[(NR + 1) / 2] : (t[NR / 2] + t[NR / 2 + 1]) / 2;
              printf "%-12s %d of %d runs failed; median time to a failure %.2f s\n", name, failed, NR, m }'
done
