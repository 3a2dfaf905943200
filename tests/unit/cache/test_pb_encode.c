/*
 * test_pb_encode: the encoder against a real apiserver's bytes. Every
 * fixture of tests/fixtures/protobuf whose kind the schema registers
 * (pb_kinds_all()) must encode from its JSON to its .pb byte for byte;
 * so must the lists, the Status errors and the watch stream. Fixtures of
 * kinds without a table are listed and skipped. Then the failure paths:
 * unknown members, wrong types, malformed JSON, bad base64, out-of-range
 * integers, and every allocation failing in turn.
 */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cache/json.h"
#include "cache/pb_encode.h"
#include "cache/pb_kinds.h"
#include "cache/pb_schema_core.h"
#include "cache/pb_schema_meta.h"
#include "cache/pb_wire.h"
#include "check.h"
#include "config/alloc.h"
#include "config/limits.h"
#include "config/read.h"

#define FIXDIR "tests/fixtures/protobuf"

/* The fixture at path, NUL-terminated, for free(); NULL if unreadable. */
static char *slurp(const char *path, size_t *len)
{
	char *p = NULL;
	return config_read_file(path, 1 << 24, &p, len, NULL) ? NULL : p;
}

/* The first offset where a and b differ, for a useful message. */
static size_t first_diff(const struct buf *a, const char *b, size_t bn)
{
	size_t i = 0;
	while (i < a->len && i < bn && a->p[i] == b[i])
		i++;
	return i;
}

static bool registered(const char *api_version, const char *kind)
{
	size_t n;
	const struct pb_kind_row *rows = pb_kinds_all(&n);
	for (size_t i = 0; i < n; i++)
		if (!strcmp(rows[i].api_version, api_version) &&
		    !strcmp(rows[i].kind, kind))
			return true;
	return false;
}

/* The message for a document of kind in api_version: a registered kind,
 * its List, Status, a discovery document, or NULL. */
static const struct pb_msg *msg_for(const char *api_version, const char *kind,
				    struct pb_list *l)
{
	size_t kn = strlen(kind);
	if (!strcmp(kind, "Status"))
		return &pb_status;
	if (!strcmp(kind, "APIVersions") || !strcmp(kind, "APIGroupList") ||
	    !strcmp(kind, "APIGroup") || !strcmp(kind, "APIResourceList"))
		return pb_encode_find(api_version, kind, l);
	if (kn > 4 && !strcmp(kind + kn - 4, "List")) {
		char item[64];
		snprintf(item, sizeof(item), "%.*s", (int)(kn - 4), kind);
		if (!registered(api_version, item))
			return NULL;
		pb_list_init(l, pb_kinds_find(api_version, item), kind);
		return &l->msg;
	}
	return registered(api_version, kind) ?
		       pb_kinds_find(api_version, kind) :
		       NULL;
}

/* Encode the JSON document js (an object with kind and apiVersion) as a
 * whole body onto out. 1 when its kind has no table (kind_out says
 * which), 0 when encoded, <0 on an error. */
static int encode_doc(const char *js, size_t len, struct buf *out,
		      char *kind_out, size_t kcap)
{
	struct json_doc d = JSON_DOC_INIT;
	char err[256], av[64] = "", kind[64] = "";
	struct pb_list l;
	int rc;

	if (json_parse(&d, js, len, err, sizeof(err)) != 0) {
		json_doc_free(&d);
		return -EINVAL;
	}
	json_str(&d, json_get(&d, 0, "apiVersion"), av, sizeof(av));
	json_str(&d, json_get(&d, 0, "kind"), kind, sizeof(kind));
	snprintf(kind_out, kcap, "%s %s", av, kind);
	const struct pb_msg *m = msg_for(av, kind, &l);
	if (!m) {
		json_doc_free(&d);
		return 1;
	}
	rc = pb_encode_body(av, kind, m, d.js, d.len, out, err, sizeof(err));
	if (rc)
		fprintf(stderr, "  %s: encode: %d %s\n", kind_out, rc, err);
	json_doc_free(&d);
	return rc;
}

