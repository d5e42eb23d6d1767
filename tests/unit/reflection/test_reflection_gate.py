"""The memory gate: scripted reflection agents that misbehave on purpose, each held back with a
named reason while memory and the watermark stay as they were; a well-behaved one merges; a
person accepts or discards what was held back."""

from __future__ import annotations

import json

import pytest

from mini_letta.errors import ReflectionError
from mini_letta.memory.repo import GitRepo
from mini_letta.reflection.gate.check import GateInput, GateLimits, check_gate, normalise_line
from mini_letta.reflection.history.decide import accept_rejected_run, discard_rejected_run
from mini_letta.reflection.run.launch import launch_reflection, preview_reflection
from mini_letta.reflection.run.setup import LaunchOptions
from mini_letta.reflection.state.records import load_run_record
from mini_letta.reflection.state.watermark import read_reflection_state
from support.agents import fresh_agent
from support.git_calls import git_calls
from support.reflection_kit import SECRETS, ScriptedProvider, add_turn, git, respond, tool_call

HUMAN = "system/human.md"
FACT = "- Allergy: severe peanut allergy, confirmed by the user"


def _confirmed_fact(world, agent) -> None:
    repo = GitRepo(world.home.memory_dir(agent.id))
    human = repo.path / HUMAN
    human.write_text(human.read_text() + FACT + "\n")
    git(repo.path, "commit", "-qam", "a confirmed fact")


@pytest.fixture
def agent(world, request):
    """A fresh agent; for the tests about a `parent` memory, one whose memory holds a confirmed
    fact (a copy of one made once per worker, not a commit per test)."""
    fact = "parent" in request.fixturenames
    return fresh_agent(world, setup=_confirmed_fact if fact else None)


@pytest.fixture
def parent(world, agent):
    return GitRepo(world.home.memory_dir(agent.id))


def _chat(world, store, *texts):
    return [add_turn(store, world.clock, text, answer=f"ok: {text}") for text in texts]


def _agent(*edits, commit=True):
    """A scripted reflection agent: each edit is one model call, then one commit."""
    steps = [respond("", tool_call("memory", n, **edit)) for n, edit in enumerate(edits, 1)]
    if commit:
        steps.append(respond("", tool_call("memory_commit", 99, message="reflection: update")))
    return ScriptedProvider([*steps, respond("done")])


def _launch(world, agent, store, provider, **options):
    return launch_reflection(world, agent, store, LaunchOptions(provider=provider, **options))


def _held_back(world, agent, store, parent, head, outcome):
    """Rejected with memory and the watermark unchanged, the branch kept, no worktree left."""
    assert outcome.status == "rejected" and not outcome.ok
    assert parent.head_sha() == head and not parent.changed_paths()
    assert read_reflection_state(store).reflected_through_message_id is None
    branches = git(parent.path, "branch", "--list", "reflection*").split()
    assert branches == [f"reflection-rejected/{outcome.run_id}"]
    worktrees = world.home.memory_worktrees_dir(agent.id)
    assert not worktrees.exists() or not list(worktrees.iterdir())
    return load_run_record(world.home, agent.id, outcome.run_id)


def test_a_well_behaved_agent_merges_with_provenance_trailers(world, agent, store, parent):
    turns = _chat(world, store, "I prefer tabs")
    edit = {"command": "insert", "path": HUMAN, "content": "- Preference: tabs"}
    head = parent.head_sha()
    outcome = _launch(world, agent, store, _agent(edit))
    assert outcome.status == "merged"
    trailers = git(parent.path, "log", "--no-merges", "--format=%(trailers)", f"{head}..HEAD")
    assert f"Reflection-Run: {outcome.run_id}" in trailers
    assert f"Conversation: {store.conversation_id}" in trailers
    assert f"Messages: {turns[0][0].id}..{turns[0][-1].id}" in trailers


