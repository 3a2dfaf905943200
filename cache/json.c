/*
 * json: a validating tokenizer into jsmn's token layout (see json.h);
 * json_index.c builds the structural index it may walk (stage one),
 * json_read.c holds the lookups on its tokens.
 *
 * jsmn itself, even in strict mode, did not check separators (it took
 * `[1 2]` and `{"a" 1}`), literals (`tru`, `01`, `1.`) or control bytes
 * inside strings, and its closing of a container was quadratic in the
 * nesting depth. tokenize() checks all of it in one linear pass, so that
 * what the cache keeps and later serves is always well-formed JSON, and
 * a hostile document costs time in proportion to its bytes.
 */
#include "cache/json.h"
#include "cache/json_int.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#ifdef __SSE2__
#include <emmintrin.h>
#endif

#include "config/alloc.h"
#include "config/limits.h"

static bool is_ws(char c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}


static bool number_ok(const char *s, size_t n)
{
	size_t i = 0;
	if (i < n && s[i] == '-')
		i++;
	if (i >= n)
		return false;
	if (s[i] == '0') {
		i++;
	} else if (s[i] >= '1' && s[i] <= '9') {
		while (i < n && s[i] >= '0' && s[i] <= '9')
			i++;
	} else {
		return false;
	}
	if (i < n && s[i] == '.') {
		size_t d = ++i;
		while (i < n && s[i] >= '0' && s[i] <= '9')
			i++;
		if (i == d)
			return false;
	}
	if (i < n && (s[i] == 'e' || s[i] == 'E')) {
		i++;
		if (i < n && (s[i] == '+' || s[i] == '-'))
			i++;
		size_t d = i;
		while (i < n && s[i] >= '0' && s[i] <= '9')
			i++;
		if (i == d)
			return false;
	}
	return i == n;
}

static bool primitive_ok(const char *s, size_t n)
{
	if (n == 4 && (!memcmp(s, "true", 4) || !memcmp(s, "null", 4)))
		return true;
	if (n == 5 && !memcmp(s, "false", 5))
		return true;
	return number_ok(s, n);
}

/* ---- the tokenizer ----
 *
 * One pass over the bytes, linear in them whatever the nesting: the open
 * container is known at every step (cur), and closing one goes to its
 * parent in O(1). jsmn walked up from the last token on every close,
 * which is quadratic in the depth. Nesting costs no stack (parent links
 * are the stack) and is bounded by JSON_DOC_MAX_DEPTH; the apiserver's
 * LIMIT_JSON_DEPTH applies to each object (json_too_deep()), so past it
 * a container is only noted (note_deep()), at no cost above it.
 *
 * The tokens are jsmn's (type, start, end, size, parent), so the lookups
 * below did not change: a string's [start, end) is without its quotes,
 * an object's size is its number of members, each key has size 1 and is
 * the parent of its value.
 */

/* Bytes that end the fast scan inside a string: '"', '\\', controls and
 * everything past ASCII. */
static const unsigned char str_stop[256] = {
	[0 ... 0x1f] = 1,
	['"'] = 1,
	['\\'] = 1,
	[0x80 ... 0xff] = 1,
};

/* Length of the valid UTF-8 sequence at s[0..n), or 0 when it is not one
 * (overlong forms, surrogates and code points past U+10FFFF included:
 * the rules of Go's utf8.DecodeRune, which the apiserver's decoder uses). */
/* The first index from i on whose byte is in str_stop, or len. Sixteen
 * bytes a step where SSE2 is there (every x86-64): a signed compare
 * below 0x20 catches the controls and, as negative, every byte past
 * ASCII; then the quote and the backslash. */
static size_t plain_run(const unsigned char *s, size_t len, size_t i)
{
#ifdef __SSE2__
	const __m128i quote = _mm_set1_epi8('"'), bslash = _mm_set1_epi8('\\'),
		      space = _mm_set1_epi8(0x20);
	for (; i + 16 <= len; i += 16) {
		__m128i v = _mm_loadu_si128((const __m128i *)(s + i));
		__m128i stop =
			_mm_or_si128(_mm_or_si128(_mm_cmpeq_epi8(v, quote),
						  _mm_cmpeq_epi8(v, bslash)),
				     _mm_cmplt_epi8(v, space));
		unsigned m = (unsigned)_mm_movemask_epi8(stop);
		if (m)
			return i + (size_t)__builtin_ctz(m);
	}
#endif
	while (i < len && !str_stop[s[i]])
		i++;
	return i;
}

static size_t utf8_len(const unsigned char *s, size_t n)
{
	unsigned c = s[0];
	if (c < 0x80)
		return 1;
	if (c < 0xc2 || c > 0xf4)
		return 0;
	if (c < 0xe0)
		return n >= 2 && (s[1] & 0xc0) == 0x80 ? 2 : 0;
	if (c < 0xf0) {
		unsigned lo = c == 0xe0 ? 0xa0 : 0x80,
			 hi = c == 0xed ? 0x9f : 0xbf;
		return n >= 3 && s[1] >= lo && s[1] <= hi &&
				       (s[2] & 0xc0) == 0x80 ?
			       3 :
			       0;
	}
	unsigned lo = c == 0xf0 ? 0x90 : 0x80, hi = c == 0xf4 ? 0x8f : 0xbf;
	return n >= 4 && s[1] >= lo && s[1] <= hi && (s[2] & 0xc0) == 0x80 &&
			       (s[3] & 0xc0) == 0x80 ?
		       4 :
		       0;
}

