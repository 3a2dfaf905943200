/*
 * fake_seed: deterministic, realistic demo objects (see fake_seed.h).
 *
 * Every object is built from its index alone, so a test can regenerate
 * the exact bytes the fake apiserver serves. Field order follows the Go
 * struct order the real apiserver encodes (kind, apiVersion, metadata,
 * spec, status), and map keys (labels, annotations, data) are sorted, as
 * encoding/json sorts them.
 *
 * Seeding 100k pods must cost well under a second, so nothing here goes
 * through printf: fixed text is appended as literals, numbers and
 * timestamps are formatted by hand.
 *
 * Pod phases: every 10th pod (idx % 10 == 0) is Pending and unscheduled
 * (no spec.nodeName, no IPs, no container statuses); of the others,
 * every 25th (idx % 25 == 0) has Succeeded; the rest are Running.
 */
#include "fake_seed.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

/* 2026-01-01T00:00:00Z; pod idx is created 17 s after pod idx - 1. */
#define SEED_EPOCH 1767225600ULL
#define POD_SPACING 17
#define NODES 50
#define REPLICASETS 20

/* Append a string literal without strlen. */
#define LIT(b, s) buf_add((b), (s), sizeof(s) - 1)

enum phase {
	PHASE_RUNNING,
	PHASE_PENDING,
	PHASE_SUCCEEDED
};

static const char *const tiers[] = { "frontend", "backend" };

static uint64_t splitmix64(uint64_t x)
{
	x += 0x9e3779b97f4a7c15ULL;
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
	x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
	return x ^ (x >> 31);
}

static uint64_t fnv1a(const char *s, uint64_t h)
{
	for (; *s; s++) {
		h ^= (unsigned char)*s;
		h *= 0x100000001b3ULL;
	}
	return h;
}

static void hex(char *out, uint64_t v, int digits)
{
	static const char x[] = "0123456789abcdef";
	for (int i = digits - 1; i >= 0; i--) {
		out[i] = x[v & 15];
		v >>= 4;
	}
}

/* A version-4-looking UUID derived from (kind, key, idx): 36 chars. */
static void make_uid(char out[37], const char *kind, const char *key,
		     unsigned idx)
{
	uint64_t h = fnv1a(kind, 0xcbf29ce484222325ULL);
	h = fnv1a(key, h);
	uint64_t a = splitmix64(h ^ idx);
	uint64_t b = splitmix64(a);

	hex(out, a >> 32, 8);
	out[8] = '-';
	hex(out + 9, (a >> 16) & 0xffff, 4);
	out[13] = '-';
	hex(out + 14, 0x4000 | (a & 0x0fff), 4);
	out[18] = '-';
	hex(out + 19, 0x8000 | ((b >> 48) & 0x3fff), 4);
	out[23] = '-';
	hex(out + 24, b & 0xffffffffffffULL, 12);
	out[36] = '\0';
}

/* 64 hex digits, as in a sha256 digest or a containerd container ID. */
static void make_digest(char out[65], uint64_t seed)
{
	for (int i = 0; i < 4; i++) {
		seed = splitmix64(seed);
		hex(out + 16 * i, seed, 16);
	}
	out[64] = '\0';
}

/* 10 chars from the alphabet Kubernetes uses for pod-template-hash. */
static void make_rs_hash(char out[11], unsigned rs)
{
	static const char alpha[] = "bcdfghjklmnpqrstvwxz2456789";
	uint64_t h = splitmix64(0x5eedULL + rs);
	for (int i = 0; i < 10; i++) {
		out[i] = alpha[h % 27];
		h /= 27;
	}
	out[10] = '\0';
}

/* Days since 1970-01-01 to a civil date (proleptic Gregorian). */
static void civil_from_days(int64_t z, int *y, unsigned *m, unsigned *d)
{
	z += 719468;
	int64_t era = (z >= 0 ? z : z - 146096) / 146097;
	unsigned doe = (unsigned)(z - era * 146097);
	unsigned yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
	unsigned doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
	unsigned mp = (5 * doy + 2) / 153;

	*d = doy - (153 * mp + 2) / 5 + 1;
	*m = mp < 10 ? mp + 3 : mp - 9;
	*y = (int)(yoe + era * 400 + (*m <= 2));
}

