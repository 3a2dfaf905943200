/*
 * test_seed: the fake apiserver's seeded objects are deterministic, valid
 * JSON, shaped and sized like a real apiserver's, and cheap to make.
 */
#include <errno.h>
#include <jansson.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "config/alloc.h"
#include "tests/fake-apiserver/fake_seed.h"
#include "tests/unit/check.h"

static json_t *parse(const struct buf *b)
{
	json_error_t err;
	json_t *j = json_loadb(b->p, b->len, 0, &err);

	if (!j)
		fprintf(stderr, "parse: %s at %d\n", err.text, err.position);
	return j;
}

static const char *str_at(json_t *j, const char *path)
{
	char key[64];
	const char *dot;

	while (j && (dot = strchr(path, '.'))) {
		snprintf(key, sizeof(key), "%.*s", (int)(dot - path), path);
		j = json_object_get(j, key);
		path = dot + 1;
	}
	return j ? json_string_value(json_object_get(j, path)) : NULL;
}

/* The first keys of an object, in order, joined by ',' */
static void key_order(json_t *obj, int n, char *out, size_t outlen)
{
	const char *k;
	json_t *v;

	out[0] = '\0';
	json_object_foreach(obj, k, v)
	{
		if (n-- == 0)
			break;
		if (out[0])
			strncat(out, ",", outlen - strlen(out) - 1);
		strncat(out, k, outlen - strlen(out) - 1);
	}
}

static bool is_uid(const char *s)
{
	if (!s || strlen(s) != 36)
		return false;
	for (int i = 0; i < 36; i++) {
		bool dash = i == 8 || i == 13 || i == 18 || i == 23;
		if (dash ? s[i] != '-' : !strchr("0123456789abcdef", s[i]))
			return false;
	}
	return true;
}

