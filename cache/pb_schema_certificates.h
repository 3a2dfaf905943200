/*
 * pb_schema_certificates: the certificates.k8s.io/v1 messages of the
 * protobuf schema (see pb_schema.h); the kinds among them are
 * registered in pb_kinds.c.
 */
#ifndef CACHE_PB_SCHEMA_CERTIFICATES_H
#define CACHE_PB_SCHEMA_CERTIFICATES_H

#include "cache/pb_schema.h"

extern const struct pb_msg pb_cert_extra_value;
extern const struct pb_msg pb_cert_certificate_signing_request_spec;
extern const struct pb_msg pb_cert_certificate_signing_request_condition;
extern const struct pb_msg pb_cert_certificate_signing_request_status;
extern const struct pb_msg pb_cert_certificate_signing_request;
extern const struct pb_msg pb_cert_certificate_signing_request_list;

#endif
