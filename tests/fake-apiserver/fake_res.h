/*
 * fake_res: the table of resources the fake apiserver serves, and the
 * per-resource request counters behind /fake/stats.
 *
 * The table is static: core/v1 namespaces, pods, configmaps and services.
 * A resource is named by its index in the table everywhere else, so
 * objects and events carry a small integer rather than a pointer.
 */
#ifndef FAKE_RES_H
#define FAKE_RES_H

#include <stdbool.h>

enum fake_res_id {
	FAKE_RES_NAMESPACES,
	FAKE_RES_PODS,
	FAKE_RES_CONFIGMAPS,
	FAKE_RES_SERVICES,
	FAKE_NRES
};

#define FAKE_RES_MAX_FIELDS 8

struct fake_res {
	const char *resource;	/* plural, "pods" */
	const char *singular;	/* "pod" */
	const char *kind;	/* "Pod" */
	const char *list_kind;	/* "PodList" */
	bool namespaced;
	const char *short_name;	/* "po", or NULL */
	bool category_all;	/* listed in the "all" category */
	const char *hash;	/* storageVersionHash, as the real server gives */
	/* Selectable fields besides metadata.name/namespace; NULL-terminated.
	 * Each is a dotted path into the object. */
	const char *fields[FAKE_RES_MAX_FIELDS + 1];
	/* What follows "metadata" in a BOOKMARK object: Go's zero value of
	 * the kind's other members ("" when there are none). */
	const char *bookmark_tail;
};

/* Counters: written with atomics from any thread. */
struct fake_res_stats {
	unsigned long list;	/* LIST requests received */
	unsigned long watch;	/* WATCH requests received */
	long watch_open;	/* watch streams open now */
};

extern const struct fake_res fake_res_table[FAKE_NRES];
extern struct fake_res_stats fake_res_stats[FAKE_NRES];

/* Index of the resource with that plural name, or -1. */
int fake_res_find(const char *resource);
/* The number of entries in res->fields. */
int fake_res_nfields(int res);

static inline void fake_res_count(unsigned long *c)
{
	__atomic_add_fetch(c, 1, __ATOMIC_RELAXED);
}

#endif
