/*
 * fuzz pb_roundtrip: the encoder (pb_encode_doc()) against the fake's
 * decoder (fake_proto_decode()): decode(encode(json)) = json.
 *
 * The input is a JSON document naming its kind (the seeds are the real
 * apiserver's objects of tests/fixtures/protobuf, and libFuzzer mutates
 * them: members dropped, values changed, types swapped).
 *
 * Invariants beyond "no crash" (and no leak, under ASan):
 *   - an encoding refused says why, as -ENOENT (a member the schema does
 *     not know, or a kind it has none for), -EINVAL or -ENOMEM;
 *   - a body the encoder writes, the decoder takes (but for a NUL in a
 *     map key and invalid UTF-8 in raw JSON, which jansson refuses), and
 *     it decodes to the
 *     input (pb_canon.h: up to what the wire cannot tell apart) whenever
 *     jansson reads the input the same way (valid UTF-8, integers in
 *     range);
 *   - encoding what was decoded gives the same bytes once the raw JSON
 *     members are written as jansson writes them (a fixed point).
 */
#include <jansson.h>

#include "cache/pb_encode.h"
#include "cache/pb_kinds.h"
#include "config/buf.h"
#include "tests/fake-apiserver/fake_proto.h"
#include "tests/fuzz/fuzz.h"
#include "tests/fuzz/pb_canon.h"

static int encode(json_t *obj, struct buf *out, char *err, size_t errlen)
{
	char *js = json_dumps(obj, JSON_COMPACT | JSON_ENCODE_ANY);
	int rc;
	if (!js)
		return -ENOMEM;
	rc = pb_encode_doc(js, strlen(js), out, err, errlen);
	free(js);
	return rc;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char err[512] = "";
	struct buf e1 = BUF_INIT, e2 = BUF_INIT, e3 = BUF_INIT;
	json_t *in = NULL, *d1 = NULL, *d2 = NULL;
	int rc = pb_encode_doc((const char *)data, size, &e1, err, sizeof(err));

	if (rc) {
		FUZZ_CHECK(rc == -ENOENT || rc == -EINVAL || rc == -ENOMEM);
		FUZZ_CHECK(rc == -ENOMEM || err[0] != '\0');
		goto out;
	}
	/* the decoder knows the kinds of the registry (a list or Status
	 * only when the registry holds them) */
	in = json_loadb((const char *)data, size, 0, NULL);
	const char *kind = json_string_value(json_object_get(in, "kind"));
	const char *av = json_string_value(json_object_get(in, "apiVersion"));
	if (in && (!kind || !av || !pb_kinds_find(av, kind)))
		goto out;
	d1 = fake_proto_decode(e1.p, e1.len, err, sizeof(err));
	/* jansson's keys are C strings: the decoder refuses a NUL in one;
	 * and raw JSON (FieldsV1) keeps invalid UTF-8, which it refuses */
	if (!d1 && (fuzz_has(data, size, "\\u0000") || !in))
		goto out;
	if (!d1)
		fprintf(stderr, "decode: %s\n", err);
	FUZZ_CHECK(d1 != NULL);
	if (in)
		FUZZ_CHECK(pb_canon_equal(in, d1));
	rc = encode(d1, &e2, err, sizeof(err));
	if (rc && rc != -ENOMEM)
		fprintf(stderr, "encoding what was decoded: %d %s\n", rc, err);
	FUZZ_CHECK(rc == 0 || rc == -ENOMEM);
	if (rc)
		goto out;
	d2 = fake_proto_decode(e2.p, e2.len, err, sizeof(err));
	FUZZ_CHECK(d2 != NULL);
	FUZZ_CHECK(pb_canon_equal(d1, d2));
	if (encode(d2, &e3, err, sizeof(err)) == 0)
		FUZZ_CHECK(e2.len == e3.len && !memcmp(e2.p, e3.p, e2.len));
out:
	json_decref(in);
	json_decref(d1);
	json_decref(d2);
	buf_free(&e1);
	buf_free(&e2);
	buf_free(&e3);
	return 0;
}
