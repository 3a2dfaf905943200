/*
 * fake_res: the static table of served resources and their counters
 * (see fake_res.h).
 *
 * Selectable fields follow the real apiserver's registries: pods expose
 * the spec and status fields kubelets and controllers select on,
 * namespaces expose status.phase, events the involvedObject, reason,
 * type and source fields of the events registry, the others only
 * metadata.
 *
 * A custom resource's strings live in a static slot of crd_names, so the
 * table owns no heap memory.
 */
#include "fake_res.h"

#include <ctype.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#define CORE .group = "", .version = "v1", .api_version = "v1"

struct fake_res fake_res_table[FAKE_RES_MAX] = {
	[FAKE_RES_NAMESPACES] = {
		.resource = "namespaces", .key = "namespaces", CORE, .singular = "namespace",
		.kind = "Namespace", .list_kind = "NamespaceList",
		.namespaced = false, .short_name = "ns",
		.hash = "Q3oi5N2YM8M=",
		.fields = { "status.phase", NULL },
		.bookmark_tail = ",\"spec\":{},\"status\":{}",
	},
	[FAKE_RES_PODS] = {
		.resource = "pods", .key = "pods", CORE, .singular = "pod",
		.kind = "Pod", .list_kind = "PodList",
		.namespaced = true, .short_name = "po", .category_all = true,
		.hash = "xPOwRZ+Yhw8=",
		.fields = { "spec.nodeName", "spec.restartPolicy",
			    "spec.schedulerName", "spec.serviceAccountName",
			    "status.phase", "status.podIP",
			    "status.nominatedNodeName", NULL },
		.bookmark_tail = ",\"spec\":{\"containers\":null},\"status\":{}",
	},
	[FAKE_RES_CONFIGMAPS] = {
		.resource = "configmaps", .key = "configmaps", CORE, .singular = "configmap",
		.kind = "ConfigMap", .list_kind = "ConfigMapList",
		.namespaced = true, .short_name = "cm",
		.hash = "qFsyl6wFWjQ=",
		.fields = { NULL },
		.bookmark_tail = "",
	},
	[FAKE_RES_SERVICES] = {
		.resource = "services", .key = "services", CORE, .singular = "service",
		.kind = "Service", .list_kind = "ServiceList",
		.namespaced = true, .short_name = "svc", .category_all = true,
		.hash = "0/CO1lhkEBI=",
		.fields = { NULL },
		.bookmark_tail = ",\"spec\":{},\"status\":{\"loadBalancer\":{}}",
	},
	[FAKE_RES_EVENTS] = {
		.resource = "events", .key = "events", CORE, .singular = "event",
		.kind = "Event", .list_kind = "EventList",
		.namespaced = true, .short_name = "ev",
		.hash = "r2yiGXH7wu8=",
		.fields = { "involvedObject.kind", "involvedObject.namespace",
			    "involvedObject.name", "involvedObject.uid",
			    "involvedObject.apiVersion",
			    "involvedObject.resourceVersion",
			    "involvedObject.fieldPath", "reason",
			    "reportingComponent", "source", "type", NULL },
		.paths = { [9] = "source.component" },
		/* reportingComponent/Instance have no omitempty */
		.bookmark_tail = ",\"involvedObject\":{},\"source\":{},"
				 "\"firstTimestamp\":null,\"lastTimestamp\":null,"
				 "\"eventTime\":null,\"reportingComponent\":\"\","
				 "\"reportingInstance\":\"\"",
	},
	[FAKE_RES_LEASES] = {
		.resource = "leases", .key = "leases.coordination.k8s.io",
		.group = "coordination.k8s.io", .version = "v1",
		.api_version = "coordination.k8s.io/v1", .singular = "lease",
		.kind = "Lease", .list_kind = "LeaseList",
		.namespaced = true,
		.hash = "gqkMMb/YqFM=",
		.fields = { NULL },
		.bookmark_tail = ",\"spec\":{}",
	},
};

int fake_nres = FAKE_NBUILTIN;
struct fake_res_stats fake_res_stats[FAKE_RES_MAX];

int fake_res_find(const char *key)
{
	for (int i = 0; i < fake_nres; i++)
		if (strcmp(fake_res_table[i].key, key) == 0)
			return i;
	return -1;
}

int fake_res_find_gvr(const char *group, const char *version,
		      const char *plural)
{
	for (int i = 0; i < fake_nres; i++) {
		const struct fake_res *r = &fake_res_table[i];
		if (strcmp(r->group, group) == 0 &&
		    strcmp(r->version, version) == 0 &&
		    strcmp(r->resource, plural) == 0)
			return i;
	}
	return -1;
}

static struct crd_names {
	char plural[64], group[254], version[64], kind[64];
	char singular[64], list_kind[72], api_version[320], key[256];
	char hash[16];
} crd_names[FAKE_RES_MAX - FAKE_NBUILTIN];

/* A DNS-1123 label: lower-case alphanumerics and '-', alphanumeric ends. */
static bool dns_label(const char *s, size_t n)
{
	if (n == 0 || n > 63 || s[0] == '-' || s[n - 1] == '-')
		return false;
	for (size_t i = 0; i < n; i++)
		if (!islower((unsigned char)s[i]) &&
		    !isdigit((unsigned char)s[i]) && s[i] != '-')
			return false;
	return true;
}

