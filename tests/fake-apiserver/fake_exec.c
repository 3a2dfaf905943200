/*
 * fake_exec: the upgrading pod subresources (see fake_exec.h).
 */
#include "fake_exec.h"

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "config/alloc.h"
#include "config/log.h"
#include "fake_res.h"
#include "fake_store.h"
#include "fake_stream.h"

#define MAX_ARGS 32
#define CHUNK (32 * 1024)
#define FS_MAX_BYTES (64u << 20) /* every pod's files together */
#define MAX_FORWARDS 64		 /* port-forward streams per session */

enum kind {
	EXEC,
	ATTACH,
	PORTFORWARD
};
enum proto {
	WS_V5,
	WS_V4,
	SPDY_V4,
	SPDY_PF,
	WS_SPDY_PF
};

struct session {
	enum kind kind;
	enum proto proto;
	char pod[520]; /* "NS/NAME", the file tree's owner */
	char *argv[MAX_ARGS + 1];
	int argc;
	bool in, out, err, tty;
};

/* ---- the pods' files ---- */

struct file {
	char *key; /* "NS/NAME:/abs/path" */
	struct buf data;
	struct file *next;
};

static pthread_mutex_t fs_lock = PTHREAD_MUTEX_INITIALIZER;
static struct file *files;
static size_t fs_bytes;

static char *file_key(const struct session *s, const char *path)
{
	struct buf k = BUF_INIT;
	buf_printf(&k, "%s:%s", s->pod, path);
	return buf_ok(&k) ? k.p : NULL;
}

static int fs_put(const struct session *s, const char *path, const char *p,
		  size_t n)
{
	char *key = file_key(s, path);
	if (!key)
		return -1;
	pthread_mutex_lock(&fs_lock);
	struct file *f = files;
	while (f && strcmp(f->key, key))
		f = f->next;
	int rc = 0;
	if (fs_bytes + n > FS_MAX_BYTES) {
		rc = -1;
	} else if (f) {
		fs_bytes -= f->data.len;
		buf_reset(&f->data);
		free(key);
	} else if ((f = xcalloc(1, sizeof(*f)))) {
		f->key = key;
		f->next = files;
		files = f;
	} else {
		rc = -1;
	}
	if (!rc) {
		buf_add(&f->data, p, n);
		fs_bytes += n;
	} else {
		free(key);
	}
	pthread_mutex_unlock(&fs_lock);
	return rc;
}

/* A copy of the file's bytes into out; -1 if there is none. */
static int fs_get(const struct session *s, const char *path, struct buf *out)
{
	char *key = file_key(s, path);
	int rc = -1;
	pthread_mutex_lock(&fs_lock);
	for (struct file *f = files; key && f; f = f->next)
		if (!strcmp(f->key, key)) {
			buf_add(out, f->data.p, f->data.len);
			rc = 0;
			break;
		}
	pthread_mutex_unlock(&fs_lock);
	free(key);
	return rc;
}

/* Directories: "/", "/tmp", and every parent of a file. */
static bool fs_is_dir(const struct session *s, const char *path)
{
	if (!strcmp(path, "/") || !strcmp(path, "/tmp"))
		return true;
	char *key = file_key(s, path);
	bool yes = false;
	size_t n = key ? strlen(key) : 0;
	pthread_mutex_lock(&fs_lock);
	for (struct file *f = files; key && f && !yes; f = f->next)
		yes = !strncmp(f->key, key, n) && f->key[n] == '/';
	pthread_mutex_unlock(&fs_lock);
	free(key);
	return yes;
}

/* ---- ustar ---- */

static unsigned long octal(const char *p, size_t n)
{
	unsigned long v = 0;
	for (size_t i = 0; i < n && p[i] >= '0' && p[i] <= '7'; i++)
		v = v * 8 + (unsigned long)(p[i] - '0');
	return v;
}

