/*
 * pb_encode: JSON objects to Kubernetes protobuf, byte for byte as the
 * apiserver writes them (docs/PROTOBUF.md), driven by the schema tables
 * (pb_schema.h, pb_kinds.h).
 *
 * Pure functions on caller-owned buffers; any thread. Output is appended
 * to out; on an error out may hold a partial message, which the caller
 * drops (buf_reset).
 */
#ifndef CACHE_PB_ENCODE_H
#define CACHE_PB_ENCODE_H

#include <stddef.h>
#include <stdint.h>

#include "cache/pb_schema.h"
#include "cache/pb_wire.h"
#include "config/buf.h"

/* The 4 bytes that open every non-stream protobuf body. */
#define PB_MAGIC "k8s\0"
#define PB_MAGIC_LEN 4

/*
 * Encode the JSON object json[0, len) as message m (no envelope): fields
 * in ascending field number, non-pointer zero values written, maps sorted
 * by key. Top-level "kind" and "apiVersion" members are skipped (they
 * belong to the envelope). Returns 0; -ENOENT when the object holds a
 * member the schema does not know, which cannot be encoded faithfully
 * (err names its path, e.g. "Pod.spec.foo"); -EINVAL for a value of the
 * wrong JSON type or malformed JSON; -ENOMEM.
 */
int pb_encode_msg(const struct pb_msg *m, const char *json, size_t len,
		  struct buf *out, char *err, size_t errlen);

/*
 * Append a whole body: the magic, then runtime.Unknown {1 typeMeta
 * {1 apiVersion, 2 kind}, 2 raw, 3 "", 4 ""}. raw is an encoded message
 * (pb_encode_msg's output). Returns 0 or -ENOMEM.
 */
int pb_encode_envelope(const char *api_version, const char *kind,
		       const void *raw, size_t rawlen, struct buf *out);

/* pb_encode_msg, then pb_encode_envelope around it: a whole body. */
int pb_encode_body(const char *api_version, const char *kind,
		   const struct pb_msg *m, const char *json, size_t len,
		   struct buf *out, char *err, size_t errlen);

/*
 * A list kind's message, XList {1 metadata ListMeta, 2 items}, for item
 * message item: pb_list_init() fills l, and &l->msg then encodes a whole
 * list JSON ({"metadata":{...},"items":[...]}) with pb_encode_msg. name
 * is the list's Go type ("PodList"), for errors. The caller owns l; it
 * must outlive the encoding.
 */
struct pb_list {
	struct pb_field f[3];
	struct pb_msg msg;
};
void pb_list_init(struct pb_list *l, const struct pb_msg *item,
		  const char *name);

/*
 * The message of a document of kind in api_version: a registered kind
 * (pb_kinds.h), a list of one (kind "XList", made in *l, which must then
 * outlive its use), Status, PartialObjectMetadata(List), the discovery
 * documents (APIVersions, APIGroupList, APIGroup, APIResourceList). NULL
 * when the schema has none (a custom resource, a Table).
 */
const struct pb_msg *pb_encode_find(const char *api_version, const char *kind,
				    struct pb_list *l);

/*
 * A whole body for the JSON document json[0, len), whose top-level
 * "kind" and "apiVersion" name the message (pb_encode_find) and go into
 * the envelope. Returns 0; -ENOENT when the schema has no message for
 * the kind or the object holds a member it does not know; -EINVAL;
 * -ENOMEM. err says which.
 */
int pb_encode_doc(const char *json, size_t len, struct buf *out, char *err,
		  size_t errlen);

/*
 * Append one frame of a protobuf watch stream: a 4-byte big-endian
 * length, then metav1.WatchEvent {1 type, 2 object RawExtension {1 raw}}
 * whose raw is body[0, len), a whole body (magic and envelope, from
 * pb_encode_body). Returns 0, -E2BIG past 4 GiB, or -ENOMEM.
 */
int pb_encode_watch_frame(const char *type, const void *body, size_t len,
			  struct buf *out);

#endif
