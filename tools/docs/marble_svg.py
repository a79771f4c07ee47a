# Copyright (c) The SignalKit authors. MIT licence (LICENSE).
"""The marble pictures of the operator pages (site.py writes one per case
of the shared marble table, Tests/marbles), drawn from what the case
recorded when the Swift runner played it (SIGNALKIT_MARBLE_DUMP,
Tests/SwiftSignalKitTestingTests/MarbleTableTests.swift), never from its
`out` line:

- a timeline per input (a cold one once per subscription, from the frame it
  began to the frame it was disposed), the operators in a box, then a
  timeline per subscriber;
- the values of one frame are stacked, in the order they came, the first on
  the line; an error or completion of that frame is drawn after them;
- a bounded operator's drops (the case's `dropped` line: what its drop
  callback received) greyed where they entered, and again on a row of
  their own, under the policy's name, at the frame each was dropped;
- the values a `during` line put into the upstream from inside a delivery
  on the upstream's row, at the frame they were put;
- groupBy, when it is the last operator: each group as a line of its own,
  branching from the output line at the frame its key first came (the
  runner records the groups flattened, as [key, value]: a group is the
  values of one key, and it ends as the output ends: the completion of the
  upstream completes every group, its error fails every group).

LEGEND is the operator page's account of the pictures; marble_check.py
checks every picture site.py draws.
Standard library only.
"""

from __future__ import annotations

import html
import importlib.util
import json
import os
from dataclasses import dataclass, field
from typing import Any

# ---------------------------------------------------------------------------
# Text widths
# ---------------------------------------------------------------------------

FAMILY = "DejaVu Sans, Helvetica, Arial, sans-serif"
FONT = f"font-family='{FAMILY}'"  # (site.py's benchmark plots use it too)
MONO = "font-family='DejaVu Sans Mono, monospace'"

# DejaVu Sans's advance widths (in 1/2048 em) of the characters 32 to 126,
# read from its hmtx table: the pictures name it first, and Debian's
# browsers have it.
_SANS = [651, 821, 942, 1716, 1303, 1946, 1597, 563, 799, 799, 1024, 1716, 651, 739, 651, 690,  # space to /
         1303, 1303, 1303, 1303, 1303, 1303, 1303, 1303, 1303, 1303, 690, 690, 1716, 1716, 1716, 1087,  # 0 to ?
         2048, 1401, 1405, 1430, 1577, 1294, 1178, 1587, 1540, 604, 604, 1343, 1141, 1767, 1532, 1612,  # @ to O
         1235, 1612, 1423, 1300, 1251, 1499, 1401, 2025, 1403, 1251, 1403, 799, 690, 799, 1716, 1024,  # P to _
         1024, 1255, 1300, 1126, 1300, 1260, 721, 1300, 1298, 569, 569, 1186, 569, 1995, 1298, 1253,  # ` to o
         1300, 1300, 842, 1067, 803, 1298, 1212, 1675, 1212, 1212, 1075, 1303, 690, 1303, 1716]  # p to ~
_MONO = 1233  # every character of DejaVu Sans Mono


def text_width(text: str, size: float, mono: bool = False) -> float:
    """How wide `text` is at `size` pixels, in DejaVu Sans (or Mono); a
    character outside ASCII counts as the widest."""
    if mono:
        return len(text) * _MONO * size / 2048
    return sum(_SANS[ord(c) - 32] if 32 <= ord(c) < 127 else 2048 for c in text) * size / 2048


# ---------------------------------------------------------------------------
# Geometry and colours
# ---------------------------------------------------------------------------

RADIUS = 13  # a value's circle; a longer value is a pill of that height
VALUE_FONT = 13
LABEL_FONT = 12
BOX_FONT = 14
MIN_FRAME = 34  # pixels per frame, at least
ROW = 46  # one timeline
STACK = 30  # between the values of one frame
BOX_HEIGHT = 34
# How far after the values of its frame an event that ends a row goes: its
# mark's centre, clear of them by 5 pixels (a completion's bar is 3 wide,
# an error's cross 18; a disposal's break mark starts 7 before its end).
CLEAR = {"completed": 7.0, "error": 14.0, "disposed": 12.0}

