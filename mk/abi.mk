# The ABI of libsignalkit.so and libsignalkit-ffi.so, recorded in Tests/abi
# and compared with the built libraries by test-abi (the policy it enforces
# is docs/maintainers/releasing.md's "Versioning"; tools/check/check-abi.sh applies it).
#
# What is recorded, and how (libabigail, Debian's abigail-tools 2.2):
# libsignalkit.so is Swift and stripped, and its DWARF, kept, would describe
# Swift types: abidw of the library itself can only record its ELF symbols.
# A C user depends on those symbols and on the header's declarations, so each
# library has a C twin (Tests/abi/twin.c, built below): a shared object with
# the library's soname and symbol versions, defining every function the
# header declares with the header's own prototype, compiled with -g, every
# header type kept. abidw of the twin is one ABI corpus holding both halves:
# the symbols (names, versions) and their C types (prototypes; the layout of
# sk_value, sk_observer, sk_ffi_observer...; the enumerations). The twin is
# tied to the real library by comparing their exports (name@version, kind)
# and sonames: removing a symbol from the version script removes it from both.
#
#   abidw --no-corpus-path --no-comp-dir-path --no-show-locs: no path or line
#       of this checkout in the records (a comment moving code does not change
#       them); --load-all-types: the types no function names (sk_status);
#       --type-id-style hash: ids that do not renumber when a type is added.
#   The twin keeps the standard headers' typedefs too (int64_t, size_t and
#   glibc's own): they are part of what the header means, and stable on the
#   Debian release CI runs (a new glibc or gcc may require `make abi-update`).
#
# Records: Tests/abi/libsignalkit.abi, Tests/abi/libsignalkit-ffi.abi, and
# Tests/abi/version: the VERSION they were recorded at, against which
# "the minor version was raised" is checked.

.PHONY: abi-twins test-abi abi-update

ABI_DIR := Tests/abi
ABI_OUT := $(OUT)/abi
# gcc: -aux-info (the header's prototypes as the compiler reads them).
ABI_CC := gcc
ABIDW := abidw --no-corpus-path --no-comp-dir-path --no-show-locs --load-all-types --type-id-style hash
ABI_RECORDED_VERSION := $(shell cat $(ABI_DIR)/version 2>/dev/null || echo 0.0.0)

# Per library: its headers (the last includes the others), the built
# library, its soname, its link flags, and where its soname's major is set.
ABI_HEADER_libsignalkit := signalkit.h signalkit_test.h
ABI_LIB_libsignalkit = $(LIB)
ABI_SONAME_libsignalkit = libsignalkit.so.$(SOVERSION)
ABI_LDFLAGS_libsignalkit := -Wl,--version-script=Sources/SignalKitCAPI/signalkit.map
ABI_SOVAR_libsignalkit := SOVERSION in the Makefile
ABI_HEADER_libsignalkit-ffi := signalkit_ffi.h
ABI_LIB_libsignalkit-ffi = $(FFI_LIB)
ABI_SONAME_libsignalkit-ffi = libsignalkit-ffi.so.$(FFI_SOVERSION)
ABI_LDFLAGS_libsignalkit-ffi :=
ABI_SOVAR_libsignalkit-ffi := FFI_SOVERSION in mk/ffi.mk

# Defined exports of a shared object, one "name@version kind" a line.
abi_exports = readelf -W --dyn-syms $(1) | awk '$$7 != "UND" && ($$5 == "GLOBAL" || $$5 == "WEAK") { print $$8, $$4 }' | sort

