/*
 * discovery: fetch, keep and serve discovery documents (see discovery.h).
 *
 * Ownership: a struct docset is immutable once published and reference
 * counted; the pointer to the current one is guarded by a mutex (these
 * requests are rare, so no RCU here). A response holds a reference to the
 * set its body points into until libmicrohttpd frees it.
 */
#include "proxy/discovery.h"

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cache/json.h"
#include "config/alloc.h"
#include "config/buf.h"
#include "config/log.h"
#include "proxy/protobuf.h"
#include "proxy/reply.h"
#include "proxy/status.h"
#include "proxy/request.h"

enum variant {
	V_PLAIN,
	V_V2,
	V_V2BETA1,
	V_COUNT
};

static const char *const aggregated_type[V_COUNT] = {
	NULL,
	"application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList",
	"application/json;g=apidiscovery.k8s.io;v=v2beta1;as=APIGroupDiscoveryList",
};

struct doc {
	char *path;
	enum variant v;
	char *body;
	size_t len;
	char etag[24];
};

struct docset {
	int refs; /* guarded by proxy_discovery.lock */
	struct doc *docs;
	size_t n, cap;
};

struct proxy_discovery {
	const struct cache_upstream *up;
	int refresh;
	pthread_t thread;
	pthread_mutex_t lock; /* guards cur and refs */
	pthread_cond_t cond;
	struct docset *cur;
	bool stop; /* atomic; also read by an upstream GET */
};

static void set_free(struct docset *s)
{
	for (size_t i = 0; i < s->n; i++) {
		free(s->docs[i].path);
		free(s->docs[i].body);
	}
	free(s->docs);
	free(s);
}

static void set_put(struct proxy_discovery *d, struct docset *s)
{
	pthread_mutex_lock(&d->lock);
	int left = --s->refs;
	pthread_mutex_unlock(&d->lock);
	if (!left)
		set_free(s);
}

/* FNV-1a, as an opaque validator for If-None-Match. */
static void etag_of(const char *p, size_t n, char out[24])
{
	uint64_t h = 1469598103934665603ULL;
	for (size_t i = 0; i < n; i++) {
		h ^= (unsigned char)p[i];
		h *= 1099511628211ULL;
	}
	snprintf(out, 24, "\"%016llx\"", (unsigned long long)h);
}

static int add_doc(struct docset *s, const char *path, enum variant v,
		   struct buf *body)
{
	if (s->n == s->cap) {
		size_t cap = s->cap ? s->cap * 2 : 32;
		struct doc *docs = xrealloc(s->docs, cap * sizeof(*docs));
		if (!docs)
			return -ENOMEM;
		s->docs = docs;
		s->cap = cap;
	}
	struct doc *dc = &s->docs[s->n];
	dc->path = xstrdup(path);
	if (!dc->path)
		return -ENOMEM;
	dc->v = v;
	etag_of(body->p, body->len, dc->etag);
	dc->body = buf_steal(body, &dc->len);
	s->n++;
	return 0;
}

/* GET one document into the set; false when the upstream did not answer
 * 200 with the expected type. */
static bool fetch(struct proxy_discovery *d, struct docset *s, const char *path,
		  enum variant v)
{
	struct buf body = BUF_INIT, ctype = BUF_INIT;
	char err[256];
	long code = cache_upstream_get(
		d->up, CACHE_UPSTREAM_DISCOVERY, path,
		v == V_PLAIN ? "application/json" : aggregated_type[v],
		&d->stop, &body, &ctype, err, sizeof(err));
	bool ok = code == 200 && buf_ok(&body) &&
		  (v == V_PLAIN ||
		   (ctype.p && !strcmp(ctype.p, aggregated_type[v])));
	if (ok)
		ok = add_doc(s, path, v, &body) == 0;
	else if (code < 0)
		log_v(1, "discovery: %s", err);
	buf_free(&body);
	buf_free(&ctype);
	return ok;
}

