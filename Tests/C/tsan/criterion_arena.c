/*
 * criterion_arena.c - lets Criterion 2.4 run under ThreadSanitizer.
 * Linked into the TSan build of the C suite only (make test-c-tsan).
 *
 * The problem. At start-up Criterion creates an "inheritable arena" with
 * BoxFort (built into libcriterion), and BoxFort creates more arenas later,
 * for the test processes. It places each one at a random address
 *     0x200000000000 + (rand_r(&seed) & 0x3fffff) * 16 MiB,
 * i.e. in [0x2000_0000_0000, 0x6000_0000_0000), skipping candidates that
 * mincore() shows as mapped, and gives up after 10 tries. On x86_64 TSan
 * owns almost all of that range: its shadow (0x1000_0000_0000 to
 * 0x3000_0000_0000), its meta shadow (0x3800_0000_0000 to 0x4000_0000_0000)
 * and PROT_NONE guards over the gaps; only [0x5500_0000_0000,
 * 0x5a00_0000_0000) is application memory. So about one start in two failed
 * ("criterion: Could not initialize inheritable arena"), and some of the
 * runs that started crashed later inside libcriterion (an arena mapped over
 * TSan's shadow). Criterion has no option or environment variable that
 * avoids the arena (its set-up is unconditional; --debug, --jobs 1 and
 * --timeout change nothing), and TSan's memory layout is fixed.
 *
 * The fix. This rand_r() interposes the C library's: the executable comes
 * first in the dynamic symbol lookup, so libcriterion's calls land here. It
 * is the usual linear congruential step on *seed, with its results confined
 * to the offsets that fall into TSan's application range. BoxFort still
 * probes each candidate and retries, so it still steps around whatever is
 * mapped there already (the PIE executable, earlier arenas). Of the
 * libraries the TSan test binary loads, only libcriterion imports rand_r(),
 * and the tests do not call it.
 */
#include <stdlib.h>

/* (0x5500_0000_0000 - 0x2000_0000_0000) / 16 MiB: the first candidate slot
 * inside TSan's application range, and that range's size in 16 MiB slots. */
#define ARENA_SLOT_FIRST 0x350000u
#define ARENA_SLOT_COUNT 0x50000u

int rand_r(unsigned int *seed)
{
    unsigned int next = *seed * 1103515245u + 12345u;
    *seed = next;
    return (int)(ARENA_SLOT_FIRST + (next >> 8) % ARENA_SLOT_COUNT);
}