def test_deleting_human_md_is_rejected_and_kept_until_discarded(world, agent, store, parent):
    """A rejection counts as a failure for the backoff; the next run keeps the earlier rejected
    branch; discarding one drops its branch and offers the slice again."""
    _chat(world, store, "forget everything")
    head = parent.head_sha()
    first = _launch(world, agent, store, _agent({"command": "delete", "path": HUMAN}))
    record = _held_back(world, agent, store, parent, head, first)
    assert "deletes system/human.md" in first.message
    assert record.reasons and record.status == "rejected"
    assert first.consecutive_failures == 1
    assert read_reflection_state(store).consecutive_failures == 1

    second = _launch(world, agent, store, _agent({"command": "delete", "path": HUMAN}))
    branches = git(parent.path, "branch", "--list", "reflection*").split()
    assert branches == sorted(f"reflection-rejected/{o.run_id}" for o in (first, second))

    record = discard_rejected_run(world.home, agent.id, first.run_id)
    assert (record.status, record.decision) == ("rejected", "discarded")
    assert parent.head_sha() == head
    branches = git(parent.path, "branch", "--list", "reflection*").split()
    assert branches == [f"reflection-rejected/{second.run_id}"]
    assert preview_reflection(world, agent, store) is not None
    with pytest.raises(ReflectionError, match="rejected and discarded"):
        accept_rejected_run(world.home, agent.id, first.run_id, world.clock)


def test_rewriting_a_fact_without_evidence_is_rejected_and_accept_merges_it(
    world, agent, store, parent
):
    """Held back, then accepted by a person: merged, the watermark advanced."""
    (turn,) = _chat(world, store, "I had a peanut snack yesterday and it was fine")
    head = parent.head_sha()
    edit = {"command": "str_replace", "path": HUMAN, "old_str": FACT, "new_str": "- No allergy"}
    outcome = _launch(world, agent, store, _agent(edit))
    _held_back(world, agent, store, parent, head, outcome)
    assert "changes or removes 1 existing line(s) without citing evidence" in outcome.message

    record = accept_rejected_run(world.home, agent.id, outcome.run_id, world.clock)
    assert (record.status, record.decision) == ("merged", "accepted")
    assert "- No allergy" in (parent.path / HUMAN).read_text()
    assert record.merge_commit == parent.head_sha()
    state = read_reflection_state(store)
    assert state.reflected_through_message_id == turn[-1].id
    assert state.consecutive_failures == 0
    assert preview_reflection(world, agent, store) is None
    assert git(parent.path, "branch", "--list", "reflection*").split() == []
    with pytest.raises(ReflectionError, match="not waiting for a decision"):
        accept_rejected_run(world.home, agent.id, outcome.run_id, world.clock)


def test_citing_a_message_outside_the_slice_is_rejected(world, agent, store, parent):
    _chat(world, store, "my allergy turned out to be a misdiagnosis")
    head = parent.head_sha()
    edit = {
        "command": "str_replace",
        "path": HUMAN,
        "old_str": FACT,
        "new_str": "- Allergy: none (a misdiagnosis)",
        "evidence": ["msg-not-in-this-slice"],
    }
    outcome = _launch(world, agent, store, _agent(edit))
    _held_back(world, agent, store, parent, head, outcome)
    assert "cites msg-not-in-this-slice, not in this run's messages" in outcome.message


def test_a_rewrite_citing_its_message_merges_and_the_citation_is_recorded(
    world, agent, store, parent
):
    (turn,) = _chat(world, store, "my allergy turned out to be a misdiagnosis")
    edit = {
        "command": "str_replace",
        "path": HUMAN,
        "old_str": FACT,
        "new_str": "- Allergy: none (a misdiagnosis)",
        "evidence": [turn[0].id],
    }
    outcome = _launch(world, agent, store, _agent(edit))
    assert outcome.status == "merged", outcome.message
    record = load_run_record(world.home, agent.id, outcome.run_id)
    assert record.citations == {HUMAN: [turn[0].id]}


def test_dumping_the_transcript_into_system_is_rejected(world, agent, store, parent):
    lines = [
        f"line {n}: here is a long stretch of the session log, kept word for word" for n in range(4)
    ]
    _chat(world, store, "\n".join(lines))
    head = parent.head_sha()
    edit = {"command": "insert", "path": HUMAN, "content": "\n".join(lines)}
    outcome = _launch(world, agent, store, _agent(edit))
    _held_back(world, agent, store, parent, head, outcome)
    assert "system/human.md copies the transcript verbatim" in outcome.message


