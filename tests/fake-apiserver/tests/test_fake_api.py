"""bin/fake-apiserver: custom resources, aggregated discovery, Table and
PartialObjectMetadata output, gzip: what real clients need from it.

The expected shapes are the real apiserver's (v1.32). Three tests also
compare with answers recorded from a real apiserver, found in
shared/fixtures/real-apiserver beside the repository or where
$REAL_APISERVER_FIXTURES says; they are skipped when those are not there.
"""
import gzip
import http.client
import json
import os
import re
import sys
import time
import unittest
import urllib.parse

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))), "lib"))
import harness  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
FIXTURES = os.environ.get("REAL_APISERVER_FIXTURES") or os.path.join(
    os.path.dirname(ROOT), "shared", "fixtures", "real-apiserver")
TABLE = "application/json;as=Table;v=v1;g=meta.k8s.io,application/json"
AGG_V2 = "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList"
AGG_V2B1 = "application/json;g=apidiscovery.k8s.io;v=v2beta1;as=APIGroupDiscoveryList"
KUBECTL_DISCOVERY = AGG_V2 + "," + AGG_V2B1 + ",application/json"
AGE_RE = re.compile(r"^[0-9]+(s|m[0-9]*s?|h[0-9]*m?|d[0-9]*h?|y[0-9]*d?)$")


def fixture_body(name):
    path = os.path.join(FIXTURES, name)
    if not os.path.exists(path):
        raise unittest.SkipTest("no fixture " + name)
    with open(path) as f:
        text = f.read()
    body = text.split("=== BODY", 1)[1].split("\n", 1)[1]
    body = body.split("\n=== SAME STREAM")[0]
    return body


def get(url, headers=None):
    return harness.request("GET", url, headers=headers)


def shape(v, depth=3):
    """Keys and types down to depth (lists by their first element)."""
    if depth == 0:
        return type(v).__name__
    if isinstance(v, dict):
        return {k: shape(x, depth - 1) for k, x in v.items()}
    if isinstance(v, list):
        return [shape(v[0], depth - 1)] if v else []
    return type(v).__name__


class ApiCase(harness.FakeCase):
    seed = "pods=6,configmaps=3,widgets.example.com=4"
    extra = ("--crd", "widgets.example.com/v1:Widget",
             "--crd", "gadgets.example.org/v1alpha1:Gadget:Cluster",
             "--seed-namespaces", "2")

    def json(self, path, headers=None):
        code, hdrs, body = get(self.url + path, headers)
        self.assertEqual(code, 200, body[:300])
        return hdrs, json.loads(body)


