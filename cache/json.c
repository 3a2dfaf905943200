/*
 * json: jsmn tokens plus the validation jsmn leaves out (see json.h).
 *
 * jsmn, even in strict mode, does not check separators (it takes
 * `[1 2]` and `{"a" 1}`), literals (`tru`, `01`, `1.`) or control bytes
 * inside strings. validate() walks the token tree once and checks the
 * bytes between tokens and every primitive, so that what the cache keeps
 * and later serves is always well-formed JSON.
 */
#define JSMN_STATIC
#define JSMN_PARENT_LINKS
#define JSMN_STRICT
#include <jsmn.h>

#include "cache/json.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "config/alloc.h"

static bool is_ws(char c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

/* The value's first and one-past-last byte, quotes included. */
static size_t tok_begin(const jsmntok_t *t)
{
	return t->type == JSMN_STRING ? (size_t)t->start - 1 : (size_t)t->start;
}

static size_t tok_end(const jsmntok_t *t)
{
	return t->type == JSMN_STRING ? (size_t)t->end + 1 : (size_t)t->end;
}

/* js[a..b) must be white space around exactly one sep (none when 0). */
static bool gap_ok(const char *js, size_t a, size_t b, char sep)
{
	bool seen = sep == 0;
	for (size_t i = a; i < b; i++) {
		if (is_ws(js[i]))
			continue;
		if (js[i] == sep && !seen) {
			seen = true;
			continue;
		}
		return false;
	}
	return seen;
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

static bool string_ok(const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if ((unsigned char)s[i] < 0x20)
			return false;
	return true;
}

/* Check the value at *i and everything below it; advance *i past it.
 * Returns the byte offset that failed, or -1 when all is well. */
static long validate(struct json_doc *d, int *i, int depth)
{
	const jsmntok_t *t = &d->tok[*i];
	const char *js = d->js;
	if (depth > 512)
		return t->start;
	switch (t->type) {
	case JSMN_PRIMITIVE:
		d->next[*i] = *i + 1;
		(*i)++;
		return primitive_ok(js + t->start, (size_t)(t->end - t->start)) ?
			       -1 : t->start;
	case JSMN_STRING:
		d->next[*i] = *i + 1;
		(*i)++;
		return string_ok(js + t->start, (size_t)(t->end - t->start)) ?
			       -1 : t->start;
	case JSMN_OBJECT:
	case JSMN_ARRAY:
		break;
	default:
		return t->start;
	}
	bool obj = t->type == JSMN_OBJECT;
	size_t pos = (size_t)t->start + 1;
	int self = *i;
	(*i)++;
	for (int c = 0; c < d->tok[self].size; c++) {
		if (*i >= d->ntok || d->tok[*i].parent != self)
			return (long)pos;
		const jsmntok_t *k = &d->tok[*i];
		if (!gap_ok(js, pos, tok_begin(k), c ? ',' : 0))
			return (long)pos;
		if (obj) {
			if (k->type != JSMN_STRING || k->size != 1 ||
			    !string_ok(js + k->start, (size_t)(k->end - k->start)))
				return k->start;
			pos = tok_end(k);
			d->next[*i] = *i + 1;	/* a key alone; its value follows */
			int key = (*i)++;
			if (*i >= d->ntok || d->tok[*i].parent != key ||
			    !gap_ok(js, pos, tok_begin(&d->tok[*i]), ':'))
				return (long)pos;
		}
		const jsmntok_t *v = &d->tok[*i];
		long bad = validate(d, i, depth + 1);
		if (bad >= 0)
			return bad;
		pos = tok_end(v);
	}
	size_t close = (size_t)d->tok[self].end - 1;
	if (js[close] != (obj ? '}' : ']') || !gap_ok(js, pos, close, 0))
		return (long)pos;
	d->next[self] = *i;
	return -1;
}

int json_parse(struct json_doc *d, const char *js, size_t len, char *err,
	       size_t errlen)
{
	jsmn_parser p;
	jsmn_init(&p);
	d->js = js;
	d->len = len;
	d->ntok = 0;
	if (!d->cap) {
		size_t guess = len / 16 + 16;
		d->tok = xmalloc(guess * sizeof(*d->tok));
		if (!d->tok)
			return -ENOMEM;
		d->cap = (int)guess;
	}
	int r;
	for (;;) {
		r = jsmn_parse(&p, js, len, d->tok, (unsigned)d->cap);
		if (r != JSMN_ERROR_NOMEM)
			break;
		if (d->cap > (1 << 28))
			return -ENOMEM;
		jsmntok_t *t = xrealloc(d->tok, (size_t)d->cap * 2 * sizeof(*t));
		if (!t)
			return -ENOMEM;
		d->tok = t;
		d->cap *= 2;
	}
	if (r < 0) {
		if (err)
			snprintf(err, errlen, "%s at byte %u",
				 r == JSMN_ERROR_PART ? "truncated JSON" :
							"invalid JSON",
				 p.pos);
		return -EINVAL;
	}
	d->ntok = r;
	if (d->next_cap < d->cap) {
		int *nx = xrealloc(d->next, (size_t)d->cap * sizeof(*nx));
		if (!nx)
			return -ENOMEM;
		d->next = nx;
		d->next_cap = d->cap;
	}
	if (r == 0) {
		if (err)
			snprintf(err, errlen, "empty JSON document");
		return -EINVAL;
	}
	/* jsmn accepts several top-level values; we take exactly one. */
	int i = 0;
	long bad = validate(d, &i, 0);
	if (bad < 0 && (i != r || !gap_ok(js, tok_end(&d->tok[0]), len, 0)))
		bad = (long)tok_end(&d->tok[0]);
	if (bad < 0 && !gap_ok(js, 0, tok_begin(&d->tok[0]), 0))
		bad = 0;
	if (bad >= 0) {
		if (err)
			snprintf(err, errlen, "invalid JSON at byte %ld", bad);
		return -EINVAL;
	}
	return 0;
}

void json_doc_free(struct json_doc *d)
{
	free(d->tok);
	free(d->next);
	*d = (struct json_doc)JSON_DOC_INIT;
}

int json_first(const struct json_doc *d, int obj)
{
	if (obj < 0 || d->tok[obj].size == 0 ||
	    (d->tok[obj].type != JSMN_OBJECT && d->tok[obj].type != JSMN_ARRAY))
		return -1;
	return obj + 1;
}

int json_next(const struct json_doc *d, int obj, int k)
{
	int j = d->tok[obj].type == JSMN_OBJECT ? json_skip(d, k + 1) :
						  json_skip(d, k);
	if (j >= d->ntok || d->tok[j].start >= d->tok[obj].end)
		return -1;
	return j;
}

bool json_str_eq(const struct json_doc *d, int i, const char *s)
{
	const jsmntok_t *t = &d->tok[i];
	size_t n = strlen(s);
	return t->type == JSMN_STRING && (size_t)(t->end - t->start) == n &&
	       memcmp(d->js + t->start, s, n) == 0;
}

int json_get(const struct json_doc *d, int obj, const char *key)
{
	if (obj < 0 || d->tok[obj].type != JSMN_OBJECT)
		return -1;
	for (int k = json_first(d, obj); k > 0; k = json_next(d, obj, k))
		if (json_str_eq(d, k, key))
			return k + 1;
	return -1;
}

int json_path(const struct json_doc *d, int obj, const char *path)
{
	char part[128];
	while (obj >= 0 && *path) {
		const char *dot = strchr(path, '.');
		size_t n = dot ? (size_t)(dot - path) : strlen(path);
		if (n >= sizeof(part))
			return -1;
		memcpy(part, path, n);
		part[n] = '\0';
		obj = json_get(d, obj, part);
		path += n + (dot ? 1 : 0);
	}
	return obj;
}

void json_span(const struct json_doc *d, int i, size_t *start, size_t *end)
{
	*start = tok_begin(&d->tok[i]);
	*end = tok_end(&d->tok[i]);
}

static unsigned hex4(const char *s)
{
	return (unsigned)(buf_hexval(s[0]) << 12 | buf_hexval(s[1]) << 8 |
			  buf_hexval(s[2]) << 4 | buf_hexval(s[3]));
}

static size_t put_utf8(char *o, unsigned cp)
{
	if (cp < 0x80) {
		o[0] = (char)cp;
		return 1;
	}
	if (cp < 0x800) {
		o[0] = (char)(0xc0 | cp >> 6);
		o[1] = (char)(0x80 | (cp & 0x3f));
		return 2;
	}
	if (cp < 0x10000) {
		o[0] = (char)(0xe0 | cp >> 12);
		o[1] = (char)(0x80 | ((cp >> 6) & 0x3f));
		o[2] = (char)(0x80 | (cp & 0x3f));
		return 3;
	}
	o[0] = (char)(0xf0 | cp >> 18);
	o[1] = (char)(0x80 | ((cp >> 12) & 0x3f));
	o[2] = (char)(0x80 | ((cp >> 6) & 0x3f));
	o[3] = (char)(0x80 | (cp & 0x3f));
	return 4;
}

/* Unescape s[0..n) into o (room for n bytes suffices: escapes only
 * shrink). Returns the output length. jsmn has validated the escapes. */
static size_t unescape(const char *s, size_t n, char *o)
{
	size_t w = 0;
	for (size_t i = 0; i < n; i++) {
		if (s[i] != '\\') {
			o[w++] = s[i];
			continue;
		}
		char c = s[++i];
		switch (c) {
		case 'b': o[w++] = '\b'; break;
		case 'f': o[w++] = '\f'; break;
		case 'n': o[w++] = '\n'; break;
		case 'r': o[w++] = '\r'; break;
		case 't': o[w++] = '\t'; break;
		case 'u': {
			unsigned cp = hex4(s + i + 1);
			i += 4;
			if (cp >= 0xd800 && cp < 0xdc00 && i + 6 < n &&
			    s[i + 1] == '\\' && s[i + 2] == 'u') {
				unsigned lo = hex4(s + i + 3);
				if (lo >= 0xdc00 && lo < 0xe000) {
					cp = 0x10000 + ((cp - 0xd800) << 10) +
					     (lo - 0xdc00);
					i += 6;
				}
			}
			if (cp >= 0xd800 && cp < 0xe000)
				cp = 0xfffd;	/* a lone surrogate */
			w += put_utf8(o + w, cp);
			break;
		}
		default: o[w++] = c; break;	/* " \ / */
		}
	}
	return w;
}

size_t json_str_len(const struct json_doc *d, int i)
{
	const jsmntok_t *t = &d->tok[i];
	const char *s = d->js + t->start;
	size_t n = (size_t)(t->end - t->start);
	size_t w = 0;
	for (size_t k = 0; k < n; k++, w++) {
		if (s[k] != '\\')
			continue;
		if (s[++k] != 'u')
			continue;
		unsigned cp = hex4(s + k + 1);
		k += 4;
		if (cp >= 0xd800 && cp < 0xdc00 && k + 6 < n && s[k + 1] == '\\' &&
		    s[k + 2] == 'u') {
			unsigned lo = hex4(s + k + 3);
			if (lo >= 0xdc00 && lo < 0xe000) {
				cp = 0x10000;
				k += 6;
			}
		}
		if (cp >= 0xd800 && cp < 0xe000)
			cp = 0xfffd;
		w += (cp < 0x80 ? 1 : cp < 0x800 ? 2 : cp < 0x10000 ? 3 : 4) - 1;
	}
	return w;
}

int json_str(const struct json_doc *d, int i, char *out, size_t cap)
{
	const jsmntok_t *t = &d->tok[i];
	if (t->type != JSMN_STRING)
		return -EINVAL;
	const char *s = d->js + t->start;
	size_t n = (size_t)(t->end - t->start);
	if (!memchr(s, '\\', n)) {
		if (n + 1 > cap)
			return -ENOSPC;
		memcpy(out, s, n);
		out[n] = '\0';
		return (int)n;
	}
	if (json_str_len(d, i) + 1 > cap)
		return -ENOSPC;
	size_t w = unescape(s, n, out);
	out[w] = '\0';
	return (int)w;
}

int json_u64(const struct json_doc *d, int i, uint64_t *out)
{
	const jsmntok_t *t = &d->tok[i];
	if (t->type != JSMN_STRING && t->type != JSMN_PRIMITIVE)
		return -EINVAL;
	const char *s = d->js + t->start;
	size_t n = (size_t)(t->end - t->start);
	if (n == 0 || n > 20)
		return -EINVAL;
	uint64_t v = 0;
	for (size_t k = 0; k < n; k++) {
		if (s[k] < '0' || s[k] > '9')
			return -EINVAL;
		uint64_t nv = v * 10 + (uint64_t)(s[k] - '0');
		if (nv / 10 != v)
			return -EINVAL;
		v = nv;
	}
	*out = v;
	return 0;
}

int json_i64(const struct json_doc *d, int i, int64_t *out)
{
	const jsmntok_t *t = &d->tok[i];
	if (t->type != JSMN_PRIMITIVE)
		return -EINVAL;
	char tmp[24];
	size_t n = (size_t)(t->end - t->start);
	if (n == 0 || n >= sizeof(tmp))
		return -EINVAL;
	memcpy(tmp, d->js + t->start, n);
	tmp[n] = '\0';
	char *e;
	errno = 0;
	long long v = strtoll(tmp, &e, 10);
	if (*e || errno)
		return -EINVAL;
	*out = v;
	return 0;
}

int json_time(const char *s, size_t n, int64_t *out)
{
	struct tm tm = { 0 };
	if (n < 20 || s[4] != '-' || s[7] != '-' || s[10] != 'T' ||
	    s[13] != ':' || s[16] != ':' || s[n - 1] != 'Z')
		return -EINVAL;
	int f[6];
	static const int at[6] = { 0, 5, 8, 11, 14, 17 };
	static const int width[6] = { 4, 2, 2, 2, 2, 2 };
	for (int k = 0; k < 6; k++) {
		int v = 0;
		for (int c = 0; c < width[k]; c++) {
			char ch = s[at[k] + c];
			if (ch < '0' || ch > '9')
				return -EINVAL;
			v = v * 10 + (ch - '0');
		}
		f[k] = v;
	}
	tm.tm_year = f[0] - 1900;
	tm.tm_mon = f[1] - 1;
	tm.tm_mday = f[2];
	tm.tm_hour = f[3];
	tm.tm_min = f[4];
	tm.tm_sec = f[5];
	*out = (int64_t)timegm(&tm);
	return 0;
}

static void newline(struct buf *out, int depth)
{
	buf_addc(out, '\n');
	for (int i = 0; i < depth; i++)
		buf_add(out, "  ", 2);
}

int json_indent(const char *in, size_t n, struct buf *out)
{
	int depth = 0;
	for (size_t i = 0; i < n; i++) {
		char c = in[i];
		switch (c) {
		case '"': {
			size_t s = i++;
			while (i < n && in[i] != '"')
				i += in[i] == '\\' ? 2 : 1;
			buf_add(out, in + s, (i < n ? i + 1 : n) - s);
			break;
		}
		case '{':
		case '[': {
			size_t j = i + 1;
			while (j < n && (in[j] == ' ' || in[j] == '\n' || in[j] == '\t' ||
					 in[j] == '\r'))
				j++;
			buf_addc(out, c);
			if (j < n && (in[j] == '}' || in[j] == ']')) {
				buf_addc(out, in[j]);	/* {} and [] stay as they are */
				i = j;
				break;
			}
			newline(out, ++depth);
			break;
		}
		case '}':
		case ']':
			newline(out, --depth);
			buf_addc(out, c);
			break;
		case ',':
			buf_addc(out, ',');
			newline(out, depth);
			break;
		case ':':
			buf_add(out, ": ", 2);
			break;
		case ' ':
		case '\n':
		case '\t':
		case '\r':
			break;
		default:
			buf_addc(out, c);
		}
	}
	return buf_ok(out) ? 0 : -ENOMEM;
}

bool cache_parse_u64(const char *s, uint64_t *out)
{
	if (!s || !*s)
		return false;
	uint64_t v = 0;
	for (; *s; s++) {
		if (*s < '0' || *s > '9')
			return false;
		unsigned d = (unsigned)(*s - '0');
		if (v > (UINT64_MAX - d) / 10)
			return false;	/* overflow */
		v = v * 10 + d;
	}
	*out = v;
	return true;
}
