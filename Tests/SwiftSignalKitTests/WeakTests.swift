import XCTest
import SwiftSignalKit

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

    func testConcurrentReadsWhileTheObjectIsReleased() {
        for _ in 0 ..< 50 {
            nonisolated(unsafe) var object: Object? = Object()
            let weak = Weak(object!)
            nonisolated(unsafe) let box = weak
            let seenAfterRelease = Atomic<Int>(value: 0)
            let released = Atomic<Bool>(value: false)
            let group = DispatchGroup()
            for _ in 0 ..< 4 {
                group.enter()
                DispatchQueue.global().async {
                    for _ in 0 ..< 200 {
                        let wasReleased = released.with { $0 }
                        if box.value != nil && wasReleased {
                            seenAfterRelease.modify { $0 + 1 }
                        }
                    }
                    group.leave()
                }
            }
            object = nil
            released.swap(true)
            XCTAssertEqual(group.wait(timeout: .now() + 10), .success)
            XCTAssertEqual(seenAfterRelease.with { $0 }, 0)
            XCTAssertNil(weak.value)
        }
    }
}
