/*
 * fake_proto: Kubernetes protobuf request bodies, turned into the JSON a
 * JSON client would have sent.
 *
 * client-go's typed clients (kubectl create configmap/namespace/service,
 * kubectl run, controllers) write built-in kinds as
 * application/vnd.kubernetes.protobuf: the magic "k8s\0", then a
 * runtime.Unknown {1 typeMeta {1 apiVersion, 2 kind}, 2 raw,
 * 3 contentEncoding, 4 contentType} whose raw is the k8s.io/api message.
 * The decoder knows the core/v1 messages of the fake's built-in kinds
 * (Namespace, Pod, ConfigMap, Service) well enough for what kubectl's
 * generators and ordinary controllers send; fields it does not know are
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

/* Whether the decoder has a schema for the kind (apiVersion v1). */
bool fake_proto_knows(const char *kind);

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
