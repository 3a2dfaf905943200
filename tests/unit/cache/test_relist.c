/*
 * test_relist: relist differences as a true, strictly increasing history.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <urcu-bp.h>

#include "cache/history.h"
#include "cache/relist.h"
#include "cache/shape.h"
#include "check.h"

static struct cache_obj *mk(const char *name, unsigned rv)
{
	char js[256];
	snprintf(js, sizeof(js),
		 "{\"metadata\":{\"name\":\"%s\",\"namespace\":\"ns\","
		 "\"resourceVersion\":\"%u\"},\"spec\":{\"nodeName\":\"n\"}}",
		 name, rv);
	return cache_obj_parse(cache_kind_lookup("pods"), js, strlen(js), false,
			       NULL, 0);
}

static struct cache_snap *state(struct cache_store *s, struct cache_obj **objs,
				size_t n, uint64_t rv)
{
	struct cache_txn t;
	cache_store_txn_begin_empty(s, &t);
	cache_store_txn_load(&t, objs, n);
	cache_store_txn_commit(&t, rv);
	return cache_store_snap(s);
}

/* The relist of main()'s first case, its deletions' bytes kept in
 * seen (the first time) or compared with them (after). */
static void check_relisted(const struct cache_relist *rl, char seen[2][512])
{
	CHECK(rl->n == 4);
	/* deletions take 21 and 23 (22 and 24 are held); order by RV */
	const char *want_name[] = { "c", "e", "d", "b" };
	int want_type[] = { CACHE_DELETED, CACHE_ADDED, CACHE_DELETED,
			    CACHE_MODIFIED };
	uint64_t want_rv[] = { 21, 22, 23, 24 };
	int del = 0;
	for (size_t i = 0; i < rl->n && i < 4; i++) {
		const struct cache_relist_ev *e = &rl->ev[i];
		CHECK_STR(e->obj->name, want_name[i]);
		CHECK(e->type == want_type[i]);
		CHECK(e->rv == want_rv[i]);
		CHECK(e->obj->rv == want_rv[i]); /* the object says so too */
		if (e->type != CACHE_DELETED)
			continue;
		CHECK(e->prev && e->prev->rv != want_rv[i]);
		CHECK(e->obj->fields && e->obj->fields[0] &&
		      !strcmp(e->obj->fields[0], "n"));
		CHECK(!strncmp(e->obj->json, "{\"kind\":\"Pod\"", 12));
		char rvs[32];
		snprintf(rvs, sizeof(rvs), "\"resourceVersion\":\"%llu\"",
			 (unsigned long long)want_rv[i]);
		CHECK(memmem(e->obj->json, e->obj->len, rvs, strlen(rvs)));
		CHECK(e->obj->len < sizeof(seen[0]));
		if (!seen[del][0])
			snprintf(seen[del], sizeof(seen[0]), "%.*s",
				 (int)e->obj->len, e->obj->json);
		else
			CHECK(strlen(seen[del]) == e->obj->len &&
			      !memcmp(seen[del], e->obj->json, e->obj->len));
		del++;
	}
	CHECK(del == 2);
}

int main(void)
{
	struct cache_store *s = cache_store_new();
	/* cached at 20: a@5 b@10 c@20 d@15 */
	struct cache_obj *old[] = { mk("a", 5), mk("b", 10), mk("c", 20),
				    mk("d", 15) };
	struct cache_snap *snap = state(s, old, 4, 20);
	/* listed at 30: a@5 (same) b@24 (changed) e@22 (new); c and d gone */
	struct cache_obj *now[] = { mk("a", 5), mk("b", 24), mk("e", 22) };
	struct cache_relist rl;
	/* the deletions' copies made with the kind's shape (their bytes
	 * jumped over where it skips) and whole: the same objects */
	struct cache_shape *shape = cache_shape_new(cache_kind_lookup("pods"));
	CHECK(shape != NULL);
	char whole[2][512] = { "", "" };
	for (int pass = 0; pass < 2; pass++) {
		CHECK(cache_relist_diff(snap, 20, now, 3, 30,
					pass ? cache_shape_object(shape) : NULL,
					&rl) == 0);
		check_relisted(&rl, whole);
		cache_relist_free(&rl);
	}
	cache_shape_free(shape);

	/* RVs went backwards: a wiped upstream */
	CHECK(cache_relist_diff(snap, 20, now, 3, 10, NULL, &rl) == -ERANGE);
	/* a change at or below what watchers saw cannot be explained */
	struct cache_obj *odd[] = { mk("a", 5), mk("b", 12) };
	CHECK(cache_relist_diff(snap, 20, odd, 2, 30, NULL, &rl) == -ERANGE);
	/* more deletions than free RVs */
	struct cache_obj *none[1];
	CHECK(cache_relist_diff(snap, 20, none, 0, 22, NULL, &rl) == -ERANGE);
	/* nothing changed */
	CHECK(cache_relist_diff(snap, 20, old, 4, 20, NULL, &rl) == 0 &&
	      rl.n == 0);

	for (int i = 0; i < 4; i++)
		cache_obj_put(old[i]);
	for (int i = 0; i < 3; i++)
		cache_obj_put(now[i]);
	cache_obj_put(odd[0]);
	cache_obj_put(odd[1]);
	cache_store_snap_put(snap);
	rcu_barrier();
	cache_store_free(s);
	return check_done("relist");
}