/* A watch stream: one JSON event a line, each framed. */
static int encode_stream(const char *js, size_t len, struct buf *out,
			 char *kind_out, size_t kcap)
{
	const char *p = js, *end = js + len;
	int rc = 0;

	while (p < end && !rc) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t n = nl ? (size_t)(nl - p) : (size_t)(end - p);
		struct json_doc d = JSON_DOC_INIT;
		char err[128], type[32] = "";
		struct buf body = BUF_INIT;
		size_t on;

		if (json_parse(&d, p, n, err, sizeof(err)) != 0) {
			json_doc_free(&d);
			return -EINVAL;
		}
		json_str(&d, json_get(&d, 0, "type"), type, sizeof(type));
		int o = json_get(&d, 0, "object");
		const char *obj = json_raw(&d, o, &on);
		rc = encode_doc(obj, on, &body, kind_out, kcap);
		if (!rc)
			rc = pb_encode_watch_frame(type, body.p, body.len, out);
		buf_free(&body);
		json_doc_free(&d);
		p += n + 1;
	}
	return rc;
}

static void test_fixtures(void)
{
	DIR *dir = opendir(FIXDIR);
	struct dirent *de;
	int matched = 0, skipped = 0;
	char skipped_kinds[2048] = "";

	CHECK(dir != NULL);
	if (!dir)
		return;
	while ((de = readdir(dir))) {
		char path[512], kind[128] = "";
		size_t n = strlen(de->d_name), jl, pl;
		if (n < 6 || strcmp(de->d_name + n - 5, ".json"))
			continue;
		snprintf(path, sizeof(path), FIXDIR "/%s", de->d_name);
		char *js = slurp(path, &jl);
		snprintf(path, sizeof(path), FIXDIR "/%.*s.pb", (int)(n - 5),
			 de->d_name);
		char *pb = slurp(path, &pl);
		CHECK(js != NULL);
		if (!js || !pb) { /* 32-customresource: no .pb of its own */
			free(js);
			free(pb);
			continue;
		}
		struct buf out = BUF_INIT;
		bool stream = strstr(de->d_name, "watch") != NULL;
		int rc = stream ? encode_stream(js, jl, &out, kind,
						sizeof(kind)) :
				  encode_doc(js, jl, &out, kind, sizeof(kind));
		if (rc == 1) {
			skipped++;
			size_t sl = strlen(skipped_kinds);
			snprintf(skipped_kinds + sl, sizeof(skipped_kinds) - sl,
				 " %s(%s)", kind, de->d_name);
		} else {
			bool same = rc == 0 && out.len == pl &&
				    memcmp(out.p, pb, pl) == 0;
			if (!same)
				fprintf(stderr,
					"  %s: %zu bytes, want %zu; first "
					"difference at byte %zu\n",
					de->d_name, out.len, pl,
					first_diff(&out, pb, pl));
			CHECK(same);
			matched += same;
		}
		buf_free(&out);
		free(js);
		free(pb);
	}
	closedir(dir);
	printf("pb_encode: %d fixtures byte-exact, %d skipped (no table):%s\n",
	       matched, skipped, skipped_kinds);
	CHECK(matched >= 10); /* core kinds, lists, errors, the watch */
}

/* apps/v1's APIResourceList (GET /apis/apps/v1): of the apiserver's
 * protobuf answer only its length and first 64 bytes were kept; the rest
 * is the same rows' encoding, which 80-discovery-api and the kinds'
 * fixtures check byte for byte. */
static void test_discovery_resources(void)
{
	static const char head[64] = "k8s\0\x0a\x15\x0a\x02v1\x12\x0f"
				     "APIResourceList\x12\xb3\x09\x0a\x07"
				     "apps/v1\x12\x96\x01\x0a\x13"
				     "controllerrevisions\x10";
	struct buf out = BUF_INIT;
	char kind[64];
	size_t jl = 0;
	char *js = slurp(FIXDIR "/81-discovery-apps-v1.json", &jl);

	CHECK(js != NULL);
	if (!js)
		return;
	CHECK(encode_doc(js, jl, &out, kind, sizeof(kind)) == 0);
	CHECK(out.len == 1237);
	CHECK(out.len >= 64 && memcmp(out.p, head, 64) == 0);
	buf_free(&out);
	free(js);
}

/* Which registered kinds no fixture checks against real bytes (told,
 * not failed: the registry holds kinds no capture covered). */
