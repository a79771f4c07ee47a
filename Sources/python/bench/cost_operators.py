"""GENERATED FILE, DO NOT EDIT: written by tools/api/operators.py from
tools/api/operators.md (`make api-update`). The Python rows of the cost
table (issue 41): every C operator of a standard shape with a Python
name, as (row, shape, our method, RxPY's operator or None); bench.py
times each between a pipe and a plain subscriber. Not here: the
operators of a queue or time, and those of a signal of signals
(tools/api/operators.py, COST_PY_SKIPPED)."""

COST_OPERATORS = [
    ("map", "map", "map", 'map'),
    ("filter", "predicate", "filter", 'filter'),
    ("distinct_until_changed", "unary", "distinct_until_changed", 'distinct_until_changed'),
    ("before_next", "tap", "before_next", 'do_action'),
    ("take", "count", "take", 'take'),
    ("take_until_signal", "signal", "take_until", 'take_until'),
    ("skip", "count", "skip", 'skip'),
    ("skip_while", "predicate", "skip_while", 'skip_while'),
    ("first", "unary", "first", 'first'),
    ("first_where", "predicate", "first", 'first'),
    ("element_at", "count", "element_at", 'element_at'),
    ("default_if_empty", "value", "default_if_empty", 'default_if_empty'),
    ("last", "unary", "last", 'last'),
    ("zip", "signals", "zip", 'zip'),
    ("with_latest_from", "signal", "with_latest_from", 'with_latest_from'),
    ("merge", "signals", "merge", 'merge'),
    ("concat", "signals", "concat", 'concat'),
    ("then", "signal", "then", 'concat'),
    ("start_with", "value", "start_with", 'start_with'),
    ("ignore_values", "unary", "ignore_values", 'ignore_elements'),
    ("group_by", "map", "group_by", 'group_by'),
    ("share", "unary", "share", 'share'),
    ("replay", "count", "replay", 'replay'),
    ("restart", "unary", "restart", 'repeat'),
    ("restart_if_error", "unary", "restart_if_error", 'retry'),
    ("reduce_left", "reduce", "reduce", 'reduce'),
    ("scan", "reduce", "scan", 'scan'),
    ("pairwise", "unary", "pairwise", 'pairwise'),
    ("after_next", "tap", "after_next", None),
    ("before_started", "work", "before_started", None),
    ("before_completed", "work", "before_completed", 'do_action'),
    ("after_completed", "work", "after_completed", None),
    ("after_disposed", "work", "after_disposed", 'finally_action'),
    ("buffer_count", "count", "buffer_with_count", 'buffer_with_count'),
    ("sample", "signal", "sample", 'sample'),
]
