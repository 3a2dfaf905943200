/*
 * pb_schema_networking: the networking.k8s.io/v1 messages of the
 * protobuf schema (see pb_schema.h): every field of k8s.io/api's
 * generated.proto (v0.32), one row each, in Go struct order.
 */
#include "cache/pb_schema_networking.h"

#include "cache/pb_schema_core.h"
#include "cache/pb_schema_meta.h"

PB_MSG(pb_net_service_backend_port, "ServiceBackendPort",
       PB_F(1, "name", PB_STR, 0), PB_F(2, "number", PB_INT, 0));

PB_MSG(pb_net_ingress_service_backend, "IngressServiceBackend",
       PB_F(1, "name", PB_STR, PB_KEEP),
       PB_M(2, "port", pb_net_service_backend_port, PB_KEEP));

PB_MSG(pb_net_ingress_backend, "IngressBackend",
       PB_M(4, "service", pb_net_ingress_service_backend, PB_PTR),
       PB_M(3, "resource", pb_typed_local_object_reference, PB_PTR));

PB_MSG(pb_net_ingress_tls, "IngressTLS", PB_F(1, "hosts", PB_STR, PB_REP),
       PB_F(2, "secretName", PB_STR, 0));

PB_MSG(pb_net_http_ingress_path, "HTTPIngressPath", PB_F(1, "path", PB_STR, 0),
       PB_F(3, "pathType", PB_STR, PB_PTR | PB_KEEP),
       PB_M(2, "backend", pb_net_ingress_backend, PB_KEEP));

PB_MSG(pb_net_http_ingress_rule_value, "HTTPIngressRuleValue",
       PB_M(1, "paths", pb_net_http_ingress_path, PB_REP | PB_KEEP));

PB_MSG(pb_net_ingress_rule_value, "IngressRuleValue",
       PB_M(1, "http", pb_net_http_ingress_rule_value, PB_PTR));

PB_MSG(pb_net_ingress_rule, "IngressRule", PB_F(1, "host", PB_STR, 0),
       PB_I(2, pb_net_ingress_rule_value));

PB_MSG(pb_net_ingress_spec, "IngressSpec",
       PB_F(4, "ingressClassName", PB_STR, PB_PTR),
       PB_M(1, "defaultBackend", pb_net_ingress_backend, PB_PTR),
       PB_M(2, "tls", pb_net_ingress_tls, PB_REP),
       PB_M(3, "rules", pb_net_ingress_rule, PB_REP));

PB_MSG(pb_net_ingress_port_status, "IngressPortStatus",
       PB_F(1, "port", PB_INT, PB_KEEP), PB_F(2, "protocol", PB_STR, PB_KEEP),
       PB_F(3, "error", PB_STR, PB_PTR));

PB_MSG(pb_net_ingress_load_balancer_ingress, "IngressLoadBalancerIngress",
       PB_F(1, "ip", PB_STR, 0), PB_F(2, "hostname", PB_STR, 0),
       PB_M(4, "ports", pb_net_ingress_port_status, PB_REP));

PB_MSG(pb_net_ingress_load_balancer_status, "IngressLoadBalancerStatus",
       PB_M(1, "ingress", pb_net_ingress_load_balancer_ingress, PB_REP));

PB_MSG(pb_net_ingress_status, "IngressStatus",
       PB_M(1, "loadBalancer", pb_net_ingress_load_balancer_status, PB_KEEP));

PB_MSG(pb_net_ingress, "Ingress", PB_M(1, "metadata", pb_object_meta, PB_KEEP),
       PB_M(2, "spec", pb_net_ingress_spec, PB_KEEP),
       PB_M(3, "status", pb_net_ingress_status, PB_KEEP));

PB_MSG(pb_net_ingress_list, "IngressList",
       PB_M(1, "metadata", pb_list_meta, PB_KEEP),
       PB_M(2, "items", pb_net_ingress, PB_REP | PB_KEEP));

PB_MSG(pb_net_ingress_class_parameters_reference,
       "IngressClassParametersReference", PB_F(1, "apiGroup", PB_STR, PB_PTR),
       PB_F(2, "kind", PB_STR, PB_KEEP), PB_F(3, "name", PB_STR, PB_KEEP),
       PB_F(4, "scope", PB_STR, PB_PTR | PB_KEEP),
       PB_F(5, "namespace", PB_STR, PB_PTR));

PB_MSG(pb_net_ingress_class_spec, "IngressClassSpec",
       PB_F(1, "controller", PB_STR, 0),
       PB_M(2, "parameters", pb_net_ingress_class_parameters_reference,
	    PB_PTR));

PB_MSG(pb_net_ingress_class, "IngressClass",
       PB_M(1, "metadata", pb_object_meta, PB_KEEP),
       PB_M(2, "spec", pb_net_ingress_class_spec, PB_KEEP));

PB_MSG(pb_net_ingress_class_list, "IngressClassList",
       PB_M(1, "metadata", pb_list_meta, PB_KEEP),
       PB_M(2, "items", pb_net_ingress_class, PB_REP | PB_KEEP));

PB_MSG(pb_net_network_policy_port, "NetworkPolicyPort",
       PB_F(1, "protocol", PB_STR, PB_PTR), PB_F(2, "port", PB_INTSTR, PB_PTR),
       PB_F(3, "endPort", PB_INT, PB_PTR));

PB_MSG(pb_net_ip_block, "IPBlock", PB_F(1, "cidr", PB_STR, PB_KEEP),
       PB_F(2, "except", PB_STR, PB_REP));

PB_MSG(pb_net_network_policy_peer, "NetworkPolicyPeer",
       PB_M(1, "podSelector", pb_label_selector, PB_PTR),
       PB_M(2, "namespaceSelector", pb_label_selector, PB_PTR),
       PB_M(3, "ipBlock", pb_net_ip_block, PB_PTR));

PB_MSG(pb_net_network_policy_ingress_rule, "NetworkPolicyIngressRule",
       PB_M(1, "ports", pb_net_network_policy_port, PB_REP),
       PB_M(2, "from", pb_net_network_policy_peer, PB_REP));

PB_MSG(pb_net_network_policy_egress_rule, "NetworkPolicyEgressRule",
       PB_M(1, "ports", pb_net_network_policy_port, PB_REP),
       PB_M(2, "to", pb_net_network_policy_peer, PB_REP));

PB_MSG(pb_net_network_policy_spec, "NetworkPolicySpec",
       PB_M(1, "podSelector", pb_label_selector, PB_KEEP),
       PB_M(2, "ingress", pb_net_network_policy_ingress_rule, PB_REP),
       PB_M(3, "egress", pb_net_network_policy_egress_rule, PB_REP),
       PB_F(4, "policyTypes", PB_STR, PB_REP));

PB_MSG(pb_net_network_policy, "NetworkPolicy",
       PB_M(1, "metadata", pb_object_meta, PB_KEEP),
       PB_M(2, "spec", pb_net_network_policy_spec, PB_KEEP));

PB_MSG(pb_net_network_policy_list, "NetworkPolicyList",
       PB_M(1, "metadata", pb_list_meta, PB_KEEP),
       PB_M(2, "items", pb_net_network_policy, PB_REP | PB_KEEP));
