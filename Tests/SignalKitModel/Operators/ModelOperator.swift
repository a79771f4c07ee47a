#if DEBUG // debug builds only: Package.swift, the SignalKitModel target
import SwiftSignalKit

// How the model-based tester describes an operator: once, as one struct that
// conforms to `ModelOperator`, in the file of its family (this folder, one
// file per family, named as the library's `Signal_<Family>.swift`). The
// struct holds the operator's parameters and children, and says everything
// else about it: its description (Swift that rebuilds it), its semantics in
// the reference model, how the real library builds it, how the generator
// makes it, how the shrinker simplifies it, its weight, and its part in the
// validity rule, and how the C API builds it (`buildC`, for the second
// runner, CLibraryRunner.swift). Beside it, in the same block, an extension
// of `ModelSignal` gives its construction functions (`.take(1, .pipe(0))`),
// which the descriptions print.
//
// The shared machinery (ModelCase.swift, ReferenceModel.swift,
// LibraryRunner.swift, ModelGenerator.swift) knows the sources and nothing
// of any operator: it calls these requirements.
//
// An operator over one pipeline conforms to `UnaryModelOperator` instead,
// which gives it `children` and `withChildren` from its `var source`.
//
// Adding an operator to a family is one block in the family's file: the
// struct (in an extension of the family's enum) and its construction
// functions, written after the family's last operator, and its type added
// at the end of the family's `operators`, which closes the file. A new
// family: its file, and its enum in `modelOperatorFamilies` below.
//
// The generator lays the `generation` entries of all the operators end to
// end in the order of their `order` (unique: the table refuses two equal
// ones). Today's numbers are the places the operators had in the generator's
// switch before this layout, which kept the cases of every seed as they
// were. A new operator takes the next number above the largest in use (43,
// `retry`, at first); a new entry makes the table larger, which changes the
// cases of every seed, as a new case of that switch did.

/// An operator of the model over `Signal<Int, Int>` pipelines (see the top
/// of this file). Equal operators (same type, parameters and children) are
/// equal `ModelSignal`s, which is what makes `share` and `replay` nodes of a
/// case one shared signal.
protocol ModelOperator: Hashable, Sendable, CustomStringConvertible {
    /// The pipelines it is made of, in order.
    var children: [ModelSignal] { get }

    /// The same operator over other children (as many as `children`).
    func withChildren(_ children: [ModelSignal]) -> ModelSignal

    /// What `node`, a subscription to it in `model`, does when it starts and
    /// later (`model.start` subscribes to a child).
    func behave(_ model: ReferenceModel, _ node: ReferenceModel.Node)

    /// The library's signal for it (`runner.build` builds a child); every
    /// closure given to the library captures `token`.
    func build(_ runner: LibraryRunner, _ token: ModelToken) -> Signal<Int, Int>

    /// The C API's signal for it, an owned `sk_signal *` (+1), built with
    /// `sk_*` calls (`runner.build` builds a child, `runner.over` calls an
    /// operator over children and releases them); each callback gets a
    /// context of its own (`runner.context`) and computes what `build`'s
    /// closures compute. Nil when a call failed (the runner reports it).
    func buildC(_ runner: CLibraryRunner) -> OpaquePointer?

    /// Why the C API cannot express it; nil (by default) when it can. A
    /// case that uses it runs through the Swift library only (its `buildC`
    /// is never called).
    static var cAPIGap: String? { get }

    /// Its parameters' part of `ModelCheck.weight` (0 by default): every
    /// form in `simplerForms` weighs less.
    var weight: Int { get }

    /// Simpler forms of it over the same children (simpler parameters, a
    /// simpler operator), in the order the shrinker tries them; none by
    /// default. `ModelCheck.simpler` adds the children, the simple sources
    /// and the forms with a simpler child.
    var simplerForms: [ModelSignal] { get }

