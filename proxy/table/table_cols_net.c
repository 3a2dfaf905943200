/*
 * table_cols_net: the columns of networking kinds: services, endpoints,
 * endpoint slices, ingresses, ingress classes and network policies, with
 * their own cell functions.
 */
#include "proxy/table/table_cols_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config/alloc.h"

/* CLUSTER-IP: spec.clusterIPs[0] (spec.clusterIP for an object written
 * before there were several), "<none>". */
static void c_svc_cluster_ip(struct buf *b, const struct tc_row *r,
			     const char *arg)
{
	int ips = tc_at(r, "spec.clusterIPs");
	char *ip = tc_dup_str(r->d, tc_members(r->d, ips) ?
					    json_first(r->d, ips) :
					    tc_at(r, "spec.clusterIP"));
	(void)arg;
	tc_put_str(b, ip[0] ? ip : "<none>");
	free(ip);
}

/* The strings of the array at arg into s, joined by sep. */
static void join_strs(struct tc_sbuf *s, const struct json_doc *d, int a,
		      const char *sep)
{
	for (int x = tc_members(d, a) ? json_first(d, a) : -1; x > 0;
	     x = json_next(d, a, x))
		tc_sb_token(s, sep, d, x);
}

/* A load balancer's ingress points: IPs, else hostnames, sorted and
 * without duplicates (sets.String), joined by ','. */
static void lb_ingress(struct tc_sbuf *out, const struct json_doc *d, int ing)
{
	int n = tc_members(d, ing), i = 0;
	char **v = n ? xcalloc((size_t)n, sizeof(*v)) : NULL;
	for (int x = n ? json_first(d, ing) : -1; x > 0 && i < n;
	     x = json_next(d, ing, x)) {
		char *ip = tc_dup_str(d, json_get(d, x, "ip"));
		if (!ip[0]) {
			free(ip);
			ip = tc_dup_str(d, json_get(d, x, "hostname"));
		}
		if (ip[0])
			v[i++] = ip;
		else
			free(ip);
	}
	tc_sort_n(v, (size_t)i, sizeof(*v), tc_cmp_str);
	for (int j = 0; j < i; j++) {
		if (!j || strcmp(v[j], v[j - 1]))
			tc_sb_item(out, ",", v[j], strlen(v[j]));
	}
	for (int j = 0; j < i; j++)
		free(v[j]);
	free(v);
}

static void c_svc_external_ip(struct buf *b, const struct tc_row *r,
			      const char *arg)
{
	int type = tc_at(r, "spec.type"), ext = tc_at(r, "spec.externalIPs");
	struct tc_sbuf s = { BUF_INIT, 0 };
	(void)arg;
	if (tc_str_eq(r->d, type, "ClusterIP") ||
	    tc_str_eq(r->d, type, "NodePort")) {
		join_strs(&s, r->d, ext, ",");
		tc_sb_put(b, &s, "<none>");
	} else if (tc_str_eq(r->d, type, "LoadBalancer")) {
		lb_ingress(&s, r->d, tc_at(r, "status.loadBalancer.ingress"));
		join_strs(&s, r->d, ext, ",");
		tc_sb_put(b, &s, "<pending>");
	} else if (tc_str_eq(r->d, type, "ExternalName")) {
		tc_cell_str(b, r, "spec.externalName");
	} else {
		tc_put_str(b, "<unknown>");
	}
}

/* PORT(S): port/protocol or port:nodePort/protocol, joined by ','. */
static void c_svc_ports(struct buf *b, const struct tc_row *r, const char *arg)
{
	int ps = tc_at(r, "spec.ports");
	struct tc_sbuf s = { BUF_INIT, 0 };
	(void)arg;
	for (int p = tc_members(r->d, ps) ? json_first(r->d, ps) : -1; p > 0;
	     p = json_next(r->d, ps, p)) {
		char item[160];
		int pt = json_get(r->d, p, "protocol");
		char *proto = tc_is_str(r->d, pt) ? tc_dup_str(r->d, pt) :
						    xstrdup("TCP");
		long long port = (long long)tc_int_of(
			r->d, json_get(r->d, p, "port"), 0);
		long long np = (long long)tc_int_of(
			r->d, json_get(r->d, p, "nodePort"), 0);
		if (np > 0)
			snprintf(item, sizeof(item), "%lld:%lld/%s", port, np,
				 proto);
		else
			snprintf(item, sizeof(item), "%lld/%s", port, proto);
		tc_sb_item(&s, ",", item, strlen(item));
		free(proto);
	}
	tc_sb_put(b, &s, "<none>");
}

