# The Python package (Sources/python): its native libraries, its wheel, and
# its tests run against the installed wheel. `pip install Sources/python`
# runs `make python-native` through the package's in-tree build backend.

PY_OUT := $(OUT)/python
PY_VENV := $(PY_OUT)/venv
PY_RUN := $(PY_OUT)/run
# The package as a new user installs it: `pip install Sources/python` (the
# backend builds what it needs in this checkout), no environment variable.
PY_SRC_VENV := $(PY_OUT)/source-venv
# The package installed as a developer installs it: `pip install -e`.
PY_EDIT_VENV := $(PY_OUT)/editable-venv
PY_SDIST := $(PY_OUT)/sdist
# The test tools, pinned: installed from PyPI by this file into a venv of
# their own (PY_TOOLS), made again when this file changes.
# (build: the PyPA frontend, `python -m build`, for the sdist check.)
PY_TEST_TOOLS := pytest==9.0.2 hypothesis==6.170.15 mypy==1.19.1 build==1.6.1
PY_TOOLS := $(PY_OUT)/tools
PY_TOOLS_STAMP := $(PY_TOOLS)/pins.txt
PY_PIP := $(PY_TOOLS)/bin/python -m pip --disable-pip-version-check

.PHONY: python-native python-wheel test-python test-python-sdist bench-python

$(PY_TOOLS_STAMP): mk/python.mk
	rm -rf $(PY_TOOLS)
	$(PYTHON) -m venv $(PY_TOOLS)
	$(PY_PIP) install -q $(PY_TEST_TOOLS)
	echo "$(PY_TEST_TOOLS)" > $@

# The libraries the wheel carries, under their sonames: the release core as
# it is, and libsignalkit-ffi linked again with an rpath of $$ORIGIN, so that
# it finds the core beside it wherever the package is installed.
python-native: lib ## the two libraries the Python wheel carries (.build-c/python)
	mkdir -p $(PY_OUT)
	cp $(LIB) $(PY_OUT)/libsignalkit.so.$(SOVERSION)
	$(CC) $(CWARN) $(FFI_CFLAGS) -O2 -shared $(FFI_SOURCES) \
		$$($(FFI_PKG) --cflags --libs signalkit-uninstalled libffi) -lpthread \
		-Wl,-soname,libsignalkit-ffi.so.$(FFI_SOVERSION) -Wl,--no-undefined -Wl,-rpath,'$$ORIGIN' \
		-o $(PY_OUT)/libsignalkit-ffi.so.$(FFI_SOVERSION)

# The wheel, built as pip builds it (the in-tree backend), from the
# libraries python-native just made; the backend compiles the package's
# extension (signalkit/_speedups.c), a warning failing the build here.
python-wheel: python-native $(PY_TOOLS_STAMP) ## the Python wheel, into .build-c/python/dist
	$(begin)
	rm -rf $(PY_OUT)/dist
	SIGNALKIT_PREBUILT_DIR=$(PY_OUT) SIGNALKIT_WERROR=1 $(PY_PIP) wheel -q --no-deps --no-build-isolation \
		-w $(PY_OUT)/dist ./Sources/python
	$(end)

