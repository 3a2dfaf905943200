/*
 * bits: bit tricks shared by the SIMD scanners (cache/json.c's structural
 * index, proxy/pretty.c's indenter), and what the CPU offers them. The
 * bit tricks are pure inline functions; bits_simd() asks the CPU once.
 */
#ifndef CONFIG_BITS_H
#define CONFIG_BITS_H

#include <stdint.h>

/* Bit i set when an odd number of bits 0..i of x are: over a mask of
 * unescaped quotes, the bytes inside a string, from its opening quote up
 * to and without its closing one. */
static inline uint64_t bits_prefix_xor(uint64_t x)
{
	x ^= x << 1;
	x ^= x << 2;
	x ^= x << 4;
	x ^= x << 8;
	x ^= x << 16;
	x ^= x << 32;
	return x;
}

/* The widest vectors the CPU has for the scanners: x86's AVX2 or SSE2,
 * or none of them (another architecture). Asked once; any thread. */
enum {
	BITS_SIMD_NONE,
	BITS_SIMD_SSE2,
	BITS_SIMD_AVX2
};
int bits_simd(void);

#endif
