#!/usr/bin/env python3
"""Checks of the site's own scripts (make test-docs): each check of
site.py and each rule of cpp_comments.py is shown to catch what it is for.

- a picture shows the recorded events (the values the subscriber got), not
  the case's expectations, which the recording does not carry;
- the link check reports a missing file, a missing anchor and a missing
  image, and accepts a link from the site's root;
- the operator examples (examples.py): what one must print is read from
  its case's out and also lines (each subscriber's events by frame, the
  late one labelled), an operator is spelled in each language from its row
  of the operator table and its shape (a bounded one too), an operator
  no case applies alone gets no example and
  its page says why, and a page with examples shows the five programs and
  their outputs;
- every operator of the operator table has its "When to use it" section
  in operator_uses.md, and that file's check catches a missing or extra
  section, one without its paragraph and a "See also" without a page;
- the bindings' declarations (declarations.py): the Rust and C++ readers
  give a method's declaration as its source has it (a change in the source
  changes it), a Swift name without labels leaves the titles another row
  names with a label, an operator the binding lacks shows what its example
  composes it from, a name the binding does not declare is reported, and so
  is a cell that says a binding lacks what it calls; a C brief's words
  become every language's (operator_words.py's SHARED), and those no rule
  replaces are found;
- the C++ comment filter documents a comment on a declaration, leaves a
  banner and a comment before a blank line alone, escapes #word, and keeps
  the line count.

Usage: selftest.py (standard library only).
"""

import importlib.util
import os
import sys
import tempfile
from types import ModuleType

HERE = os.path.dirname(os.path.abspath(__file__))


def load(name: str) -> ModuleType:
    """A script of this folder as a module (site.py's name is the standard
    library's site, already imported)."""
    spec = importlib.util.spec_from_file_location(f"docs_{name}", os.path.join(HERE, f"{name}.py"))
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # (a dataclass looks its module up)
    spec.loader.exec_module(module)
    return module


cpp_comments = load("cpp_comments")
site_module = load("site")
examples_module = load("examples")
declarations = load("declarations")
guides = load("guides")

failures = []


def expect(condition: bool, what: str) -> None:
    if not condition:
        failures.append(what)


