/*
 * revoke: cached delegated-auth decisions dropped when the RBAC objects
 * or ServiceAccounts change upstream (see revoke.h).
 */
#include "proxy/front/revoke.h"

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "cache/rcu.h"
#include "cache/reflector.h"
#include "cache/resource.h"
#include "cache/rvclock.h"
#include "config/alloc.h"
#include "config/log.h"

#define RBAC "rbac.authorization.k8s.io"
#define NKINDS 5
#define HISTORY 64	       /* nobody reads it but the reflector */
#define REFUSED_AFTER_MS 30000 /* how long the first sync may take to tell */

#define RK(r, k, ns)                            \
	{                                       \
		RBAC, "v1", r, k, k "List", ns, \
		{                               \
			NULL                    \
		}                               \
	}

static const struct cache_kind rbac_kinds[] = {
	RK("roles", "Role", true),
	RK("rolebindings", "RoleBinding", true),
	RK("clusterroles", "ClusterRole", false),
	RK("clusterrolebindings", "ClusterRoleBinding", false),
};

struct watched {
	struct cache_resource *res;
	bool service_accounts; /* the kind is ServiceAccounts */
	uint64_t seen;	       /* its reflector's: events and lists told */
};

struct proxy_revoke {
	struct proxy_authn *authn;
	struct watched w[NKINDS];
	int n;
	pthread_t thread; /* the first sync's watcher */
	bool running;
	bool stop; /* lock */
	pthread_mutex_t lock;
	pthread_cond_t cond;
};

/* On w's reflector thread, after each change it published: an event or
 * a list is a change of what decides access; a move of the resume point
 * alone is not. */
static void on_progress(void *ctx, struct cache_resource *res)
{
	struct proxy_revoke *r = ctx;
	for (int i = 0; i < r->n; i++) {
		struct watched *w = &r->w[i];
		if (w->res != res)
			continue;
		uint64_t seen =
			__atomic_load_n(&res->stats.events, __ATOMIC_RELAXED) +
			__atomic_load_n(&res->stats.lists, __ATOMIC_RELAXED);
		if (seen != w->seen) {
			w->seen = seen;
			proxy_authn_forget(r->authn, w->service_accounts);
		}
	}
}

static const char *kind_name(const struct cache_kind *k, char *out, size_t cap)
{
	snprintf(out, cap, "%s%s%s", k->resource, k->group[0] ? "." : "",
		 k->group);
	return out;
}

/* Until every kind has synced or been refused (or REFUSED_AFTER_MS has
 * passed on the monotonic clock: a step of the wall clock neither ends
 * the wait nor stretches it), then say in one line which ones may not be
 * watched. */
static void *first_sync(void *arg)
{
	struct proxy_revoke *r = arg;
	int64_t began = cache_rvclock_now_ms();
	for (;;) {
		char refused[512] = "", name[160];
		int pending = 0, nrefused = 0;
		bool no[NKINDS] = { false };
		long code = 0;
		for (int i = 0; i < r->n; i++) {
			struct cache_resource *res = r->w[i].res;
			long c = __atomic_load_n(&res->last_http_status,
						 __ATOMIC_RELAXED);
			if (cache_resource_synced(res))
				continue;
			/* 404: an upstream that does not serve the kind */
			if (c == 401 || c == 403 || c == 404) {
				no[i] = true;
				code = c;
				size_t l = strlen(refused);
				snprintf(refused + l, sizeof(refused) - l,
					 "%s%s", nrefused++ ? ", " : "",
					 kind_name(res->kind, name,
						   sizeof(name)));
			} else {
				pending++;
			}
		}
		bool late = cache_rvclock_now_ms() - began >= REFUSED_AFTER_MS;
		if (!pending && !nrefused) {
			log_info("delegated auth: watching RBAC objects and "
				 "ServiceAccounts: a revoked grant is "
				 "forgotten as soon as the upstream tells");
			break;
		}
		if (nrefused && (!pending || late)) {
			log_warn(
				"delegated auth: the upstream refused to let the "
				"proxy list %s (%ld): a revoked grant is "
				"forgotten only when its cached decision "
				"expires (--authn-allow-ttl); grant list and "
				"watch on roles, rolebindings, clusterroles, "
				"clusterrolebindings and serviceaccounts to "
				"forget it in seconds (then restart the "
				"proxy)",
				refused, code);
			/* no retries that would fail alike */
			for (int i = 0; i < r->n; i++)
				if (no[i])
					cache_resource_ask_stop(r->w[i].res);
			break;
		}
		if (late)
			break; /* unreachable: main says why */
		struct timespec ts;
		clock_gettime(CLOCK_MONOTONIC, &ts); /* the cond's clock */
		ts.tv_nsec += 200 * 1000000L;
		if (ts.tv_nsec >= 1000000000L) {
			ts.tv_sec++;
			ts.tv_nsec -= 1000000000L;
		}
		pthread_mutex_lock(&r->lock);
		if (!r->stop)
			pthread_cond_timedwait(&r->cond, &r->lock, &ts);
		bool stop = r->stop;
		pthread_mutex_unlock(&r->lock);
		if (stop)
			break;
	}
	return NULL;
}