static void test_kinds_without_fixtures(void)
{
	size_t n;
	const struct pb_kind_row *rows = pb_kinds_all(&n);
	DIR *dir = opendir(FIXDIR);
	struct dirent *de;
	char all[65536] = "";
	size_t al = 0;

	CHECK(dir != NULL);
	if (!dir)
		return;
	while ((de = readdir(dir))) {
		char path[512];
		size_t len, dn = strlen(de->d_name);
		if (dn < 6 || strcmp(de->d_name + dn - 5, ".json") ||
		    de->d_name[0] > '3')
			continue;
		snprintf(path, sizeof(path), FIXDIR "/%s", de->d_name);
		char *js = slurp(path, &len);
		if (js) {
			/* "kind":"X","apiVersion":"Y" opens each object */
			const char *k = strstr(js, "\"kind\":\"");
			const char *a = strstr(js, "\"apiVersion\":\"");
			if (k && a && al + 128 < sizeof(all))
				al += (size_t)snprintf(
					all + al, sizeof(all) - al,
					"|%.*s %.*s|",
					(int)strcspn(a + 14, "\""), a + 14,
					(int)strcspn(k + 8, "\""), k + 8);
			free(js);
		}
	}
	closedir(dir);
	int unchecked = 0;
	printf("pb_encode: registered kinds without a fixture:");
	for (size_t i = 0; i < n; i++) {
		char want[160];
		size_t kn = strlen(rows[i].kind);
		snprintf(want, sizeof(want), "|%s %s|", rows[i].api_version,
			 rows[i].kind);
		if (kn > 4 && !strcmp(rows[i].kind + kn - 4, "List"))
			continue;
		if (!strstr(all, want)) {
			printf(" %s/%s", rows[i].api_version, rows[i].kind);
			unchecked++;
		}
	}
	printf(" (%d)\n", unchecked);
	CHECK(n > 0);
}

/* The 406 a custom resource gets: a Status whose JSON the fixtures do
 * not hold, written here from its decode. */
static void test_status_406(void)
{
	static const char js[] =
		"{\"kind\":\"Status\",\"apiVersion\":\"v1\",\"metadata\":{},"
		"\"status\":\"Failure\",\"message\":\"only the following media "
		"types are accepted: application/json, application/yaml, "
		"application/vnd.kubernetes.protobuf\",\"reason\":"
		"\"NotAcceptable\",\"code\":406}";
	struct buf out = BUF_INIT;
	char kind[64];
	size_t pl = 0;
	char *pb = slurp(FIXDIR "/32-customresource-406.pb", &pl);

	CHECK(pb != NULL);
	CHECK(encode_doc(js, sizeof(js) - 1, &out, kind, sizeof(kind)) == 0);
	CHECK(pb && out.len == pl && memcmp(out.p, pb, pl) == 0);
	buf_free(&out);
	free(pb);
}

static int enc(const struct pb_msg *m, const char *js, struct buf *out,
	       char *err, size_t errlen)
{
	buf_reset(out);
	return pb_encode_msg(m, js, strlen(js), out, err, errlen);
}

static bool bytes_are(const struct buf *b, const char *want, size_t n)
{
	if (b->len == n && memcmp(b->p, want, n) == 0)
		return true;
	fprintf(stderr, "  got %zu bytes:", b->len);
	for (size_t i = 0; i < b->len; i++)
		fprintf(stderr, " %02x", (unsigned char)b->p[i]);
	fprintf(stderr, "\n");
	return false;
}

#define BYTES_ARE(b, lit) bytes_are(b, lit, sizeof(lit) - 1)

/* The message ends with these bytes (what precedes is ObjectMeta, which
 * the tables may write even when the JSON has none: a struct value). */
static bool ends_with(const struct buf *b, const char *want, size_t n)
{
	if (b->len >= n && memcmp(b->p + b->len - n, want, n) == 0)
		return true;
	return bytes_are(b, want, n);
}

#define ENDS_WITH(b, lit) ends_with(b, lit, sizeof(lit) - 1)

