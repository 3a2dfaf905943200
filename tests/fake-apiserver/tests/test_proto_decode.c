/*
 * test_proto_decode: the fake's protobuf decoder, fed a real apiserver's
 * protobuf answers (tests/fixtures/protobuf/NN-kind.pb), gives exactly
 * the JSON the same apiserver sent for the same object (NN-kind.json):
 * the same members, values and member order, for every built-in kind,
 * the lists, the error Statuses and the frames of a watch.
 *
 * Run from the repository's top directory (make test does).
 */
#include <errno.h>
#include <jansson.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cache/pb_kinds.h"
#include "tests/fake-apiserver/fake_crd.h"
#include "tests/fake-apiserver/fake_kinds.h"
#include "tests/fake-apiserver/fake_proto.h"
#include "tests/fake-apiserver/fake_res.h"
#include "tests/unit/check.h"
#include "config/read.h"

#define DIR "tests/fixtures/protobuf/"

/* The fixture at path, NUL-terminated, for free(); NULL if unreadable. */
static char *slurp(const char *path, size_t *len)
{
	char *p = NULL;
	return config_read_file(path, 1 << 24, &p, len, NULL) ? NULL : p;
}

/* Whether a and b are equal, objects' members in the same order too; on a
 * difference its path goes to stderr. */
static bool same(const json_t *a, const json_t *b, const char *path)
{
	char sub[512];

	if (json_typeof(a) != json_typeof(b) &&
	    !(json_is_number(a) && json_is_number(b))) {
		char *x = json_dumps(a, JSON_ENCODE_ANY | JSON_COMPACT);
		char *y = json_dumps(b, JSON_ENCODE_ANY | JSON_COMPACT);
		fprintf(stderr, "  %s: got %.200s, want %.200s\n", path,
			x ? x : "?", y ? y : "?");
		free(x);
		free(y);
		return false;
	}
	if (json_is_object(a)) {
		void *ia = json_object_iter((json_t *)a);
		void *ib = json_object_iter((json_t *)b);
		for (; ia && ib; ia = json_object_iter_next((json_t *)a, ia),
				 ib = json_object_iter_next((json_t *)b, ib)) {
			const char *ka = json_object_iter_key(ia);
			const char *kb = json_object_iter_key(ib);
			if (strcmp(ka, kb) != 0) {
				fprintf(stderr,
					"  %s: member \"%s\" where \"%s\" "
					"is wanted\n",
					path, ka, kb);
				return false;
			}
			snprintf(sub, sizeof(sub), "%s.%s", path, ka);
			if (!same(json_object_iter_value(ia),
				  json_object_iter_value(ib), sub))
				return false;
		}
		if (ia || ib) {
			fprintf(stderr, "  %s: member \"%s\" %s\n", path,
				json_object_iter_key(ia ? ia : ib),
				ia ? "is extra" : "is missing");
			return false;
		}
		return true;
	}
	if (json_is_array(a)) {
		if (json_array_size(a) != json_array_size(b)) {
			fprintf(stderr, "  %s: %zu items, want %zu\n", path,
				json_array_size(a), json_array_size(b));
			return false;
		}
		for (size_t i = 0; i < json_array_size(a); i++) {
			snprintf(sub, sizeof(sub), "%s[%zu]", path, i);
			if (!same(json_array_get(a, i), json_array_get(b, i),
				  sub))
				return false;
		}
		return true;
	}
	if (json_is_number(a) && json_number_value(a) == json_number_value(b))
		return true;
	if (json_equal((json_t *)a, (json_t *)b))
		return true;
	char *x = json_dumps(a, JSON_ENCODE_ANY);
	char *y = json_dumps(b, JSON_ENCODE_ANY);
	fprintf(stderr, "  %s: got %.200s, want %.200s\n", path, x ? x : "?",
		y ? y : "?");
	free(x);
	free(y);
	return false;
}

static bool decode_matches(const void *pb, size_t pblen, json_t *want,
			   const char *name)
{
	char err[256];
	json_t *got = fake_proto_decode(pb, pblen, err, sizeof(err));
	bool ok;

	if (!got) {
		fprintf(stderr, "%s: decode failed: %s\n", name, err);
		return false;
	}
	ok = same(got, want, name);
	if (!ok)
		fprintf(stderr, "%s: decoded JSON differs\n", name);
	json_decref(got);
	return ok;
}

