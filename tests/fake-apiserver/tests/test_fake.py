"""End-to-end tests of bin/fake-apiserver, the stand-in for kube-apiserver.

Each class starts its own server on 127.0.0.1:0. The expected shapes are
the real apiserver's (v1.32), as recorded from it; where a check is not
obvious, a comment says what the apiserver does. The fake runs with its real-cluster defaults (Lease renewals,
Events, compaction: test_fake_cluster.py), so the global resourceVersion may
move between two requests; only a class that needs exact RV arithmetic
passes --quiet.
"""
import base64
import http.client
import json
import os
import re
import sys
import threading
import time
import unittest
import urllib.parse

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))), "lib"))
import harness  # noqa: E402


def key(item):
    """The etcd key order: "ns/name"."""
    md = item["metadata"]
    return (md.get("namespace", "") + "/" if md.get("namespace") else "") + md["name"]


def raw_get(url, headers=None):
    return harness.request("GET", url, headers=headers)


def stats(srv):
    return harness.get_json(srv.url + "/fake/stats")[1]["resources"]


def faults(srv, body):
    return harness.request("POST", srv.url + "/fake/faults", body=body)


def pod(name, labels=None, phase=None, node=None):
    obj = {"apiVersion": "v1", "kind": "Pod",
           "metadata": {"name": name, "labels": labels or {}},
           "spec": {"containers": [{"name": "c", "image": "busybox"}]}}
    if node:
        obj["spec"]["nodeName"] = node
    if phase:
        obj["status"] = {"phase": phase}
    return obj


def decode_token(tok):
    return json.loads(base64.urlsafe_b64decode(tok + "=" * (-len(tok) % 4)))


class FakeCase(harness.FakeCase):
    seed = "pods=20"

    def api(self, path):
        return self.url + "/api/v1" + path

    def list(self, path, **q):
        qs = ("?" + urllib.parse.urlencode(q)) if q else ""
        status, body = harness.get_json(self.api(path) + qs)
        return status, body

    def rv(self):
        return int(self.list("/namespaces")[1]["metadata"]["resourceVersion"])

    def create(self, ns, obj, res="pods"):
        return harness.request("POST", self.api("/namespaces/%s/%s" % (ns, res)), body=obj)

    def assertStatus(self, body, code, reason, msg=None):
        st = json.loads(body) if isinstance(body, (bytes, str)) else body
        self.assertEqual(st["kind"], "Status")
        self.assertEqual(st["apiVersion"], "v1")
        self.assertEqual(st["metadata"], {})
        self.assertEqual(st["status"], "Failure")
        self.assertEqual(st["code"], code)
        if reason is None:
            self.assertNotIn("reason", st)
        else:
            self.assertEqual(st["reason"], reason)
        if msg is not None:
            self.assertEqual(st["message"], msg)
        return st


