#!/usr/bin/env python3
"""The checks of tools/api/check.py fail when they should: each drift below is
made in a copy of the files the checks read (a temporary folder; the
checkout is not touched), and describe.py and check.py run on the copy must
fail with the message that names it; the copy unchanged must pass.

  a header function without C++ wrapper, Python method, C test, or row in
  docs/operators.md's availability table
  a generated file out of date (the Python prototypes, the C++ pipeables), a
  generated C++ member, Python method or Rust method edited by hand, its
  markers gone
  a prototype with a wrong argument type, or one argument missing; a C
  type mapped to the wrong ctypes type
  a ctypes struct with two fields swapped, or a field of the wrong size
  a CFUNCTYPE whose argument disagrees with the callback typedef
  a row of the availability table removed; a Swift or C++ name there that
  the sources do not declare
  an exception that excuses nothing
  a C++ paragraph naming a function C++ has
  a constant, an enum value or a struct field without a doc comment
  a pointer parameter (or result) whose text says no ownership, or two; a
  pointer result whose @return says not whether it may be NULL; a length
  parameter whose text says not which pointer it counts; a handle without
  a release function; a callback parameter or field that no ctx's text
  names; a file descriptor whose text says not who closes it; a subject's
  signal that says not whether it keeps the subject alive (describe.py
  refuses them)

Usage: selftest.py   (from the repository's root; run by make test-api)
"""
import os
import re
import shutil
import subprocess
import sys
import tempfile

COPIED = ("include", "tools/api", "Sources/SignalKitCAPI", "Sources/python/pysignalkit", "Sources/SwiftSignalKit", "Sources/SwiftSignalKitTesting",
          "Tests/C", "Tests/marbles", "Sources/python/tests/marble_operators.py", "Tests/cpp/marble_operators.hpp", "Tests/common",
          "Tests/fuzz/fuzz_api.c", "Tests/fuzz/fuzz_operators.h", "Tests/SignalKitModel",
          "Tests/SwiftSignalKitTests/Model",
          "docs/operators.md", "Sources/rust/rsignalkit/src", "Sources/rust/rsignalkit-sys/src",
          "Sources/rust/marbles/generated", "Benchmarks/c/cost_operators.hpp",
          "Benchmarks/Sources/OperatorCost/Operators.generated.swift", "Sources/python/bench/cost_operators.py",
          "Tests/SwiftSignalKitTestingTests/MarbleTableOperators.generated.swift", "docs/rust.md", "LICENSE",
          "Sources/rust/rsignalkit/LICENSE", "Sources/rust/rsignalkit-sys/LICENSE",
          "Makefile", "mk/ffi.mk")  # the last two: the sonames' majors, for describe.py
HERE = os.getcwd()


def copy_tree(target):
    for path in COPIED:
        source, destination = os.path.join(HERE, path), os.path.join(target, path)
        if os.path.isdir(source):
            shutil.copytree(source, destination, ignore=shutil.ignore_patterns("__pycache__", "*.so"))
        else:
            os.makedirs(os.path.dirname(destination) or target, exist_ok=True)
            shutil.copy(source, destination)


def edit(root, path, old, new, count=1):
    full = os.path.join(root, path)
    with open(full, encoding="utf-8") as handle:
        text = handle.read()
    if old not in text:
        sys.exit(f"selftest.py: {path} no longer holds {old!r}: update the self-test")
    with open(full, "w", encoding="utf-8") as handle:
        handle.write(text.replace(old, new, count))


def run(root, api=None):
    """describe.py (unless `api` is given: the headers are unchanged), then check.py."""
    if api is None:
        api = os.path.join(root, "api.json")
        made = subprocess.run([sys.executable, "tools/api/describe.py", api], cwd=root, capture_output=True, text=True)
        if made.returncode != 0:  # what describe.py refuses, in its words
            return made.returncode, made.stderr
    result = subprocess.run([sys.executable, "tools/api/check.py", api], cwd=root, capture_output=True, text=True)
    return result.returncode, result.stderr


