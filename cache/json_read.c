/*
 * json_read: lookups on a parsed document's tokens: members, paths,
 * strings unescaped, integers, and whether a value nests too deep (see
 * json.h). The tokenizer that makes the tokens is json.c.
 */
#include "cache/json.h"
#include "cache/json_int.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "config/limits.h"

bool json_too_deep(const struct json_doc *d, int i)
{
	if (!d->ndeep ||
	    (d->tok[i].type != JSMN_OBJECT && d->tok[i].type != JSMN_ARRAY))
		return false;
	int level = 1; /* of i in the document */
	for (int p = d->tok[i].parent; p >= 0; p = d->tok[p].parent)
		level += d->tok[p].type != JSMN_STRING;
	/* the first run that opened inside i; runs are in document order */
	int lo = 0, hi = d->ndeep;
	while (lo < hi) {
		int mid = (lo + hi) / 2;
		if (d->deep[mid].at < d->tok[i].start)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (; lo < d->ndeep && d->deep[lo].at < d->tok[i].end; lo++)
		if (d->deep[lo].max - level + 1 > LIMIT_JSON_DEPTH)
			return true;
	return false;
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
	if (i < 0 || i >= d->ntok)
		return false;
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

int json_path_by(const struct json_doc *d, int obj, const char *path,
		 int (*step)(const struct json_doc *d, int obj,
			     const char *name))
{
	char part[128];
	while (obj >= 0 && *path) {
		const char *dot = strchr(path, '.');
		size_t n = dot ? (size_t)(dot - path) : strlen(path);
		if (n >= sizeof(part))
			return -1;
		memcpy(part, path, n);
		part[n] = '\0';
		obj = step(d, obj, part);
		path += n + (dot ? 1 : 0);
	}
	return obj;
}

int json_path(const struct json_doc *d, int obj, const char *path)
{
	return json_path_by(d, obj, path, json_get);
}

void json_span(const struct json_doc *d, int i, size_t *start, size_t *end)
{
	*start = json_tok_begin(&d->tok[i]);
	*end = json_tok_end(&d->tok[i]);
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
		case 'b':
			o[w++] = '\b';
			break;
		case 'f':
			o[w++] = '\f';
			break;
		case 'n':
			o[w++] = '\n';
			break;
		case 'r':
			o[w++] = '\r';
			break;
		case 't':
			o[w++] = '\t';
			break;
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
				cp = 0xfffd; /* a lone surrogate */
			w += put_utf8(o + w, cp);
			break;
		}
		default:
			o[w++] = c;
			break; /* " \ / */
		}
	}
	return w;
}

size_t json_str_len(const struct json_doc *d, int i)
{
	if (i < 0 || i >= d->ntok)
		return 0;
	const jsmntok_t *t = &d->tok[i];
	const char *s = d->js + t->start;
	size_t n = (size_t)(t->end - t->start);
	size_t w = 0;
	if (!json_escaped(d, i)) /* most are: no escape, no loop */
		return n;
	for (size_t k = 0; k < n; k++, w++) {
		if (s[k] != '\\')
			continue;
		if (s[++k] != 'u')
			continue;
		unsigned cp = hex4(s + k + 1);
		k += 4;
		if (cp >= 0xd800 && cp < 0xdc00 && k + 6 < n &&
		    s[k + 1] == '\\' && s[k + 2] == 'u') {
			unsigned lo = hex4(s + k + 3);
			if (lo >= 0xdc00 && lo < 0xe000) {
				cp = 0x10000;
				k += 6;
			}
		}
		if (cp >= 0xd800 && cp < 0xe000)
			cp = 0xfffd;
		w += (cp < 0x80	   ? 1 :
		      cp < 0x800   ? 2 :
		      cp < 0x10000 ? 3 :
				     4) -
		     1;
	}
	return w;
}

int json_str(const struct json_doc *d, int i, char *out, size_t cap)
{
	if (i < 0 || i >= d->ntok)
		return -EINVAL;
	const jsmntok_t *t = &d->tok[i];
	if (t->type != JSMN_STRING)
		return -EINVAL;
	const char *s = d->js + t->start;
	size_t n = (size_t)(t->end - t->start);
	if (!json_escaped(d, i)) {
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
	if (i < 0 || i >= d->ntok)
		return -EINVAL;
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
	if (i < 0 || i >= d->ntok)
		return -EINVAL;
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
