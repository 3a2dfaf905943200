/*
 * test_store: the persistent tree, snapshots, transactions and pins;
 * allocation failure at every step of a transaction.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <urcu-bp.h>

#include "cache/store.h"
#include "config/alloc.h"
#include "config/limits.h"
#include "check.h"

static const struct cache_kind *pods;

static struct cache_obj *mk(const char *ns, const char *name, unsigned rv)
{
	char js[512];
	snprintf(
		js, sizeof(js),
		"{\"kind\":\"Pod\",\"metadata\":{\"name\":\"%s\",\"namespace\":"
		"\"%s\",\"resourceVersion\":\"%u\",\"labels\":{\"b\":\"2\",\"a\":"
		"\"1\"}},\"spec\":{\"nodeName\":\"n1\"}}",
		name, ns, rv);
	return cache_obj_parse(pods, js, strlen(js), false, NULL, 0);
}

/* Walk the snapshot; check order and count. */
static size_t walk(struct cache_snap *s)
{
	struct cache_iter it;
	cache_store_iter_seek(&it, s, "", "");
	size_t n = 0;
	struct cache_obj *prev = NULL, *o;
	while ((o = cache_store_iter_next(&it))) {
		if (prev)
			CHECK(cache_obj_keycmp(prev->ns, prev->name, o->ns,
					       o->name) < 0);
		prev = o;
		n++;
	}
	return n;
}

static void test_basic(void)
{
	struct cache_store *s = cache_store_new();
	struct cache_txn t;
	cache_store_txn_begin(s, &t);
	char name[32];
	/* random order inserts */
	for (unsigned i = 0; i < 1000; i++) {
		unsigned k = (i * 7919) % 1000;
		snprintf(name, sizeof(name), "p-%04u", k);
		struct cache_obj *o = mk(k % 2 ? "b" : "a", name, i + 1);
		CHECK(cache_store_txn_put(&t, o, NULL) == 0);
		cache_obj_put(o);
	}
	CHECK(cache_store_txn_commit(&t, 1000) == 0);
	struct cache_snap *s1 = cache_store_snap(s);
	CHECK(s1->count == 1000 && s1->rv == 1000);
	CHECK(walk(s1) == 1000);
	CHECK(cache_store_snap_rank(s1, "b", "") == 500);
	CHECK(cache_store_snap_rank_ns_end(s1, "a") == 500);
	CHECK(cache_store_snap_rank_ns_end(s1, "b") == 1000);
	struct cache_iter it;
	cache_store_iter_seek(&it, s1, "b", "p-0500");
	struct cache_obj *o = cache_store_iter_next(&it);
	CHECK(o && !strcmp(o->ns, "b") && !strcmp(o->name, "p-0501"));

	/* delete half, replace some; the old snapshot is untouched */
	cache_store_txn_begin(s, &t);
	for (unsigned k = 0; k < 1000; k += 2) {
		snprintf(name, sizeof(name), "p-%04u", k);
		struct cache_obj *old = NULL;
		CHECK(cache_store_txn_del(&t, "a", name, &old) == 0);
		CHECK(old && !strcmp(old->name, name));
		cache_obj_put(old);
	}
	CHECK(cache_store_txn_del(&t, "a", "nope", NULL) == -ENOENT);
	struct cache_obj *n1 = mk("b", "p-0001", 5000), *old = NULL;
	CHECK(cache_store_txn_put(&t, n1, &old) == 0);
	CHECK(old && old->rv != 5000);
	cache_obj_put(old);
	cache_obj_put(n1);
	CHECK(cache_store_txn_commit(&t, 1001) == 0);
	struct cache_snap *s2 = cache_store_snap(s);
	CHECK(s2->count == 500 && walk(s2) == 500);
	CHECK(s1->count == 1000 && walk(s1) == 1000);
	struct cache_obj *g = cache_store_get(s, "b", "p-0001", NULL);
	CHECK(g && g->rv == 5000);
	cache_obj_put(g);
	CHECK(cache_store_snap_find(s1, "b", "p-0001")->rv != 5000);
	CHECK(cache_store_snap_find(s2, "a", "p-0000") == NULL);

	/* pins */
	cache_store_pin(s, s1, 60);
	struct cache_snap *p = cache_store_pinned(s, 1000);
	CHECK(p == s1);
	cache_store_snap_put(p);
	CHECK(cache_store_pinned(s, 999) == NULL);
	p = cache_store_pinned(s, 1001);
	CHECK(p == s2);
	cache_store_snap_put(p);

	cache_store_snap_put(s1);
	cache_store_snap_put(s2);
	rcu_barrier();
	cache_store_free(s);
}

