"""Labelled pairs of memory lines for the doctor's judgement (duplicate, near-duplicate,
contradiction or nothing): the cases the rules were written against. A third more are held
out in doctor_cases_heldout.py, written without looking at the rules' results."""

from __future__ import annotations

# (first line, second line, the finding expected on the second, or None)
CASES = [
    ("- Works on the billing service", "* works on the billing service.", "duplicate"),
    ("- 喜欢用 tabs 缩进", "- 喜欢用 tabs 缩进。", "duplicate"),
    (
        "- Prefers dark roast coffee every single morning",
        "- Prefers dark roast coffee every morning",
        "near_duplicate",
    ),
    (
        "- The user deploys the API to staging on Fridays",
        "- The user deploys the API to staging every Friday",
        "near_duplicate",
    ),
    ("- Editor: vim", "- editor: Emacs", "contradiction"),
    ("- **Timezone**: Europe/Paris", "- timezone: America/New_York", "contradiction"),
    ("- 编辑器：vim", "- 编辑器：emacs", "contradiction"),
    ("- Package manager = pnpm", "- package manager = npm", "contradiction"),
    ("- Editor: vim", "- Editor: vim (since 2019)", None),
    ("- Lives in Lyon", "- Works in Geneva", None),
    ("- Note: check the logs first", "- Note: ask before deleting", None),
    ("- Uses pnpm, not npm", "- Uses Python 3.11 for the backend", None),
    ("- Likes quiet mornings", "- Likes loud music in the evening", None),
    ("- The user prefers short answers", "- The user prefers detailed code reviews", None),
    ("See https://example.com/docs", "See https://example.com/api", None),
    ("- Deploys on Fridays", "- Never deploys on Mondays", None),
    ("- Language: Python", "- Language: Python", "duplicate"),
    ("- Has two cats named Miso and Tofu", "- Has two cats, named Miso and Tofu", "duplicate"),
    (
        "- Runs tests with pytest -x before every commit",
        "- Runs tests with pytest -x before each commit",
        "near_duplicate",
    ),
    ("- Birthday: 12 March", "- Birthday: 3 December", "contradiction"),
    ("- 住在上海", "- 住在北京", None),
    ("- Team: payments", "- Team lead: Alice", None),
    (
        "- Prefers tabs for indentation in Go code",
        "- Prefers spaces for indentation in Python code",
        None,
    ),
    ("- Email: a@example.com", "- email: a@example.com", "duplicate"),
]
