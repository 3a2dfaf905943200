/*
 * listen: where the proxy listens, and who may reach it (see listen.h).
 */
#include "proxy/front/listen.h"

#include <arpa/inet.h>
#include <ctype.h>
#include <errno.h>
#include <netdb.h>
#include <stdio.h>
#include <string.h>
#include <fcntl.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include "config/log.h"

/* A DNS name: letters, digits, '-' and '.', with at least one letter
 * (so "256.0.0.1" stays a bad IPv4 address, never a lookup). */
static bool hostname(const char *h)
{
	bool letter = false;
	if (!*h || strlen(h) > 253)
		return false;
	for (; *h; h++) {
		if (isalpha((unsigned char)*h))
			letter = true;
		else if (!isdigit((unsigned char)*h) && *h != '-' && *h != '.')
			return false;
	}
	return letter;
}

/* host's first IPv4 address, else its first IPv6 one, as Go's
 * net.Listen picks for "localhost:8001". */
static int resolve(const char *host, int port, struct sockaddr_storage *ss,
		   char *err, size_t errlen)
{
	struct addrinfo hints = { .ai_socktype = SOCK_STREAM }, *res = NULL;
	int rc = getaddrinfo(host, NULL, &hints, &res);
	if (rc) {
		snprintf(err, errlen, "--listen: cannot resolve \"%s\": %s",
			 host, gai_strerror(rc));
		return -EINVAL;
	}
	const struct addrinfo *pick = NULL;
	for (const struct addrinfo *a = res; a && !pick; a = a->ai_next)
		if (a->ai_family == AF_INET)
			pick = a;
	for (const struct addrinfo *a = res; a && !pick; a = a->ai_next)
		if (a->ai_family == AF_INET6)
			pick = a;
	if (!pick) {
		freeaddrinfo(res);
		snprintf(err, errlen, "--listen: \"%s\" has no IP address",
			 host);
		return -EINVAL;
	}
	memset(ss, 0, sizeof(*ss));
	memcpy(ss, pick->ai_addr, pick->ai_addrlen);
	if (ss->ss_family == AF_INET)
		((struct sockaddr_in *)ss)->sin_port = htons((uint16_t)port);
	else
		((struct sockaddr_in6 *)ss)->sin6_port = htons((uint16_t)port);
	freeaddrinfo(res);
	return 0;
}

int proxy_listen_addr(const char *host, int port, struct sockaddr_storage *ss,
		      char *err, size_t errlen)
{
	memset(ss, 0, sizeof(*ss));
	if (host[0] == '[') {
		struct sockaddr_in6 *s6 = (struct sockaddr_in6 *)ss;
		char h6[64];
		size_t n = strlen(host);
		if (n < 3 || n - 2 >= sizeof(h6) || host[n - 1] != ']') {
			snprintf(err, errlen, "--listen: \"%s\" is not [IPv6]",
				 host);
			return -EINVAL;
		}
		memcpy(h6, host + 1, n - 2);
		h6[n - 2] = '\0';
		s6->sin6_family = AF_INET6;
		s6->sin6_port = htons((uint16_t)port);
		if (inet_pton(AF_INET6, h6, &s6->sin6_addr) != 1) {
			snprintf(err, errlen,
				 "--listen: \"%s\" is not an IPv6 address",
				 host);
			return -EINVAL;
		}
		return 0;
	}
	struct sockaddr_in *s4 = (struct sockaddr_in *)ss;
	s4->sin_family = AF_INET;
	s4->sin_port = htons((uint16_t)port);
	if (inet_pton(AF_INET, host, &s4->sin_addr) == 1)
		return 0;
	if (!hostname(host)) {
		snprintf(err, errlen, "--listen: \"%s\" is not an IPv4 address",
			 host);
		return -EINVAL;
	}
	return resolve(host, port, ss, err, errlen);
}

/* An address in 127.0.0.0/8 or ::1. */
static bool addr_loopback(const struct sockaddr_storage *ss)
{
	if (ss->ss_family == AF_INET) {
		const struct sockaddr_in *s4 = (const struct sockaddr_in *)ss;
		return (ntohl(s4->sin_addr.s_addr) >> 24) == 127;
	}
	return ss->ss_family == AF_INET6 &&
	       IN6_IS_ADDR_LOOPBACK(
		       &((const struct sockaddr_in6 *)ss)->sin6_addr);
}

