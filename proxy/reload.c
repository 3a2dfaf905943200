/*
 * reload: a new --config applied to a running proxy (see reload.h).
 */
#include "proxy/reload.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cache/discover.h"
#include "cache/reflector.h"
#include "config/alloc.h"
#include "config/log.h"
#include "proxy/fresh.h"
#include "proxy/metrics.h"
#include "proxy/resources.h"

struct entry {
	struct config_scope sc;
	const struct cache_kind *kind;
	struct cache_resource **r; /* its reflectors */
	int nr;
};

struct proxy_reload {
	struct entry *e;
	int n;
	struct cache_kind **discovered; /* kinds resolved on reloads */
	int ndiscovered;
};

static void entry_free(struct entry *e)
{
	config_file_scope_free(&e->sc);
	free(e->r);
	memset(e, 0, sizeof(*e));
}

int proxy_reload_init(struct proxy *p)
{
	const struct config *cfg = p->cfg;
	struct proxy_reload *rl = xcalloc(1, sizeof(*rl));
	if (!rl ||
	    !(rl->e = xcalloc((size_t)cfg->nresources + 1, sizeof(*rl->e)))) {
		free(rl);
		return -ENOMEM;
	}
	int at = 0;
	for (int i = 0; i < cfg->nresources; i++) {
		struct entry *e = &rl->e[rl->n++];
		e->nr = proxy_resources_count(&cfg->scopes[i]);
		if (config_file_scope_copy(&e->sc, &cfg->scopes[i]) ||
		    !(e->r = xcalloc((size_t)e->nr, sizeof(*e->r))))
			goto fail;
		for (int k = 0; k < e->nr && at < p->nres; k++)
			e->r[k] = p->res[at++];
		e->kind = e->r[0] ? e->r[0]->kind : NULL;
	}
	p->reload = rl;
	return 0;
fail:
	p->reload = rl;
	proxy_reload_free(p);
	return -ENOMEM;
}

void proxy_reload_free(struct proxy *p)
{
	struct proxy_reload *rl = p->reload;
	if (!rl)
		return;
	for (int i = 0; i < rl->n; i++)
		entry_free(&rl->e[i]);
	free(rl->e);
	for (int i = 0; i < rl->ndiscovered; i++)
		cache_discover_free(rl->discovered[i]);
	free(rl->discovered);
	free(rl);
	p->reload = NULL;
}

/* The kind of spec, by any name kubectl takes: already known to this
 * proxy, built in, or asked of the upstream's discovery once (no
 * retrying: a reload that cannot resolve a name is refused). */
static const struct cache_kind *resolve(struct proxy *p, const char *spec,
					struct cache_kind **fresh, char *err,
					size_t errlen)
{
	struct proxy_reload *rl = p->reload;
	*fresh = NULL;
	for (int i = 0; i < rl->n; i++)
		if (rl->e[i].kind && !strcmp(rl->e[i].sc.resource, spec))
			return rl->e[i].kind;
	const struct cache_kind *k = cache_kind_lookup(spec);
	if (k)
		return k;
	bool stop = false;
	if (cache_discover_resolve(p->up, spec, &stop, &k, fresh, err, errlen))
		return NULL;
	return k;
}

