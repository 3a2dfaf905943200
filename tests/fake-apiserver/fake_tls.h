/*
 * fake_tls: HTTPS and authentication for the fake apiserver.
 *
 *   --tls-cert F --tls-key F   serve HTTPS (both or neither)
 *   --client-ca F              ask for a client certificate; one signed by
 *                              this CA authenticates a request (needs TLS)
 *   --token T                  require "Authorization: Bearer T"
 *   --token-file F             accept each non-empty line of F as a token;
 *                              F is re-read when it changes, so a test can
 *                              rotate a token (both lines accepted while
 *                              the file holds old and new)
 *
 * With any of the last three (or --users, fake_auth.h), every API request
 * (the Kubernetes paths, discovery and /version) must authenticate, or
 * it gets the apiserver's 401 Status (reason Unauthorized, message
 * "Unauthorized"); these credentials are the super user "admin". /healthz,
 * /livez, /readyz and the /fake/ control paths stay open: the control API
 * answers loopback clients only, so tests can drive faults with no
 * credentials.
 */
#ifndef FAKE_TLS_H
#define FAKE_TLS_H

#include <microhttpd.h>
#include <stdbool.h>
#include <stddef.h>

struct fake_tls_opts {
	const char *cert_file, *key_file, *client_ca_file;
	const char *token, *token_file;
};

/* Load the files named in o (kept until fake_tls_free()). 0, or -errno
 * with err set (a missing file, TLS unsupported by libmicrohttpd, a
 * --client-ca without TLS). */
int fake_tls_setup(const struct fake_tls_opts *o, char *err, size_t errlen);
void fake_tls_free(void);
bool fake_tls_on(void);

/* The daemon flags and options HTTPS needs: MHD_USE_TLS or 0; the
 * options are appended to items (room for 4), *n updated. */
unsigned fake_tls_mhd_flags(void);
void fake_tls_mhd_options(struct MHD_OptionItem *items, int *n);

/* Whether --token, --token-file or --client-ca asks every API request
 * to authenticate (fake_auth.c decides who a request is). */
bool fake_tls_auth_required(void);
/* Whether t (n bytes) is the --token or a line of --token-file: an admin
 * token. Constant time per candidate. */
bool fake_tls_token_ok(const char *t, size_t n);
/* Whether the connection presented a certificate verified against
 * --client-ca. */
bool fake_tls_client_cert_ok(struct MHD_Connection *c);

#endif
