"""What start-up costs, counted rather than timed: modules imported, dataclasses built and
regular expressions compiled by `--version`, a mock turn and `status`.

Usage: python bench/startup_counts.py [--src PATH]
A command's start-up is mostly imports, and on Python 3.11 every dataclass definition compiles
its generated methods (about 1 ms each here; the package's own records are mini_letta.structs
Structs, which compile nothing, so the column counts what a dependency defines) and every regex
is compiled anew in each process, so these counts follow the time closely and, unlike a wall
clock, do not move with the load of a shared machine. `--src` counts another checkout's
package (e.g. main's) for a comparison.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

SRC = Path(__file__).resolve().parents[1] / "src"

# Two runs per command: one counts the modules (with nothing imported beforehand), the other
# counts builds (it has to import dataclasses and re first, to count what they do).
MODULES_PROBE = """
import sys
before = set(sys.modules)
from mini_letta.cli.main import main
code = main(sys.argv[1:])
loaded = set(sys.modules) - before
result = {"code": code, "modules": len(loaded)}
result["mini_letta"] = sum(1 for m in loaded if m.startswith("mini_letta"))
import json
print("\\nCOUNTS " + json.dumps(result))
"""

BUILDS_PROBE = """
import dataclasses, re, sys
counts = {"dataclasses": 0, "regexes": 0}
build = dataclasses._process_class
def counted_build(cls, *args, **kwargs):
    counts["dataclasses"] += 1
    return build(cls, *args, **kwargs)
dataclasses._process_class = counted_build
compile_ = re._compile
def counted_compile(pattern, flags):
    if not isinstance(pattern, re.Pattern) and (type(pattern), pattern, flags) not in re._cache:
        counts["regexes"] += 1
    return compile_(pattern, flags)
re._compile = counted_compile
from mini_letta.cli.main import main
result = {"code": main(sys.argv[1:]), **counts}  # before json compiles its own
import json
print("\\nCOUNTS " + json.dumps(result))
"""

COMMANDS = (("--version",), ("chat", "-p", "你好"), ("status",))


def _count(src: Path, home: Path, cwd: Path, args: tuple[str, ...]) -> dict[str, int]:
    return {
        **_probe(MODULES_PROBE, src, home, cwd, args),
        **_probe(BUILDS_PROBE, src, home, cwd, args),
    }


def _probe(probe: str, src: Path, home: Path, cwd: Path, args: tuple[str, ...]) -> dict[str, int]:
    env = {**os.environ, "MINI_LETTA_HOME": str(home), "PYTHONPATH": str(src)}
    proc = subprocess.run(
        [sys.executable, "-c", probe, *args],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    )
    line = next(line for line in proc.stdout.splitlines() if line.startswith("COUNTS "))
    result: dict[str, int] = json.loads(line.removeprefix("COUNTS "))
    if result["code"] != 0:
        raise SystemExit(f"{' '.join(args)} failed: {proc.stderr.strip()}")
    return result


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--src", type=Path, default=SRC, help="the package's parent folder")
    opts = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        home, cwd = Path(tmp) / "home", Path(tmp) / "project"
        cwd.mkdir()
        _probe(MODULES_PROBE, opts.src, home, cwd, ("chat", "-p", "hi"))  # make the agent
        print(f"{opts.src}: imported by the command (beyond a bare interpreter)")
        header = ("command", "modules", "mini_letta", "dataclasses", "regexes")
        print(f"{header[0]:20} {header[1]:>8} {header[2]:>11} {header[3]:>12} {header[4]:>8}")
        for args in COMMANDS:
            c = _count(opts.src, home, cwd, args)
            print(
                f"{' '.join(args):20} {c['modules']:8} {c['mini_letta']:11} "
                f"{c['dataclasses']:12} {c['regexes']:8}"
            )


if __name__ == "__main__":
    main()
