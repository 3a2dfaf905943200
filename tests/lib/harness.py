"""harness: start the project's binaries on 127.0.0.1:0 and talk to them.

Each server is started with --listen 127.0.0.1:0; the harness reads the
one line "listening on http://HOST:PORT" from its log to learn the port,
so tests can run side by side. Logs go to a file under the test's temp
directory and are printed when a test fails.

A server on HTTPS with token auth: register(url, ca_file, token) once, and
request/get_json to URLs under url verify with that CA and send the token.
"""
import json
import os
import re
import ssl
import subprocess
import tempfile
import time
import unittest
import urllib.error
import urllib.request

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
BIN = os.path.join(ROOT, "bin")
# Under a sanitizer the allocator holds freed blocks in quarantine and
# its shadow memory grows with every allocation: RSS then measures the
# sanitizer, so memory bounds are asserted in release builds only (leaks
# are the sanitizer's own report at exit).
RSS_MEANINGFUL = os.environ.get("TEST_MODE", "release") == "release"
LISTEN_RE = re.compile(r"listening on (https?://(?:[0-9.]+|\[[0-9a-f:]+\]):[0-9]+)")
# the --metrics-listen port, logged once it is bound
METRICS_RE = re.compile(r"metrics and probes \(no API\) served on (http://(?:[0-9.]+|\[[0-9a-f:]+\]):[0-9]+)")


class Server:
    """A child process that prints 'listening on URL' once ready."""

    def __init__(self, name, args, timeout=30, env=None):
        self.name = name
        self.dir = tempfile.mkdtemp(prefix=name + "-")
        self.log_path = os.path.join(self.dir, "log")
        self.log = open(self.log_path, "w+")
        self.proc = subprocess.Popen(args, stdout=self.log, stderr=subprocess.STDOUT,
                                     env=env, stdin=subprocess.DEVNULL)
        self.url = None
        deadline = time.time() + timeout
        while time.time() < deadline:
            with open(self.log_path) as f:
                m = LISTEN_RE.search(f.read())
            if m:
                self.url = m.group(1)
                return
            if self.proc.poll() is not None:
                break
            time.sleep(0.02)
        out = self.logs()
        self.stop(check=False)
        raise RuntimeError("%s did not start: %s" % (name, out[-3000:]))

    def logs(self):
        with open(self.log_path) as f:
            return f.read()

    def metrics_url(self, timeout=30):
        """The URL of a proxy's --metrics-listen port, from its log."""
        m = poll(lambda: METRICS_RE.search(self.logs()), timeout=timeout)
        if not m:
            raise AssertionError("no metrics listener in the log:\n" + self.logs()[-3000:])
        return m.group(1)

    def stop(self, check=True):
        """SIGTERM, wait, and (by default) insist on a clean exit: code 0
        and no sanitizer report in the log, so leaks and races found at
        shutdown fail the test that started the server."""
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(20)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        if not self.log.closed:
            self.log.close()
        if check:
            out = self.logs()
            bad = [m for m in ("Sanitizer", "runtime error:") if m in out]
            if self.proc.returncode != 0 or bad:
                raise AssertionError("%s exited %s%s:\n%s" % (
                    self.name, self.proc.returncode,
                    " with a sanitizer report" if bad else "", out[-4000:]))
        return self.proc.returncode


def fake(*extra, seed=None, history=None):
    args = [os.path.join(BIN, "fake-apiserver"), "--listen", "127.0.0.1:0"]
    if seed:
        args += ["--seed", seed]
    if history:
        args += ["--history", str(history)]
    return Server("fake-apiserver", args + list(extra))


def fake_exit(*args, timeout=10):
    """Run bin/fake-apiserver with args until it exits, as for a flag it
    must refuse; returns (exit status, stderr)."""
    p = subprocess.run([os.path.join(BIN, "fake-apiserver"), "--listen", "127.0.0.1:0", *args],
                       capture_output=True, text=True, timeout=timeout)
    return p.returncode, p.stderr