PALETTE = ["#f2c14e", "#7cc6fe", "#9be39b", "#f78fb3", "#c3aed6", "#ffb870", "#8fd3d3", "#e2e27a"]
MADE = "#ffffff"  # a value the operator made at a frame where no input emitted
GREY_FILL, GREY_EDGE, GREY_INK = "#eeeeee", "#aaaaaa", "#888888"

# The operator table (tools/api/operators.md) and the script that reads it.
OPERATORS_PY = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "api", "operators.py")


def bounded_operators(rows: list[dict[str, str]] | None = None) -> dict[str, tuple[int, int, str]]:
    """Each bounded operator of the operator table (`rows`, else the table
    itself), by its marble name: where its capacity and its policy are among
    its words (its shape's marble layout, tools/api/shapes.py), and which
    inputs it takes its values from ("named": the inputs its words name after
    the policy, a shape of signals; "upstream": the values of the operator
    before it). Read from the table, as the docs' other columns are, so that
    a bounded operator added there gets its drops drawn with no edit here
    (issue 80: a hand-kept copy lost them silently)."""
    spec = importlib.util.spec_from_file_location("marble_svg_operators", OPERATORS_PY)
    assert spec is not None and spec.loader is not None
    operators = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(operators)
    if rows is None:
        _, _, rows = operators.read_table(os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(
            OPERATORS_PY))), operators.TABLE))
    found = {}
    for marble, (op, _) in operators.described_operators(rows).items():
        if op.shape.bounded:
            layout = operators.shapes.marble_layout(op.shape)
            found[marble] = (layout.index("capacity") + 1, layout.index("overflow") + 1,
                             "named" if "signals" in layout else "upstream")
    return found


BOUNDED = bounded_operators()

LEGEND = (
    "<p>Each picture is a case of the shared marble table (<code>Tests/marbles</code>), drawn from what the Swift "
    "operators delivered when <code>make docs</code> ran it under virtual time: a timeline per signal, a value as a "
    "circle, a tall bar the completion, a red cross the error, the operators in the box. Values of one frame are "
    "stacked in the order they came, the first on the line. An input's line starts where it was subscribed and "
    "ends where it was disposed, at a break mark (two slanted strokes); what it would have sent after, and nobody "
    "received, is greyed on a dotted line. Each input has a colour, and a value delivered takes the colour of the "
    "input value it came from (at its frame, or the same value earlier: one held and delivered later); a white one "
    "the operator made.</p>\n"
    "<p>A bounded operator's drops are greyed with a dashed edge where they came in, and again on the row "
    "<em>dropped</em>, under the policy's name, at the frame each was dropped: what its drop callback received, "
    "which the case checks in every language. Values an upstream put from inside a delivery (the case's "
    "<code>during</code> line, a consumer that feeds its own producer) are on the upstream's row, at the frame "
    "they were put. <code>groupBy</code> draws each group as a line of its own, branching from the output at the "
    "frame its key first came: the output delivers [key, group] there, and the group delivers that value and the "
    "later ones of its key.</p>")


@dataclass
class Mark:
    """One event on a row: `t` its frame on the picture's clock; `style`
    "value", "dropped" (a bounded operator dropped it), "unreceived" (sent
    after its input's disposal), "never" (an input never subscribed) or
    "group" (a groupBy output: the branch of a group)."""
    t: int
    kind: str  # "next", "error", "completed"
    value: str = ""
    fill: str = MADE
    style: str = "value"
    title: str = ""


@dataclass
class Row:
    label: list[str]
    start: int
    end: int | None  # the frame of its disposal (None: it runs on)
    marks: list[Mark] = field(default_factory=list)
    dim: bool = False
    plain: bool = False  # a row that is no signal (the drops): a dashed line, no end
    branch: int | None = None  # a group: the frame it branches from its output at
    parent: "Row | None" = None  # a group: its output's row
    ticks: list[int] = field(default_factory=list)  # frames a host queue was drained at
    y: float = 0.0

    @property
    def branch_y(self) -> float:
        return self.parent.y if self.parent else self.y


def value_width(value: str) -> float:
    """A circle for a short value, a pill for a longer one (a list)."""
    return max(2.0 * RADIUS, text_width(value, VALUE_FONT) + 14)


def _parse(value: str) -> Any:
    try:
        return json.loads(value)
    except ValueError:
        return value


