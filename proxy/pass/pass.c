/*
 * pass: passthrough, requests forwarded to the upstream (see pass.h).
 *
 * A struct proxy_pass is shared by the libmicrohttpd thread serving the
 * client and the curl thread; its lock guards the fields marked "locked".
 * It is reference counted: the request (until proxy_pass_done), the
 * response (until its free callback) and the curl transfer (until it is
 * removed from the multi handle) each hold one reference.
 */
#include "proxy/pass/pass.h"
#include "proxy/reply.h"
#include "proxy/front/reqinfo.h"
#include "proxy/route.h"

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "cache/scope.h"
#include "config/alloc.h"
#include "config/buf.h"
#include "config/histogram.h"
#include "config/limits.h"
#include "config/log.h"
#include "proxy/front/access.h"
#include "proxy/metrics.h"
#include "proxy/pass/credpool.h"
#include "proxy/pass/forward.h"
#include "proxy/pass/retry.h"
#include "proxy/request.h"
#include "proxy/status.h"

#define HIGH_WATER (1024 * 1024) /* pause the upstream above this */
#define LOW_WATER (256 * 1024)	 /* and resume it below this */
/* What one request body may hold here at a time: the client is read no
 * further (its connection suspended) while this much waits for libcurl. */
#define UPLOAD_BUF LIMIT_REQUEST_BODY_BUFFER
/* An answer that is not long running is sent to the client only once it
 * is whole or this much of it is in: a failure before then is answered
 * with a Status, never with a body cut short. */
#define HOLD_BYTES (64 * 1024)

enum pass_state {
	PASS_NEW,
	PASS_STARTED,
	PASS_HEADERS,
	PASS_DONE,
	PASS_FAILED
};

struct proxy_pass {
	struct proxy_pass_pool *pool;
	struct MHD_Connection *conn;
	CURL *easy;
	struct curl_slist *hdrs;
	char *method;
	int verb; /* CONFIG_VERB_*, for the upstream histogram */
	struct buf url;
	bool strip_identity; /* drop Impersonate-*, X-Remote-* ... */
	bool has_body;	     /* a Content-Length above 0, or chunked */
	int64_t body_length; /* the client's Content-Length; -1: chunked */
	int64_t body_seen;   /* bytes of it taken from libmicrohttpd */
	bool too_large;	     /* a chunked body past the limit */
	bool watch;	     /* a watch: ended at an event's end on drain */
	bool shape;	     /* a read given the cache's shape (strip) */
	struct cache_scope scope;      /* its strip paths, owned */
	bool strip_managed;	       /* and metadata.managedFields */
	bool hold;		       /* not long running: held (HOLD_BYTES) */
	bool idempotency_key;	       /* (X-)Idempotency-Key: may be retried */
	struct proxy_credpool_key key; /* whose connections it may use */
	CURLSH *share;		       /* curl thread; its pool's, or NULL */
	bool retried;		       /* curl thread; sent a second time */
	char errbuf[CURL_ERROR_SIZE];
	struct proxy_pass *next; /* pool->active, curl thread only */

	pthread_mutex_t lock;
	int refs;	       /* locked */
	enum pass_state state; /* locked */
	long status;	       /* locked */
	int64_t length;	       /* locked; upstream Content-Length, -1 */
	struct buf resp_hdrs;  /* locked; "name\0value\0" pairs */
	struct buf data;       /* locked; bytes not yet sent */
	size_t data_off;       /* locked */
	bool suspended;	       /* locked; the client connection */
	bool paused;	       /* locked; the curl transfer */
	bool want_unpause;     /* locked */
	bool gone;	       /* locked; the client went away */
	/* the request body on its way up, at most UPLOAD_BUF */
	struct buf up;	      /* locked; bytes libcurl has not read */
	size_t up_off;	      /* locked */
	bool up_done;	      /* locked; the client sent all of it */
	bool up_read;	      /* locked; libcurl has read some */
	bool up_paused;	      /* locked; the curl transfer's sending */
	bool want_up_unpause; /* locked */
	bool reserved;	      /* locked; UPLOAD_BUF of the pool's budget */
	bool over;	      /* locked; a shaped answer past its bound */
	/* where the bytes sent so far end, for ending a watch cleanly */
	bool proto;	     /* locked; protobuf frames, not JSON lines */
	bool encoded;	     /* locked; compressed: no event ends known */
	bool mid_event;	     /* locked; the last event is partly sent */
	unsigned frame_hdr;  /* locked; protobuf: length bytes seen */
	uint32_t frame_len;  /* locked; protobuf: the length so far */
	uint64_t frame_left; /* locked; protobuf: its bytes still due */
};


struct proxy_pass_pool {
	const struct cache_upstream *up;
	bool lend_identity; /* a client without credentials acts as
					 * the proxy (loopback-only mode) */
	int timeout_s;	    /* non-long-running requests; 0: none */
	int64_t max_body;   /* bytes of one request body */
	size_t held;	    /* atomic; UPLOAD_BUF for each body in flight */
	CURLM *multi;
	pthread_t thread;
	pthread_mutex_t lock; /* guards incoming and stop */
	struct proxy_pass *incoming;
	bool stop;
	bool stopped;		      /* main thread only */
	bool ending;		      /* atomic; the drain: watches end */
	struct proxy_pass *active;    /* curl thread only */
	struct proxy_credpool *creds; /* curl thread only: a pool of
				       * connections per credential */
};

/* The most of a shaped answer read whole (proxy_pass_shape). */
static size_t shape_max(const struct proxy_pass_pool *pool)
{
	return pool->up->page_max ? pool->up->page_max :
				    LIMIT_UPSTREAM_PAGE_BYTES;
}

