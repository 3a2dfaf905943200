/*
 * fuzz host_origin: the DNS-rebinding rules of proxy/front/origin.c with
 * hostile Host and Origin values and the configured patterns.
 *
 * The input is lines: --accept-hosts, --accept-origins, the --listen
 * host, the Host header, the Origin header (missing lines are empty; a
 * line of a single "-" stands for a header that is absent). Patterns
 * with a back-reference are skipped: they are the operator's, and a
 * back-reference makes glibc's matching exponential in time; the headers
 * are what a hostile client chooses. (A first run found patterns such as
 * "a+++...", which glibc compiles in memory exponential in the count:
 * origin.c now refuses them.)
 *
 * Invariants beyond "no crash":
 *   - a host part that is cut out is a non-empty prefix of the header,
 *     is all of it or is followed by ":" and digits, and holds a ":"
 *     only inside brackets;
 *   - under kubectl proxy's default patterns a Host is accepted exactly
 *     when its host part is localhost, 127.0.0.1 or [::1] (any case), or
 *     the --listen host;
 *   - the verdict does not depend on the port, nor on the case of the
 *     host's letters;
 *   - an accepted Origin is one of --accept-origins, compared whole;
 *     no Origin header is always accepted, as no Host header is.
 */
#include <ctype.h>
#include <strings.h>

#include "proxy/front/origin.h"
#include "tests/fuzz/fuzz.h"

#define NLINES 5

static bool digits(const char *s)
{
	for (; *s; s++)
		if (!isdigit((unsigned char)*s))
			return false;
	return true;
}

static void check_part(const char *host)
{
	char part[PROXY_ORIGIN_MAX_HOST + 1];
	if (proxy_origin_host_part(host, part, sizeof(part)))
		return;
	size_t n = strlen(part);
	FUZZ_CHECK(n > 0 && n <= PROXY_ORIGIN_MAX_HOST);
	FUZZ_CHECK(!strncmp(part, host, n));
	FUZZ_CHECK(!host[n] || (host[n] == ':' && digits(host + n + 1)));
	if (part[0] == '[')
		FUZZ_CHECK(part[n - 1] == ']');
	else
		FUZZ_CHECK(!strchr(part, ':'));
}

/* host with its port replaced, or its letters' case flipped */
static void variants(const char *host, char *port, char *flip, size_t len)
{
	char part[PROXY_ORIGIN_MAX_HOST + 1];
	if (proxy_origin_host_part(host, part, sizeof(part)))
		part[0] = '\0';
	snprintf(port, len, "%s:65535", part[0] ? part : host);
	snprintf(flip, len, "%s", host);
	for (char *p = flip; *p; p++)
		if (isalpha((unsigned char)*p))
			*p = (char)(isupper((unsigned char)*p) ?
					    tolower((unsigned char)*p) :
					    toupper((unsigned char)*p));
}

static bool default_says(const char *host, const char *listen)
{
	char part[PROXY_ORIGIN_MAX_HOST + 1];
	if (proxy_origin_host_part(host, part, sizeof(part)))
		return false;
	return !strcasecmp(part, "localhost") || !strcmp(part, "127.0.0.1") ||
	       !strcmp(part, "[::1]") ||
	       (listen[0] && strcmp(listen, "0.0.0.0") &&
		strcmp(listen, "[::]") && strcmp(listen, "::") &&
		strcmp(listen, "[::0]") && !strcasecmp(part, listen));
}

static bool listed(const char *origins, const char *origin)
{
	size_t n = strlen(origin);
	for (const char *p = origins; *p;) {
		const char *comma = strchr(p, ',');
		size_t len = comma ? (size_t)(comma - p) : strlen(p);
		if (len && len == n && !strncasecmp(p, origin, n))
			return true;
		p += len + (comma ? 1 : 0);
	}
	return false;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *in = fuzz_cstr(data, size);
	if (!in)
		return 0;
	char *line[NLINES];
	char *p = in;
	for (int i = 0; i < NLINES; i++) {
		line[i] = p;
		char *nl = p ? strchr(p, '\n') : NULL;
		if (nl)
			*nl = '\0';
		p = nl ? nl + 1 : NULL;
		if (!line[i])
			line[i] = "";
	}
	const char *hosts = line[0], *origins = line[1], *listen = line[2];
	const char *host = strcmp(line[3], "-") ? line[3] : NULL;
	const char *origin = strcmp(line[4], "-") ? line[4] : NULL;
	char err[512];
	static char port[2 * PROXY_ORIGIN_MAX_HOST + 16],
		flip[2 * PROXY_ORIGIN_MAX_HOST + 16];

	if (host) {
		check_part(host);
		variants(host, port, flip, sizeof(port));
	}
	struct proxy_origin *d = proxy_origin_new(
		PROXY_ORIGIN_DEFAULT_HOSTS, origins, listen, err, sizeof(err));
	if (d) {
		bool ok = proxy_origin_host_ok(d, host);
		FUZZ_CHECK(ok == (!host || default_says(host, listen)));
		if (host && ok)
			FUZZ_CHECK(proxy_origin_host_ok(d, port) &&
				   proxy_origin_host_ok(d, flip));
		bool ook = proxy_origin_origin_ok(d, origin);
		FUZZ_CHECK(ook == (!origin || listed(origins, origin)));
		proxy_origin_free(d);
	} else {
		FUZZ_CHECK(strstr(err, "--accept-origins") ||
			   !strcmp(err, "out of memory"));
	}

	bool risky = false;
	for (const char *q = hosts; *q && !risky; q++)
		risky = q[0] == '\\' && isdigit((unsigned char)q[1]);
	if (!risky && strlen(hosts) <= 512) {
		struct proxy_origin *o =
			proxy_origin_new(hosts, "", listen, err, sizeof(err));
		if (o) {
			bool ok = proxy_origin_host_ok(o, host);
			FUZZ_CHECK(!host || !ok ||
				   (proxy_origin_host_ok(o, port) &&
				    proxy_origin_host_ok(o, flip)));
			FUZZ_CHECK(!proxy_origin_origin_ok(o, origin) ==
				   !!origin);
			proxy_origin_free(o);
		} else {
			FUZZ_CHECK(strstr(err, "--accept-hosts") ||
				   !strcmp(err, "out of memory"));
		}
	}
	free(in);
	return 0;
}
