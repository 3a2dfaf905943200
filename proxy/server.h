/*
 * server: the local HTTP side. One libmicrohttpd daemon (epoll, a small
 * thread pool, suspend/resume for watches) routes each request to the
 * list, get, watch or health handler.
 *
 * struct proxy is created once by main and read by every handler; the
 * resources array and its members live until proxy_stop() returns.
 */
#ifndef PROXY_SERVER_H
#define PROXY_SERVER_H

#include <microhttpd.h>
#include <pthread.h>
#include <stdbool.h>

#include "cache/reflector.h"
#include "config/flags.h"
#include "proxy/authn.h"
#include "proxy/conns.h"
#include "proxy/discovery.h"
#include "proxy/fresh.h"
#include "proxy/passthrough.h"
#include "proxy/route.h"

struct proxy {
	const struct config *cfg;
	const struct cache_upstream *up;
	struct proxy_pt_pool *pt;	/* passthrough */
	struct proxy_discovery *disc;
	struct proxy_fresh *fresh;
	struct proxy_authn *authn;	/* --client-auth=delegated, else NULL */
	struct proxy_conns *conns;	/* connection and watch limits */
	long nofile;			/* RLIMIT_NOFILE, set by main (<= 0: unknown) */
	struct cache_resource **res;	/* cfg->nresources of them */
	int nres;
	struct MHD_Daemon *daemon;	/* --listen */
	struct MHD_Daemon *udaemon;	/* --unix-socket, or NULL */
	bool made_socket;		/* the --unix-socket path is ours to remove */
	struct proxy_tls *tls;		/* --tls-cert-file, or NULL: serve_tls.h */
	int port;			/* the bound port */
	bool inited;			/* proxy_start got far enough to stop */
	bool ticking;
	pthread_t ticker;
	bool stopping;			/* atomic */
	pthread_mutex_t tick_lock;	/* with tick_cond: wakes the ticker early */
	pthread_cond_t tick_cond;
};

/* Start listening; logs "listening on http://HOST:PORT" (https:// with
 * --tls-cert-file; the unix socket stays plain HTTP). Returns 0 or
 * -errno with err set. */
int proxy_start(struct proxy *p, char *err, size_t errlen);
/* End every watch, stop the daemon and the ticker. Reflectors are the
 * caller's. */
void proxy_stop(struct proxy *p);
/* Free what the reflectors may still call into; after they stopped. */
void proxy_release(struct proxy *p);

bool proxy_stopping(const struct proxy *p);
/* The cached resource for a parsed route, or NULL. */
struct cache_resource *proxy_find(struct proxy *p, const struct proxy_route *rt);

/* True when the client has closed its side: a suspended connection does
 * not notice that by itself, so readers check before they sleep again. */
bool proxy_client_gone(struct MHD_Connection *c);
/* A query argument: true if present (value may be "" for "?k" or "?k="). */
bool proxy_arg(struct MHD_Connection *c, const char *name, const char **val);

/* The state of one request the cache answers, across the calls of the
 * access handler (a read that waits for freshness is called again when
 * it is resumed). */
struct proxy_req {
	bool waited;			/* wait holds the outcome */
	bool upstream;			/* a read the upstream must answer */
	struct proxy_wait wait;
};

/* For a WATCH: make the request wait, suspended, until the cache has
 * reached rv, or for rv 0 until it is as new as the upstream was when
 * the request came, for a short while (see fresh.h). Returns 0 to go on,
 * or 1 with *res set: suspended (the handler runs again when it is
 * resumed) or answered (504 when rv was not reached in time). */
int proxy_await_rv(struct proxy *p, struct MHD_Connection *c,
		   struct cache_resource *r, uint64_t rv, struct proxy_req *req,
		   enum MHD_Result *res);

/* Handlers (list.c, watch.c, health.c). */
enum MHD_Result proxy_handle_list(struct proxy *p, struct MHD_Connection *c,
				  struct cache_resource *r,
				  const struct proxy_route *rt,
				  struct proxy_req *req);
enum MHD_Result proxy_handle_get(struct proxy *p, struct MHD_Connection *c,
				 struct cache_resource *r,
				 const struct proxy_route *rt,
				 struct proxy_req *req);
enum MHD_Result proxy_handle_watch(struct proxy *p, struct MHD_Connection *c,
				   struct cache_resource *r,
				   const struct proxy_route *rt);
/* Returns MHD_YES/NO if url was a health path, or -1 if it was not. */
int proxy_handle_health(struct proxy *p, struct MHD_Connection *c,
			const char *url);

#endif