/* ---- endpoints ---- */

/* ENDPOINTS: up to three ip:port (or ip for a subset without ports),
 * then " + N more...", "<none>" without subsets. */
static void c_endpoints(struct buf *b, const struct tc_row *r, const char *arg)
{
	int subsets = tc_at(r, "subsets"), count = 0;
	struct tc_sbuf s = { BUF_INIT, 0 };
	bool more = false;
	(void)arg;
	if (!tc_members(r->d, subsets)) {
		tc_put_str(b, "<none>");
		return;
	}
	for (int ss = json_first(r->d, subsets); ss > 0;
	     ss = json_next(r->d, subsets, ss)) {
		int addrs = json_get(r->d, ss, "addresses");
		int ports = json_get(r->d, ss, "ports");
		int na = tc_members(r->d, addrs);
		if (!tc_members(r->d, ports)) {
			count += na;
			for (int a = na ? json_first(r->d, addrs) : -1; a > 0;
			     a = json_next(r->d, addrs, a)) {
				if (s.n == 3) {
					more = true;
					break;
				}
				tc_sb_token(&s, ",", r->d,
					    json_get(r->d, a, "ip"));
			}
			continue;
		}
		for (int p = json_first(r->d, ports); p > 0;
		     p = json_next(r->d, ports, p)) {
			long long port = (long long)tc_int_of(
				r->d, json_get(r->d, p, "port"), 0);
			count += na;
			for (int a = na ? json_first(r->d, addrs) : -1; a > 0;
			     a = json_next(r->d, addrs, a)) {
				char *ip, hp[128];
				if (s.n == 3) {
					more = true;
					break;
				}
				ip = tc_dup_str(r->d, json_get(r->d, a, "ip"));
				snprintf(hp, sizeof(hp),
					 strchr(ip, ':') ? "[%s]:%lld" :
							   "%s:%lld",
					 ip, port);
				tc_sb_item(&s, ",", hp, strlen(hp));
				free(ip);
			}
		}
	}
	if (more)
		buf_printf(&s.b, " + %d more...", count - 3);
	s.n = 1;
	tc_sb_put(b, &s, "");
}

/* PARAMETERS of an IngressClass: Kind[.apiGroup]/name, or <none>. */
static void c_ic_params(struct buf *b, const struct tc_row *r, const char *arg)
{
	int p = tc_at(r, "spec.parameters");
	struct buf s = BUF_INIT;
	(void)arg;
	if (tc_is_null(r->d, p)) {
		tc_put_str(b, "<none>");
		return;
	}
	char *kind = tc_dup_str(r->d, json_get(r->d, p, "kind"));
	char *name = tc_dup_str(r->d, json_get(r->d, p, "name"));
	int g = json_get(r->d, p, "apiGroup");
	buf_adds(&s, kind);
	if (!tc_is_null(r->d, g)) {
		char *group = tc_dup_str(r->d, g);
		buf_printf(&s, ".%s", group);
		free(group);
	}
	buf_printf(&s, "/%s", name);
	tc_put_buf(b, &s);
	free(kind);
	free(name);
}

/* HOSTS of an Ingress: up to three rule hosts, "*" when none. */
static void c_ing_hosts(struct buf *b, const struct tc_row *r, const char *arg)
{
	int rules = tc_at(r, "spec.rules"), n = tc_members(r->d, rules);
	struct tc_sbuf s = { BUF_INIT, 0 };
	bool more = false;
	(void)arg;
	for (int x = n ? json_first(r->d, rules) : -1; x > 0;
	     x = json_next(r->d, rules, x)) {
		int h = json_get(r->d, x, "host");
		if (s.n == 3)
			more = true;
		if (!more && tc_is_str(r->d, h) && json_str_len(r->d, h))
			tc_sb_token(&s, ",", r->d, h);
	}
	if (!s.n) {
		buf_free(&s.b);
		tc_put_str(b, "*");
		return;
	}
	if (more)
		buf_printf(&s.b, " + %d more...", n - 3);
	tc_sb_put(b, &s, "");
}

static void c_ing_address(struct buf *b, const struct tc_row *r,
			  const char *arg)
{
	struct tc_sbuf s = { BUF_INIT, 0 };
	(void)arg;
	lb_ingress(&s, r->d, tc_at(r, "status.loadBalancer.ingress"));
	tc_sb_put(b, &s, "");
}

