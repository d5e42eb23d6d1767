"""A memory with a history for palace tests: several reflection runs (fast-forwarded and one
merge commit), a rejected run, an undo and a hand edit, with a secret said in the chat."""

from __future__ import annotations

import shutil

from mini_letta.conversations.messages import Usage
from mini_letta.conversations.store import ConversationStore
from mini_letta.home import Home
from mini_letta.memory.history import save_hand_edit
from mini_letta.reflection.gate.check import GateLimits
from mini_letta.reflection.history.undo import undo_reflection_run
from mini_letta.reflection.run.launch import launch_reflection
from mini_letta.reflection.run.setup import LaunchOptions
from mini_letta.reflection.state.records import load_run_record
from mini_letta.structs import Struct
from mini_letta.workspace import World, new_agent, resolve_conversation
from support.clock import FakeClock
from support.reflection_kit import (
    ScriptedProvider,
    SideEffectProvider,
    add_turn,
    message,
    respond,
    tool_call,
)

HUMAN = "system/human.md"
SECRET = "sk-proj-Ab3dEf6hIj9kLm2nOp5qRs8tUv1wXy4z"
LIMITS = GateLimits.for_window(8192)


class Story(Struct, frozen=True):
    agent: object
    store: object
    runs: dict  # name -> run id
    messages: dict  # name -> message id


def _insert(line, *evidence):
    edit = {"command": "insert", "path": HUMAN, "content": line}
    return {**edit, "evidence": list(evidence)} if evidence else edit


def _run(world, agent, store, edits, effects=None):
    steps = [respond("", tool_call("memory", n, **edit)) for n, edit in enumerate(edits, 1)]
    steps.append(respond("", tool_call("memory_commit", 99, message="reflection: update")))
    provider = ScriptedProvider([*steps, respond("done")])
    if effects:
        provider = SideEffectProvider(provider, effects)
    return launch_reflection(world, agent, store, LaunchOptions(provider=provider))


def build_story(world) -> Story:
    agent = new_agent(world, name="scout")
    store = resolve_conversation(world, agent, None)
    memory = world.home.memory_dir(agent.id)
    clock = world.clock
    runs, messages = {}, {}

    decaf = add_turn(store, clock, "I switched to decaf this year", answer="noted")
    messages["decaf"] = decaf[0].id
    add_turn(store, clock, "and I like quiet mornings", answer="noted")  # the gate grounds it
    first = _run(world, agent, store, [
        _insert("- Drinks decaf", decaf[0].id),
        _insert("- Likes quiet mornings"),
    ])  # fmt: skip
    assert first.status == "merged", first.message
    runs["first"] = first.run_id

    editor = add_turn(store, clock, f"My editor is vim, and my key is {SECRET}", answer="ok")
    messages["editor"] = editor[0].id

    def hand_edit_meanwhile():  # main moves during the run: its merge is a merge commit
        save_hand_edit(memory, "notes/plans.md",
                       lambda _: "---\ndescription: Plans\n---\n- Ship the palace\n")  # fmt: skip

    second = _run(world, agent, store, [
        _insert("- Editor: vim", editor[0].id),
    ], effects={1: hand_edit_meanwhile})  # fmt: skip
    assert second.status == "merged", second.message
    runs["second"] = second.run_id

    tea = add_turn(store, clock, "Tea in the afternoon, always", answer="ok")
    messages["tea"] = tea[0].id
    third = _run(world, agent, store, [
        _insert("- Tea in the afternoon", tea[0].id),
    ])  # fmt: skip
    assert third.status == "merged", third.message
    runs["third"] = third.run_id
    undo_reflection_run(world.home, agent.id, third.run_id, clock)

    rewrite = add_turn(store, clock, "whatever", answer="ok")
    rejected = _run(world, agent, store, [
        {"command": "str_replace", "path": HUMAN, "old_str": "- Drinks decaf",
         "new_str": "- Drinks espresso"},
    ])  # fmt: skip
    assert rejected.status == "rejected", rejected.message
    runs["rejected"] = rejected.run_id
    messages["rewrite"] = rewrite[0].id

    store.append([
        message(clock, "user", "how big is the context now?"),
        message(clock, "assistant", "about half", usage=Usage(4000, 20, 3000, 0)),
        message(clock, "user", "and now?"),
        message(clock, "assistant", "a little more", usage=Usage(4200, 25, 0, 0)),
    ])  # fmt: skip
    save_hand_edit(memory, HUMAN, lambda text: text + "- Prefers short answers\n", "Edit by hand")
    assert load_run_record(world.home, agent.id, third.run_id).status == "undone"
    return Story(agent, store, runs, messages)


# The story each test process built (four reflection runs, an undo, edits: about 70 git processes
# and 0.3 s of CPU), shared by the modules that use it (tests/unit/palace/test_palace_page.py and
# tests/cli/test_palace_browser.py, one xdist group: PALACE_GROUP).
_built: list[tuple[World, Story]] = []

PALACE_GROUP = "palace-page"


def build_story_once(tmp_path_factory) -> tuple[World, Story]:
    """A story in a world of its own, built once per test process, for module-scoped fixtures
    that only read it or `copy_story` it."""
    if not _built:
        root = tmp_path_factory.mktemp("palace-story")
        (root / "project").mkdir()
        home = Home(root / "home")
        world = World(home=home, cwd=root / "project", environ={}, clock=FakeClock())
        _built.append((world, build_story(world)))
    return _built[0]


def copy_story(built_world, built: Story, world) -> Story:
    """`built` (made by `build_story` in `built_world`) in a copy of its home under `world`, the
    clock moved to where the build left it: four runs, an undo and edits cost far more than a
    copy, so a module builds the story once and each test gets its own."""
    shutil.copytree(built_world.home.root, world.home.root, symlinks=True, dirs_exist_ok=True)
    world.clock.current, world.clock.mono = built_world.clock.current, built_world.clock.mono
    store = ConversationStore(built.agent.id, built.store.conversation_id, world.home)
    return Story(built.agent, store, built.runs, built.messages)