NEW_OPERATOR = """
/**
 * @brief All but the last `count` values (an operator the header does not have).
 * @param[out] out  The new signal (+1).
 * @param signal    Borrowed.
 * @param count     How many values to drop.
 * @return SK_OK, or an error of @ref operators.
 * @par Thread safety
 *   Any thread.
 */
int sk_signal_skip_last(sk_signal **out, sk_signal *signal, size_t count);
"""
TAKE = "int sk_signal_take(sk_signal **out, sk_signal *signal, size_t count);\n"
# Pointer parameters whose texts say no ownership, or two (and a result
# that says none): describe.py refuses them, naming each.
UNOWNED = """
/**
 * @brief Made up: pointers whose texts do not say who owns them.
 * @param[out] out  The new signal.
 * @param signal    Borrowed, and consumed.
 * @param name      The name to give it.
 * @param count     How many.
 * @return The name given.
 * @par Thread safety
 *   Any thread.
 */
const char *sk_signal_made_up(sk_signal **out, sk_signal *signal, const char *name, size_t count);
"""

CASES = [
    ("a new header function and nothing else",
     [("include/signalkit.h", TAKE, TAKE + NEW_OPERATOR)],
     [r"sk_signal_skip_last has no C\+\+ wrapper: wrap it in include/signalkit\.hpp",
      r"sk_signal_skip_last has no Python method: run `make api-update` \(it writes its prototype to "
      r"Sources/python/pysignalkit/_prototypes\.py\)",
      r"Sources/python/pysignalkit/_prototypes\.py is not what the headers give \(its generated part\): run "
      r"`make api-update`",
      r"sk_signal_skip_last has no C test: call it in a Test\(\) of Tests/C/test_\*\.c",
      r"sk_signal_skip_last is in no row of docs/operators\.md's \"What is available\""]),
    ("pointers whose texts say no ownership, or two",
     [("include/signalkit.h", TAKE, TAKE + UNOWNED)],
     [r"include/signalkit\.h:\d+: the function sk_signal_made_up\(\): the parameter out \(sk_signal \*\*\) says no "
      r"ownership \('The new signal\.'\): say who owns it with a standard phrase",
      r"the function sk_signal_made_up\(\): the parameter signal \(sk_signal \*\) says both consumed and borrowed",
      r"the function sk_signal_made_up\(\): the parameter name \(const char \*\) says no ownership",
      r"the function sk_signal_made_up\(\): its result \(const char \*\) has no ownership in its @return"]),
    ("a pointer result whose @return says not whether it may be NULL",
     [("include/signalkit.h", "@return A static string owned by the library, never NULL. Never fails.",
       "@return A static string owned by the library. Never fails.")],
     [r"include/signalkit\.h:\d+: the function sk_version_string\(\): its result \(const char \*\) says not whether "
      r"it may be NULL in its @return"]),
    ("a length parameter whose text says not what it counts, and one that counts no pointer",
     [("include/signalkit.h", " * @param count     The number of items of `items`.\n",
       " * @param count     The number of items.\n"),
      ("include/signalkit.h", " * @param length    The number of bytes of `data`.\n",
       " * @param length    The number of bytes of `bytes`.\n")],
     [r"include/signalkit\.h:\d+: the function sk_value_set_array\(\): the parameter count \(size_t\) says not what it "
      r"counts",
      r"the function sk_value_set_bytes\(\): the parameter length counts `bytes`, which is no pointer parameter of it "
      r"that may point at elements"]),
    ("a handle without a release function",
     [("include/signalkit_test.h", "void sk_test_recorder_release(sk_test_recorder *recorder);",
       "void sk_test_recorder_release(sk_test_recorder *recorder, int flags);")],
     [r"include/signalkit_test\.h:\d+: the handle sk_test_recorder has no release function: declare one"]),
    ("a callback no ctx names, in a function and in a struct",
     [("include/signalkit.h", "Passed to `on_drop` and `release`.", "Passed to `on_drop`."),
      ("include/signalkit.h", "/**< Passed to every callback and to `release`. */", "/**< Passed to `release`. */")],
     [r"include/signalkit\.h:\d+: the function sk_pipe_create_bounded\(\)'s release \(sk_release_fn\) is passed no "
      r"ctx its texts name",
      r"include/signalkit\.h:\d+: the struct sk_observer's next \(sk_next_fn\) is passed no ctx its texts name"]),
    ("a file descriptor whose text says not who closes it",
     [("include/signalkit.h", "Receives the descriptor, owned by the queue (do not\n *                    close it);",
       "Receives the descriptor;")],
     [r"include/signalkit\.h:\d+: the function sk_queue_host_fd\(\): the descriptor out_fd says not who closes it"]),
    ("a subject's signal whose text says not whether it keeps the subject alive",
     [("include/signalkit.h", " * @param pipe      Borrowed; not kept alive by the signal.\n", " * @param pipe      Borrowed.\n")],
     [r"include/signalkit\.h:\d+: the function sk_pipe_signal\(\): the handle pipe says not whether the sk_signal it "
      r"hands back keeps it alive"]),
    ("a generated prototype edited by hand: an argument of the wrong type, and one missing",
     [("Sources/python/pysignalkit/_prototypes.py", '"sk_signal_take": ("int", "handle *", "handle", "size_t"),',
       '"sk_signal_take": ("int", "handle *", "handle", "int"),'),
      ("Sources/python/pysignalkit/_prototypes.py", '"sk_queue_host_fd": ("int", "handle", "int *"),',
       '"sk_queue_host_fd": ("int", "handle"),')],
     [r'_prototypes\.py: CORE\["sk_signal_take"\]: argument 3 \(count\): C has size_t \(8 bytes, unsigned\), '
      r'ctypes c_int',
      r'_prototypes\.py: CORE\["sk_queue_host_fd"\]: 1 argument types, but include/signalkit\.h:\d+ declares 2 '
      r'parameters',
      r"Sources/python/pysignalkit/_prototypes\.py is not what the headers give"]),
    ("a C type that _core._ctype turns into the wrong ctypes type",
     [("Sources/python/pysignalkit/_core.py", '"size_t": c_size_t,', '"size_t": c_int,')],
     [r'CORE\["sk_signal_take"\]: argument 3 \(count\): C has size_t \(8 bytes, unsigned\), ctypes c_int']),
    ("a C++ operator member without its pipeable",
     [("include/signalkit.hpp", "SIGNALKIT_DETAIL_PIPEABLE(take)\n", "")],
     [r"include/signalkit\.hpp is not what the headers give \(its generated part\): run `make api-update`"]),
    ("a generated Rust binding edited by hand",
     [("Sources/rust/rsignalkit-sys/src/lib.rs", "pub fn sk_signal_take(out: *mut *mut sk_signal, signal: *mut sk_signal, count: usize)",
       "pub fn sk_signal_take(out: *mut *mut sk_signal, signal: *mut sk_signal, count: c_int)")],
     [r"Sources/rust/rsignalkit-sys/src/lib\.rs is not what the headers give \(its generated part\): run `make api-update`"]),
    ("the Rust guide edited, and not its copy in the crate",
     [("docs/rust.md", "# SignalKit from Rust\n", "# SignalKit in Rust\n")],
     [r"Sources/rust/rsignalkit/src/guide\.md is not a copy of docs/rust\.md: run `make api-update`"]),
    ("a Rust name of the availability table that the crate does not declare",
     [("docs/operators.md", "| `pairwise` |  |", "| `pairs` |  |")],
     [r"row 'reduce, materialize pairwise': the Rust column names `pairs`, which no file of Sources/rust/rsignalkit/src/ or Sources/rust/rsignalkit-sys/src/ declares"]),
    ("a ctypes struct's fields swapped",
     [("Sources/python/pysignalkit/_core.py", '("ctx", c_void_p), ("release", _release_fn)]',
       '("release", _release_fn), ("ctx", c_void_p)]')],
     [r"class _Observer \(C struct sk_observer, include/signalkit\.h:\d+\): fields \['next', 'error', 'completed', "
      r"'release', 'ctx'\], the C struct's \['next', 'error', 'completed', 'ctx', 'release'\]"]),
    ("a ctypes struct field of the wrong size",
     [("Sources/python/pysignalkit/_core.py", '_fields_ = [("kind", c_int), ("u", _ValueUnion)]',
       '_fields_ = [("kind", c_int64), ("u", _ValueUnion)]')],
     [r"class Value \(C struct sk_value, include/signalkit\.h:\d+\): field kind at offset 0, 8 bytes; in C at 0, "
      r"4 bytes",
      r"class Value .*: field kind: C has int \(4 bytes, signed\), ctypes c_long"]),
    ("a CFUNCTYPE that disagrees with its typedef",
     [("Sources/python/pysignalkit/_core.py", "_map_fn = CFUNCTYPE(None, c_void_p, _ValueP, _ValueP)",
       "_map_fn = CFUNCTYPE(None, c_void_p, _ValueP, c_int64)")],
     [r"argument 3 \(fn\): the callback sk_map_fn's argument 3: C has sk_value \*, ctypes c_long"]),
    ("a row of the availability table removed",
     [],
     []),  # done below: the take family's row is removed by a regular expression
    ("an exception that excuses nothing",
     [("tools/api/exceptions.txt", "# C++\n", "# C++\nsk_signal_take cpp it has a wrapper\n")],
     [r"exceptions\.txt:\d+: the exception `sk_signal_take cpp` excuses nothing now"]),
    ("the C++ paragraph naming a function C++ has",
     [("docs/operators.md", "except\n`sk_set_handle_checking`,", "except\n`sk_signal_take`, `sk_set_handle_checking`,")],
     [r"the C\+\+ paragraph says C\+\+ lacks sk_signal_take, but tools/api/exceptions\.txt does not excuse it"]),
    ("a Swift name of the availability table that the Swift sources do not declare",
     [("docs/operators.md", "| `withLatestFrom` |", "| `withLatest` |")],
     [r"row 'combining with latest from': the Swift column names `withLatest`, which no file"]),
    ("a row of the operator table changed and what is made from it not remade",
     [("tools/api/operators.md", "| `buffer_with_count` | `buffer_count` | `bufferCount` / `buffer_with_count` |",
       "| `buffer_count` | `buffer_count` | `bufferCount` / `buffer_with_count` |")],
     [r"docs/operators\.md is not what the operator table gives",
      r"Sources/python/tests/marble_operators\.py is not what the operator table gives"]),
    ("a generated C++ member edited by hand",
     [("include/signalkit.hpp", "signal skip(std::size_t count) const { return op(&sk_signal_skip, count); }",
       "signal skip(std::size_t count) const { return op(&sk_signal_take, count); }")],
     [r"include/signalkit\.hpp is not what the operator table gives \(tools/api/operators\.md\): run `make api-update`"]),
    ("a generated Python method edited by hand",
     [("Sources/python/pysignalkit/_standard_operators.py", '_count_arg(count, "skip", "count")',
       '_count_arg(count, "take", "count")')],
     [r"Sources/python/pysignalkit/_standard_operators\.py is not what the operator table gives"]),
    ("a generated C++ member's markers removed",
     [("include/signalkit.hpp", "    // END operators (generated)\n", "")],
     [r"include/signalkit\.hpp: the lines '// BEGIN operators \(generated\)' and '// END operators \(generated\)' "
      r"are gone"]),
    ("a hand-written binding excused though its shape is not standard",
     [("tools/api/exceptions.txt", "# C++\n", "# C++\nsk_signal_take_while python-hand it is written by hand\n")],
     [r"exceptions\.txt:\d+: the exception `sk_signal_take_while python-hand` excuses nothing now"]),
    ("a generated Rust method edited by hand: before_next's panics reported as after_next's",
     [("Sources/rust/rsignalkit/src/operators/standard.rs", "Some(value_fn::<T, F, place::BeforeNext>)",
       "Some(value_fn::<T, F, place::AfterNext>)")],
     [r"Sources/rust/rsignalkit/src/operators/standard\.rs is not what the operator table gives"]),
    ("a hand-written Rust method excused though its shape is not standard",
     [("tools/api/exceptions.txt", "# C++\n", "# C++\nsk_signal_take_while rust-hand it is written by hand\n")],
     [r"exceptions\.txt:\d+: the exception `sk_signal_take_while rust-hand` excuses nothing now"]),
    ("the Swift runner's generated operators edited by hand",
     [("Tests/SwiftSignalKitTestingTests/MarbleTableOperators.generated.swift", "signal |> skipWhile {", "signal |> filter {")],
     [r"Tests/SwiftSignalKitTestingTests/MarbleTableOperators\.generated\.swift is not what the operator table gives"]),
    ("a hand-written case of the Swift runner excused though it is no operator of the table",
     [("tools/api/exceptions.txt", "# C++\n", "# C++\nsk_signal_create marble-swift-hand it is written by hand\n")],
     [r"exceptions\.txt:\d+: the exception `sk_signal_create marble-swift-hand` excuses nothing now"]),
    ("the marble vocabulary's generated operators edited by hand",
     [("Tests/marbles/README.md", "| `skip N` | `skip` |", "| `skip N` | `drop` |")],
     [r"Tests/marbles/README\.md is not what the operator table gives"]),
    ("the Rust runner's generated operators edited by hand",
     [("Sources/rust/marbles/generated/marble_operators.rs", "$a.source().share()", "$a.source().replay(1)")],
     [r"Sources/rust/marbles/generated/marble_operators\.rs is not what the operator table gives"]),
    ("a marble table operator in no row of the operator table",
     [("Tests/marbles/take.marbles", "op take ", "op takeFirst ")],
     [r"take\.marbles:\d+: the operator `takeFirst` is in no row of tools/api/operators\.md"]),
    ("an operator the API fuzzer never builds",
     [("Tests/fuzz/fuzz_api.c", "status = sk_signal_group_by(&out, s, parity, NULL, NULL);", "status = SK_OK;")],
     [r"sk_signal_group_by is not tried by the API fuzzer"]),
    ("the fuzzer's generated operators edited by hand: an entry's function renamed",
     [("Tests/fuzz/fuzz_operators.h", '[5] = {"sk_signal_last"', '[5] = {"sk_signal_lost"')],
     [r"Tests/fuzz/fuzz_operators\.h is not what the operator table gives"]),
    ("a hand-written case of the fuzzer on a generated operator's slot",
     [("Tests/fuzz/fuzz_api.c", "    case 42: status = sk_signal_group_by(", "    case 5: status = sk_signal_group_by(")],
     [r"fuzz_operators\.h: the slot 5 of sk_signal_last is also a hand-written case of Tests/fuzz/fuzz_api\.c"]),
    ("a constant, an enum value and a struct field without their doc comments",
     [("include/signalkit.h", "/** The most worker threads sk_queue_create_concurrent() accepts. */\n", ""),
      ("include/signalkit.h", "    /** The incoming value is dropped (Akka dropNew, RxJava onBackpressureDrop). */\n", ""),
      ("include/signalkit.h", "    /** The name given with sk_handle_set_name(), or NULL. */\n", "")],
     [r"include/signalkit\.h:\d+: the constant SK_QUEUE_MAX_WORKERS has no brief in api\.json",
      r"include/signalkit\.h:\d+: the value SK_OVERFLOW_DROP_NEWEST of the enum sk_overflow has no brief",
      r"include/signalkit\.h:\d+: the field name of the struct sk_live_object has no brief"]),
    ("a reference to a section api.json does not hold",
     [("include/signalkit.h", "@section conventions Conventions", "@section rules Conventions")],
     [r"refers to @ref conventions, which is no group and no section of api\.json"]),
    ("a C++ name of the availability table that the C++ headers do not declare",
     [("docs/operators.md", "| `start_with` |", "| `prepend` |")],
     [r"row 'combining start with': the C\+\+ column names `prepend`, which signalkit\.hpp"]),
]


