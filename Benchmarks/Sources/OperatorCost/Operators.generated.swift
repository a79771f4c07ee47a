// GENERATED FILE, DO NOT EDIT: written by tools/api/operators.py from
// tools/api/operators.md (`make api-update`). The cost table's rows of the
// Swift API (issue 41): every C operator of a standard shape, through its
// Swift name and the C function's shape; main.swift defines CostArguments
// and builds the others by hand (tools/api/operators.py, COST_SWIFT_BY_HAND,
// says why each).
import CostRows
import SwiftSignalKit

func generatedCostRows() -> [(String, (CostArguments) -> Disposable)] {
    [
        ("map", { a in a.start(a.source |> map(a.map)) }),
        ("filter", { a in a.start(a.source |> filter(a.predicate)) }),
        ("distinct_until_changed", { a in a.start(a.source |> distinctUntilChanged) }),
        ("before_next", { a in a.start(a.source |> beforeNext(a.look)) }),
        ("take", { a in a.start(a.source |> take(a.count)) }),
        ("take_until_signal", { a in a.start(a.source |> takeUntil(a.other)) }),
        ("skip", { a in a.start(a.source |> skip(a.count)) }),
        ("skip_while", { a in a.start(a.source |> skipWhile(a.predicate)) }),
        ("first", { a in a.start(a.source |> first) }),
        ("first_where", { a in a.start(a.source |> first(where: a.predicate)) }),
        ("element_at", { a in a.start(a.source |> elementAt(a.count)) }),
        ("default_if_empty", { a in a.start(a.source |> defaultIfEmpty(0)) }),
        ("with_latest_from", { a in a.start(a.source |> withLatestFrom(a.other)) }),
        ("merge", { a in a.start(merge([a.source, a.source])) }),
        ("concat", { a in a.start(concat([a.source, a.source])) }),
        ("then", { a in a.start(a.source |> then(a.other)) }),
        ("start_with", { a in a.start(a.source |> startWith(0)) }),
        ("ignore_values", { a in a.start(a.source |> ignoreValues) }),
        ("group_by", { a in a.start(a.source |> groupBy(a.map)) }),
        ("share", { a in a.start(a.source |> share) }),
        ("replay", { a in a.start(a.source |> replay(a.count)) }),
        ("restart", { a in a.start(a.source |> restart) }),
        ("restart_if_error", { a in a.start(a.source |> restartIfError) }),
        ("scan", { a in a.start(a.source |> scan(0, a.fold)) }),
        ("pairwise", { a in a.start(a.source |> pairwise) }),
        ("after_next", { a in a.start(a.source |> afterNext(a.look)) }),
        ("before_started", { a in a.start(a.source |> beforeStarted(a.work)) }),
        ("before_completed", { a in a.start(a.source |> beforeCompleted(a.work)) }),
        ("after_completed", { a in a.start(a.source |> afterCompleted(a.work)) }),
        ("after_disposed", { a in a.start(a.source |> afterDisposed(a.work)) }),
        ("deliver_on", { a in a.start(a.source |> deliverOn(a.queue)) }),
        ("run_on", { a in a.start(a.source |> runOn(a.queue)) }),
        ("delay", { a in a.start(a.source |> delay(COST_SECONDS, queue: a.queue)) }),
        ("debounce", { a in a.start(a.source |> debounce(COST_SECONDS, queue: a.queue)) }),
        ("throttle", { a in a.start(a.source |> throttle(COST_SECONDS, queue: a.queue)) }),
        ("buffer_count", { a in a.start(a.source |> buffer(count: a.count)) }),
        ("buffer_time", { a in a.start(a.source |> buffer(timeSpan: COST_SECONDS, queue: a.queue)) }),
        ("sample", { a in a.start(a.source |> sample(a.other)) }),
        ("sample_period", { a in a.start(a.source |> sample(period: COST_SECONDS, queue: a.queue)) }),
    ]
}