static void test_pod_shape(void)
{
	struct buf b = BUF_INIT;
	char order[256], name[32];
	int pending = 0, succeeded = 0, running = 0, bad_size = 0, bad = 0;

	for (unsigned i = 0; i < 1000; i++) {
		buf_reset(&b);
		CHECK(fake_seed_pod(&b, i, "ns-3", 1000 + i) == 0);
		if (b.len < 4096 || b.len > 6144) {
			fprintf(stderr, "pod %u is %zu bytes\n", i, b.len);
			bad_size++;
		}
		json_t *j = parse(&b);
		if (!j) {
			bad++;
			continue;
		}
		snprintf(name, sizeof(name), "web-%u", i);
		const char *phase = str_at(j, "status.phase");
		const char *node = str_at(j, "spec.nodeName");
		bool ok =
			strcmp(str_at(j, "metadata.name"), name) == 0 &&
			strcmp(str_at(j, "metadata.namespace"), "ns-3") == 0 &&
			is_uid(str_at(j, "metadata.uid")) && phase;
		char shard[8];
		snprintf(shard, sizeof(shard), "%u", i % 100);
		ok = ok && str_at(j, "metadata.labels.shard") &&
		     strcmp(str_at(j, "metadata.labels.shard"), shard) == 0;
		if (ok && strcmp(phase, "Pending") == 0) {
			pending++;
			ok = i % 10 == 0 && !node;
		} else if (ok && strcmp(phase, "Succeeded") == 0) {
			succeeded++;
			ok = i % 25 == 0 && node;
		} else if (ok && strcmp(phase, "Running") == 0) {
			running++;
			char want[16];
			snprintf(want, sizeof(want), "node-%u", i % 50);
			ok = node && strcmp(node, want) == 0;
		}
		if (!ok) {
			fprintf(stderr, "pod %u: wrong fields\n", i);
			bad++;
		}
		json_decref(j);
	}
	CHECK(bad_size == 0);
	CHECK(bad == 0);
	CHECK(pending == 100);
	CHECK(succeeded ==
	      20); /* 25, 75, ...: every 25th not already Pending */
	CHECK(running == 880);

	/* A Running pod in detail: field order and the realistic parts. */
	buf_reset(&b);
	CHECK(fake_seed_pod(&b, 7, "demo", 42) == 0);
	CHECK(strncmp(b.p, "{\"kind\":\"Pod\",\"apiVersion\":\"v1\",", 32) ==
	      0);
	json_t *j = parse(&b);
	CHECK(j != NULL);
	key_order(j, 5, order, sizeof(order));
	CHECK_STR(order, "kind,apiVersion,metadata,spec,status");
	json_t *md = json_object_get(j, "metadata");
	key_order(md, 9, order, sizeof(order));
	CHECK_STR(order, "name,namespace,uid,resourceVersion,creationTimestamp,"
			 "labels,ownerReferences,managedFields");
	CHECK_STR(str_at(j, "metadata.resourceVersion"), "42");
	CHECK_STR(str_at(j, "metadata.creationTimestamp"),
		  "2026-01-01T00:01:59Z");
	key_order(json_object_get(md, "labels"), 8, order, sizeof(order));
	CHECK_STR(order, "app,pod-template-hash,shard,tier");
	json_t *mf = json_object_get(md, "managedFields");
	CHECK(json_array_size(mf) == 2);
	CHECK_STR(json_string_value(
			  json_object_get(json_array_get(mf, 0), "manager")),
		  "kube-controller-manager");
	CHECK_STR(json_string_value(
			  json_object_get(json_array_get(mf, 1), "manager")),
		  "kubelet");
	CHECK(json_object_get(
		      json_object_get(json_array_get(mf, 1), "fieldsV1"),
		      "f:status") != NULL);
	json_t *owner =
		json_array_get(json_object_get(md, "ownerReferences"), 0);
	CHECK_STR(json_string_value(json_object_get(owner, "kind")),
		  "ReplicaSet");
	CHECK(json_is_true(json_object_get(owner, "controller")));
	CHECK_STR(str_at(j, "spec.restartPolicy"), "Always");
	CHECK_STR(str_at(j, "spec.schedulerName"), "default-scheduler");
	json_t *st = json_object_get(j, "status");
	CHECK(json_array_size(json_object_get(st, "conditions")) == 4);
	CHECK(str_at(j, "status.podIP") && str_at(j, "status.hostIP"));
	json_t *cs =
		json_array_get(json_object_get(st, "containerStatuses"), 0);
	CHECK(json_integer_value(json_object_get(cs, "restartCount")) == 3);
	CHECK(json_is_true(json_object_get(cs, "ready")));
	CHECK(json_is_true(json_object_get(cs, "started")));
	CHECK(json_object_get(
		      json_object_get(json_object_get(cs, "state"), "running"),
		      "startedAt") != NULL);
	json_t *c = json_array_get(
		json_object_get(json_object_get(j, "spec"), "containers"), 0);
	CHECK(json_array_size(json_object_get(c, "env")) >= 3);
	CHECK(json_object_get(c, "livenessProbe") != NULL);
	CHECK(json_object_get(json_object_get(c, "resources"), "limits"));
	json_decref(j);
	buf_free(&b);
}

static void test_determinism(void)
{
	struct buf a = BUF_INIT, b = BUF_INIT, c = BUF_INIT;

	for (unsigned i = 0; i < 300; i += 7) {
		buf_reset(&a);
		buf_reset(&b);
		fake_seed_pod(&a, i, "ns-0", 5);
		fake_seed_pod(&b, i, "ns-0", 5);
		CHECK(a.len == b.len && memcmp(a.p, b.p, a.len) == 0);
	}
	/* A different rv changes only the resourceVersion. */
	buf_reset(&a);
	buf_reset(&b);
	fake_seed_pod(&a, 3, "ns-0", 5);
	fake_seed_pod(&b, 3, "ns-0", 6);
	CHECK(a.len == b.len);
	size_t diff = 0;
	for (size_t k = 0; k < a.len && k < b.len; k++)
		diff += a.p[k] != b.p[k];
	CHECK(diff == 1);
	/* Neighbours differ, and so do uids across kinds. */
	buf_reset(&a);
	buf_reset(&b);
	fake_seed_pod(&a, 3, "ns-0", 5);
	fake_seed_pod(&b, 4, "ns-0", 5);
	json_t *ja = parse(&a), *jb = parse(&b);
	CHECK(strcmp(str_at(ja, "metadata.uid"), str_at(jb, "metadata.uid")));
	fake_seed_configmap(&c, 3, "ns-0", 5);
	json_t *jc = parse(&c);
	CHECK(strcmp(str_at(ja, "metadata.uid"), str_at(jc, "metadata.uid")));
	json_decref(ja);
	json_decref(jb);
	json_decref(jc);
	buf_free(&a);
	buf_free(&b);
	buf_free(&c);
}

