"""`palace --serve`: a read-only server on 127.0.0.1 behind a random token; the page it serves
may ask for the version only, and the version moves when memory does."""

from __future__ import annotations

import http.client
import urllib.request
from urllib.error import HTTPError

import pytest

from mini_letta.memory.history import save_hand_edit
from mini_letta.memory.repo import GitRepo
from mini_letta.palace.gather import PalaceInput
from mini_letta.palace.page import build_palace
from mini_letta.palace.serve import PalaceServer, memory_version
from mini_letta.workspace import new_agent
from support.memory import tree_bytes
from support.palace_kit import LIMITS


@pytest.fixture
def served(world):
    agent = new_agent(world, name="host")
    source = PalaceInput(world.home, agent, LIMITS, 8192, world.clock)
    built = []

    def build(version):
        built.append(version)
        return build_palace(source, version).html

    server = PalaceServer(build, memory_version(world.home, agent.id))
    server.start()
    yield server, agent, built
    server.close()


def _get(url):
    with urllib.request.urlopen(url, timeout=10) as response:
        return response.status, response.read().decode("utf-8"), dict(response.headers)


def _status(url, method="GET"):
    try:
        request = urllib.request.Request(url, method=method, data=b"x" if method != "GET" else None)
        with urllib.request.urlopen(request, timeout=10) as response:
            return response.status
    except HTTPError as exc:
        return exc.code


def test_the_page_is_served_only_behind_its_token(served):
    server, _, _ = served
    assert server.url.startswith("http://127.0.0.1:") and len(server.token) >= 32
    status, page, headers = _get(server.url)
    assert status == 200 and "Memory palace" in page and headers["Cache-Control"] == "no-store"
    assert "connect-src 'self'" in page and 'name="palace-version"' in page
    base = server.url.rsplit("/", 2)[0]
    assert _status(base + "/") == 404
    assert _status(base + "/" + "x" * len(server.token) + "/") == 404
    assert _status(server.url + "../etc/passwd") == 404
    assert _status(server.url + "memory") == 404


def test_nothing_but_reading_is_answered(served, world):
    server, agent, _ = served
    before = tree_bytes(world.home.memory_dir(agent.id))
    for method in ("POST", "PUT", "DELETE", "PATCH"):
        assert _status(server.url, method) == 405
    assert tree_bytes(world.home.memory_dir(agent.id)) == before


def test_the_version_moves_when_memory_changes_and_the_page_follows(served, world):
    server, agent, built = served
    memory = world.home.memory_dir(agent.id)
    first = _get(server.url + "version")[1]
    assert first.startswith(GitRepo(memory).head_sha())
    _get(server.url)
    _get(server.url)
    assert len(built) == 1  # an unchanged memory is not rebuilt
    (memory / "system" / "human.md").write_text("---\ndescription: x\n---\n- edited\n")
    dirty = _get(server.url + "version")[1]
    assert dirty != first and ":dirty:" in dirty
    save_hand_edit(memory, "notes/new.md", lambda _: "---\ndescription: New\n---\n- fresh\n")
    third = _get(server.url + "version")[1]
    assert third != dirty
    assert "notes/new.md" in _get(server.url)[1] and len(built) == 2


def test_head_answers_without_a_body(served):
    server, _, _ = served
    host, port = server.httpd.server_address[:2]
    connection = http.client.HTTPConnection(host, port, timeout=10)
    connection.request("HEAD", "/" + server.token + "/")
    response = connection.getresponse()
    assert response.status == 200 and response.read() == b""
    connection.close()