def bounded_operator(case: dict[str, Any]) -> tuple[int, list[str]] | None:
    """The case's bounded operator: its place among the operators and its
    words; None when it has none."""
    for index, text in enumerate(case["operators"]):
        words = text.split()
        if words[0] in BOUNDED:
            return index, words
    return None


def policy_of(words: list[str]) -> tuple[str, str]:
    """A bounded operator's capacity and policy."""
    capacity, policy, _ = BOUNDED[words[0]]
    return words[capacity], words[policy]


def host_drains(case: dict[str, Any]) -> list[int]:
    """The frames a `deliverOnBounded N P host F...` drains its queue at."""
    found = bounded_operator(case)
    if not found or found[1][0] != "deliverOnBounded" or "host" not in found[1]:
        return []
    words = found[1]
    return [int(w) for w in words[words.index("host") + 1:]]


# ---------------------------------------------------------------------------
# From the recording to rows
# ---------------------------------------------------------------------------

def input_rows(case: dict[str, Any]) -> tuple[list[Row], dict[str, list[Row]]]:
    """Each input's rows (a cold one once per subscription), and the rows
    of each input by name."""
    rows: list[Row] = []
    by_name: dict[str, list[Row]] = {}
    for index, item in enumerate(case["inputs"]):
        color = PALETTE[index % len(PALETTE)]
        subs = item["subscriptions"]
        name = item["name"]
        if item["hot"]:
            plays = [(name + " (hot)", 0, None, 0, False)]
        elif subs:
            plays = [(name + (f" #{n + 1}" if n else ""), sub["from"], sub["to"], sub["from"], False)
                     for n, sub in enumerate(subs)]
        else:
            plays = [(name + " (never subscribed)", 0, None, 0, True)]
        for number, (label, start, end, shift, dim) in enumerate(plays):
            row = Row([label], start, end, dim=dim)
            for event in item["events"]:
                t = event["t"] + shift
                if t < 0:
                    continue
                if end is not None and t > end:
                    # What a cold input would have sent after its disposal:
                    # values the operator let go (a switch's replaced inner).
                    if event["kind"] == "next":
                        row.marks.append(Mark(t, "next", event["value"], GREY_FILL, "unreceived",
                                              "sent after the disposal: nobody received it"))
                    continue
                if dim:
                    row.marks.append(Mark(t, event["kind"], event.get("value", ""), GREY_FILL, "never",
                                          "never played: the input was never subscribed"))
                else:
                    row.marks.append(Mark(t, event["kind"], event.get("value", ""), color))
            during = item.get("during") or []
            if during and number == 0:
                row.label.append(f"(+ put during {during[0]['on']})")
                for event in during:
                    row.marks.append(Mark(event["t"], "next", event["value"], color, "value",
                                          f"put into {name} from inside the delivery of {event['on']} (the case's "
                                          "during line)"))
            rows.append(row)
            by_name.setdefault(name, []).append(row)
    return rows, by_name


def mark_drops(case: dict[str, Any], by_name: dict[str, list[Row]]) -> None:
    """Greys the input value each drop of the case was: the same value, at
    the drop's frame or before it, the latest not greyed yet, among the
    inputs the bounded operator takes its values from."""
    found = bounded_operator(case)
    drops = case.get("dropped") or []
    if not found or not drops:
        return
    index, words = found
    capacity, policy = policy_of(words)
    if BOUNDED[words[0]][2] == "named":
        names = [w for w in words[3:] if w in by_name]
    elif index == 0:
        names = [case["inputs"][0]["name"]]
    else:
        return  # operators before it changed the values: the drops row says what was dropped
    candidates = [mark for name in names for row in by_name[name] for mark in row.marks
                  if mark.kind == "next" and mark.style == "value"]
    for drop in drops:
        same = [m for m in candidates if m.value == drop["value"] and m.t <= drop["t"] and m.style == "value"]
        if same:
            chosen = max(same, key=lambda m: m.t)
            chosen.style = "dropped"
            chosen.fill = GREY_FILL
            chosen.title = f"dropped at frame {drop['t']} by {policy} (capacity {capacity})"


