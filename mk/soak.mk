# Soak: Tests/soak/soak.c, four threads doing random operations through the
# C API for a fixed number of iterations, with exact accounting at the end
# (every observer and user pointer released once, nothing alive). It runs
# under ThreadSanitizer and under ASan+UBSan through the sanitizer template
# (mk/sanitizers.mk: test-soak-tsan, test-soak-asan), and under valgrind
# against the release library with fewer iterations (test-valgrind-c).
# SOAK_ITERATIONS per thread; the seed is printed. `make test` runs 5,000
# (10,000 before session 10: halved for CI's 8 minutes, the TSan run being
# its longest stage but two); a longer soak:
#   make test-soak-tsan test-soak-asan SOAK_ITERATIONS=100000

SOAK_ITERATIONS ?= 5000
soak_SOURCES := Tests/soak/soak.c
soak_CFLAGS := -std=gnu99 -Wall -Wextra -Werror -D_DEFAULT_SOURCE -g -O1 -fno-omit-frame-pointer -fuse-ld=lld \
	-Iinclude -ITests/common
soak_LIBS := -lpthread
soak_ARGS = $(SOAK_ITERATIONS)