# The package's tests against the installed wheel: a fresh venv with the
# wheel installed into it (and the pinned tools' venv on its path, through a
# .pth file), the tests copied out of the checkout and run from there (so
# only the installed package is importable: a file missing from the wheel
# fails), then mypy --strict on the installed package and on the examples;
# last, the package installed from its folder as a new user installs it
# (`pip install Sources/python` into another fresh venv, no environment
# variable) and the README's quick start run with it (the make the backend
# runs keeps its stage stamps apart: SIGNALKIT_STAGE_TIMES, mk/tests.mk).
test-python: python-wheel ## the Python package's tests (pytest) and mypy --strict, against its installed wheel
	$(begin)
	rm -rf $(PY_VENV) $(PY_RUN)
	$(PYTHON) -m venv --without-pip $(PY_VENV)
	$(PY_VENV)/bin/python -c 'import sys, sysconfig; print(sysconfig.get_path("purelib", vars={"base": sys.argv[1]}))' \
		$(PY_TOOLS) > "$$($(PY_VENV)/bin/python -c 'import sysconfig; print(sysconfig.get_path("purelib"))')/tools.pth"
	$(PY_PIP) --python $(PY_VENV)/bin/python install -q --no-deps --no-index $(PY_OUT)/dist/signalkit-*.whl
	mkdir -p $(PY_RUN) && cp -r Sources/python/tests $(PY_RUN)/tests
	cd $(PY_RUN) && SIGNALKIT_EXAMPLES=$(CURDIR)/examples/python PYTHONDONTWRITEBYTECODE=1 \
		$(PY_VENV)/bin/python -m pytest -p no:cacheprovider -q tests
	cd $(PY_RUN) && $(PY_VENV)/bin/python -m mypy --strict --no-incremental --cache-dir=/dev/null -p signalkit
	cd $(PY_RUN) && $(PY_VENV)/bin/python -m mypy --strict --no-incremental --cache-dir=/dev/null \
		$(CURDIR)/examples/python/*.py
	rm -rf $(PY_SRC_VENV)
	$(PYTHON) -m venv --without-pip $(PY_SRC_VENV)
	cd $(PY_RUN) && env -u SIGNALKIT_PREBUILT_DIR -u SIGNALKIT_LIB_DIR SIGNALKIT_STAGE_TIMES=$(PY_OUT)/pip-times \
		$(PY_PIP) --python $(PY_SRC_VENV)/bin/python install -q --no-index $(CURDIR)/Sources/python
	cd $(PY_RUN) && test "$$(env -u SIGNALKIT_LIB_DIR $(PY_SRC_VENV)/bin/python $(CURDIR)/examples/python/quickstart.py)" = "$$(printf '20\n30')"
	rm -rf $(PY_EDIT_VENV)
	$(PYTHON) -m venv --without-pip $(PY_EDIT_VENV)
	cd $(PY_RUN) && SIGNALKIT_PREBUILT_DIR=$(PY_OUT) SIGNALKIT_WERROR=1 \
		$(PY_PIP) --python $(PY_EDIT_VENV)/bin/python install -q --no-index -e $(CURDIR)/Sources/python
	cd $(PY_RUN) && env -u SIGNALKIT_LIB_DIR $(PY_EDIT_VENV)/bin/python -c \
		'import os, signalkit, sys; here = os.path.dirname(os.path.dirname(sys.argv[1])); assert os.path.realpath(signalkit.__file__) == sys.argv[1], signalkit.__file__; assert here not in map(os.path.realpath, sys.path), "Sources/python itself is on sys.path (its tests and _build importable)"' \
		$(CURDIR)/Sources/python/signalkit/__init__.py
	cd $(PY_RUN) && test "$$(env -u SIGNALKIT_LIB_DIR $(PY_EDIT_VENV)/bin/python $(CURDIR)/examples/python/quickstart.py)" = "$$(printf '20\n30')"
	rm -rf $(PY_SDIST)
	$(PY_TOOLS)/bin/python -m build -q --sdist --no-isolation --outdir $(PY_SDIST) Sources/python
	$(PY_TOOLS)/bin/python mk/check_python_sdist.py $(PY_SDIST)/signalkit-*.tar.gz $(CURDIR)
	$(end)

# `python -m build` as a packager runs it from Sources/python: the sdist,
# then the wheel built from that sdist alone (its copy of the tree builds
# the native libraries: about a minute here), installed into a fresh venv
# and the quick start run with it. Not part of `make test` (its cost);
# test-python checks the sdist's contents instead.
PY_ROUND_TRIP := $(PY_OUT)/round-trip
test-python-sdist: $(PY_TOOLS_STAMP) ## python -m build (sdist, then the wheel from it), installed, the quick start run
	rm -rf $(PY_ROUND_TRIP)
	cd Sources/python && env -u SIGNALKIT_PREBUILT_DIR SIGNALKIT_WERROR=1 \
		$(PY_TOOLS)/bin/python -m build -q --outdir $(PY_ROUND_TRIP)/dist .
	$(PYTHON) -m venv --without-pip $(PY_ROUND_TRIP)/venv
	$(PY_PIP) --python $(PY_ROUND_TRIP)/venv/bin/python install -q --no-deps --no-index $(PY_ROUND_TRIP)/dist/signalkit-*.whl
	cd $(PY_ROUND_TRIP) && test "$$(env -u SIGNALKIT_LIB_DIR venv/bin/python $(CURDIR)/examples/python/quickstart.py)" = "$$(printf '20\n30')"

# The issue's workloads on this package and on RxPY (reactivex, pinned) in
# one run, with the ratios (Sources/python/bench/bench.py); not part of
# `make test`. BENCH_PYTHON_SCALE multiplies every count.
PY_BENCH_VENV := $(PY_OUT)/bench-venv
BENCH_PYTHON_SCALE ?= 1

bench-python: python-wheel ## the Python package against RxPY on the issue's workloads (prints a table)
	rm -rf $(PY_BENCH_VENV)
	$(PYTHON) -m venv --without-pip $(PY_BENCH_VENV)
	$(PY_PIP) --python $(PY_BENCH_VENV)/bin/python install -q reactivex==6.1.0
	$(PY_PIP) --python $(PY_BENCH_VENV)/bin/python install -q --no-deps --no-index $(PY_OUT)/dist/signalkit-*.whl
	cd $(PY_OUT) && $(PY_BENCH_VENV)/bin/python $(CURDIR)/Sources/python/bench/bench.py --scale $(BENCH_PYTHON_SCALE)