/* Commit one object at rv and return the snapshot published. */
static struct cache_snap *commit_one(struct cache_store *s, unsigned rv)
{
	struct cache_txn t;
	cache_store_txn_begin(s, &t);
	struct cache_obj *o = mk("a", "p", rv);
	CHECK(cache_store_txn_put(&t, o, NULL) == 0);
	cache_obj_put(o);
	CHECK(cache_store_txn_commit(&t, rv) == 0);
	return cache_store_snap(s);
}

/* A full pin table evicts the pin touched longest ago: a client paging
 * through one snapshot keeps it however many others another client pins
 * in between, as long as the table holds them. */
static void test_pin_eviction(void)
{
	enum {
		N = LIMIT_PINS_PER_RESOURCE
	};
	struct cache_store *s = cache_store_new();
	struct cache_snap *victim = commit_one(s, 1);
	CHECK(!cache_store_pin(s, victim, 300));
	int evicted = 0;
	for (unsigned rv = 2; rv < 2 + 3 * N; rv++) {
		struct cache_snap *x = commit_one(s, rv);
		evicted += cache_store_pin(s, x, 300);
		cache_store_snap_put(x);
		if (rv % 64 == 0) /* the victim pages on */
			CHECK(!cache_store_pin(s, victim, 300));
		struct cache_snap *v = cache_store_pinned(s, 1);
		CHECK(v == victim);
		cache_store_snap_put(v);
	}
	CHECK(evicted == 2 * N + 1); /* the others, oldest first */
	struct cache_snap *gone = cache_store_pinned(s, 2);
	CHECK(gone == NULL);
	/* an expired pin is reused without counting as an eviction */
	struct cache_store *s2 = cache_store_new();
	struct cache_snap *x = commit_one(s2, 7);
	cache_store_pin(s2, x, 0);
	cache_store_snap_put(x);
	evicted = 0;
	sleep(1);
	for (unsigned rv = 8; rv < 8 + N; rv++) {
		x = commit_one(s2, rv);
		evicted += cache_store_pin(s2, x, 300);
		cache_store_snap_put(x);
	}
	CHECK(evicted == 0);
	/* expired pins go without a paged LIST coming for them, and with
	 * them the snapshot they kept */
	x = commit_one(s2, 5000);
	uint32_t refs = x->refs; /* the store's and ours */
	cache_store_pin(s2, x, 0);
	CHECK(x->refs == refs + 1);
	CHECK(cache_store_expire_pins(s2) == 0); /* not yet past */
	sleep(1);
	CHECK(cache_store_expire_pins(s2) == 1);
	CHECK(x->refs == refs);
	cache_store_snap_put(x);
	cache_store_snap_put(victim);
	rcu_barrier();
	cache_store_free(s);
	cache_store_free(s2);
}

static void test_load_sort(void)
{
	struct cache_obj *objs[100];
	char name[32];
	for (unsigned i = 0; i < 100; i++) {
		snprintf(name, sizeof(name), "x%02u", (i * 37) % 90);
		objs[i] = mk("ns", name, i + 1);
	}
	size_t n = cache_store_sort(objs, 100);
	CHECK(n == 90);
	struct cache_store *s = cache_store_new();
	struct cache_txn t;
	cache_store_txn_begin_empty(s, &t);
	CHECK(cache_store_txn_load(&t, objs, n) == 0);
	CHECK(cache_store_txn_commit(&t, 7) == 0);
	for (size_t i = 0; i < n; i++)
		cache_obj_put(objs[i]);
	struct cache_snap *sn = cache_store_snap(s);
	CHECK(walk(sn) == 90 && sn->count == 90);
	/* etcd's key order: "ns-1-a/x" < "ns-1/x" < "ns-10/x" */
	CHECK(cache_obj_keycmp("ns-1-a", "x", "ns-1", "x") < 0);
	CHECK(cache_obj_keycmp("ns-1", "x", "ns-10", "x") < 0);
	CHECK(cache_obj_keycmp("ns-1", "b", "ns-1", "a") > 0);
	CHECK(cache_obj_keycmp("", "b", "", "a") > 0);
	/* duplicates keep the newest */
	struct cache_obj *o = cache_store_snap_find(sn, "ns", "x00");
	CHECK(o && o->rv == 91);
	cache_store_snap_put(sn);
	rcu_barrier();
	cache_store_free(s);
}