/* Join dir and a member name into an absolute path, no "." or "..". */
static int join_path(const char *dir, const char *name, char *out, size_t n)
{
	struct buf b = BUF_INIT;
	buf_printf(&b, "%s/%s", dir, name);
	if (!buf_ok(&b))
		return -1;
	char *segs[64];
	int k = 0;
	for (char *save = NULL, *t = strtok_r(b.p, "/", &save); t;
	     t = strtok_r(NULL, "/", &save)) {
		if (!strcmp(t, ".") || !*t)
			continue;
		if (!strcmp(t, "..")) {
			if (k)
				k--;
			continue;
		}
		if (k == 64) {
			buf_free(&b);
			return -1;
		}
		segs[k++] = t;
	}
	size_t w = 0;
	out[0] = '\0';
	for (int i = 0; i < k; i++) {
		int m = snprintf(out + w, n - w, "/%s", segs[i]);
		if (m < 0 || (size_t)m >= n - w) {
			buf_free(&b);
			return -1;
		}
		w += (size_t)m;
	}
	if (!k)
		snprintf(out, n, "/");
	buf_free(&b);
	return 0;
}

/* tar -x of the archive in p into dir; 0, or -1 with why. */
static int untar(const struct session *s, const char *dir, const char *p,
		 size_t n, struct buf *why)
{
	char longname[1024] = "";
	for (size_t off = 0; off + 512 <= n;) {
		const char *h = p + off;
		bool zero = true;
		for (int i = 0; i < 512 && zero; i++)
			zero = !h[i];
		if (zero)
			return 0;
		unsigned long size = octal(h + 124, 12);
		char type = h[156];
		size_t data = off + 512;
		if (size > n - data) {
			buf_printf(why, "tar: Unexpected EOF in archive\n");
			return -1;
		}
		char name[512];
		if (longname[0]) {
			snprintf(name, sizeof(name), "%s", longname);
			longname[0] = '\0';
		} else if (!memcmp(h + 257, "ustar", 5) && h[345]) {
			snprintf(name, sizeof(name), "%.155s/%.100s", h + 345,
				 h);
		} else {
			snprintf(name, sizeof(name), "%.100s", h);
		}
		if (type == 'x') { /* PAX: a path= record names the next */
			const char *q = p + data, *e = q + size;
			while (q < e) {
				char *sp = memchr(q, ' ', (size_t)(e - q));
				unsigned long rl = strtoul(q, NULL, 10);
				if (!sp || !rl || rl > (size_t)(e - q))
					break;
				if (!strncmp(sp + 1, "path=", 5)) {
					size_t vl = (size_t)(q + rl - sp - 7);
					if (vl < sizeof(longname)) {
						memcpy(longname, sp + 6, vl);
						longname[vl] = '\0';
					}
				}
				q += rl;
			}
		} else if (type == '0' || type == '\0') {
			char path[1024];
			if (join_path(dir, name, path, sizeof(path)) ||
			    fs_put(s, path, p + data, size)) {
				buf_printf(why, "tar: %s: Cannot write\n",
					   name);
				return -1;
			}
		}
		off = data + (size + 511) / 512 * 512;
	}
	return 0;
}

/* tar -c of one file, named as GNU tar names it (no leading /). */
static int tar_file(const struct session *s, const char *path, struct buf *out,
		    struct buf *why)
{
	struct buf data = BUF_INIT;
	if (fs_get(s, path, &data)) {
		buf_printf(why,
			   "tar: %s: Cannot stat: No such file or directory\n"
			   "tar: Exiting with failure status due to previous "
			   "errors\n",
			   path);
		return -1;
	}
	const char *name = path + strspn(path, "/");
	char h[512];
	memset(h, 0, sizeof(h));
	snprintf(h, 100, "%s", name);
	snprintf(h + 100, 8, "%07o", 0644);
	snprintf(h + 108, 8, "%07o", 0);
	snprintf(h + 116, 8, "%07o", 0);
	snprintf(h + 124, 12, "%011lo", (unsigned long)data.len);
	snprintf(h + 136, 12, "%011lo", (unsigned long)time(NULL));
	h[156] = '0';
	memcpy(h + 257, "ustar", 6);
	memcpy(h + 263, "00", 2);
	memset(h + 148, ' ', 8);
	unsigned sum = 0;
	for (int i = 0; i < 512; i++)
		sum += (unsigned char)h[i];
	snprintf(h + 148, 8, "%06o", sum);
	buf_add(out, h, 512);
	buf_add(out, data.p, data.len);
	static const char zero[1024];
	buf_add(out, zero, (512 - data.len % 512) % 512);
	buf_add(out, zero, 1024);
	buf_free(&data);
	return buf_ok(out) ? 0 : -1;
}

/* ---- commands ---- */

