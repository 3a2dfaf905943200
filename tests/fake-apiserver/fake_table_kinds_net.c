/*
 * fake_table_kinds_net: the printers of services, endpoints, endpoint
 * slices, ingress classes, ingresses and network policies (see
 * fake_table_kinds_int.h).
 */
#include "fake_table_kinds_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

json_t *tk_print_service(json_t *o, time_t now)
{
	json_t *r = tk_row(), *spec = json_object_get(o, "spec"), *x;
	const char *type = tk_sget(spec, "type");
	struct tk_list ext = { "", 0 }, ports = { "", 0 };
	size_t i;

	tk_name_cell(r, o);
	tk_push(r, tk_str(type));
	/* clusterIPs, or the one clusterIP an older object has */
	x = json_array_get(json_object_get(spec, "clusterIPs"), 0);
	if (!x)
		x = json_object_get(spec, "clusterIP");
	tk_push(r, tk_str(x && *json_string_value(x) ? json_string_value(x) :
						       "<none>"));
	if (!strcmp(type, "LoadBalancer")) {
		const char *pts[64];
		size_t n = 0;
		json_array_foreach(tk_get(o, "status.loadBalancer.ingress"), i,
				   x)
		{
			const char *ip = tk_sget(x, "ip");
			if (!*ip)
				ip = tk_sget(x, "hostname");
			if (*ip && n < 64)
				pts[n++] = ip;
		}
		qsort(pts, n, sizeof(*pts), tk_by_str);
		for (i = 0; i < n; i++)
			if (!i || strcmp(pts[i], pts[i - 1]))
				tk_add(&ext, ",", pts[i]);
	}
	json_array_foreach(json_object_get(spec, "externalIPs"), i, x)
		tk_add(&ext, ",", json_string_value(x) ?: "");
	if (!strcmp(type, "ClusterIP") || !strcmp(type, "NodePort"))
		tk_push(r, tk_str(ext.n ? ext.s : "<none>"));
	else if (!strcmp(type, "LoadBalancer"))
		tk_push(r, tk_str(ext.n ? ext.s : "<pending>"));
	else if (!strcmp(type, "ExternalName"))
		tk_push(r, tk_str(tk_sget(spec, "externalName")));
	else
		tk_push(r, tk_str("<unknown>"));
	json_array_foreach(json_object_get(spec, "ports"), i, x)
	{
		char p[128];
		const char *proto =
			json_string_value(json_object_get(x, "protocol"));
		long long np = tk_iget(x, "nodePort", 0);
		if (np > 0)
			snprintf(p, sizeof(p), "%lld:%lld/%s",
				 (long long)tk_iget(x, "port", 0), np,
				 proto ? proto : "TCP");
		else
			snprintf(p, sizeof(p), "%lld/%s",
				 (long long)tk_iget(x, "port", 0),
				 proto ? proto : "TCP");
		tk_add(&ports, ",", p);
	}
	tk_push(r, tk_str(ports.n ? ports.s : "<none>"));
	tk_age_cell(r, o, now);
	tk_push(r, tk_labels_cell(json_object_get(spec, "selector")));
	return r;
}

/* formatEndpoints(ep, nil) */
static json_t *endpoints_cell(json_t *o)
{
	json_t *subsets = json_object_get(o, "subsets"), *ss;
	struct tk_list l = { "", 0 };
	int shown = 0, count = 0;
	size_t i;

	if (!json_array_size(subsets))
		return tk_str("<none>");
	json_array_foreach(subsets, i, ss)
	{
		json_t *addrs = json_object_get(ss, "addresses");
		json_t *ports = json_object_get(ss, "ports"), *p, *a;
		size_t j, k;
		if (!json_array_size(ports)) {
			count += (int)json_array_size(addrs);
			json_array_foreach(addrs, j, a)
			{
				if (shown == 3)
					break;
				tk_add(&l, ",", tk_sget(a, "ip"));
				shown++;
			}
			continue;
		}
		json_array_foreach(ports, j, p)
		{
			count += (int)json_array_size(addrs);
			json_array_foreach(addrs, k, a)
			{
				char hp[128];
				const char *ip = tk_sget(a, "ip");
				if (shown == 3)
					break;
				snprintf(hp, sizeof(hp),
					 strchr(ip, ':') ? "[%s]:%lld" :
							   "%s:%lld",
					 ip, (long long)tk_iget(p, "port", 0));
				tk_add(&l, ",", hp);
				shown++;
			}
		}
	}
	if (count > 3)
		return tk_fmt("%s + %d more...", l.s, count - 3);
	return tk_str(l.s);
}

