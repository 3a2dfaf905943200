/*
 * fuzz continue_token: the continue token a client hands back
 * (proxy_continue_decode), the way a paged LIST reads it.
 *
 * The input is the token as sent, once URL-decoded.
 *
 * Invariants beyond "no crash":
 *   - an error always says something;
 *   - a token that decodes names a non-empty name, and ns and name fit
 *     the buffers a LIST gives them;
 *   - encoding what was decoded and decoding that gives the same rv,
 *     namespace and name (the proxy's own tokens round-trip). Only for
 *     names without '/': no object has one, and a crafted token
 *     "/a/b" (namespace "", name "a/b") is read back as "a/b".
 */
#include <errno.h>

#include "config/buf.h"
#include "proxy/continue.h"
#include "tests/fuzz/fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *tok = fuzz_cstr(data, size);
	if (!tok)
		return 0;
	/* the buffers proxy/list.c passes */
	char ns[254], name[254], err[512];
	uint64_t rv = 0;
	int rc = proxy_continue_decode(tok, &rv, ns, sizeof(ns), name,
				       sizeof(name), err, sizeof(err));
	FUZZ_CHECK(rc == 0 || rc == -EINVAL);
	if (rc) {
		FUZZ_CHECK(err[0]);
		goto out;
	}
	FUZZ_CHECK(name[0] && strlen(name) < sizeof(name) &&
		   strlen(ns) < sizeof(ns));
	if (strchr(name, '/'))
		goto out;
	struct buf again = BUF_INIT;
	proxy_continue_encode(&again, rv, ns, name);
	FUZZ_CHECK(again.p);
	char ns2[254], name2[254];
	uint64_t rv2 = 0;
	rc = proxy_continue_decode(again.p, &rv2, ns2, sizeof(ns2), name2,
				   sizeof(name2), err, sizeof(err));
	if (rc)
		fprintf(stderr, "re-encoded token refused: %s\n", err);
	FUZZ_CHECK(rc == 0);
	FUZZ_CHECK(rv2 == rv && !strcmp(ns2, ns) && !strcmp(name2, name));
	buf_free(&again);
out:
	free(tok);
	return 0;
}
