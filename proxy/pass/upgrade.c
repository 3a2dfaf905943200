/*
 * upgrade: upgrade requests forwarded and spliced (see upgrade.h).
 *
 * A struct proxy_upgrade is shared by the libmicrohttpd thread serving the
 * client and the request's own thread; its lock guards the fields marked
 * "locked". Two references: the request's (until proxy_upgrade_done) and the
 * thread's (until it ends). libmicrohttpd calls the upgrade handler
 * before the request completes, so the request's reference covers it.
 */
#include "proxy/pass/upgrade.h"

#include <errno.h>
#include <linux/sockios.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "config/alloc.h"
#include "config/buf.h"
#include "config/creds.h"
#include "config/log.h"
#include "proxy/pass/dial.h"
#include "proxy/pass/forward.h"
#include "proxy/reply.h"
#include "proxy/request.h"
#include "proxy/status.h"

#define SPLICE_BUF (32 * 1024)	  /* each way, per stream */
#define HEAD_MAX (64 * 1024)	  /* the upstream's response head */
#define BODY_MAX (1024 * 1024)	  /* a non-101 answer's body */
#define THREAD_STACK (256 * 1024) /* buffers are on the heap */
#define DEFAULT_HANDSHAKE_S 60

enum upgrade_state {
	UPGRADE_NEW,
	UPGRADE_STARTED,  /* the thread is reaching the upstream */
	UPGRADE_ANSWERED, /* status, headers (and a non-101 body) are in */
	UPGRADE_FAILED,	  /* no answer: 503 or 504 to the client */
	UPGRADE_SPLICING, /* the upgrade handler gave us the client socket */
	UPGRADE_DONE
};

struct proxy_upgrade_pool {
	char host[256]; /* where to connect */
	char port[8];
	char name[256];	    /* the TLS name to check, and Host */
	char host_hdr[300]; /* Host: name[:port] */
	char prefix[256];   /* the server URL's path, "" or "/x" */
	bool tls;
	const struct cache_upstream *up;
	bool lend_identity;
	int handshake_s;
	int max_streams;

	pthread_mutex_t lock; /* guards the fields below */
	pthread_cond_t cond;
	struct proxy_upgrade *streams; /* every live one */
	int active;
	bool stop;
	bool stopped; /* main thread only */
};

struct proxy_upgrade {
	struct proxy_upgrade_pool *pool;
	struct MHD_Connection *conn;
	struct buf head; /* the request head for the upstream */
	bool has_body;
	bool as_proxy;	 /* go with the proxy's credentials */
	bool client_tls; /* the client came over HTTPS */
	char what[96];	 /* "METHOD path" for the log, without the query */

	/* the thread's; dial.fd also read by proxy_upgrade_pool_stop(), so
	 * written under lock */
	struct proxy_dial dial;

	pthread_mutex_t lock;
	pthread_cond_t cond;
	int refs;			 /* locked */
	enum upgrade_state state;	 /* locked */
	unsigned status;		 /* locked */
	char fail_msg[160];		 /* locked; why UPGRADE_FAILED */
	unsigned fail_code;		 /* locked */
	struct proxy_dial_answer answer; /* locked; headers, body, extra */
	int cfd;			 /* locked; the client socket, -1 */
	struct MHD_UpgradeResponseHandle *urh; /* locked */
	struct buf extra_in;		       /* locked; client bytes */
	bool abandoned; /* locked; the request ended without the upgrade */
	struct proxy_upgrade *next, **pprev; /* pool->streams, pool->lock */
};

static void upgrade_put(struct proxy_upgrade *u)
{
	pthread_mutex_lock(&u->lock);
	int left = --u->refs;
	pthread_mutex_unlock(&u->lock);
	if (left)
		return;
	buf_free(&u->head);
	proxy_dial_answer_free(&u->answer);
	buf_free(&u->extra_in);
	pthread_cond_destroy(&u->cond);
	pthread_mutex_destroy(&u->lock);
	free(u);
}

