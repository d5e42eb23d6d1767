"""Every validation rule of the Agent Skills standard, each named by the problem it reports."""

from __future__ import annotations

import pytest

from mini_letta.skills.format import parse_skill


def _rules(frontmatter: str, folder: str | None = "pdf-tools") -> list[str]:
    _, problems = parse_skill(f"---\n{frontmatter}---\nbody\n", folder)
    return [problem.rule for problem in problems]


GOOD = "name: pdf-tools\ndescription: Extract text from PDFs. Use when a PDF is mentioned.\n"


def test_a_minimal_skill_is_valid_and_keeps_its_body():
    skill, problems = parse_skill(f"---\n{GOOD}---\n# Steps\n1. run it\n", "pdf-tools")
    assert problems == []
    assert skill is not None
    assert (skill.name, skill.body) == ("pdf-tools", "# Steps\n1. run it\n")


# (frontmatter, folder, the rule it breaks)
BROKEN_RULES = [
    ("description: d\n", "x", "name-required"),
    ("name: ''\ndescription: d\n", "x", "name-required"),
    ("name: 12\ndescription: d\n", "x", "name-required"),
    (f"name: {'a' * 65}\ndescription: d\n", "a" * 65, "name-length"),
    ("name: PDF-Tools\ndescription: d\n", "PDF-Tools", "name-lowercase"),
    ("name: pdf_tools\ndescription: d\n", "pdf_tools", "name-charset"),
    ("name: pdf tools\ndescription: d\n", "pdf tools", "name-charset"),
    ("name: -pdf\ndescription: d\n", "-pdf", "name-hyphen-edge"),
    ("name: pdf-\ndescription: d\n", "pdf-", "name-hyphen-edge"),
    ("name: pdf--tools\ndescription: d\n", "pdf--tools", "name-double-hyphen"),
    ("name: pdf-tools\ndescription: d\n", "other", "name-folder"),
    ("name: x\n", "x", "description-required"),
    ("name: x\ndescription: '   '\n", "x", "description-required"),
    ("name: x\ndescription: [a, b]\n", "x", "description-required"),
    (f"name: x\ndescription: {'d' * 1025}\n", "x", "description-length"),
    ("name: x\ndescription: d\nlicense: [MIT]\n", "x", "license-type"),
    ("name: x\ndescription: d\ncompatibility: ''\n", "x", "compatibility-type"),
    (f"name: x\ndescription: d\ncompatibility: {'c' * 501}\n", "x", "compatibility-length"),
    ("name: x\ndescription: d\nmetadata: just text\n", "x", "metadata-type"),
    ("name: x\ndescription: d\nmetadata:\n  version: 1.0\n", "x", "metadata-type"),
    ("name: x\ndescription: d\nallowed-tools: {Bash: yes}\n", "x", "allowed-tools-type"),
    ("name: x\ndescription: d\nallowed-tools: [Read, 3]\n", "x", "allowed-tools-type"),
    ("name: x\ndescription: d\ntriggers: pdf\n", "x", "unknown-field"),
    ("name: x\ndescription: d: e: [\n", "x", "frontmatter"),
    ("- name\n- description\n", "x", "frontmatter"),
]


def test_each_rule_is_reported_by_name():
    missed = [
        (frontmatter, rule, found)
        for frontmatter, folder, rule in BROKEN_RULES
        if rule not in (found := _rules(frontmatter, folder))
    ]
    assert not missed, "\n".join(map(repr, missed))


def test_the_limits_themselves_are_allowed():
    name = "a" * 64
    fm = f"name: {name}\ndescription: {'d' * 1024}\ncompatibility: {'c' * 500}\n"
    assert _rules(fm, name) == []


@pytest.mark.parametrize(
    "text",
    ["no frontmatter\n", "---\nname: x\ndescription: never closed\n", ""],
)
def test_framing_problems(text):
    skill, problems = parse_skill(text, "x")
    assert skill is None and [p.rule for p in problems] == ["frontmatter"]


def test_unicode_lowercase_names_follow_the_reference_validator():
    assert _rules("name: données\ndescription: d\n", "données") == []
    assert "name-lowercase" in _rules("name: Données\ndescription: d\n", "Données")


