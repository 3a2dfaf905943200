/*
 * pb_schema_certificates: the certificates.k8s.io/v1 messages of the
 * protobuf schema (see pb_schema.h): every field of k8s.io/api's
 * generated.proto (v0.32), one row each, in Go struct order.
 */
#include "cache/pb_schema_certificates.h"

#include "cache/pb_schema_meta.h"

PB_MSG_FORM(pb_cert_extra_value, "ExtraValue", PB_FORM_LIST,
	    PB_F(1, "items", PB_STR, PB_REP));

PB_MSG(pb_cert_certificate_signing_request_spec,
       "CertificateSigningRequestSpec", PB_F(1, "request", PB_BYTES, PB_KEEP),
       PB_F(7, "signerName", PB_STR, PB_KEEP),
       PB_F(8, "expirationSeconds", PB_INT, PB_PTR),
       PB_F(5, "usages", PB_STR, PB_REP), PB_F(2, "username", PB_STR, 0),
       PB_F(3, "uid", PB_STR, 0), PB_F(4, "groups", PB_STR, PB_REP),
       PB_MX(6, "extra", PB_MAP_MSG, pb_cert_extra_value, 0));

PB_MSG(pb_cert_certificate_signing_request_condition,
       "CertificateSigningRequestCondition", PB_F(1, "type", PB_STR, PB_KEEP),
       PB_F(6, "status", PB_STR, PB_KEEP), PB_F(2, "reason", PB_STR, 0),
       PB_F(3, "message", PB_STR, 0),
       PB_F(4, "lastUpdateTime", PB_TIME, PB_KEEP),
       PB_F(5, "lastTransitionTime", PB_TIME, PB_KEEP));

PB_MSG(pb_cert_certificate_signing_request_status,
       "CertificateSigningRequestStatus",
       PB_M(1, "conditions", pb_cert_certificate_signing_request_condition,
	    PB_REP),
       PB_F(2, "certificate", PB_BYTES, 0));

PB_MSG(pb_cert_certificate_signing_request, "CertificateSigningRequest",
       PB_M(1, "metadata", pb_object_meta, PB_KEEP),
       PB_M(2, "spec", pb_cert_certificate_signing_request_spec, PB_KEEP),
       PB_M(3, "status", pb_cert_certificate_signing_request_status, PB_KEEP));

PB_MSG(pb_cert_certificate_signing_request_list,
       "CertificateSigningRequestList",
       PB_M(1, "metadata", pb_list_meta, PB_KEEP),
       PB_M(2, "items", pb_cert_certificate_signing_request, PB_REP | PB_KEEP));
