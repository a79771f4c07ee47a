"""GENERATED FILE, DO NOT EDIT: written by tools/api/operators.py from
tools/api/operators.md (`make api-update`). The marble table's operators
whose C function has a standard shape: name -> (shape, method; the
shape signals calls it on the class);
test_marble_table.py builds the others by hand."""

MARBLE_OPERATORS = {
    "map": ("map", "map"),
    "filter": ("predicate", "filter"),
    "distinctUntilChanged": ("unary", "distinct_until_changed"),
    "take": ("count", "take"),
    "takeUntil": ("signal", "take_until"),
    "skip": ("count", "skip"),
    "skipWhile": ("predicate", "skip_while"),
    "first": ("unary", "first"),
    "firstWhere": ("predicate", "first"),
    "elementAt": ("count", "element_at"),
    "defaultIfEmpty": ("value", "default_if_empty"),
    "withLatestFrom": ("signal", "with_latest_from"),
    "merge": ("signals", "merge"),
    "concat": ("signals", "concat"),
    "startWith": ("value", "start_with"),
    "share": ("unary", "share"),
    "replay": ("count", "replay"),
    "reduce": ("reduce", "reduce"),
    "scan": ("reduce", "scan"),
    "pairwise": ("unary", "pairwise"),
    "delay": ("time", "delay"),
    "debounce": ("time", "debounce"),
    "throttle": ("time", "throttle"),
    "bufferCount": ("count", "buffer_with_count"),
    "bufferTime": ("time", "buffer_with_time"),
    "sample": ("signal", "sample"),
    "sampleTime": ("time", "sample"),
}
