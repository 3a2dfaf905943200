/*
 * passthrough: requests forwarded to the upstream (see pass.h).
 *
 * A struct proxy_pt is shared by the libmicrohttpd thread serving the
 * client and the curl thread; its lock guards the fields marked "locked".
 * It is reference counted: the request (until proxy_pt_done), the
 * response (until its free callback) and the curl transfer (until it is
 * removed from the multi handle) each hold one reference.
 */
#include "proxy/pass/pass.h"
#include "proxy/route.h"

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "config/alloc.h"
#include "config/buf.h"
#include "config/histogram.h"
#include "config/limits.h"
#include "config/log.h"
#include "proxy/front/access.h"
#include "proxy/pass/forward.h"
#include "proxy/request.h"
#include "proxy/status.h"

#define HIGH_WATER (1024 * 1024) /* pause the upstream above this */
#define LOW_WATER (256 * 1024)	 /* and resume it below this */

enum pt_state {
	PT_NEW,
	PT_STARTED,
	PT_HEADERS,
	PT_DONE,
	PT_FAILED
};

struct proxy_pt {
	struct proxy_pass_pool *pool;
	struct MHD_Connection *conn;
	CURL *easy;
	struct curl_slist *hdrs;
	char *method;
	int verb; /* CONFIG_VERB_*, for the upstream histogram */
	struct buf url;
	struct buf body;     /* the request body */
	bool strip_identity; /* drop Impersonate-*, X-Remote-* ... */
	bool too_large;
	char errbuf[CURL_ERROR_SIZE];
	struct proxy_pt *next; /* pool->active, curl thread only */

	pthread_mutex_t lock;
	int refs;	      /* locked */
	enum pt_state state;  /* locked */
	long status;	      /* locked */
	int64_t length;	      /* locked; upstream Content-Length, -1 */
	struct buf resp_hdrs; /* locked; "name\0value\0" pairs */
	struct buf data;      /* locked; bytes not yet sent */
	size_t data_off;      /* locked */
	bool suspended;	      /* locked; the client connection */
	bool paused;	      /* locked; the curl transfer */
	bool want_unpause;    /* locked */
	bool gone;	      /* locked; the client went away */
};

struct proxy_pass_pool {
	const struct cache_upstream *up;
	bool lend_identity; /* a client without credentials acts as
					 * the proxy (loopback-only mode) */
	int timeout_s;	    /* non-long-running requests; 0: none */
	CURLM *multi;
	pthread_t thread;
	pthread_mutex_t lock; /* guards incoming and stop */
	struct proxy_pt *incoming;
	bool stop;
	bool stopped;		 /* main thread only */
	struct proxy_pt *active; /* curl thread only */
};

static void pt_put(struct proxy_pt *pt)
{
	pthread_mutex_lock(&pt->lock);
	int left = --pt->refs;
	pthread_mutex_unlock(&pt->lock);
	if (left)
		return;
	if (pt->easy)
		curl_easy_cleanup(pt->easy);
	curl_slist_free_all(pt->hdrs);
	free(pt->method);
	buf_free(&pt->url);
	buf_free(&pt->body);
	buf_free(&pt->resp_hdrs);
	buf_free(&pt->data);
	pthread_mutex_destroy(&pt->lock);
	free(pt);
}

/* Called with pt->lock held. */
static void resume_client(struct proxy_pt *pt)
{
	if (pt->suspended) {
		pt->suspended = false;
		MHD_resume_connection(pt->conn);
	}
}

static void wake_pool(struct proxy_pass_pool *pool)
{
	curl_multi_wakeup(pool->multi);
}

/* ---- curl thread ---- */

