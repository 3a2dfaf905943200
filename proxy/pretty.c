/*
 * pretty: indented JSON answers (see pretty.h).
 */
#include "proxy/pretty.h"

#include <errno.h>
#include <stdint.h>
#include <string.h>
#include <strings.h>
#if defined(__SSE2__)
#include <immintrin.h>
#endif

#include "config/bits.h"

/* Byte classes outside strings: 1 ends a run of a literal (number, true,
 * false, null), 2 is white space (also ends a run). */
static const unsigned char lit_stop[256] = {
	['{'] = 1, ['}'] = 1, ['['] = 1,  [']'] = 1,  [','] = 1,  [':'] = 1,
	['"'] = 1, [' '] = 2, ['\n'] = 2, ['\t'] = 2, ['\r'] = 2,
};

/* Bytes that end a run inside a string. */
static const unsigned char str_stop[256] = { ['"'] = 1, ['\\'] = 1 };

/* A line break and the indentation of the current depth: written into
 * out[*w..max) when it fits, else left pending. */
static inline void line(struct proxy_pretty_indenter *st, char *out, size_t *w,
			size_t max)
{
	unsigned sp = st->depth > 0 ? 2 * (unsigned)st->depth : 0;
	if (max - *w > sp + 8) { /* room for a closing byte after it too */
		char *o = out + *w;
		*o++ = '\n';
		/* spaces eight at a time, the last store maybe past the end
		 * of the indentation but within out */
		const uint64_t spaces = 0x2020202020202020ull;
		for (unsigned k = 0; k < sp; k += 8)
			memcpy(o + k, &spaces, 8);
		*w += sp + 1;
		return;
	}
	st->nl = true;
	st->sp = sp;
}

/*
 * The start of a string's run of plain bytes, sixteen at a time: copies
 * in[j..) to out[j + to..) and returns where a '"' or '\\' is, or where
 * fewer than sixteen bytes are left before end (the byte loop finishes).
 * Strings in Kubernetes objects are mostly short, but names, UIDs, images
 * and managedFields keys are longer than a word, and the byte loop costs
 * a table lookup and a store per byte.
 */
static inline size_t str_run(const char *in, size_t j, size_t end, char *out,
			     size_t to)
{
#if defined(__SSE2__)
	const __m128i q = _mm_set1_epi8('"'), bs = _mm_set1_epi8('\\');
	while (end - j >= 16) {
		__m128i v = _mm_loadu_si128((const __m128i *)(in + j));
		unsigned m = (unsigned)_mm_movemask_epi8(_mm_or_si128(
			_mm_cmpeq_epi8(v, q), _mm_cmpeq_epi8(v, bs)));
		/* all sixteen go out; the bytes from the stop on are
		 * written again by the caller, within out */
		_mm_storeu_si128((__m128i *)(out + (j + to)), v);
		if (m)
			return j + (unsigned)__builtin_ctz(m);
		j += 16;
	}
#else
	(void)in;
	(void)end;
	(void)out;
	(void)to;
#endif
	return j;
}

#if defined(__SSE2__)
/* The bits of the 64 bytes in v[0..4) for which expr(v[k]) holds. */
#define MASK64(v, expr)                                            \
	((uint64_t)(unsigned)_mm_movemask_epi8(expr(v[0])) |       \
	 (uint64_t)(unsigned)_mm_movemask_epi8(expr(v[1])) << 16 | \
	 (uint64_t)(unsigned)_mm_movemask_epi8(expr(v[2])) << 32 | \
	 (uint64_t)(unsigned)_mm_movemask_epi8(expr(v[3])) << 48)
#define IS_QUOTE(x) _mm_cmpeq_epi8(x, _mm_set1_epi8('"'))
#define IS_BSLASH(x) _mm_cmpeq_epi8(x, _mm_set1_epi8('\\'))
#define IS_PUNCT(x)                                         \
	_mm_or_si128(_mm_cmpeq_epi8(x, _mm_set1_epi8(',')), \
		     _mm_cmpeq_epi8(x, _mm_set1_epi8(':')))
/* { and [, } and ]: with bit 5 cleared, { and } read as [ and ] */
#define IS_OPEN(x)                                                  \
	_mm_cmpeq_epi8(_mm_and_si128(x, _mm_set1_epi8((char)0xdf)), \
		       _mm_set1_epi8('['))
