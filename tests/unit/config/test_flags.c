/*
 * test_flags: the flag table: defaults applied from the rows and printed
 * by --help from the same rows, values of every kind, malformed values,
 * and allocation failure while parsing.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "config/alloc.h"
#include "config/flags.h"
#include "config/limits.h"
#include "check.h"

static char err[256];

#define PARSE(cfg, ...)                                                       \
	({                                                                    \
		char *argv_[] = { "informer-proxy", __VA_ARGS__, NULL };      \
		config_flags_parse(cfg,                                       \
				   (int)(sizeof(argv_) / sizeof(*argv_)) - 1, \
				   argv_, err, sizeof(err));                  \
	})

static void test_defaults(void)
{
	struct config c;
	CHECK(PARSE(&c, "--resources", "pods") == 0);
	CHECK_STR(c.listen_host, "127.0.0.1");
	CHECK(c.listen_port == 8001);
	CHECK(c.page_size == 500 && c.history == 10000);
	CHECK(c.upstream_qps == 50 && c.upstream_burst == 100);
	CHECK(c.unix_socket_mode == 0600);
	CHECK(c.max_connections == LIMIT_MAX_CONNECTIONS);
	CHECK(c.header_timeout == LIMIT_HEADER_TIMEOUT_S);
	CHECK(c.request_body_timeout == LIMIT_REQUEST_BODY_TIMEOUT_S);
	CHECK(c.max_request_body == LIMIT_REQUEST_BODY_BYTES);
	CHECK(c.upstream_page_max == (long long)LIMIT_UPSTREAM_PAGE_BYTES);
	CHECK(c.upstream_list_max == (long long)LIMIT_UPSTREAM_LIST_BYTES);
	CHECK(c.log_format == LOG_TEXT && c.client_auth == CLIENT_AUTH_NONE);
	CHECK(c.watch_timeout == 0 && c.threads == 0); /* chosen later */
	CHECK(c.nresources == 1 && !strcmp(c.resources[0], "pods"));
	config_flags_free(&c);
}

/* What config_flags_parse() prints to stdout for argv, as a malloc'd
 * string, and its return code into *rc. */
static char *parse_stdout(char **argv, int argc, int *rc)
{
	char path[] = "/tmp/test_flags.XXXXXX", why[256];
	struct config c;
	int fd = mkstemp(path), saved = dup(STDOUT_FILENO);
	if (fd < 0 || saved < 0)
		return NULL;
	unlink(path);
	fflush(stdout);
	dup2(fd, STDOUT_FILENO);
	*rc = config_flags_parse(&c, argc, argv, why, sizeof(why));
	fflush(stdout);
	dup2(saved, STDOUT_FILENO);
	close(saved);
	config_flags_free(&c);
	off_t n = lseek(fd, 0, SEEK_END);
	char *text = n >= 0 ? malloc((size_t)n + 1) : NULL;
	if (text && pread(fd, text, (size_t)n, 0) != n) {
		free(text);
		text = NULL;
	}
	if (text)
		text[n] = '\0';
	close(fd);
	return text;
}

/* --help tells the defaults the parser applies. */
static void test_usage(void)
{
	char *argv[] = { "informer-proxy", "--help", NULL };
	int rc = 0;
	char *text = parse_stdout(argv, 2, &rc);
	CHECK(rc == 1);
	CHECK(text != NULL);
	if (!text)
		return;
	CHECK(strstr(text,
		     "--page-size              items per upstream LIST page (default 500)\n") !=
	      NULL);
	CHECK(strstr(text,
		     "(default 16384, lowered to what the open-file limit allows)") !=
	      NULL);
	CHECK(strstr(text, "smaller pages (default 256)\n") != NULL); /* MiB */
	CHECK(strstr(text, "octal (default 0600)\n") != NULL);
	CHECK(strstr(text, "(default 127.0.0.1:8001; port 0 picks one)") !=
	      NULL);
	CHECK(strstr(text, "(default 300-600, randomized)") != NULL);
	CHECK(strstr(text,
		     "--strip-managed-fields   drop metadata.managedFields from cached objects\n") !=
	      NULL);
	/* every flag once, each on its own line */
	int lines = 0;
	for (const char *p = text; (p = strstr(p, "\n  --")); p++)
		lines++;
	CHECK(lines == 56);
	CHECK(strstr(text, "informer-proxy --version") != NULL);
	/* --upstream-grace is /readyz/upstream's, never /readyz's */
	const char *grace = strstr(text, "--upstream-grace");
	CHECK(grace && !strncmp(strstr(grace, "seconds "),
				"seconds /readyz/upstream stays 200", 34));
	CHECK(grace &&
	      strstr(grace, "/readyz does not follow the upstream") != NULL);
	CHECK(strstr(text, "--shutdown-grace") != NULL &&
	      strstr(text, "ended (default 10)\n") != NULL);
	free(text);
}

