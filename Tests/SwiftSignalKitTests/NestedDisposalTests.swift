import XCTest
@testable import SwiftSignalKit
import SwiftSignalKitTestSupport

/// Containers nested deeper than `_NestedDisposal.inlineBudget`: the deeper
/// disposes and ends are put off to the thread's list (see
/// `_NestedDisposal`). The order in which they run, and the work the list
/// does for N nested containers (linear in N, however deep).
final class NestedDisposalTests: XCTestCase {
    /// What the test's disposables saw, in order.
    private final class Journal: @unchecked Sendable {
        var events: [String] = []
    }

    /// A member that records its dispose, and its release (when the
    /// container holding it lets it go).
    private final class Tracked: Disposable, @unchecked Sendable {
        let name: String
        let journal: Journal

        init(_ name: String, _ journal: Journal) {
            self.name = name
            self.journal = journal
        }

        deinit {
            self.journal.events.append("released \(self.name)")
        }

        func dispose() {
            self.journal.events.append("disposed \(self.name)")
        }
    }

    /// `levels` sets, each holding a tracked member then the next set
    /// (the innermost holds two tracked members); only the outermost is
    /// returned (the others are held by their set alone).
    private func nestedSets(_ levels: Int, _ journal: Journal) -> DisposableSet {
        var inner: any Disposable = Tracked("innermost", journal)
        for level in stride(from: levels, through: 1, by: -1) {
            let set = DisposableSet()
            set.add(Tracked("\(level)", journal))
            set.add(inner)
            inner = set
        }
        return inner as! DisposableSet
    }

    /// The order of 100 nested sets' disposes and ends (each end lets go
    /// of the set's members). Set k's dispose runs in the 32nd frame of the
    /// thread for k = 32, 64, 96 (a put-off dispose starts at the first):
    /// it puts off its two members' disposes, the next set's first (the
    /// list takes the last put off first), and its end and the ends of the
    /// 30 sets above it that wait for it. Pins the order the list ran them
    /// in before its ends were taken by index instead of from the front of
    /// an array.
    func testNestedDisposesAndEndsRunInTheirOrder() {
        let journal = Journal()
        var outermost: DisposableSet? = self.nestedSets(100, journal)
        outermost?.dispose()
        outermost = nil

        let putOff = [32, 64, 96]
        var expected = (1 ... 100).filter { !putOff.contains($0) }.map { "disposed \($0)" }
        expected.append("disposed innermost")
        // Sets 97-100 put nothing off: each ends as its dispose returns
        // (set 100 releases its two members, the others the set below too).
        expected += ["released 100", "released innermost", "released 99", "released 98", "released 97"]
        // The put-off members, last put off first.
        expected += ["disposed 96", "disposed 64", "disposed 32"]
        // The put-off ends, in the order they were put off: 32-2 (set 1 is
        // the outermost: its end comes last), 64-33, 96-65, each batch
        // deepest first.
        for batch in putOff {
            expected += (max(2, batch - 31) ... batch).reversed().map { "released \($0)" }
        }
        expected.append("released 1")
        XCTAssertEqual(journal.events, expected)
    }

    /// The work of `_NestedDisposal.drain` for `count` nested containers of
    /// one kind, disposed then released on this thread.
    private func drainWork(_ count: Int, _ make: (any Disposable) -> any Disposable) -> (work: Int, disposed: Bool) {
        var disposed = false
        var inner: any Disposable = ActionDisposable { disposed = true }
        for _ in 0 ..< count {
            inner = make(inner)
        }
        let before = _NestedDisposal.workDone.load(ordering: .relaxed)
        inner.dispose()
        inner = EmptyDisposable
        return (_NestedDisposal.workDone.load(ordering: .relaxed) - before, disposed)
    }

    /// Disposing N nested containers does work linear in N: 100 times the
    /// containers, about 100 times the work (it was 10,000 times: each put-off
    /// end was taken from the front of an array, moving all the others).
    /// Counted, not timed.
    private func checkLinearWork(_ kind: String, file: StaticString = #filePath, line: UInt = #line, _ make: (any Disposable) -> any Disposable) {
        // 100 times the nesting (20 times under ThreadSanitizer): linear
        // work grows as much, within a fifth more; quadratic, 100 times more.
        let smallDepth = 1_000
        let largeDepth = loadCount(100_000)
        let small = self.drainWork(smallDepth, make)
        let large = self.drainWork(largeDepth, make)
        XCTAssertTrue(small.disposed && large.disposed, "\(kind): the innermost action was not disposed", file: file, line: line)
        XCTAssertGreaterThan(small.work, smallDepth, "\(kind): the list did not work through the nesting", file: file, line: line)
        let ratio = Double(large.work) / Double(small.work)
        let growth = Double(largeDepth / smallDepth)
        XCTAssertLessThan(ratio, growth * 1.2, "\(kind): \(growth) times the nesting took \(ratio) times the work (\(small.work) -> \(large.work))", file: file, line: line)
    }

    func testDisposingNestedMetaDisposablesDoesLinearWork() {
        self.checkLinearWork("meta") { inner in
            let meta = MetaDisposable()
            meta.set(inner)
            return meta
        }
    }

    func testDisposingNestedDisposableSetsDoesLinearWork() {
        self.checkLinearWork("set") { inner in
            let set = DisposableSet()
            set.add(inner)
            return set
        }
    }

    func testDisposingNestedDisposableDictsDoesLinearWork() {
        self.checkLinearWork("dict") { inner in
            let dict = DisposableDict<Int>()
            dict.set(inner, forKey: 0)
            return dict
        }
    }
}