class TestCustomResources(ApiCase):
    W = "/apis/example.com/v1"

    def test_seeded_list(self):
        _, body = self.json(self.W + "/widgets")
        self.assertEqual(body["kind"], "WidgetList")
        self.assertEqual(body["apiVersion"], "example.com/v1")
        self.assertEqual(len(body["items"]), 4)
        names = [(i["metadata"]["namespace"], i["metadata"]["name"])
                 for i in body["items"]]
        self.assertEqual(names, sorted(names))
        _, ns = self.json(self.W + "/namespaces/ns-0/widgets")
        self.assertEqual(len(ns["items"]), 2)
        _, one = self.json(self.W + "/namespaces/ns-0/widgets/widget-0")
        self.assertEqual(one["kind"], "Widget")
        self.assertEqual(one["apiVersion"], "example.com/v1")

    def test_selectors_and_errors(self):
        _, body = self.json(self.W + "/widgets?labelSelector=shard%3D1")
        self.assertEqual([i["metadata"]["name"] for i in body["items"]],
                         ["widget-1"])
        code, _, body = get(self.url + self.W + "/widgets?fieldSelector=spec.size%3D1")
        self.assertEqual(code, 400)
        code, _, body = get(self.url + self.W + "/namespaces/ns-0/widgets/nope")
        self.assertEqual(code, 404)
        self.assertEqual(json.loads(body)["details"],
                         {"name": "nope", "kind": "widgets"})
        for path in ("/apis/example.com/v2/widgets", "/apis/other.io/v1/widgets",
                     "/apis/example.com/v1/gizmos", "/apis/example.com"
                     "/v1/namespaces/ns-0/gadgets"):
            self.assertEqual(get(self.url + path)[0], 404, path)

    def test_write_watch_and_stats(self):
        w = harness.Watch(self.url + self.W + "/namespaces/ns-1/widgets?watch=true"
                          "&resourceVersion=0&allowWatchBookmarks=true"
                          "&timeoutSeconds=10")
        base = len(w.wait_for(3))
        obj = {"apiVersion": "example.com/v1", "kind": "Widget",
               "metadata": {"name": "w-new", "labels": {"a": "b"}},
               "spec": {"size": 9}}
        code, _, body = harness.request("POST", self.url + self.W +
                                        "/namespaces/ns-1/widgets", body=obj)
        self.assertEqual(code, 201, body)
        created = json.loads(body)
        self.assertEqual(created["apiVersion"], "example.com/v1")
        code, _, body = harness.request(
            "PATCH", self.url + self.W + "/namespaces/ns-1/widgets/w-new",
            body=b'{"spec":{"size":10}}',
            headers={"Content-Type": "application/merge-patch+json"})
        self.assertEqual(code, 200, body)
        code, _, _ = harness.request("DELETE", self.url + self.W +
                                     "/namespaces/ns-1/widgets/w-new")
        self.assertEqual(code, 200)
        evs = w.wait_for(base + 3)
        w.close()
        types = [e["type"] for e in evs]
        self.assertEqual(types[:2], ["ADDED", "ADDED"])
        # the initial-events-end bookmark of an unstructured kind
        bm = [e for e in evs if e["type"] == "BOOKMARK"][0]["object"]
        self.assertEqual(bm["apiVersion"], "example.com/v1")
        self.assertEqual(bm["kind"], "Widget")
        self.assertEqual(types[-3:], ["ADDED", "MODIFIED", "DELETED"])
        self.assertEqual(evs[-2]["object"]["spec"], {"size": 10})
        st = harness.get_json(self.url + "/fake/stats")[1]["resources"]
        self.assertGreaterEqual(st["widgets.example.com"]["watch"], 1)
        self.assertGreaterEqual(st["widgets.example.com"]["list"], 1)

    def test_wrong_api_version_in_body(self):
        obj = {"apiVersion": "v1", "kind": "Widget", "metadata": {"name": "x"}}
        code, _, body = harness.request("POST", self.url + self.W +
                                        "/namespaces/ns-0/widgets", body=obj)
        self.assertEqual(code, 400)
        self.assertIn("example.com/v1", json.loads(body)["message"])

    def test_cluster_scoped(self):
        g = "/apis/example.org/v1alpha1/gadgets"
        obj = {"apiVersion": "example.org/v1alpha1", "kind": "Gadget",
               "metadata": {"name": "g1"}}
        code, _, body = harness.request("POST", self.url + g, body=obj)
        self.assertEqual(code, 201, body)
        self.assertNotIn("namespace", json.loads(body)["metadata"])
        _, lst = self.json(g)
        self.assertEqual([i["metadata"]["name"] for i in lst["items"]], ["g1"])
        self.json(g + "/g1")

    def test_discovery(self):
        _, groups = self.json("/apis")
        self.assertEqual(groups["kind"], "APIGroupList")
        # the built-in coordination.k8s.io (leases) first, as the apiserver
        self.assertEqual([g["name"] for g in groups["groups"]],
                         ["coordination.k8s.io", "example.com", "example.org"])
        ex = groups["groups"][1]
        self.assertEqual(ex["versions"], [{"groupVersion": "example.com/v1",
                                           "version": "v1"}])
        self.assertEqual(ex["preferredVersion"], ex["versions"][0])
        _, grp = self.json("/apis/example.com")
        self.assertEqual(grp["kind"], "APIGroup")
        _, rl = self.json("/apis/example.com/v1")
        self.assertEqual(rl["kind"], "APIResourceList")
        self.assertEqual(rl["groupVersion"], "example.com/v1")
        (res,) = rl["resources"]
        self.assertEqual(res["name"], "widgets")
        self.assertEqual(res["singularName"], "widget")
        self.assertEqual(res["kind"], "Widget")
        self.assertTrue(res["namespaced"])
        self.assertIn("watch", res["verbs"])
        self.assertIn("deletecollection", res["verbs"])
        _, rl = self.json("/apis/example.org/v1alpha1")
        self.assertFalse(rl["resources"][0]["namespaced"])
        # the core group is unchanged
        _, core = self.json("/api/v1")
        self.assertNotIn("widgets", [r["name"] for r in core["resources"]])
        self.assertEqual(get(self.url + "/apis/example.com/v9")[0], 404)

    def test_seed_key_and_shape(self):
        _, body = self.json(self.W + "/namespaces/ns-1/widgets/widget-1")
        md = body["metadata"]
        self.assertEqual(md["labels"], {"app": "demo", "shard": "1"})
        self.assertTrue(md["managedFields"])
        self.assertIn("spec", body)