static void pass_put(struct proxy_pass *pass)
{
	pthread_mutex_lock(&pass->lock);
	int left = --pass->refs;
	pthread_mutex_unlock(&pass->lock);
	if (left)
		return;
	if (pass->easy)
		curl_easy_cleanup(pass->easy);
	curl_slist_free_all(pass->hdrs);
	free(pass->method);
	buf_free(&pass->url);
	buf_free(&pass->up);
	if (pass->reserved)
		__atomic_sub_fetch(&pass->pool->held, UPLOAD_BUF,
				   __ATOMIC_RELAXED);
	buf_free(&pass->resp_hdrs);
	buf_free(&pass->data);
	cache_scope_free(&pass->scope);
	pthread_mutex_destroy(&pass->lock);
	free(pass);
}

/* Called with pass->lock held. */
static void resume_client(struct proxy_pass *pass)
{
	if (pass->suspended) {
		pass->suspended = false;
		MHD_resume_connection(pass->conn);
	}
}

static void wake_pool(struct proxy_pass_pool *pool)
{
	curl_multi_wakeup(pool->multi);
}

static int64_t now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* ---- curl thread ---- */

static size_t on_header(char *p, size_t size, size_t n, void *cls)
{
	struct proxy_pass *pass = cls;
	size_t len = size * n;
	pthread_mutex_lock(&pass->lock);
	if (len >= 5 && !strncmp(p, "HTTP/", 5)) {
		/* a new response (after a 100 Continue, say) */
		buf_reset(&pass->resp_hdrs);
		pass->length = -1;
		pass->proto = pass->encoded = false;
	} else if (len <= 2) {
		long code = 0;
		curl_easy_getinfo(pass->easy, CURLINFO_RESPONSE_CODE, &code);
		if (code >= 200 && pass->state < PASS_HEADERS) {
			pass->status = code;
			pass->state = PASS_HEADERS;
			resume_client(pass);
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
				pass->length = strtoll(v, NULL, 10);
			if (nl == 12 && !strncasecmp(p, "content-type", 12))
				pass->proto = memmem(v, vl, "protobuf", 8);
			if (nl == 16 &&
			    !strncasecmp(p, "content-encoding", 16) &&
			    !(vl == 8 && !strncasecmp(v, "identity", 8)))
				pass->encoded = true;
			if (proxy_forward_answer_kept(p, nl)) {
				buf_add(&pass->resp_hdrs, p, nl);
				buf_addc(&pass->resp_hdrs, '\0');
				buf_add(&pass->resp_hdrs, v, vl);
				buf_addc(&pass->resp_hdrs, '\0');
			}
		}
	}
	pthread_mutex_unlock(&pass->lock);
	return len;
}

static size_t on_data(char *p, size_t size, size_t n, void *cls)
{
	struct proxy_pass *pass = cls;
	size_t len = size * n;
	size_t ret = len;
	pthread_mutex_lock(&pass->lock);
	if (pass->gone) {
		ret = 0; /* abort: nobody to send it to */
	} else if (pass->shape) {
		/* read whole, to be shaped at its end: bounded as one page
		 * of the reflector's LIST is */
		if (pass->data.len + len > shape_max(pass->pool)) {
			pass->over = true;
			ret = 0;
		} else if (buf_add(&pass->data, p, len)) {
			ret = 0;
		}
	} else if (pass->data.len - pass->data_off > HIGH_WATER) {
		pass->paused = true;
		ret = CURL_WRITEFUNC_PAUSE; /* curl delivers it again later */
	} else {
		if (pass->data_off > pass->data.len / 2) {
			memmove(pass->data.p, pass->data.p + pass->data_off,
				pass->data.len - pass->data_off);
			pass->data.len -= pass->data_off;
			pass->data_off = 0;
		}
		if (buf_add(&pass->data, p, len))
			ret = 0;
		resume_client(pass);
	}
	pthread_mutex_unlock(&pass->lock);
	return ret;
}

/* libcurl takes the request body from pass->up as the client's bytes
 * come in: none yet pauses the sending (the request thread asks for it
 * to go on, through want_up_unpause), and each read makes room, so the
 * client's connection, suspended while the buffer was full, is resumed. */
static size_t on_read(char *out, size_t size, size_t n, void *cls)
{
	struct proxy_pass *pass = cls;
	size_t max = size * n, ret;
	pthread_mutex_lock(&pass->lock);
	size_t avail = pass->up.len - pass->up_off;
	if (pass->gone || pass->too_large) {
		ret = CURL_READFUNC_ABORT;
	} else if (avail) {
		ret = avail < max ? avail : max;
		memcpy(out, pass->up.p + pass->up_off, ret);
		pass->up_off += ret;
		pass->up_read = true;
		if (pass->up_off == pass->up.len) {
			buf_reset(&pass->up);
			pass->up_off = 0;
		}
		resume_client(pass);
	} else if (pass->up_done) {
		ret = 0; /* the end of the body */
	} else {
		pass->up_paused = true;
		ret = CURL_READFUNC_PAUSE;
	}
	pthread_mutex_unlock(&pass->lock);
	return ret;
}

/* libcurl rewinds a body to send the request again on a fresh
 * connection (a kept-alive one the upstream had closed): possible only
 * before any of it was read, as nothing read is kept. */
static int on_seek(void *cls, curl_off_t offset, int origin)
{
	struct proxy_pass *pass = cls;
	pthread_mutex_lock(&pass->lock);
	bool can = offset == 0 && origin == SEEK_SET && !pass->up_read;
	pthread_mutex_unlock(&pass->lock);
	return can ? CURL_SEEKFUNC_OK : CURL_SEEKFUNC_CANTSEEK;
}