static void test_other_kinds(void)
{
	struct buf b = BUF_INIT;
	char ns[32];

	fake_seed_ns_name(7, 3, ns, sizeof(ns));
	CHECK_STR(ns, "ns-1");
	fake_seed_ns_name(7, 0, ns, sizeof(ns)); /* no division by zero */
	CHECK_STR(ns, "ns-0");

	CHECK(fake_seed_namespace(&b, "team-a", 9) == 0);
	CHECK(strncmp(b.p, "{\"kind\":\"Namespace\",\"apiVersion\":\"v1\",",
		      38) == 0);
	json_t *j = parse(&b);
	CHECK(j != NULL);
	CHECK_STR(str_at(j, "metadata.name"), "team-a");
	CHECK(str_at(j, "metadata.namespace") == NULL);
	CHECK(is_uid(str_at(j, "metadata.uid")));
	json_t *labels =
		json_object_get(json_object_get(j, "metadata"), "labels");
	CHECK_STR(json_string_value(json_object_get(
			  labels, "kubernetes.io/metadata.name")),
		  "team-a");
	CHECK_STR(str_at(j, "status.phase"), "Active");
	json_decref(j);

	int bad = 0;
	for (unsigned i = 0; i < 200; i++) {
		char want[16];
		buf_reset(&b);
		CHECK(fake_seed_configmap(&b, i, "ns-2", 1) == 0);
		j = parse(&b);
		snprintf(want, sizeof(want), "cm-%u", i);
		if (!j || strncmp(b.p, "{\"kind\":\"ConfigMap\",", 20) ||
		    strcmp(str_at(j, "metadata.name"), want) ||
		    json_object_size(json_object_get(j, "data")) < 3 ||
		    b.len < 300 || b.len > 2048)
			bad++;
		json_decref(j);

		buf_reset(&b);
		CHECK(fake_seed_service(&b, i, "ns-2", 1) == 0);
		j = parse(&b);
		snprintf(want, sizeof(want), "svc-%u", i);
		if (!j || strncmp(b.p, "{\"kind\":\"Service\",", 18) ||
		    strcmp(str_at(j, "metadata.name"), want) ||
		    strcmp(str_at(j, "spec.type"), "ClusterIP") ||
		    !str_at(j, "spec.clusterIP"))
			bad++;
		json_decref(j);
	}
	CHECK(bad == 0);

	/* A namespace with characters that need escaping stays valid. */
	buf_reset(&b);
	CHECK(fake_seed_pod(&b, 1, "we\"ird\\ns", 1) == 0);
	j = parse(&b);
	CHECK_STR(str_at(j, "metadata.namespace"), "we\"ird\\ns");
	json_decref(j);
	buf_free(&b);
}

static void test_enomem(void)
{
	struct buf b = BUF_INIT;
	int fails = 0;

	for (long n = 1; n < 20; n++) {
		buf_free(&b);
		alloc_fail_after(n);
		int r = fake_seed_pod(&b, 1, "ns-0", 1);
		alloc_fail_after(0);
		if (r == -ENOMEM) {
			fails++;
		} else {
			json_t *j = parse(&b);
			CHECK(r == 0 && j != NULL);
			json_decref(j);
		}
	}
	CHECK(fails > 0);
	buf_free(&b);
}

/* Seeding must never be what makes a 100k-pod test slow. */
static void test_speed(void)
{
	struct buf b = BUF_INIT;
	struct timespec t0, t1;
	size_t total = 0;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t0);
	for (unsigned i = 0; i < 100000; i++) {
		buf_reset(&b);
		fake_seed_pod(&b, i, "ns-0", i + 1);
		total += b.len;
	}
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t1);
	double s = (double)(t1.tv_sec - t0.tv_sec) +
		   (double)(t1.tv_nsec - t0.tv_nsec) / 1e9;
	/* a figure to read, not to assert: tests never assert speed (make
	 * bench does the measuring); the size is behaviour */
	printf("100k pods: %.3f s CPU, %.1f MB\n", s, (double)total / 1e6);
	CHECK(total > 100000u * 4000 && total < 100000u * 6000);
	buf_free(&b);
}

int main(void)
{
	test_pod_shape();
	test_determinism();
	test_other_kinds();
	test_enomem();
	test_speed();
	return check_done("seed");
}
