/*
 * test_history: the event ring: encoding, cursors, start positions,
 * overwrite detection, the floor, waiters and reset; a capacity that is
 * not a power of two is kept exactly; a batch of events wakes each
 * waiter once.
 */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <urcu-bp.h>

#include "cache/history.h"
#include "cache/shape.h"
#include "config/alloc.h"
#include "check.h"

static struct cache_obj *mk(const char *name, unsigned rv)
{
	char js[256];
	snprintf(js, sizeof(js),
		 "{\"metadata\":{\"name\":\"%s\",\"namespace\":\"ns\","
		 "\"resourceVersion\":\"%u\"}}",
		 name, rv);
	return cache_obj_parse(cache_kind_lookup("pods"), js, strlen(js), false,
			       NULL, 0);
}

static int woken;
static void on_wake(struct cache_waiter *w)
{
	woken++;
}

static bool refuse(struct cache_waiter *w)
{
	return false;
}

/* --history 10 keeps 10 events, not the 16 slots of its ring: memory
 * holds what the flag says, and a watch from before them gets 410. */
static void test_exact_capacity(void)
{
	struct cache_history *h = cache_history_new(10, 100);
	struct cache_event *ev;
	uint64_t seq, floor;
	for (unsigned rv = 101; rv <= 112; rv++) {
		struct cache_obj *o = mk("a", rv);
		CHECK(cache_history_append(h, CACHE_MODIFIED, rv, o, NULL) ==
		      0);
		cache_obj_put(o);
	}
	/* 12 appended: seq 0 and 1 (RV 101, 102) are gone */
	CHECK(cache_history_head(h) == 12);
	CHECK(cache_history_get(h, 1, &ev) == -ERANGE);
	CHECK(cache_history_get(h, 2, &ev) == 0 && ev->rv == 103);
	cache_history_event_put(ev);
	CHECK(cache_history_floor(h) == 102);
	CHECK(cache_history_start(h, 101, &seq, &floor) == -ERANGE &&
	      floor == 102);
	CHECK(cache_history_start(h, 102, &seq, &floor) == 0 && seq == 2);
	/* the slots of the gone events are empty, not merely stale */
	for (unsigned rv = 113; rv <= 140; rv++) {
		struct cache_obj *o = mk("a", rv);
		CHECK(cache_history_append(h, CACHE_MODIFIED, rv, o, NULL) ==
		      0);
		cache_obj_put(o);
	}
	int kept = 0;
	for (uint64_t s = 0; s < cache_history_head(h); s++)
		if (cache_history_get(h, s, &ev) == 0) {
			kept++;
			cache_history_event_put(ev);
		}
	CHECK(kept == 10);
	CHECK(cache_history_floor(h) == 130);
	cache_history_free(h);
	/* a capacity of 0 keeps one event */
	h = cache_history_new(0, 0);
	for (unsigned rv = 1; rv <= 3; rv++) {
		struct cache_obj *o = mk("a", rv);
		CHECK(cache_history_append(h, CACHE_MODIFIED, rv, o, NULL) ==
		      0);
		cache_obj_put(o);
	}
	CHECK(cache_history_get(h, 1, &ev) == -ERANGE);
	CHECK(cache_history_get(h, 2, &ev) == 0 && ev->rv == 3);
	cache_history_event_put(ev);
	cache_history_free(h);
	/* after a reset, a ring as large as what it keeps starts empty and
	 * keeps the next event (its slot is not the one cap places behind) */
	h = cache_history_new(16, 0);
	struct cache_obj *o = mk("a", 5);
	CHECK(cache_history_append(h, CACHE_ADDED, 5, o, NULL) == 0);
	cache_history_reset(h, 10);
	CHECK(cache_history_append(h, CACHE_MODIFIED, 11, o, NULL) == 0);
	CHECK(cache_history_get(h, cache_history_head(h) - 1, &ev) == 0 &&
	      ev->rv == 11);
	if (ev)
		cache_history_event_put(ev);
	cache_obj_put(o);
	cache_history_free(h);
}

/* cache_history_add: events a writer adds as one batch wake nobody until
 * its one wake_all, and then each waiter once; a watcher that looks in
 * meanwhile finds them and does not sleep. */
