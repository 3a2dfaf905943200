/*
 * table: the server-side printing kubectl asks for (meta.k8s.io Table)
 * and metadata-only objects (PartialObjectMetadata), from cached objects.
 * The one header of the table wing: nothing outside proxy/table/ includes
 * another of its headers.
 *
 * Threads: every call but proxy_table_crd_attach() may come from any
 * thread (libmicrohttpd's, in practice) at the same time. Nothing
 * suspends, waits on I/O or blocks for longer than a short mutex around
 * the parsed-CRD cache; cells are computed from the cached bytes when
 * asked for.
 *
 * Memory: output goes into the caller's struct buf or char array; the
 * wing keeps no reference to any object it is given. The only state it
 * keeps is the CRD store attached and the columns parsed from it, freed
 * when the store is detached.
 */
#ifndef PROXY_TABLE_H
#define PROXY_TABLE_H

#include <microhttpd.h>
#include <stdbool.h>
#include <stddef.h>
#include <time.h>

#include "cache/kind.h"
#include "cache/obj.h"
#include "config/buf.h"

struct cache_store;

enum proxy_table_form {
	PROXY_TABLE_FORM_JSON,
	PROXY_TABLE_FORM_TABLE,
	PROXY_TABLE_FORM_METADATA
};
enum proxy_table_include {
	PROXY_TABLE_INCLUDE_METADATA,
	PROXY_TABLE_INCLUDE_OBJECT,
	PROXY_TABLE_INCLUDE_NONE
};

/* What a request asked for. version points to a static string. */
struct proxy_table_format {
	enum proxy_table_form form;
	const char *version; /* meta.k8s.io version for Table/metadata */
	enum proxy_table_include include; /* includeObject, for Table rows */
	bool yaml; /* application/yaml: the same form, written as YAML */
};

/* Read Accept and includeObject of request c, on the thread that answers
 * it. Returns 0, or -1 when Accept names nothing we can produce (a 406):
 * the first media range that is JSON or a wildcard decides; a Table of
 * an unknown version and the aggregated discovery type are passed over;
 * application/yaml counts as JSON does, with yaml set (a watch refuses
 * it: YAML has no streaming form). */
int proxy_table_format_negotiate(struct MHD_Connection *c,
				 struct proxy_table_format *f);

/* A whole {"kind":"Table",...} of n rows (no newline after it), appended
 * to b; metadata is the JSON text of its ListMeta; column definitions
 * only when columns, else "columnDefinitions":null (a watch's later
 * events). The rows stay the caller's. A custom resource's columns come
 * from the attached CRD store, read once per call. */
void proxy_table_render(struct buf *b, const struct cache_kind *k,
			const struct proxy_table_format *f,
			const char *metadata, struct cache_obj *const *rows,
			size_t n, bool columns, time_t now);
/*
 * A LIST's whole body as a Table (form TABLE, with column definitions)
 * or a PartialObjectMetadataList (form METADATA), with a newline after
 * it, made a part at a time: the same bytes as proxy_table_render() (or
 * the items' proxy_table_metadata_render()) and "\n" give. Rows are in
 * the order given, but for the kinds whose apiserver printer sorts its
 * list (flow schemas: by matchingPrecedence, then name), in both. metadata is
 * copied; rows stay the caller's and must outlive the renderer. NULL
 * when out of memory. One thread at a time per renderer.
 */
struct proxy_table_list;
struct proxy_table_list *
proxy_table_list_new(const struct cache_kind *k,
		     const struct proxy_table_format *f, const char *metadata,
		     struct cache_obj *const *rows, size_t n, time_t now);
/* Append the next part to b: the head, then whole rows until about want
 * bytes were added, the end after the last. Returns true, or false (b
 * untouched) once all was given. */
bool proxy_table_list_next(struct proxy_table_list *tl, struct buf *b,
			   size_t want);
void proxy_table_list_free(struct proxy_table_list *tl);
/* {"resourceVersion":"RV"} of o into out: the metadata of a one-object
 * Table. */
void proxy_table_object_meta(const struct cache_obj *o, char *out,
			     size_t outlen);
/* {"kind":"PartialObjectMetadata",...} of o, an object of kind k,
 * appended to b: its metadata as the apiserver's internal object has it
 * (without the annotations that only the versioned object carries).
 * Returns 0, or -EINVAL when o's JSON does not parse. */
int proxy_table_metadata_render(struct buf *b, const struct cache_kind *k,
				const struct cache_obj *o, const char *version);

/*
 * The store of CRDs that custom resources' Tables read their columns
 * from; NULL detaches it and frees the columns parsed from it. Call from
 * the main thread, before serving and after the server has stopped: the
 * store must outlive every request that may render a Table.
 */
void proxy_table_crd_attach(struct cache_store *crds);
/* Whether group is a custom resource's, not one the apiserver has built
 * in (apps, rbac.authorization.k8s.io, ...). Any thread. */
bool proxy_table_crd_group_is_custom(const char *group);

#endif
