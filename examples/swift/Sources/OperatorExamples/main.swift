// GENERATED FILE, DO NOT EDIT: written by tools/docs/examples.py (make api-update).
// Runs the operator example its argument names (make test-examples-swift).
#if canImport(Glibc)
import Glibc
#endif

let examples: [String: () throws -> Void] = [
    "afterCompleted": Example_afterCompleted.run,
    "afterDisposed": Example_afterDisposed.run,
    "afterNext": Example_afterNext.run,
    "beforeCompleted": Example_beforeCompleted.run,
    "beforeNext": Example_beforeNext.run,
    "beforeStarted": Example_beforeStarted.run,
    "bufferCount": Example_bufferCount.run,
    "bufferTime": Example_bufferTime.run,
    "catch": Example_catch.run,
    "combineLatest": Example_combineLatest.run,
    "concat": Example_concat.run,
    "concatMap": Example_concatMap.run,
    "debounce": Example_debounce.run,
    "defaultIfEmpty": Example_defaultIfEmpty.run,
    "deferred": Example_deferred.run,
    "delay": Example_delay.run,
    "deliverOn": Example_deliverOn.run,
    "deliverOnBounded": Example_deliverOnBounded.run,
    "distinctUntilChanged": Example_distinctUntilChanged.run,
    "elementAt": Example_elementAt.run,
    "filter": Example_filter.run,
    "first": Example_first.run,
    "firstWhere": Example_firstWhere.run,
    "groupBy": Example_groupBy.run,
    "ignoreValues": Example_ignoreValues.run,
    "last": Example_last.run,
    "map": Example_map.run,
    "merge": Example_merge.run,
    "mergeMap": Example_mergeMap.run,
    "onBackpressureBuffer": Example_onBackpressureBuffer.run,
    "pairwise": Example_pairwise.run,
    "queue": Example_queue.run,
    "reduce": Example_reduce.run,
    "replay": Example_replay.run,
    "restart": Example_restart.run,
    "restartIfError": Example_restartIfError.run,
    "retry": Example_retry.run,
    "retryBackoff": Example_retryBackoff.run,
    "retryDelay": Example_retryDelay.run,
    "runOn": Example_runOn.run,
    "sample": Example_sample.run,
    "sampleTime": Example_sampleTime.run,
    "scan": Example_scan.run,
    "share": Example_share.run,
    "skip": Example_skip.run,
    "skipWhile": Example_skipWhile.run,
    "startWith": Example_startWith.run,
    "switchMap": Example_switchMap.run,
    "switchToLatest": Example_switchToLatest.run,
    "take": Example_take.run,
    "takeUntil": Example_takeUntil.run,
    "takeWhile": Example_takeWhile.run,
    "takeWhileInclusive": Example_takeWhileInclusive.run,
    "then": Example_then.run,
    "throttle": Example_throttle.run,
    "throttled": Example_throttled.run,
    "timeout": Example_timeout.run,
    "withLatestFrom": Example_withLatestFrom.run,
    "zip": Example_zip.run,
    "zip3": Example_zip3.run,
]
let name = CommandLine.arguments.count > 1 ? CommandLine.arguments[1] : ""
guard let example = examples[name] else {
    print("usage: OperatorExamples OPERATOR (one of \(examples.keys.sorted()))")
    exit(2)
}
try example()
