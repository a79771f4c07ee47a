// Search-as-you-type with SwiftSignalKit: keystrokes go through a pipe, are
// normalised, de-duplicated and debounced; each surviving query starts a
// (simulated) search whose results replace those of the previous query.
import Dispatch
import SwiftSignalKit

let words = ["signal", "signalkit", "single", "sigma", "swift", "subscriber", "switch", "queue"]

/// A search that answers on `worker` after a short delay; disposing it cancels it.
func search(_ query: String, on worker: Queue) -> Signal<[String], NoError> {
    return Signal { subscriber in
        let cancelled = Atomic(value: false)
        worker.after(0.15) {
            if !cancelled.with({ $0 }) {
                subscriber.putNext(words.filter { $0.hasPrefix(query) })
                subscriber.putCompletion()
            }
        }
        return ActionDisposable {
            if !cancelled.swap(true) {
                print("  (search for \"\(query)\" cancelled)")
            }
        }
    }
}

let keystrokes = ValuePipe<String>()
let worker = Queue(name: "search")
let ui = Queue(name: "ui")
let done = DispatchSemaphore(value: 0)

let results = keystrokes.signal()
    |> map { $0.lowercased() }
    |> distinctUntilChanged
    |> debounce(0.05, queue: worker)
    |> mapToSignal { query -> Signal<(String, [String]), NoError> in
        print("searching \"\(query)\"")
        return search(query, on: worker) |> map { (query, $0) }
    }
    |> deliverOn(ui)

let disposable = results.start(next: { query, matches in
    print("results for \"\(query)\": \(matches)")
    if query == "sw" {
        done.signal()
    }
})

// A burst of typing: only "sig" survives the debounce.
for text in ["s", "si", "Si", "sig"] {
    keystrokes.putNext(text)
}
// Wait for the results, then type again; "sw" replaces "s" before its search ends.
ui.after(0.3) {
    keystrokes.putNext("s")
    worker.after(0.06) {
        keystrokes.putNext("sw")
    }
}

if done.wait(timeout: .now() + 10) == .timedOut {
    print("timed out")
}
disposable.dispose()
