/*
 * fake_cluster: the writes a real control plane makes on its own, so the
 * fake is not a silent cluster by default (docs/FAKE.md).
 *
 * One background thread, through the ordinary write path (store write
 * lock, fake_store_commit), so watches see every write and the one
 * global resourceVersion moves as on a real cluster:
 *   - every --lease-interval s (10) each simulated kubelet renews its
 *     Lease node-<i> in kube-node-lease (--nodes N, 3), and the apiserver
 *     renews its own apiserver-<id> Lease in kube-system: a MODIFIED with
 *     a new spec.renewTime; the first tick creates them. Renewals are
 *     spread over the period.
 *   - every --event-interval s (60) one Event about a node is created in
 *     namespace default, as a kubelet reports node conditions;
 *   - the system namespaces (default, kube-node-lease, kube-public,
 *     kube-system) are re-created when missing, as the apiserver's
 *     system-namespaces controller does (after a "wipe" fault);
 *   - every --compact-interval s (300) etcd is compacted to the RV of
 *     the previous tick (fake_store_compact_tick), as kube-apiserver's
 *     compactor does.
 * --quiet turns every background write off (compaction is not a write
 * and stays on unless its interval is 0). An interval of 0 turns that
 * writer off.
 */
#ifndef FAKE_CLUSTER_H
#define FAKE_CLUSTER_H

#include <stdbool.h>

struct fake_cluster_opts {
	unsigned nodes;	    /* node Leases: node-0..node-N-1 */
	unsigned lease_s;   /* renewal period, 0: no Leases */
	unsigned event_s;   /* one Event every event_s s, 0: none */
	unsigned compact_s; /* compaction period, 0: never */
	bool quiet;	    /* no background writes at all */
};

/* Create the system namespaces; during seeding, before serving. rv is
 * the last RV used and is advanced. 0 or -ENOMEM. */
int fake_cluster_seed_namespaces(unsigned long long *rv);
/* Start the background thread (nothing to do: no thread). 0 or -errno. */
int fake_cluster_start(const struct fake_cluster_opts *o);
/* Stop and join it; safe when it never started. */
void fake_cluster_stop(void);

#endif
