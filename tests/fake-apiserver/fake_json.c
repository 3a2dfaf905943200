/*
 * fake_json: a bounds-checked byte walker over JSON (see fake_json.h).
 *
 * It validates only as much as it must to find the end of a value; the
 * bytes it walks were produced by jansson or by the seeder, so it is a
 * reader, not a validator.
 */
#include "fake_json.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "config/alloc.h"
#include "config/buf.h"

static const char *ws(const char *p, const char *end)
{
	while (p < end && (*p == ' ' || *p == '\n' || *p == '\r' || *p == '\t'))
		p++;
	return p;
}

/* p at the opening quote; the end of the string, or NULL. A quote ends
 * the string unless an odd run of backslashes precedes it. */
static const char *skip_string(const char *p, const char *end)
{
	const char *from = ++p;
	for (;;) {
		const char *q = memchr(p, '"', (size_t)(end - p));
		if (!q)
			return NULL;
		const char *b = q;
		while (b > from && b[-1] == '\\')
			b--;
		if (((q - b) & 1) == 0)
			return q + 1;
		p = q + 1;
	}
}

const char *fake_json_skip(const char *p, const char *end)
{
	int depth = 0;

	p = ws(p, end);
	if (p >= end)
		return NULL;
	do {
		if (p >= end)
			return NULL;
		switch (*p) {
		case '"':
			p = skip_string(p, end);
			if (!p)
				return NULL;
			continue;
		case '{':
		case '[':
			depth++;
			break;
		case '}':
		case ']':
			if (--depth < 0)
				return NULL;
			break;
		default:
			if (depth == 0) {
				/* a bare primitive: up to a delimiter */
				while (p < end && !strchr(",}] \n\r\t", *p))
					p++;
				return p;
			}
		}
		p++;
	} while (depth > 0);
	return p;
}

int fake_json_each(const char *p, const char *end,
		   int (*fn)(void *ctx, const char *ks, const char *ke,
			     const char *vs, const char *ve),
		   void *ctx)
{
	p = ws(p, end);
	if (p >= end || *p != '{')
		return -EINVAL;
	p = ws(p + 1, end);
	if (p < end && *p == '}')
		return 0;
	while (p < end) {
		if (*p != '"')
			return -EINVAL;
		const char *ks = p, *ke = skip_string(p, end);
		if (!ke)
			return -EINVAL;
		p = ws(ke, end);
		if (p >= end || *p != ':')
			return -EINVAL;
		const char *vs = ws(p + 1, end);
		const char *ve = fake_json_skip(vs, end);
		if (!ve)
			return -EINVAL;
		int r = fn(ctx, ks, ke, vs, ve);
		if (r)
			return r;
		p = ws(ve, end);
		if (p < end && *p == '}')
			return 0;
		if (p >= end || *p != ',')
			return -EINVAL;
		p = ws(p + 1, end);
	}
	return -EINVAL;
}

struct find_ctx {
	const char *key;
	size_t klen;
	const char *vs, *ve;
};

static int find_member(void *ctx, const char *ks, const char *ke,
		       const char *vs, const char *ve)
{
	struct find_ctx *f = ctx;
	if ((size_t)(ke - ks - 2) == f->klen &&
	    memcmp(ks + 1, f->key, f->klen) == 0) {
		f->vs = vs;
		f->ve = ve;
		return 1;
	}
	return 0;
}

bool fake_json_find(const char *p, const char *end, const char *path,
		    const char **vs, const char **ve)
{
	while (*path) {
		const char *dot = strchr(path, '.');
		struct find_ctx f = { path,
				      dot ? (size_t)(dot - path) : strlen(path),
				      NULL, NULL };
		if (fake_json_each(p, end, find_member, &f) != 1)
			return false;
		p = f.vs;
		end = f.ve;
		path = dot ? dot + 1 : path + f.klen;
	}
	*vs = p;
	*ve = end;
	return true;
}

static int hex4(const char *p, const char *end)
{
	if (end - p < 4)
		return -1;
	int v = 0;
	for (int i = 0; i < 4; i++) {
		int h = buf_hexval(p[i]);
		if (h < 0)
			return -1;
		v = v * 16 + h;
	}
	return v;
}

static void add_utf8(struct buf *b, unsigned cp)
{
	char u[4];
	int n;
	if (cp < 0x80) {
		u[0] = (char)cp;
		n = 1;
	} else if (cp < 0x800) {
		u[0] = (char)(0xc0 | cp >> 6);
		u[1] = (char)(0x80 | (cp & 0x3f));
		n = 2;
	} else if (cp < 0x10000) {
		u[0] = (char)(0xe0 | cp >> 12);
		u[1] = (char)(0x80 | (cp >> 6 & 0x3f));
		u[2] = (char)(0x80 | (cp & 0x3f));
		n = 3;
	} else {
		u[0] = (char)(0xf0 | cp >> 18);
		u[1] = (char)(0x80 | (cp >> 12 & 0x3f));
		u[2] = (char)(0x80 | (cp >> 6 & 0x3f));
		u[3] = (char)(0x80 | (cp & 0x3f));
		n = 4;
	}
	buf_add(b, u, n);
}

