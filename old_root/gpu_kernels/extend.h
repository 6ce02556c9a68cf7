/* What extend.c (each seed's two sides walked) and sweep.c (the kept seeds of a diagonal walked side
 * by side) share: the extension rule's parameters, a side's and an HSP's numbers, the sweep's space. */
#ifndef GPU_KERNELS_EXTEND_H
#define GPU_KERNELS_EXTEND_H

#include "cpu.h"

#include <string.h>

/* The extension rule's parameters (extend.py) and one seed's HSP on the query axis. */
typedef struct {
    int k, match, mismatch, n_score, xdrop;
    double min_identity;
    int block_sum[256], block_low[2][256];  /* fill_blocks */
} scoring;

typedef struct {
    int64_t qstart, qend, score, ids;
} hsp;


typedef struct {
    int64_t best, length, ids;
} side;

typedef struct {
    int64_t score, n, run_ids;
    side out;
} walker;

typedef struct {
    walker lead;                   /* the walk every member is an offset of */
    int64_t updates;               /* times lead.out moved */
    int head, count;               /* members, linked through member.next */
    int64_t low_score;             /* least score offset among the members */
    double low_sigma, high_sigma;  /* least and greatest identity-slack offset among them */
} bundle;

typedef struct {
    int64_t dscore, dn, dids;      /* its walk = the lead's + these */
    double dsigma;                 /* its identity slack = the lead's + this */
    int64_t stamp;                 /* the bundle's updates when out was set */
    side out;
    int next;
} member;

typedef struct {
    bundle *bundles;
    member *members;
    walker *walks;                 /* a split's members, taken out of their bundle */
    int *alive;                    /* the bundles being walked */
    int *spare;                    /* free bundle slots */
    int *order;                    /* members taken out, in list order */
    int64_t *start;                /* the walks' first bases */
    side *right, *left;            /* the seeds' sides */
    int free_slots, size;
} sweep_space;

static inline int clears(const scoring *s, int64_t ids, int64_t n) {
    return (double)(2 * ids + s->k) * 100.0 >= s->min_identity * (double)(2 * n + s->k);
}

/* Eight codes from (q, r) on in direction step as a mask of mismatches (bit j: the j-th code of the
 * 8 in memory), or -1 where fewer than 8 codes are left on a side or one of them is N or a border. */
static inline int mismatch_mask(const uint8_t *qcodes, int64_t qsize, const uint8_t *rcodes, int64_t rsize,
                                int64_t q, int64_t r, int step) {
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    uint64_t a, b;
    int64_t first = step > 0 ? 0 : 7;  /* the 8 codes start at q - first */
    if (q < first || r < first || q - first + 8 > qsize || r - first + 8 > rsize)
        return -1;
    memcpy(&a, qcodes + q - first, 8);
    memcpy(&b, rcodes + r - first, 8);
    if ((a | b) & 0x0404040404040404ULL)  /* N (4) or border (5) */
        return -1;
    uint64_t x = a ^ b;
    x = (x | (x >> 1)) & 0x0101010101010101ULL;  /* codes 0..3 differ in bit 0 or 1 */
    return (int)((x * 0x0102040810204080ULL) >> 56);
#else
    (void)qcodes, (void)qsize, (void)rcodes, (void)rsize, (void)q, (void)r, (void)step;
    return -1;
#endif
}

/* sweep.c: the kept seeds of one diagonal walked side by side (sweep), in a space grown to m seeds
 * (sweep_room; 0 where memory ran out) and freed (free_sweep). */
void sweep(const scoring *s, const uint8_t *qcodes, int64_t qsize, const uint8_t *rcodes, int64_t rsize, int64_t diag,
           const int64_t *start, int m, int step, side *result, sweep_space *w, int64_t *reads);
void free_sweep(sweep_space *w);
int sweep_room(sweep_space *w, int m);

#endif