static void start(struct proxy_pass_pool *pool, struct proxy_pass *pass)
{
	CURL *c = pass->easy;
	curl_easy_setopt(c, CURLOPT_URL, pass->url.p);
	curl_easy_setopt(c, CURLOPT_HTTPHEADER, pass->hdrs);
	curl_easy_setopt(c, CURLOPT_HEADERFUNCTION, on_header);
	curl_easy_setopt(c, CURLOPT_HEADERDATA, pass);
	curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, on_data);
	curl_easy_setopt(c, CURLOPT_WRITEDATA, pass);
	curl_easy_setopt(c, CURLOPT_ERRORBUFFER, pass->errbuf);
	curl_easy_setopt(c, CURLOPT_PRIVATE, pass);
	if (!strcmp(pass->method, "HEAD"))
		curl_easy_setopt(c, CURLOPT_NOBODY, 1L);
	else if (strcmp(pass->method, "POST"))
		curl_easy_setopt(c, CURLOPT_CUSTOMREQUEST, pass->method);
	if (pass->has_body) {
		/* streamed as it comes: its Content-Length, or chunked
		 * (size -1) as the client sent it */
		curl_easy_setopt(c, CURLOPT_POST, 1L);
		curl_easy_setopt(c, CURLOPT_POSTFIELDSIZE_LARGE,
				 (curl_off_t)pass->body_length);
		curl_easy_setopt(c, CURLOPT_READFUNCTION, on_read);
		curl_easy_setopt(c, CURLOPT_READDATA, pass);
		curl_easy_setopt(c, CURLOPT_SEEKFUNCTION, on_seek);
		curl_easy_setopt(c, CURLOPT_SEEKDATA, pass);
	} else if (!strcmp(pass->method, "POST") ||
		   !strcmp(pass->method, "PUT") ||
		   !strcmp(pass->method, "PATCH")) {
		curl_easy_setopt(c, CURLOPT_POSTFIELDSIZE_LARGE, (curl_off_t)0);
		curl_easy_setopt(c, CURLOPT_POSTFIELDS, "");
	}
	/* Whose connections: the pool of its credentials, or, when every
	 * pool is in use, one of its own that nobody else will use. */
	pass->share = proxy_credpool_take(pool->creds, &pass->key, now_ms());
	if (pass->share) {
		curl_easy_setopt(c, CURLOPT_SHARE, pass->share);
	} else {
		PROXY_COUNT(pass_own_conns);
		curl_easy_setopt(c, CURLOPT_FRESH_CONNECT, 1L);
		curl_easy_setopt(c, CURLOPT_FORBID_REUSE, 1L);
	}
	pass->next = pool->active;
	pool->active = pass;
	curl_multi_add_handle(pool->multi, c);
}

/* Whether the failed transfer of pass is sent again (retry.h): then it
 * goes once more, on a fresh connection of its pool, as if new. The curl
 * thread, pass removed from the multi handle. */
static bool retry(struct proxy_pass_pool *pool, struct proxy_pass *pass,
		  CURLcode rc)
{
	long conns = 1, sent = 0;
	curl_easy_getinfo(pass->easy, CURLINFO_NUM_CONNECTS, &conns);
	curl_easy_getinfo(pass->easy, CURLINFO_REQUEST_SIZE, &sent);
	pthread_mutex_lock(&pass->lock);
	struct proxy_retry_case rc_case = {
		.method = pass->method,
		.idempotency_key = pass->idempotency_key,
		.body_read = pass->up_read,
		.answered = pass->state >= PASS_HEADERS ||
			    pass->resp_hdrs.len || pass->data.len,
		.reused = conns == 0,
		.sent = sent > 0,
		.retried = pass->retried,
		.curl_code = (int)rc,
	};
	bool again =
		!pass->gone && !pass->too_large && proxy_retry_ok(&rc_case);
	if (again) {
		pass->retried = true;
		buf_reset(&pass->resp_hdrs);
		pass->length = -1;
		pass->proto = pass->encoded = false;
		pass->errbuf[0] = '\0';
	}
	pthread_mutex_unlock(&pass->lock);
	if (!again)
		return false;
	PROXY_COUNT(pass_retries);
	curl_easy_setopt(pass->easy, CURLOPT_FRESH_CONNECT, 1L);
	if (curl_multi_add_handle(pool->multi, pass->easy) != CURLM_OK)
		return false;
	return true;
}

static void finish(struct proxy_pass_pool *pool, struct proxy_pass *pass,
		   CURLcode rc)
{
	long code = -1;
	double took = 0;
	if (rc == CURLE_OK)
		curl_easy_getinfo(pass->easy, CURLINFO_RESPONSE_CODE, &code);
	curl_easy_getinfo(pass->easy, CURLINFO_TOTAL_TIME, &took);
	curl_multi_remove_handle(pool->multi, pass->easy);
	if (rc != CURLE_OK && retry(pool, pass, rc))
		return; /* still active, on a fresh connection */
	/* the share is this thread's alone: the handle lets go of it here,
	 * whichever thread frees it */
	if (pass->share) {
		curl_easy_setopt(pass->easy, CURLOPT_SHARE, NULL);
		proxy_credpool_put(pool->creds, pass->share, now_ms());
		pass->share = NULL;
	}
	for (struct proxy_pass **pp = &pool->active; *pp; pp = &(*pp)->next)
		if (*pp == pass) {
			*pp = pass->next;
			break;
		}
	pthread_mutex_lock(&pass->lock);
	/* a transfer the client cut short by leaving is not the upstream's
	 * answer; one that completed is, even if the client has already
	 * read it and gone */
	if (rc == CURLE_OK || !pass->gone)
		cache_upstream_observe(pass->verb, code, took);
	if (rc != CURLE_OK && !pass->gone) {
		char url[1024]; /* a query's secrets stay out of the log */
		proxy_access_redact(pass->url.p, url, sizeof(url));
		log_warn("passthrough %s %s: %s", pass->method, url,
			 pass->errbuf[0] ? pass->errbuf :
					   curl_easy_strerror(rc));
	}
	pass->state = rc == CURLE_OK ? PASS_DONE : PASS_FAILED;
	resume_client(pass);
	pthread_mutex_unlock(&pass->lock);
	pass_put(pass); /* the transfer's reference */
}

