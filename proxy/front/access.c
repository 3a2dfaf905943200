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

void proxy_access_redact(const char *target, char *out, size_t len)
{
	log_redact_url(target, out, len);
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
		      uint64_t sent_before, const char *served_by,
		      const char *user)
{
	if (!log_enabled(2))
		return;
	char path[2048], client[80], st[12] = "-", bytes[24] = "-", m[16];
	proxy_access_redact(target, path, sizeof(path));
	client_of(c, client, sizeof(client));
	if (status)
		snprintf(st, sizeof(st), "%u", status);
	uint64_t now = sent_before ? proxy_access_sent(c) : 0;
	bool known = now >= sent_before && sent_before;
	if (known)
		snprintf(bytes, sizeof(bytes), "%llu",
			 (unsigned long long)(now - sent_before));
	double ms = (double)ns / 1e6;
	proxy_access_redact(method, m, sizeof(m));
	if (!log_json()) { /* as it always read, then the new fields */
		log_kv(2, "info", NULL,
		       LOG_FIELDS(LOG_STR("client", client),
				  LOG_STR("served_by", served_by),
				  LOG_STR("user", user)),
		       "access: %s %s %s bytes=%s ms=%.2f", m, path, st, bytes,
		       ms);
		return;
	}
	/* an unknown status or byte count is left out, not faked */
	const struct log_field *f = LOG_FIELDS(
		LOG_STR("method", m), LOG_STR("path", path),
		LOG_INT("status", status), LOG_INT("bytes", now - sent_before),
		LOG_NUM("duration_ms", ms), LOG_STR("client", client),
		LOG_STR("served_by", served_by), LOG_STR("user", user));
	struct log_field kept[9];
	size_t n = 0;
	for (size_t i = 0; i < 8; i++)
		if ((i != 2 || status) && (i != 3 || known))
			kept[n++] = f[i];
	kept[n] = (struct log_field){ .kind = LOG_F_END };
	log_kv(2, "info", NULL, kept, "access: %s %s %s", m, path, st);
}