static size_t on_header(char *p, size_t size, size_t n, void *cls)
{
	struct proxy_pt *pt = cls;
	size_t len = size * n;
	pthread_mutex_lock(&pt->lock);
	if (len >= 5 && !strncmp(p, "HTTP/", 5)) {
		/* a new response (after a 100 Continue, say) */
		buf_reset(&pt->resp_hdrs);
		pt->length = -1;
	} else if (len <= 2) {
		long code = 0;
		curl_easy_getinfo(pt->easy, CURLINFO_RESPONSE_CODE, &code);
		if (code >= 200 && pt->state < PT_HEADERS) {
			pt->status = code;
			pt->state = PT_HEADERS;
			resume_client(pt);
		}
	} else {
		const char *colon = memchr(p, ':', len);
		if (colon) {
			size_t nl = (size_t)(colon - p);
			const char *v = colon + 1;
			size_t vl = len - nl - 1;
			while (vl && (*v == ' ' || *v == '\t')) {
				v++;
				vl--;
			}
			while (vl && (v[vl - 1] == '\r' || v[vl - 1] == '\n'))
				vl--;
			if (nl == 14 && !strncasecmp(p, "content-length", 14))
				pt->length = strtoll(v, NULL, 10);
			if (!proxy_fwd_hop_by_hop(p, nl)) {
				buf_add(&pt->resp_hdrs, p, nl);
				buf_addc(&pt->resp_hdrs, '\0');
				buf_add(&pt->resp_hdrs, v, vl);
				buf_addc(&pt->resp_hdrs, '\0');
			}
		}
	}
	pthread_mutex_unlock(&pt->lock);
	return len;
}

static size_t on_data(char *p, size_t size, size_t n, void *cls)
{
	struct proxy_pt *pt = cls;
	size_t len = size * n;
	size_t ret = len;
	pthread_mutex_lock(&pt->lock);
	if (pt->gone) {
		ret = 0; /* abort: nobody to send it to */
	} else if (pt->data.len - pt->data_off > HIGH_WATER) {
		pt->paused = true;
		ret = CURL_WRITEFUNC_PAUSE; /* curl delivers it again later */
	} else {
		if (pt->data_off > pt->data.len / 2) {
			memmove(pt->data.p, pt->data.p + pt->data_off,
				pt->data.len - pt->data_off);
			pt->data.len -= pt->data_off;
			pt->data_off = 0;
		}
		if (buf_add(&pt->data, p, len))
			ret = 0;
		resume_client(pt);
	}
	pthread_mutex_unlock(&pt->lock);
	return ret;
}

static void start(struct proxy_pass_pool *pool, struct proxy_pt *pt)
{
	CURL *c = pt->easy;
	curl_easy_setopt(c, CURLOPT_URL, pt->url.p);
	curl_easy_setopt(c, CURLOPT_HTTPHEADER, pt->hdrs);
	curl_easy_setopt(c, CURLOPT_HEADERFUNCTION, on_header);
	curl_easy_setopt(c, CURLOPT_HEADERDATA, pt);
	curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, on_data);
	curl_easy_setopt(c, CURLOPT_WRITEDATA, pt);
	curl_easy_setopt(c, CURLOPT_ERRORBUFFER, pt->errbuf);
	curl_easy_setopt(c, CURLOPT_PRIVATE, pt);
	if (!strcmp(pt->method, "HEAD"))
		curl_easy_setopt(c, CURLOPT_NOBODY, 1L);
	else if (strcmp(pt->method, "GET"))
		curl_easy_setopt(c, CURLOPT_CUSTOMREQUEST, pt->method);
	if (pt->body.len || !strcmp(pt->method, "POST") ||
	    !strcmp(pt->method, "PUT") || !strcmp(pt->method, "PATCH")) {
		curl_easy_setopt(c, CURLOPT_POSTFIELDSIZE_LARGE,
				 (curl_off_t)pt->body.len);
		curl_easy_setopt(c, CURLOPT_POSTFIELDS,
				 pt->body.p ? pt->body.p : "");
	}
	pt->next = pool->active;
	pool->active = pt;
	curl_multi_add_handle(pool->multi, c);
}

