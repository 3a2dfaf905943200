"""The fake apiserver answers in Kubernetes protobuf, negotiated from
Accept as the real apiserver does (docs/PROTOBUF.md): GET, LIST and WATCH
of built-in kinds, PartialObjectMetadata, Status errors, and the 406s.

Each protobuf answer is decoded here with a schema-less reader and
compared with the JSON answer for the same request: the envelope's kind
and apiVersion, ObjectMeta, ListMeta, the items and their order, maps.
The byte-for-byte agreement with a real apiserver is the unit test's
(tests/unit/cache/test_pb_encode.c): the fake encodes with the same code.
"""
import json
import struct
import unittest

import harness as h

PB = "application/vnd.kubernetes.protobuf"
STREAM = PB + ";stream=watch"
NEG_406 = ("only the following media types are accepted: application/json, "
           "application/yaml, application/vnd.kubernetes.protobuf")
ROUTER_406 = ("406: Not Acceptable\n\nAvailable representations: application/json, "
              "application/yaml, application/vnd.kubernetes.protobuf")
TABLE = ";as=Table;v=v1;g=meta.k8s.io"


# --------------------------------------------- a schema-less reader

def varint(b, i):
    x = shift = 0
    while True:
        c = b[i]
        i += 1
        x |= (c & 0x7f) << shift
        shift += 7
        if not c & 0x80:
            return x, i


def fields(b):
    """{number: [value, ...]}: bytes for length-delimited, ints for
    varints, in wire order."""
    out, i = {}, 0
    while i < len(b):
        tag, i = varint(b, i)
        num, wt = tag >> 3, tag & 7
        if wt == 0:
            v, i = varint(b, i)
        elif wt == 2:
            n, i = varint(b, i)
            v, i = bytes(b[i:i + n]), i + n
        elif wt == 1:
            v, i = b[i:i + 8], i + 8
        elif wt == 5:
            v, i = b[i:i + 4], i + 4
        else:
            raise ValueError("wire type %d" % wt)
        out.setdefault(num, []).append(v)
    return out


def one(f, num, default=b""):
    return f.get(num, [default])[0]


def envelope(body):
    """(apiVersion, kind, raw) of a k8s\\0 body."""
    assert body[:4] == b"k8s\x00", body[:16]
    u = fields(body[4:])
    tm = fields(one(u, 1))
    assert one(u, 3) == b"" and one(u, 4) == b"", u
    assert list(u) == [1, 2, 3, 4] or list(u) == [1, 3, 4], list(u)
    return one(tm, 1).decode(), one(tm, 2).decode(), one(u, 2)


def strmap(entries):
    return {one(fields(e), 1).decode(): one(fields(e), 2).decode() for e in entries}


def objmeta(raw):
    """ObjectMeta {1 name, 3 namespace, 5 uid, 6 resourceVersion,
    11 labels} of an object message, as its JSON reads."""
    m = fields(one(fields(raw), 1))
    return {"name": one(m, 1).decode(), "namespace": one(m, 3).decode(),
            "uid": one(m, 5).decode(), "resourceVersion": one(m, 6).decode(),
            "labels": strmap(m.get(11, []))}


def json_meta(o):
    m = o["metadata"]
    return {"name": m["name"], "namespace": m.get("namespace", ""), "uid": m["uid"],
            "resourceVersion": m["resourceVersion"], "labels": m.get("labels", {})}


def status(raw):
    s = fields(raw)
    return {"status": one(s, 2).decode(), "message": one(s, 3).decode(),
            "reason": one(s, 4).decode(), "code": one(s, 6, 0)}


def frames(body):
    out, i = [], 0
    while i < len(body):
        n = struct.unpack(">I", body[i:i + 4])[0]
        ev = fields(body[i + 4:i + 4 + n])
        out.append((one(ev, 1).decode(), one(fields(one(ev, 2)), 1)))
        i += 4 + n
    return out


