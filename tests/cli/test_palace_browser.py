"""The palace page in a real browser (headless Chromium): the tree, a line's provenance popover,
the timeline and the charts are drawn, and the page makes no network request (Chromium's own
network log, checked against a control page that does make one). Skipped, saying why, where
Chromium is not installed or cannot start."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

from mini_letta.palace.gather import PalaceInput
from mini_letta.palace.page import build_palace, save_palace
from support.palace_kit import HUMAN, LIMITS, PALACE_GROUP, build_story_once, copy_story

FLAGS = [
    "--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
    "--disable-component-update", "--disable-sync", "--no-first-run",
    "--disable-default-apps", "--disable-extensions", "--mute-audio",
]  # fmt: skip
NETWORK_SCHEMES = ("http:", "https:", "ws:", "wss:", "ftp:")


def _chromium() -> str:
    found = shutil.which("chromium") or shutil.which("chromium-browser")
    if found is None:
        pytest.skip("headless Chromium is not installed (Debian: apt-get install chromium)")
    return found


def _run(browser: str, profile: Path, *args: str) -> subprocess.CompletedProcess[str]:
    try:
        proc = subprocess.run(
            [browser, *FLAGS, f"--user-data-dir={profile}", *args],
            capture_output=True, text=True, timeout=50,
        )  # fmt: skip
    except (OSError, subprocess.TimeoutExpired) as exc:
        pytest.skip(f"Chromium cannot run here: {exc}")
    if proc.returncode != 0:
        pytest.skip(f"Chromium cannot run here (exit {proc.returncode}): {proc.stderr[-300:]}")
    return proc


def _requested(netlog: Path) -> list[str]:
    """Every URL a page asked the network stack for, from Chromium's NetLog: the jobs started
    on behalf of a document (the browser's own background fetches, such as its clock check,
    have no origin: `initiator` "not an origin")."""
    text = netlog.read_text(encoding="utf-8", errors="replace").rstrip().rstrip(",")
    if not text.endswith("}"):
        text += "]}"  # a log cut at exit lacks its closing brackets
    log = json.loads(text)
    start = log["constants"]["logEventTypes"]["URL_REQUEST_START_JOB"]
    return [
        str(event["params"].get("url"))
        for event in log.get("events", [])
        if event.get("type") == start
        and event.get("phase") != 2  # an END event carries no request
        and "url" in event.get("params", {})
        and event["params"].get("initiator") != "not an origin"
    ]


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    return build_story_once(tmp_path_factory)


@pytest.fixture
def palace_file(world, tmp_path, built):
    story = copy_story(*built, world)
    page = build_palace(PalaceInput(world.home, story.agent, LIMITS, 8192, world.clock))
    target = tmp_path / "palace.html"
    save_palace(target, page.html)
    return target, story


class _Recorder(BaseHTTPRequestHandler):
    seen: list[str] = []

    def do_GET(self) -> None:  # noqa: N802
        type(self).seen.append(self.path)
        self.send_response(204)
        self.end_headers()

    def log_message(self, *args: object) -> None:
        return


@pytest.fixture
def beacon() -> Iterator[str]:
    """A local HTTP server a page could send what it holds to; its URL."""
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Recorder)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    _Recorder.seen = []
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()


@pytest.mark.xdist_group(PALACE_GROUP)  # where the story is built already
def test_the_page_draws_in_chromium_and_nothing_reaches_the_network(palace_file, tmp_path, beacon):
    """The page, with a request injected into it as a hostile memory line might: drawn, and
    its policy lets neither the page nor the injection ask the network for anything."""
    browser = _chromium()
    target, story = palace_file
    hostile = tmp_path / "hostile.html"
    injected = f'<img src="{beacon}/palace.png"><script>fetch("{beacon}/fetch")</script>'
    hostile.write_text(target.read_text(encoding="utf-8").replace("<body>", "<body>" + injected))
    netlog = tmp_path / "net.json"
    shot = tmp_path / "palace.png"
    url = f"{hostile.as_uri()}#file={HUMAN}:4"
    # one Chromium run dumps the DOM and takes the screenshot (a start costs about 1 s of CPU)
    dom = _run(browser, tmp_path / "profile-1", f"--log-net-log={netlog}",
               "--net-log-capture-mode=Everything", "--window-size=1400,900",
               f"--screenshot={shot}", "--dump-dom", url).stdout  # fmt: skip
    assert len(re.findall(r'<a class="file[^"]*" data-path=', dom)) == 3  # the tree
    popover = re.search(r"<div id=\"popover\" class=\"on\"[^>]*>(.*?)</div></div>", dom, re.S)
    assert popover is not None, "no provenance popover"
    assert f"Written by reflection run {story.runs['first']}" in popover.group(0)
    assert "I switched to decaf this year" in dom
    assert len(re.findall(r'<details class="run" id="run-', dom)) == 4  # the timeline
    points = re.findall(r'<polyline points="([^"]+)"[^>]*class="series"', dom)
    assert len(points) == 3 and all(p.strip() for p in points)  # the charts
    assert netlog.exists()
    assert [u for u in _requested(netlog) if u.startswith(NETWORK_SCHEMES)] == []  # the CSP held
    assert _Recorder.seen == []
    assert shot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and shot.stat().st_size > 10_000


def test_the_network_check_sees_a_request_from_a_page_without_the_policy(tmp_path, beacon):
    browser = _chromium()
    control = tmp_path / "control.html"
    control.write_text(f'<html><body><img src="{beacon}/control.png"></body></html>')
    netlog = tmp_path / "control.json"
    _run(browser, tmp_path / "p3", f"--log-net-log={netlog}", "--dump-dom", control.as_uri())
    assert any(u.startswith(beacon) for u in _requested(netlog))  # the check can see one
