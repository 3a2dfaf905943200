/*
 * json_index: the tokenizer's stage one (see json_int.h): the structural
 * index of a JSON text, 64 bytes at a time, and the choice of
 * instruction set.
 */
#include "cache/json_int.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#ifdef __SSE2__
#include <emmintrin.h>
#endif
#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#define JSON_X86 1
#endif

#include "config/bits.h"

/* ---- stage one: the structural index ----
 *
 * Before the state machine below looks at a byte, stage one classifies
 * the input 64 bytes at a time (SSE2 or AVX2, chosen at run time, or
 * portable C) into bit masks, one bit a byte, and lists the positions
 * the state machine has to visit: every unescaped quote, every
 * structural character ({ } [ ] : ,) outside strings, the first byte
 * of each run of other bytes outside strings (a number, a literal, or
 * garbage), and inside strings every byte that needs a closer look (a
 * backslash, a control byte, a byte past ASCII). White space is never
 * listed, and a string without such bytes is its two quotes: the state
 * machine goes from one listed position to the next instead of from
 * byte to byte.
 *
 * Validation is not stage one's: the state machine checks the listed
 * positions as it checked every byte before, and a string with a byte
 * of interest is scanned byte by byte by scan_string(), as before. So
 * what is accepted and refused, and the byte an error names, do not
 * depend on the index (test_json compares every level with the byte
 * loop). Should a string's end ever disagree with the index, the parse
 * goes on byte by byte.
 *
 * The index is built as the state machine consumes it, JSON_IX_CAP entries
 * at a time, so its memory is fixed and stays in cache.
 */

/* Masks of one 64-byte block, bit i for byte i. */
struct blk {
	uint64_t quote, bslash, ws, op, low, nl;
};

/* byte classes of the portable classifier */
enum {
	C_QUOTE = 1,
	C_BSLASH = 2,
	C_WS = 4,
	C_OP = 8,
	C_LOW = 16, /* below 0x20 or past 0x7f */
	C_NL = 32
};

static const unsigned char byte_class[256] = {
	[0 ... 0x08] = C_LOW,
	['\t'] = C_LOW | C_WS,
	['\n'] = C_LOW | C_WS | C_NL,
	[0x0b ... 0x0c] = C_LOW,
	['\r'] = C_LOW | C_WS,
	[0x0e ... 0x1f] = C_LOW,
	[' '] = C_WS,
	['"'] = C_QUOTE,
	['\\'] = C_BSLASH,
	['{'] = C_OP,
	['}'] = C_OP,
	['['] = C_OP,
	[']'] = C_OP,
	[':'] = C_OP,
	[','] = C_OP,
	[0x80 ... 0xff] = C_LOW,
};

static void classify_portable(const unsigned char *p, struct blk *b)
{
	*b = (struct blk){ 0 };
	for (int i = 0; i < 64; i++) {
		unsigned c = byte_class[p[i]];
		uint64_t bit = (uint64_t)1 << i;
		if (c & C_QUOTE)
			b->quote |= bit;
		if (c & C_BSLASH)
			b->bslash |= bit;
		if (c & C_WS)
			b->ws |= bit;
		if (c & C_OP)
			b->op |= bit;
		if (c & C_LOW)
			b->low |= bit;
		if (c & C_NL)
			b->nl |= bit;
	}
}