class FakeAnswersProtobuf(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.fake = h.fake("--quiet", "--crd", "widgets.example.com/v1:Widget",
                          seed="pods=6,configmaps=6,services=3,namespaces=3")
        s, _, raw = h.request("POST", cls.fake.url + "/apis/example.com/v1/namespaces/ns-0/widgets",
                              json.dumps({"apiVersion": "example.com/v1", "kind": "Widget",
                                          "metadata": {"name": "w1"}, "spec": {"size": 1}}).encode(),
                              headers={"Content-Type": "application/json"})
        assert s == 201, (s, raw)

    @classmethod
    def tearDownClass(cls):
        cls.fake.stop()

    def req(self, path, accept=None, method="GET"):
        hdrs = {"Accept": accept} if accept is not None else {}
        s, hd, raw = h.request(method, self.fake.url + path, headers=hdrs)
        return s, hd.get("Content-Type"), raw

    def pb(self, path, accept=PB):
        s, ct, raw = self.req(path, accept)
        self.assertEqual((s, ct), (200, PB), raw[:300])
        return envelope(raw)

    # ------------------------------------------------- GET, LIST, WATCH

    def test_get_decodes_to_the_json_answer(self):
        for res, name in (("configmaps", "cm-0"), ("pods", "web-0"), ("services", None)):
            path = "/api/v1/namespaces/ns-0/" + res
            if name is None:
                name = json.loads(self.req(path)[2])["items"][0]["metadata"]["name"]
            s, ct, js = self.req(path + "/" + name, "application/json")
            self.assertEqual((s, ct), (200, "application/json"))
            obj = json.loads(js)
            av, kind, raw = self.pb(path + "/" + name)
            self.assertEqual((av, kind), (obj["apiVersion"], obj["kind"]))
            self.assertEqual(objmeta(raw), json_meta(obj))
            if res == "configmaps":
                self.assertEqual(strmap(fields(raw).get(2, [])), obj.get("data", {}))

    def test_list_decodes_to_the_json_answer(self):
        for res in ("configmaps", "pods", "services"):
            path = "/api/v1/namespaces/ns-1/" + res
            lst = json.loads(self.req(path, "application/json")[2])
            av, kind, raw = self.pb(path)
            self.assertEqual((av, kind), ("v1", lst["kind"]))
            f = fields(raw)
            lm = fields(one(f, 1))
            self.assertEqual(one(lm, 2).decode(), lst["metadata"]["resourceVersion"])
            self.assertEqual([objmeta(i) for i in f.get(2, [])],
                             [json_meta(i) for i in lst["items"]])
        # a page: continue and remainingItemCount in ListMeta
        path = "/api/v1/configmaps?limit=2"
        lst = json.loads(self.req(path, "application/json")[2])
        lm = fields(one(fields(self.pb(path)[2]), 1))
        self.assertEqual(one(lm, 3).decode(), lst["metadata"]["continue"])
        self.assertEqual(one(lm, 4, None), lst["metadata"]["remainingItemCount"])
        # an empty list: ListMeta only, no items field
        raw = self.pb("/api/v1/namespaces/none/configmaps")[2]
        self.assertEqual(list(fields(raw)), [1])

    def test_watch_frames_carry_whole_bodies(self):
        rv = json.loads(self.req("/api/v1/namespaces/ns-2/configmaps")[2])["metadata"]["resourceVersion"]
        body = json.dumps({"apiVersion": "v1", "kind": "ConfigMap",
                           "metadata": {"name": "pbwatch", "labels": {"b": "2", "a": "1"}},
                           "data": {"k": "v"}}).encode()
        s, _, _ = h.request("POST", self.fake.url + "/api/v1/namespaces/ns-2/configmaps", body,
                            headers={"Content-Type": "application/json"})
        self.assertEqual(s, 201)
        s, _, _ = h.request("DELETE", self.fake.url + "/api/v1/namespaces/ns-2/configmaps/pbwatch")
        self.assertEqual(s, 200)
        path = "/api/v1/namespaces/ns-2/configmaps?watch=1&timeoutSeconds=2&resourceVersion=" + rv
        s, ct, raw = self.req(path, PB)
        self.assertEqual((s, ct), (200, STREAM))
        _, _, js = self.req(path, "application/json")
        want = [json.loads(line) for line in js.decode().splitlines()]
        got = frames(raw)
        self.assertEqual([t for t, _ in got], [e["type"] for e in want])
        self.assertEqual([t for t, _ in got], ["ADDED", "DELETED"])
        for (t, b), e in zip(got, want):
            av, kind, obj = envelope(b)
            self.assertEqual((av, kind), ("v1", "ConfigMap"))
            self.assertEqual(objmeta(obj), json_meta(e["object"]))
            self.assertEqual(objmeta(obj)["labels"], {"a": "1", "b": "2"})

    def test_watch_bookmark_and_error_frames(self):
        # a watch from an RV the history no longer holds: one ERROR frame
        # with a 410 Status, then the end
        s, ct, raw = self.req("/api/v1/namespaces/ns-0/configmaps?watch=1&resourceVersion=1"
                              "&timeoutSeconds=2", PB)
        self.assertEqual((s, ct), (200, STREAM))
        fr = frames(raw)
        if fr:  # the fake's history may still hold RV 1
            self.assertEqual(fr[-1][0], "ERROR")
            av, kind, st = envelope(fr[-1][1])
            self.assertEqual((av, kind), ("v1", "Status"))
            self.assertEqual((status(st)["code"], status(st)["reason"]), (410, "Expired"))
        # sendInitialEvents: ADDED frames, then the BOOKMARK with the
        # initial-events-end annotation
        q = ("?watch=1&sendInitialEvents=true&allowWatchBookmarks=true"
             "&resourceVersionMatch=NotOlderThan&timeoutSeconds=2")
        fr = frames(self.req("/api/v1/namespaces/ns-0/configmaps" + q, PB)[2])
        types = [t for t, _ in fr]
        self.assertIn("BOOKMARK", types)
        self.assertEqual(set(types[:types.index("BOOKMARK")]), {"ADDED"})
        _, kind, bm = envelope(fr[types.index("BOOKMARK")][1])
        self.assertEqual(kind, "ConfigMap")
        meta = fields(one(fields(bm), 1))
        self.assertIn("k8s.io/initial-events-end", strmap(meta.get(12, [])))

    # ------------------------------------------------- errors

    def test_errors_are_status_in_the_negotiated_encoding(self):
        s, ct, raw = self.req("/api/v1/namespaces/ns-0/pods/nope", PB)
        self.assertEqual((s, ct), (404, PB))
        av, kind, st = envelope(raw)
        self.assertEqual((av, kind), ("v1", "Status"))
        self.assertEqual(status(st), {"status": "Failure", "message": 'pods "nope" not found',
                                      "reason": "NotFound", "code": 404})
        d = fields(one(fields(st), 5))
        self.assertEqual((one(d, 1), one(d, 3)), (b"nope", b"pods"))
        s, ct, raw = self.req("/api/v1/namespaces/ns-0/pods/nope", "application/json, " + PB)
        self.assertEqual((s, ct), (404, "application/json"))
        self.assertEqual(json.loads(raw)["reason"], "NotFound")
        s, ct, raw = self.req("/api/v1/pods?labelSelector=a%3D%3D%3D", PB)
        self.assertEqual((s, ct), (400, PB))
        self.assertEqual(status(envelope(raw)[2])["reason"], "BadRequest")

    # ------------------------------------------------- negotiation

    def test_negotiation_table(self):
        # the apiserver's rows were pods; the rule is the same for every
        # built-in kind
        obj = "/api/v1/namespaces/ns-0/configmaps/cm-0"
        coll = "/api/v1/namespaces/ns-0/configmaps"
        cr = "/apis/example.com/v1/namespaces/ns-0/widgets/w1"
        crs = "/apis/example.com/v1/namespaces/ns-0/widgets"
        rows = [
            # (case, path, Accept, code, Content-Type, envelope kind or JSON kind)
            ("a", obj, PB + ", */*", 200, PB, "ConfigMap"),
            ("b", obj, PB + ";q=0.5, application/json", 200, "application/json", "ConfigMap"),
            ("c", coll, "application/json" + TABLE + ", " + PB, 200, "application/json", "Table"),
            ("d1", cr, PB, 406, PB, "Status"),
            ("d2", cr, PB + ", application/json", 200, "application/json", "Widget"),
            ("d3", cr, PB + ", */*", 200, "application/json", "Widget"),
            ("d4", crs, PB, 406, PB, "Status"),
            ("e1", coll, PB + TABLE, 406, "application/json", "Status"),
            ("e2", coll, PB + TABLE + ", application/json", 200, "application/json",
             "ConfigMapList"),
            ("e3", coll, PB + TABLE + ", " + PB, 200, PB, "ConfigMapList"),
            ("e4", obj, PB + TABLE, 406, "application/json", "Status"),
            ("f1", coll, PB + ";as=PartialObjectMetadataList;v=v1;g=meta.k8s.io", 200, PB,
             "PartialObjectMetadataList"),
            ("f2", obj, PB + ";as=PartialObjectMetadata;v=v1;g=meta.k8s.io", 200, PB,
             "PartialObjectMetadata"),
            ("g1", obj, "application/json;q=0.9, " + PB, 200, PB, "ConfigMap"),
            ("g2", obj, "*/*", 200, "application/json", "ConfigMap"),
            ("g3", obj, "application/*", 406, "application/json", "Status"),
            ("g4", obj, PB + ";q=0", 200, PB, "ConfigMap"),
            ("g5", obj, PB + ";stream=watch", 200, PB, "ConfigMap"),
            ("g6", obj, PB + ";charset=utf-8", 200, PB, "ConfigMap"),
            ("g7", obj, "application/x-protobuf", 406, "application/json", "Status"),
            ("h1", coll + "?watch=1&timeoutSeconds=1", PB, 200, STREAM, None),
            ("h2", coll + "?watch=1&timeoutSeconds=1", STREAM, 200, STREAM, None),
        ]
        for case, path, accept, code, ctype, kind in rows:
            with self.subTest(case=case, accept=accept):
                s, ct, raw = self.req(path, accept)
                self.assertEqual((s, ct), (code, ctype), raw[:200])
                if kind is None:
                    self.assertTrue(frames(raw))
                    continue
                if ct == PB:
                    av, k, body = envelope(raw)
                    self.assertEqual(k, kind)
                    if kind.startswith("Partial"):
                        self.assertEqual(av, "meta.k8s.io/v1")
                    if kind == "Status":
                        self.assertEqual(status(body)["message"], NEG_406)
                        self.assertEqual(status(body)["code"], 406)
                else:
                    doc = json.loads(raw)
                    self.assertEqual(doc["kind"], kind)
                    if kind == "Status":
                        self.assertEqual(doc["message"],
                                         ROUTER_406 if case in ("g3", "g7") else NEG_406)
                        self.assertEqual("details" in doc, case in ("g3", "g7"))

    # ------------------------------------------------------- discovery

    def test_discovery_documents_in_protobuf(self):
        """GET /api, /apis, /apis/G, /apis/G/V and /api/v1 with a protobuf
        Accept: the JSON document's fields, in protobuf (the apiserver's
        answers i1, i2 and i4 of the negotiation transcripts)."""
        port = int(self.fake.url.rsplit(":", 1)[1])
        # /api: the apiserver's 60 bytes, its port ours
        av, kind, raw = self.pb("/api")
        self.assertEqual((av, kind), ("", "APIVersions"))
        addr = ("127.0.0.1:%d" % port).encode()
        cidr = b"\x0a\x090.0.0.0/0\x12" + bytes([len(addr)]) + addr
        self.assertEqual(raw, b"\x0a\x02v1\x12" + bytes([len(cidr)]) + cidr)
        for path, want_kind in (("/apis", "APIGroupList"),
                                ("/apis/coordination.k8s.io", "APIGroup"),
                                ("/apis/coordination.k8s.io/v1", "APIResourceList"),
                                ("/api/v1", "APIResourceList"),
                                ("/apis/example.com/v1", "APIResourceList")):
            _, _, js = self.req(path, "application/json")
            doc = json.loads(js)
            for accept in (PB, PB + ", application/json",
                           "application/json;q=0.5, " + PB):
                av, kind, raw = self.pb(path, accept)
                self.assertEqual((av, kind), (doc.get("apiVersion", ""), want_kind))
                f = fields(raw)
                if want_kind == "APIResourceList":
                    self.assertEqual(one(f, 1).decode(), doc["groupVersion"])
                    got = [fields(r) for r in f.get(2, [])]
                    self.assertEqual([one(r, 1).decode() for r in got],
                                     [r["name"] for r in doc["resources"]])
                    self.assertEqual([[v.decode() for v in fields(one(r, 4)).get(1, [])]
                                      for r in got],
                                     [r["verbs"] for r in doc["resources"]])
                    self.assertEqual([one(r, 2, 0) for r in got],
                                     [int(r["namespaced"]) for r in doc["resources"]])
                elif want_kind == "APIGroupList":
                    self.assertEqual([one(fields(g), 1).decode() for g in f.get(1, [])],
                                     [g["name"] for g in doc["groups"]])
                else:
                    self.assertEqual(one(f, 1).decode(), doc["name"])
                    pref = fields(one(f, 3))
                    self.assertEqual(one(pref, 1).decode(),
                                     doc["preferredVersion"]["groupVersion"])
        # JSON first, or none asked: JSON as before
        for accept in (None, "application/json", "application/json, " + PB, "*/*"):
            s, ct, raw = self.req("/apis", accept)
            self.assertEqual((s, ct), (200, "application/json"), accept)
            self.assertEqual(json.loads(raw)["kind"], "APIGroupList")

    def test_version_is_json_only(self):
        """GET /version with a protobuf-only Accept: the apiserver's 406, its
        Status in protobuf (137 bytes, transcript i3); with JSON anywhere
        in Accept, the JSON answer."""
        s, ct, raw = self.req("/version", PB)
        self.assertEqual((s, ct), (406, PB))
        head = bytes.fromhex(
            "6b3873000a0c0a027631120653746174757312710a060a0012001a0012074661"
            "696c7572651a403430363a204e6f742041636365707461626c650a0a41766169")
        self.assertEqual((len(raw), raw[:64]), (137, head))
        av, kind, body = envelope(raw)
        self.assertEqual((av, kind), ("v1", "Status"))
        st = status(body)
        self.assertEqual(st, {"status": "Failure", "reason": "NotAcceptable", "code": 406,
                              "message": "406: Not Acceptable\n\nAvailable "
                                         "representations: application/json"})
        for accept in (PB + ", application/json", "*/*", None):
            s, ct, raw = self.req("/version", accept)
            self.assertEqual((s, ct), (200, "application/json"), accept)
            self.assertEqual(json.loads(raw)["major"], "1")

    def test_no_accept_is_json(self):
        s, ct, raw = self.req("/api/v1/namespaces/ns-0/pods/web-0")
        self.assertEqual((s, ct), (200, "application/json"))
        self.assertEqual(json.loads(raw)["kind"], "Pod")


if __name__ == "__main__":
    unittest.main()
