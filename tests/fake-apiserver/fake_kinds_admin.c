/*
 * fake_kinds_admin: quota, admission, certificate, flow control, runtime
 * and CSI kinds for --all-kinds (see fake_kinds_admin.h).
 *
 * Seeds come in a few variants by idx, each chosen for a cell: a quota
 * with requests and limits and one with neither, a CSR approved and
 * issued, denied and failed, or pending; flow schemas whose matching
 * precedences do not follow their names, so that the printer's order
 * shows; priority levels exempt, queuing and rejecting.
 */
#include "fake_kinds_admin.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fake_table.h"
#include "fake_kinds_admin_cols.h"
#include "fake_table_kinds_int.h"

#define R(res, grp, ver, api, knd, nsd, shortn, tail)                         \
	{                                                                     \
		.resource = res, .group = grp, .version = ver,                \
		.api_version = api,                                           \
		.key = sizeof(grp) > 1 ? res "." grp : res, .singular = NULL, \
		.kind = knd, .list_kind = knd "List", .namespaced = nsd,      \
		.short_name = shortn, .fields = { NULL },                     \
		.bookmark_tail = tail                                         \
	}

/* Storage version hashes are the apiserver's: base64 of the first 8
 * bytes of sha256("group/version/Kind"). */
static struct fake_res admin[] = {
	R("podtemplates", "", "v1", "v1", "PodTemplate", true, NULL,
	  ",\"template\":{\"metadata\":{},\"spec\":{\"containers\":null}}"),
	R("controllerrevisions", "apps", "v1", "apps/v1", "ControllerRevision",
	  true, NULL, ",\"data\":null,\"revision\":0"),
	R("limitranges", "", "v1", "v1", "LimitRange", true, "limits",
	  ",\"spec\":{\"limits\":null}"),
	R("resourcequotas", "", "v1", "v1", "ResourceQuota", true, "quota",
	  ",\"spec\":{},\"status\":{}"),
	R("certificatesigningrequests", "certificates.k8s.io", "v1",
	  "certificates.k8s.io/v1", "CertificateSigningRequest", false, "csr",
	  ",\"spec\":{\"request\":null,\"signerName\":\"\"},\"status\":{}"),
	R("validatingwebhookconfigurations", "admissionregistration.k8s.io",
	  "v1", "admissionregistration.k8s.io/v1",
	  "ValidatingWebhookConfiguration", false, NULL, ""),
	R("mutatingwebhookconfigurations", "admissionregistration.k8s.io", "v1",
	  "admissionregistration.k8s.io/v1", "MutatingWebhookConfiguration",
	  false, NULL, ""),
	R("runtimeclasses", "node.k8s.io", "v1", "node.k8s.io/v1",
	  "RuntimeClass", false, NULL, ",\"handler\":\"\""),
	R("csidrivers", "storage.k8s.io", "v1", "storage.k8s.io/v1",
	  "CSIDriver", false, NULL, ",\"spec\":{}"),
	R("volumeattachments", "storage.k8s.io", "v1", "storage.k8s.io/v1",
	  "VolumeAttachment", false, NULL,
	  ",\"spec\":{\"attacher\":\"\",\"source\":{},\"nodeName\":\"\"},"
	  "\"status\":{\"attached\":false}"),
	R("flowschemas", "flowcontrol.apiserver.k8s.io", "v1",
	  "flowcontrol.apiserver.k8s.io/v1", "FlowSchema", false, NULL,
	  ",\"spec\":{\"priorityLevelConfiguration\":{\"name\":\"\"}},"
	  "\"status\":{}"),
	R("prioritylevelconfigurations", "flowcontrol.apiserver.k8s.io", "v1",
	  "flowcontrol.apiserver.k8s.io/v1", "PriorityLevelConfiguration",
	  false, NULL, ",\"spec\":{\"type\":\"\"},\"status\":{}"),
};

