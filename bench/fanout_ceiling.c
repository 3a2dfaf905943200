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
 *
 * Prints one JSON line: {"deliveries_per_s":..,"conns":..,"event_bytes":..}
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
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#define SCRATCH (256 * 1024)

struct ceiling {
	int n;
	int *srv;    /* writer ends */
	int *cli;    /* reader ends */
	size_t *off; /* writer progress in the batch, per socket */
	char *batch;
	size_t batch_len;
	volatile int stop;
	unsigned long long lines;
};

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
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
			for (;;) { /* until EAGAIN: edge-triggered */
				ssize_t w =
					send(c->srv[i], c->batch + c->off[i],
					     c->batch_len - c->off[i],
					     MSG_NOSIGNAL | MSG_DONTWAIT);
				if (w <= 0)
					break;
				c->off[i] =
					(c->off[i] + (size_t)w) % c->batch_len;
			}
		}
	}
	close(ep);
	return NULL;
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
			ssize_t r = recv(c->cli[evs[j].data.u32], buf, SCRATCH,
					 MSG_DONTWAIT);
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
	}
	close(ls);
	return 0;
}

int main(int argc, char **argv)
{
	struct ceiling c = { .n = 1000 };
	const char *event = NULL;
	double seconds = 3;
	int batch = 8;

	for (int i = 1; i + 1 < argc; i += 2) {
		if (!strcmp(argv[i], "--event"))
			event = argv[i + 1];
		else if (!strcmp(argv[i], "--conns"))
			c.n = atoi(argv[i + 1]);
		else if (!strcmp(argv[i], "--seconds"))
			seconds = atof(argv[i + 1]);
		else if (!strcmp(argv[i], "--batch"))
			batch = atoi(argv[i + 1]);
	}
	FILE *f = event ? fopen(event, "rb") : NULL;
	if (!f || c.n < 1 || batch < 1 || seconds <= 0) {
		fprintf(stderr,
			"usage: fanout_ceiling --event FILE [--conns N] "
			"[--seconds S] [--batch B]\n");
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
	c.batch_len = evlen * (size_t)batch;
	c.batch = malloc(c.batch_len);
	if (!c.srv || !c.cli || !c.off || !c.batch)
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
	double t0 = now_s();
	unsigned long long l0 = __atomic_load_n(&c.lines, __ATOMIC_RELAXED);
	struct timespec run = { (time_t)seconds,
				(long)((seconds - (double)(time_t)seconds) *
				       1e9) };
	nanosleep(&run, NULL);
	unsigned long long l1 = __atomic_load_n(&c.lines, __ATOMIC_RELAXED);
	double t1 = now_s();
	c.stop = 1;
	pthread_join(wt, NULL);
	pthread_join(rt, NULL);
	printf("{\"deliveries_per_s\":%.1f,\"conns\":%d,\"event_bytes\":%zu,"
	       "\"batch\":%d,\"seconds\":%.2f,\"gbytes_per_s\":%.3f}\n",
	       (double)(l1 - l0) / (t1 - t0), c.n, evlen, batch, t1 - t0,
	       (double)(l1 - l0) * (double)evlen / (t1 - t0) / 1e9);
	for (int i = 0; i < c.n; i++) {
		close(c.srv[i]);
		close(c.cli[i]);
	}
	free(c.srv);
	free(c.cli);
	free(c.off);
	free(c.batch);
	return 0;
}
