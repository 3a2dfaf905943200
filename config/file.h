/*
 * file: the --config FILE of bin/informer-proxy, a YAML document read
 * into plain structs. It checks the shape and the syntax of every value
 * it can without the cache layer (names, paths, lists); what needs the
 * cache (a resource's kind, a selector's grammar) is checked by the
 * caller, who reports it with the entry's `where`.
 *
 * Every error names FILE:LINE:COLUMN of the node at fault.
 *
 * Shape (docs/CONFIG.md):
 *   resources:
 *     - resource: pods
 *       namespaces: [team-a, team-b]
 *       labelSelector: "app in (web,db)"
 *       fieldSelector: "status.phase!=Succeeded"
 *       stripFields: [metadata.managedFields]
 *       indexes: [metadata.labels.app]
 *   page-size: 500        # any flag by its name, but config
 *
 * Ownership: config_file_load() fills *out with xmalloc'd strings that
 * config_file_free() frees; struct config_scope copies are the caller's.
 */
#ifndef CONFIG_FILE_H
#define CONFIG_FILE_H

#include <stdbool.h>
#include <stddef.h>

#define CONFIG_MAX_NAMESPACES 64
#define CONFIG_MAX_STRIP 16
#define CONFIG_MAX_INDEXES 16

/* One cached resource and the part of it the proxy caches. */
struct config_scope {
	char *resource;	   /* kubectl spelling, as in --resources */
	char *where;	   /* "FILE:L:C" of the entry; NULL from a flag */
	char **namespaces; /* NULL-terminated; NULL: cluster-wide */
	int nnamespaces;
	char *label_selector; /* NULL: none */
	char *label_where;    /* "FILE:L:C" of the value */
	char *field_selector; /* NULL: none */
	char *field_where;
	char **strip; /* dotted JSON paths, "\." a literal dot */
	int nstrip;
	char **indexes; /* label keys (the KEY of metadata.labels.KEY) */
	int nindexes;
};

/* A top-level key other than resources: a flag's name and its value. */
struct config_file_global {
	char *key, *value;
	char *where;
};

struct config_file {
	struct config_scope *res;
	int nres;
	struct config_file_global *globals;
	int nglobals;
};

/* Read and check path into *out. Returns 0, or -EINVAL / -ENOMEM / -errno
 * with err set ("FILE:L:C: ..."); *out is then empty. */
int config_file_load(const char *path, struct config_file *out, char *err,
		     size_t errlen);
void config_file_free(struct config_file *f);

/* A deep copy of src into dst. Returns 0 or -ENOMEM (dst then empty). */
int config_file_scope_copy(struct config_scope *dst,
			   const struct config_scope *src);
void config_file_scope_free(struct config_scope *s);
/* Whether a and b ask for the same cache (where ignored). */
bool config_file_scope_equal(const struct config_scope *a,
			     const struct config_scope *b);

/* Split a stripFields path into its segments: "\." is a literal dot.
 * Returns the number of segments (at most max), or -EINVAL for an empty
 * segment, a trailing backslash or more than max segments. Each segment
 * is written into seg[i] (cap bytes each) unescaped. */
int config_file_path_split(const char *path, char (*seg)[256], int max);

#endif
