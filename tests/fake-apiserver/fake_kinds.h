/*
 * fake_kinds: the further built-in kinds --all-kinds serves (apps
 * deployments, replicasets, statefulsets, daemonsets; batch jobs and
 * cronjobs; core secrets, serviceaccounts and endpoints; the admin kinds
 * are fake_kinds_admin.c's). Their seed objects: fake_kinds_seed.h.
 *
 * Without --all-kinds the fake serves only its first six kinds, as
 * before. Seeded objects have fixed creation times in the past, so what
 * kubectl prints for them does not change from one second to the next.
 */
#ifndef FAKE_KINDS_H
#define FAKE_KINDS_H

#include <stdbool.h>

/* Append the further kinds to fake_res_table. Before serving only.
 * 0, or -ENOSPC. */
int fake_kinds_enable(void);
/* Whether --all-kinds was given (fake_kinds_enable ran). */
bool fake_kinds_enabled(void);

#endif
