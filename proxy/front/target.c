/*
 * target: request-target checks and the routing path (see target.h).
 */
#include "proxy/front/target.h"

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "config/buf.h"

/* A decoded segment of the routing path, [s, e), is "." or "..". */
static bool dot_segment(const char *s, const char *e)
{
	size_t n = (size_t)(e - s);
	return (n == 1 && s[0] == '.') ||
	       (n == 2 && s[0] == '.' && s[1] == '.');
}

int proxy_target_check(const char *raw, char *route, size_t routelen, char *err,
		       size_t errlen)
{
	if (!raw || raw[0] != '/') {
		snprintf(err, errlen,
			 "the request target must be a path starting "
			 "with \"/\"");
		return -EINVAL;
	}
	size_t o = 0;
	bool in_path = true;
	const char *seg = route; /* start of the current decoded segment */
	for (const char *p = raw; *p; p++) {
		unsigned char ch = (unsigned char)*p;
		if (ch <= 0x20 || ch >= 0x7f || ch == '#' || ch == '\\') {
			snprintf(err, errlen,
				 "invalid character 0x%02x in the request "
				 "target",
				 ch);
			return -EINVAL;
		}
		int v = 0;
		if (ch == '%') {
			int hi = buf_hexval(p[1]),
			    lo = hi < 0 ? -1 : buf_hexval(p[2]);
			if (hi < 0 || lo < 0) {
				snprintf(
					err, errlen,
					"invalid URL escape in the request target");
				return -EINVAL;
			}
			v = hi * 16 + lo;
			if (v == 0) {
				snprintf(
					err, errlen,
					"%%00 is not allowed in the request target");
				return -EINVAL;
			}
		}
		if (!in_path) {
			if (ch == '%')
				p += 2;
			continue;
		}
		if (ch == '?') {
			in_path = false;
			continue;
		}
		/* the path: decode, but an encoded '/' stays in its segment
		 * ("%2F"); a byte at a time, no call per byte */
		char c = (char)ch;
		bool kept_slash = false;
		if (ch == '%') {
			p += 2;
			if (v == '/') {
				kept_slash = true;
			} else if (v < 0x20 || v == 0x7f) {
				snprintf(
					err, errlen,
					"invalid character in the request path");
				return -EINVAL;
			} else {
				c = (char)v;
			}
		}
		bool slash = !kept_slash && c == '/';
		if (slash && dot_segment(seg, route + o)) {
			snprintf(err, errlen,
				 "\".\" and \"..\" segments are not allowed "
				 "in the request path");
			return -EINVAL;
		}
		size_t n = kept_slash ? 3 : 1;
		if (o + n + 1 > routelen) {
			snprintf(err, errlen, "the request path is too long");
			return -ENAMETOOLONG;
		}
		if (kept_slash)
			memcpy(route + o, "%2F", 3);
		else
			route[o] = c;
		o += n;
		if (slash)
			seg = route + o;
	}
	route[o] = '\0';
	if (dot_segment(seg, route + o)) {
		snprintf(err, errlen,
			 "\".\" and \"..\" segments are not allowed in the "
			 "request path");
		return -EINVAL;
	}
	return 0;
}
