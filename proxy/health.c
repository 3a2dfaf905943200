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
 *
 * /livez/NAME and /readyz/NAME (/healthz/NAME as /livez/NAME) answer the
 * one check NAME of that endpoint, an upstream-RES one counted; a name
 * the endpoint does not have is 404. ?exclude=NAME leaves a check out of
 * the whole endpoint's verdict, listed "[+]NAME excluded: ok" as the
 * apiserver does, with a "warn:" line for a name that matches none.
 */
#include "proxy/health.h"
#include "proxy/reply.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "config/buf.h"
#include "proxy/status.h"

enum which {
	LIVEZ,
	READYZ,
	READYZ_UPSTREAM
};

/* One check as it stands now: its name, whether it passes, why (NULL
 * or words for ?verbose), and whether the endpoint asked counts it. */
struct hcheck {
	char name[400];
	char why[200];
	bool pass, counts;
};

static enum MHD_Result text(struct MHD_Connection *c, unsigned code,
			    const char *body)
{
	return proxy_reply_text(c, code, "text/plain; charset=utf-8", body);
}

/* A single check's path: "/livez/", "/healthz/" or "/readyz/" and a
 * name with no '/' in it; NULL otherwise. *w is the endpoint's. */
static const char *single(const char *url, enum which *w)
{
	static const struct {
		const char *prefix;
		enum which w;
	} ends[] = { { "/healthz/", LIVEZ },
		     { "/livez/", LIVEZ },
		     { "/readyz/", READYZ } };
	for (size_t i = 0; i < sizeof(ends) / sizeof(ends[0]); i++) {
		size_t n = strlen(ends[i].prefix);
		if (strncmp(url, ends[i].prefix, n))
			continue;
		const char *name = url + n;
		if (!*name || strchr(name, '/'))
			return NULL;
		*w = ends[i].w;
		return name;
	}
	return NULL;
}

