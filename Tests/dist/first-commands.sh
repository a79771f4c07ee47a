#!/bin/sh
# Each goal given, run as the first command of a fresh tree: a clone of HEAD
# with nothing built, `make GOAL` and nothing before it. A recipe that uses a
# file which no prerequisite of its goal makes fails here, where make test,
# whose stages run in one tree one after another, can hide it (issue 42:
# dist-deb installed api.json, which only stage made, so make dist, which
# builds in a fresh tree, stopped).
#
#   sh Tests/dist/first-commands.sh [--stand-in LIBRARY] SCRATCH GOAL...
#
# Each goal gets its own clone, SCRATCH/GOAL, and its log, SCRATCH/GOAL.log
# (its last lines are printed when it fails); each goal's time is printed.
# The make runs with none of the calling make's variables or flags.
#
# --stand-in LIBRARY: swift is Tests/dist/swift-stand-in.sh, which gives
# LIBRARY (libsignalkit.so as the release build links it) as the release
# build's product instead of compiling it: the goals that need no other
# Swift build run in seconds (make test-dist-source checks the cheap ones
# so). A goal that runs any other swift command fails, naming it: check it
# without --stand-in (make check-first-commands), with the real toolchain.
#
# Run from the repository's root (a git checkout at the commit to check).
set -eu
here=$(pwd)
swift=${SWIFT:-swift}
stand_in=
if [ "${1:-}" = --stand-in ]; then
    stand_in=$(realpath "$2")
    swift=$here/Tests/dist/swift-stand-in.sh
    shift 2
fi
[ $# -ge 2 ] || { echo "usage: first-commands.sh [--stand-in LIBRARY] SCRATCH GOAL..." >&2; exit 2; }
scratch=$1
shift
commit=$(git rev-parse HEAD)
rm -rf "$scratch" && mkdir -p "$scratch"
status=0
for goal in "$@"; do
    tree=$scratch/$goal
    git clone -q --no-hardlinks "$here" "$tree"
    git -c advice.detachedHead=false -C "$tree" checkout -q --detach "$commit"
    # The clone's branches are this repository's (a clone of a worktree on
    # another branch has no main, which the docs' Swift dependency lines name).
    git -C "$tree" fetch -q origin 'refs/heads/*:refs/heads/*'
    start=$(date +%s)
    if env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL -u SIGNALKIT_SWIFT_CHECKED -u SIGNALKIT_PROGRESS \
        -u SIGNALKIT_STAGE_TIMES SIGNALKIT_STAND_IN_LIBRARY="$stand_in" \
        make -C "$tree" --no-print-directory SWIFT="$swift" "$goal" > "$scratch/$goal.log" 2>&1; then
        echo "first-commands.sh: make $goal, first in a fresh clone: fine ($(( $(date +%s) - start )) s)"
    else
        tail -n 30 "$scratch/$goal.log" >&2
        echo "first-commands.sh: make $goal fails as the first command in a fresh clone" \
            "($(( $(date +%s) - start )) s; above, the end of $scratch/$goal.log)" >&2
        status=1
    fi
done
exit $status
