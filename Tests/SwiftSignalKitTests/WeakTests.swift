import XCTest
import SwiftSignalKit
import SwiftSignalKitTestSupport

final class WeakTests: XCTestCase {
    private final class Object {
    }

    func testValueIsTheObjectWhileItIsAlive() {
        let object = Object()
        let weak = Weak(object)
        XCTAssertTrue(weak.value === object)
        withExtendedLifetime(object) {}
    }

    func testWeakDoesNotKeepTheObjectAlive() {
        var object: Object? = Object()
        let weak = Weak(object!)
        XCTAssertNotNil(weak.value)
        object = nil
        XCTAssertNil(weak.value)
    }

    func testWeakReferencesInACollection() {
        var objects: [Object] = (0 ..< 4).map { _ in Object() }
        let boxes = objects.map { Weak($0) }
        objects.removeLast(2)
        XCTAssertEqual(boxes.map { $0.value != nil }, [true, true, false, false])
        XCTAssertTrue(boxes[0].value === objects[0])
        objects.removeAll()
        XCTAssertEqual(boxes.filter { $0.value != nil }.count, 0)
    }

    /// Readers racing the release only ever see the original object or nil
    /// (a reader's own temporary strong reference may briefly keep the object
    /// alive, so "nil as soon as released" cannot be asserted while readers
    /// run); once they are done, the box is empty.
    func testConcurrentReadsWhileTheObjectIsReleased() {
        for _ in 0 ..< 50 {
            nonisolated(unsafe) var object: Object? = Object()
            let identity = ObjectIdentifier(object!)
            let weak = Weak(object!)
            nonisolated(unsafe) let box = weak
            let foreign = Atomic<Int>(value: 0)
            let group = DispatchGroup()
            for _ in 0 ..< 4 {
                group.enter()
                DispatchQueue.global().async {
                    for _ in 0 ..< 200 {
                        if let value = box.value, ObjectIdentifier(value) != identity {
                            foreign.modify { $0 + 1 }
                        }
                    }
                    group.leave()
                }
            }
            object = nil
            XCTAssertEqual(group.wait(timeout: .now() + waitDeadline), .success)
            XCTAssertEqual(foreign.with { $0 }, 0)
            XCTAssertNil(weak.value)
        }
    }
}