#ifdef JSON_X86
/* [ and {, ] and } differ in bit 0x20 only: one compare each for both. */
__attribute__((target("sse2"))) static inline void
classify_sse2(const unsigned char *p, struct blk *b)
{
	const __m128i quote = _mm_set1_epi8('"'), bslash = _mm_set1_epi8('\\'),
		      sp = _mm_set1_epi8(' '), tab = _mm_set1_epi8('\t'),
		      nl = _mm_set1_epi8('\n'), cr = _mm_set1_epi8('\r'),
		      b20 = _mm_set1_epi8(0x20), lbr = _mm_set1_epi8('{'),
		      rbr = _mm_set1_epi8('}'), colon = _mm_set1_epi8(':'),
		      comma = _mm_set1_epi8(',');
	*b = (struct blk){ 0 };
	for (int k = 0; k < 4; k++) {
		__m128i v = _mm_loadu_si128((const __m128i *)(p + 16 * k));
		__m128i lo = _mm_or_si128(v, b20);
		__m128i n = _mm_cmpeq_epi8(v, nl);
		__m128i ws =
			_mm_or_si128(_mm_or_si128(_mm_cmpeq_epi8(v, sp),
						  _mm_cmpeq_epi8(v, tab)),
				     _mm_or_si128(n, _mm_cmpeq_epi8(v, cr)));
		__m128i op =
			_mm_or_si128(_mm_or_si128(_mm_cmpeq_epi8(lo, lbr),
						  _mm_cmpeq_epi8(lo, rbr)),
				     _mm_or_si128(_mm_cmpeq_epi8(v, colon),
						  _mm_cmpeq_epi8(v, comma)));
		int sh = 16 * k;
		b->quote |= (uint64_t)(unsigned)_mm_movemask_epi8(
				    _mm_cmpeq_epi8(v, quote))
			    << sh;
		b->bslash |= (uint64_t)(unsigned)_mm_movemask_epi8(
				     _mm_cmpeq_epi8(v, bslash))
			     << sh;
		b->ws |= (uint64_t)(unsigned)_mm_movemask_epi8(ws) << sh;
		b->op |= (uint64_t)(unsigned)_mm_movemask_epi8(op) << sh;
		/* signed: below 0x20, and every byte past ASCII */
		b->low |= (uint64_t)(unsigned)_mm_movemask_epi8(
				  _mm_cmplt_epi8(v, b20))
			  << sh;
		b->nl |= (uint64_t)(unsigned)_mm_movemask_epi8(n) << sh;
	}
}

/* The masks of 32 bytes, as the low or high half of b. */
struct half {
	uint32_t quote, bslash, ws, op, low, nl;
};

__attribute__((target("avx2"))) static inline void
classify32_avx2(const unsigned char *p, struct half *h)
{
	const __m256i v = _mm256_loadu_si256((const __m256i *)p);
	const __m256i b20 = _mm256_set1_epi8(0x20);
	__m256i lo = _mm256_or_si256(v, b20);
	__m256i n = _mm256_cmpeq_epi8(v, _mm256_set1_epi8('\n'));
	__m256i ws = _mm256_or_si256(
		_mm256_or_si256(_mm256_cmpeq_epi8(v, b20),
				_mm256_cmpeq_epi8(v, _mm256_set1_epi8('\t'))),
		_mm256_or_si256(n,
				_mm256_cmpeq_epi8(v, _mm256_set1_epi8('\r'))));
	__m256i op = _mm256_or_si256(
		_mm256_or_si256(_mm256_cmpeq_epi8(lo, _mm256_set1_epi8('{')),
				_mm256_cmpeq_epi8(lo, _mm256_set1_epi8('}'))),
		_mm256_or_si256(_mm256_cmpeq_epi8(v, _mm256_set1_epi8(':')),
				_mm256_cmpeq_epi8(v, _mm256_set1_epi8(','))));
	h->quote = (uint32_t)_mm256_movemask_epi8(
		_mm256_cmpeq_epi8(v, _mm256_set1_epi8('"')));
	h->bslash = (uint32_t)_mm256_movemask_epi8(
		_mm256_cmpeq_epi8(v, _mm256_set1_epi8('\\')));
	h->ws = (uint32_t)_mm256_movemask_epi8(ws);
	h->op = (uint32_t)_mm256_movemask_epi8(op);
	/* signed: below 0x20, and every byte past ASCII */
	h->low = (uint32_t)_mm256_movemask_epi8(_mm256_cmpgt_epi8(b20, v));
	h->nl = (uint32_t)_mm256_movemask_epi8(n);
}

__attribute__((target("avx2"))) static inline void
classify_avx2(const unsigned char *p, struct blk *b)
{
	struct half l, h;
	classify32_avx2(p, &l);
	classify32_avx2(p + 32, &h);
	b->quote = l.quote | (uint64_t)h.quote << 32;
	b->bslash = l.bslash | (uint64_t)h.bslash << 32;
	b->ws = l.ws | (uint64_t)h.ws << 32;
	b->op = l.op | (uint64_t)h.op << 32;
	b->low = l.low | (uint64_t)h.low << 32;
	b->nl = l.nl | (uint64_t)h.nl << 32;
}
#endif

static int isa_forced = -1; /* json_isa_force(); atomic */

int json_isa_force(int isa)
{
	return __atomic_exchange_n(&isa_forced, isa, __ATOMIC_RELAXED);
}

static int isa_env = -1; /* from JSON_ISA_ENV; atomic, set once */

