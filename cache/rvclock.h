/*
 * rvclock: what the proxy has learned of the upstream's resourceVersion
 * over time, so that a quiet resource's watch can resume from a recent
 * RV instead of the RV of its last change.
 *
 * Every resource stored in one etcd shares one resourceVersion (etcd's
 * revision). A resourceVersion v seen at time t, in any answer (an event,
 * a BOOKMARK, a LIST, a probe), means every write with an RV up to v was
 * committed before t. A watch that was open and healthy from before
 * t - S until now has delivered every such write of its resource, if
 * delivery takes less than S (the settle time, 30 s by default, against
 * milliseconds in practice). The reflector then moves its resource to v
 * as an upstream BOOKMARK would, and resumes from there: the next
 * reconnect asks for a recent RV that the upstream's compaction has not
 * removed yet. docs/CONSISTENCY.md writes the argument out.
 *
 * Clocks are per storage domain: the core group and the built-in API
 * groups share one; any other group (a custom resource, or an aggregated
 * API with RVs of its own) gets its own, so an RV never crosses into a
 * server where it means something else.
 *
 * Threads: any thread notes and asks; one mutex per clock, held for a
 * few loads and stores.
 */
#ifndef CACHE_RVCLOCK_H
#define CACHE_RVCLOCK_H

#include <stdbool.h>
#include <stdint.h>

struct cache_rvclock;

/* The clock of group's storage domain; lives until the process ends.
 * NULL only when more than 64 domains are asked for. */
struct cache_rvclock *cache_rvclock_for_group(const char *group);

/* Monotonic milliseconds, the time base of every call here. */
int64_t cache_rvclock_now_ms(void);

/* rv was seen in an upstream answer at time at_ms. */
void cache_rvclock_note(struct cache_rvclock *c, uint64_t rv, int64_t at_ms);

/* The largest RV seen at or before at_ms; false when none was. */
bool cache_rvclock_seen_by(struct cache_rvclock *c, int64_t at_ms,
			   uint64_t *rv);
/* Forget every sample: the upstream's RVs went backwards (a wiped or
 * restored cluster), so none of them says anything about the new ones. */
void cache_rvclock_reset(struct cache_rvclock *c);

/* True when some RV was noted at or after since_ms. */
bool cache_rvclock_heard_since(struct cache_rvclock *c, int64_t since_ms);

#endif
