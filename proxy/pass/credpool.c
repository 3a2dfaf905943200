/*
 * credpool: one upstream connection pool per credential (see
 * credpool.h).
 *
 * The pools are a small array searched whole: max is tens, and a search
 * is a few memcmp()s beside a request's libcurl work.
 */
#include "proxy/pass/credpool.h"

#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "config/alloc.h"
#include "config/digest.h"

struct slot {
	bool used;
	struct proxy_credpool_key key;
	CURLSH *share;
	int users;	 /* transfers holding share */
	int64_t last_ms; /* when the last one took or put it */
};

struct proxy_credpool {
	size_t max;
	int64_t idle_ms;
	uint64_t evicted;
	struct slot *slots; /* max of them */
};

int proxy_credpool_key(struct proxy_credpool_key *k,
		       enum proxy_credpool_who who, const char *authz)
{
	unsigned char tag = (unsigned char)who;
	bool client = who == PROXY_CREDPOOL_CLIENT && authz;
	return config_sha256(&tag, 1, client ? authz : NULL,
			     client ? strlen(authz) : 0, k->d);
}

struct proxy_credpool *proxy_credpool_new(size_t max, int64_t idle_ms)
{
	struct proxy_credpool *cp = xcalloc(1, sizeof(*cp));
	if (!cp)
		return NULL;
	cp->max = max ? max : 1;
	cp->idle_ms = idle_ms;
	cp->slots = xcalloc(cp->max, sizeof(*cp->slots));
	if (!cp->slots) {
		free(cp);
		return NULL;
	}
	return cp;
}

/* Close s's connections and free it. */
static void close_slot(struct slot *s)
{
	curl_share_cleanup(s->share);
	memset(s, 0, sizeof(*s));
}

void proxy_credpool_free(struct proxy_credpool *cp)
{
	if (!cp)
		return;
	for (size_t i = 0; i < cp->max; i++)
		if (cp->slots[i].used)
			close_slot(&cp->slots[i]);
	free(cp->slots);
	free(cp);
}

static CURLSH *new_share(void)
{
	CURLSH *sh = curl_share_init();
	if (!sh)
		return NULL;
	/* the connection cache, and with it nothing else: DNS and TLS
	 * sessions say nothing of who a request is */
	if (curl_share_setopt(sh, CURLSHOPT_SHARE, CURL_LOCK_DATA_CONNECT)) {
		curl_share_cleanup(sh);
		return NULL;
	}
	return sh;
}

CURLSH *proxy_credpool_take(struct proxy_credpool *cp,
			    const struct proxy_credpool_key *k, int64_t now_ms)
{
	struct slot *free_slot = NULL, *lru = NULL;
	for (size_t i = 0; i < cp->max; i++) {
		struct slot *s = &cp->slots[i];
		if (!s->used) {
			if (!free_slot)
				free_slot = s;
			continue;
		}
		if (!memcmp(&s->key, k, sizeof(*k))) {
			s->users++;
			s->last_ms = now_ms;
			return s->share;
		}
		if (!s->users && (!lru || s->last_ms < lru->last_ms))
			lru = s;
	}
	struct slot *s = free_slot;
	if (!s && lru) {
		close_slot(lru);
		cp->evicted++;
		s = lru;
	}
	if (!s)
		return NULL; /* every pool is in use */
	CURLSH *sh = new_share();
	if (!sh)
		return NULL;
	*s = (struct slot){
		.used = true,
		.key = *k,
		.share = sh,
		.users = 1,
		.last_ms = now_ms,
	};
	return sh;
}

void proxy_credpool_put(struct proxy_credpool *cp, CURLSH *sh, int64_t now_ms)
{
	if (!sh)
		return;
	for (size_t i = 0; i < cp->max; i++) {
		struct slot *s = &cp->slots[i];
		if (s->used && s->share == sh) {
			if (s->users > 0)
				s->users--;
			s->last_ms = now_ms;
			return;
		}
	}
}

size_t proxy_credpool_sweep(struct proxy_credpool *cp, int64_t now_ms)
{
	size_t n = 0;
	for (size_t i = 0; i < cp->max; i++) {
		struct slot *s = &cp->slots[i];
		if (s->used && !s->users &&
		    now_ms - s->last_ms >= cp->idle_ms) {
			close_slot(s);
			n++;
		}
	}
	return n;
}

size_t proxy_credpool_open(const struct proxy_credpool *cp)
{
	size_t n = 0;
	for (size_t i = 0; i < cp->max; i++)
		n += cp->slots[i].used;
	return n;
}

uint64_t proxy_credpool_evicted(const struct proxy_credpool *cp)
{
	return cp->evicted;
}