def main():
    failures = []
    with tempfile.TemporaryDirectory() as scratch:
        clean = os.path.join(scratch, "clean")
        copy_tree(clean)
        status, errors = run(clean)
        if status != 0:
            failures.append(f"the unchanged copy fails:\n{errors}")
        for number, (title, edits, expected) in enumerate(CASES):
            root = os.path.join(scratch, f"case{number}")
            copy_tree(root)
            for path, old, new in edits:
                edit(root, path, old, new)
            if title.startswith("a row of the availability table"):
                readme = os.path.join(root, "docs/operators.md")
                with open(readme, encoding="utf-8") as handle:
                    text = handle.read()
                with open(readme, "w", encoding="utf-8") as handle:
                    without = re.sub(r"(?m)^\| take \|.*\n", "", text)
                    if without == text:
                        sys.exit("selftest.py: docs/operators.md has no '| take |' row: update the self-test")
                    handle.write(without)
                expected = [rf"sk_signal_{name} is in no row of docs/operators\.md's \"What is available\""
                            for name in ("take", "take_until", "last")]
            headers_changed = any(path.startswith("include/") for path, _, _ in edits)
            status, errors = run(root, None if headers_changed else os.path.join(clean, "api.json"))
            missing = [pattern for pattern in expected if not re.search(pattern, errors)]
            if status == 0 or missing:
                failures.append(f"{title}: exit status {status}; no message matching {missing}; it said:\n{errors}")
    for failure in failures:
        print(f"selftest.py: {failure}", file=sys.stderr)
    if failures:
        sys.exit(1)
    print(f"selftest.py: the unchanged copy passes; {len(CASES)} kinds of drift each fail with their message")


if __name__ == "__main__":
    main()