json_t *tk_print_endpoints(json_t *o, time_t now)
{
	json_t *r = tk_row();
	tk_name_cell(r, o);
	tk_push(r, endpoints_cell(o));
	tk_age_cell(r, o, now);
	return r;
}

json_t *tk_print_ingressclass(json_t *o, time_t now)
{
	json_t *r = tk_row(), *p = tk_get(o, "spec.parameters");
	tk_name_cell(r, o);
	tk_push(r, tk_str(tk_sget(o, "spec.controller")));
	if (!p)
		tk_push(r, tk_str("<none>"));
	else if (tk_get(p, "apiGroup"))
		tk_push(r, tk_fmt("%s.%s/%s", tk_sget(p, "kind"),
				  tk_sget(p, "apiGroup"), tk_sget(p, "name")));
	else
		tk_push(r, tk_fmt("%s/%s", tk_sget(p, "kind"),
				  tk_sget(p, "name")));
	tk_age_cell(r, o, now);
	return r;
}

json_t *tk_print_ingress(json_t *o, time_t now)
{
	json_t *r = tk_row(), *rules = tk_get(o, "spec.rules"), *x;
	struct tk_list hosts = { "", 0 }, addrs = { "", 0 };
	const char *pts[32];
	size_t i, n = 0;
	int kept = 0;
	bool more = false;

	tk_name_cell(r, o);
	tk_push(r, tk_str(tk_get(o, "spec.ingressClassName") ?
				  tk_sget(o, "spec.ingressClassName") :
				  "<none>"));
	json_array_foreach(rules, i, x)
	{
		if (kept == 3) {
			more = true;
			break;
		}
		if (*tk_sget(x, "host")) {
			tk_add(&hosts, ",", tk_sget(x, "host"));
			kept++;
		}
	}
	if (!kept)
		tk_push(r, tk_str("*"));
	else if (more)
		tk_push(r, tk_fmt("%s + %zu more...", hosts.s,
				  json_array_size(rules) - 3));
	else
		tk_push(r, tk_str(hosts.s));
	json_array_foreach(tk_get(o, "status.loadBalancer.ingress"), i, x)
	{
		const char *a = *tk_sget(x, "ip") ? tk_sget(x, "ip") :
						    tk_sget(x, "hostname");
		if (*a && n < 32)
			pts[n++] = a;
	}
	qsort(pts, n, sizeof(*pts), tk_by_str);
	for (i = 0; i < n; i++)
		if (!i || strcmp(pts[i], pts[i - 1]))
			tk_add(&addrs, ",", pts[i]);
	tk_push(r, tk_str(addrs.s));
	tk_push(r, tk_str(json_array_size(tk_get(o, "spec.tls")) ? "80, 443" :
								   "80"));
	tk_age_cell(r, o, now);
	return r;
}

json_t *tk_print_networkpolicy(json_t *o, time_t now)
{
	json_t *r = tk_row();
	tk_name_cell(r, o);
	tk_push(r, tk_selector_cell(tk_get(o, "spec.podSelector")));
	tk_age_cell(r, o, now);
	return r;
}

/* listWithMoreString */
static json_t *list_more(struct tk_list *l, int count)
{
	if (count > 3)
		return tk_fmt("%s + %d more...", l->s, count - 3);
	return tk_str(l->n ? l->s : "<unset>");
}

json_t *tk_print_endpointslice(json_t *o, time_t now)
{
	json_t *r = tk_row(), *x, *a;
	struct tk_list ports = { "", 0 }, eps = { "", 0 };
	int np = 0, ne = 0, shown = 0;
	size_t i, j;
	tk_name_cell(r, o);
	tk_push(r, tk_str(tk_sget(o, "addressType")));
	json_array_foreach(json_object_get(o, "ports"), i, x)
	{
		if (np++ >= 3)
			continue;
		if (tk_get(x, "port")) {
			char num[24];
			snprintf(num, sizeof(num), "%lld",
				 (long long)tk_iget(x, "port", 0));
			tk_add(&ports, ",", num);
		} else if (tk_get(x, "name")) {
			tk_add(&ports, ",", tk_sget(x, "name"));
		} else {
			tk_add(&ports, ",", "*");
		}
	}
	tk_push(r, list_more(&ports, np));
	json_array_foreach(json_object_get(o, "endpoints"), i, x)
	{
		json_array_foreach(json_object_get(x, "addresses"), j, a)
		{
			if (shown < 3) {
				tk_add(&eps, ",", json_string_value(a) ?: "");
				shown++;
			}
			ne++;
		}
	}
	tk_push(r, list_more(&eps, ne));
	tk_age_cell(r, o, now);
	return r;
}
