"""clients: drive the real Kubernetes clients (kubectl, python3-kubernetes,
@kubernetes/client-node) from the e2e tests, and write to the fake
apiserver directly.

scripts/deps-clients.sh installs the clients; a test that finds one
missing fails (it is never skipped), naming the script to run.
"""
import datetime
import json
import os
import queue
import shutil
import subprocess
import tempfile
import threading
import time
import urllib.parse  # noqa: F401 (used by the tests as c.urllib.parse)

import harness as h

HERE = os.path.dirname(os.path.abspath(__file__))
NODE_DIR = os.path.join(HERE, "node")
MISSING = "%s is missing: run scripts/deps-clients.sh (make test does)"


# ---------------------------------------------------------------- kubectl

class Kubectl:
    """kubectl pinned to one server: an empty kubeconfig (the machine's own
    is never read), a fresh discovery cache, no proxy variables."""

    def __init__(self, server):
        # KUBECTL=path picks another kubectl (e.g. Debian 12's 1.20 to check CI's).
        self.bin = os.environ.get("KUBECTL") or shutil.which("kubectl")
        if not self.bin:
            raise AssertionError(MISSING % "kubectl")
        self.server = server
        self.dir = tempfile.mkdtemp(prefix="kubectl-")
        self.kubeconfig = os.path.join(self.dir, "kubeconfig")
        with open(self.kubeconfig, "w") as f:
            f.write("apiVersion: v1\nkind: Config\nclusters: []\ncontexts: []\nusers: []\n")
        self.cache = os.path.join(self.dir, "cache")
        os.mkdir(self.cache)
        self.env = {k: v for k, v in os.environ.items()
                    if k not in ("KUBECONFIG", "http_proxy", "https_proxy", "HTTP_PROXY",
                                 "HTTPS_PROXY", "all_proxy", "ALL_PROXY")}
        self.env["HOME"] = self.dir
        self.env["NO_PROXY"] = self.env["no_proxy"] = "127.0.0.1,localhost"

    _minor = {}

    @property
    def minor(self):
        """kubectl's minor version: 1.20 (Debian 12) prints managedFields in
        -o json and has no --show-managed-fields; later ones hide them."""
        if self.bin not in Kubectl._minor:
            p = subprocess.run([self.bin, "version", "--client", "-o", "json"], text=True,
                               capture_output=True, env=self.env, timeout=30)
            v = json.loads(p.stdout)["clientVersion"]
            Kubectl._minor[self.bin] = int("".join(ch for ch in v["minor"] if ch.isdigit()))
        return Kubectl._minor[self.bin]

    def argv(self, args):
        return [self.bin, "--kubeconfig", self.kubeconfig, "--cache-dir", self.cache,
                "--server", self.server, "--request-timeout", "20s"] + list(args)

    def run(self, *args, timeout=30, check=True):
        p = subprocess.run(self.argv(args), stdin=subprocess.DEVNULL, capture_output=True,
                           text=True, timeout=timeout, env=self.env)
        if check and p.returncode != 0:
            raise AssertionError("kubectl %s (server %s) exited %d:\n%s%s" % (
                " ".join(args), self.server, p.returncode, p.stdout[-2000:], p.stderr[-3000:]))
        return p

    def out(self, *args, **kw):
        return self.run(*args, **kw).stdout

    def json(self, *args, **kw):
        """-o json, with metadata.managedFields as the server sent them."""
        extra = ["-o", "json"] + (["--show-managed-fields"] if self.minor >= 21 else [])
        return json.loads(self.out(*(list(args) + extra), **kw))

    def watch(self, *args):
        return Stream(self.argv(args), env=self.env, what="kubectl " + " ".join(args))


