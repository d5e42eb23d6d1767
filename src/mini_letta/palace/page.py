"""The palace page: one self-contained HTML file, and where it is written.

Styles, script and data are inline; a Content-Security-Policy meta tag forbids every fetch,
image, frame, font and form (`default-src 'none'`), so the page cannot reach the network even
if a memory file tried. In `--serve` mode it may ask its own server for the memory version
(`connect-src 'self'`) and nothing else. The data is JSON inside a non-executed script tag,
with every `<` escaped, so no memory text can close the tag. Written owner-only (0600).
"""

from __future__ import annotations

import html
import json
from pathlib import Path
from typing import Any

from mini_letta.agents.records import AgentRecord
from mini_letta.home import Home
from mini_letta.palace.gather import PalaceInput, gather_palace
from mini_letta.palace.origins import load_origins, run_doctor
from mini_letta.storage.atomic import save_bytes
from mini_letta.structs import Struct

_ASSETS = Path(__file__).parent / "assets"
_CSP = (
    "default-src 'none'; style-src 'unsafe-inline'; script-src 'unsafe-inline'; "
    "img-src data:; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"
)


class Palace(Struct, frozen=True):
    html: str
    findings: int
    files: int
    runs: int


def build_palace(source: PalaceInput, version: str | None = None) -> Palace:
    """The page for `source.agent` (and, with `version`, the served page that polls for it)."""
    origins = load_origins(source.home, source.agent.id)
    findings = run_doctor(source.home, source.agent.id, source.limits, source.clock, origins)
    data = gather_palace(source, origins, findings)
    return Palace(render_page(data, version), len(findings), len(data["files"]), len(data["runs"]))


def render_page(data: dict[str, Any], version: str | None = None) -> str:
    payload = json.dumps(data, ensure_ascii=False, separators=(",", ":")).replace("<", "\\u003c")
    csp = _CSP + ("; connect-src 'self'" if version is not None else "")
    poll = f'<meta name="palace-version" content="{html.escape(version)}">' if version else ""
    title = html.escape(f"Memory palace · {data['agent']['name']}")
    template = (_ASSETS / "palace.html").read_text(encoding="utf-8")
    return template.format(
        csp=csp,  # a constant: single quotes need no escape in a double-quoted attribute
        poll=poll,
        title=title,
        css=(_ASSETS / "palace.css").read_text(encoding="utf-8"),
        data=payload,
        js=(_ASSETS / "palace.js").read_text(encoding="utf-8").replace("</", "<\\/"),
    )


def default_palace_file(home: Home, agent: AgentRecord) -> Path:
    return home.palace_file(agent.id)


def save_palace(path: Path, page: str) -> None:
    """Write the page atomically, readable and writable by its owner only."""
    save_bytes(path, page.encode("utf-8"), private=True)
