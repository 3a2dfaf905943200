/*
 * obj: one cached Kubernetes object, immutable once published.
 *
 * An object keeps the raw JSON bytes as received from upstream (with
 * kind/apiVersion put first, white space outside strings dropped, and
 * metadata.managedFields cut out when asked) plus
 * the few parsed fields the cache needs: namespace, name, uid,
 * resourceVersion, labels and the kind's selectable fields. Everything
 * lives in one allocation, so the memory cost is the wire size plus a
 * small header.
 *
 * Ownership: reference counted. cache_obj_parse() returns one reference;
 * every holder (store tree node, history event, response in flight) owns
 * one and drops it with cache_obj_put(). Fields never change after parse,
 * so any thread holding a reference may read them without a lock.
 */
#ifndef CACHE_OBJ_H
#define CACHE_OBJ_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cache/kind.h"
#include "cache/selector.h"

#define CACHE_OBJ_MAGIC 0x0b1ec7u

struct cache_obj {
	uint32_t magic;
	uint32_t refs;		       /* atomic */
	const struct cache_kind *kind; /* lives as long as the process */
	uint64_t rv;		       /* metadata.resourceVersion */
	const char *ns;		       /* "" when cluster-scoped */
	const char *name;
	const char *uid; /* "" when absent */
	int64_t created; /* creationTimestamp, unix seconds; 0 if absent */
	uint32_t nlabels;
	const struct cache_label *labels; /* sorted by key */
	/* Values of kind->fields[i], NULL where the object has none. */
	const char *const *fields;
	/* Summary columns for Table output (kind specific, may be NULL). */
	const char *table;
	/* The object as compact JSON, no trailing newline: bytes that
	 * json_parse() accepted (or the cache's own edits of such), so a
	 * reader may re-parse them with json_parse_trusted(). It always
	 * starts {"kind":"K","apiVersion":"V", as the apiserver writes objects for
	 * GET and watch; list items leave those two out, so a list writes
	 * "{" and then json + item_off. */
	const char *json;
	size_t len;
	uint32_t item_off;
	/* The length of json + item_off indented as a List's item (Go's
	 * json.Indent, at the depth of "items"), kept by proxy/reply.c on
	 * the first ask: 0 until then. Atomic; costs no byte (padding). */
	uint32_t pretty_len;
	/* The protobuf message, made on first demand (cache_obj_pb); NULL
	 * until then. Atomic; freed with the object. */
	struct cache_blob *pb;
	/* the arena with the bytes above follows */
};

/* Bytes made from an object once and kept beside it: len bytes at p, or
 * err (a negative errno) when they cannot be made. Immutable once
 * published; lives as long as its owner. */
struct cache_blob {
	size_t len;
	int err;
	unsigned char p[];
};

/*
 * Publish b at *slot unless another thread did first (compare and swap):
 * returns the blob that stays there, and frees b when it lost. b NULL:
 * returns NULL. Any thread.
 */
struct cache_blob *cache_blob_publish(struct cache_blob **slot,
				      struct cache_blob *b);

/*
 * Parse one object's JSON. Keeps a private copy of the bytes (minus
 * managedFields when strip_managed). Refuses malformed JSON, a non-object,
 * and an object without metadata.name or a numeric resourceVersion.
 * On failure returns NULL and, when err is given, a one-line reason.
 */
struct cache_obj *cache_obj_parse(const struct cache_kind *kind,
				  const char *json, size_t len,
				  bool strip_managed, char *err, size_t errlen);

/* Why an upstream object was refused (the reason label of
 * informer_proxy_upstream_items_rejected_total). */
enum cache_reject {
	CACHE_REJECT_INVALID,	/* not an object the cache can read: no
				 * metadata, no numeric resourceVersion,
				 * a label value that is not a string... */
	CACHE_REJECT_NAME,	/* a name or namespace no apiserver stores */
	CACHE_REJECT_TOO_LARGE, /* past --upstream-line-max-mib */
	CACHE_REJECT_DEPTH,	/* nested deeper than LIMIT_JSON_DEPTH */
	CACHE_REJECT_KEYS,	/* a member the cache reads named twice,
				 * or with an escape (docs/JSON.md) */
	CACHE_REJECT_NREASONS
};
/* "invalid", "name", "too_large", "depth", "keys". */
const char *cache_obj_reject_name(int why);