static void finish(struct proxy_pass_pool *pool, struct proxy_pt *pt,
		   CURLcode rc)
{
	long code = -1;
	double took = 0;
	if (rc == CURLE_OK)
		curl_easy_getinfo(pt->easy, CURLINFO_RESPONSE_CODE, &code);
	curl_easy_getinfo(pt->easy, CURLINFO_TOTAL_TIME, &took);
	curl_multi_remove_handle(pool->multi, pt->easy);
	for (struct proxy_pt **pp = &pool->active; *pp; pp = &(*pp)->next)
		if (*pp == pt) {
			*pp = pt->next;
			break;
		}
	pthread_mutex_lock(&pt->lock);
	/* a transfer the client cut short by leaving is not the upstream's
	 * answer; one that completed is, even if the client has already
	 * read it and gone */
	if (rc == CURLE_OK || !pt->gone)
		cache_upstream_observe(pt->verb, code, took);
	if (rc != CURLE_OK && !pt->gone) {
		char url[1024]; /* a query's secrets stay out of the log */
		proxy_access_redact(pt->url.p, url, sizeof(url));
		log_warn("passthrough %s %s: %s", pt->method, url,
			 pt->errbuf[0] ? pt->errbuf : curl_easy_strerror(rc));
	}
	pt->state = rc == CURLE_OK ? PT_DONE : PT_FAILED;
	resume_client(pt);
	pthread_mutex_unlock(&pt->lock);
	pt_put(pt); /* the transfer's reference */
}

/* A suspended connection does not notice its client leaving. Once a
 * second every waiting client is resumed; its reader suspends it again if
 * there is still nothing to send, and a closed socket ends the request,
 * which ends the upstream transfer. */
static void poke_idle(struct proxy_pass_pool *pool)
{
	/* Before the upstream's headers too (PT_STARTED): a client that gave
	 * up on a watch the upstream has not answered was otherwise never
	 * noticed, and it and its upstream connection stayed until the
	 * upstream answered (for ever, for a hung one); proxy_pt_handle
	 * checks for it there. */
	for (struct proxy_pt *pt = pool->active; pt; pt = pt->next) {
		pthread_mutex_lock(&pt->lock);
		resume_client(pt);
		pthread_mutex_unlock(&pt->lock);
	}
}

static void *run(void *arg)
{
	struct proxy_pass_pool *pool = arg;
	time_t last_poke = time(NULL);
	for (;;) {
		pthread_mutex_lock(&pool->lock);
		bool stop = pool->stop;
		struct proxy_pt *in = pool->incoming;
		pool->incoming = NULL;
		pthread_mutex_unlock(&pool->lock);
		while (in) {
			struct proxy_pt *next = in->next;
			start(pool, in);
			in = next;
		}
		/* unpause drained transfers, drop those whose client left */
		for (struct proxy_pt *pt = pool->active, *next; pt; pt = next) {
			next = pt->next;
			pthread_mutex_lock(&pt->lock);
			bool gone = pt->gone, unpause = pt->want_unpause;
			pt->want_unpause = false;
			if (unpause)
				pt->paused = false;
			pthread_mutex_unlock(&pt->lock);
			if (gone || stop)
				finish(pool, pt, CURLE_ABORTED_BY_CALLBACK);
			else if (unpause)
				curl_easy_pause(pt->easy, CURLPAUSE_CONT);
		}
		if (stop)
			break;
		int running;
		curl_multi_perform(pool->multi, &running);
		CURLMsg *m;
		int left;
		while ((m = curl_multi_info_read(pool->multi, &left))) {
			if (m->msg != CURLMSG_DONE)
				continue;
			struct proxy_pt *pt;
			curl_easy_getinfo(m->easy_handle, CURLINFO_PRIVATE,
					  (char **)&pt);
			finish(pool, pt, m->data.result);
		}
		if (time(NULL) != last_poke) {
			last_poke = time(NULL);
			poke_idle(pool);
		}
		curl_multi_poll(pool->multi, NULL, 0, 1000, NULL);
	}
	return NULL;
}

