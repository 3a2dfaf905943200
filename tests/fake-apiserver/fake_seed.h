/*
 * fake_seed: deterministic, realistic demo objects for --seed.
 *
 * The same index always gives the same bytes (apart from the
 * resourceVersion passed in), so tests and benchmarks can regenerate what
 * the fake apiserver serves. Objects are compact JSON, field order as the
 * real apiserver writes it, sized like real ones: a pod is about 4-6 KB
 * with labels, spec.nodeName, status.phase, container statuses and
 * metadata.managedFields.
 */
#ifndef FAKE_SEED_H
#define FAKE_SEED_H

#include <stdint.h>

#include "config/buf.h"

/* Namespace used for object idx when spreading over nns namespaces:
 * "ns-<idx % nns>" (written into out, at least 32 bytes). */
void fake_seed_ns_name(unsigned idx, unsigned nns, char *out, unsigned outlen);

/* Append one object as compact JSON, no trailing newline. All return 0 or
 * -ENOMEM. rv is written as metadata.resourceVersion. */
int fake_seed_namespace(struct buf *out, const char *name, uint64_t rv);
int fake_seed_pod(struct buf *out, unsigned idx, const char *ns, uint64_t rv);
int fake_seed_configmap(struct buf *out, unsigned idx, const char *ns,
			uint64_t rv);
int fake_seed_service(struct buf *out, unsigned idx, const char *ns,
		      uint64_t rv);
/* A simple custom resource object: labels app=demo and shard,
 * spec.size, and status.{phase,ready,score,since,conditions}; ns NULL
 * when cluster-scoped. Named <singular>-<idx>. */
int fake_seed_custom(struct buf *out, unsigned idx, const char *ns,
		     const char *kind, const char *api_version,
		     const char *singular, uint64_t rv);

#endif
