# `make docs`: the documentation site, .build-c/site (open index.html, or
# serve the folder: the index says how). One index page links:
#
# - the C reference: Doxygen (tools/docs/Doxyfile) over signalkit.h, signalkit_ffi.h
#   and signalkit_test.h, also kept at .build-c/docs/html. Any Doxygen
#   warning fails it: an undocumented public function, type, enum value,
#   macro, struct field or parameter, a missing @return, a malformed command;
#   and so does an identifier its lists capitalize ("Sk_value");
# - the C++ reference: Doxygen (tools/docs/Doxyfile-cpp) over signalkit.hpp and
#   signalkit_test.hpp, whose plain comments tools/docs/cpp_comments.py hands
#   to Doxygen (a comment counts when it ends on the line before its
#   declaration). Any Doxygen warning fails it: a public name without a
#   comment, listed with the others in .build-c/docs/cpp/warnings.txt;
# - the Python reference: pdoc (pinned in DOCS_VENV) over the package as
#   the wheel installs it; a public name without a docstring fails it
#   (tools/docs/python_docs.py);
# - the Swift reference: DocC over the debug build's SwiftSignalKit module,
#   with the toolchain's own swift-symbolgraph-extract and docc
#   (mk/docs-swift.mk); a DocC warning or a public symbol without a summary
#   fails it;
# - one page per operator of the shared marble table (Tests/marbles), with a
#   picture of each of its cases drawn from what the case recorded when the
#   Swift runner ran it (SIGNALKIT_MARBLE_DUMP, MarbleTableTests.swift;
#   tools/docs/marble_svg.py), each checked by tools/docs/marble_check.py,
#   and links to the operator in each reference;
# - the benchmark page: Benchmarks/README.md's latest interleaved and full runs
#   and the Python guide's run against RxPY, plotted, each with its own account.
# - the guides: README.md, docs/ and the documents they link to, rendered
#   from Markdown by tools/docs/guides.py (markdown2, in DOCS_VENV) under guide/.
#
# tools/docs/site.py makes the index, the operator and benchmark pages and
# the pictures, then checks every link and image of the site: a broken one
# fails. test-docs (a stage of `make test`) builds it and opens its pages in
# headless Chromium (tools/docs/browser_test.py).

DOCS := $(OUT)/docs
SITE := $(OUT)/site
SITE_TEST := $(OUT)/site-test
DOCS_INSTALL_TEST := $(OUT)/docs-install
MARBLE_DUMP := $(OUT)/marbles.json
# The documentation tools, pinned, in a venv of their own made again when
# this file changes; the package's wheel is installed into it for pdoc.
DOCS_TOOLS := pdoc==16.0.0 selenium==4.40.0 markdown2==2.5.5
DOCS_VENV := $(OUT)/docs-venv
DOCS_VENV_STAMP := $(DOCS_VENV)/pins.txt

.PHONY: docs test-docs test-doc-checks dist-deb-doc

$(DOCS_VENV_STAMP): mk/docs.mk
	rm -rf $(DOCS_VENV)
	$(PYTHON) -m venv $(DOCS_VENV)
	$(DOCS_VENV)/bin/python -m pip --disable-pip-version-check install -q $(DOCS_TOOLS)
	echo "$(DOCS_TOOLS)" > $@

