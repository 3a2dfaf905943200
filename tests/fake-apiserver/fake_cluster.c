/*
 * fake_cluster: the control plane's own writes and etcd compaction (see
 * fake_cluster.h).
 *
 * The objects are shaped like the real ones: a node Lease as a kubelet
 * writes it (holderIdentity the node, leaseDurationSeconds 40, an owner
 * reference to its Node, renewTime in RFC 3339 micro time), the
 * apiserver's identity Lease (leaseDurationSeconds 3600, the
 * apiserver.kubernetes.io/identity label), and a kubelet's node Event
 * (involvedObject a Node whose uid is its name, source kubelet, name
 * "<node>.<hex nanoseconds>").
 *
 * Every write is built under the store's write lock, because its bytes
 * carry the RV it gets (fake_store_rv() + 1); the objects are small.
 */
#include "fake_cluster.h"

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <time.h>

#include "config/alloc.h"
#include "config/buf.h"
#include "config/log.h"
#include "fake_res.h"
#include "fake_seed.h"
#include "fake_store.h"

static const char *const system_ns[] = { "default", "kube-node-lease",
					 "kube-public", "kube-system", NULL };

static const char *const node_reasons[] = {
	"NodeHasSufficientMemory",
	"NodeHasNoDiskPressure",
	"NodeHasSufficientPID",
	"NodeReady",
};

/* The apiserver's identity Lease: "apiserver-" and 26 base32 letters of
 * a hash of its host name, here of a fixed one, so it is stable across
 * restarts. */
#define APISERVER_HOST "fake-apiserver"

static struct {
	struct fake_cluster_opts o;
	pthread_t thread;
	bool started;
	pthread_mutex_t mu;
	pthread_cond_t cond;
	bool stop; /* under mu */
	char apiserver_lease[40];
	char apiserver_holder[80];
	unsigned long events; /* Events made so far */
} cl = { .mu = PTHREAD_MUTEX_INITIALIZER };

static void new_uid(char out[37])
{
	unsigned char u[16];
	if (getrandom(u, sizeof(u), 0) != sizeof(u))
		for (int i = 0; i < 16; i++)
			u[i] = (unsigned char)random();
	u[6] = (u[6] & 0x0f) | 0x40;
	u[8] = (u[8] & 0x3f) | 0x80;
	snprintf(out, 37,
		 "%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-"
		 "%02x%02x%02x%02x%02x%02x",
		 u[0], u[1], u[2], u[3], u[4], u[5], u[6], u[7], u[8], u[9],
		 u[10], u[11], u[12], u[13], u[14], u[15]);
}

/* Wall clock as RFC 3339 UTC, with microseconds when micro (a MicroTime,
 * as spec.renewTime) or whole seconds (a Time). */
static void now_rfc3339(char out[40], bool micro, struct timespec *ts_out)
{
	struct timespec ts;
	struct tm tm;
	char s[32];

	clock_gettime(CLOCK_REALTIME, &ts);
	gmtime_r(&ts.tv_sec, &tm);
	strftime(s, sizeof(s), "%Y-%m-%dT%H:%M:%S", &tm);
	if (micro)
		snprintf(out, 40, "%.19s.%06uZ", s,
			 (unsigned)(ts.tv_nsec / 1000 % 1000000));
	else
		snprintf(out, 40, "%.19sZ", s);
	if (ts_out)
		*ts_out = ts;
}

static void make_apiserver_names(void)
{
	static const char b32[] = "abcdefghijklmnopqrstuvwxyz234567";
	uint64_t h1 = 0xcbf29ce484222325ULL, h2 = 0x9e3779b97f4a7c15ULL;
	char id[27], uid[37];

	for (const char *p = APISERVER_HOST; *p; p++) {
		h1 = (h1 ^ (unsigned char)*p) * 0x100000001b3ULL;
		h2 = (h2 ^ (unsigned char)*p) * 0x100000001b3ULL + 1;
	}
	for (int i = 0; i < 26; i++) {
		uint64_t h = i < 13 ? h1 : h2;
		id[i] = b32[(h >> ((i % 13) * 5)) & 31];
	}
	id[26] = '\0';
	new_uid(uid);
	snprintf(cl.apiserver_lease, sizeof(cl.apiserver_lease), "apiserver-%s",
		 id);
	/* a new holder per process, as a restarted apiserver has */
	snprintf(cl.apiserver_holder, sizeof(cl.apiserver_holder),
		 "apiserver-%s_%s", id, uid);
}