static void put2(char *p, unsigned v)
{
	p[0] = (char)('0' + v / 10 % 10);
	p[1] = (char)('0' + v % 10);
}

/* RFC 3339 UTC, second precision, quoted: "2026-01-01T00:00:00Z". */
static void add_time(struct buf *b, uint64_t t)
{
	char s[22];
	int y;
	unsigned mo, d, sec = (unsigned)(t % 86400);

	civil_from_days((int64_t)(t / 86400), &y, &mo, &d);
	s[0] = '"';
	put2(s + 1, (unsigned)y / 100);
	put2(s + 3, (unsigned)y % 100);
	s[5] = '-';
	put2(s + 6, mo);
	s[8] = '-';
	put2(s + 9, d);
	s[11] = 'T';
	put2(s + 12, sec / 3600);
	s[14] = ':';
	put2(s + 15, sec / 60 % 60);
	s[17] = ':';
	put2(s + 18, sec % 60);
	s[20] = 'Z';
	s[21] = '"';
	buf_add(b, s, sizeof(s));
}

static void add_u(struct buf *b, uint64_t v)
{
	buf_add_u64(b, v);
}

/* "<v>" as a JSON string. */
static void add_qu(struct buf *b, uint64_t v)
{
	buf_addc(b, '"');
	buf_add_u64(b, v);
	buf_addc(b, '"');
}

static void add_str(struct buf *b, const char *s)
{
	buf_add_json_str(b, s, strlen(s));
}

static void add_ip(struct buf *b, unsigned a, unsigned c, unsigned d,
		   unsigned e)
{
	add_u(b, a);
	buf_addc(b, '.');
	add_u(b, c);
	buf_addc(b, '.');
	add_u(b, d);
	buf_addc(b, '.');
	add_u(b, e);
}

/* The metadata members every object starts with, up to and including
 * creationTimestamp. ns may be NULL for cluster-scoped objects. */
static void add_meta_head(struct buf *b, const char *prefix, unsigned idx,
			  const char *ns, const char *kind, uint64_t rv,
			  uint64_t created)
{
	char uid[37];

	make_uid(uid, kind, "", idx);
	LIT(b, "\"metadata\":{\"name\":\"");
	buf_adds(b, prefix);
	add_u(b, idx);
	buf_addc(b, '"');
	if (ns) {
		LIT(b, ",\"namespace\":");
		add_str(b, ns);
	}
	LIT(b, ",\"uid\":\"");
	buf_add(b, uid, 36);
	LIT(b, "\",\"resourceVersion\":");
	add_qu(b, rv);
	LIT(b, ",\"creationTimestamp\":");
	add_time(b, created);
}

void fake_seed_ns_name(unsigned idx, unsigned nns, char *out, unsigned outlen)
{
	snprintf(out, outlen, "ns-%u", idx % (nns ? nns : 1));
}

int fake_seed_namespace(struct buf *out, const char *name, uint64_t rv)
{
	char uid[37];
	uint64_t t = SEED_EPOCH - 86400 + fnv1a(name, 0) % 3600;

	make_uid(uid, "Namespace", name, 0);
	LIT(out, "{\"kind\":\"Namespace\",\"apiVersion\":\"v1\","
		 "\"metadata\":{\"name\":");
	add_str(out, name);
	LIT(out, ",\"uid\":\"");
	buf_add(out, uid, 36);
	LIT(out, "\",\"resourceVersion\":");
	add_qu(out, rv);
	LIT(out, ",\"creationTimestamp\":");
	add_time(out, t);
	LIT(out, ",\"labels\":{\"kubernetes.io/metadata.name\":");
	add_str(out, name);
	LIT(out, "},\"managedFields\":[{\"manager\":\"kubectl-create\","
		 "\"operation\":\"Update\",\"apiVersion\":\"v1\",\"time\":");
	add_time(out, t);
	LIT(out,
	    ",\"fieldsType\":\"FieldsV1\",\"fieldsV1\":{\"f:metadata\":"
	    "{\"f:labels\":{\".\":{},\"f:kubernetes.io/metadata.name\":{}}}"
	    "}}]},\"spec\":{\"finalizers\":[\"kubernetes\"]},"
	    "\"status\":{\"phase\":\"Active\"}}");
	return buf_ok(out) ? 0 : -ENOMEM;
}

