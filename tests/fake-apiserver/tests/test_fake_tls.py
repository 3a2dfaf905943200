"""bin/fake-apiserver over HTTPS with bearer-token and client-certificate
authentication.

A throwaway PKI is made at test time with certs.make_pki (openssl CLI);
no key is committed. Checks: the https listening line, 401 with the
apiserver's Status for a missing or wrong token, bearer tokens from
--token and --token-file (rotation), client certificates from
--client-ca, open /fake/ and health paths, a watch over TLS, and the
flag errors.
"""
import http.client
import json
import os
import ssl
import sys
import tempfile
import time
import unittest
import urllib.error
import urllib.request

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(HERE)), "lib"))
import certs  # noqa: E402
import harness  # noqa: E402

UNAUTHORIZED = {"kind": "Status", "apiVersion": "v1", "metadata": {},
                "status": "Failure", "message": "Unauthorized",
                "reason": "Unauthorized", "code": 401}


def ctx_for(pki, client=None):
    ctx = ssl.create_default_context(cafile=pki["ca"])
    if client:
        ctx.load_cert_chain(client[0], client[1])
    return ctx


def req(url, ctx, token=None, method="GET", body=None, headers=None):
    hdrs = dict(headers or {})
    if token:
        hdrs["Authorization"] = "Bearer " + token
    data = None
    if body is not None:
        data = json.dumps(body).encode()
        hdrs["Content-Type"] = "application/json"
    r = urllib.request.Request(url, data=data, method=method, headers=hdrs)
    try:
        with urllib.request.urlopen(r, context=ctx, timeout=20) as resp:
            return resp.status, resp.headers, resp.read()
    except urllib.error.HTTPError as e:
        return e.code, e.headers, e.read()


class TLSCase(unittest.TestCase):
    extra = ()

    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.mkdtemp(prefix="fake-tls-")
        cls.pki = certs.make_pki(os.path.join(cls.tmp, "pki"))
        cls.other = certs.make_pki(os.path.join(cls.tmp, "other"))
        cls.token_file = os.path.join(cls.tmp, "tokens")
        with open(cls.token_file, "w") as f:
            f.write("file-token-1\n")
        args = ["--tls-cert", cls.pki["server_cert"],
                "--tls-key", cls.pki["server_key"]]
        args += [a.format(tf=cls.token_file, ca=cls.pki["ca"]) for a in cls.extra]
        cls.srv = harness.fake(*args, seed="pods=5")
        cls.url = cls.srv.url
        cls.ctx = ctx_for(cls.pki)

    @classmethod
    def tearDownClass(cls):
        cls.srv.stop()

    def get(self, path, token=None, ctx=None, **kw):
        return req(self.url + path, ctx or self.ctx, token, **kw)