def test_allowed_tools_as_string_or_list_and_metadata_as_text():
    fm = (
        "name: x\ndescription: d\nallowed-tools:\n  - Bash(git:*)\n  - Read\n"
        'metadata:\n  author: example-org\n  version: "1.0"\n'
    )
    skill, problems = parse_skill(f"---\n{fm}---\n", "x")
    assert problems == [] and skill is not None
    assert skill.allowed_tools == ("Bash(git:*)", "Read")
    assert skill.metadata == {"author": "example-org", "version": "1.0"}
    skill, _ = parse_skill(
        "---\nname: x\ndescription: d\nallowed-tools: Bash(jq:*) Read\n---\n", "x"
    )
    assert skill is not None and skill.allowed_tools == ("Bash(jq:*)", "Read")


CLAUDE_CODE_SKILL = """---
name: explain-code
description: Explains code with visual diagrams and analogies. Use when explaining how code \
works, teaching about a codebase, or when the user asks "how does this work?"
argument-hint: "[file]"
disable-model-invocation: false
user-invocable: true
allowed-tools: Read, Grep
model: sonnet
---

When explaining code, always include:

1. **Start with an analogy**
2. **Draw a diagram**: use ASCII art
"""


def test_a_skill_in_claude_codes_format_loads_unchanged():
    skill, problems = parse_skill(CLAUDE_CODE_SKILL, "explain-code")
    assert problems == [] and skill is not None
    assert skill.description.startswith("Explains code with visual diagrams")
    assert skill.argument_hint == "[file]" and skill.user_invocable and skill.model_invocable
    assert skill.body.startswith("\nWhen explaining code")


def test_crlf_and_bom_are_accepted():
    text = "\ufeff---\r\nname: x\r\ndescription: d\r\n---\r\nbody\r\n"
    skill, problems = parse_skill(text, "x")
    assert problems == [] and skill is not None and skill.body == "body\n"


# Blocks the fast reader reads itself: each must read as yaml reads it.
FAST_BLOCKS = [
    "name: x\ndescription: Plain words, with commas.\n",
    "name: x\ndescription: 'quoted: with colon'\n",
    'name: x\ndescription: "double quoted"\nlicense: Apache-2.0\n',
    "name: x\ndescription: d\nmetadata:\n  author: me\n  origin: 'a: b'\n",
    "name: x\ndescription: yes\n",
    "name: x\ndescription: d # comment\n",
    "name: x\ndescription: d\nallowed-tools: [Read, Grep]\n",
    "name: x\ndescription: d\nallowed-tools: []\n",
    "name: x\ndescription: d\nallowed-tools: [Bash(git:*), Read]\n",
    "name: x\ndescription: d\nallowed-tools:\n  - Bash(git:*)\n  - Read\n",
    "name: x\ndescription: d\nmetadata:\n",
    "name: x\ndescription: d\nmetadata:\n  a: b\nlicense: MIT\n",
    "name: x\ndescription: d\nmetadata:\n  - a\n  - b\n",
    "name: x\ndescription: d\nhooks:\n  PreToolUse:\n    - matcher: Bash\n",
    "name: x\ndescription: d\nallowed-tools:\n- Read\n",
    "name: x\ndescription: >-\n  Folded over\n  two lines: with a colon\nlicense: MIT\n",
    "name: x\ndescription: |-\n  Literal\n  - kept as text\n",
    "name: x\ndescription: >-\n  Trailing  \n  spaces\n",
    "name: x\ndescription: >-\n  First\n    more indented\n  last\n",
    "name: x\ndescription: >-\n  Blank\n\n  between\n",
    "name: x\ndescription: >\n  Clipped\n",
    "name: x\ndescription: >-\nlicense: MIT\n",
    "name: x\ndescription: >-\n  Folded at the end",
    "name: x\ndescription: >\n  Clipped at the end",
]


def test_the_fast_reader_agrees_with_yaml():
    import yaml

    from mini_letta.skills.frontmatter import load_block

    differ = [(b, load_block(b), yaml.safe_load(b)) for b in FAST_BLOCKS]
    differ = [case for case in differ if case[1] != case[2]]
    assert not differ, "\n".join(map(repr, differ))


@pytest.mark.parametrize(
    "block",
    [
        "name: x\ndescription: d\nallowed-tools: [Read, Grep]\n",
        "name: x\ndescription: d\nallowed-tools:\n  - Bash(git:*)\n  - Read\n",
        'name: x\ndescription: "q"\nmetadata:\n  author: me\n  version: "1.0"\n',
        "name: x\ndescription: >-\n  Does the task.\n  Use when asked.\nallowed-tools: [Read]\n",
    ],
)
def test_the_usual_shapes_need_no_yaml(block):
    from mini_letta.skills.frontmatter import read_simple

    assert read_simple(block) is not None