static const struct {
	const char *singular, *hash;
} admin_names[] = {
	{ "podtemplate", "LIXB2x4IFpk=" },
	{ "controllerrevision", "85nkx63pcBU=" },
	{ "limitrange", "EBKMFVe6cwo=" },
	{ "resourcequota", "8uhSgffRX6w=" },
	{ "certificatesigningrequest", "95fRKMXA+00=" },
	{ "validatingwebhookconfiguration", "B0wHjQmsGNk=" },
	{ "mutatingwebhookconfiguration", "Sqi0GUgDaX0=" },
	{ "runtimeclass", "WQTu1GL3T2Q=" },
	{ "csidriver", "hL6j/rwBV5w=" },
	{ "volumeattachment", "tJx/ezt6UDU=" },
	{ "flowschema", "GJVAJZSZBIw=" },
	{ "prioritylevelconfiguration", "Kir5PVfvNeI=" },
};

#define NADMIN (sizeof(admin) / sizeof(admin[0]))

const struct fake_res *fake_kinds_admin_res(size_t *n)
{
	for (size_t i = 0; i < NADMIN; i++) {
		admin[i].singular = admin_names[i].singular;
		admin[i].hash = admin_names[i].hash;
	}
	/* CSRs select on their signer, as the apiserver's do */
	admin[4].fields[0] = "spec.signerName";
	*n = NADMIN;
	return admin;
}

/* --- seeds ----------------------------------------------------------- */

/* The metadata of a seeded object, open: the caller may add members
 * (",\"annotations\":...") and then closes it with "}". */
static void meta_open(struct buf *b, const char *kind, const char *api,
		      const char *prefix, unsigned idx, const char *ns,
		      uint64_t rv)
{
	buf_printf(b,
		   "{\"kind\":\"%s\",\"apiVersion\":\"%s\",\"metadata\":{"
		   "\"name\":\"%s-%u\",",
		   kind, api, prefix, idx);
	if (ns)
		buf_printf(b, "\"namespace\":\"%s\",", ns);
	buf_printf(b,
		   "\"uid\":\"7a1e0000-0000-4000-9000-%012x\","
		   "\"resourceVersion\":\"%llu\",\"creationTimestamp\":"
		   "\"2025-10-0%uT0%u:00:00Z\"",
		   (unsigned)(idx * 131 + (unsigned)strlen(kind)),
		   (unsigned long long)rv, 1 + idx % 9, idx % 10);
}

static void seed_podtemplate(struct buf *b, unsigned idx, const char *ns,
			     uint64_t rv)
{
	static const char *const bodies[] = {
		"\"template\":{\"metadata\":{\"labels\":{\"tier\":\"web\","
		"\"app\":\"shop\"}},\"spec\":{\"containers\":[{\"name\":"
		"\"app\",\"image\":\"registry.example.com/shop:3\"},{\"name\":"
		"\"proxy\",\"image\":\"envoy:1.30\"}]}}",
		"\"template\":{\"metadata\":{},\"spec\":{\"containers\":"
		"[{\"name\":\"job\",\"image\":\"busybox:1.36\"}]}}",
	};
	meta_open(b, "PodTemplate", "v1", "podtemplate", idx, ns, rv);
	buf_printf(b, "},%s}", bodies[idx % 2]);
}

static void seed_controllerrevision(struct buf *b, unsigned idx, const char *ns,
				    uint64_t rv)
{
	static const char *const owners[] = {
		",\"ownerReferences\":[{\"apiVersion\":\"apps/v1\",\"kind\":"
		"\"DaemonSet\",\"name\":\"ds-0\",\"uid\":\"5d1e0000-0000-4000-"
		"8000-000000000001\",\"controller\":true,"
		"\"blockOwnerDeletion\":true}]",
		/* an owner, but not a controller */
		",\"ownerReferences\":[{\"apiVersion\":\"apps/v1\",\"kind\":"
		"\"StatefulSet\",\"name\":\"web\",\"uid\":\"5d1e0000-0000-4000-"
		"8000-000000000002\"}]",
		/* a core-group controller */
		",\"ownerReferences\":[{\"apiVersion\":\"v1\",\"kind\":"
		"\"ReplicationController\",\"name\":\"rc-0\",\"uid\":"
		"\"5d1e0000-0000-4000-8000-000000000003\",\"controller\":"
		"true}]",
	};
	meta_open(b, "ControllerRevision", "apps/v1", "cr", idx, ns, rv);
	buf_printf(b,
		   "%s},\"data\":{\"spec\":{\"template\":{\"$patch\":"
		   "\"replace\"}}},\"revision\":%u}",
		   owners[idx % 3], idx + 1);
}

