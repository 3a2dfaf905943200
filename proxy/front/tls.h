/*
 * tls: the certificate and key the --listen daemon serves HTTPS
 * with (--tls-cert-file, --tls-private-key-file), reloaded when the files
 * change on disk, as cert-manager rotates them, without a restart.
 *
 * Threads: proxy_tls_new(), proxy_tls_daemon_options() and
 * proxy_tls_free() run on main (proxy_server_start(), proxy_server_stop()). The files
 * are checked, loaded and copied by the certificate callback, which
 * GnuTLS calls in each handshake on a libmicrohttpd thread; one thread
 * at a time reloads, and no connection is ever suspended here.
 *
 * Ownership: proxy_server_start() creates the one struct proxy_tls and
 * proxy_server_stop() frees it once the daemon that uses it has stopped. The
 * loaded pair is immutable once published; a reload publishes a new one
 * and the old one is freed after an RCU grace period. Each TLS session
 * gets its own copy of the pair, which GnuTLS frees with the session, so
 * a rotation never pulls memory from under an open connection.
 *
 * The files are checked at most once a second, from the handshake of a
 * new connection: a changed pair is used from the next handshake on; a
 * pair that does not load (unreadable, not PEM, key not matching the
 * certificate) keeps the previous one and logs one warning naming the
 * file, never its content.
 */
#ifndef PROXY_TLS_H
#define PROXY_TLS_H

#include <stdbool.h>
#include <stddef.h>
#include <microhttpd.h>

struct proxy_tls;

/* The MHD_OptionItem slots proxy_tls_daemon_options() fills. */
#define PROXY_TLS_NOPTS 3

/* Load cert_file (a PEM chain, leaf first) and key_file (PEM: PKCS#1,
 * SEC1 or unencrypted PKCS#8). Returns NULL with err set to one line
 * naming the file at fault; else free with proxy_tls_free(). Only one
 * may exist at a time in a process (a second is refused): GnuTLS's
 * certificate callback has no closure, so it finds this one through a
 * static. The file names are copied. */
struct proxy_tls *proxy_tls_new(const char *cert_file, const char *key_file,
				char *err, size_t errlen);

/*
 * --tls-min-version (VersionTLS10..VersionTLS13; NULL or "": VersionTLS12)
 * and --tls-cipher-suites (the apiserver's IANA names, comma-separated;
 * NULL or "": Go's defaults, the ECDHE suites with AES-GCM, ChaCha20-
 * Poly1305 and AES-CBC-SHA; TLS 1.3's names are accepted and ignored,
 * as TLS 1.3's suites are fixed) into t's GnuTLS priorities. Call before
 * proxy_tls_daemon_options(). With t NULL only checks the names. Returns
 * 0, or -EINVAL with err naming the flag and the value refused.
 */
int proxy_tls_configure(struct proxy_tls *t, const char *min_version,
			const char *cipher_suites, char *err, size_t errlen);

/* Whether a handshaken GnuTLS session (a gnutls_session_t) is at TLS 1.3
 * or uses one of the configured TLS 1.0-1.2 suites: GnuTLS enables the
 * parts of suites, so a mix of parts outside the list can be agreed, and
 * the request on it is then refused. Any thread. */
bool proxy_tls_suite_ok(const struct proxy_tls *t, void *session);

/* What makes a libmicrohttpd daemon serve TLS with t: returns the daemon
 * flags to add (0 when t is NULL) and fills opts, the caller's array, to
 * be passed as MHD_OPTION_ARRAY, ending in MHD_OPTION_END (only that
 * when t is NULL). t must outlive the daemon. */
unsigned proxy_tls_daemon_options(struct proxy_tls *t,
				  struct MHD_OptionItem opts[PROXY_TLS_NOPTS]);

/* Free t; call after every daemon using it has stopped. NULL is fine. */
void proxy_tls_free(struct proxy_tls *t);

#endif