static void test_values(void)
{
	struct config c;
	CHECK(PARSE(&c, "--resources=pods,,deployments.apps", "--listen",
		    "[::1]:0", "--page-size=7", "--strip-managed-fields",
		    "--allow-unauthenticated-remote=false", "-v", "3",
		    "--upstream-line-max-mib", "2", "--unix-socket-mode=0640",
		    "--client-auth=delegated", "--log-format", "json",
		    "--server", "https://k:6443", "--tls-cert-file=c",
		    "--tls-private-key-file=k") == 0);
	CHECK(c.nresources == 2 && !strcmp(c.resources[1], "deployments.apps"));
	CHECK_STR(c.listen_host, "[::1]");
	CHECK(c.listen_port == 0 && c.page_size == 7 && c.verbosity == 3);
	CHECK(c.strip_managed_fields && !c.allow_unauth_remote);
	CHECK(c.upstream_line_max == 2LL << 20);
	CHECK(c.unix_socket_mode == 0640);
	CHECK(c.client_auth == CLIENT_AUTH_DELEGATED &&
	      c.log_format == LOG_JSON);
	CHECK_STR(c.server, "https://k:6443");
	CHECK(c.metrics_listen == NULL); /* off unless asked */
	config_flags_free(&c);
	CHECK(PARSE(&c, "--resources=pods", "--metrics-listen=0.0.0.0:9090",
		    "--metrics-listen", "[::]:9091") == 0);
	CHECK_STR(c.metrics_listen, "[::]:9091");
	config_flags_free(&c);

	/* the last of a repeated flag wins, and nothing leaks */
	CHECK(PARSE(&c, "--resources=pods", "--context=a", "--context=b") == 0);
	CHECK_STR(c.context, "b");
	config_flags_free(&c);
	CHECK(PARSE(&c, "--help") == 1);
	config_flags_free(&c);

	/* the upstream overrides and the drain's grace */
	CHECK(PARSE(&c, "--resources=pods", "--certificate-authority=/ca",
		    "--token-file", "/t", "--shutdown-grace=0") == 0);
	CHECK_STR(c.certificate_authority, "/ca");
	CHECK_STR(c.token_file, "/t");
	CHECK(!c.insecure_skip_tls_verify && c.shutdown_grace == 0);
	config_flags_free(&c);
	CHECK(PARSE(&c, "--resources=pods", "--insecure-skip-tls-verify") == 0);
	CHECK(c.insecure_skip_tls_verify && c.shutdown_grace == 10);
	config_flags_free(&c);
	/* --version prints and stops, whatever else is there */
	CHECK(PARSE(&c, "--version", "--nope") == 1);
	config_flags_free(&c);
}

static void expect_einval(struct config *c, int rc, const char *in_err)
{
	CHECK(rc == -EINVAL);
	if (!strstr(err, in_err)) {
		fprintf(stderr, "  error \"%s\" lacks \"%s\"\n", err, in_err);
		CHECK(0);
	}
	config_flags_free(c);
}

