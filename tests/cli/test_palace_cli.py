"""`mini-letta palace`, `/palace`, `mini-letta memory doctor` and the count in `status`,
through the CLI in-process (--open starts a real $BROWSER process)."""

from __future__ import annotations

import json
import os
import stat

from mini_letta.palace.gather import MESSAGE_LIMIT
from support.memory import commit_all, write_file
from support.waiting import wait_until


def test_palace_writes_an_owner_only_page_and_says_where(cli, reflected, home, project):
    agent_id = reflected.agent_id
    result = cli("palace", "-o", "out/palace.html")
    target = project / "out" / "palace.html"
    assert result.code == 0, result.stderr
    assert result.stdout.startswith(f"Wrote {target} (") and "1 reflection runs" in result.stdout
    assert stat.S_IMODE(target.stat().st_mode) == 0o600
    assert "tabs" in target.read_text(encoding="utf-8")
    default = cli("palace")
    assert default.code == 0 and str(home.palace_file(agent_id)) in default.stdout
    assert stat.S_IMODE(home.palace_file(agent_id).stat().st_mode) == 0o600


def test_palace_messages_bounds_what_is_embedded(cli, reflected, project):
    assert cli("palace", "-o", "p.html", "--messages", "1").code == 0
    page = (project / "p.html").read_text(encoding="utf-8")
    assert '"messageLimit":1' in page and f'"messageLimit":{MESSAGE_LIMIT}' not in page
    bad = cli("palace", "--messages", "-3")
    assert bad.code == 2 and "Traceback" not in bad.stderr


def test_palace_without_an_agent_is_one_line(cli):
    result = cli("palace")
    assert result.code == 1 and "no agent yet" in result.stderr and "Traceback" not in result.stderr


def test_palace_open_starts_the_browser_with_the_pages_address(
    cli, project_agent, project, tmp_path
):
    cli("chat", "-p", "hello")
    seen = tmp_path / "opened.txt"
    # $BROWSER as the terminal's environment has it: a shell that writes the address it is given
    env = {"BROWSER": f"sh -c 'printf %s \"$0\" > {seen}.part && mv {seen}.part {seen}'"}
    result = cli("palace", "-o", "p.html", "--open", env=env)
    assert result.code == 0, result.stderr
    wait_until(lambda: seen.exists() and seen.read_text(), "the browser to be started")
    assert seen.read_text() == (project / "p.html").as_uri()


def test_slash_palace_writes_the_page_for_the_sessions_agent(cli, project_agent, project):
    cli("chat", "-p", "hello")
    result = cli(stdin="/palace -o from-session.html\n/palace --serve\n/exit\n")
    assert result.code == 0, result.stderr
    assert (project / "from-session.html").exists() and "Wrote " in result.stdout
    assert "cannot --serve inside the session" in result.stderr


def _memory(home, agent_id):
    return home.memory_dir(agent_id)


def test_doctor_lists_findings_and_exits_1_only_when_severe(cli, reflected, home):
    agent_id = reflected.agent_id
    clean = cli("memory", "doctor")
    assert clean.code == 0 and "0 finding(s)" in clean.stdout
    memory = _memory(home, agent_id)
    write_file(memory, "notes/a.md", "---\ndescription: A\n---\n- TODO\n")
    commit_all(memory, "notes")
    mild = cli("memory", "doctor")
    assert mild.code == 0 and "info    notes/a.md:4" in mild.stdout
    write_file(memory, "notes/b.md", "no frontmatter\n")
    commit_all(memory, "broken")
    severe = cli("memory", "doctor", "--json")
    data = json.loads(severe.stdout)
    assert severe.code == 1 and data["counts"]["severe"] == 1
    broken = next(f for f in data["findings"] if f["kind"] == "frontmatter")
    assert broken["path"] == "notes/b.md" and broken["line"] == 1 and broken["advice"]


def test_status_shows_the_doctors_count_and_when_it_is_stale(cli, reflected, home):
    agent_id = reflected.agent_id
    assert "doctor      not run yet" in cli("status").stdout
    memory = _memory(home, agent_id)
    write_file(memory, "notes/a.md", "---\ndescription: A\n---\n- TODO\n")
    commit_all(memory, "notes")
    cli("memory", "doctor")
    status = cli("status")
    assert "doctor      1 finding(s): 0 severe, 0 warning(s), 1 info" in status.stdout
    assert json.loads(cli("status", "--output-format", "json").stdout)["doctor"]["current"]
    write_file(memory, "notes/a.md", "---\ndescription: A\n---\n- done\n")
    commit_all(memory, "tidy")
    assert "memory has changed since" in cli("status").stdout


def test_doctor_fix_starts_a_reflection_run_told_the_findings(cli, reflected, home):
    agent_id = reflected.agent_id
    memory = _memory(home, agent_id)
    write_file(memory, "notes/a.md", "---\ndescription: A\n---\n- TODO\n")
    commit_all(memory, "notes")
    result = cli("memory", "doctor", "--fix")
    assert "☾ reflection" in result.stderr, result.stderr
    runs = json.loads(cli("reflections", "list", "--json").stdout)
    newest = runs[0]
    assert "notes/a.md:4" in newest["instruction"] and newest["trigger"] == "manual"
    assert newest["status"] in {"merged", "no_changes", "rejected"}  # through the normal gate
    assert result.code == (0 if newest["status"] != "rejected" else 1)
    (memory / "notes" / "a.md").unlink()
    commit_all(memory, "tidy")
    nothing = cli("memory", "doctor", "--fix")
    assert nothing.code == 0 and "Nothing to fix." in nothing.stderr


def test_doctor_sees_a_file_that_is_not_a_file(cli, reflected, home):
    agent_id = reflected.agent_id
    os.symlink("/etc/passwd", _memory(home, agent_id) / "notes-link.md")
    result = cli("memory", "doctor")
    assert result.code == 1 and "notes-link.md  is a symbolic link" in result.stdout