/* A suspended connection does not notice its client leaving. Once a
 * second every waiting client is resumed; its reader suspends it again if
 * there is still nothing to send, and a closed socket ends the request,
 * which ends the upstream transfer. */
static void poke_idle(struct proxy_pass_pool *pool)
{
	/* Before the upstream's headers too (PASS_STARTED): a client that gave
	 * up on a watch the upstream has not answered was otherwise never
	 * noticed, and it and its upstream connection stayed until the
	 * upstream answered (for ever, for a hung one); proxy_pass_handle
	 * checks for it there. */
	for (struct proxy_pass *pass = pool->active; pass; pass = pass->next) {
		pthread_mutex_lock(&pass->lock);
		resume_client(pass);
		pthread_mutex_unlock(&pass->lock);
	}
}

static void *run(void *arg)
{
	struct proxy_pass_pool *pool = arg;
	time_t last_poke = time(NULL);
	bool ended = false;
	for (;;) {
		/* the drain: every waiting reader looks again, and a watch
		 * between two events ends there */
		if (!ended &&
		    __atomic_load_n(&pool->ending, __ATOMIC_ACQUIRE)) {
			ended = true;
			poke_idle(pool);
		}
		pthread_mutex_lock(&pool->lock);
		bool stop = pool->stop;
		struct proxy_pass *in = pool->incoming;
		pool->incoming = NULL;
		pthread_mutex_unlock(&pool->lock);
		while (in) {
			struct proxy_pass *next = in->next;
			start(pool, in);
			in = next;
		}
		/* unpause drained transfers and those with body bytes to
		 * send, drop those whose client left */
		for (struct proxy_pass *pass = pool->active, *next; pass;
		     pass = next) {
			next = pass->next;
			pthread_mutex_lock(&pass->lock);
			bool gone = pass->gone || pass->too_large;
			bool unpause =
				pass->want_unpause || pass->want_up_unpause;
			if (pass->want_unpause)
				pass->paused = false;
			if (pass->want_up_unpause)
				pass->up_paused = false;
			pass->want_unpause = pass->want_up_unpause = false;
			/* only this thread's callbacks pause: what stays
			 * paused is known here */
			int still = (pass->paused ? CURLPAUSE_RECV : 0) |
				    (pass->up_paused ? CURLPAUSE_SEND : 0);
			pthread_mutex_unlock(&pass->lock);
			if (gone || stop)
				finish(pool, pass, CURLE_ABORTED_BY_CALLBACK);
			else if (unpause)
				curl_easy_pause(pass->easy, still);
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
			struct proxy_pass *pass;
			curl_easy_getinfo(m->easy_handle, CURLINFO_PRIVATE,
					  (char **)&pass);
			finish(pool, pass, m->data.result);
		}
		if (time(NULL) != last_poke) {
			last_poke = time(NULL);
			poke_idle(pool);
			proxy_credpool_sweep(pool->creds, now_ms());
		}
		curl_multi_poll(pool->multi, NULL, 0, 1000, NULL);
	}
	return NULL;
}

struct proxy_pass_pool *proxy_pass_pool_new(const struct cache_upstream *up,
					    bool lend_identity, int timeout_s)
{
	struct proxy_pass_pool *pool = xcalloc(1, sizeof(*pool));
	if (!pool)
		return NULL;
	pool->up = up;
	pool->lend_identity = lend_identity;
	pool->timeout_s = timeout_s;
	pool->max_body = LIMIT_REQUEST_BODY_BYTES;
	pool->multi = curl_multi_init();
	pool->creds = proxy_credpool_new(
		LIMIT_PASS_POOLS, (int64_t)LIMIT_PASS_POOL_IDLE_S * 1000);
	pthread_mutex_init(&pool->lock, NULL);
	/* the idle connections each credential's pool keeps */
	if (pool->multi)
		curl_multi_setopt(pool->multi, CURLMOPT_MAXCONNECTS,
				  (long)LIMIT_PASS_POOL_IDLE_CONNS);
	if (!pool->multi || !pool->creds ||
	    pthread_create(&pool->thread, NULL, run, pool)) {
		if (pool->multi)
			curl_multi_cleanup(pool->multi);
		proxy_credpool_free(pool->creds);
		pthread_mutex_destroy(&pool->lock);
		free(pool);
		return NULL;
	}
	return pool;
}

void proxy_pass_pool_set_max_body(struct proxy_pass_pool *pool,
				  int64_t max_body)
{
	pool->max_body = max_body;
}

void proxy_pass_pool_end_watches(struct proxy_pass_pool *pool)
{
	if (!pool)
		return;
	__atomic_store_n(&pool->ending, true, __ATOMIC_RELEASE);
	wake_pool(pool);
}

void proxy_pass_pool_stop(struct proxy_pass_pool *pool)
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

void proxy_pass_pool_free(struct proxy_pass_pool *pool)
{
	if (!pool)
		return;
	proxy_pass_pool_stop(pool);
	/* every transfer has let go of its pool (finish()) */
	proxy_credpool_free(pool->creds);
	curl_multi_cleanup(pool->multi);
	pthread_mutex_destroy(&pool->lock);
	free(pool);
}

/* ---- libmicrohttpd side ---- */

/* How a watch stream's events end, so that the drain can end it between
 * two: each JSON event with a newline; each protobuf frame after its
 * 4-byte big-endian length and that many bytes; a compressed stream
 * nowhere known (it ends only where nothing was sent). The tracker is
 * moved over the n bytes at p about to be sent, or, with stop, only up
 * to the end of the event under way: how many bytes that is. Called
 * with pass->lock held. */
