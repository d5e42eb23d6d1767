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


class _History:
    """Commits written by one `git fast-import` (a whole tree each, as `add -A` would stage it)
    rather than an add and a commit per step: 45 commits in one git process."""

    def __init__(self) -> None:
        self.stream = bytearray()
        self.marks = 0

    def commit(self, branch: str, message: str, tree: dict[str, str], *parents: int) -> int:
        self.marks += 1
        text = message.encode()
        self.stream += b"commit refs/heads/%s\nmark :%d\n" % (branch.encode(), self.marks)
        self.stream += b"committer t <t@t> %d +0000\n" % (1_700_000_000 + self.marks)
        self.stream += b"data %d\n%s\n" % (len(text), text)
        for verb, parent in zip(("from", *["merge"] * len(parents)), parents, strict=False):
            self.stream += b"%s :%d\n" % (verb.encode(), parent)
        self.stream += b"deleteall\n"
        for path, content in sorted(tree.items()):
            data = content.encode()
            self.stream += b"M 100644 inline %s\ndata %d\n%s\n" % (path.encode(), len(data), data)
        return self.marks

    def write(self, repo) -> None:
        subprocess.run(["git", "-C", str(repo), "fast-import", "--quiet"],
                       input=bytes(self.stream), check=True, capture_output=True)  # fmt: skip
        git(repo, "reset", "-q", "--hard", "main")


@pytest.mark.parametrize("seed", range(4))
def test_replay_matches_git_blame(tmp_path, seed):
    rng = random.Random(seed)
    repo = tmp_path / "repo"
    repo.mkdir()
    git(repo, "init", "-q", "-b", "main")
    files: dict[str, list[str]] = {}
    extra: dict[str, str] = {}  # the merge's files, kept by every later commit
    history = _History()
    head = 0
    for step in range(40):
        name = rng.choice(NAMES)
        lines = files.get(name, [])
        action = rng.random()
        if action < 0.1 and lines:
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
            files[name] = lines
        tree = {n: "\n".join(ls) + ("\n" if ls else "") for n, ls in files.items()} | extra
        head = history.commit("main", f"step {step}", tree, *([head] if head else []))
        if step == 20:  # a side branch merged with a merge commit
            side = history.commit("side", "side", tree | {"side.md": "from the side\n"}, head)
            extra["main.md"] = "on main\n"
            head = history.commit("main", "main moves", tree | extra, head)
            extra["side.md"] = "from the side\n"
            head = history.commit("main", "Merge branch 'side'", tree | extra, head, side)
    history.write(repo)
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
