"""A small HTTP file server on 127.0.0.1 for download tests: ranges, cut-offs, no ranges.

It serves one blob at `/model.gguf`. `ranges=False` makes it ignore `Range` headers (it
answers 200 with the whole file, as some servers do); `cut_after` makes it send only that
many bytes of its next answer and then hang up, as a dropped connection would.
"""

from __future__ import annotations

import re
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


class FileServer:
    """Serve `blob` at `url` with the behaviour the test asks for."""

    def __init__(self, blob: bytes, *, ranges: bool = True) -> None:
        self.blob = blob
        self.ranges = ranges
        self.cut_after: int | None = None
        self.requests: list[dict[str, str]] = []
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), self._handler())
        self._server.daemon_threads = True
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)

    @property
    def url(self) -> str:
        host, port = self._server.server_address[:2]
        return f"http://{host!s}:{port}/model.gguf"

    def __enter__(self) -> FileServer:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._server.shutdown()
        self._server.server_close()

    def _handler(self) -> type[BaseHTTPRequestHandler]:
        server = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, format: str, *args: Any) -> None:  # noqa: A002
                pass

            def do_GET(self) -> None:
                server.requests.append(dict(self.headers))
                if self.path != "/model.gguf":
                    self.send_error(404)
                    return
                start = 0
                asked = re.fullmatch(r"bytes=(\d+)-", self.headers.get("Range", ""))
                if asked and server.ranges:
                    start = int(asked.group(1))
                    if start >= len(server.blob):
                        self.send_response(416)
                        self.send_header("Content-Length", "0")
                        self.end_headers()
                        return
                    self.send_response(206)
                    end = len(server.blob) - 1
                    self.send_header("Content-Range", f"bytes {start}-{end}/{len(server.blob)}")
                else:
                    self.send_response(200)
                body = server.blob[start:]
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                if server.cut_after is not None:
                    body, server.cut_after = body[: server.cut_after], None
                    self.wfile.write(body)
                    self.wfile.flush()
                    self.close_connection = True
                    return
                self.wfile.write(body)

        return Handler
