"""End-to-end tests of the fake apiserver's real-cluster defaults.

A real cluster is never silent: kubelets and the apiserver renew Leases
every 10 s, kubelets post Events, so the one global resourceVersion keeps
moving; the watch cache sends BOOKMARKs only once that RV passed the
watch's start, every minute and just before the deadline; events are served
without the watch cache (no bookmarks at all) and etcd is compacted every
5 minutes, after which an events watch resumed from an old RV gets 410
while a pods watch is still served from the watch cache, as a real
v1.32 apiserver does. Each class shortens the intervals with the fake's flags.
"""
import json
import os
import re
import subprocess
import sys
import time
import unittest
import urllib.parse

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))), "lib"))
import harness  # noqa: E402

MICRO_TIME = r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$"
SYSTEM_NS = {"default", "kube-node-lease", "kube-public", "kube-system"}
LEASES = "/apis/coordination.k8s.io/v1"


class ClusterCase(harness.FakeCase):
    seed = "pods=4"

    def get(self, path, **q):
        qs = ("?" + urllib.parse.urlencode(q)) if q else ""
        status, body = harness.get_json(self.url + path + qs)
        self.assertEqual(status, 200, body)
        return body

    def rv(self):
        """The global resourceVersion (a LIST's RV is etcd's revision)."""
        return int(self.get("/api/v1/namespaces")["metadata"]["resourceVersion"])

    def stats(self):
        return harness.get_json(self.url + "/fake/stats")[1]

    def watch(self, path, **kw):
        w = harness.Watch(self.url + path, **kw)
        self.addCleanup(w.close)
        self.assertEqual(w.status, 200)
        return w

    def create_pod(self, ns, name):
        st, _, body = harness.request("POST", self.url + "/api/v1/namespaces/%s/pods" % ns, body={
            "apiVersion": "v1", "kind": "Pod", "metadata": {"name": name},
            "spec": {"containers": [{"name": "c", "image": "busybox"}]}})
        self.assertEqual(st, 201, body)
        return json.loads(body)

    def assertExpired(self, ev, message):
        self.assertEqual(ev, {"type": "ERROR", "object": {
            "kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Failure",
            "message": message, "reason": "Expired", "code": 410}})


