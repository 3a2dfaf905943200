/*
 * encode: protobuf encodings made off the serving thread (see encode.h).
 *
 * One lock guards the queue and the stop flag. A job belongs to the
 * queue, then to the worker that took it, which ends it: its snapshot
 * put, its items freed, its connection resumed.
 */
#include "proxy/encode.h"

#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>

#include "config/alloc.h"
#include "config/log.h"

/* Items encoded between two looks at the stop flag. */
#define STOP_EVERY 64

struct job {
	struct job *next;
	struct MHD_Connection *conn;
	struct cache_snap *snap;
	struct cache_obj **items;
	size_t n;
};

struct proxy_encode {
	pthread_mutex_t lock;
	pthread_cond_t cond;
	struct job *head, **tail; /* locked */
	bool stop;		  /* atomic; set under lock */
	pthread_t thread;
};

static void job_end(struct job *j)
{
	cache_store_snap_put(j->snap);
	free(j->items);
	MHD_resume_connection(j->conn);
	free(j);
}

static void *run(void *arg)
{
	struct proxy_encode *e = arg;
	pthread_mutex_lock(&e->lock);
	for (;;) {
		while (!e->head && !__atomic_load_n(&e->stop, __ATOMIC_RELAXED))
			pthread_cond_wait(&e->cond, &e->lock);
		struct job *j = e->head;
		if (!j)
			break; /* stopping, and nothing waits */
		e->head = j->next;
		if (!e->head)
			e->tail = &e->head;
		pthread_mutex_unlock(&e->lock);
		for (size_t i = 0; i < j->n; i++) {
			if (i % STOP_EVERY == 0 &&
			    __atomic_load_n(&e->stop, __ATOMIC_RELAXED))
				break;
			const unsigned char *raw;
			size_t len;
			/* an error is kept in the object: the handler, run
			 * again, finds it and sends the read upstream */
			if (cache_obj_pb(j->items[i], &raw, &len, NULL, 0))
				break;
		}
		job_end(j);
		pthread_mutex_lock(&e->lock);
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
	if (pthread_create(&e->thread, NULL, run, e)) {
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
	struct job *j = xcalloc(1, sizeof(*j));
	if (!j)
		return -ENOMEM;
	pthread_mutex_lock(&e->lock);
	if (__atomic_load_n(&e->stop, __ATOMIC_RELAXED)) {
		pthread_mutex_unlock(&e->lock);
		free(j);
		return -ESHUTDOWN;
	}
	*j = (struct job){ NULL, c, snap, items, n };
	/* suspended before the worker can see it, so its resume comes
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
	if (!was) /* the worker ends every job left, undone, then exits */
		pthread_join(e->thread, NULL);
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