/* Fields the controller manager owns: everything the ReplicaSet's pod
 * template sets. */
static void add_pod_mf_spec(struct buf *b, const char *rs_uid)
{
	LIT(b, "\"fieldsType\":\"FieldsV1\",\"fieldsV1\":{\"f:metadata\":{"
	       "\"f:labels\":{\".\":{},\"f:app\":{},\"f:pod-template-hash\":{},"
	       "\"f:shard\":{},\"f:tier\":{}},\"f:ownerReferences\":{\".\":{},"
	       "\"k:{\\\"uid\\\":\\\"");
	buf_add(b, rs_uid, 36);
	LIT(b,
	    "\\\"}\":{}}},\"f:spec\":{\"f:containers\":{"
	    "\"k:{\\\"name\\\":\\\"app\\\"}\":{\".\":{},\"f:env\":{\".\":{},"
	    "\"k:{\\\"name\\\":\\\"LOG_LEVEL\\\"}\":{\".\":{},\"f:name\":{},"
	    "\"f:value\":{}},\"k:{\\\"name\\\":\\\"POD_NAME\\\"}\":{\".\":{},"
	    "\"f:name\":{},\"f:valueFrom\":{\".\":{},\"f:fieldRef\":{}}},"
	    "\"k:{\\\"name\\\":\\\"POD_NAMESPACE\\\"}\":{\".\":{},"
	    "\"f:name\":{},\"f:valueFrom\":{\".\":{},\"f:fieldRef\":{}}}},"
	    "\"f:image\":{},\"f:imagePullPolicy\":{},"
	    "\"f:livenessProbe\":{\".\":{},\"f:failureThreshold\":{},"
	    "\"f:httpGet\":{\".\":{},\"f:path\":{},\"f:port\":{},"
	    "\"f:scheme\":{}},\"f:initialDelaySeconds\":{},"
	    "\"f:periodSeconds\":{},\"f:successThreshold\":{},"
	    "\"f:timeoutSeconds\":{}},\"f:name\":{},\"f:ports\":{\".\":{},"
	    "\"k:{\\\"containerPort\\\":8080,\\\"protocol\\\":\\\"TCP\\\"}\":"
	    "{\".\":{},\"f:containerPort\":{},\"f:name\":{},"
	    "\"f:protocol\":{}}},\"f:readinessProbe\":{\".\":{},"
	    "\"f:failureThreshold\":{},\"f:httpGet\":{\".\":{},\"f:path\":{},"
	    "\"f:port\":{},\"f:scheme\":{}},\"f:periodSeconds\":{},"
	    "\"f:successThreshold\":{},\"f:timeoutSeconds\":{}},"
	    "\"f:resources\":{\".\":{},\"f:limits\":{\".\":{},\"f:cpu\":{},"
	    "\"f:memory\":{}},\"f:requests\":{\".\":{},\"f:cpu\":{},"
	    "\"f:memory\":{}}},\"f:terminationMessagePath\":{},"
	    "\"f:terminationMessagePolicy\":{}}},\"f:dnsPolicy\":{},"
	    "\"f:enableServiceLinks\":{},\"f:restartPolicy\":{},"
	    "\"f:schedulerName\":{},\"f:securityContext\":{},"
	    "\"f:terminationGracePeriodSeconds\":{}}}");
}

