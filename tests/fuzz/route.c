/*
 * fuzz route: a request target as it comes on the request line, through
 * what every request meets first: proxy_target_check() (the hygiene
 * rules and the routing path), proxy_route_parse() on that path, and the
 * query values the proxy reads itself (watch through proxy_reqinfo_watch_value,
 * resourceVersion, limit and timeoutSeconds through cache_parse_u64).
 * libmicrohttpd splits and decodes the query in the server; here a small
 * splitter stands in for it.
 *
 * Invariants beyond "no crash":
 *   - a target that passes has only visible ASCII, no '#' or '\', and
 *     its routing path is no longer than the target, starts with '/',
 *     has no control byte and no "." or ".." segment;
 *   - a route that parses names a version and a resource, no part holds a
 *     '/', and writing it back as a path parses to the same route;
 *   - a number cache_parse_u64 accepts is decimal digits only, and is the
 *     value strtoull reads without overflow.
 */
#include <errno.h>
#include <stdbool.h>

#include "cache/parse.h"
#include "config/buf.h"
#include "proxy/front/reqinfo.h"
#include "proxy/route.h"
#include "proxy/front/target.h"
#include "tests/fuzz/fuzz.h"

static bool dot_seg(const char *s, size_t n)
{
	return (n == 1 && s[0] == '.') ||
	       (n == 2 && s[0] == '.' && s[1] == '.');
}

static void check_path(const char *raw, const char *route)
{
	for (const char *p = raw; *p; p++) {
		unsigned char c = (unsigned char)*p;
		FUZZ_CHECK(c > 0x20 && c < 0x7f && c != '#' && c != '\\');
	}
	FUZZ_CHECK(strlen(route) <= strlen(raw) && route[0] == '/');
	for (const char *p = route; *p; p++)
		FUZZ_CHECK((unsigned char)*p >= 0x20 && *p != 0x7f);
	for (const char *s = route + 1;;) {
		const char *e = strchr(s, '/');
		size_t n = e ? (size_t)(e - s) : strlen(s);
		FUZZ_CHECK(!dot_seg(s, n));
		if (!e)
			break;
		s = e + 1;
	}
}

static void check_route(const struct proxy_route *rt)
{
	FUZZ_CHECK(rt->version[0] && rt->resource[0]);
	const char *parts[] = { rt->group,    rt->version, rt->ns,
				rt->resource, rt->name,	   rt->sub };
	for (size_t i = 0; i < sizeof(parts) / sizeof(parts[0]); i++)
		FUZZ_CHECK(!strchr(parts[i], '/'));
	char path[1024];
	int n = rt->group[0] ?
			snprintf(path, sizeof(path), "/apis/%s/%s", rt->group,
				 rt->version) :
			snprintf(path, sizeof(path), "/api/%s", rt->version);
	if (rt->watch_prefix)
		n += snprintf(path + n, sizeof(path) - (size_t)n, "/watch");
	if (rt->ns[0])
		n += snprintf(path + n, sizeof(path) - (size_t)n,
			      "/namespaces/%s", rt->ns);
	n += snprintf(path + n, sizeof(path) - (size_t)n, "/%s", rt->resource);
	if (rt->name[0])
		n += snprintf(path + n, sizeof(path) - (size_t)n, "/%s",
			      rt->name);
	if (rt->sub[0])
		snprintf(path + n, sizeof(path) - (size_t)n, "/%s", rt->sub);
	struct proxy_route again;
	FUZZ_CHECK(proxy_route_parse(path, &again) == 0);
	FUZZ_CHECK(!memcmp(rt, &again, sizeof(again)));
}

/* URL-decode s[0..n) into out as libmicrohttpd does ('+' is a space). */
static void unescape(const char *s, size_t n, char *out)
{
	size_t o = 0;
	for (size_t i = 0; i < n; i++) {
		int hi, lo;
		if (s[i] == '+') {
			out[o++] = ' ';
		} else if (s[i] == '%' && i + 2 < n &&
			   (hi = buf_hexval(s[i + 1])) >= 0 &&
			   (lo = buf_hexval(s[i + 2])) >= 0) {
			out[o++] = (char)(hi * 16 + lo);
			i += 2;
		} else {
			out[o++] = s[i];
		}
	}
	out[o] = '\0';
}

static void check_number(const char *v)
{
	uint64_t n;
	if (!cache_parse_u64(v, &n))
		return;
	FUZZ_CHECK(v[0]);
	for (const char *p = v; *p; p++)
		FUZZ_CHECK(*p >= '0' && *p <= '9');
	errno = 0;
	unsigned long long want = strtoull(v, NULL, 10);
	FUZZ_CHECK(errno == 0 && want == n);
}

static void check_query(const char *q)
{
	while (*q) {
		const char *amp = strchr(q, '&');
		size_t n = amp ? (size_t)(amp - q) : strlen(q);
		const char *eq = memchr(q, '=', n);
		size_t kn = eq ? (size_t)(eq - q) : n;
		char *k = malloc(kn + 1), *v = malloc(n + 1);
		if (k && v) {
			unescape(q, kn, k);
			unescape(eq ? eq + 1 : q + n, eq ? n - kn - 1 : 0, v);
			if (!strcmp(k, "watch"))
				(void)proxy_reqinfo_watch_value(v);
			else if (!strcmp(k, "resourceVersion") ||
				 !strcmp(k, "limit") ||
				 !strcmp(k, "timeoutSeconds"))
				check_number(v);
		}
		free(k);
		free(v);
		q += n + (amp ? 1 : 0);
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *raw = fuzz_cstr(data, size);
	if (!raw)
		return 0;
	size_t cap = strlen(raw) + 1; /* what dispatch.c gives it */
	char *route = malloc(cap), err[160];
	if (!route)
		goto out;
	int rc = proxy_target_check(raw, route, cap, err, sizeof(err));
	FUZZ_CHECK(rc == 0 || rc == -EINVAL || rc == -ENAMETOOLONG);
	if (rc) {
		FUZZ_CHECK(err[0]);
		goto out;
	}
	check_path(raw, route);
	struct proxy_route rt;
	rc = proxy_route_parse(route, &rt);
	FUZZ_CHECK(rc == 0 || rc == -EINVAL || rc == -ENOENT);
	if (!rc)
		check_route(&rt);
	const char *q = strchr(raw, '?');
	if (q)
		check_query(q + 1);
out:
	free(route);
	free(raw);
	return 0;
}
