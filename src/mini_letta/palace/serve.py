"""`palace --serve`: the page from a read-only server on 127.0.0.1, behind a random token.

Only GET and HEAD of `/<token>/` (the page) and `/<token>/version` (what the page polls) are
answered; anything else is 404 or 405, and no request changes anything (the doctor's count
for `status` aside). The version is memory's HEAD, whether its tree is clean, and the newest
run record's name and mtime, so a commit, a hand edit or a finished run reloads the page; the
page is rebuilt only when the version moved.
"""

from __future__ import annotations

import hmac
import os
import secrets
import threading
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from mini_letta.home import Home, is_json_file
from mini_letta.memory.repo import GitRepo


class PalaceServer:
    """A started server; `url` holds the token. `close()` stops it."""

    def __init__(
        self, build: Callable[[str], str], version: Callable[[], str], port: int = 0
    ) -> None:
        self.token = secrets.token_urlsafe(24)
        self._build = build
        self._version = version
        self._lock = threading.Lock()
        self._page: tuple[str, bytes] | None = None
        handler = _handler(self)
        self.httpd = ThreadingHTTPServer(("127.0.0.1", port), handler)
        self.httpd.daemon_threads = True
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}/{self.token}/"

    def page(self) -> bytes:
        version = self._version()
        with self._lock:
            if self._page is None or self._page[0] != version:
                self._page = (version, self._build(version).encode("utf-8"))
            return self._page[1]

    def version(self) -> str:
        return self._version()

    def serve_forever(self) -> None:
        self.httpd.serve_forever(poll_interval=0.1)

    def start(self) -> threading.Thread:
        thread = threading.Thread(target=self.serve_forever, name="palace-server", daemon=True)
        thread.start()
        return thread

    def close(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()


def memory_version(home: Home, agent_id: str) -> Callable[[], str]:
    """What changes whenever the page would: HEAD, dirty or not, the newest run record."""
    repo = GitRepo(home.memory_dir(agent_id))
    runs = home.reflections_dir(agent_id)

    def version() -> str:
        head = repo.head_sha_or_none() or "-"
        dirty = "dirty" if head != "-" and repo.changed_paths() else "clean"
        newest = "-"
        try:
            names = sorted(n for n in os.listdir(runs) if is_json_file(runs / n))
            if names:
                newest = f"{names[-1]}@{os.stat(runs / names[-1]).st_mtime_ns}"
        except OSError:
            pass
        return f"{head}:{dirty}:{newest}:{len(names) if newest != '-' else 0}"

    return version


def _handler(server: PalaceServer) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        server_version = "mini-letta-palace"
        sys_version = ""

        def do_GET(self) -> None:  # noqa: N802 (the stdlib's name)
            self._answer(send_body=True)

        def do_HEAD(self) -> None:  # noqa: N802
            self._answer(send_body=False)

        def _refuse(self) -> None:
            self.send_error(405, "the palace is read-only")

        do_POST = do_PUT = do_DELETE = do_PATCH = _refuse  # noqa: N815

        def _answer(self, send_body: bool) -> None:
            path = self.path.split("?", 1)[0]
            prefix = f"/{server.token}/"
            given = path[: len(prefix)]
            if not hmac.compare_digest(given.encode(), prefix.encode()):
                self.send_error(404)
                return
            rest = path[len(prefix) :]
            if rest == "":
                body, kind = server.page(), "text/html; charset=utf-8"
            elif rest == "version":
                body, kind = server.version().encode("utf-8"), "text/plain; charset=utf-8"
            else:
                self.send_error(404)
                return
            self.send_response(200)
            self.send_header("Content-Type", kind)
            self.send_header("Content-Length", str(len(body)))
            self.send_header("Cache-Control", "no-store")
            self.send_header("Referrer-Policy", "no-referrer")
            self.send_header("X-Content-Type-Options", "nosniff")
            self.end_headers()
            if send_body:
                self.wfile.write(body)

        def log_message(self, format: str, *args: object) -> None:  # noqa: A002
            return  # the core never prints; a request is not worth a line

    return Handler