static bool is_hex(char c)
{
	return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') ||
	       (c >= 'A' && c <= 'F');
}

/* The bytes a backslash may escape, but u (which takes four hex digits). */
static const unsigned char esc_ok[256] = {
	['"'] = 1, ['\\'] = 1, ['/'] = 1, ['b'] = 1,
	['f'] = 1, ['n'] = 1,  ['r'] = 1, ['t'] = 1,
};

/* Scan the string whose opening quote is at js[i]. Returns the offset of
 * its closing quote, or -1 with *bad at the failing byte. Invalid UTF-8
 * sets *bad_utf8 and goes on: the caller replaces it. A backslash clears
 * *plain, when plain is not NULL (the strings that get a token). */
static long scan_string(const char *js, size_t len, size_t i, size_t *bad,
			bool *bad_utf8, bool *plain)
{
	const unsigned char *s = (const unsigned char *)js;
	for (i++; i < len;) {
		i = plain_run(s, len, i); /* the fast path: plain ASCII */
		if (i >= len)
			break;
		unsigned char c = s[i];
		if (c == '"')
			return (long)i;
		if (c == '\\') {
			if (plain)
				*plain = false;
			if (i + 1 >= len)
				break;
			char e = js[i + 1];
			if (e == 'u') {
				if (i + 6 > len || !is_hex(js[i + 2]) ||
				    !is_hex(js[i + 3]) || !is_hex(js[i + 4]) ||
				    !is_hex(js[i + 5])) {
					*bad = i;
					return -1;
				}
				i += 6;
			} else if (esc_ok[(unsigned char)e]) {
				i += 2;
			} else {
				*bad = i;
				return -1;
			}
			continue;
		}
		if (c < 0x20) {
			*bad = i;
			return -1;
		}
		size_t n = utf8_len(s + i, len - i);
		if (!n) {
			*bad_utf8 = true;
			n = 1;
		}
		i += n;
	}
	*bad = len;
	return -1;
}

/* ---- walking the structural index (json_index.c builds it) ---- */

/*
 * The first position at or after i that the state machine must look
 * at, or len. The state machine is compiled twice (tokenize_bytes() and
 * tokenize_index()), with idx a constant in each, so that the byte loop
 * pays nothing for the index.
 */
#define ALWAYS_INLINE __attribute__((always_inline)) static inline
ALWAYS_INLINE size_t cursor_at(struct json_cursor *c, const char *js,
			       size_t len, size_t i, const bool idx)
{
	if (!idx) { /* js and len are c's, in the caller's registers */
		/* white space is at most ' ': one compare for compact input */
		while (i < len && (unsigned char)js[i] <= ' ' && is_ws(js[i])) {
			c->nl += js[i] == '\n';
			i++;
		}
		return i;
	}
	for (;;) {
		while (c->k < c->n) {
			uint32_t at = c->ix[c->k++];
			if (at >= i)
				return at;
		}
		if (c->pos >= c->len)
			return c->len;
		json_cursor_fill(c);
	}
}

ALWAYS_INLINE size_t cursor_next(struct json_cursor *c, size_t i,
				 const bool idx)
{
	return cursor_at(c, c->js, c->len, i, idx);
}

/* The string opening at js[i] (scan_string()'s contract): a string with
 * nothing of interest is its next listed position. */
ALWAYS_INLINE long cursor_string(struct json_cursor *c, size_t i, size_t *bad,
				 bool *bad_utf8, bool *plain, const bool idx)
{
	if (idx) {
		size_t e = cursor_next(c, i + 1, idx);
		if (e < c->len && c->js[e] == '"')
			return (long)e;
	}
	long e = scan_string(c->js, c->len, i, bad, bad_utf8, plain);
	if (e >= 0 && idx && cursor_next(c, (size_t)e, idx) != (size_t)e) {
		c->lost = true; /* the parse starts again byte by byte */
		*bad = (size_t)e;
		return -1;
	}
	return e;
}

/* Room for one token more: the arrays grown by doubling. */
static __attribute__((noinline)) int grow_tok(struct json_doc *d)
{
	if (d->ntok == d->cap) {
		if (d->cap >= (1 << 28))
			return -ENOMEM;
		int nc = d->cap ? d->cap * 2 : 64;
		jsmntok_t *t = xrealloc(d->tok, (size_t)nc * sizeof(*t));
		if (!t)
			return -ENOMEM;
		d->tok = t;
		d->cap = nc;
	}
	if (d->next_cap < d->cap) {
		int *nx = xrealloc(d->next, (size_t)d->cap * sizeof(*nx));
		if (!nx)
			return -ENOMEM;
		d->next = nx;
		d->next_cap = d->cap;
	}
	return 0;
}

