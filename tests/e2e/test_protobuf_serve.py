"""The cache answers Kubernetes protobuf: LIST, GET and WATCH of a cached
built-in kind in application/vnd.kubernetes.protobuf come from the cache
(the fake's /fake/stats show no upstream request for them), framed as the
apiserver frames them around each object's kept encoding; Accept is
negotiated as the apiserver negotiates it; errors are protobuf Status
objects; an object the schema cannot encode faithfully sends the read
upstream (counted), and custom resources stay JSON."""

import http.client
import json
import os
import socket
import sys
import threading
import time
import unittest
import urllib.parse

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "lib"))
import harness as h  # noqa: E402
import pbwire  # noqa: E402

PB = "application/vnd.kubernetes.protobuf"
STREAM = PB + ";stream=watch"
TABLE = ";as=Table;v=v1;g=meta.k8s.io"
CMS = "/api/v1/configmaps"
WIDGETS = "/apis/example.com/v1/namespaces/ns-0/widgets"


class PbWatch:
    """A protobuf watch stream read on a background thread: frames holds
    (type, body) pairs as they arrive."""

    def __init__(self, url, accept=PB):
        u = urllib.parse.urlsplit(url)
        self.conn = http.client.HTTPConnection(u.hostname, u.port, timeout=60)
        self.conn.request("GET", u.path + "?" + u.query, headers={"Accept": accept})
        self.sock = self.conn.sock
        self.resp = self.conn.getresponse()
        self.status = self.resp.status
        self.type = self.resp.getheader("Content-Type")
        self.raw = b""
        self.frames = []
        self.closed = False
        self.cond = threading.Condition()
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self):
        try:
            while True:
                b = self.resp.read1(65536)
                if not b:
                    break
                with self.cond:
                    self.raw += b
                    self.frames, _ = pbwire.frames(self.raw)
                    self.cond.notify_all()
        except Exception:  # a closed socket ends the stream
            pass
        finally:
            with self.cond:
                self.closed = True
                self.cond.notify_all()

    def wait(self, pred, what, timeout=60):
        with self.cond:
            ok = self.cond.wait_for(lambda: pred(self.frames) or self.closed, timeout)
            if not ok or not pred(self.frames):
                raise AssertionError("watch: no %s in %r" % (what, [t for t, _ in self.frames]))

    def close(self):
        # shut the socket first: the reader thread holds the response's
        # buffer lock in its read, which a plain close waits for until
        # the socket's timeout (60 s) when the stream is silent
        try:
            self.sock.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass
        self.conn.close()


def named(name):
    """A predicate: some frame holds the object called name."""
    def pred(frames):
        return any(t in ("ADDED", "MODIFIED", "DELETED") and
                   pbwire.object_meta(pbwire.envelope(b)[2])[1] == name for t, b in frames)
    return pred


