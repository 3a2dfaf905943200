/*
 * pb_json: the JSON text reader under the protobuf encoder (see
 * pb_json.h).
 */
#include "cache/pb_json.h"

#include <errno.h>
#include <stdint.h>

#include "config/limits.h"


/* Past the closing quote of the string opening at p (p[0] == '"'), or
 * NULL. Structural only: escapes are skipped, not checked. */
static const char *pb_json_skip_string(const char *p, const char *end)
{
	for (p++; p < end; p++) {
		const char *q = memchr(p, '"', (size_t)(end - p));
		if (!q)
			return NULL;
		size_t bs = 0;
		while (q - bs > p && q[-1 - (long)bs] == '\\')
			bs++;
		if (!(bs & 1))
			return q + 1;
		p = q;
	}
	return NULL;
}

/* Past the value starting at p, matching brackets and strings only (the
 * level that reads the value validates it). NULL when it does not end
 * before end. */
static const char *pb_json_skip_value(const char *p, const char *end)
{
	size_t depth = 0;

	if (p >= end)
		return NULL;
	do {
		if (p >= end)
			return NULL;
		switch (*p) {
		case '"':
			if (!(p = pb_json_skip_string(p, end)))
				return NULL;
			break;
		case '{':
		case '[':
			depth++;
			p++;
			break;
		case '}':
		case ']':
			if (!depth)
				return NULL;
			depth--;
			p++;
			break;
		default:
			if (!depth) { /* a scalar: up to a delimiter */
				const char *s = p;
				while (p < end && !pb_json_ws(*p) &&
				       *p != ',' && *p != '}' && *p != ']' &&
				       *p != ':' && *p != '"' && *p != '{' &&
				       *p != '[')
					p++;
				return p > s ? p : NULL;
			}
			p++;
		}
	} while (depth);
	return p;
}

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

/*
 * Validate [p, end) as exactly one JSON value: the full grammar, nesting
 * up to LIMIT_JSON_DEPTH, iteratively. For values carried as raw JSON
 * text (FieldsV1), which no level of the encoder looks into otherwise.
 */
static void set_level(unsigned char *bits, size_t i, bool obj)
{
	if (obj)
		bits[i / 8] |= (unsigned char)(1u << (i % 8));
	else
		bits[i / 8] &= (unsigned char)~(1u << (i % 8));
}

static bool is_obj(const unsigned char *bits, size_t i)
{
	return bits[i / 8] >> (i % 8) & 1;
}

bool pb_json_valid(const char *p, const char *end)
{
	enum {
		max = LIMIT_JSON_DEPTH
	};
	unsigned char stack[max / 8 + 1]; /* a bit a level: 1 = object */
	size_t depth = 0;
	bool ok = false, want_value = true;

	p = pb_json_skip_ws(p, end);
	for (;;) {
		if (want_value) {
			if (p >= end)
				goto out;
			if (*p == '{' || *p == '[') {
				if (depth == max)
					goto out;
				set_level(stack, depth++, *p++ == '{');
				p = pb_json_skip_ws(p, end);
				if (p < end &&
				    *p == (is_obj(stack, depth - 1) ? '}' :
								      ']')) {
					p++;
					depth--;
					want_value = false;
					goto after;
				}
				if (is_obj(stack, depth - 1))
					goto key;
				continue;
			}
			const char *v = p, *ve;
			if (*p == '"') {
				if (!(ve = pb_json_skip_string(p, end)))
					goto out;
				struct pb_json_sink none = { 0 };
				if (!pb_json_str_plain(v, (size_t)(ve - v)) &&
				    pb_json_str_decode(v, (size_t)(ve - v),
						       &none))
					goto out;
			} else {
				bool frac;
				if (!(ve = pb_json_skip_value(p, end)))
					goto out;
				if (!pb_json_is(v, (size_t)(ve - v), "true") &&
				    !pb_json_is(v, (size_t)(ve - v), "false") &&
				    !pb_json_is(v, (size_t)(ve - v), "null") &&
				    !pb_json_number(v, ve, &frac))
					goto out;
			}
			p = ve;
			want_value = false;
		}
after:
		p = pb_json_skip_ws(p, end);
		if (!depth) {
			ok = p == end;
			goto out;
		}
		if (p >= end)
			goto out;
		if (*p == ',') {
			p = pb_json_skip_ws(p + 1, end);
			want_value = true;
			if (!is_obj(stack, depth - 1))
				continue;
key:
			if (p >= end || *p != '"')
				goto out;
			const char *k = p;
			if (!(p = pb_json_skip_string(p, end)))
				goto out;
			struct pb_json_sink none = { 0 };
			if (!pb_json_str_plain(k, (size_t)(p - k)) &&
			    pb_json_str_decode(k, (size_t)(p - k), &none))
				goto out;
			p = pb_json_skip_ws(p, end);
			if (p >= end || *p != ':')
				goto out;
			p = pb_json_skip_ws(p + 1, end);
			want_value = true;
			continue;
		}
		if (*p != (is_obj(stack, depth - 1) ? '}' : ']'))
			goto out;
		p++;
		depth--;
		want_value = false;
	}
out:
	return ok;
}