static inline int new_tok(struct json_doc *d, int type, int start, int end,
			  int parent)
{
	if (d->ntok == d->cap || d->next_cap < d->cap) {
		int r = grow_tok(d);
		if (r)
			return r;
	}
	jsmntok_t *t = &d->tok[d->ntok];
	t->type = type;
	t->start = start;
	t->end = end;
	t->size = 0;
	t->parent = parent;
	d->next[d->ntok] = d->ntok + 1;
	return d->ntok++;
}

enum {
	EXPECT_VALUE,
	EXPECT_VALUE_OR_CLOSE,
	EXPECT_KEY,
	EXPECT_KEY_OR_CLOSE,
	EXPECT_COLON,
	EXPECT_COMMA_OR_CLOSE,
	EXPECT_END
};

/*
 * A container opens at level depth + 1, deeper than LIMIT_JSON_DEPTH:
 * the first such level starts a run at js[at]; a deeper one is inside
 * the last run. Runs are at least LIMIT_JSON_DEPTH bytes apart, so few.
 */
static int note_deep(struct json_doc *d, size_t at, int depth)
{
	if (depth > LIMIT_JSON_DEPTH) {
		struct json_deep *r = &d->deep[d->ndeep - 1];
		if (depth + 1 > r->max)
			r->max = depth + 1;
		return 0;
	}
	if (d->ndeep == d->deep_cap) {
		int nc = d->deep_cap ? d->deep_cap * 2 : 4;
		struct json_deep *n =
			xrealloc(d->deep, (size_t)nc * sizeof(*n));
		if (!n)
			return -ENOMEM;
		d->deep = n;
		d->deep_cap = nc;
	}
	d->deep[d->ndeep++] = (struct json_deep){ (int)at, depth + 1 };
	return 0;
}

/* The shape of the child about to start in the open container: the
 * member's (by its key's raw text) or, for an array, the elements'. */
static const struct json_shape *child_shape(const struct json_doc *d,
					    const struct json_shape *s,
					    bool in_obj, int key)
{
	if (!in_obj)
		return s->rest;
	size_t n = (size_t)(d->tok[key].end - d->tok[key].start);
	const char *k = d->js + d->tok[key].start;
	for (size_t i = 0; i < s->nkeys; i++)
		if (s->keys[i].len == n && !memcmp(s->keys[i].name, k, n))
			return s->keys[i].shape;
	return s->rest;
}

/* The bytes that end a primitive. */
static const unsigned char prim_stop[256] = {
	[' '] = 1, ['\t'] = 1, ['\n'] = 1, ['\r'] = 1,
	[','] = 1, [']'] = 1,  ['}'] = 1,  [':'] = 1,
};

/* The end of the primitive (number or literal) at js[i], or 0 when it
 * is not one. */
static size_t scan_primitive(const char *js, size_t len, size_t i)
{
	size_t s = i;
	while (i < len && !prim_stop[(unsigned char)js[i]])
		i++;
	return primitive_ok(js + s, i - s) ? i : 0;
}

/* The closing quote of the string opening at js[i] (scan_string()'s
 * contract). Most strings of an object are short and plain: when the
 * first byte that ends the fast scan within the next 32 is a quote, that
 * is the end, found inline; anything else goes to scan_string(). */
static inline long string_end(const char *js, size_t len, size_t i, size_t *bad,
			      bool *bad_utf8, bool *plain)
{
#ifdef __SSE2__
	if (i + 17 <= len) {
		__m128i v = _mm_loadu_si128((const __m128i *)(js + i + 1));
		__m128i stop = _mm_or_si128(
			_mm_or_si128(_mm_cmpeq_epi8(v, _mm_set1_epi8('"')),
				     _mm_cmpeq_epi8(v, _mm_set1_epi8('\\'))),
			_mm_cmplt_epi8(v, _mm_set1_epi8(0x20)));
		unsigned m = (unsigned)_mm_movemask_epi8(stop);
		if (!m && i + 33 <= len) { /* a uid, a timestamp, an image */
			v = _mm_loadu_si128((const __m128i *)(js + i + 17));
			stop = _mm_or_si128(
				_mm_or_si128(
					_mm_cmpeq_epi8(v, _mm_set1_epi8('"')),
					_mm_cmpeq_epi8(v, _mm_set1_epi8('\\'))),
				_mm_cmplt_epi8(v, _mm_set1_epi8(0x20)));
			m = (unsigned)_mm_movemask_epi8(stop) << 16;
		}
		if (m && js[i + 1 + (size_t)__builtin_ctz(m)] == '"')
			return (long)(i + 1 + (size_t)__builtin_ctz(m));
	}
#endif
	return scan_string(js, len, i, bad, bad_utf8, plain);
}

/*
 * The byte loop's state after a key, and after a value inside a
 * container: the ':' or ',' that compact input has right after it is
 * taken in the same step, one turn of the loop less for each, exactly
 * as the next turn would have taken it.
 */
static inline int after_key(const char *js, size_t len, size_t *i)
{
	if (*i + 1 < len && js[*i + 1] == ':') {
		++*i;
		return EXPECT_VALUE;
	}
	return EXPECT_COLON;
}