/* Every /apis/G/V the group list names. */
static void fetch_groups(struct proxy_discovery *d, struct docset *s)
{
	const struct doc *apis = NULL;
	for (size_t i = 0; i < s->n; i++)
		if (s->docs[i].v == V_PLAIN &&
		    !strcmp(s->docs[i].path, "/apis"))
			apis = &s->docs[i];
	if (!apis)
		return;
	/* copy: the set may grow (and move) while we fetch */
	char *copy = xstrndup(apis->body, apis->len);
	size_t len = apis->len;
	struct json_doc j = JSON_DOC_INIT;
	if (!copy || json_parse(&j, copy, len, NULL, 0))
		goto out;
	int groups = json_get(&j, 0, "groups");
	for (int g = json_first(&j, groups); g > 0;
	     g = json_next(&j, groups, g)) {
		int vers = json_get(&j, g, "versions");
		for (int v = json_first(&j, vers); v > 0;
		     v = json_next(&j, vers, v)) {
			int gv = json_get(&j, v, "groupVersion");
			char gvs[256], path[300];
			if (gv < 0 || json_str(&j, gv, gvs, sizeof(gvs)) < 0)
				continue;
			snprintf(path, sizeof(path), "/apis/%s", gvs);
			fetch(d, s, path, V_PLAIN);
		}
	}
out:
	json_doc_free(&j);
	free(copy);
}

static struct docset *fetch_all(struct proxy_discovery *d)
{
	struct docset *s = xcalloc(1, sizeof(*s));
	if (!s)
		return NULL;
	s->refs = 1;
	bool ok = fetch(d, s, "/version", V_PLAIN) &&
		  fetch(d, s, "/api", V_PLAIN) &&
		  fetch(d, s, "/apis", V_PLAIN) &&
		  fetch(d, s, "/api/v1", V_PLAIN);
	if (!ok) {
		set_free(s);
		return NULL;
	}
	fetch_groups(d, s);
	for (enum variant v = V_V2; v < V_COUNT; v++) {
		fetch(d, s, "/api", v);
		fetch(d, s, "/apis", v);
	}
	return s;
}

static void *run(void *arg)
{
	struct proxy_discovery *d = arg;
	int wait = 0;
	pthread_mutex_lock(&d->lock);
	while (!d->stop) {
		struct timespec ts;
		clock_gettime(CLOCK_REALTIME, &ts);
		ts.tv_sec += wait;
		while (!d->stop && wait &&
		       pthread_cond_timedwait(&d->cond, &d->lock, &ts) == 0)
			;
		if (d->stop)
			break;
		pthread_mutex_unlock(&d->lock);
		struct docset *s = fetch_all(d);
		pthread_mutex_lock(&d->lock);
		if (s) {
			struct docset *old = d->cur;
			d->cur = s;
			if (old && --old->refs == 0)
				set_free(old);
			wait = d->refresh;
		} else {
			wait = d->cur ? d->refresh :
					1; /* retry soon until the first set */
		}
	}
	pthread_mutex_unlock(&d->lock);
	return NULL;
}

struct proxy_discovery *proxy_discovery_new(const struct cache_upstream *up,
					    int refresh_seconds)
{
	struct proxy_discovery *d = xcalloc(1, sizeof(*d));
	if (!d)
		return NULL;
	d->up = up;
	d->refresh = refresh_seconds > 0 ? refresh_seconds : 60;
	pthread_mutex_init(&d->lock, NULL);
	pthread_cond_init(&d->cond, NULL);
	if (pthread_create(&d->thread, NULL, run, d)) {
		pthread_mutex_destroy(&d->lock);
		pthread_cond_destroy(&d->cond);
		free(d);
		return NULL;
	}
	return d;
}

void proxy_discovery_free(struct proxy_discovery *d)
{
	if (!d)
		return;
	pthread_mutex_lock(&d->lock);
	__atomic_store_n(&d->stop, true, __ATOMIC_RELEASE);
	pthread_cond_signal(&d->cond);
	pthread_mutex_unlock(&d->lock);
	pthread_join(d->thread, NULL);
	if (d->cur)
		set_free(d->cur);
	pthread_mutex_destroy(&d->lock);
	pthread_cond_destroy(&d->cond);
	free(d);
}

bool proxy_discovery_path(const char *url)
{
	if (!strcmp(url, "/version") || !strcmp(url, "/api") ||
	    !strcmp(url, "/apis") || !strcmp(url, "/api/v1"))
		return true;
	/* /apis/G/V */
	if (strncmp(url, "/apis/", 6))
		return false;
	const char *g = url + 6, *slash = strchr(g, '/');
	return slash && slash > g && slash[1] && !strchr(slash + 1, '/');
}

/* The variant the Accept header asks for first, among those we can give
 * for this path; V_COUNT when none. */