class TestList(FakeCase):
    seed = "pods=20,configmaps=3,services=2"

    def test_list_sorted_compact_and_rv(self):
        status, hdrs, body = raw_get(self.api("/pods"))
        self.assertEqual(status, 200)
        self.assertEqual(hdrs["Content-Type"], "application/json")
        self.assertTrue(body.endswith(b"}\n"))
        self.assertNotIn(b"\n", body[:-1])      # compact for a client, as the apiserver
        d = json.loads(body)
        self.assertEqual(d["kind"], "PodList")
        self.assertEqual(d["apiVersion"], "v1")
        self.assertEqual(len([i for i in d["items"] if i["metadata"]["name"].startswith("web-")]), 20)
        keys = [key(i) for i in d["items"]]
        self.assertEqual(keys, sorted(keys))
        self.assertNotIn("kind", d["items"][0])  # list items carry no kind
        # the list RV is the global revision, not the highest item RV:
        # a later list of another resource is at it or past it (Lease
        # renewals may move it in between), and past every configmap
        cm = self.list("/configmaps")[1]
        self.assertGreaterEqual(int(cm["metadata"]["resourceVersion"]), int(d["metadata"]["resourceVersion"]))
        self.assertGreater(int(d["metadata"]["resourceVersion"]),
                           max(int(i["metadata"]["resourceVersion"]) for i in d["items"]))
        self.assertGreater(int(cm["metadata"]["resourceVersion"]),
                           max(int(i["metadata"]["resourceVersion"]) for i in cm["items"]))
        # the seeded namespaces plus the system ones every cluster has
        ns = self.list("/namespaces")[1]
        self.assertEqual([i["metadata"]["name"] for i in ns["items"]],
                         sorted(["default", "kube-node-lease", "kube-public", "kube-system"] +
                                ["ns-%d" % i for i in range(10)]))

    def test_namespaced_list_and_missing_namespace(self):
        d = self.list("/namespaces/ns-3/pods")[1]
        self.assertEqual({i["metadata"]["namespace"] for i in d["items"]}, {"ns-3"})
        self.assertEqual(len(d["items"]), 2)
        status, d = self.list("/namespaces/nosuchns/pods")  # an empty list, not 404
        self.assertEqual(status, 200)
        self.assertEqual(d["items"], [])
        self.assertIn("resourceVersion", d["metadata"])

    def test_limit_continue_one_snapshot(self):
        for i in range(3):
            self.assertEqual(self.create("ns-8", pod("victim-%d" % i))[0], 201)
        full = self.list("/pods")[1]
        first = self.list("/pods", limit=7)[1]
        md = first["metadata"]
        self.assertEqual(len(first["items"]), 7)
        self.assertEqual(md["remainingItemCount"], len(full["items"]) - 7)
        tok = decode_token(md["continue"])
        self.assertEqual(tok["v"], "meta.k8s.io/v1")
        self.assertEqual(tok["rv"], int(md["resourceVersion"]))
        self.assertEqual(tok["start"], key(first["items"][-1]) + "\u0000")
        # writes between pages must not show up in later pages
        later = [i for i in full["items"] if key(i) > key(first["items"][-1])]
        victim = [i for i in later if i["metadata"]["name"].startswith("victim-")][1]["metadata"]
        st, _, _ = harness.request("DELETE", self.api("/namespaces/%s/pods/%s" % (victim["namespace"], victim["name"])))
        self.assertEqual(st, 200)
        self.assertEqual(self.create("ns-9", pod("zzz-new"))[0], 201)
        self.assertEqual(self.create("ns-0", pod("aaa-new"))[0], 201)
        items = list(first["items"])
        cont = md["continue"]
        while cont:
            st, page = self.list("/pods", limit=7, **{"continue": cont})
            self.assertEqual(st, 200)
            self.assertEqual(page["metadata"]["resourceVersion"], md["resourceVersion"])
            items += page["items"]
            cont = page["metadata"].get("continue")
            if not cont:
                self.assertNotIn("remainingItemCount", page["metadata"])
            else:  # counted in the snapshot, not in today's state
                self.assertEqual(page["metadata"]["remainingItemCount"],
                                 len(full["items"]) - len(items))
        self.assertEqual([key(i) for i in items], [key(i) for i in full["items"]])
        self.assertEqual(items, full["items"])
        for path in ("ns-9/pods/zzz-new", "ns-0/pods/aaa-new", "ns-8/pods/victim-0", "ns-8/pods/victim-2"):
            harness.request("DELETE", self.api("/namespaces/" + path))

    def test_remaining_item_count(self):
        """Counted without a walk for the current state of all namespaces,
        by a walk in one namespace or with a selector: the same counts."""
        full = self.list("/pods")[1]["items"]
        for k in (1, 5, len(full) - 1):
            md = self.list("/pods", limit=k)[1]["metadata"]
            self.assertEqual(md["remainingItemCount"], len(full) - k)
        in_ns = [i for i in full if i["metadata"]["namespace"] == "ns-1"]
        md = self.list("/namespaces/ns-1/pods", limit=1)[1]["metadata"]
        self.assertEqual(md["remainingItemCount"], len(in_ns) - 1)
        first = self.list("/pods", limit=3)[1]
        md = self.list("/pods", limit=3, **{"continue": first["metadata"]["continue"]})[1]["metadata"]
        self.assertEqual(md["remainingItemCount"], len(full) - 6)

    def test_namespaced_continue_token_is_relative(self):
        first = self.list("/namespaces/ns-1/pods", limit=1)[1]
        tok = decode_token(first["metadata"]["continue"])
        self.assertEqual(tok["start"], first["items"][0]["metadata"]["name"] + "\u0000")
        rest = self.list("/namespaces/ns-1/pods", limit=1,
                         **{"continue": first["metadata"]["continue"]})[1]
        self.assertEqual(len(rest["items"]), 1)
        self.assertNotEqual(rest["items"][0]["metadata"]["name"], first["items"][0]["metadata"]["name"])

    def test_bogus_continue_400(self):
        status, _, body = raw_get(self.api("/namespaces/ns-1/pods?limit=2&continue=bogus-token"))
        self.assertEqual(status, 400)  # an undecodable token is BadRequest
        st = self.assertStatus(body, 400, "BadRequest")
        # the apiserver quotes Go's encoding/json error for the decoded bytes
        self.assertEqual(st["message"], "invalid continue token: continue key is not valid: "
                         "invalid character '\\u0088' in literal null (expecting 'u')")
        for tok, why in (("!!!", "illegal base64 data at input byte 0"),
                         ("eA", "invalid character 'x' looking for beginning of value"),
                         ("WzFd", "json: cannot unmarshal array into Go value of type storage.continueToken"),
                         ("eyJ2IjoxfQ", "json: cannot unmarshal number into Go struct field continueToken.v of type string"),
                         ("eyJ2IjoidjIiLCJydiI6MSwic3RhcnQiOiJhIn0",
                          'server does not recognize this encoded version "v2"')):
            status, _, body = raw_get(self.api("/pods?limit=2&continue=" + tok))
            self.assertStatus(body, 400, "BadRequest",
                              "invalid continue token: continue key is not valid: " + why)
        bad = base64.urlsafe_b64encode(b'{"v":"meta.k8s.io/v1","rv":0,"start":"a\\u0000"}').decode().rstrip("=")
        status, _, body = raw_get(self.api("/pods?limit=2&continue=" + bad))
        self.assertEqual(status, 400)
        status, _, body = raw_get(self.api("/pods?limit=2&resourceVersion=5&continue=" +
                                           self.list("/pods", limit=2)[1]["metadata"]["continue"]))
        self.assertStatus(body, 400, "BadRequest",
                          "specifying resource version is not allowed when using continue")

    def test_status_indented_for_curl(self):
        # the apiserver indents errors for curl, Wget and browsers, or for
        # ?pretty=true, with no final newline; client-go gets them compact
        compact = b'{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure",' \
            b'"message":"pods \\"nope\\" not found","reason":"NotFound",' \
            b'"details":{"name":"nope","kind":"pods"},"code":404}\n'
        pretty = (b'{\n  "kind": "Status",\n  "apiVersion": "v1",\n  "metadata": {},\n'
                  b'  "status": "Failure",\n  "message": "pods \\"nope\\" not found",\n'
                  b'  "reason": "NotFound",\n  "details": {\n    "name": "nope",\n'
                  b'    "kind": "pods"\n  },\n  "code": 404\n}')
        url = self.api("/namespaces/ns-1/pods/nope")
        for headers, q, want in (({"User-Agent": "curl/7.88.1"}, "", pretty),
                                 ({"User-Agent": "Wget/1.21"}, "", pretty),
                                 ({"User-Agent": "kubectl/v1.32.4"}, "", compact),
                                 ({"User-Agent": "kubectl/v1.32.4"}, "?pretty=true", pretty),
                                 ({"User-Agent": "curl/7.88.1"}, "?pretty=false", compact)):
            status, _, body = raw_get(url + q, headers=headers)
            self.assertEqual(status, 404)
            self.assertEqual(body, want, (headers, q))

    def test_exact_rv_rebuilds_old_state(self):
        before = self.list("/namespaces/ns-2/pods")[1]
        rv = before["metadata"]["resourceVersion"]
        self.assertEqual(self.create("ns-2", pod("exact-new"))[0], 201)
        name = before["items"][0]["metadata"]["name"]
        st, _, _ = harness.request("PATCH", self.api("/namespaces/ns-2/pods/" + name), body={"metadata": {"labels": {"x": "y"}}},
                                   headers={"Content-Type": "application/merge-patch+json"})
        self.assertEqual(st, 200)
        st, old = self.list("/namespaces/ns-2/pods", resourceVersion=rv, resourceVersionMatch="Exact")
        self.assertEqual(st, 200)  # Exact at a recent RV is served
        self.assertEqual(old, before)
        # legacy semantics: RV=N with a limit reads exactly N too
        st, page = self.list("/namespaces/ns-2/pods", resourceVersion=rv, limit=10)
        self.assertEqual(page["items"], before["items"])
        # NotOlderThan serves the current state
        st, cur = self.list("/namespaces/ns-2/pods", resourceVersion=rv, resourceVersionMatch="NotOlderThan")
        self.assertEqual(len(cur["items"]), len(before["items"]) + 1)
        harness.request("DELETE", self.api("/namespaces/ns-2/pods/exact-new"))

    def test_list_options_422(self):
        cases = [
            ({"resourceVersionMatch": "Exact"},
             'ListOptions.meta.k8s.io "" is invalid: resourceVersionMatch: Forbidden: '
             'resourceVersionMatch is forbidden unless resourceVersion is provided', "FieldValueForbidden"),
            ({"resourceVersionMatch": "Exact", "resourceVersion": "0"},
             'ListOptions.meta.k8s.io "" is invalid: resourceVersionMatch: Forbidden: '
             'resourceVersionMatch "exact" is forbidden for resourceVersion "0"', "FieldValueForbidden"),
            ({"resourceVersionMatch": "Bogus", "resourceVersion": "0"},
             'ListOptions.meta.k8s.io "" is invalid: resourceVersionMatch: Unsupported value: "Bogus": '
             'supported values: "Exact", "NotOlderThan", ""', "FieldValueNotSupported"),
        ]
        for q, msg, cause in cases:
            status, _, body = raw_get(self.api("/pods?") + urllib.parse.urlencode(q))
            self.assertEqual(status, 422, q)
            st = self.assertStatus(body, 422, "Invalid", msg)
            self.assertEqual(st["details"]["group"], "meta.k8s.io")
            self.assertEqual(st["details"]["kind"], "ListOptions")
            self.assertEqual(st["details"]["causes"][0]["reason"], cause)
            self.assertEqual(st["details"]["causes"][0]["field"], "resourceVersionMatch")
        # a watch with resourceVersionMatch but no sendInitialEvents
        status, _, body = raw_get(self.api("/pods?watch=true&resourceVersionMatch=NotOlderThan"))
        self.assertEqual(status, 422)
        self.assertIn("resourceVersionMatch is forbidden for watch unless sendInitialEvents is provided",
                      json.loads(body)["message"])

    def test_rv_not_a_number_500(self):
        status, _, body = raw_get(self.api("/pods?resourceVersion=abc"))  # storage layer: 500
        self.assertEqual(status, 500)
        self.assertStatus(body, 500, None, 'resourceVersion: Invalid value: "abc": '
                          'strconv.ParseUint: parsing "abc": invalid syntax')

    def test_rv_too_large_504(self):
        rv = self.rv()
        t0 = time.time()
        status, hdrs, body = raw_get(self.api("/pods?resourceVersion=%d" % (rv + 1000000)))
        took = time.time() - t0
        self.assertEqual(status, 504)  # after the apiserver's 3 s wait
        self.assertGreaterEqual(took, 2.9)
        self.assertEqual(hdrs["Retry-After"], "1")
        st = self.assertStatus(body, 504, "Timeout")
        # the current RV is read when the wait ends: background writes may
        # have moved it by then
        m = re.fullmatch(r"Timeout: Too large resource version: (\d+), current: (\d+)", st["message"])
        self.assertIsNotNone(m, st["message"])
        self.assertEqual(int(m.group(1)), rv + 1000000)
        self.assertTrue(rv <= int(m.group(2)) < rv + 100, st["message"])
        self.assertEqual(st["details"], {"causes": [{"reason": "ResourceVersionTooLarge",
                                                     "message": "Too large resource version"}],
                                         "retryAfterSeconds": 1})

    def test_rv_wait_then_serve(self):
        # --quiet: the LIST must be released by this test's write, not by
        # a Lease renewal that reaches rv + 1 first.
        srv = harness.fake("--quiet", seed="pods=2")
        self.addCleanup(srv.stop)
        api = srv.url + "/api/v1"
        rv = int(harness.get_json(api + "/pods")[1]["metadata"]["resourceVersion"])
        done = {}

        def lister():
            done["r"] = harness.get_json(api + "/pods?resourceVersion=%d" % (rv + 1))
        t = threading.Thread(target=lister)
        t.start()
        time.sleep(0.3)          # a duration: the LIST must not answer in it
        self.assertNotIn("r", done)
        self.assertEqual(harness.request("POST", api + "/namespaces/ns-4/pods", body=pod("waited-for"))[0], 201)
        t.join(5)
        self.assertEqual(done["r"][0], 200)
        self.assertIn("waited-for", [i["metadata"]["name"] for i in done["r"][1]["items"]])

    def test_rv0_and_unset(self):
        for q in ({}, {"resourceVersion": "0"}):
            before = self.rv()
            st, d = self.list("/pods", **q)
            self.assertEqual(st, 200)
            # the current RV (background writes may move it right after)
            self.assertTrue(before <= int(d["metadata"]["resourceVersion"]) <= self.rv())
        # RV=0 is served like the watch cache, which ignores limit
        st, d = self.list("/pods", resourceVersion="0", limit=2)
        self.assertNotIn("continue", d["metadata"])
        self.assertGreater(len(d["items"]), 2)

    def test_label_selectors(self):
        allp = self.list("/pods")[1]["items"]

        def names(**q):
            st, d = self.list("/pods", **q)
            self.assertEqual(st, 200, q)
            return sorted(key(i) for i in d["items"])
        tiers = {key(i): i["metadata"].get("labels", {}).get("tier") for i in allp}
        self.assertTrue(set(tiers.values()) - {None})
        some = next(v for v in tiers.values() if v)
        self.assertEqual(names(labelSelector="tier=" + some), sorted(k for k, v in tiers.items() if v == some))
        self.assertEqual(names(labelSelector="tier!=" + some), sorted(k for k, v in tiers.items() if v != some))
        self.assertEqual(names(labelSelector="tier in (%s)" % some), names(labelSelector="tier=" + some))
        self.assertEqual(names(labelSelector="app"), sorted(tiers))
        self.assertEqual(names(labelSelector="!app"), [])
        # a label selector the apiserver cannot parse: 400
        status, _, body = raw_get(self.api("/pods?labelSelector=app%3D%3D%3D"))
        self.assertEqual(status, 400)
        self.assertStatus(body, 400, "BadRequest", "unable to parse requirement: found '=', expected: identifier")

    def test_field_selectors(self):
        allp = self.list("/pods")[1]["items"]
        first = allp[0]["metadata"]
        st, d = self.list("/pods", fieldSelector="metadata.name=" + first["name"])
        self.assertEqual([key(i) for i in d["items"]], [key(allp[0])])
        st, d = self.list("/pods", fieldSelector="metadata.namespace=ns-7")
        self.assertEqual({i["metadata"]["namespace"] for i in d["items"]}, {"ns-7"})
        phases = {}
        for i in allp:
            phases.setdefault(i["status"]["phase"], []).append(key(i))
        for ph, keys in phases.items():
            st, d = self.list("/pods", fieldSelector="status.phase=" + ph)
            self.assertEqual([key(i) for i in d["items"]], keys)
        node = allp[1]["spec"].get("nodeName", "")
        st, d = self.list("/pods", fieldSelector="spec.nodeName=" + node)
        self.assertEqual([key(i) for i in d["items"]],
                         [key(i) for i in allp if i["spec"].get("nodeName", "") == node])
        status, _, body = raw_get(self.api("/pods?fieldSelector=spec.bogus%3Dx"))  # unknown field
        self.assertEqual(status, 400)
        self.assertStatus(body, 400, "BadRequest", "field label not supported: spec.bogus")

    def test_selector_with_limit_has_no_remaining_count(self):
        st, d = self.list("/pods", labelSelector="app", limit=3)
        self.assertEqual(len(d["items"]), 3)
        self.assertIn("continue", d["metadata"])
        self.assertNotIn("remainingItemCount", d["metadata"])


