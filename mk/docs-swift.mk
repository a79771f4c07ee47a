# The Swift API's documentation: DocC, through swift-docc-plugin (as pages
# for a static web server, under /swift/ of make docs's site), which
# Package.swift names only when SIGNALKIT_DOCC=1 (users of the package never
# resolve it). Its own scratch path keeps the plugin and its dependencies out
# of the other builds. DocC's warnings are printed as they come; then every
# public symbol must have a summary (.ci/check-doc-summaries.py, over the
# symbol graphs the plugin extracted for DocC).

.PHONY: docs-swift

DOCS_SWIFT := $(OUT)/docs-swift
DOCC_SCRATCH := .build-docc
# Where the pages are served: /swift/ of the documentation site (make docs
# copies them there; serve .build-c/site, not this folder).
DOCC_HOSTING_BASE := swift

docs-swift: ## the Swift API's documentation (DocC archive in .build-c/docs-swift); every public symbol has a summary
	$(begin)
	rm -rf $(DOCS_SWIFT) && mkdir -p $(OUT)
	SIGNALKIT_DOCC=1 $(SWIFT) package --scratch-path $(DOCC_SCRATCH) --allow-writing-to-directory $(DOCS_SWIFT) \
		generate-documentation --target SwiftSignalKit --output-path $(DOCS_SWIFT) \
		--transform-for-static-hosting --hosting-base-path $(DOCC_HOSTING_BASE) \
		--experimental-documentation-coverage --coverage-summary-level brief
	$(PYTHON) .ci/check-doc-summaries.py \
		"$$(dirname "$$(find $(DOCC_SCRATCH) -path '*/extracted-symbols/*' -name SwiftSignalKit.symbols.json | head -n 1)")" \
		SwiftSignalKit
	$(end)
