"""A minimal passive-mode FTP server on 127.0.0.1 for the ftp download tests (anonymous login, RETR of given files,
550 for others; optionally a greeting dripped a byte at a time, so that only a deadline ends the wait)."""

from __future__ import annotations

import socket
import threading
import time


class FtpServer:
    """A minimal passive-mode FTP server serving ``files``; ``drip`` sends the greeting one byte per 0.1 s."""

    def __init__(self, files: dict[str, bytes], drip: bool = False) -> None:
        self.files, self.drip = files, drip
        self.listener = socket.create_server(("127.0.0.1", 0))
        self.commands: list[str] = []
        self.closed = False
        threading.Thread(target=self._serve, daemon=True).start()

    def url(self, path: str, host: str = "127.0.0.1") -> str:
        return f"ftp://{host}:{self.listener.getsockname()[1]}{path}"

    def _serve(self) -> None:
        while True:
            try:
                conn, _ = self.listener.accept()
            except OSError:
                return
            threading.Thread(target=self._session, args=(conn,), daemon=True).start()

    def _session(self, conn: socket.socket) -> None:
        with conn, conn.makefile("rb") as lines:
            try:
                greeting = b"220 " + b"welcome " * 40 + b"\r\n"
                for i in range(len(greeting)) if self.drip else ():
                    if self.closed:
                        return
                    conn.sendall(greeting[i:i + 1])
                    time.sleep(0.1)
                if not self.drip:
                    conn.sendall(b"220 ready\r\n")
                data_listener: socket.socket | None = None
                for raw in lines:
                    command = raw.decode().strip()
                    self.commands.append(command)
                    verb, _, argument = command.partition(" ")
                    if verb == "PASV":
                        data_listener = socket.create_server(("127.0.0.1", 0))
                        port = data_listener.getsockname()[1]
                        conn.sendall(f"227 Entering Passive Mode (127,0,0,1,{port >> 8},{port & 255})\r\n".encode())
                    elif verb == "RETR" and data_listener is not None and argument in self.files:
                        conn.sendall(b"150 sending\r\n")
                        data, _ = data_listener.accept()
                        with data:
                            data.sendall(self.files[argument])
                        conn.sendall(b"226 done\r\n")
                    elif verb == "RETR":
                        conn.sendall(b"550 no such file\r\n")
                    elif verb == "QUIT":
                        conn.sendall(b"221 bye\r\n")
                        return
                    else:
                        conn.sendall({"USER": b"331 password\r\n", "PASS": b"230 in\r\n"}.get(verb, b"200 ok\r\n"))
            except OSError:
                return

    def close(self) -> None:
        self.closed = True
        self.listener.close()
