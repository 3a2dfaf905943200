"""consistency: is what a watcher received a true history?

A watcher starts from an initial state (the items and resourceVersion of
a LIST, or the initial ADDED events of a sendInitialEvents watch ending in
the BOOKMARK annotated k8s.io/initial-events-end) and then receives watch
events. The stream is a TRUE HISTORY when:

  - every non-bookmark event's resourceVersion is greater than the
    initial RV and than every RV before it (events and bookmarks): no
    duplicate, nothing going backwards, nothing older than a bookmark
    that promised "you have everything up to here";
  - BOOKMARK RVs never go backwards and are >= the last event's RV;
  - ADDED names an absent key, MODIFIED and DELETED a present one;
  - replaying initial state + events gives the reference state (the
    upstream's, e.g. the fake apiserver's LIST with
    resourceVersion=N&resourceVersionMatch=Exact) at every bookmark RV
    where a reference is available, and the final reference at the end.

The only other acceptable shape is "expired": a prefix that is a true
history, then one ERROR event with code 410, then the close. Whether that
is allowed is the caller's call (allow_expired).

Usage, all at once:

    res = check_stream(items, list_rv, events, reference=ref, final=final,
                       closed=True, allow_expired=False)
    assert res.ok, res.describe()

or incrementally (the load generator): c = StreamChecker(items, rv, ...);
c.feed(ev) for each event; res = c.finish(final=..., closed=...).

States are compared as {key: resourceVersion} where key is
"namespace/name" (or "name"). A reference is a callable rv -> such a
mapping, or None when the state at rv is unknown (too old: 410); see
FakeReference for the fake apiserver's.
"""
import json
import urllib.parse

import harness

INITIAL_EVENTS_END = "k8s.io/initial-events-end"
MAX_LISTED = 25          # violations kept in describe() output
MAX_DIFF = 6             # keys listed per state difference


def obj_key(obj):
    md = obj.get("metadata") or {}
    ns = md.get("namespace")
    return ("%s/%s" % (ns, md.get("name"))) if ns else str(md.get("name"))


def obj_rv(obj):
    """The object's metadata.resourceVersion as an int, or None."""
    try:
        return int((obj.get("metadata") or {}).get("resourceVersion"))
    except (TypeError, ValueError):
        return None


def state_of(items):
    """{key: rv} from a list of objects, a LIST body, or a mapping."""
    if items is None:
        return None
    if isinstance(items, dict) and "items" in items:
        items = items["items"] or []
    if isinstance(items, dict):
        return {k: int(v) for k, v in items.items()}
    return {obj_key(o): obj_rv(o) for o in items}


def diff_states(got, want, limit=MAX_DIFF):
    """A readable description of how got differs from want, or ''."""
    missing = sorted(k for k in want if k not in got)
    extra = sorted(k for k in got if k not in want)
    changed = sorted(k for k in want if k in got and got[k] != want[k])
    parts = []
    if missing:
        parts.append("%d missing (%s)" % (len(missing), ", ".join(
            "%s@%s" % (k, want[k]) for k in missing[:limit]) + (
            ", ..." if len(missing) > limit else "")))
    if extra:
        parts.append("%d extra (%s)" % (len(extra), ", ".join(
            "%s@%s" % (k, got[k]) for k in extra[:limit]) + (
            ", ..." if len(extra) > limit else "")))
    if changed:
        parts.append("%d at another resourceVersion (%s)" % (len(changed), ", ".join(
            "%s got %s want %s" % (k, got[k], want[k]) for k in changed[:limit]) + (
            ", ..." if len(changed) > limit else "")))
    return "; ".join(parts)


class Result:
    """ok: a true history (or an allowed expiry); expired: it ended with
    the 410 ERROR path; violations: readable descriptions, in order."""

    def __init__(self):
        self.violations = []
        self.expired = False
        self.expired_message = None
        self.events = 0               # non-bookmark events checked
        self.bookmarks = 0
        self.bookmarks_checked = 0    # compared with a reference state
        self.bookmarks_unknown = 0    # no reference (too old)
        self.final_checked = False
        self.last_rv = None           # highest RV seen (events or bookmarks)

    @property
    def ok(self):
        return not self.violations

    def __bool__(self):
        return self.ok

    def summary(self):
        return ("%s: %d events, %d bookmarks (%d checked against the reference, "
                "%d without a reference: too old or unknown), final state %s, last rv %s" % (
                    "ok" if self.ok else "NOT a true history",
                    self.events, self.bookmarks, self.bookmarks_checked,
                    self.bookmarks_unknown,
                    "checked" if self.final_checked else "not checked",
                    self.last_rv)) + (
            "; expired (410): %s" % self.expired_message if self.expired else "")

    def describe(self):
        lines = [self.summary()]
        for v in self.violations[:MAX_LISTED]:
            lines.append("  - " + v)
        if len(self.violations) > MAX_LISTED:
            lines.append("  ... and %d more" % (len(self.violations) - MAX_LISTED))
        return "\n".join(lines)

    def as_dict(self):
        return {"ok": self.ok, "expired": self.expired, "violations": list(self.violations),
                "events": self.events, "bookmarks": self.bookmarks,
                "bookmarksChecked": self.bookmarks_checked,
                "finalChecked": self.final_checked, "lastRV": self.last_rv}

    def __repr__(self):
        return "<Result %s>" % self.summary()