static void test_batch(void)
{
	struct cache_history *h = cache_history_new(16, 100);
	struct cache_waiter a = { .wake = on_wake }, b = { .wake = on_wake };
	struct cache_event *ev;
	CHECK(cache_history_wait(h, &a, 0, NULL));
	CHECK(cache_history_wait(h, &b, 0, NULL));
	woken = 0;
	for (unsigned rv = 101; rv <= 103; rv++) {
		struct cache_obj *o = mk("a", rv);
		CHECK(cache_history_add(h, CACHE_MODIFIED, rv, o, NULL) == 0);
		cache_obj_put(o);
	}
	CHECK(woken == 0 && a.queued && b.queued);
	CHECK(cache_history_head(h) == 3 && cache_history_progress(h) == 103);
	/* not queued: the events are there to read */
	struct cache_waiter c = { .wake = on_wake };
	CHECK(!cache_history_wait(h, &c, 0, NULL) && !c.queued);
	cache_history_wake_all(h);
	CHECK(woken == 2 && !a.queued && !b.queued);
	for (uint64_t seq = 0; seq < 3; seq++) {
		CHECK(cache_history_get(h, seq, &ev) == 0 &&
		      ev->rv == 101 + seq);
		cache_history_event_put(ev);
	}
	/* a failed add leaves the ring as it was */
	struct cache_obj *o = mk("a", 104);
	alloc_fail_after(1);
	CHECK(cache_history_add(h, CACHE_MODIFIED, 104, o, NULL) == -ENOMEM);
	alloc_fail_after(0);
	CHECK(cache_history_head(h) == 3);
	cache_obj_put(o);
	rcu_barrier();
	cache_history_free(h);
	rcu_barrier();
	woken = 0;
}

struct left_ask {
	struct cache_event *ev;
	const struct json_shape *shape;
	struct cache_obj *got;
};

static void *ask_left(void *arg)
{
	struct left_ask *a = arg;
	a->got = cache_history_ev_left(a->ev, a->shape);
	return NULL;
}

/* Four fan-out threads ask for a new event's copy at once: one is made
 * and kept (the others' freed), and every thread gets that one. */
static void left_race(struct cache_history *h, struct cache_obj *prev,
		      struct cache_shape *shape)
{
	struct cache_obj *now = mk("l", 1234568);
	CHECK(cache_history_append(h, CACHE_MODIFIED, 1234568, now, prev) == 0);
	uint64_t seq, floor;
	struct cache_event *ev = NULL;
	CHECK(cache_history_start(h, 1234567, &seq, &floor) == 0);
	CHECK(cache_history_get(h, seq, &ev) == 0 && ev && ev->rv == 1234568);
	if (!ev) {
		cache_obj_put(now);
		return;
	}
	pthread_t th[4];
	struct left_ask asks[4];
	for (int i = 0; i < 4; i++) {
		asks[i] = (struct left_ask){ ev, cache_shape_object(shape),
					     NULL };
		CHECK(pthread_create(&th[i], NULL, ask_left, &asks[i]) == 0);
	}
	for (int i = 0; i < 4; i++)
		pthread_join(th[i], NULL);
	for (int i = 0; i < 4; i++)
		CHECK(asks[i].got && asks[i].got == ev->left &&
		      asks[i].got->rv == 1234568);
	cache_history_event_put(ev);
	cache_obj_put(now);
}

/*
 * The state an event takes out of a watch's filter, at the event's RV:
 * made on the first ask, with the kind's shape, and kept. Out of memory
 * at each allocation in turn, nothing is kept and the next ask makes it;
 * made, it is the bytes a whole parse gives.
 */
static void test_left(void)
{
	static const char before[] =
		"{\"metadata\":{\"name\":\"l\",\"namespace\":\"ns\","
		"\"resourceVersion\":\"7\",\"labels\":{\"app\":\"web\"}},"
		"\"spec\":{\"nodeName\":\"n1\",\"containers\":[{\"name\":"
		"\"c\",\"args\":[\"a\\\"b\",\"}\"]}]},\"status\":{\"phase\":"
		"\"Running\"}}";
	const struct cache_kind *k = cache_kind_lookup("pods");
	struct cache_shape *shape = cache_shape_new(k);
	struct cache_history *h = cache_history_new(4, 1);
	struct cache_obj *prev = cache_obj_parse(k, before, strlen(before),
						 false, NULL, 0),
			 *now = mk("l", 1234567);
	CHECK(shape && h && prev && now);
	if (!shape || !h || !prev || !now)
		return;
	CHECK(cache_history_append(h, CACHE_MODIFIED, 1234567, now, prev) == 0);
	struct cache_event *ev = NULL;
	uint64_t seq, floor;
	CHECK(cache_history_start(h, 1, &seq, &floor) == 0);
	CHECK(cache_history_get(h, seq, &ev) == 0);
	if (!ev)
		return;
	struct cache_obj *whole = cache_obj_with_rv(prev, 1234567, NULL);
	CHECK(whole && whole->rv == 1234567 && whole->fields &&
	      whole->fields[0] && !strcmp(whole->fields[0], "n1"));
	int failed = 0;
	for (long n = 1; n <= 16; n++) {
		alloc_fail_after(n);
		struct cache_obj *o =
			cache_history_ev_left(ev, cache_shape_object(shape));
		bool hit = alloc_failures() > 0;
		alloc_fail_after(0);
		if (!o) {
			failed++;
			CHECK(hit && !ev->left); /* nothing half made kept */
			continue;
		}
		CHECK(o == ev->left);
		break;
	}
	CHECK(failed > 0); /* each of its allocations was failed once */
	struct cache_obj *o =
		cache_history_ev_left(ev, cache_shape_object(shape));
	CHECK(o && o == ev->left);
	CHECK(o && whole && o->len == whole->len &&
	      !memcmp(o->json, whole->json, whole->len));
	CHECK(o && o->nlabels == 1 && !strcmp(o->labels[0].val, "web"));
	/* the second ask reads it */
	CHECK(cache_history_ev_left(ev, cache_shape_object(shape)) == o);
	left_race(h, prev, shape);
	cache_obj_put(whole);
	cache_history_event_put(ev);
	cache_obj_put(prev);
	cache_obj_put(now);
	cache_history_free(h);
	cache_shape_free(shape);
}

