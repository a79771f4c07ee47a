#!/usr/bin/env python3
# Copyright (c) The SignalKit authors. MIT licence (LICENSE).
"""Tests of the marble pictures (make test-doc-checks): marble_svg.py draws
recordings made by hand that hold each thing the pictures once got wrong,
and marble_check.py finds nothing in them; then each check of
marble_check.py is shown to catch what it is for, on a picture that has it.

- values of one frame (deliverOnBounded's (12)) do not overlap;
- a completion or error in the frame of a value (zip's (x|)) does not
  cross it, nor does a disposal;
- a long name ("z (never subscribed)") and a long operators' text fit;
- a bounded operator's drops are greyed with a dashed edge and its policy
  is named; a case ending with groupBy has a branch per group and no
  [key, value] value.

Usage: marble_test.py (standard library only).
"""

from __future__ import annotations

import importlib.util
import os
import sys
from typing import Any

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import marble_check  # noqa: E402
import marble_svg  # noqa: E402

failures: list[str] = []


def expect(condition: bool, what: str) -> None:
    if not condition:
        failures.append(what)


def events(diagram: str, values: dict[str, str] | None = None) -> list[dict[str, Any]]:
    """A diagram's events as a recording has them (`(..)` one frame)."""
    found: list[dict[str, Any]] = []
    frame, group = 0, False
    for ch in diagram:
        if ch == "(":
            group = True
            continue
        if ch == ")":
            group, frame = False, frame + 1
            continue
        if ch == "|":
            found.append({"t": frame, "kind": "completed"})
        elif ch == "#":
            found.append({"t": frame, "kind": "error"})
        elif ch != "-":
            found.append({"t": frame, "kind": "next", "value": (values or {}).get(ch, ch)})
        frame += 0 if group else 1
    return found


def case(name: str, operators: list[str], inputs: list[tuple[str, str, list[tuple[int, int | None]]]], out: str,
         values: dict[str, str] | None = None, **more: Any) -> dict[str, Any]:
    """A recording of one case: its inputs (name, diagram, subscriptions)
    and what its subscriber received."""
    made = {"name": name, "location": "t.marbles:1", "operators": operators,
            "inputs": [{"name": n, "hot": False, "events": events(d, values),
                        "subscriptions": [{"from": a, "to": b} for a, b in subs]} for n, d, subs in inputs],
            "subscribers": [{"from": 0, "to": None, "events": events(out, values)}]}
    made.update(more)
    return made


def check_bounded_table() -> None:
    """The bounded operators' words come from the operator table: one added
    there is drawn with its drops, with no hand-kept list to forget."""
    spec = importlib.util.spec_from_file_location("marble_test_operators", marble_svg.OPERATORS_PY)
    assert spec is not None and spec.loader is not None
    operators = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(operators)
    _, _, rows = operators.read_table(os.path.join(HERE, "..", "..", operators.TABLE))
    expect(marble_svg.BOUNDED.get("mergeMapBounded") == (2, 3, "upstream")
           and marble_svg.BOUNDED.get("zipBounded") == (1, 2, "named")
           and marble_svg.BOUNDED.get("onBackpressureBuffer") == (1, 2, "upstream"),
           f"the bounded operators' capacity and policy words and inputs: {marble_svg.BOUNDED}")
    model = next(row for row in rows if "`onBackpressureBuffer`" in row["marble"])
    added = dict(model, marble="`newlyBounded`", c="`sk_signal_newly_bounded`", line=0)
    found = marble_svg.bounded_operators(rows + [added])
    expect(found.get("newlyBounded") == (1, 2, "upstream"),
           f"a bounded operator added to the operator table is one the pictures draw the drops of: {found}")