static void seed_limitrange(struct buf *b, unsigned idx, const char *ns,
			    uint64_t rv)
{
	meta_open(b, "LimitRange", "v1", "limits", idx, ns, rv);
	buf_adds(b, "},\"spec\":{\"limits\":[{\"type\":\"Container\","
		    "\"default\":{\"cpu\":\"500m\"},\"defaultRequest\":"
		    "{\"cpu\":\"100m\"}}]}}");
}

static void seed_resourcequota(struct buf *b, unsigned idx, const char *ns,
			       uint64_t rv)
{
	static const char *const bodies[] = {
		"\"spec\":{\"hard\":{\"limits.cpu\":\"4\",\"limits.memory\":"
		"\"8Gi\",\"pods\":\"10\",\"requests.cpu\":\"2\","
		"\"requests.memory\":\"4Gi\"}},\"status\":{\"hard\":"
		"{\"limits.cpu\":\"4\",\"limits.memory\":\"8Gi\",\"pods\":"
		"\"10\",\"requests.cpu\":\"2\",\"requests.memory\":\"4Gi\"},"
		"\"used\":{\"limits.cpu\":\"1500m\",\"pods\":\"3\","
		"\"requests.cpu\":\"250m\"}}",
		/* never counted yet */
		"\"spec\":{\"hard\":{\"count/secrets\":\"20\"}}",
		/* limits only */
		"\"spec\":{\"hard\":{\"limits.memory\":\"1Gi\"}},\"status\":"
		"{\"hard\":{\"limits.memory\":\"1Gi\"},\"used\":"
		"{\"limits.memory\":\"512Mi\"}}",
	};
	meta_open(b, "ResourceQuota", "v1", "quota", idx, ns, rv);
	buf_printf(b, "},%s}", bodies[idx % 3]);
}

static void seed_csr(struct buf *b, unsigned idx, const char *ns, uint64_t rv)
{
	static const char *const bodies[] = {
		"\"spec\":{\"request\":\"LS0tLS1CRUdJTiBDRVJUSUZJQ0FURSBSRVFV"
		"RVNULS0tLS0K\",\"signerName\":\"kubernetes.io/kube-apiserver-"
		"client\",\"expirationSeconds\":86400,\"usages\":[\"client "
		"auth\"],\"username\":\"alice\",\"groups\":[\"system:"
		"authenticated\"]},\"status\":{\"conditions\":[{\"type\":"
		"\"Approved\",\"status\":\"True\",\"reason\":\"AutoApproved\","
		"\"lastUpdateTime\":\"2025-10-01T00:00:00Z\"}],"
		"\"certificate\":\"LS0tLS1CRUdJTiBDRVJUSUZJQ0FURS0tLS0tCg==\"}",
		"\"spec\":{\"request\":\"LS0tLS1CRUdJTiBDRVJUSUZJQ0FURSBSRVFV"
		"RVNULS0tLS0K\",\"signerName\":\"\",\"expirationSeconds\":"
		"600,\"username\":\"system:node:node-1\"},\"status\":"
		"{\"conditions\":[{\"type\":\"Denied\",\"status\":\"True\"},"
		"{\"type\":\"Failed\",\"status\":\"True\"}]}",
		"\"spec\":{\"request\":\"LS0tLS1CRUdJTiBDRVJUSUZJQ0FURSBSRVFV"
		"RVNULS0tLS0K\",\"signerName\":\"example.com/serving\","
		"\"username\":\"system:serviceaccount:ns-0:bot\"},\"status\":{}",
	};
	(void)ns;
	meta_open(b, "CertificateSigningRequest", "certificates.k8s.io/v1",
		  "csr", idx, NULL, rv);
	buf_printf(b, "},%s}", bodies[idx % 3]);
}

