"""What hooks cost a mock headless turn: the code before hooks, this code without hooks (it
should cost the same), and this code with a UserPromptSubmit and a Stop hook (`true`).

Usage: python bench/hook_cost.py [--runs N] [--before REF]
Each variant runs `chat -p` in its own home, interleaved; prints the median wall and CPU time
(user + system of the process and its hooks) in milliseconds. REF (default: main's merge base)
is the git revision whose src/ is the "before".
"""

from __future__ import annotations

import argparse
import io
import json
import subprocess
import sys
import tarfile
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SRC = ROOT / "src"
sys.path.insert(0, str(SRC))

from _common import interleaved_median_ms, load_line, warm_bytecode  # noqa: E402

HOOKS = {
    "hooks": {
        "UserPromptSubmit": [{"hooks": [{"type": "command", "command": "true"}]}],
        "Stop": [{"hooks": [{"type": "command", "command": "true"}]}],
        "PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "true"}]}],
    }
}


def _export_src(ref: str, into: Path) -> Path:
    """`ref`'s src/ as files under `into` (git archive; nothing is checked out here)."""
    archive = subprocess.run(
        ["git", "-C", str(ROOT), "archive", ref, "src"], check=True, capture_output=True
    ).stdout
    with tarfile.open(fileobj=io.BytesIO(archive)) as tar:
        tar.extractall(into, filter="data")
    return into / "src"


def _command(src: Path, home: Path) -> list[str]:
    env = [f"PYTHONPATH={src}", f"MINI_LETTA_HOME={home}"]
    return ["env", *env, sys.executable, "-m", "mini_letta", "chat", "-p", "hi"]


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=15)
    parser.add_argument("--before", default="")
    opts = parser.parse_args()
    ref = (
        opts.before
        or subprocess.run(
            ["git", "-C", str(ROOT), "merge-base", "HEAD", "main"],
            check=True,
            capture_output=True,
            text=True,
        ).stdout.strip()
    )
    warm_bytecode()
    with tempfile.TemporaryDirectory() as tmp:
        base = Path(tmp)
        before_src = _export_src(ref, base / "before")
        import compileall

        compileall.compile_dir(before_src, quiet=1)
        project = base / "project"
        project.mkdir()
        variants = {
            f"before hooks ({ref[:10]})": (before_src, base / "home-before"),
            "no hooks configured": (SRC, base / "home-none"),
            "3 hooks (2 run per turn)": (SRC, base / "home-hooks"),
        }
        hooked = base / "home-hooks"
        hooked.mkdir()
        (hooked / "settings.json").write_text(json.dumps(HOOKS), encoding="utf-8")
        commands = [_command(src, home) for src, home in variants.values()]
        for command in commands:  # each home gets its agent first
            subprocess.run(command, cwd=project, check=True, capture_output=True)
        figures = interleaved_median_ms(commands, project, {"PATH": "/usr/bin:/bin"}, opts.runs)
    print(f"mock `chat -p` turn, {load_line(opts.runs)}")
    for name, (wall, cpu) in zip(variants, figures, strict=True):
        print(f"  {name:<32} wall {wall:7.1f} ms   cpu {cpu:7.1f} ms")


if __name__ == "__main__":
    main()
