"""`mini-letta memory remote|sync|import|export`: memory shared across machines and tools."""

from __future__ import annotations

import json
from pathlib import Path

import click

from mini_letta.cli.background import SYNC_WORKER_FLAG
from mini_letta.cli.options import agent_option
from mini_letta.cli.terminal import echo


def agent_memory_dir(agent: str | None, *, check: bool = True) -> tuple[str, Path]:
    """(agent id, memory folder) of the agent a `memory` command acts on; with `check`, a lost
    or broken memory is an error (`memory path` and `memory recover` go without)."""
    from mini_letta.cli.world import current_world
    from mini_letta.workspace import resolve_agent

    world = current_world()
    record = resolve_agent(world, agent, check_memory=check)
    return record.id, world.home.memory_dir(record.id)


def warn_over_budget(agent_id: str, paths: list[str]) -> None:
    """A hand edit that leaves memory over its budget is told so now, not at the next
    reflection the gate holds back."""
    from mini_letta.agents.registry import load_agent
    from mini_letta.cli.world import current_world
    from mini_letta.log import warning
    from mini_letta.reflection.api import over_budget_notices

    world = current_world()
    agent = load_agent(world.home, agent_id)
    for notice in over_budget_notices(world.home, world.project_dir, agent, paths):
        warning("%s", notice)


@click.group("remote")
def remote_group() -> None:
    """Show or change the git remote this memory syncs with."""


@remote_group.command("set")
@click.argument("url")
@agent_option
def remote_set(url: str, agent: str | None) -> None:
    """Sync this memory with URL (any git remote; credentials stay in your git config)."""
    from mini_letta.cli.world import current_world
    from mini_letta.memory.remote import check_remote_url, memory_remote_repo, set_remote

    world = current_world()
    checked = check_remote_url(url, world.cwd)
    _, folder = agent_memory_dir(agent)
    set_remote(memory_remote_repo(folder, world.environ), checked)
    echo(f"memory remote: {checked}; run `mini-letta memory sync` to sync now")


@remote_group.command("show")
@agent_option
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
def remote_show(agent: str | None, as_json: bool) -> None:
    """Print the remote and what the last sync did."""
    from mini_letta.cli.world import current_world
    from mini_letta.memory.remote import get_remote, memory_remote_repo
    from mini_letta.sync.state import files_needing_review, load_sync_state

    world = current_world()
    agent_id, folder = agent_memory_dir(agent)
    url = get_remote(memory_remote_repo(folder, world.environ))
    state = load_sync_state(world.home, agent_id, world.clock)
    review = files_needing_review(world.home, agent_id, world.clock)
    if as_json:
        data = {"url": url, **state.to_json(), "needsReview": list(review)}
        data.pop("schemaVersion")
        echo(json.dumps(data, ensure_ascii=False, indent=2))
        return
    echo(f"remote: {url or '(none; `mini-letta memory remote set URL`)'}")
    echo(f"last sync: {state.last_success_at or 'never'}")
    if state.last_error:
        echo(f"last error: {state.last_error} (at {state.last_attempt_at})")
    for path in review:
        echo(f"needs review: {path}")


@remote_group.command("unset")
@agent_option
def remote_unset(agent: str | None) -> None:
    """Stop syncing (the remote itself is left as it is)."""
    from mini_letta.cli.world import current_world
    from mini_letta.memory.remote import memory_remote_repo, unset_remote

    _, folder = agent_memory_dir(agent)
    removed = unset_remote(memory_remote_repo(folder, current_world().environ))
    echo("memory remote removed" if removed else "memory has no remote")