/* One pod condition; reason and message may be NULL. */
static void add_condition(struct buf *b, const char *type, bool ok, uint64_t t,
			  const char *reason, const char *message)
{
	LIT(b, "{\"type\":\"");
	buf_adds(b, type);
	if (ok)
		LIT(b, "\",\"status\":\"True\"");
	else
		LIT(b, "\",\"status\":\"False\"");
	LIT(b, ",\"lastProbeTime\":null,\"lastTransitionTime\":");
	add_time(b, t);
	if (reason) {
		LIT(b, ",\"reason\":\"");
		buf_adds(b, reason);
		buf_addc(b, '"');
	}
	if (message) {
		LIT(b, ",\"message\":");
		add_str(b, message);
	}
	buf_addc(b, '}');
}

static void add_pod_spec(struct buf *b, unsigned idx, unsigned node,
			 enum phase ph, const char *vol)
{
	LIT(b, "\"spec\":{\"volumes\":[{\"name\":\"");
	buf_add(b, vol, 21);
	LIT(b, "\",\"projected\":{\"sources\":[{\"serviceAccountToken\":"
	       "{\"expirationSeconds\":3607,\"path\":\"token\"}},"
	       "{\"configMap\":{\"name\":\"kube-root-ca.crt\",\"items\":"
	       "[{\"key\":\"ca.crt\",\"path\":\"ca.crt\"}]}},"
	       "{\"downwardAPI\":{\"items\":[{\"path\":\"namespace\","
	       "\"fieldRef\":{\"apiVersion\":\"v1\","
	       "\"fieldPath\":\"metadata.namespace\"}}]}}],"
	       "\"defaultMode\":420}}],"
	       "\"containers\":[{\"name\":\"app\",\"image\":"
	       "\"registry.example.com/shop/web:1.27.");
	add_u(b, idx % 3);
	LIT(b, "\",\"ports\":[{\"name\":\"http\",\"containerPort\":8080,"
	       "\"protocol\":\"TCP\"}],\"env\":[{\"name\":\"LOG_LEVEL\","
	       "\"value\":\"info\"},{\"name\":\"POD_NAME\",\"valueFrom\":"
	       "{\"fieldRef\":{\"apiVersion\":\"v1\","
	       "\"fieldPath\":\"metadata.name\"}}},{\"name\":\"POD_NAMESPACE\","
	       "\"valueFrom\":{\"fieldRef\":{\"apiVersion\":\"v1\","
	       "\"fieldPath\":\"metadata.namespace\"}}}],\"resources\":{"
	       "\"limits\":{\"cpu\":\"500m\","
	       "\"memory\":\"256Mi\"},\"requests\":{\"cpu\":\"100m\","
	       "\"memory\":\"128Mi\"}},\"volumeMounts\":[{\"name\":\"");
	buf_add(b, vol, 21);
	LIT(b,
	    "\",\"readOnly\":true,"
	    "\"mountPath\":\"/var/run/secrets/kubernetes.io/serviceaccount\"}],"
	    "\"livenessProbe\":{\"httpGet\":{\"path\":\"/healthz\","
	    "\"port\":8080,\"scheme\":\"HTTP\"},\"initialDelaySeconds\":10,"
	    "\"timeoutSeconds\":1,\"periodSeconds\":10,"
	    "\"successThreshold\":1,\"failureThreshold\":3},"
	    "\"readinessProbe\":{\"httpGet\":{\"path\":\"/readyz\","
	    "\"port\":8080,\"scheme\":\"HTTP\"},\"timeoutSeconds\":1,"
	    "\"periodSeconds\":5,\"successThreshold\":1,"
	    "\"failureThreshold\":3},"
	    "\"terminationMessagePath\":\"/dev/termination-log\","
	    "\"terminationMessagePolicy\":\"File\","
	    "\"imagePullPolicy\":\"IfNotPresent\"}],"
	    "\"restartPolicy\":\"Always\",\"terminationGracePeriodSeconds\":30,"
	    "\"dnsPolicy\":\"ClusterFirst\",\"serviceAccountName\":\"web\","
	    "\"serviceAccount\":\"web\"");
	if (ph != PHASE_PENDING) {
		LIT(b, ",\"nodeName\":\"node-");
		add_u(b, node);
		buf_addc(b, '"');
	}
	LIT(b,
	    ",\"securityContext\":{},\"schedulerName\":\"default-scheduler\","
	    "\"tolerations\":[{\"key\":\"node.kubernetes.io/not-ready\","
	    "\"operator\":\"Exists\",\"effect\":\"NoExecute\","
	    "\"tolerationSeconds\":300},"
	    "{\"key\":\"node.kubernetes.io/unreachable\","
	    "\"operator\":\"Exists\",\"effect\":\"NoExecute\","
	    "\"tolerationSeconds\":300}],\"priority\":0,"
	    "\"enableServiceLinks\":true,"
	    "\"preemptionPolicy\":\"PreemptLowerPriority\"}");
}