/* NN-kind.pb against NN-kind.json. */
static void check_pair(const char *pbname, const char *jsonname)
{
	char path[256];
	size_t pblen = 0, jlen = 0;
	char *pb, *js;
	json_t *want;

	snprintf(path, sizeof(path), DIR "%s", pbname);
	pb = slurp(path, &pblen);
	snprintf(path, sizeof(path), DIR "%s", jsonname);
	js = slurp(path, &jlen);
	CHECK(pb && js);
	want = js ? json_loadb(js, jlen, 0, NULL) : NULL;
	CHECK(want != NULL);
	if (pb && want)
		CHECK(decode_matches(pb, pblen, want, pbname));
	json_decref(want);
	free(pb);
	free(js);
}

static uint64_t get_varint(const uint8_t **p, const uint8_t *end)
{
	uint64_t v = 0;
	for (int s = 0; *p < end && s < 64; s += 7) {
		uint8_t b = *(*p)++;
		v |= (uint64_t)(b & 0x7f) << s;
		if (!(b & 0x80))
			break;
	}
	return v;
}

/* A watch stream: 4-byte big-endian lengths, each a WatchEvent {1 type,
 * 2 object {1 raw: a whole k8s\0 body}}; the JSON watch has one event a
 * line. Each frame's type and object must match its line. */
static void check_watch(const char *pbname, const char *jsonname,
			size_t want_frames)
{
	char path[256];
	size_t pblen = 0, jlen = 0, frames = 0;
	char *pb, *js, *line, *save = NULL;

	snprintf(path, sizeof(path), DIR "%s", pbname);
	pb = slurp(path, &pblen);
	snprintf(path, sizeof(path), DIR "%s", jsonname);
	js = slurp(path, &jlen);
	CHECK(pb && js);
	if (!pb || !js)
		goto out;
	const uint8_t *p = (const uint8_t *)pb, *end = p + pblen;
	line = strtok_r(js, "\n", &save);
	while (end - p >= 4 && line) {
		size_t n = (size_t)p[0] << 24 | (size_t)p[1] << 16 |
			   (size_t)p[2] << 8 | p[3];
		const uint8_t *f = p + 4, *fend = f + n;
		const uint8_t *raw = NULL, *rawend = NULL;
		char type[32] = "";
		json_t *ev = json_loads(line, 0, NULL);

		CHECK(n <= (size_t)(end - f) && ev);
		if (n > (size_t)(end - f) || !ev) {
			json_decref(ev);
			break;
		}
		while (f < fend) {
			uint64_t tag = get_varint(&f, fend);
			uint64_t len = get_varint(&f, fend);
			if ((tag & 7) != 2 || len > (uint64_t)(fend - f))
				break;
			if (tag >> 3 == 1)
				snprintf(type, sizeof(type), "%.*s", (int)len,
					 (const char *)f);
			if (tag >> 3 == 2) { /* RawExtension {1 raw} */
				const uint8_t *q = f;
				uint64_t t2 = get_varint(&q, f + len);
				uint64_t l2 = get_varint(&q, f + len);
				if (t2 == (1 << 3 | 2) &&
				    l2 <= (uint64_t)(f + len - q)) {
					raw = q;
					rawend = q + l2;
				}
			}
			f += len;
		}
		CHECK_STR(type, json_string_value(json_object_get(ev, "type")));
		CHECK(raw != NULL);
		if (raw)
			CHECK(decode_matches(raw, (size_t)(rawend - raw),
					     json_object_get(ev, "object"),
					     pbname));
		json_decref(ev);
		frames++;
		p += 4 + n;
		line = strtok_r(NULL, "\n", &save);
	}
	CHECK(frames == want_frames);
out:
	free(pb);
	free(js);
}

