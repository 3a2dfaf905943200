/*
 * fake_proto: Kubernetes protobuf request bodies, turned into the JSON a
 * JSON client would have sent.
 *
 * client-go's typed clients (kubectl create configmap/namespace/service,
 * kubectl run, controllers) write built-in kinds as
 * application/vnd.kubernetes.protobuf: the magic "k8s\0", then a
 * runtime.Unknown {1 typeMeta {1 apiVersion, 2 kind}, 2 raw,
 * 3 contentEncoding, 4 contentType} whose raw is the k8s.io/api message.
 * The decoder knows every built-in kind the fake serves, from the shared
 * schema tables (cache/pb_kinds.h: every field of k8s.io/api's
 * generated.proto for each message); a field it does not know is
 * skipped, as a protobuf decoder skips unknown fields.
 *
 * Replies are negotiated from Accept (fake_pbout.h): protobuf when the
 * client asks for it first, as from the apiserver.
 */
#ifndef FAKE_PROTO_H
#define FAKE_PROTO_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

#define FAKE_PROTO_MEDIA "application/vnd.kubernetes.protobuf"

/* Whether the decoder has a schema for kind in api_version ("v1",
 * "apps/v1"): every built-in kind the fake serves. */
bool fake_proto_knows(const char *api_version, const char *kind);

/*
 * Decode body[0, len): the envelope and the object inside. Returns a new
 * JSON object with apiVersion and kind from the envelope's TypeMeta and
 * the object's members in Go struct order, zero values omitted as
 * `omitempty` would. NULL with err set when the body is not a
 * well-formed envelope, names a kind without a schema, or holds a
 * malformed message.
 */
json_t *fake_proto_decode(const void *body, size_t len, char *err,
			  size_t errlen);

#endif
