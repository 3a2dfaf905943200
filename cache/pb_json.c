/*
 * pb_json: the JSON text reader under the protobuf encoder (see
 * pb_json.h).
 */
#include "cache/pb_json.h"

#include <errno.h>
#include <stdint.h>

/* Whether [p, end) is exactly one JSON number; *frac says whether it has
 * a fraction or an exponent. */
bool pb_json_number(const char *p, const char *end, bool *frac)
{
	*frac = false;
	if (p < end && *p == '-')
		p++;
	if (p >= end)
		return false;
	if (*p == '0') {
		p++;
	} else if (*p >= '1' && *p <= '9') {
		while (p < end && *p >= '0' && *p <= '9')
			p++;
	} else {
		return false;
	}
	if (p < end && *p == '.') {
		*frac = true;
		if (++p >= end || *p < '0' || *p > '9')
			return false;
		while (p < end && *p >= '0' && *p <= '9')
			p++;
	}
	if (p < end && (*p == 'e' || *p == 'E')) {
		*frac = true;
		p++;
		if (p < end && (*p == '+' || *p == '-'))
			p++;
		if (p >= end || *p < '0' || *p > '9')
			return false;
		while (p < end && *p >= '0' && *p <= '9')
			p++;
	}
	return p == end;
}


static int sink_add(struct pb_json_sink *s, const char *p, size_t n)
{
	if (s->b)
		return buf_add(s->b, p, n) ? -ENOMEM : 0;
	if (s->fix) {
		if (n > s->cap - s->len)
			return -E2BIG;
		memcpy(s->fix + s->len, p, n);
	}
	s->len += n;
	return 0;
}

/* The length of the valid UTF-8 sequence at p (a byte >= 0x80), or 0:
 * no overlong forms, no surrogates, nothing past U+10FFFF. */
static size_t utf8_len(const char *s, const char *end)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t n = (size_t)(end - s);
	uint32_t cp;

	if (p[0] >= 0xc2 && p[0] <= 0xdf)
		return n >= 2 && (p[1] & 0xc0) == 0x80 ? 2 : 0;
	if (p[0] >= 0xe0 && p[0] <= 0xef) {
		if (n < 3 || (p[1] & 0xc0) != 0x80 || (p[2] & 0xc0) != 0x80)
			return 0;
		cp = (uint32_t)(p[0] & 0x0f) << 12 |
		     (uint32_t)(p[1] & 0x3f) << 6 | (p[2] & 0x3f);
		return cp >= 0x800 && (cp < 0xd800 || cp > 0xdfff) ? 3 : 0;
	}
	if (p[0] >= 0xf0 && p[0] <= 0xf4) {
		if (n < 4 || (p[1] & 0xc0) != 0x80 || (p[2] & 0xc0) != 0x80 ||
		    (p[3] & 0xc0) != 0x80)
			return 0;
		cp = (uint32_t)(p[0] & 0x07) << 18 |
		     (uint32_t)(p[1] & 0x3f) << 12 |
		     (uint32_t)(p[2] & 0x3f) << 6 | (p[3] & 0x3f);
		return cp >= 0x10000 && cp <= 0x10ffff ? 4 : 0;
	}
	return 0;
}

/* Decode the JSON string literal [p, p + n) (quotes included) into out:
 * escapes undone, \u escapes as UTF-8 (a lone surrogate as U+FFFD, as
 * Go's decoder does). -EINVAL for a control byte or a bad escape. */
