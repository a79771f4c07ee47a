# api.json: the C API described for machines (docs/api-json.md), made from
# the three C headers by tools/api/describe.py (gcc's -aux-info for the
# prototypes, the headers' doc comments for the rest, a compiled program
# for sizes, offsets and values), installed as share/signalkit/api.json;
# and test-api, which holds the bindings, the C tests and docs/operators.md to it
# (tools/api/check.py; its intended gaps: tools/api/exceptions.txt), whose
# failures on each kind of drift tools/api/selftest.py checks; the operator
# pages' availability marks and their C, C++ and Rust signatures held to
# the bindings (tools/docs/declarations.py); and the code blocks of docs/
# marked as check-readme.py wants them.

API_JSON := $(OUT)/api.json
API_HEADERS := include/signalkit.h include/signalkit_test.h include/signalkit_ffi.h

.PHONY: api api-update test-api test-api-selftest

$(API_JSON): $(API_HEADERS) tools/api/describe.py Makefile mk/ffi.mk
	@mkdir -p $(OUT)
	$(PYTHON) tools/api/describe.py $@

api: $(API_JSON) ## api.json, the C API for machines (.build-c/api.json; format: docs/api-json.md)

# What is made from api.json and kept in the tree (tools/api/generate.py): the
# Python package's prototypes, signalkit.hpp's pipeables; from the operator
# table (tools/api/operators.md, by tools/api/operators.py, first: the
# pipeables follow class signal's members) docs/operators.md's table of
# operators, the marble runners' operators, the C++ members, Python
# methods and Rust methods of the standard shapes and of the bounded ones; and, made by
# tools/generate-combine.py, the Swift core's combineLatest and zip overloads
# for 3 to 26 signals; and, made by tools/docs/examples.py from the marble
# table, the operator pages' Swift examples (examples/swift/Sources/OperatorExamples).
# test-api fails when they are out of date.
api-update: $(API_JSON) ## writes what is generated: Sources/python/pysignalkit/_prototypes.py, signalkit.hpp's pipeables (from the headers), docs/operators.md's table, the marble runners' operators (C, C++, Python, Rust, Swift), the C++ members, Python methods and Rust methods of the standard and bounded shapes, the cost rows and the fuzzer's operators (from the operator table, tools/api/operators.md), the Swift core's combineLatest and zip overloads, Sources/rust/rsignalkit-sys/src/lib.rs, the operator pages' Swift examples (examples/swift/Sources/OperatorExamples, tools/docs/examples.py)
	$(PYTHON) tools/api/operators.py $(API_JSON)
	$(PYTHON) tools/api/generate.py $(API_JSON)
	$(PYTHON) tools/generate-combine.py
	$(PYTHON) tools/docs/examples.py --write-swift

# Needs no library: the headers, gcc and the sources it reads.
test-api: $(API_JSON) ## every C function has its C++ wrapper, Python method, C test and availability row (docs/operators.md); ctypes prototypes match the headers; what api-update generates is up to date
	$(begin)
	$(PYTHON) tools/api/check.py $(API_JSON)
	$(PYTHON) tools/generate-combine.py --check
	$(PYTHON) tools/docs/examples.py --check-swift
	$(PYTHON) tools/docs/declarations.py $(API_JSON)
	set -e; for page in docs/*.md docs/maintainers/*.md; do $(PYTHON) tools/check/check-readme.py $$page; done
	$(end)

# The checks of test-api fail when they should (tools/api/selftest.py: each
# kind of drift made in a copy, check.py run on it: 26 s of processor time,
# a tenth of the checks' own); make release-check's, so that make test
# stays within its time (docs/maintainers/make-targets.md).
test-api-selftest: $(API_JSON) ## test-api's checks fail on each kind of drift (tools/api/selftest.py): make release-check
	$(begin)
	$(PYTHON) tools/api/selftest.py
	$(end)