static void test_wire_rules(void)
{
	struct buf out = BUF_INIT;
	char err[256];

	/* maps sorted by key bytewise, value written when empty; kind and
	 * apiVersion skipped at the top */
	CHECK(enc(&pb_configmap,
		  "{\"kind\":\"ConfigMap\",\"apiVersion\":\"v1\",\"data\":"
		  "{\"z\":\"1\",\"B\":\"\",\"a\":\"2\"}}",
		  &out, err, sizeof(err)) == 0);
	CHECK(ENDS_WITH(&out, "\x12\x05\x0a\x01"
			      "B\x12\x00"
			      "\x12\x06\x0a\x01"
			      "a\x12\x01"
			      "2"
			      "\x12\x06\x0a\x01z\x12\x01"
			      "1"));
	/* a key given twice counts once, the last value wins; escapes in
	 * keys and values are undone */
	CHECK(enc(&pb_configmap,
		  "{\"data\":{\"k\":\"1\",\"\\u006b\":\"\\n\\u00e9\"}}", &out,
		  err, sizeof(err)) == 0);
	CHECK(ENDS_WITH(&out, "\x12\x08\x0a\x01k\x12\x03\n\xc3\xa9"));
	/* invalid UTF-8: each bad byte becomes U+FFFD, as Go's decoder
	 * reads it; valid multi-byte text stays */
	CHECK(enc(&pb_configmap,
		  "{\"data\":{\"k\":\"\xc3\xa9\xff\xed\xa0\x80\"}}", &out, err,
		  sizeof(err)) == 0);
	CHECK(ENDS_WITH(&out,
			"\x12\x13\x0a\x01k\x12\x0e\xc3\xa9"
			"\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd"));
	/* the same after an escape, with text after a multi-byte one */
	CHECK(enc(&pb_configmap, "{\"data\":{\"k\":\"\\n\xc3\xa9xyz\xff\"}}",
		  &out, err, sizeof(err)) == 0);
	CHECK(ENDS_WITH(&out, "\x12\x0e\x0a\x01k\x12\x09\n\xc3\xa9xyz"
			      "\xef\xbf\xbd"));
	/* bytes: base64 decoded; the empty value kept */
	CHECK(enc(&pb_configmap, "{\"binaryData\":{\"b\":\"AAE=\",\"e\":\"\"}}",
		  &out, err, sizeof(err)) == 0);
	CHECK(ENDS_WITH(&out, "\x1a\x07\x0a\x01"
			      "b\x12\x02\x00\x01"
			      "\x1a\x05\x0a\x01"
			      "e\x12\x00"));
	/* pointer bool present when false; nothing else for an empty map */
	CHECK(enc(&pb_configmap, "{\"immutable\":false,\"data\":{}}", &out, err,
		  sizeof(err)) == 0);
	CHECK(ENDS_WITH(&out, "\x20\x00"));
	/* repeated scalars unpacked; pointer int absent; non-pointer
	 * seccompProfile absent from the JSON stays absent (a nil pointer) */
	CHECK(enc(&pb_pod_spec,
		  "{\"securityContext\":{\"supplementalGroups\":[0,3000]}}",
		  &out, err, sizeof(err)) == 0);
	/* the securityContext holds two varints, tag 0x20 each */
	const char want_sc[] = "\x72\x05\x20\x00\x20\xb8\x17";
	CHECK(memmem(out.p, out.len, want_sc, sizeof(want_sc) - 1) != NULL);
	/* IntOrString: all three fields, both forms */
	CHECK(enc(&pb_service,
		  "{\"spec\":{\"ports\":[{\"port\":80,\"targetPort\":\"http\"},"
		  "{\"port\":81,\"targetPort\":-1}]}}",
		  &out, err, sizeof(err)) == 0);
	const char want_is1[] = "\x22\x0a\x08\x01\x10\x00\x1a\x04http";
	const char want_is2[] = "\x22\x0f\x08\x00\x10\xff\xff\xff\xff\xff\xff"
				"\xff\xff\xff\x01\x1a\x00";
	CHECK(memmem(out.p, out.len, want_is1, sizeof(want_is1) - 1) != NULL);
	CHECK(memmem(out.p, out.len, want_is2, sizeof(want_is2) - 1) != NULL);
	/* Time: seconds and nanos (0); null is an empty message; a
	 * fraction keeps microseconds; an offset is folded in */
	CHECK(enc(&pb_object_meta,
		  "{\"name\":\"n\",\"creationTimestamp\":\"1970-01-01T00:00:"
		  "01Z\",\"deletionTimestamp\":\"1970-01-01T01:00:00.1234567+"
		  "01:00\"}",
		  &out, err, sizeof(err)) == 0);
	const char want_t1[] = "\x42\x04\x08\x01\x10\x00";
	const char want_t2[] = "\x4a\x04\x08\x00\x10\x00"; /* no nanos */
	CHECK(memmem(out.p, out.len, want_t1, sizeof(want_t1) - 1) != NULL);
	CHECK(memmem(out.p, out.len, want_t2, sizeof(want_t2) - 1) != NULL);
	CHECK(enc(&pb_object_meta, "{\"creationTimestamp\":null}", &out, err,
		  sizeof(err)) == 0);
	const char want_t0[] = "\x38\x00\x42\x00";
	CHECK(memmem(out.p, out.len, want_t0, sizeof(want_t0) - 1) != NULL);
	/* int64 extremes */
	CHECK(enc(&pb_object_meta,
		  "{\"generation\":9223372036854775807,"
		  "\"deletionGracePeriodSeconds\":-9223372036854775808}",
		  &out, err, sizeof(err)) == 0);
	const char want_big[] = "\x38\xff\xff\xff\xff\xff\xff\xff\xff\x7f";
	CHECK(memmem(out.p, out.len, want_big, sizeof(want_big) - 1) != NULL);
	/* a nested message over 127 bytes: its length takes two bytes */
	char big[400];
	snprintf(big, sizeof(big), "{\"metadata\":{\"name\":\"%0200d\"}}", 0);
	CHECK(enc(&pb_configmap, big, &out, err, sizeof(err)) == 0);
	CHECK(out.len > 3 && (unsigned char)out.p[0] == 0x0a);
	CHECK(out.len > 3 &&
	      (size_t)(((unsigned char)out.p[1] & 0x7f) |
		       (unsigned char)out.p[2] << 7) == out.len - 3);
	buf_free(&out);
}

