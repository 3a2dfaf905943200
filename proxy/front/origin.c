/*
 * origin: the Host and Origin rules of a listener that acts with the
 * proxy's own identity (see origin.h).
 */
#include "proxy/front/origin.h"

#include <errno.h>
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "config/alloc.h"

struct proxy_origin {
	regex_t *pats; /* --accept-hosts, compiled */
	size_t npats;
	char *listen;	/* the --listen host, or NULL */
	char **origins; /* --accept-origins */
	size_t norigins;
};

/* The comma-separated items of s, empty ones skipped, as copies into
 * *items (free each, then the array). Returns the count, or -ENOMEM. */
static long split(const char *s, char ***items)
{
	size_t n = 0, cap = 1;
	for (const char *p = s ? s : ""; *p; p++)
		cap += *p == ',';
	char **v = xcalloc(cap, sizeof(*v));
	if (!v)
		return -ENOMEM;
	for (const char *p = s ? s : ""; *p;) {
		const char *comma = strchr(p, ',');
		size_t len = comma ? (size_t)(comma - p) : strlen(p);
		if (len) {
			if (!(v[n] = xstrndup(p, len))) {
				while (n)
					free(v[--n]);
				free(v);
				return -ENOMEM;
			}
			n++;
		}
		p += len + (comma ? 1 : 0);
	}
	*items = v;
	return (long)n;
}

static void free_items(char **v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(v[i]);
	free(v);
}

static bool wildcard(const char *h)
{
	return !*h || !strcmp(h, "0.0.0.0") || !strcmp(h, "[::]") ||
	       !strcmp(h, "::") || !strcmp(h, "[::0]");
}

/*
 * How many copies of its parts glibc's regcomp may make of pattern, at
 * most: it compiles "x+" as "xx*" and "x{m,n}" as n copies of x, so each
 * such operator multiplies what it applies to. The product over every
 * operator, nested or not, bounds it from above (saturated past
 * PROXY_ORIGIN_MAX_COPIES). "*" and "?" copy nothing, but nested empty
 * loops make its closures costly: a repetition right after another
 * ("a+*") or more than PROXY_ORIGIN_MAX_REPEATS of them count as too
 * many copies too.
 */
static unsigned long copies(const char *pat)
{
	unsigned long prod = 1;
	unsigned nrep = 0;
	bool after_rep = false;
	for (const char *p = pat; *p && prod <= PROXY_ORIGIN_MAX_COPIES; p++) {
		unsigned long w = 1;
		bool rep = *p == '*' || *p == '+' || *p == '?' || *p == '{';
		if (rep && (after_rep || ++nrep > PROXY_ORIGIN_MAX_REPEATS))
			return PROXY_ORIGIN_MAX_COPIES + 1;
		after_rep = rep;
		if (*p == '+') {
			w = 2;
		} else if (*p == '{') {
			char *end;
			unsigned long m = strtoul(p + 1, &end, 10), n = m;
			if (*end == ',')
				n = end[1] == '}' ? m + 1 :
						    strtoul(end + 1, &end, 10);
			w = m > n ? m : n;
			w = w >= PROXY_ORIGIN_MAX_COPIES ?
				    PROXY_ORIGIN_MAX_COPIES + 1 :
				    w + 1;
			const char *close = strchr(p, '}');
			if (!close)
				return prod; /* regcomp refuses it */
			p = close;
		} else if (*p == '\\') {
			if (!*++p)
				break;
		} else if (*p == '[') { /* a bracket expression */
			p++;
			if (*p == '^')
				p++;
			if (*p == ']')
				p++;
			for (; *p && *p != ']'; p++)
				if (*p == '[' && (p[1] == ':' || p[1] == '.' ||
						  p[1] == '=')) {
					char end[3] = { p[1], ']', '\0' };
					const char *q = strstr(p + 2, end);
					if (!q)
						return prod; /* regcomp refuses it */
					p = q + 1;
				}
			if (!*p)
				break;
		}
		prod = w > PROXY_ORIGIN_MAX_COPIES ? w : prod * w;
	}
	return prod;
}

