# libsignalkit-ffi: native callback types and trampolines through libffi
# (include/signalkit_ffi.h, Sources/SignalKitFFI) and its C suite (Tests/C/ffi);
# the Python package is in mk/python.mk. Its sanitizer and valgrind runs
# are in mk/sanitizers.mk; `install` and `stage` install it (install_tree in
# the Makefile).

FFI_SOVERSION := 0
FFI_LIB := $(OUT)/lib/libsignalkit-ffi.so.$(VERSION)
# As linked, with its debug information (FFI_LIB is it without, as LIB is
# for the core): the release artifacts keep that information (mk/dist.mk).
FFI_UNSTRIPPED := $(OUT)/unstripped/libsignalkit-ffi.so.$(VERSION)
FFI_SOURCES := $(wildcard Sources/SignalKitFFI/*.c)
FFI_TESTS := $(wildcard Tests/C/ffi/test_ffi_*.c)
FFI_CFLAGS := -fPIC -fvisibility=hidden -D_DEFAULT_SOURCE
# The in-tree core (signalkit-uninstalled.pc, written by `lib`): the staged
# install cannot be the base, since `stage` installs this library too.
FFI_PKG := PKG_CONFIG_PATH=$(OUT)/lib/pkgconfig pkg-config
# pkg-config seeing the staged install and nothing else: a user's machine
# with libffi's runtime but not its development files (no libffi.pc), where
# signalkit-ffi.pc must still give the flags (test-ffi checks it, and that a
# static link still gets -lffi).
FFI_PC_ALONE := PKG_CONFIG_LIBDIR=$(STAGE)/usr/lib/pkgconfig PKG_CONFIG_PATH= PKG_CONFIG_SYSROOT_DIR=$(STAGE) pkg-config

.PHONY: ffi ffi-tests test-ffi

# Its runpath is $ORIGIN, as the core's (SwiftPM links every product with
# -rpath=$ORIGIN): loaded alone by path (Python's ctypes.CDLL, dlopen), it
# finds libsignalkit.so.0 beside it, with no LD_LIBRARY_PATH. Compiled with
# debug information (RELEASE_CDEBUG, DWARF 4: it changes no code), the
# checkout's path written "." as for the core (PREFIX_MAP), then stripped of
# it, as the core is.
ffi: lib ## the release libsignalkit-ffi.so, against the in-tree core
	$(begin)
	@pkg-config --exists libffi || { echo "libsignalkit-ffi (and so make install) needs libffi's" \
		"development files: Debian's libffi-dev (make deps installs it)" >&2; exit 1; }
	mkdir -p $(OUT)/lib $(dir $(FFI_UNSTRIPPED))
	$(CC) $(CWARN) $(FFI_CFLAGS) -O2 $(RELEASE_CDEBUG) -ffile-prefix-map=$(PREFIX_MAP) -shared $(FFI_SOURCES) \
		$$($(FFI_PKG) --cflags --libs signalkit-uninstalled libffi) -lpthread \
		-Wl,-soname,libsignalkit-ffi.so.$(FFI_SOVERSION) -Wl,--no-undefined -Wl,-rpath,'$$ORIGIN' -o $(FFI_UNSTRIPPED)
	objcopy --strip-debug $(FFI_UNSTRIPPED) $(FFI_LIB)
	ln -sf libsignalkit-ffi.so.$(VERSION) $(OUT)/lib/libsignalkit-ffi.so.$(FFI_SOVERSION)
	ln -sf libsignalkit-ffi.so.$(FFI_SOVERSION) $(OUT)/lib/libsignalkit-ffi.so
	$(end)

# The ffi suite, compiled as a user compiles: against the staged install;
# the exports, the soname, the $ORIGIN runpath (the staged library, loaded
# with no LD_LIBRARY_PATH, finds the core beside it: ldd), the quick start
# (the header alone: test-header), the .pc file without libffi's.
# Built apart from its run, as c-tests (mk/tests.mk).
ffi-tests: stage ## build the ffi suite and the ffi quick start against the staged install, without running them
	$(begin)
	$(CC) $(CWARN) -D_DEFAULT_SOURCE -ITests/C $(FFI_TESTS) Tests/C/support.c $(HARNESS) \
		$$($(STAGE_PKG) --cflags --libs signalkit-ffi) -lpthread -o $(OUT)/ffi-tests
	$(CC) $(CWARN) examples/c/ffi_quickstart.c $$($(STAGE_PKG) --cflags --libs signalkit-ffi) -o $(OUT)/ffi_quickstart
	$(end)

test-ffi: ffi-tests ## the ffi suite against the staged install, plus exports, soname, runpath, quick start, .pc alone
	$(begin)
	nm -D --extern-only --defined-only $(FFI_LIB) | awk '{print $$3}' > $(OUT)/exports-ffi.txt
	! grep -v -E '^sk_ffi_[a-z]' $(OUT)/exports-ffi.txt
	readelf -d $(FFI_LIB) | grep -q 'SONAME.*libsignalkit-ffi.so.$(FFI_SOVERSION)'
	readelf -d $(FFI_LIB) | grep -q 'RUNPATH.*\[\$$ORIGIN\]'
	env -u LD_LIBRARY_PATH ldd $(STAGE)/usr/lib/libsignalkit-ffi.so.$(FFI_SOVERSION) \
		| grep -q 'libsignalkit.so.$(SOVERSION) => $(STAGE)/usr/lib/libsignalkit.so.$(SOVERSION)'
	$(RUN_STAGED) $(OUT)/ffi-tests --jobs 2
	test "$$($(RUN_STAGED) $(OUT)/ffi_quickstart)" = "2 4 6"
	$(FFI_PC_ALONE) --cflags --libs signalkit-ffi
	$(FFI_PC_ALONE) --static --libs signalkit-ffi | grep -q -e '-lffi'
	$(end)
