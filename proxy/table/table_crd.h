/*
 * table_crd: the Table columns of custom resources, from their
 * CustomResourceDefinitions (apiextensions.k8s.io/v1).
 *
 * The proxy keeps the CRDs in a store of its own, filled by a reflector
 * (main.c starts it when a cached resource is a custom one), so the
 * columns follow every change of the CRD. For each Table, the CRD of the
 * kind is looked up and its version's additionalPrinterColumns parsed:
 * NAME, then each column (JSONPath subset of jsonpath.h; types string,
 * integer, number, boolean and date, a date printed as an age). A CRD
 * whose version declares no columns gets NAME and AGE, as the apiserver
 * gives it.
 */
#ifndef PROXY_TABLE_CRD_H
#define PROXY_TABLE_CRD_H

#include <stddef.h>
#include <time.h>

#include "cache/json.h"
#include "cache/kind.h"
#include "cache/store.h"
#include "config/buf.h"

struct proxy_crd_cols;

/* The store of CRDs Tables read from; NULL detaches (and frees the
 * parsed columns kept per CRD and resourceVersion). Set before serving
 * and cleared after; the store outlives every request. */
void proxy_crd_attach(struct cache_store *crds);
/* Whether group is a custom resource's, not one the apiserver has built
 * in (apps, rbac.authorization.k8s.io, ...). */
bool proxy_crd_group(const char *group);
/*
 * The columns of kind k from its CRD in the attached store, or NULL when
 * there is no store, no such CRD or version (the caller prints NAME and
 * AGE). Free with proxy_crd_cols_free.
 */
struct proxy_crd_cols *proxy_crd_cols_get(const struct cache_kind *k);
/* The columns of version in a CRD object's JSON; NULL when the version
 * is not there or the JSON is not a CRD. */
struct proxy_crd_cols *proxy_crd_cols_parse(const char *json, size_t len,
					    const char *version);
void proxy_crd_cols_free(struct proxy_crd_cols *c);
/* The columnDefinitions JSON array. */
void proxy_crd_columns(struct buf *b, const struct proxy_crd_cols *c);
/* One row's cells (comma-separated, no brackets) for the object in d. */
void proxy_crd_cells(struct buf *b, const struct proxy_crd_cols *c,
		     const struct json_doc *d, time_t now);

#endif
