/*
 * forward: the identity and header rules of forwarded requests (see
 * forward.h).
 */
#include "proxy/pass/forward.h"

#include <string.h>
#include <strings.h>

bool proxy_forward_hop_by_hop(const char *name, size_t n)
{
	static const char *const hop[] = {
		"connection",
		"keep-alive",
		"transfer-encoding",
		"te",
		"trailer",
		"upgrade",
		"proxy-authenticate",
		"proxy-authorization",
		"content-length",
	};
	for (size_t i = 0; i < sizeof(hop) / sizeof(*hop); i++)
		if (strlen(hop[i]) == n && !strncasecmp(hop[i], name, n))
			return true;
	return false;
}

/* Headers with which a client asks the upstream to take it for someone:
 * impersonation, the front-proxy's X-Remote-*, credentials of any kind. */
static bool identity_header(const char *key)
{
	return !strncasecmp(key, "Impersonate-", 12) ||
	       !strncasecmp(key, "X-Remote-", 9) ||
	       !strcasecmp(key, "Authorization") ||
	       !strcasecmp(key, "Proxy-Authorization") ||
	       !strcasecmp(key, "Cookie");
}

bool proxy_forward_header(const char *key, bool strip_identity, bool upgrade)
{
	bool keep_upgrade = upgrade && !strcasecmp(key, "upgrade");
	if (!keep_upgrade && proxy_forward_hop_by_hop(key, strlen(key)))
		return false;
	if (!strcasecmp(key, "host") || !strcasecmp(key, "expect"))
		return false;
	return !(strip_identity && identity_header(key));
}

struct proxy_forward_who proxy_forward_who(struct MHD_Connection *c,
					   bool lend_identity)
{
	const char *authz = MHD_lookup_connection_value(c, MHD_HEADER_KIND,
							"Authorization");
	struct proxy_forward_who w = { .client_creds = authz && *authz };
	w.as_proxy = !w.client_creds && lend_identity;
	w.strip_identity = !w.client_creds;
	return w;
}