static bool pool_stopping(struct proxy_upgrade_pool *pool)
{
	pthread_mutex_lock(&pool->lock);
	bool s = pool->stop;
	pthread_mutex_unlock(&pool->lock);
	return s;
}

/* ---- the upstream ---- */

static bool dial_stopping(void *cls)
{
	return pool_stopping(cls);
}

/* Connect, send, read the answer; with u->lock not held. Returns 0, or
 * -1 with u->fail_code and u->fail_msg set. */
static int handshake(struct proxy_upgrade *u, bool as_proxy)
{
	struct proxy_upgrade_pool *pool = u->pool;
	double deadline = proxy_dial_now() + pool->handshake_s;
	char err[160] = "";
	unsigned code = 503;
	struct proxy_dial_answer a = { 0 };
	u->dial.stopping = dial_stopping;
	u->dial.cls = pool;
	int fd = proxy_dial_tcp(&u->dial, pool->host, pool->port, deadline, err,
				sizeof(err));
	pthread_mutex_lock(&u->lock); /* proxy_upgrade_pool_stop() reads it */
	u->dial.fd = fd;
	pthread_mutex_unlock(&u->lock);
	if (fd < 0)
		goto out_fail;
	if (pool->tls && proxy_dial_tls(&u->dial, pool->up->creds, pool->name,
					as_proxy, deadline, err, sizeof(err)))
		goto out_fail;
	if (proxy_dial_send(&u->dial, u->head.p, u->head.len, deadline)) {
		snprintf(err, sizeof(err), "cannot send the request upstream");
		goto out_fail;
	}
	if (proxy_dial_answer(&u->dial, &a, HEAD_MAX, BODY_MAX, deadline, &code,
			      err, sizeof(err)))
		goto out_fail;
	pthread_mutex_lock(&u->lock);
	u->status = a.status;
	u->answer = a; /* u's now */
	pthread_mutex_unlock(&u->lock);
	return 0;
out_fail:
	proxy_dial_answer_free(&a);
	if (pool_stopping(pool)) {
		code = 503;
		snprintf(err, sizeof(err), "informer-proxy is shutting down");
	}
	pthread_mutex_lock(&u->lock);
	u->fail_code = code;
	snprintf(u->fail_msg, sizeof(u->fail_msg), "%s", err);
	pthread_mutex_unlock(&u->lock);
	if (!pool_stopping(pool))
		log_warn("upgrade %s: %s", u->what, err);
	return -1;
}

/* ---- the splice ---- */

struct way {
	char *p;
	size_t cap, off, len;
	bool eof;  /* the source ended */
	bool shut; /* and that was passed on */
};

static bool way_load(struct way *w, const struct buf *extra)
{
	w->cap = extra->len > SPLICE_BUF ? extra->len : SPLICE_BUF;
	w->p = xmalloc(w->cap);
	if (!w->p)
		return false;
	if (extra->len)
		memcpy(w->p, extra->p, extra->len);
	w->len = extra->len;
	return true;
}