#define IS_CLOSE(x)                                                 \
	_mm_cmpeq_epi8(_mm_and_si128(x, _mm_set1_epi8((char)0xdf)), \
		       _mm_set1_epi8(']'))
/* a backslash, white space or any other byte up to 0x20 (unsigned) */
#define IS_ODD(x)                                                             \
	_mm_or_si128(_mm_cmpeq_epi8(_mm_min_epu8(x, _mm_set1_epi8(0x20)), x), \
		     IS_BSLASH(x))

/* How a structural byte moves the depth (what it writes: pat below). */
static const signed char depth_step[256] = {
	['{'] = 1, ['['] = 1, ['}'] = -1, [']'] = -1
};

/* The bits of x set (no POPCNT in baseline x86-64). */
static inline unsigned popcount64(uint64_t x)
{
	x -= x >> 1 & 0x5555555555555555ull;
	x = (x & 0x3333333333333333ull) + (x >> 2 & 0x3333333333333333ull);
	x = (x + (x >> 4)) & 0x0f0f0f0f0f0f0f0full;
	return (unsigned)(x * 0x0101010101010101ull >> 56);
}

/* The deepest the blocks go: a line break of depth 15 and its byte are
 * 32 bytes. */
#define FAST_DEPTH 15

/* Unaligned copies of 16 and 32 bytes, as GCC's vectors: one store of 32
 * where the function is compiled for AVX2 (fast_blocks_avx2()), two of
 * 16 with SSE2. */
typedef char v16 __attribute__((vector_size(16), aligned(1), may_alias));
typedef char v32 __attribute__((vector_size(32), aligned(1), may_alias));

static inline __attribute__((always_inline)) void store16(char *o,
							  const char *from)
{
	*(v16 *)o = *(const v16 *)from;
}

static inline __attribute__((always_inline)) void store32(char *o,
							  const char *from)
{
	*(v32 *)o = *(const v32 *)from;
}

/* The most one structural byte and the run before it write, with the
 * stores past them: a run of up to 63 (64 stored), then 32. */
#define FAST_ROOM 160

/*
 * What a structural byte writes at depth d below FAST_DEPTH + 1 (the
 * depth after it): itself and a line break after it (a comma, an opening
 * bracket), a line break before it (a closing one), or a space after it
 * (a colon). One 32-byte store writes any of them; its length is
 * 2 + (2 * d & pat_lines[class]).
 */
#define S0 ""
#define S1 S0 "  "
#define S2 S1 "  "
#define S3 S2 "  "
#define S4 S3 "  "
#define S5 S4 "  "
#define S6 S5 "  "
#define S7 S6 "  "
#define S8 S7 "  "
#define S9 S8 "  "
#define S10 S9 "  "
#define S11 S10 "  "
#define S12 S11 "  "
#define S13 S12 "  "
#define S14 S13 "  "
#define S15 S14 "  "
#define AFTER(c)                                                               \
	{                                                                      \
		c "\n" S0, c "\n" S1, c "\n" S2, c "\n" S3, c "\n" S4,         \
			c "\n" S5, c "\n" S6, c "\n" S7, c "\n" S8, c "\n" S9, \
			c "\n" S10, c "\n" S11, c "\n" S12, c "\n" S13,        \
			c "\n" S14, c "\n" S15                                 \
	}
#define BEFORE(c)                                                              \
	{                                                                      \
		"\n" S0 c, "\n" S1 c, "\n" S2 c, "\n" S3 c, "\n" S4 c,         \
			"\n" S5 c, "\n" S6 c, "\n" S7 c, "\n" S8 c, "\n" S9 c, \
			"\n" S10 c, "\n" S11 c, "\n" S12 c, "\n" S13 c,        \
			"\n" S14 c, "\n" S15 c                                 \
	}
#define COLON(c)                                                               \
	{                                                                      \
		c " ", c " ", c " ", c " ", c " ", c " ", c " ", c " ", c " ", \
			c " ", c " ", c " ", c " ", c " ", c " ", c " "        \
	}
static const char pat[6][FAST_DEPTH + 1][32] = { AFTER(","),  COLON(":"),
						 AFTER("{"),  AFTER("["),
						 BEFORE("}"), BEFORE("]") };
