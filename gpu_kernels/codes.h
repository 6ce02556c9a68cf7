/* Sequence-code constants the host and device twins share, defined once: the FASTA byte table's
 * entries for a dropped byte and a byte that is no sequence letter (fasta.c, fasta.cu; fasta.py's
 * SKIP), and the hash of a whole record's codes (matches.c, matches.cu; matches_runs.py's HASH_BASE):
 * the sum of (c_j + 1) * HASH_BASE^(L-1-j) mod 2^64. Both twins include this file;
 * kernels.source puts its text in place of the include for NVRTC and for the fatbins' digests. */
#ifndef GPU_KERNELS_CODES_H
#define GPU_KERNELS_CODES_H

#ifdef __CUDACC__
#define CODES_FN __device__ __forceinline__
typedef unsigned long long codes_u64;
#else
#include <stdint.h>
#define CODES_FN static inline
typedef uint64_t codes_u64;
#endif

#define SKIP 0xfe     /* table entry of a byte dropped (line break, blank) */
#define INVALID 0xff  /* table entry of a byte that is no sequence letter */

#define HASH_BASE 0x9E3779B97F4A7C15ULL  /* odd */

CODES_FN codes_u64 hash_symbol(unsigned char c) { return (codes_u64)c + 1; }

#endif
