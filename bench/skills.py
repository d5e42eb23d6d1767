"""Skills at start-up: discovery of 200 skills, and the system prompt's skills block under its cap.

Usage: python bench/skills.py [--skills N] [--runs N]
Prints the median wall and CPU time to discover N skills (one SKILL.md each, in a project's
.claude/skills, half of them with a `metadata:` block and a quoted description, a tenth in a
form only yaml reads), the time to render the skills block, and the block's size in tokens
against its cap.
The CPU time of a fixed loop (`sum(range(10**6))`) and of reading the same files with nothing
else are printed too, so figures taken on a shared, loaded or sandboxed machine (where each
system call is slow) can be compared.
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

SRC = Path(__file__).resolve().parents[1] / "src"
sys.path.insert(0, str(SRC))

from _common import median_ms  # noqa: E402

from mini_letta.llm.tokens import estimate_tokens  # noqa: E402
from mini_letta.skills.discover import discover_skills, skill_roots  # noqa: E402
from mini_letta.skills.prompt import SKILLS_PROMPT_TOKENS, render_skills_block  # noqa: E402

DISCOVERY_BUDGET_MS = 20.0


def cpu_median_ms(action: Callable[[], object], runs: int) -> float:
    samples = []
    for _ in range(runs):
        started = time.process_time()
        action()
        samples.append((time.process_time() - started) * 1000)
    return statistics.median(samples)


def write_skills(project: Path, count: int) -> None:
    root = project / ".claude" / "skills"
    for n in range(count):
        folder = root / f"skill-{n:03d}"
        (folder / "references").mkdir(parents=True)
        head = f"name: skill-{n:03d}\n"
        description = f"Does task {n} of the release train. Use when asked about task {n}."
        if n % 10 == 9:  # a folded description: only yaml reads it
            head += f"description: >-\n  {description}\nallowed-tools: [Read, Grep]\n"
        elif n % 2:
            head += (
                f'description: "{description}"\nmetadata:\n  author: bench\n  version: "1.{n}"\n'
            )
        else:
            head += f"description: {description}\nlicense: MIT\n"
        body = "".join(f"{i}. Step {i} of the procedure, with care.\n" for i in range(1, 40))
        (folder / "SKILL.md").write_text(f"---\n{head}---\n# Task {n}\n{body}", encoding="utf-8")
        (folder / "references" / "notes.md").write_text("notes\n" * 50, encoding="utf-8")


COLD = """
import sys, time
sys.path.insert(0, {src!r})
started = time.process_time()
from pathlib import Path
from mini_letta.skills.discover import discover_skills, skill_roots
project = Path({project!r})
catalog = discover_skills(skill_roots(project / "memory", project, {{}}))
print((time.process_time() - started) * 1000, "yaml" in sys.modules, len(catalog.skills))
"""


def cold_discovery(project: Path) -> tuple[float, bool]:
    """Discovery as a session's start-up pays it: a fresh interpreter, imports included."""
    code = COLD.format(src=str(SRC), project=str(project))
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    ms, yaml, _ = out.stdout.split()
    return float(ms), yaml == "True"


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--skills", type=int, default=200)
    parser.add_argument("--runs", type=int, default=15)
    options = parser.parse_args()
    with tempfile.TemporaryDirectory() as scratch:
        project = Path(scratch)
        write_skills(project, options.skills)
        roots = skill_roots(project / "memory", project, {"HOME": str(project / "home")})
        catalog = discover_skills(roots)  # warm: yaml imported once, as a session would
        assert len(catalog.skills) == options.skills, catalog.invalid[:1]
        discovery = median_ms(lambda: discover_skills(roots), options.runs)
        discovery_cpu = cpu_median_ms(lambda: discover_skills(roots), options.runs)
        reference = cpu_median_ms(lambda: sum(range(10**6)), options.runs)
        files = [skill.skill_file for skill in catalog.skills]
        floor = cpu_median_ms(lambda: [path.read_bytes() for path in files], options.runs)
        block = render_skills_block([], catalog.skills)
        render = median_ms(lambda: render_skills_block([], catalog.skills), options.runs)
        tokens = estimate_tokens(block)
        listed = sum(1 for line in block.splitlines() if line.startswith("- skill-"))
        cold_ms, cold_yaml = cold_discovery(project)
    verdict = "ok" if discovery_cpu < DISCOVERY_BUDGET_MS else "OVER BUDGET"
    print(f"discovery of {options.skills} skills: {discovery:.1f} ms wall, {discovery_cpu:.1f} ms "
          f"CPU (budget {DISCOVERY_BUDGET_MS:.0f} ms: {verdict})")  # fmt: skip
    print(f"reference loop (sum of a million integers): {reference:.1f} ms CPU; reading the "
          f"{options.skills} SKILL.md files alone: {floor:.1f} ms CPU")  # fmt: skip
    print(f"in a fresh process (imports included): {cold_ms:.1f} ms CPU; yaml imported: "
          f"{cold_yaml}")  # fmt: skip
    behind = options.skills - listed
    print(f"skills block: {tokens} tokens (cap {SKILLS_PROMPT_TOKENS}), {listed} listed, "
          f"{behind} behind 'and N more'; rendered in {render:.2f} ms")  # fmt: skip
    if tokens > SKILLS_PROMPT_TOKENS:
        raise SystemExit("the skills block is over its token cap")


if __name__ == "__main__":
    main()