static inline int after_value(const char *js, size_t len, size_t *i,
			      bool in_obj)
{
	if (*i + 1 < len && js[*i + 1] == ',') {
		++*i;
		return in_obj ? EXPECT_KEY : EXPECT_VALUE;
	}
	return EXPECT_COMMA_OR_CLOSE;
}

/*
 * The container that opens at js[i] at depth, in bytes accepted before
 * (json_parse_trusted()): where it closes, by json_skip_trusted(); *nl
 * set when it holds a newline. -1 (*bad at len) when it does not close,
 * -2 when it nests past LIMIT_JSON_DEPTH: the validating skip then goes
 * over it and notes that.
 */
static long skip_trusted(const char *js, size_t len, size_t i, int depth,
			 size_t *bad, bool *nl)
{
	long e = json_skip_trusted(js, len, i, LIMIT_JSON_DEPTH - depth, nl);
	if (e == -1)
		*bad = len;
	return e;
}

/*
 * The byte loop (JSON_ISA_BYTES).
 *
 * Validate the container that opens at js[i], depth containers deep,
 * exactly as tokenize() would, recording nothing: the skipped values of a
 * shaped parse. Returns the offset of its closing bracket, or -1 with
 * *bad (and *depth_bad) set as tokenize() sets them.
 */
static long skip_container_bytes(struct json_doc *d, const char *js, size_t len,
				 size_t i, int depth, size_t *bad,
				 bool *depth_bad, bool *bad_utf8, bool *nl)
{
	bool is_obj[JSON_DOC_MAX_DEPTH + 1]; /* from depth on */
	const int base = depth;
	bool in_obj = js[i] == '{';
	int st = in_obj ? EXPECT_KEY_OR_CLOSE : EXPECT_VALUE_OR_CLOSE;
	if (depth >= JSON_DOC_MAX_DEPTH) {
		*depth_bad = true;
		goto fail;
	}
	if (depth >= LIMIT_JSON_DEPTH && note_deep(d, i, depth))
		return -2;
	is_obj[0] = in_obj;
	depth++;
	for (i++;; i++) {
		while (i < len && (unsigned char)js[i] <= ' ' && is_ws(js[i])) {
			if (js[i] == '\n')
				*nl = true;
			i++;
		}
		if (i >= len) {
			*bad = len;
			return -1;
		}
		char c = js[i];
		switch (st) {
		case EXPECT_KEY_OR_CLOSE:
			if (c == '}')
				goto close;
			/* fall through */
		case EXPECT_KEY: {
			if (c != '"')
				goto fail;
			long e = string_end(js, len, i, bad, bad_utf8, NULL);
			if (e < 0)
				return -1;
			i = (size_t)e;
			st = after_key(js, len, &i);
			continue;
		}
		case EXPECT_COLON:
			if (c != ':')
				goto fail;
			st = EXPECT_VALUE;
			continue;
		case EXPECT_COMMA_OR_CLOSE:
			if (c == ',') {
				st = in_obj ? EXPECT_KEY : EXPECT_VALUE;
				continue;
			}
			if (c == '}' || c == ']')
				goto close;
			goto fail;
		case EXPECT_VALUE_OR_CLOSE:
			if (c == ']')
				goto close;
			/* fall through */
		default:
			break;
		}
		if (c == '{' || c == '[') {
			if (depth >= LIMIT_JSON_DEPTH) {
				if (depth >= JSON_DOC_MAX_DEPTH) {
					*depth_bad = true;
					goto fail;
				}
				if (note_deep(d, i, depth))
					return -2;
			}
			in_obj = c == '{';
			is_obj[depth - base] = in_obj;
			depth++;
			st = in_obj ? EXPECT_KEY_OR_CLOSE :
				      EXPECT_VALUE_OR_CLOSE;
			continue;
		}
		if (c == '"') {
			long e = string_end(js, len, i, bad, bad_utf8, NULL);
			if (e < 0)
				return -1;
			i = (size_t)e;
		} else {
			size_t e = scan_primitive(js, len, i);
			if (!e)
				goto fail;
			i = e - 1;
		}
		st = after_value(js, len, &i, in_obj);
		continue;
close:
		if (c != (in_obj ? '}' : ']'))
			goto fail;
		if (--depth == base)
			return (long)i;
		in_obj = is_obj[depth - 1 - base];
		st = after_value(js, len, &i, in_obj);
	}
fail:
	*bad = i;
	return -1;
}

/* Tokenize and validate js[0..len) into d, as root says (json.h).
 * Returns 0, -EINVAL with *bad at the failing byte (*depth_bad when
 * nesting was too deep), or -ENOMEM. */