/* pat's class of each structural byte, and whether it writes a line */
static const unsigned char pat_class[256] = {
	[','] = 0, [':'] = 1, ['{'] = 2, ['['] = 3, ['}'] = 4, [']'] = 5
};
static const unsigned pat_lines[6] = { ~0u, 0, ~0u, ~0u, ~0u, ~0u };

/*
 * The run b[*cur..k) and then the structural byte b[k], at out + *w,
 * with what it writes from pat: the same stores whatever it is, since
 * which one comes next is what a branch predictor cannot guess in JSON.
 * Writes up to 64 bytes for the run and then 32, and advances *w by up
 * to the run and 32.
 */
static inline __attribute__((always_inline)) void
emit(const char *b, size_t *cur, unsigned k, char *out, size_t *wp, int *depth)
{
	size_t w = *wp, from = *cur;
	unsigned char c = (unsigned char)b[k];
	store32(out + w, b + from);
	if (k - from > 32)
		store32(out + w + 32, b + from + 32);
	w += k - from;
	*cur = k + 1;
	*depth += depth_step[c];
	unsigned d = *depth > 0 ? (unsigned)*depth : 0, cl = pat_class[c];
	store32(out + w, pat[cl][d]);
	*wp = w + 2 + (2 * d & pat_lines[cl]);
}

/* One block of 64 input bytes, classified (classify()). */
struct block {
	/* The bytes, where the runs are copied from: the input itself
	 * when it goes on far enough for the 32-byte copies' last reads,
	 * up to 64 bytes past the block, else its 64 bytes copied here
	 * (loads that span the stores just made wait for them, so not
	 * always); what the copies read past them is written past the
	 * run, and written over. */
	const char *p;
	_Alignas(16) char copy[128];
	unsigned char next; /* the next block's first byte, 0 at the end */
	uint64_t s;	    /* structural bytes to act on: outside strings,
			  * not in an empty {} or [] */
	uint64_t open;	    /* opening brackets in s */
	uint64_t pair;	    /* the first bytes of empty {} and [] */
	bool last;	    /* byte 63 opens a bracket (not in s) that the byte
			  * loop decides: white space or the end follows */
	bool esc_out;	    /* byte 63 is a backslash escaping the next byte */
	bool in_str_end;    /* the block ends inside a string */
};

/* The bits of a block's 64 bytes that are each of these. */
struct masks {
	uint64_t quote, bslash, odd, open, close, punct;
};

static inline __attribute__((always_inline)) void masks_sse2(const char *p,
							     struct masks *m)
{
	__m128i v[4];
	for (int j = 0; j < 4; j++)
		v[j] = _mm_loadu_si128((const __m128i *)p + j);
	m->quote = MASK64(v, IS_QUOTE);
	m->bslash = MASK64(v, IS_BSLASH);
	m->odd = MASK64(v, IS_ODD);
	m->open = MASK64(v, IS_OPEN);
	m->close = MASK64(v, IS_CLOSE);
	m->punct = MASK64(v, IS_PUNCT);
}

/* masks_sse2() 32 bytes at a time: inlined into fast_blocks_avx2() only
 * (not always_inline, which the SSE2 build of blocks() would refuse) */
__attribute__((target("avx2"))) static inline void masks_avx2(const char *p,
							      struct masks *m)
{
	const __m256i quote = _mm256_set1_epi8('"'),
		      bslash = _mm256_set1_epi8('\\'),
		      b20 = _mm256_set1_epi8(0x20),
		      fold = _mm256_set1_epi8((char)0xdf),
		      open = _mm256_set1_epi8('['),
		      close = _mm256_set1_epi8(']'),
		      comma = _mm256_set1_epi8(','),
		      colon = _mm256_set1_epi8(':');
	__m256i v0 = _mm256_loadu_si256((const __m256i *)p),
		v1 = _mm256_loadu_si256((const __m256i *)p + 1);
#define MASK64_AVX2(expr)                                     \
	((uint64_t)(uint32_t)_mm256_movemask_epi8(expr(v0)) | \
	 (uint64_t)(uint32_t)_mm256_movemask_epi8(expr(v1)) << 32)
#define QUOTE(v) _mm256_cmpeq_epi8(v, quote)
#define BSLASH(v) _mm256_cmpeq_epi8(v, bslash)
#define ODD(v)                                                         \
	_mm256_or_si256(_mm256_cmpeq_epi8(_mm256_min_epu8(v, b20), v), \
			BSLASH(v))
#define OPEN(v) _mm256_cmpeq_epi8(_mm256_and_si256(v, fold), open)
#define CLOSE(v) _mm256_cmpeq_epi8(_mm256_and_si256(v, fold), close)
#define PUNCT(v)                                     \
	_mm256_or_si256(_mm256_cmpeq_epi8(v, comma), \
			_mm256_cmpeq_epi8(v, colon))
	m->quote = MASK64_AVX2(QUOTE);
	m->bslash = MASK64_AVX2(BSLASH);
	m->odd = MASK64_AVX2(ODD);
	m->open = MASK64_AVX2(OPEN);
	m->close = MASK64_AVX2(CLOSE);
	m->punct = MASK64_AVX2(PUNCT);
#undef MASK64_AVX2
#undef QUOTE
#undef BSLASH
#undef ODD
#undef OPEN
#undef CLOSE
#undef PUNCT
}