static enum variant negotiate(const char *accept, bool aggregatable)
{
	if (!accept || !*accept)
		return V_PLAIN;
	const char *p = accept;
	while (*p) {
		const char *end = strchr(p, ',');
		size_t n = end ? (size_t)(end - p) : strlen(p);
		char mr[512];
		size_t k = 0;
		for (size_t i = 0; i < n && k + 1 < sizeof(mr); i++)
			if (p[i] != ' ')
				mr[k++] = p[i];
		mr[k] = '\0';
		if (strstr(mr, "as=APIGroupDiscoveryList")) {
			if (aggregatable &&
			    strstr(mr, "g=apidiscovery.k8s.io")) {
				if (strstr(mr, "v=v2beta1"))
					return V_V2BETA1;
				if (strstr(mr, "v=v2;") ||
				    (strlen(mr) > 4 &&
				     !strcmp(mr + strlen(mr) - 4, "v=v2")))
					return V_V2;
			}
		} else if (!strncmp(mr, "application/json", 16) ||
			   !strncmp(mr, "*/*", 3) ||
			   !strncmp(mr, "application/*", 13)) {
			return V_PLAIN;
		}
		p += n + (end ? 1 : 0);
	}
	return V_COUNT;
}

struct held {
	struct proxy_discovery *d;
	struct docset *s;
};

static void held_free(void *cls)
{
	struct held *h = cls;
	set_put(h->d, h->s);
	free(h);
}

/* The document the request asks for, with a reference on its set in
 * *setp; NULL when there is none to give. */
static const struct doc *find(struct proxy_discovery *d,
			      struct MHD_Connection *c, const char *url,
			      struct docset **setp)
{
	const char *accept =
		MHD_lookup_connection_value(c, MHD_HEADER_KIND, "Accept");
	bool aggregatable = !strcmp(url, "/api") || !strcmp(url, "/apis");
	const char *meta_version;
	/* protobuf ranked first: the apiserver answers in protobuf, which
	 * the kept JSON documents cannot give; upstream, as sent */
	if (proxy_pb_negotiate(accept, true, &meta_version) != PROXY_PB_NONE)
		return NULL;
	enum variant v = negotiate(accept, aggregatable);
	if (v == V_COUNT || !proxy_discovery_path(url))
		return NULL;
	pthread_mutex_lock(&d->lock);
	struct docset *s = d->cur;
	const struct doc *dc = NULL;
	for (size_t i = 0; s && i < s->n; i++)
		if (s->docs[i].v == v && !strcmp(s->docs[i].path, url))
			dc = &s->docs[i];
	if (dc)
		s->refs++;
	pthread_mutex_unlock(&d->lock);
	*setp = s;
	return dc;
}

bool proxy_discovery_has(struct proxy_discovery *d, struct MHD_Connection *c,
			 const char *url)
{
	struct docset *s;
	if (!find(d, c, url, &s))
		return false;
	set_put(d, s);
	return true;
}

int proxy_discovery_serve(struct proxy_discovery *d, struct MHD_Connection *c,
			  const char *url)
{
	struct docset *s;
	const struct doc *dc = find(d, c, url, &s);
	if (!dc)
		return -1;
	enum variant v = dc->v;

	struct held *h = xmalloc(sizeof(*h));
	const char *inm = MHD_lookup_connection_value(c, MHD_HEADER_KIND,
						      "If-None-Match");
	bool not_modified = v != V_PLAIN && inm && !strcmp(inm, dc->etag);
	struct MHD_Response *resp = NULL;
	if (h) {
		h->d = d;
		h->s = s;
		resp = MHD_create_response_from_buffer_with_free_callback_cls(
			not_modified ? 0 : dc->len, dc->body, held_free, h);
	}
	if (!resp) {
		free(h);
		set_put(d, s);
		return MHD_NO;
	}
	if (v == V_PLAIN) {
		proxy_reply_json_headers(resp);
	} else {
		if (!not_modified)
			MHD_add_response_header(resp, "Content-Type",
						aggregated_type[v]);
		MHD_add_response_header(resp, "Cache-Control", "public");
		MHD_add_response_header(resp, "ETag", dc->etag);
		MHD_add_response_header(resp, "Vary", "Accept");
	}
	return proxy_reply_queue(
		c, not_modified ? MHD_HTTP_NOT_MODIFIED : MHD_HTTP_OK, resp);
}