static void webhooks(struct buf *b, const char *kind, unsigned idx, uint64_t rv)
{
	meta_open(b, kind, "admissionregistration.k8s.io/v1",
		  kind[0] == 'V' ? "vwc" : "mwc", idx, NULL, rv);
	buf_adds(b, "}");
	if (idx % 3)
		buf_adds(b, ",\"webhooks\":[");
	for (unsigned i = 0; i < idx % 3; i++)
		buf_printf(b,
			   "%s{\"name\":\"w%u.example.com\",\"clientConfig\":"
			   "{\"url\":\"https://hooks.example.com/%u\"},"
			   "\"rules\":[{\"operations\":[\"CREATE\"],"
			   "\"apiGroups\":[\"\"],\"apiVersions\":[\"v1\"],"
			   "\"resources\":[\"pods\"],\"scope\":\"*\"}],"
			   "\"failurePolicy\":\"Fail\",\"sideEffects\":"
			   "\"None\",\"timeoutSeconds\":10,"
			   "\"admissionReviewVersions\":[\"v1\"]}",
			   i ? "," : "", i, i);
	buf_adds(b, idx % 3 ? "]}" : "}");
}

static void seed_vwc(struct buf *b, unsigned idx, const char *ns, uint64_t rv)
{
	(void)ns;
	webhooks(b, "ValidatingWebhookConfiguration", idx, rv);
}

static void seed_mwc(struct buf *b, unsigned idx, const char *ns, uint64_t rv)
{
	(void)ns;
	webhooks(b, "MutatingWebhookConfiguration", idx, rv);
}

static void seed_runtimeclass(struct buf *b, unsigned idx, const char *ns,
			      uint64_t rv)
{
	static const char *const handlers[] = { "runc", "kata", "runsc" };
	(void)ns;
	meta_open(b, "RuntimeClass", "node.k8s.io/v1", "rtc", idx, NULL, rv);
	buf_printf(b, "},\"handler\":\"%s\"}", handlers[idx % 3]);
}

static void seed_csidriver(struct buf *b, unsigned idx, const char *ns,
			   uint64_t rv)
{
	static const char *const specs[] = {
		/* nothing set: the printer's defaults */
		"{}",
		"{\"attachRequired\":false,\"podInfoOnMount\":true,"
		"\"volumeLifecycleModes\":[\"Persistent\",\"Ephemeral\"],"
		"\"storageCapacity\":true,\"fsGroupPolicy\":\"File\","
		"\"tokenRequests\":[{\"audience\":\"vault\"},{\"audience\":"
		"\"gcp\",\"expirationSeconds\":3600}],\"requiresRepublish\":"
		"true}",
		"{\"attachRequired\":true,\"podInfoOnMount\":false,"
		"\"volumeLifecycleModes\":[\"Ephemeral\"]}",
	};
	(void)ns;
	meta_open(b, "CSIDriver", "storage.k8s.io/v1", "csi", idx, NULL, rv);
	buf_printf(b, "},\"spec\":%s}", specs[idx % 3]);
}

static void seed_volumeattachment(struct buf *b, unsigned idx, const char *ns,
				  uint64_t rv)
{
	static const char *const bodies[] = {
		"\"spec\":{\"attacher\":\"csi.example.com\",\"source\":"
		"{\"persistentVolumeName\":\"pv-0\"},\"nodeName\":\"node-0\"},"
		"\"status\":{\"attached\":true,\"attachmentMetadata\":"
		"{\"devicePath\":\"/dev/xvdb\"}}",
		/* an inline volume: no PV; not attached yet */
		"\"spec\":{\"attacher\":\"ebs.csi.aws.com\",\"source\":"
		"{\"inlineVolumeSpec\":{\"csi\":{\"driver\":\"ebs.csi.aws.com\","
		"\"volumeHandle\":\"vol-1\"}}},\"nodeName\":\"node-1\"}",
		"\"spec\":{\"attacher\":\"csi.example.com\",\"source\":"
		"{\"persistentVolumeName\":\"pv-2\"},\"nodeName\":\"node-2\"},"
		"\"status\":{\"attached\":false,\"attachError\":{\"time\":"
		"\"2025-10-03T00:00:00Z\",\"message\":\"timed out\"}}",
	};
	(void)ns;
	meta_open(b, "VolumeAttachment", "storage.k8s.io/v1", "va", idx, NULL,
		  rv);
	buf_printf(b, "},%s}", bodies[idx % 3]);
}

