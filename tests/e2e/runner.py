"""Run the end-to-end test modules, each in a process of its own, several
at a time; print 'N passed, N failed'.

The modules are tests/e2e/test_*.py (the proxy) and
tests/fake-apiserver/tests/test_*.py (the fake apiserver's own tests).
Every server a test starts binds 127.0.0.1:0, so modules run side by
side as Varnish runs its .vtc files: one process per module, its output
printed whole when it ends, never interleaved.

    runner.py                      every module, E2E_JOBS at a time
    runner.py test_x [test_y.C.m]  only these modules, classes or methods,
                                   in this process
    runner.py --modules test_x ... these modules, as the first form runs all
    runner.py --module test_x      one module in this process (what each
                                   child of the forms above runs)

E2E_JOBS (default: twice the CPUs, at least 4) bounds how many modules
run at once; most of a module's time is spent waiting on protocol clocks,
not on a CPU. The modules that take longest start first
(build/e2e-times.json keeps each module's last duration; a clean clone
starts from SLOW_FIRST); the WAITING modules, which sleep through an
outage on purpose, start first beside them. A module that runs past E2E_MODULE_TIMEOUT
seconds (default 900) is killed and counted as one failure.

A skipped test of test_chart or test_image counts as failed (MUST_RUN).
"""
import json
import os
import subprocess
import sys
import time
import unittest

here = os.path.dirname(os.path.abspath(__file__))
tests = os.path.dirname(here)
root = os.path.dirname(tests)
dirs = [here, os.path.join(tests, "fake-apiserver", "tests")]
sys.path.insert(0, os.path.join(tests, "lib"))
for d in reversed(dirs):
    sys.path.insert(0, d)

# The modules whose tools make test installs itself (helm, umoci): a skip
# there would hide a check that is lost, so it counts as a failure.
MUST_RUN = ("test_chart", "test_image")
# Started first when build/e2e-times.json has no figure yet: the modules
# that took longest on two cores.
SLOW_FIRST = ("test_image", "test_tables", "test_yaml", "test_faults",
              "test_coalesced_reads", "test_delegated_rbac", "test_real_cluster",
              "test_watch_fanout", "test_fake_cluster", "test_errors_exact",
              "test_loadgen_smoke", "test_deploy", "test_tree", "test_upgrade",
              "test_limits", "test_fake", "test_upgrade_kubectl", "test_watch_edges",
              "test_chart", "test_hardening", "test_client_python", "test_watchers",
              "test_bench_ceiling", "test_serve_tls", "test_isolation",
              "test_consistency", "test_stacking", "test_bodies")
# Modules that spend their time waiting on a clock they set on purpose
# (an outage of a minute), not on a CPU: each starts at once, beside the
# E2E_JOBS others, so the wait never holds a slot at the end of the run.
WAITING = ("test_log_outage",)
TIMES = os.path.join(root, "build", "e2e-times.json")
# A child's own tally: not of the "N passed, N failed" form, so that
# tests/run.sh, which adds up every such line, counts each test once.
TALLY = "e2e-module-result "


def run_here(names):
    """Run these unittest names in this process; returns (passed, failed)."""
    suite = unittest.defaultTestLoader.loadTestsFromNames(names)
    result = unittest.TextTestRunner(verbosity=2, stream=sys.stdout).run(suite)
    failed = len(result.failures) + len(result.errors)
    for test, why in result.skipped:
        if test.id().split(".")[0].startswith(MUST_RUN):
            print("SKIP COUNTED AS FAILURE: %s: %s" % (test.id(), why))
            failed += 1
    return max(result.testsRun - failed, 0), failed


def modules():
    names = []
    for d in dirs:
        names += sorted(f[:-3] for f in os.listdir(d)
                        if f.startswith("test_") and f.endswith(".py"))
    return names


def load_times():
    try:
        with open(TIMES) as f:
            return json.load(f)
    except (OSError, ValueError):
        return {}


def order(names, times):
    """Longest first: last run's durations, else SLOW_FIRST's order."""
    def key(m):
        if m in times:
            return (0, -times[m])
        if m in SLOW_FIRST:
            return (1, SLOW_FIRST.index(m))
        return (2, m)
    return sorted(names, key=key)


def waiting(running):
    """How many of the running modules are WAITING ones."""
    return sum(m in WAITING for m, _, _ in running.values())


def run_all(logdir, names):
    jobs = int(os.environ.get("E2E_JOBS") or max(4, 2 * (os.cpu_count() or 2)))
    limit = float(os.environ.get("E2E_MODULE_TIMEOUT") or 900)
    times = load_times()
    pending = [m for m in names if m in WAITING] + \
        order([m for m in names if m not in WAITING], times)
    running = {}  # Popen -> (module, start, log file)
    passed = failed = 0
    durations = {}
    started = time.monotonic()
    while pending or running:
        while pending and (len(running) < jobs + waiting(running) or
                           pending[0] in WAITING):
            m = pending.pop(0)
            log = open(os.path.join(logdir, m + ".log"), "w+")
            p = subprocess.Popen([sys.executable, __file__, "--module", m],
                                 stdout=log, stderr=subprocess.STDOUT,
                                 stdin=subprocess.DEVNULL)
            running[p] = (m, time.monotonic(), log)
        time.sleep(0.05)
        for p in [p for p in running if p.poll() is not None or
                  time.monotonic() - running[p][1] > limit]:
            m, t0, log = running.pop(p)
            killed = p.poll() is None
            if killed:
                p.kill()
                p.wait()
            durations[m] = time.monotonic() - t0
            log.seek(0)
            out = log.read()
            log.close()
            mp = mf = None
            for line in out.splitlines():
                if line.startswith(TALLY):
                    mp, mf = (int(x) for x in line[len(TALLY):].split())
            if mp is None:  # died before its tally: one failure
                mp, mf = 0, 1
                out += "\n%s: %s before it reported (exit %s)\n" % (
                    m, "killed after %d s" % limit if killed else "ended",
                    p.returncode)
            passed += mp
            failed += mf
            print("==== %s: %d ok, %d bad in %.1f s" % (m, mp, mf, durations[m]))
            if mf:  # a passing module's log says nothing more
                print(out)
            sys.stdout.flush()
    os.makedirs(os.path.dirname(TIMES), exist_ok=True)
    times.update(durations)
    with open(TIMES, "w") as f:
        json.dump(times, f, indent=1, sort_keys=True)
    slow = sorted(durations.items(), key=lambda kv: -kv[1])[:5]
    print("e2e wall time %.1f s with %d jobs; longest: %s" % (
        time.monotonic() - started, jobs,
        ", ".join("%s %.0f s" % kv for kv in slow)))
    return passed, failed


if __name__ == "__main__":
    args = sys.argv[1:]
    if args[:1] == ["--module"]:
        p, f = run_here(args[1:])
        print(TALLY + "%d %d" % (p, f))
        sys.exit(1 if f else 0)
    if args and args[0] != "--modules":
        p, f = run_here(args)
    else:
        import tempfile
        with tempfile.TemporaryDirectory(prefix="e2e-") as logdir:
            p, f = run_all(logdir, args[1:] or modules())
    print("e2e: %d passed, %d failed" % (p, f))
    sys.exit(1 if f else 0)