static int tokenize_bytes(struct json_doc *d, const char *js, size_t len,
			  const struct json_shape *root, bool trusted,
			  size_t *bad, bool *depth_bad, bool *bad_utf8,
			  bool *nl)
{
	/* the shapes of the outermost open containers, while shaped */
	const struct json_shape *shp[JSON_SHAPE_MAX_DEPTH];
	int nshp = 0;  /* open containers that have a shape: the first ones */
	int cur = -1;  /* the innermost open container */
	int key = -1;  /* in an object: the key whose value is next */
	int depth = 0; /* open containers */
	int st = EXPECT_VALUE;
	bool in_obj = false; /* the innermost open container is an object */
	d->ntok = 0;
	d->plain = true;
	d->ndeep = 0;
	size_t i = 0;
	for (;; i++) {
		/* white space is at most ' ': one compare for compact input */
		while (i < len && (unsigned char)js[i] <= ' ' && is_ws(js[i])) {
			if (js[i] == '\n' && depth)
				*nl = true; /* inside the value */
			i++;
		}
		if (i >= len)
			break;
		char c = js[i];
		switch (st) {
		case EXPECT_KEY_OR_CLOSE:
		case EXPECT_KEY:
			if (c == '}' && st == EXPECT_KEY_OR_CLOSE)
				goto close;
			if (c != '"')
				goto fail;
			{
				long e = string_end(js, len, i, bad, bad_utf8,
						    &d->plain);
				if (e < 0)
					return -EINVAL;
				key = new_tok(d, JSMN_STRING, (int)i + 1,
					      (int)e, cur);
				if (key < 0)
					return key;
				d->tok[cur].size++;
				i = (size_t)e;
			}
			st = after_key(js, len, &i);
			continue;
		case EXPECT_COLON:
			if (c != ':')
				goto fail;
			st = EXPECT_VALUE;
			continue;
		case EXPECT_COMMA_OR_CLOSE:
			if (c == ',') {
				st = in_obj ? EXPECT_KEY : EXPECT_VALUE;
				continue;
			}
			if (c == '}' || c == ']')
				goto close;
			goto fail;
		case EXPECT_END:
			goto fail;
		case EXPECT_VALUE_OR_CLOSE:
			if (c == ']')
				goto close;
			/* fall through */
		case EXPECT_VALUE:
			break;
		}
		/* a value; its parent is the key in an object, else the array */
		int parent = cur >= 0 && in_obj ? key : cur;
		if (parent >= 0)
			d->tok[parent].size++;
		if (c == '{' || c == '[') {
			if (depth >= LIMIT_JSON_DEPTH) {
				if (depth >= JSON_DOC_MAX_DEPTH) {
					*depth_bad = true;
					goto fail;
				}
				if (note_deep(d, i, depth))
					return -ENOMEM;
			}
			const struct json_shape *s =
				!depth	      ? root :
				nshp == depth ? child_shape(d, shp[nshp - 1],
							    in_obj, key) :
						NULL;
			int t = new_tok(d, c == '{' ? JSMN_OBJECT : JSMN_ARRAY,
					(int)i, -1, parent);
			if (t < 0)
				return t;
			if (s == &json_shape_skip) {
				/* validated, one token, seen as empty */
				long e = -2;
				if (trusted)
					e = skip_trusted(js, len, i, depth, bad,
							 nl);
				if (e == -2)
					e = skip_container_bytes(
						d, js, len, i, depth, bad,
						depth_bad, bad_utf8, nl);
				if (e < 0)
					return e == -2 ? -ENOMEM : -EINVAL;
				d->tok[t].end = (int)e + 1;
				i = (size_t)e;
				st = depth ? after_value(js, len, &i, in_obj) :
					     EXPECT_END;
				continue;
			}
			in_obj = c == '{';
			depth++;
			st = in_obj ? EXPECT_KEY_OR_CLOSE :
				      EXPECT_VALUE_OR_CLOSE;
			if (s && nshp == depth - 1 &&
			    nshp < JSON_SHAPE_MAX_DEPTH)
				shp[nshp++] = s;
			cur = t;
			continue;
		}
		if (c == '"') {
			long e = string_end(js, len, i, bad, bad_utf8,
					    &d->plain);
			if (e < 0)
				return -EINVAL;
			int t = new_tok(d, JSMN_STRING, (int)i + 1, (int)e,
					parent);
			if (t < 0)
				return t;
			i = (size_t)e;
		} else {
			size_t e = scan_primitive(js, len, i);
			if (!e)
				goto fail;
			int t = new_tok(d, JSMN_PRIMITIVE, (int)i, (int)e,
					parent);
			if (t < 0)
				return t;
			i = e - 1;
		}
		st = depth ? after_value(js, len, &i, in_obj) : EXPECT_END;
		continue;
close:
		if (c != (in_obj ? '}' : ']'))
			goto fail;
		d->tok[cur].end = (int)i + 1;
		d->next[cur] = d->ntok;
		if (nshp == depth)
			nshp--;
		{
			int p = d->tok[cur].parent;
			if (p >= 0 && d->tok[p].type == JSMN_STRING)
				p = d->tok[p].parent; /* past the key */
			cur = p;
			/* the key of an enclosing object is already used */
		}
		depth--;
		/* every open container has its token: its type says */
		in_obj = cur >= 0 && d->tok[cur].type == JSMN_OBJECT;
		st = depth ? after_value(js, len, &i, in_obj) : EXPECT_END;
	}
	if (st == EXPECT_END)
		return 0;
	*bad = len;
	return -EINVAL;
fail:
	*bad = i;
	return -EINVAL;
}