/* Where a command's output goes: the protocol's channels. */
struct sink {
	int (*write)(void *ctx, int channel, const char *p, size_t n);
	void *ctx;
};

struct cmd {
	const struct session *s;
	struct sink *sink;
	struct buf in; /* stdin, for commands that read it whole */
	bool echo;     /* cat, attach: stdin straight to stdout */
};

static void cmd_input(struct cmd *c, const char *p, size_t n)
{
	if (c->echo)
		c->sink->write(c->sink->ctx, 1, p, n);
	else
		buf_add(&c->in, p, n);
}

/* Run the command once stdin has ended; its exit code. */
static int cmd_finish(struct cmd *c)
{
	const struct session *s = c->s;
	struct buf out = BUF_INIT, err = BUF_INIT;
	int code = 0;
	const char *a0 = s->argc ? s->argv[0] : "";
	if (c->echo || s->kind == ATTACH) {
		code = 0;
	} else if (!strcmp(a0, "echo")) {
		for (int i = 1; i < s->argc; i++)
			buf_printf(&out, "%s%s", i > 1 ? " " : "", s->argv[i]);
		buf_addc(&out, '\n');
	} else if (!strcmp(a0, "true")) {
		code = 0;
	} else if (!strcmp(a0, "false")) {
		code = 1;
	} else if (!strcmp(a0, "sh") && s->argc == 3 &&
		   !strcmp(s->argv[1], "-c") &&
		   !strncmp(s->argv[2], "exit ", 5)) {
		code = atoi(s->argv[2] + 5) & 255;
	} else if (!strcmp(a0, "test") && s->argc == 3 &&
		   !strcmp(s->argv[1], "-d")) {
		code = fs_is_dir(s, s->argv[2]) ? 0 : 1;
	} else if (!strcmp(a0, "tar")) {
		/* tar [-]xmf - [-C DIR] (kubectl cp into the pod, with or
		 * without --no-same-*), tar cf - FILE (out of it) */
		const char *dir = "/", *mode = NULL, *file = NULL;
		for (int i = 1; i < s->argc; i++) {
			const char *a = s->argv[i];
			if (!strcmp(a, "-C") && i + 1 < s->argc)
				dir = s->argv[++i];
			else if (!strncmp(a, "--", 2))
				continue;
			else if (!mode && strchr(a, 'f'))
				mode = a;
			else if (!strcmp(a, "-"))
				continue;
			else
				file = a;
		}
		if (mode && strchr(mode, 'x'))
			code = untar(s, dir, c->in.p, c->in.len, &err) ? 2 : 0;
		else if (mode && strchr(mode, 'c') && file)
			code = tar_file(s, file, &out, &err) ? 2 : 0;
		else {
			buf_printf(&err, "tar: unsupported arguments\n");
			code = 2;
		}
	} else {
		buf_printf(&err, "%s: command not found\n", a0);
		code = 127;
	}
	for (size_t o = 0; o < out.len; o += CHUNK)
		c->sink->write(c->sink->ctx, 1, out.p + o,
			       out.len - o > CHUNK ? CHUNK : out.len - o);
	if (err.len)
		c->sink->write(c->sink->ctx, 2, err.p, err.len);
	buf_free(&out);
	buf_free(&err);
	return code;
}

/* The Status the error channel carries at the end (kubelet's words). */
static void exit_status(const struct session *s, int code, struct buf *b)
{
	if (!code) {
		buf_printf(b, "{\"metadata\":{},\"status\":\"Success\"}");
		return;
	}
	struct buf cmd = BUF_INIT;
	for (int i = 0; i < s->argc; i++)
		buf_printf(&cmd, "%s%s", i ? " " : "", s->argv[i]);
	buf_printf(b,
		   "{\"metadata\":{},\"status\":\"Failure\",\"message\":"
		   "\"command terminated with non-zero exit code: error "
		   "executing command [%s], exit code %d\",\"reason\":"
		   "\"NonZeroExitCode\",\"details\":{\"causes\":[{\"reason\":"
		   "\"ExitCode\",\"message\":\"%d\"}]}}",
		   buf_ok(&cmd) ? cmd.p : "", code, code);
	buf_free(&cmd);
}

/* ---- exec and attach over WebSocket ---- */