class TestTokenAuth(TLSCase):
    extra = ("--token", "sekrit-token", "--token-file", "{tf}")

    def test_listening_line_is_https(self):
        self.assertTrue(self.url.startswith("https://127.0.0.1:"), self.url)

    def test_no_token_is_401_status(self):
        for path in ("/api/v1/pods", "/api/v1/namespaces/ns-0/pods/x",
                     "/api", "/apis", "/version"):
            code, hdrs, body = self.get(path)
            self.assertEqual(code, 401, path)
            self.assertEqual(json.loads(body), UNAUTHORIZED)
            self.assertEqual(hdrs["Content-Type"], "application/json")

    def test_wrong_token_is_401(self):
        for tok in ("nope", "sekrit-toke", "sekrit-token-x"):
            code, _, body = self.get("/api/v1/pods", token=tok)
            self.assertEqual(code, 401, tok)
            self.assertEqual(json.loads(body)["reason"], "Unauthorized")
        code, _, _ = self.get("/api/v1/pods",
                              headers={"Authorization": "Basic c2Vrcml0"})
        self.assertEqual(code, 401)

    def test_token_lists(self):
        code, _, body = self.get("/api/v1/pods", token="sekrit-token")
        self.assertEqual(code, 200)
        self.assertEqual(len(json.loads(body)["items"]), 5)

    def test_writes_need_the_token(self):
        pod = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "tls-w"},
               "spec": {"containers": [{"name": "c", "image": "busybox"}]}}
        code, _, _ = self.get("/api/v1/namespaces/ns-0/pods", method="POST",
                              body=pod)
        self.assertEqual(code, 401)
        code, _, _ = self.get("/api/v1/namespaces/ns-0/pods", method="POST",
                              body=pod, token="sekrit-token")
        self.assertEqual(code, 201)

    def test_control_and_health_need_no_token(self):
        code, _, body = self.get("/fake/stats")
        self.assertEqual(code, 200)
        self.assertIn("pods", json.loads(body)["resources"])
        self.assertEqual(self.get("/healthz")[0], 200)
        self.assertEqual(self.get("/readyz")[0], 200)
        code, _, _ = self.get("/fake/faults", method="POST", body={})
        self.assertEqual(code, 200)

    def test_token_file_rotation(self):
        self.assertEqual(self.get("/api/v1/pods", token="file-token-1")[0], 200)
        with open(self.token_file, "w") as f:
            f.write("file-token-1\nfile-token-2\n")
        self.assertEqual(self.get("/api/v1/pods", token="file-token-1")[0], 200)
        self.assertEqual(self.get("/api/v1/pods", token="file-token-2")[0], 200)
        with open(self.token_file, "w") as f:
            f.write("file-token-2\n")
        self.assertEqual(self.get("/api/v1/pods", token="file-token-1")[0], 401)
        self.assertEqual(self.get("/api/v1/pods", token="file-token-2")[0], 200)
        # --token keeps working beside the file
        self.assertEqual(self.get("/api/v1/pods", token="sekrit-token")[0], 200)

    def test_plain_http_is_refused(self):
        port = int(self.url.rsplit(":", 1)[1])
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=5)
        with self.assertRaises(Exception):
            conn.request("GET", "/api/v1/pods")
            resp = conn.getresponse()
            if resp.status == 200:
                raise AssertionError("plain HTTP served")
            raise ConnectionError(resp.status)
        conn.close()

    def test_wrong_ca_fails_handshake(self):
        with self.assertRaises(urllib.error.URLError):
            req(self.url + "/api/v1/pods", ctx_for(self.other), "sekrit-token")

    def test_watch_over_tls(self):
        port = int(self.url.rsplit(":", 1)[1])
        conn = http.client.HTTPSConnection("127.0.0.1", port, context=self.ctx,
                                           timeout=20)
        conn.request("GET", "/api/v1/pods?watch=true&timeoutSeconds=2",
                     headers={"Authorization": "Bearer sekrit-token"})
        resp = conn.getresponse()
        self.assertEqual(resp.status, 200)
        t0 = time.time()
        lines = [json.loads(line) for line in resp.read().splitlines() if line]
        self.assertGreaterEqual(time.time() - t0, 1.0)
        self.assertGreaterEqual(len(lines), 5)
        self.assertTrue(all(e["type"] == "ADDED" for e in lines))
        conn.close()


class TestClientCert(TLSCase):
    extra = ("--client-ca", "{ca}", "--token", "tok")

    def test_client_cert_needs_no_token(self):
        ctx = ctx_for(self.pki, (self.pki["client_cert"], self.pki["client_key"]))
        code, _, body = self.get("/api/v1/pods", ctx=ctx)
        self.assertEqual(code, 200)
        self.assertEqual(json.loads(body)["kind"], "PodList")

    def test_no_cert_no_token_is_401(self):
        code, _, body = self.get("/api/v1/pods")
        self.assertEqual(code, 401)
        self.assertEqual(json.loads(body), UNAUTHORIZED)
        self.assertEqual(self.get("/api/v1/pods", token="tok")[0], 200)

    def test_cert_from_another_ca_is_401(self):
        ctx = ctx_for(self.pki, (self.other["client_cert"],
                                 self.other["client_key"]))
        try:
            code, _, _ = self.get("/api/v1/pods", ctx=ctx)
        except urllib.error.URLError:
            return      # refused in the handshake: also not authenticated
        self.assertEqual(code, 401)


class TestFlags(unittest.TestCase):
    def test_bad_tls_flags(self):
        d = tempfile.mkdtemp(prefix="fake-tls-flags-")
        rc, err = harness.fake_exit("--tls-cert", os.path.join(d, "x.crt"))
        self.assertEqual(rc, 2)
        self.assertIn("--tls-key", err)
        rc, err = harness.fake_exit("--client-ca", os.path.join(d, "ca.crt"))
        self.assertEqual(rc, 2)
        self.assertIn("--client-ca", err)
        rc, err = harness.fake_exit("--tls-cert", os.path.join(d, "no.crt"),
                                "--tls-key", os.path.join(d, "no.key"))
        self.assertEqual(rc, 2)
        self.assertIn("no.crt", err)
        empty = os.path.join(d, "empty")
        open(empty, "w").close()
        rc, err = harness.fake_exit("--token-file", empty)
        self.assertEqual(rc, 2)
        self.assertIn("no token", err)

    def test_token_never_echoed(self):
        rc, err = harness.fake_exit("--token", "")
        self.assertEqual(rc, 2)
        rc, err = harness.fake_exit("--token", "hush-hush", "--bogus", "x")
        self.assertEqual(rc, 2)
        self.assertNotIn("hush-hush", err)


if __name__ == "__main__":
    unittest.main()