/*
 * The same state machine over stage one's index (JSON_ISA_PORTABLE and
 * up): the byte loop's code but for where it goes next (cursor_next(),
 * cursor_string()). Kept apart so that the byte loop pays nothing for
 * the index.
 *
 * skip_container(): the container that opens at js[i], as
 * skip_container_bytes().
 */
ALWAYS_INLINE long skip_container(struct json_doc *d, struct json_cursor *cu,
				  size_t i, int depth, size_t *bad,
				  bool *depth_bad, bool *bad_utf8,
				  const bool idx)
{
	const char *js = cu->js;
	const size_t len = cu->len;
	bool is_obj[JSON_DOC_MAX_DEPTH + 1]; /* from depth on */
	const int base = depth;
	bool in_obj = js[i] == '{';
	int st = in_obj ? EXPECT_KEY_OR_CLOSE : EXPECT_VALUE_OR_CLOSE;
	if (depth >= JSON_DOC_MAX_DEPTH) {
		*depth_bad = true;
		goto fail;
	}
	if (depth >= LIMIT_JSON_DEPTH && note_deep(d, i, depth))
		return -2;
	is_obj[0] = in_obj;
	depth++;
	for (i++;; i++) {
		i = cursor_at(cu, js, len, i, idx);
		if (i >= len) {
			*bad = len;
			return -1;
		}
		char c = js[i];
		switch (st) {
		case EXPECT_KEY_OR_CLOSE:
			if (c == '}')
				goto close;
			/* fall through */
		case EXPECT_KEY: {
			if (c != '"')
				goto fail;
			long e = cursor_string(cu, i, bad, bad_utf8, NULL, idx);
			if (e < 0)
				return -1;
			i = (size_t)e;
			st = EXPECT_COLON;
			continue;
		}
		case EXPECT_COLON:
			if (c != ':')
				goto fail;
			st = EXPECT_VALUE;
			continue;
		case EXPECT_COMMA_OR_CLOSE:
			if (c == ',') {
				st = in_obj ? EXPECT_KEY : EXPECT_VALUE;
				continue;
			}
			if (c == '}' || c == ']')
				goto close;
			goto fail;
		case EXPECT_VALUE_OR_CLOSE:
			if (c == ']')
				goto close;
			/* fall through */
		default:
			break;
		}
		if (c == '{' || c == '[') {
			if (depth >= LIMIT_JSON_DEPTH) {
				if (depth >= JSON_DOC_MAX_DEPTH) {
					*depth_bad = true;
					goto fail;
				}
				if (note_deep(d, i, depth))
					return -2;
			}
			in_obj = c == '{';
			is_obj[depth - base] = in_obj;
			depth++;
			st = in_obj ? EXPECT_KEY_OR_CLOSE :
				      EXPECT_VALUE_OR_CLOSE;
			continue;
		}
		if (c == '"') {
			long e = cursor_string(cu, i, bad, bad_utf8, NULL, idx);
			if (e < 0)
				return -1;
			i = (size_t)e;
		} else {
			size_t e = scan_primitive(js, len, i);
			if (!e)
				goto fail;
			i = e - 1;
		}
		st = EXPECT_COMMA_OR_CLOSE;
		continue;
close:
		if (c != (in_obj ? '}' : ']'))
			goto fail;
		if (--depth == base)
			return (long)i;
		in_obj = is_obj[depth - 1 - base];
		st = EXPECT_COMMA_OR_CLOSE;
	}
fail:
	*bad = i;
	return -1;
}

static __attribute__((noinline)) long
skip_container_index(struct json_doc *d, struct json_cursor *cu, size_t i,
		     int depth, size_t *bad, bool *depth_bad, bool *bad_utf8)
{
	return skip_container(d, cu, i, depth, bad, depth_bad, bad_utf8, true);
}

/* skip_trusted() under the index, which goes on past the closing
 * bracket: its own classifying of the skipped bytes counts their
 * newlines. */
static long skip_trusted_index(struct json_cursor *cu, size_t i, int depth,
			       size_t *bad)
{
	bool nl = false;
	return skip_trusted(cu->js, cu->len, i, depth, bad, &nl);
}

/* Tokenize and validate js[0..len) into d, as root says (json.h).
 * Returns 0, -EINVAL with *bad at the failing byte (*depth_bad when
 * nesting was too deep), or -ENOMEM. */
