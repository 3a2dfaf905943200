/*
 * encode: protobuf encodings made off the serving thread (see encode.h).
 *
 * One lock guards the queue, each job's counts and the stop flag. The
 * workers share the job at the head of the queue, each claiming CHUNK
 * items at a time; the claim of its last items takes the job off the
 * queue, and whichever worker finishes its last chunk ends it: its
 * snapshot put, its items freed, its connection resumed.
 */
#include "proxy/encode.h"

#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>
#include <unistd.h>

#include "config/alloc.h"
#include "config/log.h"

/* Items a worker claims at a time (about 2 ms of encoding), and how
 * often it looks at the stop flag. */
#define CHUNK 64
/* Encoder threads, at most: one per CPU up to this. */
#define WORKERS_MAX 4

struct job {
	struct job *next;
	struct MHD_Connection *conn;
	struct cache_snap *snap;
	struct cache_obj **items;
	size_t n;
	size_t claimed; /* locked: items[0, claimed) are a worker's */
	int busy;	/* locked: chunks being encoded */
};

struct proxy_encode {
	pthread_mutex_t lock;
	pthread_cond_t cond;
	struct job *head, **tail; /* locked */
	bool stop;		  /* atomic; set under lock */
	int nworkers;
	pthread_t workers[WORKERS_MAX];
};

static void job_end(struct job *j)
{
	cache_store_snap_put(j->snap);
	free(j->items);
	MHD_resume_connection(j->conn);
	free(j);
}

/* Claim the next chunk of the head job (called locked): [*from, *to);
 * the job is off the queue once its last items are claimed. */
static struct job *claim(struct proxy_encode *e, size_t *from, size_t *to)
{
	struct job *j = e->head;
	*from = j->claimed;
	if (__atomic_load_n(&e->stop, __ATOMIC_RELAXED)) {
		*to = *from; /* none encoded: resumed at once */
		j->claimed = j->n;
	} else {
		*to = j->n - *from < CHUNK ? j->n : *from + CHUNK;
		j->claimed = *to;
	}
	j->busy++;
	if (j->claimed == j->n) {
		e->head = j->next;
		if (!e->head)
			e->tail = &e->head;
	}
	return j;
}

static void *run(void *arg)
{
	struct proxy_encode *e = arg;
	pthread_mutex_lock(&e->lock);
	for (;;) {
		while (!e->head && !__atomic_load_n(&e->stop, __ATOMIC_RELAXED))
			pthread_cond_wait(&e->cond, &e->lock);
		if (!e->head)
			break; /* stopping, and nothing waits */
		size_t from, to;
		struct job *j = claim(e, &from, &to);
		if (e->head)
			pthread_cond_signal(&e->cond); /* more to share */
		pthread_mutex_unlock(&e->lock);
		bool failed = false;
		for (size_t i = from; i < to && !failed; i++) {
			const unsigned char *raw;
			size_t len;
			/* an error is kept in the object: the handler, run
			 * again, finds it and sends the read upstream */
			failed = cache_obj_pb(j->items[i], &raw, &len, NULL, 0);
		}
		pthread_mutex_lock(&e->lock);
		if (failed && j->claimed < j->n) {
			/* the rest is in vain; a job is claimed from the head
			 * only, so one with items left is still there */
			j->claimed = j->n;
			e->head = j->next;
			if (!e->head)
				e->tail = &e->head;
		}
		if (--j->busy == 0 && j->claimed == j->n) {
			pthread_mutex_unlock(&e->lock);
			job_end(j);
			pthread_mutex_lock(&e->lock);
		}
	}
	pthread_mutex_unlock(&e->lock);
	return NULL;
}

struct proxy_encode *proxy_encode_new(void)
{
	struct proxy_encode *e = xcalloc(1, sizeof(*e));
	if (!e)
		return NULL;
	pthread_mutex_init(&e->lock, NULL);
	pthread_cond_init(&e->cond, NULL);
	e->tail = &e->head;
	long cpus = sysconf(_SC_NPROCESSORS_ONLN);
	int want = cpus < 1 ? 1 : cpus > WORKERS_MAX ? WORKERS_MAX : (int)cpus;
	while (e->nworkers < want &&
	       !pthread_create(&e->workers[e->nworkers], NULL, run, e))
		e->nworkers++;
	if (!e->nworkers) {
		log_warn("protobuf encodings: no thread of their own; the "
			 "first protobuf reads encode on their own threads");
		pthread_cond_destroy(&e->cond);
		pthread_mutex_destroy(&e->lock);
		free(e);
		return NULL;
	}
	return e;
}

int proxy_encode_submit(struct proxy_encode *e, struct MHD_Connection *c,
			struct cache_snap *snap, struct cache_obj **items,
			size_t n)
{
	if (!n)
		return -EINVAL;
	struct job *j = xcalloc(1, sizeof(*j));
	if (!j)
		return -ENOMEM;
	pthread_mutex_lock(&e->lock);
	if (__atomic_load_n(&e->stop, __ATOMIC_RELAXED)) {
		pthread_mutex_unlock(&e->lock);
		free(j);
		return -ESHUTDOWN;
	}
	*j = (struct job){ NULL, c, snap, items, n, 0, 0 };
	/* suspended before a worker can see it, so its resume comes
	 * after */
	MHD_suspend_connection(c);
	*e->tail = j;
	e->tail = &j->next;
	pthread_cond_signal(&e->cond);
	pthread_mutex_unlock(&e->lock);
	return 0;
}

void proxy_encode_stop(struct proxy_encode *e)
{
	if (!e)
		return;
	pthread_mutex_lock(&e->lock);
	bool was = __atomic_exchange_n(&e->stop, true, __ATOMIC_RELAXED);
	pthread_cond_broadcast(&e->cond);
	pthread_mutex_unlock(&e->lock);
	if (was)
		return;
	/* the workers end every job left, the rest undone, then exit */
	for (int i = 0; i < e->nworkers; i++)
		pthread_join(e->workers[i], NULL);
}

void proxy_encode_free(struct proxy_encode *e)
{
	if (!e)
		return;
	proxy_encode_stop(e);
	pthread_cond_destroy(&e->cond);
	pthread_mutex_destroy(&e->lock);
	free(e);
}