struct proxy_revoke *proxy_revoke_start(const struct cache_upstream *up,
					struct proxy_authn *a)
{
	struct proxy_revoke *r = xcalloc(1, sizeof(*r));
	if (!r)
		goto fail;
	r->authn = a;
	pthread_mutex_init(&r->lock, NULL);
	pthread_condattr_t ca;
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&r->cond, &ca);
	pthread_condattr_destroy(&ca);
	const struct cache_kind *kinds[NKINDS] = {
		&rbac_kinds[0], &rbac_kinds[1], &rbac_kinds[2], &rbac_kinds[3],
		cache_kind_find("", "serviceaccounts")
	};
	for (int i = 0; i < NKINDS; i++) {
		struct watched *w = &r->w[i];
		if (!kinds[i] ||
		    !(w->res = cache_resource_new(kinds[i], up, HISTORY)))
			goto fail_free;
		r->n++;
		w->service_accounts = kinds[i]->group[0] == '\0';
		/* its failures are this module's to tell, in one line */
		w->res->quiet_start = true;
		w->res->on_progress = on_progress;
		__atomic_store_n(&w->res->on_progress_ctx, r, __ATOMIC_RELEASE);
	}
	for (int i = 0; i < r->n; i++)
		if (cache_reflector_start(r->w[i].res))
			goto fail_free;
	if (pthread_create(&r->thread, NULL, first_sync, r))
		goto fail_free;
	r->running = true;
	return r;
fail_free:
	proxy_revoke_free(r);
fail:
	log_warn("delegated auth: cannot watch RBAC objects (out of memory "
		 "or threads): a revoked grant is forgotten only when its "
		 "cached decision expires");
	return NULL;
}

void proxy_revoke_stop(struct proxy_revoke *r)
{
	if (!r)
		return;
	pthread_mutex_lock(&r->lock);
	r->stop = true;
	pthread_cond_broadcast(&r->cond);
	pthread_mutex_unlock(&r->lock);
	for (int i = 0; i < r->n; i++) /* all at once, then join each */
		cache_resource_ask_stop(r->w[i].res);
	for (int i = 0; i < r->n; i++)
		cache_reflector_stop(r->w[i].res);
	if (r->running)
		pthread_join(r->thread, NULL);
	r->running = false;
}

void proxy_revoke_free(struct proxy_revoke *r)
{
	if (!r)
		return;
	proxy_revoke_stop(r);
	rcu_barrier(); /* the stores' old versions, freed after a grace */
	for (int i = 0; i < r->n; i++)
		cache_resource_free(r->w[i].res);
	pthread_mutex_destroy(&r->lock);
	pthread_cond_destroy(&r->cond);
	free(r);
}
