/* A genome's covers for the backbone's rounds (backbone.c): which of its bases the chains kept so far
 * cover, read by the round's helper threads while its taker writes them. */
#ifndef COVER_H
#define COVER_H

#include <stdint.h>
#include <stdlib.h>

#define INLINE static inline __attribute__((always_inline))

/* A genome's covered bases: a bit a base, and for each superblock of 64 words (4,096 bases) how many
 * of its bases are covered. Once the best chains are kept, most chains lie where every base is
 * covered (or none is): their blocks are counted from the small table of counts, not from bits far
 * apart in a bitset of hundreds of megabytes (a cache miss a block: 1.4-2.6 s a compare job on a
 * 3 Gbp pair). A superblock's bits mean something only while it is partly covered: one wholly covered
 * or wholly uncovered is its count alone, and its words are written as that count says when it next
 * becomes partly covered. So a one-to-one alignment over a chromosome touches no page of the bitset
 * but at its ends (the kernel zeroed each page a bitset touched: a quarter of the pair's round). */
#define SUPER_SHIFT 12
#define SUPER_BASES (1 << SUPER_SHIFT)

typedef struct {
    uint64_t *bits;
    uint16_t *filled;  /* covered bases a superblock, 0 to 4,096 */
} cover;

/* The bits are not zeroed: a superblock's words are read only while it is partly covered, and written
 * whole as its count says as it becomes so (cover_mark). So no page of them is touched but those of the
 * superblocks a round covers partly, whatever the allocator gives (fresh pages or a heap's used ones). */
static int cover_open(cover *c, int64_t bases) {
    c->bits = malloc((size_t)(bases / SUPER_BASES + 1) * (SUPER_BASES / 64) * 8);  /* whole superblocks */
    c->filled = calloc((size_t)(bases / SUPER_BASES + 1), 2);
    return c->bits && c->filled;
}

static void cover_close(cover *c) {
    free(c->bits);
    free(c->filled);
    c->bits = NULL;
    c->filled = NULL;
}

/* Helpers read a cover while its taker writes it (take_list): every word is read and written whole
 * (relaxed atomics, plain moves on x86-64), and each only ever grows while a list is taken. */
#define LOAD(x) __atomic_load_n(&(x), __ATOMIC_RELAXED)
#define STORE(x, v) __atomic_store_n(&(x), (v), __ATOMIC_RELAXED)

/* The covered bases of [lo, hi) within one superblock, from its count where it is full or empty. */
INLINE int64_t count_in(const cover *c, int64_t lo, int64_t hi) {
    const int filled = __atomic_load_n(&c->filled[lo >> SUPER_SHIFT], __ATOMIC_ACQUIRE);  /* then its bits */
    if (filled == 0 || filled == SUPER_BASES)
        return filled ? hi - lo : 0;
    int64_t total = 0;
    for (int64_t at = lo; at < hi;) {
        const int64_t word = at >> 6, bit = at & 63;
        const int64_t take = (hi - at < 64 - bit) ? hi - at : 64 - bit;
        const uint64_t mask = (take == 64 ? ~0ULL : ((1ULL << take) - 1)) << bit;
        total += __builtin_popcountll(LOAD(c->bits[word]) & mask);
        at += take;
    }
    return total;
}

INLINE int64_t cover_count(const cover *c, int64_t lo, int64_t hi) {
    int64_t total = 0;
    for (int64_t at = lo; at < hi;) {
        const int64_t next = ((at >> SUPER_SHIFT) + 1) << SUPER_SHIFT, end = next < hi ? next : hi;
        total += count_in(c, at, end);
        at = end;
    }
    return total;
}

/* [lo, hi) covered (set) or uncovered, the superblocks' counts kept: a superblock the range holds whole
 * takes its new count alone, another one its bits a word at a time (written first as its count says,
 * where it was wholly covered or uncovered) and its count once. A helper reading meanwhile sees a
 * count at most the covered bits, and a partly covered superblock's count only after its bits (release
 * and acquire), so its counts stay lower bounds; a round only covers, so no superblock of it becomes
 * partly covered again while helpers read. */
INLINE void cover_mark(cover *c, int64_t lo, int64_t hi, int set) {
    for (int64_t at = lo; at < hi;) {
        const int64_t super = at >> SUPER_SHIFT, next = (super + 1) << SUPER_SHIFT, end = next < hi ? next : hi;
        uint16_t *filled = &c->filled[super];
        const int64_t before = *filled;
        const int whole = at == next - SUPER_BASES && end == next;
        if (whole)
            STORE(*filled, (uint16_t)(set ? SUPER_BASES : 0));
        if (whole || before == (set ? SUPER_BASES : 0)) {  /* wholly marked, or nothing of it to change */
            at = end;
            continue;
        }
        if (before == 0 || before == SUPER_BASES)
            for (int64_t word = (next - SUPER_BASES) >> 6; word < next >> 6; word++)
                STORE(c->bits[word], before ? ~0ULL : 0ULL);
        int64_t changed = 0;
        for (; at < end;) {
            const int64_t word = at >> 6, bit = at & 63;
            const int64_t take = (end - at < 64 - bit) ? end - at : 64 - bit;
            const uint64_t mask = (take == 64 ? ~0ULL : ((1ULL << take) - 1)) << bit;
            const uint64_t old = c->bits[word];
            changed += __builtin_popcountll(mask & (set ? ~old : old));
            STORE(c->bits[word], set ? old | mask : old & ~mask);
            at += take;
        }
        __atomic_store_n(filled, (uint16_t)(set ? before + changed : before - changed), __ATOMIC_RELEASE);
    }
}

#endif