int main(void)
{
	test_exact_capacity();
	test_batch();
	test_left();
	struct cache_history *h = cache_history_new(16, 100);
	uint64_t seq, floor;
	struct cache_event *ev;
	CHECK(cache_history_start(h, 99, &seq, &floor) == -ERANGE &&
	      floor == 100);
	CHECK(cache_history_start(h, 100, &seq, &floor) == 0 && seq == 0);
	CHECK(cache_history_get(h, 0, &ev) == -EAGAIN);

	struct cache_waiter w = { .wake = on_wake };
	CHECK(cache_history_wait(h, &w, 0, NULL));
	CHECK(!cache_history_wait(h, &(struct cache_waiter){ .wake = on_wake },
				  0, refuse));

	struct cache_obj *o = mk("a", 101);
	CHECK(cache_history_append(h, CACHE_ADDED, 101, o, NULL) == 0);
	CHECK(woken == 1 && !w.queued);
	CHECK(cache_history_get(h, 0, &ev) == 0);
	CHECK(ev->rv == 101 && ev->seq == 0 && ev->obj == o);
	const char *want = "{\"type\":\"ADDED\",\"object\":{\"kind\":\"Pod\"";
	CHECK(!strncmp(ev->line, want, strlen(want)));
	CHECK(ev->line[ev->len - 1] == '\n' && ev->line[ev->len - 2] == '}');
	CHECK(strlen(ev->line) == ev->len);
	cache_history_event_put(ev);
	CHECK(cache_history_progress(h) == 101);
	/* a waiter for an event that already exists is not queued */
	CHECK(!cache_history_wait(h, &w, 0, NULL));
	cache_obj_put(o);

	for (unsigned rv = 102; rv < 140; rv++) {
		o = mk("a", rv);
		cache_history_append(h, CACHE_MODIFIED, rv, o, NULL);
		cache_obj_put(o);
	}
	/* 39 events in a ring of 16: seq 0..22 are gone */
	CHECK(cache_history_head(h) == 39);
	CHECK(cache_history_get(h, 22, &ev) == -ERANGE);
	CHECK(cache_history_get(h, 23, &ev) == 0 && ev->rv == 124);
	cache_history_event_put(ev);
	CHECK(cache_history_floor(h) == 123);
	CHECK(cache_history_start(h, 122, &seq, &floor) == -ERANGE &&
	      floor == 123);
	CHECK(cache_history_start(h, 123, &seq, &floor) == 0 && seq == 23);
	CHECK(cache_history_start(h, 130, &seq, &floor) == 0 && seq == 30);
	CHECK(cache_history_start(h, 500, &seq, &floor) == 0 && seq == 39);

	/* unwait removes a queued waiter */
	CHECK(cache_history_wait(h, &w, 39, NULL));
	cache_history_unwait(h, &w);
	CHECK(!w.queued);
	woken = 0;
	o = mk("a", 140);
	cache_history_append(h, CACHE_DELETED, 140, o, o);
	CHECK(woken == 0);
	CHECK(cache_history_get(h, 39, &ev) == 0 &&
	      !strncmp(ev->line, "{\"type\":\"DELETED\"", 17));
	CHECK(ev->prev == o);
	cache_history_event_put(ev);
	cache_obj_put(o);

	/* reset: every old cursor is overtaken, the floor moves */
	cache_history_reset(h, 7);
	CHECK(cache_history_get(h, 39, &ev) == -ERANGE);
	CHECK(cache_history_floor(h) == 7 && cache_history_progress(h) == 7);
	CHECK(cache_history_start(h, 7, &seq, &floor) == 0 &&
	      seq == cache_history_head(h));

	/* allocation failure on append leaves the ring as it was */
	o = mk("b", 8);
	uint64_t head = cache_history_head(h);
	alloc_fail_after(1);
	CHECK(cache_history_append(h, CACHE_ADDED, 8, o, NULL) == -ENOMEM);
	alloc_fail_after(0);
	CHECK(cache_history_head(h) == head);
	cache_obj_put(o);

	rcu_barrier();
	cache_history_free(h);
	rcu_barrier();
	return check_done("history");
}