@click.command("sync")
@agent_option
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
@click.option(SYNC_WORKER_FLAG, "background", is_flag=True, hidden=True)
def sync_cmd(agent: str | None, as_json: bool, background: bool) -> None:
    """Fetch, merge and push the memory; edits on both sides are kept."""
    from mini_letta.cli.world import current_world
    from mini_letta.memory.repo import GitRepo
    from mini_letta.sync.engine import SyncError, sync_memory

    world = current_world()
    agent_id, folder = agent_memory_dir(agent)
    before = GitRepo(folder).head_sha()
    try:
        outcome = sync_memory(world.home, agent_id, world.clock, world.environ)
    except SyncError:
        if background:  # recorded in memory-sync.json; the next command reports it once
            raise click.exceptions.Exit(1) from None
        raise
    if background:
        return
    if outcome.head != before:
        from mini_letta.reflection.api import changed_paths

        warn_over_budget(agent_id, changed_paths(folder, before))
    if as_json:
        data = {
            "head": outcome.head,
            "pulled": outcome.pulled,
            "pushed": outcome.pushed,
            "merged": outcome.merged,
            "needsReview": list(outcome.needs_review),
        }
        echo(json.dumps(data, ensure_ascii=False, indent=2))
    else:
        echo(f"memory sync: {outcome.summary}")


@click.command("import")
@click.argument("paths", nargs=-1, required=True, type=click.Path(path_type=Path))
@agent_option
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
def import_cmd(paths: tuple[Path, ...], agent: str | None, as_json: bool) -> None:
    """Import CLAUDE.md, AGENTS.md, CONVENTIONS.md or .cursor/rules/*.mdc (files or folders)."""
    from mini_letta.cli.world import current_world
    from mini_letta.interop.import_files import import_into_memory

    world = current_world()
    _, folder = agent_memory_dir(agent)
    user_home = Path(world.environ.get("HOME") or Path.home())
    cwd_paths = [path if path.is_absolute() else world.cwd / path for path in paths]
    result = import_into_memory(folder, cwd_paths, user_home)
    if as_json:
        data = {"changed": list(result.changed), "unchanged": list(result.unchanged)}
        data["skipped"] = list(result.skipped)
        echo(json.dumps({**data, "commit": result.sha}, ensure_ascii=False, indent=2))
        return
    for path in result.changed:
        echo(f"imported {path}")
    for path in result.unchanged:
        echo(f"unchanged {path}")
    for name in result.skipped:
        echo(f"skipped {name} (only mini-letta's own export)")
    if result.sha:
        echo(f"committed {result.sha[:7]}")


@click.command("export")
@click.option("--format", "fmt", type=click.Choice(["agents-md"]), default="agents-md")
@click.option("-o", "--output", type=click.Path(path_type=Path), help="Write to FILE.")
@click.option(
    "--include-personal",
    "personal",
    is_flag=True,
    help="Also export what the agent knows about you (system/human.md).",
)
@click.option("--force", is_flag=True, help="Replace FILE whole even if it has no export block.")
@agent_option
def export_cmd(
    fmt: str, output: Path | None, personal: bool, force: bool, agent: str | None
) -> None:
    """Write an AGENTS.md compiled from memory (to stdout, or into -o FILE's marked block)."""
    from mini_letta.cli.world import current_world
    from mini_letta.interop.export_files import merge_into, render_agents_md, render_block
    from mini_letta.memory.repo import GitRepo
    from mini_letta.storage.atomic import save_bytes
    from mini_letta.workspace import resolve_agent

    world = current_world()
    record = resolve_agent(world, agent)
    folder = world.home.memory_dir(record.id)
    head = GitRepo(folder).head_sha_or_none()
    if output is None:
        echo(render_agents_md(folder, record.name, head, personal=personal), nl=False)
        return
    target = output if output.is_absolute() else world.cwd / output
    block = render_block(folder, record.name, head, personal=personal)
    text = merge_into(_existing_text(target, str(output)), block, force=force, name=str(output))
    save_bytes(target, text.encode("utf-8"))
    echo(f"wrote {output}")


def _existing_text(target: Path, name: str) -> str | None:
    """The export target's text, or None when there is none yet (a regular UTF-8 file only:
    a link, a folder or a device is refused rather than replaced)."""
    from mini_letta.errors import FrontmatterError, MemfsError
    from mini_letta.memory.files import read_plain_bytes

    if not target.exists() and not target.is_symlink():
        return None
    try:
        return read_plain_bytes(target, name, kind="export targets").decode("utf-8")
    except FrontmatterError as exc:
        raise MemfsError(f"{exc}; nothing was written") from None
    except UnicodeDecodeError:
        raise MemfsError(f"{name} is not UTF-8 text; nothing was written") from None


SHARE_COMMANDS: tuple[click.Command, ...] = (remote_group, sync_cmd, import_cmd, export_cmd)