static void add_pod_status(struct buf *b, unsigned idx, unsigned node,
			   enum phase ph, uint64_t t)
{
	char cid[65], digest[65];
	bool done = ph == PHASE_SUCCEEDED;

	if (ph == PHASE_PENDING) {
		LIT(b, "\"status\":{\"phase\":\"Pending\",\"conditions\":[");
		add_condition(b, "PodScheduled", false, t + 1, "Unschedulable",
			      "0/50 nodes are available: 50 Insufficient cpu. "
			      "preemption: 0/50 nodes are available: 50 No "
			      "preemption victims found for incoming pod.");
		LIT(b, "],\"qosClass\":\"Burstable\"}");
		return;
	}
	LIT(b, "\"status\":{\"phase\":");
	if (done)
		LIT(b, "\"Succeeded\"");
	else
		LIT(b, "\"Running\"");
	LIT(b, ",\"conditions\":[");
	add_condition(b, "Initialized", true, t + 2,
		      done ? "PodCompleted" : NULL, NULL);
	buf_addc(b, ',');
	add_condition(b, "Ready", !done, t + 9, done ? "PodCompleted" : NULL,
		      NULL);
	buf_addc(b, ',');
	add_condition(b, "ContainersReady", !done, t + 9,
		      done ? "PodCompleted" : NULL, NULL);
	buf_addc(b, ',');
	add_condition(b, "PodScheduled", true, t + 1, NULL, NULL);
	LIT(b, "],\"hostIP\":\"");
	add_ip(b, 10, 0, node / 200, 10 + node % 200);
	LIT(b, "\",\"hostIPs\":[{\"ip\":\"");
	add_ip(b, 10, 0, node / 200, 10 + node % 200);
	LIT(b, "\"}],\"podIP\":\"");
	add_ip(b, 10, 244, node, 2 + (idx / NODES) % 250);
	LIT(b, "\",\"podIPs\":[{\"ip\":\"");
	add_ip(b, 10, 244, node, 2 + (idx / NODES) % 250);
	LIT(b, "\"}],\"startTime\":");
	add_time(b, t + 2);
	LIT(b, ",\"containerStatuses\":[{\"name\":\"app\",\"state\":{");
	make_digest(cid, 0xc0de0000ULL + idx);
	make_digest(digest, 0x1ace0000ULL + idx % 3);
	if (done) {
		LIT(b,
		    "\"terminated\":{\"exitCode\":0,\"reason\":\"Completed\","
		    "\"startedAt\":");
		add_time(b, t + 4);
		LIT(b, ",\"finishedAt\":");
		add_time(b, t + 600 + idx % 600);
		LIT(b, ",\"containerID\":\"containerd://");
		buf_add(b, cid, 64);
		LIT(b, "\"}},\"lastState\":{},\"ready\":false");
	} else {
		LIT(b, "\"running\":{\"startedAt\":");
		add_time(b, t + 4);
		LIT(b, "}},\"lastState\":{},\"ready\":true");
	}
	LIT(b, ",\"restartCount\":");
	add_u(b, idx % 4);
	LIT(b, ",\"image\":\"registry.example.com/shop/web:1.27.");
	add_u(b, idx % 3);
	LIT(b, "\",\"imageID\":\"registry.example.com/shop/web@sha256:");
	buf_add(b, digest, 64);
	LIT(b, "\",\"containerID\":\"containerd://");
	buf_add(b, cid, 64);
	if (done)
		LIT(b, "\",\"started\":false}],\"qosClass\":\"Burstable\"}");
	else
		LIT(b, "\",\"started\":true}],\"qosClass\":\"Burstable\"}");
}