def origin_colors(rows: list[Row]) -> dict[int, list[tuple[str, str]]]:
    """Frame -> (value, colour) of each value the inputs emitted there, in
    the colour of its input: an output value takes the colour of the input
    value it came from, so that a picture shows where each value came from,
    not its number."""
    found: dict[int, list[tuple[str, str]]] = {}
    for row in rows:
        for mark in row.marks:
            if mark.kind == "next" and mark.style in ("value", "dropped") and not row.dim:
                color = mark.fill if mark.style == "value" else None
                if color:
                    found.setdefault(mark.t, []).append((mark.value, color))
    return found


def output_color(t: int, value: str, origins: dict[int, list[tuple[str, str]]]) -> str:
    """The colour of the input value a delivered value came from: one at its
    frame (the same value first), else the latest same value before it (a
    value held and delivered later: debounce, delay, a drained queue), else
    white."""
    candidates = origins.get(t, [])
    same = [color for v, color in candidates if v == value]
    if same or candidates:
        return same[0] if same else candidates[0][1]
    for frame in sorted((f for f in origins if f < t), reverse=True):
        held = [color for v, color in origins[frame] if v == value]
        if held:
            return held[0]
    return MADE


def output_rows(case: dict[str, Any], origins: dict[int, list[tuple[str, str]]]) -> list[Row]:
    """What each subscriber recorded; for a case ending with groupBy, the
    output's groups and a row per group."""
    rows: list[Row] = []
    grouped = case["operators"] and case["operators"][-1].split()[0] == "groupBy"
    for index, sub in enumerate(case["subscribers"]):
        label = "out" if index == 0 else f"out {index + 1}"
        row = Row([label], sub["from"], sub["to"])
        rows.append(row)
        if not grouped:
            row.marks = [Mark(e["t"], e["kind"], e.get("value", ""),
                              output_color(e["t"], e["value"], origins) if e["kind"] == "next" else MADE)
                         for e in sub["events"]]
            continue
        row.label.append("(groups)")
        groups: dict[str, Row] = {}
        terminal = [e for e in sub["events"] if e["kind"] != "next"]
        for event in sub["events"]:
            if event["kind"] != "next":
                row.marks.append(Mark(event["t"], event["kind"]))
                continue
            pair = _parse(event["value"])
            key, value = (json.dumps(pair[0]), json.dumps(pair[1])) if isinstance(pair, list) and len(pair) == 2 \
                else ("?", event["value"])
            if key not in groups:
                groups[key] = Row(["group", f"key {key}"], event["t"], sub["to"], branch=event["t"], parent=row)
                row.marks.append(Mark(event["t"], "next", key, "#ffffff", "group",
                                      f"[{key}, group]: the group of the key {key}"))
            groups[key].marks.append(Mark(event["t"], "next", value, output_color(event["t"], value, origins)))
        for group in groups.values():
            # A group ends as the output does: the upstream's completion
            # completes every group, its error fails every group.
            group.marks += [Mark(e["t"], e["kind"]) for e in terminal]
        rows += groups.values()
    return rows


def drops_row(case: dict[str, Any]) -> Row | None:
    """The row of what the bounded operator dropped, under its policy."""
    found = bounded_operator(case)
    if not found or "dropped" not in case:
        return None
    capacity, policy = policy_of(found[1])
    row = Row(["dropped", f"({policy})"], 0, None, plain=True)
    for drop in case["dropped"]:
        row.marks.append(Mark(drop["t"], "next", drop["value"], GREY_FILL, "dropped",
                              f"dropped at frame {drop['t']} by {policy} (capacity {capacity})"))
    return row


# ---------------------------------------------------------------------------
# Drawing
# ---------------------------------------------------------------------------

@dataclass
class Layout:
    left: float  # where frame 0 starts: the names' column is before it
    frame: float  # pixels per frame
    frames: int  # frames drawn

    def x(self, t: float) -> float:
        return self.left + t * self.frame + self.frame / 2


def by_frame(row: Row) -> dict[int, list[Mark]]:
    found: dict[int, list[Mark]] = {}
    for mark in row.marks:
        if mark.kind == "next":
            found.setdefault(mark.t, []).append(mark)
    return found


def depth(row: Row) -> int:
    return max([len(marks) for marks in by_frame(row).values()] + [1])


def row_height(row: Row) -> float:
    return ROW + (depth(row) - 1) * STACK


