/*
 * reqinfo: what a request asks for, in the attributes the apiserver's
 * authorizer sees (its RequestInfo): the verb, and for a resource request
 * API group, version, namespace, resource, name and subresource; for any
 * other, the path. Delegated authorization asks the upstream about
 * exactly these, so that the proxy decides as the apiserver would.
 *
 * The rules, as the apiserver reads a request:
 *   - A resource request is /api/VERSION/... or /apis/GROUP/VERSION/...
 *     with at least one segment after the version; anything shorter or
 *     under another prefix is a non-resource request, whose verb is the
 *     lowercase method (get, post, put, ...).
 *   - After the version, "watch" or "proxy" (followed by something) is
 *     the verb; otherwise the method says it: GET and HEAD get, POST
 *     create, PUT update, PATCH patch, DELETE delete, any other "".
 *   - namespaces/NS sets the namespace NS; when another segment follows
 *     that is not "status" or "finalize" (the namespace's own
 *     subresources), the path goes on relative to it. So GET of
 *     /api/v1/namespaces/NS is the namespace NS, in namespace NS.
 *   - Then RESOURCE[/NAME[/SUBRESOURCE[/...]]]; a proxy verb has no
 *     subresource, and segments past the third are not read.
 *   - get without a name is list, or watch when the watch parameter is
 *     given with any value but "false" or "0" (any case): so a GET of a
 *     named object with ?watch=true stays get. Only then is the field
 *     selector read: its first metadata.name= or metadata.name== term,
 *     whatever other terms beside it, is the name (unless that name is
 *     "." or "..", or holds "/" or "%"); != terms name nothing. A field
 *     selector, or any other list option, that does not parse leaves the
 *     name out.
 *   - delete without a name is deletecollection.
 *
 * Pure: any thread; struct proxy_reqinfo holds copies, nothing to free.
 */
#ifndef PROXY_FRONT_REQINFO_H
#define PROXY_FRONT_REQINFO_H

#include <stdbool.h>
#include <stddef.h>

#include "cache/kind.h"

struct proxy_reqinfo {
	bool resource; /* a resource request; else path + verb */
	char verb[32];
	char group[CACHE_KIND_GROUP_MAX], version[CACHE_KIND_VERSION_MAX];
	char ns[254], res[64], name[254], sub[64];
	const char *path; /* the path given, for a non-resource request */
};

/* What the query says, as the apiserver decodes its ListOptions. */
struct proxy_reqinfo_query {
	const char *watch; /* the watch parameter's value; NULL: none */
	const char *field_selector; /* NULL: none */
	bool options_bad; /* another list option does not decode (a limit
			   * that is no number...): the name is left out */
};

/*
 * Fill *ri for method on path (decoded, without its query) and q (NULL:
 * no query). Returns 0, or -ENAMETOOLONG when a part does not fit its
 * field (the caller cannot ask about such a request).
 */
int proxy_reqinfo_parse(const char *method, const char *path,
			const struct proxy_reqinfo_query *q,
			struct proxy_reqinfo *ri);

/* watch=V asks for a watch for any V but "0" and "false" (any case), an
 * empty value included, as the apiserver reads it; NULL (absent) does
 * not. */
bool proxy_reqinfo_watch_value(const char *v);

/* The name a field selector requires, as above, into out (cap bytes);
 * false when it names none, does not parse, or the name does not fit. */
bool proxy_reqinfo_selector_name(const char *fs, char *out, size_t cap);

/* Whether the n bytes at seg, after namespaces/NS, are one of the
 * namespace's own subresources (status, finalize) rather than a
 * resource in it. */
bool proxy_reqinfo_namespace_sub(const char *seg, size_t n);

#endif
