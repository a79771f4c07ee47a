#!/usr/bin/env python3
"""The heartbeat of `make test` and `make release-check` (mk/tests.mk,
run_stages): every SECONDS, one line naming the stages still running and
for how long, "[1560s] still running: test-swift-tsan (26:00)", so that a
long stage whose output comes whole only when it ends (--output-sync)
shows that it is alive. Nothing is printed while no stage runs.

A stage is running when it began (TIMES-DIR/STAGE.begin), has not ended
(no STAGE.end), and a process still works for it: one whose environment
names it (SIGNALKIT_TARGET, which mk/tests.mk exports to every recipe of
the run's makes). A stage that failed has no process left, so it is not
named.

It ends when its standard input does: run_stages gives it the read end of
a pipe whose write end only the run's shell holds, so that it ends with the
run however the run ends (its last stage, Ctrl-C, a kill), at once, and
leaves no process behind.

Usage: heartbeat.py TIMES-DIR SECONDS   (standard input: that pipe)
Standard library only; reads /proc (Linux).
"""

from __future__ import annotations

import os
import select
import signal
import sys
import time

MARK = b"SIGNALKIT_TARGET="


def working() -> set[str]:
    """The targets some process of this user works for (its environment's
    SIGNALKIT_TARGET)."""
    found = set()
    for pid in os.listdir("/proc"):
        if not pid.isdigit():
            continue
        try:
            with open(f"/proc/{pid}/environ", "rb") as f:
                environment = f.read()
        except OSError:  # gone meanwhile, or another user's
            continue
        for item in environment.split(b"\0"):
            if item.startswith(MARK):
                found.add(item[len(MARK):].decode("utf-8", "replace"))
    return found


def stamp(path: str) -> float | None:
    try:
        with open(path, encoding="utf-8") as f:
            return float(f.read().strip())
    except (OSError, ValueError):
        return None


def mmss(seconds: float) -> str:
    return f"{int(seconds) // 60}:{int(seconds) % 60:02d}"


def still_running(times: str) -> list[tuple[str, float]]:
    """(stage, its start) of each stage running, the longest first."""
    begun = []
    for name in sorted(os.listdir(times)):
        stage = name[:-len(".begin")]
        if name.endswith(".begin") and not os.path.exists(os.path.join(times, stage + ".end")):
            start = stamp(os.path.join(times, name))
            if start is not None:
                begun.append((stage, start))
    if not begun:
        return []
    alive = working()
    return sorted(((stage, start) for stage, start in begun if stage in alive), key=lambda item: item[1])


def main() -> int:
    if len(sys.argv) != 3:
        print("usage: heartbeat.py TIMES-DIR SECONDS", file=sys.stderr)
        return 2
    # Ctrl-C ends the run and this with it, quietly (no traceback).
    signal.signal(signal.SIGINT, signal.SIG_DFL)
    times, interval = sys.argv[1], float(sys.argv[2])
    run_start = stamp(os.path.join(times, "start")) or time.time()
    while True:
        ready, _, _ = select.select([sys.stdin], [], [], interval)
        if ready:
            if not os.read(sys.stdin.fileno(), 4096):
                return 0  # the run's shell has ended
            continue
        try:
            running = still_running(times)
        except OSError:  # the stamps' folder is gone: the run is over
            return 0
        if running:
            now = time.time()
            said = ", ".join(f"{stage} ({mmss(now - start)})" for stage, start in running)
            print(f"[{int(now - run_start):4d}s] still running: {said}", flush=True)


if __name__ == "__main__":
    sys.exit(main())
