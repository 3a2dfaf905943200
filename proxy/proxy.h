/*
 * proxy: the running program's one shared state, and the questions every
 * part asks of it.
 *
 * main.c creates struct proxy, server.c starts and stops it, and every
 * handler reads it. Fields are set before proxy_server_start() returns and read
 * without a lock afterwards, except those marked atomic and the
 * reflector array, which a reload appends to (see proxy_nres()). The
 * array and its members live until proxy_server_stop() returns.
 *
 * Threads: the questions below may be asked from any thread; the
 * results of proxy_find()/proxy_find_kind() are reflectors of p->res,
 * valid until proxy_server_stop() returns, never freed by the caller.
 */
#ifndef PROXY_PROXY_H
#define PROXY_PROXY_H

#include <microhttpd.h>
#include <pthread.h>
#include <stdbool.h>
#include <sys/types.h>

#include "cache/resource.h"
#include "config/flags.h"
#include "proxy/route.h"

struct proxy_pass_pool;
struct proxy_upgrade_pool;
struct proxy_discovery;
struct proxy_fresh;
struct proxy_encode;
struct proxy_ahead_pool;
struct proxy_authn;
struct proxy_revoke;
struct proxy_conns;
struct proxy_tls;
struct proxy_origin;
struct proxy_reload;
struct proxy_observe;
struct proxy_fanout;

/* Reflectors one process may have made, reloads included. */
#define PROXY_MAX_REFLECTORS 1024

struct proxy {
	const struct config *cfg;
	const struct cache_upstream *up;
	struct proxy_pass_pool *pass;	    /* pass/pass.h */
	struct proxy_upgrade_pool *upgrade; /* pass/upgrade.h */
	struct proxy_discovery *disc;
	struct proxy_fresh *fresh;
	struct proxy_encode
		*encode; /* encode.h; NULL: on the reader's thread */
	struct proxy_ahead_pool *ahead; /* ahead.h; NULL: by the sender */
	struct proxy_authn *authn;	/* --client-auth=delegated, else NULL */
	struct proxy_revoke *revoke; /* authn's RBAC watch; NULL: TTLs only */
	struct proxy_conns *conns;   /* connection and watch limits */
	long nofile; /* RLIMIT_NOFILE, set by main (<= 0: unknown) */
	/* The reflectors, room for PROXY_MAX_REFLECTORS: a reload
	 * (reload.h) appends, never moves or shrinks, and marks removed
	 * ones retired; read the count with proxy_nres() */
	struct cache_resource **res;
	int nres;
	struct proxy_reload *reload; /* --config reloads, or NULL */
	struct proxy_observe *obs;   /* request histograms (observe.h) */
	struct proxy_fanout *fanout; /* idle watch streams (fanout.h) */
	struct MHD_Daemon *daemon;   /* --listen */
	struct MHD_Daemon *udaemon;  /* --unix-socket, or NULL */
	struct MHD_Daemon *mdaemon;  /* --metrics-listen, or NULL */
	int metrics_port;	     /* its bound port */
	bool made_socket; /* the --unix-socket path is ours to remove */
	dev_t socket_dev; /* and the file it is, checked before */
	ino_t socket_ino;
	struct proxy_tls *tls;	     /* --tls-cert-file, or NULL: front/tls.h */
	struct proxy_origin *origin; /* --client-auth=none: front/origin.h */
	int port;		     /* the bound port */
	bool inited; /* proxy_server_start got far enough to stop */
	bool ticking;
	pthread_t ticker;
	bool stopping;	 /* atomic */
	bool draining;	 /* atomic; proxy_server_drain() has begun */
	int stand_in[2]; /* daemon and udaemon: the descriptor that takes
			  * the listening socket's place when they stop
			  * taking connections (front/listen.h); set when
			  * the daemon is, -1 once used */
	pthread_mutex_t tick_lock; /* with tick_cond: wakes the ticker early */
	pthread_cond_t tick_cond;
};

/* How many entries of p->res are set (acquire: each is whole). */
static inline int proxy_nres(const struct proxy *p)
{
	return __atomic_load_n(&p->nres, __ATOMIC_ACQUIRE);
}

/* True once proxy_server_stop() has begun: a watch must not suspend again. */
bool proxy_stopping(const struct proxy *p);
/* True once proxy_server_drain() (SIGTERM) or proxy_server_stop() has begun: local
 * watches end, /readyz fails its shutdown check. */
bool proxy_draining(const struct proxy *p);
/* The cached resource for a parsed route whose scope holds the route's
 * namespace (a namespace-scoped cache answers only its namespace), or
 * NULL. */
struct cache_resource *proxy_find(struct proxy *p,
				  const struct proxy_route *rt);
/* The first cached resource of the route's kind, whatever its scope, or
 * NULL: where a request passed through for scope is counted. */
struct cache_resource *proxy_find_kind(struct proxy *p,
				       const struct proxy_route *rt);

#endif
