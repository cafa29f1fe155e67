"""Chromium driven through the DevTools protocol over a pipe (--remote-debugging-pipe): no port, no packages.

The browser reads commands on its fd 3 and writes replies and events on its fd 4, each message a JSON text
ended by a NUL byte.
"""
import base64
import fcntl
import json
import os
import queue
import shutil
import subprocess
import tempfile
import threading
import time

CHROMIUM = "/usr/bin/chromium"
MISSING = "Chromium is missing: apt-get install chromium (the page's browser tests need /usr/bin/chromium)"


def chromium_path():
    """Debian's Chromium, or HEADSCOPE_CHROMIUM when set (set to a missing file, it shows the failure)."""
    wanted = os.environ.get("HEADSCOPE_CHROMIUM")
    for p in ([wanted] if wanted else [CHROMIUM, shutil.which("chromium")]):
        if p and os.path.isfile(p) and os.access(p, os.X_OK):
            return p
    return None


class Browser:
    """One headless Chromium with one page attached (flat session)."""

    def __init__(self, width=1280, height=800):
        exe = chromium_path()
        if exe is None:
            raise RuntimeError(MISSING)
        self.profile = tempfile.mkdtemp(prefix="headscope-chromium-")
        to_browser_r, to_browser_w = os.pipe()
        from_browser_r, from_browser_w = os.pipe()
        # above 4, so the dup2 onto 3 and 4 in the child cannot overwrite one another
        hi_r = fcntl.fcntl(to_browser_r, fcntl.F_DUPFD, 10)
        hi_w = fcntl.fcntl(from_browser_w, fcntl.F_DUPFD, 10)
        os.close(to_browser_r)
        os.close(from_browser_w)

        def child():
            os.dup2(hi_r, 3)
            os.dup2(hi_w, 4)

        args = [exe, "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
                "--disable-background-networking", "--disable-component-update", "--disable-sync",
                "--disable-default-apps", "--hide-scrollbars", "--mute-audio",
                "--user-data-dir=" + self.profile, "--remote-debugging-pipe",
                "--window-size=%d,%d" % (width, height), "about:blank"]
        self.proc = subprocess.Popen(args, pass_fds=(3, 4, hi_r, hi_w), preexec_fn=child,
                                     stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                     stderr=subprocess.DEVNULL)
        os.close(hi_r)
        os.close(hi_w)
        self.out = os.fdopen(to_browser_w, "wb", buffering=0)
        self.inp = os.fdopen(from_browser_r, "rb", buffering=0)
        self.next_id = 0
        self.replies = {}
        self.cond = threading.Condition()
        self.events = queue.Queue()
        self.all_events = []
        self.reader = threading.Thread(target=self._read, daemon=True)
        self.reader.start()
        targets = self.call("Target.getTargets")["targetInfos"]
        page = next(t for t in targets if t["type"] == "page")
        self.session = self.call("Target.attachToTarget", targetId=page["targetId"], flatten=True)["sessionId"]
        for domain in ("Page", "Runtime", "Network", "Log"):
            self.send(domain + ".enable")
        self.resize(width, height)

    def _read(self):
        buf = b""
        while True:
            chunk = self.inp.read(1 << 16)
            if not chunk:
                break
            buf += chunk
            while b"\0" in buf:
                msg, buf = buf.split(b"\0", 1)
                m = json.loads(msg.decode("utf-8"))
                if "id" in m:
                    with self.cond:
                        self.replies[m["id"]] = m
                        self.cond.notify_all()
                else:
                    self.all_events.append(m)
                    self.events.put(m)

    def call(self, method, session=None, timeout=60, **params):
        with self.cond:
            self.next_id += 1
            i = self.next_id
        msg = {"id": i, "method": method, "params": params}
        if session:
            msg["sessionId"] = session
        self.out.write(json.dumps(msg).encode("utf-8") + b"\0")
        end = time.time() + timeout
        with self.cond:
            while i not in self.replies:
                left = end - time.time()
                if left <= 0:
                    raise TimeoutError(method)
                self.cond.wait(left)
            r = self.replies.pop(i)
        if "error" in r:
            raise RuntimeError("%s: %s" % (method, r["error"]))
        return r.get("result", {})

    def send(self, method, **params):
        """A command to the attached page."""
        return self.call(method, session=self.session, **params)

    def resize(self, width, height):
        self.send("Emulation.setDeviceMetricsOverride", width=width, height=height, deviceScaleFactor=1,
                  mobile=False)

    def evaluate(self, expression, await_promise=False):
        r = self.send("Runtime.evaluate", expression=expression, returnByValue=True, awaitPromise=await_promise)
        if "exceptionDetails" in r:
            raise RuntimeError("page script failed: %s" % json.dumps(r["exceptionDetails"])[:2000])
        return r["result"].get("value")

    def open(self, path, timeout=60):
        """Navigates to a file and waits for the page's data to be decoded (window.headscope.ready)."""
        url = "file://" + os.path.abspath(path)
        self.send("Page.navigate", url=url)
        end = time.time() + timeout
        while time.time() < end:
            try:
                state = self.evaluate("window.headscope ? (window.headscope.error || window.headscope.ready) : false")
            except RuntimeError:
                state = False
            if state is True:
                return url
            if isinstance(state, str):
                raise AssertionError("the page reported: " + state)
            time.sleep(0.1)
        raise TimeoutError("the page did not get ready: " + url)

    def navigate(self, url, timeout=60):
        """Navigates and waits for the page's load event, which a page fires only after its iframes have
        loaded. Returns the index of the first event of this navigation."""
        start = len(self.all_events)
        self.send("Page.navigate", url=url)
        end = time.time() + timeout
        while time.time() < end:
            if any(e.get("method") == "Page.loadEventFired" for e in self.all_events[start:]):
                return start
            time.sleep(0.05)
        raise TimeoutError("the page did not load: " + url)

    def attach_child_frames(self):
        """From now on each out-of-process child frame (a sandboxed iframe is one) gets a session of its
        own, announced by Target.attachedToTarget."""
        self.send("Target.setAutoAttach", autoAttach=True, waitForDebuggerOnStart=False, flatten=True)

    def wait_child_frame_ready(self, since, timeout=60):
        """Waits until a child frame attached since event `since` reports window.headscope.ready in its own
        session (the parent page cannot reach into a sandboxed iframe; the protocol can)."""
        end = time.time() + timeout
        while time.time() < end:
            for e in self.all_events[since:]:
                if e.get("method") != "Target.attachedToTarget" or e["params"]["targetInfo"]["type"] != "iframe":
                    continue
                try:
                    r = self.call("Runtime.evaluate", session=e["params"]["sessionId"], returnByValue=True,
                                  expression="window.headscope ? (window.headscope.error || window.headscope.ready)"
                                             " : false")
                except RuntimeError:  # the frame went away (a later navigation)
                    continue
                state = r.get("result", {}).get("value")
                if state is True:
                    return
                if isinstance(state, str):
                    raise AssertionError("the frame's page reported: " + state)
            time.sleep(0.1)
        raise TimeoutError("no child frame got ready")

    def mouse(self, kind, x, y, button="none", clicks=0):
        self.send("Input.dispatchMouseEvent", type=kind, x=x, y=y, button=button, clickCount=clicks)

    def click(self, x, y):
        self.mouse("mouseMoved", x, y)
        self.mouse("mousePressed", x, y, "left", 1)
        self.mouse("mouseReleased", x, y, "left", 1)

    def click_element(self, selector):
        r = self.evaluate("(() => { const e = document.querySelector(%s); if (!e) return null; e.scrollIntoView({block: 'center'}); "
                          "const b = e.getBoundingClientRect(); return [b.left + b.width / 2, b.top + b.height / 2]; })()"
                          % json.dumps(selector))
        if r is None:
            raise AssertionError("no element " + selector)
        self.click(r[0], r[1])

    def screenshot(self, path):
        data = self.send("Page.captureScreenshot", format="png")["data"]
        with open(path, "wb") as f:
            f.write(base64.b64decode(data))

    def events_named(self, method):
        return [e for e in self.all_events if e.get("method") == method]

    def close(self):
        try:
            self.call("Browser.close", timeout=5)
        except Exception:
            pass
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        shutil.rmtree(self.profile, ignore_errors=True)
