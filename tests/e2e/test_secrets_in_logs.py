"""No token or key material in any log, the proxy's or the fake's.

The proxy runs at --v 10 against the fake over HTTPS with a bearer token
(literal, then from a tokenFile with an inline client certificate and
key), goes through lists, gets, watches, a passthrough write, faults that
make it retry and relist, and a rejected token; then neither its log nor
the fake's may contain the token or any line of the private key."""
import base64
import json
import os
import secrets
import shutil
import ssl
import subprocess
import sys
import tempfile
import time
import unittest
import urllib.error
import urllib.request

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "lib"))
import harness as h  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)


def _help(binary):
    r = subprocess.run([os.path.join(h.BIN, binary), "--help"], capture_output=True,
                       text=True, timeout=10)
    return r.stdout + r.stderr


class Secrets(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        fh = _help("fake-apiserver")
        if "--token" not in fh or "--tls-cert" not in fh or "not supported yet" in fh:
            raise unittest.SkipTest("bin/fake-apiserver has no --token/--tls-cert yet")
        if shutil.which("openssl") is None:
            raise unittest.SkipTest("no openssl CLI to make the test PKI")
        from certs import kubeconfig, make_pki
        cls.kubeconfig = staticmethod(kubeconfig)
        cls.dir = tempfile.mkdtemp(prefix="secrets-")
        cls.pki = make_pki(os.path.join(cls.dir, "pki"))
        cls.token = "itest-tok-" + secrets.token_hex(24)
        cls.token2 = "itest-tok2-" + secrets.token_hex(24)
        cls.wrong = "itest-wrong-" + secrets.token_hex(24)
        cls.token_file = os.path.join(cls.dir, "tokens")
        with open(cls.token_file, "w") as f:
            f.write(cls.token + "\n" + cls.token2 + "\n")
        cls.ctx = ssl.create_default_context(cafile=cls.pki["ca"])

    def secrets_material(self):
        out = {"token": self.token, "token2": self.token2, "wrong token": self.wrong}
        for k in ("client_key", "server_key", "ca_key"):
            with open(self.pki[k], "rb") as f:
                raw = f.read()
            out[k + " (base64 of the file, as in client-key-data)"] = base64.b64encode(raw).decode()[:40]
            for i, line in enumerate(raw.decode().splitlines()):
                if len(line) >= 16 and not line.startswith("-----"):
                    out["%s line %d" % (k, i)] = line
        return out

    def fake_req(self, fake, method, path, body=None, headers=None):
        hdrs = {"Authorization": "Bearer " + self.token}
        hdrs.update(headers or {})
        data = None
        if body is not None:
            data = body if isinstance(body, bytes) else json.dumps(body).encode()
            hdrs.setdefault("Content-Type", "application/json")
        req = urllib.request.Request(fake.url + path, data=data, method=method, headers=hdrs)
        try:
            with urllib.request.urlopen(req, timeout=10, context=self.ctx) as r:
                return r.status, r.read()
        except urllib.error.HTTPError as e:
            return e.code, e.read()

    def start_fake(self):
        fake = h.fake("--tls-cert", self.pki["server_cert"], "--tls-key", self.pki["server_key"],
                      "--token-file", self.token_file, "--client-ca", self.pki["ca"],
                      "--bookmark-interval", "1", "-v", "10", seed="pods=30")
        self.addCleanup(fake.stop, check=False)
        return fake

    def start_proxy(self, fake, kc):
        proxy = h.proxy(fake.url, "pods", "--kubeconfig", kc, "--v", "10",
                        "--bookmark-interval", "1", "--watch-timeout", "5")
        self.addCleanup(proxy.stop, check=False)
        return proxy

    def exercise(self, fake, proxy):
        h.wait_ready(proxy.url, timeout=30)
        self.assertEqual(h.request("GET", proxy.url + "/api/v1/pods")[0], 200)
        self.assertEqual(h.request("GET", proxy.url + "/api/v1/namespaces/ns-1/pods/web-1")[0], 200)
        self.assertIn(h.request("GET", proxy.url + "/api")[0], (200, 503))
        w = h.Watch(proxy.url + "/api/v1/pods?watch=true&resourceVersion=0&allowWatchBookmarks=true")
        self.addCleanup(w.close)
        # a write passed through the proxy carries the credentials upstream
        st, _, _ = h.request("POST", proxy.url + "/api/v1/namespaces/ns-1/pods", body={
            "apiVersion": "v1", "kind": "Pod", "metadata": {"name": "via-proxy"},
            "spec": {"containers": [{"name": "c", "image": "x"}]}})
        self.assertIn(st, (200, 201))
        for body in ({"dropWatches": True},
                     {"failNext": {"count": 3, "code": 500}, "dropWatches": True},
                     {"failNext": {"count": 2, "code": 401}, "dropWatches": True},
                     {"compact": True, "dropWatches": True},
                     {"malformedNext": 1}):
            st, _ = self.fake_req(fake, "POST", "/fake/faults", body)
            self.assertEqual(st, 200)
            for i in range(3):
                self.fake_req(fake, "PATCH", "/api/v1/namespaces/ns-2/pods/web-2",
                              json.dumps({"metadata": {"labels": {"i": str(i)}}}).encode(),
                              {"Content-Type": "application/merge-patch+json"})
            time.sleep(0.7)
        self.fake_req(fake, "POST", "/fake/faults", {})
        h.wait_ready(proxy.url, timeout=15)

    def test_literal_token_with_ca_data(self):
        fake = self.start_fake()
        kc = self.kubeconfig(self.dir, fake.url, self.pki, token=self.token, inline=True,
                             name="kc-token")
        proxy = self.start_proxy(fake, kc)
        self.exercise(fake, proxy)
        self.finish(fake, proxy)

    def finish(self, fake, proxy):
        proxy.stop(check=False)
        fake.stop(check=False)
        self.assertNoSecrets([("proxy", proxy.logs()), ("fake-apiserver", fake.logs())])

    def test_token_file_with_client_key_data(self):
        fake = self.start_fake()
        tf = os.path.join(self.dir, "sa-token")
        with open(tf, "w") as f:
            f.write(self.token2)
        kc = self.kubeconfig(self.dir, fake.url, self.pki, token_file=tf, client_cert=True,
                             inline=True, name="kc-file")
        proxy = self.start_proxy(fake, kc)
        self.exercise(fake, proxy)
        self.finish(fake, proxy)

    def test_rejected_token(self):
        fake = self.start_fake()
        kc = self.kubeconfig(self.dir, fake.url, self.pki, token=self.wrong, name="kc-wrong")
        args = [os.path.join(h.BIN, "informer-proxy"), "--listen", "127.0.0.1:0",
                "--kubeconfig", kc, "--resources", "pods", "--v", "10"]
        d = tempfile.mkdtemp(prefix="proxy-wrong-")
        with open(os.path.join(d, "log"), "w+") as logf:
            p = subprocess.Popen(args, stdout=logf, stderr=subprocess.STDOUT,
                                 stdin=subprocess.DEVNULL)
            try:
                p.wait(4)
            except subprocess.TimeoutExpired:
                p.terminate()
                p.wait(10)
            logf.seek(0)
            plog = logf.read()
        fake.stop(check=False)
        self.assertNoSecrets([("proxy with a rejected token", plog),
                              ("fake-apiserver", fake.logs())])

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(getattr(cls, "dir", "/nonexistent"), ignore_errors=True)

    def assertNoSecrets(self, named_logs):
        found = []
        mats = self.secrets_material()
        for who, text in named_logs:
            for what, sec in mats.items():
                if sec and sec in text:
                    line = next(l for l in text.splitlines() if sec in l)
                    found.append("%s log contains the %s: %s" % (
                        who, what, line.replace(sec, "<SECRET>")[:300]))
        self.assertFalse(found, "secret material in logs:\n" + "\n".join(found))
        self.assertTrue(all(text for _, text in named_logs), "a log is empty")


if __name__ == "__main__":
    unittest.main()
