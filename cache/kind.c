/*
 * kind: the built-in table of resource types (see kind.h).
 *
 * The selectable fields per kind are the ones the apiserver registers as
 * field label conversions for that kind (besides metadata.name and
 * metadata.namespace, which every kind has).
 */
#include "cache/kind.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#define K(g, r, k, ns, ...)                  \
	{                                    \
		g, "v1", r, k, k "List", ns, \
		{                            \
			__VA_ARGS__          \
		}                            \
	}

static const struct cache_kind builtin[] = {
	K("", "namespaces", "Namespace", false, "status.phase", NULL),
	K("", "nodes", "Node", false, "spec.unschedulable", NULL),
	K("", "pods", "Pod", true, "spec.nodeName", "spec.restartPolicy",
	  "spec.schedulerName", "spec.serviceAccountName", "spec.hostNetwork",
	  "status.phase", "status.podIP", "status.nominatedNodeName"),
	K("", "configmaps", "ConfigMap", true, NULL),
	K("", "secrets", "Secret", true, "type", NULL),
	K("", "services", "Service", true, "spec.clusterIP", "spec.type", NULL),
	K("", "endpoints", "Endpoints", true, NULL),
	K("", "serviceaccounts", "ServiceAccount", true, NULL),
	K("", "persistentvolumeclaims", "PersistentVolumeClaim", true, NULL),
	K("", "persistentvolumes", "PersistentVolume", false, NULL),
	K("", "events", "Event", true, NULL),
	K("apps", "deployments", "Deployment", true, NULL),
	K("apps", "replicasets", "ReplicaSet", true, "status.replicas", NULL),
	K("apps", "statefulsets", "StatefulSet", true, NULL),
	K("apps", "daemonsets", "DaemonSet", true, NULL),
	K("batch", "jobs", "Job", true, "status.successful", NULL),
	K("batch", "cronjobs", "CronJob", true, NULL),
	K("discovery.k8s.io", "endpointslices", "EndpointSlice", true, NULL),
	K("coordination.k8s.io", "leases", "Lease", true, NULL),
	K("apiextensions.k8s.io", "customresourcedefinitions",
	  "CustomResourceDefinition", false, NULL),
};

const struct cache_kind *cache_kind_find(const char *group,
					 const char *resource)
{
	for (size_t i = 0; i < sizeof(builtin) / sizeof(builtin[0]); i++)
		if (!strcmp(builtin[i].group, group) &&
		    !strcmp(builtin[i].resource, resource))
			return &builtin[i];
	return NULL;
}

static bool is_version(const char *s, size_t n)
{
	/* v1, v2, v1beta1, v1alpha2 ... */
	return n >= 2 && s[0] == 'v' && s[1] >= '1' && s[1] <= '9';
}

/* s[0..n) into out (cap bytes) as a string; false when it does not fit. */
static bool put(char *out, size_t cap, const char *s, size_t n)
{
	if (n >= cap)
		return false;
	memcpy(out, s, n);
	out[n] = '\0';
	return true;
}

int cache_kind_spec_parse(const char *spec, struct cache_kind_spec *out)
{
	const char *dot = strchr(spec, '.');
	size_t n = dot ? (size_t)(dot - spec) : strlen(spec);
	out->version[0] = out->group[0] = '\0';
	if (!n || !put(out->resource, sizeof(out->resource), spec, n))
		return -EINVAL;
	if (!dot)
		return 0;
	const char *rest = dot + 1, *d2 = strchr(rest, '.');
	size_t len = d2 ? (size_t)(d2 - rest) : strlen(rest);
	if (is_version(rest, len)) {
		if (!put(out->version, sizeof(out->version), rest, len))
			return -EINVAL;
		rest = d2 ? d2 + 1 : "";
	}
	if (!put(out->group, sizeof(out->group), rest, strlen(rest)))
		return -EINVAL;
	return 0;
}

const struct cache_kind *cache_kind_lookup(const char *spec)
{
	struct cache_kind_spec ks;
	if (cache_kind_spec_parse(spec, &ks))
		return NULL;
	const struct cache_kind *k = cache_kind_find(ks.group, ks.resource);
	if (k && ks.version[0] && strcmp(k->version, ks.version))
		return NULL;
	return k;
}

int cache_kind_field(const struct cache_kind *kind, const char *field)
{
	for (int i = 0; kind->fields[i]; i++)
		if (!strcmp(kind->fields[i], field))
			return i;
	return -1;
}

void cache_kind_api_version(const struct cache_kind *kind, char *out,
			    unsigned outlen)
{
	if (kind->group[0])
		snprintf(out, outlen, "%s/%s", kind->group, kind->version);
	else
		snprintf(out, outlen, "%s", kind->version);
}

bool cache_kind_typed(const struct cache_kind *k)
{
	static const char suffix[] = ".k8s.io";
	size_t n = strlen(k->group), ns = sizeof(suffix) - 1;
	return cache_kind_find(k->group, k->resource) ||
	       !strchr(k->group, '.') ||
	       (n > ns && !strcmp(k->group + n - ns, suffix));
}