/* Every allocation of a transaction may fail: the store stays as it was
 * and nothing leaks (LeakSanitizer checks the latter). */
/* Namespace ranges under etcd's order, with prefix-sharing names. */
static void test_ns_ranges(void)
{
	static const char *const nss[] = { "ns-1", "ns-1-a", "ns-1.b", "ns-10",
					   "ns-1a" };
	struct cache_store *s = cache_store_new();
	struct cache_txn t;
	cache_store_txn_begin(s, &t);
	for (int i = 0; i < 5; i++)
		for (int k = 0; k < 3; k++) {
			char name[8];
			snprintf(name, sizeof(name), "o%d", k);
			struct cache_obj *o =
				mk(nss[i], name, (unsigned)(i * 3 + k + 1));
			cache_store_txn_put(&t, o, NULL);
			cache_obj_put(o);
		}
	CHECK(cache_store_txn_commit(&t, 100) == 0);
	struct cache_snap *sn = cache_store_snap(s);
	CHECK(walk(sn) == 15);
	for (int i = 0; i < 5; i++) {
		struct cache_iter it;
		cache_store_iter_seek(&it, sn, nss[i], "");
		int n = 0;
		struct cache_obj *o;
		while ((o = cache_store_iter_next(&it)) &&
		       !strcmp(o->ns, nss[i]))
			n++;
		CHECK(n == 3);
		size_t first = cache_store_snap_rank(sn, nss[i], "");
		CHECK(cache_store_snap_rank_ns_end(sn, nss[i]) - first == 3);
	}
	cache_store_snap_put(sn);
	rcu_barrier();
	cache_store_free(s);
}

static struct cache_obj *mkl(const char *name, unsigned rv, const char *app,
			     const char *tier)
{
	char js[512];
	snprintf(
		js, sizeof(js),
		"{\"metadata\":{\"name\":\"%s\",\"namespace\":\"ns\","
		"\"resourceVersion\":\"%u\",\"labels\":{\"app\":\"%s\"%s%s%s}}}",
		name, rv, app, tier ? ",\"tier\":\"" : "", tier ? tier : "",
		tier ? "\"" : "");
	return cache_obj_parse(pods, js, strlen(js), false, NULL, 0);
}

/* The label index matches a scan of the objects after every change. */
static void check_index(struct cache_store *s, const char *k, const char *v)
{
	struct cache_snap *sn = cache_store_snap(s);
	struct cache_iter a, b;
	cache_store_iter_seek(&a, sn, "", "");
	cache_store_iter_seek_label(&b, sn, k, v, "", "");
	struct cache_obj *o, *want;
	size_t n = 0;
	while ((o = cache_store_iter_next(&a))) {
		const char *lv = cache_obj_label(o, k);
		if (!lv || strcmp(lv, v))
			continue;
		want = cache_store_iter_next(&b);
		CHECK(want == o);
		n++;
	}
	CHECK(cache_store_iter_next(&b) == NULL);
	CHECK(cache_store_snap_label_count(sn, k, v) == n);
	cache_store_snap_put(sn);
}

/* n objects loaded at once: a load of 4096 or more builds its label
 * index on a second thread */
