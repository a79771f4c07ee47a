# `make docs`: the documentation site, .build-c/site (open index.html, or
# serve the folder: the index says how). One index page links:
#
# - the C reference: Doxygen (mk/Doxyfile) over signalkit.h, signalkit_ffi.h
#   and signalkit_test.h, also kept at .build-c/docs/html. Any Doxygen
#   warning fails it: an undocumented public function, type, enum value,
#   macro, struct field or parameter, a missing @return, a malformed command;
#   and so does an identifier its lists capitalize ("Sk_value");
# - the C++ reference: Doxygen (mk/Doxyfile-cpp) over signalkit.hpp and
#   signalkit_test.hpp, whose plain comments .ci/docs/cpp_comments.py hands
#   to Doxygen (a comment counts when it ends on the line before its
#   declaration). Any Doxygen warning fails it: a public name without a
#   comment, listed with the others in .build-c/docs/cpp/warnings.txt;
# - the Python reference: pdoc (pinned in DOCS_VENV) over the package as
#   the wheel installs it; a public name without a docstring fails it
#   (.ci/docs/python_docs.py);
# - the Swift reference: DocC over the debug build's SwiftSignalKit module,
#   with the toolchain's own swift-symbolgraph-extract and docc
#   (mk/docs-swift.mk); a DocC warning or a public symbol without a summary
#   fails it;
# - one page per operator of the shared marble table (Tests/marbles), with a
#   picture of each of its cases drawn from what the case recorded when the
#   Swift runner ran it (SIGNALKIT_MARBLE_DUMP, MarbleTableTests.swift), and
#   links to the operator in each reference;
# - the benchmark page: Benchmarks/README.md's latest full run, plotted.
# - the guides: README.md, docs/ and the documents they link to, rendered
#   from Markdown by .ci/docs/guides.py (markdown2, in DOCS_VENV) under guide/.
#
# .ci/docs/site.py makes the index, the operator and benchmark pages and
# the pictures, then checks every link and image of the site: a broken one
# fails. test-docs (a stage of `make test`) builds it and opens its pages in
# headless Chromium (.ci/docs/browser_test.py).

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

.PHONY: docs test-docs dist-deb-doc

$(DOCS_VENV_STAMP): mk/docs.mk
	rm -rf $(DOCS_VENV)
	$(PYTHON) -m venv $(DOCS_VENV)
	$(DOCS_VENV)/bin/python -m pip --disable-pip-version-check install -q $(DOCS_TOOLS)
	echo "$(DOCS_TOOLS)" > $@