class TestAggregatedDiscovery(ApiCase):
    def agg(self, path, accept):
        code, hdrs, body = get(self.url + path, {"Accept": accept})
        self.assertEqual(code, 200)
        return hdrs, json.loads(body)

    def test_api_v2(self):
        hdrs, body = self.agg("/api", AGG_V2)
        self.assertEqual(hdrs["Content-Type"], AGG_V2)
        self.assertEqual(hdrs["Cache-Control"], "public")
        self.assertEqual(hdrs["Vary"], "Accept")
        self.assertRegex(hdrs["Etag"], r'^"[0-9A-F]{128}"$')
        self.assertEqual(body["kind"], "APIGroupDiscoveryList")
        self.assertEqual(body["apiVersion"], "apidiscovery.k8s.io/v2")
        (core,) = body["items"]
        self.assertEqual(core["metadata"], {"creationTimestamp": None})
        (v1,) = core["versions"]
        self.assertEqual(v1["version"], "v1")
        self.assertEqual(v1["freshness"], "Current")
        pods = [r for r in v1["resources"] if r["resource"] == "pods"][0]
        self.assertEqual(pods["responseKind"],
                         {"group": "", "version": "", "kind": "Pod"})
        self.assertEqual(pods["scope"], "Namespaced")
        self.assertEqual(pods["singularResource"], "pod")
        self.assertEqual(pods["shortNames"], ["po"])
        ns = [r for r in v1["resources"] if r["resource"] == "namespaces"][0]
        self.assertEqual(ns["scope"], "Cluster")

    def test_matches_fixture_shape(self):
        text = fixture_body("02-a-api-aggregated-discovery.txt")
        # the fixture is truncated: compare the head of the first resource
        m = re.search(r'"resources": \[\s*(\{.*?\n            \})', text, re.S)
        ref = json.loads(m.group(1))
        _, body = self.agg("/api", AGG_V2)
        ours = body["items"][0]["versions"][0]["resources"][0]
        self.assertEqual(list(ours)[:5], list(ref)[:5])
        self.assertEqual(list(body), ["kind", "apiVersion", "metadata", "items"])

    def test_apis_groups(self):
        _, body = self.agg("/apis", AGG_V2)
        names = [i["metadata"]["name"] for i in body["items"]]
        self.assertEqual(names, ["authentication.k8s.io", "coordination.k8s.io",
                                 "example.com", "example.org"])
        # a resource that can only be created, as the real one lists it
        tr = body["items"][0]["versions"][0]["resources"][0]
        self.assertEqual((tr["resource"], tr["scope"], tr["verbs"]),
                         ("tokenreviews", "Cluster", ["create"]))
        lease = body["items"][1]["versions"][0]["resources"][0]
        self.assertEqual((lease["resource"], lease["responseKind"]["kind"], lease["scope"]),
                         ("leases", "Lease", "Namespaced"))
        w = body["items"][2]["versions"][0]["resources"][0]
        self.assertEqual(w["resource"], "widgets")
        self.assertEqual(w["responseKind"]["kind"], "Widget")
        self.assertEqual(body["items"][3]["versions"][0]["version"], "v1alpha1")
        self.assertEqual(body["items"][3]["versions"][0]["resources"][0]["scope"],
                         "Cluster")

    def test_if_none_match_304(self):
        hdrs, _ = self.agg("/apis", AGG_V2)
        etag = hdrs["Etag"]
        code, h2, body = get(self.url + "/apis",
                             {"Accept": AGG_V2, "If-None-Match": etag})
        self.assertEqual(code, 304)
        self.assertEqual(body, b"")
        self.assertEqual(h2["Etag"], etag)
        self.assertEqual(h2["Vary"], "Accept")
        self.assertEqual(h2["Cache-Control"], "public")
        code, _, _ = get(self.url + "/apis",
                         {"Accept": AGG_V2, "If-None-Match": '"stale"'})
        self.assertEqual(code, 200)
        # /api and /apis differ
        self.assertNotEqual(self.agg("/api", AGG_V2)[0]["Etag"], etag)

    def test_kubectl_accept_picks_v2(self):
        hdrs, _ = self.agg("/apis", KUBECTL_DISCOVERY)
        self.assertEqual(hdrs["Content-Type"], AGG_V2)

    def test_v2beta1(self):
        h2, _ = self.agg("/apis", AGG_V2)
        hdrs, body = self.agg("/apis", AGG_V2B1)
        self.assertEqual(hdrs["Content-Type"], AGG_V2B1)
        self.assertEqual(body["apiVersion"], "apidiscovery.k8s.io/v2beta1")
        self.assertEqual(hdrs["Etag"], h2["Etag"])     # one ETag for both versions

    def test_plain_accept_gets_legacy(self):
        for accept in (None, "application/json",
                       "application/json," + AGG_V2):
            code, hdrs, body = get(self.url + "/apis",
                                   {"Accept": accept} if accept else None)
            self.assertEqual(code, 200)
            self.assertEqual(hdrs["Content-Type"], "application/json")
            self.assertEqual(json.loads(body)["kind"], "APIGroupList")