# $(call abi_twin,NAME): NAME's twin and its ABI ($(ABI_OUT)/NAME.abi).
# The stubs: each `extern` prototype -aux-info reports from the header,
# "/* include/signalkit.h:70:NC */ extern unsigned int sk_version_number (void);",
# becomes a definition, "unsigned int (sk_version_number) (void) { ... }"
# (-std=c2x: parameters without names). Every prototype must convert.
define abi_twin
	printf '#define SK_NO_INLINE_ACCESSORS\n#include "$(lastword $(ABI_HEADER_$(1)))"\n' | \
		$(ABI_CC) -std=c99 -Iinclude -fsyntax-only -aux-info $(ABI_OUT)/$(1).aux -x c -
	grep -E '^/\* include/($(subst $(space),|,$(ABI_HEADER_$(1)))):[0-9]+:NC \*/ extern ' $(ABI_OUT)/$(1).aux > $(ABI_OUT)/$(1).decls
	sed -n 's|^/\* [^ ]* \*/ extern \(.*[^a-zA-Z0-9_]\)\(sk_[a-z0-9_]*\) (\(.*\));$$|\1(\2) (\3) { __builtin_trap(); }|p' \
		$(ABI_OUT)/$(1).decls > $(ABI_OUT)/$(1)-stubs.h
	@test $$(wc -l < $(ABI_OUT)/$(1).decls) -eq $$(wc -l < $(ABI_OUT)/$(1)-stubs.h) || { echo "$(ABI_OUT)/$(1).decls:" \
		"a prototype of $(ABI_HEADER_$(1)) that mk/abi.mk cannot turn into a stub" >&2; exit 1; }
	$(ABI_CC) -std=c2x -Wall -Wextra -Werror -g -O0 -fPIC -shared -fno-eliminate-unused-debug-types -Iinclude -I$(ABI_OUT) \
		-DABI_HEADER='"$(lastword $(ABI_HEADER_$(1)))"' -DABI_STUBS='"$(1)-stubs.h"' $(ABI_DIR)/twin.c \
		$(ABI_LDFLAGS_$(1)) -Wl,-soname,$(ABI_SONAME_$(1)) -o $(ABI_OUT)/$(1)-twin.so
	$(call abi_exports,$(ABI_LIB_$(1))) > $(ABI_OUT)/$(1).exports
	$(call abi_exports,$(ABI_OUT)/$(1)-twin.so) > $(ABI_OUT)/$(1)-twin.exports
	@diff -u --label "exported by $(notdir $(ABI_LIB_$(1)))" --label "declared in $(ABI_HEADER_$(1))" \
		$(ABI_OUT)/$(1).exports $(ABI_OUT)/$(1)-twin.exports || { echo "error: $(1): the library's exports (-) and" \
		"its header's functions (+) differ: declare each export, export each declaration" >&2; exit 1; }
	@readelf -d $(ABI_LIB_$(1)) | grep -q 'SONAME.*\[$(ABI_SONAME_$(1))\]' || { echo "error: $(1):" \
		"$(ABI_LIB_$(1)) does not have the soname $(ABI_SONAME_$(1))" >&2; exit 1; }
	$(ABIDW) --out-file $(ABI_OUT)/$(1).abi $(ABI_OUT)/$(1)-twin.so
endef

abi-twins: lib ffi ## the C twins of both libraries and their ABI (.build-c/abi), exports checked
	@command -v abidw > /dev/null || { echo "the ABI check needs libabigail: Debian's abigail-tools (make deps)" >&2; exit 1; }
	rm -rf $(ABI_OUT) && mkdir -p $(ABI_OUT)
	$(call abi_twin,libsignalkit)
	$(call abi_twin,libsignalkit-ffi)

# $(call abi_check,MODE): tools/check/check-abi.sh for every library; all are
# compared before failing. ABI_UNRELEASED is 1 while VERSION has no heading
# of its own in CHANGELOG.md (it is the version being prepared): additions
# to a record of that same version need no further raise.
ABI_UNRELEASED := $(if $(shell grep -F '## [$(VERSION)]' CHANGELOG.md),0,1)
abi_check_one = sh tools/check/check-abi.sh $(1) $(ABI_DIR)/$(2).abi $(ABI_OUT)/$(2).abi $(VERSION) $(ABI_RECORDED_VERSION) \
	"$(ABI_SOVAR_$(2))" $(ABI_UNRELEASED)
abi_check = status=0; $(call abi_check_one,$(1),libsignalkit) || status=1; \
	$(call abi_check_one,$(1),libsignalkit-ffi) || status=1; exit $$status

# The Debian package's symbols file names every export of libsignalkit.so
# (make dist-deb refuses a library whose exports differ; checked here too,
# so that `make test` says so before a release does).
DEB_SYMBOLS := tools/packaging/debian/libsignalkit0.symbols

test-abi: abi-twins ## both libraries' ABI against Tests/abi: breaks need a new soname, additions a new minor version
	$(begin)
	$(call abi_check,check)
	sed -n 's/@.*//; s/^\(sk_[a-z0-9_]*\)$$/\1/p' $(ABI_OUT)/libsignalkit.exports | sort > $(ABI_OUT)/libsignalkit.names
	awk '/^libsignalkit\.so/ { on = 1; next } /^[a-z]/ { on = 0 } on && $$1 ~ /^sk_/ { sub(/@.*/, "", $$1); print $$1 }' \
		$(DEB_SYMBOLS) | sort > $(ABI_OUT)/libsignalkit.deb-names
	@diff -u --label "exported by libsignalkit.so" --label "named in $(DEB_SYMBOLS)" $(ABI_OUT)/libsignalkit.names \
		$(ABI_OUT)/libsignalkit.deb-names || { echo "error: libsignalkit.so's exports (-) and the Debian symbols file (+)" \
		"differ: record new exports with make deb-symbols (a symbol gone breaks the ABI)" >&2; exit 1; }
	$(end)

abi-update: abi-twins ## record the libraries' ABI in Tests/abi, when the versions allow the change
	$(call abi_check,update)