int json_isa_best(void)
{
#ifdef JSON_X86
	switch (bits_simd()) {
	case BITS_SIMD_AVX2:
		return JSON_ISA_AVX2;
	case BITS_SIMD_SSE2:
		return JSON_ISA_SSE2;
	}
#endif
	return JSON_ISA_PORTABLE;
}

/* JSON_ISA_ENV: "bytes", "index" (the best the CPU has), "portable",
 * "sse2" or "avx2"; unset or anything else: the default. */
static int isa_from_env(void)
{
	int e = __atomic_load_n(&isa_env, __ATOMIC_RELAXED);
	if (e != -1)
		return e;
	static const char *const names[] = { "bytes", "portable", "sse2",
					     "avx2" };
	const char *v = getenv(JSON_ISA_ENV);
	e = -2;
	for (int i = 0; v && i < 4; i++)
		if (!strcmp(v, names[i]))
			e = i;
	if (v && !strcmp(v, "index"))
		e = JSON_ISA_AVX2;
	__atomic_store_n(&isa_env, e, __ATOMIC_RELAXED);
	return e;
}

/* The level forced (json_isa_force(), then JSON_ISA_ENV), else unset,
 * and never past the best the CPU has. */
static int isa_pick(int unset)
{
	int b = json_isa_best();
	int f = __atomic_load_n(&isa_forced, __ATOMIC_RELAXED);
	if (f < 0)
		f = isa_from_env();
	if (f < 0)
		f = unset;
	return f <= b ? f : b;
}

int json_isa(void)
{
	return isa_pick(JSON_ISA_DEFAULT);
}


/* Bytes escaped by a backslash: the one after each backslash that is
 * not itself escaped. *carry: whether the block starts escaped, then
 * whether the next one does. Linear in the backslashes. */
static uint64_t escaped(uint64_t bs, uint64_t *carry)
{
	uint64_t esc = *carry;
	*carry = 0;
	while (bs) {
		int p = __builtin_ctzll(bs);
		bs &= bs - 1;
		if (esc >> p & 1)
			continue; /* an escaped backslash escapes nothing */
		if (p == 63)
			*carry = 1;
		else
			esc |= (uint64_t)1 << (p + 1);
	}
	return esc;
}

/* List the positions of the block at c->pos, whose masks are b. */
static inline __attribute__((always_inline)) void
index_masks(struct json_cursor *c, const struct blk *bp)
{
	struct blk b = *bp;
	uint64_t quote = b.quote & ~escaped(b.bslash, &c->esc);
	uint64_t in = bits_prefix_xor(quote) ^ c->instr;
	c->instr = (uint64_t)((int64_t)in >> 63);
	uint64_t other = ~(b.ws | b.op | b.quote | in);
	uint64_t starts = other & ~(other << 1 | c->other);
	c->other = other >> 63;
	c->nl += (size_t)__builtin_popcountll(b.nl);
	uint64_t list =
		quote | (b.op & ~in) | ((b.bslash | b.low) & in) | starts;
	/* four at a time, past the count too (ix has room for 64 more):
	 * fewer branches than one by one */
	uint32_t at = (uint32_t)c->pos, *out = c->ix + c->n;
	int cnt = __builtin_popcountll(list);
	for (int k = 0; k < cnt; k += 4) {
		out[k] = at + (uint32_t)__builtin_ctzll(list | 1ull << 63);
		list &= list - 1;
		out[k + 1] = at + (uint32_t)__builtin_ctzll(list | 1ull << 63);
		list &= list - 1;
		out[k + 2] = at + (uint32_t)__builtin_ctzll(list | 1ull << 63);
		list &= list - 1;
		out[k + 3] = at + (uint32_t)__builtin_ctzll(list | 1ull << 63);
		list &= list - 1;
	}
	c->n += (size_t)cnt;
	c->pos += 64;
}

/* The block at c->pos, or its tail padded with white space. */
static inline const unsigned char *block_at(const struct json_cursor *c,
					    unsigned char *tmp)
{
	const unsigned char *p = (const unsigned char *)c->js + c->pos;
	if (c->len - c->pos >= 64)
		return p;
	memset(tmp, ' ', 64);
	memcpy(tmp, p, c->len - c->pos);
	return tmp;
}

/* Fill c's index, as many blocks as fit: one function for each level,
 * each compiled for its instructions (popcnt and tzcnt with AVX2). */