/* A map of messages that hold maps themselves (a CRD schema's
 * properties), and the either-forms. */
extern const struct pb_msg t_node, t_or_bool;
PB_MSG(t_node, "Node", PB_F(1, "v", PB_STR, 0),
       PB_MX(2, "m", PB_MAP_MSG, t_node, 0), PB_M(3, "b", t_or_bool, PB_PTR));
PB_MSG_FORM(t_or_bool, "OrBool", PB_FORM_OR_BOOL,
	    PB_F(1, "allows", PB_BOOL, PB_KEEP),
	    PB_M(2, "schema", t_node, PB_PTR));

static void test_nested_maps_and_forms(void)
{
	struct buf out = BUF_INIT;
	char err[256];

	CHECK(enc(&t_node,
		  "{\"m\":{\"b\":{\"v\":\"x\"},\"a\":{\"m\":{\"k\":{}}}}}",
		  &out, err, sizeof(err)) == 0);
	CHECK(BYTES_ARE(&out,
			"\x0a\x00"
			"\x12\x10\x0a\x01"
			"a\x12\x0b\x0a\x00\x12\x07\x0a\x01k\x12\x02\x0a\x00"
			"\x12\x08\x0a\x01"
			"b\x12\x03\x0a\x01x"));
	/* the bool form, and the object form (allows true, then it) */
	CHECK(enc(&t_node, "{\"b\":false}", &out, err, sizeof(err)) == 0);
	CHECK(BYTES_ARE(&out, "\x0a\x00\x1a\x02\x08\x00"));
	CHECK(enc(&t_node, "{\"b\":{\"v\":\"y\"}}", &out, err, sizeof(err)) ==
	      0);
	CHECK(BYTES_ARE(&out, "\x0a\x00\x1a\x07\x08\x01\x12\x03\x0a\x01y"));
	CHECK(enc(&t_node, "{\"b\":[]}", &out, err, sizeof(err)) == -EINVAL);
	/* long keys at two levels: the inner map grows the key buffer the
	 * outer map's keys live in */
	struct buf big = BUF_INIT;
	buf_adds(&big, "{\"m\":{");
	for (int i = 0; i < 8; i++)
		buf_printf(
			&big,
			"%s\"%0300d\":{\"m\":{\"%04000d\":{},\"%04001d\":{}}}",
			i ? "," : "", 8 - i, i, i);
	buf_adds(&big, "}}");
	CHECK(buf_ok(&big));
	buf_reset(&out);
	CHECK(pb_encode_msg(&t_node, big.p, big.len, &out, err, sizeof(err)) ==
	      0);
	buf_free(&big);
	char key1[301];
	snprintf(key1, sizeof(key1), "%0300d", 1);
	/* sorted: the first entry's key is ...001 */
	CHECK(out.len > 310 && memcmp(out.p + 8, key1, 300) == 0);
	/* an error under a map key, after an inner map's long keys moved
	 * the key buffer: the message still names each key */
	buf_reset(&big);
	buf_printf(&big,
		   "{\"m\":{\"outer\":{\"m\":{\"%04000d\":{},"
		   "\"bad\":{\"v\":5}}}}}",
		   0);
	CHECK(buf_ok(&big));
	buf_reset(&out);
	CHECK(pb_encode_msg(&t_node, big.p, big.len, &out, err, sizeof(err)) ==
	      -EINVAL);
	CHECK(strstr(err, "Node.m.outer.m.bad.v: want a string") != NULL);
	buf_free(&big);
	buf_free(&out);
}