static void c_ing_ports(struct buf *b, const struct tc_row *r, const char *arg)
{
	(void)arg;
	tc_put_str(b,
		   tc_members(r->d, tc_at(r, "spec.tls")) ? "80, 443" : "80");
}

/* Up to three items, then " + N more...", "<unset>" when none. */
static void more_or_unset(struct buf *b, struct tc_sbuf *s, int count)
{
	if (count > 3)
		buf_printf(&s->b, " + %d more...", count - 3);
	if (!s->n) {
		buf_free(&s->b);
		tc_put_str(b, "<unset>");
		return;
	}
	tc_sb_put(b, s, "");
}

static void c_es_ports(struct buf *b, const struct tc_row *r, const char *arg)
{
	int ps = tc_at(r, "ports"), count = 0;
	struct tc_sbuf s = { BUF_INIT, 0 };
	(void)arg;
	for (int p = tc_members(r->d, ps) ? json_first(r->d, ps) : -1; p > 0;
	     p = json_next(r->d, ps, p), count++) {
		int port = json_get(r->d, p, "port");
		int name = json_get(r->d, p, "name");
		if (s.n == 3)
			continue;
		if (!tc_is_null(r->d, port)) {
			char num[24];
			snprintf(num, sizeof(num), "%lld",
				 (long long)tc_int_of(r->d, port, 0));
			tc_sb_item(&s, ",", num, strlen(num));
		} else if (!tc_is_null(r->d, name)) {
			tc_sb_token(&s, ",", r->d, name);
		} else {
			tc_sb_item(&s, ",", "*", 1);
		}
	}
	more_or_unset(b, &s, count);
}

static void c_es_endpoints(struct buf *b, const struct tc_row *r,
			   const char *arg)
{
	int eps = tc_at(r, "endpoints"), count = 0;
	struct tc_sbuf s = { BUF_INIT, 0 };
	(void)arg;
	for (int e = tc_members(r->d, eps) ? json_first(r->d, eps) : -1; e > 0;
	     e = json_next(r->d, eps, e)) {
		int as = json_get(r->d, e, "addresses");
		for (int a = tc_members(r->d, as) ? json_first(r->d, as) : -1;
		     a > 0; a = json_next(r->d, as, a), count++)
			if (s.n < 3)
				tc_sb_token(&s, ",", r->d, a);
	}
	more_or_unset(b, &s, count);
}

const struct tc_col tc_service_cols[] = {
	NAME_COL,
	{ "Type", "string", "",
	  "type determines how the Service is exposed. Defaults to ClusterIP. Valid options are ExternalName, ClusterIP, NodePort, and LoadBalancer. \"ClusterIP\" allocates a cluster-internal IP address for load-balancing to endpoints. Endpoints are determined by the selector or if that is not specified, by manual construction of an Endpoints object or EndpointSlice objects. If clusterIP is \"None\", no virtual IP is allocated and the endpoints are published as a set of endpoints rather than a virtual IP. \"NodePort\" builds on ClusterIP and allocates a port on every node which routes to the same endpoints as the clusterIP. \"LoadBalancer\" builds on NodePort and creates an external load-balancer (if supported in the current cloud) which routes to the same endpoints as the clusterIP. \"ExternalName\" aliases this service to the specified externalName. Several other fields do not apply to ExternalName services. More info: https://kubernetes.io/docs/concepts/services-networking/service/#publishing-services-service-types",
	  0, tc_cell_str, "spec.type" },
	{ "Cluster-IP", "string", "",
	  "clusterIP is the IP address of the service and is usually assigned randomly. If an address is specified manually, is in-range (as per system configuration), and is not in use, it will be allocated to the service; otherwise creation of the service will fail. This field may not be changed through updates unless the type field is also being changed to ExternalName (which requires this field to be blank) or the type field is being changed from ExternalName (in which case this field may optionally be specified, as describe above).  Valid values are \"None\", empty string (\"\"), or a valid IP address. Setting this to \"None\" makes a \"headless service\" (no virtual IP), which is useful when direct endpoint connections are preferred and proxying is not required.  Only applies to types ClusterIP, NodePort, and LoadBalancer. If this field is specified when creating a Service of type ExternalName, creation will fail. This field will be wiped when updating a Service to type ExternalName. More info: https://kubernetes.io/docs/concepts/services-networking/service/#virtual-ips-and-service-proxies", 0,
	  c_svc_cluster_ip, NULL },
	{ "External-IP", "string", "",
	  "externalIPs is a list of IP addresses for which nodes in the cluster will also accept traffic for this service.  These IPs are not managed by Kubernetes.  The user is responsible for ensuring that traffic arrives at a node with this IP.  A common example is external load-balancers that are not part of the Kubernetes system.",
	  0, c_svc_external_ip, NULL },
	{ "Port(s)", "string", "",
	  "The list of ports that are exposed by this service. More info: https://kubernetes.io/docs/concepts/services-networking/service/#virtual-ips-and-service-proxies",
	  0, c_svc_ports, NULL },
	AGE_COL,
	{ "Selector", "string", "",
	  "Route service traffic to pods with label keys and values matching this selector. If empty or not present, the service is assumed to have an external process managing its endpoints, which Kubernetes will not modify. Only applies to types ClusterIP, NodePort, and LoadBalancer. Ignored if type is ExternalName. More info: https://kubernetes.io/docs/concepts/services-networking/service/",
	  1, tc_cell_labels, "spec.selector" },
	TC_END,
};

