/*
 * access: the -v 2 access log (see access.h).
 */
#include "proxy/front/access.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <linux/tcp.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>

#include "config/log.h"

/* The query parameters of the Kubernetes API (and kubectl's), whose
 * values carry no secret and help a reader. Not exec's command: a
 * command line may well hold a password. */
static const char *const known[] = {
	"allowWatchBookmarks",
	"container",
	"continue",
	"dryRun",
	"fieldManager",
	"fieldSelector",
	"fieldValidation",
	"follow",
	"force",
	"gracePeriodSeconds",
	"labelSelector",
	"limit",
	"limitBytes",
	"orphanDependents",
	"pretty",
	"previous",
	"propagationPolicy",
	"resourceVersion",
	"resourceVersionMatch",
	"sendInitialEvents",
	"sinceSeconds",
	"sinceTime",
	"tailLines",
	"timeout",
	"timeoutSeconds",
	"timestamps",
	"watch",
	"stdin",
	"stdout",
	"stderr",
	"tty",
	"ports",
};

static bool is_known(const char *k, size_t n)
{
	for (size_t i = 0; i < sizeof(known) / sizeof(*known); i++)
		if (strlen(known[i]) == n && !strncmp(known[i], k, n))
			return true;
	return false;
}

/* Append s[0..n) to out at *w, printable ASCII as is, the rest %XX. */
static void put(char *out, size_t len, size_t *w, const char *s, size_t n)
{
	static const char hex[] = "0123456789ABCDEF";
	for (size_t i = 0; i < n && *w + 4 < len; i++) {
		unsigned char c = (unsigned char)s[i];
		if (c > 0x20 && c < 0x7f && c != '"') {
			out[(*w)++] = (char)c;
		} else {
			out[(*w)++] = '%';
			out[(*w)++] = hex[c >> 4];
			out[(*w)++] = hex[c & 15];
		}
	}
	out[*w] = '\0';
}

void proxy_access_redact(const char *target, char *out, size_t len)
{
	size_t w = 0;
	if (!len)
		return;
	out[0] = '\0';
	const char *q = strchr(target, '?');
	put(out, len, &w, target, q ? (size_t)(q - target) : strlen(target));
	if (!q)
		return;
	put(out, len, &w, "?", 1);
	for (const char *p = q + 1; *p;) {
		size_t n = strcspn(p, "&");
		size_t k = strcspn(p, "=&");
		/* an unknown name may itself be the secret ("?s3cr3t") */
		if (is_known(p, k))
			put(out, len, &w, p, n); /* name and value */
		else if (n)
			put(out, len, &w, "REDACTED", 8); /* all of it */
		p += n;
		if (*p == '&') {
			put(out, len, &w, "&", 1);
			p++;
		}
	}
}

uint64_t proxy_access_sent(struct MHD_Connection *c)
{
	if (!log_enabled(2))
		return 0;
	const union MHD_ConnectionInfo *ci =
		MHD_get_connection_info(c, MHD_CONNECTION_INFO_CONNECTION_FD);
	struct tcp_info ti;
	socklen_t sl = sizeof(ti);
	memset(&ti, 0, sizeof(ti));
	if (!ci || getsockopt(ci->connect_fd, IPPROTO_TCP, TCP_INFO, &ti, &sl))
		return 0;
	/* tcpi_bytes_sent (Linux 4.19) is past the fields older kernels
	 * fill: a short answer leaves it 0, and the line says "-" */
	if (sl < offsetof(struct tcp_info, tcpi_bytes_sent) +
			 sizeof(ti.tcpi_bytes_sent))
		return 0;
	return ti.tcpi_bytes_sent + 1; /* 0 stays "unknown" */
}

static void client_of(struct MHD_Connection *c, char *out, size_t len)
{
	const union MHD_ConnectionInfo *ci =
		MHD_get_connection_info(c, MHD_CONNECTION_INFO_CLIENT_ADDRESS);
	const struct sockaddr *sa = ci ? ci->client_addr : NULL;
	char host[INET6_ADDRSTRLEN] = "";
	if (sa && sa->sa_family == AF_INET) {
		const struct sockaddr_in *in = (const void *)sa;
		inet_ntop(AF_INET, &in->sin_addr, host, sizeof(host));
		snprintf(out, len, "%s:%u", host, ntohs(in->sin_port));
	} else if (sa && sa->sa_family == AF_INET6) {
		const struct sockaddr_in6 *in = (const void *)sa;
		inet_ntop(AF_INET6, &in->sin6_addr, host, sizeof(host));
		snprintf(out, len, "[%s]:%u", host, ntohs(in->sin6_port));
	} else {
		snprintf(out, len, "unix");
	}
}

void proxy_access_log(struct MHD_Connection *c, const char *method,
		      const char *target, unsigned status, int64_t ns,
		      uint64_t sent_before)
{
	if (!log_enabled(2))
		return;
	char path[2048], client[80], st[12] = "-", bytes[24] = "-";
	proxy_access_redact(target, path, sizeof(path));
	client_of(c, client, sizeof(client));
	if (status)
		snprintf(st, sizeof(st), "%u", status);
	uint64_t now = sent_before ? proxy_access_sent(c) : 0;
	if (now >= sent_before && sent_before)
		snprintf(bytes, sizeof(bytes), "%llu",
			 (unsigned long long)(now - sent_before));
	char m[16];
	size_t w = 0;
	put(m, sizeof(m), &w, method, strlen(method));
	log_msg(2, "info", "access: %s %s %s bytes=%s ms=%.2f client=%s", m,
		path, st, bytes, (double)ns / 1e6, client);
}