def proxy(server_url, resources, *extra):
    args = [os.path.join(BIN, "informer-proxy"), "--listen", "127.0.0.1:0",
            "--server", server_url, "--resources", resources]
    return Server("informer-proxy", args + list(extra))


def fake_and_proxy(test, resources, *extra, seed=None, history=None,
                   fake_args=("--quiet",)):
    """A fake and a proxy in front of it for one test, stopped at its
    cleanup; returns (fake, proxy) once the proxy is ready."""
    f = fake(*fake_args, seed=seed, history=history)
    test.addCleanup(f.stop)
    p = proxy(f.url, resources, *extra)
    test.addCleanup(p.stop)
    wait_ready(p.url)
    return f, p


def proxy_via_spy(upstream, token, tmpdir, resources, *extra):
    """A Spy (tests/lib/spy.py) in front of the fake upstream, recording
    what it receives, and a proxy that reaches the fake through it with the
    bearer token (a kubeconfig in tmpdir); returns (spy, proxy) once the
    proxy is ready. The caller stops both."""
    import certs
    from spy import Spy
    spy = Spy("127.0.0.1", int(upstream.url.rsplit(":", 1)[1]))
    kc = certs.kubeconfig(tmpdir, spy.url, token=token)
    p = proxy(spy.url, resources, "--kubeconfig", kc, *extra)
    wait_ready(p.url)
    return spy, p


class FakeCase(unittest.TestCase):
    """A test class with one fake apiserver for all its tests: cls.srv,
    cls.url. Subclasses set seed and extra (the fake's flags)."""
    seed = None
    extra = ()

    @classmethod
    def setUpClass(cls):
        cls.srv = fake(*cls.extra, seed=cls.seed)
        cls.url = cls.srv.url

    @classmethod
    def tearDownClass(cls):
        rc = cls.srv.stop()
        if rc not in (0, None):
            print(cls.srv.logs()[-3000:])
        assert rc in (0, None), "fake-apiserver exited with %r" % rc


AUTH = {}  # base URL -> (ssl context, bearer token or None); see register


def register(base_url, ca_file, token=None):
    """Opt in: requests to URLs under base_url use ca_file and the token.
    Returns a callable that undoes it (for addCleanup)."""
    base = base_url.rstrip("/")
    AUTH[base] = (ssl.create_default_context(cafile=ca_file), token)
    return lambda: AUTH.pop(base, None)


def _auth(url):
    for base, auth in list(AUTH.items()):
        if url == base or url.startswith((base + "/", base + "?")):
            return auth
    return None, None


def request(method, url, body=None, headers=None, timeout=30):
    """Returns (status, headers, body bytes); never raises on HTTP errors."""
    data = None
    hdrs = dict(headers or {})
    ctx, token = _auth(url)
    if token:
        hdrs.setdefault("Authorization", "Bearer " + token)
    if body is not None:
        data = body if isinstance(body, bytes) else json.dumps(body).encode()
        hdrs.setdefault("Content-Type", "application/json")
    req = urllib.request.Request(url, data=data, method=method, headers=hdrs)
    try:
        with urllib.request.urlopen(req, timeout=timeout, context=ctx) as r:
            return r.status, r.headers, r.read()
    except urllib.error.HTTPError as e:
        return e.code, e.headers, e.read()


def get_json(url, **kw):
    status, _, body = request("GET", url, **kw)
    return status, json.loads(body) if body else None


def rss_bytes(pid):
    """A process's resident set size, in bytes."""
    with open("/proc/%d/status" % pid) as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) * 1024
    return 0


def open_fds(pid):
    """How many descriptors a process has open."""
    return len(os.listdir("/proc/%d/fd" % pid))


