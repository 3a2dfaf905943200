/*
 * ratelimit: the upstream token bucket (see ratelimit.h).
 */
#include "cache/ratelimit.h"

#include <time.h>

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

void cache_ratelimit_init(struct cache_ratelimit *rl, double qps, double burst)
{
	rl->qps = qps;
	rl->burst = burst < 1 ? 1 : burst;
	rl->tokens = rl->burst;
	rl->last = now_s();
	pthread_mutex_init(&rl->lock, NULL);
}

void cache_ratelimit_destroy(struct cache_ratelimit *rl)
{
	pthread_mutex_destroy(&rl->lock);
}

bool cache_ratelimit_take(struct cache_ratelimit *rl, const bool *stop)
{
	if (!rl || rl->qps <= 0)
		return true;
	for (;;) {
		if (stop && __atomic_load_n(stop, __ATOMIC_ACQUIRE))
			return false;
		pthread_mutex_lock(&rl->lock);
		double t = now_s();
		rl->tokens += (t - rl->last) * rl->qps;
		if (rl->tokens > rl->burst)
			rl->tokens = rl->burst;
		rl->last = t;
		double wait = 0;
		if (rl->tokens >= 1)
			rl->tokens -= 1;
		else
			wait = (1 - rl->tokens) / rl->qps;
		pthread_mutex_unlock(&rl->lock);
		if (wait == 0)
			return true;
		if (wait > 0.05)
			wait = 0.05;
		struct timespec ts = { 0, (long)(wait * 1e9) };
		nanosleep(&ts, NULL);
	}
}
