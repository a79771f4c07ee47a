#!/bin/sh
# make test's own run (mk/tests.mk, run_stages), on stand-in stages in a
# scratch folder whose Makefile includes mk/tests.mk (make test-doc-checks):
#
#   - a run whose stages pass ends with the one line "make NAME: N stages
#     passed", and succeeds;
#   - a run where a stage fails ends with one line naming it, and fails;
#   - while a stage runs, a heartbeat line names it every HEARTBEAT_SECONDS
#     (1 here), and never names a stage that has failed;
#   - no process of the run is left once make has ended, also when make is
#     interrupted (SIGINT to its process group, as Ctrl-C sends).
#
#   sh tools/check/check-run-stages.sh SCRATCH
#
# Run from the repository's root.
set -eu
root=$(pwd)
rm -rf "$1" && mkdir -p "$1"
scratch=$(cd "$1" && pwd)
ln -s "$root/tools" "$scratch/tools"
cat > "$scratch/Makefile" <<EOF
PYTHON := python3
OUT := \$(CURDIR)/out
TEST_JOBS := 3
HEARTBEAT_SECONDS := 1
run-ok:
	\$(call run_stages,\$(CURDIR)/times,first,first,quick other)
run-bad:
	\$(call run_stages,\$(CURDIR)/times,first,first,bad slow after-bad)
run-slow:
	\$(call run_stages,\$(CURDIR)/times,first,first,slow)
first quick other:
	\$(begin)
	\$(end)
bad:
	\$(begin)
	@false
	\$(end)
after-bad: bad
	\$(begin)
	\$(end)
slow:
	\$(begin)
	@sleep 3
	\$(end)
include $root/mk/tests.mk
EOF

fail() {
    cat "$scratch/out" >&2
    echo "check-run-stages.sh: $1 (its output above)" >&2
    exit 1
}

# run GOAL: make GOAL in the scratch folder, as a user's shell runs it
# (no variable of an enclosing make); its output in SCRATCH/out, its status.
run() {
    (cd "$scratch" && env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL -u SIGNALKIT_STAGE_TIMES -u SIGNALKIT_PROGRESS \
        -u SIGNALKIT_TARGET make --no-print-directory "$@") > "$scratch/out" 2>&1
}

# left: the run's processes still alive: those whose arguments name its
# stamps' folder (the heartbeat, the recipe's shells); the folder reaches
# awk through its environment, so that awk's own arguments do not name it.
left() {
    ps -eo pid=,args= | TIMES="$scratch/times" awk 'index($0, ENVIRON["TIMES"])'
}

run run-ok || fail "a run of passing stages failed"
[ "$(tail -n 1 "$scratch/out")" = "make run-ok: 2 stages passed" ] ||
    fail "a passing run does not end with \"make run-ok: 2 stages passed\""
[ -z "$(left)" ] || fail "processes left after the run: $(left)"

if run run-bad; then fail "a run with a failing stage succeeded"; fi
last=$(grep -v '^make: \*\*\*' "$scratch/out" | tail -n 1)
case $last in
    "make run-bad: FAILED: bad (1 of 3 stages passed, 1 not run;"*) ;;
    *) fail "a failing run's last line is not its verdict naming the stage that failed: $last" ;;
esac
grep -q 'still running: slow' "$scratch/out" || fail "no heartbeat named the stage still running"
! grep 'still running:.*bad' "$scratch/out" > /dev/null || fail "a heartbeat named the stage that had failed"

# Interrupted: Ctrl-C's SIGINT to make's process group, mid-stage. make
# starts in a process group of its own, SIGINT's action the default one (a
# command this shell starts in the background would ignore it).
rm -rf "$scratch/times"
(cd "$scratch" && exec env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL -u SIGNALKIT_STAGE_TIMES -u SIGNALKIT_PROGRESS \
    -u SIGNALKIT_TARGET python3 -c 'import os, signal, sys; signal.signal(signal.SIGINT, signal.SIG_DFL); os.setpgid(0, 0)
os.execvp(sys.argv[1], sys.argv[1:])' make --no-print-directory run-slow > "$scratch/out" 2>&1) &
pid=$!
for _ in 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20; do
    [ -e "$scratch/times/slow.begin" ] && [ -n "$(left)" ] && break
    sleep 0.2
done
sleep 0.5
kill -INT "-$pid" || fail "the interrupted run ended before its interruption"
wait "$pid" || :
! grep -q 'stages\{0,1\} passed' "$scratch/out" || fail "the interrupted run was not interrupted"
for _ in 1 2 3 4 5 6 7 8 9 10; do
    [ -z "$(left)" ] && break
    sleep 0.2
done
[ -z "$(left)" ] || fail "processes left after an interrupted run: $(left)"
echo "check-run-stages.sh: the run ends with its verdict, passing or failing; a heartbeat names the stages still" \
    "running; nothing is left behind, also when interrupted"
