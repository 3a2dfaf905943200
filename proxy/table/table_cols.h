/*
 * table_cols: the columns the kube-apiserver prints for each built-in
 * kind (kubectl get's NAME READY UP-TO-DATE ...), one declarative table
 * of column definitions with a named cell function each.
 *
 * A pod's READY, STATUS and RESTARTS come from one summary of its
 * containers (table_pod.c); custom resources get their columns from
 * their CRD (table_crd.c). Kinds in neither print NAME and AGE.
 */
#ifndef PROXY_TABLE_COLS_H
#define PROXY_TABLE_COLS_H

#include <time.h>

#include "cache/json.h"
#include "config/buf.h"

struct proxy_printer;

/* The printer of a built-in kind, or NULL. Static; never freed. */
const struct proxy_printer *proxy_printer_find(const char *group,
					       const char *resource);
/* Its columnDefinitions as a JSON array. */
void proxy_printer_columns(struct buf *b, const struct proxy_printer *p);
/* One row's cells, comma-separated JSON values without brackets, for
 * the object parsed in d (its root at token 0), at time now. */
void proxy_printer_cells(struct buf *b, const struct proxy_printer *p,
			 const struct json_doc *d, time_t now);
/* A metav1.LabelSelector (token sel of d, or -1) as the labels package
 * prints it: "a=b,k in (x,y),!z"; nothing for a nil or empty one. */
void proxy_tc_selector(struct buf *out, const struct json_doc *d, int sel);

#endif
