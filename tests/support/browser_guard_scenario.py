"""Run inside a fresh network namespace (``unshare -rn``, see test_reliability_browser.py): a "public" publisher on
93.184.216.34 (added to the namespace's loopback device) whose rendered pages try to read a secret from a service on
127.0.0.1 by a WebSocket, a worker, and fetch/script/iframe requests that a public URL redirects to loopback.

Prints one JSON object: per page and mode (guarded, allowed) the rendered text's secret count and outcome, the
connections the secret service got, and the hosts the guard proxy was asked for.
"""

from __future__ import annotations

import base64
import hashlib
import json
import subprocess
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from pubfetch.net.browser import BrowserRenderer, chromium

PUBLIC = "93.184.216.34"
SECRET = "SECRET-7f3a9c"


class SecretService(BaseHTTPRequestHandler):
    """The internal service: a secret over HTTP (readable cross-origin) and over a WebSocket."""

    protocol_version = "HTTP/1.1"
    connections = 0

    def log_message(self, *args: object) -> None:
        pass

    def do_GET(self) -> None:
        SecretService.connections += 1
        if self.headers.get("Upgrade", "").lower() == "websocket":
            accept = base64.b64encode(hashlib.sha1((self.headers["Sec-WebSocket-Key"]
                                                    + "258EAFA5-E914-47DA-95CA-C5AB0DC85B11").encode()).digest())
            self.wfile.write(b"HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                             b"Sec-WebSocket-Accept: " + accept + b"\r\n\r\n")
            self.wfile.write(bytes([0x81, len(SECRET)]) + SECRET.encode())
            self.wfile.flush()
            self.close_connection = True
            return
        body = (f"document.title = '{SECRET}'; document.body.insertAdjacentHTML('beforeend', '<p>{SECRET}</p>');"
                if self.path.endswith(".js") else SECRET).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/javascript" if self.path.endswith(".js") else "text/plain")
        self.send_header("Access-Control-Allow-Origin", "*")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)


def publisher(secret_port: int) -> type[BaseHTTPRequestHandler]:
    internal = f"127.0.0.1:{secret_port}"
    write = "t => document.body.insertAdjacentHTML('beforeend', '<p>' + t + '</p>')"
    pages = {
        "/websocket.html": f"<script>const s = new WebSocket('ws://{internal}/ws'); s.onmessage = e => ({write})(e.data);"
                           "</script><p>A page with a WebSocket.</p>",
        "/redirects.html": ("<p>A page whose requests are redirected.</p>"
                            f"<script>fetch('/to-secret').then(r => r.text()).then({write});</script>"
                            "<script src='/to-secret.js'></script><iframe src='/to-secret'></iframe>"),
        "/worker.html": ("<p>A page with a worker.</p><script>const w = new Worker('/worker.js');"
                         f"w.onmessage = e => ({write})(e.data);</script>"),
        "/worker.js": (f"fetch('http://{internal}/secret').then(r => r.text()).then(t => postMessage(t));"
                       f"const s = new WebSocket('ws://{internal}/ws'); s.onmessage = e => postMessage(e.data);"),
    }

    class Publisher(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, *args: object) -> None:
            pass

        def do_GET(self) -> None:
            if self.path.startswith("/to-secret"):
                self.send_response(302)
                self.send_header("Location", f"http://{internal}/secret" + (".js" if self.path.endswith(".js")
                                                                               else ""))
                self.send_header("Content-Length", "0")
                self.end_headers()
                return
            body = pages.get(self.path, "").encode()
            self.send_response(200 if body else 404)
            kind = "application/javascript" if self.path.endswith(".js") else "text/html; charset=utf-8"
            self.send_header("Content-Type", kind)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

    return Publisher


def serve(address: tuple[str, int], handler: type[BaseHTTPRequestHandler]) -> ThreadingHTTPServer:
    server = ThreadingHTTPServer(address, handler)
    server.daemon_threads = True
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server


#: Chromium's own Local/Private Network Access checks also stop a public page from reaching loopback in this version;
#: they are switched off here so that the guard proxy alone is what stands in the way, and the allowed run shows the
#: attack working (the control).
NETWORK_ACCESS_FEATURES = "LocalNetworkAccessChecks,BlockInsecurePrivateNetworkRequests,PrivateNetworkAccessSendPreflights"
chromium.LAUNCH_ARGS = tuple(f"{arg},{NETWORK_ACCESS_FEATURES}" if arg.startswith("--disable-features=") else arg
                             for arg in chromium.LAUNCH_ARGS)


def main() -> None:
    subprocess.run(["ip", "link", "set", "lo", "up"], check=True)
    subprocess.run(["ip", "addr", "add", f"{PUBLIC}/32", "dev", "lo"], check=True)
    secret = serve(("127.0.0.1", 0), SecretService)
    public = serve((PUBLIC, 0), publisher(secret.server_address[1]))
    base = f"http://{PUBLIC}:{public.server_address[1]}"
    report: dict[str, object] = {"pages": {}}
    for mode, allow in (("guarded", False), ("allowed", True)):
        SecretService.connections = 0
        with BrowserRenderer(allow_private_addresses=allow, timeout_ms=20_000, settle_ms=1_500,
                             executable=sys.argv[1]) as renderer:
            for name in ("websocket", "redirects", "worker"):
                result = renderer.render(f"{base}/{name}.html")
                report["pages"][f"{mode} {name}"] = {  # type: ignore[index]
                    "kind": result.kind.name, "secrets": (result.text or "").count(SECRET),
                    "page": "A page" in (result.text or "")}
            worker = renderer._worker
            if worker is not None and worker.proxy is not None:
                report["proxy connected"] = sorted(set(worker.proxy.connected))
                report["proxy refused"] = sorted({url for url, _ in worker.proxy.refused})
        report[f"{mode} connections"] = SecretService.connections
    report["public"] = f"{PUBLIC}:{public.server_address[1]}"
    report["secret"] = f"127.0.0.1:{secret.server_address[1]}"
    print(json.dumps(report))


if __name__ == "__main__":
    main()