# The site's recipe, shared by docs and test-docs (which must not run make
# docs again: under make test, python-wheel is made once, before the stages).
define build_site
	@command -v doxygen >/dev/null || { echo "doxygen is missing: run tools/install-deps.sh (or make deps)" >&2; exit 1; }
	rm -rf $(DOCS) $(SITE) && mkdir -p $(DOCS) $(SITE)
	SK_VERSION=$(VERSION) doxygen tools/docs/Doxyfile
	@# The tag files name each header's folder by an absolute path: made
	@# relative, so that the site is the same bytes wherever it is built.
	$(PYTHON) tools/docs/relative_tags.py $(DOCS)/signalkit-c.tag $(CURDIR)
	@# Doxygen capitalizes a brief's first letter in its lists: one that starts
	@# with an identifier reads "Sk_value" (no name of ours starts with Sk_).
	@! grep -rn --include='*.html' 'Sk_' $(DOCS)/html || { echo "an identifier capitalized by Doxygen (above): start that @brief with a word" >&2; exit 1; }
	cp -r $(DOCS)/html $(SITE)/c && cp $(DOCS)/signalkit-c.tag $(SITE)/c/
	mkdir -p $(DOCS)/cpp
	SK_VERSION=$(VERSION) SK_DOCS_OUT=$(DOCS)/cpp SK_DOCS_C_TAG=$(DOCS)/signalkit-c.tag doxygen tools/docs/Doxyfile-cpp
	@test -f $(DOCS)/cpp/warnings.txt || { echo "Doxygen wrote no $(DOCS)/cpp/warnings.txt" >&2; exit 1; }
	@if grep -q 'is not documented' $(DOCS)/cpp/warnings.txt; then cat $(DOCS)/cpp/warnings.txt >&2; \
		echo "$$(grep -c 'is not documented' $(DOCS)/cpp/warnings.txt) undocumented C++ names (above): give each a /* */ comment ending on the line before it (tools/docs/cpp_comments.py)" >&2; exit 1; fi
	@! grep -v 'is not documented' $(DOCS)/cpp/warnings.txt || { echo "a Doxygen warning in the C++ headers (above)" >&2; exit 1; }
	$(PYTHON) tools/docs/relative_tags.py $(DOCS)/cpp/signalkit-cpp.tag $(CURDIR)
	cp -r $(DOCS)/cpp/html $(SITE)/cpp && cp $(DOCS)/cpp/signalkit-cpp.tag $(SITE)/cpp/
	$(DOCS_VENV)/bin/python -m pip --disable-pip-version-check install -q --no-deps --force-reinstall $(PY_OUT)/dist/pysignalkit-*.whl
	cd $(OUT) && $(DOCS_VENV)/bin/python $(CURDIR)/tools/docs/python_docs.py $(SITE)/python pysignalkit pysignalkit.testing
	@# cargo keeps the pages of a crate it no longer documents (the crate
	@# signalkit's, before it was rsignalkit): the site takes only this run's.
	rm -rf $(RUST_OUT)/doc
	cd Sources/rust && RUSTDOCFLAGS="-D warnings" CARGO_TARGET_DIR=$(RUST_OUT) SIGNALKIT_LIB_DIR=$(OUT)/lib \
		$(CARGO) doc --offline --no-deps --quiet
	cp -r $(RUST_OUT)/doc $(SITE)/rust && rm -f $(SITE)/rust/.lock
	$(SWIFT) build --build-tests -Xswiftc -warnings-as-errors
	rm -f $(MARBLE_DUMP)
	SIGNALKIT_MARBLE_DUMP=$(MARBLE_DUMP) $(SWIFT) test --skip-build \
		--filter 'SwiftSignalKitTestingTests.MarbleTableTests/testEveryCaseOfTheSharedTable'
	$(build_docs_swift)
	cp -r $(DOCS_SWIFT) $(SITE)/swift
	$(DOCS_VENV)/bin/python tools/docs/guides.py $(SITE)
	$(DOCS_VENV)/bin/python tools/docs/site.py $(SITE) $(MARBLE_DUMP) Benchmarks/README.md --api $(API_JSON) \
		--symbols $(SYMBOL_GRAPHS)
	@# Pages are data: no file of the site is executable (DocC writes its index database 0755).
	find $(SITE) -type f -exec chmod 0644 {} +
endef