class TestBackgroundWrites(ClusterCase):
    extra = ("--nodes", "2", "--lease-interval", "1", "--event-interval", "1")

    def leases(self):
        return {(i["metadata"]["namespace"], i["metadata"]["name"]): i
                for i in self.get(LEASES + "/leases")["items"]}

    def test_system_namespaces_exist(self):
        names = {i["metadata"]["name"] for i in self.get("/api/v1/namespaces")["items"]}
        self.assertLessEqual(SYSTEM_NS, names)
        ns = self.get("/api/v1/namespaces/kube-node-lease")
        self.assertEqual(ns["metadata"]["labels"], {"kubernetes.io/metadata.name": "kube-node-lease"})
        self.assertEqual(ns["status"], {"phase": "Active"})

    def test_leases_renewed_and_global_rv_moves(self):
        first = harness.wait_until(
            lambda: (lambda ls: ls if len(ls) == 3 else None)(self.leases()),
            what="two node Leases and the apiserver's")
        self.assertIn(("kube-node-lease", "node-0"), first)
        self.assertIn(("kube-node-lease", "node-1"), first)
        mine = [k for k in first if k[0] == "kube-system"]
        self.assertEqual(len(mine), 1)
        self.assertRegex(mine[0][1], r"^apiserver-[a-z2-7]{26}$")
        node = first[("kube-node-lease", "node-0")]
        self.assertEqual(node["spec"]["holderIdentity"], "node-0")
        self.assertEqual(node["spec"]["leaseDurationSeconds"], 40)
        self.assertRegex(node["spec"]["renewTime"], MICRO_TIME)
        self.assertEqual(node["metadata"]["ownerReferences"][0]["kind"], "Node")
        api = first[mine[0]]
        self.assertTrue(api["spec"]["holderIdentity"].startswith(mine[0][1] + "_"))
        self.assertEqual(api["metadata"]["labels"]["apiserver.kubernetes.io/identity"], "kube-apiserver")

        rv0 = self.rv()
        # a renewal is a MODIFIED of the same object with a new renewTime
        # and a new RV from the one global counter
        w = self.watch(LEASES + "/namespaces/kube-node-lease/leases?watch=true"
                       "&fieldSelector=metadata.name%%3Dnode-0&resourceVersion=%s"
                       % node["metadata"]["resourceVersion"])
        evs = w.wait_for(1, timeout=10)
        self.assertEqual(evs[0]["type"], "MODIFIED")
        renewed = evs[0]["object"]
        self.assertEqual(renewed["kind"], "Lease")
        self.assertEqual(renewed["apiVersion"], "coordination.k8s.io/v1")
        self.assertEqual(renewed["metadata"]["uid"], node["metadata"]["uid"])
        self.assertEqual(renewed["metadata"]["creationTimestamp"], node["metadata"]["creationTimestamp"])
        self.assertGreater(renewed["spec"]["renewTime"], node["spec"]["renewTime"])
        self.assertGreater(int(renewed["metadata"]["resourceVersion"]), int(node["metadata"]["resourceVersion"]))
        harness.wait_until(lambda: self.rv() > rv0, what="the global RV to move")
        # every resource's LIST carries that same global RV
        before = self.rv()
        pods_rv = int(self.get("/api/v1/pods")["metadata"]["resourceVersion"])
        self.assertGreaterEqual(pods_rv, before)

    def test_events_created_and_selectable(self):
        evs = harness.wait_until(
            lambda: (lambda d: d["items"] if len(d["items"]) >= 2 else None)(
                self.get("/api/v1/namespaces/default/events")),
            what="two Events")
        ev = evs[0]
        self.assertEqual(ev["involvedObject"]["kind"], "Node")
        self.assertRegex(ev["involvedObject"]["name"], r"^node-[01]$")
        self.assertEqual(ev["source"]["component"], "kubelet")
        self.assertEqual(ev["type"], "Normal")
        self.assertEqual(ev["reportingComponent"], "kubelet")
        self.assertTrue(ev["metadata"]["name"].startswith(ev["involvedObject"]["name"] + "."))
        self.assertEqual(ev["message"], "Node %s status is now: %s" % (ev["involvedObject"]["name"], ev["reason"]))
        # the events registry's selectable fields
        for sel, want in (("involvedObject.kind=Node", len(evs)), ("source=kubelet", len(evs)),
                          ("type=Warning", 0), ("reason=" + ev["reason"], None),
                          ("involvedObject.name=" + ev["involvedObject"]["name"], None)):
            got = self.get("/api/v1/namespaces/default/events", fieldSelector=sel)["items"]
            if want == 0:
                self.assertEqual(got, [], sel)
            else:
                self.assertTrue(got, sel)
                key, val = sel.split("=")
                for item in got:
                    if key == "source":
                        self.assertEqual(item["source"]["component"], val)
                    elif key.startswith("involvedObject."):
                        self.assertEqual(item["involvedObject"][key.split(".")[1]], val)
                    else:
                        self.assertEqual(item[key], val)
        st, _, body = harness.request("GET", self.url + "/api/v1/events?fieldSelector=spec.bogus%3Dx")
        self.assertEqual(st, 400)
        self.assertEqual(json.loads(body)["message"], "field label not supported: spec.bogus")

    def test_discovery(self):
        core = {r["name"]: r for r in self.get("/api/v1")["resources"]}
        self.assertEqual((core["events"]["kind"], core["events"]["shortNames"]), ("Event", ["ev"]))
        rl = self.get(LEASES)
        self.assertEqual(rl["groupVersion"], "coordination.k8s.io/v1")
        self.assertEqual([(r["name"], r["kind"], r["namespaced"]) for r in rl["resources"]],
                         [("leases", "Lease", True)])
        self.assertIn("coordination.k8s.io", [g["name"] for g in self.get("/apis")["groups"]])