/*
 * Classify in[i..i+64) (n - i >= 64), which starts inside a string when
 * in_str, its byte 0 closing the last block's empty pair when skip0.
 * Bit masks do it at once: quotes, backslashes, structural bytes
 * ({ } [ ] , :) and low bytes (white space); which bytes are inside
 * strings follows from the parity of the unescaped quotes before them.
 * False when the block is the byte loop's: white space or any byte
 * below 0x21 outside strings, or a backslash outside strings. avx2: the
 * masks made 32 bytes at a time.
 */
static inline __attribute__((always_inline)) bool
classify(const char *in, size_t n, size_t i, bool in_str, uint64_t skip0,
	 struct block *k, const bool avx2)
{
	struct masks m;
	if (avx2)
		masks_avx2(in + i, &m);
	else
		masks_sse2(in + i, &m);
	k->next = n - i > 64 ? (unsigned char)in[i + 64] : 0;
	if (n - i >= 64 + 64) {
		k->p = in + i;
	} else {
		memcpy(k->copy, in + i, 64);
		k->p = k->copy;
	}
	uint64_t q = m.quote, odd = m.odd, esc = 0;
	k->esc_out = false;
	if (odd) {
		/* escaped bytes: the one after each backslash that is not
		 * itself escaped (a backslash in byte 63 escapes the next
		 * block's first) */
		for (uint64_t x = m.bslash; x; x &= x - 1) {
			unsigned j = (unsigned)__builtin_ctzll(x);
			if (esc >> j & 1)
				continue;
			if (j == 63)
				k->esc_out = true;
			else
				esc |= 2ull << j;
		}
		q &= ~esc;
	}
	/* outside strings: a closing quote counts here, an opening one
	 * does not */
	uint64_t inside = bits_prefix_xor(q) ^ (in_str ? ~0ull : 0);
	/* Backslashes were all read as inside strings: if one is not, the
	 * first such is outside by the quotes before it, all read right. */
	if (odd & ~inside)
		return false;
	uint64_t open = m.open & ~inside;
	uint64_t close = m.close & ~inside;
	uint64_t s = (m.punct & ~inside) | open | close;
	/* an empty {} or [] is copied as it is: both bytes leave s */
	uint64_t next_close = (close >> 1) | (uint64_t)((k->next & 0xdf) == ']')
						     << 63;
	uint64_t pair = open & next_close;
	s &= ~(pair | pair << 1 | skip0);
	k->last = (open & ~pair) >> 63 && k->next <= 0x20;
	if (k->last)
		s &= ~(1ull << 63);
	k->s = s;
	k->open = open & s;
	k->pair = pair;
	k->in_str_end = inside >> 63; /* the parity of all its quotes */
	return true;
}

/*
 * The indenter on blocks of 64 input bytes (classify()): strings,
 * literals and empty {} and [] are copied as whole runs between the
 * other structural bytes (emit()), with no work per byte.
 *
 * It starts at in[i] with nothing pending and not after a backslash or
 * an opening bracket, and goes on while 64 bytes are left and the output
 * has room. It leaves to the byte loop a block classify() refuses, an
 * opening bracket whose next byte is white space or the end, and a depth
 * past FAST_DEPTH. Returns where it stopped (i when it did nothing), with
 * st and *wp updated; st then has nothing pending but maybe open (a { or
 * [ written, its closing next) or esc (the block ended inside a string,
 * after a backslash).
 */