class ProtobufServe(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.fake = h.fake("--quiet", "--bookmark-interval", "1",
                          "--crd", "widgets.example.com/v1:Widget",
                          seed="configmaps=40,widgets.example.com=3")
        cls.proxy = h.proxy(cls.fake.url, "configmaps,widgets.v1.example.com",
                            "--bookmark-interval", "1")
        h.wait_ready(cls.proxy.url)

    @classmethod
    def tearDownClass(cls):
        cls.proxy.stop()
        cls.fake.stop()

    def stats(self, resource):
        return h.get_json(self.fake.url + "/fake/stats")[1]["resources"][resource]

    def upstream_reads(self, resource):
        s = self.stats(resource)
        return s["list"], s["watch"], len(s["requests"])

    def get(self, path, accept, base=None):
        return h.request("GET", (base or self.proxy.url) + path, headers={"Accept": accept})

    def metric(self, resource, reason):
        _, _, body = h.request("GET", self.proxy.url + "/metrics")
        key = 'informer_proxy_protobuf_passthrough_total{resource="%s",reason="%s"} ' % (resource, reason)
        for line in body.decode().splitlines():
            if line.startswith(key):
                return int(line.split()[-1])
        raise AssertionError("no sample " + key)

    # ---- from the cache ----

    def test_list_from_cache(self):
        before = self.upstream_reads("configmaps")
        s, hd, body = self.get(CMS + "?resourceVersion=0", PB)
        self.assertEqual(s, 200, body[:200])
        self.assertEqual(hd.get("Content-Type"), PB)
        av, kind, raw = pbwire.envelope(body)
        self.assertEqual((av, kind), ("v1", "ConfigMapList"))
        meta, items = pbwire.list_parts(raw)
        # the same list as the JSON answer, item for item
        s, _, js = self.get(CMS + "?resourceVersion=0", "application/json")
        want = json.loads(js)
        self.assertEqual(pbwire.list_meta(meta)["resourceVersion"], want["metadata"]["resourceVersion"])
        self.assertEqual(len(items), len(want["items"]))
        self.assertEqual([pbwire.object_meta(i) for i in items],
                         [(o["metadata"]["namespace"], o["metadata"]["name"],
                           o["metadata"]["resourceVersion"], o["metadata"].get("labels", {}))
                          for o in want["items"]])
        self.assertEqual(self.upstream_reads("configmaps"), before)
        # as the fake itself answers it, the list's own resourceVersion
        # aside (the fake's is its newest of any resource)
        s, hd, direct = self.get(CMS + "?resourceVersion=0", PB, base=self.fake.url)
        self.assertEqual((s, hd.get("Content-Type")), (200, PB))
        dmeta, ditems = pbwire.list_parts(pbwire.envelope(direct)[2])
        self.assertEqual(ditems, items)
        self.assertEqual(pbwire.envelope(direct)[:2], ("v1", "ConfigMapList"))
        self.assertEqual(dict(pbwire.list_meta(dmeta), resourceVersion=None),
                         dict(pbwire.list_meta(meta), resourceVersion=None))

    def test_get_and_pages_from_cache(self):
        _, _, body = self.get(CMS + "?resourceVersion=0", PB)
        _, items = pbwire.list_parts(pbwire.envelope(body)[2])
        ns, name, rv, _ = pbwire.object_meta(items[3])
        before = self.upstream_reads("configmaps")
        s, hd, one = self.get("/api/v1/namespaces/%s/configmaps/%s?resourceVersion=0" % (ns, name), PB)
        self.assertEqual(s, 200, one[:200])
        self.assertEqual(hd.get("Content-Type"), PB)
        av, kind, raw = pbwire.envelope(one)
        self.assertEqual((av, kind), ("v1", "ConfigMap"))
        self.assertEqual(raw, items[3])  # the one kept encoding, in both
        s, _, direct = self.get("/api/v1/namespaces/%s/configmaps/%s" % (ns, name), PB, base=self.fake.url)
        self.assertEqual(one, direct)  # byte for byte the fake's own
        self.assertEqual(self.upstream_reads("configmaps"), before)
        # pages (a limit is ignored at resourceVersion=0, as by the
        # apiserver's watch cache): ListMeta with continue and remainingItemCount
        s, _, p1 = self.get("/api/v1/namespaces/ns-0/configmaps?limit=2", PB)
        self.assertEqual(s, 200)
        m1, i1 = pbwire.list_parts(pbwire.envelope(p1)[2])
        m1 = pbwire.list_meta(m1)
        self.assertEqual(len(i1), 2)
        self.assertTrue(m1["continue"])
        s, _, js = self.get("/api/v1/namespaces/ns-0/configmaps?resourceVersion=0", "application/json")
        self.assertEqual(m1["remainingItemCount"], len(json.loads(js)["items"]) - 2)
        s, _, p2 = self.get("/api/v1/namespaces/ns-0/configmaps?limit=2&continue=" +
                            urllib.parse.quote(m1["continue"]), PB)
        self.assertEqual(s, 200, p2[:300])
        _, i2 = pbwire.list_parts(pbwire.envelope(p2)[2])
        self.assertEqual(len(i2), 2)
        self.assertNotEqual(i2[0], i1[0])

    def test_watch_from_cache(self):
        _, _, body = self.get(CMS + "?resourceVersion=0", PB)
        rv = pbwire.list_meta(pbwire.list_parts(pbwire.envelope(body)[2])[0])["resourceVersion"]
        before = self.upstream_reads("configmaps")
        url = self.proxy.url + CMS + "?watch=1&allowWatchBookmarks=true&resourceVersion=" + rv
        w1 = PbWatch(url)  # no ;stream=watch asked: the answer says it anyway
        w2 = PbWatch(url, accept=STREAM)
        direct = PbWatch(url.replace(self.proxy.url, self.fake.url))
        self.addCleanup(w1.close)
        self.addCleanup(w2.close)
        self.addCleanup(direct.close)
        for w in (w1, w2):
            self.assertEqual(w.status, 200)
            self.assertEqual(w.type, STREAM)
        cm = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "pbw", "labels": {"t": "pb"}},
              "data": {"k": "v"}}
        s, _, b = h.request("POST", self.fake.url + "/api/v1/namespaces/ns-1/configmaps", body=cm)
        self.assertEqual(s, 201, b)
        s, _, b = h.request("DELETE", self.fake.url + "/api/v1/namespaces/ns-1/configmaps/pbw")
        self.assertEqual(s, 200, b)
        for w in (w1, w2, direct):
            w.wait(lambda fr: [t for t, b in fr if named("pbw")([(t, b)])] == ["ADDED", "DELETED"],
                   "ADDED and DELETED of pbw")
        for w in (w1, w2):
            w.wait(lambda fr: any(t == "BOOKMARK" for t, _ in fr), "BOOKMARK")
        added = [b for t, b in w1.frames if t == "ADDED"][0]
        av, kind, raw = pbwire.envelope(added)
        self.assertEqual((av, kind), ("v1", "ConfigMap"))
        self.assertEqual(pbwire.object_meta(raw)[1:4:2], ("pbw", {"t": "pb"}))
        # one encoding of each event for all its watchers
        self.assertEqual([f for f in w1.frames if f[0] != "BOOKMARK"],
                         [f for f in w2.frames if f[0] != "BOOKMARK"])
        # and the fake's own frames, byte for byte
        self.assertEqual([f for f in w1.frames if f[0] != "BOOKMARK"],
                         [f for f in direct.frames if f[0] != "BOOKMARK"])
        bm = [b for t, b in w1.frames if t == "BOOKMARK"][0]
        self.assertEqual(pbwire.envelope(bm)[:2], ("v1", "ConfigMap"))
        self.assertTrue(pbwire.object_meta(pbwire.envelope(bm)[2])[2])
        s = self.stats("configmaps")  # one watch: the one asked of the fake
        self.assertEqual((s["list"], s["watch"]), (before[0], before[1] + 1))

    def test_watch_metadata_only(self):
        _, _, body = self.get(CMS + "?resourceVersion=0", PB)
        rv = pbwire.list_meta(pbwire.list_parts(pbwire.envelope(body)[2])[0])["resourceVersion"]
        path = "/api/v1/namespaces/ns-3/configmaps?watch=1&resourceVersion=" + rv
        accept = PB + ";as=PartialObjectMetadata;g=meta.k8s.io;v=v1"
        # two through the proxy: the second sends the frame the first
        # made (kept on the event), the same bytes as the fake's
        w, w2, direct = (PbWatch(self.proxy.url + path, accept),
                         PbWatch(self.proxy.url + path, accept),
                         PbWatch(self.fake.url + path, accept))
        for x in (w, w2, direct):
            self.addCleanup(x.close)
        self.assertEqual((w.status, w.type), (200, STREAM))
        cm = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "pbm"}, "data": {"k": "v"}}
        s, _, b = h.request("POST", self.fake.url + "/api/v1/namespaces/ns-3/configmaps", body=cm)
        self.assertEqual(s, 201, b)
        for x in (w, w2, direct):
            x.wait(named("pbm"), "ADDED of pbm")
        self.assertEqual(pbwire.envelope(w.frames[0][1])[:2], ("meta.k8s.io/v1", "PartialObjectMetadata"))
        self.assertEqual(w.frames[0], direct.frames[0])
        self.assertEqual(w2.frames[0], direct.frames[0])

    def test_watch_too_old_is_a_protobuf_error_frame(self):
        w = PbWatch(self.proxy.url + CMS + "?watch=1&resourceVersion=1")
        self.addCleanup(w.close)
        w.wait(lambda fr: len(fr) >= 1, "ERROR")
        t, body = w.frames[0]
        self.assertEqual(t, "ERROR")
        st = pbwire.status(body)
        self.assertEqual((st["code"], st["reason"]), (410, "Expired"))

    # ---- negotiation ----

    def test_negotiation(self):
        pod = "/api/v1/namespaces/ns-0/configmaps/" + json.loads(
            self.get("/api/v1/namespaces/ns-0/configmaps?resourceVersion=0", "application/json")[2]
        )["items"][0]["metadata"]["name"] + "?resourceVersion=0"
        lst = CMS + "?resourceVersion=0"
        meta = ";v=v1;g=meta.k8s.io"
        rows = [  # (path, Accept, code, Content-Type, envelope or JSON kind)
            ("a", pod, PB + ", */*", 200, PB, "ConfigMap"),
            ("b", pod, PB + ";q=0.5, application/json", 200, "application/json", "ConfigMap"),
            ("c", lst, "application/json" + TABLE + ", " + PB, 200, "application/json", "Table"),
            ("e1", lst, PB + TABLE, 406, "application/json", "Status"),
            ("e2", lst, PB + TABLE + ", application/json", 200, "application/json", "ConfigMapList"),
            ("e3", lst, PB + TABLE + ", " + PB, 200, PB, "ConfigMapList"),
            ("f1", lst, PB + ";as=PartialObjectMetadataList" + meta, 200, PB, "PartialObjectMetadataList"),
            ("f2", pod, PB + ";as=PartialObjectMetadata" + meta, 200, PB, "PartialObjectMetadata"),
            ("g1", pod, "application/json;q=0.9, " + PB, 200, PB, "ConfigMap"),
            ("g2", pod, "*/*", 200, "application/json", "ConfigMap"),
            ("g3", pod, "application/*", 406, "application/json", "Status"),
            ("g4", pod, PB + ";q=0", 200, PB, "ConfigMap"),
            ("g5", pod, PB + ";stream=watch", 200, PB, "ConfigMap"),
            ("g6", pod, PB + ";charset=utf-8", 200, PB, "ConfigMap"),
            ("g7", pod, "application/x-protobuf", 406, "application/json", "Status"),
            ("client-go", lst, PB + ",application/json", 200, PB, "ConfigMapList"),
            ("d1", WIDGETS + "/widget-0?resourceVersion=0", PB, 406, PB, "Status"),
            ("d2", WIDGETS + "?resourceVersion=0", PB + ", application/json", 200, "application/json",
             "WidgetList"),
            ("d3", WIDGETS + "?resourceVersion=0", PB + ", */*", 200, "application/json", "WidgetList"),
            ("d4", WIDGETS + "?resourceVersion=0", PB, 406, PB, "Status"),
        ]
        before = {r: self.upstream_reads(r)[:2] for r in ("configmaps", "widgets.example.com")}
        for name, path, accept, code, ctype, kind in rows:
            with self.subTest(name):
                s, hd, body = self.get(path, accept)
                self.assertEqual(s, code, body[:300])
                self.assertEqual(hd.get("Content-Type"), ctype)
                # the fake, which negotiates as the apiserver, agrees
                ds, dhd, dbody = self.get(path, accept, base=self.fake.url)
                self.assertEqual((ds, dhd.get("Content-Type")), (code, ctype))
                if ctype == PB and kind.endswith("List"):  # its RV aside
                    self.assertEqual(pbwire.list_parts(pbwire.envelope(body)[2])[1],
                                     pbwire.list_parts(pbwire.envelope(dbody)[2])[1])
                elif ctype == PB:
                    self.assertEqual(body, dbody)
                if ctype == PB:
                    av, k, raw = pbwire.envelope(body)
                    self.assertEqual(k, kind)
                    if k.startswith("PartialObjectMetadata"):
                        self.assertEqual(av, "meta.k8s.io/v1")
                    if k == "Status":
                        st = pbwire.status(body)
                        self.assertEqual((st["code"], st["reason"]), (406, "NotAcceptable"))
                        self.assertEqual(st["message"], "only the following media types are accepted: "
                                         "application/json, application/yaml, " + PB)
                else:
                    self.assertEqual(json.loads(body)["kind"], kind)
        # every row was the cache's answer (the fake's counts grew by the
        # rows asked of it directly, LISTs all)
        after = {r: self.upstream_reads(r)[:2] for r in ("configmaps", "widgets.example.com")}
        direct = {"configmaps": sum(1 for r in rows if r[1] == lst),
                  "widgets.example.com": sum(1 for r in rows if r[1].startswith(WIDGETS + "?"))}
        self.assertEqual(after, {r: (before[r][0] + direct[r], before[r][1]) for r in before})

    def test_errors_are_protobuf_status(self):
        s, hd, body = self.get("/api/v1/namespaces/ns-0/configmaps/nope?resourceVersion=0", PB)
        self.assertEqual(s, 404)
        self.assertEqual(hd.get("Content-Type"), PB)
        st = pbwire.status(body)
        self.assertEqual((st["status"], st["reason"], st["code"]), ("Failure", "NotFound", 404))
        self.assertEqual(st["message"], 'configmaps "nope" not found')
        self.assertEqual(body, self.get("/api/v1/namespaces/ns-0/configmaps/nope", PB,
                                        base=self.fake.url)[2])  # the fake's own bytes
        s, hd, body = self.get(CMS + "?labelSelector=a%3D%3D%3Db&resourceVersion=0", PB)
        self.assertEqual(s, 400)
        self.assertEqual(hd.get("Content-Type"), PB)
        self.assertEqual(pbwire.status(body)["code"], 400)

    # ---- what cannot be encoded faithfully goes upstream ----

    def test_unknown_field_passes_through(self):
        f, p = h.fake_and_proxy(self, "configmaps", seed="configmaps=6")
        cm = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "odd"},
              "data": {"a": "b"}, "surprise": {"x": 1}}
        s, _, b = h.request("POST", f.url + "/api/v1/namespaces/ns-2/configmaps", body=cm)
        self.assertEqual(s, 201, b)
        self.assertIn("surprise", json.loads(b))  # the fake keeps what it is given
        path = "/api/v1/namespaces/ns-2/configmaps/odd?resourceVersion=0"
        h.wait_until(lambda: h.request("GET", p.url + path)[0] == 200, timeout=60, what="odd in the cache")

        def stats():
            return h.get_json(f.url + "/fake/stats")[1]["resources"]["configmaps"]

        def metric():
            _, _, body = h.request("GET", p.url + "/metrics")
            key = 'informer_proxy_protobuf_passthrough_total{resource="configmaps",reason="unknown_field"} '
            return sum(int(line.split()[-1]) for line in body.decode().splitlines() if line.startswith(key))

        r0, n0 = len(stats()["requests"]), metric()
        # a namespace without it is still the cache's
        s, hd, body = h.request("GET", p.url + "/api/v1/namespaces/ns-0/configmaps?resourceVersion=0",
                                headers={"Accept": PB})
        self.assertEqual((s, hd.get("Content-Type")), (200, PB))
        self.assertEqual((len(stats()["requests"]), metric()), (r0, n0))
        # the object and a list holding it go upstream: the answer is the
        # upstream's own (the fake cannot encode the member either, and
        # says so; an apiserver never stores a member it does not know)
        for q in (path, "/api/v1/namespaces/ns-2/configmaps?resourceVersion=0"):
            via = h.request("GET", p.url + q, headers={"Accept": PB})
            direct = h.request("GET", f.url + q, headers={"Accept": PB})
            self.assertEqual((via[0], via[1].get("Content-Type")),
                             (direct[0], direct[1].get("Content-Type")))
            self.assertEqual(via[2], direct[2])
        # a watch too
        w = PbWatch(p.url + "/api/v1/namespaces/ns-2/configmaps?watch=1&timeoutSeconds=1")
        self.addCleanup(w.close)
        h.wait_until(lambda: w.closed, timeout=60, what="the upstream's watch to end")
        # the fake's stats record LISTs and WATCHes (not GETs): the LIST
        # and WATCH passed through, and the LIST asked of it directly; the
        # metric counts the proxy's three
        self.assertEqual(len(stats()["requests"]), r0 + 3)
        self.assertEqual(metric(), n0 + 3)