/* Every fixture pair: the 31 kinds, the 406 Status, lists, errors. */
static void test_fixtures(void)
{
	static const char *const names[] = {
		"01-namespace",
		"02-serviceaccount",
		"03-configmap",
		"04-secret",
		"05-pod",
		"06-service",
		"07-deployment",
		"08-replicaset",
		"09-statefulset",
		"10-daemonset",
		"11-job",
		"12-cronjob",
		"13-controllerrevision",
		"14-ingress",
		"15-networkpolicy",
		"16-role",
		"17-rolebinding",
		"18-clusterrole",
		"19-persistentvolumeclaim",
		"20-persistentvolume",
		"21-storageclass",
		"22-priorityclass",
		"23-poddisruptionbudget",
		"24-horizontalpodautoscaler",
		"25-lease",
		"26-event",
		"27-endpointslice",
		"28-node",
		"29-limitrange",
		"30-resourcequota",
		"31-customresourcedefinition",
		"50-list-pods",
		"51-list-pods-limit1",
		"52-list-limitranges-empty",
		"70-error-get-missing-pod",
		"71-error-bad-labelselector",
		"73-error-list-rv1-exact",
	};
	char pb[96], js[96];

	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		snprintf(pb, sizeof(pb), "%s.pb", names[i]);
		snprintf(js, sizeof(js), "%s.json", names[i]);
		check_pair(pb, js);
	}
	/* The 406 a protobuf-only Accept gets for a custom resource: a
	 * protobuf Status; its JSON twin is not captured, so check its
	 * members. */
	size_t n = 0;
	char *body = slurp(DIR "32-customresource-406.pb", &n), err[256];
	json_t *st = body ? fake_proto_decode(body, n, err, sizeof(err)) : NULL;
	CHECK(st != NULL);
	CHECK_STR(json_string_value(json_object_get(st, "kind")), "Status");
	CHECK_STR(json_string_value(json_object_get(st, "reason")),
		  "NotAcceptable");
	CHECK(json_integer_value(json_object_get(st, "code")) == 406);
	CHECK(json_is_object(json_object_get(st, "metadata")));
	json_decref(st);
	free(body);
}

static void test_watch(void)
{
	check_watch("60-watch-configmaps.pb", "60-watch-configmaps.json", 5);
	check_watch("72-error-watch-rv1.pb", "72-error-watch-rv1.json", 1);
}

/* The decoder's failure paths: each refuses, with a reason. */
static void test_refusals(void)
{
	char err[256];
	/* No magic. */
	CHECK(!fake_proto_decode("{}", 2, err, sizeof(err)));
	CHECK(strstr(err, "k8s") != NULL);
	/* A kind without a schema. */
	static const char unknown_kind[] =
		"k8s\0\x0a\x0e\x0a\x07x.io/v1\x12\x03"
		"Foo\x12\x00";
	CHECK(!fake_proto_decode(unknown_kind, sizeof(unknown_kind) - 1, err,
				 sizeof(err)));
	CHECK(strstr(err, "Foo") != NULL);
	/* A Pod whose metadata runs past the end. */
	static const char trunc[] = "k8s\0\x0a\x07\x0a\x02v1\x12\x03Pod"
				    "\x12\x04\x0a\x09\x0a\x01";
	CHECK(!fake_proto_decode(trunc, sizeof(trunc) - 1, err, sizeof(err)));
	/* Which kinds it knows: by group and version. */
	CHECK(fake_proto_knows("apps/v1", "Deployment"));
	CHECK(fake_proto_knows("rbac.authorization.k8s.io/v1", "Role"));
	CHECK(!fake_proto_knows("v1", "Deployment"));
	CHECK(!fake_proto_knows("example.com/v1", "Widget"));
}

/* A growing byte string, for bodies built by hand. */
struct bytes {
	uint8_t *p;
	size_t n;
};

static void put_varint(struct bytes *b, uint64_t v)
{
	uint8_t tmp[10];
	size_t k = 0;
	do {
		tmp[k++] = (uint8_t)((v & 0x7f) | (v > 0x7f ? 0x80 : 0));
		v >>= 7;
	} while (v);
	b->p = realloc(b->p, b->n + k);
	memcpy(b->p + b->n, tmp, k);
	b->n += k;
}

/* b becomes field num (length-delimited) holding the old b, prefixed by
 * pre[0, npre). */
static void wrap(struct bytes *b, unsigned num, const void *pre, size_t npre)
{
	struct bytes out = { malloc(npre + 1), npre };
	if (npre)
		memcpy(out.p, pre, npre);
	put_varint(&out, (uint64_t)num << 3 | 2);
	put_varint(&out, b->n);
	out.p = realloc(out.p, out.n + b->n);
	if (b->n)
		memcpy(out.p + out.n, b->p, b->n);
	out.n += b->n;
	free(b->p);
	*b = out;
}

/* The field number of member json in m (and its message in *sub). */
static unsigned num_of(const struct pb_msg *m, const char *json,
		       const struct pb_msg **sub)
{
	for (const struct pb_field *f = m->f; f->num; f++)
		if (strcmp(f->json, json) == 0) {
			if (sub)
				*sub = f->msg;
			return f->num;
		}
	return 0;
}

