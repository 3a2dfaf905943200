/*
 * static_server: the reference for B1 and B2 of `make bench`.
 *
 * The smallest libmicrohttpd server that can answer a request: the same
 * bytes for every GET, from one response object built at start and
 * shared by every request, on the same daemon mode the proxy uses
 * (epoll, a pool of one thread per CPU). Whatever the proxy spends above
 * this on a LIST or a GET of the same bytes is its own cost.
 *
 *   static_server --listen 127.0.0.1:0 --body FILE [--threads N]
 *
 * Logs "listening on http://HOST:PORT" once the socket is open; exits on
 * SIGTERM or SIGINT.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <microhttpd.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static struct MHD_Response *resp;

static enum MHD_Result on_request(void *cls, struct MHD_Connection *c,
				  const char *url, const char *method,
				  const char *version, const char *upload,
				  size_t *upload_len, void **ctx)
{
	static int seen;

	(void)cls, (void)url, (void)version, (void)upload, (void)upload_len;
	if (strcmp(method, "GET") && strcmp(method, "HEAD"))
		return MHD_NO;
	/* Answer on the second call, once the request is fully read: a
	 * response queued on the first one makes MHD close the connection. */
	if (!*ctx) {
		*ctx = &seen;
		return MHD_YES;
	}
	return MHD_queue_response(c, MHD_HTTP_OK, resp);
}

/* Read a whole file; returns 0 or -errno. */
static int slurp(const char *path, char **out, size_t *len)
{
	FILE *f = fopen(path, "rb");
	char *p = NULL;
	size_t n = 0, cap = 0;
	int rc = 0;

	if (!f)
		return -errno;
	for (;;) {
		if (n == cap) {
			cap = cap ? cap * 2 : 1 << 16;
			char *q = realloc(p, cap);
			if (!q) {
				rc = -ENOMEM;
				goto out;
			}
			p = q;
		}
		size_t k = fread(p + n, 1, cap - n, f);
		if (!k)
			break;
		n += k;
	}
	*out = p;
	*len = n;
	p = NULL;
out:
	free(p);
	fclose(f);
	return rc;
}

int main(int argc, char **argv)
{
	const char *listen = "127.0.0.1:0", *body_path = NULL;
	unsigned threads = (unsigned)sysconf(_SC_NPROCESSORS_ONLN);
	char host[64], *body = NULL;
	size_t len = 0;
	sigset_t set;
	int sig;

	for (int i = 1; i + 1 < argc; i += 2) {
		if (!strcmp(argv[i], "--listen"))
			listen = argv[i + 1];
		else if (!strcmp(argv[i], "--body"))
			body_path = argv[i + 1];
		else if (!strcmp(argv[i], "--threads"))
			threads = (unsigned)atoi(argv[i + 1]);
	}
	const char *colon = strrchr(listen, ':');
	if (!body_path || !colon || (size_t)(colon - listen) >= sizeof(host)) {
		fprintf(stderr,
			"usage: static_server --listen HOST:PORT --body FILE "
			"[--threads N]\n");
		return 2;
	}
	memcpy(host, listen, (size_t)(colon - listen));
	host[colon - listen] = '\0';
	if (slurp(body_path, &body, &len)) {
		fprintf(stderr, "static_server: cannot read %s\n", body_path);
		return 1;
	}
	resp = MHD_create_response_from_buffer(len, body,
					       MHD_RESPMEM_PERSISTENT);
	MHD_add_response_header(resp, "Content-Type", "application/json");

	sigemptyset(&set);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGINT);
	pthread_sigmask(SIG_BLOCK, &set, NULL);

	struct sockaddr_in sa = { .sin_family = AF_INET,
				  .sin_port =
					  htons((uint16_t)atoi(colon + 1)) };
	inet_pton(AF_INET, host, &sa.sin_addr);
	struct MHD_Daemon *d = MHD_start_daemon(
		MHD_USE_EPOLL_INTERNAL_THREAD, 0, NULL, NULL, on_request, NULL,
		MHD_OPTION_SOCK_ADDR, (struct sockaddr *)&sa,
		MHD_OPTION_THREAD_POOL_SIZE, threads ? threads : 1u,
		MHD_OPTION_CONNECTION_LIMIT, 10000u, MHD_OPTION_END);
	if (!d) {
		fprintf(stderr, "static_server: cannot listen on %s\n", listen);
		return 1;
	}
	const union MHD_DaemonInfo *di =
		MHD_get_daemon_info(d, MHD_DAEMON_INFO_BIND_PORT);
	printf("listening on http://%s:%u\n", host, di ? di->port : 0);
	fflush(stdout);
	sigwait(&set, &sig);
	MHD_stop_daemon(d);
	MHD_destroy_response(resp);
	free(body);
	return 0;
}
