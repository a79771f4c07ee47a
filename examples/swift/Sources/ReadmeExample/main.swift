import SwiftSignalKit

let pipe = ValuePipe<Int>()
let results = Queue(name: "results")
let disposable = (pipe.signal()
    |> map { $0 * 2 }
    |> filter { $0 > 2 }
    |> deliverOn(results))
    .start(next: { print($0) })
pipe.putNext(1)
pipe.putNext(2)
pipe.putNext(3)
results.sync {}    // the deliveries queued before this have run
disposable.dispose()
