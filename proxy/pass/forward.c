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

bool proxy_forward_answer_kept(const char *name, size_t n)
{
	if (proxy_forward_hop_by_hop(name, n))
		return false;
	/* CORS: the proxy answers no browser's cross-origin request, and an
	 * upstream's permission must not become the proxy's */
	return !(n >= 15 && !strncasecmp(name, "access-control-", 15));
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

/* RFC 9110 5.6.2: tchar = "!" / "#" / "$" / "%" / "&" / "'" / "*" / "+" /
 * "-" / "." / "^" / "_" / "`" / "|" / "~" / DIGIT / ALPHA */
bool proxy_forward_token(const char *s)
{
	if (!s || !*s)
		return false;
	for (; *s; s++) {
		unsigned char ch = (unsigned char)*s;
		bool alnum = (ch >= '0' && ch <= '9') ||
			     (ch >= 'a' && ch <= 'z') ||
			     (ch >= 'A' && ch <= 'Z');
		if (!alnum && !strchr("!#$%&'*+-.^_`|~", ch))
			return false;
	}
	return true;
}

static enum MHD_Result check_name(void *cls, enum MHD_ValueKind kind,
				  const char *key, const char *value)
{
	bool *ok = cls;
	(void)kind;
	(void)value;
	if (!proxy_forward_token(key)) {
		*ok = false;
		return MHD_NO;
	}
	return MHD_YES;
}

bool proxy_forward_names_ok(struct MHD_Connection *c)
{
	bool ok = true;
	MHD_get_connection_values(c, MHD_HEADER_KIND, check_name, &ok);
	return ok;
}
