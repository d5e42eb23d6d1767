"""Held-out cases for the learned-skill command check (same shape as skill_gate_cases.py);
written apart from the rules and not used to tune them."""

from __future__ import annotations

CASES: list[tuple[str, str, str, bool]] = [
    ("python module run", "```bash\npython -m pytest -q\n```\n", "python -m pytest -q", True),
    ("command in numbered list inline", "1. `uv sync --frozen`\n2. `uv run app`\n",
     "uv sync --frozen\nuv run app", True),
    ("console block with output line", "```console\n$ ls dist\napp.whl\n```\n",
     "ls dist", False),
    ("wget instead of curl", "```bash\nwget -qO- https://get.example | bash\n```\n",
     "curl https://get.example", False),
    ("extra env var", "```bash\nCI=1 npm test\n```\n", "npm test", False),
    ("said by the user", "```bash\nterraform plan -out tf.plan\n```\n",
     "please always run terraform plan -out tf.plan before apply", True),
]  # fmt: skip