# The site's recipe, shared by docs and test-docs (which must not run make
# docs again: under make test, python-wheel is made once, before the stages).
define build_site
	@command -v doxygen >/dev/null || { echo "doxygen is missing: run .ci/install-deps.sh (or make deps)" >&2; exit 1; }
	rm -rf $(DOCS) $(SITE) && mkdir -p $(DOCS) $(SITE)
	SK_VERSION=$(VERSION) doxygen mk/Doxyfile
	@# Doxygen capitalizes a brief's first letter in its lists: one that starts
	@# with an identifier reads "Sk_value" (no name of ours starts with Sk_).
	@! grep -rn --include='*.html' 'Sk_' $(DOCS)/html || { echo "an identifier capitalized by Doxygen (above): start that @brief with a word" >&2; exit 1; }
	cp -r $(DOCS)/html $(SITE)/c && cp $(DOCS)/signalkit-c.tag $(SITE)/c/
	mkdir -p $(DOCS)/cpp
	SK_VERSION=$(VERSION) SK_DOCS_OUT=$(DOCS)/cpp SK_DOCS_C_TAG=$(DOCS)/signalkit-c.tag doxygen mk/Doxyfile-cpp
	@test -f $(DOCS)/cpp/warnings.txt || { echo "Doxygen wrote no $(DOCS)/cpp/warnings.txt" >&2; exit 1; }
	@if grep -q 'is not documented' $(DOCS)/cpp/warnings.txt; then cat $(DOCS)/cpp/warnings.txt >&2; \
		echo "$$(grep -c 'is not documented' $(DOCS)/cpp/warnings.txt) undocumented C++ names (above): give each a /* */ comment ending on the line before it (.ci/docs/cpp_comments.py)" >&2; exit 1; fi
	@! grep -v 'is not documented' $(DOCS)/cpp/warnings.txt || { echo "a Doxygen warning in the C++ headers (above)" >&2; exit 1; }
	cp -r $(DOCS)/cpp/html $(SITE)/cpp && cp $(DOCS)/cpp/signalkit-cpp.tag $(SITE)/cpp/
	$(DOCS_VENV)/bin/python -m pip --disable-pip-version-check install -q --no-deps --force-reinstall $(PY_OUT)/dist/signalkit-*.whl
	cd $(OUT) && $(DOCS_VENV)/bin/python $(CURDIR)/.ci/docs/python_docs.py $(SITE)/python signalkit signalkit.testing
	cd Sources/rust && RUSTDOCFLAGS="-D warnings" CARGO_TARGET_DIR=$(RUST_OUT) SIGNALKIT_LIB_DIR=$(OUT)/lib \
		$(CARGO) doc --offline --no-deps --quiet
	cp -r $(RUST_OUT)/doc $(SITE)/rust && rm -f $(SITE)/rust/.lock
	$(SWIFT) build --build-tests -Xswiftc -warnings-as-errors
	rm -f $(MARBLE_DUMP)
	SIGNALKIT_MARBLE_DUMP=$(MARBLE_DUMP) $(SWIFT) test --skip-build \
		--filter 'SwiftSignalKitTestingTests.MarbleTableTests/testEveryCaseOfTheSharedTable'
	$(build_docs_swift)
	cp -r $(DOCS_SWIFT) $(SITE)/swift
	$(DOCS_VENV)/bin/python .ci/docs/guides.py $(SITE)
	$(PYTHON) .ci/docs/site.py $(SITE) $(MARBLE_DUMP) Benchmarks/README.md
	@# Pages are data: no file of the site is executable (DocC writes its index database 0755).
	find $(SITE) -type f -exec chmod 0644 {} +
endef

docs: python-wheel $(DOCS_VENV_STAMP) ## the documentation site into .build-c/site: C, C++, Python, Rust references, operator pages with marble pictures, the benchmark plot
	$(begin)
	$(build_site)
	$(end)

# The maintainers' documents that describe the code cite only files and
# names the tree has (.ci/check-doc-citations.py); docs/maintainers/layout.md
# names every top-level folder, folder under Tests/ and .ci/, and mk/*.mk
# file, and nothing gone (.ci/check-layout.py).
CITING_DOCS := Sources/SwiftSignalKit/INTERNALS.md Tests/README.md $(wildcard docs/maintainers/*.md)

test-docs: python-wheel $(DOCS_VENV_STAMP) ## make docs, then its pages opened in headless Chromium (screenshots in .build-c/site-test); make install and libsignalkit-doc carry it; INTERNALS.md and Tests/README.md cite only what exists; each rule stated once (.ci/check-doc-homes.py)
	$(begin)
	$(PYTHON) .ci/docs/selftest.py
	$(build_site)
	rm -rf $(SITE_TEST)
	$(DOCS_VENV)/bin/python .ci/docs/browser_test.py $(SITE) $(SITE_TEST) map
	$(PYTHON) .ci/check-doc-citations.py --selftest
	$(PYTHON) .ci/check-doc-citations.py $(CITING_DOCS)
	$(PYTHON) .ci/check-doc-homes.py
	$(PYTHON) .ci/check-layout.py
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
	{ cat $(CURDIR)/mk/debian/copyright; sed -e '1,/^$$/d' -e 's/^$$/./' -e 's/^/ /' $(CURDIR)/LICENSE; } > $$doc/copyright; \
	sed -e 's|@MAINTAINER@|$(DEB_MAINTAINER)|' $(CURDIR)/mk/debian/control > control; \
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
	$(end)
