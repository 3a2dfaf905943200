/*
 * protobuf: the cache's answers in Kubernetes protobuf
 * (application/vnd.kubernetes.protobuf): which requests get it (Accept
 * negotiation, as the apiserver negotiates), and the framing around the
 * objects' kept encodings (cache/obj.h: cache_obj_pb): an object's
 * envelope, a List, a watch frame, a Status.
 *
 * Wire forms (docs/ARCHITECTURE.md, "Protobuf answers"):
 *   body   = "k8s\0" Unknown{1 TypeMeta{1 apiVersion, 2 kind}, 2 raw,
 *            3 "", 4 ""}
 *   list   = body whose raw is XList{1 ListMeta, 2 item...}; items carry
 *            no TypeMeta
 *   watch  = frames: 4-byte big-endian length, then WatchEvent{1 type,
 *            2 RawExtension{1 raw = a whole body}}
 *
 * Pure functions on caller-owned buffers; any thread.
 */
#ifndef PROXY_PROTOBUF_H
#define PROXY_PROTOBUF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cache/history.h"
#include "cache/kind.h"
#include "cache/obj.h"
#include "cache/resource.h"
#include "config/buf.h"

#define PROXY_PB_MEDIA "application/vnd.kubernetes.protobuf"
#define PROXY_PB_STREAM "application/vnd.kubernetes.protobuf;stream=watch"

/* What a request's Accept header asks of a GET, LIST or WATCH. */
enum proxy_pb_form {
	PROXY_PB_NONE,	   /* not protobuf: the JSON/YAML/Table path
			    * decides (and answers its own 406) */
	PROXY_PB_OBJECT,   /* the objects themselves, in protobuf */
	PROXY_PB_METADATA, /* PartialObjectMetadata(List), in protobuf */
	PROXY_PB_REFUSED,  /* 406 NotAcceptable, its Status in protobuf:
			    * protobuf was the only choice, for a kind
			    * the apiserver serves unstructured */
};

/*
 * Negotiate accept (NULL or "": none) as the apiserver does for a read
 * of a kind; typed: a kind it serves typed (built-in), which has a
 * protobuf form, rather than unstructured (a custom resource), which
 * has none. Entries are ranked as the apiserver's Accept parser ranks
 * them (a higher q first, or else a concrete type before a wildcard;
 * q=0 still counts; ties in header order; every entry, however many);
 * the first one the server can produce wins: * / * and application/json or
 * application/yaml are the JSON path's; application/vnd.kubernetes.
 * protobuf is protobuf (parameters it does not use, such as
 * ;stream=watch, ignored), but as=Table is never protobuf (passed over),
 * and as=PartialObjectMetadata(List);g=meta.k8s.io;v=v1|v1beta1 is the
 * metadata form (*meta_version "v1" or "v1beta1"). For an untyped kind a
 * protobuf entry is passed over, and when nothing else is acceptable the
 * answer is PROXY_PB_REFUSED.
 */
enum proxy_pb_form proxy_pb_negotiate(const char *accept, bool typed,
				      const char **meta_version);


/* Append what goes before an object's message of raw_len bytes in its
 * body: the magic, the envelope's TypeMeta, the raw field's tag and
 * length. The body is that, the message, then PROXY_PB_TAIL (the
 * envelope's two empty strings). */
int proxy_pb_object_head(struct buf *out, const char *api_version,
			 const char *kind, size_t raw_len);
#define PROXY_PB_TAIL "\x1a\x00\x22\x00"
#define PROXY_PB_TAIL_LEN 4

/* Append the ListMeta message (no tag) for the JSON ListMeta
 * json[0, len) ({"resourceVersion":..,"continue":..,
 * "remainingItemCount":..}). Returns 0, -EINVAL, -ENOMEM. */
int proxy_pb_listmeta(struct buf *out, const char *json, size_t len);

/*
 * A List's body around its items: head gets everything before the first
 * item (magic, envelope, the List's length, its ListMeta field), given
 * items_len, the sum of proxy_pb_item_len() of every item; the caller
 * then writes each item as proxy_pb_item_prefix() and its raw bytes, and
 * last PROXY_PB_TAIL.
 */
int proxy_pb_list_head(struct buf *head, const char *api_version,
		       const char *list_kind, const void *listmeta,
		       size_t listmeta_len, size_t items_len);
/* The bytes an item of n raw bytes takes in a List: tag, length, n. */
size_t proxy_pb_item_len(size_t n);
/* Write an item's tag and length (at most PROXY_PB_PREFIX_MAX bytes) to
 * p; returns how many. */
#define PROXY_PB_PREFIX_MAX 11
size_t proxy_pb_item_prefix(unsigned char *p, size_t n);

/* Append one watch frame: the length, WatchEvent{type, raw body}. */
int proxy_pb_watch_frame(struct buf *out, const char *type, const void *body,
			 size_t n);

/* Append the watch frame of event type for object o, from o's kept
 * encoding (cache_obj_pb, made now if it is the first ask). Returns 0 or
 * cache_obj_pb's error. */
int proxy_pb_frame_obj(struct buf *out, const char *type, struct cache_obj *o);

/* Append the frame of a JSON watch line {"type":T,"object":O}\n that the
 * proxy wrote itself (a BOOKMARK, an ERROR's Status, a metadata-only
 * object): O encoded by its own kind and apiVersion. Returns 0, -ENOENT
 * or -ENOSYS as cache_obj_pb, -EINVAL for a line not of that form,
 * -ENOMEM. */
int proxy_pb_frame_json(struct buf *out, const char *line, size_t len);

/*
 * The watch frame of the shared event ev, made once for all its
 * watchers (on the first ask, kept as ev->twin until ev is freed).
 * Sets *p and *len (valid while the caller holds a reference to ev) and
 * returns 0, or an error as proxy_pb_frame_obj() (kept: asked again, it
 * answers at once; -ENOMEM is not kept).
 */
int proxy_pb_event_frame(struct cache_event *ev, const unsigned char **p,
			 size_t *len);

/*
 * Append the Status whose JSON is json[0, len) (a proxy_status_body(), or
 * any v1 Status object) as a whole body. Returns 0, -EINVAL for JSON
 * that is not a Status, -ENOMEM.
 */
int proxy_pb_status(struct buf *out, const char *json, size_t len);

/* Append the body of a PartialObjectMetadata whose JSON (from
 * proxy_table_metadata_render(), kind and apiVersion first) is
 * json[0, len); with raw_only just its message, for a List's items. */
int proxy_pb_metadata(struct buf *out, const char *json, size_t len,
		      bool raw_only);

/*
 * Whether a protobuf watch of r can be served: every object of its
 * current state has its kept encoding (made now for those never asked
 * for), and no earlier protobuf watch of r met an object it could not
 * encode. Returns 0, or the error of the first object that failed
 * (cache_obj_pb), when the watch is to go upstream. Any thread.
 */
int proxy_pb_check_watch(struct cache_resource *r);

/* Why a protobuf read is passed to the upstream: the reason label of
 * informer_proxy_protobuf_passthrough_total, from a cache_obj_pb()
 * error: 0 "unknown_field" (-ENOENT), 1 "no_schema" (-ENOSYS), 2
 * "invalid" (anything else). */
#define PROXY_PB_PASS_NREASONS 3
int proxy_pb_pass_reason(int err);
const char *proxy_pb_pass_reason_name(int why);

#endif
