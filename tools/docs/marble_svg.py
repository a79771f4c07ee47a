# Copyright (c) The SignalKit authors. MIT licence (LICENSE).
"""The marble pictures of the operator pages: site.py writes one per case of
the shared marble table (Tests/marbles), drawn from what the case recorded
when the Swift runner played it (SIGNALKIT_MARBLE_DUMP,
Tests/SwiftSignalKitTestingTests/MarbleTableTests.swift), never from its
`out` line. Standard library only.
"""

from __future__ import annotations

import html
from typing import Any


FRAME = 34  # pixels per frame
LEFT = 64  # the names' column
ROW = 46  # one timeline
RADIUS = 13
FONT = "font-family='DejaVu Sans, Helvetica, Arial, sans-serif'"
PALETTE = ["#f2c14e", "#7cc6fe", "#9be39b", "#f78fb3", "#c3aed6", "#ffb870", "#8fd3d3", "#e2e27a"]


MADE = "#ffffff"  # a value the operator made at a frame where no input emitted
DROPPED = "#eeeeee"  # a value an input sent after its disposal: nobody received it


def origin_colors(rows: list[tuple[str, int, int | None, list[dict[str, Any]], int, bool]]
                  ) -> dict[int, list[tuple[str, str]]]:
    """Frame -> (value, colour) of each value the inputs emitted there, each
    input's values in the colour of its row: an output value takes the
    colour of the input value it came from (same frame, the same value
    first), so that a picture shows where each value came from, not its
    number."""
    found: dict[int, list[tuple[str, str]]] = {}
    for index, (_, _, _, events, shift, _) in enumerate(rows):
        for event in events:
            if event["kind"] == "next":
                found.setdefault(event["t"] + shift, []).append((event["value"], PALETTE[index % len(PALETTE)]))
    return found


def output_color(event: dict[str, Any], origins: dict[int, list[tuple[str, str]]]) -> str:
    """The colour of the input value a delivered value came from: one at its
    frame (the same value first), else the latest same value before it (a
    value held and delivered later: debounce, delay), else white."""
    candidates = origins.get(event["t"], [])
    same = [color for value, color in candidates if value == event["value"]]
    if same or candidates:
        return same[0] if same else candidates[0][1]
    for frame in sorted((f for f in origins if f < event["t"]), reverse=True):
        held = [color for value, color in origins[frame] if value == event["value"]]
        if held:
            return held[0]
    return MADE


def value_width(value: str) -> float:
    """A circle for a short value, a pill for a longer one (a list)."""
    return max(2 * RADIUS, 8.5 * len(value) + 12)


def timeline_svg(y: float, start: int, end: int | None, events: list[dict[str, Any]], shift: int, frames: int,
                 dim: bool = False, color: Any = None, dropped: list[dict[str, Any]] | None = None) -> list[str]:
    """One timeline: its line from frame `start` (to `end`, or the picture's
    end with an arrow), the events at their frames plus `shift`, each value
    in color(event)'s colour; `dropped`, what the input sent after its
    disposal, greyed on a dotted line."""
    parts = []
    x0 = LEFT + start * FRAME
    # A line ends at its terminal event, else at its disposal (a tick), else
    # it runs on (an arrow).
    terminal = [e["t"] + shift for e in events if e["kind"] != "next"]
    last = terminal[0] if terminal else frames if end is None else end
    x1 = LEFT + last * FRAME + FRAME / 2
    stroke = "#999" if dim else "#333"
    parts.append(f"<line x1='{x0}' y1='{y}' x2='{x1}' y2='{y}' stroke='{stroke}' stroke-width='2'/>")
    if terminal:
        pass
    elif end is None:
        parts.append(f"<path d='M{x1} {y} l-8 -5 v10 z' fill='{stroke}'/>")
    else:
        # A disposal: the line stops at a break mark (two slanted strokes),
        # unlike a completion's tall bar.
        parts.append(f"<path d='M{x1 - 7} {y + 7} l6 -14 M{x1} {y + 7} l6 -14' stroke='#777' stroke-width='2' "
                     "fill='none'><title>disposed</title></path>")
    same_frame: dict[int, int] = {}
    if dropped:
        last_dropped = max(e["t"] + shift for e in dropped)
        parts.append(f"<line x1='{x1 + 8}' y1='{y}' x2='{LEFT + last_dropped * FRAME + FRAME / 2}' y2='{y}' "
                     "stroke='#bbb' stroke-width='2' stroke-dasharray='3 4'/>")
    for event, faded in [(e, False) for e in events] + [(e, True) for e in dropped or []]:
        t = event["t"] + shift
        n = same_frame.get(t, 0)
        same_frame[t] = n + 1
        x = LEFT + t * FRAME + FRAME / 2 + n * 10
        if event["kind"] == "next":
            value = event["value"]
            w = value_width(value)
            fill = DROPPED if faded else color(event) if color else MADE
            edge, ink = ("#bbb", "#999") if faded else ("#333", "#000")
            title = "<title>sent after the disposal: dropped</title>" if faded else ""
            parts.append(f"<rect x='{x - w / 2:.1f}' y='{y - RADIUS}' width='{w:.1f}' height='{2 * RADIUS}' "
                         f"rx='{RADIUS}' fill='{fill}' stroke='{edge}' stroke-width='1.5'>{title}</rect>")
            parts.append(f"<text x='{x:.1f}' y='{y + 4.5}' text-anchor='middle' font-size='13' fill='{ink}' {FONT}>"
                         f"{html.escape(value)}</text>")
        elif faded:
            continue
        elif event["kind"] == "completed":
            parts.append(f"<line x1='{x:.1f}' y1='{y - 14}' x2='{x:.1f}' y2='{y + 14}' stroke='#333' "
                         "stroke-width='3'><title>completed</title></line>")
        else:
            parts.append(f"<path d='M{x - 9:.1f} {y - 9} l18 18 M{x + 9:.1f} {y - 9} l-18 18' stroke='#c0392b' "
                         "stroke-width='3'><title>error</title></path>")
    return parts


