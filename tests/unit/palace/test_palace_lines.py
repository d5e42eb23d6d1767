"""The line history replay (one `git log` for every file) agrees with `git blame` line by line,
over seeded random histories: inserts, deletions, rewrites, a deleted and re-created file, a
name with spaces and non-ASCII, and a merge commit."""

from __future__ import annotations

import random
import re
import subprocess

import pytest

from mini_letta.memory.repo import GitRepo
from mini_letta.palace.lines import load_line_history
from mini_letta.palace.markdown import render_inline, render_lines
from support.reflection_kit import git

NAMES = ["a.md", "dir/b.md", "dir/with space é.md", "c.md"]


def _blame(repo, path):
    out = git(repo, "blame", "--porcelain", "--first-parent", "HEAD", "--", path)
    shas = []
    for line in out.split("\n"):
        parts = line.split(" ")
        if len(parts) >= 3 and len(parts[0]) == 40 and parts[2].isdigit():
            shas.append(parts[0])
    return shas


def _commit(repo, message):
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", message, "--allow-empty")


@pytest.mark.parametrize("seed", range(4))
def test_replay_matches_git_blame(tmp_path, seed):
    rng = random.Random(seed)
    repo = tmp_path / "repo"
    repo.mkdir()
    git(repo, "init", "-q", "-b", "main")
    files: dict[str, list[str]] = {}
    for step in range(40):
        name = rng.choice(NAMES)
        lines = files.get(name, [])
        action = rng.random()
        if action < 0.1 and lines:
            (repo / name).unlink()
            files.pop(name)
        else:
            lines = list(lines)
            for _ in range(rng.randint(1, 4)):
                where = rng.randint(0, len(lines))
                roll = rng.random()
                if roll < 0.5 or not lines:
                    lines.insert(where, f"line {step}-{rng.randint(0, 999)}")
                elif roll < 0.75:
                    del lines[min(where, len(lines) - 1)]
                else:
                    lines[min(where, len(lines) - 1)] = f"changed {step}"
            (repo / name).parent.mkdir(parents=True, exist_ok=True)
            (repo / name).write_text("\n".join(lines) + ("\n" if lines else ""))
            files[name] = lines
        _commit(repo, f"step {step}")
        if step == 20:  # a side branch merged with a merge commit
            git(repo, "checkout", "-qb", "side")
            (repo / "side.md").write_text("from the side\n")
            _commit(repo, "side")
            git(repo, "checkout", "-q", "main")
            (repo / "main.md").write_text("on main\n")
            _commit(repo, "main moves")
            git(repo, "merge", "-q", "--no-ff", "--no-edit", "side")
    history = load_line_history(GitRepo(repo))
    tracked = subprocess.run(["git", "-C", str(repo), "ls-files", "-z"], capture_output=True,
                             check=True).stdout.decode().split("\0")  # fmt: skip
    for path in filter(None, tracked):
        expected = _blame(repo, path)
        got = [history.commits[i].sha for i in history.origins[path]]
        assert got == expected, path
        assert history.lines[path] == (repo / path).read_text().split("\n")[:-1]
    assert set(history.lines) == set(filter(None, tracked))


def test_markdown_is_escaped_and_never_links_out():
    rendered = render_lines(
        '# T\n- [x] <b>done</b> [site](https://e.com "t") ![alt](http://i/p.png)\n'
    )
    assert "<b>" not in rendered and "&lt;b&gt;done&lt;/b&gt;" in rendered
    assert "<a " not in rendered and "<img" not in rendered
    assert 'title="https://e.com"' in rendered and "[image: alt]" in rendered
    assert rendered.count('class="ln ') == 2  # one element per line, no trailing blank line


def test_markdown_gives_every_line_its_number_through_fences_and_frontmatter():
    text = "---\ndescription: d\n---\n```\n<code>\n```\n| a | b |\n|---|---|\ntext `x<y` **b**\n"
    numbers = [int(n) for n in re.findall(r'data-l="(\d+)"', render_lines(text))]
    assert numbers == list(range(1, 10))
    assert render_inline("`a<b` and *em* and **strong**") == (
        "<code>a&lt;b</code> and <em>em</em> and <strong>strong</strong>"
    )
