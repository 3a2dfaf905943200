"""kubectl get shows the apiserver's columns through the proxy.

A differential test: the fake apiserver (--all-kinds) stores a few seeded
objects of every kind in the proxy's column table and prints them with
its own printers (tests/fake-apiserver/fake_table_kinds.c); the proxy
caches the same objects and prints them from its declarative table
(proxy/table/table_cols.c). kubectl get, plain and -o wide, must print the same
bytes both ways, and the Table bodies must be identical. Seeded objects
were created long ago at fixed times, so AGE cannot straddle a second
between the two requests.

The fake runs --quiet: a read without resourceVersion is answered from
the proxy's cache only when the cache is provably as new as the
upstream (proxy/fresh.h); with the fake's background Lease and Event
writes moving the RV, a quiet resource's reads would be sent upstream
and the test would compare the fake with itself. Each proxied kubectl
get is checked to have cost the fake exactly one LIST (the freshness
probe), so its output came from the proxy's own printers.
"""
import json
import os
import sys
import unittest

import harness as h

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
                                "clients"))
import clients as c  # noqa: E402

# What is seeded where it is not the rows kubectl prints.
SEED = {"namespaces": 2}

# (kubectl's name, the proxy's --resources spelling, the API path under
# the server, the header kubectl prints without -o wide, the seed count)
KINDS = [
    ("pods", "pods", "api/v1", 8, ["NAME", "READY", "STATUS", "RESTARTS", "AGE"]),
    ("configmaps", "configmaps", "api/v1", 3, ["NAME", "DATA", "AGE"]),
    ("deployments", "deployments.apps", "apis/apps/v1", 6,
     ["NAME", "READY", "UP-TO-DATE", "AVAILABLE", "AGE"]),
    ("replicasets", "replicasets.apps", "apis/apps/v1", 6,
     ["NAME", "DESIRED", "CURRENT", "READY", "AGE"]),
    ("statefulsets", "statefulsets.apps", "apis/apps/v1", 3, ["NAME", "READY", "AGE"]),
    ("daemonsets", "daemonsets.apps", "apis/apps/v1", 3,
     ["NAME", "DESIRED", "CURRENT", "READY", "UP-TO-DATE", "AVAILABLE", "NODE SELECTOR", "AGE"]),
    ("jobs", "jobs.batch", "apis/batch/v1", 5,
     ["NAME", "STATUS", "COMPLETIONS", "DURATION", "AGE"]),
    ("cronjobs", "cronjobs.batch", "apis/batch/v1", 3,
     ["NAME", "SCHEDULE", "TIMEZONE", "SUSPEND", "ACTIVE", "LAST SCHEDULE", "AGE"]),
    ("services", "services", "api/v1", 6,
     ["NAME", "TYPE", "CLUSTER-IP", "EXTERNAL-IP", "PORT(S)", "AGE"]),
    ("secrets", "secrets", "api/v1", 4, ["NAME", "TYPE", "DATA", "AGE"]),
    ("serviceaccounts", "serviceaccounts", "api/v1", 2, ["NAME", "SECRETS", "AGE"]),
    # seeded 2 (ns-0, ns-1; see SEED), beside the 4 every cluster has
    ("namespaces", "namespaces", "api/v1", 6, ["NAME", "STATUS", "AGE"]),
    ("endpoints", "endpoints", "api/v1", 4, ["NAME", "ENDPOINTS", "AGE"]),
    ("events", "events", "api/v1", 4,
     ["LAST SEEN", "TYPE", "REASON", "OBJECT", "MESSAGE"]),
    ("leases", "leases.coordination.k8s.io", "apis/coordination.k8s.io/v1", 2,
     ["NAME", "HOLDER", "AGE"]),
    ("events.events.k8s.io", "events.events.k8s.io", "apis/events.k8s.io/v1", 2,
     ["LAST SEEN", "TYPE", "REASON", "OBJECT", "MESSAGE"]),
    ("roles", "roles.rbac.authorization.k8s.io", "apis/rbac.authorization.k8s.io/v1", 2,
     ["NAME", "CREATED AT"]),
    ("clusterroles", "clusterroles.rbac.authorization.k8s.io",
     "apis/rbac.authorization.k8s.io/v1", 2, ["NAME", "CREATED AT"]),
    ("rolebindings", "rolebindings.rbac.authorization.k8s.io",
     "apis/rbac.authorization.k8s.io/v1", 3, ["NAME", "ROLE", "AGE"]),
    ("clusterrolebindings", "clusterrolebindings.rbac.authorization.k8s.io",
     "apis/rbac.authorization.k8s.io/v1", 3, ["NAME", "ROLE", "AGE"]),
    # PREEMPTIONPOLICY has priority 0: plain kubectl get shows it
    ("priorityclasses", "priorityclasses.scheduling.k8s.io", "apis/scheduling.k8s.io/v1", 3,
     ["NAME", "VALUE", "GLOBAL-DEFAULT", "AGE", "PREEMPTIONPOLICY"]),
    ("ingressclasses", "ingressclasses.networking.k8s.io", "apis/networking.k8s.io/v1", 3,
     ["NAME", "CONTROLLER", "PARAMETERS", "AGE"]),
    ("ingresses", "ingresses.networking.k8s.io", "apis/networking.k8s.io/v1", 3,
     ["NAME", "CLASS", "HOSTS", "ADDRESS", "PORTS", "AGE"]),
    ("networkpolicies", "networkpolicies.networking.k8s.io", "apis/networking.k8s.io/v1", 3,
     ["NAME", "POD-SELECTOR", "AGE"]),
    ("storageclasses", "storageclasses.storage.k8s.io", "apis/storage.k8s.io/v1", 3,
     ["NAME", "PROVISIONER", "RECLAIMPOLICY", "VOLUMEBINDINGMODE", "ALLOWVOLUMEEXPANSION",
      "AGE"]),
    ("replicationcontrollers", "replicationcontrollers", "api/v1", 3,
     ["NAME", "DESIRED", "CURRENT", "READY", "AGE"]),
    ("poddisruptionbudgets", "poddisruptionbudgets.policy", "apis/policy/v1", 3,
     ["NAME", "MIN AVAILABLE", "MAX UNAVAILABLE", "ALLOWED DISRUPTIONS", "AGE"]),
    ("endpointslices", "endpointslices.discovery.k8s.io", "apis/discovery.k8s.io/v1", 3,
     ["NAME", "ADDRESSTYPE", "PORTS", "ENDPOINTS", "AGE"]),
    ("nodes", "nodes", "api/v1", 3, ["NAME", "STATUS", "ROLES", "AGE", "VERSION"]),
    ("persistentvolumes", "persistentvolumes", "api/v1", 3,
     ["NAME", "CAPACITY", "ACCESS MODES", "RECLAIM POLICY", "STATUS", "CLAIM", "STORAGECLASS",
      "VOLUMEATTRIBUTESCLASS", "REASON", "AGE"]),
    ("persistentvolumeclaims", "persistentvolumeclaims", "api/v1", 3,
     ["NAME", "STATUS", "VOLUME", "CAPACITY", "ACCESS MODES", "STORAGECLASS",
      "VOLUMEATTRIBUTESCLASS", "AGE"]),
    ("horizontalpodautoscalers", "horizontalpodautoscalers.autoscaling", "apis/autoscaling/v2",
     3, ["NAME", "REFERENCE", "TARGETS", "MINPODS", "MAXPODS", "REPLICAS", "AGE"]),
    ("podtemplates", "podtemplates", "api/v1", 2,
     ["NAME", "CONTAINERS", "IMAGES", "POD LABELS"]),
    ("controllerrevisions", "controllerrevisions.apps", "apis/apps/v1", 3,
     ["NAME", "CONTROLLER", "REVISION", "AGE"]),
    ("limitranges", "limitranges", "api/v1", 1, ["NAME", "CREATED AT"]),
    ("resourcequotas", "resourcequotas", "api/v1", 3, ["NAME", "REQUEST", "LIMIT", "AGE"]),
    ("certificatesigningrequests", "certificatesigningrequests.certificates.k8s.io",
     "apis/certificates.k8s.io/v1", 3,
     ["NAME", "AGE", "SIGNERNAME", "REQUESTOR", "REQUESTEDDURATION", "CONDITION"]),
    ("validatingwebhookconfigurations",
     "validatingwebhookconfigurations.admissionregistration.k8s.io",
     "apis/admissionregistration.k8s.io/v1", 3, ["NAME", "WEBHOOKS", "AGE"]),
    ("mutatingwebhookconfigurations",
     "mutatingwebhookconfigurations.admissionregistration.k8s.io",
     "apis/admissionregistration.k8s.io/v1", 3, ["NAME", "WEBHOOKS", "AGE"]),
    ("runtimeclasses", "runtimeclasses.node.k8s.io", "apis/node.k8s.io/v1", 3,
     ["NAME", "HANDLER", "AGE"]),
    ("csidrivers", "csidrivers.storage.k8s.io", "apis/storage.k8s.io/v1", 3,
     ["NAME", "ATTACHREQUIRED", "PODINFOONMOUNT", "STORAGECAPACITY", "TOKENREQUESTS",
      "REQUIRESREPUBLISH", "MODES", "AGE"]),
    ("volumeattachments", "volumeattachments.storage.k8s.io", "apis/storage.k8s.io/v1", 3,
     ["NAME", "ATTACHER", "PV", "NODE", "ATTACHED", "AGE"]),
    ("flowschemas", "flowschemas.flowcontrol.apiserver.k8s.io",
     "apis/flowcontrol.apiserver.k8s.io/v1", 4,
     ["NAME", "PRIORITYLEVEL", "MATCHINGPRECEDENCE", "DISTINGUISHERMETHOD", "AGE",
      "MISSINGPL"]),
    ("prioritylevelconfigurations", "prioritylevelconfigurations.flowcontrol.apiserver.k8s.io",
     "apis/flowcontrol.apiserver.k8s.io/v1", 3,
     ["NAME", "TYPE", "NOMINALCONCURRENCYSHARES", "QUEUES", "HANDSIZE", "QUEUELENGTHLIMIT",
      "AGE"]),
    # the one --crd below; CRDs are not seeded by count
    ("customresourcedefinitions", "customresourcedefinitions.apiextensions.k8s.io",
     "apis/apiextensions.k8s.io/v1", 1, ["NAME", "CREATED AT"]),
]
CLUSTER = {"namespaces", "clusterroles", "clusterrolebindings", "priorityclasses", "ingressclasses",
           "storageclasses", "nodes", "persistentvolumes", "customresourcedefinitions",
           "certificatesigningrequests", "validatingwebhookconfigurations",
           "mutatingwebhookconfigurations", "runtimeclasses", "csidrivers", "volumeattachments",
           "flowschemas", "prioritylevelconfigurations"}