/* A CRD whose schema nests `not` depth times, as a whole body. */
static struct bytes nested_crd(int depth, const void *leaf, size_t nleaf)
{
	const struct pb_msg *crd = pb_kinds_find("apiextensions.k8s.io/v1",
						 "CustomResourceDefinition");
	const struct pb_msg *spec, *ver, *val, *props;
	unsigned n_spec = num_of(crd, "spec", &spec);
	unsigned n_ver = num_of(spec, "versions", &ver);
	unsigned n_val = num_of(ver, "schema", &val);
	unsigned n_props = num_of(val, "openAPIV3Schema", &props);
	unsigned n_not = num_of(props, "not", NULL);
	struct bytes b = { NULL, 0 };
	static const char env[] = "\x0a\x33\x0a\x17"
				  "apiextensions.k8s.io/v1"
				  "\x12\x18"
				  "CustomResourceDefinition";

	CHECK(n_spec && n_ver && n_val && n_props && n_not);
	if (nleaf) {
		b.p = malloc(nleaf);
		memcpy(b.p, leaf, nleaf);
		b.n = nleaf;
	}
	for (int i = 0; i < depth; i++)
		wrap(&b, n_not, NULL, 0);
	wrap(&b, n_props, NULL, 0);
	wrap(&b, n_val, NULL, 0);
	wrap(&b, n_ver, NULL, 0);
	wrap(&b, n_spec, NULL, 0);
	wrap(&b, 2, env, sizeof(env) - 1); /* runtime.Unknown raw */
	struct bytes out = { malloc(4 + b.n), 4 + b.n };
	memcpy(out.p, "k8s", 4);
	memcpy(out.p + 4, b.p, b.n);
	free(b.p);
	return out;
}

/* A schema nested 100 deep decodes; past the limit, or a double sent as
 * a varint, is refused with a reason. */
static void test_nesting_and_doubles(void)
{
	char err[256];
	static const uint8_t max5[] = {
		9 << 3 | 1, 0, 0, 0, 0, 0, 0, 0x14, 0x40
	}; /* maximum: 5.0 */
	struct bytes b = nested_crd(100, max5, sizeof(max5));
	json_t *o = fake_proto_decode(b.p, b.n, err, sizeof(err));
	if (!o)
		fprintf(stderr, "nested CRD: %s\n", err);
	CHECK(o != NULL);
	json_t *s = json_object_get(
		json_array_get(
			json_object_get(json_object_get(o, "spec"), "versions"),
			0),
		"schema");
	s = json_object_get(s, "openAPIV3Schema");
	int depth = 0;
	while (json_object_get(s, "not")) {
		s = json_object_get(s, "not");
		depth++;
	}
	CHECK(depth == 100);
	CHECK(json_is_integer(json_object_get(s, "maximum")) &&
	      json_integer_value(json_object_get(s, "maximum")) == 5);
	json_decref(o);
	free(b.p);

	b = nested_crd(1000, NULL, 0);
	CHECK(!fake_proto_decode(b.p, b.n, err, sizeof(err)));
	CHECK(strstr(err, "deeper") != NULL);
	free(b.p);

	static const uint8_t bad_max[] = { 9 << 3, 5 }; /* a varint */
	b = nested_crd(0, bad_max, sizeof(bad_max));
	CHECK(!fake_proto_decode(b.p, b.n, err, sizeof(err)));
	CHECK(strstr(err, "maximum") != NULL);
	free(b.p);
}

/* Every built-in kind the fake serves with --all-kinds, and its List,
 * has a schema: kubectl's protobuf writes of any of them decode. */
static void test_every_served_kind(void)
{
	int known = 0;

	CHECK(fake_kinds_enable() == 0);
	CHECK(fake_crd_enable() == 0);
	for (int i = 0; i < fake_nres; i++) {
		const struct fake_res *r = &fake_res_table[i];
		if (r->custom)
			continue;
		bool k = fake_proto_knows(r->api_version, r->kind);
		bool l = fake_proto_knows(r->api_version, r->list_kind);
		if (!k || !l)
			fprintf(stderr, "no schema for %s %s/%s\n",
				r->api_version, r->kind, r->list_kind);
		CHECK(k && l);
		known += k && l;
	}
	CHECK(known >= 40);
}

int main(void)
{
	test_fixtures();
	test_watch();
	test_refusals();
	test_every_served_kind();
	test_nesting_and_doubles();
	return check_done("test_proto_decode");
}