def test_one_long_copied_stretch_is_a_dump_too(world, agent, store, parent):
    text = "".join(f"word{n} " for n in range(80))  # ~500 characters on one line
    _chat(world, store, text)
    head = parent.head_sha()
    edit = {"command": "insert", "path": HUMAN, "content": "- Note: " + text[37:300]}
    outcome = _launch(world, agent, store, _agent(edit))
    _held_back(world, agent, store, parent, head, outcome)
    assert "verbatim" in outcome.message


def test_one_sentence_kept_in_the_users_words_is_not_a_dump(world, agent, store, parent):
    said = (
        "We decided to always deploy staging from the release branch, after the smoke tests "
        "pass on the build server."
    )  # 107 characters: a statement, not a stretch of the session
    _chat(world, store, said)
    outcome = _launch(
        world, agent, store, _agent({"command": "insert", "path": HUMAN, "content": f"- {said}"})
    )
    assert outcome.status == "merged", outcome.message


def test_a_duplicate_line_is_rejected_after_normalisation(world, agent, store, parent):
    _chat(world, store, "I am allergic to peanuts")
    head = parent.head_sha()
    twin = "* allergy:  Severe peanut allergy; confirmed by the user!"
    outcome = _launch(
        world, agent, store, _agent({"command": "insert", "path": HUMAN, "content": twin})
    )
    _held_back(world, agent, store, parent, head, outcome)
    assert "duplicates what memory already says" in outcome.message
    assert normalise_line(twin) == normalise_line(FACT)


def test_system_past_its_budget_is_rejected(world, agent, store, parent):
    content = "\n".join(f"- fact number {n} about the user" for n in range(40))
    ((said, *_),) = _chat(world, store, f"remember these:\n{content}")
    head = parent.head_sha()
    edit = {"command": "insert", "path": HUMAN, "content": content, "evidence": [said.id]}
    provider = _agent(edit)
    world_agent = agent.with_updates(context_window=8_192)  # budget: 2,048 tokens
    outcome = _launch(world, world_agent, store, provider)
    assert outcome.status == "merged", outcome.message  # fits
    _chat(world, store, "and more")
    head = parent.head_sha()
    big = "\n".join(f"- another long fact number {n} about the user's habits" for n in range(150))
    outcome = _launch(
        world, world_agent, store, _agent({"command": "insert", "path": HUMAN, "content": big})
    )
    assert outcome.status == "rejected" and parent.head_sha() == head
    assert "system/ would grow to" in outcome.message
    assert "system/human.md would grow to" in outcome.message


def test_cli_shows_accepts_and_discards(world, agent, store, parent, cli):
    _chat(world, store, "forget everything")
    outcome = _launch(world, agent, store, _agent({"command": "delete", "path": HUMAN}))
    shown = cli("reflections", "show", outcome.run_id, "--agent", agent.id)
    assert shown.code == 0
    assert "rejected:     deletes system/human.md" in shown.stdout
    assert "deleted file mode" in shown.stdout
    listed = json.loads(cli("reflections", "list", "--json", "--agent", agent.id).stdout)
    assert listed[0]["reasons"] and listed[0]["status"] == "rejected"
    waiting = cli("reflections", "list", "--agent", agent.id).stdout
    assert "rejected (waiting: accept or discard)" in waiting
    accepted = cli("reflections", "accept", outcome.run_id, "--agent", agent.id)
    assert accepted.code == 0 and "Accepted reflection run" in accepted.stdout
    assert not (parent.path / HUMAN).exists()
    again = cli("reflections", "discard", outcome.run_id, "--agent", agent.id)
    assert again.code == 1 and "not waiting for a decision" in again.stderr
    assert "Traceback" not in again.stderr
    assert "merged (accepted)" in cli("reflections", "list", "--agent", agent.id).stdout
    _chat(world, store, "and forget yourself too")
    other = _launch(world, agent, store, _agent({"command": "delete", "path": "system/persona.md"}))
    cli("reflections", "discard", other.run_id, "--agent", agent.id)
    assert "rejected (discarded)" in cli("reflections", "list", "--agent", agent.id).stdout


# ----- the gate on its own, over plain git commits ---------------------------------------------


