"""No zombie browser processes: when pubfetch adopts orphans (PID 1 of a container, a child subreaper), closing the
renderer reaps what Chromium left to it (its crash handlers, the helpers of a closed browser), and only those.

Each case runs in a process of its own that makes itself a child subreaper (as PID 1 of a container is), so that the
orphans come to it and not to the test process; the process reports its children as JSON once it has nothing left
running (a bounded poll on that condition, never a fixed sleep).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from pubfetch.net.browser import UNAVAILABLE_MESSAGE, find_chromium
from support.procs import children_supported

REPO = Path(__file__).resolve().parents[1]

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux") or not children_supported(),
                                reason="child subreapers and /proc/<pid>/task/<tid>/children are Linux's")

#: the start of each case's process: a subreaper, and its children once nothing of theirs runs any more (a zombie of
#: its own process group would be waited for by its owner, so the poll waits for that too)
PRELUDE = """
import ctypes, json, os, sys, time
from pubfetch.net.browser import reaping

assert ctypes.CDLL(None, use_errno=True).prctl(36, 1, 0, 0, 0) == 0  # PR_SET_CHILD_SUBREAPER
assert reaping.adopts_orphans()

def settled(limit=60.0):
    deadline = time.monotonic() + limit
    while True:
        kids = reaping.children()
        own = os.getpgid(0)
        if all(k.zombie and k.pgid != own for k in kids) or time.monotonic() > deadline:
            return [[k.pid, k.name, k.state] for k in kids]
        time.sleep(0.05)
"""

RENDER = PRELUDE + """
import http.server, threading
from pubfetch.net.browser import BrowserRenderer

class Page(http.server.BaseHTTPRequestHandler):
    def do_GET(self):
        body = b"<html><head><title>t</title></head><body><script>document.body.append('rendered')</script></body></html>"
        self.send_response(200)
        self.send_header("Content-Type", "text/html")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args):
        pass

server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Page)
threading.Thread(target=server.serve_forever, daemon=True).start()
renderer = BrowserRenderer(allow_private_addresses=True, executable=sys.argv[1])
result = renderer.render(f"http://127.0.0.1:{server.server_port}/")
during = [k.name for k in reaping.adopted_chromium(reaping.children())]
renderer.close()
print(json.dumps({"kind": result.kind.name, "text": "rendered" in (result.text or ""), "during": during,
                  "left": settled()}))
"""

OWN_CHILD = PRELUDE + """
import subprocess
# a child of its own, in this process's group, named as Chromium is: its owner waits for it, reaping must not
child = subprocess.Popen([sys.argv[1], "-c", "exit 7"])
while not any(k.pid == child.pid and k.zombie for k in reaping.children()):
    time.sleep(0.01)
reaped = reaping.reap_adopted(wait_s=0)
print(json.dumps({"reaped": reaped, "status": child.wait(timeout=30)}))
"""


def run_case(code: str, *args: str) -> dict:
    env = dict(os.environ, PYTHONPATH=str(REPO) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    run = subprocess.run([sys.executable, "-c", code, *args], capture_output=True, text=True, env=env, timeout=300,
                         check=False)
    assert run.returncode == 0, run.stderr
    return json.loads(run.stdout.splitlines()[-1])


def test_closing_the_renderer_leaves_no_zombie_to_a_process_that_adopts_orphans() -> None:
    chromium = find_chromium()
    if chromium is None:
        pytest.skip(f"no Chromium found for the browser tests ({UNAVAILABLE_MESSAGE})")
    pytest.importorskip("playwright", reason="JavaScript rendering needs Playwright (the [javascript] extra)")
    report = run_case(RENDER, chromium)
    assert (report["kind"], report["text"]) == ("OK", True)
    # Chromium's processes were given to the process while the browser ran (its crash handlers): what the reaping is for
    assert report["during"], report
    assert report["left"] == [], report  # no <defunct> child, and nothing of the browser still running


def test_a_child_the_process_started_itself_is_left_to_its_owner(tmp_path: Path) -> None:
    """Even one named as Chromium's processes are: it is in the process's own group, so its owner waits for it and
    gets its exit status."""
    named = tmp_path / "chromium"
    shutil.copy(shutil.which("sh") or "/bin/sh", named)
    report = run_case(OWN_CHILD, str(named))
    assert report == {"reaped": [], "status": 7}