class StreamChecker:
    """Feed events one at a time; finish() gives the Result.

    initial_items/initial_rv: the LIST the watch started from. With
    initial_events=True they are ignored (pass None) and the stream must
    begin with ADDED events closed by the initial-events-end BOOKMARK,
    whose RV is the starting RV.
    reference: callable rv -> {key: rv} or None (unknown at that rv).
    allow_expired: whether the 410 path is acceptable for this stream.
    """

    def __init__(self, initial_items=None, initial_rv=None, reference=None,
                 allow_expired=False, initial_events=False, name="watcher"):
        self.res = Result()
        self.name = name
        self.reference = reference
        self.allow_expired = allow_expired
        self.in_initial = initial_events
        self.state = {} if initial_events else (state_of(initial_items) or {})
        self.start_rv = None if initial_events else int(initial_rv)
        self.res.last_rv = self.start_rv
        self.last_event_rv = self.start_rv
        self.last_bookmark_rv = None
        self.seen = set()             # (type, key, rv) of events
        self.n = 0                    # position in the stream
        self.ended = False            # after the ERROR event

    def _v(self, msg):
        self.res.violations.append("%s event #%d: %s" % (self.name, self.n, msg))

    def feed(self, ev):
        self.n += 1
        typ = ev.get("type") if isinstance(ev, dict) else None
        obj = ev.get("object") if isinstance(ev, dict) else None
        if self.ended:
            self._v("%s after the ERROR event (the stream must close after it)" % typ)
            return
        if not isinstance(obj, dict):
            self._v("event without an object: %.200s" % json.dumps(ev))
            return
        if typ == "ERROR":
            self._error(obj)
            return
        rv = obj_rv(obj)
        if rv is None:
            self._v("%s without an integer metadata.resourceVersion: %.200s" % (
                typ, json.dumps(obj.get("metadata"))))
            return
        if self.in_initial:
            self._initial(typ, obj, rv)
            return
        if typ == "BOOKMARK":
            self._bookmark(obj, rv)
            return
        if typ not in ("ADDED", "MODIFIED", "DELETED"):
            self._v("unknown event type %r" % typ)
            return
        self.res.events += 1
        key = obj_key(obj)
        sig = (typ, key, rv)
        if sig in self.seen:
            self._v("duplicate event %s %s at rv %d" % (typ, key, rv))
        self.seen.add(sig)
        if rv <= self.start_rv:
            self._v("%s %s at rv %d is not newer than the starting rv %d "
                    "(already in the initial state)" % (typ, key, rv, self.start_rv))
        elif self.last_bookmark_rv is not None and rv <= self.last_bookmark_rv:
            self._v("%s %s at rv %d after a BOOKMARK at rv %d (a bookmark promises "
                    "every event up to its rv was sent)" % (typ, key, rv, self.last_bookmark_rv))
        elif rv <= self.last_event_rv:
            self._v("%s %s at rv %d: resourceVersion not increasing (previous event "
                    "at rv %d)" % (typ, key, rv, self.last_event_rv))
        self.last_event_rv = max(self.last_event_rv, rv)
        self.res.last_rv = max(self.res.last_rv, rv)
        present = key in self.state
        if typ == "ADDED" and present:
            self._v("ADDED %s at rv %d but the key is already present (at rv %d)"
                    % (key, rv, self.state[key]))
        elif typ in ("MODIFIED", "DELETED") and not present:
            self._v("%s %s at rv %d but the key is absent" % (typ, key, rv))
        if typ == "DELETED":
            self.state.pop(key, None)
        else:
            self.state[key] = rv

    def _initial(self, typ, obj, rv):
        if typ == "ADDED":
            key = obj_key(obj)
            if key in self.state:
                self._v("initial ADDED %s twice" % key)
            self.state[key] = rv
            return
        ann = ((obj.get("metadata") or {}).get("annotations") or {})
        if typ == "BOOKMARK" and ann.get(INITIAL_EVENTS_END) == "true":
            self.in_initial = False
            self.start_rv = rv
            self.last_event_rv = rv
            self.last_bookmark_rv = rv
            self.res.last_rv = rv
            self.res.bookmarks += 1
            self._compare_at(rv, "the initial-events-end BOOKMARK")
            return
        self._v("%s at rv %d before the initial-events-end BOOKMARK (only ADDED "
                "may come first)" % (typ, rv))

    def _bookmark(self, obj, rv):
        self.res.bookmarks += 1
        if self.last_bookmark_rv is not None and rv < self.last_bookmark_rv:
            self._v("BOOKMARK at rv %d goes back from the previous BOOKMARK at rv %d"
                    % (rv, self.last_bookmark_rv))
        if rv < self.last_event_rv:
            self._v("BOOKMARK at rv %d is older than the last event (rv %d)"
                    % (rv, self.last_event_rv))
        self.last_bookmark_rv = max(rv, self.last_bookmark_rv or 0)
        self.res.last_rv = max(self.res.last_rv, rv)
        self._compare_at(rv, "BOOKMARK")

    def _compare_at(self, rv, what):
        if not self.reference:
            return
        want = self.reference(rv)
        if want is None:
            self.res.bookmarks_unknown += 1
            return
        self.res.bookmarks_checked += 1
        d = diff_states(self.state, want)
        if d:
            self._v("state replayed up to %s at rv %d differs from the reference "
                    "at that rv: %s" % (what, rv, d))

    def _error(self, obj):
        code = obj.get("code")
        msg = obj.get("message")
        self.ended = True
        if code == 410:
            self.res.expired = True
            self.res.expired_message = msg
            if not self.allow_expired:
                self._v("410 ERROR event (%s): the expired path is not allowed here; "
                        "the stream should have stayed a true history" % msg)
        else:
            self._v("ERROR event with code %r (%s): only 410 is an acceptable end"
                    % (code, msg))

    def finish(self, final=None, closed=None):
        """final: the reference state at the end ({key: rv}, items, or a
        LIST body), compared unless the stream expired. closed: whether
        the stream was seen to close (required after a 410)."""
        if self.in_initial:
            self._v("the stream ended before the initial-events-end BOOKMARK")
        if self.res.expired:
            if closed is False:
                self._v("the stream stayed open after the 410 ERROR event")
            return self.res
        final = state_of(final)
        if final is not None and not self.in_initial:
            self.res.final_checked = True
            d = diff_states(self.state, final)
            if d:
                self.res.violations.append(
                    "%s at the end (last rv seen %s): replayed state differs from the "
                    "final reference: %s" % (self.name, self.res.last_rv, d))
        return self.res