static int ws_sink(void *ctx, int channel, const char *p, size_t n)
{
	struct fake_io *io = ctx;
	char *m = xmalloc(n + 1);
	if (!m)
		return -1;
	m[0] = (char)channel;
	memcpy(m + 1, p, n);
	int rc = fake_ws_write(io, FAKE_WS_BINARY, m, n + 1);
	free(m);
	return rc;
}

static void exec_ws(struct session *s, struct fake_io *io)
{
	struct sink sink = { ws_sink, io };
	struct cmd c = { .s = s,
			 .sink = &sink,
			 .echo = s->kind == ATTACH ||
				 (s->argc && !strcmp(s->argv[0], "cat")) };
	struct buf msg = BUF_INIT;
	bool in_open = s->in;
	while (in_open) {
		int op = fake_ws_read(io, &msg);
		if (op <= 0) {
			buf_free(&msg);
			buf_free(&c.in);
			return; /* the client went away: nothing to report */
		}
		if (op != FAKE_WS_BINARY || !msg.len)
			continue;
		unsigned char ch = (unsigned char)msg.p[0];
		if (ch == 0)
			cmd_input(&c, msg.p + 1, msg.len - 1);
		else if (ch == 255 && msg.len >= 2 && msg.p[1] == 0 &&
			 s->proto == WS_V5)
			in_open = false; /* v5: stdin closed */
	}
	int code = cmd_finish(&c);
	struct buf st = BUF_INIT;
	exit_status(s, code, &st);
	ws_sink(io, 3, st.p, st.len);
	fake_ws_write(io, FAKE_WS_CLOSE, "\x03\xe8", 2);
	buf_free(&st);
	buf_free(&msg);
	buf_free(&c.in);
}

/* ---- exec and attach over SPDY ---- */

struct spdy_exec {
	struct fake_spdy *sp;
	uint32_t id[5]; /* by channel: stdin, stdout, stderr, error, resize */
};

static int spdy_sink(void *ctx, int channel, const char *p, size_t n)
{
	struct spdy_exec *x = ctx;
	if (!x->id[channel])
		return 0;
	return fake_spdy_data(x->sp, x->id[channel], p, n, false);
}

static void exec_spdy(struct session *s, struct fake_io *io)
{
	static const char *const types[] = { "stdin", "stdout", "stderr",
					     "error", "resize" };
	struct spdy_exec x = { fake_spdy_new(io, false), { 0 } };
	struct fake_spdy_frame f = { 0 };
	struct sink sink = { spdy_sink, &x };
	struct cmd c = { .s = s,
			 .sink = &sink,
			 .echo = s->kind == ATTACH ||
				 (s->argc && !strcmp(s->argv[0], "cat")) };
	if (!x.sp)
		return;
	/* the streams the request asked for, each answered as it comes */
	bool in_open = s->in;
	for (;;) {
		bool have = x.id[3] && (!s->in || x.id[0]) &&
			    (!s->out || x.id[1]) && (!s->err || x.id[2]);
		if (have && !in_open)
			break;
		if (fake_spdy_next(x.sp, &f) || f.ev == FAKE_SPDY_END)
			goto out;
		if (f.ev == FAKE_SPDY_SYN) {
			const char *t = fake_spdy_header(&f, "streamtype");
			for (int i = 0; t && i < 5; i++)
				if (!strcmp(t, types[i]))
					x.id[i] = f.id;
			fake_spdy_reply(x.sp, f.id);
		} else if (f.ev == FAKE_SPDY_DATA && f.id == x.id[0]) {
			cmd_input(&c, f.data.p, f.data.len);
			if (f.fin)
				in_open = false;
		} else if (f.ev == FAKE_SPDY_RST && f.id == x.id[0]) {
			in_open = false;
		}
	}
	int code = cmd_finish(&c);
	struct buf st = BUF_INIT;
	exit_status(s, code, &st);
	for (int i = 1; i <= 2; i++)
		if (x.id[i])
			fake_spdy_data(x.sp, x.id[i], "", 0, true);
	fake_spdy_data(x.sp, x.id[3], st.p, st.len, true);
	buf_free(&st);
out:
	buf_free(&f.data);
	buf_free(&f.headers);
	buf_free(&c.in);
	fake_spdy_free(x.sp);
}

/* ---- port-forward over SPDY ---- */

struct forward {
	char reqid[32];
	uint32_t err_id, data_id;
	int fd;
	bool thread;
	pthread_t t;
	struct fake_spdy *sp;
};

