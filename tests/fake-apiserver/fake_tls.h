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
 * With any of the last three, every API request (the Kubernetes paths,
 * discovery and /version) must authenticate, or it gets the apiserver's
 * 401 Status (reason Unauthorized, message "Unauthorized"). /healthz,
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

/* Whether the request may proceed: no auth configured, a valid bearer
 * token, or a client certificate verified against --client-ca. */
bool fake_auth_ok(struct MHD_Connection *c);
/* The 401 reply. */
enum MHD_Result fake_reply_unauthorized(struct MHD_Connection *c);

#endif
