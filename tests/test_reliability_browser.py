"""Chromium behind the guard proxy: in a network namespace of its own (``unshare -rn``)
a publisher on a public address serves pages whose WebSocket, worker, and redirected fetch/script/iframe requests go
for a secret on 127.0.0.1. Rendered with the guard, no connection reaches the secret service and nothing of it is in
the page; rendered with ``allow_private_addresses`` (the control) the same pages read it. Chromium's own update and
time requests are refused by the proxy: the only host connected to is the publisher."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from pubfetch.net.browser import find_chromium

HERE = Path(__file__).parent


def can_unshare_network() -> bool:
    try:
        done = subprocess.run(["unshare", "-rn", "ip", "link", "set", "lo", "up"], capture_output=True, timeout=10)
    except (OSError, subprocess.SubprocessError):
        return False
    return done.returncode == 0


@pytest.mark.slow
@pytest.mark.skipif(find_chromium() is None, reason="no Chromium found")
@pytest.mark.skipif(not can_unshare_network(), reason="needs `unshare -rn` and `ip` (a network namespace)")
def test_rendered_pages_cannot_reach_loopback_by_websocket_worker_or_redirect():
    done = subprocess.run(["unshare", "-rn", sys.executable, str(HERE / "support" / "browser_guard_scenario.py"),
                           str(find_chromium())], capture_output=True, text=True, timeout=240,
                          env={**os.environ, "PYTHONPATH": str(HERE.parent)})
    assert done.returncode == 0, done.stderr[-3000:]
    report = json.loads(done.stdout.splitlines()[-1])
    pages = report["pages"]
    for name in ("websocket", "redirects", "worker"):
        assert pages[f"guarded {name}"] == {"kind": "OK", "secrets": 0, "page": True}, name
    assert report["guarded connections"] == 0
    # the control: the same pages read the secret when private addresses are allowed
    assert pages["allowed websocket"]["secrets"] >= 1
    assert pages["allowed redirects"]["secrets"] >= 2  # fetch and script (the iframe's document is not in the DOM)
    assert pages["allowed worker"]["secrets"] >= 1
    assert report["allowed connections"] >= 4
    # the publisher is the only host reached; loopback (redirect hops, the worker's WebSocket tunnel) and Chromium's
    # update and time services were refused at the proxy
    assert report["proxy connected"] == [report["public"]]
    refused = report["proxy refused"]
    secret = report["secret"]
    assert f"http://{secret}/secret" in refused and f"http://{secret}/secret.js" in refused
    assert all(secret in url or "google" in url for url in refused), refused
