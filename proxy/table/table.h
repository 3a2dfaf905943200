/*
 * table: Table and PartialObjectMetadata renderings (see table.c).
 */
#ifndef PROXY_TABLE_H
#define PROXY_TABLE_H

#include <microhttpd.h>
#include <stdbool.h>
#include <stdint.h>
#include <time.h>

#include "cache/obj.h"
#include "config/buf.h"
#include "proxy/table/age.h"

enum proxy_form {
	PROXY_FORM_JSON,
	PROXY_FORM_TABLE,
	PROXY_FORM_METADATA
};
enum proxy_include {
	PROXY_INCLUDE_METADATA,
	PROXY_INCLUDE_OBJECT,
	PROXY_INCLUDE_NONE
};

struct proxy_fmt {
	enum proxy_form form;
	const char *version;	    /* meta.k8s.io version for Table/metadata */
	enum proxy_include include; /* includeObject, for Table rows */
};

/* Read Accept and includeObject. Returns 0, or -1 when Accept names
 * nothing we can produce (a 406). */
int proxy_fmt_negotiate(struct MHD_Connection *c, struct proxy_fmt *f);
/* The same from the values (NULL when absent): the first media range that
 * is JSON or a wildcard decides; a Table of an unknown version and the
 * aggregated discovery type are passed over. */
int proxy_fmt_parse(const char *accept, const char *include_object,
		    struct proxy_fmt *f);

/* One {"cells":[...],"object":...} row. Returns 0 or -EINVAL. */
int proxy_table_row(struct buf *b, const struct cache_kind *k,
		    const struct cache_obj *o, const struct proxy_fmt *f,
		    time_t now);
/* A whole {"kind":"Table",...} of n rows (no newline after it); metadata
 * is the JSON text of its ListMeta; column definitions only when
 * columns, else "columnDefinitions":null (a watch's later events). */
void proxy_table_render(struct buf *b, const struct cache_kind *k,
			const struct proxy_fmt *f, const char *metadata,
			struct cache_obj *const *rows, size_t n, bool columns,
			time_t now);
/* {"resourceVersion":"RV"} of o: the metadata of a one-object Table. */
void proxy_table_obj_meta(const struct cache_obj *o, char *out, size_t outlen);
/* {"kind":"PartialObjectMetadata",...} of o. */
int proxy_render_metadata(struct buf *b, const struct cache_obj *o,
			  const char *version);

#endif