int fake_seed_pod(struct buf *out, unsigned idx, const char *ns, uint64_t rv)
{
	uint64_t t = SEED_EPOCH + (uint64_t)idx * POD_SPACING;
	unsigned node = idx % NODES, rs = idx % REPLICASETS;
	enum phase ph = idx % 10 == 0 ? PHASE_PENDING :
			idx % 25 == 0 ? PHASE_SUCCEEDED :
					PHASE_RUNNING;
	char rs_hash[11], rs_uid[37], vol[22], sfx[11];

	make_rs_hash(rs_hash, rs);
	make_uid(rs_uid, "ReplicaSet", rs_hash, rs);
	/* kube-api-access-xxxxx: a 5-char suffix that differs per pod */
	make_rs_hash(sfx, REPLICASETS + idx);
	memcpy(vol, "kube-api-access-", 16);
	memcpy(vol + 16, sfx, 5);
	vol[21] = '\0';

	LIT(out, "{\"kind\":\"Pod\",\"apiVersion\":\"v1\",");
	add_meta_head(out, "web-", idx, ns, "Pod", rv, t);
	LIT(out, ",\"labels\":{\"app\":\"web\",\"pod-template-hash\":\"");
	buf_add(out, rs_hash, 10);
	LIT(out, "\",\"shard\":");
	add_qu(out, idx % 100);
	LIT(out, ",\"tier\":\"");
	buf_adds(out, tiers[idx % 2]);
	LIT(out, "\"},\"ownerReferences\":[{\"apiVersion\":\"apps/v1\","
		 "\"kind\":\"ReplicaSet\",\"name\":\"web-");
	buf_add(out, rs_hash, 10);
	LIT(out, "\",\"uid\":\"");
	buf_add(out, rs_uid, 36);
	LIT(out, "\",\"controller\":true,\"blockOwnerDeletion\":true}],"
		 "\"managedFields\":[{\"manager\":\"kube-controller-manager\","
		 "\"operation\":\"Update\",\"apiVersion\":\"v1\",\"time\":");
	add_time(out, t);
	buf_addc(out, ',');
	add_pod_mf_spec(out, rs_uid);
	if (ph == PHASE_PENDING) {
		/* Nothing ran: the scheduler owns the only status it wrote. */
		LIT(out, "},{\"manager\":\"kube-scheduler\",\"operation\":"
			 "\"Update\",\"apiVersion\":\"v1\",\"time\":");
		add_time(out, t + 1);
		LIT(out, ",\"fieldsType\":\"FieldsV1\",\"fieldsV1\":"
			 "{\"f:status\":{\"f:conditions\":{\".\":{},"
			 "\"k:{\\\"type\\\":\\\"PodScheduled\\\"}\":{\".\":{},"
			 "\"f:lastProbeTime\":{},\"f:lastTransitionTime\":{},"
			 "\"f:message\":{},\"f:reason\":{},\"f:status\":{},"
			 "\"f:type\":{}}}}},\"subresource\":\"status\"}]},");
	} else {
		LIT(out, "},{\"manager\":\"kubelet\",\"operation\":\"Update\","
			 "\"apiVersion\":\"v1\",\"time\":");
		add_time(out, t + 9);
		LIT(out,
		    ",\"fieldsType\":\"FieldsV1\",\"fieldsV1\":"
		    "{\"f:status\":{\"f:conditions\":{"
		    "\"k:{\\\"type\\\":\\\"ContainersReady\\\"}\":{\".\":{},"
		    "\"f:lastProbeTime\":{},\"f:lastTransitionTime\":{},"
		    "\"f:status\":{},\"f:type\":{}},"
		    "\"k:{\\\"type\\\":\\\"Initialized\\\"}\":{\".\":{},"
		    "\"f:lastProbeTime\":{},\"f:lastTransitionTime\":{},"
		    "\"f:status\":{},\"f:type\":{}},"
		    "\"k:{\\\"type\\\":\\\"Ready\\\"}\":{\".\":{},"
		    "\"f:lastProbeTime\":{},\"f:lastTransitionTime\":{},"
		    "\"f:status\":{},\"f:type\":{}}},"
		    "\"f:containerStatuses\":{},\"f:hostIP\":{},"
		    "\"f:hostIPs\":{},\"f:phase\":{},\"f:podIP\":{},"
		    "\"f:podIPs\":{\".\":{},\"k:{\\\"ip\\\":\\\"");
		add_ip(out, 10, 244, node, 2 + (idx / NODES) % 250);
		LIT(out, "\\\"}\":{\".\":{},\"f:ip\":{}}},\"f:startTime\":{}}},"
			 "\"subresource\":\"status\"}]},");
	}
	add_pod_spec(out, idx, node, ph, vol);
	buf_addc(out, ',');
	add_pod_status(out, idx, node, ph, t);
	buf_addc(out, '}');
	return buf_ok(out) ? 0 : -ENOMEM;
}