struct json_doc;
/* The same, for the value at token root of an already parsed document
 * (a LIST page item or a watch event's object): no second tokenization.
 * When why is given, it says why on failure (enum cache_reject, or -1
 * when out of memory: no fault of the object's).
 *
 * Keys are checked as the apiserver would have: the name must be a path
 * segment (not empty, ".", or "..", no '/' or '%') without control
 * bytes (so "\u0000" cannot cut the key short); the namespace, for a
 * namespaced kind, a DNS-1123 subdomain; a cluster-scoped object has
 * none. */
struct cache_obj *cache_obj_from_doc(const struct cache_kind *kind,
				     const struct json_doc *doc, int root,
				     bool strip_managed, char *err,
				     size_t errlen);
struct cache_obj *cache_obj_from_doc_why(const struct cache_kind *kind,
					 const struct json_doc *doc, int root,
					 bool strip_managed, char *err,
					 size_t errlen, int *why);

struct json_shape;
/* A copy of o whose metadata.resourceVersion reads rv (a deletion's RV).
 * shape: what the kind's objects tokenize (cache_shape_object()), so that
 * the rest of o's bytes, accepted when cached, is jumped over rather than
 * validated again; NULL: o is tokenized and validated whole. NULL on
 * ENOMEM. */
struct cache_obj *cache_obj_with_rv(const struct cache_obj *o, uint64_t rv,
				    const struct json_shape *shape);

static inline struct cache_obj *cache_obj_get(struct cache_obj *o)
{
	__atomic_add_fetch(&o->refs, 1, __ATOMIC_RELAXED);
	return o;
}

/* n references at once (one atomic add, while o is in cache). */
static inline void cache_obj_get_n(struct cache_obj *o, uint32_t n)
{
	__atomic_add_fetch(&o->refs, n, __ATOMIC_RELAXED);
}

void cache_obj_put(struct cache_obj *o);

/*
 * o's object as a Kubernetes protobuf message (no envelope, no TypeMeta:
 * cache/pb_encode.h), encoded on the first call and kept until o is
 * freed; later calls, from any thread, return the same bytes without
 * work. Objects nobody asks for in protobuf pay only the NULL pointer.
 * Sets *raw and *len (valid while the caller holds its reference to o)
 * and returns 0; -ENOENT when o holds a member the kind's schema does
 * not know (it cannot be encoded faithfully), -ENOSYS when the kind has
 * no schema (a custom resource, a kind not written down): both kept, so
 * asked again they answer at once; -ENOMEM (not kept). err, when given,
 * names the first failure ("Pod.spec.foo").
 */
int cache_obj_pb(struct cache_obj *o, const unsigned char **raw, size_t *len,
		 char *err, size_t errlen);

/* The value of label key, or NULL. */
const char *cache_obj_label(const struct cache_obj *o, const char *key);

/*
 * Ask for o's header and what follows it (its fields, labels and their
 * strings: the first CACHE_OBJ_HEAD_LINES cache lines) to be brought into
 * the cache, ahead of a pass over many objects: each object of a large
 * store is a miss of its own. Only a hint; write intent, for the
 * reference count.
 */
#define CACHE_OBJ_HEAD_LINES 7
static inline void cache_obj_prefetch(const struct cache_obj *o, int lines)
{
	for (int i = 0; i < lines; i++)
		__builtin_prefetch((const char *)o + 64 * i, 1);
}

/* Compare two objects' keys in the apiserver's (etcd's) order: the bytes
 * of "namespace/name". */
int cache_obj_keycmp(const char *ns1, const char *name1, const char *ns2,
		     const char *name2);

#endif
