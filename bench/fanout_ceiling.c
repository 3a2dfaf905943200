/*
 * fanout_ceiling: the reference for B3 of `make bench`.
 *
 * How many watch-event deliveries per second can this machine's loopback
 * carry at all? One thread writes the same event bytes to N connected
 * loopback TCP sockets, BATCH events per send(), and one thread reads
 * every socket with epoll and counts the '\n' that end events (the least
 * a watch client can do). No HTTP, no JSON, no per-watcher state: the
 * proxy's fan-out is compared against this.
 *
 *   fanout_ceiling --event FILE [--conns 1000] [--seconds 3] [--batch 8]
 *                  [--mode copy|zerocopy|splice|tee] [--verify on|self-test]
 *
 * How the writer hands the (immutable) batch to each socket, --mode:
 *   copy      send(): the kernel copies the bytes into every socket (B3's
 *             reference, and what the proxy does).
 *   zerocopy  send(MSG_ZEROCOPY) on SO_ZEROCOPY sockets: pages pinned, a
 *             completion per send read back from the error queue. On
 *             loopback the kernel copies anyway when the data reaches the
 *             receiving socket; "zc_copied" counts the completions that
 *             say so.
 *   splice    a pipe per socket: vmsplice() the batch's pages into it, then
 *             splice() the pipe into the socket, which references the pages
 *             (the batch is never written or freed while the run lasts).
 *   tee       as splice, but the batch is vmspliced once into one shared
 *             pipe and tee()d (page references only) into each socket's
 *             pipe.
 *
 * --verify on makes the reader check that every stream is the event over
 * and over, byte for byte ("bad" counts the reads that were not);
 * --verify self-test checks against a copy with one byte changed, so
 * "bad" must not stay 0. Both cost reader time: not for measuring.
 *
 * Prints one JSON line: {"deliveries_per_s":..,"conns":..,"event_bytes":..}
 * and "deliveries_per_cpu_s" (deliveries over the CPU time both threads
 * used), which moves less than the rate when other processes share the
 * CPUs.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/resource.h>
#include <linux/errqueue.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

#define SCRATCH (256 * 1024)

#ifndef SO_ZEROCOPY
#define SO_ZEROCOPY 60
#endif
#ifndef MSG_ZEROCOPY
#define MSG_ZEROCOPY 0x4000000
#endif

enum mode {
	M_COPY,
	M_ZEROCOPY,
	M_SPLICE,
	M_TEE
};
static const char *const mode_names[] = { "copy", "zerocopy", "splice", "tee" };

struct ceiling {
	int n;
	int *srv;	 /* writer ends */
	int *cli;	 /* reader ends */
	size_t *off;	 /* writer progress in the batch, per socket */
	int (*pipes)[2]; /* splice, tee: one pipe per socket */
	int shared[2];	 /* tee: the batch, vmspliced once */
	enum mode mode;
	char *batch;
	size_t batch_len;
	volatile int stop;
	unsigned long long lines;
	/* zerocopy: completions read back, and how many said "copied" */
	unsigned long long zc_done, zc_copied, zc_nobufs;
	/* --verify: what every stream must repeat, each stream's position
	 * in it, and the received runs that differed (reader thread only) */
	char *expect;
	size_t ev_len;
	size_t *rpos;
	unsigned long long bad;
};