class TestTable(ApiCase):
    def table(self, path, accept=TABLE):
        return self.json(path, {"Accept": accept})[1]

    def test_pod_columns_match_fixture(self):
        ref = json.loads(fixture_body("07-a-list-pods-table.txt"))
        t = self.table("/api/v1/namespaces/ns-0/pods")
        self.assertEqual(t["columnDefinitions"], ref["columnDefinitions"])
        self.assertEqual(list(t), list(ref))
        self.assertEqual(shape(t["rows"][0], 2), shape(ref["rows"][0], 2))
        self.assertEqual(list(t["rows"][0]["object"]["metadata"])[:5],
                         list(ref["rows"][0]["object"]["metadata"])[:5])

    def test_pod_rows(self):
        t = self.table("/api/v1/namespaces/ns-0/pods")
        _, plain = self.json("/api/v1/namespaces/ns-0/pods")
        self.assertEqual(t["kind"], "Table")
        self.assertEqual(t["apiVersion"], "meta.k8s.io/v1")
        self.assertEqual(t["metadata"], plain["metadata"])
        self.assertEqual([c["priority"] for c in t["columnDefinitions"]],
                         [0, 0, 0, 0, 0, 1, 1, 1, 1])
        self.assertEqual(len(t["rows"]), len(plain["items"]))
        for row, pod in zip(t["rows"], plain["items"]):
            cells = row["cells"]
            self.assertEqual(cells[0], pod["metadata"]["name"])
            self.assertEqual(row["object"]["kind"], "PartialObjectMetadata")
            self.assertEqual(row["object"]["apiVersion"], "meta.k8s.io/v1")
            self.assertEqual(row["object"]["metadata"], pod["metadata"])
            n = len(pod["spec"]["containers"])
            ready = sum(1 for c in pod["status"].get("containerStatuses", [])
                        if c.get("ready") and "running" in c["state"])
            self.assertEqual(cells[1], "%d/%d" % (ready, n))
            self.assertEqual(cells[2], pod["status"]["phase"])
            self.assertRegex(cells[4], AGE_RE)
            self.assertEqual(cells[5], pod["status"].get("podIP", "<none>"))
            self.assertEqual(cells[6], pod["spec"].get("nodeName", "<none>"))
            self.assertEqual(cells[8], "<none>")

    def test_none_is_escaped_like_go(self):
        code, _, body = get(self.url + "/api/v1/namespaces/ns-0/pods",
                            {"Accept": TABLE})
        self.assertIn(b'"\\u003cnone\\u003e"', body)

    def test_pod_status_cells(self):
        ns = "/api/v1/namespaces/ns-1/pods"
        pod = {"apiVersion": "v1", "kind": "Pod",
               "metadata": {"name": "crashy"},
               "spec": {"containers": [{"name": "a", "image": "x"},
                                       {"name": "b", "image": "y"}],
                        "readinessGates": [{"conditionType": "g1"}]},
               "status": {"phase": "Running", "podIP": "10.1.2.3",
                          "conditions": [{"type": "g1", "status": "True"}],
                          "containerStatuses": [
                              {"name": "a", "ready": True, "restartCount": 1,
                               "state": {"running": {}}},
                              {"name": "b", "ready": False, "restartCount": 3,
                               "state": {"waiting": {"reason": "CrashLoopBackOff"}}}]}}
        code, _, body = harness.request("POST", self.url + ns, body=pod)
        self.assertEqual(code, 201, body)
        t = self.table(ns + "/crashy")
        (row,) = t["rows"]
        self.assertEqual(row["cells"][:4], ["crashy", "1/2", "CrashLoopBackOff", "4"])
        self.assertRegex(row["cells"][4], r"^[0-9]s$")
        self.assertEqual(row["cells"][5:], ["10.1.2.3", "<none>", "<none>", "1/1"])
        code, _, body = harness.request(
            "PATCH", self.url + ns + "/crashy",
            body=b'{"metadata":{"deletionTimestamp":"2026-01-01T00:00:00Z"}}',
            headers={"Content-Type": "application/merge-patch+json"})
        self.assertEqual(code, 200, body)
        self.assertEqual(self.table(ns + "/crashy")["rows"][0]["cells"][2],
                         "Terminating")

    def test_include_object(self):
        t = self.table("/api/v1/namespaces/ns-0/pods?includeObject=Object")
        self.assertEqual(t["rows"][0]["object"]["kind"], "Pod")
        self.assertEqual(t["rows"][0]["object"]["apiVersion"], "v1")
        self.assertIn("spec", t["rows"][0]["object"])
        t = self.table("/api/v1/namespaces/ns-0/pods?includeObject=None",
                       "application/json;as=Table;v=v1;g=meta.k8s.io")
        self.assertIsNone(t["rows"][0]["object"])       # includeObject=None: null

    def test_limit_continue_in_table(self):
        t = self.table("/api/v1/namespaces/ns-0/pods?limit=1")   # the list's metadata
        self.assertEqual(list(t["metadata"]),
                         ["resourceVersion", "continue", "remainingItemCount"])
        self.assertEqual(len(t["rows"]), 1)
        _, plain = self.json("/api/v1/namespaces/ns-0/pods?limit=1")
        self.assertEqual(t["metadata"], plain["metadata"])
        t2 = self.table("/api/v1/namespaces/ns-0/pods?limit=1&continue=" +
                        urllib.parse.quote(t["metadata"]["continue"]))
        self.assertNotEqual(t2["rows"][0]["cells"][0], t["rows"][0]["cells"][0])

    def test_get_is_one_row_at_object_rv(self):
        _, pod = self.json("/api/v1/namespaces/ns-0/pods/web-0")
        t = self.table("/api/v1/namespaces/ns-0/pods/web-0")     # a one-row Table
        self.assertEqual(t["metadata"],
                         {"resourceVersion": pod["metadata"]["resourceVersion"]})
        self.assertEqual(len(t["rows"]), 1)
        self.assertEqual(len(t["columnDefinitions"]), 9)

    def test_v1beta1(self):
        t = self.table("/api/v1/namespaces/ns-0/pods",
                       "application/json;as=Table;v=v1beta1;g=meta.k8s.io")
        self.assertEqual(t["apiVersion"], "meta.k8s.io/v1beta1")   # as asked
        self.assertEqual(t["rows"][0]["object"]["apiVersion"],
                         "meta.k8s.io/v1beta1")

    def test_unknown_as_falls_back(self):
        _, body = self.json("/api/v1/namespaces/ns-0/pods", {
            "Accept": "application/vnd.kubernetes.protobuf;as=Table;v=v1;"
                      "g=meta.k8s.io,application/json;as=Bogus;v=v1;"
                      "g=meta.k8s.io,application/json"})
        self.assertEqual(body["kind"], "PodList")

    def test_other_kinds(self):
        t = self.table("/api/v1/namespaces/ns-0/configmaps")
        self.assertEqual([c["name"] for c in t["columnDefinitions"]],
                         ["Name", "Data", "Age"])
        _, cm = self.json("/api/v1/namespaces/ns-0/configmaps/" +
                          t["rows"][0]["cells"][0])
        self.assertEqual(t["rows"][0]["cells"][1], len(cm["data"]))
        t = self.table("/api/v1/namespaces")
        self.assertEqual([c["name"] for c in t["columnDefinitions"]],
                         ["Name", "Status", "Age"])
        self.assertEqual(t["rows"][0]["cells"][1], "Active")
        self.assertNotIn("namespace", t["rows"][0]["object"]["metadata"])
        t = self.table("/apis/example.com/v1/widgets")
        self.assertEqual([(c["name"], c["type"]) for c in t["columnDefinitions"]],
                         [("Name", "string"), ("Age", "date")])
        self.assertEqual(len(t["rows"]), 4)
        self.assertEqual(t["rows"][0]["object"]["metadata"]["namespace"], "ns-0")

    def test_partial_object_metadata(self):
        _, plain = self.json("/api/v1/namespaces/ns-0/pods")
        body = self.table("/api/v1/namespaces/ns-0/pods",
                          "application/json;as=PartialObjectMetadataList;"
                          "v=v1;g=meta.k8s.io")
        self.assertEqual(body["kind"], "PartialObjectMetadataList")
        self.assertEqual(body["apiVersion"], "meta.k8s.io/v1")
        self.assertEqual(body["metadata"], plain["metadata"])
        self.assertEqual([i["metadata"] for i in body["items"]],
                         [i["metadata"] for i in plain["items"]])
        self.assertEqual(list(body["items"][0]),
                         ["kind", "apiVersion", "metadata"])
        one = self.table("/api/v1/namespaces/ns-0/pods/web-0",
                         "application/json;as=PartialObjectMetadata;v=v1;"
                         "g=meta.k8s.io")
        self.assertEqual(one["kind"], "PartialObjectMetadata")
        self.assertEqual(one["metadata"]["name"], "web-0")
        ref = fixture_body("07-f-get-pod-partialobjectmetadata.txt")
        self.assertEqual(list(json.loads(ref)), list(one))

    def test_response_is_application_json(self):
        code, hdrs, _ = get(self.url + "/api/v1/pods", {"Accept": TABLE})
        self.assertEqual(hdrs["Content-Type"], "application/json")