static void test_label_index(unsigned n)
{
	struct cache_store *s = cache_store_new();
	struct cache_obj **objs = calloc(n, sizeof(*objs));
	char name[16];
	CHECK(objs != NULL);
	if (!objs)
		return;
	for (unsigned i = 0; i < n; i++) {
		snprintf(name, sizeof(name), "p%02u", i);
		objs[i] = mkl(name, i + 1, i % 3 ? "web" : "db",
			      i % 2 ? "fe" : NULL);
	}
	cache_store_sort(objs, n);
	struct cache_txn t;
	cache_store_txn_begin_empty(s, &t);
	CHECK(cache_store_txn_load(&t, objs, n) == 0);
	CHECK(cache_store_txn_commit(&t, n) == 0);
	struct cache_snap *sn = cache_store_snap(s);
	CHECK(walk(sn) == n);
	cache_store_snap_put(sn);
	check_index(s, "app", "web");
	check_index(s, "app", "db");
	check_index(s, "tier", "fe");
	check_index(s, "tier", "nope");
	/* relabel, drop a label, delete, add */
	cache_store_txn_begin(s, &t);
	for (unsigned i = 0; i < 60; i += 7) {
		snprintf(name, sizeof(name), "p%02u", i);
		struct cache_obj *o =
			mkl(name, 100 + i, i % 2 ? "db" : "web", NULL);
		CHECK(cache_store_txn_put(&t, o, NULL) == 0);
		cache_obj_put(o);
	}
	for (unsigned i = 1; i < 60; i += 11) {
		snprintf(name, sizeof(name), "p%02u", i);
		CHECK(cache_store_txn_del(&t, "ns", name, NULL) == 0);
	}
	struct cache_obj *o = mkl("q00", 300, "web", "fe");
	CHECK(cache_store_txn_put(&t, o, NULL) == 0);
	cache_obj_put(o);
	CHECK(cache_store_txn_commit(&t, 300) == 0);
	check_index(s, "app", "web");
	check_index(s, "app", "db");
	check_index(s, "tier", "fe");
	/* a seek into the middle of a label's range */
	sn = cache_store_snap(s);
	struct cache_iter it;
	cache_store_iter_seek_label(&it, sn, "app", "web", "ns", "p30");
	o = cache_store_iter_next(&it);
	CHECK(o && strcmp(o->name, "p30") >= 0 &&
	      !strcmp(cache_obj_label(o, "app"), "web"));
	cache_store_snap_put(sn);
	for (unsigned i = 0; i < n; i++)
		cache_obj_put(objs[i]);
	free(objs);
	rcu_barrier();
	cache_store_free(s);
}

/* A load whose labels fall into thousands of groups (one value an
 * object, shared by a few), large enough to be grouped on two threads,
 * each over half the objects: the tables grow many times over, the
 * halves' groups are merged (tier=fe is in both), and the index still
 * matches a scan, for a value of each size of group. Then every
 * allocation of such a load fails in turn, on either thread: the load
 * fails whole, the store keeps what it had, nothing leaks. */
static void test_label_groups(void)
{
	enum {
		N = 20000
	};
	struct cache_obj **objs = calloc(N, sizeof(*objs));
	char name[16], app[16];
	CHECK(objs != NULL);
	if (!objs)
		return;
	for (unsigned i = 0; i < N; i++) {
		snprintf(name, sizeof(name), "p%05u", i);
		/* groups of 1 (past 3000) and of 2 (below it) */
		snprintf(app, sizeof(app), "a%u", i < 3000 ? i / 2 : i);
		objs[i] = mkl(name, i + 1, app, i % 5 ? NULL : "fe");
	}
	struct cache_store *s = cache_store_new();
	struct cache_txn t;
	cache_store_txn_begin_empty(s, &t);
	CHECK(cache_store_txn_load(&t, objs, N) == 0);
	CHECK(cache_store_txn_commit(&t, N) == 0);
	struct cache_snap *sn = cache_store_snap(s);
	CHECK(sn->count == N);
	CHECK(cache_store_snap_label_count(sn, "app", "a7") == 2);
	CHECK(cache_store_snap_label_count(sn, "app", "a5999") == 1);
	CHECK(cache_store_snap_label_count(sn, "tier", "fe") == N / 5);
	cache_store_snap_put(sn);
	check_index(s, "app", "a0");
	check_index(s, "app", "a1499");
	check_index(s, "app", "a3000");
	check_index(s, "app", "a5999");
	check_index(s, "app", "a6000"); /* none */
	check_index(s, "tier", "fe");
	int failed = 0, loaded = 0;
	for (long k = 1; k < 400 && !loaded; k++) {
		cache_store_txn_begin_empty(s, &t);
		alloc_fail_after(k);
		int rc = cache_store_txn_load(&t, objs, N);
		if (!rc)
			rc = cache_store_txn_commit(&t, N + 1);
		else
			cache_store_txn_abort(&t);
		long injected = alloc_failures();
		alloc_fail_after(0);
		sn = cache_store_snap(s);
		if (rc) {
			failed++;
			CHECK(rc == -ENOMEM && injected == 1);
			CHECK(sn->rv == N && sn->count == N);
		} else {
			loaded = 1;
			CHECK(sn->rv == N + 1 && sn->count == N);
		}
		cache_store_snap_put(sn);
	}
	CHECK(failed > 3 && loaded);
	check_index(s, "app", "a7");
	check_index(s, "tier", "fe");
	for (unsigned i = 0; i < N; i++)
		cache_obj_put(objs[i]);
	free(objs);
	rcu_barrier();
	cache_store_free(s);
}