/* local server -> data stream, then the end of both streams */
static void *forward_pump(void *arg)
{
	struct forward *fw = arg;
	char b[CHUNK];
	for (;;) {
		ssize_t n = recv(fw->fd, b, sizeof(b), 0);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		if (fake_spdy_data(fw->sp, fw->data_id, b, (size_t)n, false))
			break;
	}
	fake_spdy_data(fw->sp, fw->data_id, "", 0, true);
	if (fw->err_id)
		fake_spdy_data(fw->sp, fw->err_id, "", 0, true);
	return NULL;
}

static struct forward *forward_of(struct forward *fw, int n, const char *reqid)
{
	for (int i = 0; i < n; i++)
		if (!strcmp(fw[i].reqid, reqid))
			return &fw[i];
	return NULL;
}

static int local_connect(const char *port)
{
	struct sockaddr_in sa = { .sin_family = AF_INET };
	long p = port ? strtol(port, NULL, 10) : 0;
	if (p <= 0 || p > 65535)
		return -1;
	sa.sin_port = htons((uint16_t)p);
	sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd >= 0 && connect(fd, (struct sockaddr *)&sa, sizeof(sa))) {
		close(fd);
		fd = -1;
	}
	return fd;
}

static void portforward(struct session *s, struct fake_io *io, bool tunnel)
{
	struct fake_spdy *sp = fake_spdy_new(io, tunnel);
	struct forward *fw = xcalloc(MAX_FORWARDS, sizeof(*fw));
	struct fake_spdy_frame f = { 0 };
	int n = 0;
	if (!sp || !fw)
		goto out;
	while (!fake_spdy_next(sp, &f) && f.ev != FAKE_SPDY_END) {
		if (f.ev == FAKE_SPDY_SYN) {
			const char *t = fake_spdy_header(&f, "streamtype");
			const char *rid = fake_spdy_header(&f, "requestid");
			const char *port = fake_spdy_header(&f, "port");
			fake_spdy_reply(sp, f.id);
			if (!t || !rid)
				continue;
			struct forward *w = forward_of(fw, n, rid);
			if (!w && n < MAX_FORWARDS) {
				w = &fw[n++];
				snprintf(w->reqid, sizeof(w->reqid), "%s", rid);
				w->fd = -1;
				w->sp = sp;
			}
			if (!w)
				continue;
			if (!strcmp(t, "error")) {
				w->err_id = f.id;
			} else if (!strcmp(t, "data")) {
				w->data_id = f.id;
				w->fd = local_connect(port);
				if (w->fd < 0) {
					char msg[640];
					snprintf(msg, sizeof(msg),
						 "error forwarding port %s to "
						 "pod %s: connection refused",
						 port ? port : "", s->pod);
					if (w->err_id)
						fake_spdy_data(sp, w->err_id,
							       msg, strlen(msg),
							       true);
					fake_spdy_data(sp, f.id, "", 0, true);
				} else {
					w->thread = !pthread_create(
						&w->t, NULL, forward_pump, w);
				}
			}
		} else if (f.ev == FAKE_SPDY_DATA) {
			for (int i = 0; i < n; i++) {
				if (fw[i].data_id != f.id || fw[i].fd < 0)
					continue;
				send(fw[i].fd, f.data.p, f.data.len,
				     MSG_NOSIGNAL);
				if (f.fin)
					shutdown(fw[i].fd, SHUT_WR);
			}
		} else if (f.ev == FAKE_SPDY_RST) {
			for (int i = 0; i < n; i++)
				if (fw[i].data_id == f.id && fw[i].fd >= 0)
					shutdown(fw[i].fd, SHUT_RDWR);
		}
	}
out:
	for (int i = 0; fw && i < n; i++) {
		if (fw[i].fd >= 0)
			shutdown(fw[i].fd, SHUT_RDWR);
		if (fw[i].thread)
			pthread_join(fw[i].t, NULL);
		if (fw[i].fd >= 0)
			close(fw[i].fd);
	}
	free(fw);
	buf_free(&f.data);
	buf_free(&f.headers);
	fake_spdy_free(sp);
}

/* ---- the request ---- */

static void session_free(struct session *s)
{
	for (int i = 0; i < s->argc; i++)
		free(s->argv[i]);
	free(s);
}

void fake_exec_abandon(struct fake_req *rq)
{
	if (rq->exec)
		session_free(rq->exec);
	rq->exec = NULL;
}

