"""informer-proxy in front of the fake apiserver: the basics (equal lists
and objects, watch fan-out, one upstream watch per resource, errors as
Status bodies)."""
import json
import random
import time
import unittest

import harness as h


def list_key(obj):
    m = obj["metadata"]
    return (m.get("namespace", ""), m["name"], m["resourceVersion"])


class ProxyEqualsFake(unittest.TestCase):
    # A quiet fake: its Lease renewals would move the resourceVersion
    # between the fake's read and the proxy's, which these tests compare.
    @classmethod
    def setUpClass(cls):
        cls.fake = h.fake("--quiet", seed="pods=1000,configmaps=200")
        cls.proxy = h.proxy(cls.fake.url, "pods,configmaps")
        h.wait_ready(cls.proxy.url)

    @classmethod
    def tearDownClass(cls):
        cls.proxy.stop()
        cls.fake.stop()

    def lists(self, path):
        s1, a = h.get_json(self.fake.url + path)
        s2, b = h.get_json(self.proxy.url + path)
        self.assertEqual((s1, s2), (200, 200), path)
        return a, b

    def test_cluster_and_namespace_lists_equal(self):
        for res in ("pods", "configmaps"):
            a, b = self.lists("/api/v1/" + res)
            self.assertEqual(b["kind"], a["kind"])
            self.assertEqual(b["metadata"]["resourceVersion"], a["metadata"]["resourceVersion"])
            self.assertEqual([list_key(o) for o in a["items"]], [list_key(o) for o in b["items"]])
            self.assertEqual(a["items"], b["items"])
        a, _ = self.lists("/api/v1/pods")
        self.assertEqual(len(a["items"]), 1000)
        namespaces = sorted({o["metadata"]["namespace"] for o in a["items"]})
        self.assertEqual(len(namespaces), 10)
        for ns in namespaces:
            for res in ("pods", "configmaps"):
                fa, pb = self.lists("/api/v1/namespaces/%s/%s" % (ns, res))
                self.assertTrue(fa["items"])
                self.assertEqual(fa["items"], pb["items"])
                self.assertEqual(fa["metadata"]["resourceVersion"], pb["metadata"]["resourceVersion"])

    def test_list_bytes_are_compact_and_end_in_newline(self):
        _, _, body = h.request("GET", self.proxy.url + "/api/v1/namespaces/ns-1/pods")
        self.assertTrue(body.endswith(b"]}\n"))
        self.assertNotIn(b"\n", body[:-1])

    def test_many_piece_list_is_the_fakes_bytes(self):
        # 1000 pods are 2,002 pieces, more than one iovec takes: the body
        # is copied into blocks as it is sent (proxy/reply.c); each block's
        # seams must fall anywhere without a byte lost or doubled
        _, _, fb = h.request("GET", self.fake.url + "/api/v1/pods")
        _, _, pb = h.request("GET", self.proxy.url + "/api/v1/pods?resourceVersion=0")
        self.assertGreater(len(pb), 1 << 20)
        items = b'"items":['
        self.assertEqual(pb[pb.index(items):], fb[fb.index(items):])

    def test_get_random_pods(self):
        _, a = h.get_json(self.fake.url + "/api/v1/pods")
        rnd = random.Random(7)
        for o in rnd.sample(a["items"], 50):
            m = o["metadata"]
            path = "/api/v1/namespaces/%s/pods/%s" % (m["namespace"], m["name"])
            s1, fo = h.get_json(self.fake.url + path)
            s2, po = h.get_json(self.proxy.url + path)
            self.assertEqual((s1, s2), (200, 200))
            self.assertEqual(fo, po)
            self.assertEqual(po["kind"], "Pod")
            self.assertEqual(po["apiVersion"], "v1")

    def test_get_missing_is_404_status(self):
        s, st = h.get_json(self.proxy.url + "/api/v1/namespaces/ns-1/pods/nope")
        self.assertEqual(s, 404)
        self.assertEqual(st["kind"], "Status")
        self.assertEqual(st["reason"], "NotFound")
        self.assertEqual(st["code"], 404)
        self.assertEqual(st["message"], 'pods "nope" not found')
        self.assertEqual(st["details"], {"name": "nope", "kind": "pods"})

    def test_unknown_resource_404_and_bad_input_400(self):
        s, st = h.get_json(self.proxy.url + "/api/v1/namespaces/ns-1/bogusthings")
        self.assertEqual((s, st["reason"]), (404, "NotFound"))
        s, st = h.get_json(self.proxy.url + "/api/v1/pods?labelSelector=app%3D%3D%3D")
        self.assertEqual((s, st["reason"]), (400, "BadRequest"))
        self.assertIn("unable to parse requirement", st["message"])
        s, st = h.get_json(self.proxy.url + "/api/v1/pods?fieldSelector=spec.bogus%3Dx")
        self.assertEqual((s, st["reason"], st["message"]),
                         (400, "BadRequest", "field label not supported: spec.bogus"))
        s, st = h.get_json(self.proxy.url + "/api/v1/pods?continue=bogus-token")
        self.assertEqual((s, st["reason"]), (400, "BadRequest"))
        s, st = h.get_json(self.proxy.url + "/api/v1/pods?resourceVersionMatch=Exact")
        self.assertEqual((s, st["reason"]), (422, "Invalid"))

    def test_paging_is_one_snapshot(self):
        url = self.proxy.url + "/api/v1/namespaces/ns-2/pods?limit=30"
        s, first = h.get_json(url)
        self.assertEqual(s, 200)
        rv = first["metadata"]["resourceVersion"]
        self.assertEqual(len(first["items"]), 30)
        self.assertEqual(first["metadata"]["remainingItemCount"], 70)
        # a write between pages must not show up in later pages
        victim = first["items"][-1]["metadata"]["name"]
        h.request("PATCH", self.fake.url + "/api/v1/namespaces/ns-2/pods/" + victim,
                  body=json.dumps({"metadata": {"labels": {"paged": "yes"}}}).encode(),
                  headers={"Content-Type": "application/merge-patch+json"})
        items = list(first["items"])
        cont = first["metadata"]["continue"]
        while cont:
            s, page = h.get_json(url + "&continue=" + cont)
            self.assertEqual(s, 200)
            self.assertEqual(page["metadata"]["resourceVersion"], rv)
            items += page["items"]
            cont = page["metadata"].get("continue")
        self.assertEqual(len(items), 100)
        self.assertEqual(len({o["metadata"]["name"] for o in items}), 100)
        self.assertTrue(all(int(o["metadata"]["resourceVersion"]) <= int(rv) for o in items))

    def test_selectors(self):
        for q in ("labelSelector=shard%3D7", "fieldSelector=status.phase%3DPending",
                  "labelSelector=shard+in+%281%2C2%29,tier", "fieldSelector=spec.nodeName%3D"):
            a, b = self.lists("/api/v1/pods?" + q)
            self.assertEqual(a["items"], b["items"], q)

    def metric(self, name):
        _, _, body = h.request("GET", self.proxy.url + "/metrics")
        for line in body.decode().splitlines():
            if line.startswith(name + " "):
                return float(line.split()[-1])
        self.fail("no metric " + name)

    def test_metrics_and_watchers_that_leave(self):
        s, hdrs, body = h.request("GET", self.proxy.url + "/metrics")
        self.assertEqual(s, 200)
        self.assertTrue(hdrs["Content-Type"].startswith("text/plain; version=0.0.4"))
        self.assertEqual(self.metric('informer_proxy_cache_objects{resource="pods"}'), 1000)
        self.assertEqual(self.metric('informer_proxy_cache_synced{resource="configmaps"}'), 1)
        base = self.metric('informer_proxy_watchers{resource="pods"}')
        ws = [h.Watch(self.proxy.url + "/api/v1/pods?watch=1&resourceVersion=0&labelSelector=shard%3D3")
              for _ in range(3)]
        for w in ws:
            w.wait_for(10)
        self.assertEqual(self.metric('informer_proxy_watchers{resource="pods"}'), base + 3)
        for w in ws:
            w.close()
        # idle watches are suspended; the proxy must still notice the
        # clients left (it peeks at the socket on every tick)
        h.wait_until(lambda: self.metric('informer_proxy_watchers{resource="pods"}') == base,
                     timeout=5, what="closed watches to be dropped")

    def test_probe_mode_for_exec_health_checks(self):
        import subprocess
        exe = h.os.path.join(h.BIN, "informer-proxy")
        ok = subprocess.run([exe, "--probe", self.proxy.url + "/readyz"], capture_output=True)
        self.assertEqual(ok.returncode, 0, ok.stderr)
        bad = subprocess.run([exe, "--probe", self.proxy.url + "/nope-not-a-path"], capture_output=True)
        self.assertEqual(bad.returncode, 1)
        # each failure says why in one line: the status, or the transport
        # error (never a bare status 0)
        err = bad.stderr.decode()
        self.assertEqual(err.count("\n"), 1, err)
        self.assertIn("answered 404", err)
        down = subprocess.run([exe, "--probe", "http://127.0.0.1:9/readyz"], capture_output=True)
        self.assertEqual(down.returncode, 1)
        err = down.stderr.decode()
        self.assertEqual(err.count("\n"), 1, err)
        self.assertIn("no answer", err)
        self.assertIn("connect", err.lower())
        self.assertIn("127.0.0.1", err)
        self.assertNotIn(": 0", err)

    def test_health(self):
        for p in ("/healthz", "/livez", "/readyz"):
            s, _, body = h.request("GET", self.proxy.url + p)
            self.assertEqual((s, body), (200, b"ok"))


