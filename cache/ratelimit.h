/*
 * ratelimit: a token bucket over every request the proxy itself makes
 * upstream (LIST pages, WATCHes, freshness probes, discovery), as
 * client-go's QPS/Burst limiter does. Requests passed through for clients
 * are theirs and are not counted.
 *
 * Thread-safe; waiting sleeps in short steps so that a stop flag is seen.
 */
#ifndef CACHE_RATELIMIT_H
#define CACHE_RATELIMIT_H

#include <pthread.h>
#include <stdbool.h>

struct cache_ratelimit {
	double qps, burst;
	pthread_mutex_t lock;
	double tokens; /* locked */
	double last;   /* locked; monotonic seconds */
};

/* qps <= 0 means no limit. */
void cache_ratelimit_init(struct cache_ratelimit *rl, double qps, double burst);
void cache_ratelimit_destroy(struct cache_ratelimit *rl);
/* Take a token, sleeping until one is there. Returns false if *stop
 * (atomic, may be NULL) turned true meanwhile. */
bool cache_ratelimit_take(struct cache_ratelimit *rl, const bool *stop);

#endif