static int sessions; /* upgraded sessions running (atomic) */

void fake_exec_stop(void)
{
	fake_stream_stop();
	/* their last libmicrohttpd call must come before the daemon stops */
	for (int i = 0; i < 300 && __atomic_load_n(&sessions, __ATOMIC_ACQUIRE);
	     i++) {
		struct timespec ts = { 0, 10 * 1000000L };
		nanosleep(&ts, NULL);
	}
}

struct upgraded {
	struct session *s;
	struct fake_io io;
	struct MHD_UpgradeResponseHandle *urh;
};

static void *run_session(void *arg)
{
	struct upgraded *u = arg;
	struct session *s = u->s;
	log_v(2, "upgraded %s %s (%d)", s->pod,
	      s->kind == PORTFORWARD ? "portforward" : "exec", (int)s->proto);
	switch (s->proto) {
	case WS_V5:
	case WS_V4:
		exec_ws(s, &u->io);
		break;
	case SPDY_V4:
		exec_spdy(s, &u->io);
		break;
	case SPDY_PF:
	case WS_SPDY_PF:
		portforward(s, &u->io, s->proto == WS_SPDY_PF);
		break;
	}
	fake_io_free(&u->io);
	MHD_upgrade_action(u->urh, MHD_UPGRADE_ACTION_CLOSE);
	session_free(s);
	free(u);
	__atomic_sub_fetch(&sessions, 1, __ATOMIC_RELEASE);
	return NULL;
}

/* The session runs on a thread of its own: over TLS, libmicrohttpd's
 * connection thread relays between the TLS socket and ours only after
 * this returns. */
static void on_upgrade(void *cls, struct MHD_Connection *conn, void *con_cls,
		       const char *extra_in, size_t extra_in_size,
		       MHD_socket sock, struct MHD_UpgradeResponseHandle *urh)
{
	/* the session is ours from here, no longer the request's (both run
	 * on the connection's thread) */
	((struct fake_req *)con_cls)->exec = NULL;
	struct upgraded *u = xcalloc(1, sizeof(*u));
	pthread_t t;
	pthread_attr_t attr;
	if (u) {
		u->s = cls;
		u->urh = urh;
		fake_io_init(&u->io, sock, extra_in, extra_in_size);
		pthread_attr_init(&attr);
		pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
		__atomic_add_fetch(&sessions, 1, __ATOMIC_RELEASE);
		bool ok = !pthread_create(&t, &attr, run_session, u);
		if (!ok)
			__atomic_sub_fetch(&sessions, 1, __ATOMIC_RELEASE);
		pthread_attr_destroy(&attr);
		if (ok)
			return;
		fake_io_free(&u->io);
		free(u);
	}
	session_free(cls);
	MHD_upgrade_action(urh, MHD_UPGRADE_ACTION_CLOSE);
}

struct scan {
	struct session *s;
	const char *want[3];
	int best; /* index into want, lower is better; 3: none */
	bool ws;
};

static enum MHD_Result on_arg(void *cls, enum MHD_ValueKind kind,
			      const char *key, const char *value)
{
	struct session *s = cls;
	if (!strcmp(key, "command") && value && s->argc < MAX_ARGS)
		s->argv[s->argc++] = xstrdup(value);
	bool on = value && (!strcmp(value, "true") || !strcmp(value, "1"));
	if (!strcmp(key, "stdin"))
		s->in = on;
	else if (!strcmp(key, "stdout"))
		s->out = on;
	else if (!strcmp(key, "stderr"))
		s->err = on;
	else if (!strcmp(key, "tty"))
		s->tty = on;
	return MHD_YES;
}

/* The protocols offered, in every header of that name, each a comma
 * list: the best one the fake speaks. */
static enum MHD_Result on_proto(void *cls, enum MHD_ValueKind kind,
				const char *key, const char *value)
{
	struct scan *sc = cls;
	const char *name =
		sc->ws ? "Sec-WebSocket-Protocol" : "X-Stream-Protocol-Version";
	if (strcasecmp(key, name) || !value)
		return MHD_YES;
	for (const char *p = value; *p;) {
		p += strspn(p, " ,");
		size_t l = strcspn(p, " ,");
		for (int i = 0; i < 3; i++)
			if (sc->want[i] && strlen(sc->want[i]) == l &&
			    !strncmp(p, sc->want[i], l) && i < sc->best)
				sc->best = i;
		p += l;
	}
	return MHD_YES;
}