void proxy_listen_numeric(const struct sockaddr_storage *ss, char *out,
			  size_t outlen)
{
	char a[INET6_ADDRSTRLEN] = "?";
	if (ss->ss_family == AF_INET6) {
		inet_ntop(AF_INET6,
			  &((const struct sockaddr_in6 *)ss)->sin6_addr, a,
			  sizeof(a));
		snprintf(out, outlen, "[%s]", a);
	} else {
		inet_ntop(AF_INET, &((const struct sockaddr_in *)ss)->sin_addr,
			  a, sizeof(a));
		snprintf(out, outlen, "%s", a);
	}
}

/* Whether a socket at su answers a connect: 0 when stale (refused), 1
 * when someone listens or it cannot be told (not ours to replace), with
 * err set. */
static int unix_live(const struct sockaddr_un *su, char *err, size_t errlen)
{
	int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (fd < 0) {
		snprintf(err, errlen, "--unix-socket: %s", strerror(errno));
		return 1;
	}
	int rc = connect(fd, (const struct sockaddr *)su, sizeof(*su));
	int e = errno;
	close(fd);
	if (rc && (e == ECONNREFUSED || e == ENOENT))
		return 0;
	if (rc && e != EAGAIN)
		snprintf(err, errlen,
			 "--unix-socket %s: exists and cannot be probed (%s); "
			 "refusing to replace it",
			 su->sun_path, strerror(e));
	else
		snprintf(err, errlen,
			 "--unix-socket %s: another process is serving on it; "
			 "refusing to replace it",
			 su->sun_path);
	return 1;
}

int proxy_listen_unix(const char *path, int mode, dev_t *dev, ino_t *ino,
		      char *err, size_t errlen)
{
	struct sockaddr_un su = { .sun_family = AF_UNIX };
	struct stat st;
	if (strlen(path) >= sizeof(su.sun_path)) {
		snprintf(err, errlen, "--unix-socket: path too long");
		return -EINVAL;
	}
	strcpy(su.sun_path, path);
	if (!lstat(path, &st)) {
		if (!S_ISSOCK(st.st_mode)) {
			snprintf(
				err, errlen,
				"--unix-socket %s: exists and is not a socket; "
				"refusing to replace it",
				path);
			return -EEXIST;
		}
		if (unix_live(&su, err, errlen))
			return -EADDRINUSE;
		unlink(path); /* stale: its server has gone */
	}
	int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0) {
		snprintf(err, errlen, "--unix-socket: %s", strerror(errno));
		return -errno;
	}
	/* created with no access at all, then opened to exactly mode */
	mode_t old = umask(0777);
	int rc = bind(fd, (struct sockaddr *)&su, sizeof(su));
	umask(old);
	if (rc || chmod(path, (mode_t)mode) || listen(fd, 128) ||
	    lstat(path, &st)) {
		int e = errno;
		snprintf(err, errlen, "--unix-socket %s: %s", path,
			 strerror(e));
		if (!rc) /* ours, though unusable */
			unlink(path);
		close(fd);
		return -e;
	}
	*dev = st.st_dev;
	*ino = st.st_ino;
	return fd;
}

void proxy_listen_unix_remove(const char *path, dev_t dev, ino_t ino)
{
	struct stat st;
	if (!lstat(path, &st) && S_ISSOCK(st.st_mode) && st.st_dev == dev &&
	    st.st_ino == ino)
		unlink(path);
	else
		log_warn("--unix-socket %s: no longer the socket this proxy "
			 "made; left in place",
			 path);
}

int proxy_listen_stand_in(void)
{
	int fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	return fd < 0 ? -errno : fd;
}

int proxy_listen_take_away(int listen_fd, int stand_in)
{
	int rc = 0;
	if (dup3(stand_in, listen_fd, O_CLOEXEC) < 0) {
		rc = -errno;
		log_error("cannot close the listening socket (fd %d): %s",
			  listen_fd, strerror(errno));
	}
	close(stand_in);
	return rc;
}

int proxy_listen_check_exposure(const struct config *cfg, char *err,
				size_t errlen)
{
	struct sockaddr_storage ss;
	int rc = proxy_listen_addr(cfg->listen_host, cfg->listen_port, &ss, err,
				   errlen);
	if (rc)
		return rc;
	if (addr_loopback(&ss) || cfg->client_auth == CLIENT_AUTH_DELEGATED)
		return 0;
	if (!cfg->allow_unauth_remote) {
		snprintf(
			err, errlen,
			"--listen %s:%d is not a loopback address: anyone "
			"who reaches it would act as the proxy; use --client-auth=delegated "
			"(every client authenticated and authorized upstream), or "
			"--allow-unauthenticated-remote to accept that",
			cfg->listen_host, cfg->listen_port);
		return -EPERM;
	}
	log_warn(
		"--allow-unauthenticated-remote: anyone who reaches %s:%d acts "
		"with the proxy's credentials",
		cfg->listen_host, cfg->listen_port);
	return 0;
}