class TestTableWatch(ApiCase):
    def test_watch_table_events(self):
        _, plain = self.json("/api/v1/namespaces/ns-0/pods")
        rv = plain["metadata"]["resourceVersion"]
        u = urllib.parse.urlsplit(self.url)
        conn = http.client.HTTPConnection(u.hostname, u.port, timeout=20)
        conn.request("GET", "/api/v1/namespaces/ns-0/pods?watch=true&"
                     "resourceVersion=%s&timeoutSeconds=3" % rv,
                     headers={"Accept": TABLE})
        resp = conn.getresponse()
        self.assertEqual(resp.status, 200)
        for v in ("1", "2"):
            time.sleep(0.3)
            code, _, body = harness.request(
                "PATCH", self.url + "/api/v1/namespaces/ns-0/pods/web-0",
                body=json.dumps({"metadata": {"labels": {"touch": v}}}).encode(),
                headers={"Content-Type": "application/merge-patch+json"})
            self.assertEqual(code, 200, body)
        lines = [json.loads(x) for x in resp.read().splitlines() if x]
        conn.close()
        self.assertEqual([e["type"] for e in lines], ["MODIFIED", "MODIFIED"])
        first, second = lines[0]["object"], lines[1]["object"]
        self.assertEqual(first["kind"], "Table")
        self.assertEqual(len(first["columnDefinitions"]), 9)
        self.assertIsNone(second["columnDefinitions"])           # only the first has them
        self.assertEqual(list(first), ["kind", "apiVersion", "metadata",
                                       "columnDefinitions", "rows"])
        md = first["rows"][0]["object"]["metadata"]
        self.assertEqual(first["metadata"],
                         {"resourceVersion": md["resourceVersion"]})
        self.assertEqual(md["labels"]["touch"], "1")
        self.assertEqual(second["rows"][0]["object"]["metadata"]["labels"]["touch"], "2")
        ref = fixture_body("11-b-watch-table-two-changes.txt").splitlines()
        r1, r2 = json.loads(ref[0])["object"], json.loads(ref[1])["object"]
        self.assertEqual(first["columnDefinitions"], r1["columnDefinitions"])
        self.assertEqual(shape(second, 4), shape(r2, 4))