/* Move bytes until both ways ended, or either failed. */
static void splice_loop(struct proxy_upgrade *u, int cfd, struct way *c2u,
			struct way *u2c)
{
	short up_rd_want = POLLIN, up_wr_want = POLLOUT;
	bool c_hup = false, u_hup = false;
	for (;;) {
		bool progress = false, failed = false;
		/* client -> upstream */
		if (!c2u->len && !c2u->eof) {
			ssize_t r = recv(cfd, c2u->p, c2u->cap, MSG_DONTWAIT);
			if (r > 0) {
				c2u->off = 0;
				c2u->len = (size_t)r;
				progress = true;
			} else if (r == 0) {
				c2u->eof = progress = true;
			} else if (errno != EAGAIN && errno != EINTR) {
				failed = true;
			}
		}
		if (c2u->len) {
			ssize_t w =
				proxy_dial_write(&u->dial, c2u->p + c2u->off,
						 c2u->len, &up_wr_want);
			if (w > 0) {
				c2u->off += (size_t)w;
				c2u->len -= (size_t)w;
				progress = true;
			} else if (w == -1) {
				failed = true;
			}
		}
		if (c2u->eof && !c2u->len && !c2u->shut) {
			proxy_dial_shut_write(&u->dial);
			c2u->shut = progress = true;
		}
		/* upstream -> client */
		if (!u2c->len && !u2c->eof) {
			ssize_t r = proxy_dial_read(&u->dial, u2c->p, u2c->cap,
						    &up_rd_want);
			if (r > 0) {
				u2c->off = 0;
				u2c->len = (size_t)r;
				progress = true;
			} else if (r == 0) {
				u2c->eof = progress = true;
			} else if (r == -1) {
				failed = true;
			}
		}
		if (u2c->len) {
			ssize_t w = send(cfd, u2c->p + u2c->off, u2c->len,
					 MSG_DONTWAIT | MSG_NOSIGNAL);
			if (w > 0) {
				u2c->off += (size_t)w;
				u2c->len -= (size_t)w;
				progress = true;
			} else if (w < 0 && errno != EAGAIN && errno != EINTR) {
				failed = true;
			}
		}
		/* Over an HTTPS listener libmicrohttpd cannot pass a
		 * half-close on to the client: there the upstream's end,
		 * once its last bytes are out, ends the stream. */
		if (u2c->eof && !u2c->len && !u2c->shut) {
			if (u->client_tls)
				return;
			shutdown(cfd, SHUT_WR);
			u2c->shut = progress = true;
		}
		if (failed || (c2u->shut && u2c->shut) ||
		    pool_stopping(u->pool))
			return;
		if (progress)
			continue;
		/* Nothing moved: sleep on what each blocked step waits for.
		 * A socket is polled even when no step waits on it, so that
		 * its reset (POLLERR) ends the stream; one that has hung up
		 * is polled only while a step waits on it (whose read then
		 * ends, or write fails), so it cannot spin this loop. */
		struct pollfd p[2] = { { .fd = cfd }, { .fd = u->dial.fd } };
		if (!c2u->len && !c2u->eof)
			p[0].events |= POLLIN;
		if (u2c->len)
			p[0].events |= POLLOUT;
		if (c2u->len)
			p[1].events |= up_wr_want;
		if (!u2c->len && !u2c->eof)
			p[1].events |= up_rd_want;
		if (c_hup && !p[0].events)
			p[0].fd = -1;
		if (u_hup && !p[1].events)
			p[1].fd = -1;
		if (poll(p, 2, -1) < 0 && errno != EINTR)
			return;
		if ((p[0].revents | p[1].revents) & (POLLERR | POLLNVAL))
			return;
		c_hup |= p[0].revents & POLLHUP;
		u_hup |= p[1].revents & POLLHUP;
	}
}

/* Over HTTPS the client socket is our end of a socketpair whose other
 * end libmicrohttpd reads and encrypts; closing before it has read what
 * we wrote would lose the stream's last bytes. Wait (2 s at most) until
 * nothing we sent is left unread. */
static void drain_to_tls(struct proxy_upgrade *u, int cfd)
{
	shutdown(cfd, SHUT_WR);
	for (int i = 0; i < 400 && !pool_stopping(u->pool); i++) {
		int queued = 0;
		if (ioctl(cfd, SIOCOUTQ, &queued) || queued <= 0)
			return;
		struct timespec ts = { 0, 5 * 1000000L };
		nanosleep(&ts, NULL);
	}
}