class Stream:
    """A child process whose stdout lines are read on a thread; kill() ends it."""

    def __init__(self, argv, env=None, what=None, stdin=subprocess.DEVNULL, cwd=None):
        self.what = what or " ".join(argv)
        self.proc = subprocess.Popen(argv, stdin=stdin, stdout=subprocess.PIPE,
                                     stderr=subprocess.PIPE, text=True, env=env, cwd=cwd,
                                     bufsize=1)
        self.lines = []
        self.q = queue.Queue()
        self.err = []
        threading.Thread(target=self._pump, args=(self.proc.stdout, self.lines, self.q),
                         daemon=True).start()
        threading.Thread(target=self._pump, args=(self.proc.stderr, self.err, None),
                         daemon=True).start()

    @staticmethod
    def _pump(f, into, q):
        for line in f:
            into.append(line.rstrip("\n"))
            if q is not None:
                q.put(line.rstrip("\n"))
        if q is not None:
            q.put(None)

    def expect(self, pred, timeout=15, what="a line"):
        """Consume lines until pred(line) is true; return that line."""
        deadline = time.time() + timeout
        while True:
            left = deadline - time.time()
            if left <= 0:
                break
            try:
                line = self.q.get(timeout=left)
            except queue.Empty:
                break
            if line is None:
                raise AssertionError("%s exited (%s) before %s; stdout:\n%s\nstderr:\n%s" % (
                    self.what, self.proc.poll(), what, "\n".join(self.lines[-40:]),
                    "\n".join(self.err[-40:])))
            if pred(line):
                return line
        raise AssertionError("%s: no %s within %ss; stdout:\n%s\nstderr:\n%s" % (
            self.what, what, timeout, "\n".join(self.lines[-40:]), "\n".join(self.err[-40:])))

    def drain(self, quiet=0.3):
        """The lines that arrive until none has for `quiet` seconds."""
        got = []
        while True:
            try:
                line = self.q.get(timeout=quiet)
            except queue.Empty:
                return got
            if line is None:
                return got
            got.append(line)

    def kill(self):
        if self.proc.poll() is None:
            self.proc.kill()
        self.proc.wait(10)


def table(text):
    """kubectl's default output as (header, rows); columns are split on runs
    of two or more spaces, which never occur inside the cells we create."""
    import re
    lines = [l for l in text.splitlines() if l.strip()]
    if not lines:
        return [], []
    split = lambda l: re.split(r"\s{2,}", l.strip())
    return split(lines[0]), [split(l) for l in lines[1:]]


# ------------------------------------------------- kubectl's pod columns