ALWAYS_INLINE int tokenize_with(struct json_doc *d, struct json_cursor *cu,
				const struct json_shape *root, size_t *bad,
				bool *depth_bad, bool *bad_utf8, const bool idx)
{
	const char *js = cu->js;
	const size_t len = cu->len;
	/* the shapes of the outermost open containers, while shaped */
	const struct json_shape *shp[JSON_SHAPE_MAX_DEPTH];
	int nshp = 0;  /* open containers that have a shape: the first ones */
	int cur = -1;  /* the innermost open container */
	int key = -1;  /* in an object: the key whose value is next */
	int depth = 0; /* open containers */
	int st = EXPECT_VALUE;
	bool in_obj = false; /* the innermost open container is an object */
	d->ntok = 0;
	d->plain = true;
	d->ndeep = 0;
	size_t i = 0;
	for (;; i++) {
		i = cursor_at(cu, js, len, i, idx);
		if (i >= len)
			break;
		char c = js[i];
		switch (st) {
		case EXPECT_KEY_OR_CLOSE:
		case EXPECT_KEY:
			if (c == '}' && st == EXPECT_KEY_OR_CLOSE)
				goto close;
			if (c != '"')
				goto fail;
			{
				long e = cursor_string(cu, i, bad, bad_utf8,
						       &d->plain, idx);
				if (e < 0)
					return -EINVAL;
				key = new_tok(d, JSMN_STRING, (int)i + 1,
					      (int)e, cur);
				if (key < 0)
					return key;
				d->tok[cur].size++;
				i = (size_t)e;
			}
			st = EXPECT_COLON;
			continue;
		case EXPECT_COLON:
			if (c != ':')
				goto fail;
			st = EXPECT_VALUE;
			continue;
		case EXPECT_COMMA_OR_CLOSE:
			if (c == ',') {
				st = in_obj ? EXPECT_KEY : EXPECT_VALUE;
				continue;
			}
			if (c == '}' || c == ']')
				goto close;
			goto fail;
		case EXPECT_END:
			goto fail;
		case EXPECT_VALUE_OR_CLOSE:
			if (c == ']')
				goto close;
			/* fall through */
		case EXPECT_VALUE:
			break;
		}
		/* a value; its parent is the key in an object, else the array */
		int parent = cur >= 0 && in_obj ? key : cur;
		if (parent >= 0)
			d->tok[parent].size++;
		if (c == '{' || c == '[') {
			if (depth >= LIMIT_JSON_DEPTH) {
				if (depth >= JSON_DOC_MAX_DEPTH) {
					*depth_bad = true;
					goto fail;
				}
				if (note_deep(d, i, depth))
					return -ENOMEM;
			}
			const struct json_shape *s =
				!depth	      ? root :
				nshp == depth ? child_shape(d, shp[nshp - 1],
							    in_obj, key) :
						NULL;
			int t = new_tok(d, c == '{' ? JSMN_OBJECT : JSMN_ARRAY,
					(int)i, -1, parent);
			if (t < 0)
				return t;
			if (s == &json_shape_skip) {
				/* validated, one token, seen as empty */
				long e = -2;
				if (cu->trusted)
					e = skip_trusted_index(cu, i, depth,
							       bad);
				if (e == -2)
					e = skip_container_index(
						d, cu, i, depth, bad, depth_bad,
						bad_utf8);
				if (e < 0)
					return e == -2 ? -ENOMEM : -EINVAL;
				d->tok[t].end = (int)e + 1;
				i = (size_t)e;
				st = depth ? EXPECT_COMMA_OR_CLOSE : EXPECT_END;
				continue;
			}
			in_obj = c == '{';
			depth++;
			st = in_obj ? EXPECT_KEY_OR_CLOSE :
				      EXPECT_VALUE_OR_CLOSE;
			if (s && nshp == depth - 1 &&
			    nshp < JSON_SHAPE_MAX_DEPTH)
				shp[nshp++] = s;
			cur = t;
			continue;
		}
		if (c == '"') {
			long e = cursor_string(cu, i, bad, bad_utf8, &d->plain,
					       idx);
			if (e < 0)
				return -EINVAL;
			int t = new_tok(d, JSMN_STRING, (int)i + 1, (int)e,
					parent);
			if (t < 0)
				return t;
			i = (size_t)e;
		} else {
			size_t e = scan_primitive(js, len, i);
			if (!e)
				goto fail;
			int t = new_tok(d, JSMN_PRIMITIVE, (int)i, (int)e,
					parent);
			if (t < 0)
				return t;
			i = e - 1;
		}
		st = depth ? EXPECT_COMMA_OR_CLOSE : EXPECT_END;
		continue;
close:
		if (c != (in_obj ? '}' : ']'))
			goto fail;
		d->tok[cur].end = (int)i + 1;
		d->next[cur] = d->ntok;
		if (nshp == depth)
			nshp--;
		{
			int p = d->tok[cur].parent;
			if (p >= 0 && d->tok[p].type == JSMN_STRING)
				p = d->tok[p].parent; /* past the key */
			cur = p;
			/* the key of an enclosing object is already used */
		}
		depth--;
		/* every open container has its token: its type says */
		in_obj = cur >= 0 && d->tok[cur].type == JSMN_OBJECT;
		st = depth ? EXPECT_COMMA_OR_CLOSE : EXPECT_END;
	}
	if (st == EXPECT_END)
		return 0;
	*bad = len;
	return -EINVAL;
fail:
	*bad = i;
	return -EINVAL;
}

static int tokenize_index(struct json_doc *d, struct json_cursor *cu,
			  const struct json_shape *root, size_t *bad,
			  bool *depth_bad, bool *bad_utf8)
{
	return tokenize_with(d, cu, root, bad, depth_bad, bad_utf8, true);
}

/* Whether the document's value holds a newline, of the total newlines
 * in js: the ones in the white space around it do not count. */
