/*
 * pass_pool: the passthrough thread (see pass.h, pass_int.h): the pool's
 * life (new, stop, free), the curl multi loop, and the libcurl callbacks
 * that move an upstream answer into a struct proxy_pass and a request
 * body out of it. Each transfer takes its connections from its
 * credential's pool (credpool.h), is sent again when retry.h says so,
 * and resumes its client whenever there is something to send.
 */
#include "proxy/pass/pass_int.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "config/alloc.h"
#include "config/log.h"
#include "proxy/front/access.h"
#include "proxy/metrics.h"
#include "proxy/pass/forward.h"
#include "proxy/pass/retry.h"

/* Called with pass->lock held. */
static void resume_client(struct proxy_pass *pass)
{
	if (pass->suspended) {
		pass->suspended = false;
		MHD_resume_connection(pass->conn);
	}
}

static int64_t now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

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
	proxy_pass_put(pass); /* the transfer's reference */
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