static void seed_flowschema(struct buf *b, unsigned idx, const char *ns,
			    uint64_t rv)
{
	/* precedences out of name order, and one tie (fs-0, fs-2) */
	static const unsigned prec[] = { 1000, 500, 1000, 10 };
	static const char *const dist[] = {
		",\"distinguisherMethod\":{\"type\":\"ByUser\"}",
		"",
		",\"distinguisherMethod\":{\"type\":\"ByNamespace\"}",
		",\"distinguisherMethod\":{\"type\":\"ByUser\"}",
	};
	static const char *const status[] = {
		"{\"conditions\":[{\"type\":\"Dangling\",\"status\":\"False\","
		"\"reason\":\"Found\"}]}",
		"{\"conditions\":[{\"type\":\"Dangling\",\"status\":\"True\","
		"\"reason\":\"NotFound\"}]}",
		"{}",
		"{\"conditions\":[{\"type\":\"Other\",\"status\":\"True\"},"
		"{\"type\":\"Dangling\",\"status\":\"Unknown\"}]}",
	};
	(void)ns;
	meta_open(b, "FlowSchema", "flowcontrol.apiserver.k8s.io/v1", "fs", idx,
		  NULL, rv);
	buf_printf(b,
		   "},\"spec\":{\"priorityLevelConfiguration\":{\"name\":"
		   "\"level-%u\"},\"matchingPrecedence\":%u%s,\"rules\":[{"
		   "\"subjects\":[{\"kind\":\"Group\",\"group\":{\"name\":"
		   "\"system:authenticated\"}}],\"resourceRules\":[{\"verbs\":"
		   "[\"*\"],\"apiGroups\":[\"*\"],\"resources\":[\"*\"],"
		   "\"namespaces\":[\"*\"]}]}]},\"status\":%s}",
		   idx % 3, prec[idx % 4], dist[idx % 4], status[idx % 4]);
}

static void seed_plc(struct buf *b, unsigned idx, const char *ns, uint64_t rv)
{
	static const char *const specs[] = {
		"{\"type\":\"Exempt\",\"exempt\":{\"nominalConcurrencyShares\":"
		"0,\"lendablePercent\":0}}",
		"{\"type\":\"Limited\",\"limited\":{\"nominalConcurrencyShares\":"
		"30,\"limitResponse\":{\"type\":\"Queue\",\"queuing\":"
		"{\"queues\":64,\"handSize\":6,\"queueLengthLimit\":50}},"
		"\"lendablePercent\":0}}",
		"{\"type\":\"Limited\",\"limited\":{\"nominalConcurrencyShares\":"
		"5,\"limitResponse\":{\"type\":\"Reject\"},\"lendablePercent\":"
		"50}}",
	};
	(void)ns;
	meta_open(b, "PriorityLevelConfiguration",
		  "flowcontrol.apiserver.k8s.io/v1", "level", idx, NULL, rv);
	buf_printf(b, "},\"spec\":%s,\"status\":{}}", specs[idx % 3]);
}

static void (*const seeders[])(struct buf *, unsigned, const char *,
			       uint64_t) = {
	seed_podtemplate, seed_controllerrevision,
	seed_limitrange,  seed_resourcequota,
	seed_csr,	  seed_vwc,
	seed_mwc,	  seed_runtimeclass,
	seed_csidriver,	  seed_volumeattachment,
	seed_flowschema,  seed_plc,
};

/* Index into admin[] of resource res, or -1. */
static int admin_index(int res)
{
	for (size_t i = 0; i < NADMIN; i++)
		if (!strcmp(fake_res_table[res].key, admin[i].key))
			return (int)i;
	return -1;
}

int fake_kinds_admin_seed(struct buf *out, int res, unsigned idx,
			  const char *ns, uint64_t rv)
{
	int i = admin_index(res);
	if (i < 0)
		return -ENOENT;
	seeders[i](out, idx, ns, rv);
	return buf_ok(out) ? 0 : -ENOMEM;
}

/* --- printers -------------------------------------------------------- */