/* Fields are written in ascending number whatever the table's order:
 * a table in order, one out of order (sorted on the stack), and one too
 * long for that (each next field searched for). */
static void test_field_order(void)
{
	enum {
		N = 140
	};
	static struct pb_field fs[N + 1];
	static char names[N][8];
	const struct pb_msg m = { "Many", fs, PB_FORM_OBJECT };
	static const size_t lens[] = { 10, N };
	struct buf out = BUF_INIT;
	char err[256];

	for (unsigned i = 0; i < N; i++)
		snprintf(names[i], sizeof(names[i]), "f%u", i + 1);
	for (size_t l = 0; l < 2; l++) {
		size_t n = lens[l];
		struct buf js = BUF_INIT, want = BUF_INIT;
		/* {"f1":1,"f2":2,...}: field k holds k */
		buf_adds(&js, "{");
		for (unsigned i = 0; i < n; i++) {
			buf_printf(&js, "%s\"f%u\":%u", i ? "," : "", i + 1,
				   i + 1);
			pb_put_tag(&want, i + 1, 0);
			pb_put_varint(&want, i + 1);
		}
		buf_adds(&js, "}");
		CHECK(buf_ok(&js) && buf_ok(&want));
		for (int rev = 0; rev < 2; rev++) {
			for (unsigned i = 0; i < n; i++) {
				unsigned k = rev ? (unsigned)n - 1 - i : i;
				fs[i] = (struct pb_field){ k + 1, names[k],
							   PB_INT, 0, NULL };
			}
			fs[n] = (struct pb_field){ 0 };
			buf_reset(&out);
			CHECK(pb_encode_msg(&m, js.p, js.len, &out, err,
					    sizeof(err)) == 0);
			CHECK(bytes_are(&out, want.p, want.len));
		}
		buf_free(&js);
		buf_free(&want);
	}
	buf_free(&out);
}

/* A nested message's length gets the room its JSON's length suggests,
 * and its bytes move when that was wrong, either way. */
static void test_length_room(void)
{
	enum {
		N = 70
	};
	static struct pb_field inner_f[N + 1];
	static char names[N][8];
	const struct pb_msg inner = { "Inner", inner_f, PB_FORM_OBJECT };
	const struct pb_field outer_f[] = { { 1, "x", PB_MSG, PB_PTR, &inner },
					    { 0 } };
	const struct pb_msg outer = { "Outer", outer_f, PB_FORM_OBJECT };
	struct buf a = BUF_INIT, b = BUF_INIT, out = BUF_INIT, ref = BUF_INIT,
		   want = BUF_INIT;
	char err[256];

	/* long JSON, short message: a name written with escapes, the same
	 * bytes as its plain spelling */
	buf_adds(&a, "{\"metadata\":{\"name\":\"");
	buf_adds(&b, "{\"metadata\":{\"name\":\"");
	for (int i = 0; i < 60; i++) {
		buf_adds(&a, "A");
		buf_adds(&b, "\\u0041");
	}
	buf_adds(&a, "\"}}");
	buf_adds(&b, "\"}}");
	CHECK(buf_ok(&a) && buf_ok(&b));
	CHECK(pb_encode_msg(&pb_pod, a.p, a.len, &ref, err, sizeof(err)) == 0);
	CHECK(pb_encode_msg(&pb_pod, b.p, b.len, &out, err, sizeof(err)) == 0);
	CHECK(bytes_are(&out, ref.p, ref.len));
	/* short JSON, long message: {} for a struct of 70 strings, each
	 * written empty (a non-pointer Go string) */
	for (unsigned i = 0; i < N; i++) {
		snprintf(names[i], sizeof(names[i]), "s%u", i + 1);
		inner_f[i] =
			(struct pb_field){ i + 1, names[i], PB_STR, 0, NULL };
	}
	inner_f[N] = (struct pb_field){ 0 };
	struct buf in = BUF_INIT;
	for (unsigned i = 0; i < N; i++)
		pb_put_bytes(&in, i + 1, "", 0);
	CHECK(buf_ok(&in) && in.len >= 128); /* a two-byte length */
	pb_put_bytes(&want, 1, in.p, in.len);
	buf_free(&in);
	CHECK(buf_ok(&want));
	buf_reset(&out);
	CHECK(pb_encode_msg(&outer, "{\"x\":{}}", 8, &out, err, sizeof(err)) ==
	      0);
	CHECK(bytes_are(&out, want.p, want.len));
	buf_free(&a);
	buf_free(&b);
	buf_free(&out);
	buf_free(&ref);
	buf_free(&want);
}