def check_declarations() -> None:
    """declarations.py's readers and checks, on sources written here."""
    with tempfile.TemporaryDirectory() as root:
        os.makedirs(os.path.join(root, "src", "operators"))
        rust = ("impl<T: Value> Signal<T> {\n    /// Doc.\n    pub fn take(&self, count: usize) -> Signal<T> {\n"
                "        todo!()\n    }\n\n    pub fn merge_map_bounded<U: Value, F: Fn(T) -> Signal<U>>(&self,\n"
                "        capacity: usize,\n        f: F,\n    ) -> Signal<U> {\n        todo!()\n    }\n\n"
                "    fn private(&self) {}\n}\n\nimpl<T: Value> Signal<Signal<T>> {\n"
                "    pub fn queue(&self) -> Signal<T> {\n        sys::sk_signal_queue(x)\n    }\n}\n")
        with open(os.path.join(root, "src", "operators", "a.rs"), "w") as f:
            f.write(rust)
        found = declarations.rust_declarations(os.path.join(root, "src"))
        expect(found.get("take") == ["impl<T: Value> Signal<T> {\n    pub fn take(&self, count: usize) -> Signal<T>;\n}"],
               f"a Rust method is declared as its source has it, in its impl block: {found.get('take')}")
        expect(found.get("merge_map_bounded") == [
            "impl<T: Value> Signal<T> {\n    pub fn merge_map_bounded<U: Value, F: Fn(T) -> Signal<U>>(&self, "
            "capacity: usize, f: F) -> Signal<U>;\n}"], f"a Rust declaration's lines are joined: {found}")
        expect(found.get("queue", [""])[0].startswith("impl<T: Value> Signal<Signal<T>> {"),
               f"a method of signals of signals says so: {found.get('queue')}")
        expect("private" not in found, "a private fn is no declaration")
        with open(os.path.join(root, "src", "operators", "a.rs"), "w") as f:
            f.write(rust.replace("count: usize", "count: u32"))
        expect("count: u32" in declarations.rust_declarations(os.path.join(root, "src"))["take"][0],
               "the Rust declaration follows the source")
        header = os.path.join(root, "x.hpp")
        with open(header, "w") as f:
            f.write("class signal;\nclass signal : public base {\n public:\n    /* doc */\n"
                    "    template <class F> signal map(F &&f) const {\n        return x;\n    }\n"
                    "    static signal zip(const std::vector<signal> &signals,\n                      "
                    "std::size_t capacity) { return y; }\n private:\n    signal hidden() const;\n};\n")
        found = declarations.cpp_declarations(header)
        expect(found == {"map": ["template <class F> signal map(F &&f) const;"],
                         "zip": ["static signal zip(const std::vector<signal> &signals, std::size_t capacity);"]},
               f"the C++ reader takes the public members of class signal: {found}")
        rows = [{"line": "1", "operator": "queue", "marble": "`queueBounded`", "c": "`sk_signal_queue`",
                 "cpp": "—", "python": "—", "rust": "—", "swift": "`queue`"}]
        called = declarations.called_functions(header, os.path.join(root, "nopython"), os.path.join(root, "src"))
        problems = declarations.check_availability(rows, called)
        expect(any("Rust cell of 'queue' says the binding lacks it, but the Rust binding calls sk_signal_queue" in p
                   for p in problems), f"a dash for a binding that calls the function is reported: {problems}")
        rows[0]["rust"] = "`queue`"
        rows[0]["cpp"] = "`queue_signals`"
        problems = declarations.check_availability(rows, called)
        expect(problems == ["tools/api/operators.md:1: the C++ cell of 'queue' names queue_signals, but the C++ "
                            "binding never calls sk_signal_queue: the cell names another operator"],
               f"a name for a binding that never calls the function is reported: {problems}")
    # A row with no C function of its own, another row's operator at fixed
    # arguments (concatMap: merge_map one at a time), is held to that
    # function: its cells say which (issue 80: C and C++ had a dash).
    concat = {"line": "4", "operator": "concat map", "marble": "`concatMap`", "c": "—", "cpp": "—",
              "python": "`merge_map`, max_concurrent=1", "rust": "`merge_map`, max_concurrent 1", "swift": "`mapToQueue`"}
    merge = {"line": "5", "operator": "merge map", "marble": "`mergeMap`", "c": "`sk_signal_merge_map`",
             "cpp": "`merge_map`", "python": "`merge_map` (`max_concurrent=`)", "rust": "`merge_map`",
             "swift": "`mergeMap`"}
    every = {"sk_signal_merge_map"}
    called = {"C": every, "C++": every, "Python": every, "Rust": every}
    problems = declarations.check_availability([concat, merge], called)
    expect(sorted(p.split(": the ")[1].split(" cell")[0] for p in problems) == ["C", "C++"]
           and all("the row is sk_signal_merge_map at fixed arguments" in p for p in problems),
           f"a composed row's dash for a binding that has what it is composed from is reported: {problems}")
    concat.update(c="`sk_signal_merge_map`, max_concurrent 1", cpp="`merge_map`, max_concurrent 1")
    expect(declarations.c_function(concat) is None, "a C cell that composes names no function of the row's own")
    problems = declarations.check_availability([concat, merge], called)
    expect(problems == [], f"a composed row whose cells name what it is composed from passes: {problems}")
    problems = declarations.check_availability([concat, merge], dict(called, Rust=set()))
    expect(any("Rust cell of 'concat map' names merge_map, but the Rust binding never calls" in p for p in problems),
           f"a composed row's name for a binding without its function is reported: {problems}")
    concat["c"] = "`sk_signal_queue`, one at a time"
    problems = declarations.check_availability([concat, merge], called)
    expect(any("compose it from different functions" in p for p in problems),
           f"cells that compose a row from different functions are reported: {problems}")
    swift = {"first(_:)": ["func first()"], "first(where:)": ["func first(where:)"],
             "mergeMap(maxConcurrent:capacity:overflow:onDrop:_:)": ["func mergeMap(bounded)"]}
    prefixes = {"first(", "first(where:", "mergeMap(maxConcurrent:capacity:overflow:onDrop:"}
    expect(declarations.swift_signatures("first(", swift, prefixes) == ["func first()"],
           "a Swift name without labels leaves the titles another row names with a label")
    expect(declarations.swift_titles("`mergeMap(maxConcurrent: 1, capacity:overflow:onDrop:) { $0 }`")
           == ["mergeMap(maxConcurrent:capacity:overflow:onDrop:"], "a Swift cell's call names its labels")
    expect(declarations.swift_signatures("mergeMap(maxConcurrent:capacity:overflow:onDrop:", swift, prefixes)
           == ["func mergeMap(bounded)"], "an unlabelled last argument is the same function")
    row = {"line": "2", "operator": "concat map", "marble": "`concatMap`", "c": "—", "cpp": "`merge_map`",
           "python": "`merge_map`, max_concurrent=1", "rust": "`merge_map`", "swift": "`mapToQueue`"}
    other = {"line": "3", "operator": "merge map", "marble": "`mergeMap`", "c": "`sk_signal_merge_map`",
             "cpp": "`merge_map`", "python": "`merge_map`", "rust": "`merge_map`", "swift": "`mergeMap`"}
    api = {"sk_signal_merge_map": {"name": "sk_signal_merge_map", "returns": "int",
                                   "params": [{"type": "sk_signal **", "name": "out"}]}}
    bindings = declarations.Bindings(api, {"merge_map": ["signal merge_map(F &&f) const;"]},
                                     {"mapToQueue(_:)": ["func mapToQueue()"]}, {}, [row, other])
    programs = {"C": ("sk_signal_merge_map(&result, a, 1, select, NULL, NULL);", "")}
    languages, problems = declarations.page_languages(row, bindings, programs, [row, other])
    expect(languages[0] == ("C", False, ["sk_signal_merge_map"], ["int sk_signal_merge_map(sk_signal **out);"]),
           f"a language that lacks the operator shows what its example composes it from: {languages[0]}")
    expect(any("Rust names `merge_map`, which the Rust binding does not declare" in p for p in problems),
           f"a name its binding does not declare is reported: {problems}")
    words = declarations._load(declarations.OPERATOR_WORDS_PY, "selftest_operator_words")
    pages = {"sk_signal_zip": "zip", "sk_signal_queue": "queue"}
    for brief, said in [
            ("Arrays of the n-th value of each of `count` signals.", "Arrays of the n-th value of each of the signals."),
            ("The `count` signals one after the other.", "The signals one after the other."),
            ("For a signal of signals (values of SK_KIND_SIGNAL): runs the latest.",
             "For a signal of signals: runs the latest."),
            ("delivers the array [key, group], where group (of kind SK_KIND_SIGNAL) delivers",
             "Delivers the pair [key, group], where group (a signal) delivers"),
            ("Calls `fn(ctx, value)` before `signal` is started.", "Calls `f(value)` before the source is started."),
            ("Drops a value equal (sk_value_equal()) to the last.", "Drops a value equal to the last."),
            ("sk_signal_zip() with at most `capacity`; as sk_signal_queue().", "`zip` with at most `capacity`; as `queue`."),
            ("a fast `signal` feeding slow inner signals", "A fast source feeding slow inner signals")]:
        got = words.shared_words(brief, pages)
        expect(got == said and not words.c_only_words(got), f"a brief in every language's words: {got!r}")
    expect(words.c_only_words(words.shared_words("As sk_signal_nosuch(), with SK_OVERFLOW_BLOCK.", pages))
           == ["sk_signal_nosuch", "SK_OVERFLOW_BLOCK"], "the C words no rule replaces are found")