def human_duration(seconds):
    """k8s.io/apimachinery/pkg/util/duration.HumanDuration."""
    s = int(seconds)
    if s < -1:
        return "<invalid>"
    if s < 0:
        return "0s"
    if s < 120:
        return "%ds" % s
    minutes = s // 60
    if minutes < 10:
        return "%dm" % minutes if s % 60 == 0 else "%dm%ds" % (minutes, s % 60)
    if minutes < 180:
        return "%dm" % minutes
    hours = s // 3600
    if hours < 8:
        return "%dh" % hours if minutes % 60 == 0 else "%dh%dm" % (hours, minutes % 60)
    if hours < 48:
        return "%dh" % hours
    if hours < 24 * 8:
        return "%dd" % (hours // 24) if hours % 24 == 0 else "%dd%dh" % (hours // 24, hours % 24)
    if hours < 24 * 365 * 2:
        return "%dd" % (hours // 24)
    if hours < 24 * 365 * 8:
        dy = (hours // 24) % 365
        return "%dy" % (hours // 24 // 365) if dy == 0 else "%dy%dd" % (hours // 24 // 365, dy)
    return "%dy" % (hours // 24 // 365)


def parse_time(ts):
    return datetime.datetime.strptime(ts, "%Y-%m-%dT%H:%M:%SZ").replace(
        tzinfo=datetime.timezone.utc).timestamp()


def ages(obj, t0, t1):
    """Every AGE kubectl may print for obj between times t0 and t1."""
    c = parse_time(obj["metadata"]["creationTimestamp"])
    return {human_duration(t - c) for t in range(int(t0) - 1, int(t1) + 2)}


def pod_row(pod):
    """(NAME, READY, STATUS, RESTARTS) as the apiserver's pod printer
    (pkg/printers/internalversion printPod) computes them, for pods without
    init containers, sidecars or a last termination state."""
    st = pod.get("status", {})
    reason = st.get("reason") or st.get("phase", "")
    total = len(pod["spec"]["containers"])
    ready = restarts = 0
    has_running = False
    for c in reversed(st.get("containerStatuses", [])):
        restarts += c.get("restartCount", 0)
        state = c.get("state", {})
        if state.get("waiting", {}).get("reason"):
            reason = state["waiting"]["reason"]
        elif "terminated" in state and state["terminated"].get("reason"):
            reason = state["terminated"]["reason"]
        elif "terminated" in state:
            t = state["terminated"]
            reason = ("Signal:%d" % t["signal"]) if t.get("signal") else \
                "ExitCode:%d" % t.get("exitCode", 0)
        elif c.get("ready") and "running" in state:
            has_running = True
            ready += 1
    if reason == "Completed" and has_running:
        ready_cond = any(x.get("type") == "Ready" and x.get("status") == "True"
                         for x in st.get("conditions", []))
        reason = "Running" if ready_cond else "NotReady"
    if pod["metadata"].get("deletionTimestamp"):
        reason = "Unknown" if st.get("reason") == "NodeLost" else "Terminating"
    return [pod["metadata"]["name"], "%d/%d" % (ready, total), reason, str(restarts)]


# A handful of pods whose columns differ, created in the fake before a test.
def crafted_pods():
    def pod(name, containers, status):
        return {"apiVersion": "v1", "kind": "Pod",
                "metadata": {"name": name, "labels": {"app": "kc", "case": name}},
                "spec": {"containers": [{"name": c, "image": "registry.k8s.io/pause:3.9"}
                                        for c in containers]},
                "status": status}
    img = {"image": "registry.k8s.io/pause:3.9",
           "imageID": "registry.k8s.io/pause@sha256:7031c1b283388d2c2e09b57badb803c05ebed362dc88d84b480cc47f72a21097"}
    run = lambda n, r=0: dict(img, name=n, ready=True, restartCount=r,
                              state={"running": {"startedAt": "2026-01-01T00:00:00Z"}})
    return [
        pod("running", ["app"], {"phase": "Running", "containerStatuses": [run("app", 0)],
                                 "conditions": [{"type": "Ready", "status": "True"}]}),
        pod("crashloop", ["app", "side"], {
            "phase": "Running",
            "containerStatuses": [run("app", 1), dict(img, **{
                "name": "side", "ready": False, "restartCount": 6,
                "state": {"waiting": {"reason": "CrashLoopBackOff",
                                      "message": "back-off 5m0s restarting failed container"}}})]}),
        pod("pending", ["app"], {"phase": "Pending"}),
        pod("completed", ["job"], {"phase": "Succeeded", "containerStatuses": [dict(img, **{
            "name": "job", "ready": False, "restartCount": 0,
            "state": {"terminated": {"exitCode": 0, "reason": "Completed",
                                     "startedAt": "2026-01-01T00:00:00Z",
                                     "finishedAt": "2026-01-01T00:00:05Z"}}})]}),
        pod("three", ["a", "b", "c"], {"phase": "Running", "containerStatuses": [
            run("a", 2), run("b", 0),
            dict(img, name="c", ready=False, restartCount=0,
                 state={"running": {"startedAt": "2026-01-01T00:00:00Z"}})]}),
    ]


# ---------------------------------------------------- writes to the fake

def path(resource, ns=None, name=None, group=None):
    base = "/api/v1" if not group else "/apis/" + group
    p = base + ("/namespaces/%s" % ns if ns else "") + "/" + resource
    return p + ("/" + name if name else "")


def namespace(url, name):
    """Create namespace `name` in the fake unless it exists."""
    s, _, b = h.request("POST", url + "/api/v1/namespaces",
                        {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": name}})
    if s not in (200, 201, 409):
        raise AssertionError("create namespace %s: %s %s" % (name, s, b[:300]))


def create(url, resource, ns, obj, group=None):
    s, _, b = h.request("POST", url + path(resource, ns, group=group), obj)
    if s != 201 and s != 200:
        raise AssertionError("create %s/%s: %s %s" % (ns, obj["metadata"]["name"], s, b[:300]))
    return json.loads(b)


def patch(url, resource, ns, name, merge, group=None):
    s, _, b = h.request("PATCH", url + path(resource, ns, name, group), json.dumps(merge).encode(),
                        headers={"Content-Type": "application/merge-patch+json"})
    if s != 200:
        raise AssertionError("patch %s/%s: %s %s" % (ns, name, s, b[:300]))
    return json.loads(b)


def delete(url, resource, ns, name, group=None):
    s, _, b = h.request("DELETE", url + path(resource, ns, name, group))
    if s not in (200, 202):
        raise AssertionError("delete %s/%s: %s %s" % (ns, name, s, b[:300]))
    return json.loads(b) if b else None


def get(url, resource, ns=None, name=None, group=None, query=""):
    s, o = h.get_json(url + path(resource, ns, name, group) + query)
    return s, o


def simple_pod(name, labels=None):
    return {"apiVersion": "v1", "kind": "Pod",
            "metadata": {"name": name, "labels": labels or {"app": "e2e"}},
            "spec": {"containers": [{"name": "app", "image": "registry.k8s.io/pause:3.9"}]},
            "status": {"phase": "Pending"}}


def items_key(items):
    return sorted((o["metadata"].get("namespace", ""), o["metadata"]["name"],
                   o["metadata"]["resourceVersion"]) for o in items)


def stats(fake_url):
    s, st = h.get_json(fake_url + "/fake/stats")
    assert s == 200, s
    return st["resources"]


# ------------------------------------------------------ python3-kubernetes

def python_core_api(server):
    """kubernetes.client.CoreV1Api for `server`, configured by hand (no
    kubeconfig, no proxy from the environment)."""
    try:
        import kubernetes
    except ImportError:
        raise AssertionError(MISSING % "python3-kubernetes (import kubernetes)")
    cfg = kubernetes.client.Configuration()
    cfg.host = server
    cfg.proxy = None
    cfg.retries = False
    return kubernetes.client.CoreV1Api(kubernetes.client.ApiClient(cfg))


def python_watch_rounds(api, ns, rv, want, timeout_seconds=2, deadline=30, stop=None):
    """Run watch.Watch().stream(list_namespaced_pod, ns, resource_version=rv,
    timeout_seconds=...) again and again, each time from the last
    resourceVersion the previous stream saw, until `want(events)` is true.
    Returns (events, rounds); an event is (type, name, resourceVersion) and
    a round is (seconds the stream lasted, events in it)."""
    from kubernetes import watch
    events, rounds = [], []
    end = time.time() + deadline
    while time.time() < end and not (stop and stop.is_set()):
        w = watch.Watch()
        t = time.time()
        n = 0
        for ev in w.stream(api.list_namespaced_pod, ns, resource_version=rv,
                           timeout_seconds=timeout_seconds):
            m = ev["raw_object"]["metadata"]
            events.append((ev["type"], m.get("name"), m["resourceVersion"]))
            n += 1
        rounds.append((time.time() - t, n))
        rv = w.resource_version
        if want(events):
            break
    return events, rounds


# ----------------------------------------------- @kubernetes/client-node

def node_informer(server, ns, resource="pods"):
    node = shutil.which("node") or shutil.which("nodejs")
    if not node:
        raise AssertionError(MISSING % "node")
    if not os.path.exists(os.path.join(NODE_DIR, "node_modules", "@kubernetes", "client-node")):
        raise AssertionError(MISSING % "@kubernetes/client-node (tests/clients/node/node_modules)")
    return NodeInformer([node, os.path.join(NODE_DIR, "informer.mjs"), server, ns, resource])


class NodeInformer(Stream):
    """tests/clients/node/informer.mjs: JSON lines in, 'dump' out."""

    def __init__(self, argv):
        super().__init__(argv, stdin=subprocess.PIPE, cwd=NODE_DIR, what="node informer.mjs")
        self.events = []

    def next_event(self, pred, timeout=15, what="event"):
        line = self.expect(lambda l: pred(self._record(l)), timeout=timeout, what=what)
        return json.loads(line)

    def _record(self, line):
        try:
            ev = json.loads(line)
        except ValueError:
            return {}
        self.events.append(ev)
        return ev

    def dump(self, timeout=10):
        self.proc.stdin.write("dump\n")
        self.proc.stdin.flush()
        return self.next_event(lambda e: e.get("ev") == "cache", timeout, "cache dump")

    def close(self):
        try:
            self.proc.stdin.close()
            self.proc.wait(5)
        except Exception:
            pass
        self.kill()