static void splice_streams(struct proxy_upgrade *u)
{
	pthread_mutex_lock(&u->lock);
	int cfd = u->cfd;
	struct way c2u = { 0 }, u2c = { 0 };
	bool ok = way_load(&c2u, &u->extra_in) &&
		  way_load(&u2c, &u->answer.extra);
	buf_free(&u->extra_in);
	buf_free(&u->answer.extra);
	pthread_mutex_unlock(&u->lock);
	if (ok) {
		int one = 1;
		setsockopt(cfd, SOL_SOCKET, SO_KEEPALIVE, &one, sizeof(one));
		splice_loop(u, cfd, &c2u, &u2c);
	}
	if (u->client_tls)
		drain_to_tls(u, cfd);
	free(c2u.p);
	free(u2c.p);
}

/* ---- the thread ---- */

static void pool_remove(struct proxy_upgrade *u)
{
	struct proxy_upgrade_pool *pool = u->pool;
	pthread_mutex_lock(&pool->lock);
	if (u->pprev) {
		*u->pprev = u->next;
		if (u->next)
			u->next->pprev = u->pprev;
		u->pprev = NULL;
	}
	pool->active--;
	pthread_cond_broadcast(&pool->cond);
	pthread_mutex_unlock(&pool->lock);
}

struct start_arg {
	struct proxy_upgrade *u;
	bool as_proxy;
};

static void *run(void *arg)
{
	struct start_arg sa = *(struct start_arg *)arg;
	free(arg);
	struct proxy_upgrade *u = sa.u;
	int rc = handshake(u, sa.as_proxy);
	pthread_mutex_lock(&u->lock);
	u->state = rc ? UPGRADE_FAILED : UPGRADE_ANSWERED;
	pthread_mutex_unlock(&u->lock);
	/* Never under u->lock: libmicrohttpd holds its own lock when it
	 * calls proxy_upgrade_done(), which takes u->lock. A suspended
	 * connection cannot complete, so u->conn is still there. */
	MHD_resume_connection(u->conn);
	pthread_mutex_lock(&u->lock);
	/* After a 101, wait for the client socket; the request ends
	 * instead when the 101 could not be sent (abandoned). */
	bool upgraded = !rc && u->status == 101;
	while (upgraded && u->state != UPGRADE_SPLICING && !u->abandoned)
		pthread_cond_wait(&u->cond, &u->lock);
	bool splice = u->state == UPGRADE_SPLICING;
	pthread_mutex_unlock(&u->lock);
	if (splice)
		splice_streams(u);
	proxy_dial_tls_free(&u->dial);
	pthread_mutex_lock(&u->lock);
	if (u->dial.fd >= 0)
		close(u->dial.fd);
	u->dial.fd = -1;
	if (splice) {
		u->state = UPGRADE_DONE;
		u->cfd = -1;
	}
	struct MHD_UpgradeResponseHandle *urh = splice ? u->urh : NULL;
	pthread_mutex_unlock(&u->lock);
	if (urh) /* closes the client socket; the request then completes */
		MHD_upgrade_action(urh, MHD_UPGRADE_ACTION_CLOSE);
	pool_remove(u);
	upgrade_put(u);
	return NULL;
}

/* ---- the request head ---- */

struct head_ctx {
	struct buf *b;
	bool strip_identity;
};

static enum MHD_Result add_header(void *cls, enum MHD_ValueKind kind,
				  const char *key, const char *value)
{
	struct head_ctx *h = cls;
	if (!value || !proxy_forward_header(key, h->strip_identity, true))
		return MHD_YES;
	/* libmicrohttpd already refused CR and LF in header lines */
	buf_printf(h->b, "%s: %s\r\n", key, value);
	return MHD_YES;
}