class TestGetAndErrors(FakeCase):
    seed = "pods=3,configmaps=1"

    def test_get_one(self):
        first = self.list("/namespaces/ns-0/pods")[1]["items"][0]
        status, hdrs, body = raw_get(self.api("/namespaces/ns-0/pods/" + first["metadata"]["name"]))
        self.assertEqual(status, 200)
        self.assertTrue(body.endswith(b"}\n"))
        d = json.loads(body)
        self.assertEqual(d["kind"], "Pod")
        self.assertEqual(d["apiVersion"], "v1")
        self.assertEqual(d["metadata"], first["metadata"])
        self.assertTrue(body.startswith(b'{"kind":"Pod","apiVersion":"v1","metadata":{"name":'))
        status, ns = harness.get_json(self.api("/namespaces/ns-0"))
        self.assertEqual(status, 200)
        self.assertEqual(ns["kind"], "Namespace")

    def test_not_found_shapes(self):
        status, hdrs, body = raw_get(self.api("/namespaces/ns-0/pods/nope"))
        self.assertEqual(status, 404)
        self.assertEqual(body, b'{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure",'
                               b'"message":"pods \\"nope\\" not found","reason":"NotFound",'
                               b'"details":{"name":"nope","kind":"pods"},"code":404}\n')
        status, _, body = raw_get(self.api("/namespaces/ns-0/bogusthings"))  # no such resource
        self.assertEqual(status, 404)
        st = self.assertStatus(body, 404, "NotFound", "the server could not find the requested resource")
        self.assertEqual(st["details"], {})
        for path in ("/api/v1/pods/x", "/api/v1/namespaces/ns-0/pods/a/b/c", "/nothing", "/api/v1//pods",
                     "/apis/apps/v1/deployments"):
            status, _, body = raw_get(self.url + path)
            self.assertEqual(status, 404, path)
            self.assertStatus(body, 404, "NotFound")

    def test_discovery(self):
        status, v = harness.get_json(self.url + "/version")
        self.assertEqual((status, v["major"], v["minor"]), (200, "1", "32"))
        status, api = harness.get_json(self.url + "/api")
        self.assertEqual(api["kind"], "APIVersions")
        self.assertEqual(api["versions"], ["v1"])
        status, rl = harness.get_json(self.url + "/api/v1")
        self.assertEqual(rl["kind"], "APIResourceList")
        by = {r["name"]: r for r in rl["resources"]}
        self.assertEqual(set(by), {"pods", "configmaps", "services", "namespaces", "events"})
        self.assertEqual(by["pods"]["shortNames"], ["po"])
        self.assertEqual(by["events"]["shortNames"], ["ev"])
        self.assertEqual(by["events"]["storageVersionHash"], "r2yiGXH7wu8=")
        self.assertNotIn("categories", by["events"])
        self.assertEqual(by["pods"]["categories"], ["all"])
        self.assertFalse(by["namespaces"]["namespaced"])
        self.assertIn("watch", by["configmaps"]["verbs"])
        status, apis = harness.get_json(self.url + "/apis")
        # the one built-in named group the fake serves
        gv = {"groupVersion": "coordination.k8s.io/v1", "version": "v1"}
        self.assertEqual(apis, {"kind": "APIGroupList", "apiVersion": "v1", "groups": [
            {"name": "coordination.k8s.io", "versions": [gv], "preferredVersion": gv}]})

    def test_malformed_input_400(self):
        for q in ("limit=abc", "timeoutSeconds=x1"):
            status, _, body = raw_get(self.api("/pods?" + q))
            self.assertEqual(status, 400, q)
            self.assertStatus(body, 400, "BadRequest")
        for body in (b"{not json", b"[1,2]", b'"str"', b""):
            st, _, out = harness.request("POST", self.api("/namespaces/ns-0/configmaps"), body=body,
                                         headers={"Content-Type": "application/json"})
            self.assertEqual(st, 400, body)
            self.assertStatus(out, 400, "BadRequest")
        st, _, out = harness.request("POST", self.api("/namespaces/ns-0/configmaps"),
                                     body={"kind": "Pod", "metadata": {"name": "x"}})
        self.assertEqual(st, 400)
        st, _, out = harness.request("PUT", self.api("/pods"), body={})
        self.assertEqual(st, 405)
        self.assertStatus(out, 405, "MethodNotAllowed")
        st, _, out = harness.request("POST", self.api("/pods"), body=pod("x"))
        self.assertEqual(st, 405)


