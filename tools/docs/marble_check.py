# Copyright (c) The SignalKit authors. MIT licence (LICENSE).
"""Checks a marble picture (an SVG that marble_svg.py drew) as a reader
would look at it, from its shapes alone:

- no two values (rounded rectangles: circles and pills) overlap;
- every text fits where it is: a value's inside its circle or pill, the
  operators' inside their box, and a row's name clear of every value, line
  and box (its width measured with DejaVu Sans's advances, the font the
  pictures name first);
- no completion bar, error cross or disposal mark comes within 2 pixels of
  a value;
- given the case it shows: each value the case's bounded operator dropped
  (its `dropped` recording) is drawn greyed with a dashed edge, and the
  policy is named; a case ending with groupBy draws a branch per group
  (a key of its recorded [key, value] output) and no [key, value] value.

site.py runs it on every picture it draws (a problem fails make docs);
selftest.py shows that each check catches what it is for. Run alone,
`marble_check.py MARBLE_DUMP [--old SITE_PY]`, it checks the pictures of a
recording as marble_svg.py (or an older site.py's case_svg) draws them, and
prints what it finds.
Standard library only.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import re
import sys
import xml.etree.ElementTree as ET
from dataclasses import dataclass
from typing import Any, Callable

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from marble_svg import BOUNDED, GREY_FILL, text_width  # noqa: E402

SVG = "{http://www.w3.org/2000/svg}"
TOUCH = 0.5  # pixels two shapes may share before they count as touching
CLEAR = 2.0  # pixels a bar, cross or break mark keeps from every value


@dataclass
class Box:
    x: float
    y: float
    w: float
    h: float
    what: str

    def overlaps(self, other: "Box") -> bool:
        return (min(self.x + self.w, other.x + other.w) - max(self.x, other.x) > TOUCH
                and min(self.y + self.h, other.y + other.h) - max(self.y, other.y) > TOUCH)

    def holds(self, x: float, y: float) -> bool:
        return self.x <= x <= self.x + self.w and self.y <= y <= self.y + self.h


def _number(element: ET.Element, name: str, default: float = 0.0) -> float:
    value = element.get(name)
    return float(value) if value is not None and not value.endswith("%") else default


def _title(element: ET.Element) -> str:
    title = element.find(SVG + "title")
    return title.text or "" if title is not None else ""


def _mark(element: ET.Element) -> Box | None:
    """A completion bar, an error cross or a disposal mark, as its box."""
    title = _title(element)
    if element.tag == SVG + "line" and title == "completed":
        x = _number(element, "x1")
        return Box(x - 1.5, min(_number(element, "y1"), _number(element, "y2")), 3,
                   abs(_number(element, "y2") - _number(element, "y1")), "the completion")
    if element.tag == SVG + "path" and title in ("error", "disposed"):
        numbers = [float(n) for n in re.findall(r"-?\d+(?:\.\d+)?", element.get("d", ""))]
        if len(numbers) < 2:
            return None
        x, y = numbers[0], numbers[1]
        return Box(x, y, 18, 18, "the error") if title == "error" else Box(x, y - 14, 13, 14, "the disposal")
    return None


def problems(svg: str, case: dict[str, Any] | None = None) -> list[str]:
    """What a reader would find wrong with the picture `svg` (of `case`)."""
    root = ET.fromstring(svg)
    width = _number(root, "width")
    marbles: list[tuple[Box, ET.Element]] = []
    boxes: list[Box] = []
    lines: list[Box] = []
    marks: list[Box] = []
    texts: list[ET.Element] = []
    for element in root.iter():
        if element.tag == SVG + "rect" and element.get("width", "").endswith("%"):
            continue  # the background
        if element.tag == SVG + "rect":
            box = Box(_number(element, "x"), _number(element, "y"), _number(element, "width"),
                      _number(element, "height"), "")
            if _number(element, "rx") > 0:
                marbles.append((box, element))
            else:
                boxes.append(box)
        elif element.tag == SVG + "text":
            texts.append(element)
        elif element.tag == SVG + "line" and _number(element, "y1") == _number(element, "y2"):
            x1, x2 = sorted((_number(element, "x1"), _number(element, "x2")))
            lines.append(Box(x1, _number(element, "y1") - 1, x2 - x1, 2, "a line"))
        mark = _mark(element)
        if mark:
            marks.append(mark)
    found: list[str] = []
    text_of: dict[int, str] = {}
    for index, text in enumerate(texts):
        content = "".join(text.itertext())
        size = _number(text, "font-size", 16)
        w = text_width(content, size, mono="Mono" in text.get("font-family", ""))
        x, y = _number(text, "x"), _number(text, "y")
        left = {"middle": x - w / 2, "end": x - w}.get(text.get("text-anchor", "start"), x)
        middle = y - size * 0.35
        inside = next((m for m in marbles if m[0].holds(x, middle)), None)
        box = next((b for b in boxes if b.holds(x, middle)), None)
        if inside:
            text_of[id(inside[1])] = content
            if w > inside[0].w - 4:
                found.append(f"the value {content!r} ({w:.0f} px) is wider than its circle or pill "
                             f"({inside[0].w:.0f} px)")
        elif box:
            if w > box.w - 8:
                found.append(f"the text {content!r} ({w:.0f} px) is wider than its box ({box.w:.0f} px)")
        else:
            extent = Box(left, y - size * 0.8, w, size, content)
            hit = [m[0] for m in marbles if extent.overlaps(m[0])] + [b for b in boxes + lines if extent.overlaps(b)]
            if hit or left + w > width:
                found.append(f"the label {content!r} ({w:.0f} px from x {left:.0f}) runs into "
                             + ("a value, a line or a box" if hit else "the picture's edge"))
    for i, (a, _) in enumerate(marbles):
        for b, _ in marbles[i + 1:]:
            if a.overlaps(b):
                found.append(f"two values overlap, at x {a.x:.0f} and {b.x:.0f} (y {a.y:.0f}, {b.y:.0f})")
    for mark in marks:
        near = Box(mark.x - CLEAR, mark.y, mark.w + 2 * CLEAR, mark.h, mark.what)
        for box, element in marbles:
            if near.overlaps(box):
                found.append(f"{mark.what} at x {mark.x:.0f} crosses the value {text_of.get(id(element), '?')!r}")
    if case is not None:
        found += case_problems(case, texts, [(text_of.get(id(e), ""), e) for _, e in marbles], root)
    return found


def case_problems(case: dict[str, Any], texts: list[ET.Element], marbles: list[tuple[str, ET.Element]],
                  root: ET.Element) -> list[str]:
    """What the picture of `case` does not show of its drops and groups."""
    found: list[str] = []
    words = next((op.split() for op in case["operators"] if op.split()[0] in BOUNDED), None)
    drops = case.get("dropped") or []
    if words and drops:
        policy = words[BOUNDED[words[0]][1]]
        greyed = [value for value, element in marbles
                  if element.get("fill") == GREY_FILL and element.get("stroke-dasharray")]
        for drop in drops:
            if drop["value"] in greyed:
                greyed.remove(drop["value"])
            else:
                found.append(f"the value {drop['value']} dropped at frame {drop['t']} is not drawn as dropped "
                             "(greyed, with a dashed edge)")
        if not any(policy in "".join(text.itertext()) and "operators" not in (text.get("class") or "")
                   for text in texts):
            found.append(f"no text outside the operators' box names the policy {policy}")
    if case["operators"] and case["operators"][-1].split()[0] == "groupBy":
        pairs = [e["value"] for e in case["subscribers"][0]["events"] if e["kind"] == "next"]
        keys = {json.dumps(json.loads(pair)[0]) for pair in pairs}
        branches = [e for e in root.iter(SVG + "path") if "branch" in (e.get("class") or "")]
        if len(branches) != len(keys):
            found.append(f"the groups of the keys {', '.join(sorted(keys))}: {len(branches)} branches drawn for them")
        shown = [value for value, _ in marbles if value in pairs]
        if shown:
            found.append(f"the groups' values are drawn as [key, value] pairs ({', '.join(shown)}), not on their "
                         "groups' lines")
    return found


def main() -> int:
    parser = argparse.ArgumentParser(description="checks the marble pictures of a recording")
    parser.add_argument("dump", help="the JSON the Swift runner writes (SIGNALKIT_MARBLE_DUMP)")
    parser.add_argument("--old", help="draw with this site.py's case_svg (a file), instead of marble_svg.py")
    args = parser.parse_args()
    draw: Callable[[dict[str, Any]], str]
    if args.old:
        spec = importlib.util.spec_from_file_location("old_site", args.old)
        assert spec is not None and spec.loader is not None
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        draw = module.case_svg
    else:
        from marble_svg import case_svg
        draw = case_svg
    with open(args.dump, encoding="utf-8") as f:
        cases = json.load(f)["cases"]
    bad = 0
    for case in cases:
        found = problems(draw(case), case)
        bad += bool(found)
        for problem in found:
            print(f"{case['name']}: {problem}")
    print(f"{bad} of {len(cases)} pictures with a problem")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