static void test_malformed(void)
{
	struct config c;
	expect_einval(&c, PARSE(&c, "--page-size=0", "--resources=pods"),
		      "--page-size: want a number from 1 to 100000, got \"0\"");
	expect_einval(&c, PARSE(&c, "--page-size=5x", "--resources=pods"),
		      "want a number");
	expect_einval(&c, PARSE(&c, "--page-size=", "--resources=pods"),
		      "want a number");
	expect_einval(&c,
		      PARSE(&c, "--page-size=99999999999999999999",
			    "--resources=pods"),
		      "want a number");
	expect_einval(&c, PARSE(&c, "--resources=pods", "--page-size"),
		      "--page-size needs a value");
	expect_einval(&c, PARSE(&c, "--nope=1"), "unknown flag \"--nope=1\"");
	expect_einval(&c, PARSE(&c, "--page"),
		      "unknown flag"); /* no prefix match */
	expect_einval(&c, PARSE(&c, "pods"), "unexpected argument \"pods\"");
	expect_einval(&c, PARSE(&c, "--listen=8001", "--resources=pods"),
		      "--listen: want HOST:PORT");
	expect_einval(&c, PARSE(&c, "--listen=h:65536", "--resources=pods"),
		      "--listen: want HOST:PORT");
	expect_einval(&c, PARSE(&c, "--listen=:80", "--resources=pods"),
		      "--listen: want HOST:PORT");
	expect_einval(&c,
		      PARSE(&c, "--metrics-listen=9090", "--resources=pods"),
		      "--metrics-listen: want HOST:PORT");
	expect_einval(
		&c, PARSE(&c, "--metrics-listen=0.0.0.0:", "--resources=pods"),
		"--metrics-listen: want HOST:PORT");
	expect_einval(
		&c, PARSE(&c, "--strip-managed-fields=yes", "--resources=pods"),
		"want true or false");
	expect_einval(&c,
		      PARSE(&c, "--unix-socket-mode=0800", "--resources=pods"),
		      "want an octal mode");
	expect_einval(&c, PARSE(&c, "--client-auth=token", "--resources=pods"),
		      "want none or delegated");
	expect_einval(&c, PARSE(&c, "--log-format=xml", "--resources=pods"),
		      "want text or json");
	expect_einval(&c, PARSE(&c, "--server=k:6443", "--resources=pods"),
		      "want an http:// or https:// URL");
	expect_einval(&c, PARSE(&c, "--tls-cert-file=c", "--resources=pods"),
		      "go together");
	expect_einval(&c, PARSE(&c, "--v=1"), "--resources is required");
	expect_einval(&c,
		      PARSE(&c, "--resources=pods",
			    "--insecure-skip-tls-verify",
			    "--certificate-authority=/ca"),
		      "exclude each other");
	expect_einval(&c,
		      PARSE(&c, "--resources=pods", "--shutdown-grace=3601"),
		      "--shutdown-grace: want a number from 0 to 3600");
	expect_einval(
		&c,
		PARSE(&c, "--upstream-page-max-mib=65537", "--resources=pods"),
		"from 1 to 65536");

	char many[CONFIG_MAX_RESOURCES * 4 + 16] = "--resources=";
	for (int i = 0; i <= CONFIG_MAX_RESOURCES; i++)
		strcat(many, "r,");
	expect_einval(&c, PARSE(&c, many), "--resources: at most 64");
}

/* Every allocation of a parse fails in turn: -ENOMEM, nothing leaked
 * (LeakSanitizer checks under make SANITIZE=1). */
/* What a reload names as waiting for a restart: every kind of flag is
 * compared by value, the resources never count. */
static void test_changed(void)
{
	struct config a, b;
	char out[256];
	CHECK(PARSE(&a, "--resources=pods", "--listen=127.0.0.1:8001",
		    "--context=x", "--page-size=7") == 0);
	CHECK(PARSE(&b, "--resources=pods,configmaps",
		    "--listen=127.0.0.1:8001", "--context=x",
		    "--page-size=7") == 0);
	CHECK(config_flags_changed(&a, &b, out, sizeof(out)) == 0);
	CHECK_STR(out, "");
	config_flags_free(&b);

	CHECK(PARSE(&b, "--resources=pods", "--listen=127.0.0.1:8002",
		    "--page-size=8", "--strip-managed-fields",
		    "--upstream-line-max-mib=3", "--client-auth=delegated",
		    "--log-format=json", "--unix-socket-mode=0640",
		    "--token-file=/t") == 0);
	/* context set in a, unset in b; the rest differ by value */
	int n = config_flags_changed(&a, &b, out, sizeof(out));
	CHECK(n == 9);
	CHECK(strstr(out, "context") && strstr(out, "listen") &&
	      strstr(out, "page-size") && strstr(out, "strip-managed-fields") &&
	      strstr(out, "upstream-line-max-mib") &&
	      strstr(out, "client-auth") && strstr(out, "log-format") &&
	      strstr(out, "unix-socket-mode") && strstr(out, "token-file"));
	CHECK(!strstr(out, "resources"));
	/* a short buffer: whole names only, and the count stays right */
	CHECK(config_flags_changed(&a, &b, out, 12) == n);
	CHECK_STR(out, "context");
	CHECK(config_flags_changed(&a, &b, NULL, 0) == n);
	CHECK(config_flags_changed(&b, &a, out, sizeof(out)) == n);
	config_flags_free(&a);
	config_flags_free(&b);
}

static void test_alloc_failure(void)
{
	struct config c;
	int rc = -ENOMEM, n;
	for (n = 1; n < 100; n++) {
		alloc_fail_after(n);
		rc = PARSE(&c, "--resources=pods,configmaps", "--context=x",
			   "--listen=0.0.0.0:1");
		long failed = alloc_failures();
		alloc_fail_after(0);
		config_flags_free(&c);
		if (!failed)
			break;
		CHECK(rc == -ENOMEM);
	}
	CHECK(rc == 0 && n > 4);
}

int main(void)
{
	test_defaults();
	test_usage();
	test_values();
	test_malformed();
	test_changed();
	test_alloc_failure();
	return check_done("flags");
}