# The prerequisite `api` makes api.json: $(API_JSON) would be empty here,
# since mk/api.mk, which sets it, is read after this file.
docs: python-wheel api $(DOCS_VENV_STAMP) ## the documentation site into .build-c/site: C, C++, Python, Rust references, operator pages with marble pictures, the benchmark plot
	$(begin)
	$(build_site)
	$(end)

# The site over HTTP on this machine only (127.0.0.1): DocC's pages (the
# Swift reference) are a web application that stays blank opened from a
# file; the rest works either way. DOCS_PORT 0 lets the system pick a port
# (the server's first line says which). Builds the site first when missing.
DOCS_PORT ?= 8000
docs-serve: ## serve the documentation site on http://127.0.0.1:8000/ (another port: DOCS_PORT=N; Ctrl-C stops it): the Swift reference needs a server; builds the site first when it is missing
	@test -f $(SITE)/index.html || $(MAKE) --no-print-directory docs
	@echo "The documentation site: http://127.0.0.1:$(DOCS_PORT)/ (Ctrl-C stops the server)"
	$(PYTHON) -u -m http.server --bind 127.0.0.1 --directory $(SITE) $(DOCS_PORT)

# The maintainers' documents that describe the code cite only files and
# names the tree has (tools/check/check-doc-citations.py); docs/maintainers/layout.md
# names every top-level folder, folder under Tests/ and tools/, and mk/*.mk
# file, and nothing gone (tools/check/check-layout.py).
CITING_DOCS := Sources/SwiftSignalKit/INTERNALS.md Tests/README.md $(wildcard docs/maintainers/*.md)

# The checks of the documents that need no site: part of make test.
test-doc-checks: ## the docs' checks that need no site: INTERNALS.md and Tests/README.md cite only what exists, each rule stated once (tools/check/check-doc-homes.py), layout.md matches the tree, the site scripts' self-tests and the marble pictures' (tools/docs/marble_test.py), performance.md's cost table is Benchmarks/costs.json's, make test's verdict line and heartbeat (tools/check/check-run-stages.sh)
	$(begin)
	$(PYTHON) Benchmarks/cost_table.py --check
	$(PYTHON) tools/docs/selftest.py
	$(PYTHON) tools/docs/marble_test.py
	$(PYTHON) tools/check/check-doc-citations.py --selftest
	$(PYTHON) tools/check/check-doc-citations.py $(CITING_DOCS)
	$(PYTHON) tools/check/check-doc-homes.py
	$(PYTHON) tools/check/check-layout.py
	sh tools/check/check-run-stages.sh $(OUT)/check-run-stages
	$(end)

# The operator pages' examples (tools/docs/examples.py: one per operator of
# the marble table in C, C++, Swift, Python and Rust, generated from one of
# its cases): the C ones each compiled with CWARN and run, the C++ ones
# compiled with CPP_STD as one program (each in a namespace of its own) and
# run one by one, the Python ones run with the package's wheel (in one
# interpreter) and checked by mypy --strict, the Rust ones built as one
# program (each in a module of its own) of a package that depends on the
# crate by path, offline, with warnings as errors and clippy -D warnings
# (where clippy is installed), and run one by one; each output compared with
# what the case's `out` line gives. The Swift ones are committed (SwiftPM
# builds what is in the tree): make test-api checks they are up to date,
# make test-examples-swift builds and runs them.
OP_EXAMPLES := $(OUT)/op-examples
OP_EXAMPLES_VENV := $(OUT)/op-examples-venv
# The crate the Rust examples depend on, and their target folder (kept
# between runs: the crate is built once; its own, since RUSTFLAGS differ
# from make test-rust's).
OP_EXAMPLES_CRATE = $(CURDIR)/Sources/rust/rsignalkit
OP_EXAMPLES_RUST = cd $(OP_EXAMPLES)/rust && $(RUST_ENV) CARGO_TARGET_DIR=$(RUST_OUT)/op-examples RUSTFLAGS="-D warnings" $(CARGO)

.PHONY: test-op-examples

test-op-examples: stage python-wheel ## the operator pages' examples in C, C++, Python and Rust (tools/docs/examples.py), compiled with warnings as errors, run, output compared
	$(begin)
	rm -rf $(OP_EXAMPLES) && $(PYTHON) tools/docs/examples.py --out $(OP_EXAMPLES) --rust-crate $(OP_EXAMPLES_CRATE)
	set -e; for op in $$(cat $(OP_EXAMPLES)/operators.txt); do \
		$(CC) $(CWARN) $(OP_EXAMPLES)/c/$$op.c $$($(STAGE_PKG) --cflags --libs signalkit) -o $(OP_EXAMPLES)/c/$$op; \
		$(RUN_STAGED) $(OP_EXAMPLES)/c/$$op > $(OP_EXAMPLES)/c/$$op.out; \
		diff -u $(OP_EXAMPLES)/expected/c/$$op.txt $(OP_EXAMPLES)/c/$$op.out; \
	done
	g++ $(CPP_STD) -I$(OP_EXAMPLES)/cpp $(OP_EXAMPLES)/cpp/all.cxx $$($(STAGE_PKG) --cflags --libs signalkit) \
		-o $(OP_EXAMPLES)/cpp/all
	set -e; for op in $$(cat $(OP_EXAMPLES)/operators.txt); do \
		$(RUN_STAGED) $(OP_EXAMPLES)/cpp/all $$op > $(OP_EXAMPLES)/cpp/$$op.out; \
		diff -u $(OP_EXAMPLES)/expected/cpp/$$op.txt $(OP_EXAMPLES)/cpp/$$op.out; \
	done
	rm -rf $(OP_EXAMPLES_VENV) && $(PYTHON) -m venv --without-pip $(OP_EXAMPLES_VENV)
	$(PY_PIP) --python $(OP_EXAMPLES_VENV)/bin/python install -q --no-deps --no-index $(PY_OUT)/dist/pysignalkit-*.whl
	$(OP_EXAMPLES_VENV)/bin/python tools/docs/examples.py --run-python $(OP_EXAMPLES)
	$(PY_TOOLS)/bin/python -m mypy --strict --no-incremental --cache-dir=/dev/null \
		--python-executable $(OP_EXAMPLES_VENV)/bin/python $(OP_EXAMPLES)/python/*.py
	$(OP_EXAMPLES_RUST) build --offline --quiet
	if $(CARGO) clippy --version >/dev/null 2>&1; then $(OP_EXAMPLES_RUST) clippy --offline --quiet -- -D warnings; \
		else echo "test-op-examples: no clippy here: the Rust examples' lint is skipped"; fi
	set -e; for op in $$(cat $(OP_EXAMPLES)/operators.txt); do \
		$(RUN_STAGED) $(RUST_OUT)/op-examples/debug/all $$op > $(OP_EXAMPLES)/rust/$$op.out; \
		diff -u $(OP_EXAMPLES)/expected/rust/$$op.txt $(OP_EXAMPLES)/rust/$$op.out; \
	done
	@echo "test-op-examples: $$(wc -l < $(OP_EXAMPLES)/operators.txt) operators, an example each in C, C++, Python and Rust, as expected"
	$(end)

# The site itself: part of make release-check.
test-docs: python-wheel api $(DOCS_VENV_STAMP) ## make docs, then its pages opened in headless Chromium (screenshots in .build-c/site-test); make install and libsignalkit-doc carry it
	$(begin)
	$(build_site)
	sh tools/check/check-tag-paths.sh $(OUT)/check-tag-paths
	rm -rf $(SITE_TEST)
	$(DOCS_VENV)/bin/python tools/docs/browser_test.py $(SITE) $(SITE_TEST) map --api $(API_JSON)
	@# make install puts the site under share/doc/signalkit/html; uninstall takes it away.
	rm -rf $(DOCS_INSTALL_TEST)
	$(MAKE) --no-print-directory install DESTDIR=$(DOCS_INSTALL_TEST) PREFIX=/opt/signalkit > /dev/null
	test -f $(DOCS_INSTALL_TEST)/opt/signalkit/share/doc/signalkit/html/index.html
	test -f $(DOCS_INSTALL_TEST)/opt/signalkit/share/doc/signalkit/html/operators/map.html
	$(MAKE) --no-print-directory uninstall DESTDIR=$(DOCS_INSTALL_TEST) PREFIX=/opt/signalkit > /dev/null
	test ! -e $(DOCS_INSTALL_TEST)/opt/signalkit
	$(build_deb_doc)
	dpkg-deb -c $(DEB_DOC) > $(DEB_DOC_WORK)/contents.txt
	grep -q ' ./usr/share/doc/libsignalkit-doc/html/operators/map.html$$' $(DEB_DOC_WORK)/contents.txt
	$(end)

# libsignalkit-doc (Architecture: all): the site under
# /usr/share/doc/libsignalkit-doc/html, made like dist-deb's packages
# (mk/dist.mk: dpkg-gencontrol, dpkg-deb, SOURCE_DATE_EPOCH), from the site
# make docs built; lintian must find no error in it. test-docs makes and
# checks it (the site is made in that stage: dist-deb, in test-dist, runs
# beside it and does not wait for a site).
DEB_DOC_WORK = $(DIST_WORK)/deb-doc
DEB_DOC = $(DIST)/libsignalkit-doc_$(DEB_VERSION)_all.deb
define build_deb_doc
	rm -rf $(DEB_DOC_WORK) $(DEB_DOC) && mkdir -p $(DEB_DOC_WORK)/debian $(DIST)
	set -e; cd $(DEB_DOC_WORK)/debian; p=libsignalkit-doc; doc=$$p/usr/share/doc/$$p; \
	mkdir -p $$doc $$p/DEBIAN; \
	cp -R $(SITE) $$doc/html; rm -f $$doc/html/c/signalkit-c.tag $$doc/html/cpp/signalkit-cpp.tag; \
	printf '%s (%s) unstable; urgency=medium\n\n  * SignalKit %s\n\n -- %s  %s\n' \
		signalkit $(DEB_VERSION) $(VERSION) '$(DEB_MAINTAINER)' "$$(date -u -R -d @$(SOURCE_DATE_EPOCH))" > changelog; \
	gzip -9nc changelog > $$doc/changelog.Debian.gz; \
	{ cat $(CURDIR)/tools/packaging/debian/copyright; sed -e '1,/^$$/d' -e 's/^$$/./' -e 's/^/ /' $(CURDIR)/LICENSE; } > $$doc/copyright; \
	sed -e 's|@MAINTAINER@|$(DEB_MAINTAINER)|' $(CURDIR)/tools/packaging/debian/control > control; \
	echo 'misc:Depends=' > $$p.substvars; \
	cd ..; $(DIST_ENV) dpkg-gencontrol -p$$p -Pdebian/$$p -Tdebian/$$p.substvars -fdebian/files; \
	(cd debian/$$p && find . -type f ! -path './DEBIAN/*' -printf '%P\0' | LC_ALL=C sort -z | xargs -0 md5sum > DEBIAN/md5sums); \
	chmod -R u+rwX,go+rX,go-w debian/$$p; \
	find debian/$$p -exec touch -h -d @$(SOURCE_DATE_EPOCH) {} +; \
	$(DIST_ENV) dpkg-deb --root-owner-group --threads-max=1 -Zxz --build debian/$$p $(DIST)/ > /dev/null
	lintian --fail-on error $(DEB_DOC)
endef

dist-deb-doc: docs ## the Debian package libsignalkit-doc (the site of make docs) into .build-c/dist
	$(begin)
	$(build_deb_doc)
	$(dist_manifest)
	$(end)