static inline __attribute__((always_inline)) size_t
blocks(struct proxy_pretty_indenter *st, const char *in, size_t n, size_t i,
       char *out, size_t max, size_t *wp, const bool avx2)
{
	size_t w = *wp;
	int depth = st->depth;
	bool in_str = st->in_str;
	uint64_t skip0 = 0; /* 1: byte 0 closes the last block's {} or [] */
	struct block blk;
	if (max - w < FAST_ROOM)
		return i;
	size_t wlim = max - FAST_ROOM; /* room for one more while w <= */
	while (n - i >= 64 && classify(in, n, i, in_str, skip0, &blk, avx2)) {
		const char *b = blk.p;
		uint64_t s = blk.s, skip_in = skip0;
		skip0 = blk.pair >> 63;
		size_t cur = 0; /* b[cur..) not yet written */
		bool stop = false;
		if (max - w >= FAST_ROOM + 64 + 32 * (size_t)popcount64(s) &&
		    depth + (int)popcount64(blk.open) < FAST_DEPTH) {
			/* room and depth for the whole block */
			while (s) {
				unsigned k = (unsigned)__builtin_ctzll(s);
				s &= s - 1;
				emit(b, &cur, k, out, &w, &depth);
			}
		}
		while (s) {
			unsigned k = (unsigned)__builtin_ctzll(s);
			if (w > wlim || depth >= FAST_DEPTH) {
				stop = true;
				break;
			}
			s &= s - 1;
			emit(b, &cur, k, out, &w, &depth);
		}
		/* the rest of the block: up to byte 63 when the byte loop
		 * decides about it */
		size_t end = blk.last ? 63 : 64;
		if (!stop && cur < end) {
			if (w > wlim) {
				stop = true;
			} else {
				for (size_t r = cur; r < end; r += 16)
					store16(out + w + (r - cur), b + r);
				w += end - cur;
				cur = end;
			}
		}
		if (stop || blk.last) {
			/* at b[cur]: outside strings (after a structural
			 * byte) unless cur is 0; a pair whose second byte is
			 * here is the byte loop's, its first written */
			skip0 = cur == 0 ? skip_in : 0;
			i += cur;
			in_str = cur ? false : in_str;
			break;
		}
		i += 64;
		in_str = blk.in_str_end;
		if (blk.esc_out) {
			st->esc = true;
			break;
		}
	}
	st->depth = depth;
	st->in_str = in_str;
	st->open = skip0;
	*wp = w;
	return i;
}

/* blocks() as baseline x86-64 has it (SSE2), and for AVX2, whose 32-byte
 * stores write a line break or half a run in one, and whose masks take
 * half the instructions: the 10k-pod LIST in 0.032 s of one core against
 * 0.041 s with SSE2 (docs/PERFORMANCE.md, B12). */
static size_t fast_blocks_sse2(struct proxy_pretty_indenter *st, const char *in,
			       size_t n, size_t i, char *out, size_t max,
			       size_t *wp)
{
	return blocks(st, in, n, i, out, max, wp, false);
}

__attribute__((target("avx2"))) static size_t
fast_blocks_avx2(struct proxy_pretty_indenter *st, const char *in, size_t n,
		 size_t i, char *out, size_t max, size_t *wp)
{
	return blocks(st, in, n, i, out, max, wp, true);
}

/*
 * blocks() as proxy_pretty_isa() says: returns where it stopped, as
 * blocks() does (i for the byte loop alone).
 */
static size_t fast_blocks(struct proxy_pretty_indenter *st, const char *in,
			  size_t n, size_t i, char *out, size_t max, size_t *wp)
{
	switch (proxy_pretty_isa()) {
	case PROXY_PRETTY_AVX2:
		return fast_blocks_avx2(st, in, n, i, out, max, wp);
	case PROXY_PRETTY_SSE2:
		return fast_blocks_sse2(st, in, n, i, out, max, wp);
	default:
		return i; /* the byte loop's */
	}
}

/* fast_blocks() counting instead of writing: adds to *total the bytes it
 * would write, with no limit of room or depth. */