class WatchFanOut(unittest.TestCase):
    def test_twenty_watchers_see_every_change_once_in_order(self):
        fake = h.fake(seed="pods=100,configmaps=20")
        proxy = h.proxy(fake.url, "pods,configmaps")
        watches = []
        try:
            h.wait_ready(proxy.url)
            _, lst = h.get_json(proxy.url + "/api/v1/pods")
            rv = lst["metadata"]["resourceVersion"]
            _, stats0 = h.get_json(fake.url + "/fake/stats")
            watches = [h.Watch(proxy.url + "/api/v1/pods?watch=true&resourceVersion=" + rv)
                       for _ in range(20)]
            for w in watches:
                self.assertEqual(w.status, 200)
            rnd = random.Random(3)
            names = [o["metadata"]["name"] for o in lst["items"] if o["metadata"]["namespace"] == "ns-0"]
            created = []
            for i in range(200):
                op = i % 3
                if op == 0 or not names:
                    name = "w-%d" % i
                    body = {"apiVersion": "v1", "kind": "Pod",
                            "metadata": {"name": name, "labels": {"app": "fanout"}},
                            "spec": {"containers": [{"name": "c", "image": "busybox"}]}}
                    s, _, _ = h.request("POST", fake.url + "/api/v1/namespaces/ns-0/pods", body=body)
                    self.assertEqual(s, 201)
                    names.append(name)
                    created.append(name)
                elif op == 1:
                    name = rnd.choice(names)
                    s, _, _ = h.request("PATCH", fake.url + "/api/v1/namespaces/ns-0/pods/" + name,
                                        body=json.dumps({"metadata": {"labels": {"step": str(i)}}}).encode(),
                                        headers={"Content-Type": "application/merge-patch+json"})
                    self.assertEqual(s, 200)
                else:
                    name = names.pop(rnd.randrange(len(names)))
                    s, _, _ = h.request("DELETE", fake.url + "/api/v1/namespaces/ns-0/pods/" + name)
                    self.assertEqual(s, 200)
            # while the watchers are open: one upstream watch per resource
            _, stats = h.get_json(fake.url + "/fake/stats")
            self.assertEqual(stats["resources"]["pods"]["watchOpen"], 1)
            self.assertEqual(stats["resources"]["configmaps"]["watchOpen"], 1)
            self.assertEqual(stats["resources"]["pods"]["list"], stats0["resources"]["pods"]["list"])

            _, final = h.get_json(fake.url + "/api/v1/pods")
            want = {(o["metadata"]["namespace"], o["metadata"]["name"]): o for o in final["items"]}
            for w in watches:
                evs = w.wait_for(200, timeout=30)
                self.assertEqual(len(evs), 200)
                rvs = [int(e["object"]["metadata"]["resourceVersion"]) for e in evs]
                self.assertEqual(rvs, sorted(rvs))
                self.assertEqual(len(set(rvs)), 200)
                self.assertTrue(all(r > int(rv) for r in rvs))
                state = {(o["metadata"]["namespace"], o["metadata"]["name"]): o for o in lst["items"]}
                for e in evs:
                    k = (e["object"]["metadata"]["namespace"], e["object"]["metadata"]["name"])
                    if e["type"] == "DELETED":
                        self.assertIn(k, state)
                        del state[k]
                    else:
                        self.assertEqual(e["type"] == "ADDED", k not in state)
                        # list items carry no kind/apiVersion; events do
                        obj = dict(e["object"])
                        self.assertEqual((obj.pop("kind"), obj.pop("apiVersion")), ("Pod", "v1"))
                        state[k] = obj
                self.assertEqual(state, want)
            time.sleep(0.3)   # a duration: nothing extra may arrive in it
            for w in watches:
                self.assertEqual(len(w.events), 200)
        finally:
            for w in watches:
                w.close()
            proxy.stop()
            fake.stop()


