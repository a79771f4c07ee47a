# The Swift API's documentation: DocC, as pages for a static web server,
# under /swift/ of make docs's site. Made with the toolchain's own tools, from
# the debug build that make docs (and test-swift) already has, so it needs no
# plugin, no network and no build of its own: swift-symbolgraph-extract reads
# the built SwiftSignalKit module, and `docc convert` renders its symbol graph
# with the catalog Sources/SwiftSignalKit/SwiftSignalKit.docc. A DocC warning
# fails it, and so does a public symbol without a summary
# (tools/check/check-doc-summaries.py, over the same symbol graph).

.PHONY: docs-swift

DOCS_SWIFT := $(OUT)/docs-swift
SYMBOL_GRAPHS := $(OUT)/symbol-graphs
# Where the pages are served: /swift/ of the documentation site (make docs
# copies them there; serve .build-c/site, not this folder).
DOCC_HOSTING_BASE := swift

# The recipe, shared by docs-swift and make docs's build_site (after its
# `swift build --build-tests`).
define build_docs_swift
	@command -v $(SWIFT_BIN)docc >/dev/null || { echo "$(SWIFT_BIN)docc is missing: the Swift toolchain 6.x ships it" >&2; exit 1; }
	rm -rf $(DOCS_SWIFT) $(SYMBOL_GRAPHS) && mkdir -p $(SYMBOL_GRAPHS)
	bin=$$($(SWIFT) build --show-bin-path) && \
	$(SWIFT_BIN)swift-symbolgraph-extract -module-name SwiftSignalKit -target $$(basename $$(dirname $$bin)) \
		-I $$bin/Modules -Xcc -fmodule-map-file=$$bin/_SwiftSignalKitShims.build/module.modulemap \
		-minimum-access-level public -skip-inherited-docs -output-dir $(SYMBOL_GRAPHS)
	$(SWIFT_BIN)docc convert Sources/SwiftSignalKit/SwiftSignalKit.docc --additional-symbol-graph-dir $(SYMBOL_GRAPHS) \
		--output-path $(DOCS_SWIFT) --transform-for-static-hosting --hosting-base-path $(DOCC_HOSTING_BASE) \
		--warnings-as-errors
	$(PYTHON) tools/check/check-doc-summaries.py $(SYMBOL_GRAPHS) SwiftSignalKit
endef

docs-swift: ## the Swift API's documentation alone (DocC, into .build-c/docs-swift); make docs includes it
	$(begin)
	$(SWIFT) build --build-tests -Xswiftc -warnings-as-errors
	$(build_docs_swift)
	$(end)