static int build_head(struct proxy_upgrade *u, const char *method,
		      const char *target, const struct proxy_forward_who *who)
{
	struct proxy_upgrade_pool *pool = u->pool;
	buf_printf(&u->head, "%s %s%s HTTP/1.1\r\nHost: %s\r\n", method,
		   pool->prefix, target, pool->host_hdr);
	struct head_ctx h = { &u->head, who->strip_identity };
	MHD_get_connection_values(u->conn, MHD_HEADER_KIND, add_header, &h);
	buf_printf(&u->head, "Connection: Upgrade\r\n");
	struct config_upstream *cr = pool->up->creds;
	if (who->as_proxy && cr && config_creds_has_token(cr)) {
		char *tok = xmalloc(CONFIG_TOKEN_MAX_BYTES + 1);
		int rc = tok ? config_creds_token_get(
				       cr, tok, CONFIG_TOKEN_MAX_BYTES + 1) :
			       -ENOMEM;
		if (!rc)
			buf_printf(&u->head, "Authorization: Bearer %s\r\n",
				   tok);
		if (tok) {
			explicit_bzero(tok, CONFIG_TOKEN_MAX_BYTES + 1);
			free(tok);
		}
		if (rc) {
			char why[200];
			config_creds_token_explain(cr, why, sizeof(why));
			log_warn("upgrade: no upstream token: %s", why);
			return -1;
		}
	}
	buf_printf(&u->head, "\r\n");
	return buf_ok(&u->head) ? 0 : -1;
}

/* ---- libmicrohttpd side ---- */

bool proxy_upgrade_supported(void)
{
	return MHD_is_feature_supported(MHD_FEATURE_UPGRADE) == MHD_YES;
}

bool proxy_upgrade_wanted(struct MHD_Connection *c)
{
	if (!proxy_upgrade_supported())
		return false;
	const char *conn =
		MHD_lookup_connection_value(c, MHD_HEADER_KIND, "Connection");
	const char *upg =
		MHD_lookup_connection_value(c, MHD_HEADER_KIND, "Upgrade");
	if (!conn || !upg || !*upg)
		return false;
	/* The protocols the apiserver upgrades to. An h2c upgrade (curl
	 * --http2 on http://) is no such request: the apiserver ignores it,
	 * so it stays an ordinary request, served from the cache or passed
	 * through. */
	bool known = false;
	for (const char *p = upg; *p && !known;) {
		p += strspn(p, " \t,");
		size_t n = strcspn(p, " \t,");
		known = (n == 9 && !strncasecmp(p, "websocket", 9)) ||
			(n >= 5 && !strncasecmp(p, "SPDY/", 5));
		p += n;
	}
	if (!known)
		return false;
	/* a token of the comma-separated list */
	for (const char *p = conn; *p;) {
		p += strspn(p, " \t,");
		size_t n = strcspn(p, " \t,");
		if (n == 7 && !strncasecmp(p, "upgrade", 7))
			return true;
		p += n;
	}
	return false;
}

static void on_upgrade(void *cls, struct MHD_Connection *c, void *con_cls,
		       const char *extra_in, size_t extra_in_size,
		       MHD_socket sock, struct MHD_UpgradeResponseHandle *urh)
{
	struct proxy_upgrade *u = cls;
	pthread_mutex_lock(&u->lock);
	u->cfd = sock;
	u->urh = urh;
	if (extra_in_size)
		buf_add(&u->extra_in, extra_in, extra_in_size);
	u->state = UPGRADE_SPLICING;
	pthread_cond_signal(&u->cond);
	pthread_mutex_unlock(&u->lock);
}

static struct proxy_upgrade *upgrade_new(struct proxy_upgrade_pool *pool,
					 struct MHD_Connection *c,
					 const char *target, const char *method,
					 bool *as_proxy)
{
	struct proxy_upgrade *u = xcalloc(1, sizeof(*u));
	if (!u)
		return NULL;
	pthread_mutex_init(&u->lock, NULL);
	pthread_cond_init(&u->cond, NULL);
	u->pool = pool;
	u->conn = c;
	u->refs = 1; /* the request's */
	u->dial.fd = u->cfd = -1;
	u->client_tls = MHD_get_connection_info(
				c, MHD_CONNECTION_INFO_GNUTLS_SESSION) != NULL;
	snprintf(u->what, sizeof(u->what), "%s %.*s", method,
		 (int)strcspn(target, "?"), target);
	/* passthrough's rules (forward.h), so the two never differ */
	struct proxy_forward_who who =
		proxy_forward_who(c, pool->lend_identity);
	*as_proxy = who.as_proxy;
	if (build_head(u, method, target, &who)) {
		upgrade_put(u);
		return NULL;
	}
	return u;
}