def main() -> int:
    case = {
        "name": "t", "location": "t.marbles:1", "operators": ["map times:10"],
        "inputs": [{"name": "a", "hot": False, "events": [{"t": 1, "kind": "next", "value": "1"},
                                                            {"t": 2, "kind": "completed"}],
                    "subscriptions": [{"from": 0, "to": 2}]}],
        "subscribers": [{"from": 0, "to": None, "events": [{"t": 1, "kind": "next", "value": "77"},
                                                            {"t": 3, "kind": "error"}]}],
    }
    svg = site_module.case_svg(case)
    expect(">77</text>" in svg, "the picture shows the recorded value 77")
    expect("<title>error</title>" in svg, "the picture shows the recorded error")
    expect("map times:10" in svg, "the picture names the operators")

    with tempfile.TemporaryDirectory() as root:
        os.makedirs(os.path.join(root, "sub"))
        with open(os.path.join(root, "sub", "b.html"), "w") as f:
            f.write("<p id='here'>b</p>")
        with open(os.path.join(root, "a.html"), "w") as f:
            f.write("<a href='sub/b.html#here'>ok</a><a href='/sub/b.html'>root</a><a href='https://x.org/'>ext</a>"
                    "<a href='nosuch.html'>gone</a><a href='sub/b.html#nowhere'>anchor</a><img src='no.svg'>")
        problems = site_module.check_links(root)
        expect(any("nosuch.html: no such file" in p for p in problems), "a missing file is reported")
        expect(any("#nowhere: no such anchor" in p for p in problems), "a missing anchor is reported")
        expect(any("no.svg: no such file" in p for p in problems), "a missing image is reported")
        expect(len(problems) == 3, f"only those three are reported: {problems}")

    shared = examples_module.Case("shared", "t.marbles:1", inputs=[("a", False, "-1-2|")],
                                  ops=[["share"]], out="-1-2|", also=[(1, None, "---2|")])
    for lang in ("C", "Python"):
        expect(examples_module.expected(shared, lang) == "1: 1\n3: 2\n3: late 2\n4: completed\n4: late completed\n",
               f"the expected output of a case with an also line ({lang}): "
               f"{examples_module.expected(shared, lang)!r}")
    zipped = examples_module.Case("z", "t.marbles:1", inputs=[("a", False, "1|"), ("b", False, "2|")],
                                  values={"x": [1, 2]}, ops=[["zip", "a", "b"]], out="x|")
    expect(examples_module.expected(zipped, "Swift") == "0: (1, 2)\n1: completed\n", "Swift's zip prints a tuple")
    expect(examples_module.expected(zipped, "C++") == "0: [1, 2]\n1: completed\n", "C++'s zip prints an array")
    expect(examples_module.expected(zipped, "Rust") == "0: [1, 2]\n1: completed\n", "Rust's zip prints a Vec")
    paired = examples_module.Case("p", "t.marbles:1", inputs=[("a", False, "12|")], values={"x": [1, 2]},
                                  ops=[["pairwise"]], out="-x|")
    expect(examples_module.expected(paired, "Rust") == "1: (1, 2)\n2: completed\n", "Rust's pairwise prints a tuple")
    chained = examples_module.Case("chained", "t.marbles:1", inputs=[("a", False, "-1|")],
                                   ops=[["map", "times:2"], ["filter", "always"]], out="-2|")
    chosen = examples_module.chosen_cases([chained])
    expect(chosen.get("filter", 0) is None and chosen.get("map", 0) is None,
           f"an operator applied only in a chain has no case for its example: {chosen}")
    failing = examples_module.Case("failing", "t.marbles:1", inputs=[("a", False, "-1-2|")],
                                   ops=[["map", "times:2!2"]], out="-2-#")
    plain = examples_module.Case("plain", "t.marbles:1", inputs=[("a", False, "-1|")],
                                 ops=[["map", "times:2"]], out="-2|")
    chosen = examples_module.chosen_cases([failing, plain])
    expect(chosen.get("map") is plain, f"a case whose callback fails (`!`) is no example: {chosen}")
    taking = examples_module.Case("taking", "t.marbles:1", inputs=[("a", False, "-1|")],
                                  ops=[["restart"], ["take", "2"]], out="-1-(1|)")
    chosen = examples_module.chosen_cases([taking])
    expect(chosen.get("restart") is taking and chosen.get("take", 0) is None,
           f"an operator followed by take has its case, take none: {chosen}")
    expect(examples_module.python_op(taking) == "a.restart().take(2)",
           f"the example applies the take after it: {examples_module.python_op(taking)!r}")
    skipping = examples_module.Case("skipping", "t.marbles:1", inputs=[("a", False, "-1-2|")],
                                    ops=[["skipWhile", "lt:2"]], out="---2|")
    spelled = {lang: examples_module.RENDER[lang](skipping) for lang in examples_module.LANGUAGES}
    expect(examples_module.OPERATORS["skipWhile"][0].shape.base == "predicate"
           and "sk_signal_skip_while(&result, a, less_than_2, NULL, NULL)" in spelled["C"]
           and "a | sk::skip_while([](std::int64_t x) { return x < 2; })" in spelled["C++"]
           and "a.signal |> skipWhile { $0 < 2 }" in spelled["Swift"]
           and "a.skip_while(lambda x: x < 2)" in spelled["Python"]
           and "a.skip_while(|&x: &i64| x < 2)" in spelled["Rust"],
           "an operator of a standard shape is spelled from its row of the operator table and its shape: "
           f"{spelled}")
    bounded = examples_module.Case("bounded", "t.marbles:1", inputs=[("a", False, "-1-2|")],
                                   ops=[["onBackpressureBuffer", "2", "dropNewest"]], out="-1-2|")
    spelled = {lang: examples_module.RENDER[lang](bounded) for lang in examples_module.LANGUAGES}
    expect("sk_signal_on_backpressure_buffer(&result, a, 2, SK_OVERFLOW_DROP_NEWEST, NULL, NULL, NULL)" in spelled["C"]
           and "a | sk::on_backpressure_buffer(2, sk::overflow::drop_newest)" in spelled["C++"]
           and "a.signal |> onBackpressureBuffer(capacity: 2, overflow: .dropNewest)" in spelled["Swift"]
           and 'a.on_backpressure_buffer(capacity=2, overflow="drop_newest")' in spelled["Python"]
           and "a.on_backpressure_buffer(2, Overflow::DropNewest)" in spelled["Rust"],
           "an operator of a shape and the bounded modifier is spelled from its row and its shape: "
           f"{spelled}")
    costs = ("today", {"bare": {"impls": {"swift": {"instructions": 100.0, "allocs": 0.0}}},
                       "zip": {"impls": {"swift": {"instructions": 99.7, "allocs": -0.0005}}}})
    cost = "".join(site_module.cost_html("sk_signal_zip", costs))
    expect("<td>0</td><td>0.00</td>" in cost and "-0" not in cost,
           f"a cost that rounds to zero reads 0, never -0 (zip's -0.00, issue 80): {cost}")
    expect(site_module.figure(-1234.4, 0) == "-1,234" and site_module.figure(-0.006, 2) == "-0.01",
           "a negative cost keeps its sign")
    # Names in a guide's tables break between their words only; signatures
    # wrap to their box (issue 80: names broken mid-word, signatures cut).
    expect("anywhere" not in guides.STYLE, f"no rule of the guides breaks a name anywhere: {guides.STYLE}")
    cells = guides.table_code_breaks("<td><code>distinct_until_changed</code></td><p><code>a_b</code></p>"
                                     "<td align='left'><code>Signal::zip</code>, <code>take(until:)</code></td>")
    expect(cells == "<td><code>distinct_<wbr>until_<wbr>changed</code></td><p><code>a_b</code></p>"
                    "<td align='left'><code>Signal::<wbr>zip</code>, <code>take(<wbr>until:)</code></td>",
           f"a name in a table's cell may break after _ : , ( . only: {cells}")
    signature = site_module.signature_html("C++", True, ["template <class F> signal merge_map(F &&f) const;"])
    expect("<pre class='signature'>" in signature and "pre.signature { white-space: pre-wrap;" in site_module.STYLE,
           f"a signature wraps to its box: {signature}")
    page = "".join(site_module.examples_html("take", None))
    expect("no-example" in page and "alone" in page, "a page without an example says why")
    page = "".join(site_module.examples_html("share", (shared, {lang: (examples_module.RENDER[lang](shared),
                                                                         examples_module.expected(shared, lang))
                                                                  for lang in examples_module.LANGUAGES})))
    expect(page.count("class='example'") == 5 and page.count("class='output'") == 5,
           "a page shows five examples, each with its output")
    expect("result.share()" in page.replace("a.share()", "result.share()") and "sk_signal_share" in page,
           "the examples apply the operator")

    table_names = set(site_module.operator_rows())
    for problem in site_module.check_uses(site_module.read_uses(), table_names):
        expect(False, problem)
    with tempfile.TemporaryDirectory() as root:
        path = os.path.join(root, "uses.md")
        with open(path, "w") as f:
            f.write("# t\n\n## map\n\nUse it.\n\nSee also: `filter`\n\n## frob\n\nUse it.\n\nSee also: `map`\n\n"
                    "## filter\n\nSee also: `nosuch`\n")
        uses = site_module.read_uses(path)
        expect(uses.get("map") == ("Use it.", ["filter"]), f"a section is read: {uses.get('map')}")
        problems = site_module.check_uses(uses, {"map", "filter", "take"})
        for needle in ("no section for the operator take", "frob names no operator", "filter says nothing",
                       "sees also nosuch"):
            expect(any(needle in p for p in problems), f"operator_uses.md's check reports '{needle}': {problems}")
        page = site_module.operator_page("map", site_module.operator_rows()["map"], [], [], False, "", [],
                                         use=uses["map"])
        expect("<p class='use'>Use it.</p>" in page and "href='filter.html'" in page,
               "an operator page shows when to use it and links its see-also")

    check_declarations()

    text = ("/*\n * the file\n *\n *     #include <x.hpp>\n */\n/* ---- */\n/* Banner */\n/* ---- */\n\n/* A class; see #error. */\nclass c {\n"
            "    /* kept apart */\n\n    int x;\n};\n")
    out = cpp_comments.filter_text(text)
    lines = out.split("\n")
    expect(len(lines) == len(text.split("\n")), "the line count is kept")
    expect(lines[0] == "/** @file", f"the file's comment documents the file: {lines[0]!r}")
    expect(lines[3] == " *     #include <x.hpp>", f"a code block's line keeps its #: {lines[3]!r}")
    expect(lines[5] == "/* ---- */" and lines[6] == "/* Banner */", "banners stay plain")
    expect(lines[9] == "/** A class; see \\#error. */", f"a comment on a declaration is documentation: {lines[9]!r}")
    expect(lines[11] == "    /* kept apart */", "a comment before a blank line stays plain")

    for failure in failures:
        print(f"selftest: FAILED: {failure}", file=sys.stderr)
    if failures:
        return 1
    print("selftest: the site's scripts catch what they are for")
    return 0


if __name__ == "__main__":
    sys.exit(main())
