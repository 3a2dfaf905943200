/*
 * buf: a growable byte buffer (see buf.h).
 */
#include "buf.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "alloc.h"

int buf_reserve(struct buf *b, size_t extra)
{
	if (b->failed)
		return -ENOMEM;
	if (b->len + extra + 1 <= b->cap)
		return 0;
	size_t cap = b->cap ? b->cap : 64;
	while (cap < b->len + extra + 1) {
		if (cap > SIZE_MAX / 2)
			goto fail;
		cap *= 2;
	}
	char *p = xrealloc(b->p, cap);
	if (!p)
		goto fail;
	b->p = p;
	b->cap = cap;
	return 0;
fail:
	b->failed = true;
	return -ENOMEM;
}

int buf_add(struct buf *b, const void *data, size_t n)
{
	if (buf_reserve(b, n))
		return -ENOMEM;
	if (n)
		memcpy(b->p + b->len, data, n);
	b->len += n;
	b->p[b->len] = '\0';
	return 0;
}

int buf_adds(struct buf *b, const char *s)
{
	return buf_add(b, s, strlen(s));
}

int buf_addc(struct buf *b, char c)
{
	return buf_add(b, &c, 1);
}

int buf_vprintf(struct buf *b, const char *fmt, va_list ap)
{
	va_list ap2;
	va_copy(ap2, ap);
	int n = vsnprintf(NULL, 0, fmt, ap2);
	va_end(ap2);
	if (n < 0 || buf_reserve(b, (size_t)n))
		return -ENOMEM;
	vsnprintf(b->p + b->len, (size_t)n + 1, fmt, ap);
	b->len += (size_t)n;
	return 0;
}

int buf_printf(struct buf *b, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int r = buf_vprintf(b, fmt, ap);
	va_end(ap);
	return r;
}

int buf_add_u64(struct buf *b, uint64_t v)
{
	char tmp[24];
	int i = (int)sizeof(tmp);
	do {
		tmp[--i] = (char)('0' + v % 10);
		v /= 10;
	} while (v);
	return buf_add(b, tmp + i, sizeof(tmp) - (size_t)i);
}

int buf_add_json_str(struct buf *b, const char *s, size_t n)
{
	static const char hex[] = "0123456789abcdef";
	if (buf_reserve(b, n + 2))
		return -ENOMEM;
	buf_addc(b, '"');
	size_t start = 0; /* first byte not yet copied */
	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)s[i];
		/* Go's encoder also escapes < > &; match it byte for byte. */
		if (c >= 0x20 && c != '"' && c != '\\' && c != '<' &&
		    c != '>' && c != '&')
			continue;
		buf_add(b, s + start, i - start);
		start = i + 1;
		switch (c) {
		case '"':
			buf_add(b, "\\\"", 2);
			break;
		case '\\':
			buf_add(b, "\\\\", 2);
			break;
		case '\n':
			buf_add(b, "\\n", 2);
			break;
		case '\r':
			buf_add(b, "\\r", 2);
			break;
		case '\t':
			buf_add(b, "\\t", 2);
			break;
		default: {
			char u[6] = { '\\', 'u',	 '0',
				      '0',  hex[c >> 4], hex[c & 15] };
			buf_add(b, u, 6);
		}
		}
	}
	buf_add(b, s + start, n - start);
	return buf_addc(b, '"');
}

void buf_reset(struct buf *b)
{
	b->len = 0;
	b->failed = false;
	if (b->p)
		b->p[0] = '\0';
}

void buf_free(struct buf *b)
{
	free(b->p);
	*b = (struct buf)BUF_INIT;
}

char *buf_steal(struct buf *b, size_t *len)
{
	if (buf_reserve(b, 0)) {
		buf_free(b);
		return NULL;
	}
	char *p = b->p;
	p[b->len] = '\0'; /* a buffer never appended to has no NUL yet */
	if (len)
		*len = b->len;
	*b = (struct buf)BUF_INIT;
	return p;
}

static const char b64[] =
	"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";

int buf_add_base64url(struct buf *b, const void *data, size_t n)
{
	const unsigned char *p = data;
	if (buf_reserve(b, (n + 2) / 3 * 4))
		return -ENOMEM;
	for (size_t i = 0; i < n; i += 3) {
		unsigned v = (unsigned)p[i] << 16;
		if (i + 1 < n)
			v |= (unsigned)p[i + 1] << 8;
		if (i + 2 < n)
			v |= p[i + 2];
		char out[4] = { b64[v >> 18], b64[(v >> 12) & 63],
				b64[(v >> 6) & 63], b64[v & 63] };
		buf_add(b, out, i + 2 < n ? 4 : i + 1 < n ? 3 : 2);
	}
	return buf_ok(b) ? 0 : -ENOMEM;
}

int buf_base64url_decode(const char *s, size_t n, struct buf *out)
{
	while (n && s[n - 1] == '=')
		n--;
	if (n % 4 == 1)
		return -EINVAL;
	unsigned v = 0;
	int bits = 0;
	for (size_t i = 0; i < n; i++) {
		const char *c = s[i] ? strchr(b64, s[i]) : NULL;
		if (!c) {
			/* the standard alphabet is accepted too */
			if (s[i] == '+')
				c = b64 + 62;
			else if (s[i] == '/')
				c = b64 + 63;
			else
				return -EINVAL;
		}
		v = (v << 6) | (unsigned)(c - b64);
		bits += 6;
		if (bits >= 8) {
			bits -= 8;
			if (buf_addc(out, (char)((v >> bits) & 0xff)))
				return -ENOMEM;
		}
	}
	return 0;
}