/* With index_only, the index holds the listed keys alone, through a
 * bulk load and through single puts and deletes alike. */
static void test_index_only(void)
{
	struct cache_store *s = cache_store_new();
	char *keys[] = { "tier" };
	CHECK(cache_store_index_only(s, keys, 1) == 0);
	CHECK(cache_store_indexes(s, "tier") && !cache_store_indexes(s, "app"));
	struct cache_obj *objs[20];
	char name[16];
	for (unsigned i = 0; i < 20; i++) {
		snprintf(name, sizeof(name), "p%02u", i);
		objs[i] = mkl(name, i + 1, "web", i % 2 ? "fe" : NULL);
	}
	struct cache_txn t;
	cache_store_txn_begin_empty(s, &t);
	CHECK(cache_store_txn_load(&t, objs, 20) == 0);
	CHECK(cache_store_txn_commit(&t, 20) == 0);
	struct cache_snap *sn = cache_store_snap(s);
	CHECK(cache_store_snap_label_count(sn, "tier", "fe") == 10);
	CHECK(cache_store_snap_label_count(sn, "app", "web") ==
	      0); /* left out */
	cache_store_snap_put(sn);
	check_index(s, "tier", "fe");
	cache_store_txn_begin(s, &t);
	struct cache_obj *o = mkl("p00", 50, "db", "fe");
	CHECK(cache_store_txn_put(&t, o, NULL) == 0);
	cache_obj_put(o);
	CHECK(cache_store_txn_del(&t, "ns", "p01", NULL) == 0);
	CHECK(cache_store_txn_commit(&t, 50) == 0);
	check_index(s, "tier", "fe");
	sn = cache_store_snap(s);
	CHECK(cache_store_snap_label_count(sn, "tier", "fe") == 10);
	CHECK(cache_store_snap_label_count(sn, "app", "db") == 0);
	cache_store_snap_put(sn);
	/* every key by default */
	struct cache_store *all = cache_store_new();
	CHECK(cache_store_indexes(all, "app"));
	for (unsigned i = 0; i < 20; i++)
		cache_obj_put(objs[i]);
	rcu_barrier();
	cache_store_free(s);
	cache_store_free(all);
}

/* The names in the state at rv, "a,b,c", or "-" when the store cannot
 * tell it. */
static const char *state_at(struct cache_store *s, uint64_t rv, char *out,
			    size_t len)
{
	struct cache_snap *sn = cache_store_at(s, rv);
	if (!sn)
		return "-";
	CHECK(sn->rv == rv);
	struct cache_iter it;
	cache_store_iter_seek(&it, sn, "", "");
	size_t at = 0;
	out[0] = 0;
	for (struct cache_obj *o; (o = cache_store_iter_next(&it));)
		at += (size_t)snprintf(out + at, len - at, "%s%s%u",
				       at ? "," : "", o->name, (unsigned)o->rv);
	cache_store_snap_put(sn);
	return out;
}

/* One txn: put (or delete, for rv 0) each name, committed at rv; since
 * as cache_store_txn_since(), 0 to leave it out. */
static void change(struct cache_store *s, bool full, const char *const *names,
		   const unsigned *rvs, size_t n, uint64_t since, uint64_t rv)
{
	struct cache_txn t;
	if (full)
		cache_store_txn_begin_empty(s, &t);
	else
		cache_store_txn_begin(s, &t);
	for (size_t i = 0; i < n; i++) {
		if (!rvs[i]) {
			CHECK(cache_store_txn_del(&t, "ns", names[i], NULL) ==
			      0);
			continue;
		}
		struct cache_obj *o = mk("ns", names[i], rvs[i]);
		CHECK(cache_store_txn_put(&t, o, NULL) == 0);
		cache_obj_put(o);
	}
	if (since)
		cache_store_txn_since(&t, since);
	CHECK(cache_store_txn_commit(&t, rv) == 0);
}

/* The window of recent versions answers the state at any RV it covers,
 * and nothing where a transaction of several changes, a change of
 * unknown RV, a full replace or an RV going back leaves it unknown. */