def _branch_with(repo: GitRepo, files: dict[str, str]) -> tuple[str, str]:
    base = repo.head_sha()
    git(repo.path, "switch", "-qc", "candidate")
    for rel, text in files.items():
        path = repo.path / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    git(repo.path, "add", "-A")
    git(repo.path, "commit", "-qm", "candidate")
    return base, repo.head_sha()  # left checked out: the gate reads the tip's files


def _facts(**overrides):
    return GateInput(transcript=(), slice_ids=frozenset(), **overrides)


def test_the_gate_names_a_secret_bad_frontmatter_and_a_file_outside_the_layout(parent):
    base, tip = _branch_with(
        parent,
        {
            "notes/keys.md": f"---\ndescription: keys\n---\n- key {SECRETS[0]}\n",
            "notes/broken.md": "---\ndescription: [unclosed\n---\nbody\n",
            "scratch.txt": "not memory\n",
        },
    )
    reasons = check_gate(parent, base, tip, parent.path, _facts())
    assert any("a secret" in r and "notes/keys.md" in r for r in reasons)
    assert any("invalid frontmatter in notes/broken.md" in r for r in reasons)
    assert any("writes scratch.txt, outside the memory layout" in r for r in reasons)
    assert SECRETS[0] not in " ".join(reasons)


def test_the_gate_lets_plain_additions_through(parent):
    base, tip = _branch_with(
        parent, {"notes/project.md": "---\ndescription: p\n---\n- uses pnpm\n"}
    )
    limits = GateLimits.for_window(128_000)
    said = [{"id": "msg-1", "role": "user", "content": "this project uses pnpm"}]
    assert check_gate(parent, base, tip, parent.path, _facts(limits=limits, messages=said)) == []


def test_a_duplicate_is_found_in_the_files_already_read_with_one_git_process(parent):
    body = "- Editor: Vim (since 2019)\n- 编辑器：用 Vim\n"
    (parent.path / "notes").mkdir()
    (parent.path / "notes/tools.md").write_text(f"---\ndescription: t\n---\n{body}")
    git(parent.path, "add", "-A")
    git(parent.path, "commit", "-qm", "tools")
    twins = "* editor — VIM, since 2019!\n- 编辑器: 用vim\n- Shell: fish\n"
    base, tip = _branch_with(parent, {"notes/tools.md": f"---\ndescription: t\n---\n{body}{twins}"})
    with git_calls() as started:
        reasons = check_gate(parent, base, tip, parent.path, _facts())
    assert reasons == [
        "notes/tools.md duplicates what memory already says: '* editor — VIM, since 2019!'"
    ]
    assert started == ["diff"]  # the duplicate check reads the files the gate holds


def test_the_mock_cites_evidence_when_it_replaces_a_contradicted_line(world, agent, store):
    from mini_letta.llm.mock import MockProvider

    _chat(world, store, "我更喜欢用 tabs 缩进")
    assert _launch(world, agent, store, MockProvider()).status == "merged"
    (turn,) = _chat(world, store, "其实我更喜欢用空格缩进")
    outcome = _launch(world, agent, store, MockProvider())
    assert outcome.status == "merged"
    record = load_run_record(world.home, agent.id, outcome.run_id)
    assert record.citations == {HUMAN: [turn[0].id]}


@pytest.mark.parametrize(
    ("name", "steps", "status", "named"),
    [
        (
            "leaves its edit uncommitted",
            [respond("", tool_call("memory", 1, command="insert", path=HUMAN, content="- x1"))],
            "dirty_uncommitted",
            "system/human.md",
        ),
        (
            "leaves a new file untracked",
            [
                respond(
                    "",
                    tool_call(
                        "memory",
                        1,
                        command="create",
                        path="reference/notes.md",
                        description="notes",
                        content="- x2",
                    ),
                )
            ],
            "dirty_uncommitted",
            "reference/notes.md",
        ),
        (
            "never commits anything",
            [respond("", tool_call("memory_read", 1, path=HUMAN))],
            "no_changes",
            "",
        ),
        (
            "calls an unknown tool",
            [respond("", tool_call("Bash", 1, command="rm -rf /"))],
            "failed",
            "no tool named 'Bash'",
        ),
        (
            "never stops reading",
            [respond("", tool_call("memory_read", n, path=HUMAN)) for n in range(1, 9)],
            "failed",
            "did not finish within 4 steps",
        ),
        (
            "writes a secret",
            [
                respond(
                    "",
                    tool_call("memory", 1, command="insert", path=HUMAN, content=f"- {SECRETS[0]}"),
                ),
                respond("", tool_call("memory_commit", 2, message="reflection: key")),
            ],
            "failed",
            "looks like a secret",
        ),
    ],
)
def test_other_misbehaviour_changes_no_memory(
    world, agent, store, parent, name, steps, status, named
):
    _chat(world, store, "hello there, nothing lasting")
    head = parent.head_sha()
    provider = ScriptedProvider([*steps, respond("done")])
    outcome = _launch(world, agent, store, provider, max_steps=4)
    assert outcome.status == status, (name, outcome.message)
    assert named in outcome.message
    assert parent.head_sha() == head and not parent.changed_paths()
    assert SECRETS[0] not in (parent.path / HUMAN).read_text()
    if outcome.status != "no_changes":  # a run that only read and stopped consumes its slice
        assert read_reflection_state(store).reflected_through_message_id is None


