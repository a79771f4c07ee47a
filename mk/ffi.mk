# libsignalkit-ffi: native callback types and trampolines through libffi
# (include/signalkit_ffi.h, Sources/SignalKitFFI), its C suite (Tests/C/ffi)
# and the Python examples (examples/python). Its sanitizer and valgrind runs
# are in mk/sanitizers.mk; `install` and `stage` install it (install_ffi).

FFI_SOVERSION := 0
FFI_LIB := $(OUT)/lib/libsignalkit-ffi.so.$(VERSION)
FFI_SOURCES := $(wildcard Sources/SignalKitFFI/*.c)
FFI_TESTS := $(wildcard Tests/C/ffi/test_ffi_*.c)
FFI_CFLAGS := -fPIC -fvisibility=hidden -D_DEFAULT_SOURCE
# The in-tree core (signalkit-uninstalled.pc, written by `lib`): the staged
# install cannot be the base, since `stage` installs this library too.
FFI_PKG := PKG_CONFIG_PATH=$(OUT)/lib/pkgconfig pkg-config

.PHONY: ffi test-ffi test-python

ffi: lib ## the release libsignalkit-ffi.so, against the in-tree core
	$(begin)
	mkdir -p $(OUT)/lib
	$(CC) $(CWARN) $(FFI_CFLAGS) -O2 -shared $(FFI_SOURCES) \
		$$($(FFI_PKG) --cflags --libs signalkit-uninstalled libffi) -lpthread \
		-Wl,-soname,libsignalkit-ffi.so.$(FFI_SOVERSION) -Wl,--no-undefined -o $(FFI_LIB)
	ln -sf libsignalkit-ffi.so.$(VERSION) $(OUT)/lib/libsignalkit-ffi.so.$(FFI_SOVERSION)
	ln -sf libsignalkit-ffi.so.$(FFI_SOVERSION) $(OUT)/lib/libsignalkit-ffi.so
	$(end)

# $(call install_ffi,DESTDIR,LIBDIR,INCLUDEDIR,PREFIX), as install_core.
define install_ffi
	install -d $(1)$(2)/pkgconfig $(1)$(3)
	install -m 0755 $(FFI_LIB) $(1)$(2)/libsignalkit-ffi.so.$(VERSION)
	ln -sf libsignalkit-ffi.so.$(VERSION) $(1)$(2)/libsignalkit-ffi.so.$(FFI_SOVERSION)
	ln -sf libsignalkit-ffi.so.$(FFI_SOVERSION) $(1)$(2)/libsignalkit-ffi.so
	install -m 0644 include/signalkit_ffi.h $(1)$(3)/signalkit_ffi.h
	sed -e 's|@PREFIX@|$(4)|g' -e 's|@LIBDIR@|$(2)|g' \
		-e 's|@INCLUDEDIR@|$(3)|g' -e 's|@VERSION@|$(VERSION)|g' \
		pkgconfig/signalkit-ffi.pc.in > $(1)$(2)/pkgconfig/signalkit-ffi.pc
endef

# The ffi suite, compiled as a user compiles: against the staged install;
# the exports, the soname, the quick start (the header alone: test-header).
test-ffi: stage ## the ffi suite (Criterion) against the staged install, plus exports, soname, quick start
	$(begin)
	nm -D --extern-only --defined-only $(FFI_LIB) | awk '{print $$3}' > $(OUT)/exports-ffi.txt
	! grep -v -E '^sk_ffi_[a-z]' $(OUT)/exports-ffi.txt
	readelf -d $(FFI_LIB) | grep -q 'SONAME.*libsignalkit-ffi.so.$(FFI_SOVERSION)'
	$(CC) $(CWARN) -D_DEFAULT_SOURCE -ITests/C $(FFI_TESTS) Tests/C/support.c \
		$$($(STAGE_PKG) --cflags --libs signalkit-ffi) $(CRITERION_FLAGS) -o $(OUT)/ffi-tests
	$(RUN_STAGED) $(OUT)/ffi-tests --jobs 2
	$(CC) $(CWARN) examples/c/ffi_quickstart.c $$($(STAGE_PKG) --cflags --libs signalkit-ffi) -o $(OUT)/ffi_quickstart
	test "$$($(RUN_STAGED) $(OUT)/ffi_quickstart)" = "2 4 6"
	$(end)

# The Python examples and their tests (ctypes only), against the staged
# install: SIGNALKIT_LIB_DIR tells signalkit.py where the libraries are.
test-python: stage ## the Python examples and their unittest suite, against the stage
	$(begin)
	cd examples/python && PYTHONDONTWRITEBYTECODE=1 SIGNALKIT_LIB_DIR=$(STAGE)/usr/lib $(PYTHON) -m unittest -v
	$(end)