static void test_failures(void)
{
	static const struct {
		const char *js;
		int rc;
		const char *err; /* a part of the message */
	} cases[] = {
		{ "{\"spec\":{\"foo\":1}}", -ENOENT, "Pod.spec.foo" },
		{ "{\"spec\":{\"containers\":[{\"name\":\"a\",\"bogus\":1}]}}",
		  -ENOENT, "Pod.spec.containers[0].bogus" },
		{ "{\"metadata\":{\"labels\":{\"a\":1}}}", -EINVAL,
		  "labels.a" },
		{ "{\"metadata\":{\"name\":5}}", -EINVAL, "metadata.name" },
		{ "{\"metadata\":{\"generation\":\"5\"}}", -EINVAL, "" },
		{ "{\"metadata\":{\"generation\":1.5}}", -EINVAL, "" },
		{ "{\"metadata\":{\"generation\":99999999999999999999}}",
		  -EINVAL, "range" },
		{ "{\"metadata\":{\"generation\":9223372036854775808}}",
		  -EINVAL, "range" },
		{ "{\"metadata\":{\"generation\":01}}", -EINVAL, "" },
		{ "{\"metadata\":{\"finalizers\":\"x\"}}", -EINVAL, "array" },
		{ "{\"metadata\":{\"finalizers\":[\"x\",]}}", -EINVAL, "" },
		{ "{\"metadata\":{\"creationTimestamp\":\"yesterday\"}}",
		  -EINVAL, "time" },
		{ "{\"metadata\":{\"creationTimestamp\":\"2026-13-01T00:00:"
		  "00Z\"}}",
		  -EINVAL, "time" },
		{ "{\"metadata\":[]}", -EINVAL, "object" },
		{ "{\"metadata\":{\"name\":\"a\"}", -EINVAL, "" },
		{ "{\"metadata\":{\"name\":\"a\"}} x", -EINVAL, "" },
		{ "{\"metadata\":{\"name\":\"a\\q\"}}", -EINVAL, "" },
		{ "{\"metadata\":{\"name\":\"a\x01\"}}", -EINVAL, "" },
		{ "{\"metadata\":{\"name\" \"a\"}}", -EINVAL, "" },
		{ "{\"metadata\":{\"name\":tru}}", -EINVAL, "" },
		{ "{\"spec\":{\"hostNetwork\":1}}", -EINVAL, "hostNetwork" },
		/* malformed JSON is found by the tokenizer, before any
		 * field: the message says where */
		{ "{\"metadata\":{\"managedFields\":[{\"fieldsV1\":{\"a\":}}]}"
		  "}",
		  -EINVAL, "invalid JSON at byte 47" },
		{ "{\"metadata\":{\"managedFields\":[{\"fieldsV1\":[1}]}]}}",
		  -EINVAL, "" },
		{ "[]", -EINVAL, "" },
		{ "{\"kind\":{}}", -EINVAL, "Pod.kind" },
		{ "{\"apiVersion\":5}", -EINVAL, "Pod.apiVersion" },
		{ "", -EINVAL, "" },
		{ "{\"spec\":{\"containers\":[{\"resources\":{\"limits\":"
		  "{\"cpu\":1}}}]}}",
		  -EINVAL, "limits.cpu" },
	};
	struct buf out = BUF_INIT;
	char err[256];

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		int rc = enc(&pb_pod, cases[i].js, &out, err, sizeof(err));
		if (rc != cases[i].rc || !strstr(err, cases[i].err))
			fprintf(stderr, "  case %zu: %d \"%s\"\n", i, rc, err);
		CHECK(rc == cases[i].rc);
		CHECK(strstr(err, cases[i].err) != NULL);
	}
	/* base64 */
	static const char *const bad64[] = {
		"\"A\"",    "\"AAE\"", "\"A=AA\"", "\"AA=A\"", "\"AA==AAAA\"",
		"\"AA*A\"", "1",       "\"AAF=\"", "\"AB==\""
	};
	for (size_t i = 0; i < sizeof(bad64) / sizeof(bad64[0]); i++) {
		char js[128];
		snprintf(js, sizeof(js), "{\"binaryData\":{\"b\":%s}}",
			 bad64[i]);
		CHECK(enc(&pb_configmap, js, &out, err, sizeof(err)) ==
		      -EINVAL);
		CHECK(strstr(err, "binaryData.b") != NULL);
	}
	/* deep nesting in raw JSON: refused past the limit, not crashing */
	size_t depth = 20000;
	struct buf deep = BUF_INIT;
	buf_adds(&deep, "{\"metadata\":{\"managedFields\":[{\"fieldsV1\":");
	for (size_t i = 0; i < depth; i++)
		buf_addc(&deep, '[');
	for (size_t i = 0; i < depth; i++)
		buf_addc(&deep, ']');
	buf_adds(&deep, "}]}}");
	CHECK(pb_encode_msg(&pb_pod, deep.p, deep.len, &out, err,
			    sizeof(err)) == -EINVAL);
	/* the apiserver's limit, counted from the raw value itself: as deep
	 * as it is taken whole, one more refused */
	for (size_t d = LIMIT_JSON_DEPTH; d <= LIMIT_JSON_DEPTH + 1; d++) {
		buf_reset(&deep);
		buf_adds(&deep, "{\"metadata\":{\"managedFields\":[{"
				"\"fieldsV1\":");
		for (size_t i = 0; i < d; i++)
			buf_addc(&deep, '[');
		for (size_t i = 0; i < d; i++)
			buf_addc(&deep, ']');
		buf_adds(&deep, "}]}}");
		CHECK(buf_ok(&deep));
		buf_reset(&out);
		int rc = pb_encode_msg(&pb_pod, deep.p, deep.len, &out, err,
				       sizeof(err));
		if (d == LIMIT_JSON_DEPTH) {
			CHECK(rc == 0);
			/* the raw bytes are in the message as they stand */
			CHECK(out.len > 2 * d &&
			      memmem(out.p, out.len, deep.p + 42, 2 * d));
		} else {
			CHECK(rc == -EINVAL);
			CHECK(strstr(err, "managedFields[0].fieldsV1: nested "
					  "too deep") != NULL);
		}
	}
	buf_free(&deep);
	buf_free(&out);
}