static size_t frame_walk(struct proxy_pass *pass, const char *p, size_t n,
			 bool stop)
{
	if (!n)
		return 0;
	if (pass->encoded) {
		pass->mid_event = true;
		return n;
	}
	if (!pass->proto) {
		const char *nl = stop ? memchr(p, '\n', n) : NULL;
		if (nl) {
			pass->mid_event = false;
			return (size_t)(nl - p) + 1;
		}
		pass->mid_event = p[n - 1] != '\n';
		return n;
	}
	size_t i = 0;
	while (i < n) {
		if (pass->frame_left) {
			size_t k = n - i;
			if (k > pass->frame_left)
				k = (size_t)pass->frame_left;
			i += k;
			pass->frame_left -= k;
		} else {
			pass->frame_len =
				pass->frame_len << 8 | (unsigned char)p[i++];
			if (++pass->frame_hdr < 4)
				continue;
			pass->frame_left = pass->frame_len;
			pass->frame_hdr = 0;
			pass->frame_len = 0;
		}
		if (stop && !pass->frame_left && !pass->frame_hdr)
			break;
	}
	pass->mid_event = pass->frame_left || pass->frame_hdr;
	return i;
}

static ssize_t pass_read(void *cls, uint64_t pos, char *out, size_t max)
{
	struct proxy_pass *pass = cls;
	ssize_t n;
	pthread_mutex_lock(&pass->lock);
	size_t avail = pass->data.len - pass->data_off;
	/* Draining: a watch ends, as the cache's own do, at the end of the
	 * event under way (its bytes still due are sent first). */
	bool ending = pass->watch &&
		      __atomic_load_n(&pass->pool->ending, __ATOMIC_ACQUIRE);
	if (ending && !pass->mid_event) {
		n = MHD_CONTENT_READER_END_OF_STREAM;
	} else if (avail) {
		n = (ssize_t)frame_walk(pass, pass->data.p + pass->data_off,
					avail < max ? avail : max, ending);
		memcpy(out, pass->data.p + pass->data_off, (size_t)n);
		pass->data_off += (size_t)n;
		if (pass->paused &&
		    pass->data.len - pass->data_off < LOW_WATER &&
		    !pass->want_unpause) {
			pass->want_unpause = true;
			wake_pool(pass->pool);
		}
	} else if (pass->state == PASS_DONE) {
		n = MHD_CONTENT_READER_END_OF_STREAM;
	} else if (pass->state == PASS_FAILED ||
		   proxy_request_client_gone(pass->conn)) {
		n = MHD_CONTENT_READER_END_WITH_ERROR;
	} else {
		pass->suspended = true;
		MHD_suspend_connection(pass->conn);
		n = 0;
	}
	pthread_mutex_unlock(&pass->lock);
	return n;
}

static void pass_response_free(void *cls)
{
	struct proxy_pass *pass = cls;
	pthread_mutex_lock(&pass->lock);
	pass->gone = pass->state < PASS_DONE;
	pthread_mutex_unlock(&pass->lock);
	wake_pool(pass->pool);
	pass_put(pass);
}