int fake_seed_configmap(struct buf *out, unsigned idx, const char *ns,
			uint64_t rv)
{
	uint64_t t = SEED_EPOCH + (uint64_t)idx * 23;
	unsigned lines = 2 + idx % 8; /* varies the size, ~500-1000 B */

	LIT(out, "{\"kind\":\"ConfigMap\",\"apiVersion\":\"v1\",");
	add_meta_head(out, "cm-", idx, ns, "ConfigMap", rv, t);
	LIT(out, ",\"labels\":{\"app\":\"web\",\"shard\":");
	add_qu(out, idx % 100);
	LIT(out,
	    "},\"managedFields\":[{\"manager\":\"kubectl-client-side-apply\","
	    "\"operation\":\"Update\",\"apiVersion\":\"v1\",\"time\":");
	add_time(out, t);
	LIT(out,
	    ",\"fieldsType\":\"FieldsV1\",\"fieldsV1\":{\"f:data\":{\".\":{},"
	    "\"f:LOG_LEVEL\":{},\"f:app.properties\":{},"
	    "\"f:feature-flags\":{}},\"f:metadata\":{\"f:labels\":{\".\":{},"
	    "\"f:app\":{},\"f:shard\":{}}}}}]},\"data\":{"
	    "\"LOG_LEVEL\":\"info\",\"app.properties\":\"server.port=8080\\n"
	    "server.shutdown=graceful\\ncache.ttl.seconds=");
	add_u(out, 30 + idx % 300);
	LIT(out, "\\n");
	for (unsigned i = 0; i < lines; i++) {
		LIT(out, "upstream.");
		add_u(out, i);
		LIT(out, ".url=http://svc-");
		add_u(out, (idx + i) % 1000);
		LIT(out, ".svc.cluster.local:80/api\\n");
	}
	LIT(out, "\",\"feature-flags\":\"{\\\"newCheckout\\\":");
	if (idx % 2)
		LIT(out, "true");
	else
		LIT(out, "false");
	LIT(out, ",\\\"shard\\\":");
	add_u(out, idx % 100);
	LIT(out, "}\"}}");
	return buf_ok(out) ? 0 : -ENOMEM;
}

