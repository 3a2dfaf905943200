/*
 * bits: what the CPU offers the SIMD scanners (see bits.h).
 */
#include "config/bits.h"

int bits_simd(void)
{
	static int level = -1; /* atomic; set once */
	int l = __atomic_load_n(&level, __ATOMIC_RELAXED);
	if (l < 0) {
		l = BITS_SIMD_NONE;
#if defined(__x86_64__) || defined(__i386__)
		__builtin_cpu_init();
		if (__builtin_cpu_supports("avx2"))
			l = BITS_SIMD_AVX2;
		else if (__builtin_cpu_supports("sse2"))
			l = BITS_SIMD_SSE2;
#endif
		__atomic_store_n(&level, l, __ATOMIC_RELAXED);
	}
	return l;
}