/* The objects are read with fake_table_kinds_int.h's tk_get() and
 * kin, as the other kinds' printers read theirs. */

static bool bool_at(json_t *o, const char *path, bool dflt)
{
	json_t *v = tk_get(o, path);
	return json_is_boolean(v) ? json_is_true(v) : dflt;
}

static void push_age(json_t *r, json_t *o, time_t now)
{
	const char *ts = tk_sget(o, "metadata.creationTimestamp");
	struct tm tm;
	char out[32];
	memset(&tm, 0, sizeof(tm));
	if (!*ts || !strptime(ts, "%Y-%m-%dT%H:%M:%S", &tm)) {
		tk_push(r, json_string("<unknown>"));
		return;
	}
	fake_human_duration((long long)(now - timegm(&tm)), out, sizeof(out));
	tk_push(r, json_string(out));
}

/* A growing joined string. */
struct join {
	char s[1024];
	size_t n;
	int items;
};

static void join_add(struct join *j, const char *sep, const char *v)
{
	int w = snprintf(j->s + j->n, sizeof(j->s) - j->n, "%s%s",
			 j->items ? sep : "", v);
	if (w > 0 && j->n + (size_t)w < sizeof(j->s))
		j->n += (size_t)w;
	j->items++;
}

static json_t *print_podtemplate(json_t *o, time_t now)
{
	json_t *r = json_array(), *c, *labels;
	struct join names = { "", 0, 0 }, images = { "", 0, 0 },
		    l = { "", 0, 0 };
	const char *keys[32], *k;
	size_t i, n = 0;
	(void)now;
	json_array_foreach(tk_get(o, "template.spec.containers"), i, c)
	{
		join_add(&names, ",", tk_sget(c, "name"));
		join_add(&images, ",", tk_sget(c, "image"));
	}
	labels = tk_get(o, "template.metadata.labels");
	json_object_foreach(labels, k, c) if (n < 32) keys[n++] = k;
	for (size_t x = 1; x < n; x++) /* few keys: insertion sort */
		for (size_t y = x; y && strcmp(keys[y - 1], keys[y]) > 0; y--) {
			const char *t = keys[y];
			keys[y] = keys[y - 1];
			keys[y - 1] = t;
		}
	for (i = 0; i < n; i++) {
		char kv[256];
		snprintf(kv, sizeof(kv), "%s=%s", keys[i],
			 json_string_value(json_object_get(labels, keys[i])));
		join_add(&l, ",", kv);
	}
	tk_push(r, json_string(tk_sget(o, "metadata.name")));
	tk_push(r, json_string(names.s));
	tk_push(r, json_string(images.s));
	tk_push(r, json_string(n ? l.s : "<none>"));
	return r;
}

static json_t *print_controllerrevision(json_t *o, time_t now)
{
	json_t *r = json_array(), *ref;
	size_t i;
	char owner[512] = "<none>";
	json_array_foreach(tk_get(o, "metadata.ownerReferences"), i, ref)
	{
		if (!bool_at(ref, "controller", false))
			continue;
		/* formatResourceName: lower("Kind.group") + "/" + name */
		const char *api = tk_sget(ref, "apiVersion");
		const char *slash = strchr(api, '/');
		char gk[256];
		if (slash)
			snprintf(gk, sizeof(gk), "%s.%.*s",
				 tk_sget(ref, "kind"), (int)(slash - api), api);
		else
			snprintf(gk, sizeof(gk), "%s", tk_sget(ref, "kind"));
		for (char *p = gk; *p; p++)
			if (*p >= 'A' && *p <= 'Z')
				*p = (char)(*p - 'A' + 'a');
		if (gk[0])
			snprintf(owner, sizeof(owner), "%s/%s", gk,
				 tk_sget(ref, "name"));
		else
			snprintf(owner, sizeof(owner), "%s",
				 tk_sget(ref, "name"));
		break;
	}
	tk_push(r, json_string(tk_sget(o, "metadata.name")));
	tk_push(r, json_string(owner));
	tk_push(r, json_integer((long long)tk_iget(o, "revision", 0)));
	push_age(r, o, now);
	return r;
}