class TestBookmarks(ClusterCase):
    extra = ("--lease-interval", "1", "--bookmark-interval", "2")

    def test_periodic_and_pre_deadline_bookmarks(self):
        start = self.rv()
        w = self.watch("/api/v1/namespaces/ns-0/pods?watch=true&allowWatchBookmarks=true"
                       "&resourceVersion=%d&timeoutSeconds=5" % start)
        self.assertTrue(w.wait_closed(10))
        self.assertFalse(hasattr(w, "error"), getattr(w, "error", None))
        self.assertEqual([e["type"] for e in w.events], ["BOOKMARK", "BOOKMARK"], w.events)
        rvs = [int(e["object"]["metadata"]["resourceVersion"]) for e in w.events]
        # Lease renewals moved the RV past the start: bookmarks carry it
        self.assertTrue(start < rvs[0] <= rvs[1] <= self.rv(), (start, rvs))
        self.assertEqual(w.events[0]["object"], {
            "kind": "Pod", "apiVersion": "v1",
            "metadata": {"resourceVersion": str(rvs[0]), "creationTimestamp": None},
            "spec": {"containers": None}, "status": {}})  # an empty Pod but its RV
        # one after --bookmark-interval (2 s), one 2 s before the 5 s
        # deadline (the next periodic one would fall on the deadline)
        self.assertTrue(1.7 <= w.times[0] <= 2.9, w.times)
        self.assertTrue(2.8 <= w.times[1] <= 4.0, w.times)

    def test_uncached_events_get_no_bookmarks(self):
        start = self.rv()
        # one Event of our own (the background one comes after 60 s), then
        # the watch runs past a bookmark period and its deadline
        w = self.watch("/api/v1/events?watch=true&allowWatchBookmarks=true"
                       "&resourceVersion=%d&timeoutSeconds=3" % start)
        st, _, body = harness.request("POST", self.url + "/api/v1/namespaces/default/events", body={
            "apiVersion": "v1", "kind": "Event", "metadata": {"name": "by-test"},
            "involvedObject": {"kind": "Pod", "namespace": "default", "name": "p"},
            "reason": "Tested", "message": "m", "type": "Normal"})
        self.assertEqual(st, 201, body)
        self.assertTrue(w.wait_closed(10))
        self.assertEqual([(e["type"], e["object"]["metadata"]["name"]) for e in w.events],
                         [("ADDED", "by-test")])
        # the RV moved well past the start: a cached resource would have
        # had bookmarks by now
        self.assertGreater(self.rv(), start + 2)
        # the fake counts the watch closed once its thread has let go,
        # which may be just after the client saw the end
        harness.wait_until(lambda: self.stats()["resources"]["events"]["watchOpen"] == 0,
                           what="the ended watch counted closed")

    def test_watch_list_end_bookmark_still_sent_for_events(self):
        w = self.watch("/api/v1/namespaces/default/events?watch=true&sendInitialEvents=true"
                       "&resourceVersionMatch=NotOlderThan&allowWatchBookmarks=true&timeoutSeconds=3")
        evs = w.wait_for(1, timeout=5)
        end = [e for e in evs if e["type"] == "BOOKMARK"]
        self.assertEqual(len(end), 1)
        self.assertEqual(set(end[0]["object"]["metadata"]["annotations"]),
                         {"k8s.io/initial-events-end", "kubernetes.io/initial-events-list-blueprint"})
        self.assertTrue(w.wait_closed(6))
        self.assertEqual(len([e for e in w.events if e["type"] == "BOOKMARK"]), 1)