struct proxy_pass_pool *proxy_pt_pool_new(const struct cache_upstream *up,
					  bool lend_identity, int timeout_s)
{
	struct proxy_pass_pool *pool = xcalloc(1, sizeof(*pool));
	if (!pool)
		return NULL;
	pool->up = up;
	pool->lend_identity = lend_identity;
	pool->timeout_s = timeout_s;
	pool->multi = curl_multi_init();
	pthread_mutex_init(&pool->lock, NULL);
	if (!pool->multi || pthread_create(&pool->thread, NULL, run, pool)) {
		if (pool->multi)
			curl_multi_cleanup(pool->multi);
		pthread_mutex_destroy(&pool->lock);
		free(pool);
		return NULL;
	}
	return pool;
}

void proxy_pt_pool_stop(struct proxy_pass_pool *pool)
{
	if (!pool || pool->stopped)
		return;
	pthread_mutex_lock(&pool->lock);
	pool->stop = true;
	pthread_mutex_unlock(&pool->lock);
	wake_pool(pool);
	pthread_join(pool->thread, NULL);
	pool->stopped = true;
}

void proxy_pt_pool_free(struct proxy_pass_pool *pool)
{
	if (!pool)
		return;
	proxy_pt_pool_stop(pool);
	curl_multi_cleanup(pool->multi);
	pthread_mutex_destroy(&pool->lock);
	free(pool);
}

/* ---- libmicrohttpd side ---- */

static ssize_t pt_read(void *cls, uint64_t pos, char *out, size_t max)
{
	struct proxy_pt *pt = cls;
	ssize_t n;
	pthread_mutex_lock(&pt->lock);
	size_t avail = pt->data.len - pt->data_off;
	if (avail) {
		n = (ssize_t)(avail < max ? avail : max);
		memcpy(out, pt->data.p + pt->data_off, (size_t)n);
		pt->data_off += (size_t)n;
		if (pt->paused && pt->data.len - pt->data_off < LOW_WATER &&
		    !pt->want_unpause) {
			pt->want_unpause = true;
			wake_pool(pt->pool);
		}
	} else if (pt->state == PT_DONE) {
		n = MHD_CONTENT_READER_END_OF_STREAM;
	} else if (pt->state == PT_FAILED || proxy_client_gone(pt->conn)) {
		n = MHD_CONTENT_READER_END_WITH_ERROR;
	} else {
		pt->suspended = true;
		MHD_suspend_connection(pt->conn);
		n = 0;
	}
	pthread_mutex_unlock(&pt->lock);
	return n;
}

static void pt_response_free(void *cls)
{
	struct proxy_pt *pt = cls;
	pthread_mutex_lock(&pt->lock);
	pt->gone = pt->state < PT_DONE;
	pthread_mutex_unlock(&pt->lock);
	wake_pool(pt->pool);
	pt_put(pt);
}

static enum MHD_Result add_header(void *cls, enum MHD_ValueKind kind,
				  const char *key, const char *value)
{
	struct proxy_pt *pt = cls;
	if (value && !proxy_fwd_header(key, pt->strip_identity, false))
		return MHD_YES;
	struct buf h = BUF_INIT;
	/* "Name:" with nothing after it tells libcurl to send no such header */
	buf_printf(&h, "%s:%s%s", key, value ? " " : "", value ? value : "");
	if (buf_ok(&h)) {
		struct curl_slist *l = curl_slist_append(pt->hdrs, h.p);
		if (l)
			pt->hdrs = l;
	}
	buf_free(&h);
	return MHD_YES;
}

/* The apiserver's long-running requests, which its request timeout
 * spares: watches (?watch or /watch/), ?follow logs, and the exec,
 * attach, portforward and proxy subresources. */
