/*
 * test_stress: one writer churning the store while readers LIST and GET.
 *
 * The writer's changes are a pure function of the commit number R, so a
 * reader can replay them and know exactly what the state at any RV was.
 * Every snapshot a reader takes must be that state: the same keys, each
 * at the same RV, and the same count. An exact reader asks for states a
 * little behind the current one (cache_store_at(), the window of recent
 * versions) and checks them the same way. Run it under ThreadSanitizer
 * with `make SANITIZE=thread test-unit`.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <urcu-bp.h>

#include "cache/store.h"
#include "check.h"

#define NKEYS 96
#define READERS 4
#define COMMITS 20000

static struct cache_store *store;
static const struct cache_kind *kind;
static int done; /* atomic */
static long reader_lists[READERS], reader_failures[READERS];
static long exact_found, exact_failures;

/* The state after commits 1..R: rv of each key, 0 when absent. */
struct model {
	uint64_t r;
	uint64_t rv[NKEYS];
	int count;
};

static void step(struct model *m, uint64_t r,
		 void (*op)(int key, bool del, uint64_t r))
{
	int keys[2] = { (int)((r * 7) % NKEYS), (int)((r * 13) % NKEYS) };
	for (int i = 0; i < 2; i++) {
		int k = keys[i];
		if (i == 1 && k == keys[0])
			break;
		bool del = m->rv[k] && (r + (uint64_t)k) % 3 == 0;
		if (del) {
			m->rv[k] = 0;
			m->count--;
		} else {
			if (!m->rv[k])
				m->count++;
			m->rv[k] = r;
		}
		if (op)
			op(k, del, r);
	}
	m->r = r;
}

static struct cache_txn txn;

static void apply(int key, bool del, uint64_t r)
{
	char name[16], js[256];
	snprintf(name, sizeof(name), "k%03d", key);
	if (del) {
		cache_store_txn_del(&txn, "ns", name, NULL);
		return;
	}
	snprintf(js, sizeof(js),
		 "{\"metadata\":{\"name\":\"%s\",\"namespace\":\"ns\","
		 "\"resourceVersion\":\"%llu\"}}",
		 name, (unsigned long long)r);
	struct cache_obj *o =
		cache_obj_parse(kind, js, strlen(js), false, NULL, 0);
	cache_store_txn_put(&txn, o, NULL);
	cache_obj_put(o);
}

static void *writer(void *arg)
{
	struct model m = { 0 };
	for (uint64_t r = 1; r <= COMMITS; r++) {
		cache_store_txn_begin(store, &txn);
		step(&m, r, apply);
		cache_store_txn_since(&txn, r);
		if (cache_store_txn_commit(&txn, r))
			abort();
	}
	__atomic_store_n(&done, 1, __ATOMIC_RELEASE);
	return NULL;
}

static void *reader(void *arg)
{
	int id = (int)(long)arg;
	struct model m = { 0 };
	while (!__atomic_load_n(&done, __ATOMIC_ACQUIRE)) {
		struct cache_snap *s = cache_store_snap(store);
		if (s->rv < m.r) { /* snapshots never go backwards */
			reader_failures[id]++;
			cache_store_snap_put(s);
			break;
		}
		while (m.r < s->rv)
			step(&m, m.r + 1, NULL);
		/* LIST: every key in order, exactly the model's state */
		struct cache_iter it;
		cache_store_iter_seek(&it, s, "", "");
		struct cache_obj *o;
		int n = 0;
		bool ok = true;
		while ((o = cache_store_iter_next(&it))) {
			int k = atoi(o->name + 1);
			ok = ok && m.rv[k] == o->rv && o->rv <= s->rv;
			n++;
		}
		ok = ok && n == m.count && s->count == (size_t)m.count;
		if (!ok)
			reader_failures[id]++;
		reader_lists[id]++;
		cache_store_snap_put(s);
		/* GET: whatever comes back is internally consistent */
		char name[16];
		snprintf(name, sizeof(name), "k%03d",
			 (int)(reader_lists[id] % NKEYS));
		uint64_t rv;
		o = cache_store_get(store, "ns", name, &rv);
		if (o) {
			if (o->rv > rv || strcmp(o->name, name))
				reader_failures[id]++;
			cache_obj_put(o);
		}
	}
	return NULL;
}

/* Whether s holds exactly m's state. */
static bool same_state(const struct model *m, struct cache_snap *s)
{
	struct cache_iter it;
	cache_store_iter_seek(&it, s, "", "");
	struct cache_obj *o;
	int n = 0;
	bool ok = true;
	while ((o = cache_store_iter_next(&it))) {
		ok = ok && m->rv[atoi(o->name + 1)] == o->rv;
		n++;
	}
	return ok && n == m->count && s->count == (size_t)m->count;
}

/* Exact reads a little behind the writer: every one is in the window,
 * and is the state at exactly that RV. */
static void *exact_reader(void *arg)
{
	(void)arg;
	struct model m = { 0 };
	uint64_t want = 1;
	while (!__atomic_load_n(&done, __ATOMIC_ACQUIRE)) {
		uint64_t cur = cache_store_rv(store);
		if (want + 50 < cur)
			want = cur - 50;
		if (want > cur)
			continue;
		struct cache_snap *s = cache_store_at(store, want);
		if (!s) {
			exact_failures++;
			break;
		}
		while (m.r < want)
			step(&m, m.r + 1, NULL);
		if (s->rv != want || !same_state(&m, s))
			exact_failures++;
		exact_found++;
		cache_store_snap_put(s);
		want += 7;
	}
	return NULL;
}

int main(void)
{
	kind = cache_kind_lookup("pods");
	store = cache_store_new();
	pthread_t w, r[READERS], x;
	for (long i = 0; i < READERS; i++)
		pthread_create(&r[i], NULL, reader, (void *)i);
	pthread_create(&x, NULL, exact_reader, NULL);
	pthread_create(&w, NULL, writer, NULL);
	pthread_join(w, NULL);
	pthread_join(x, NULL);
	CHECK(exact_failures == 0);
	CHECK(exact_found > 0);
	long lists = 0;
	for (int i = 0; i < READERS; i++) {
		pthread_join(r[i], NULL);
		lists += reader_lists[i];
		CHECK(reader_failures[i] == 0);
	}
	CHECK(lists > READERS); /* the readers did run alongside */
	struct cache_snap *s = cache_store_snap(store);
	CHECK(s->rv == COMMITS);
	cache_store_snap_put(s);
	rcu_barrier();
	cache_store_free(store);
	printf("stress: %ld consistent LISTs, %ld exact reads checked\n", lists,
	       exact_found);
	return check_done("stress");
}