def test_the_budgets_follow_the_settings_percentages():
    assert GateLimits.for_window(100_000) == GateLimits(25_000, 10_000)
    assert GateLimits.for_window(100_000, 40, 5) == GateLimits(40_000, 5_000)


def test_a_file_over_budget_may_shrink_but_not_grow(world, agent, store, parent):
    human = parent.path / HUMAN
    filler = "".join(f"- note {n}: the person keeps a long list of notes\n" for n in range(90))
    human.write_text(
        human.read_text().replace("Nothing yet; I have not got to know this person.\n", "") + filler
    )
    git(parent.path, "commit", "-qam", "a hand edit past the cap")
    small = agent.with_updates(context_window=8_192)  # the per-file cap: 819 tokens
    (turn,) = _chat(world, store, "I like tea; and drop note 3, it is wrong")
    grow = _launch(world, small, store, _agent({"command": "insert", "path": HUMAN,
                                                "content": "- Likes tea"}))  # fmt: skip
    assert grow.status == "rejected" and "past the per-file cap of 819" in grow.message
    old = "- note 3: the person keeps a long list of notes\n"
    edit = {"command": "str_replace", "path": HUMAN, "old_str": old, "new_str": "",
            "evidence": [turn[0].id]}  # fmt: skip
    shrink = _launch(world, small, store, _agent(edit))
    assert shrink.status == "merged", shrink.message


def test_the_same_line_in_two_files_is_not_a_duplicate(world, agent, store, parent):
    (parent.path / "projects").mkdir()
    (parent.path / "projects/alpha.md").write_text("---\ndescription: A\n---\n- Language: Python\n")
    git(parent.path, "add", "-A")
    git(parent.path, "commit", "-qm", "alpha")
    (turn,) = _chat(world, store, "project beta is written in Python too")
    edit = {"command": "create", "path": "projects/beta.md", "description": "B",
            "content": "- Language: Python", "evidence": [turn[0].id]}  # fmt: skip
    assert _launch(world, agent, store, _agent(edit)).status == "merged"
    (again,) = _chat(world, store, "beta: remember it is Python")
    twice = {"command": "insert", "path": "projects/beta.md", "content": "- language: python!",
             "evidence": [again[0].id]}  # fmt: skip
    outcome = _launch(world, agent, store, _agent(twice))
    assert outcome.status == "rejected" and "duplicates what memory already says" in outcome.message


def test_an_edit_outside_memory_fails_the_run_even_after_a_good_edit(world, agent, store, parent):
    (turn,) = _chat(world, store, "I like tea")
    head = parent.head_sha()
    good = {"command": "insert", "path": HUMAN, "content": "- Likes tea", "evidence": [turn[0].id]}
    escape = {"command": "create", "path": "../escape.md", "description": "x", "content": "- x"}
    outcome = _launch(world, agent, store, _agent(good, escape))
    assert outcome.status == "failed" and "paths stay inside memory" in outcome.message
    assert parent.head_sha() == head
    assert read_reflection_state(store).reflected_through_message_id is None
    assert not (parent.path.parent / "escape.md").exists()