def main() -> int:
    check_bounded_table()
    same_frame = case("same_frame", ["deliverOnBounded 1 dropNewest"], [("a", "-(12)-3|", [(0, 4)])], "-(12)-3|",
                      dropped=[])
    bar = case("bar", ["zipBounded 1 dropNewest a b"], [("a", "-1-2-3|", [(0, 7)]), ("b", "-------7-8|", [(0, 7)])],
               "-------(x|)", {"x": "[1,7]"}, dropped=[{"t": 3, "value": "2"}, {"t": 5, "value": "3"}])
    never = case("never", ["mergeMapBounded 1 1 dropNewest x y z"],
                 [("a", "-0-1-2|", [(0, 7)]), ("x", "-1-2-3|", [(1, 7)]), ("y", "5|", [(7, 8)]), ("z", "7|", [])],
                 "--1-2-35|", dropped=[{"t": 5, "value": "2"}])
    during = case("during", ["onBackpressureBuffer 2 dropOldest"], [("a", "-1-----6|", [(0, 8)])], "-(145)-----6|",
                  dropped=[{"t": 1, "value": "2"}, {"t": 1, "value": "3"}])
    during["inputs"][0]["during"] = [{"t": 1, "kind": "next", "value": v, "on": "1"} for v in "2345"]
    disposed = case("disposed", ["take 2"], [("a", "-1-2-3|", [(0, 3)])], "-1-(2|)")
    grouped = case("grouped", ["groupBy mod:2"], [("a", "-1-2-3-4|", [(0, 9)])], "-p-q-r-s|",
                   {"p": "[1,1]", "q": "[0,2]", "r": "[1,3]", "s": "[0,4]"})
    drawn = {c["name"]: marble_svg.case_svg(c) for c in (same_frame, bar, never, during, disposed, grouped)}
    for c in (same_frame, bar, never, during, disposed, grouped):
        found = marble_check.problems(drawn[c["name"]], c)
        expect(not found, f"the picture of {c['name']} has no problem: {found}")
    expect("(dropOldest)" in drawn["during"] and "(+ put during 1)" in drawn["during"],
           "the drops' row names the policy, and the upstream's row the values put during a delivery")
    expect(drawn["grouped"].count("class='branch'") == 2 and "[1,1]" not in drawn["grouped"],
           "groupBy draws two groups, not the flattened pairs")

    def catches(svg: str, needle: str, what: str, of: dict[str, Any] | None = None) -> None:
        found = marble_check.problems(svg, of)
        expect(any(needle in p for p in found), f"the check catches {what} ({needle!r} in {found})")

    svg = "<svg xmlns='http://www.w3.org/2000/svg' width='300' height='100'>{}</svg>"
    pill = "<rect x='{}' y='10' width='{}' height='26' rx='13'/>"
    catches(svg.format(pill.format(100, 26) + pill.format(110, 26)), "two values overlap", "two values in one frame")
    catches(svg.format("<line x1='64' y1='23' x2='200' y2='23'/>"
                       "<text x='6' y='27' font-size='12'>z (never subscribed)</text>"),
            "runs into", "a name wider than its column")
    catches(svg.format("<rect x='64' y='50' width='100' height='34'/><text x='114' y='72' text-anchor='middle' "
                       "font-size='14' font-family='DejaVu Sans Mono'>deliverOnBounded 1 dropNewest</text>"),
            "wider than its box", "an operators' text wider than its box")
    catches(svg.format(pill.format(100, 26) + "<text x='113' y='27' text-anchor='middle' font-size='13'>[10,20]"
                                              "</text>"),
            "wider than its circle", "a value wider than its circle")
    catches(svg.format(pill.format(100, 54) + "<line x1='120' y1='9' x2='120' y2='37'><title>completed</title>"
                                              "</line>"),
            "the completion at x", "a completion bar through a value")
    catches(svg.format(pill.format(100, 26) + "<path d='M104 14 l18 18'><title>error</title></path>"),
            "the error at x", "an error cross over a value")
    plain = drawn["during"].replace("stroke-dasharray='4 3'", "")
    catches(plain, "is not drawn as dropped", "drops drawn as values", during)
    catches(drawn["during"].replace("(dropOldest)", "()"), "names the policy", "a drop without its policy", during)
    flat = marble_svg.case_svg(dict(grouped, operators=["groupBy mod:2", "map identity"]))
    catches(flat, "0 branches drawn", "groups drawn flat", grouped)
    catches(flat, "[key, value] pairs", "groups drawn flat", grouped)

    for failure in failures:
        print(f"marble_test: FAILED: {failure}", file=sys.stderr)
    if failures:
        return 1
    print("marble_test: the pictures hold, and each check catches what it is for")
    return 0


if __name__ == "__main__":
    sys.exit(main())
