/*
 * mhd_stub: a live libmicrohttpd daemon on 127.0.0.1:0 for unit tests of
 * the handlers, which answer on a struct MHD_Connection, and a small
 * libcurl client to ask it.
 *
 * The daemon runs one internal polling thread with suspend/resume on
 * (watches suspend). Every request goes, on the access handler's first
 * call, to the test's callback, which queues an answer (usually by
 * calling the handler under test). mhd_stub_ask() sends one request and
 * keeps its status, its header block and its body (NUL-terminated).
 */
#ifndef TESTS_MHD_STUB_H
#define TESTS_MHD_STUB_H

#include <arpa/inet.h>
#include <curl/curl.h>
#include <microhttpd.h>
#include <netinet/in.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

typedef enum MHD_Result (*mhd_stub_fn)(void *arg, struct MHD_Connection *c,
				       const char *url, const char *method);

struct mhd_stub {
	struct MHD_Daemon *d;
	int port;
	mhd_stub_fn fn;
	void *arg;
};

struct mhd_reply {
	long status;	 /* 0: no answer (transport error) */
	char head[4096]; /* the header lines as received */
	size_t head_len;
	char *body; /* malloc'd, NUL-terminated */
	size_t len;
};

/* Queue code with a copy of the string body as the answer on c. */
static inline enum MHD_Result mhd_stub_reply(struct MHD_Connection *c,
					     unsigned code, const char *body)
{
	struct MHD_Response *r = MHD_create_response_from_buffer(
		strlen(body), (void *)body, MHD_RESPMEM_MUST_COPY);
	if (!r)
		return MHD_NO;
	enum MHD_Result ret = MHD_queue_response(c, code, r);
	MHD_destroy_response(r);
	return ret;
}

static inline enum MHD_Result
mhd_stub_access(void *cls, struct MHD_Connection *c, const char *url,
		const char *method, const char *version, const char *upload,
		size_t *upload_size, void **state)
{
	struct mhd_stub *s = cls;
	if (*state) /* a later call: a body to skip, or a resumed watch */
		return *upload_size ? (*upload_size = 0, MHD_YES) : MHD_YES;
	*state = s;
	return s->fn(s->arg, c, url, method);
}

/* Start the daemon; fn answers each request. Returns 0 or -1. */
static inline int mhd_stub_start(struct mhd_stub *s, mhd_stub_fn fn, void *arg)
{
	memset(s, 0, sizeof(*s));
	s->fn = fn;
	s->arg = arg;
	struct sockaddr_in a = { .sin_family = AF_INET,
				 .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	s->d = MHD_start_daemon(
		MHD_USE_INTERNAL_POLLING_THREAD | MHD_ALLOW_SUSPEND_RESUME, 0,
		NULL, NULL, mhd_stub_access, s, MHD_OPTION_SOCK_ADDR,
		(struct sockaddr *)&a, MHD_OPTION_END);
	if (!s->d)
		return -1;
	const union MHD_DaemonInfo *i =
		MHD_get_daemon_info(s->d, MHD_DAEMON_INFO_BIND_PORT);
	s->port = i ? i->port : 0;
	return s->port ? 0 : -1;
}

static inline void mhd_stub_stop(struct mhd_stub *s)
{
	if (s->d)
		MHD_stop_daemon(s->d);
	s->d = NULL;
}

static inline size_t mhd_stub_on_body(char *p, size_t sz, size_t n, void *cls)
{
	struct mhd_reply *r = cls;
	char *nb = realloc(r->body, r->len + sz * n + 1);
	if (!nb)
		return 0;
	memcpy(nb + r->len, p, sz * n);
	r->body = nb;
	r->len += sz * n;
	nb[r->len] = '\0';
	return sz * n;
}

static inline size_t mhd_stub_on_head(char *p, size_t sz, size_t n, void *cls)
{
	struct mhd_reply *r = cls;
	size_t k = sz * n;
	if (k > sizeof(r->head) - 1 - r->head_len)
		k = sizeof(r->head) - 1 - r->head_len;
	memcpy(r->head + r->head_len, p, k);
	r->head_len += k;
	r->head[r->head_len] = '\0';
	return sz * n;
}

/* Send method target (path and query, as sent) with the extra header
 * lines hdrs (NULL-terminated, or NULL) and wait at most timeout_ms
 * (0: 10 s). Fills r; returns the CURLcode. */
static inline int mhd_stub_ask(int port, const char *method, const char *target,
			       const char *const *hdrs, long timeout_ms,
			       struct mhd_reply *r)
{
	char url[2048];
	memset(r, 0, sizeof(*r));
	r->body = calloc(1, 1);
	snprintf(url, sizeof(url), "http://127.0.0.1:%d%s", port, target);
	CURL *h = curl_easy_init();
	struct curl_slist *sl = NULL;
	for (int i = 0; hdrs && hdrs[i]; i++)
		sl = curl_slist_append(sl, hdrs[i]);
	curl_easy_setopt(h, CURLOPT_URL, url);
	curl_easy_setopt(h, CURLOPT_CUSTOMREQUEST, method);
	if (!strcmp(method, "HEAD"))
		curl_easy_setopt(h, CURLOPT_NOBODY, 1L);
	curl_easy_setopt(h, CURLOPT_HTTPHEADER, sl);
	curl_easy_setopt(h, CURLOPT_PATH_AS_IS, 1L);
	curl_easy_setopt(h, CURLOPT_NOSIGNAL, 1L);
	curl_easy_setopt(h, CURLOPT_TIMEOUT_MS,
			 timeout_ms ? timeout_ms : 10000L);
	curl_easy_setopt(h, CURLOPT_WRITEFUNCTION, mhd_stub_on_body);
	curl_easy_setopt(h, CURLOPT_WRITEDATA, r);
	curl_easy_setopt(h, CURLOPT_HEADERFUNCTION, mhd_stub_on_head);
	curl_easy_setopt(h, CURLOPT_HEADERDATA, r);
	int rc = (int)curl_easy_perform(h);
	curl_easy_getinfo(h, CURLINFO_RESPONSE_CODE, &r->status);
	curl_easy_cleanup(h);
	curl_slist_free_all(sl);
	return rc;
}

/* GET target with no extra headers. */
static inline int mhd_stub_get(int port, const char *target,
			       struct mhd_reply *r)
{
	return mhd_stub_ask(port, "GET", target, NULL, 0, r);
}

/* The value of header name in r (the last one), copied into out; false
 * when absent. */
static inline bool mhd_reply_header(const struct mhd_reply *r, const char *name,
				    char *out, size_t outlen)
{
	bool found = false;
	size_t n = strlen(name);
	for (const char *l = r->head; l && *l;
	     l = strchr(l, '\n'), l = l ? l + 1 : l) {
		if (strncasecmp(l, name, n) || l[n] != ':')
			continue;
		const char *v = l + n + 1;
		while (*v == ' ')
			v++;
		size_t k = strcspn(v, "\r\n");
		snprintf(out, outlen, "%.*s", (int)k, v);
		found = true;
	}
	return found;
}

static inline void mhd_reply_free(struct mhd_reply *r)
{
	free(r->body);
	r->body = NULL;
}

#endif
