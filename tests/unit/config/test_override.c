/*
 * test_override: --certificate-authority, --insecure-skip-tls-verify and
 * --token-file over a loaded upstream (and their refusals), and the
 * SIGHUP reload: a new literal token swapped in, a token file re-read at
 * once (another path followed), what cannot change named for a restart,
 * a token file gone reported; never a token in a message.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "config/creds.h"
#include "config/kubeconfig.h"
#include "config/override.h"
#include "check.h"
#include "scratch.h"


/* A kubeconfig for server with a literal token or a token file. */
static int load(struct config_upstream *up, const char *server,
		const char *user)
{
	char text[1024], err[256];
	snprintf(text, sizeof(text),
		 "apiVersion: v1\nkind: Config\ncurrent-context: c\n"
		 "clusters:\n- name: k\n  cluster:\n    server: %s\n"
		 "users:\n- name: u\n  user:\n    %s\n"
		 "contexts:\n- name: c\n  context: {cluster: k, user: u}\n",
		 server, user);
	scratch_put("kubeconfig", text);
	int rc = config_kubeconfig_load(scratch_at("kubeconfig"), NULL, true,
					up, err, sizeof(err));
	if (rc)
		fprintf(stderr, "  %s\n", err);
	return rc;
}

static void token_is(struct config_upstream *up, const char *want)
{
	char tok[128];
	CHECK(config_creds_token_get(up, tok, sizeof(tok)) == 0);
	CHECK_STR(tok, want);
}

static void test_override(void)
{
	struct config_upstream up;
	char err[512];
	scratch_put("ca.crt", "-----BEGIN CERTIFICATE-----\n");
	scratch_put("tok", "from-flag\n");
	CHECK(load(&up, "https://k:6443", "token: from-kubeconfig") == 0);
	CHECK(config_override_apply(&up, scratch_at("ca.crt"), false,
				    scratch_at("tok"), err, sizeof(err)) == 0);
	CHECK_STR(up.ca.path, scratch_at("ca.crt"));
	CHECK(!up.token && up.token_file);
	token_is(&up, "from-flag");
	CHECK(strstr(up.source, "CA from --certificate-authority, token from "
				"--token-file") != NULL);
	CHECK(config_override_apply(&up, NULL, true, NULL, err, sizeof(err)) ==
	      0);
	CHECK(up.insecure_skip_tls_verify && !up.ca.path && !up.ca.data);
	/* refusals leave a struct that frees cleanly */
	CHECK(config_override_apply(&up, scratch_at("ca.crt"), true, NULL, err,
				    sizeof(err)) == -EINVAL);
	CHECK(strstr(err, "exclude each other") != NULL);
	CHECK(config_override_apply(&up, scratch_at("nope"), false, NULL, err,
				    sizeof(err)) == -ENOENT);
	CHECK(strstr(err, "--certificate-authority") != NULL &&
	      strstr(err, "No such file") != NULL);
	scratch_put("empty", "");
	CHECK(config_override_apply(&up, NULL, false, scratch_at("empty"), err,
				    sizeof(err)) == -EINVAL);
	CHECK(strstr(err, "is empty") != NULL);
	config_upstream_free(&up);
}

static void test_reload(void)
{
	struct config_upstream live, fresh;
	char msg[1024];
	/* a new literal token is swapped in */
	CHECK(load(&live, "https://k:6443", "token: old-secret") == 0);
	CHECK(load(&fresh, "https://k:6443", "token: new-secret") == 0);
	CHECK(config_override_reload(&live, &fresh, msg, sizeof(msg)) == 0);
	CHECK_STR(msg, "new token");
	token_is(&live, "new-secret");
	CHECK(!strstr(msg, "secret"));
	/* the same: said so */
	CHECK(load(&fresh, "https://k:6443", "token: new-secret") == 0);
	CHECK(config_override_reload(&live, &fresh, msg, sizeof(msg)) == 0);
	CHECK_STR(msg, "token unchanged");
	/* another server and another kind of credential: named, not applied */
	scratch_put("t1", "file-one");
	char user[300];
	snprintf(user, sizeof(user), "tokenFile: %s", scratch_at("t1"));
	CHECK(load(&fresh, "https://other:6443", user) == 0);
	CHECK(config_override_reload(&live, &fresh, msg, sizeof(msg)) == 0);
	CHECK_STR(msg, "; changed but not applied (restart to apply): "
		       "server, kind of credential");
	CHECK_STR(live.server, "https://k:6443");
	token_is(&live, "new-secret");
	config_upstream_free(&live);

	/* a token file: re-read now, though stat() sees no change */
	CHECK(load(&live, "https://k:6443", user) == 0);
	token_is(&live, "file-one");
	CHECK(load(&fresh, "https://k:6443", user) == 0);
	CHECK(config_override_reload(&live, &fresh, msg, sizeof(msg)) == 0);
	CHECK(strstr(msg, "re-read") != NULL);
	/* another path is followed */
	scratch_put("t2", "file-two");
	snprintf(user, sizeof(user), "tokenFile: %s", scratch_at("t2"));
	CHECK(load(&fresh, "https://k:6443", user) == 0);
	CHECK(config_override_reload(&live, &fresh, msg, sizeof(msg)) == 0);
	token_is(&live, "file-two");
	CHECK_STR(live.token_file, scratch_at("t2"));
	/* gone by the time of the reload: an error, and no token handed out */
	CHECK(load(&fresh, "https://k:6443", user) == 0);
	unlink(scratch_at("t2"));
	CHECK(config_override_reload(&live, &fresh, msg, sizeof(msg)) ==
	      -ENOENT);
	CHECK(strstr(msg, "cannot read") != NULL);
	char tok[64];
	CHECK(config_creds_token_get(&live, tok, sizeof(tok)) != 0);
	config_upstream_free(&live);
}

int main(void)
{
	scratch_make("override");
	test_override();
	test_reload();
	scratch_remove();
	return check_done("override");
}
