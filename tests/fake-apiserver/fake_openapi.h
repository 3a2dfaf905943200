/*
 * fake_openapi: the OpenAPI documents kubectl downloads before it
 * writes a file (`kubectl create -f`, default --validate=strict).
 *
 * kubectl >= 1.27 reads /openapi/v3 (an index of group/versions) and
 * then /openapi/v3/api/v1 or /openapi/v3/apis/G/V: if the PATCH operation
 * of the object's kind lists the `fieldValidation` query parameter, it
 * leaves validation to the server and sends fieldValidation=Strict;
 * otherwise it validates on the client against the schemas. On any
 * error with v3 it falls back to /openapi/v2, which it (and kubectl
 * 1.20, which knows only v2) asks for as gnostic protobuf
 * (application/com.github.proto-openapi.spec.v2@v1.0+protobuf).
 *
 * The fake serves, for every resource it serves, minimal but valid
 * documents: v3 with the paths, operations (with
 * x-kubernetes-group-version-kind and fieldValidation) and object
 * schemas; v2 as swagger 2.0 JSON, or as protobuf with the paths alone
 * (no definitions, so kubectl 1.20 finds no model and skips client-side
 * validation, as it does for kinds the server does not describe).
 */
#ifndef FAKE_OPENAPI_H
#define FAKE_OPENAPI_H

#include <microhttpd.h>
#include <stdbool.h>

/* GET /openapi/v2, /openapi/v3, /openapi/v3/api/v1, /openapi/v3/apis/G/V:
 * queue the reply and return true; false when path is none of those. */
bool fake_openapi_serve(struct MHD_Connection *c, const char *path,
			enum MHD_Result *ret);

#endif