int pb_json_str_decode(const char *p, size_t n, struct pb_json_sink *out)
{
	int rc;

	const char *end = p + n - 1;
	if (n < 2 || *p != '"' || *end != '"')
		return -EINVAL;
	for (p++; p < end;) {
		const char *run = p;
		for (size_t ul;
		     p < end && *p != '\\' && (unsigned char)*p >= 0x20;
		     p += ul)
			if ((unsigned char)*p < 0x80)
				ul = 1;
			else if (!(ul = utf8_len(p, end)))
				break;
		if (p > run && (rc = sink_add(out, run, (size_t)(p - run))))
			return rc;
		if (p == end)
			break;
		if ((unsigned char)*p >= 0x80) { /* invalid UTF-8 */
			if ((rc = sink_add(out, "\xef\xbf\xbd", 3)))
				return rc;
			p++;
			continue;
		}
		if (*p != '\\')
			return -EINVAL; /* a raw control byte */
		if (++p == end)
			return -EINVAL;
		char c = *p++, one;
		switch (c) {
		case '"':
		case '\\':
		case '/':
			one = c;
			break;
		case 'b':
			one = '\b';
			break;
		case 'f':
			one = '\f';
			break;
		case 'n':
			one = '\n';
			break;
		case 'r':
			one = '\r';
			break;
		case 't':
			one = '\t';
			break;
		case 'u': {
			uint32_t cp = 0;
			if (end - p < 4)
				return -EINVAL;
			for (int i = 0; i < 4; i++) {
				int h = buf_hexval(p[i]);
				if (h < 0)
					return -EINVAL;
				cp = cp << 4 | (uint32_t)h;
			}
			p += 4;
			if (cp >= 0xd800 && cp < 0xdc00 && end - p >= 6 &&
			    p[0] == '\\' && p[1] == 'u') {
				uint32_t lo = 0;
				int i;
				for (i = 0; i < 4; i++) {
					int h = buf_hexval(p[2 + i]);
					if (h < 0)
						return -EINVAL;
					lo = lo << 4 | (uint32_t)h;
				}
				if (lo >= 0xdc00 && lo < 0xe000) {
					cp = 0x10000 + ((cp - 0xd800) << 10) +
					     (lo - 0xdc00);
					p += 6;
				}
			}
			if (cp >= 0xd800 && cp < 0xe000)
				cp = 0xfffd;
			char u[4];
			size_t un;
			if (cp < 0x80) {
				u[0] = (char)cp;
				un = 1;
			} else if (cp < 0x800) {
				u[0] = (char)(0xc0 | cp >> 6);
				u[1] = (char)(0x80 | (cp & 0x3f));
				un = 2;
			} else if (cp < 0x10000) {
				u[0] = (char)(0xe0 | cp >> 12);
				u[1] = (char)(0x80 | ((cp >> 6) & 0x3f));
				u[2] = (char)(0x80 | (cp & 0x3f));
				un = 3;
			} else {
				u[0] = (char)(0xf0 | cp >> 18);
				u[1] = (char)(0x80 | ((cp >> 12) & 0x3f));
				u[2] = (char)(0x80 | ((cp >> 6) & 0x3f));
				u[3] = (char)(0x80 | (cp & 0x3f));
				un = 4;
			}
			if ((rc = sink_add(out, u, un)))
				return rc;
			continue;
		}
		default:
			return -EINVAL;
		}
		if ((rc = sink_add(out, &one, 1)))
			return rc;
	}
	return 0;
}

/* pb_json_str_plain() past the first byte >= 0x80: valid UTF-8 is plain. */
static bool str_plain_utf8(const char *p, size_t n)
{
	const char *end = p + n - 1;
	for (p++; p < end;) {
		size_t u = 1;
		if (*p == '\\' || (unsigned char)*p < 0x20)
			return false;
		if ((unsigned char)*p >= 0x80 && !(u = utf8_len(p, end)))
			return false;
		p += u;
	}
	return true;
}

/* Whether the string literal needs decoding (holds an escape, a control
 * byte or invalid UTF-8). */
bool pb_json_str_plain(const char *p, size_t n)
{
	if (n < 2 || p[0] != '"' || p[n - 1] != '"')
		return false;
	for (size_t i = 1; i + 1 < n; i++)
		if (p[i] == '\\' || (unsigned char)p[i] < 0x20 ||
		    (unsigned char)p[i] >= 0x80)
			return str_plain_utf8(p, n);
	return true;
}