/* Commit the object in b (reset after) with type. Write lock held. */
static int commit(int res, enum fake_ev_type type, struct buf *b)
{
	size_t len;
	if (!buf_ok(b)) {
		buf_free(b);
		return -ENOMEM;
	}
	char *json = buf_steal(b, &len);
	struct fake_obj *o = json ? fake_obj_new(res, json, len) : NULL;
	if (!o)
		return -EINVAL;
	fake_store_commit(type, o);
	return 0;
}

/* The system-namespaces controller. Write lock held. */
static void ensure_namespaces(void)
{
	struct buf b = BUF_INIT;
	for (int i = 0; system_ns[i]; i++) {
		if (fake_store_lookup(FAKE_RES_NAMESPACES, "", system_ns[i]))
			continue;
		fake_seed_namespace(&b, system_ns[i], fake_store_rv() + 1);
		if (commit(FAKE_RES_NAMESPACES, FAKE_ADDED, &b))
			log_error("cannot create namespace %s", system_ns[i]);
	}
	buf_free(&b);
}

int fake_cluster_seed_namespaces(unsigned long long *rv)
{
	struct buf b = BUF_INIT;
	int rc = 0;

	for (int i = 0; system_ns[i] && !rc; i++) {
		size_t len;
		if ((rc = fake_seed_namespace(&b, system_ns[i], ++*rv)))
			break;
		char *json = buf_steal(&b, &len);
		struct fake_obj *o =
			json ? fake_obj_new(FAKE_RES_NAMESPACES, json, len) :
			       NULL;
		rc = o ? fake_store_seed_add(o) : -ENOMEM;
	}
	buf_free(&b);
	return rc;
}

/*
 * Create or renew one Lease. node is the node's name, or NULL for the
 * apiserver's own. Write lock held.
 */
static void renew_lease(const char *node)
{
	const char *ns = node ? "kube-node-lease" : "kube-system";
	const char *name = node ? node : cl.apiserver_lease;
	const char *holder = node ? node : cl.apiserver_holder;
	struct fake_obj *cur = fake_store_lookup(FAKE_RES_LEASES, ns, name);
	char renew[40], created[40], uid[37];
	struct buf b = BUF_INIT;

	if (!fake_store_lookup(FAKE_RES_NAMESPACES, "", ns))
		return; /* a kubelet would get 404 too */
	now_rfc3339(renew, true, NULL);
	if (cur) {
		/* keep uid and creationTimestamp: parse them back out */
		const char *p = strstr(cur->json, "\"creationTimestamp\":\"");
		snprintf(uid, sizeof(uid), "%s", cur->uid);
		if (p)
			snprintf(created, sizeof(created), "%.20s", p + 21);
		else
			now_rfc3339(created, false, NULL);
	} else {
		new_uid(uid);
		now_rfc3339(created, false, NULL);
	}
	buf_adds(
		&b,
		"{\"kind\":\"Lease\",\"apiVersion\":\"coordination.k8s.io/v1\","
		"\"metadata\":{\"name\":");
	buf_add_json_str(&b, name, strlen(name));
	buf_printf(&b,
		   ",\"namespace\":\"%s\",\"uid\":\"%s\","
		   "\"resourceVersion\":\"%llu\",\"creationTimestamp\":\"%s\"",
		   ns, uid, (unsigned long long)fake_store_rv() + 1, created);
	if (node)
		buf_printf(&b,
			   ",\"ownerReferences\":[{\"apiVersion\":\"v1\","
			   "\"kind\":\"Node\",\"name\":\"%s\",\"uid\":\"%s\"}]",
			   node, node);
	else
		buf_adds(&b,
			 ",\"labels\":{\"apiserver.kubernetes.io/identity\":"
			 "\"kube-apiserver\",\"kubernetes.io/"
			 "hostname\":\"" APISERVER_HOST "\"}");
	buf_printf(
		&b,
		",\"managedFields\":[{\"manager\":\"%s\",\"operation\":"
		"\"Update\",\"apiVersion\":\"coordination.k8s.io/v1\","
		"\"time\":\"%.19sZ\",\"fieldsType\":\"FieldsV1\",\"fieldsV1\":"
		"{\"f:spec\":{\"f:holderIdentity\":{},"
		"\"f:leaseDurationSeconds\":{},\"f:renewTime\":{}}}}]},"
		"\"spec\":{\"holderIdentity\":\"%s\","
		"\"leaseDurationSeconds\":%d,\"renewTime\":\"%s\"}}",
		node ? "kubelet" : "kube-apiserver", renew, holder,
		node ? 40 : 3600, renew);
	if (commit(FAKE_RES_LEASES, cur ? FAKE_MODIFIED : FAKE_ADDED, &b))
		log_error("cannot write lease %s/%s", ns, name);
}

