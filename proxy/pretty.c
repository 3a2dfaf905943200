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
		_mm_storeu_si128((__m128i *)(out + j + to), v);
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

size_t proxy_pretty_indent_step(struct proxy_pretty_indenter *state,
				const char *in, size_t n, size_t *used,
				char *out, size_t max)
{
	/* A local copy, which the compiler keeps in registers: through the
	 * pointer every store to out might change it. */
	struct proxy_pretty_indenter local = *state, *st = &local;
	size_t w = 0, i = 0;
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