def test_a_secret_in_the_commit_message_fails_the_run_and_says_why(world, agent, store, parent):
    (turn,) = _chat(world, store, "I like tea")
    edit = {"command": "insert", "path": HUMAN, "content": "- Likes tea", "evidence": [turn[0].id]}
    steps = [
        respond("", tool_call("memory", 1, **edit)),
        respond("", tool_call("memory_commit", 2, message=f"reflection: {SECRETS[0]}")),
        respond("done"),
    ]
    outcome = _launch(world, agent, store, ScriptedProvider(steps))
    assert outcome.status == "failed" and "looks like a secret" in outcome.message
    assert SECRETS[0] not in outcome.message


@pytest.mark.parametrize(
    ("first", "then", "gone", "kept"),
    [
        ("I prefer npm", "I no longer use npm, I prefer pnpm", "I prefer npm", "pnpm"),
        ("我喜欢用vim写代码", "我不再用vim，改用emacs", "我喜欢用vim写代码", "emacs"),
    ],
    ids=["en", "zh"],
)
def test_the_mock_replaces_a_line_one_sentence_contradicts_and_the_gate_merges_it(
    world, agent, store, first, then, gone, kept
):
    from mini_letta.llm.mock import MockProvider

    _chat(world, store, first)
    assert _launch(world, agent, store, MockProvider()).status == "merged"
    _chat(world, store, then)
    outcome = _launch(world, agent, store, MockProvider())
    assert outcome.status == "merged", outcome.message
    text = (world.home.memory_dir(agent.id) / HUMAN).read_text()
    assert kept in text and f"- Preference: {gone}\n" not in text
    _chat(world, store, then)
    again = _launch(world, agent, store, MockProvider())  # said again: already known
    assert again.status == "no_changes", again.message


def test_accept_and_discard_at_once_decide_once_and_the_record_matches_memory(
    world, agent, store, parent
):
    import threading

    _chat(world, store, "I had a peanut snack and it was fine")
    edit = {"command": "str_replace", "path": HUMAN, "old_str": FACT, "new_str": "- No allergy"}
    outcome = _launch(world, agent, store, _agent(edit))
    assert outcome.status == "rejected"
    results: dict[str, object] = {}
    start = threading.Barrier(2, timeout=10)

    def decide(name, fn, *args):
        start.wait()
        try:
            results[name] = fn(world.home, agent.id, outcome.run_id, *args)
        except ReflectionError as exc:
            results[name] = exc

    threads = [
        threading.Thread(target=decide, args=("accept", accept_rejected_run, world.clock)),
        threading.Thread(target=decide, args=("discard", discard_rejected_run)),
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=30)
    won = [name for name, result in results.items() if not isinstance(result, Exception)]
    assert len(won) == 1, results
    record = load_run_record(world.home, agent.id, outcome.run_id)
    merged = "- No allergy" in (parent.path / HUMAN).read_text()
    assert record.decision == ("accepted" if merged else "discarded")


def test_a_reflection_waits_for_an_edit_being_committed_instead_of_skipping(
    world, agent, store, parent
):
    import threading
    import time

    from mini_letta.memory.repo import lock_memory

    _chat(world, store, "I prefer tabs")
    lease = world.home.agent_dir(agent.id) / "reflection.lease"
    holding, done = threading.Event(), threading.Event()

    def concurrent_edit():  # as the memory tool or MCP does: write, commit, under the lock
        with lock_memory(parent.path):
            human = parent.path / HUMAN
            human.write_text(human.read_text() + "- Editor: vim\n")
            holding.set()
            deadline = time.monotonic() + 10
            while not lease.exists() and time.monotonic() < deadline:
                time.sleep(0.01)
            time.sleep(0.1)
            git(parent.path, "commit", "-qam", "an edit from elsewhere")
        done.set()

    editor = threading.Thread(target=concurrent_edit)
    editor.start()
    # The edit is under way when the reflection starts (without this wait a fast launch could
    # look at memory before the editor thread ran, and race it to a merge conflict instead).
    assert holding.wait(timeout=10)
    try:
        outcome = _launch(
            world,
            agent,
            store,
            _agent({"command": "insert", "path": HUMAN, "content": "- Indent: tabs"}),
        )
    finally:
        editor.join(timeout=30)
    assert done.is_set()
    assert outcome.status == "merged", outcome.message
