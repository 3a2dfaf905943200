"""kubectl, unchanged, against informer-proxy: get (tables, -o json,
chunked), watch, describe, and writes that reach the fake apiserver.

kubectl runs with --server pointing at the proxy, an empty kubeconfig and
a fresh --cache-dir. What it shows is compared with the fake apiserver
behind the proxy, read directly.
"""
import json
import os
import sys
import time
import unittest

import harness as h

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
                                "clients"))
import clients as c  # noqa: E402

NS = "kc"  # the namespace of the crafted pods


def strip_kind(o):
    """kubectl -o json sets kind/apiVersion on list items; the apiserver's
    list items carry none. Compare everything else."""
    o = dict(o)
    o.pop("kind", None)
    o.pop("apiVersion", None)
    return o


class KubectlThroughProxy(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.fake = h.fake(seed="pods=60,configmaps=20")
        try:
            c.namespace(cls.fake.url, NS)
            for p in c.crafted_pods():
                c.create(cls.fake.url, "pods", NS, p)
            cls.proxy = h.proxy(cls.fake.url, "pods,configmaps")
            h.wait_ready(cls.proxy.url)
        except Exception:
            cls.fake.stop(check=False)
            raise
        cls.k = c.Kubectl(cls.proxy.url)
        cls.kf = c.Kubectl(cls.fake.url)

    @classmethod
    def tearDownClass(cls):
        cls.proxy.stop()
        cls.fake.stop()

    def fake_pods(self, ns=None):
        s, lst = c.get(self.fake.url, "pods", ns)
        self.assertEqual(s, 200)
        return lst["items"]

    def test_get_pods_namespace_shows_table_columns(self):
        for ns in (NS, "ns-1"):
            t0 = time.time()
            out = self.k.out("get", "pods", "-n", ns)
            t1 = time.time()
            header, rows = c.table(out)
            self.assertEqual(header, ["NAME", "READY", "STATUS", "RESTARTS", "AGE"],
                             "kubectl get pods -n %s through the proxy printed:\n%s" % (ns, out))
            pods = sorted(self.fake_pods(ns), key=lambda p: p["metadata"]["name"])
            self.assertEqual([r[0] for r in rows], [p["metadata"]["name"] for p in pods])
            for row, pod in zip(rows, pods):
                self.assertEqual(row[:4], c.pod_row(pod), "row of " + pod["metadata"]["name"])
                self.assertIn(row[4], c.ages(pod, t0, t1), "AGE of " + pod["metadata"]["name"])

    def test_get_configmaps_shows_data_column(self):
        out = self.k.out("get", "configmaps", "-n", "ns-2")
        header, rows = c.table(out)
        self.assertEqual(header, ["NAME", "DATA", "AGE"], out)
        s, lst = c.get(self.fake.url, "configmaps", "ns-2")
        want = sorted([o["metadata"]["name"], str(len(o.get("data", {})) + len(o.get("binaryData", {})))]
                      for o in lst["items"])
        self.assertEqual(sorted(r[:2] for r in rows), want)

    def test_get_pods_all_namespaces_same_names_as_fake(self):
        via_proxy = self.k.out("get", "pods", "-A")
        via_fake = self.kf.out("get", "pods", "-A")
        hp, rp = c.table(via_proxy)
        hf, rf = c.table(via_fake)
        self.assertEqual(hp[:2], ["NAMESPACE", "NAME"])
        self.assertEqual(hf[:2], ["NAMESPACE", "NAME"])
        names = [tuple(r[:2]) for r in rp]
        self.assertEqual(names, [tuple(r[:2]) for r in rf])
        self.assertEqual(sorted(names), sorted((p["metadata"]["namespace"], p["metadata"]["name"])
                                               for p in self.fake_pods()))
        self.assertEqual(len(names), 65)

    def test_output_json_items_equal_fake(self):
        for args, ns in ((["-n", "ns-3"], "ns-3"), (["-A"], None), (["-n", NS], NS)):
            got = self.k.json("get", "pods", *args)
            self.assertEqual(got["kind"], "List")
            want = self.fake_pods(ns)
            self.assertEqual([strip_kind(o) for o in got["items"]], want, args)
        got = self.k.json("get", "pod", "crashloop", "-n", NS)
        s, want = c.get(self.fake.url, "pods", NS, "crashloop")
        self.assertEqual(got, want)

    def test_chunk_size_returns_every_item(self):
        p = self.k.run("get", "pods", "-A", "--chunk-size=7", "-o", "json", "-v=6")
        got = json.loads(p.stdout)
        self.assertEqual(c.items_key(got["items"]), c.items_key(self.fake_pods()))
        self.assertEqual(len(got["items"]), 65)
        # 65 items in pages of 7 are 10 requests, 9 of them with a continue token.
        gets = [l for l in p.stderr.splitlines() if "GET " in l and "/api/v1/pods" in l]
        self.assertEqual(sum("limit=7" in l for l in gets), 10, "\n".join(gets))
        self.assertEqual(sum("continue=" in l for l in gets), 9, "\n".join(gets))

    def test_get_pods_watch_prints_new_pod(self):
        w = self.k.watch("get", "pods", "-n", NS, "-w")
        try:
            w.expect(lambda l: l.startswith("running "), what="the initial rows")
            time.sleep(0.3)
            c.create(self.fake.url, "pods", NS, c.simple_pod("born-while-watching"))
            line = w.expect(lambda l: l.startswith("born-while-watching "),
                            what="a row for the pod created after the watch started")
            cells = c.table("H  H\n" + line)[1][0]
            self.assertEqual(cells[1:4], ["0/1", "Pending", "0"], line)
        finally:
            w.kill()
            c.delete(self.fake.url, "pods", NS, "born-while-watching")

    def test_get_pod_name_watch(self):
        c.create(self.fake.url, "pods", NS, c.simple_pod("watched-one"))
        w = self.k.watch("get", "pod", "watched-one", "-n", NS, "-w")
        try:
            first = w.expect(lambda l: "watched-one" in l, what="the pod's first row")
            self.assertTrue(first.startswith("watched-one ") or "NAME" in first, first)
            time.sleep(0.3)
            # A change to another pod must not show; a change to this one must.
            c.patch(self.fake.url, "pods", NS, "running", {"metadata": {"labels": {"x": "1"}}})
            c.patch(self.fake.url, "pods", NS, "watched-one",
                    {"status": {"phase": "Running", "containerStatuses": [{
                        "name": "app", "image": "registry.k8s.io/pause:3.9", "imageID": "",
                        "ready": True, "restartCount": 3,
                        "state": {"running": {"startedAt": "2026-01-01T00:00:00Z"}}}]}})
            line = w.expect(lambda l: l.startswith("watched-one ") and "Running" in l,
                            what="a row for the updated pod")
            cells = c.table("H  H\n" + line)[1][0]
            self.assertEqual(cells[1:4], ["1/1", "Running", "3"], line)
            others = [l for l in w.lines if l.strip() and not l.startswith(("watched-one ", "NAME "))]
            self.assertEqual(others, [], "rows of other pods in a single-pod watch")
        finally:
            w.kill()
            c.delete(self.fake.url, "pods", NS, "watched-one")

    def test_describe_pod(self):
        out = self.k.out("describe", "pod", "crashloop", "-n", NS)
        s, pod = c.get(self.fake.url, "pods", NS, "crashloop")
        for want in ("Name:", "crashloop", "Namespace:", NS, "case=crashloop",
                     "Status:", "Running", "side:", "CrashLoopBackOff", "Restart Count:  6"):
            self.assertIn(want, out)
        self.assertNotIn("error", out.lower())

    def test_create_configmap_reaches_fake(self):
        # `kubectl create configmap` is a typed client-go call: kubectl >= 1.2x
        # sends the body as protobuf (Content-Type application/vnd.kubernetes.protobuf),
        # which a real apiserver accepts; the proxy must pass it through unchanged.
        self.k.out("create", "configmap", "made-by-kubectl", "-n", NS, "--from-literal=k=v")
        s, cm = c.get(self.fake.url, "configmaps", NS, "made-by-kubectl")
        self.assertEqual(s, 200, "the configmap kubectl created through the proxy is not in the fake")
        self.assertEqual(cm["data"], {"k": "v"})
        h.wait_until(lambda: c.get(self.proxy.url, "configmaps", NS, "made-by-kubectl")[0] == 200,
                     what="the created configmap in the proxy")
        self.k.out("delete", "configmap", "made-by-kubectl", "-n", NS)
        self.assertEqual(c.get(self.fake.url, "configmaps", NS, "made-by-kubectl")[0], 404)

    def create_from_file(self, name, *flags):
        path = os.path.join(self.k.dir, name + ".json")
        with open(path, "w") as f:
            json.dump({"apiVersion": "v1", "kind": "ConfigMap",
                       "metadata": {"name": name, "namespace": NS},
                       "data": {"a": "1", "b": "2"}}, f)
        out = self.k.out("create", "-f", path, *flags)
        self.assertIn("configmap/%s created" % name, out)

    def test_create_from_file_reaches_fake(self):
        # `kubectl create -f` sends JSON (the dynamic client). Without client-side
        # validation, so that this checks the write alone.
        self.create_from_file("from-file", "--validate=false")
        s, cm = c.get(self.fake.url, "configmaps", NS, "from-file")
        self.assertEqual(s, 200, "the configmap kubectl created through the proxy is not in the fake")
        self.assertEqual(cm["data"], {"a": "1", "b": "2"})
        h.wait_until(lambda: c.get(self.proxy.url, "configmaps", NS, "from-file")[0] == 200,
                     what="the created configmap in the proxy")

    def test_create_from_file_with_validation(self):
        # kubectl's default client-side validation first downloads the OpenAPI
        # schema (/openapi/v3 since 1.27, /openapi/v2 before), through the proxy.
        self.create_from_file("validated")
        self.assertEqual(c.get(self.fake.url, "configmaps", NS, "validated")[0], 200)

    def test_label_and_delete_reach_fake(self):
        c.create(self.fake.url, "pods", NS, c.simple_pod("to-label"))
        h.wait_until(lambda: c.get(self.proxy.url, "pods", NS, "to-label")[0] == 200,
                     what="to-label in the proxy")
        out = self.k.out("label", "pod", "to-label", "-n", NS, "color=blue")
        self.assertIn("pod/to-label labeled", out)
        s, pod = c.get(self.fake.url, "pods", NS, "to-label")
        self.assertEqual(pod["metadata"]["labels"], {"app": "e2e", "color": "blue"})
        h.wait_until(lambda: (c.get(self.proxy.url, "pods", NS, "to-label")[1] or {})
                     .get("metadata", {}).get("labels", {}).get("color") == "blue",
                     what="the new label in the proxy")
        # kubectl delete waits for the object to go, through a watch on the proxy.
        out = self.k.out("delete", "pod", "to-label", "-n", NS, "--timeout=20s")
        self.assertIn('pod "to-label" deleted', out)
        self.assertEqual(c.get(self.fake.url, "pods", NS, "to-label")[0], 404)


CRD = "widgets.example.com/v1:Widget"
GROUP = "example.com/v1"


class KubectlCustomResourceThroughProxy(unittest.TestCase):
    """A custom resource served by the fake (--crd) is cached by the proxy
    (--resources widgets.v1.example.com), and kubectl lists, watches and
    shows it through the proxy."""

    @classmethod
    def setUpClass(cls):
        cls.fake = h.fake("--crd", CRD, seed="pods=10,widgets.example.com=5")
        try:
            cls.proxy = h.proxy(cls.fake.url, "pods,widgets.v1.example.com")
            h.wait_ready(cls.proxy.url, timeout=15)
            cls.synced_stats = c.stats(cls.fake.url)
        except Exception:
            if getattr(cls, "proxy", None):
                cls.proxy.stop(check=False)
            cls.fake.stop(check=False)
            raise
        cls.k = c.Kubectl(cls.proxy.url)

    @classmethod
    def tearDownClass(cls):
        cls.proxy.stop()
        cls.fake.stop()

    def fake_widgets(self):
        s, lst = c.get(self.fake.url, "widgets", group=GROUP)
        self.assertEqual(s, 200)
        return lst["items"]

    def test_cached_not_passed_through(self):
        # Once synced: one LIST and one open WATCH of widgets at the fake.
        st = self.synced_stats.get("widgets.example.com", {})
        self.assertEqual((st.get("list"), st.get("watch"), st.get("watchOpen")), (1, 1, 1),
                         "fake /fake/stats once the proxy was ready: %s" % self.synced_stats)
        s, a = c.get(self.fake.url, "widgets", group=GROUP)
        s2, b = c.get(self.proxy.url, "widgets", group=GROUP, query="?resourceVersion=0")
        self.assertEqual((s, s2), (200, 200))
        self.assertEqual(b["items"], a["items"])
        self.assertEqual(len(a["items"]), 5)
        before = c.stats(self.fake.url)["widgets.example.com"]
        # From the cache: a resourceVersion=0 read costs the fake nothing ...
        c.get(self.proxy.url, "widgets", "ns-1", group=GROUP, query="?resourceVersion=0")
        mid = c.stats(self.fake.url)["widgets.example.com"]
        self.assertEqual(mid["list"], before["list"], "a resourceVersion=0 LIST reached the fake")
        # ... and kubectl's (consistent) read at most one probe, never a new watch.
        self.k.out("get", "widgets", "-A")
        end = c.stats(self.fake.url)["widgets.example.com"]
        self.assertLessEqual(end["list"] - mid["list"], 1, end)
        self.assertEqual((end["watch"], end["watchOpen"]), (1, 1), end)

    def test_kubectl_lists_widgets(self):
        t0 = time.time()
        out = self.k.out("get", "widgets", "-A")
        t1 = time.time()
        header, rows = c.table(out)
        self.assertEqual(header, ["NAMESPACE", "NAME", "AGE"], out)
        want = sorted(self.fake_widgets(), key=lambda o: (o["metadata"].get("namespace", ""),
                                                          o["metadata"]["name"]))
        self.assertEqual([tuple(r[:2]) for r in rows],
                         [(o["metadata"].get("namespace", ""), o["metadata"]["name"]) for o in want])
        for row, o in zip(rows, want):
            self.assertIn(row[2], c.ages(o, t0, t1))
        got = self.k.json("get", "widgets.example.com", "-A")
        self.assertEqual([strip_kind(o) for o in got["items"]], self.fake_widgets())

    def test_kubectl_shows_a_widget(self):
        w = self.fake_widgets()[0]["metadata"]
        got = self.k.json("get", "widget", w["name"], "-n", w["namespace"])
        s, want = c.get(self.fake.url, "widgets", w["namespace"], w["name"], group=GROUP)
        self.assertEqual(got, want)
        out = self.k.out("describe", "widget", w["name"], "-n", w["namespace"])
        self.assertIn(w["name"], out)
        self.assertIn("Kind:         Widget", out)

    def test_kubectl_watches_widgets(self):
        ns = self.fake_widgets()[0]["metadata"]["namespace"]
        w = self.k.watch("get", "widgets", "-n", ns, "-w")
        try:
            w.expect(lambda l: l.startswith("NAME") or l.strip(), what="the initial rows")
            time.sleep(0.3)
            c.create(self.fake.url, "widgets", ns,
                     {"apiVersion": "example.com/v1", "kind": "Widget",
                      "metadata": {"name": "new-widget"}, "spec": {"size": 3}}, group=GROUP)
            w.expect(lambda l: l.startswith("new-widget "), what="a row for the new widget")
        finally:
            w.kill()


if __name__ == "__main__":
    unittest.main()