int fake_seed_service(struct buf *out, unsigned idx, const char *ns,
		      uint64_t rv)
{
	uint64_t t = SEED_EPOCH + (uint64_t)idx * 29;
	unsigned ip = 10 + idx; /* 10.96.0.0/12 holds a million of them */

	LIT(out, "{\"kind\":\"Service\",\"apiVersion\":\"v1\",");
	add_meta_head(out, "svc-", idx, ns, "Service", rv, t);
	LIT(out, ",\"labels\":{\"app\":\"web\",\"shard\":");
	add_qu(out, idx % 100);
	LIT(out,
	    "},\"managedFields\":[{\"manager\":\"kubectl-client-side-apply\","
	    "\"operation\":\"Update\",\"apiVersion\":\"v1\",\"time\":");
	add_time(out, t);
	LIT(out,
	    ",\"fieldsType\":\"FieldsV1\",\"fieldsV1\":{\"f:metadata\":"
	    "{\"f:labels\":{\".\":{},\"f:app\":{},\"f:shard\":{}}},"
	    "\"f:spec\":{\"f:internalTrafficPolicy\":{},\"f:ports\":"
	    "{\".\":{},\"k:{\\\"port\\\":80,\\\"protocol\\\":\\\"TCP\\\"}\":"
	    "{\".\":{},\"f:name\":{},\"f:port\":{},\"f:protocol\":{},"
	    "\"f:targetPort\":{}}},\"f:selector\":{},"
	    "\"f:sessionAffinity\":{},\"f:type\":{}}}}]},"
	    "\"spec\":{\"ports\":[{\"name\":\"http\",\"protocol\":\"TCP\","
	    "\"port\":80,\"targetPort\":8080}],\"selector\":{\"app\":\"web\","
	    "\"shard\":");
	add_qu(out, idx % 100);
	LIT(out, "},\"clusterIP\":\"");
	add_ip(out, 10, 96 + (ip >> 16) % 16, (ip >> 8) & 255, ip & 255);
	LIT(out, "\",\"clusterIPs\":[\"");
	add_ip(out, 10, 96 + (ip >> 16) % 16, (ip >> 8) & 255, ip & 255);
	LIT(out, "\"],\"type\":\"ClusterIP\",\"sessionAffinity\":\"None\","
		 "\"ipFamilies\":[\"IPv4\"],\"ipFamilyPolicy\":\"SingleStack\","
		 "\"internalTrafficPolicy\":\"Cluster\"},"
		 "\"status\":{\"loadBalancer\":{}}}");
	return buf_ok(out) ? 0 : -ENOMEM;
}

int fake_seed_custom(struct buf *out, unsigned idx, const char *ns,
		     const char *kind, const char *api_version,
		     const char *singular, uint64_t rv)
{
	char prefix[80];
	uint64_t t = SEED_EPOCH + (uint64_t)idx * 29;

	snprintf(prefix, sizeof(prefix), "%s-", singular);
	LIT(out, "{\"kind\":");
	add_str(out, kind);
	LIT(out, ",\"apiVersion\":");
	add_str(out, api_version);
	buf_addc(out, ',');
	add_meta_head(out, prefix, idx, ns, kind, rv, t);
	LIT(out, ",\"labels\":{\"app\":\"demo\",\"shard\":");
	add_qu(out, idx % 10);
	LIT(out, "},\"managedFields\":[{\"manager\":\"kubectl-create\","
		 "\"operation\":\"Update\",\"apiVersion\":");
	add_str(out, api_version);
	LIT(out, ",\"time\":");
	add_time(out, t);
	LIT(out, ",\"fieldsType\":\"FieldsV1\",\"fieldsV1\":{\"f:metadata\":"
		 "{\"f:labels\":{\".\":{},\"f:app\":{},\"f:shard\":{}}},"
		 "\"f:spec\":{\".\":{},\"f:size\":{}}}}]},\"spec\":{\"size\":");
	add_u(out, idx % 7 + 1);
	/* a status of every printer-column type: string, boolean, number,
	 * date, and conditions for a filter */
	LIT(out, "},\"status\":{\"phase\":");
	add_str(out, idx % 3 ? "Ready" : "Pending");
	LIT(out, ",\"ready\":");
	buf_adds(out, idx % 3 ? "true" : "false");
	LIT(out, ",\"score\":");
	add_u(out, idx % 4);
	buf_adds(out, idx % 2 ? ".5" : "");
	LIT(out, ",\"since\":");
	add_time(out, t - 86400 * (uint64_t)(idx % 5));
	LIT(out, ",\"conditions\":[{\"type\":\"Synced\",\"status\":"
		 "\"True\"},{\"type\":\"Ready\",\"status\":");
	add_str(out, idx % 3 ? "True" : "False");
	LIT(out, "}]}}");
	return buf_ok(out) ? 0 : -ENOMEM;
}
