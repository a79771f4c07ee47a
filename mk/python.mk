# The Python package (Sources/python): its native libraries, its wheel, and
# its tests run against the installed wheel. `pip install Sources/python`
# runs `make python-native` through the package's in-tree build backend.

PY_OUT := $(OUT)/python
PY_VENV := $(PY_OUT)/venv
PY_RUN := $(PY_OUT)/run
# The test tools, pinned: installed from PyPI into the fresh venv by test-python.
PY_TEST_TOOLS := pytest==9.0.2 hypothesis==6.170.15 mypy==1.19.1

.PHONY: python-native python-wheel test-python bench-python

# The libraries the wheel carries, under their sonames: the release core as
# it is, and libsignalkit-ffi linked again with an rpath of $ORIGIN, so that
# it finds the core beside it wherever the package is installed.
python-native: lib ## the two libraries the Python wheel carries (.build-c/python)
	mkdir -p $(PY_OUT)
	cp $(LIB) $(PY_OUT)/libsignalkit.so.$(SOVERSION)
	$(CC) $(CWARN) $(FFI_CFLAGS) -O2 -shared $(FFI_SOURCES) \
		$$($(FFI_PKG) --cflags --libs signalkit-uninstalled libffi) -lpthread \
		-Wl,-soname,libsignalkit-ffi.so.$(FFI_SOVERSION) -Wl,--no-undefined -Wl,-rpath,'$$ORIGIN' \
		-o $(PY_OUT)/libsignalkit-ffi.so.$(FFI_SOVERSION)

# The wheel, built as pip builds it (the in-tree backend), from the
# libraries python-native just made.
python-wheel: python-native ## the Python wheel, into .build-c/python/dist
	rm -rf $(PY_OUT)/dist
	SIGNALKIT_PREBUILT_DIR=$(PY_OUT) $(PYTHON) -m pip wheel -q --no-deps --no-build-isolation \
		-w $(PY_OUT)/dist ./Sources/python

# The package's tests against the installed wheel: a fresh venv, the wheel
# and the pinned tools installed into it, the tests copied out of the
# checkout and run from there (so only the installed package is importable:
# a file missing from the wheel fails), then mypy --strict on the installed
# package and on the examples.
test-python: python-wheel ## the Python package's tests (pytest) and mypy --strict, against its installed wheel
	$(begin)
	rm -rf $(PY_VENV) $(PY_RUN)
	$(PYTHON) -m venv $(PY_VENV)
	$(PY_VENV)/bin/python -m pip install -q --disable-pip-version-check $(PY_TEST_TOOLS)
	$(PY_VENV)/bin/python -m pip install -q --disable-pip-version-check --no-index $(PY_OUT)/dist/signalkit-*.whl
	mkdir -p $(PY_RUN) && cp -r Sources/python/tests $(PY_RUN)/tests
	cd $(PY_RUN) && SIGNALKIT_EXAMPLES=$(CURDIR)/examples/python PYTHONDONTWRITEBYTECODE=1 \
		$(PY_VENV)/bin/python -m pytest -p no:cacheprovider -q tests
	cd $(PY_RUN) && $(PY_VENV)/bin/python -m mypy --strict --no-incremental --cache-dir=/dev/null -p signalkit
	cd $(PY_RUN) && $(PY_VENV)/bin/python -m mypy --strict --no-incremental --cache-dir=/dev/null \
		$(CURDIR)/examples/python/*.py
	$(end)
