# api.json: the C API described for machines (docs/api-json.md), made from
# the three C headers by .ci/api/describe.py (gcc's -aux-info for the
# prototypes, the headers' doc comments for the rest, a compiled program
# for sizes, offsets and values), installed as share/signalkit/api.json;
# and test-api, which holds the bindings, the C tests and docs/operators.md to it
# (.ci/api/check.py; its intended gaps: .ci/api/exceptions.txt), whose
# failures on each kind of drift .ci/api/selftest.py checks; and the
# code blocks of docs/ marked as check-readme.py wants them.

API_JSON := $(OUT)/api.json
API_HEADERS := include/signalkit.h include/signalkit_test.h include/signalkit_ffi.h

.PHONY: api api-update test-api

$(API_JSON): $(API_HEADERS) .ci/api/describe.py
	@mkdir -p $(OUT)
	$(PYTHON) .ci/api/describe.py $@

api: $(API_JSON) ## api.json, the C API for machines (.build-c/api.json; format: docs/api-json.md)

# What is made from api.json and kept in the tree (.ci/api/generate.py): the
# Python package's prototypes, signalkit.hpp's pipeables. test-api fails
# when they are out of date.
api-update: $(API_JSON) ## writes what is generated from the headers: Sources/python/signalkit/_prototypes.py, signalkit.hpp's pipeables, Sources/rust/src/sys.rs
	$(PYTHON) .ci/api/generate.py $(API_JSON)

# Needs no library: the headers, gcc and the sources it reads.
test-api: $(API_JSON) ## every C function has its C++ wrapper, Python method, C test and availability row (docs/operators.md); ctypes prototypes match the headers; what api-update generates is up to date
	$(begin)
	$(PYTHON) .ci/api/check.py $(API_JSON)
	$(PYTHON) .ci/api/selftest.py
	set -e; for page in docs/*.md docs/maintainers/*.md; do $(PYTHON) .ci/check-readme.py $$page; done
	$(end)
