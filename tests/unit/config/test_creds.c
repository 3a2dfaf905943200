/*
 * test_creds: the run-time side of the upstream credentials: the bearer
 * token from a literal or a file that rotates, refusals of empty,
 * oversized and malformed tokens, buffers too small, the startup
 * description that names no secret, and which strings can be a token.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "config/alloc.h"
#include "config/creds.h"
#include "config/source.h"
#include "check.h"
#include "scratch.h"


/* The pod's service account in dir: token and ca.crt (main sets
 * KUBERNETES_SERVICE_HOST, so the in-cluster source is the one chosen). */
static int load(struct config_upstream *up)
{
	char err[256];
	int rc = config_source_resolve(NULL, NULL, NULL, scratch_dir, up, err,
				       sizeof(err));
	if (rc)
		fprintf(stderr, "  %s\n", err);
	return rc;
}

static void test_token_file(void)
{
	struct config_upstream up;
	char tok[64], err[256];
	scratch_put_n("token", "  first-token\n", 14);
	scratch_put_n("ca.crt", "-----BEGIN CERTIFICATE-----\n", 28);
	CHECK(load(&up) == 0);
	CHECK(config_creds_has_token(&up));
	CHECK(config_creds_token_get(&up, tok, sizeof(tok)) == 0);
	CHECK_STR(tok, "first-token");
	CHECK(config_creds_token_get(&up, tok, 5) == -ERANGE && tok[0] == '\0');

	/* rotation: a new size (or inode, or mtime) is read at once */
	scratch_put_n("token", "second-token-longer", 19);
	CHECK(config_creds_token_get(&up, tok, sizeof(tok)) == 0);
	CHECK_STR(tok, "second-token-longer");

	/* a bad file is refused, and the old token never handed out again */
	scratch_put_n("token", " \n\t", 3);
	CHECK(config_creds_token_get(&up, tok, sizeof(tok)) == -EINVAL);
	config_creds_token_explain(&up, err, sizeof(err));
	CHECK(strstr(err, "is empty") != NULL);
	scratch_put_n("token", "has space", 9);
	CHECK(config_creds_token_get(&up, tok, sizeof(tok)) == -EINVAL);
	config_creds_token_explain(&up, err, sizeof(err));
	CHECK(strstr(err, "spaces or control characters") != NULL);
	CHECK(strstr(err, "has space") == NULL); /* no token bytes */
	unlink(scratch_at("token"));
	CHECK(config_creds_token_get(&up, tok, sizeof(tok)) == -ENOENT);
	config_creds_token_explain(&up, err, sizeof(err));
	CHECK(strstr(err, "cannot read") != NULL && tok[0] == '\0');
	char *big = malloc(CONFIG_TOKEN_MAX_BYTES + 2);
	memset(big, 'k', CONFIG_TOKEN_MAX_BYTES + 1);
	scratch_put_n("token", big, CONFIG_TOKEN_MAX_BYTES + 1);
	free(big);
	CHECK(config_creds_token_get(&up, tok, sizeof(tok)) == -EFBIG);
	config_creds_token_explain(&up, err, sizeof(err));
	CHECK(strstr(err, "larger than 64 KiB") != NULL);
	scratch_put_n("token", "back", 4);
	CHECK(config_creds_token_get(&up, tok, sizeof(tok)) == 0);
	CHECK_STR(tok, "back");
	config_creds_token_explain(&up, err, sizeof(err));
	CHECK_STR(err, "");

	/* the description names the file, never the token */
	char line[1024];
	config_creds_describe(&up, line, sizeof(line));
	CHECK(strstr(line, "in-cluster") != NULL);
	CHECK(strstr(line, "bearer token from file") != NULL);
	CHECK(strstr(line, "back") == NULL);
	CHECK(strstr(line, "WARNING") == NULL);
	config_upstream_free(&up);
	config_upstream_free(&up); /* twice is fine */

	/* the token file allocation failing: -ENOMEM, nothing cached */
	CHECK(load(&up) == 0);
	scratch_put_n("token", "after-oom", 9);
	for (int n = 1; n < 10; n++) {
		alloc_fail_after(n);
		int rc = config_creds_token_get(&up, tok, sizeof(tok));
		long failed = alloc_failures();
		alloc_fail_after(0);
		if (!failed) {
			CHECK(rc == 0 && !strcmp(tok, "after-oom"));
			break;
		}
		CHECK(rc == -ENOMEM && tok[0] == '\0');
	}
	config_upstream_free(&up);
}

static void test_literal_and_none(void)
{
	struct config_upstream up = { 0 };
	char tok[16] = "x", err[64] = "x";
	CHECK(!config_creds_has_token(&up));
	CHECK(config_creds_token_get(&up, tok, sizeof(tok)) == -ENOENT);
	config_creds_token_explain(&up, err, sizeof(err));
	CHECK_STR(err, "");
	up.token = "lit";
	CHECK(config_creds_token_get(&up, tok, sizeof(tok)) == 0);
	CHECK_STR(tok, "lit");
	CHECK(config_creds_token_get(&up, tok, 3) == -ERANGE);

	up.server = "http://10.0.0.1:8080";
	up.source = "--server";
	char line[512];
	config_creds_describe(&up, line, sizeof(line));
	CHECK(strstr(line, "CA: none (plain http)") != NULL);
	CHECK(strstr(line, "the token is sent over plain http") != NULL);
	CHECK(strstr(line, "lit") == NULL);
	up.server = "https://10.0.0.1";
	up.insecure_skip_tls_verify = true;
	config_creds_describe(&up, line, sizeof(line));
	CHECK(strstr(line, "WARNING: insecure-skip-tls-verify") != NULL);

	CHECK(config_creds_token_valid("abc.DEF-_~"));
	CHECK(!config_creds_token_valid("a b"));
	CHECK(!config_creds_token_valid("a\x7f"));
	CHECK(!config_creds_token_valid("a\n"));
}

int main(void)
{
	scratch_make("creds");
	setenv("KUBERNETES_SERVICE_HOST", "10.0.0.1", 1);
	setenv("KUBERNETES_SERVICE_PORT", "443", 1);
	test_token_file();
	test_literal_and_none();
	scratch_remove();
	return check_done("creds");
}
