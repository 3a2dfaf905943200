"""Scoped caches from --config (docs/CONFIG.md): a proxy whose identity
may read pods in two namespaces only caches each with its own namespaced
LIST and WATCH and serves them; a label-selected cache answers only what
lies provably inside its selector and passes the rest through; stripped
fields are gone from what it serves, and from what it forwards of a read
it could have served (the same shape whichever path answered), which
scope_served_total does not count. The fake's /fake/stats shows what
the upstream was asked.
"""
import json
import os
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "lib"))
import certs  # noqa: E402
import harness as h  # noqa: E402

ADMIN = "admin-tok-3b9f"
SCOPED = "scoped-tok-77ad"
LAC = "kubectl.kubernetes.io/last-applied-configuration"


def stats(fake):
    return h.get_json(fake.url + "/fake/stats")[1]["resources"]


def faults(fake, body):
    st, _, out = h.request("POST", fake.url + "/fake/faults", body=json.dumps(body).encode(),
                           headers={"Content-Type": "application/json",
                                    "Authorization": "Bearer " + ADMIN})
    assert st == 200, (st, out)


def metrics(proxy):
    out = {}
    for line in h.request("GET", proxy.url + "/metrics")[2].decode().splitlines():
        if line and not line.startswith("#"):
            k, v = line.rsplit(" ", 1)
            out[k] = float(v)
    return out


def admin(method, url, body=None):
    return h.request(method, url, body=body, headers={"Authorization": "Bearer " + ADMIN})


def start_proxy(d, fake_url, token, config, *extra):
    path = os.path.join(d, "config.yaml")
    with open(path, "w") as f:
        f.write(config)
    kc = certs.kubeconfig(d, fake_url, token=token)
    p = h.Server("informer-proxy", [os.path.join(h.BIN, "informer-proxy"), "--listen", "127.0.0.1:0",
                                    "--kubeconfig", kc, "--config", path, *extra])
    h.wait_ready(p.url)
    return p


def names(body):
    return sorted((i["metadata"]["namespace"], i["metadata"]["name"]) for i in body["items"])


class NamespacedRole(unittest.TestCase):
    """The proxy's identity has a Role in ns-0 and ns-1 only."""

    @classmethod
    def setUpClass(cls):
        cls.dir = tempfile.mkdtemp(prefix="scope-ns-")
        users = os.path.join(cls.dir, "users.csv")
        with open(users, "w") as f:
            f.write("%s,scoped,uid-scoped\n" % SCOPED)
        rules = os.path.join(cls.dir, "authz")
        with open(rules, "w") as f:
            f.write("scoped get,list,watch pods ns-0,ns-1\n")
        cls.fake = h.fake("--quiet", "--token", ADMIN, "--users", users, "--authz", rules,
                          seed="pods=30")
        cls.proxy = start_proxy(cls.dir, cls.fake.url, SCOPED,
                                "resources:\n  - resource: pods\n    namespaces: [ns-0, ns-1]\n")
        # ready means listed; each namespace's watch follows a moment later
        cls.seen = h.poll(lambda: (lambda r: r if sum(x["verb"] == "watch" for x in r) >= 2
                                   else None)(stats(cls.fake)["pods"]["requests"])) \
            or stats(cls.fake)["pods"]["requests"]

    @classmethod
    def tearDownClass(cls):
        cls.proxy.stop()
        cls.fake.stop()

    def test_served_from_each_namespace(self):
        for ns in ("ns-0", "ns-1"):
            path = "/api/v1/namespaces/%s/pods" % ns
            before = stats(self.fake)["pods"]
            s, got = h.get_json(self.proxy.url + path + "?resourceVersion=0")
            self.assertEqual(s, 200)
            self.assertTrue(got["items"])
            self.assertTrue(all(i["metadata"]["namespace"] == ns for i in got["items"]))
            s, one = h.get_json(self.proxy.url + path + "/" + got["items"][0]["metadata"]["name"]
                                + "?resourceVersion=0")
            self.assertEqual((s, one["metadata"]["namespace"]), (200, ns))
            # answered by the cache: the upstream saw no LIST for them
            self.assertEqual(stats(self.fake)["pods"]["list"], before["list"])
            s, want = h.get_json(self.fake.url + path, headers={"Authorization": "Bearer " + ADMIN})
            self.assertEqual(s, 200)
            self.assertEqual(names(got), names(want))
        m = metrics(self.proxy)
        self.assertGreaterEqual(m['informer_proxy_scope_served_total{resource="pods",namespace="ns-0"}'], 1)
        self.assertGreaterEqual(m['informer_proxy_scope_served_total{resource="pods",namespace="ns-1"}'], 1)
        self.assertEqual(m['informer_proxy_cache_synced{resource="pods",namespace="ns-0"}'], 1)

    def test_upstream_saw_only_namespaced_requests(self):
        mine = self.seen  # before any test's own requests
        self.assertTrue(any(r["verb"] == "watch" and r.get("namespace") == "ns-0" for r in mine), mine)
        self.assertTrue(any(r["verb"] == "watch" and r.get("namespace") == "ns-1" for r in mine), mine)
        # every request the proxy made upstream was in one of its namespaces
        self.assertTrue(all(r.get("namespace") in ("ns-0", "ns-1") for r in mine), mine)

    def test_outside_the_scope_is_passed_through(self):
        m0 = metrics(self.proxy)
        # a cluster-wide LIST is not the two namespaces' union: the
        # upstream answers it, here with the Role's 403 (the cache would
        # have said 200)
        s, body = h.get_json(self.proxy.url + "/api/v1/pods?resourceVersion=0")
        self.assertEqual((s, body["reason"]), (403, "Forbidden"))
        self.assertIn('cannot list resource "pods"', body["message"])
        s, body = h.get_json(self.proxy.url + "/api/v1/namespaces/ns-2/pods?resourceVersion=0")
        self.assertEqual((s, body["reason"]), (403, "Forbidden"))
        self.assertIn('in the namespace "ns-2"', body["message"])
        m = metrics(self.proxy)
        key = 'informer_proxy_scope_passthrough_total{resource="pods",namespace="ns-0"}'
        self.assertEqual(m[key] - m0.get(key, 0), 2)

    def test_watch_in_scope_is_local(self):
        before = stats(self.fake)["pods"]["watch"]
        w = h.Watch(self.proxy.url + "/api/v1/namespaces/ns-1/pods?watch=true&resourceVersion=0")
        try:
            w.wait_for(1)
            self.assertEqual(w.events[0]["type"], "ADDED")
            self.assertEqual(w.events[0]["object"]["metadata"]["namespace"], "ns-1")
        finally:
            w.close()
        self.assertEqual(stats(self.fake)["pods"]["watch"], before)