/* Start u's thread; false when at the stream limit or stopping (*code
 * says which: 429 or 503) or out of resources. */
static bool upgrade_start(struct proxy_upgrade *u, bool as_proxy,
			  unsigned *code)
{
	struct proxy_upgrade_pool *pool = u->pool;
	struct start_arg *sa = xmalloc(sizeof(*sa));
	if (!sa) {
		*code = 503;
		return false;
	}
	*sa = (struct start_arg){ u, as_proxy };
	pthread_mutex_lock(&pool->lock);
	if (pool->stop || pool->active >= pool->max_streams) {
		*code = pool->stop ? 503 : 429;
		pthread_mutex_unlock(&pool->lock);
		free(sa);
		return false;
	}
	pool->active++;
	u->next = pool->streams;
	if (u->next)
		u->next->pprev = &u->next;
	u->pprev = &pool->streams;
	pool->streams = u;
	pthread_mutex_unlock(&pool->lock);
	pthread_mutex_lock(&u->lock);
	u->refs++; /* the thread's */
	u->state = UPGRADE_STARTED;
	pthread_mutex_unlock(&u->lock);
	/* suspended before the thread exists, which resumes it; and with
	 * none of our locks held (see run()) */
	MHD_suspend_connection(u->conn);
	pthread_attr_t attr;
	pthread_attr_init(&attr);
	pthread_attr_setstacksize(&attr, THREAD_STACK);
	pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
	pthread_t t;
	int e = pthread_create(&t, &attr, run, sa);
	pthread_attr_destroy(&attr);
	if (e) {
		MHD_resume_connection(u->conn);
		pthread_mutex_lock(&u->lock);
		u->refs--;
		u->state = UPGRADE_NEW;
		pthread_mutex_unlock(&u->lock);
		pool_remove(u);
		free(sa);
		*code = 503;
	}
	return !e;
}

static enum MHD_Result respond(struct proxy_upgrade *u,
			       struct MHD_Connection *c)
{
	pthread_mutex_lock(&u->lock);
	enum upgrade_state st = u->state;
	if (st == UPGRADE_FAILED) {
		unsigned code = u->fail_code;
		char msg[200];
		snprintf(msg, sizeof(msg), "%s", u->fail_msg);
		pthread_mutex_unlock(&u->lock);
		struct proxy_status s = {
			.reason = code == 504 ? PROXY_Timeout :
						PROXY_ServiceUnavailable,
			.message = msg,
			.retry_after = code == 504 ? 0 : 1,
		};
		return proxy_reply_status(c, &s);
	}
	bool upgrade = u->status == 101;
	struct MHD_Response *resp =
		upgrade ?
			MHD_create_response_for_upgrade(on_upgrade, u) :
			MHD_create_response_from_buffer(u->answer.body.len,
							u->answer.body.p,
							MHD_RESPMEM_MUST_COPY);
	for (size_t i = 0; resp && i < u->answer.hdrs.len;) {
		const char *k = u->answer.hdrs.p + i;
		const char *v = k + strlen(k) + 1;
		i = (size_t)(v - u->answer.hdrs.p) + strlen(v) + 1;
		/* libmicrohttpd writes Connection (and, for a body,
		 * Content-Length) itself */
		if (!strcasecmp(k, "Connection") ||
		    !strcasecmp(k, "Content-Length") ||
		    !strcasecmp(k, "Transfer-Encoding") ||
		    !strcasecmp(k, "Keep-Alive") ||
		    (!upgrade && !strcasecmp(k, "Upgrade")))
			continue;
		MHD_add_response_header(resp, k, v);
	}
	unsigned status = u->status;
	pthread_mutex_unlock(&u->lock);
	return proxy_reply_queue(c, status, resp);
}

