/*
 * fake_table: content negotiation for the meta.k8s.io output forms and
 * the bodies they produce: Table (kubectl's columns), PartialObjectMetadata
 * and PartialObjectMetadataList (fixtures 07-*, 11-*).
 *
 * The negotiation reads Accept in the client's order and takes the first
 * clause it can serve: application/json with as=Table or
 * as=PartialObjectMetadata[List] (g=meta.k8s.io, v=v1 or v1beta1), or
 * plain application/json (or a wildcard). Clauses it cannot serve
 * (protobuf, unknown as=) are skipped; when none is left the plain object
 * is served. The reply's Content-Type stays application/json, as the
 * apiserver's does.
 */
#ifndef FAKE_TABLE_H
#define FAKE_TABLE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "config/buf.h"
#include "fake_http.h"
#include "fake_store.h"

enum fake_as_kind {
	FAKE_AS_OBJECT,
	FAKE_AS_TABLE,
	FAKE_AS_META
};
enum fake_include {
	FAKE_INCLUDE_METADATA,
	FAKE_INCLUDE_OBJECT,
	FAKE_INCLUDE_NONE
};

struct fake_as {
	enum fake_as_kind kind;
	const char *version;	   /* "v1" or "v1beta1" of meta.k8s.io */
	enum fake_include include; /* Table rows' object */
};

/* One JSON clause of an Accept header, its parameters ("" when absent). */
struct fake_accept {
	char as[48], g[48], v[16];
};
/* The next clause naming application/json (or a wildcard) after *cur,
 * which advances; false at the end. Other media types are skipped. */
bool fake_accept_next(const char **cur, struct fake_accept *a);

/* What the request asks for. list: a LIST or WATCH (accepts
 * as=PartialObjectMetadataList; a WATCH also as=PartialObjectMetadata),
 * else a GET (as=PartialObjectMetadata). watch: the request is a WATCH. */
void fake_as_negotiate(struct MHD_Connection *c, bool list, bool watch,
		       struct fake_as *as);

/* The list metadata of a Table or a list: RV, continue, remaining
 * (remaining < 0: none). */
struct fake_listmeta {
	uint64_t rv;
	const char *cont; /* NULL: none */
	long long remaining;
};

/* A LIST body in form as (kind TABLE or META) with its trailing
 * newline. */
void fake_table_list(struct buf *b, const struct fake_as *as, int res,
		     const struct fake_listmeta *m,
		     struct fake_obj *const *items, size_t n);
/* A GET body: a 1-row Table at the object's RV, or a
 * PartialObjectMetadata. */
void fake_table_get(struct buf *b, const struct fake_as *as,
		    const struct fake_obj *o);
/* A watch event's object: a Table of one row (columnDefinitions when
 * with_cols, else null) or a PartialObjectMetadata; json is the event
 * object's bytes. No newline. */
void fake_table_event(struct buf *b, const struct fake_as *as, int res,
		      const char *json, size_t len, bool with_cols);

/* Go's duration.HumanDuration of seconds ("2m45s", "3h", "5d"). */
void fake_human_duration(long long seconds, char *out, size_t outlen);

#endif