def pod(name, labels, annotations=None):
    return {"apiVersion": "v1", "kind": "Pod",
            "metadata": {"name": name, "labels": labels, "annotations": annotations or {}},
            "spec": {"containers": [{"name": "c", "image": "busybox"}]}}


class LabelScope(unittest.TestCase):
    """Only pods labelled tier=web are cached, without last-applied."""

    @classmethod
    def setUpClass(cls):
        cls.dir = tempfile.mkdtemp(prefix="scope-sel-")
        cls.fake = h.fake("--quiet", "--token", ADMIN)
        api = cls.fake.url + "/api/v1/namespaces/default/pods"
        for i in range(3):
            s, _, _ = admin("POST", api, pod("web-%d" % i, {"tier": "web", "az": "z%d" % min(i + 1, 2)}, {LAC: '{"big":"%d"}' % i, "k": "v"}))
            assert s == 201, s
        for i in range(2):
            s, _, _ = admin("POST", api, pod("db-%d" % i, {"tier": "db"}))
            assert s == 201, s
        cls.proxy = start_proxy(
            cls.dir, cls.fake.url, ADMIN,
            "resources:\n"
            "  - resource: pods\n"
            "    labelSelector: tier=web\n"
            "    indexes: [metadata.labels.tier]\n"
            "    stripFields:\n"
            "      - metadata.managedFields\n"
            "      - metadata.annotations.kubectl\\.kubernetes\\.io/last-applied-configuration\n")
        # ready means listed; the watch follows a moment later
        cls.seen = h.poll(lambda: (lambda r: r if any(x["verb"] == "watch" for x in r)
                                   else None)(stats(cls.fake)["pods"]["requests"])) \
            or stats(cls.fake)["pods"]["requests"]

    @classmethod
    def tearDownClass(cls):
        cls.proxy.stop()
        cls.fake.stop()

    def list(self, query):
        before = stats(self.fake)["pods"]["list"]
        s, body = h.get_json(self.proxy.url + "/api/v1/pods?resourceVersion=0" + query)
        self.assertEqual(s, 200)
        return body, stats(self.fake)["pods"]["list"] - before

    def test_upstream_saw_only_the_selector(self):
        reqs = [r for r in self.seen if r["verb"] == "watch"]
        self.assertTrue(reqs)
        self.assertTrue(all(r.get("labelSelector") == "tier=web" for r in reqs), reqs)

    def test_inside_is_served_from_the_cache(self):
        body, upstream = self.list("&labelSelector=tier%3Dweb")
        self.assertEqual(upstream, 0)
        self.assertEqual([n for _, n in names(body)], ["web-0", "web-1", "web-2"])
        # narrowed further: still inside
        body, upstream = self.list("&labelSelector=tier%3Dweb,x!%3Dy")
        self.assertEqual((upstream, len(body["items"])), (0, 3))
        # az (which sorts before tier, so it would be looked up first) is not
        # in the label index (indexes: [tier]): a scan finds it
        body, upstream = self.list("&labelSelector=az%3Dz1,tier%3Dweb")
        self.assertEqual(upstream, 0)
        self.assertEqual([n for _, n in names(body)], ["web-0"])
        body, upstream = self.list("&labelSelector=az%3Dz2,tier%3Dweb")
        self.assertEqual([n for _, n in names(body)], ["web-1", "web-2"])

    def test_outside_is_passed_through(self):
        m0 = metrics(self.proxy)
        body, upstream = self.list("")
        self.assertEqual(upstream, 1)  # all pods: not the cache's to answer
        self.assertEqual(len(body["items"]), 5)
        body, upstream = self.list("&labelSelector=tier%3Ddb")
        self.assertEqual(upstream, 1)
        self.assertEqual([n for _, n in names(body)], ["db-0", "db-1"])
        # a GET by name of an object outside the selector is not a 404
        s, obj = h.get_json(self.proxy.url + "/api/v1/namespaces/default/pods/db-1")
        self.assertEqual((s, obj["metadata"]["name"]), (200, "db-1"))
        # a watch without the selector goes upstream too
        before = stats(self.fake)["pods"]["watch"]
        w = h.Watch(self.proxy.url + "/api/v1/pods?watch=true&resourceVersion=0&timeoutSeconds=5")
        try:
            w.wait_for(5)
        finally:
            w.close()
        self.assertEqual(stats(self.fake)["pods"]["watch"], before + 1)
        m = metrics(self.proxy)
        key = 'informer_proxy_scope_passthrough_total{resource="pods"}'
        self.assertEqual(m[key] - m0[key], 4)

    def test_stripped_fields(self):
        s, obj = h.get_json(self.proxy.url + "/api/v1/namespaces/default/pods/web-1?resourceVersion=0")
        self.assertEqual(s, 200)
        self.assertEqual(obj["metadata"]["annotations"], {"k": "v"})
        self.assertEqual(obj["metadata"]["labels"], {"tier": "web", "az": "z2"})
        self.assertNotIn("managedFields", obj["metadata"])
        s, up = h.get_json(self.fake.url + "/api/v1/namespaces/default/pods/web-1",
                           headers={"Authorization": "Bearer " + ADMIN})
        self.assertIn(LAC, up["metadata"]["annotations"])
        # and so does a watch's initial state
        w = h.Watch(self.proxy.url + "/api/v1/pods?watch=true&resourceVersion=0&labelSelector=tier%3Dweb")
        try:
            w.wait_for(3)
            self.assertTrue(all(LAC not in e["object"]["metadata"]["annotations"] for e in w.events[:3]))
        finally:
            w.close()


    def forwarded(self, path):
        """path read without resourceVersion until the proxy sends it
        upstream (the cache could not prove itself fresh: pods are quiet
        while a configmap write moves the upstream's RV on); its answer,
        and the scope_served_total it added."""
        key = "informer_proxy_reads_sent_upstream_total"
        served = 'informer_proxy_scope_served_total{resource="pods"}'
        for i in range(20):
            s, _, _ = admin("POST", self.fake.url + "/api/v1/namespaces/default/configmaps",
                            {"apiVersion": "v1", "kind": "ConfigMap",
                             "metadata": {"name": "bump-%s-%d" % (path.count("/"), i)
                                          + ("x" if "?" in path else "")}})
            self.assertIn(s, (201, 409))
            if "?" not in path:
                # A GET of one object is proven by a GET of it, and
                # answered from the cache when the copies agree: so the
                # object changes upstream while the watch is held back,
                # and the upstream's newer copy is what the read gets.
                faults(self.fake, {"watchDelayMs": 3000})
                s, _, _ = h.request(
                    "PATCH", self.fake.url + path,
                    body=json.dumps({"metadata": {"labels": {"bump": str(i)}}}).encode(),
                    headers={"Authorization": "Bearer " + ADMIN,
                             "Content-Type": "application/merge-patch+json"})
                self.assertEqual(s, 200)
            m0 = metrics(self.proxy)
            s, body = h.get_json(self.proxy.url + path)
            m1 = metrics(self.proxy)
            if "?" not in path:
                faults(self.fake, {"watchDelayMs": 0})
            if m1[key] > m0[key]:
                self.assertEqual(s, 200)
                return body, m1.get(served, 0) - m0.get(served, 0)
        self.fail("%s was never sent upstream" % path)

    def test_same_shape_whichever_path_answered(self):
        # the cache's answer
        m0 = metrics(self.proxy)
        s, cached = h.get_json(self.proxy.url + "/api/v1/pods?resourceVersion=0&labelSelector=tier%3Dweb")
        self.assertEqual(s, 200)
        m1 = metrics(self.proxy)
        served = 'informer_proxy_scope_served_total{resource="pods"}'
        self.assertEqual(m1[served] - m0[served], 1)
        # the upstream's, for a read the cache could have served
        fwd, counted = self.forwarded("/api/v1/pods?labelSelector=tier%3Dweb")
        self.assertEqual(names(fwd), names(cached))
        for a, b in zip(sorted(cached["items"], key=lambda o: o["metadata"]["name"]),
                        sorted(fwd["items"], key=lambda o: o["metadata"]["name"])):
            self.assertNotIn("managedFields", b["metadata"])
            self.assertEqual(b["metadata"]["annotations"], {"k": "v"})
            self.assertEqual(sorted(a["metadata"]), sorted(b["metadata"]))
        self.assertEqual(counted, 0)  # not the cache's answer
        # a GET by name too
        one, _ = self.forwarded("/api/v1/namespaces/default/pods/web-1")
        self.assertEqual(one["metadata"]["name"], "web-1")
        self.assertNotIn("managedFields", one["metadata"])
        self.assertEqual(one["metadata"]["annotations"], {"k": "v"})
        # what the upstream itself holds
        s, up = h.get_json(self.fake.url + "/api/v1/namespaces/default/pods/web-1",
                           headers={"Authorization": "Bearer " + ADMIN})
        self.assertIn(LAC, up["metadata"]["annotations"])