    /// Whether every synchronous loop in it stops (`ModelCheck.isValid`);
    /// `underTake`: it sits right under a `take(n)`, n > 0, through operators
    /// that `passTakeThrough` only. By default: its children's, none of them
    /// under a take (unless it passes a take through).
    func loopsAreStopped(underTake: Bool) -> Bool

    /// A `take` above it still stops a loop below it (`map`, `filter`);
    /// false by default.
    var passesTakeThrough: Bool { get }

    /// It resubscribes synchronously (`restart`, `restartIfError`): a
    /// `take` right above it checks that it stops on its own; false by
    /// default.
    var loopsSynchronously: Bool { get }

    /// How the generator makes it: its entries of the generator's table
    /// (none by default: it is made by another operator's entry, or not at
    /// all).
    static var generation: [ModelGeneration] { get }
}

extension ModelOperator {
    var weight: Int {
        return 0
    }

    var simplerForms: [ModelSignal] {
        return []
    }

    func loopsAreStopped(underTake: Bool) -> Bool {
        let passed = self.passesTakeThrough && underTake
        return self.children.allSatisfy { ModelCheck.loopsAreStopped($0, underTake: passed) }
    }

    var passesTakeThrough: Bool {
        return false
    }

    var loopsSynchronously: Bool {
        return false
    }

    static var generation: [ModelGeneration] {
        return []
    }

    static var cAPIGap: String? {
        return nil
    }
}

/// A `ModelOperator` over one pipeline, its `source` (declared `var`): its
/// children and its rebuilding over another child come from that.
protocol UnaryModelOperator: ModelOperator {
    var source: ModelSignal { get set }
}

extension UnaryModelOperator {
    var children: [ModelSignal] {
        return [self.source]
    }

    func withChildren(_ children: [ModelSignal]) -> ModelSignal {
        var rebuilt = self
        rebuilt.source = children[0]
        return ModelSignal(rebuilt)
    }
}

/// A `ModelOperator` of any type, equal to another of the same type with
/// equal parameters and children.
struct AnyModelOperator: Hashable, Sendable {
    let base: any ModelOperator

    init(_ base: any ModelOperator) {
        self.base = base
    }

    static func == (lhs: AnyModelOperator, rhs: AnyModelOperator) -> Bool {
        return AnyHashable(lhs.base) == AnyHashable(rhs.base)
    }

    func hash(into hasher: inout Hasher) {
        hasher.combine(AnyHashable(self.base))
    }
}

/// One entry of the generator's table: `ModelGenerator.signal(depth:)`
/// draws a number below the sum of the entries' weights, and the entries,
/// laid end to end in the order of `order`, each take `weight` of the
/// numbers.
struct ModelGeneration: Sendable {
    /// The entry's place in the table. The cases a seed makes depend on it,
    /// so an operator keeps its number; a new one takes a number no other
    /// entry has (the table refuses two equal ones): the next above the
    /// largest in use.
    let order: Int
    /// How many of the table's numbers make it (its chance against the
    /// others').
    let weight: Int
    /// Makes a pipeline with it on top, its children at most `depth` deep
    /// (`generator.signal(depth:)`).
    let make: @Sendable (_ generator: inout ModelGenerator, _ depth: Int) -> ModelSignal

    init(order: Int, weight: Int = 1, make: @escaping @Sendable (_ generator: inout ModelGenerator, _ depth: Int) -> ModelSignal) {
        self.order = order
        self.weight = weight
        self.make = make
    }
}

/// The operators of one family, one file of this folder.
protocol ModelOperatorFamily {
    static var operators: [any ModelOperator.Type] { get }
}

/// Every family of operators the tester knows.
var modelOperatorFamilies: [any ModelOperatorFamily.Type] {
    return [
        MappingFamily.self,
        TakeFamily.self,
        TakeFirstFamily.self,
        ReduceFamily.self,
        MetaFamily.self,
        MergeMapFamily.self,
        CatchFamily.self,
        CombineFamily.self,
        MergeFamily.self,
        MaterializeFamily.self,
        ShareFamily.self,
        DispatchFamily.self,
    ]
}
#endif
