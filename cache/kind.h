/*
 * kind: what the cache knows about one resource type.
 *
 * A kind names the resource the way the API does (group, version, plural
 * resource, Kind, scope) and lists its selectable fields: the fields a
 * fieldSelector may name besides metadata.name and metadata.namespace.
 * Built-in kinds come from a static table; others are made from upstream
 * discovery and live until exit.
 */
#ifndef CACHE_KIND_H
#define CACHE_KIND_H

#include <stdbool.h>

#define CACHE_KIND_MAX_FIELDS 8
/* Sizes that hold the longest names the apiserver takes, with the NUL:
 * a group is a DNS subdomain (253 bytes), a version a DNS label (63);
 * an apiVersion is both with the slash. */
#define CACHE_KIND_GROUP_MAX (253 + 1)
#define CACHE_KIND_VERSION_MAX (63 + 1)
#define CACHE_KIND_API_VERSION_MAX \
	(CACHE_KIND_GROUP_MAX + CACHE_KIND_VERSION_MAX)

struct cache_kind {
	const char *group;     /* "" for the core group */
	const char *version;   /* "v1" */
	const char *resource;  /* plural, "pods" */
	const char *kind;      /* "Pod" */
	const char *list_kind; /* "PodList" */
	bool namespaced;
	/* Dotted JSON paths, e.g. "spec.nodeName"; NULL-terminated. */
	const char *fields[CACHE_KIND_MAX_FIELDS + 1];
};

/* A resource as kubectl spells it, split: "res[.version][.group]". */
struct cache_kind_spec {
	char resource[128];		      /* "deployments" */
	char version[CACHE_KIND_VERSION_MAX]; /* "v1", or "" when not given */
	char group[CACHE_KIND_GROUP_MAX];     /* "apps", or "" (the core group,
					   * or not given) */
};

/*
 * Split spec into *out. The part after the first dot is a version when it
 * looks like one (v1, v2beta1: 'v' then a digit 1-9), and the rest is the
 * group; otherwise all of it is the group. Returns 0, or -EINVAL when the
 * resource is empty or a part does not fit its field.
 */
int cache_kind_spec_parse(const char *spec, struct cache_kind_spec *out);

/*
 * Find a kind by kubectl's spelling: "pods", "pods.v1", "deployments.apps",
 * "deployments.v1.apps", "widgets.v1.example.com". Built-in kinds only;
 * NULL if unknown.
 */
const struct cache_kind *cache_kind_lookup(const char *spec);
/* Find a built-in kind by group and plural resource. */
const struct cache_kind *cache_kind_find(const char *group,
					 const char *resource);

/* Whether the apiserver serves k typed: one of its built-in kinds, or a
 * kind of the Kubernetes project's groups (no dot, or *.k8s.io), with
 * zero values written and a protobuf form; not unstructured, as a custom
 * resource is (no zero values, map keys sorted, JSON only). */
bool cache_kind_typed(const struct cache_kind *k);
/* Index of field in kind->fields, or -1. */
int cache_kind_field(const struct cache_kind *kind, const char *field);
/* "apps/v1", or "v1" for the core group, into out
 * (CACHE_KIND_API_VERSION_MAX holds it whole). */
void cache_kind_api_version(const struct cache_kind *kind, char *out,
			    unsigned outlen);

#endif
