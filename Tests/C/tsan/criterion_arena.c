/*
 * criterion_arena.c - lets Criterion 2.4 start under ThreadSanitizer.
 * Linked into the TSan build of the C suite only (make test-c-tsan).
 *
 * The problem: at start-up Criterion creates an "inheritable arena" with
 * BoxFort (linked into libcriterion), which places it at a random address
 * 0x200000000000 + (rand_r(&seed) & 0x3fffff) * 16 MiB, i.e. somewhere in
 * [0x2000_0000_0000, 0x6000_0000_0000), and gives up after 10 tries
 * ("criterion: Could not initialize inheritable arena"). On x86_64 TSan
 * reserves almost all of that range (its shadow is 0x1000..-0x3000..., its
 * meta shadow 0x3800..-0x4000..., the gaps are mapped PROT_NONE); only
 * [0x5500_0000_0000, 0x5a00_0000_0000) is application memory. So about one
 * start in two fails, and the arenas BoxFort maps later (per sandbox) can
 * land in the shadow too (a SEGV inside libcriterion). No Criterion option
 * or environment variable skips the arena, and TSan cannot move its shadow.
 *
 * The fix: this definition of rand_r() interposes the C library's (the
 * executable's symbols come first in the dynamic lookup, so libcriterion's
 * calls land here). It is glibc's algorithm shape, an LCG on *seed, with
 * results confined to the offsets that fall into TSan's application range:
 * BoxFort still probes each candidate with mincore() and retries, so it
 * still avoids whatever is mapped there already (the PIE executable).
 * Nothing else in the test process calls rand_r().
 */
#include <stdlib.h>

/* (0x5500_0000_0000 - 0x2000_0000_0000) / 16 MiB, and the width of the
 * application range in 16 MiB units. */
#define ARENA_SLOT_FIRST 0x350000u
#define ARENA_SLOT_COUNT 0x50000u

int rand_r(unsigned int *seed)
{
    unsigned int next = *seed * 1103515245u + 12345u;
    *seed = next;
    return (int)(ARENA_SLOT_FIRST + (next >> 8) % ARENA_SLOT_COUNT);
}
