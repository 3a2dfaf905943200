/*
 * fuzz pb_decode: the fake apiserver's protobuf decoder
 * (fake_proto_decode()) on hostile bodies, and the encoder
 * (pb_encode_doc()) on what it decodes.
 *
 * The input is a request body: "k8s\0", runtime.Unknown, a message.
 *
 * Invariants beyond "no crash" (and no leak, under ASan):
 *   - a refused body says why; an accepted one is a JSON object whose
 *     kind and apiVersion are strings naming a kind of the schema;
 *   - what the decoder gives, the encoder takes: encoding it succeeds,
 *     and decoding that gives the same object (pb_canon.h: up to what
 *     the wire cannot tell apart);
 *   - after one round, encoding and decoding again gives the same bytes
 *     (a fixed point; the first round may differ where the decoder reads
 *     the wire differently from Go, see pb_canon.h).
 */
#include <jansson.h>

#include "cache/pb_encode.h"
#include "cache/pb_kinds.h"
#include "config/buf.h"
#include "tests/fake-apiserver/fake_proto.h"
#include "tests/fuzz/fuzz.h"
#include "tests/fuzz/pb_canon.h"

/* The JSON of obj encoded as a whole body into out. */
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
	struct buf e1 = BUF_INIT, e2 = BUF_INIT;
	json_t *d1 = fake_proto_decode(data, size, err, sizeof(err)), *d2;
	int rc;

	if (!d1) {
		FUZZ_CHECK(err[0] != '\0');
		return 0;
	}
	FUZZ_CHECK(json_is_object(d1));
	const char *kind = json_string_value(json_object_get(d1, "kind"));
	const char *av = json_string_value(json_object_get(d1, "apiVersion"));
	FUZZ_CHECK(kind && av);
	FUZZ_CHECK(pb_kinds_find(av, kind) != NULL);

	rc = encode(d1, &e1, err, sizeof(err));
	if (rc == -ENOMEM)
		goto out;
	if (rc)
		fprintf(stderr, "encode: %d %s\n", rc, err);
	FUZZ_CHECK(rc == 0);
	d2 = fake_proto_decode(e1.p, e1.len, err, sizeof(err));
	if (!d2)
		fprintf(stderr, "decode of the encoding: %s\n", err);
	FUZZ_CHECK(d2 != NULL);
	FUZZ_CHECK(pb_canon_equal(d1, d2));
	rc = encode(d2, &e2, err, sizeof(err));
	FUZZ_CHECK(rc == 0 || rc == -ENOMEM);
	if (!rc) { /* one more round: the same bytes */
		struct buf e3 = BUF_INIT;
		json_t *d3 = fake_proto_decode(e2.p, e2.len, err, sizeof(err));
		FUZZ_CHECK(d3 != NULL);
		rc = encode(d3, &e3, err, sizeof(err));
		FUZZ_CHECK(rc == 0 || rc == -ENOMEM);
		if (!rc)
			FUZZ_CHECK(e2.len == e3.len &&
				   !memcmp(e2.p, e3.p, e2.len));
		json_decref(d3);
		buf_free(&e3);
	}
	json_decref(d2);
out:
	json_decref(d1);
	buf_free(&e1);
	buf_free(&e2);
	return 0;
}