static bool newline_inside(const struct json_doc *d, const char *js, size_t len,
			   size_t total)
{
	if (!total || !d->ntok)
		return false;
	size_t b = json_tok_begin(&d->tok[0]), e = json_tok_end(&d->tok[0]);
	for (size_t i = 0; i < b; i++)
		total -= js[i] == '\n';
	for (size_t i = e; i < len; i++)
		total -= js[i] == '\n';
	return total > 0;
}

/* Tokenize js[0..len) into d (tokenize_with()'s contract), by the index
 * when the level asks for it. Should the index ever lose its way (a
 * bug, but not one that could let bad input through), the byte loop
 * decides. *nl: the input had a newline. */
static int tokenize(struct json_doc *d, const char *js, size_t len,
		    const struct json_shape *root, bool trusted, size_t *bad,
		    bool *depth_bad, bool *bad_utf8, bool *nl)
{
	struct json_cursor cu;
	json_cursor_init(&cu, js, len);
	cu.trusted = trusted;
	int r;
	if (cu.isa != JSON_ISA_BYTES) {
		r = tokenize_index(d, &cu, root, bad, depth_bad, bad_utf8);
		if (!cu.lost) {
			*nl = !r && newline_inside(d, js, len, cu.nl);
			return r;
		}
		json_cursor_init(&cu, js, len);
		*depth_bad = *bad_utf8 = false;
	}
	*nl = false;
	return tokenize_bytes(d, js, len, root, trusted, bad, depth_bad,
			      bad_utf8, nl);
}

/* A copy of js[0..len) with each byte that does not start a valid UTF-8
 * sequence replaced by U+FFFD, into d->own. */
static int fix_utf8(struct json_doc *d, const char *js, size_t len)
{
	size_t need = len * 3 + 1;
	if (need > d->own_cap) {
		char *o = xrealloc(d->own, need);
		if (!o)
			return -ENOMEM;
		d->own = o;
		d->own_cap = need;
	}
	const unsigned char *s = (const unsigned char *)js;
	size_t w = 0;
	for (size_t i = 0; i < len;) {
		size_t n = s[i] < 0x80 ? 1 : utf8_len(s + i, len - i);
		if (n) {
			memcpy(d->own + w, js + i, n);
			w += n;
			i += n;
		} else {
			memcpy(d->own + w, "\xef\xbf\xbd", 3);
			w += 3;
			i++;
		}
	}
	d->own[w] = '\0';
	d->len = w;
	d->js = d->own;
	return 0;
}

const struct json_shape json_shape_skip;

int json_parse(struct json_doc *d, const char *js, size_t len, char *err,
	       size_t errlen)
{
	return json_parse_shaped(d, js, len, NULL, err, errlen);
}

static int parse(struct json_doc *d, const char *js, size_t len,
		 const struct json_shape *shape, bool trusted, char *err,
		 size_t errlen)
{
	d->js = js;
	d->len = len;
	d->ntok = 0;
	d->plain = false;
	if (len >= (size_t)INT_MAX / 3) {
		if (err)
			snprintf(err, errlen,
				 "JSON document of %zu bytes is too large",
				 len);
		return -EINVAL;
	}
	size_t bad = 0;
	bool deep = false, bad_utf8 = false;
	bool nl = false;
	int r = tokenize(d, js, len, shape, trusted, &bad, &deep, &bad_utf8,
			 &nl);
	/*
	 * Invalid UTF-8 inside strings is replaced, not refused: the
	 * apiserver's decoder (Go's encoding/json) turns each byte that does
	 * not start a valid sequence into U+FFFD, so that is what a client
	 * of the real apiserver would read, and what a client of the proxy
	 * reads too. It never gets invalid UTF-8 from the cache. Refusing
	 * would drop an object the apiserver serves. Valid input (all of it
	 * in practice) pays only the non-ASCII bytes' check in the scan.
	 */
	if (!r && bad_utf8) {
		r = fix_utf8(d, js, len);
		if (!r)
			r = tokenize(d, d->js, d->len, shape, trusted, &bad,
				     &deep, &bad_utf8, &nl);
	}
	d->newline = nl;
	if (r == -EINVAL && err) {
		if (deep)
			snprintf(
				err, errlen,
				"JSON nested deeper than %d levels at byte %zu",
				JSON_DOC_MAX_DEPTH, bad);
		else if (bad >= d->len && d->len && d->ntok)
			snprintf(err, errlen, "truncated JSON at byte %zu",
				 bad);
		else if (!d->ntok && bad >= d->len)
			snprintf(err, errlen, "empty JSON document");
		else
			snprintf(err, errlen, "invalid JSON at byte %zu", bad);
	}
	return r;
}

int json_parse_shaped(struct json_doc *d, const char *js, size_t len,
		      const struct json_shape *shape, char *err, size_t errlen)
{
	return parse(d, js, len, shape, false, err, errlen);
}

int json_parse_trusted(struct json_doc *d, const char *js, size_t len,
		       const struct json_shape *shape)
{
	return parse(d, js, len, shape, true, NULL, 0);
}

void json_doc_free(struct json_doc *d)
{
	free(d->tok);
	free(d->next);
	free(d->own);
	free(d->deep);
	*d = (struct json_doc)JSON_DOC_INIT;
}
