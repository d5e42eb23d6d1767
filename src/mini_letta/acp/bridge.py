"""From the main thread into the protocol's event loop: updates, questions, the editor's files.

The turns run on the main thread (runner.py) and the SDK's connection in an asyncio loop on
another; `Bridge` schedules each call on the loop and waits for it. When the editor has gone
(the connection or the loop closed) the wait ends in KeyboardInterrupt, so a turn stops as at
Ctrl-C and what was said is kept. A failed `fs/*` call is a tool error the model reads.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from concurrent.futures import CancelledError
from pathlib import Path
from typing import TYPE_CHECKING, Any

from mini_letta.tools.base import EditorFiles, ToolInputError

if TYPE_CHECKING:
    from acp import Client
    from acp.helpers import SessionUpdate
    from acp.schema import PermissionOption, RequestPermissionResponse


class LateFiles:
    """A session's editor files for a `TurnOptions` made before the session has its id (the
    conversation's); `current()` gives them once they are set, before any turn runs."""

    def __init__(self, current: Callable[[], EditorFiles | None]) -> None:
        self.current = current

    def seam(self, read: bool, write: bool) -> EditorFiles | None:
        if not (read or write):
            return None
        return EditorFiles(self.read_text if read else None, self.write_text if write else None)

    def read_text(self, path: Path) -> str:
        files = self.current()
        assert files is not None and files.read_text is not None
        return files.read_text(path)

    def write_text(self, path: Path, text: str) -> None:
        files = self.current()
        assert files is not None and files.write_text is not None
        files.write_text(path, text)


class Bridge:
    """From the main thread into the protocol's event loop: send, ask, and wait."""

    def __init__(self, loop: asyncio.AbstractEventLoop, client: Client) -> None:
        self.loop = loop
        self.client = client

    def send(self, session_id: str, update: SessionUpdate) -> None:
        self._wait(self.client.session_update(session_id=session_id, update=update))

    def ask(
        self, session_id: str, tool_call: Any, options: list[PermissionOption]
    ) -> RequestPermissionResponse:
        coroutine = self.client.request_permission(
            session_id=session_id, tool_call=tool_call, options=options
        )
        return self._wait(coroutine)  # type: ignore[no-any-return]

    def _wait(self, coroutine: Any) -> Any:
        """Its result; when the editor has gone, the turn stops as at Ctrl-C (and is kept)."""
        try:
            return asyncio.run_coroutine_threadsafe(coroutine, self.loop).result()
        except (ConnectionError, RuntimeError, CancelledError) as exc:  # the loop has closed
            raise KeyboardInterrupt from exc

    def editor_files(self, session_id: str, read: bool, write: bool) -> EditorFiles | None:
        """The file tools' seam to the client's `fs/*` methods, as far as it offers them."""
        if not (read or write):
            return None

        def read_text(path: Path) -> str:
            coroutine = self.client.read_text_file(session_id=session_id, path=str(path))
            return self._fs(coroutine, "read", path).content  # type: ignore[no-any-return]

        def write_text(path: Path, text: str) -> None:
            coroutine = self.client.write_text_file(
                session_id=session_id, path=str(path), content=text
            )
            self._fs(coroutine, "write", path)

        return EditorFiles(read_text if read else None, write_text if write else None)

    def _fs(self, coroutine: Any, verb: str, path: Path) -> Any:
        from acp import RequestError

        try:
            return asyncio.run_coroutine_threadsafe(coroutine, self.loop).result()
        except (RequestError, ConnectionError) as exc:
            raise ToolInputError(f"the editor could not {verb} {path}: {exc}") from exc