static bool long_running(struct MHD_Connection *c, const char *target)
{
	const char *w =
		MHD_lookup_connection_value(c, MHD_GET_ARGUMENT_KIND, "watch");
	const char *f =
		MHD_lookup_connection_value(c, MHD_GET_ARGUMENT_KIND, "follow");
	if (proxy_route_watch_value(w) ||
	    (f && (!strcasecmp(f, "true") || !strcmp(f, "1"))))
		return true;
	size_t n = strcspn(target, "?");
	static const char *const subs[] = { "/exec", "/attach", "/portforward",
					    "/proxy" };
	for (size_t i = 0; i < sizeof(subs) / sizeof(subs[0]); i++) {
		size_t l = strlen(subs[i]);
		if (n >= l && !strncmp(target + n - l, subs[i], l))
			return true;
	}
	return strstr(target, "/watch/") || strstr(target, "/proxy/");
}

int proxy_pt_verb(const char *target, const char *method,
		  struct MHD_Connection *c)
{
	char path[1024];
	size_t n = strcspn(target, "?");
	if (n >= sizeof(path))
		n = sizeof(path) - 1;
	memcpy(path, target, n);
	path[n] = '\0';
	struct proxy_route rt;
	bool res = !proxy_route_parse(path, &rt);
	const char *w = c ? MHD_lookup_connection_value(
				    c, MHD_GET_ARGUMENT_KIND, "watch") :
			    NULL;
	bool watch =
		res && ((w && proxy_route_watch_value(w)) || rt.watch_prefix);
	return config_histogram_verb_slot(method, !res || rt.name[0], watch);
}

static struct proxy_pt *pt_new(struct proxy_pass_pool *pool,
			       struct MHD_Connection *c, const char *target,
			       const char *method)
{
	struct proxy_pt *pt = xcalloc(1, sizeof(*pt));
	if (!pt)
		return NULL;
	pthread_mutex_init(&pt->lock, NULL);
	pt->pool = pool;
	pt->conn = c;
	pt->refs = 1; /* the request's */
	pt->length = -1;
	pt->method = xstrdup(method);
	pt->verb = proxy_pt_verb(target, method, c);
	char err[256];
	/* Who the upstream sees: forward.h's rules, upgrade.c's too */
	struct proxy_fwd_who who = proxy_fwd_who(c, pool->lend_identity);
	pt->strip_identity = who.strip_identity;
	pt->easy = cache_upstream_easy(pool->up, err, sizeof(err));
	if (pt->easy && cache_upstream_prepare(pool->up, pt->easy, who.as_proxy,
					       &pt->hdrs, err, sizeof(err))) {
		log_warn("passthrough: %s", err);
		curl_easy_cleanup(pt->easy);
		pt->easy = NULL;
	}
	/* The target as the client sent it, checked by target.c: an
	 * origin-form path whose encoding libcurl must keep as it is. */
	buf_printf(&pt->url, "%s%s", pool->up->server, target);
	if (pt->easy)
		curl_easy_setopt(pt->easy, CURLOPT_PATH_AS_IS, 1L);
	/* A request the apiserver itself would time out (every one but a
	 * watch, a followed log, exec, attach, port-forward or proxy) gets
	 * the same bound here, so a silent upstream cannot hold clients and
	 * their upstream connections for ever. */
	if (pt->easy && pool->timeout_s > 0 && !long_running(c, target))
		curl_easy_setopt(pt->easy, CURLOPT_TIMEOUT,
				 (long)pool->timeout_s);
	MHD_get_connection_values(c, MHD_HEADER_KIND, add_header, pt);
	/* Pass the request on as it came: no Content-Type libcurl would add
	 * for a body the client sent without one, no Expect: 100-continue. */
	if (!MHD_lookup_connection_value(c, MHD_HEADER_KIND, "Content-Type"))
		add_header(pt, MHD_HEADER_KIND, "Content-Type", NULL);
	add_header(pt, MHD_HEADER_KIND, "Expect", NULL);
	if (!pt->method || !pt->easy || !buf_ok(&pt->url)) {
		pt_put(pt);
		return NULL;
	}
	return pt;
}