def case_svg(case: dict[str, Any]) -> str:
    """The picture of one case: each input (a cold one once per
    subscription, from the frame it began to the frame it was disposed, as
    it played), the operators in a box, and what each subscriber recorded."""
    inputs = case["inputs"]
    subscribers = case["subscribers"]
    rows: list[tuple[str, int, int | None, list[dict[str, Any]], int, bool]] = []
    dropped_of: list[list[dict[str, Any]]] = []
    frames = 1
    for item in inputs:
        subs = item["subscriptions"]
        events = item["events"]
        if item["hot"]:
            plays = [(item["name"] + " (hot)", 0, None, 0, False)]
        elif subs:
            # A cold input plays anew for each subscription: a row each.
            plays = [(item["name"] + (f" #{n + 1}" if n else ""), sub["from"], sub["to"], sub["from"], False)
                     for n, sub in enumerate(subs)]
        else:
            plays = [(item["name"] + " (never subscribed)", 0, None, 0, True)]
        for label, start, end, shift, dim in plays:
            shown = [e for e in events if e["t"] + shift >= 0 and (end is None or e["t"] + shift <= end)]
            # What a cold input would have sent after its disposal: values
            # the operator dropped (a switch's replaced inner signal).
            after = [e for e in events if end is not None and e["t"] + shift > end and e["kind"] == "next"]
            rows.append((label, start, end, shown, shift, dim))
            dropped_of.append(after)
            for e in shown + after:
                frames = max(frames, e["t"] + shift + 1)
            if end is not None:
                frames = max(frames, end)
    outputs = []
    for index, sub in enumerate(subscribers):
        label = "out" if index == 0 else f"out {index + 1}"
        outputs.append((label, sub["from"], sub["to"], sub["events"], 0, False))
        for e in sub["events"]:
            frames = max(frames, e["t"] + 1)
        if sub["to"] is not None:
            frames = max(frames, sub["to"])
    frames += 1
    width = LEFT + frames * FRAME + FRAME
    box_height = 34
    height = ROW * (len(rows) + len(outputs)) + box_height + 24
    parts = [f"<svg xmlns='http://www.w3.org/2000/svg' width='{width}' height='{height}' "
             f"viewBox='0 0 {width} {height}' role='img'>",
             f"<title>{html.escape(case['name'])}: {html.escape(' | '.join(case['operators']))}</title>",
             "<rect width='100%' height='100%' fill='#fff'/>"]
    y = ROW / 2 + 4
    origins = origin_colors(rows)
    for index, (label, start, end, events, shift, dim) in enumerate(rows):
        own = PALETTE[index % len(PALETTE)]
        parts.append(f"<text x='6' y='{y + 4}' font-size='12' fill='#555' {FONT}>{html.escape(label)}</text>")
        parts.extend(timeline_svg(y, start, end, events, shift, frames, dim, lambda event, own=own: own,
                                  dropped_of[index]))
        y += ROW
    box_y = y - ROW / 2 + 6
    parts.append(f"<rect x='{LEFT}' y='{box_y}' width='{width - LEFT - 12}' height='{box_height}' fill='#f7f7f7' "
                 "stroke='#333' stroke-width='1.5'/>")
    parts.append(f"<text x='{LEFT + (width - LEFT - 12) / 2}' y='{box_y + 22}' text-anchor='middle' font-size='14' "
                 f"font-family='DejaVu Sans Mono, monospace'>{html.escape(' | '.join(case['operators']))}</text>")
    y = box_y + box_height + ROW / 2 + 6
    for label, start, end, events, shift, dim in outputs:
        parts.append(f"<text x='6' y='{y + 4}' font-size='12' fill='#555' {FONT}>{html.escape(label)}</text>")
        parts.extend(timeline_svg(y, start, end, events, shift, frames, dim,
                                  lambda event: output_color(event, origins)))
        y += ROW
    parts.append("</svg>")
    return "\n".join(parts) + "\n"
