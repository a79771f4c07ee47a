import XCTest
import SwiftSignalKit

final class Signal_MappingTests: XCTestCase {
    func testMapFilterChain() {
        var values: [Int] = []
        var completed = 0
        let source = Signal<Int, NoError> { subscriber in
            for i in 0 ..< 10 {
                subscriber.putNext(i)
            }
            subscriber.putCompletion()
            return EmptyDisposable
        }
        _ = (source |> map { $0 + 1 } |> filter { $0 % 2 == 0 }).start(next: { values.append($0) }, completed: { completed += 1 })
        XCTAssertEqual(values, [2, 4, 6, 8, 10])
        XCTAssertEqual(completed, 1)
    }
}