static enum MHD_Result respond(struct proxy_pt *pt, struct MHD_Connection *c)
{
	pthread_mutex_lock(&pt->lock);
	enum pt_state st = pt->state;
	long status = pt->status;
	int64_t length = pt->length;
	pthread_mutex_unlock(&pt->lock);
	if (st == PT_FAILED && status == 0) {
		struct proxy_status s = {
			.reason = PROXY_ServiceUnavailable,
			.message =
				"the upstream apiserver could not be reached",
			.retry_after = 1,
		};
		return proxy_status_send(c, &s);
	}
	bool head = !strcmp(pt->method, "HEAD");
	struct MHD_Response *resp = MHD_create_response_from_callback(
		length >= 0 && !head ? (uint64_t)length : MHD_SIZE_UNKNOWN,
		32 * 1024, pt_read, pt, pt_response_free);
	if (!resp)
		return MHD_NO;
	pthread_mutex_lock(&pt->lock);
	pt->refs++; /* the response's */
	for (size_t i = 0; i < pt->resp_hdrs.len;) {
		const char *k = pt->resp_hdrs.p + i;
		const char *v = k + strlen(k) + 1;
		MHD_add_response_header(resp, k, v);
		i = (size_t)(v - pt->resp_hdrs.p) + strlen(v) + 1;
	}
	pthread_mutex_unlock(&pt->lock);
	return proxy_request_queue(c, (unsigned)status, resp);
}

enum MHD_Result proxy_pt_handle(struct proxy_pass_pool *pool,
				struct MHD_Connection *c, const char *target,
				const char *method, const char *upload,
				size_t *upload_size, struct proxy_pt **state)
{
	struct proxy_pt *pt = *state;
	if (!pt) {
		pt = pt_new(pool, c, target, method);
		if (!pt) /* out of memory, or credentials that cannot be used */
			return proxy_error(
				c, PROXY_ServiceUnavailable,
				"informer-proxy cannot forward this request to the "
				"upstream now (see its log)");
		*state = pt;
		return MHD_YES;
	}
	if (*upload_size) {
		if (pt->body.len + *upload_size > LIMIT_REQUEST_BODY_BYTES)
			pt->too_large = true;
		else if (buf_add(&pt->body, upload, *upload_size))
			return MHD_NO;
		*upload_size = 0;
		return MHD_YES;
	}
	if (pt->too_large)
		return proxy_error(c, PROXY_BadRequest,
				   "the request body is larger than %d bytes",
				   LIMIT_REQUEST_BODY_BYTES);
	pthread_mutex_lock(&pt->lock);
	enum pt_state st = pt->state;
	if (st == PT_NEW) {
		/* Hand it to the curl thread, unless that is shutting down:
		 * a connection left suspended would outlive the daemon. */
		pthread_mutex_lock(&pool->lock);
		bool stop = pool->stop;
		if (!stop) {
			pt->state = PT_STARTED;
			pt->refs++; /* the transfer's */
			pt->suspended = true;
			MHD_suspend_connection(c);
			pt->next = pool->incoming;
			pool->incoming = pt;
		}
		pthread_mutex_unlock(&pool->lock);
		pthread_mutex_unlock(&pt->lock);
		if (stop)
			return proxy_error(c, PROXY_ServiceUnavailable,
					   "informer-proxy is shutting down");
		wake_pool(pool);
		return MHD_YES;
	}
	if (st == PT_STARTED) { /* resumed early; wait on */
		if (proxy_client_gone(c)) {
			/* poked by poke_idle(): the client left, close it;
			 * proxy_pt_done() then ends the upstream transfer */
			pthread_mutex_unlock(&pt->lock);
			return MHD_NO;
		}
		pt->suspended = true;
		MHD_suspend_connection(c);
		pthread_mutex_unlock(&pt->lock);
		return MHD_YES;
	}
	pthread_mutex_unlock(&pt->lock);
	return respond(pt, c);
}

void proxy_pt_done(struct proxy_pt *pt)
{
	if (!pt)
		return;
	pthread_mutex_lock(&pt->lock);
	if (pt->state < PT_DONE)
		pt->gone = true;
	pthread_mutex_unlock(&pt->lock);
	wake_pool(pt->pool);
	pt_put(pt);
}
