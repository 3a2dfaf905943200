/*
 * health: /healthz, /livez and /readyz in the apiserver's plain-text form.
 *
 * /healthz and /livez say the process answers. /readyz says every cached
 * resource has finished its first sync; until then cached paths answer
 * 429 and /readyz 503, so a kubelet readiness probe holds traffic back.
 */
#include "proxy/health.h"

#include <stdio.h>
#include <string.h>
#include <time.h>

#include "config/buf.h"

static enum MHD_Result text(struct MHD_Connection *c, unsigned code,
			    const char *body)
{
	return proxy_request_text(c, code, "text/plain; charset=utf-8", body);
}

bool proxy_health_path(const char *url)
{
	return !strcmp(url, "/healthz") || !strcmp(url, "/livez") ||
	       !strcmp(url, "/readyz");
}

enum MHD_Result proxy_health_handle(struct proxy *p, struct MHD_Connection *c,
				    const char *url)
{
	if (strcmp(url, "/readyz"))
		return text(c, MHD_HTTP_OK, "ok");
	struct buf b = BUF_INIT;
	bool ready = true;
	const char *verbose = NULL;
	bool v = proxy_arg(c, "verbose", &verbose);
	time_t now = time(NULL);
	for (int i = 0, n = proxy_nres(p); i < n; i++) {
		struct cache_resource *r = p->res[i];
		if (cache_refl_retired(r))
			continue; /* removed by a reload */
		bool ok = cache_refl_synced(r);
		ready = ready && ok;
		buf_printf(&b, "[%s]informer-sync-%s %s\n", ok ? "+" : "-",
			   r->kind->resource, ok ? "ok" : "failed: not synced");
		/* The cache keeps serving while the upstream is away; past the
		 * grace period that stale state should stop taking traffic. */
		int64_t since =
			__atomic_load_n(&r->failing_since, __ATOMIC_RELAXED);
		bool reach = !since || now - since <= p->cfg->grace_seconds;
		ready = ready && reach;
		if (since)
			buf_printf(
				&b,
				"[%s]upstream-%s failing for %llds (grace %ds)\n",
				reach ? "+" : "-", r->kind->resource,
				(long long)(now - since),
				p->cfg->grace_seconds);
	}
	if (!v) {
		buf_reset(&b);
		buf_adds(&b,
			 ready ? "ok" :
				 "[-]informer-sync failed: reason withheld\n"
				 "readyz check failed");
	} else {
		buf_printf(&b, "readyz check %s", ready ? "passed" : "failed");
	}
	enum MHD_Result r =
		buf_ok(&b) ?
			text(c,
			     ready ? MHD_HTTP_OK : MHD_HTTP_SERVICE_UNAVAILABLE,
			     b.p) :
			MHD_NO;
	buf_free(&b);
	return r;
}