/* A group name: dotted DNS labels with at least one dot, as the CRD
 * validation requires (the CRD's name, plural.group, is a DNS name of
 * at most 253 bytes: fake_res_add_crd() checks that). */
static bool dns_group(const char *s)
{
	const char *dot = strchr(s, '.');
	if (!dot || strlen(s) > 253)
		return false;
	for (const char *p = s;; p = dot + 1) {
		dot = strchr(p, '.');
		size_t n = dot ? (size_t)(dot - p) : strlen(p);
		if (!dns_label(p, n))
			return false;
		if (!dot)
			return true;
	}
}

/* Eight bytes of FNV-1a as padded base64: the shape of a
 * storageVersionHash. */
static void make_hash(char out[16], const char *a, const char *b)
{
	static const char al[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrs"
				 "tuvwxyz0123456789+/";
	uint64_t h = 0xcbf29ce484222325ULL;
	for (const char *s = a; *s; s++)
		h = (h ^ (unsigned char)*s) * 0x100000001b3ULL;
	for (const char *s = b; *s; s++)
		h = (h ^ (unsigned char)*s) * 0x100000001b3ULL;
	for (int i = 0; i < 11; i++)
		out[i] = al[(h >> (i * 6)) & 63];
	out[11] = '=';
	out[12] = '\0';
}

int fake_res_add_crd(const char *spec, bool cluster, char *err, size_t errlen)
{
	char buf[400], *slash, *colon, *dot, *kind, *scope;
	struct crd_names *nm;
	struct fake_res *r;

	if (fake_nres >= FAKE_RES_MAX) {
		snprintf(err, errlen, "--crd: at most %d custom resources",
			 FAKE_RES_MAX - FAKE_NBUILTIN);
		return -ENOSPC;
	}
	if (strlen(spec) >= sizeof(buf))
		goto bad;
	strcpy(buf, spec);
	if (!(slash = strchr(buf, '/')) || !(colon = strchr(slash, ':')))
		goto bad;
	*slash = *colon = '\0';
	kind = colon + 1;
	if ((scope = strchr(kind, ':'))) {
		*scope++ = '\0';
		if (strcmp(scope, "Cluster") == 0)
			cluster = true;
		else if (strcmp(scope, "Namespaced") != 0)
			goto bad;
	}
	if (!(dot = strchr(buf, '.')))
		goto bad;
	*dot = '\0';
	const char *plural = buf, *group = dot + 1, *version = slash + 1;
	if (!dns_label(plural, strlen(plural)) || !dns_group(group) ||
	    strlen(plural) + 1 + strlen(group) > 253 ||
	    !dns_label(version, strlen(version)) || version[0] != 'v' ||
	    !isupper((unsigned char)kind[0]) || strlen(kind) > 60)
		goto bad;
	for (const char *p = kind; *p; p++)
		if (!isalnum((unsigned char)*p))
			goto bad;
	if (fake_res_find_gvr(group, version, plural) >= 0) {
		snprintf(err, errlen, "--crd %s: declared twice", spec);
		return -EINVAL;
	}

	nm = &crd_names[fake_nres - FAKE_NBUILTIN];
	snprintf(nm->plural, sizeof(nm->plural), "%.63s", plural);
	snprintf(nm->group, sizeof(nm->group), "%.253s", group);
	snprintf(nm->version, sizeof(nm->version), "%.63s", version);
	snprintf(nm->kind, sizeof(nm->kind), "%.63s", kind);
	for (size_t i = 0; kind[i] && i + 1 < sizeof(nm->singular); i++)
		nm->singular[i] = (char)tolower((unsigned char)kind[i]);
	snprintf(nm->list_kind, sizeof(nm->list_kind), "%.63sList", kind);
	snprintf(nm->api_version, sizeof(nm->api_version), "%.253s/%.63s",
		 group, version);
	snprintf(nm->key, sizeof(nm->key), "%s.%s", plural, group);
	make_hash(nm->hash, nm->api_version, kind);

	r = &fake_res_table[fake_nres];
	*r = (struct fake_res){
		.resource = nm->plural,
		.group = nm->group,
		.version = nm->version,
		.api_version = nm->api_version,
		.key = nm->key,
		.custom = true,
		.singular = nm->singular,
		.kind = nm->kind,
		.list_kind = nm->list_kind,
		.namespaced = !cluster,
		.hash = nm->hash,
		.fields = { NULL },
		.bookmark_tail = "",
	};
	fake_nres++;
	return 0;
bad:
	snprintf(err, errlen,
		 "--crd %s: want plural.group/version:Kind, e.g. "
		 "widgets.example.com/v1:Widget (or ...:Widget:Cluster)",
		 spec);
	return -EINVAL;
}

const char *fake_res_field_path(int res, int i)
{
	const struct fake_res *r = &fake_res_table[res];
	return r->paths[i] ? r->paths[i] : r->fields[i];
}

int fake_res_nfields(int res)
{
	int n = 0;
	while (fake_res_table[res].fields[n])
		n++;
	return n;
}