struct proxy_origin *proxy_origin_new(const char *accept_hosts,
				      const char *accept_origins,
				      const char *listen_host, char *err,
				      size_t errlen)
{
	struct proxy_origin *o = xcalloc(1, sizeof(*o));
	char **pats = NULL;
	long n;
	if (!o)
		goto out_nomem;
	n = split(accept_hosts, &pats);
	if (n < 0)
		goto out_nomem;
	if (n && !(o->pats = xcalloc((size_t)n, sizeof(*o->pats)))) {
		free_items(pats, (size_t)n);
		goto out_nomem;
	}
	for (long i = 0; i < n; i++) {
		if (strlen(pats[i]) > PROXY_ORIGIN_MAX_PATTERN ||
		    copies(pats[i]) > PROXY_ORIGIN_MAX_COPIES) {
			snprintf(
				err, errlen,
				"--accept-hosts: \"%.64s%s\" is longer than %d "
				"bytes or repeats too much (the \"+\" and "
				"{m,n} counts multiplied, over %d)",
				pats[i], strlen(pats[i]) > 64 ? "..." : "",
				PROXY_ORIGIN_MAX_PATTERN,
				PROXY_ORIGIN_MAX_COPIES);
			free_items(pats, (size_t)n);
			proxy_origin_free(o);
			return NULL;
		}
		int rc = regcomp(&o->pats[o->npats], pats[i],
				 REG_EXTENDED | REG_ICASE | REG_NOSUB);
		if (rc) {
			char why[128];
			regerror(rc, &o->pats[o->npats], why, sizeof(why));
			snprintf(err, errlen,
				 "--accept-hosts: \"%s\" is not a POSIX "
				 "extended regular expression: %s",
				 pats[i], why);
			free_items(pats, (size_t)n);
			proxy_origin_free(o);
			return NULL;
		}
		o->npats++;
	}
	free_items(pats, (size_t)n);
	if (listen_host && !wildcard(listen_host) &&
	    !(o->listen = xstrdup(listen_host)))
		goto out_nomem;
	n = split(accept_origins, &o->origins);
	if (n < 0)
		goto out_nomem;
	o->norigins = (size_t)n;
	for (size_t i = 0; i < o->norigins; i++) {
		const char *s = o->origins[i];
		const char *rest = !strncasecmp(s, "http://", 7)  ? s + 7 :
				   !strncasecmp(s, "https://", 8) ? s + 8 :
								    NULL;
		if (!rest || !*rest || strchr(rest, '/')) {
			snprintf(err, errlen,
				 "--accept-origins: \"%s\" is not an origin "
				 "(want http:// or https:// and host[:port], "
				 "no path)",
				 s);
			proxy_origin_free(o);
			return NULL;
		}
	}
	return o;
out_nomem:
	snprintf(err, errlen, "out of memory");
	proxy_origin_free(o);
	return NULL;
}

void proxy_origin_free(struct proxy_origin *o)
{
	if (!o)
		return;
	for (size_t i = 0; i < o->npats; i++)
		regfree(&o->pats[i]);
	free(o->pats);
	free(o->listen);
	free_items(o->origins, o->norigins);
	free(o);
}

static bool digits(const char *s)
{
	for (; *s; s++)
		if (*s < '0' || *s > '9')
			return false;
	return true;
}

int proxy_origin_host_part(const char *host, char *out, size_t outlen)
{
	size_t len = strnlen(host, PROXY_ORIGIN_MAX_HOST + 1), n;
	if (len > PROXY_ORIGIN_MAX_HOST)
		return -EINVAL;
	if (host[0] == '[') { /* an IPv6 literal keeps its brackets */
		const char *close = strchr(host, ']');
		if (!close || strchr(host + 1, '['))
			return -EINVAL;
		n = (size_t)(close - host) + 1;
		if (close[1] && (close[1] != ':' || !digits(close + 2)))
			return -EINVAL;
	} else {
		const char *colon = strchr(host, ':');
		if (colon && (strchr(colon + 1, ':') || !digits(colon + 1)))
			return -EINVAL; /* an IPv6 literal needs brackets */
		n = colon ? (size_t)(colon - host) : len;
	}
	if (!n || n >= outlen)
		return -EINVAL;
	memcpy(out, host, n);
	out[n] = '\0';
	return 0;
}

bool proxy_origin_host_ok(const struct proxy_origin *o, const char *host)
{
	char h[PROXY_ORIGIN_MAX_HOST + 1];
	if (!host)
		return true;
	if (proxy_origin_host_part(host, h, sizeof(h)))
		return false;
	if (o->listen && !strcasecmp(h, o->listen))
		return true;
	for (size_t i = 0; i < o->npats; i++)
		if (!regexec(&o->pats[i], h, 0, NULL, 0))
			return true;
	return false;
}

bool proxy_origin_origin_ok(const struct proxy_origin *o, const char *origin)
{
	if (!origin)
		return true;
	for (size_t i = 0; i < o->norigins; i++)
		if (!strcasecmp(origin, o->origins[i]))
			return true;
	return false;
}
