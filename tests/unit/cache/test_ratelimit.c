/*
 * test_ratelimit: the upstream token bucket: no limit, a burst taken at
 * once, the rate after it, and a stop flag that ends a wait.
 */
#include <pthread.h>
#include <stdbool.h>
#include <time.h>

#include "cache/ratelimit.h"
#include "check.h"

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

static void test_unlimited(void)
{
	struct cache_ratelimit rl;
	CHECK(cache_ratelimit_take(NULL, NULL));
	cache_ratelimit_init(&rl, 0, 1);
	double t0 = now_s();
	for (int i = 0; i < 10000; i++)
		CHECK(cache_ratelimit_take(&rl, NULL));
	CHECK(now_s() - t0 < 1);
	cache_ratelimit_destroy(&rl);
}

static void test_burst_then_rate(void)
{
	struct cache_ratelimit rl;
	cache_ratelimit_init(&rl, 50, 5);
	double t0 = now_s();
	for (int i = 0; i < 5; i++)
		CHECK(cache_ratelimit_take(&rl, NULL));
	CHECK(now_s() - t0 < 0.05); /* the burst is there at once */
	for (int i = 0; i < 10; i++)
		CHECK(cache_ratelimit_take(&rl, NULL));
	double took = now_s() - t0;
	CHECK(took >= 0.17 && took < 2); /* 10 more at 50/s: ~0.2 s */
	cache_ratelimit_destroy(&rl);

	cache_ratelimit_init(&rl, 1000, 0); /* burst below 1 means 1 */
	CHECK(rl.burst == 1);
	cache_ratelimit_destroy(&rl);
}

static bool stop;

static void *stopper(void *arg)
{
	struct timespec ts = { 0, 100 * 1000 * 1000 };
	nanosleep(&ts, NULL);
	__atomic_store_n(&stop, true, __ATOMIC_RELEASE);
	return NULL;
}

static void test_stop(void)
{
	struct cache_ratelimit rl;
	pthread_t t;
	cache_ratelimit_init(&rl, 0.01, 1); /* one token per 100 s */
	CHECK(cache_ratelimit_take(&rl, &stop));
	pthread_create(&t, NULL, stopper, NULL);
	double t0 = now_s();
	CHECK(!cache_ratelimit_take(&rl, &stop));
	CHECK(now_s() - t0 < 5);
	pthread_join(t, NULL);
	CHECK(!cache_ratelimit_take(&rl, &stop)); /* already stopped */
	cache_ratelimit_destroy(&rl);
}

int main(void)
{
	test_unlimited();
	test_burst_then_rate();
	test_stop();
	return check_done("ratelimit");
}