static void fill_portable(struct json_cursor *c)
{
	unsigned char tmp[64];
	while (c->pos < c->len && c->n <= JSON_IX_CAP - 64) {
		struct blk b;
		classify_portable(block_at(c, tmp), &b);
		index_masks(c, &b);
	}
}

#ifdef JSON_X86
__attribute__((target("sse2"))) static void fill_sse2(struct json_cursor *c)
{
	unsigned char tmp[64];
	while (c->pos < c->len && c->n <= JSON_IX_CAP - 64) {
		struct blk b;
		classify_sse2(block_at(c, tmp), &b);
		index_masks(c, &b);
	}
}

__attribute__((target("avx2,bmi,popcnt"))) static void
fill_avx2(struct json_cursor *c)
{
	unsigned char tmp[64];
	while (c->pos < c->len && c->n <= JSON_IX_CAP - 64) {
		struct blk b;
		classify_avx2(block_at(c, tmp), &b);
		index_masks(c, &b);
	}
}
#endif

/* The next blocks' positions, as many as fit. */
__attribute__((noinline)) void json_cursor_fill(struct json_cursor *c)
{
	c->k = c->n = 0;
	switch (c->isa) {
#ifdef JSON_X86
	case JSON_ISA_AVX2:
		fill_avx2(c);
		break;
	case JSON_ISA_SSE2:
		fill_sse2(c);
		break;
#endif
	default:
		fill_portable(c);
		break;
	}
}

void json_cursor_init(struct json_cursor *c, const char *js, size_t len)
{
	c->js = js;
	c->len = len;
	c->isa = json_isa();
	c->pos = 0;
	c->esc = c->instr = c->other = 0;
	c->nl = 0;
	c->lost = c->trusted = false;
	c->k = c->n = 0;
}

/* ---- jumping over a container in bytes accepted before ----
 *
 * json_parse_trusted()'s skip: the matching bracket, found 64 bytes at
 * a time from four masks (quotes, backslashes, opening and closing
 * brackets) and the parity of the unescaped quotes, as stage one finds
 * strings. A block whose closing brackets are fewer than the depth at
 * its start cannot hold the end: its brackets are counted and it is
 * passed whole. Nothing is validated: the bytes were, when first
 * parsed.
 */

struct skip_blk {
	uint64_t quote, bslash, open, close, nl;
};

static void skip_masks_portable(const unsigned char *p, struct skip_blk *b)
{
	*b = (struct skip_blk){ 0 };
	for (int i = 0; i < 64; i++) {
		uint64_t bit = (uint64_t)1 << i;
		unsigned c = p[i] | 0x20; /* [ and {, ] and } alike */
		b->quote |= p[i] == '"' ? bit : 0;
		b->bslash |= p[i] == '\\' ? bit : 0;
		b->open |= c == '{' ? bit : 0;
		b->close |= c == '}' ? bit : 0;
		b->nl |= p[i] == '\n' ? bit : 0;
	}
}

#ifdef JSON_X86
__attribute__((target("sse2"))) static inline void
skip_masks_sse2(const unsigned char *p, struct skip_blk *b)
{
	const __m128i quote = _mm_set1_epi8('"'), bslash = _mm_set1_epi8('\\'),
		      b20 = _mm_set1_epi8(0x20), lbr = _mm_set1_epi8('{'),
		      rbr = _mm_set1_epi8('}'), nl = _mm_set1_epi8('\n');
	*b = (struct skip_blk){ 0 };
	for (int k = 0; k < 4; k++) {
		__m128i v = _mm_loadu_si128((const __m128i *)(p + 16 * k));
		__m128i lo = _mm_or_si128(v, b20);
		int sh = 16 * k;
#define SKIP_MASK(x) ((uint64_t)(unsigned)_mm_movemask_epi8(x) << sh)
		b->quote |= SKIP_MASK(_mm_cmpeq_epi8(v, quote));
		b->bslash |= SKIP_MASK(_mm_cmpeq_epi8(v, bslash));
		b->open |= SKIP_MASK(_mm_cmpeq_epi8(lo, lbr));
		b->close |= SKIP_MASK(_mm_cmpeq_epi8(lo, rbr));
		b->nl |= SKIP_MASK(_mm_cmpeq_epi8(v, nl));
#undef SKIP_MASK
	}
}