def check_stream(initial_items, initial_rv, events, reference=None, final=None,
                 closed=None, allow_expired=False, initial_events=False, name="watcher"):
    """Check a whole stream at once; see StreamChecker."""
    c = StreamChecker(initial_items, initial_rv, reference=reference,
                      allow_expired=allow_expired, initial_events=initial_events,
                      name=name)
    for ev in events:
        c.feed(ev)
    return c.finish(final=final, closed=closed)


class FakeReference:
    """The fake apiserver's state at a resourceVersion, for one watched
    scope: LIST path?labelSelector=..&resourceVersion=N&
    resourceVersionMatch=Exact. Answers None when the fake says 410 (too
    old); caches answers; prefill() lets a caller fetch states that a
    later fault (wipe) would make unreachable, and frozen=True then
    answers None for anything not fetched before. Requests go through
    harness.request, so a base URL registered there gets its CA and token."""

    def __init__(self, base_url, path, label_selector=None, field_selector=None,
                 timeout=10):
        self.base = base_url.rstrip("/")
        self.path = path
        self.q = {}
        if label_selector:
            self.q["labelSelector"] = label_selector
        if field_selector:
            self.q["fieldSelector"] = field_selector
        self.timeout = timeout
        self.cache = {}
        self.frozen = False
        self.errors = []

    def _get(self, extra):
        q = dict(self.q)
        q.update(extra)
        url = self.base + self.path + ("?" + urllib.parse.urlencode(q) if q else "")
        status, _, body = harness.request("GET", url, timeout=self.timeout)
        try:
            return status, json.loads(body)
        except ValueError:
            if status == 200:
                raise
            return status, None

    def __call__(self, rv):
        rv = int(rv)
        if rv in self.cache:
            return self.cache[rv]
        if self.frozen:
            return None
        status, body = self._get({"resourceVersion": str(rv),
                                  "resourceVersionMatch": "Exact"})
        if status == 200:
            got = state_of(body)
        else:
            if status != 410:
                self.errors.append("reference LIST at rv %d answered %s: %s" % (
                    rv, status, (body or {}).get("message")))
            got = None
        self.cache[rv] = got
        return got

    def prefill(self, rvs):
        for rv in rvs:
            self(rv)

    def current(self):
        """(list rv, {key: rv}) of the fake now."""
        status, body = self._get({})
        if status != 200:
            raise RuntimeError("LIST %s answered %s" % (self.path, status))
        return int(body["metadata"]["resourceVersion"]), state_of(body)


def event_rvs(events, types=("BOOKMARK",)):
    """The resourceVersions of the events of these types (for prefill)."""
    out = []
    for ev in events:
        if ev.get("type") in types:
            rv = obj_rv(ev.get("object") or {})
            if rv is not None:
                out.append(rv)
    return out