def after_values(row: Row, t: int, layout: Layout, kind: str) -> float:
    """Where an event of `kind` that ends a row at frame `t` goes: at the
    frame, or after the values of that frame (so that no bar, cross or break
    mark crosses one)."""
    values = by_frame(row).get(t, [])
    if not values:
        return layout.x(t)
    return layout.x(t) + max(value_width(m.value) for m in values) / 2 + CLEAR[kind]


def marble(x: float, y: float, mark: Mark) -> list[str]:
    """A value: its circle (or pill) and its text."""
    w = value_width(mark.value)
    kind = {"value": "value", "dropped": "value dropped", "unreceived": "value unreceived", "never": "value never",
            "group": "value group"}[mark.style]
    faded = mark.style in ("dropped", "unreceived", "never")
    edge, ink = (GREY_EDGE, GREY_INK) if faded else ("#333", "#000")
    dash = " stroke-dasharray='4 3'" if mark.style == "dropped" else ""
    rx = 5 if mark.style == "group" else RADIUS
    title = f"<title>{html.escape(mark.title)}</title>" if mark.title else ""
    return [f"<rect class='{kind}' x='{x - w / 2:.1f}' y='{y - RADIUS}' width='{w:.1f}' height='{2 * RADIUS}' "
            f"rx='{rx}' fill='{mark.fill}' stroke='{edge}' stroke-width='1.5'{dash}>{title}</rect>",
            f"<text class='value-text' x='{x:.1f}' y='{y + 4.5}' text-anchor='middle' font-size='{VALUE_FONT}' "
            f"fill='{ink}' {FONT}>{html.escape(mark.value)}</text>"]


def row_svg(row: Row, layout: Layout) -> list[str]:
    """One row: its label, its line and its events."""
    y = row.y
    parts = [f"<text class='label' x='6' y='{y + 4 + 13 * n}' font-size='{LABEL_FONT if n == 0 else 11}' "
             f"fill='#555' {FONT}>{html.escape(line)}</text>" for n, line in enumerate(row.label)]
    stroke = "#999" if row.dim else "#333"
    received = [m for m in row.marks if m.style != "unreceived"]
    terminal = [m for m in received if m.kind != "next"]
    x0 = layout.left + row.start * layout.frame
    if row.plain:
        end_x = layout.left + layout.frames * layout.frame
        parts.append(f"<line x1='{x0}' y1='{y}' x2='{end_x:.1f}' y2='{y}' stroke='#bbb' stroke-width='1.5' "
                     "stroke-dasharray='2 4'/>")
    else:
        if terminal:
            end_x = after_values(row, terminal[0].t, layout, terminal[0].kind)
        elif row.end is not None:
            end_x = after_values(row, row.end, layout, "disposed")
        else:
            end_x = layout.left + layout.frames * layout.frame + layout.frame / 2
        if row.branch is not None:
            # A group: from the output's line, at its branch, down to its own.
            x0 = layout.x(row.branch) - layout.frame / 2
            # (From the bottom of its marble on the output's line: the
            # rows below are drawn later, over nothing of it.)
            top = row.branch_y + RADIUS
            parts.append(f"<path class='branch' d='M{layout.x(row.branch) - 4:.1f} {top:.1f} "
                         f"Q{x0:.1f} {top + 2:.1f} {x0:.1f} {top + 12:.1f} L{x0:.1f} {y}' stroke='{stroke}' "
                         "stroke-width='2' fill='none'/>")
        parts.append(f"<line x1='{x0:.1f}' y1='{y}' x2='{end_x:.1f}' y2='{y}' stroke='{stroke}' stroke-width='2'/>")
        if not terminal and row.end is None:
            parts.append(f"<path d='M{end_x:.1f} {y} l-8 -5 v10 z' fill='{stroke}'/>")
        elif not terminal:
            # A disposal: the line stops at a break mark (two slanted
            # strokes), unlike a completion's tall bar.
            parts.append(f"<path class='disposed' d='M{end_x - 7:.1f} {y + 7} l6 -14 M{end_x:.1f} {y + 7} l6 -14' "
                         "stroke='#777' stroke-width='2' fill='none'><title>disposed</title></path>")
        unreceived = [m for m in row.marks if m.style == "unreceived"]
        if unreceived:
            last = layout.x(max(m.t for m in unreceived))
            parts.append(f"<line x1='{end_x + 8:.1f}' y1='{y}' x2='{last:.1f}' y2='{y}' stroke='#bbb' "
                         "stroke-width='2' stroke-dasharray='3 4'/>")
    for t in row.ticks:
        x = layout.x(t)
        parts.append(f"<path class='drain' d='M{x - 5:.1f} {y - RADIUS - 9} h10 l-5 6 z' fill='#777'>"
                     f"<title>the host queue drained at frame {t}</title></path>")
    for t, marks in sorted(by_frame(row).items()):
        x = layout.x(t)
        if len(marks) > 1:
            parts.append(f"<line x1='{x:.1f}' y1='{y}' x2='{x:.1f}' y2='{y + STACK * (len(marks) - 1)}' "
                         "stroke='#999' stroke-width='1.5'/>")
        for n, mark in enumerate(marks):
            parts += marble(x, y + n * STACK, mark)
    for mark in terminal:
        x = after_values(row, mark.t, layout, mark.kind)
        if mark.kind == "completed":
            parts.append(f"<line class='completed' x1='{x:.1f}' y1='{y - 14}' x2='{x:.1f}' y2='{y + 14}' "
                         f"stroke='{stroke}' stroke-width='3'><title>completed</title></line>")
        else:
            parts.append(f"<path class='error' d='M{x - 9:.1f} {y - 9} l18 18 M{x + 9:.1f} {y - 9} l-18 18' "
                         "stroke='#c0392b' stroke-width='3'><title>error</title></path>")
    return parts