static void test_window(void)
{
	struct cache_store *s = cache_store_new();
	char b[256];
	CHECK(!strcmp(state_at(s, 1, b, sizeof(b)), "-"));
	change(s, true, (const char *[]){ "a", "b" }, (unsigned[]){ 90, 95 }, 2,
	       0, 100); /* the first LIST */
	change(s, false, (const char *[]){ "c" }, (unsigned[]){ 105 }, 1, 105,
	       105);
	/* a watch chunk: two events at once */
	change(s, false, (const char *[]){ "a", "b" }, (unsigned[]){ 110, 0 },
	       2, 110, 112);
	change(s, false, NULL, NULL, 0, 120, 120); /* a bookmark */
	CHECK(!strcmp(state_at(s, 99, b, sizeof(b)), "-"));
	CHECK(!strcmp(state_at(s, 100, b, sizeof(b)), "a90,b95"));
	CHECK(!strcmp(state_at(s, 104, b, sizeof(b)), "a90,b95"));
	CHECK(!strcmp(state_at(s, 105, b, sizeof(b)), "a90,b95,c105"));
	CHECK(!strcmp(state_at(s, 109, b, sizeof(b)), "a90,b95,c105"));
	CHECK(!strcmp(state_at(s, 110, b, sizeof(b)), "-"));
	CHECK(!strcmp(state_at(s, 111, b, sizeof(b)), "-"));
	CHECK(!strcmp(state_at(s, 112, b, sizeof(b)), "a110,c105"));
	CHECK(!strcmp(state_at(s, 119, b, sizeof(b)), "a110,c105"));
	CHECK(!strcmp(state_at(s, 120, b, sizeof(b)), "a110,c105"));
	CHECK(!strcmp(state_at(s, 121, b, sizeof(b)), "-"));
	size_t nv, bytes;
	cache_store_window(s, &nv, &bytes);
	CHECK(nv == 4 && bytes > 0);

	/* a change of unknown RV: nothing known between */
	change(s, false, (const char *[]){ "d" }, (unsigned[]){ 130 }, 1, 0,
	       130);
	CHECK(!strcmp(state_at(s, 125, b, sizeof(b)), "-"));
	CHECK(!strcmp(state_at(s, 120, b, sizeof(b)), "a110,c105"));
	/* a relist starts the window again */
	change(s, true, (const char *[]){ "e" }, (unsigned[]){ 135 }, 1, 0,
	       140);
	CHECK(!strcmp(state_at(s, 120, b, sizeof(b)), "-"));
	CHECK(!strcmp(state_at(s, 140, b, sizeof(b)), "e135"));
	change(s, false, (const char *[]){ "f" }, (unsigned[]){ 150 }, 1, 150,
	       150);
	CHECK(!strcmp(state_at(s, 145, b, sizeof(b)), "e135"));
	/* so does an RV going back (a wiped upstream) */
	change(s, false, (const char *[]){ "g" }, (unsigned[]){ 50 }, 1, 50,
	       50);
	CHECK(!strcmp(state_at(s, 145, b, sizeof(b)), "-"));
	CHECK(!strcmp(state_at(s, 150, b, sizeof(b)), "-"));
	CHECK(!strcmp(state_at(s, 50, b, sizeof(b)), "e135,f150,g50"));
	cache_store_window(s, &nv, &bytes);
	CHECK(nv == 1 && bytes == 0);

	/* a state found between versions is pinned and found again */
	change(s, false, (const char *[]){ "h" }, (unsigned[]){ 60 }, 1, 60,
	       60);
	struct cache_snap *mid = cache_store_at(s, 55);
	CHECK(mid && mid->rv == 55 && mid->count == 3);
	cache_store_pin(s, mid, 60);
	struct cache_snap *again = cache_store_pinned(s, 55);
	CHECK(again == mid);
	cache_store_snap_put(again);
	cache_store_snap_put(mid);
	rcu_barrier();
	cache_store_free(s);
}

/* An object of about len bytes. */
static struct cache_obj *mk_big(const char *name, unsigned rv, size_t len)
{
	char *js = xmalloc(len + 256);
	CHECK(js != NULL);
	if (!js)
		return NULL;
	int n = snprintf(js, 256,
			 "{\"kind\":\"Pod\",\"metadata\":{\"name\":\"%s\","
			 "\"namespace\":\"ns\",\"resourceVersion\":\"%u\"},"
			 "\"data\":\"",
			 name, rv);
	memset(js + n, 'x', len);
	memcpy(js + n + len, "\"}", 3);
	struct cache_obj *o =
		cache_obj_parse(pods, js, strlen(js), false, NULL, 0);
	free(js);
	return o;
}