class TestQuiet(ClusterCase):
    # the default bookmark interval (60 s): only pre-deadline bookmarks here
    extra = ("--quiet",)

    def test_nothing_written_and_no_bookmark_when_nothing_moved(self):
        rv0 = self.rv()
        self.assertEqual(self.get(LEASES + "/leases")["items"], [])
        self.assertEqual(self.get("/api/v1/events")["items"], [])
        names = {i["metadata"]["name"] for i in self.get("/api/v1/namespaces")["items"]}
        self.assertLessEqual(SYSTEM_NS, names)  # they exist in every cluster
        # a 3 s watch with bookmarks on a cluster where nothing moves
        # gets zero bytes, not even the pre-deadline bookmark (due at 1 s)
        w = self.watch("/api/v1/pods?watch=true&allowWatchBookmarks=true&resourceVersion=%d"
                       "&timeoutSeconds=3" % rv0)
        self.assertTrue(w.wait_closed(8))
        self.assertGreaterEqual(time.monotonic() - w.t0, 2.8)  # closed at the deadline
        self.assertEqual(w.events, [])
        self.assertEqual(self.rv(), rv0)

    def test_short_watch_gets_one_bookmark_before_its_deadline(self):
        rv0 = self.rv()
        # a 4 s watch gets its bookmark 2 s before the deadline (a real one
        # was seen at 1.3 s and 2.4 s: the cacher's timer buckets are whole
        # seconds)
        w = self.watch("/api/v1/namespaces/ns-0/pods?watch=true&allowWatchBookmarks=true"
                       "&resourceVersion=%d&timeoutSeconds=4" % rv0)
        moved = int(self.create_pod("ns-1", "elsewhere")["metadata"]["resourceVersion"])
        self.assertTrue(w.wait_closed(8))
        self.assertEqual(len(w.events), 1, w.events)
        self.assertEqual(w.events[0]["type"], "BOOKMARK")
        self.assertEqual(w.events[0]["object"]["metadata"]["resourceVersion"], str(moved))
        self.assertTrue(1.9 <= w.times[0] <= 3.2, w.times)


class TestCompaction(ClusterCase):
    extra = ("--lease-interval", "1", "--compact-interval", "1")

    def test_etcd_compaction_expires_uncached_watches_only(self):
        old = self.rv()
        created = self.create_pod("ns-2", "before-compaction")
        page = self.get("/api/v1/pods", limit=1)
        self.assertIn("continue", page["metadata"])
        # the compactor compacts to the RV of its previous tick, so this
        # takes two ticks
        harness.wait_until(lambda: self.stats()["compactedRV"] > old + 1, timeout=20,
                           what="etcd compacted past the old RV")
        compacted = self.stats()["compactedRV"]
        self.assertLessEqual(compacted, self.rv())

        # events are served from etcd: the resume needs events since old+1
        w = self.watch("/api/v1/events?watch=true&allowWatchBookmarks=true&resourceVersion=%d" % old)
        self.assertTrue(w.wait_closed(5))
        self.assertEqual(len(w.events), 1, w.events)
        self.assertExpired(w.events[0], "The resourceVersion for the provided watch is too old.")

        # pods come from the watch cache, whose history still holds old
        w = self.watch("/api/v1/pods?watch=true&resourceVersion=%d&timeoutSeconds=1" % old)
        self.assertTrue(w.wait_closed(5))
        self.assertEqual([(e["type"], e["object"]["metadata"]["name"]) for e in w.events],
                         [("ADDED", "before-compaction")])
        self.assertEqual(w.events[0]["object"]["metadata"]["uid"], created["metadata"]["uid"])

        # reads of etcd at an older revision are gone: 410
        st, _, body = harness.request("GET", self.url + "/api/v1/pods?resourceVersionMatch=Exact"
                                      "&resourceVersion=%d" % old)
        self.assertEqual(st, 410)
        self.assertEqual(json.loads(body)["message"], "The resourceVersion for the provided list is too old.")
        st, _, body = harness.request("GET", self.url + "/api/v1/pods?limit=1&continue=" +
                                      page["metadata"]["continue"])
        self.assertEqual(st, 410)
        status = json.loads(body)
        self.assertEqual((status["reason"], status["code"]), ("Expired", 410))
        self.assertTrue(status["message"].startswith("The provided continue parameter is too old"))

        # an events watch from a recent RV is fine
        w = self.watch("/api/v1/events?watch=true&resourceVersion=%d&timeoutSeconds=1" % self.rv())
        self.assertTrue(w.wait_closed(5))
        self.assertEqual([e for e in w.events if e["type"] == "ERROR"], [])

    def test_compact_fault_still_forgets_everything(self):
        old = self.rv()
        harness.wait_until(lambda: self.rv() > old, what="a Lease renewal")
        st, _, _ = harness.request("POST", self.url + "/fake/faults", body={"compact": True})
        self.assertEqual(st, 200)
        w = self.watch("/api/v1/pods?watch=true&resourceVersion=%d" % old)
        self.assertTrue(w.wait_closed(5))
        self.assertEqual(w.events[0]["object"]["reason"], "Expired")
        self.assertRegex(w.events[0]["object"]["message"], r"^too old resource version: %d \(\d+\)$" % old)