def case_svg(case: dict[str, Any]) -> str:
    """The picture of one case: each input as it played, the operators in
    a box, what each subscriber recorded, and what was dropped."""
    inputs, by_name = input_rows(case)
    mark_drops(case, by_name)
    origins = origin_colors(inputs)
    outputs = output_rows(case, origins)
    drains = host_drains(case)
    if drains and outputs:
        outputs[0].ticks = drains
    dropped = drops_row(case)
    if dropped:
        outputs.append(dropped)
    rows = inputs + outputs
    operators = " | ".join(case["operators"])

    last = 1
    for row in rows:
        last = max([last] + [m.t + 1 for m in row.marks] + ([row.end] if row.end is not None else []))
    last = max([last] + [t + 1 for t in drains])
    frames = last + 1
    widest = max([value_width(m.value) for row in rows for m in row.marks if m.kind == "next"] + [2.0 * RADIUS])
    left = max([64.0] + [text_width(line, LABEL_FONT) + 16 for row in rows for line in row.label])
    layout = Layout(left=round(left), frame=max(MIN_FRAME, round(widest + 8)), frames=frames)
    ends = [after_values(row, m.t, layout, m.kind) for row in rows for m in row.marks if m.kind != "next"]
    width = max(layout.left + frames * layout.frame + layout.frame,
                layout.left + text_width(operators, BOX_FONT, mono=True) + 40,
                max(ends + [0.0]) + 24)
    width = round(width)

    y = 4.0
    for row in inputs:
        row.y = y + ROW / 2
        y += row_height(row)
    box_y = y + 2
    y = box_y + BOX_HEIGHT + 6
    for row in outputs:
        row.y = y + ROW / 2
        y += row_height(row)
    height = round(y + 8)

    parts = [f"<svg xmlns='http://www.w3.org/2000/svg' width='{width}' height='{height}' "
             f"viewBox='0 0 {width} {height}' role='img'>",
             f"<title>{html.escape(case['name'])}: {html.escape(operators)}</title>",
             "<rect width='100%' height='100%' fill='#fff'/>"]
    for row in inputs:
        parts += row_svg(row, layout)
    box_w = width - layout.left - 12
    parts.append(f"<rect class='operators-box' x='{layout.left}' y='{box_y}' width='{box_w}' height='{BOX_HEIGHT}' "
                 "fill='#f7f7f7' stroke='#333' stroke-width='1.5'/>")
    parts.append(f"<text class='operators' x='{layout.left + box_w / 2}' y='{box_y + 22}' text-anchor='middle' "
                 f"font-size='{BOX_FONT}' {MONO}>{html.escape(operators)}</text>")
    for row in outputs:
        parts += row_svg(row, layout)
    parts.append("</svg>")
    return "\n".join(parts) + "\n"
