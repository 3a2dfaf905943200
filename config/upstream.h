/*
 * upstream: struct config_upstream, the apiserver the proxy talks to and
 * the credentials it talks with.
 *
 * This module is the struct's life (init, free) and the rules of its
 * server URL. config/source.h chooses where one comes from (a kubeconfig,
 * the in-cluster service account or --server alone), config/kubeconfig.h
 * reads a kubeconfig into one, and config/creds.h is what the proxy does
 * with it afterwards, on every request. The struct is owned by whoever
 * loaded it; the token cache inside is guarded by its lock, so reflector
 * and passthrough threads may share one.
 */
#ifndef CONFIG_UPSTREAM_H
#define CONFIG_UPSTREAM_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>
#include <time.h>

/* PEM material: a file (absolute path, read by the TLS client per connection, so
 * a rotated file is picked up) or bytes (decoded from a kubeconfig *-data
 * field; NUL-terminated after len). At most one of the two is set. */
struct config_pem {
	char *path;
	unsigned char *data;
	size_t len;
};

struct config_upstream {
	char *server;	       /* http(s)://host[:port][/path], no trailing / */
	char *tls_server_name; /* kubeconfig tls-server-name, or NULL */
	/* With tls_server_name: server with its host replaced by that name.
	 * Requests go to this URL (so TLS sends that SNI and checks that
	 * name) and connect to the real host given by connect_to. Without it,
	 * the same string as server. */
	char *url_base;
	struct config_pem ca; /* neither set: the system roots */
	bool insecure_skip_tls_verify;
	struct config_pem cert; /* client certificate ... */
	struct config_pem key;	/* ... and its key: both or neither */
	char *token;		/* literal bearer token, or NULL */
	char *token_file;	/* absolute path, or NULL; token wins if both */
	char *source; /* "kubeconfig /p context c", "in-cluster", ... */
	/* With tls_server_name, "NAME:PORT:HOST:PORT": connect to HOST:PORT
	 * for requests to NAME:PORT. Else NULL. */
	char *connect_to;

	/* Token file cache, guarded by lock; see config_creds_token_get(). */
	pthread_mutex_t lock;
	bool lock_ready;
	char *cached_token;
	dev_t tok_dev;
	ino_t tok_ino;
	off_t tok_size;
	struct timespec tok_mtime;
	time_t tok_read_at; /* CLOCK_MONOTONIC seconds */
	char tok_err[256];  /* why the last read failed, "" if it did not */
};

/* A zeroed struct with its lock ready: what every loader starts from. */
void config_upstream_init(struct config_upstream *up);

/* Free every field (key and token bytes are wiped first). Safe on a
 * zeroed struct and twice in a row. Not while other threads use it. */
void config_upstream_free(struct config_upstream *up);

/*
 * Set up->server from url: "http(s)://host[:port][/path]", or a bare
 * "host[:port]" read as https (as client-go does); stored without
 * trailing slashes. Refuses another scheme, a URL with no host, and
 * spaces or control characters, with err naming `what` (where the URL
 * came from: "--server", "kubeconfig F: cluster \"c\""). Returns 0,
 * -EINVAL or -ENOMEM (err not set for -ENOMEM). up->server is
 * unchanged on failure.
 */
int config_upstream_set_server(struct config_upstream *up, const char *url,
			       const char *what, char *err, size_t errlen);

/*
 * Set up->url_base and up->connect_to from up->server (which must be
 * set) and up->tls_server_name: see the fields above. Call again after
 * either changes. Returns 0 or -ENOMEM.
 */
int config_upstream_set_url_base(struct config_upstream *up);

#endif