/* One kubelet Event about a node condition. Write lock held. */
static void make_event(void)
{
	unsigned node = cl.o.nodes ? (unsigned)(cl.events % cl.o.nodes) : 0;
	const char *reason =
		node_reasons[(cl.events / (cl.o.nodes ? cl.o.nodes : 1)) %
			     (sizeof(node_reasons) / sizeof(*node_reasons))];
	char nodename[32], name[64], uid[37], at[40];
	struct timespec ts;
	struct buf b = BUF_INIT;

	if (!fake_store_lookup(FAKE_RES_NAMESPACES, "", "default"))
		return;
	cl.events++;
	snprintf(nodename, sizeof(nodename), "node-%u", node);
	now_rfc3339(at, false, &ts);
	snprintf(name, sizeof(name), "%s.%llx", nodename,
		 (unsigned long long)ts.tv_sec * 1000000000ULL +
			 (unsigned long long)ts.tv_nsec);
	if (fake_store_lookup(FAKE_RES_EVENTS, "default", name))
		return;
	new_uid(uid);
	buf_printf(
		&b,
		"{\"kind\":\"Event\",\"apiVersion\":\"v1\",\"metadata\":"
		"{\"name\":\"%s\",\"namespace\":\"default\",\"uid\":\"%s\","
		"\"resourceVersion\":\"%llu\",\"creationTimestamp\":\"%s\","
		"\"managedFields\":[{\"manager\":\"kubelet\",\"operation\":"
		"\"Update\",\"apiVersion\":\"v1\",\"time\":\"%s\","
		"\"fieldsType\":\"FieldsV1\",\"fieldsV1\":{\"f:count\":{},"
		"\"f:firstTimestamp\":{},\"f:involvedObject\":{},"
		"\"f:lastTimestamp\":{},\"f:message\":{},\"f:reason\":{},"
		"\"f:reportingComponent\":{},\"f:reportingInstance\":{},"
		"\"f:source\":{\"f:component\":{},\"f:host\":{}},"
		"\"f:type\":{}}}]},"
		"\"involvedObject\":{\"kind\":\"Node\",\"name\":\"%s\","
		"\"uid\":\"%s\",\"apiVersion\":\"v1\"},"
		"\"reason\":\"%s\",\"message\":\"Node %s status is now: %s\","
		"\"source\":{\"component\":\"kubelet\",\"host\":\"%s\"},"
		"\"firstTimestamp\":\"%s\",\"lastTimestamp\":\"%s\","
		"\"count\":1,\"type\":\"Normal\",\"eventTime\":null,"
		"\"reportingComponent\":\"kubelet\","
		"\"reportingInstance\":\"%s\"}",
		name, uid, (unsigned long long)fake_store_rv() + 1, at, at,
		nodename, nodename, reason, nodename, reason, nodename, at, at,
		nodename);
	if (commit(FAKE_RES_EVENTS, FAKE_ADDED, &b))
		log_error("cannot create event %s", name);
}

/* When each writer is next due, on the monotonic clock (0: never). The
 * Leases: slot 0 the apiserver's, slot i + 1 node-i. */