__attribute__((target("avx2"))) static inline void
skip_masks_avx2(const unsigned char *p, struct skip_blk *b)
{
	const __m256i quote = _mm256_set1_epi8('"'),
		      bslash = _mm256_set1_epi8('\\'),
		      b20 = _mm256_set1_epi8(0x20), lbr = _mm256_set1_epi8('{'),
		      rbr = _mm256_set1_epi8('}'), nl = _mm256_set1_epi8('\n');
	*b = (struct skip_blk){ 0 };
	for (int k = 0; k < 2; k++) {
		__m256i v = _mm256_loadu_si256((const __m256i *)(p + 32 * k));
		__m256i lo = _mm256_or_si256(v, b20);
		int sh = 32 * k;
#define SKIP_MASK(x) ((uint64_t)(uint32_t)_mm256_movemask_epi8(x) << sh)
		b->quote |= SKIP_MASK(_mm256_cmpeq_epi8(v, quote));
		b->bslash |= SKIP_MASK(_mm256_cmpeq_epi8(v, bslash));
		b->open |= SKIP_MASK(_mm256_cmpeq_epi8(lo, lbr));
		b->close |= SKIP_MASK(_mm256_cmpeq_epi8(lo, rbr));
		b->nl |= SKIP_MASK(_mm256_cmpeq_epi8(v, nl));
#undef SKIP_MASK
	}
}
#endif

/* json_skip_trusted() with the masks of isa (a constant in each caller). */
static inline __attribute__((always_inline)) long
skip_with(const char *js, size_t len, size_t i, int room, bool *nl,
	  const int isa)
{
	uint64_t carry = 0, instr = 0;
	int depth = 0;
	unsigned char tmp[64];
	for (size_t at = i; at < len; at += 64) {
		const unsigned char *p = (const unsigned char *)js + at;
		if (len - at < 64) { /* the tail, padded with spaces */
			memset(tmp, ' ', 64);
			memcpy(tmp, p, len - at);
			p = tmp;
		}
		struct skip_blk b;
#ifdef JSON_X86
		if (isa == JSON_ISA_AVX2)
			skip_masks_avx2(p, &b);
		else if (isa == JSON_ISA_SSE2)
			skip_masks_sse2(p, &b);
		else
#endif
			skip_masks_portable(p, &b);
		uint64_t quote = b.quote & ~escaped(b.bslash, &carry);
		uint64_t in = bits_prefix_xor(quote) ^ instr;
		instr = (uint64_t)((int64_t)in >> 63);
		uint64_t open = b.open & ~in, close = b.close & ~in;
		int opens = __builtin_popcountll(open);
		int closes = __builtin_popcountll(close);
		if (closes < depth && depth + opens <= room) {
			depth += opens - closes; /* the end is not here */
			*nl |= b.nl != 0;
			continue;
		}
		for (uint64_t x = open | close; x; x &= x - 1) {
			int k = __builtin_ctzll(x);
			if (open >> k & 1) {
				if (++depth > room)
					return -2;
			} else if (--depth == 0) {
				/* a newline after the end is not in it */
				*nl |= (b.nl & ((1ull << k) - 1)) != 0;
				return at + (size_t)k < len ? (long)(at + k) :
							      -1;
			}
		}
		*nl |= b.nl != 0;
	}
	return -1;
}

static long skip_portable(const char *js, size_t len, size_t i, int room,
			  bool *nl)
{
	return skip_with(js, len, i, room, nl, JSON_ISA_PORTABLE);
}

#ifdef JSON_X86
__attribute__((target("sse2"))) static long
skip_sse2(const char *js, size_t len, size_t i, int room, bool *nl)
{
	return skip_with(js, len, i, room, nl, JSON_ISA_SSE2);
}

__attribute__((target("avx2,bmi,popcnt"))) static long
skip_avx2(const char *js, size_t len, size_t i, int room, bool *nl)
{
	return skip_with(js, len, i, room, nl, JSON_ISA_AVX2);
}
#endif

long json_skip_trusted(const char *js, size_t len, size_t i, int room, bool *nl)
{
	switch (isa_pick(json_isa_best())) {
#ifdef JSON_X86
	case JSON_ISA_AVX2:
		return skip_avx2(js, len, i, room, nl);
	case JSON_ISA_SSE2:
		return skip_sse2(js, len, i, room, nl);
#endif
	default: /* JSON_ISA_BYTES too: the portable masks */
		return skip_portable(js, len, i, room, nl);
	}
}