/* Fail each allocation in turn: -ENOMEM every time until it succeeds,
 * and then the bytes are the same as without failures. */
static void test_alloc_failures(void)
{
	size_t jl = 0;
	char *js = slurp(FIXDIR "/05-pod.json", &jl);
	struct buf want = BUF_INIT;
	char err[256];
	int rc = -ENOMEM;

	CHECK(js != NULL);
	if (!js)
		return;
	CHECK(pb_encode_msg(&pb_pod, js, jl, &want, err, sizeof(err)) == 0);
	for (long n = 1; n < 10000 && rc == -ENOMEM; n++) {
		struct buf out = BUF_INIT;
		alloc_fail_after(n);
		rc = pb_encode_msg(&pb_pod, js, jl, &out, err, sizeof(err));
		long failed = alloc_failures();
		alloc_fail_after(0);
		if (rc == -ENOMEM)
			CHECK(failed > 0);
		else
			CHECK(rc == 0 && out.len == want.len &&
			      memcmp(out.p, want.p, want.len) == 0);
		buf_free(&out);
	}
	CHECK(rc == 0);
	buf_free(&want);
	free(js);
}

static void test_frames(void)
{
	struct buf out = BUF_INIT;

	CHECK(pb_encode_envelope("", "APIVersions", "x", 1, &out) == 0);
	CHECK(BYTES_ARE(&out, "k8s\0\x0a\x0f\x0a\x00\x12\x0b"
			      "APIVersions\x12\x01x\x1a\x00\x22\x00"));
	buf_reset(&out);
	CHECK(pb_encode_watch_frame("ADDED", "ab", 2, &out) == 0);
	CHECK(BYTES_ARE(&out, "\x00\x00\x00\x0d\x0a\x05"
			      "ADDED\x12\x04\x0a\x02"
			      "ab"));
	buf_reset(&out);
	CHECK(pb_put_varint(&out, 300) == 0 && BYTES_ARE(&out, "\xac\x02"));
	CHECK(pb_varint_len(0) == 1 && pb_varint_len(127) == 1 &&
	      pb_varint_len(128) == 2 && pb_varint_len(UINT64_MAX) == 10);
	buf_reset(&out);
	CHECK(pb_put_tag(&out, 16, 2) == 0 && BYTES_ARE(&out, "\x82\x01"));
	buf_free(&out);
}

int main(void)
{
	test_fixtures();
	test_kinds_without_fixtures();
	test_discovery_resources();
	test_status_406();
	test_wire_rules();
	test_nested_maps_and_forms();
	test_field_order();
	test_length_room();
	test_failures();
	test_alloc_failures();
	test_frames();
	return check_done("test_pb_encode");
}