static size_t count_blocks(struct proxy_pretty_indenter *st, const char *in,
			   size_t n, size_t i, size_t *total)
{
	size_t t = *total;
	int depth = st->depth;
	bool in_str = st->in_str;
	uint64_t skip0 = 0;
	struct block blk;
	while (n - i >= 64 && classify(in, n, i, in_str, skip0, &blk, false)) {
		skip0 = blk.pair >> 63;
		/* every byte of the block, and what each structural byte
		 * adds: a colon's space, or a line break */
		for (uint64_t s = blk.s; s; s &= s - 1) {
			unsigned char c =
				(unsigned char)blk.p[__builtin_ctzll(s)];
			depth += depth_step[c];
			unsigned d = depth > 0 ? (unsigned)depth : 0;
			/* pat's length, less the byte counted with the block */
			t += 1 + (2 * d & pat_lines[pat_class[c]]);
		}
		if (blk.last) {
			t += 63;
			i += 63;
			in_str = false;
			skip0 = 0;
			break;
		}
		t += 64;
		i += 64;
		in_str = blk.in_str_end;
		if (blk.esc_out) {
			st->esc = true;
			break;
		}
	}
	st->depth = depth;
	st->in_str = in_str;
	st->open = skip0;
	*total = t;
	return i;
}
#endif

static int isa_forced = -1; /* proxy_pretty_isa_force(); atomic */

int proxy_pretty_isa_force(int isa)
{
	return __atomic_exchange_n(&isa_forced, isa, __ATOMIC_RELAXED);
}

int proxy_pretty_isa(void)
{
	int f = __atomic_load_n(&isa_forced, __ATOMIC_RELAXED);
	if (f >= 0)
		return f;
#if defined(__SSE2__)
	/* SSE2 is baseline x86-64 */
	return bits_simd() == BITS_SIMD_AVX2 ? PROXY_PRETTY_AVX2 :
					       PROXY_PRETTY_SSE2;
#else
	return PROXY_PRETTY_BYTES;
#endif
}

size_t proxy_pretty_indent_step(struct proxy_pretty_indenter *state,
				const char *in, size_t n, size_t *used,
				char *out, size_t max)
{
	/* A local copy, which the compiler keeps in registers: through the
	 * pointer every store to out might change it. */
	struct proxy_pretty_indenter local = *state, *st = &local;
	size_t w = 0, i = 0;
#if defined(__SSE2__)
	size_t slow_until = 0; /* the byte loop's, up to here */
#endif
	for (;;) {
		/* what is pending goes first: line break, spaces, a byte */
		if (st->nl) {
			if (w == max)
				break;
			out[w++] = '\n';
			st->nl = false;
		}
		if (st->sp) {
			size_t k = max - w < st->sp ? max - w : st->sp;
			memset(out + w, ' ', k);
			w += k;
			st->sp -= (unsigned)k;
			if (st->sp)
				break;
		}
		if (st->c) {
			if (w == max)
				break;
			out[w++] = st->c;
			st->c = 0;
		}
		if (i == n || w == max)
			break;
#if defined(__SSE2__)
		if (i >= slow_until && n - i >= 64 && !st->esc && !st->open) {
			size_t j = fast_blocks(st, in, n, i, out, max, &w);
			if (j != i) {
				i = j;
				continue;
			}
			slow_until = i + 64; /* a block for the byte loop */
		}
#endif
		if (st->in_str) {
			if (st->esc) { /* the byte after a backslash, as it is */
				out[w++] = in[i++];
				st->esc = false;
				continue;
			}
			size_t lim = n - i < max - w ? n - i : max - w;
			size_t j = i, end = i + lim;
			size_t to = w - i; /* out[j + to] for in[j], wrapping */
			j = str_run(in, j, end, out, to);
			while (j < end && !str_stop[(unsigned char)in[j]]) {
				out[j + to] = in[j]; /* copied as scanned: */
				j++;		     /* runs are short */
			}
			w += j - i;
			i = j;
			if (j < end) {
				out[w++] = in[i];
				if (in[i++] == '"')
					st->in_str = false;
				else
					st->esc = true;
			}
			continue;
		}
		char c = in[i];
		if (lit_stop[(unsigned char)c] == 2) {
			i++;
			continue;
		}
		if (st->open) {
			st->open = false;
			if (c == '}' ||
			    c == ']') { /* {} and [] stay as they are */
				out[w++] = c;
				i++;
				continue;
			}
			st->depth++;
			line(st, out, &w, max);
			continue; /* c again, after the indentation */
		}
		switch (c) {
		case '{':
		case '[':
			out[w++] = c;
			st->open = true;
			i++;
			break;
		case '}':
		case ']':
			st->depth--;
			line(st, out, &w, max);
			if (!st->nl)
				out[w++] = c; /* line() left room for it */
			else
				st->c = c;
			i++;
			break;
		case ',':
			out[w++] = ',';
			line(st, out, &w, max);
			i++;
			break;
		case ':':
			out[w++] = ':';
			if (w < max)
				out[w++] = ' ';
			else
				st->sp = 1;
			i++;
			break;
		case '"':
			out[w++] = '"';
			st->in_str = true;
			i++;
			break;
		default: {
			size_t lim = n - i < max - w ? n - i : max - w;
			size_t j = i + 1, end = i + lim, to = w - i;
			out[w] = c;
			while (j < end && !lit_stop[(unsigned char)in[j]]) {
				out[j + to] = in[j];
				j++;
			}
			w += j - i;
			i = j;
		}
		}
	}
	*state = local;
	*used = i;
	return w;
}

