/*
 * pb_schema_networking: the networking.k8s.io/v1 messages of the
 * protobuf schema (see pb_schema.h); the kinds among them are
 * registered in pb_kinds.c.
 */
#ifndef CACHE_PB_SCHEMA_NETWORKING_H
#define CACHE_PB_SCHEMA_NETWORKING_H

#include "cache/pb_schema.h"

extern const struct pb_msg pb_net_service_backend_port;
extern const struct pb_msg pb_net_ingress_service_backend;
extern const struct pb_msg pb_net_ingress_backend;
extern const struct pb_msg pb_net_ingress_tls;
extern const struct pb_msg pb_net_http_ingress_path;
extern const struct pb_msg pb_net_http_ingress_rule_value;
extern const struct pb_msg pb_net_ingress_rule_value;
extern const struct pb_msg pb_net_ingress_rule;
extern const struct pb_msg pb_net_ingress_spec;
extern const struct pb_msg pb_net_ingress_port_status;
extern const struct pb_msg pb_net_ingress_load_balancer_ingress;
extern const struct pb_msg pb_net_ingress_load_balancer_status;
extern const struct pb_msg pb_net_ingress_status;
extern const struct pb_msg pb_net_ingress;
extern const struct pb_msg pb_net_ingress_list;
extern const struct pb_msg pb_net_ingress_class_parameters_reference;
extern const struct pb_msg pb_net_ingress_class_spec;
extern const struct pb_msg pb_net_ingress_class;
extern const struct pb_msg pb_net_ingress_class_list;
extern const struct pb_msg pb_net_network_policy_port;
extern const struct pb_msg pb_net_ip_block;
extern const struct pb_msg pb_net_network_policy_peer;
extern const struct pb_msg pb_net_network_policy_ingress_rule;
extern const struct pb_msg pb_net_network_policy_egress_rule;
extern const struct pb_msg pb_net_network_policy_spec;
extern const struct pb_msg pb_net_network_policy;
extern const struct pb_msg pb_net_network_policy_list;

#endif
