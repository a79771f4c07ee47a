import SwiftSignalKit

// Jobs mapped to workers one at a time, at most one job waiting for the
// worker, the next dropped and reported.
let jobs = ValuePipe<Int>()
let workers = [ValuePipe<Int>(), ValuePipe<Int>(), ValuePipe<Int>()]
let disposable = (jobs.signal()
    |> mergeMap(maxConcurrent: 1, capacity: 1, overflow: .dropNewest, onDrop: { job, count in
        print("job \(job) dropped (\(count) so far)")
    }) { job in
        print("job \(job) starts")
        return workers[job].signal()
    })
    .start(next: { print("result \($0)") })
jobs.putNext(0)             // job 0 takes the worker
jobs.putNext(1)             // job 1 waits
jobs.putNext(2)             // no room: dropped
workers[0].putNext(10)
workers[0].putCompletion()  // the worker is free: job 1
workers[1].putNext(11)
disposable.dispose()