size_t proxy_pretty_indent_end(struct proxy_pretty_indenter *st, char *out,
			       size_t max)
{
	if (st->open) { /* input ended after a { or [: as if more came */
		st->open = false;
		st->depth++;
		st->nl = true;
		st->sp = 2 * (unsigned)(st->depth > 0 ? st->depth : 0);
	}
	size_t used;
	return proxy_pretty_indent_step(st, "", 0, &used, out, max);
}

size_t proxy_pretty_indent_count(struct proxy_pretty_indenter *st,
				 const char *in, size_t n)
{
	char scratch[512];
	size_t total = 0, i = 0, used;
#if defined(__SSE2__)
	const bool fast = proxy_pretty_isa() != PROXY_PRETTY_BYTES;
#endif
	while (i < n) {
#if defined(__SSE2__)
		if (fast && !st->nl && !st->sp && !st->c && !st->esc &&
		    !st->open && n - i >= 64) {
			size_t j = count_blocks(st, in, n, i, &total);
			if (j != i) {
				i = j;
				continue;
			}
		}
#endif
		/* the byte loop, written and dropped, over at most the
		 * next 64 bytes */
		size_t lim = n - i < 64 ? n - i : 64;
		total += proxy_pretty_indent_step(st, in + i, lim, &used,
						  scratch, sizeof(scratch));
		i += used;
	}
	return total;
}

size_t proxy_pretty_indent_count_end(struct proxy_pretty_indenter *st)
{
	char scratch[512];
	size_t total = 0, k;
	while ((k = proxy_pretty_indent_end(st, scratch, sizeof(scratch))))
		total += k;
	return total;
}

int proxy_pretty_indent(const char *in, size_t n, struct buf *out)
{
	struct proxy_pretty_indenter st = { 0 };
	char chunk[16384];
	size_t k, used;
	while (n) {
		k = proxy_pretty_indent_step(&st, in, n, &used, chunk,
					     sizeof(chunk));
		buf_add(out, chunk, k);
		in += used;
		n -= used;
	}
	while ((k = proxy_pretty_indent_end(&st, chunk, sizeof(chunk))))
		buf_add(out, chunk, k);
	return buf_ok(out) ? 0 : -ENOMEM;
}

bool proxy_pretty_asked(const char *p, const char *ua)
{
	if (p && *p)
		return !strcasecmp(p, "true") || !strcmp(p, "1") ||
		       !strcasecmp(p, "t");
	return ua && (!strncmp(ua, "curl", 4) || !strncmp(ua, "Wget", 4) ||
		      !strncmp(ua, "Mozilla/5.0", 11));
}

void proxy_pretty_body(struct buf *b)
{
	struct buf out = BUF_INIT;
	size_t n = b->len;
	while (n && b->p[n - 1] == '\n')
		n--; /* the apiserver ends a pretty body without a newline */
	if (proxy_pretty_indent(b->p, n, &out)) {
		buf_free(&out);
		return; /* out of memory: compact will do */
	}
	buf_free(b);
	*b = out;
}