class TestFlags(unittest.TestCase):
    def test_bad_values_are_refused(self):
        for args in (("--nodes", "x"), ("--nodes", "-1"), ("--lease-interval", "-1"),
                     ("--event-interval", "1.5"), ("--compact-interval", "99999999"),
                     ("--lease-interval",)):
            rc, err = harness.fake_exit(*args)
            self.assertEqual(rc, 2, args)
            self.assertIn("bad flag: " + args[0], err)
            self.assertIn("--lease-interval S", err)  # the usage
        rc, err = harness.fake_exit("--uncached-resources", "events,bogus")
        self.assertEqual(rc, 2)
        self.assertIn("unknown resource bogus", err)

    def test_usage_lists_the_cluster_flags(self):
        p = subprocess.run([os.path.join(harness.BIN, "fake-apiserver"), "--help"],
                           capture_output=True, text=True, timeout=10)
        self.assertEqual(p.returncode, 0)
        for flag in ("--nodes N", "--lease-interval S", "--event-interval S", "--quiet",
                     "--compact-interval S", "--uncached-resources L", "--bookmark-interval S"):
            self.assertIn(flag, p.stdout)

    def test_uncached_crd_and_none(self):
        # a --crd may be named (it is resolved after every flag), and ""
        # serves everything from the watch cache: events get bookmarks
        srv = harness.fake("--uncached-resources", "", "--quiet", "--bookmark-interval", "1")
        self.addCleanup(srv.stop)
        rv0 = int(harness.get_json(srv.url + "/api/v1/events")[1]["metadata"]["resourceVersion"])
        w = harness.Watch(srv.url + "/api/v1/events?watch=true&allowWatchBookmarks=true&resourceVersion=%d"
                       "&timeoutSeconds=3" % rv0)
        self.addCleanup(w.close)
        st, _, body = harness.request("POST", srv.url + "/api/v1/namespaces/default/configmaps",
                                      body={"metadata": {"name": "mover"}})
        self.assertEqual(st, 201, body)
        evs = w.wait_for(1, timeout=5)
        self.assertEqual(evs[0]["type"], "BOOKMARK")
        self.assertEqual(evs[0]["object"]["kind"], "Event")
        self.assertEqual(evs[0]["object"]["metadata"]["resourceVersion"], json.loads(body)["metadata"]["resourceVersion"])
        srv2 = harness.fake("--crd", "widgets.example.com/v1:Widget",
                            "--uncached-resources", "widgets.example.com,events", "--quiet")
        self.addCleanup(srv2.stop)
        self.assertEqual(harness.get_json(srv2.url + "/fake/stats")[0], 200)


if __name__ == "__main__":
    unittest.main()