# kinds whose printers have priority-1 columns, which -o wide adds
WIDE = {"pods", "deployments", "replicasets", "statefulsets", "daemonsets", "jobs", "cronjobs",
        "services", "events", "events.events.k8s.io", "rolebindings", "clusterrolebindings",
        "replicationcontrollers", "nodes", "persistentvolumes", "persistentvolumeclaims"}
NAMESPACE = "ns-0"  # every seeded object, so each kind shows all its variants
TABLE = "application/json;as=Table;v=v1;g=meta.k8s.io"


class ColumnsThroughProxy(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        seed = ",".join("%s=%d" % (k[1], SEED.get(k[1], k[3])) for k in KINDS
                        if k[0] != "customresourcedefinitions")
        cls.fake = h.fake("--all-kinds", "--quiet", "--seed-namespaces", "1",
                          "--crd", "widgets.example.com/v1:Widget", seed=seed)
        try:
            cls.proxy = h.proxy(cls.fake.url, ",".join(k[1] for k in KINDS))
            h.wait_ready(cls.proxy.url)
        except Exception:
            cls.fake.stop(check=False)
            raise
        cls.kp = c.Kubectl(cls.proxy.url)
        cls.kf = c.Kubectl(cls.fake.url)

    @classmethod
    def tearDownClass(cls):
        cls.proxy.stop()
        cls.fake.stop()

    def lists(self, key):
        return h.get_json(self.fake.url + "/fake/stats")[1]["resources"][key]["list"]

    def both(self, *args, key=None):
        """kubectl through the proxy (answered from its cache: the fake
        sees only the freshness probe) and directly against the fake."""
        before = self.lists(key) if key else None
        via_proxy = self.kp.out(*args)
        if key:
            self.assertEqual(self.lists(key) - before, 1,
                             "kubectl %s was not answered from the cache" % " ".join(args))
        return via_proxy, self.kf.out(*args)

    def test_every_kind_the_fake_serves_is_compared(self):
        """The differential suite covers every kind the fake serves with
        --all-kinds that can be listed: read from its discovery, so a kind
        the fake gains is compared or this fails."""
        served = set()
        groups = [("api/v1", h.get_json(self.fake.url + "/api/v1")[1])]
        for g in h.get_json(self.fake.url + "/apis")[1]["groups"]:
            gv = g["preferredVersion"]["groupVersion"]
            groups.append(("apis/" + gv, h.get_json(self.fake.url + "/apis/" + gv)[1]))
        for path, rl in groups:
            group = path.split("/")[1] if path.startswith("apis/") else ""
            for r in rl["resources"]:
                if "/" in r["name"] or "list" not in r.get("verbs", []):
                    continue
                if group in ("example.com",):
                    continue      # the CRDs, compared by CustomResources below
                served.add(r["name"] + ("." + group if group else ""))
        compared = {k[1] for k in KINDS}
        self.assertEqual(sorted(served - compared), [])

    def test_kubectl_get_prints_the_same_through_the_proxy(self):
        for name, key, _, n, header in KINDS:
            for wide in ([], ["-o", "wide"]):
                with self.subTest(kind=name, wide=bool(wide)):
                    via_proxy, direct = self.both("get", name, "-n", NAMESPACE, *wide, key=key)
                    self.assertEqual(via_proxy, direct)
                    got_header, rows = c.table(via_proxy)
                    self.assertEqual(len(rows), n, via_proxy)
                    if not wide:
                        self.assertEqual(got_header, header, via_proxy)
                    elif name in WIDE:
                        # -o wide adds the priority-1 columns
                        self.assertGreater(len(got_header), len(header), via_proxy)
                    else:
                        self.assertEqual(got_header, header, via_proxy)

    def test_kubectl_get_all_namespaces_and_one_object(self):
        for name, key, _, _, _ in KINDS:
            with self.subTest(kind=name):
                via_proxy, direct = self.both("get", name, "-A", "-o", "wide", key=key)
                self.assertEqual(via_proxy, direct)
        for name, key, _, _, _ in KINDS:
            with self.subTest(kind=name, one=True):
                first = self.kf.json("get", name, "-n", NAMESPACE)["items"][0]["metadata"]["name"]
                via_proxy, direct = self.both("get", name, first, "-n", NAMESPACE, "-o", "wide",
                                              key=key)
                self.assertEqual(via_proxy, direct)
                self.assertIn(first, via_proxy)

    def test_table_bodies_are_identical(self):
        """The Table JSON, columnDefinitions and descriptions included."""
        for name, _, prefix, _, _ in KINDS:
            for inc in ("", "&includeObject=Object", "&includeObject=None"):
                with self.subTest(kind=name, include=inc):
                    # resourceVersion=0: any state will do, so the proxy
                    # answers from its cache without asking the fake
                    path = "/%s/%s%s?resourceVersion=0%s" % (
                        prefix, "" if name in CLUSTER else "namespaces/ns-0/",
                        name.split(".")[0], inc)
                    s1, _, b1 = h.request("GET", self.proxy.url + path, headers={"Accept": TABLE})
                    s2, _, b2 = h.request("GET", self.fake.url + path, headers={"Accept": TABLE})
                    self.assertEqual((s1, s2), (200, 200))
                    t1, t2 = json.loads(b1), json.loads(b2)
                    # the list's resourceVersion is the cache's, not the fake's
                    t1.pop("metadata")
                    t2.pop("metadata")
                    self.assertEqual(t1, t2)
                    self.assertEqual(b1.split(b'"columnDefinitions"', 1)[1],
                                     b2.split(b'"columnDefinitions"', 1)[1])

    def test_cells_are_what_the_apiserver_computes(self):
        """Spot checks against known values, so that a bug shared by both
        printers would still be caught here."""
        out = self.kp.out("get", "services", "-n", "ns-0", "-o", "wide")
        _, rows = c.table(out)
        by = {r[0]: r for r in rows}
        self.assertEqual(by["svc-0"][1:5], ["ClusterIP", "10.96.0.1", "<none>", "80/TCP,53/UDP"])
        self.assertEqual(by["svc-0"][6], "app=web,tier=front")
        self.assertEqual(by["svc-1"][3:5], ["192.0.2.10,192.0.2.11", "443:30443/TCP"])
        self.assertEqual(by["svc-2"][3], "<pending>")
        # ingress points sorted without duplicates, then the external IPs
        self.assertEqual(by["svc-3"][3], "203.0.113.5,203.0.113.7,lb.example.com,192.0.2.99")
        self.assertEqual(by["svc-4"][1:5], ["ExternalName", "<none>", "db.example.com", "<none>"])
        _, rows = c.table(self.kp.out("get", "deployments", "-n", "ns-0", "-o", "wide"))
        d1 = {r[0]: r for r in rows}["deploy-1"]
        self.assertEqual(d1[1:4], ["1/1", "1", "1"])
        self.assertEqual(d1[5:], ["app,sidecar", "registry.example.com/app:2.1,busybox:1.36",
                                  "app=deploy-1,env in (canary,prod),tier=web,zone notin (a,b)"])
        _, rows = c.table(self.kp.out("get", "jobs", "-n", "ns-0"))
        self.assertEqual({r[0]: r[1:3] for r in rows},
                         {"job-0": ["Complete", "1/1"], "job-1": ["Failed", "0/2"],
                          "job-2": ["Suspended", "0/1"], "job-3": ["Running", "0/1 of 3"],
                          "job-4": ["FailureTarget", "0/1"]})
        _, rows = c.table(self.kp.out("get", "endpoints", "-n", "ns-0"))
        self.assertEqual({r[0]: r[1] for r in rows},
                         {"ep-0": "<none>", "ep-1": "10.244.0.5:8080,10.244.1.6:8080",
                          "ep-2": "10.244.0.5:80,10.244.1.6:80,10.244.2.7:80 + 4 more...",
                          "ep-3": "10.244.0.9,[fd00::5]:8080"})
        _, rows = c.table(self.kp.out("get", "events", "-n", "ns-0", "-o", "wide"))
        by = {r[-1]: r for r in rows}
        # a series' count; the reporting controller and instance as SOURCE
        self.assertEqual(by["ev-3"][3:5], ["replicaset", "replicaset-controller"])
        self.assertEqual(by["ev-3"][-2], "17")
        self.assertEqual(by["ev-1"][4:6], ["node-controller, cp-1", "Node is not ready"])

    def test_cells_of_the_later_kinds(self):
        """Known values for the kinds that once printed NAME and AGE only."""
        def rows(kind, *wide):
            path = "/%s/%s%s?resourceVersion=0" % (
                [k[2] for k in KINDS if k[0] == kind][0],
                "" if kind in CLUSTER else "namespaces/ns-0/", kind)
            s, _, b = h.request("GET", self.proxy.url + path, headers={"Accept": TABLE})
            self.assertEqual(s, 200)
            return {r["cells"][0]: r["cells"] for r in json.loads(b)["rows"]}, json.loads(b)
        # flow schemas by matching precedence, then name, as printFlowSchemaList
        got, t = rows("flowschemas")
        self.assertEqual([r["cells"][0] for r in t["rows"]], ["fs-3", "fs-1", "fs-0", "fs-2"])
        self.assertEqual(got["fs-0"][1:4], ["level-0", 1000, "ByUser"])
        self.assertEqual(got["fs-1"][3], "<none>")
        self.assertEqual([got[n][5] for n in ("fs-0", "fs-1", "fs-2", "fs-3")],
                         ["False", "True", "?", "Unknown"])
        got, _ = rows("prioritylevelconfigurations")
        self.assertEqual(got["level-0"][1:6], ["Exempt", "<none>", "<none>", "<none>", "<none>"])
        self.assertEqual(got["level-1"][1:6], ["Limited", 30, 64, 6, 50])
        self.assertEqual(got["level-2"][1:6], ["Limited", 5, "<none>", "<none>", "<none>"])
        got, _ = rows("resourcequotas")
        self.assertEqual(got["quota-0"][1:3], [
            "pods: 3/10, requests.cpu: 250m/2, requests.memory: 0/4Gi",
            "limits.cpu: 1500m/4, limits.memory: 0/8Gi"])
        # only status.hard counts (not yet there), and v1.32 puts AGE last
        self.assertEqual(got["quota-1"][1:3], ["", ""])
        self.assertEqual(got["quota-2"][1:3], ["", "limits.memory: 512Mi/1Gi"])
        got, _ = rows("certificatesigningrequests")
        self.assertEqual(got["csr-0"][2:], ["kubernetes.io/kube-apiserver-client", "alice", "24h",
                                            "Approved,Issued"])
        self.assertEqual(got["csr-1"][2:], ["<none>", "system:node:node-1", "10m",
                                            "Denied,Failed"])
        self.assertEqual(got["csr-2"][4:], ["<none>", "Pending"])
        got, _ = rows("controllerrevisions")
        self.assertEqual({n: c[1:3] for n, c in got.items()},
                         {"cr-0": ["daemonset.apps/ds-0", 1], "cr-1": ["<none>", 2],
                          "cr-2": ["replicationcontroller/rc-0", 3]})
        got, _ = rows("csidrivers")
        self.assertEqual(got["csi-0"][1:7], [True, False, False, "<unset>", False, "<none>"])
        self.assertEqual(got["csi-1"][1:7], [False, True, True, "vault,gcp", True,
                                             "Persistent,Ephemeral"])
        got, _ = rows("volumeattachments")
        self.assertEqual(got["va-0"][1:5], ["csi.example.com", "pv-0", "node-0", True])
        self.assertEqual(got["va-1"][2:5], ["", "node-1", False])
        got, _ = rows("podtemplates")
        self.assertEqual(got["podtemplate-0"][1:], [
            "app,proxy", "registry.example.com/shop:3,envoy:1.30", "app=shop,tier=web"])
        self.assertEqual(got["podtemplate-1"][3], "<none>")
        got, _ = rows("validatingwebhookconfigurations")
        self.assertEqual({n: c[1] for n, c in got.items()}, {"vwc-0": 0, "vwc-1": 1, "vwc-2": 2})
        got, t = rows("limitranges")
        self.assertEqual(t["columnDefinitions"][1]["type"], "date")
        self.assertRegex(got["limits-0"][1], r"^\d{4}-\d\d-\d\dT\d\d:00:00Z$")
        got, t = rows("priorityclasses")
        self.assertEqual([c["priority"] for c in t["columnDefinitions"]], [0, 0, 0, 0, 0])

    def test_metadata_leaves_out_conversion_annotations(self):
        """A DaemonSet's template generation annotation lives in the
        apps/v1 object only: the apiserver's metadata views, made from its
        internal object, do not have it; the object itself does."""
        base = "/apis/apps/v1/namespaces/ns-0/daemonsets"
        meta_accept = "application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1"
        one_accept = "application/json;as=PartialObjectMetadata;g=meta.k8s.io;v=v1"
        for url in (self.proxy.url, self.fake.url):
            with self.subTest(server=url):
                s, _, b = h.request("GET", url + base + "?resourceVersion=0",
                                    headers={"Accept": meta_accept})
                self.assertEqual(s, 200)
                items = {i["metadata"]["name"]: i["metadata"] for i in json.loads(b)["items"]}
                self.assertEqual(len(items), 3)
                self.assertNotIn("annotations", items["ds-0"])
                self.assertEqual(items["ds-1"]["annotations"], {"note": "kept"})
                s, _, b = h.request("GET", url + base + "/ds-1?resourceVersion=0",
                                    headers={"Accept": one_accept})
                self.assertEqual(json.loads(b)["metadata"]["annotations"], {"note": "kept"})
                s, _, b = h.request("GET", url + base + "?resourceVersion=0",
                                    headers={"Accept": TABLE})
                objs = {r["object"]["metadata"]["name"]: r["object"]["metadata"]
                        for r in json.loads(b)["rows"]}
                self.assertNotIn("annotations", objs["ds-2"])
                # the whole object keeps it: in a Table row and alone
                s, _, b = h.request("GET", url + base + "?resourceVersion=0&includeObject=Object",
                                    headers={"Accept": TABLE})
                objs = {r["object"]["metadata"]["name"]: r["object"]["metadata"]
                        for r in json.loads(b)["rows"]}
                self.assertEqual(objs["ds-2"]["annotations"],
                                 {"deprecated.daemonset.template.generation": "1"})
                s, _, b = h.request("GET", url + base + "/ds-0?resourceVersion=0")
                self.assertEqual(json.loads(b)["metadata"]["annotations"],
                                 {"deprecated.daemonset.template.generation": "1"})
        # and byte for byte the same both ways
        for accept, path in ((meta_accept, base), (one_accept, base + "/ds-1")):
            s1, _, b1 = h.request("GET", self.proxy.url + path + "?resourceVersion=0",
                                  headers={"Accept": accept})
            s2, _, b2 = h.request("GET", self.fake.url + path + "?resourceVersion=0",
                                  headers={"Accept": accept})
            self.assertEqual((s1, s2), (200, 200))
            strip = lambda b: {k: v for k, v in json.loads(b).items() if k != "metadata"} \
                if b'"items"' in b else json.loads(b)
            self.assertEqual(strip(b1), strip(b2))

    def test_watch_rows_match(self):
        """A watch in Table form carries the same row as the fake's."""
        from concurrent.futures import ThreadPoolExecutor
        # the six watches run side by side: each lasts its whole deadline
        # (timeoutSeconds=1, the least there is)
        paths = ["/%s/namespaces/ns-0/%s?watch=1&resourceVersion=0&timeoutSeconds=1" % (
            prefix, name) for name, _, prefix, _, _ in KINDS[:3]]
        with ThreadPoolExecutor(2 * len(paths)) as pool:
            got = [(pool.submit(h.request, "GET", self.proxy.url + path,
                                headers={"Accept": TABLE}),
                    pool.submit(h.request, "GET", self.fake.url + path,
                                headers={"Accept": TABLE})) for path in paths]
            bodies = [(p.result()[2], f.result()[2]) for p, f in got]
        for b1, b2 in bodies:
            rows = lambda b: sorted(json.dumps(json.loads(l)["object"]["rows"])
                                    for l in b.decode().splitlines() if l.strip())
            self.assertEqual(rows(b1), rows(b2))
            self.assertTrue(rows(b1))


if __name__ == "__main__":
    unittest.main()


WIDGET_COLUMNS = [
    "Phase:string:.status.phase",
    "Size:integer:.spec.size",
    "Ready:boolean:.status.ready",
    'Synced:string:.status.conditions[?(@.type=="Ready")].status',
    "Score:number:.status.score:1",
    "Since:date:.status.since",
]
CRD_PATH = "/apis/apiextensions.k8s.io/v1/customresourcedefinitions/"


class CustomResourceColumns(unittest.TestCase):
    """additionalPrinterColumns: the proxy reads them from the CRD (which
    it keeps through a watch), the fake from its --crd-column flags."""

    @classmethod
    def setUpClass(cls):
        args = ["--quiet", "--seed-namespaces", "1", "--crd", "widgets.example.com/v1:Widget"]
        for col in WIDGET_COLUMNS:
            args += ["--crd-column", "widgets.example.com=" + col]
        args += ["--crd", "gadgets.example.com/v1:Gadget"]
        # --quiet: see the module's docstring
        cls.fake = h.fake(*args, seed="widgets.example.com=6,gadgets.example.com=2")
        try:
            cls.proxy = h.proxy(cls.fake.url, "widgets.example.com,gadgets.example.com")
            h.wait_ready(cls.proxy.url)
        except Exception:
            cls.fake.stop(check=False)
            raise
        cls.kp = c.Kubectl(cls.proxy.url)
        cls.kf = c.Kubectl(cls.fake.url)

    @classmethod
    def tearDownClass(cls):
        cls.proxy.stop()
        cls.fake.stop()

    def lists(self, key):
        return h.get_json(self.fake.url + "/fake/stats")[1]["resources"][key]["list"]

    def same(self, key, *args):
        before = self.lists(key)
        via_proxy = self.kp.out(*args)
        self.assertEqual(self.lists(key) - before, 1, "not answered from the cache")
        self.assertEqual(via_proxy, self.kf.out(*args))
        return via_proxy

    def table(self, url, path):
        s, body = h.get_json(url + path + "?resourceVersion=0",
                             headers={"Accept": TABLE})
        self.assertEqual(s, 200)
        body.pop("metadata")
        return body

    def test_columns_of_different_types_print_the_same(self):
        out = self.same("widgets.example.com", "get", "widgets", "-n", "ns-0")
        header, rows = c.table(out)
        self.assertEqual(header, ["NAME", "PHASE", "SIZE", "READY", "SYNCED", "SINCE"])
        self.assertEqual(rows[0][:5], ["widget-0", "Pending", "1", "false", "False"])
        self.assertEqual(rows[1][:5], ["widget-1", "Ready", "2", "true", "True"])
        wide = self.same("widgets.example.com", "get", "widgets", "-A", "-o", "wide")
        header, rows = c.table(wide)
        self.assertEqual(header[-2:], ["SCORE", "SINCE"])
        self.assertEqual([r[6] for r in rows], ["0", "1.5", "2", "3.5", "0", "1.5"])
        self.same("widgets.example.com", "get", "widget", "widget-3", "-n", "ns-0", "-o", "wide")

    def test_table_bodies_are_identical(self):
        for path in ("/apis/example.com/v1/namespaces/ns-0/widgets",
                     "/apis/example.com/v1/namespaces/ns-0/widgets/widget-2",
                     "/apis/example.com/v1/gadgets"):
            with self.subTest(path=path):
                self.assertEqual(self.table(self.proxy.url, path), self.table(self.fake.url, path))

    def test_without_columns_name_and_age(self):
        out = self.same("gadgets.example.com", "get", "gadgets", "-A")
        self.assertEqual(c.table(out)[0], ["NAMESPACE", "NAME", "AGE"])
        t = self.table(self.proxy.url, "/apis/example.com/v1/gadgets")
        self.assertEqual([(d["name"], d["type"]) for d in t["columnDefinitions"]],
                         [("Name", "string"), ("Age", "date")])

    def test_zz_crd_changes_reach_the_tables(self):
        """Runs last: it changes the widgets CRD."""
        path = "/apis/example.com/v1/namespaces/ns-0/widgets"
        s, crd = h.get_json(self.fake.url + CRD_PATH + "widgets.example.com")
        self.assertEqual(s, 200)
        crd["spec"]["versions"][0]["additionalPrinterColumns"].append(
            {"name": "Shard", "type": "string", "jsonPath": ".metadata.labels['shard']",
             "description": "which shard"})
        s, _, body = h.request("PUT", self.fake.url + CRD_PATH + "widgets.example.com",
                               body=json.dumps(crd).encode(),
                               headers={"Content-Type": "application/json"})
        self.assertEqual(s, 200, body)
        got = h.wait_until(
            lambda: (lambda t: t if t["columnDefinitions"][-1]["name"] == "Shard" else None)(
                self.table(self.proxy.url, path)), what="the new column through the proxy")
        self.assertEqual(got["columnDefinitions"][-1]["description"], "which shard")
        self.assertEqual([r["cells"][-1] for r in got["rows"]], ["0", "1", "2", "3", "4", "5"])
        # the CRD gone: NAME and AGE, as for a kind without columns
        s, _, body = h.request("DELETE", self.fake.url + CRD_PATH + "widgets.example.com")
        self.assertEqual(s, 200, body)
        got = h.wait_until(
            lambda: (lambda t: t if len(t["columnDefinitions"]) == 2 else None)(
                self.table(self.proxy.url, path)), what="NAME and AGE once the CRD is gone")
        self.assertEqual([d["name"] for d in got["columnDefinitions"]], ["Name", "Age"])


class CustomResourceColumnsForbidden(unittest.TestCase):
    """A proxy that may not read CRDs still serves its custom resources,
    with NAME and AGE, and is ready."""

    def test_crds_forbidden_name_and_age(self):
        import tempfile
        d = tempfile.mkdtemp(prefix="crd-forbidden-")
        users = os.path.join(d, "users.csv")
        with open(users, "w") as f:
            f.write("proxy-token,proxy,uid-proxy\n")
        rules = os.path.join(d, "authz")
        with open(rules, "w") as f:
            f.write("proxy get,list,watch widgets.example.com *\n")
        args = ["--quiet", "--users", users, "--authz", rules, "--seed-namespaces", "1",
                "--crd", "widgets.example.com/v1:Widget",
                "--crd-column", "widgets.example.com=" + WIDGET_COLUMNS[0]]
        fake = h.fake(*args, seed="widgets.example.com=2")
        self.addCleanup(fake.stop)
        spy, proxy = h.proxy_via_spy(fake, "proxy-token", d, "widgets.example.com")
        self.addCleanup(spy.close)
        self.addCleanup(proxy.stop)
        # the fake's rules refuse it: only widgets may be read
        h.wait_until(lambda: spy.heads("customresourcedefinitions"),
                     what="the proxy asking for the CRDs")
        s, body = h.get_json(proxy.url + "/apis/example.com/v1/namespaces/ns-0/widgets"
                             "?resourceVersion=0", headers={"Accept": TABLE})
        self.assertEqual(s, 200)
        self.assertEqual([c["name"] for c in body["columnDefinitions"]], ["Name", "Age"])
        self.assertEqual([r["cells"][0] for r in body["rows"]], ["widget-0", "widget-1"])
        self.assertEqual(h.request("GET", proxy.url + "/readyz")[0], 200)



class RenderedListMemory(unittest.TestCase):
    """Clients that ask for a big Table or metadata LIST and never read:
    the body is made while it is sent, a few rows at a time, so each
    stalled connection holds one part and the stream's buffers, not the
    whole rendered list (8 MiB as a Table of 3,000 pods, 16 MiB with
    includeObject=Object)."""

    FORMS = [
        ("Table", "application/json;as=Table;v=v1;g=meta.k8s.io,application/json", ""),
        ("Table+Object", "application/json;as=Table;v=v1;g=meta.k8s.io,application/json",
         "&includeObject=Object"),
        ("metadata", "application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1", ""),
    ]
    CLIENTS = 10

    def test_stalled_clients_hold_little(self):
        import socket
        fake, proxy = h.fake_and_proxy(self, "pods", seed="pods=3000")
        host, port = proxy.url.split("//")[1].split(":")
        path = "/api/v1/pods?resourceVersion=0"
        socks = []
        self.addCleanup(lambda: [s.close() for s in socks])
        for name, accept, extra in self.FORMS:
            # once read whole: the bytes are the list, and the allocator
            # has seen a rendering
            st, _, body = h.request("GET", proxy.url + path + extra, headers={"Accept": accept})
            self.assertEqual(st, 200)
            lst = json.loads(body)
            self.assertEqual(len(lst.get("rows", lst.get("items", []))), 3000, name)
            before = h.rss_bytes(proxy.proc.pid)
            for _ in range(self.CLIENTS):
                s = socket.create_connection((host, int(port)))
                s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
                s.sendall(("GET %s%s HTTP/1.1\r\nHost: localhost\r\nAccept: %s\r\n"
                           "Connection: close\r\n\r\n" % (path, extra, accept)).encode())
                socks.append(s)
            for s in socks[-self.CLIENTS:]:
                s.settimeout(30)
                self.assertTrue(s.recv(1024).startswith(b"HTTP/1.1 200"), name)
            grown = (h.rss_bytes(proxy.proc.pid) - before) / self.CLIENTS
            if h.RSS_MEANINGFUL:
                self.assertLess(grown, 1 << 20, "%s: RSS grew %.2f MiB per stalled client"
                                % (name, grown / (1 << 20)))
        # the proxy still answers others at once
        self.assertEqual(h.request("GET", proxy.url + "/api/v1/namespaces/ns-1/pods/web-1",
                                   timeout=10)[0], 200)