/* The window is bounded by the bytes its versions keep alive, and by a
 * count: under churn the oldest versions go (their reads go upstream),
 * the recent ones stay. */
static void test_window_bound(void)
{
	struct cache_store *s = cache_store_new();
	const size_t big = 64 * 1024;
	unsigned rv = 1000;
	for (unsigned i = 0; i < 400; i++, rv++) {
		struct cache_txn t;
		cache_store_txn_begin(s, &t);
		struct cache_obj *o = mk_big("p", rv, big);
		CHECK(o && cache_store_txn_put(&t, o, NULL) == 0);
		cache_obj_put(o);
		cache_store_txn_since(&t, rv);
		CHECK(cache_store_txn_commit(&t, rv) == 0);
	}
	size_t nv, bytes;
	cache_store_window(s, &nv, &bytes);
	CHECK(bytes <= LIMIT_STORE_WINDOW_BYTES);
	CHECK(nv < 400 && nv >= LIMIT_STORE_WINDOW_BYTES / (big * 2));
	struct cache_snap *sn = cache_store_at(s, 1000);
	CHECK(sn == NULL);
	/* the last commit was at rv - 1: nv versions back is the oldest */
	sn = cache_store_at(s, rv - (unsigned)nv - 1);
	CHECK(sn == NULL);
	sn = cache_store_at(s, rv - (unsigned)nv);
	CHECK(sn &&
	      cache_store_snap_find(sn, "ns", "p")->rv == rv - (unsigned)nv);
	cache_store_snap_put(sn);

	/* small changes: the count bounds it */
	for (unsigned i = 0; i < LIMIT_STORE_WINDOW_VERSIONS + 10; i++, rv++)
		change(s, false, (const char *[]){ "q" }, (unsigned[]){ rv }, 1,
		       rv, rv);
	cache_store_window(s, &nv, &bytes);
	CHECK(nv == LIMIT_STORE_WINDOW_VERSIONS);
	rcu_barrier();
	cache_store_free(s);
}

static void test_alloc_failure(void)
{
	struct cache_store *s = cache_store_new();
	struct cache_txn t;
	char name[32];
	struct cache_obj *objs[64];
	for (unsigned i = 0; i < 64; i++) {
		snprintf(name, sizeof(name), "o%02u", i);
		objs[i] = mk("ns", name, i + 1);
	}
	cache_store_txn_begin(s, &t);
	for (unsigned i = 0; i < 64; i += 2)
		cache_store_txn_put(&t, objs[i], NULL);
	CHECK(cache_store_txn_commit(&t, 100) == 0);
	int failures = 0, successes = 0;
	for (long n = 1; n < 5000; n++) {
		cache_store_txn_begin(s, &t);
		alloc_fail_after(n);
		int r = 0;
		for (unsigned i = 1; i < 64 && !r; i += 2)
			r = cache_store_txn_put(&t, objs[i], NULL);
		for (unsigned i = 0; i < 64 && !r; i += 4) {
			snprintf(name, sizeof(name), "o%02u", i);
			r = cache_store_txn_del(&t, "ns", name, NULL);
		}
		if (!r)
			r = cache_store_txn_commit(&t, 200);
		else
			cache_store_txn_abort(&t);
		long injected = alloc_failures();
		alloc_fail_after(0);
		struct cache_snap *sn = cache_store_snap(s);
		if (r) {
			failures++;
			CHECK(r == -ENOMEM && injected == 1);
			CHECK(sn->rv == 100 && sn->count == 32 &&
			      walk(sn) == 32);
		} else {
			successes++;
			CHECK(sn->rv == 200 && sn->count == 48 &&
			      walk(sn) == 48);
		}
		cache_store_snap_put(sn);
		if (!r)
			break;
	}
	CHECK(failures > 10 && successes == 1);
	for (unsigned i = 0; i < 64; i++)
		cache_obj_put(objs[i]);
	rcu_barrier();
	cache_store_free(s);
}

int main(void)
{
	pods = cache_kind_lookup("pods");
	test_basic();
	test_pin_eviction();
	test_load_sort();
	test_ns_ranges();
	test_label_index(60);
	test_label_index(5000);
	test_label_groups();
	test_index_only();
	test_window();
	test_window_bound();
	test_alloc_failure();
	return check_done("store");
}
