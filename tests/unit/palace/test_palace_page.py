"""The palace page for a memory built by reflection runs (one merged as a merge commit), a
rejected run, an undo and hand edits: what it embeds, checked against the readers that
`memory why`, `reflections show` and `status` use."""

from __future__ import annotations

import json
import os
import re
import stat

import pytest

from mini_letta.home import Home
from mini_letta.memory.history import save_hand_edit
from mini_letta.memory.repo import GitRepo
from mini_letta.palace.gather import PalaceInput
from mini_letta.palace.page import build_palace, save_palace
from mini_letta.reflection.history.provenance import blame_file, why_line
from mini_letta.reflection.state.watermark import read_reflection_state
from mini_letta.workspace import World
from support.clock import FakeClock
from support.palace_kit import (
    HUMAN,
    LIMITS,
    PALACE_GROUP,
    SECRET,
    build_story_once,
    copy_story,
)

# One worker for the module under xdist: its story is built once per worker that runs any of it.
pytestmark = pytest.mark.xdist_group(PALACE_GROUP)


def _data(page_html: str) -> dict:
    match = re.search(
        r'<script type="application/json" id="palace-data">(.*?)</script>', page_html, re.S
    )
    assert match is not None
    return json.loads(match.group(1))


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    return build_story_once(tmp_path_factory)


# The story, its world and its page are built once and shared by the tests that only read
# them; a test that changes the memory takes `own_world` and `own_story`, a copy of its own.
@pytest.fixture(scope="module")
def world(built):
    return built[0]


@pytest.fixture(scope="module")
def story(built):
    return built[1]


@pytest.fixture
def own_world(tmp_path):
    (tmp_path / "project").mkdir()
    return World(
        home=Home(tmp_path / "home"), cwd=tmp_path / "project", environ={}, clock=FakeClock()
    )


@pytest.fixture
def own_story(own_world, built):
    return copy_story(*built, own_world)


@pytest.fixture(scope="module")
def page(world, story):
    return build_palace(PalaceInput(world.home, story.agent, LIMITS, 8192, world.clock))


@pytest.fixture(scope="module")
def data(page):
    return _data(page.html)


def _file(data, path):
    return next(f for f in data["files"] if f["path"] == path)


def test_every_line_names_the_run_or_commit_that_blame_names(world, story, data):
    repo = GitRepo(world.home.memory_dir(story.agent.id))
    for entry in data["files"]:
        blamed = blame_file(repo, entry["path"])
        origins = [data["commits"][i] for i in entry["lines"]]
        assert len(origins) == len(blamed), entry["path"]
        for line, origin in zip(blamed, origins, strict=True):
            assert origin["run"] == line.run_id, (entry["path"], line.number, line.text)
    human = {n: data["commits"][i] for n, i in enumerate(_file(data, HUMAN)["lines"], 1)}
    assert human[6]["run"] == story.runs["second"]  # merged as a merge commit: named by its record
    assert human[7]["run"] is None and human[7]["subject"] == "Edit by hand"


def test_a_line_shows_the_cited_messages_text_and_time_as_memory_why_does(world, story, data):
    human = _file(data, HUMAN)
    for number, ids in human["cites"].items():
        why = why_line(world.home, story.agent.id, HUMAN, int(number))
        assert tuple(ids) == why.cited
        for conversation, message in why.messages:
            shown = data["cited"][message.id]
            assert shown["time"] == message.created_at and shown["conversation"] == conversation
    decaf = data["cited"][story.messages["decaf"]]
    assert decaf["text"] == "I switched to decaf this year" and decaf["role"] == "user"
    assert "5" not in human["cites"]  # "- Likes quiet mornings" was written without evidence


def test_the_timeline_has_every_run_with_its_status_diff_reasons_and_messages(story, data):
    runs = {run["id"]: run for run in data["runs"]}
    assert [runs[story.runs[n]]["status"] for n in ("first", "second", "third", "rejected")] == [
        "merged", "merged", "undone", "rejected"
    ]  # fmt: skip
    assert "+- Drinks decaf" in runs[story.runs["first"]]["diff"]
    second = runs[story.runs["second"]]["diff"]
    assert "+- Editor: vim" in second and "plans" not in second  # its own change, not main's
    assert "+- Tea in the afternoon" in runs[story.runs["third"]]["diff"]
    rejected = runs[story.runs["rejected"]]
    assert "+- Drinks espresso" in rejected["diff"]
    assert any("without citing evidence" in reason for reason in rejected["reasons"])
    covered = rejected["slices"][0]
    conversation = data["conversations"][0]
    texts = [m["text"] for m in conversation["messages"]
             if covered["start"] <= m["line"] < covered["end"]]  # fmt: skip
    assert "whatever" in texts