bool proxy_health_path(const char *url)
{
	enum which w;
	/* every request asks, most of them for /api...: told at once */
	if (url[0] != '/' || (url[1] != 'h' && url[1] != 'l' && url[1] != 'r'))
		return false;
	return !strcmp(url, "/healthz") || !strcmp(url, "/livez") ||
	       !strcmp(url, "/readyz") || single(url, &w);
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

/* The checks of endpoint w, in order, into a new array (*n of them) the
 * caller frees; NULL when out of memory. upstream says whether the
 * upstream-RES checks count (/readyz/upstream, or one asked by name). */
static struct hcheck *checks_of(struct proxy *p, enum which w, bool upstream,
				int *n)
{
	int nres = w == LIVEZ ? 0 : proxy_nres(p);
	struct hcheck *cs = calloc((size_t)(2 + 2 * nres), sizeof(*cs));
	time_t now = time(NULL);
	int k = 0;
	if (!cs)
		return NULL;
	cs[k++] =
		(struct hcheck){ .name = "ping", .pass = true, .counts = true };
	if (w != LIVEZ) {
		bool up = !proxy_draining(p);
		cs[k] = (struct hcheck){ .name = "shutdown",
					 .pass = up,
					 .counts = true };
		if (!up)
			snprintf(cs[k].why, sizeof(cs[k].why),
				 "the proxy is shutting down");
		k++;
	}
	for (int i = 0; i < nres; i++) {
		struct cache_resource *r = p->res[i];
		if (cache_resource_retired(r))
			continue; /* removed by a reload */
		struct hcheck *h = &cs[k++];
		check_name(h->name, sizeof(h->name), "informer-sync", r);
		h->pass = cache_resource_synced(r);
		h->counts = true;
		if (!h->pass)
			snprintf(h->why, sizeof(h->why), "not synced yet");
	}
	for (int i = 0; i < nres; i++) {
		struct cache_resource *r = p->res[i];
		if (cache_resource_retired(r))
			continue;
		struct hcheck *h = &cs[k++];
		check_name(h->name, sizeof(h->name), "upstream", r);
		h->counts = upstream;
		h->pass = upstream_fresh(p, r, now, upstream, h->why,
					 sizeof(h->why));
	}
	*n = k;
	return cs;
}

/* /livez/NAME, /readyz/NAME: that one check, "ok" or 500 with why. */
static enum MHD_Result answer_one(struct proxy *p, struct MHD_Connection *c,
				  enum which w, const char *name)
{
	int n = 0;
	struct hcheck *cs = checks_of(p, w, true, &n);
	if (!cs)
		return MHD_NO;
	const struct hcheck *h = NULL;
	for (int i = 0; i < n && !h; i++)
		if (!strcmp(cs[i].name, name))
			h = &cs[i];
	enum MHD_Result r;
	if (!h) {
		r = proxy_reply_error(c, PROXY_NotFound,
				      "the server could not find the requested "
				      "resource");
	} else if (h->pass) {
		r = text(c, MHD_HTTP_OK, "ok");
	} else {
		char body[300];
		snprintf(body, sizeof(body), "internal server error: %s",
			 h->why);
		r = text(c, MHD_HTTP_INTERNAL_SERVER_ERROR, body);
	}
	free(cs);
	return r;
}

/* Whether ?exclude=NAME (repeatable) names check name; seen[i] notes
 * which exclusions matched a check. */
struct excl {
	const char *names[16];
	bool seen[16];
	int n;
};

static enum MHD_Result excl_add(void *cls, enum MHD_ValueKind kind,
				const char *key, const char *value)
{
	struct excl *e = cls;
	if (!strcmp(key, "exclude") && value && *value &&
	    e->n < (int)(sizeof(e->names) / sizeof(e->names[0])))
		e->names[e->n++] = value;
	return MHD_YES;
}

static bool excluded(struct excl *e, const char *name)
{
	bool hit = false;
	for (int i = 0; i < e->n; i++)
		if (!strcmp(e->names[i], name))
			hit = e->seen[i] = true;
	return hit;
}

enum MHD_Result proxy_health_handle(struct proxy *p, struct MHD_Connection *c,
				    const char *url)
{
	enum which w = !strcmp(url, "/readyz")		? READYZ :
		       !strcmp(url, "/readyz/upstream") ? READYZ_UPSTREAM :
							  LIVEZ;
	const char *one = w == READYZ_UPSTREAM ? NULL : single(url, &w);
	if (one)
		return answer_one(p, c, w, one);
	const char *endpoint = w == LIVEZ  ? url + 1 :
			       w == READYZ ? "readyz" :
					     "readyz/upstream";
	struct excl ex = { .n = 0 };
	MHD_get_connection_values(c, MHD_GET_ARGUMENT_KIND, excl_add, &ex);
	int n = 0;
	struct hcheck *cs = checks_of(p, w, w == READYZ_UPSTREAM, &n);
	if (!cs)
		return MHD_NO;
	/* verbose has the reasons; withheld is the apiserver's form */
	struct buf v = BUF_INIT, wh = BUF_INIT;
	bool ok = true;
	for (int i = 0; i < n; i++) {
		const struct hcheck *h = &cs[i];
		if (excluded(&ex, h->name)) {
			buf_printf(&v, "[+]%s excluded: ok\n", h->name);
			buf_printf(&wh, "[+]%s excluded: ok\n", h->name);
		} else if (h->pass || !h->counts) {
			buf_printf(&v, "[+]%s ok%s%s\n", h->name,
				   h->why[0] ? " " : "", h->why);
			buf_printf(&wh, "[+]%s ok\n", h->name);
		} else {
			ok = false;
			buf_printf(&v, "[-]%s failed: %s\n", h->name, h->why);
			buf_printf(&wh, "[-]%s failed: reason withheld\n",
				   h->name);
		}
	}
	free(cs);
	for (int i = 0; i < ex.n; i++)
		if (!ex.seen[i]) {
			buf_printf(&v,
				   "warn: some health checks cannot be "
				   "excluded: no matches for \"%s\"\n",
				   ex.names[i]);
			buf_printf(&wh,
				   "warn: some health checks cannot be "
				   "excluded: no matches for \"%s\"\n",
				   ex.names[i]);
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