class FirstEncoding(unittest.TestCase):
    """The first protobuf LIST of many objects encodes every one of them
    (kept for the reads after it). That is done on a thread of its own
    while the LIST's connection waits: the proxy's one libmicrohttpd
    thread (--threads 1) answers other requests meanwhile."""

    def counter(self, p, sample):
        _, _, body = h.request("GET", p.url + "/metrics")
        for line in body.decode().splitlines():
            if line.startswith(sample + " "):
                return float(line.split()[-1])
        raise AssertionError("no sample " + sample)

    def test_other_reads_are_answered_while_the_first_encodes(self):
        n = 20000
        _, p = h.fake_and_proxy(self, "pods", "--threads", "1", seed="pods=%d" % n)
        u = urllib.parse.urlsplit(p.url)
        lists = 'informer_proxy_requests_total{handler="list"}'
        before = self.counter(p, lists)
        got = {}

        def first_list():
            c = http.client.HTTPConnection(u.hostname, u.port, timeout=300)
            c.request("GET", "/api/v1/pods?resourceVersion=0", headers={"Accept": PB})
            r = c.getresponse()
            got["headers_at"] = time.monotonic()
            got["list"] = (r.status, r.getheader("Content-Type"), r.read())
            c.close()
        th = threading.Thread(target=first_list, daemon=True)
        th.start()
        time.sleep(0.15)  # the LIST is in, its encoding under way
        s, _, body = h.request("GET", p.url + "/api/v1/pods?resourceVersion=0&limit=1",
                               timeout=300)
        got["other_at"] = time.monotonic()
        self.assertEqual(s, 200, body[:200])
        th.join(300)
        status, ctype, raw = got["list"]
        self.assertEqual((status, ctype), (200, PB))
        av, kind, body = pbwire.envelope(raw)
        self.assertEqual((av, kind), ("v1", "PodList"))
        self.assertEqual(len(pbwire.list_parts(body)[1]), n)
        # the other read was not held behind the encoding
        self.assertLess(got["other_at"], got["headers_at"])
        # each LIST counted once, though the first ran twice
        self.assertEqual(self.counter(p, lists) - before, 2)
        # the next one sends the kept encodings: the same bytes
        s, hd, again = h.request("GET", p.url + "/api/v1/pods?resourceVersion=0",
                                 headers={"Accept": PB}, timeout=300)
        self.assertEqual((s, hd.get("Content-Type")), (200, PB))
        self.assertEqual(again, raw)

    def test_an_object_it_cannot_encode_sends_the_read_upstream(self):
        """Among the objects handed to the encoder threads, one with a
        member the schema does not know: the read, run again, goes
        upstream once, as it does when encoded on its own thread."""
        f = h.fake("--quiet", seed="configmaps=300")
        self.addCleanup(f.stop)
        cm = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "odd"},
              "data": {"a": "b"}, "surprise": {"x": 1}}
        s, _, b = h.request("POST", f.url + "/api/v1/namespaces/ns-2/configmaps", body=cm)
        self.assertEqual(s, 201, b)
        p = h.proxy(f.url, "configmaps", "--threads", "1")
        self.addCleanup(p.stop)
        h.wait_ready(p.url)

        def requests():
            return len(h.get_json(f.url + "/fake/stats")[1]["resources"]["configmaps"]["requests"])
        sample = 'informer_proxy_protobuf_passthrough_total{resource="configmaps",reason="unknown_field"}'
        r0, n0 = requests(), self.counter(p, sample) if self.has(p, sample) else 0
        q = "/api/v1/configmaps?resourceVersion=0"
        via = h.request("GET", p.url + q, headers={"Accept": PB})
        direct = h.request("GET", f.url + q, headers={"Accept": PB})
        self.assertEqual((via[0], via[1].get("Content-Type"), via[2]),
                         (direct[0], direct[1].get("Content-Type"), direct[2]))
        self.assertEqual(requests() - r0, 2)  # the proxy's one, and ours
        self.assertEqual(self.counter(p, sample) - n0, 1)
        # JSON still from the cache
        s, _, body = h.request("GET", p.url + q)
        self.assertEqual((s, len(json.loads(body)["items"])), (200, 301))
        self.assertEqual(requests() - r0, 2)

    def has(self, p, sample):
        _, _, body = h.request("GET", p.url + "/metrics")
        return any(line.startswith(sample + " ") for line in body.decode().splitlines())

    def test_a_stop_while_encoding_ends_cleanly(self):
        """SIGTERM while the first LIST's encodings are being made: its
        connection is resumed (the daemon cannot stop with one suspended)
        and the proxy exits 0, without a sanitizer report."""
        f = h.fake("--quiet", seed="pods=20000")
        self.addCleanup(f.stop)
        p = h.proxy(f.url, "pods", "--threads", "1", "--shutdown-grace", "2")
        h.wait_ready(p.url)
        u = urllib.parse.urlsplit(p.url)
        sk = socket.create_connection((u.hostname, u.port), timeout=60)
        sk.sendall(("GET /api/v1/pods?resourceVersion=0 HTTP/1.1\r\nHost: %s\r\n"
                    "Accept: %s\r\n\r\n" % (u.netloc, PB)).encode())
        time.sleep(0.1)
        t0 = time.monotonic()
        self.assertEqual(p.stop(), 0)  # raises on a bad exit or a report
        self.assertLess(time.monotonic() - t0, 20)
        sk.close()


if __name__ == "__main__":
    unittest.main()