def test_each_conversation_shows_its_watermark_against_its_length(story, data):
    (conversation,) = data["conversations"]
    state = read_reflection_state(story.store)
    assert conversation["length"] == story.store.count()
    assert conversation["reflected"] == state.reflected_through_line + 1
    assert conversation["behind"] == story.store.count() - conversation["reflected"] > 0


def test_charts_have_memory_size_per_commit_and_context_use_and_cache_share(world, story, data):
    commits = GitRepo(world.home.memory_dir(story.agent.id)).run(
        "rev-list", "--first-parent", "--count", "HEAD"
    )
    assert len(data["sizes"]) == int(commits)
    assert (
        data["sizes"][-1]["files"] == 3 and data["sizes"][-1]["tokens"] > data["sizes"][0]["tokens"]
    )
    assert [(u["input"], u["cacheShare"]) for u in data["usage"]] == [(4000, 0.75), (4200, 0.0)]
    assert data["limits"]["window"] == 8192


def test_secrets_are_redacted_in_everything_embedded(page):
    assert SECRET not in page.html
    assert "<redacted:openai-key>" in page.html or "\\u003credacted:" in page.html


def test_the_page_is_self_contained_and_forbids_every_request(page):
    head = page.html.split("<body>")[0]
    assert "Content-Security-Policy" in head and "default-src 'none'" in head
    assert "connect-src" not in head  # only a served page may ask its server for the version
    assert not re.search(r"<(?:link|img|iframe|object|embed)\b", page.html, re.I)
    assert not re.search(r"<script[^>]*\bsrc=", page.html, re.I)
    assert page.html.count("</script>") == 2


def test_memory_text_cannot_close_the_data_tag(own_world, own_story):
    memory = own_world.home.memory_dir(own_story.agent.id)
    hostile = "---\ndescription: </script><script>alert(1)</script>\n---\n<img src=http://x/y>\n"
    save_hand_edit(memory, "notes/evil.md", lambda _: hostile)
    page = build_palace(PalaceInput(own_world.home, own_story.agent, LIMITS, 8192, own_world.clock))
    assert page.html.count("</script>") == 2 and "<img" not in page.html
    evil = _file(_data(page.html), "notes/evil.md")
    assert "&lt;img src=http://x/y&gt;" in evil["html"]
    assert evil["description"] == "</script><script>alert(1)</script>"  # data, escaped in JSON


def test_search_embeds_only_the_most_recent_messages_and_says_so(world, story):
    page = build_palace(PalaceInput(world.home, story.agent, LIMITS, 8192, world.clock, 3))
    data = _data(page.html)
    (conversation,) = data["conversations"]
    lines = [m["line"] for m in conversation["messages"]]
    assert lines == list(range(story.store.count() - 3, story.store.count()))
    assert data["messageLimit"] == 3 and "the most recent ${D.messageLimit} messages" in page.html
    # a cited message older than the window is still shown beside its line
    assert data["cited"][story.messages["decaf"]]["text"] == "I switched to decaf this year"


def test_findings_are_embedded_beside_their_lines(world, story, data):
    assert all(f["path"] in {e["path"] for e in data["files"]} for f in data["findings"])
    quiet = next(f for f in data["findings"] if f["kind"] == "no_provenance")
    assert (quiet["path"], quiet["line"]) == (HUMAN, 5)


def test_the_page_is_written_owner_only_even_over_a_readable_file(tmp_path, page):
    target = tmp_path / "palace.html"
    target.write_text("old")
    os.chmod(target, 0o644)
    save_palace(target, page.html)
    assert stat.S_IMODE(target.stat().st_mode) == 0o600
    assert target.read_text(encoding="utf-8") == page.html
