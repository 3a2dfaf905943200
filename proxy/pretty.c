/*
 * pretty: indented JSON answers (see pretty.h).
 */
#include "proxy/pretty.h"

#include <errno.h>
#include <stdint.h>
#include <string.h>
#include <strings.h>
#if defined(__SSE2__)
#include <emmintrin.h>
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

/* What a structural byte does: how the depth moves, and what it
 * writes besides itself, as masks of a line break's length: before it
 * (a closing bracket), after it (a comma, an opening bracket), or a
 * space after it (a colon). */
static const signed char depth_step[256] = {
	['{'] = 1, ['['] = 1, ['}'] = -1, [']'] = -1
};
static const unsigned nl_before[256] = { ['}'] = ~0u, [']'] = ~0u };
static const unsigned nl_after[256] = { [','] = ~0u, ['{'] = ~0u, ['['] = ~0u };
static const unsigned char space_after[256] = { [':'] = 1 };

/* The bits of x set (no POPCNT in baseline x86-64). */
static inline unsigned popcount64(uint64_t x)
{
	x -= x >> 1 & 0x5555555555555555ull;
	x = (x & 0x3333333333333333ull) + (x >> 2 & 0x3333333333333333ull);
	x = (x + (x >> 4)) & 0x0f0f0f0f0f0f0f0full;
	return (unsigned)(x * 0x0101010101010101ull >> 56);
}

/* What a line break writes, for depths below FAST_DEPTH; the colon's
 * space is its second byte. */
#define FAST_DEPTH 15
#define SP8 "        "
static const char nl_spaces[48] = "\n" SP8 SP8 SP8 SP8 "       ";

static inline void store16(char *o, const char *from)
{
	_mm_storeu_si128((__m128i *)o, _mm_loadu_si128((const __m128i *)from));
}

/* 32 bytes from from to o: a line break of depth below FAST_DEPTH. */
static inline void store32(char *o, const char *from)
{
	store16(o, from);
	store16(o + 16, from + 16);
}

/* The most one structural byte and the run before it write, with the
 * stores past them: a run of 64 (80 stored), then 32 + 1 + 32. */
#define FAST_ROOM 160

/*
 * The run b[*cur..k) and then the structural byte b[k], at out + *w: a
 * line break after it, or before it for a closing bracket, and a space
 * after a colon, each written with the same stores whatever it is, the
 * lengths from tables, since which one comes next is what a branch
 * predictor cannot guess in JSON. Writes up to 64 + 16 bytes for the run
 * and then 32 + 1 + 32, and advances *w by up to the run and 32.
 */
static inline void emit(const char *b, size_t *cur, unsigned k, char *out,
			size_t *wp, int *depth)
{
	size_t w = *wp, from = *cur;
	unsigned char c = (unsigned char)b[k];
	store16(out + w, b + from);
	store16(out + w + 16, b + from + 16);
	for (size_t r = from + 32; r < k; r += 16)
		store16(out + w + (r - from), b + r);
	w += k - from;
	*cur = k + 1;
	*depth += depth_step[c];
	unsigned nl = (*depth > 0 ? 2 * (unsigned)*depth : 0) + 1;
	store32(out + w, nl_spaces);
	w += nl & nl_before[c];
	out[w++] = (char)c;
	store32(out + w, nl_spaces + space_after[c]);
	w += (nl & nl_after[c]) + space_after[c];
	*wp = w;
}

/* One block of 64 input bytes, classified (classify()). */
struct block {
	/* The bytes, where the runs are copied from: the input itself
	 * when it goes on far enough for the sixteen-byte copies' last
	 * reads past the block, else copy (loads that span two of the
	 * stores just made there wait for them, so not always). */
	const char *p;
	_Alignas(16) char copy[64 + 16 + 16];
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

/*
 * Classify in[i..i+64) (n - i >= 64), which starts inside a string when
 * in_str, its byte 0 closing the last block's empty pair when skip0.
 * Bit masks do it at once: quotes, backslashes, structural bytes
 * ({ } [ ] , :) and low bytes (white space); which bytes are inside
 * strings follows from the parity of the unescaped quotes before them.
 * False when the block is the byte loop's: white space or any byte
 * below 0x21 outside strings, or a backslash outside strings.
 */
static inline __attribute__((always_inline)) bool
classify(const char *in, size_t n, size_t i, bool in_str, uint64_t skip0,
	 struct block *k)
{
	__m128i v[4];
	for (int j = 0; j < 4; j++)
		v[j] = _mm_loadu_si128((const __m128i *)(in + i) + j);
	k->next = n - i > 64 ? (unsigned char)in[i + 64] : 0;
	if (n - i >= 64 + 64) {
		k->p = in + i;
	} else {
		for (int j = 0; j < 4; j++)
			_mm_store_si128((__m128i *)k->copy + j, v[j]);
		k->p = k->copy;
	}
	uint64_t q = MASK64(v, IS_QUOTE), odd = MASK64(v, IS_ODD);
	uint64_t bs = 0, esc = 0;
	k->esc_out = false;
	if (odd) {
		/* escaped bytes: the one after each backslash that is not
		 * itself escaped (a backslash in byte 63 escapes the next
		 * block's first) */
		bs = MASK64(v, IS_BSLASH);
		for (uint64_t x = bs; x; x &= x - 1) {
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
	uint64_t open = MASK64(v, IS_OPEN) & ~inside;
	uint64_t close = MASK64(v, IS_CLOSE) & ~inside;
	uint64_t s = (MASK64(v, IS_PUNCT) & ~inside) | open | close;
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
static size_t fast_blocks(struct proxy_pretty_indenter *st, const char *in,
			  size_t n, size_t i, char *out, size_t max, size_t *wp)
{
	size_t w = *wp;
	int depth = st->depth;
	bool in_str = st->in_str;
	uint64_t skip0 = 0; /* 1: byte 0 closes the last block's {} or [] */
	struct block blk;
	if (max - w < FAST_ROOM)
		return i;
	size_t wlim = max - FAST_ROOM; /* room for one more while w <= */
	while (n - i >= 64 && classify(in, n, i, in_str, skip0, &blk)) {
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
	while (n - i >= 64 && classify(in, n, i, in_str, skip0, &blk)) {
		skip0 = blk.pair >> 63;
		/* every byte of the block, and what each structural byte
		 * adds: a colon's space, or a line break */
		for (uint64_t s = blk.s; s; s &= s - 1) {
			unsigned char c =
				(unsigned char)blk.p[__builtin_ctzll(s)];
			depth += depth_step[c];
			unsigned nl = (depth > 0 ? 2 * (unsigned)depth : 0) + 1;
			t += (nl & (nl_before[c] | nl_after[c])) +
			     space_after[c];
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
	while (i < n) {
#if defined(__SSE2__)
		if (!st->nl && !st->sp && !st->c && !st->esc && !st->open &&
		    n - i >= 64) {
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
