/*
 * table_crd_int: the Table columns of custom resources, from their
 * CustomResourceDefinitions (apiextensions.k8s.io/v1).
 *
 * The proxy keeps the CRDs in a store of its own, filled by a reflector
 * (main.c starts it when a cached resource is a custom one), so the
 * columns follow every change of the CRD. For each Table, the CRD of the
 * kind is looked up and its version's additionalPrinterColumns parsed:
 * NAME, then each column (JSONPath subset of table_jsonpath_int.h; types string,
 * integer, number, boolean and date, a date printed as an age). A CRD
 * whose version declares no columns gets NAME and AGE, as the apiserver
 * gives it.
 *
 * Internal to the table wing (table.c attaches the store and passes it
 * in). Any thread; a short mutex guards the cache of parsed columns.
 */
#ifndef PROXY_TABLE_CRD_INT_H
#define PROXY_TABLE_CRD_INT_H

#include <stddef.h>
#include <time.h>

#include "cache/json.h"
#include "cache/kind.h"
#include "cache/store.h"
#include "config/buf.h"

/* The columns of one version of a CRD. */
struct proxy_table_crd_cols;

/*
 * The columns of kind k from its CRD in store crds, or NULL when crds is
 * NULL or has no such CRD or version (the caller prints NAME and AGE).
 * Parsed columns are kept per CRD and resourceVersion; the caller gets a
 * copy of its own, to free with proxy_table_crd_cols_free.
 */
struct proxy_table_crd_cols *
proxy_table_crd_cols_get(struct cache_store *crds, const struct cache_kind *k);
/* Free the columns kept by proxy_table_crd_cols_get (when the store they
 * came from is detached). */
void proxy_table_crd_cache_clear(void);
/* The columns of version in a CRD object's JSON, NULL when the version
 * is not there or the JSON is not a CRD. The caller frees them. */
struct proxy_table_crd_cols *
proxy_table_crd_cols_parse(const char *json, size_t len, const char *version);
void proxy_table_crd_cols_free(struct proxy_table_crd_cols *c);
/* The columnDefinitions JSON array, appended to b. */
void proxy_table_crd_definitions(struct buf *b,
				 const struct proxy_table_crd_cols *c);
/* One row's cells (comma-separated, no brackets) for the object in d. */
void proxy_table_crd_cells(struct buf *b, const struct proxy_table_crd_cols *c,
			   const struct json_doc *d, time_t now);

#endif
