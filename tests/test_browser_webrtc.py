"""A rendered page's WebRTC cannot send UDP around the guard proxy: a page that opens an
``RTCPeerConnection`` with ``stun:127.0.0.1:N`` would make Chromium send STUN requests straight to that address from
every non-loopback interface, and the guard proxy sees only TCP. Chromium is started with
``--webrtc-ip-handling-policy=disable_non_proxied_udp`` (``--force-...`` in older releases): no UDP leaves it.

The control renders the same page without that switch: when the STUN request does arrive then, the test shows the
switch is what stops it (a machine with only a loopback interface gathers no candidates, and the test skips)."""

from __future__ import annotations

import socket

import pytest

from pubfetch.net import addresses
from pubfetch.net.browser import BrowserRenderer, find_chromium
from pubfetch.net.browser import chromium as browser
from support.loopback import LoopbackServer, Reply

WEBRTC_SWITCHES = ("--webrtc-ip-handling-policy=disable_non_proxied_udp",
                   "--force-webrtc-ip-handling-policy=disable_non_proxied_udp")


def stun_page(port: int) -> str:
    return (
        "<html><body><p>A page with a peer connection.</p><script>"
        f"const pc = new RTCPeerConnection({{iceServers: [{{urls: 'stun:127.0.0.1:{port}'}}]}});"
        "pc.createDataChannel('probe');"
        "pc.onicegatheringstatechange = () => { if (pc.iceGatheringState === 'complete') "
        "document.body.insertAdjacentHTML('beforeend', '<p id=\"gathered\">gathered</p>'); };"
        "pc.createOffer().then(offer => pc.setLocalDescription(offer));"
        "</script></body></html>"
    )


def test_the_browser_is_started_without_non_proxied_udp():
    assert set(WEBRTC_SWITCHES) <= set(browser.LAUNCH_ARGS)


def datagrams(listener: socket.socket) -> int:
    count = 0
    listener.setblocking(False)
    while True:
        try:
            listener.recv(65536)
        except BlockingIOError:
            return count
        count += 1


def render_counting_stun(launch_args: tuple[str, ...], monkeypatch: pytest.MonkeyPatch) -> tuple[int, str]:
    """Datagrams the page's STUN server got, and the rendered text, with Chromium started with ``launch_args``."""
    monkeypatch.setattr(browser, "LAUNCH_ARGS", launch_args)
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as listener:
        listener.bind(("127.0.0.1", 0))
        page = stun_page(listener.getsockname()[1])
        with LoopbackServer({"/rtc": Reply(200, page, "text/html")}) as server, \
                BrowserRenderer(timeout_ms=60_000, settle_ms=500) as renderer:
            result = renderer.render(server.url("/rtc"), wait_until="#gathered")
        return datagrams(listener), result.text or ""


@pytest.mark.slow
@pytest.mark.skipif(find_chromium() is None, reason="no Chromium found")
def test_a_page_stun_request_sends_no_udp(monkeypatch: pytest.MonkeyPatch):
    # 127.0.0.1 stands for the public publisher here; the guard proxy lets the page load
    monkeypatch.setattr(addresses, "forbidden_ip_reason", lambda ip: None)
    launch_args = browser.LAUNCH_ARGS
    without = tuple(arg for arg in launch_args if arg not in WEBRTC_SWITCHES)
    control, control_text = render_counting_stun(without, monkeypatch)
    assert "gathered" in control_text  # the page ran its peer connection to the end
    if control == 0:
        pytest.skip("WebRTC gathered no candidates without the switch either (no non-loopback interface)")
    guarded, text = render_counting_stun(launch_args, monkeypatch)
    assert "gathered" in text
    assert guarded == 0