class Listeners(unittest.TestCase):
    def test_unix_socket_and_ipv6(self):
        import http.client
        import os
        import socket
        import tempfile
        fake = h.fake(seed="pods=10")
        path = os.path.join(tempfile.mkdtemp(), "proxy.sock")
        proxy = h.Server("informer-proxy", [os.path.join(h.BIN, "informer-proxy"), "--listen", "[::1]:0",
                                            "--server", fake.url, "--resources", "pods",
                                            "--unix-socket", path])
        try:
            self.assertTrue(proxy.url.startswith("http://[::1]:"), proxy.url)
            h.wait_ready(proxy.url)
            self.assertEqual(os.stat(path).st_mode & 0o777, 0o600)  # owner only by default

            class UnixConn(http.client.HTTPConnection):
                def connect(self):
                    self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
                    self.sock.connect(path)
            c = UnixConn("localhost")
            c.request("GET", "/api/v1/pods")
            r = c.getresponse()
            self.assertEqual(r.status, 200)
            self.assertEqual(len(json.loads(r.read())["items"]), 10)
            c.close()
        finally:
            proxy.stop()
            fake.stop()
        self.assertFalse(os.path.exists(path))


class BeforeSync(unittest.TestCase):
    def test_429_and_readyz_503_until_synced(self):
        # an upstream that accepts connections but never answers in time
        import socket
        sock = socket.socket()
        sock.bind(("127.0.0.1", 0))
        sock.listen(16)
        proxy = h.proxy("http://127.0.0.1:%d" % sock.getsockname()[1], "pods")
        try:
            s, hdrs, body = h.request("GET", proxy.url + "/api/v1/pods")
            st = json.loads(body)
            self.assertEqual((s, st["reason"], st["code"]), (429, "TooManyRequests", 429))
            self.assertEqual(hdrs["Retry-After"], "1")
            s, _, _ = h.request("GET", proxy.url + "/readyz")
            self.assertEqual(s, 503)
            s, _, _ = h.request("GET", proxy.url + "/healthz")
            self.assertEqual(s, 200)
        finally:
            proxy.stop()
            sock.close()


if __name__ == "__main__":
    unittest.main()
