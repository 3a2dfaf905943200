/*
 * rcu: the few RCU operations the cache uses, in one place.
 *
 * Read-side sections and grace periods are liburcu's "bulletproof"
 * flavour, which needs no per-thread registration: libmicrohttpd and
 * libcurl create threads we do not control.
 *
 * Pointers are published and read with the compiler's atomics (release
 * exchange, acquire load). On x86 and arm64 these cost what
 * rcu_assign_pointer/rcu_dereference cost, and ThreadSanitizer
 * understands them. What it cannot see is a grace period, so in TSan
 * builds every read-side unlock releases a token that every RCU callback
 * acquires: the callback runs after the readers it waited for, and TSan
 * is told so.
 */
#ifndef CACHE_RCU_H
#define CACHE_RCU_H

#include <urcu-bp.h>

#if defined(__SANITIZE_THREAD__)
void __tsan_acquire(void *addr);
void __tsan_release(void *addr);
extern char cache_rcu_tsan_token;
#define CACHE_RCU_TSAN_RELEASE() __tsan_release(&cache_rcu_tsan_token)
#define CACHE_RCU_TSAN_ACQUIRE() __tsan_acquire(&cache_rcu_tsan_token)
#else
#define CACHE_RCU_TSAN_RELEASE() \
	do {                     \
	} while (0)
#define CACHE_RCU_TSAN_ACQUIRE() \
	do {                     \
	} while (0)
#endif

static inline void cache_rcu_lock(void)
{
	rcu_read_lock();
}

static inline void cache_rcu_unlock(void)
{
	CACHE_RCU_TSAN_RELEASE();
	rcu_read_unlock();
}

/* Publish v at *pp; returns the pointer it replaces. */
#define cache_rcu_xchg(pp, v) __atomic_exchange_n((pp), (v), __ATOMIC_ACQ_REL)
/* Read a published pointer; call inside cache_rcu_lock(). */
#define cache_rcu_load(pp) __atomic_load_n((pp), __ATOMIC_ACQUIRE)
/* The first statement of every call_rcu() callback. */
#define cache_rcu_callback() CACHE_RCU_TSAN_ACQUIRE()
/* call_rcu(), telling TSan that what the caller did before (reading the
 * object it retires, say) comes before the callback. */
#define cache_rcu_defer(head, fn)         \
	do {                              \
		CACHE_RCU_TSAN_RELEASE(); \
		call_rcu((head), (fn));   \
	} while (0)

#endif