enum MHD_Result proxy_upgrade_handle(struct proxy_upgrade_pool *pool,
				     struct MHD_Connection *c,
				     const char *target, const char *method,
				     size_t *upload_size,
				     struct proxy_upgrade **state)
{
	struct proxy_upgrade *u = *state;
	if (!u) {
		bool as_proxy;
		u = upgrade_new(pool, c, target, method, &as_proxy);
		if (!u)
			return proxy_reply_error(
				c, PROXY_ServiceUnavailable,
				"informer-proxy cannot forward this request to the "
				"upstream now (see its log)");
		*state = u;
		u->as_proxy = as_proxy;
		return MHD_YES;
	}
	if (*upload_size) {
		u->has_body = true;
		*upload_size = 0;
		return MHD_YES;
	}
	pthread_mutex_lock(&u->lock);
	enum upgrade_state st = u->state;
	pthread_mutex_unlock(&u->lock);
	if (st == UPGRADE_NEW) {
		if (u->has_body)
			return proxy_reply_error(
				c, PROXY_BadRequest,
				"an upgrade request cannot carry a "
				"body");
		unsigned code = 0;
		if (!upgrade_start(u, u->as_proxy, &code)) {
			if (code == 429)
				return proxy_reply_too_many(
					c,
					"too many upgraded streams are open "
					"(%d), please try again later",
					pool->max_streams);
			return proxy_reply_error(
				c, PROXY_ServiceUnavailable,
				"informer-proxy cannot forward this "
				"upgrade request now");
		}
		return MHD_YES;
	}
	if (st == UPGRADE_STARTED) /* resumed early: cannot be, wait on */
		return MHD_YES;
	return respond(u, c);
}

void proxy_upgrade_done(struct proxy_upgrade *u)
{
	if (!u)
		return;
	pthread_mutex_lock(&u->lock);
	if (u->state != UPGRADE_SPLICING && u->state != UPGRADE_DONE)
		u->abandoned = true;
	pthread_cond_signal(&u->cond);
	pthread_mutex_unlock(&u->lock);
	upgrade_put(u);
}

/* ---- the pool ---- */

/* scheme://host[:port][/path] into the pool's fields. */
static int parse_server(struct proxy_upgrade_pool *pool, const char *url,
			char *host, size_t hostlen, char *port, char *prefix,
			char *err, size_t errlen)
{
	const char *p;
	char *end;
	if (!strncmp(url, "https://", 8)) {
		pool->tls = true;
		p = url + 8;
	} else if (!strncmp(url, "http://", 7)) {
		p = url + 7;
	} else {
		snprintf(err, errlen, "upgrade: not an http(s) URL: %s", url);
		return -1;
	}
	size_t auth = strcspn(p, "/");
	const char *hs = p, *he;
	const char *ps = NULL;
	if (*p == '[') {
		he = memchr(p, ']', auth);
		if (!he) {
			snprintf(err, errlen, "upgrade: bad host in %s", url);
			return -1;
		}
		hs = p + 1;
		if (he + 1 < p + auth && he[1] == ':')
			ps = he + 2;
	} else {
		he = memchr(p, ':', auth);
		if (he)
			ps = he + 1;
		else
			he = p + auth;
	}
	size_t hl = (size_t)(he - hs);
	size_t pl = ps ? (size_t)(p + auth - ps) : 0;
	if (!hl || hl >= hostlen || pl >= 8 || strlen(p + auth) >= 256) {
		snprintf(err, errlen, "upgrade: bad server URL %s", url);
		return -1;
	}
	memcpy(host, hs, hl);
	host[hl] = '\0';
	if (ps) {
		memcpy(port, ps, pl);
		port[pl] = '\0';
		long v = strtol(port, &end, 10);
		if (!pl || *end || v < 1 || v > 65535) {
			snprintf(err, errlen, "upgrade: bad port in %s", url);
			return -1;
		}
	} else {
		strcpy(port, pool->tls ? "443" : "80");
	}
	strcpy(prefix, p + auth);
	return 0;
}

