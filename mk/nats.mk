# libsignalkit-nats: NATS subjects as signals over Debian's libnats
# (include/signalkit_nats.h, Sources/SignalKitNATS, docs/nats.md) and its
# tests against a real nats-server (Tests/nats). Optional: the core never
# depends on it, and nothing but these targets builds it. `make deps`
# installs libnats-dev and nats-server (tools/install-deps.sh).
#
#   make nats           the library, against the staged core (make stage)
#   make nats-stage     installs it into the stage beside the core, with
#                       signalkit-nats.pc and the CMake package SignalKitNATS
#   make nats-install   the same into $(DESTDIR)$(PREFIX) (after make install)
#   make test-nats      its tests, each against a nats-server it starts

NATS_SOVERSION := 0
NATS_OUT := $(OUT)/nats
NATS_LIB := $(NATS_OUT)/libsignalkit-nats.so.$(VERSION)
NATS_SOURCES := $(wildcard Sources/SignalKitNATS/*.c)
NATS_TESTS := $(wildcard Tests/nats/*.c)
# C11 (atomics, _Thread_local), warnings as errors; only sk_nats_ exported
# (-fvisibility=hidden, SK_NATS_EXPORT).
NATS_CFLAGS := -std=c11 -Wall -Wextra -Werror -pedantic -fPIC -fvisibility=hidden -D_DEFAULT_SOURCE
RUN_NATS := LD_LIBRARY_PATH=$(STAGE)/usr/lib:$(NATS_OUT)
# Where the tests' servers keep their folders (emptied before each run:
# a test that fails leaves its server's log there).
NATS_TMP := $(NATS_OUT)/tmp
NATS_HELP := libsignalkit-nats needs Debian's libnats-dev and nats-server (make deps installs them)

.PHONY: nats nats-tests test-nats test-nats-valgrind nats-stage nats-install nats-uninstall

# Against the staged core, as a user's library links against an installed
# one; its runpath is $$ORIGIN, as libsignalkit-ffi's.
nats: stage ## libsignalkit-nats.so (NATS subjects as signals, over Debian's libnats), against the staged core
	$(begin)
	@pkg-config --exists libnats || { echo "$(NATS_HELP): libnats.pc not found" >&2; exit 1; }
	mkdir -p $(NATS_OUT)
	$(CC) $(NATS_CFLAGS) -O2 $(RELEASE_CDEBUG) -ffile-prefix-map=$(PREFIX_MAP) -shared -Iinclude $(NATS_SOURCES) \
		$$($(STAGE_PKG) --cflags --libs signalkit) $$(pkg-config --cflags --libs libnats) -lm \
		-Wl,-soname,libsignalkit-nats.so.$(NATS_SOVERSION) -Wl,--no-undefined -Wl,-rpath,'$$ORIGIN' -o $(NATS_LIB)
	ln -sf libsignalkit-nats.so.$(VERSION) $(NATS_OUT)/libsignalkit-nats.so.$(NATS_SOVERSION)
	ln -sf libsignalkit-nats.so.$(NATS_SOVERSION) $(NATS_OUT)/libsignalkit-nats.so
	$(end)

# $(call nats_install_tree,DESTDIR,PREFIX,LIBDIR,INCLUDEDIR): the library
# with its soname links beside libsignalkit (its runpath is $$ORIGIN), the
# header, signalkit-nats.pc and the CMake package SignalKitNATS
# (LIBDIR/cmake/SignalKitNATS: SignalKit::nats), with paths relative to
# PREFIX as install_tree writes the core's (INSTALL_SED, Makefile).
define nats_install_tree
	install -d $(1)$(3)/pkgconfig $(1)$(3)/cmake/SignalKitNATS $(1)$(4)
	install -m 0755 $(NATS_LIB) $(1)$(3)/libsignalkit-nats.so.$(VERSION)
	ln -sf libsignalkit-nats.so.$(VERSION) $(1)$(3)/libsignalkit-nats.so.$(NATS_SOVERSION)
	ln -sf libsignalkit-nats.so.$(NATS_SOVERSION) $(1)$(3)/libsignalkit-nats.so
	install -m 0644 include/signalkit_nats.h $(1)$(4)/
	$(INSTALL_SED) pkgconfig/signalkit-nats.pc.in > $(1)$(3)/pkgconfig/signalkit-nats.pc
	$(INSTALL_SED) -e 's|@NATS_SOVERSION@|$(NATS_SOVERSION)|g' pkgconfig/SignalKitNATSConfig.cmake.in \
		> $(1)$(3)/cmake/SignalKitNATS/SignalKitNATSConfig.cmake
	$(INSTALL_SED) pkgconfig/SignalKitConfigVersion.cmake.in > $(1)$(3)/cmake/SignalKitNATS/SignalKitNATSConfigVersion.cmake
endef
NATS_INSTALLED_FILES = $(addprefix $(LIBDIR)/,libsignalkit-nats.so.$(VERSION) libsignalkit-nats.so.$(NATS_SOVERSION) \
	libsignalkit-nats.so pkgconfig/signalkit-nats.pc cmake/SignalKitNATS/SignalKitNATSConfig.cmake \
	cmake/SignalKitNATS/SignalKitNATSConfigVersion.cmake) $(INCLUDEDIR)/signalkit_nats.h

# `make stage` empties the stage: test-nats installs the bridge again.
nats-stage: nats ## install libsignalkit-nats, its header, .pc and CMake package into the stage, beside the core
	$(begin)
	$(call nats_install_tree,$(STAGE),/usr,/usr/lib,/usr/include)
	$(end)

nats-install: nats ## install libsignalkit-nats, its header, .pc and CMake package into $(DESTDIR)$(PREFIX) (the core: make install)
	$(call nats_install_tree,$(DESTDIR),$(PREFIX),$(LIBDIR),$(INCLUDEDIR))

nats-uninstall: ## remove what nats-install installed from $(DESTDIR)$(PREFIX)
	rm -f $(addprefix $(DESTDIR),$(NATS_INSTALLED_FILES))
	-rmdir $(DESTDIR)$(LIBDIR)/cmake/SignalKitNATS 2>/dev/null

nats-tests: nats ## build the NATS bridge's tests (Tests/nats) without running them
	$(begin)
	$(CC) -std=c11 -Wall -Wextra -Werror -D_DEFAULT_SOURCE -Iinclude $(NATS_TESTS) $(HARNESS) \
		-L$(NATS_OUT) -lsignalkit-nats $$($(STAGE_PKG) --cflags --libs signalkit) $$(pkg-config --cflags --libs libnats) \
		-lpthread -lm -o $(NATS_OUT)/nats-tests
	$(end)

# The exports (sk_nats_ only), the soname, the header alone (strict C99 and
# C++11, as test-header checks signalkit.h), a program built against the
# staged bridge through signalkit-nats.pc and through the CMake package
# (Tests/nats/package), then the tests, one at a time
# (each starts its own nats-server; the first publishes 1,000,000 messages,
# NATS_TEST_COUNT to change it).
test-nats: nats-tests nats-stage ## the NATS bridge against a real nats-server it starts: order of 1,000,000, overflow policies, dispose, publish, request, errors, JetStream (kill and restart of 100,000), the .pc and CMake package
	$(begin)
	@command -v nats-server > /dev/null || test -x /usr/sbin/nats-server || { echo "$(NATS_HELP): no nats-server" >&2; exit 1; }
	nm -D --extern-only --defined-only $(NATS_LIB) | awk '{print $$3}' > $(NATS_OUT)/exports.txt
	! grep -v -E '^sk_nats_[a-z]' $(NATS_OUT)/exports.txt
	readelf -d $(NATS_LIB) | grep -q 'SONAME.*libsignalkit-nats.so.$(NATS_SOVERSION)'
	echo '#include <signalkit_nats.h>' > $(NATS_OUT)/header.c
	$(CC) -std=c99 -Wall -Wextra -pedantic -Werror -Iinclude -c $(NATS_OUT)/header.c -o $(NATS_OUT)/header_c.o
	$(CXX) -std=c++11 -Wall -Wextra -pedantic -Werror -Iinclude -x c++ -c $(NATS_OUT)/header.c -o $(NATS_OUT)/header_cpp.o
	$(CC) -std=c11 -Wall -Wextra -Werror Tests/nats/package/main.c $$($(STAGE_PKG) --cflags --libs signalkit-nats) \
		-o $(NATS_OUT)/package-pc
	LD_LIBRARY_PATH=$(STAGE)/usr/lib $(NATS_OUT)/package-pc
	rm -rf $(NATS_OUT)/package-cmake
	cmake -S Tests/nats/package -B $(NATS_OUT)/package-cmake -DCMAKE_PREFIX_PATH=$(STAGE)/usr \
		-DREQUEST=$(word 1,$(subst ., ,$(VERSION))).$(word 2,$(subst ., ,$(VERSION))) > $(NATS_OUT)/package-cmake.log \
		|| { cat $(NATS_OUT)/package-cmake.log; exit 1; }
	cmake --build $(NATS_OUT)/package-cmake > $(NATS_OUT)/package-cmake.log || { cat $(NATS_OUT)/package-cmake.log; exit 1; }
	LD_LIBRARY_PATH=$(STAGE)/usr/lib $(NATS_OUT)/package-cmake/nats_package
	rm -rf $(NATS_TMP) && mkdir -p $(NATS_TMP)
	TMPDIR=$(NATS_TMP) $(RUN_NATS) $(NATS_OUT)/nats-tests --jobs 1
	$(end)

# The JetStream tests under valgrind (not part of test-nats: about 30 s):
# libnats 3.4.1's natsSubscription_Fetch() can write past its array (docs/nats.md,
# "Fragile"); a pull consumer on it is checked across a server's kill and
# restart this way.
test-nats-valgrind: nats-tests ## the JetStream tests of the NATS bridge under valgrind, the kill-and-restart included
	$(begin)
	rm -rf $(NATS_TMP) && mkdir -p $(NATS_TMP)
	TMPDIR=$(NATS_TMP) $(RUN_NATS) valgrind --error-exitcode=9 --errors-for-leak-kinds=none -q \
		$(NATS_OUT)/nats-tests --jobs 1 --filter 'nats_jetstream*/*'
	$(end)