/* CPU time of the whole process, user + system */
static double cpu_s(void)
{
	struct rusage ru;
	getrusage(RUSAGE_SELF, &ru);
	return (double)(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) +
	       (double)(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e6;
}

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* zerocopy: read every completion queued on the socket's error queue.
 * One notification may cover a range of sends. */
static void zc_drain(struct ceiling *c, int fd)
{
	char ctl[CMSG_SPACE(sizeof(struct sock_extended_err))];
	for (;;) {
		struct msghdr m = { .msg_control = ctl,
				    .msg_controllen = sizeof(ctl) };
		if (recvmsg(fd, &m, MSG_ERRQUEUE | MSG_DONTWAIT) < 0)
			return;
		for (struct cmsghdr *cm = CMSG_FIRSTHDR(&m); cm;
		     cm = CMSG_NXTHDR(&m, cm)) {
			struct sock_extended_err *e = (void *)CMSG_DATA(cm);
			if (e->ee_origin != SO_EE_ORIGIN_ZEROCOPY)
				continue;
			unsigned long long k = e->ee_data - e->ee_info + 1ULL;
			c->zc_done += k;
			if (e->ee_code & SO_EE_CODE_ZEROCOPY_COPIED)
				c->zc_copied += k;
		}
	}
}

/* Hand socket i what it can take now. Returns false on EAGAIN (wait for
 * the next EPOLLOUT), true to try again. */
static int push(struct ceiling *c, int i)
{
	ssize_t w;
	size_t left = c->batch_len - c->off[i];

	switch (c->mode) {
	case M_COPY:
	case M_ZEROCOPY:
		w = send(c->srv[i], c->batch + c->off[i], left,
			 MSG_NOSIGNAL | MSG_DONTWAIT |
				 (c->mode == M_ZEROCOPY ? MSG_ZEROCOPY : 0));
		if (w < 0 && errno == ENOBUFS) {
			/* too many completions outstanding: the next ones
			 * arrive as EPOLLERR once the reader has taken data */
			c->zc_nobufs++;
			zc_drain(c, c->srv[i]);
			return 0;
		}
		break;
	default:
		/* off counts what sits in this socket's pipe: refill it with
		 * the whole batch once it is empty */
		if (c->off[i] == 0) {
			ssize_t v;
			if (c->mode == M_SPLICE) {
				struct iovec iov = { c->batch, c->batch_len };
				v = vmsplice(c->pipes[i][1], &iov, 1,
					     SPLICE_F_NONBLOCK);
			} else {
				v = tee(c->shared[0], c->pipes[i][1],
					c->batch_len, SPLICE_F_NONBLOCK);
			}
			if (v != (ssize_t)c->batch_len) {
				fprintf(stderr, "fanout_ceiling: %s: %zd\n",
					mode_names[c->mode], v);
				exit(1);
			}
			c->off[i] = c->batch_len;
		}
		w = splice(c->pipes[i][0], NULL, c->srv[i], NULL, c->off[i],
			   SPLICE_F_NONBLOCK | SPLICE_F_MOVE);
		if (w > 0)
			c->off[i] -= (size_t)w;
		return w > 0;
	}
	if (w <= 0)
		return 0;
	c->off[i] = (c->off[i] + (size_t)w) % c->batch_len;
	return 1;
}

/* Write batches round-robin; a socket that is full waits for EPOLLOUT. */
static void *writer(void *arg)
{
	struct ceiling *c = arg;
	int ep = epoll_create1(0);
	struct epoll_event evs[512];

	for (int i = 0; i < c->n; i++) {
		struct epoll_event ev = { .events = EPOLLOUT | EPOLLET,
					  .data.u32 = (uint32_t)i };
		epoll_ctl(ep, EPOLL_CTL_ADD, c->srv[i], &ev);
	}
	while (!c->stop) {
		int k = epoll_wait(ep, evs, 512, 50);
		for (int j = 0; j < k; j++) {
			int i = (int)evs[j].data.u32;
			if (evs[j].events & EPOLLERR)
				zc_drain(c, c->srv[i]);
			while (push(c, i)) /* until EAGAIN: edge-triggered */
				;
		}
	}
	close(ep);
	return NULL;
}

/* --verify: compare what socket i delivered with the event, continuing
 * where its previous read stopped. */
static void verify(struct ceiling *c, int i, const char *p, size_t n)
{
	while (n) {
		size_t k = c->ev_len - c->rpos[i];
		if (k > n)
			k = n;
		if (memcmp(p, c->expect + c->rpos[i], k))
			c->bad++;
		c->rpos[i] = (c->rpos[i] + k) % c->ev_len;
		p += k;
		n -= k;
	}
}

static void *reader(void *arg)
{
	struct ceiling *c = arg;
	int ep = epoll_create1(0);
	struct epoll_event evs[512];
	char *buf = malloc(SCRATCH);
	unsigned long long lines = 0;

	for (int i = 0; i < c->n; i++) {
		struct epoll_event ev = { .events = EPOLLIN,
					  .data.u32 = (uint32_t)i };
		epoll_ctl(ep, EPOLL_CTL_ADD, c->cli[i], &ev);
	}
	while (!c->stop) {
		int k = epoll_wait(ep, evs, 512, 50);
		for (int j = 0; j < k; j++) {
			int i = (int)evs[j].data.u32;
			ssize_t r = recv(c->cli[i], buf, SCRATCH, MSG_DONTWAIT);
			if (r > 0 && c->expect)
				verify(c, i, buf, (size_t)r);
			for (char *p = buf, *e = buf + (r > 0 ? r : 0);
			     (p = memchr(p, '\n', (size_t)(e - p))); p++)
				lines++;
		}
		__atomic_store_n(&c->lines, lines, __ATOMIC_RELAXED);
	}
	free(buf);
	close(ep);
	return NULL;
}

static int setup(struct ceiling *c)
{
	struct sockaddr_in sa = { .sin_family = AF_INET };
	socklen_t sl = sizeof(sa);
	int ls = socket(AF_INET, SOCK_STREAM, 0);
	/* a pipe holds one page per slot: room for the whole batch, which
	 * need not start on a page boundary */
	long page = sysconf(_SC_PAGESIZE);
	int pipe_sz = (int)((c->batch_len / (size_t)page + 2) * (size_t)page);

	inet_pton(AF_INET, "127.0.0.1", &sa.sin_addr);
	if (ls < 0 || bind(ls, (struct sockaddr *)&sa, sizeof(sa)) ||
	    listen(ls, 4096) || getsockname(ls, (struct sockaddr *)&sa, &sl))
		return -errno;
	for (int i = 0; i < c->n; i++) {
		c->cli[i] = socket(AF_INET, SOCK_STREAM, 0);
		if (c->cli[i] < 0 ||
		    connect(c->cli[i], (struct sockaddr *)&sa, sizeof(sa)))
			return -errno;
		c->srv[i] = accept(ls, NULL, NULL);
		if (c->srv[i] < 0)
			return -errno;
		fcntl(c->srv[i], F_SETFL, O_NONBLOCK);
		fcntl(c->cli[i], F_SETFL, O_NONBLOCK);
		int one = 1;
		if (c->mode == M_ZEROCOPY &&
		    setsockopt(c->srv[i], SOL_SOCKET, SO_ZEROCOPY, &one,
			       sizeof(one)))
			return -errno;
		if ((c->mode == M_SPLICE || c->mode == M_TEE) &&
		    (pipe2(c->pipes[i], O_NONBLOCK) ||
		     fcntl(c->pipes[i][1], F_SETPIPE_SZ, pipe_sz) < 0))
			return -errno;
	}
	close(ls);
	if (c->mode == M_TEE) {
		struct iovec iov = { c->batch, c->batch_len };
		if (pipe2(c->shared, O_NONBLOCK) ||
		    fcntl(c->shared[1], F_SETPIPE_SZ, pipe_sz) < 0)
			return -errno;
		if (vmsplice(c->shared[1], &iov, 1, 0) != (ssize_t)c->batch_len)
			return -EIO;
	}
	return 0;
}

int main(int argc, char **argv)
{
	struct ceiling c = { .n = 1000 };
	const char *event = NULL;
	double seconds = 3;
	int batch = 8;
	int verify_mode = 0;

	for (int i = 1; i + 1 < argc; i += 2) {
		if (!strcmp(argv[i], "--event"))
			event = argv[i + 1];
		else if (!strcmp(argv[i], "--conns"))
			c.n = atoi(argv[i + 1]);
		else if (!strcmp(argv[i], "--seconds"))
			seconds = atof(argv[i + 1]);
		else if (!strcmp(argv[i], "--batch"))
			batch = atoi(argv[i + 1]);
		else if (!strcmp(argv[i], "--verify")) {
			verify_mode = !strcmp(argv[i + 1], "on")	? 1 :
				      !strcmp(argv[i + 1], "self-test") ? 2 :
									  -1;
		} else if (!strcmp(argv[i], "--mode")) {
			c.mode = (enum mode) - 1;
			for (int m = 0; m <= M_TEE; m++)
				if (!strcmp(argv[i + 1], mode_names[m]))
					c.mode = (enum mode)m;
		}
	}
	FILE *f = event ? fopen(event, "rb") : NULL;
	if (!f || c.n < 1 || batch < 1 || seconds <= 0 || c.mode > M_TEE ||
	    verify_mode < 0) {
		fprintf(stderr,
			"usage: fanout_ceiling --event FILE [--conns N] "
			"[--seconds S] [--batch B] "
			"[--mode copy|zerocopy|splice|tee] "
			"[--verify on|self-test]\n");
		return 2;
	}
	char ev[1 << 16];
	size_t evlen = fread(ev, 1, sizeof(ev) - 1, f);
	fclose(f);
	if (!evlen || ev[evlen - 1] != '\n')
		ev[evlen++] = '\n';

	struct rlimit rl;
	if (!getrlimit(RLIMIT_NOFILE, &rl)) {
		rl.rlim_cur = rl.rlim_max;
		setrlimit(RLIMIT_NOFILE, &rl);
	}
	c.srv = calloc((size_t)c.n, sizeof(int));
	c.cli = calloc((size_t)c.n, sizeof(int));
	c.off = calloc((size_t)c.n, sizeof(size_t));
	c.pipes = calloc((size_t)c.n, sizeof(*c.pipes));
	c.rpos = calloc((size_t)c.n, sizeof(size_t));
	c.ev_len = evlen;
	if (verify_mode) {
		c.expect = malloc(evlen);
		if (!c.expect)
			return 1;
		memcpy(c.expect, ev, evlen);
		if (verify_mode == 2)
			c.expect[evlen / 2] ^= 1;
	}
	c.batch_len = evlen * (size_t)batch;
	c.batch = malloc(c.batch_len);
	if (!c.srv || !c.cli || !c.off || !c.pipes || !c.rpos || !c.batch)
		return 1;
	for (int i = 0; i < batch; i++)
		memcpy(c.batch + (size_t)i * evlen, ev, evlen);
	int rc = setup(&c);
	if (rc) {
		fprintf(stderr, "fanout_ceiling: setup: %s\n", strerror(-rc));
		return 1;
	}

	pthread_t wt, rt;
	pthread_create(&rt, NULL, reader, &c);
	pthread_create(&wt, NULL, writer, &c);
	/* skip the first half second: buffers filling */
	struct timespec warm = { 0, 500000000L };
	nanosleep(&warm, NULL);
	double t0 = now_s(), cpu0 = cpu_s();
	unsigned long long l0 = __atomic_load_n(&c.lines, __ATOMIC_RELAXED);
	struct timespec run = { (time_t)seconds,
				(long)((seconds - (double)(time_t)seconds) *
				       1e9) };
	nanosleep(&run, NULL);
	unsigned long long l1 = __atomic_load_n(&c.lines, __ATOMIC_RELAXED);
	double t1 = now_s(), cpu1 = cpu_s();
	c.stop = 1;
	pthread_join(wt, NULL);
	pthread_join(rt, NULL);
	printf("{\"deliveries_per_s\":%.1f,\"conns\":%d,\"event_bytes\":%zu,"
	       "\"batch\":%d,\"seconds\":%.2f,\"gbytes_per_s\":%.3f,"
	       "\"mode\":\"%s\",\"zc_done\":%llu,\"zc_copied\":%llu,"
	       "\"zc_nobufs\":%llu,\"cpu_cores\":%.2f,"
	       "\"deliveries_per_cpu_s\":%.1f,\"verify\":%d,\"bad\":%llu}\n",
	       (double)(l1 - l0) / (t1 - t0), c.n, evlen, batch, t1 - t0,
	       (double)(l1 - l0) * (double)evlen / (t1 - t0) / 1e9,
	       mode_names[c.mode], c.zc_done, c.zc_copied, c.zc_nobufs,
	       (cpu1 - cpu0) / (t1 - t0), (double)(l1 - l0) / (cpu1 - cpu0),
	       verify_mode, c.bad);
	for (int i = 0; i < c.n; i++) {
		close(c.srv[i]);
		close(c.cli[i]);
		if (c.mode == M_SPLICE || c.mode == M_TEE) {
			close(c.pipes[i][0]);
			close(c.pipes[i][1]);
		}
	}
	if (c.mode == M_TEE) {
		close(c.shared[0]);
		close(c.shared[1]);
	}
	free(c.pipes);
	free(c.rpos);
	free(c.expect);
	free(c.srv);
	free(c.cli);
	free(c.off);
	free(c.batch);
	return 0;
}
