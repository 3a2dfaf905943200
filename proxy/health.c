/*
 * health: the probe endpoints (see health.h).
 *
 * Which checks count where:
 *
 *   check                 /livez  /readyz  /readyz/upstream
 *   ping                  yes     yes      yes
 *   shutdown              -       yes      yes
 *   informer-sync-RES     -       yes      yes
 *   upstream-RES          -       listed   yes
 *
 * A sidecar's readiness gates its whole application pod: a cache that
 * synced once keeps answering through an apiserver outage, so /readyz
 * must not follow the upstream. /readyz lists upstream freshness without
 * counting it; /readyz/upstream counts it, past --upstream-grace, for
 * whoever would rather send clients elsewhere.
 */
#include "proxy/health.h"
#include "proxy/reply.h"

#include <stdio.h>
#include <string.h>
#include <time.h>

#include "config/buf.h"

enum which {
	LIVEZ,
	READYZ,
	READYZ_UPSTREAM
};

static enum MHD_Result text(struct MHD_Connection *c, unsigned code,
			    const char *body)
{
	return proxy_reply_text(c, code, "text/plain; charset=utf-8", body);
}

bool proxy_health_path(const char *url)
{
	return !strcmp(url, "/healthz") || !strcmp(url, "/livez") ||
	       !strcmp(url, "/readyz") || !strcmp(url, "/readyz/upstream");
}

/* One check's line into verbose (with the reason) and withheld (the
 * apiserver's form without it); a failed one clears *ok. */
static void check(struct buf *verbose, struct buf *withheld, bool *ok,
		  bool pass, const char *name, const char *why)
{
	if (pass) {
		buf_printf(verbose, "[+]%s ok%s%s\n", name, why ? " " : "",
			   why ? why : "");
		buf_printf(withheld, "[+]%s ok\n", name);
		return;
	}
	*ok = false;
	buf_printf(verbose, "[-]%s failed: %s\n", name, why);
	buf_printf(withheld, "[-]%s failed: reason withheld\n", name);
}

/* The upstream freshness of r, as words, into out; returns whether it is
 * within --upstream-grace. */
static bool upstream_fresh(struct proxy *p, struct cache_resource *r,
			   time_t now, bool counted, char *out, size_t len)
{
	int64_t since = __atomic_load_n(&r->failing_since, __ATOMIC_RELAXED);
	int64_t last = __atomic_load_n(&r->last_contact, __ATOMIC_RELAXED);
	int grace = p->cfg->grace_seconds;
	bool within = !since || now - since <= grace;
	if (!since && last)
		snprintf(out, len, "(last heard from %llds ago)",
			 (long long)(now - last));
	else if (!since)
		snprintf(out, len, "(not heard from yet)");
	else if (within)
		snprintf(out, len, "(failing for %llds, grace %ds)",
			 (long long)(now - since), grace);
	else if (counted)
		snprintf(out, len, "failing for %llds, past the %ds grace",
			 (long long)(now - since), grace);
	else
		snprintf(out, len,
			 "(failing for %llds, past the %ds grace; the cache "
			 "still serves)",
			 (long long)(now - since), grace);
	return within;
}

/* A check's name: what, then the resource with its group, then the
 * namespace of a namespace-scoped cache (--config namespaces), which
 * would otherwise repeat the same name. */
static void check_name(char *out, size_t len, const char *what,
		       const struct cache_resource *r)
{
	snprintf(out, len, "%s-%s%s%s%s%s", what, r->kind->resource,
		 r->kind->group[0] ? "." : "", r->kind->group,
		 r->scope.ns ? "-" : "", r->scope.ns ? r->scope.ns : "");
}

enum MHD_Result proxy_health_handle(struct proxy *p, struct MHD_Connection *c,
				    const char *url)
{
	enum which w = !strcmp(url, "/readyz")		? READYZ :
		       !strcmp(url, "/readyz/upstream") ? READYZ_UPSTREAM :
							  LIVEZ;
	const char *endpoint = w == LIVEZ  ? url + 1 :
			       w == READYZ ? "readyz" :
					     "readyz/upstream";
	struct buf v = BUF_INIT, wh = BUF_INIT;
	bool ok = true;
	time_t now = time(NULL);
	check(&v, &wh, &ok, true, "ping", NULL);
	if (w != LIVEZ) {
		bool up = !proxy_draining(p);
		check(&v, &wh, &ok, up, "shutdown",
		      up ? NULL : "the proxy is shutting down");
		int n = proxy_nres(p);
		for (int i = 0; i < n; i++) {
			struct cache_resource *r = p->res[i];
			char name[400];
			if (cache_resource_retired(r))
				continue; /* removed by a reload */
			check_name(name, sizeof(name), "informer-sync", r);
			bool synced = cache_resource_synced(r);
			check(&v, &wh, &ok, synced, name,
			      synced ? NULL : "not synced yet");
		}
		for (int i = 0; i < n; i++) {
			struct cache_resource *r = p->res[i];
			char name[400], why[200];
			if (cache_resource_retired(r))
				continue;
			check_name(name, sizeof(name), "upstream", r);
			bool counted = w == READYZ_UPSTREAM;
			bool fresh = upstream_fresh(p, r, now, counted, why,
						    sizeof(why));
			check(&v, &wh, &ok, fresh || !counted, name, why);
		}
	}
	bool verbose = proxy_request_arg(c, "verbose", NULL);
	struct buf *out = verbose ? &v : &wh;
	if (!verbose && ok) {
		buf_reset(out);
		buf_adds(out, "ok");
	} else {
		buf_printf(out, "%s check %s", endpoint,
			   ok ? "passed" : "failed");
	}
	enum MHD_Result r =
		buf_ok(out) ?
			text(c, ok ? MHD_HTTP_OK : MHD_HTTP_SERVICE_UNAVAILABLE,
			     out->p) :
			MHD_NO;
	buf_free(&v);
	buf_free(&wh);
	return r;
}
