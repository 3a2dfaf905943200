/*
 * test_rvclock: the clock a quiet resource resumes by: which RV counts
 * as seen by a given time, slots per second, domains per API group, and
 * many threads noting at once.
 */
#include <pthread.h>
#include <stdint.h>

#include "cache/rvclock.h"
#include "names.h"
#include "check.h"

static void test_seen_by(void)
{
	struct cache_rvclock *c = cache_rvclock_for_group("seen.example.com");
	uint64_t rv = 0;
	CHECK(c != NULL);
	CHECK(!cache_rvclock_seen_by(c, 1000000, &rv)); /* nothing yet */
	CHECK(!cache_rvclock_heard_since(c, 0));
	cache_rvclock_note(c, 10, 1000);
	cache_rvclock_note(c, 20, 5000);
	cache_rvclock_note(c, 30, 9000);
	CHECK(!cache_rvclock_seen_by(c, 999, &rv)); /* before the first */
	CHECK(cache_rvclock_seen_by(c, 1000, &rv) && rv == 10);
	CHECK(cache_rvclock_seen_by(c, 4999, &rv) && rv == 10);
	CHECK(cache_rvclock_seen_by(c, 5000, &rv) && rv == 20);
	CHECK(cache_rvclock_seen_by(c, 8999, &rv) && rv == 20);
	CHECK(cache_rvclock_seen_by(c, 100000, &rv) && rv == 30);
	CHECK(cache_rvclock_heard_since(c, 9000));
	CHECK(!cache_rvclock_heard_since(c, 9001));
	/* an older RV seen late (a lagging stream) teaches nothing, and
	 * must not make 30 look as if it was seen later than it was */
	cache_rvclock_note(c, 25, 12000);
	CHECK(!cache_rvclock_heard_since(c, 9001));
	CHECK(cache_rvclock_seen_by(c, 8999, &rv) && rv == 20);
	/* RV 0 is no RV */
	cache_rvclock_note(c, 0, 13000);
	CHECK(!cache_rvclock_heard_since(c, 12001));
	/* a wiped upstream starts again low: after a reset the old, higher
	 * RVs are gone and the new ones count */
	cache_rvclock_reset(c);
	CHECK(!cache_rvclock_seen_by(c, 100000, &rv));
	cache_rvclock_note(c, 3, 14000);
	CHECK(cache_rvclock_seen_by(c, 14000, &rv) && rv == 3);
}

static void test_one_slot_a_second(void)
{
	struct cache_rvclock *c = cache_rvclock_for_group("slots.example.com");
	uint64_t rv = 0;
	/* ten RVs within one second share a slot holding the newest, at
	 * the time it was seen; the second before keeps its own. Asked for
	 * a time inside that second, before its newest, the clock answers
	 * with the slot before: older, never newer than what was seen. */
	cache_rvclock_note(c, 100, 500);
	for (int i = 0; i < 10; i++)
		cache_rvclock_note(c, 200 + (uint64_t)i, 2000 + i * 50);
	CHECK(cache_rvclock_seen_by(c, 2449, &rv) && rv == 100);
	CHECK(cache_rvclock_seen_by(c, 2450, &rv) && rv == 209);
	CHECK(cache_rvclock_seen_by(c, 1999, &rv) && rv == 100);
	/* a steady stream never hides the past: every second keeps a slot */
	for (int i = 0; i < 3000; i++)
		cache_rvclock_note(c, 1000 + (uint64_t)i, 10000 + i * 100);
	/* 300 s of samples, 1024 slots: 290 s ago is still there, to the
	 * second (the newest RV of the second before) */
	CHECK(cache_rvclock_seen_by(c, 10000 + 100 * 100 + 50, &rv) &&
	      rv == 1099);
	CHECK(cache_rvclock_seen_by(c, 10000 + 2999 * 100, &rv) && rv == 3999);
}

static void test_domains(void)
{
	struct cache_rvclock *core = cache_rvclock_for_group("");
	CHECK(core != NULL);
	CHECK(cache_rvclock_for_group("apps") == core);
	CHECK(cache_rvclock_for_group("batch") == core);
	CHECK(cache_rvclock_for_group("coordination.k8s.io") == core);
	CHECK(cache_rvclock_for_group("discovery.k8s.io") == core);
	/* an aggregated API and custom resources keep their own RVs */
	CHECK(cache_rvclock_for_group("metrics.k8s.io") != core);
	struct cache_rvclock *w = cache_rvclock_for_group("example.com");
	CHECK(w != core && w != NULL);
	CHECK(cache_rvclock_for_group("example.com") == w);
	CHECK(cache_rvclock_for_group("other.example.com") != w);
	/* a group as long as a DNS name gets a clock of its own too */
	char longg[254];
	names_group(longg);
	struct cache_rvclock *l = cache_rvclock_for_group(longg);
	CHECK(l != NULL && l != w && l != core);
	CHECK(cache_rvclock_for_group(longg) == l);
	/* what one domain sees does not move another */
	uint64_t rv = 0;
	cache_rvclock_note(core, 5000, 1000);
	CHECK(!cache_rvclock_seen_by(w, 2000, &rv));
}

struct noter {
	struct cache_rvclock *c;
	uint64_t base;
};

static void *note_many(void *arg)
{
	struct noter *n = arg;
	for (uint64_t i = 0; i < 20000; i++)
		cache_rvclock_note(n->c, n->base + i, (int64_t)i);
	return NULL;
}

static void test_threads(void)
{
	struct cache_rvclock *c =
		cache_rvclock_for_group("threads.example.com");
	pthread_t t[4];
	struct noter n[4];
	for (int i = 0; i < 4; i++) {
		n[i] = (struct noter){ c, (uint64_t)i * 7 };
		pthread_create(&t[i], NULL, note_many, &n[i]);
	}
	for (int i = 0; i < 4; i++)
		pthread_join(t[i], NULL);
	uint64_t rv = 0;
	CHECK(cache_rvclock_seen_by(c, 1 << 30, &rv) && rv == 3 * 7 + 19999);
	/* RVs rise with time whatever the interleaving */
	uint64_t prev = 0;
	bool rising = true;
	for (int64_t at = 0; at < 20000; at += 997) {
		if (cache_rvclock_seen_by(c, at, &rv)) {
			rising &= rv >= prev;
			prev = rv;
		}
	}
	CHECK(rising);
}

int main(void)
{
	test_seen_by();
	test_one_slot_a_second();
	test_domains();
	test_threads();
	return check_done("rvclock");
}
