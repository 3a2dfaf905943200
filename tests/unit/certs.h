/*
 * certs: X.509 certificates made in-process for the unit tests that
 * speak TLS (test_serve_tls, test_dial), so that no test depends on
 * files or a clock outside it.
 */
#ifndef TESTS_UNIT_CERTS_H
#define TESTS_UNIT_CERTS_H

#include <openssl/evp.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h>

/*
 * A certificate for key with subject CN cn and serial serial, valid from
 * nb to na seconds from now, signed by (ica, ikey), or self-signed when
 * ica is NULL. A NULL san makes a CA (critical CA:TRUE); otherwise a leaf
 * (CA:FALSE) with that subjectAltName ("IP:127.0.0.1", "DNS:name").
 * The caller frees it with X509_free().
 */
static inline X509 *test_cert_make(EVP_PKEY *key, const char *cn, long serial,
				   X509 *ica, EVP_PKEY *ikey, long nb, long na,
				   const char *san)
{
	X509 *x = X509_new();
	X509_set_version(x, 2);
	ASN1_INTEGER_set(X509_get_serialNumber(x), serial);
	X509_gmtime_adj(X509_getm_notBefore(x), nb);
	X509_gmtime_adj(X509_getm_notAfter(x), na);
	X509_set_pubkey(x, key);
	X509_NAME *n = X509_get_subject_name(x);
	X509_NAME_add_entry_by_txt(n, "CN", MBSTRING_ASC,
				   (const unsigned char *)cn, -1, -1, 0);
	X509_set_issuer_name(x, ica ? X509_get_subject_name(ica) : n);
	X509V3_CTX ctx;
	X509V3_set_ctx_nodb(&ctx);
	X509V3_set_ctx(&ctx, ica ? ica : x, x, NULL, NULL, 0);
	X509_EXTENSION *e =
		X509V3_EXT_conf_nid(NULL, &ctx, NID_basic_constraints,
				    san ? "CA:FALSE" : "critical,CA:TRUE");
	X509_add_ext(x, e, -1);
	X509_EXTENSION_free(e);
	if (san) {
		e = X509V3_EXT_conf_nid(NULL, &ctx, NID_subject_alt_name, san);
		X509_add_ext(x, e, -1);
		X509_EXTENSION_free(e);
	}
	X509_sign(x, ikey ? ikey : key, EVP_sha256());
	return x;
}

#endif