class BadConfig(unittest.TestCase):
    def run_proxy(self, config):
        import subprocess
        d = tempfile.mkdtemp(prefix="scope-bad-")
        path = os.path.join(d, "c.yaml")
        with open(path, "w") as f:
            f.write(config)
        p = subprocess.run([os.path.join(h.BIN, "informer-proxy"), "--server", "http://127.0.0.1:1",
                            "--config", path], capture_output=True, text=True, timeout=20)
        return p.returncode, p.stdout + p.stderr, path

    def test_selector_error_names_its_place(self):
        rc, out, path = self.run_proxy("resources:\n  - resource: pods\n    labelSelector: \"a in (\"\n")
        self.assertEqual(rc, 1, out)
        self.assertIn(path + ":3:20: labelSelector: ", out)

    def test_field_error_names_its_place(self):
        rc, out, path = self.run_proxy("resources:\n  - resource: pods\n    fieldSelector: spec.bogus=1\n")
        self.assertEqual(rc, 1, out)
        self.assertIn(path + ":3:20: fieldSelector: field label not supported: spec.bogus", out)

    def test_namespaces_of_a_cluster_kind(self):
        rc, out, path = self.run_proxy("resources:\n  - resource: nodes\n    namespaces: [a]\n")
        self.assertEqual(rc, 1, out)
        self.assertIn(path + ":2:5: nodes: namespaces given, but nodes are not namespaced", out)

    def test_strip_of_a_selectable_field(self):
        # the cache would answer fieldSelector=status.phase=... wrongly
        for path in ("status", "status.phase", "spec.nodeName"):
            rc, out, cfg = self.run_proxy("resources:\n  - resource: pods\n    stripFields: [%s]\n" % path)
            self.assertEqual(rc, 1, out)
            self.assertIn(cfg + ":2:5: stripFields: \"%s\" would remove " % path, out)
        rc, out, cfg = self.run_proxy("resources:\n  - resource: pods\n    stripFields: [status.phase]\n"
                                      "  - resource: configmaps\n    stripFields: [status.phase]\n")
        self.assertIn("status.phase, which field selectors on pods read", out)

    def test_shape_error_exits_2(self):
        rc, out, path = self.run_proxy("resources:\n  - resource: pods\n    namespace: a\n")
        self.assertEqual(rc, 2, out)
        self.assertIn(path + ":3:5: resources: unknown key \"namespace\"", out)


if __name__ == "__main__":
    unittest.main()