bool fake_exec_path(const char *url)
{
	if (strncmp(url, "/api/v1/namespaces/", 19))
		return false;
	const char *p = url + 19;
	size_t ns = strcspn(p, "/");
	if (!ns || strncmp(p + ns, "/pods/", 6))
		return false;
	p += ns + 6;
	size_t name = strcspn(p, "/");
	if (!name || p[name] != '/')
		return false;
	p += name + 1;
	return !strcmp(p, "exec") || !strcmp(p, "attach") ||
	       !strcmp(p, "portforward");
}

enum MHD_Result fake_exec_serve(struct fake_req *rq, const char *url)
{
	struct MHD_Connection *c = rq->conn;
	char ns[256], name[256], sub[16];
	if (sscanf(url, "/api/v1/namespaces/%255[^/]/pods/%255[^/]/%15s", ns,
		   name, sub) != 3)
		return fake_reply_no_route(c);
	int res = fake_res_find("pods");
	fake_store_rdlock();
	bool found = res >= 0 && fake_store_lookup(res, ns, name);
	fake_store_rdunlock();
	if (!found)
		return fake_reply_not_found(c, "pods", name);
	const char *upg =
		MHD_lookup_connection_value(c, MHD_HEADER_KIND, "Upgrade");
	const char *key = MHD_lookup_connection_value(c, MHD_HEADER_KIND,
						      "Sec-WebSocket-Key");
	bool ws = upg && !strcasecmp(upg, "websocket") && key;
	bool spdy = upg && !strcasecmp(upg, "SPDY/3.1");
	if (!ws && !spdy)
		return fake_reply_status(c, 400, "BadRequest", NULL,
					 "Upgrade request required");
	struct session *s = xcalloc(1, sizeof(*s));
	if (!s)
		return MHD_NO;
	snprintf(s->pod, sizeof(s->pod), "%s/%s", ns, name);
	s->kind = !strcmp(sub, "exec")	 ? EXEC :
		  !strcmp(sub, "attach") ? ATTACH :
					   PORTFORWARD;
	MHD_get_connection_values(c, MHD_GET_ARGUMENT_KIND, on_arg, s);
	struct scan sc = { .s = s, .best = 3, .ws = ws };
	if (s->kind == PORTFORWARD) {
		sc.want[0] = ws ? "SPDY/3.1+portforward.k8s.io" :
				  "portforward.k8s.io";
	} else if (ws) {
		sc.want[0] = "v5.channel.k8s.io";
		sc.want[1] = "v4.channel.k8s.io";
	} else {
		sc.want[0] = "v4.channel.k8s.io";
	}
	MHD_get_connection_values(c, MHD_HEADER_KIND, on_proto, &sc);
	if (sc.best == 3 || (s->kind == EXEC && !s->argc)) {
		for (int i = 0; i < s->argc; i++)
			free(s->argv[i]);
		free(s);
		return fake_reply_status(
			c, 400, "BadRequest", NULL, "%s",
			sc.best == 3 ? "unable to upgrade: no protocol "
				       "the server supports was offered" :
				       "you must specify at least 1 command");
	}
	const char *chosen = sc.want[sc.best];
	s->proto = s->kind == PORTFORWARD ? (ws ? WS_SPDY_PF : SPDY_PF) :
		   ws			  ? (sc.best ? WS_V4 : WS_V5) :
					    SPDY_V4;
	struct MHD_Response *r = MHD_create_response_for_upgrade(on_upgrade, s);
	if (!r) {
		free(s);
		return MHD_NO;
	}
	MHD_add_response_header(r, "Upgrade", ws ? "websocket" : "SPDY/3.1");
	if (ws) {
		char accept[29];
		fake_ws_accept(key, accept);
		MHD_add_response_header(r, "Sec-WebSocket-Accept", accept);
		MHD_add_response_header(r, "Sec-WebSocket-Protocol", chosen);
	} else {
		MHD_add_response_header(r, "X-Stream-Protocol-Version", chosen);
	}
	enum MHD_Result ret = MHD_queue_response(c, 101, r);
	MHD_destroy_response(r);
	if (ret == MHD_YES)
		rq->exec = s; /* until on_upgrade takes it */
	else
		session_free(s);
	return ret;
}
