"""Held-out labelled pairs for the doctor's judgement (see doctor_cases.py): written after the
rules and never used to change them."""

from __future__ import annotations

HELD_OUT = [
    ("- Drinks oat milk in coffee", "- drinks oat milk in coffee!", "duplicate"),
    (
        "- Keeps the monorepo in ~/src/app and builds it with make",
        "- Keeps the monorepo in ~/src/app, builds it with make",
        "duplicate",
    ),
    (
        "- Reviews pull requests every weekday morning before standup",
        "- Reviews pull requests every weekday morning after standup",
        "near_duplicate",
    ),
    ("- Shell: zsh", "- shell: fish", "contradiction"),
    ("- Preferred language: English", "- Preferred language: 中文", "contradiction"),
    ("- 时区：UTC+8", "- 时区：UTC+1", "contradiction"),
    ("- Shell: zsh", "- Shell: zsh with oh-my-zsh", None),
    ("- Uses Linear for tickets", "- Uses GitHub for code review", None),
    ("- Has a standing desk", "- Has a dog called Pixel", None),
    ("- Writes commit messages in the imperative mood", "- Writes docs in the second person", None),
    (
        "- Works remotely from Lisbon three days a week",
        "- Works remotely from Lisbon two days a week",
        "near_duplicate",
    ),
    ("- OS: macOS", "- OS: Debian", "contradiction"),
]