struct proxy_upgrade_pool *
proxy_upgrade_pool_new(const struct cache_upstream *up, bool lend_identity,
		       int handshake_s, int max_streams, char *err,
		       size_t errlen)
{
	struct proxy_upgrade_pool *pool = xcalloc(1, sizeof(*pool));
	if (!pool) {
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	pool->up = up;
	pool->lend_identity = lend_identity;
	pool->handshake_s = handshake_s > 0 ? handshake_s : DEFAULT_HANDSHAKE_S;
	pool->max_streams =
		max_streams > 0 ? max_streams : PROXY_UPGRADE_MAX_STREAMS;
	char port[8], vport[8], vprefix[256];
	/* The name to check and send is the URL's (tls-server-name's when
	 * set); the address to reach is the configured server's. */
	if (parse_server(pool, up->server, pool->name, sizeof(pool->name),
			 vport, pool->prefix, err, errlen) ||
	    parse_server(pool,
			 up->creds && up->creds->server ? up->creds->server :
							  up->server,
			 pool->host, sizeof(pool->host), port, vprefix, err,
			 errlen)) {
		free(pool);
		return NULL;
	}
	memcpy(pool->port, port, sizeof(port));
	bool v6 = strchr(pool->name, ':');
	bool dflt = !strcmp(vport, pool->tls ? "443" : "80");
	snprintf(pool->host_hdr, sizeof(pool->host_hdr), "%s%s%s%s%s",
		 v6 ? "[" : "", pool->name, v6 ? "]" : "", dflt ? "" : ":",
		 dflt ? "" : vport);
	pthread_mutex_init(&pool->lock, NULL);
	pthread_cond_init(&pool->cond, NULL);
	if (!proxy_upgrade_supported())
		log_warn("this libmicrohttpd cannot upgrade connections: "
			 "exec, attach, port-forward and cp will fail");
	return pool;
}

int proxy_upgrade_pool_active(struct proxy_upgrade_pool *pool)
{
	pthread_mutex_lock(&pool->lock);
	int n = pool->active;
	pthread_mutex_unlock(&pool->lock);
	return n;
}

void proxy_upgrade_pool_stop(struct proxy_upgrade_pool *pool)
{
	if (!pool || pool->stopped)
		return;
	pthread_mutex_lock(&pool->lock);
	pool->stop = true;
	/* wake every splice out of poll(); handshakes see the flag within
	 * STOP_POLL_MS */
	for (struct proxy_upgrade *u = pool->streams; u; u = u->next) {
		pthread_mutex_lock(&u->lock);
		if (u->dial.fd >= 0)
			shutdown(u->dial.fd, SHUT_RDWR);
		if (u->cfd >= 0)
			shutdown(u->cfd, SHUT_RDWR);
		pthread_cond_signal(&u->cond);
		pthread_mutex_unlock(&u->lock);
	}
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	ts.tv_sec += 10;
	while (pool->active > 0)
		if (pthread_cond_timedwait(&pool->cond, &pool->lock, &ts))
			break;
	if (pool->active)
		log_warn("upgrade: %d streams did not end at shutdown",
			 pool->active);
	pthread_mutex_unlock(&pool->lock);
	pool->stopped = true;
}

void proxy_upgrade_pool_free(struct proxy_upgrade_pool *pool)
{
	if (!pool)
		return;
	proxy_upgrade_pool_stop(pool);
	if (pool->active) /* threads still hold it: leave it to them */
		return;
	pthread_cond_destroy(&pool->cond);
	pthread_mutex_destroy(&pool->lock);
	free(pool);
}