static enum MHD_Result add_header(void *cls, enum MHD_ValueKind kind,
				  const char *key, const char *value)
{
	struct proxy_pass *pass = cls;
	if (value && !proxy_forward_header(key, pass->strip_identity, false))
		return MHD_YES;
	struct buf h = BUF_INIT;
	/* "Name:" with nothing after it tells libcurl to send no such header */
	buf_printf(&h, "%s:%s%s", key, value ? " " : "", value ? value : "");
	if (buf_ok(&h)) {
		struct curl_slist *l = curl_slist_append(pass->hdrs, h.p);
		if (l)
			pass->hdrs = l;
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
	if (proxy_reqinfo_watch_value(w) ||
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

int proxy_pass_verb(const char *target, const char *method,
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
		res && ((w && proxy_reqinfo_watch_value(w)) || rt.watch_prefix);
	return config_histogram_verb_slot(method, !res || rt.name[0], watch);
}

/* The body the client announces: its Content-Length, -1 when chunked
 * (libmicrohttpd has checked that the two are not both there). */
static int64_t body_length(struct MHD_Connection *c)
{
	const char *te = MHD_lookup_connection_value(c, MHD_HEADER_KIND,
						     "Transfer-Encoding");
	if (te && strcasestr(te, "chunked"))
		return -1;
	const char *cl = MHD_lookup_connection_value(c, MHD_HEADER_KIND,
						     "Content-Length");
	long long n = cl ? strtoll(cl, NULL, 10) : 0;
	return n > 0 ? n : 0;
}

static struct proxy_pass *pass_new(struct proxy_pass_pool *pool,
				   struct MHD_Connection *c, const char *target,
				   const char *method)
{
	struct proxy_pass *pass = xcalloc(1, sizeof(*pass));
	if (!pass)
		return NULL;
	pthread_mutex_init(&pass->lock, NULL);
	pass->pool = pool;
	pass->conn = c;
	pass->refs = 1; /* the request's */
	pass->length = -1;
	pass->method = xstrdup(method);
	pass->verb = proxy_pass_verb(target, method, c);
	pass->body_length = body_length(c);
	pass->has_body = pass->body_length != 0;
	pass->watch = pass->verb == CONFIG_VERB_WATCH;
	char err[256];
	/* Who the upstream sees: forward.h's rules, upgrade.c's too */
	struct proxy_forward_who who =
		proxy_forward_who(c, pool->lend_identity);
	pass->strip_identity = who.strip_identity;
	const char *authz = MHD_lookup_connection_value(c, MHD_HEADER_KIND,
							"Authorization");
	if (proxy_credpool_key(&pass->key,
			       who.client_creds ? PROXY_CREDPOOL_CLIENT :
			       who.as_proxy	? PROXY_CREDPOOL_PROXY :
						  PROXY_CREDPOOL_ANON,
			       authz)) {
		pass_put(pass);
		return NULL;
	}
	pass->idempotency_key =
		MHD_lookup_connection_value(c, MHD_HEADER_KIND,
					    "Idempotency-Key") ||
		MHD_lookup_connection_value(c, MHD_HEADER_KIND,
					    "X-Idempotency-Key");
	pass->hold = !long_running(c, target);
	pass->easy = cache_upstream_easy(pool->up, err, sizeof(err));
	if (pass->easy &&
	    cache_upstream_prepare(pool->up, pass->easy, who.as_proxy,
				   &pass->hdrs, err, sizeof(err))) {
		log_warn("passthrough: %s", err);
		curl_easy_cleanup(pass->easy);
		pass->easy = NULL;
	}
	/* The target as the client sent it, checked by target.c: an
	 * origin-form path whose encoding libcurl must keep as it is. */
	buf_printf(&pass->url, "%s%s", pool->up->server, target);
	if (pass->easy)
		curl_easy_setopt(pass->easy, CURLOPT_PATH_AS_IS, 1L);
	/* A request the apiserver itself would time out (every one but a
	 * watch, a followed log, exec, attach, port-forward or proxy) gets
	 * the same bound here, so a silent upstream cannot hold clients and
	 * their upstream connections for ever. */
	if (pass->easy && pool->timeout_s > 0 && !long_running(c, target))
		curl_easy_setopt(pass->easy, CURLOPT_TIMEOUT,
				 (long)pool->timeout_s);
	MHD_get_connection_values(c, MHD_HEADER_KIND, add_header, pass);
	/* Pass the request on as it came: no Content-Type libcurl would add
	 * for a body the client sent without one, no Expect: 100-continue. */
	if (!MHD_lookup_connection_value(c, MHD_HEADER_KIND, "Content-Type"))
		add_header(pass, MHD_HEADER_KIND, "Content-Type", NULL);
	add_header(pass, MHD_HEADER_KIND, "Expect", NULL);
	if (!pass->method || !pass->easy || !buf_ok(&pass->url)) {
		pass_put(pass);
		return NULL;
	}
	return pass;
}

/* The body of an answer sent without one: never asked for. */
static ssize_t no_read(void *cls, uint64_t pos, char *out, size_t max)
{
	(void)cls;
	(void)pos;
	(void)out;
	(void)max;
	return MHD_CONTENT_READER_END_OF_STREAM;
}

/* HTTP's answers without a body (RFC 9110 6.4.1): to a HEAD, 1xx, 204
 * and 304. They carry no Transfer-Encoding either. */
static bool no_body(const char *method, long status)
{
	return !strcmp(method, "HEAD") || status < 200 || status == 204 ||
	       status == 304;
}

/* The answer to a read given the cache's shape, read whole: a JSON 200
 * loses the strip paths in each object; anything else (an error Status,
 * another type) goes as it came. A failed or oversized transfer is
 * answered with a Status, never half an answer. */
static enum MHD_Result respond_shaped(struct proxy_pass *pass,
				      struct MHD_Connection *c,
				      enum pass_state st, long status)
{
	pthread_mutex_lock(&pass->lock);
	bool over = pass->over;
	pthread_mutex_unlock(&pass->lock);
	if (st != PASS_DONE) {
		char msg[160];
		snprintf(
			msg, sizeof(msg),
			over ? "the upstream's answer is larger than %zu bytes, "
			       "the most informer-proxy reads whole" :
			       "the upstream's answer ended early",
			shape_max(pass->pool));
		struct proxy_status s = {
			.reason = over ? PROXY_InternalError :
					 PROXY_ServiceUnavailable,
			.message = msg,
			.retry_after = over ? 0 : 1,
		};
		return proxy_reply_status(c, &s);
	}
	/* the transfer has ended: its fields are this thread's now */
	const char *type = NULL;
	for (size_t i = 0; i < pass->resp_hdrs.len;) {
		const char *k = pass->resp_hdrs.p + i;
		const char *v = k + strlen(k) + 1;
		if (!strcasecmp(k, "Content-Type"))
			type = v;
		i = (size_t)(v - pass->resp_hdrs.p) + strlen(v) + 1;
	}
	struct buf out = BUF_INIT;
	struct buf *body = &pass->data;
	if (status == 200 && !pass->encoded && type &&
	    strstr(type, "application/json")) {
		int rc = cache_scope_strip_answer(
			&pass->scope, pass->strip_managed, pass->data.p,
			pass->data.len, &out);
		if (rc == -ENOMEM) {
			buf_free(&out);
			return MHD_NO;
		}
		if (!rc)
			body = &out;
	}
	struct MHD_Response *resp = MHD_create_response_from_buffer(
		body->len, body->p ? body->p : (void *)"",
		MHD_RESPMEM_MUST_COPY);
	buf_free(&out);
	if (!resp)
		return MHD_NO;
	for (size_t i = 0; i < pass->resp_hdrs.len;) {
		const char *k = pass->resp_hdrs.p + i;
		const char *v = k + strlen(k) + 1;
		MHD_add_response_header(resp, k, v);
		i = (size_t)(v - pass->resp_hdrs.p) + strlen(v) + 1;
	}
	return proxy_reply_queue(c, (unsigned)status, resp);
}

static enum MHD_Result respond(struct proxy_pass *pass,
			       struct MHD_Connection *c)
{
	pthread_mutex_lock(&pass->lock);
	enum pass_state st = pass->state;
	long status = pass->status;
	int64_t length = pass->length;
	pthread_mutex_unlock(&pass->lock);
	if (st == PASS_FAILED && status == 0) {
		struct proxy_status s = {
			.reason = PROXY_ServiceUnavailable,
			.message =
				"the upstream apiserver could not be reached",
			.retry_after = 1,
		};
		return proxy_reply_status(c, &s);
	}
	if (st == PASS_FAILED && !pass->shape) {
		/* it failed before any of its answer was sent: a clear
		 * Status, never a body cut short that might pass for whole */
		struct proxy_status s = {
			.reason = PROXY_ServiceUnavailable,
			.message = "the upstream's answer ended early",
			.retry_after = 1,
		};
		return proxy_reply_status(c, &s);
	}
	struct MHD_Response *resp;
	bool empty = no_body(pass->method, status);
	if (pass->shape && !empty)
		return respond_shaped(pass, c, st, status);
	if (empty) {
		/* Nothing to frame: a callback of unknown size would be sent
		 * chunked, its last chunk a stray body on a kept-alive
		 * connection. The transfer has ended (proxy_pass_handle
		 * waited for it), so the answer needs nothing of pass. */
		if (length >= 0 && status >= 200 && status != 204)
			/* a HEAD answer keeps the GET's Content-Length, a 304
			 * that of the answer it stands for, as HTTP allows:
			 * libmicrohttpd sends the size, never the body */
			resp = MHD_create_response_from_callback(
				(uint64_t)length, 1024, no_read, NULL, NULL);
		else
			resp = MHD_create_response_from_buffer(
				0, (void *)"", MHD_RESPMEM_PERSISTENT);
	} else {
		resp = MHD_create_response_from_callback(
			length >= 0 ? (uint64_t)length : MHD_SIZE_UNKNOWN,
			32 * 1024, pass_read, pass, pass_response_free);
	}
	if (!resp)
		return MHD_NO;
	pthread_mutex_lock(&pass->lock);
	if (!empty)
		pass->refs++; /* the response's */
	for (size_t i = 0; i < pass->resp_hdrs.len;) {
		const char *k = pass->resp_hdrs.p + i;
		const char *v = k + strlen(k) + 1;
		MHD_add_response_header(resp, k, v);
		i = (size_t)(v - pass->resp_hdrs.p) + strlen(v) + 1;
	}
	pthread_mutex_unlock(&pass->lock);
	return proxy_reply_queue(c, (unsigned)status, resp);
}

/* Hand pass to the curl thread; suspend: the client's connection waits
 * for the upstream's headers. The request thread, pass->lock held.
 * False when the pool is stopping (nothing done). */
static bool hand_over(struct proxy_pass_pool *pool, struct proxy_pass *pass,
		      struct MHD_Connection *c, bool suspend)
{
	pthread_mutex_lock(&pool->lock);
	bool stop = pool->stop;
	if (!stop) {
		pass->state = PASS_STARTED;
		pass->refs++; /* the transfer's */
		if (suspend) {
			pass->suspended = true;
			MHD_suspend_connection(c);
		}
		pass->next = pool->incoming;
		pool->incoming = pass;
	}
	pthread_mutex_unlock(&pool->lock);
	return !stop;
}

static enum MHD_Result too_large(struct MHD_Connection *c, int64_t max)
{
	/* the apiserver's answer; the rest of the body is not read */
	char msg[96];
	snprintf(msg, sizeof(msg), "Request entity too large: limit is %lld",
		 (long long)max);
	struct proxy_status st = {
		.reason = PROXY_RequestEntityTooLarge,
		.message = msg,
		.close = true,
	};
	return proxy_reply_status(c, &st);
}

/* The first call: refuse a body too large or past the pool's budget,
 * else make *state, and start a request with a body at once, so that
 * its bytes go up as they come. */
static enum MHD_Result first_call(struct proxy_pass_pool *pool,
				  struct MHD_Connection *c, const char *target,
				  const char *method, struct proxy_pass **state)
{
	int64_t len = body_length(c);
	if (len > pool->max_body) {
		/* Answered at its header and closed, a client still sending
		 * may lose the answer to the reset that unread bytes cause.
		 * A body up to twice the limit (a mistaken apply, not an
		 * attack) is read and dropped first, within its deadline,
		 * and then answered, as a chunked one past the limit is; a
		 * larger one is answered at once. */
		if (len > 2 * pool->max_body)
			return too_large(c, pool->max_body);
		struct proxy_pass *drop = pass_new(pool, c, target, method);
		if (!drop)
			return too_large(c, pool->max_body);
		drop->too_large = true;
		drop->gone = true; /* never handed to the curl thread */
		*state = drop;
		return MHD_YES;
	}
	bool reserved = false;
	if (len) {
		size_t held = __atomic_add_fetch(&pool->held, UPLOAD_BUF,
						 __ATOMIC_RELAXED);
		reserved = true;
		if (held > LIMIT_REQUEST_BODIES_BYTES) {
			__atomic_sub_fetch(&pool->held, UPLOAD_BUF,
					   __ATOMIC_RELAXED);
			char details[48];
			snprintf(details, sizeof(details),
				 "{\"retryAfterSeconds\":%d}",
				 LIMIT_RETRY_AFTER_S);
			struct proxy_status st = {
				.reason = PROXY_TooManyRequests,
				.message =
					"too many request bodies are on their way "
					"upstream, please try again later",
				.details = details,
				.retry_after = LIMIT_RETRY_AFTER_S,
				.close = true,
			};
			return proxy_reply_status(c, &st);
		}
	}
	struct proxy_pass *pass = pass_new(pool, c, target, method);
	if (!pass) { /* out of memory, or credentials that cannot be used */
		if (reserved)
			__atomic_sub_fetch(&pool->held, UPLOAD_BUF,
					   __ATOMIC_RELAXED);
		return proxy_reply_error(
			c, PROXY_ServiceUnavailable,
			"informer-proxy cannot forward this request to the "
			"upstream now (see its log)");
	}
	pass->reserved = reserved;
	*state = pass;
	if (!pass->has_body)
		return MHD_YES;
	pthread_mutex_lock(&pass->lock);
	bool ok = hand_over(pool, pass, c, false);
	pthread_mutex_unlock(&pass->lock);
	if (!ok)
		return proxy_reply_error(c, PROXY_ServiceUnavailable,
					 "informer-proxy is shutting down");
	wake_pool(pool);
	return MHD_YES;
}

/* Body bytes from libmicrohttpd: into pass->up as far as it has room;
 * the connection is suspended with the rest left in *upload_size until
 * libcurl has read some. Bytes of a transfer that has ended (an
 * upstream that answered before reading the body) are dropped. */
static enum MHD_Result take_body(struct proxy_pass *pass,
				 struct MHD_Connection *c, const char *upload,
				 size_t *upload_size)
{
	struct proxy_pass_pool *pool = pass->pool;
	pthread_mutex_lock(&pass->lock);
	bool over = pass->body_seen + (int64_t)*upload_size > pool->max_body;
	if (over && !pass->too_large) {
		/* chunked: past the limit only now. The transfer ends; the
		 * rest is read and dropped (libmicrohttpd cannot answer
		 * before the body's end), within the body's deadline. */
		pass->too_large = true;
		pass->gone = true;
		wake_pool(pool);
	}
	if (pass->state >= PASS_DONE || pass->gone) {
		pass->body_seen += (int64_t)*upload_size;
		*upload_size = 0;
		pthread_mutex_unlock(&pass->lock);
		return MHD_YES;
	}
	size_t held = pass->up.len - pass->up_off;
	size_t take = UPLOAD_BUF - held;
	if (take > *upload_size)
		take = *upload_size;
	if (take && pass->up_off && pass->up.len + take > UPLOAD_BUF) {
		memmove(pass->up.p, pass->up.p + pass->up_off, held);
		pass->up.len = held;
		pass->up_off = 0;
	}
	if (take && buf_add(&pass->up, upload, take)) {
		pthread_mutex_unlock(&pass->lock);
		return MHD_NO;
	}
	pass->body_seen += (int64_t)take;
	*upload_size -= take;
	bool wake = take && pass->up_paused && !pass->want_up_unpause;
	if (wake)
		pass->want_up_unpause = true;
	enum MHD_Result ret = MHD_YES;
	if (*upload_size) {
		if (proxy_request_client_gone(c)) {
			ret = MHD_NO;
		} else { /* full: wait for libcurl to read */
			pass->suspended = true;
			MHD_suspend_connection(c);
		}
	}
	pthread_mutex_unlock(&pass->lock);
	if (wake)
		wake_pool(pool);
	return ret;
}

enum MHD_Result proxy_pass_handle(struct proxy_pass_pool *pool,
				  struct MHD_Connection *c, const char *target,
				  const char *method, const char *upload,
				  size_t *upload_size,
				  struct proxy_pass **state)
{
	struct proxy_pass *pass = *state;
	if (!pass)
		return first_call(pool, c, target, method, state);
	if (*upload_size) {
		if (!pass->has_body) { /* a body it did not announce */
			*upload_size = 0;
			return MHD_YES;
		}
		return take_body(pass, c, upload, upload_size);
	}
	if (pass->too_large)
		return too_large(c, pool->max_body);
	pthread_mutex_lock(&pass->lock);
	if (!pass->up_done) { /* the whole body is in */
		pass->up_done = true;
		if (pass->up_paused && !pass->want_up_unpause) {
			pass->want_up_unpause = true;
			wake_pool(pool);
		}
	}
	enum pass_state st = pass->state;
	if (st == PASS_NEW) {
		/* Hand it to the curl thread, unless that is shutting down:
		 * a connection left suspended would outlive the daemon. */
		bool ok = hand_over(pool, pass, c, true);
		pthread_mutex_unlock(&pass->lock);
		if (!ok)
			return proxy_reply_error(
				c, PROXY_ServiceUnavailable,
				"informer-proxy is shutting down");
		wake_pool(pool);
		return MHD_YES;
	}
	/* An answer without a body, or one to shape, is queued once its
	 * transfer has ended: it then owes pass nothing, and the upstream's
	 * answer is observed whole (finish() resumes the connection). */
	bool wait = st == PASS_STARTED ||
		    (st == PASS_HEADERS &&
		     (pass->shape || no_body(pass->method, pass->status) ||
		      (pass->hold &&
		       pass->data.len - pass->data_off < HOLD_BYTES)));
	if (wait) { /* resumed early; wait on */
		if (proxy_request_client_gone(c)) {
			/* poked by poke_idle(): the client left, close it;
			 * proxy_pass_done() then ends the upstream transfer */
			pthread_mutex_unlock(&pass->lock);
			return MHD_NO;
		}
		pass->suspended = true;
		MHD_suspend_connection(c);
		pthread_mutex_unlock(&pass->lock);
		return MHD_YES;
	}
	pthread_mutex_unlock(&pass->lock);
	return respond(pass, c);
}

int proxy_pass_shape(struct proxy_pass *pass, const struct cache_scope *s,
		     bool managed)
{
	if (!pass || pass->state != PASS_NEW || pass->has_body ||
	    strcmp(pass->method, "GET") || (!s->nstrip && !managed))
		return 0;
	if (cache_scope_init(&pass->scope, NULL, NULL, NULL, s->strip,
			     s->nstrip))
		return -ENOMEM;
	pass->strip_managed = managed;
	/* the answer is read as it is, never compressed: ask for none */
	struct curl_slist *kept = NULL;
	for (struct curl_slist *l = pass->hdrs; l; l = l->next) {
		if (!strncasecmp(l->data, "Accept-Encoding:", 16))
			continue;
		struct curl_slist *k = curl_slist_append(kept, l->data);
		if (!k) {
			curl_slist_free_all(kept);
			cache_scope_free(&pass->scope);
			return -ENOMEM;
		}
		kept = k;
	}
	curl_slist_free_all(pass->hdrs);
	pass->hdrs = kept;
	pass->shape = true;
	return 0;
}

void proxy_pass_done(struct proxy_pass *pass)
{
	if (!pass)
		return;
	pthread_mutex_lock(&pass->lock);
	if (pass->state < PASS_DONE)
		pass->gone = true;
	pthread_mutex_unlock(&pass->lock);
	wake_pool(pass->pool);
	pass_put(pass);
}