class TestWrites(FakeCase):
    seed = "namespaces=2"
    # --quiet: these check that each write bumps the global RV by exactly
    # one and a no-op update by none, which a Lease renewal in between
    # would break.
    extra = ("--quiet",)

    def test_create_update_patch_delete(self):
        rv0 = self.rv()
        cm = {"metadata": {"name": "cfg", "labels": {"a": "1"}}, "data": {"k": "v"}}
        st, hdrs, body = self.create("ns-0", cm, "configmaps")
        self.assertEqual(st, 201)
        obj = json.loads(body)
        md = obj["metadata"]
        self.assertEqual(obj["kind"], "ConfigMap")
        self.assertEqual(md["namespace"], "ns-0")
        self.assertEqual(int(md["resourceVersion"]), rv0 + 1)
        self.assertRegex(md["uid"], r"^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$")
        self.assertRegex(md["creationTimestamp"], r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$")
        self.assertEqual(list(md)[:5], ["name", "namespace", "uid", "resourceVersion", "creationTimestamp"])
        self.assertEqual(self.rv(), rv0 + 1)

        # 409 AlreadyExists
        st, _, body = self.create("ns-0", cm, "configmaps")
        self.assertEqual(st, 409)
        st_ = self.assertStatus(body, 409, "AlreadyExists", 'configmaps "cfg" already exists')
        self.assertEqual(st_["details"], {"name": "cfg", "kind": "configmaps"})

        # PUT with a stale RV: 409 Conflict
        stale = dict(obj, data={"k": "w"})
        stale["metadata"] = dict(md, resourceVersion=str(rv0))
        url = self.api("/namespaces/ns-0/configmaps/cfg")
        st, _, body = harness.request("PUT", url, body=stale)
        self.assertEqual(st, 409)
        self.assertStatus(body, 409, "Conflict",
                          'Operation cannot be fulfilled on configmaps "cfg": the object has been modified; '
                          'please apply your changes to the latest version and try again')
        # PUT with the current RV
        good = dict(obj, data={"k": "w"})
        st, _, body = harness.request("PUT", url, body=good)
        self.assertEqual(st, 200)
        upd = json.loads(body)
        self.assertEqual(upd["data"], {"k": "w"})
        self.assertEqual(int(upd["metadata"]["resourceVersion"]), rv0 + 2)
        self.assertEqual(upd["metadata"]["uid"], md["uid"])
        self.assertEqual(upd["metadata"]["creationTimestamp"], md["creationTimestamp"])
        # a no-op update writes nothing (etcd semantics)
        st, _, body = harness.request("PUT", url, body=upd)
        self.assertEqual(st, 200)
        self.assertEqual(json.loads(body)["metadata"]["resourceVersion"], str(rv0 + 2))
        self.assertEqual(self.rv(), rv0 + 2)

        # merge patch: add, replace, delete with null
        st, _, body = harness.request("PATCH", url, body={"metadata": {"labels": {"b": "2", "a": None}},
                                                          "data": {"k2": "x"}},
                                      headers={"Content-Type": "application/merge-patch+json"})
        self.assertEqual(st, 200)
        p = json.loads(body)
        self.assertEqual(p["metadata"]["labels"], {"b": "2"})
        self.assertEqual(p["data"], {"k": "w", "k2": "x"})
        self.assertEqual(int(p["metadata"]["resourceVersion"]), rv0 + 3)
        # a patch carrying a stale RV conflicts
        st, _, body = harness.request("PATCH", url, body={"metadata": {"resourceVersion": "1"}},
                                      headers={"Content-Type": "application/merge-patch+json"})
        self.assertEqual(st, 409)
        # other patch types: 415
        st, _, body = harness.request("PATCH", url, body=[{"op": "add", "path": "/data/z", "value": "1"}],
                                      headers={"Content-Type": "application/json-patch+json"})
        self.assertEqual(st, 415)
        self.assertStatus(body, 415, "UnsupportedMediaType")
        # a strategic merge patch without directives merges maps (kubectl label)
        st, _, body = harness.request("PATCH", url, body={"metadata": {"labels": {"smp": "1"}}},
                                      headers={"Content-Type": "application/strategic-merge-patch+json"})
        self.assertEqual(st, 200)
        self.assertEqual(json.loads(body)["metadata"]["labels"], {"b": "2", "smp": "1"})
        st, _, body = harness.request("PATCH", url, body={"metadata": {"$patch": "replace"}},
                                      headers={"Content-Type": "application/strategic-merge-patch+json"})
        self.assertEqual(st, 415)
        # a truncated protobuf body is refused (test_fake_proto has the rest)
        st, _, body = harness.request("PUT", url, body=b"k8s\x00\x0a", headers={
            "Content-Type": "application/vnd.kubernetes.protobuf"})
        self.assertEqual(st, 400)
        st, _, body = harness.request("PATCH", url, body=b"{oops",
                                      headers={"Content-Type": "application/merge-patch+json"})
        self.assertEqual(st, 400)

        # DELETE returns the object; then 404
        st, _, body = harness.request("DELETE", url)
        self.assertEqual(st, 200)
        gone = json.loads(body)
        self.assertEqual(gone["metadata"]["name"], "cfg")
        self.assertEqual(int(gone["metadata"]["resourceVersion"]), rv0 + 5)
        self.assertEqual(raw_get(url)[0], 404)
        st, _, body = harness.request("DELETE", url)
        self.assertEqual(st, 404)
        st, _, body = harness.request("PUT", url, body=good)
        self.assertEqual(st, 404)

    def test_generate_name_and_validation(self):
        st, _, body = self.create("ns-1", {"metadata": {"generateName": "gen-"}}, "configmaps")
        self.assertEqual(st, 201)
        self.assertRegex(json.loads(body)["metadata"]["name"], r"^gen-[bcdfghjklmnpqrstvwxz2456789]{5}$")
        st, _, body = self.create("ns-1", {"metadata": {}}, "configmaps")
        self.assertEqual(st, 422)
        self.assertStatus(body, 422, "Invalid",
                          'ConfigMap "" is invalid: metadata.name: Required value: name or generateName is required')
        st, _, body = self.create("ns-1", {"metadata": {"name": "Bad_Name"}}, "configmaps")
        self.assertEqual(st, 422)
        st, _, body = self.create("nosuch", {"metadata": {"name": "x"}}, "configmaps")
        self.assertEqual(st, 404)
        self.assertStatus(body, 404, "NotFound", 'namespaces "nosuch" not found')
        st, _, body = self.create("ns-1", {"metadata": {"name": "x", "namespace": "other"}}, "configmaps")
        self.assertEqual(st, 400)

    def test_namespace_lifecycle(self):
        st, _, body = harness.request("POST", self.api("/namespaces"), body={"metadata": {"name": "tmp-ns"}})
        self.assertEqual(st, 201)
        ns = json.loads(body)
        self.assertEqual(ns["status"], {"phase": "Active"})
        self.assertEqual(ns["metadata"]["labels"]["kubernetes.io/metadata.name"], "tmp-ns")
        self.assertNotIn("namespace", ns["metadata"])
        self.assertEqual(self.create("tmp-ns", pod("p1"))[0], 201)
        st, _, _ = harness.request("DELETE", self.api("/namespaces/tmp-ns"))
        self.assertEqual(st, 200)
        self.assertEqual(self.list("/namespaces/tmp-ns/pods")[1]["items"], [])

    def test_delete_collection(self):
        for i in range(3):
            self.create("ns-1", {"metadata": {"name": "dc-%d" % i, "labels": {"dc": "yes" if i < 2 else "no"}}},
                        "configmaps")
        rv = self.rv()
        st, _, body = harness.request("DELETE", self.api("/namespaces/ns-1/configmaps?labelSelector=dc%3Dyes"))
        self.assertEqual(st, 200)
        d = json.loads(body)
        self.assertEqual(d["kind"], "ConfigMapList")
        self.assertEqual([i["metadata"]["name"] for i in d["items"]], ["dc-0", "dc-1"])
        self.assertEqual(self.rv(), rv + 2)
        left = self.list("/namespaces/ns-1/configmaps", labelSelector="dc")[1]["items"]
        self.assertEqual([i["metadata"]["name"] for i in left], ["dc-2"])
        self.assertEqual(harness.request("DELETE", self.api("/configmaps"))[0], 405)

    def test_delete_preconditions(self):
        st, _, body = self.create("ns-0", {"metadata": {"name": "pre"}}, "configmaps")
        url = self.api("/namespaces/ns-0/configmaps/pre")
        st, _, body = harness.request("DELETE", url, body={"preconditions": {"uid": "nope"}})
        self.assertEqual(st, 409)
        st, _, body = harness.request("DELETE", url, body={"preconditions": {"resourceVersion": "1"}})
        self.assertEqual(st, 409)
        st, _, body = harness.request("DELETE", url)
        self.assertEqual(st, 200)

    def test_write_rate(self):
        t0 = time.time()
        n = 300
        for i in range(n):
            st, _, _ = self.create("ns-0", {"metadata": {"name": "rate-%d" % i}, "data": {"i": str(i)}},
                                   "configmaps")
            self.assertEqual(st, 201)
        rate = n / (time.time() - t0)
        # one client, one connection per request: a loose floor
        self.assertGreater(rate, 100)


def watch(url, timeout=30):
    w = harness.Watch(url, timeout=timeout)
    return w


def wait_events(w, n, timeout=10):
    evs = w.wait_for(n, timeout=timeout)
    return evs


class TestWatch(FakeCase):
    seed = "pods=6"
    extra = ("--bookmark-interval", "1")

    def test_watch_from_zero_then_live(self):
        w = watch(self.api("/namespaces/ns-1/pods?watch=true&resourceVersion=0"))
        self.assertEqual(w.status, 200)
        self.assertEqual(w.resp.getheader("Content-Type"), "application/json")
        self.assertEqual(w.resp.getheader("Transfer-Encoding"), "chunked")
        initial = self.list("/namespaces/ns-1/pods")[1]["items"]
        evs = wait_events(w, len(initial))
        self.assertEqual([e["type"] for e in evs], ["ADDED"] * len(initial))
        self.assertEqual([e["object"]["metadata"] for e in evs], [i["metadata"] for i in initial])
        self.assertEqual(evs[0]["object"]["kind"], "Pod")
        self.assertEqual(self.create("ns-1", pod("live-1"))[0], 201)
        self.assertEqual(self.create("ns-2", pod("other-ns"))[0], 201)
        evs = wait_events(w, len(initial) + 1)
        self.assertEqual(evs[-1]["type"], "ADDED")
        self.assertEqual(evs[-1]["object"]["metadata"]["name"], "live-1")
        time.sleep(0.3)          # a duration: nothing more may arrive in it
        self.assertEqual(len(w.events), len(initial) + 1)
        w.close()

    def test_watch_from_rv_sequence(self):
        rv = self.rv()
        w = watch(self.api("/namespaces/ns-3/pods?watch=1&resourceVersion=%d" % rv))
        self.assertEqual(self.create("ns-3", pod("seq"))[0], 201)
        url = self.api("/namespaces/ns-3/pods/seq")
        harness.request("PATCH", url, body={"metadata": {"labels": {"touch": "1"}}},
                        headers={"Content-Type": "application/merge-patch+json"})
        st, _, body = harness.request("DELETE", url)
        evs = wait_events(w, 3)
        self.assertEqual([e["type"] for e in evs], ["ADDED", "MODIFIED", "DELETED"])
        rvs = [int(e["object"]["metadata"]["resourceVersion"]) for e in evs]
        # increasing, past the start (Lease renewals may come in between)
        self.assertTrue(rv < rvs[0] < rvs[1] < rvs[2], rvs)
        # DELETED carries the last state at the deletion RV
        self.assertEqual(evs[2]["object"]["metadata"]["labels"], {"touch": "1"})
        self.assertEqual(json.loads(body)["metadata"]["resourceVersion"], str(rvs[2]))
        w.close()
        # resuming from the middle replays only what came after
        w = watch(self.api("/namespaces/ns-3/pods?watch=true&resourceVersion=%d" % rvs[0]))
        evs = wait_events(w, 2)
        self.assertEqual([e["type"] for e in evs], ["MODIFIED", "DELETED"])
        w.close()

    def test_watch_spellings_and_legacy_prefix(self):
        for q in ("watch=True", "watch=1", "watch=yes", "watch=", "watch"):
            w = watch(self.api("/namespaces/ns-0/pods?%s&resourceVersion=0&timeoutSeconds=2" % q))
            evs = wait_events(w, 1)
            self.assertEqual(evs[0]["type"], "ADDED", q)
            w.close()
        status, d = harness.get_json(self.api("/namespaces/ns-0/pods?watch=FALSE&resourceVersion=0"))
        self.assertEqual(d["kind"], "PodList")  # watch=FALSE is a LIST
        w = watch(self.url + "/api/v1/watch/namespaces/ns-0/pods?resourceVersion=0")
        self.assertEqual(wait_events(w, 1)[0]["type"], "ADDED")
        w.close()

    def test_watch_selector_transitions(self):
        rv = self.rv()
        self.assertEqual(self.create("ns-4", pod("sel", labels={"role": "x"}))[0], 201)
        w = watch(self.api("/namespaces/ns-4/pods?watch=true&labelSelector=role%%3Dx&resourceVersion=%d" % rv))
        url = self.api("/namespaces/ns-4/pods/sel")
        hdr = {"Content-Type": "application/merge-patch+json"}
        _, _, left = harness.request("PATCH", url, body={"metadata": {"labels": {"role": "y"}}}, headers=hdr)
        harness.request("PATCH", url, body={"metadata": {"labels": {"role": "x"}}}, headers=hdr)
        harness.request("PATCH", url, body={"metadata": {"labels": {"z": "1"}}}, headers=hdr)
        evs = wait_events(w, 4)
        self.assertEqual([e["type"] for e in evs], ["ADDED", "DELETED", "ADDED", "MODIFIED"])
        # leaving the filter: the old state stamped with the event's RV
        self.assertEqual(evs[1]["object"]["metadata"]["labels"], {"role": "x"})
        self.assertEqual(evs[1]["object"]["metadata"]["resourceVersion"],
                         json.loads(left)["metadata"]["resourceVersion"])
        w.close()
        st, _, _ = harness.request("DELETE", url)

    def test_field_selector_watch(self):
        rv = self.rv()
        w = watch(self.api("/pods?watch=true&fieldSelector=spec.nodeName%%3Dnode-x&resourceVersion=%d" % rv))
        self.create("ns-5", pod("on-x", node="node-x"))
        self.create("ns-5", pod("on-y", node="node-y"))
        evs = wait_events(w, 1)
        time.sleep(0.3)          # a duration: nothing more may arrive in it
        self.assertEqual([e["object"]["metadata"]["name"] for e in w.events], ["on-x"])
        w.close()

    def test_single_object_watch(self):
        rv = self.rv()
        self.create("ns-5", pod("single"))
        self.create("ns-5", pod("single-other"))
        # one object's watch is the collection's, narrowed by name: on the
        # object's own path ?watch is ignored, as the apiserver ignores it
        w = watch(self.api("/namespaces/ns-5/pods?watch=true&fieldSelector=metadata.name%%3Dsingle"
                           "&resourceVersion=%d" % rv))
        evs = wait_events(w, 1)
        time.sleep(0.3)          # a duration: nothing more may arrive in it
        self.assertEqual([e["object"]["metadata"]["name"] for e in w.events], ["single"])
        w.close()

    def test_bookmarks(self):
        rv = self.rv()
        w = watch(self.api("/namespaces/ns-0/pods?watch=true&allowWatchBookmarks=true&resourceVersion=%d" % rv))
        # A bookmark needs an RV above the watch's start: a write to
        # another resource moves the global RV (as Lease renewals do).
        st, _, body = self.create("ns-1", {"apiVersion": "v1", "kind": "ConfigMap",
                                           "metadata": {"name": "bm-move"}}, res="configmaps")
        self.assertEqual(st, 201)
        moved = int(json.loads(body)["metadata"]["resourceVersion"])
        t0 = time.time()
        evs = wait_events(w, 2, timeout=5)
        self.assertLess(time.time() - t0, 3.5)
        for e in evs:
            self.assertEqual(e["type"], "BOOKMARK")
            bm = int(e["object"]["metadata"]["resourceVersion"])
            self.assertTrue(moved <= bm <= self.rv(), (moved, bm))
            self.assertEqual(e, {"type": "BOOKMARK", "object": {
                "kind": "Pod", "apiVersion": "v1",
                "metadata": {"resourceVersion": str(bm), "creationTimestamp": None},
                "spec": {"containers": None}, "status": {}}})  # an empty Pod but its RV
        w.close()
        w = watch(self.api("/configmaps?watch=true&allowWatchBookmarks=true&resourceVersion=%d" % rv))
        evs = wait_events(w, 2, timeout=5)
        self.assertEqual(evs[0]["type"], "ADDED")
        self.assertEqual(evs[0]["object"]["metadata"]["name"], "bm-move")
        bm = evs[1]["object"]["metadata"]["resourceVersion"]
        self.assertGreaterEqual(int(bm), moved)
        self.assertEqual(evs[1]["object"], {"kind": "ConfigMap", "apiVersion": "v1",
                                            "metadata": {"resourceVersion": bm,
                                                         "creationTimestamp": None}})
        w.close()
        harness.request("DELETE", self.api("/namespaces/ns-1/configmaps/bm-move"))
        # no bookmarks unless asked
        w = watch(self.api("/namespaces/ns-0/pods?watch=true&resourceVersion=%d" % rv))
        time.sleep(1.6)          # a duration: no bookmark may arrive in it
        self.assertEqual(w.events, [])
        w.close()

    def test_send_initial_events(self):
        q = "watch=true&sendInitialEvents=true&resourceVersionMatch=NotOlderThan&allowWatchBookmarks=true"
        items = self.list("/namespaces/ns-2/pods")[1]
        w = watch(self.api("/namespaces/ns-2/pods?" + q))
        evs = wait_events(w, len(items["items"]) + 1)
        self.assertEqual([e["type"] for e in evs[:-1]], ["ADDED"] * len(items["items"]))
        end = evs[-1]
        self.assertEqual(end["type"], "BOOKMARK")
        ann = end["object"]["metadata"]["annotations"]
        self.assertEqual(ann["k8s.io/initial-events-end"], "true")
        # the empty list client-go's List() over a watch-list decodes
        self.assertEqual(base64.b64decode(ann["kubernetes.io/initial-events-list-blueprint"]),
                         b'{"kind":"PodList","apiVersion":"v1","metadata":{},"items":null}\n')
        self.assertEqual(end["object"]["metadata"]["resourceVersion"], items["metadata"]["resourceVersion"])
        w.close()
        # 1.32 defaults an RV-less watch with bookmarks to the same
        w = watch(self.api("/namespaces/ns-2/pods?watch=true&allowWatchBookmarks=true"))
        evs = wait_events(w, len(items["items"]) + 1)
        self.assertEqual(evs[-1]["object"]["metadata"].get("annotations"), ann)
        w.close()
        # sendInitialEvents=false: nothing initial
        w = watch(self.api("/namespaces/ns-2/pods?watch=true&sendInitialEvents=false"
                           "&resourceVersionMatch=NotOlderThan&resourceVersion=0"))
        time.sleep(0.5)          # a duration: no event may arrive in it
        self.assertEqual(w.events, [])
        w.close()

    def test_timeout_closes_cleanly(self):
        t0 = time.time()
        w = watch(self.api("/namespaces/ns-0/pods?watch=true&resourceVersion=%d&timeoutSeconds=1" % self.rv()))
        w.thread.join(5)
        w.close()
        self.assertTrue(w.closed)
        self.assertFalse(hasattr(w, "error"), getattr(w, "error", None))
        self.assertGreaterEqual(time.time() - t0, 0.9)
        self.assertLess(time.time() - t0, 3)

    def test_rv_in_future_is_accepted(self):
        rv = self.rv()
        w = watch(self.api("/namespaces/ns-0/pods?watch=true&resourceVersion=%d" % (rv + 2)))
        self.assertEqual(w.status, 200)  # a future RV is accepted, and waited for
        self.create("ns-0", pod("future-1"))
        self.create("ns-0", pod("future-2"))
        self.create("ns-0", pod("future-3"))
        evs = wait_events(w, 1)
        self.assertEqual([e["object"]["metadata"]["name"] for e in evs], ["future-3"])
        w.close()

    def test_many_watches(self):
        rv = self.rv()
        ws = [watch(self.api("/namespaces/ns-1/pods?watch=true&resourceVersion=%d" % rv)) for _ in range(120)]
        self.assertEqual(self.create("ns-1", pod("fanout"))[0], 201)
        for w in ws:
            self.assertEqual(wait_events(w, 1)[0]["object"]["metadata"]["name"], "fanout")
        for w in ws:
            w.close()


class TestHistoryAndFaults(FakeCase):
    seed = "pods=4"
    # --quiet: a 5-event history with exact RV arithmetic (the 410's
    # "(N)", the window h2..h6, RV 1 after a wipe); background Lease
    # renewals would push the test's own events out of the ring.
    extra = ("--history", "5", "--quiet")

    def test_compact_then_too_old(self):
        list_ = self.list("/pods", limit=1)[1]
        rv = int(list_["metadata"]["resourceVersion"])
        self.create("ns-0", pod("c1"))
        st, _, _ = faults(self.srv, {"compact": True})
        self.assertEqual(st, 200)
        w = watch(self.api("/pods?watch=true&allowWatchBookmarks=true&resourceVersion=%d" % rv))
        self.assertEqual(w.status, 200)  # an ERROR event, not an HTTP 410
        w.thread.join(5)
        w.close()
        self.assertEqual(w.events, [{"type": "ERROR", "object": {
            "kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Failure",
            "message": "too old resource version: %d (%d)" % (rv, rv + 1),
            "reason": "Expired", "code": 410}}])
        self.assertTrue(w.closed)
        # the current RV is still a valid start
        w = watch(self.api("/pods?watch=true&resourceVersion=%d&timeoutSeconds=1" % (rv + 1)))
        w.thread.join(5)
        w.close()
        self.assertEqual(w.events, [])
        # continue tokens and Exact lists from before the compaction: 410
        status, _, body = raw_get(self.api("/pods?limit=1&continue=" + list_["metadata"]["continue"]))
        self.assertEqual(status, 410)
        st = json.loads(body)
        self.assertEqual((st["kind"], st["status"], st["reason"], st["code"]), ("Status", "Failure", "Expired", 410))
        self.assertTrue(st["message"].startswith("The provided continue parameter is too old"))
        tok = decode_token(st["metadata"]["continue"])
        self.assertEqual(tok["rv"], -1)
        # the rv -1 token continues at the current RV
        status, page = harness.get_json(self.api("/pods?limit=1&continue=" + st["metadata"]["continue"]))
        self.assertEqual(status, 200)
        self.assertEqual(int(page["metadata"]["resourceVersion"]), rv + 1)
        status, _, body = raw_get(self.api("/pods?resourceVersionMatch=Exact&resourceVersion=%d" % rv))
        self.assertEqual(status, 410)  # etcd compacted past it
        self.assertStatus(body, 410, "Expired", "The resourceVersion for the provided list is too old.")

    def test_history_window(self):
        rv = self.rv()
        for i in range(7):
            self.create("ns-1", pod("h%d" % i))
        # 5 events kept: a watch may start at rv+2 at the oldest
        w = watch(self.api("/pods?watch=true&resourceVersion=%d" % (rv + 1)))
        w.thread.join(5)
        w.close()
        self.assertEqual(w.events[0]["object"]["message"], "too old resource version: %d (%d)" % (rv + 1, rv + 2))
        w = watch(self.api("/pods?watch=true&resourceVersion=%d&timeoutSeconds=1" % (rv + 2)))
        w.thread.join(5)
        w.close()
        self.assertEqual([e["object"]["metadata"]["name"] for e in w.events], ["h2", "h3", "h4", "h5", "h6"])

    def test_stats_and_drop_watches(self):
        before = stats(self.srv)
        self.assertEqual(set(before), {"pods", "configmaps", "services", "namespaces", "events",
                                       "leases.coordination.k8s.io"})
        for r in before.values():
            self.assertEqual(set(r), {"list", "watch", "watchOpen", "requests"})
        self.list("/pods")
        self.list("/namespaces/ns-0/pods?labelSelector=app%3Dweb&fieldSelector=status.phase%21%3DFailed")
        self.list("/configmaps")
        w1 = watch(self.api("/pods?watch=true&resourceVersion=0"))
        w2 = watch(self.api("/namespaces/ns-0/pods?watch=true&resourceVersion=0"))
        w3 = watch(self.api("/services?watch=true"))
        after = harness.wait_until(lambda: (lambda s: s if s["pods"]["watchOpen"] == before["pods"]["watchOpen"] + 2
                                            else None)(stats(self.srv)), what="2 open pod watches")
        self.assertEqual(after["pods"]["list"], before["pods"]["list"] + 2)
        # each LIST and WATCH with its scope, oldest first
        seen = after["pods"]["requests"][-4:]
        self.assertEqual(seen[0], {"verb": "list"})
        self.assertEqual(seen[1], {"verb": "list", "namespace": "ns-0", "labelSelector": "app=web",
                                   "fieldSelector": "status.phase!=Failed"})
        self.assertEqual(sorted(map(str, seen[2:])),
                         sorted(map(str, [{"verb": "watch"}, {"verb": "watch", "namespace": "ns-0"}])))
        self.assertEqual(after["configmaps"]["list"], before["configmaps"]["list"] + 1)
        self.assertEqual(after["pods"]["watch"], before["pods"]["watch"] + 2)
        self.assertEqual(after["services"]["watchOpen"], before["services"]["watchOpen"] + 1)
        # a client hanging up is noticed
        w2.close()
        harness.wait_until(lambda: stats(self.srv)["pods"]["watchOpen"] == before["pods"]["watchOpen"] + 1,
                           what="watchOpen to drop after close")
        st, _, _ = faults(self.srv, {"dropWatches": True})
        self.assertEqual(st, 200)
        w1.thread.join(5)
        w1.close()
        w3.thread.join(5)
        self.assertTrue(w1.closed and w3.closed)
        self.assertFalse(hasattr(w1, "error"))
        harness.wait_until(lambda: all(r["watchOpen"] == 0 for r in stats(self.srv).values()),
                           what="every watch closed")
        # new watches work again
        w = watch(self.api("/pods?watch=true&resourceVersion=0&timeoutSeconds=1"))
        self.assertGreater(len(wait_events(w, 1)), 0)
        w.close()

    def test_faults_endpoint(self):
        st, _, body = faults(self.srv, {"bogus": 1})
        self.assertEqual(st, 400)
        self.assertStatus(body, 400, "BadRequest", "unknown fault field: bogus")
        st, _, body = faults(self.srv, {"dropWatches": "yes"})
        self.assertEqual(st, 400)
        st, _, body = harness.request("POST", self.srv.url + "/fake/faults", body=b"nope",
                                      headers={"Content-Type": "application/json"})
        self.assertEqual(st, 400)
        self.assertEqual(faults(self.srv, {})[0], 200)

    def test_fail_next_and_latency(self):
        st, _, _ = faults(self.srv, {"failNext": {"count": 2, "code": 503, "retryAfter": 2}})
        self.assertEqual(st, 200)
        for _ in range(2):
            status, hdrs, body = raw_get(self.api("/pods"))
            self.assertEqual(status, 503)
            self.assertEqual(hdrs["Retry-After"], "2")
            self.assertStatus(body, 503, "ServiceUnavailable")
        self.assertEqual(raw_get(self.api("/pods"))[0], 200)
        faults(self.srv, {"latencyMs": 300})
        t0 = time.time()
        raw_get(self.api("/pods"))
        self.assertGreaterEqual(time.time() - t0, 0.29)
        faults(self.srv, {})
        t0 = time.time()
        raw_get(self.api("/pods"))
        self.assertLess(time.time() - t0, 0.25)

    def test_cut_and_malformed(self):
        faults(self.srv, {"cutAfterBytes": 10})
        with self.assertRaises(Exception):
            status, _, body = raw_get(self.api("/pods"))
            json.loads(body)
        self.assertEqual(raw_get(self.api("/pods"))[0], 200)
        faults(self.srv, {"malformedNext": 1})
        u = urllib.parse.urlsplit(self.api("/namespaces/ns-0/pods?watch=true&resourceVersion=0&timeoutSeconds=1"))
        conn = http.client.HTTPConnection(u.hostname, u.port, timeout=10)
        conn.request("GET", u.path + "?" + u.query)
        lines = conn.getresponse().read().split(b"\n")
        conn.close()
        with self.assertRaises(ValueError):
            json.loads(lines[0])
        self.assertEqual(json.loads(lines[1])["type"], "ADDED")

    def test_wipe(self):
        w = watch(self.api("/pods?watch=true&resourceVersion=0"))
        wait_events(w, 1)
        st, _, _ = faults(self.srv, {"wipe": True})
        self.assertEqual(st, 200)
        w.thread.join(5)
        w.close()
        self.assertTrue(w.closed)
        self.assertEqual(self.list("/pods")[1]["items"], [])
        self.assertEqual(self.list("/namespaces")[1]["metadata"]["resourceVersion"], "1")
        st, _, _ = harness.request("POST", self.api("/namespaces"), body={"metadata": {"name": "ns-0"}})
        self.assertEqual(st, 201)
        self.assertEqual(self.rv(), 2)


class TestListStream(unittest.TestCase):
    """A LIST past --list-stream-min is sent as it is produced: the same
    bytes as one built in memory, never gzipped, cut by cutAfterBytes."""

    PATHS = ("/api/v1/pods", "/api/v1/pods?resourceVersion=0",
             "/api/v1/namespaces/ns-3/pods", "/api/v1/pods?labelSelector=shard%3D7",
             "/api/v1/pods?fieldSelector=status.phase%3DPending",
             "/api/v1/pods?labelSelector=shard%3Dnone", "/api/v1/pods?limit=40",
             "/api/v1/configmaps", "/api/v1/namespaces")

    @classmethod
    def setUpClass(cls):
        seed = "pods=300,configmaps=30"
        cls.built = harness.fake("--quiet", seed=seed)
        cls.streamed = harness.fake("--quiet", "--list-stream-min", "0", seed=seed)

    @classmethod
    def tearDownClass(cls):
        for s in (cls.built, cls.streamed):
            assert s.stop() in (0, None)

    def test_same_bytes(self):
        for path in self.PATHS:
            st1, h1, b1 = raw_get(self.built.url + path)
            st2, h2, b2 = raw_get(self.streamed.url + path)
            self.assertEqual((st1, st2), (200, 200), path)
            self.assertEqual(b1, b2, path)
            self.assertEqual(h2["Content-Length"], str(len(b2)), path)
            self.assertEqual(h2["Content-Type"], "application/json", path)
        # a continue page, streamed, is the same page
        tok = json.loads(raw_get(self.built.url + "/api/v1/pods?limit=40")[2])["metadata"]["continue"]
        path = "/api/v1/pods?limit=40&continue=" + tok
        self.assertEqual(raw_get(self.built.url + path)[2], raw_get(self.streamed.url + path)[2])

    def test_not_gzipped(self):
        st, hdrs, body = raw_get(self.streamed.url + "/api/v1/pods",
                                 headers={"Accept-Encoding": "gzip"})
        self.assertEqual(st, 200)
        self.assertIsNone(hdrs["Content-Encoding"])
        self.assertEqual(len(json.loads(body)["items"]), 300)

    def test_cut(self):
        faults(self.streamed, {"cutAfterBytes": 5000})
        u = urllib.parse.urlsplit(self.streamed.url)
        conn = http.client.HTTPConnection(u.hostname, u.port, timeout=10)
        conn.request("GET", "/api/v1/pods")
        r = conn.getresponse()
        with self.assertRaises(http.client.IncompleteRead) as cm:
            r.read()
        self.assertEqual(len(cm.exception.partial), 5000)
        conn.close()
        self.assertEqual(raw_get(self.streamed.url + "/api/v1/pods")[0], 200)


class TestSeedScale(unittest.TestCase):
    def test_seed_100k_pods(self):
        # how fast is make bench's business; this checks what is seeded
        srv = harness.fake(seed="pods=100000")
        try:
            status, d = harness.get_json(srv.url + "/api/v1/namespaces/ns-3/pods?limit=5")
            self.assertEqual(status, 200)
            self.assertEqual(d["metadata"]["remainingItemCount"], 10000 - 5)
        finally:
            self.assertEqual(srv.stop(), 0)


if __name__ == "__main__":
    unittest.main()