static int reload(struct proxy *p, int argc, char **argv, int *added,
		  int *removed, char *err, size_t errlen)
{
	struct proxy_reload *rl = p->reload;
	struct config cfg;
	struct entry *ne = NULL; /* the new entries */
	bool *kept = NULL;	 /* old entries that stay */
	struct cache_kind **disc = NULL;
	int ndisc = 0, nnew = 0, made = 0;
	*added = *removed = 0;
	if (!rl) {
		snprintf(err, errlen, "no configuration to reload");
		return -EINVAL;
	}
	int rc = config_flags_parse(&cfg, argc, argv, err, errlen);
	if (rc) {
		config_flags_free(&cfg);
		return rc == 1 ? -EINVAL : rc;
	}
	ne = xcalloc((size_t)cfg.nresources + 1, sizeof(*ne));
	kept = xcalloc((size_t)rl->n + 1, sizeof(*kept));
	disc = xcalloc((size_t)cfg.nresources + 1, sizeof(*disc));
	if (!ne || !kept || !disc) {
		rc = -ENOMEM;
		snprintf(err, errlen, "out of memory");
		goto out;
	}
	/* Everything that can fail, before anything changes. */
	for (int i = 0; i < cfg.nresources; i++) {
		struct entry *e = &ne[nnew++];
		if ((rc = config_file_scope_copy(&e->sc, &cfg.scopes[i]))) {
			snprintf(err, errlen, "out of memory");
			goto out;
		}
		for (int k = 0; k < rl->n; k++)
			if (!kept[k] &&
			    config_file_scope_equal(&rl->e[k].sc, &e->sc)) {
				kept[k] = true;
				e->kind = rl->e[k].kind;
				e->r = rl->e[k].r; /* moved at commit */
				e->nr = rl->e[k].nr;
				break;
			}
		if (e->r)
			continue;
		struct cache_kind *found;
		char why[512];
		e->kind = resolve(p, e->sc.resource, &found, why, sizeof(why));
		if (!e->kind) {
			snprintf(err, errlen, "%s: %s: %s",
				 e->sc.where ? e->sc.where : "--resources",
				 e->sc.resource, why);
			rc = -EINVAL;
			goto out;
		}
		if (found)
			disc[ndisc++] = found;
		e->nr = proxy_resources_count(&e->sc);
		if (proxy_nres(p) + made + e->nr > PROXY_MAX_REFLECTORS) {
			snprintf(err, errlen,
				 "more than %d reflectors since start: restart "
				 "to apply this configuration",
				 PROXY_MAX_REFLECTORS);
			rc = -ENOSPC;
			goto out;
		}
		if (!(e->r = xcalloc((size_t)e->nr, sizeof(*e->r)))) {
			rc = -ENOMEM;
			snprintf(err, errlen, "out of memory");
			goto out;
		}
		int n = proxy_resources_make(e->kind, &e->sc, p->up,
					     (size_t)p->cfg->history, e->r,
					     e->nr, err, errlen);
		if (n < 0) {
			free(e->r);
			e->r = NULL;
			rc = n;
			goto out;
		}
		made += n;
	}
	for (int i = 0; i < nnew; i++)
		for (int k = 0; k < i; k++)
			if (ne[i].kind == ne[k].kind) {
				snprintf(err, errlen,
					 "%s: \"%s\" named twice: the same "
					 "resource as \"%s\"%s%s",
					 ne[i].sc.where ? ne[i].sc.where :
							  "--resources",
					 ne[i].sc.resource, ne[k].sc.resource,
					 ne[k].sc.where ? " at " : "",
					 ne[k].sc.where ? ne[k].sc.where : "");
				rc = -EINVAL;
				goto out;
			}

	/* Commit: retire what went, then add what came. */
	for (int k = 0; k < rl->n; k++) {
		if (kept[k])
			continue;
		(*removed)++;
		for (int j = 0; j < rl->e[k].nr; j++) {
			struct cache_resource *r = rl->e[k].r[j];
			__atomic_store_n(&r->retired, true, __ATOMIC_RELEASE);
			cache_history_wake_all(r->history); /* watches end */
			cache_reflector_stop(r);
		}
		log_info("reload: %s%s%s no longer cached",
			 rl->e[k].sc.resource,
			 rl->e[k].sc.nnamespaces ? " (namespaced)" : "",
			 rl->e[k].sc.label_selector ||
					 rl->e[k].sc.field_selector ?
				 " (selected)" :
				 "");
	}
	for (int i = 0; i < nnew; i++) {
		struct entry *e = &ne[i];
		bool old = false;
		for (int k = 0; k < rl->n && !old; k++)
			old = kept[k] && rl->e[k].r == e->r;
		if (old)
			continue;
		(*added)++;
		for (int j = 0; j < e->nr; j++) {
			int at = p->nres;
			p->res[at] = e->r[j];
			__atomic_store_n(&p->nres, at + 1, __ATOMIC_RELEASE);
			proxy_fresh_add(p->fresh, e->r[j]);
			if (cache_reflector_start(e->r[j]))
				log_error("reload: cannot start the reflector "
					  "of %s",
					  e->sc.resource);
		}
		log_info("reload: caching %s (%d reflector%s)", e->sc.resource,
			 e->nr, e->nr == 1 ? "" : "s");
	}
	/* the new entries are the list now; kept ones moved their arrays */
	for (int k = 0; k < rl->n; k++) {
		if (kept[k])
			rl->e[k].r = NULL;
		entry_free(&rl->e[k]);
	}
	free(rl->e);
	rl->e = ne;
	rl->n = nnew;
	ne = NULL;
	nnew = 0;
	made = 0;
	if (ndisc) {
		struct cache_kind **all = xrealloc(
			rl->discovered,
			(size_t)(rl->ndiscovered + ndisc) * sizeof(*all));
		if (all) {
			memcpy(all + rl->ndiscovered, disc,
			       (size_t)ndisc * sizeof(*all));
			rl->discovered = all;
			rl->ndiscovered += ndisc;
			ndisc = 0;
		} else {
			/* kinds in use must live: keep them, leaked */
			ndisc = 0;
		}
	}
	char changed[512];
	if (config_flags_changed(p->cfg, &cfg, changed, sizeof(changed)))
		log_warn("reload: only the resources are applied; changed "
			 "settings that wait for a restart: %s",
			 changed);
	rc = 0;
out:
	for (int i = 0; ne && i < nnew; i++) {
		bool old = false;
		for (int k = 0; k < rl->n && !old; k++)
			old = rl->e[k].r == ne[i].r;
		if (!old) {
			for (int j = 0; ne[i].r && j < ne[i].nr; j++)
				cache_resource_free(ne[i].r[j]);
		} else {
			ne[i].r = NULL;
		}
		entry_free(&ne[i]);
	}
	free(ne);
	free(kept);
	for (int i = 0; i < ndisc; i++)
		cache_discover_free(disc[i]);
	free(disc);
	config_flags_free(&cfg);
	return rc;
}

int proxy_reload_config(struct proxy *p, int argc, char **argv, int *added,
			int *removed, char *err, size_t errlen)
{
	int rc = reload(p, argc, argv, added, removed, err, errlen);
	proxy_metrics_reload_count(!rc);
	return rc;
}