const struct tc_col tc_endpoints_cols[] = {
	NAME_COL,
	{ "Endpoints", "string", "",
	  "The set of all endpoints is the union of all subsets. Addresses are placed into subsets according to the IPs they share. A single address with multiple ports, some of which are ready and some of which are not (because they come from different containers) will result in the address being displayed in different subsets for the different ports. No address will appear in both Addresses and NotReadyAddresses in the same subset. Sets of addresses and ports that comprise a service.",
	  0, c_endpoints, NULL },
	AGE_COL,
	TC_END,
};

const struct tc_col tc_ingressclass_cols[] = {
	NAME_COL,
	{ "Controller", "string", "",
	  "Controller that is responsible for handling this class", 0,
	  tc_cell_str, "spec.controller" },
	{ "Parameters", "string", "",
	  "A reference to a resource with additional parameters", 0,
	  c_ic_params, NULL },
	AGE_COL,
	TC_END,
};

const struct tc_col tc_ingress_cols[] = {
	NAME_COL,
	{ "Class", "string", "",
	  "The name of the IngressClass resource that should be used for additional configuration",
	  0, tc_cell_str_or_none, "spec.ingressClassName" },
	{ "Hosts", "string", "",
	  "Hosts that incoming requests are matched against before the ingress rule",
	  0, c_ing_hosts, NULL },
	{ "Address", "string", "",
	  "Address is a list containing ingress points for the load-balancer",
	  0, c_ing_address, NULL },
	{ "Ports", "string", "", "Ports of TLS configurations that open", 0,
	  c_ing_ports, NULL },
	AGE_COL,
	TC_END,
};

const struct tc_col tc_networkpolicy_cols[] = {
	NAME_COL,
	{ "Pod-Selector", "string", "",
	  "Selects the pods to which this NetworkPolicy object applies.  The array of ingress rules is applied to any pods selected by this field. Multiple network policies can select the same set of pods.  In this case, the ingress rules for each are combined additively. This field is NOT optional and follows standard label selector semantics. An empty podSelector matches all pods in this namespace.",
	  0, tc_cell_selector, "spec.podSelector" },
	AGE_COL,
	TC_END,
};

const struct tc_col tc_endpointslice_cols[] = {
	NAME_COL,
	{ "AddressType", "string", "",
	  "addressType specifies the type of address carried by this EndpointSlice. All addresses in this slice must be the same type. This field is immutable after creation. The following address types are currently supported: * IPv4: Represents an IPv4 Address. * IPv6: Represents an IPv6 Address. * FQDN: Represents a Fully Qualified Domain Name.",
	  0, tc_cell_str, "addressType" },
	{ "Ports", "string", "",
	  "ports specifies the list of network ports exposed by each endpoint in this slice. Each port must have a unique name. When ports is empty, it indicates that there are no defined ports. When a port is defined with a nil port value, it indicates \"all ports\". Each slice may include a maximum of 100 ports.",
	  0, c_es_ports, NULL },
	{ "Endpoints", "string", "",
	  "endpoints is a list of unique endpoints in this slice. Each slice may include a maximum of 1000 endpoints.",
	  0, c_es_endpoints, NULL },
	AGE_COL,
	TC_END,
};
