/*
 * fake_res: the table of resources the fake apiserver serves, and the
 * per-resource request counters behind /fake/stats.
 *
 * The first FAKE_NBUILTIN entries are static: core/v1 namespaces, pods,
 * configmaps, services and events, and coordination.k8s.io/v1 leases
 * (which every real cluster writes to: node heartbeats, fake_cluster.c). Custom resources declared with --crd are
 * appended at start-up, before any request, and never change after, so
 * readers need no lock. A resource is named by its index in the table
 * everywhere else, so objects and events carry a small integer rather
 * than a pointer.
 */
#ifndef FAKE_RES_H
#define FAKE_RES_H

#include <stdbool.h>
#include <stddef.h>

enum fake_res_id {
	FAKE_RES_NAMESPACES,
	FAKE_RES_PODS,
	FAKE_RES_CONFIGMAPS,
	FAKE_RES_SERVICES,
	FAKE_RES_EVENTS,
	FAKE_RES_LEASES,
	FAKE_NBUILTIN
};

#define FAKE_RES_MAX 64 /* built-ins plus custom resources */

#define FAKE_RES_MAX_FIELDS 12

struct fake_res {
	const char *resource;	 /* plural, "pods" */
	const char *group;	 /* "" for the core group, "example.com" */
	const char *version;	 /* "v1" */
	const char *api_version; /* "v1", "example.com/v1" */
	const char *key;	 /* "pods", "widgets.example.com": --seed and
				 * /fake/stats name it so */
	bool custom;		 /* declared by --crd */
	bool uncached;		 /* --uncached-resources: served from
				 * "etcd", without the watch cache */
	const char *singular;	 /* "pod" */
	const char *kind;	 /* "Pod" */
	const char *list_kind;	 /* "PodList" */
	bool namespaced;
	const char *short_name; /* "po", or NULL */
	bool category_all;	/* listed in the "all" category */
	const char *hash; /* storageVersionHash, as the real server gives */
	/* Selectable fields besides metadata.name/namespace; NULL-terminated.
	 * Each is a dotted path into the object, unless paths[i] gives
	 * another (an event's "source" selects source.component). */
	const char *fields[FAKE_RES_MAX_FIELDS + 1];
	const char *paths[FAKE_RES_MAX_FIELDS + 1];
	/* What follows "metadata" in a BOOKMARK object: Go's zero value of
	 * the kind's other members ("" when there are none). */
	const char *bookmark_tail;
};

/* Counters: written with atomics from any thread. */
struct fake_res_stats {
	unsigned long list;  /* LIST requests received */
	unsigned long watch; /* WATCH requests received */
	long watch_open;     /* watch streams open now */
};

/* Entries [0, fake_nres) are valid; written only before serving. */
extern struct fake_res fake_res_table[FAKE_RES_MAX];
extern int fake_nres;
extern struct fake_res_stats fake_res_stats[FAKE_RES_MAX];

/* Index of the resource with that key ("pods", "widgets.example.com"),
 * or -1. */
int fake_res_find(const char *key);
/* Index of the resource served at group/version/plural, or -1. */
int fake_res_find_gvr(const char *group, const char *version,
		      const char *plural);
/*
 * Declare a custom resource from "plural.group/version:Kind[:Cluster]"
 * (namespaced unless cluster or the :Cluster suffix). Before serving
 * only. 0, or -EINVAL/-ENOSPC with err set.
 */
int fake_res_add_crd(const char *spec, bool cluster, char *err, size_t errlen);
/* The number of entries in res->fields. */
int fake_res_nfields(int res);
/* The dotted path in the object that selectable field i reads. */
const char *fake_res_field_path(int res, int i);

static inline void fake_res_count(unsigned long *c)
{
	__atomic_add_fetch(c, 1, __ATOMIC_RELAXED);
}

#endif