class TestGzip(ApiCase):
    seed = "configmaps=2"
    extra = ()

    def test_threshold(self):
        small = get(self.url + "/api/v1/configmaps",
                    {"Accept-Encoding": "gzip"})          # small: not compressed
        self.assertEqual(small[0], 200)
        self.assertIsNone(small[1]["Content-Encoding"])
        json.loads(small[2])
        cm = {"apiVersion": "v1", "kind": "ConfigMap",
              "metadata": {"name": "big"}, "data": {"k": "x" * 150000}}
        code, _, body = harness.request(
            "POST", self.url + "/api/v1/namespaces/ns-0/configmaps", body=cm)
        self.assertEqual(code, 201)
        plain = get(self.url + "/api/v1/namespaces/ns-0/configmaps")
        self.assertIsNone(plain[1]["Content-Encoding"])
        self.assertGreater(len(plain[2]), 128 * 1024)
        gz = get(self.url + "/api/v1/namespaces/ns-0/configmaps",
                 {"Accept-Encoding": "gzip"})             # over 128 KiB: gzip
        self.assertEqual(gz[0], 200)
        self.assertEqual(gz[1]["Content-Encoding"], "gzip")
        self.assertEqual(gz[1]["Vary"], "Accept-Encoding")
        self.assertEqual(gz[1]["Content-Type"], "application/json")
        self.assertLess(len(gz[2]), 10000)
        self.assertEqual(json.loads(gzip.decompress(gz[2])), json.loads(plain[2]))
        one = get(self.url + "/api/v1/namespaces/ns-0/configmaps/big",
                  {"Accept-Encoding": "deflate, gzip;q=0.5"})
        self.assertEqual(one[1]["Content-Encoding"], "gzip")
        self.assertEqual(json.loads(gzip.decompress(one[2]))["data"]["k"],
                         "x" * 150000)
        no = get(self.url + "/api/v1/namespaces/ns-0/configmaps/big",
                 {"Accept-Encoding": "gzip;q=0"})
        self.assertIsNone(no[1]["Content-Encoding"])


if __name__ == "__main__":
    unittest.main()
