// Search-as-you-type with SwiftSignalKit: keystrokes go through a pipe, are
// normalised, de-duplicated and debounced; each surviving query starts a
// (simulated) search whose results replace those of the previous query.
import Dispatch
import SwiftSignalKit

let words = ["signal", "signalkit", "single", "sigma", "swift", "subscriber", "switch", "queue"]

/// A search that answers on `worker` after a short delay; disposing it before
/// it answered cancels it (disposing it afterwards, as every finished
/// subscription is, does nothing).
func search(_ query: String, on worker: Queue) -> Signal<[String], NoError> {
    return Signal { subscriber in
        let ended = Atomic(value: false)
        worker.after(0.4) {
            if !ended.swap(true) {
                subscriber.putNext(words.filter { $0.hasPrefix(query) })
                subscriber.putCompletion()
            }
        }
        return ActionDisposable {
            if !ended.swap(true) {
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
    if query == "sig" {
        // Type again: "s" is searched, then "sw" replaces it before its
        // search answers (which takes 0.4 s).
        keystrokes.putNext("s")
        worker.after(0.15) {
            keystrokes.putNext("sw")
        }
    } else if query == "sw" {
        done.signal()
    }
})

// A burst of typing: only "sig" survives the debounce.
for text in ["s", "si", "Si", "sig"] {
    keystrokes.putNext(text)
}

if done.wait(timeout: .now() + 10) == .timedOut {
    print("timed out")
}
disposable.dispose()
