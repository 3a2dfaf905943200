/*
 * rvclock: upstream resourceVersions by the time they were seen (see
 * rvclock.h).
 *
 * A clock is a ring of (time, rv) samples with rising RVs. Samples in
 * the same second share a slot: the newer RV replaces the older one and
 * takes its time, so a slot's time is always when its RV was seen.
 * 1024 slots hold at least 17 minutes, beyond any settle time.
 */
#include "cache/rvclock.h"

#include <pthread.h>
#include <string.h>
#include <time.h>

#define SLOTS 1024
#define SLOT_MS 1000
#define DOMAINS 64

struct sample {
	int64_t at_ms;
	uint64_t rv;
};

struct cache_rvclock {
	char group[254]; /* "" for the built-in domain; any DNS name fits */
	pthread_mutex_t lock;
	struct sample s[SLOTS]; /* locked */
	unsigned head, n;	/* locked; s[head] is the newest */
};

static struct cache_rvclock clocks[DOMAINS];
static int nclocks;
static pthread_mutex_t clocks_lock = PTHREAD_MUTEX_INITIALIZER;

/* Groups served by kube-apiserver itself, from one etcd. */
static bool builtin_group(const char *g)
{
	static const char *const groups[] = {
		"", "apps", "batch", "autoscaling", "policy",
	};
	for (size_t i = 0; i < sizeof(groups) / sizeof(groups[0]); i++)
		if (!strcmp(g, groups[i]))
			return true;
	/* x.k8s.io groups are the project's own, except the aggregated
	 * metrics APIs, which have no watch and RVs of their own. */
	static const char suffix[] = ".k8s.io";
	size_t n = strlen(g), ns = sizeof(suffix) - 1;
	return n > ns && !strcmp(g + n - ns, suffix) && !strstr(g, "metrics");
}

struct cache_rvclock *cache_rvclock_for_group(const char *group)
{
	const char *key = builtin_group(group) ? "" : group;
	struct cache_rvclock *c = NULL;
	if (strlen(key) >= sizeof(clocks[0].group))
		return NULL;
	pthread_mutex_lock(&clocks_lock);
	for (int i = 0; i < nclocks && !c; i++)
		if (!strcmp(clocks[i].group, key))
			c = &clocks[i];
	if (!c && nclocks < DOMAINS) {
		c = &clocks[nclocks++];
		strcpy(c->group, key);
		pthread_mutex_init(&c->lock, NULL);
	}
	pthread_mutex_unlock(&clocks_lock);
	return c;
}

int64_t cache_rvclock_now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

void cache_rvclock_note(struct cache_rvclock *c, uint64_t rv, int64_t at_ms)
{
	if (!c || !rv)
		return;
	pthread_mutex_lock(&c->lock);
	struct sample *top = c->n ? &c->s[c->head] : NULL;
	if (top && rv <= top->rv) {
		/* nothing new; an older RV seen late teaches nothing */
	} else if (top && at_ms / SLOT_MS == top->at_ms / SLOT_MS) {
		top->rv = rv;
		top->at_ms = at_ms;
	} else {
		c->head = (c->head + 1) % SLOTS;
		if (c->n < SLOTS)
			c->n++;
		c->s[c->head] = (struct sample){ at_ms, rv };
	}
	pthread_mutex_unlock(&c->lock);
}

bool cache_rvclock_seen_by(struct cache_rvclock *c, int64_t at_ms, uint64_t *rv)
{
	bool found = false;
	if (!c)
		return false;
	pthread_mutex_lock(&c->lock);
	for (unsigned i = 0; i < c->n; i++) {
		const struct sample *s = &c->s[(c->head + SLOTS - i) % SLOTS];
		if (s->at_ms <= at_ms) {
			*rv = s->rv;
			found = true;
			break;
		}
	}
	pthread_mutex_unlock(&c->lock);
	return found;
}

void cache_rvclock_reset(struct cache_rvclock *c)
{
	if (!c)
		return;
	pthread_mutex_lock(&c->lock);
	c->n = 0;
	pthread_mutex_unlock(&c->lock);
}

bool cache_rvclock_heard_since(struct cache_rvclock *c, int64_t since_ms)
{
	if (!c)
		return false;
	pthread_mutex_lock(&c->lock);
	bool yes = c->n && c->s[c->head].at_ms >= since_ms;
	pthread_mutex_unlock(&c->lock);
	return yes;
}