static json_t *print_limitrange(json_t *o, time_t now)
{
	json_t *r = json_array();
	struct tm tm;
	char out[32] = "0001-01-01T00:00:00Z";
	(void)now;
	memset(&tm, 0, sizeof(tm));
	if (strptime(tk_sget(o, "metadata.creationTimestamp"),
		     "%Y-%m-%dT%H:%M:%S", &tm))
		strftime(out, sizeof(out), "%Y-%m-%dT%H:%M:%SZ", &tm);
	tk_push(r, json_string(tk_sget(o, "metadata.name")));
	tk_push(r, json_string(out));
	return r;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

static json_t *print_resourcequota(json_t *o, time_t now)
{
	json_t *r = json_array(), *hard = tk_get(o, "status.hard"), *v;
	const char *names[64], *k;
	size_t n = 0;
	struct join req = { "", 0, 0 }, lim = { "", 0, 0 };
	json_object_foreach(hard, k, v) if (n < 64) names[n++] = k;
	qsort(names, n, sizeof(*names), cmp_str);
	for (size_t i = 0; i < n; i++) {
		char item[256];
		const char *used = json_string_value(
			json_object_get(tk_get(o, "status.used"), names[i]));
		const char *dot = strchr(names[i], '.');
		snprintf(item, sizeof(item), "%s: %s/%s", names[i],
			 used ? used : "0",
			 json_string_value(json_object_get(hard, names[i])));
		if (dot && dot - names[i] == 6 &&
		    !strncmp(names[i], "limits", 6))
			join_add(&lim, ", ", item);
		else
			join_add(&req, ", ", item);
	}
	tk_push(r, json_string(tk_sget(o, "metadata.name")));
	tk_push(r, json_string(req.s));
	tk_push(r, json_string(lim.s));
	push_age(r, o, now);
	return r;
}

static json_t *print_csr(json_t *o, time_t now)
{
	json_t *r = json_array(), *c;
	size_t i;
	bool approved = false, denied = false, failed = false;
	char status[64], dur[32] = "<none>";
	json_array_foreach(tk_get(o, "status.conditions"), i, c)
	{
		const char *t = tk_sget(c, "type");
		approved |= !strcmp(t, "Approved");
		denied |= !strcmp(t, "Denied");
		failed |= !strcmp(t, "Failed");
	}
	snprintf(status, sizeof(status), "%s%s%s",
		 denied	  ? "Denied" :
		 approved ? "Approved" :
			    "Pending",
		 failed ? ",Failed" : "",
		 *tk_sget(o, "status.certificate") ? ",Issued" : "");
	if (tk_get(o, "spec.expirationSeconds"))
		fake_human_duration(
			(long long)tk_iget(o, "spec.expirationSeconds", 0), dur,
			sizeof(dur));
	tk_push(r, json_string(tk_sget(o, "metadata.name")));
	push_age(r, o, now);
	tk_push(r, json_string(*tk_sget(o, "spec.signerName") ?
				       tk_sget(o, "spec.signerName") :
				       "<none>"));
	tk_push(r, json_string(tk_sget(o, "spec.username")));
	tk_push(r, json_string(dur));
	tk_push(r, json_string(status));
	return r;
}

static json_t *print_webhooks(json_t *o, time_t now)
{
	json_t *r = json_array();
	tk_push(r, json_string(tk_sget(o, "metadata.name")));
	tk_push(r, json_integer(
			   (json_int_t)json_array_size(tk_get(o, "webhooks"))));
	push_age(r, o, now);
	return r;
}

static json_t *print_runtimeclass(json_t *o, time_t now)
{
	json_t *r = json_array();
	tk_push(r, json_string(tk_sget(o, "metadata.name")));
	tk_push(r, json_string(tk_sget(o, "handler")));
	push_age(r, o, now);
	return r;
}

static json_t *print_csidriver(json_t *o, time_t now)
{
	json_t *r = json_array(), *t;
	size_t i;
	struct join aud = { "", 0, 0 }, modes = { "", 0, 0 };
	json_t *tokens = tk_get(o, "spec.tokenRequests");
	json_array_foreach(tokens, i, t)
		join_add(&aud, ",", tk_sget(t, "audience"));
	json_array_foreach(tk_get(o, "spec.volumeLifecycleModes"), i, t)
		join_add(&modes, ",", json_string_value(t));
	tk_push(r, json_string(tk_sget(o, "metadata.name")));
	tk_push(r, json_boolean(bool_at(o, "spec.attachRequired", true)));
	tk_push(r, json_boolean(bool_at(o, "spec.podInfoOnMount", false)));
	tk_push(r, json_boolean(bool_at(o, "spec.storageCapacity", false)));
	/* a list stored empty comes back as none */
	tk_push(r, json_string(json_array_size(tokens) ? aud.s : "<unset>"));
	tk_push(r, json_boolean(bool_at(o, "spec.requiresRepublish", false)));
	tk_push(r, json_string(modes.n ? modes.s : "<none>"));
	push_age(r, o, now);
	return r;
}

static json_t *print_volumeattachment(json_t *o, time_t now)
{
	json_t *r = json_array();
	tk_push(r, json_string(tk_sget(o, "metadata.name")));
	tk_push(r, json_string(tk_sget(o, "spec.attacher")));
	tk_push(r, json_string(tk_sget(o, "spec.source.persistentVolumeName")));
	tk_push(r, json_string(tk_sget(o, "spec.nodeName")));
	tk_push(r, json_boolean(bool_at(o, "status.attached", false)));
	push_age(r, o, now);
	return r;
}

static json_t *print_flowschema(json_t *o, time_t now)
{
	json_t *r = json_array(), *c;
	size_t i;
	const char *missing = "?";
	json_array_foreach(tk_get(o, "status.conditions"), i, c)
	{
		if (!strcmp(tk_sget(c, "type"), "Dangling")) {
			missing = tk_sget(c, "status");
			break;
		}
	}
	tk_push(r, json_string(tk_sget(o, "metadata.name")));
	tk_push(r, json_string(
			   tk_sget(o, "spec.priorityLevelConfiguration.name")));
	tk_push(r, json_integer((long long)tk_iget(o, "spec.matchingPrecedence",
						   0)));
	tk_push(r, json_string(
			   tk_get(o, "spec.distinguisherMethod") ?
				   tk_sget(o, "spec.distinguisherMethod.type") :
				   "<none>"));
	push_age(r, o, now);
	tk_push(r, json_string(missing));
	return r;
}

static json_t *print_plc(json_t *o, time_t now)
{
	json_t *r = json_array(), *lim = tk_get(o, "spec.limited");
	json_t *q = lim ? tk_get(lim, "limitResponse.queuing") : NULL;
	tk_push(r, json_string(tk_sget(o, "metadata.name")));
	tk_push(r, json_string(tk_sget(o, "spec.type")));
	tk_push(r, lim ? json_integer((long long)tk_iget(
				 lim, "nominalConcurrencyShares", 0)) :
			 json_string("<none>"));
	tk_push(r, q ? json_integer((long long)tk_iget(q, "queues", 0)) :
		       json_string("<none>"));
	tk_push(r, q ? json_integer((long long)tk_iget(q, "handSize", 0)) :
		       json_string("<none>"));
	tk_push(r,
		q ? json_integer((long long)tk_iget(q, "queueLengthLimit", 0)) :
		    json_string("<none>"));
	push_age(r, o, now);
	return r;
}

static json_t *(*const printers[])(json_t *, time_t) = {
	print_podtemplate, print_controllerrevision,
	print_limitrange,  print_resourcequota,
	print_csr,	   print_webhooks,
	print_webhooks,	   print_runtimeclass,
	print_csidriver,   print_volumeattachment,
	print_flowschema,  print_plc,
};

const char *fake_kinds_admin_columns(int res)
{
	for (size_t i = 0; i < sizeof(admin_cols) / sizeof(admin_cols[0]); i++)
		if (!strcmp(admin_cols[i].key, fake_res_table[res].key))
			return admin_cols[i].cols;
	return NULL;
}

json_t *fake_kinds_admin_cells(int res, json_t *o, time_t now)
{
	int i = admin_index(res);
	return i < 0 ? NULL : printers[i](o, now);
}
