/*
 * request: what every handler needs from the request it answers and
 * from the proxy it runs in.
 *
 * struct proxy is created once by main, started by server.c and read by
 * every handler; the resources array and its members live until
 * proxy_stop() returns. The helpers here read the query, find the cached
 * resource a route names, notice a client that has gone, and queue a
 * built response. Handlers include this header, never server.h: server.c
 * dispatches to them, not the other way round.
 */
#ifndef PROXY_REQUEST_H
#define PROXY_REQUEST_H

#include <microhttpd.h>
#include <pthread.h>
#include <stdbool.h>

#include "cache/reflector.h"
#include "config/buf.h"
#include "config/flags.h"
#include "proxy/route.h"

struct proxy_pt_pool;
struct proxy_up_pool;
struct proxy_discovery;
struct proxy_fresh;
struct proxy_authn;
struct proxy_conns;
struct proxy_tls;
struct proxy_reload;
struct proxy_observe;

/* Reflectors one process may have made, reloads included. */
#define PROXY_MAX_REFLECTORS 1024

struct proxy {
	const struct config *cfg;
	const struct cache_upstream *up;
	struct proxy_pt_pool *pt;  /* passthrough */
	struct proxy_up_pool *upg; /* upgrade requests */
	struct proxy_discovery *disc;
	struct proxy_fresh *fresh;
	struct proxy_authn *authn; /* --client-auth=delegated, else NULL */
	struct proxy_conns *conns; /* connection and watch limits */
	long nofile; /* RLIMIT_NOFILE, set by main (<= 0: unknown) */
	/* The reflectors, room for PROXY_MAX_REFLECTORS: a reload
	 * (reload.h) appends, never moves or shrinks, and marks removed
	 * ones retired; read the count with proxy_nres() */
	struct cache_resource **res;
	int nres;
	struct proxy_reload *reload; /* --config reloads, or NULL */
	struct proxy_observe *obs;   /* request histograms (observe.h) */
	struct MHD_Daemon *daemon;   /* --listen */
	struct MHD_Daemon *udaemon;  /* --unix-socket, or NULL */
	bool made_socket;      /* the --unix-socket path is ours to remove */
	struct proxy_tls *tls; /* --tls-cert-file, or NULL: front/tls.h */
	int port;	       /* the bound port */
	bool inited;	       /* proxy_start got far enough to stop */
	bool ticking;
	pthread_t ticker;
	bool stopping;	    /* atomic */
	bool draining;	    /* atomic; proxy_drain() has begun */
	int quiesced_fd[2]; /* listeners taken back from the daemons, closed
			     * after they stop; -1 (or 0 before start): none */
	pthread_mutex_t tick_lock; /* with tick_cond: wakes the ticker early */
	pthread_cond_t tick_cond;
};

/* How many entries of p->res are set (acquire: each is whole). */
static inline int proxy_nres(const struct proxy *p)
{
	return __atomic_load_n(&p->nres, __ATOMIC_ACQUIRE);
}

/* True once proxy_stop() has begun: a watch must not suspend again. */
bool proxy_stopping(const struct proxy *p);
/* True once proxy_drain() (SIGTERM) or proxy_stop() has begun: local
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

/* True when the client has closed its side: a suspended connection does
 * not notice that by itself, so readers check before they sleep again. */
bool proxy_client_gone(struct MHD_Connection *c);
/* A query argument: true if present (value may be "" for "?k" or "?k="). */
bool proxy_arg(struct MHD_Connection *c, const char *name, const char **val);
/* True for ?name=true or ?name=1 (any case for "true"). */
bool proxy_arg_true(struct MHD_Connection *c, const char *name);

/* Queue resp with status code and drop our reference to it. resp may be
 * NULL (building it failed): then MHD_NO, which closes the connection. */
enum MHD_Result proxy_request_queue(struct MHD_Connection *c, unsigned code,
				    struct MHD_Response *resp);
/* A response that owns the len bytes at p (malloc'd), or NULL with p
 * freed. */
struct MHD_Response *proxy_request_owned(char *p, size_t len);
/* The same for what b holds; b is left empty. NULL, with b freed, when
 * b failed to grow or the response could not be made. */
struct MHD_Response *proxy_request_from_buf(struct buf *b);
/* Queue a copy of the text body with this Content-Type. */
enum MHD_Result proxy_request_text(struct MHD_Connection *c, unsigned code,
				   const char *type, const char *body);

#endif
