/*
 * table_jsonpath_int: the JSONPath subset a CRD's
 * additionalPrinterColumns use, on the cache's JSON tokens, for
 * table_crd.c. Pure: any thread, nothing kept.
 *
 * A path is a chain of steps from the object's root: .name (a backslash
 * escapes a dot), .*, [N] (negative counts from the end), [*], ['name']
 * or ["name"], and filters [?(@.a.b)] (exists) and [?(@.a.b OP lit)] with
 * OP one of == != < <= > >= and lit a quoted string or a number. The
 * apiserver prints only the first result, so evaluation stops at the
 * first match in document order.
 */
#ifndef PROXY_TABLE_JSONPATH_INT_H
#define PROXY_TABLE_JSONPATH_INT_H

#include "cache/json.h"

/* 0 when path is in the subset above, else -EINVAL. Only the tests call
 * it; proxy_table_jsonpath_first() finds nothing for such a path. */
int proxy_table_jsonpath_check(const char *path);
/* The first token of d under token root that path selects, or -1 (none,
 * or a path outside the subset). */
int proxy_table_jsonpath_first(const struct json_doc *d, int root,
			       const char *path);

#endif
