/*
 * test_main: what the program's entry file decides on its own: the exec
 * health probe's exit status, the one line that says why a resource
 * cannot sync (and whether retrying can help), and the descriptor limit
 * raised at start. proxy/main.c is compiled in here with its main()
 * renamed; starting the whole program is the end-to-end tests' part.
 */
#define main informer_proxy_main
#include "proxy/main.c"
#undef main

#include "check.h"
#include "http_stub.h"

static void test_probe(void)
{
	struct http_stub_route routes[] = {
		{ .match = "HEAD /readyz ",
		  .response = "HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n" },
		{ .match = "HEAD /livez ",
		  .response = "HTTP/1.1 503 Service Unavailable\r\n"
			      "Content-Length: 0\r\n\r\n" },
		{ .match = "HEAD /slow ", .response = "", .hold = true },
	};
	struct http_stub s;
	CHECK(http_stub_start(&s, routes, 3) == 0);
	char url[96];
	snprintf(url, sizeof(url), "http://127.0.0.1:%d/readyz", s.port);
	CHECK(probe(url) == 0);
	snprintf(url, sizeof(url), "http://127.0.0.1:%d/livez", s.port);
	CHECK(probe(url) == 1);
	/* no answer within its 2 s: unhealthy, not a hung kubelet exec */
	snprintf(url, sizeof(url), "http://127.0.0.1:%d/slow", s.port);
	CHECK(probe(url) == 1);
	http_stub_stop(&s);
	/* nothing listens there any more */
	snprintf(url, sizeof(url), "http://127.0.0.1:%d/readyz", s.port);
	CHECK(probe(url) == 1);
}

static int classify_as(const char *spec, int curl_rc, long http, char *msg,
		       size_t len)
{
	struct cache_upstream up = { .server = "https://10.0.0.1:6443" };
	struct cache_resource r = { .kind = cache_kind_lookup(spec) };
	r.last_curl_error = curl_rc;
	r.last_http_status = http;
	msg[0] = '\0';
	return classify(&up, &r, msg, len);
}

static void test_classify(void)
{
	char m[512];
	/* a LIST cut at its byte budget is not a network error */
	{
		struct cache_upstream up = { .server = "http://127.0.0.1:1",
					     .list_max = (size_t)64 << 20 };
		struct cache_resource r = { .kind = cache_kind_lookup("pods") };
		r.last_curl_error = CURLE_WRITE_ERROR;
		r.list_over = true;
		CHECK(classify(&up, &r, m, sizeof(m)) == -EACCES);
		CHECK(strstr(m, "--upstream-list-max-mib (64 MiB)") &&
		      strstr(m, "pods"));
		up.list_max = 0; /* the default */
		CHECK(classify(&up, &r, m, sizeof(m)) == -EACCES &&
		      strstr(m, "(4096 MiB)"));
	}
	CHECK(classify_as("pods", CURLE_OK, 0, m, sizeof(m)) == 0 && !m[0]);
	CHECK(classify_as("pods", CURLE_OK, 200, m, sizeof(m)) == 0 && !m[0]);
	/* what retrying cannot fix; the second look at the certificate
	 * finds nothing listening, so the first failure is what is said */
	{
		struct cache_upstream up = { .server = "https://127.0.0.1:1" };
		struct cache_resource r = { .kind = cache_kind_lookup("pods") };
		r.last_curl_error = CURLE_PEER_FAILED_VERIFICATION;
		CHECK(classify(&up, &r, m, sizeof(m)) == -EACCES);
		CHECK(strstr(m,
			     "cannot verify the upstream https://127.0.0.1:1 "
			     "over TLS (SSL peer certificate") &&
		      strstr(m, "certificate-authority"));
		if (!strstr(m, "SSL peer certificate"))
			fprintf(stderr, "got \"%s\"\n", m);
	}
	CHECK(classify_as("pods", CURLE_OK, 401, m, sizeof(m)) == -EACCES);
	CHECK(strstr(m, "rejected the credentials (401 Unauthorized)") != NULL);
	CHECK(classify_as("deployments.apps", CURLE_OK, 403, m, sizeof(m)) ==
	      -EACCES);
	CHECK(strstr(m,
		     "refused to list deployments (403 Forbidden): grant get, "
		     "list and watch on deployments.apps to this identity") !=
	      NULL);
	CHECK(classify_as("pods", CURLE_OK, 403, m, sizeof(m)) == -EACCES);
	CHECK(strstr(m, "watch on pods to this identity") != NULL);
	CHECK(classify_as("pods", CURLE_OK, 404, m, sizeof(m)) == -EACCES);
	CHECK_STR(
		m,
		"the upstream https://10.0.0.1:6443 does not serve pods (404)");
	/* what it may */
	CHECK(classify_as("pods", CURLE_COULDNT_CONNECT, 0, m, sizeof(m)) ==
	      -EAGAIN);
	CHECK(strstr(m, "cannot reach the upstream https://10.0.0.1:6443") !=
	      NULL);
	CHECK(classify_as("pods", CURLE_OK, 503, m, sizeof(m)) == -EAGAIN);
	CHECK_STR(
		m,
		"the upstream https://10.0.0.1:6443 answered 503 to a LIST of pods");
	/* a short buffer is cut, never overrun */
	char tiny[8];
	CHECK(classify_as("pods", CURLE_OK, 401, tiny, sizeof(tiny)) ==
		      -EACCES &&
	      strlen(tiny) == sizeof(tiny) - 1);
}

static void test_raise_nofile(void)
{
	struct rlimit was;
	CHECK(getrlimit(RLIMIT_NOFILE, &was) == 0);
	if (was.rlim_max < 64 || was.rlim_max == RLIM_INFINITY) {
		CHECK(raise_nofile() == -1 || raise_nofile() > 0);
		return;
	}
	struct rlimit low = { 64, was.rlim_max };
	CHECK(setrlimit(RLIMIT_NOFILE, &low) == 0);
	/* the soft limit goes up to the hard one, and that is what counts */
	CHECK(raise_nofile() == (long)was.rlim_max);
	struct rlimit now;
	CHECK(getrlimit(RLIMIT_NOFILE, &now) == 0 &&
	      now.rlim_cur == was.rlim_max);
	/* already there: left alone */
	CHECK(raise_nofile() == (long)was.rlim_max);
	setrlimit(RLIMIT_NOFILE, &was);
}

int main(void)
{
	log_setup(LOG_TEXT, 0, "test_main");
	test_classify();
	test_raise_nofile();
	test_probe();
	return check_done("main");
}