def accepted_fds(pid, url):
    """How many of a process's descriptors are connections accepted on
    the port of url (its clients'): unlike open_fds(), not moved by the
    upstream connections it opens or closes meanwhile."""
    port = int(url.rsplit(":", 1)[1].split("/")[0])
    inodes = set()
    for name in ("/proc/%d/net/tcp" % pid, "/proc/%d/net/tcp6" % pid):
        try:
            with open(name) as f:
                next(f)
                for line in f:
                    col = line.split()
                    # an accepted connection: local port is the listener's
                    # and it is not the listening socket (state 0A)
                    if int(col[1].rsplit(":", 1)[1], 16) == port and col[3] != "0A":
                        inodes.add(col[9])
        except FileNotFoundError:
            pass
    n = 0
    for fd in os.listdir("/proc/%d/fd" % pid):
        try:
            target = os.readlink("/proc/%d/fd/%s" % (pid, fd))
        except OSError:
            continue
        if target.startswith("socket:[") and target[8:-1] in inodes:
            n += 1
    return n


def poll(pred, timeout=10, interval=0.05):
    """pred()'s first true value within timeout seconds, else its last
    (false) value: for a test that gathers problems rather than failing at
    the first. A wait for something to happen polls with a deadline; a
    fixed sleep only ever shows that nothing happened for that long."""
    deadline = time.time() + timeout
    while True:
        last = pred()
        if last or time.time() >= deadline:
            return last
        time.sleep(interval)


def wait_until(pred, timeout=10, interval=0.05, what="condition"):
    last = poll(pred, timeout, interval)
    if not last:
        raise AssertionError("timed out waiting for " + what)
    return last


def wait_ready(url, timeout=30):
    wait_until(lambda: request("GET", url + "/readyz", timeout=5)[0] == 200,
               timeout=timeout, what=url + "/readyz")


def served_discovery(url):
    """True once GET /api is answered from the proxy's memory, not passed
    through (its discovery handler's counter moves)."""
    import re

    def count():
        body = request("GET", url + "/metrics")[2].decode()
        m = re.search(r'informer_proxy_requests_total\{handler="discovery"\} (\d+)', body)
        return int(m.group(1)) if m else 0
    before = count()
    request("GET", url + "/api")
    return count() > before


def wait_discovery(url, timeout=30):
    """/readyz does not wait for discovery (an upstream may refuse it and
    still serve the cached resources): tests that compare discovery
    answers, or count upstream requests, wait for it here."""
    wait_until(lambda: served_discovery(url), timeout=timeout,
               what=url + " discovery from memory")


class Watch:
    """A streaming watch read line by line on a background thread. events
    holds the events so far, times when each arrived (seconds since the
    request was sent)."""

    def __init__(self, url, timeout=60):
        import threading
        import http.client
        import urllib.parse
        self.t0 = time.monotonic()
        self.times = []
        u = urllib.parse.urlsplit(url)
        self.conn = http.client.HTTPConnection(u.hostname, u.port, timeout=timeout)
        self.conn.request("GET", u.path + ("?" + u.query if u.query else ""))
        self.resp = self.conn.getresponse()
        self.status = self.resp.status
        self.events = []
        self.closed = False
        self.cond = threading.Condition()
        self.thread = threading.Thread(target=self._read, daemon=True)
        self.thread.start()

    def _read(self):
        try:
            while True:
                line = self.resp.readline()
                if not line:
                    break
                ev = json.loads(line)
                with self.cond:
                    self.events.append(ev)
                    self.times.append(time.monotonic() - self.t0)
                    self.cond.notify_all()
        except Exception as e:  # a closed socket ends the stream
            with self.cond:
                self.error = e
        finally:
            with self.cond:
                self.closed = True
                self.cond.notify_all()

    def wait_closed(self, timeout):
        """Whether the stream ended within timeout seconds."""
        self.thread.join(timeout)
        return self.closed

    def wait_for(self, n, timeout=20):
        deadline = time.time() + timeout
        with self.cond:
            while len(self.events) < n and not self.closed:
                left = deadline - time.time()
                if left <= 0:
                    break
                self.cond.wait(left)
            return list(self.events)

    def close(self):
        try:
            self.conn.sock.shutdown(2)
        except Exception:
            pass
        self.conn.close()