struct due {
	int64_t *lease;
	int64_t event, compact;
};

static void tick(struct due *d, int64_t now)
{
	const struct fake_cluster_opts *o = &cl.o;
	int64_t lease_ms = (int64_t)o->lease_s * 1000;
	bool wrote = false, locked = false;

	for (unsigned i = 0; d->lease && i <= o->nodes; i++) {
		if (now < d->lease[i])
			continue;
		if (!locked)
			fake_store_wrlock();
		locked = true;
		if (!wrote)
			ensure_namespaces();
		wrote = true;
		char node[32];
		snprintf(node, sizeof(node), "node-%u", i - 1);
		renew_lease(i ? node : NULL);
		while (d->lease[i] <= now)
			d->lease[i] += lease_ms;
	}
	if (d->event && now >= d->event) {
		if (!locked)
			fake_store_wrlock();
		locked = true;
		if (!wrote)
			ensure_namespaces();
		make_event();
		while (d->event <= now)
			d->event += (int64_t)o->event_s * 1000;
	}
	if (d->compact && now >= d->compact) {
		if (!locked)
			fake_store_wrlock();
		locked = true;
		uint64_t c = fake_store_compact_tick();
		log_v(1, "compacted etcd at resourceVersion %llu",
		      (unsigned long long)c);
		while (d->compact <= now)
			d->compact += (int64_t)o->compact_s * 1000;
	}
	if (locked)
		fake_store_wrunlock();
}

static void *run(void *arg)
{
	const struct fake_cluster_opts *o = &cl.o;
	int64_t now = fake_now_ms();
	struct due d = { NULL, 0, 0 };
	(void)arg;

	if (!o->quiet && o->lease_s) {
		int64_t period = (int64_t)o->lease_s * 1000;
		d.lease = xcalloc(o->nodes + 1, sizeof(*d.lease));
		/* the apiserver's first, the nodes spread over the period */
		for (unsigned i = 0; d.lease && i <= o->nodes; i++)
			d.lease[i] = now + period * i / (o->nodes + 1);
	}
	if (!o->quiet && o->event_s)
		d.event = now + (int64_t)o->event_s * 1000;
	if (o->compact_s)
		d.compact = now + (int64_t)o->compact_s * 1000;

	pthread_mutex_lock(&cl.mu);
	while (!cl.stop) {
		pthread_mutex_unlock(&cl.mu);
		now = fake_now_ms();
		tick(&d, now);
		int64_t next = now + 60000;
		for (unsigned i = 0; d.lease && i <= o->nodes; i++)
			if (d.lease[i] < next)
				next = d.lease[i];
		if (d.event && d.event < next)
			next = d.event;
		if (d.compact && d.compact < next)
			next = d.compact;
		struct timespec ts = { next / 1000, (next % 1000) * 1000000 };
		pthread_mutex_lock(&cl.mu);
		while (!cl.stop && fake_now_ms() < next)
			if (pthread_cond_timedwait(&cl.cond, &cl.mu, &ts) ==
			    ETIMEDOUT)
				break;
	}
	pthread_mutex_unlock(&cl.mu);
	free(d.lease);
	return NULL;
}

int fake_cluster_start(const struct fake_cluster_opts *o)
{
	pthread_condattr_t ca;
	int rc;

	cl.o = *o;
	if ((o->quiet || (!o->lease_s && !o->event_s)) && !o->compact_s)
		return 0;
	make_apiserver_names();
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&cl.cond, &ca);
	pthread_condattr_destroy(&ca);
	if ((rc = pthread_create(&cl.thread, NULL, run, NULL))) {
		pthread_cond_destroy(&cl.cond);
		return -rc;
	}
	cl.started = true;
	return 0;
}

void fake_cluster_stop(void)
{
	if (!cl.started)
		return;
	pthread_mutex_lock(&cl.mu);
	cl.stop = true;
	pthread_cond_broadcast(&cl.cond);
	pthread_mutex_unlock(&cl.mu);
	pthread_join(cl.thread, NULL);
	pthread_cond_destroy(&cl.cond);
	cl.started = false;
}
