/*
 * fake_kinds: the further built-in kinds --all-kinds serves (apps
 * deployments, replicasets, statefulsets, daemonsets; batch jobs and
 * cronjobs; core secrets, serviceaccounts and endpoints), and --seed's
 * objects for them and for services, events and leases, made to exercise
 * every cell the apiserver's printers compute (fake_table_kinds.c).
 *
 * Without --all-kinds the fake serves only its first six kinds, as
 * before. Seeded objects have fixed creation times in the past, so what
 * kubectl prints for them does not change from one second to the next.
 */
#ifndef FAKE_KINDS_H
#define FAKE_KINDS_H

#include <stdbool.h>
#include <stdint.h>

#include "config/buf.h"

/* Append the further kinds to fake_res_table. Before serving only.
 * 0, or -ENOSPC. */
int fake_kinds_enable(void);
/* Whether --all-kinds was given (fake_kinds_enable ran). */
bool fake_kinds_enabled(void);
/* Seed object idx of resource res into out (compact JSON): 0, -ENOENT
 * when this module does not seed res, or -ENOMEM. */
int fake_kinds_seed(struct buf *out, int res, unsigned idx, const char *ns,
		    uint64_t rv);

#endif
