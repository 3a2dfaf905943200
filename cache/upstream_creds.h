/*
 * upstream_creds: the loaded upstream credentials (config/upstream.h)
 * applied to one libcurl transfer.
 *
 * config/ resolves what to trust and whom to present as plain data; this
 * module is the only place that turns that data into libcurl options.
 * Owned by the upstream client (cache/upstream.h calls it for every
 * request). Never logs a header, a token or key bytes.
 */
#ifndef CACHE_UPSTREAM_CREDS_H
#define CACHE_UPSTREAM_CREDS_H

#include <curl/curl.h>
#include <stdbool.h>
#include <stddef.h>

struct config_upstream;

/*
 * Apply up to the easy handle h: CA (CAINFO or CAINFO_BLOB, and no CAPATH
 * so only that CA is trusted), VERIFYPEER/VERIFYHOST (both off only with
 * insecure-skip-tls-verify), client certificate and key (SSLCERT/SSLKEY
 * or their _BLOB forms, copied by libcurl), CONNECT_TO plus a Host header
 * for tls-server-name, and "Authorization: Bearer <current token>"
 * appended to *headers. The caller sets CURLOPT_URL from up->url_base,
 * sets CURLOPT_HTTPHEADER to *headers, frees *headers with
 * curl_slist_free_all after the transfer, and never logs the headers.
 * Call it for every new request, so a rotated token is picked up. With
 * with_token false neither Authorization nor the client certificate is
 * set: the request goes with the credentials its client sent. up is
 * const for the caller; only its mutex-guarded token cache changes.
 * Returns 0, -ENOMEM, -ENOTSUP (libcurl refused an option) or the token
 * error, with err set.
 */
int cache_upstream_creds_apply(const struct config_upstream *up, CURL *h,
			       struct curl_slist **headers, bool with_token,
			       char *err, size_t errlen);

#endif