char *fake_json_text(const char *vs, const char *ve)
{
	if (ve - vs == 4 && memcmp(vs, "null", 4) == 0)
		return xstrdup("");
	if (vs >= ve || *vs != '"')
		return xstrndup(vs, (size_t)(ve - vs));
	const char *p = vs + 1, *end = ve - 1;
	if (end < p || *end != '"')
		return NULL;
	/* the common case: no escapes */
	if (!memchr(p, '\\', (size_t)(end - p)))
		return xstrndup(p, (size_t)(end - p));

	struct buf b = BUF_INIT;
	while (p < end) {
		if (*p != '\\') {
			const char *q = p;
			while (q < end && *q != '\\')
				q++;
			buf_add(&b, p, (size_t)(q - p));
			p = q;
			continue;
		}
		if (++p >= end)
			goto bad;
		char c = *p++;
		switch (c) {
		case 'n':
			buf_addc(&b, '\n');
			break;
		case 't':
			buf_addc(&b, '\t');
			break;
		case 'r':
			buf_addc(&b, '\r');
			break;
		case 'b':
			buf_addc(&b, '\b');
			break;
		case 'f':
			buf_addc(&b, '\f');
			break;
		case 'u': {
			int cp = hex4(p, end);
			if (cp < 0)
				goto bad;
			p += 4;
			if (cp >= 0xd800 && cp < 0xdc00 && end - p >= 6 &&
			    p[0] == '\\' && p[1] == 'u') {
				int lo = hex4(p + 2, end);
				if (lo >= 0xdc00 && lo < 0xe000) {
					cp = 0x10000 + ((cp - 0xd800) << 10) +
					     (lo - 0xdc00);
					p += 6;
				}
			}
			add_utf8(&b, (unsigned)cp);
			break;
		}
		default:
			buf_addc(&b, c);
			break;
		}
	}
	if (!buf_ok(&b))
		goto bad;
	if (b.len == 0) {
		buf_free(&b);
		return xstrdup("");
	}
	return buf_steal(&b, NULL);
bad:
	buf_free(&b);
	return NULL;
}

char *fake_json_set_rv(const char *json, size_t len, uint64_t rv,
		       size_t *outlen)
{
	const char *vs, *ve;
	if (!fake_json_find(json, json + len, "metadata.resourceVersion", &vs,
			    &ve))
		return NULL;
	struct buf b = BUF_INIT;
	buf_reserve(&b, len + 24);
	buf_add(&b, json, (size_t)(vs - json));
	buf_addc(&b, '"');
	buf_add_u64(&b, rv);
	buf_addc(&b, '"');
	buf_add(&b, ve, (size_t)(json + len - ve));
	if (!buf_ok(&b)) {
		buf_free(&b);
		return NULL;
	}
	return buf_steal(&b, outlen);
}

static const char b64[] =
	"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";

char *fake_b64url_encode(const char *p, size_t n)
{
	char *out = xmalloc(n / 3 * 4 + 5);
	if (!out)
		return NULL;
	size_t o = 0, i = 0;
	const unsigned char *u = (const unsigned char *)p;
	for (; i + 2 < n; i += 3) {
		unsigned v = (unsigned)u[i] << 16 | (unsigned)u[i + 1] << 8 |
			     u[i + 2];
		out[o++] = b64[v >> 18];
		out[o++] = b64[v >> 12 & 63];
		out[o++] = b64[v >> 6 & 63];
		out[o++] = b64[v & 63];
	}
	if (n - i == 1) {
		unsigned v = (unsigned)u[i] << 16;
		out[o++] = b64[v >> 18];
		out[o++] = b64[v >> 12 & 63];
	} else if (n - i == 2) {
		unsigned v = (unsigned)u[i] << 16 | (unsigned)u[i + 1] << 8;
		out[o++] = b64[v >> 18];
		out[o++] = b64[v >> 12 & 63];
		out[o++] = b64[v >> 6 & 63];
	}
	out[o] = '\0';
	return out;
}

char *fake_b64url_decode(const char *s, size_t *outlen, size_t *bad_at)
{
	size_t n = strlen(s);
	char *out = xmalloc(n / 4 * 3 + 4);
	if (!out)
		return NULL;
	size_t o = 0;
	unsigned acc = 0;
	int bits = 0;
	for (size_t i = 0; i < n; i++) {
		const char *c = s[i] ? strchr(b64, s[i]) : NULL;
		if (!c) {
			*bad_at = i;
			free(out);
			return NULL;
		}
		acc = acc << 6 | (unsigned)(c - b64);
		bits += 6;
		if (bits >= 8) {
			bits -= 8;
			out[o++] = (char)(acc >> bits & 0xff);
		}
	}
	if (n % 4 == 1) { /* a lone sextet cannot end a quantum */
		*bad_at = n - 1;
		free(out);
		return NULL;
	}
	out[o] = '\0';
	*outlen = o;
	return out;
}
