"""The mock reflection agent's extraction: lasting vs ephemeral, and how memory is edited."""

from __future__ import annotations

import re

import pytest
from hypothesis import given
from hypothesis import strategies as st

from mini_letta.llm.mock_reflection import (
    PLACEHOLDER,
    PROJECT_FILE,
    _negated,
    _switches,
    _topic,
    extract_statements,
    is_project_fact,
    parse_switch,
    plan_human_edits,
    plan_project_edits,
)

AT = "2026-10-08T16:06:58.000Z"

LASTING = [
    ("我更喜欢用 tabs 缩进", "- Preference: 我更喜欢用 tabs 缩进"),
    ("今天我们决定以后一律用 pnpm", "- Decision (2026-10-08): 我们决定以后一律用 pnpm"),
    (
        "昨天我们决定从现在起用 Python 3.12",
        "- Decision (2026-10-07): 我们决定从现在起用 Python 3.12",
    ),
    ("我偏好函数式写法。", "- Preference: 我偏好函数式写法"),
    ("我喜欢用 vim 写代码", "- Preference: 我喜欢用 vim 写代码"),
    ("我叫李雷", "- About: 我叫李雷"),
    ("我是后端工程师", "- About: 我是后端工程师"),
    ("我对花生严重过敏", "- About: 我对花生严重过敏"),
    ("I'm severely allergic to shellfish.", "- About: I'm severely allergic to shellfish"),
    ("不对，其实我更喜欢空格缩进", "- Preference: 我更喜欢空格缩进"),
    ("其实数据库是 PostgreSQL 16", "- Correction: 数据库是 PostgreSQL 16"),
    ("请以后都用 pnpm", "- Decision: 请以后都用 pnpm"),
    ("I prefer single quotes in Python.", "- Preference: I prefer single quotes in Python"),
    ("I like short commit messages", "- Preference: I like short commit messages"),
    (
        "From now on, run the tests before every commit.",
        "- Decision: From now on, run the tests before every commit",
    ),
    (
        "We decided to use PostgreSQL for the new service",
        "- Decision: We decided to use PostgreSQL for the new service",
    ),
    ("Never push directly to main!", "- Decision: Never push directly to main"),
    ("Please always use tabs", "- Decision: Please always use tabs"),
    ("My name is Alice.", "- About: My name is Alice"),
    ("I work on the billing service", "- About: I work on the billing service"),
    ("Actually, I prefer spaces.", "- Preference: I prefer spaces"),
    ("No, we always deploy on Fridays", "- Decision: we always deploy on Fridays"),
    (
        "Today we decided to drop Python 3.9",
        "- Decision (2026-10-08): we decided to drop Python 3.9",
    ),
]


LASTING_IDS = [
    "zh-prefer-tabs",
    "zh-decided-pnpm-today",
    "zh-yesterday-from-now-on",
    "zh-prefer-functional",
    "zh-like-vim",
    "zh-my-name",
    "zh-i-am",
    "zh-allergy",
    "en-allergy",
    "zh-correction-spaces",
    "zh-correction-fact",
    "zh-please-from-now-on",
    "en-prefer",
    "en-like",
    "en-from-now-on",
    "en-we-decided",
    "en-never",
    "en-please-always",
    "en-name",
    "en-work-on",
    "en-actually",
    "en-no-always",
    "en-today-decided",
]


@pytest.mark.parametrize(("text", "line"), LASTING, ids=LASTING_IDS)
def test_lasting_statements_become_one_concise_line(text, line):
    found = extract_statements(text, AT)
    assert [s.line() for s in found] == [line]


EPHEMERAL = [
    "帮我看下这个报错",
    "嗯",
    "好的",
    "谢谢！",
    "这次先用 npm 吧",
    "你喜欢用什么编辑器？",
    "这个函数为什么报错呢",
    "帮我决定一下用哪个库",
    "ok",
    "thanks!",
    "Can you fix this bug?",
    "Could you run the tests",
    "I like this idea",
    "Let's use npm for now",
    "please look at line 40",
    "what do you prefer?",
    "hello",
]


EPHEMERAL_IDS = [
    "zh-look-at-error",
    "zh-hmm",
    "zh-ok",
    "zh-thanks",
    "zh-this-time",
    "zh-question",
    "zh-why-question",
    "zh-help-decide",
    "en-ok",
    "en-thanks",
    "en-can-you",
    "en-could-you",
    "en-like-this",
    "en-for-now",
    "en-please-look",
    "en-question",
    "en-hello",
]


@pytest.mark.parametrize("text", EPHEMERAL, ids=EPHEMERAL_IDS)
def test_requests_small_talk_and_one_offs_are_skipped(text):
    assert extract_statements(text, AT) == []


def test_several_sentences_in_one_message():
    found = extract_statements("帮我看下这个报错。另外，我更喜欢用 tabs 缩进。谢谢", AT)
    assert [s.line() for s in found] == ["- Preference: 我更喜欢用 tabs 缩进"]


def _plan(body: str, *texts: str) -> list[dict]:
    statements = [s for text in texts for s in extract_statements(text, AT)]
    return plan_human_edits(body, statements)


def test_the_chapters_two_lines_replace_the_placeholder_then_append():
    edits = _plan(
        PLACEHOLDER + "\n",
        "帮我看下这个报错",
        "我更喜欢用 tabs 缩进",
        "今天我们决定以后一律用 pnpm",
    )
    assert edits == [
        {
            "command": "str_replace",
            "path": "system/human.md",
            "old_str": PLACEHOLDER,
            "new_str": "- Preference: 我更喜欢用 tabs 缩进",
        },
        {
            "command": "insert",
            "path": "system/human.md",
            "content": "- Decision (2026-10-08): 我们决定以后一律用 pnpm",
        },
    ]


KNOWN = [
    pytest.param(
        "- Preference: 我更喜欢用 tabs 缩进\n", "I prefer tabs", id="same-choice-other-words"
    ),
    pytest.param(
        "- Preference: I like short commit messages\n",
        "I like short commit messages",
        id="same-text",
    ),
    pytest.param("- About: My name is Alice\n", "my name is alice", id="same-name"),
]


@pytest.mark.parametrize(("body", "text"), KNOWN)
def test_what_memory_already_says_is_skipped(body, text):
    assert _plan(body, text) == []


CONTRADICTIONS = [
    pytest.param(
        "- Preference: 我更喜欢用 tabs 缩进\n",
        "不对，其实我更喜欢空格缩进",
        "- Preference: 我更喜欢用 tabs 缩进",
        "- Preference: 我更喜欢空格缩进",
        id="tabs-to-spaces-zh",
    ),
    pytest.param(
        "- Decision: we use npm\n- Preference: I like short commit messages\n",
        "From now on we use pnpm",
        "- Decision: we use npm",
        "- Decision: From now on we use pnpm",
        id="npm-to-pnpm",
    ),
    pytest.param(
        "- About: 我叫李雷\n",
        "其实我叫韩梅梅",
        "- About: 我叫李雷",
        "- About: 我叫韩梅梅",
        id="name",
    ),
    pytest.param(
        "- Preference: I prefer spaces\n",
        "I prefer tabs over spaces",
        "- Preference: I prefer spaces",
        "- Preference: I prefer tabs over spaces",
        id="negated-choice-ignored",
    ),
]


@pytest.mark.parametrize(("body", "text", "old", "new"), CONTRADICTIONS)
def test_a_contradicted_line_is_replaced_not_appended(body, text, old, new):
    assert _plan(body, text) == [
        {"command": "str_replace", "path": "system/human.md", "old_str": old, "new_str": new}
    ]


# The gate's rule, kept by the mock as the prompt asks: a protected fact (a name, a rule) changes
# only when the user says so in words, and any line only when the message speaks of it or says a
# change; otherwise the new statement goes beside the line it contradicts.
BESIDE = [
    pytest.param(
        "- About: 我叫李雷\n", "我叫韩梅梅", "- About: 我叫韩梅梅", id="name-no-change-word"
    ),
    pytest.param(
        "- Decision: 从现在起我们一律用 yarn\n",
        "From now on we use bun everywhere.",
        "- Decision: From now on we use bun everywhere",
        id="rule-other-language",
    ),
    pytest.param(
        "- Preference: I prefer spaces for indentation\n",
        "我更喜欢用 tabs 缩进",
        "- Preference: 我更喜欢用 tabs 缩进",
        id="preference-other-language-no-change-word",
    ),
]


@pytest.mark.parametrize(("body", "text", "new"), BESIDE)
def test_a_contradiction_its_words_do_not_justify_goes_beside_the_old_line(body, text, new):
    assert _plan(body, text) == [{"command": "insert", "path": "system/human.md", "content": new}]


def test_a_later_statement_in_the_same_transcript_wins():
    edits = _plan(
        "- About: I work on billing\n", "我更喜欢用 tabs 缩进", "不对，其实我更喜欢空格缩进"
    )
    assert [e["command"] for e in edits] == ["insert", "str_replace"]
    assert edits[1]["old_str"] == "- Preference: 我更喜欢用 tabs 缩进"


PROJECT_FACTS = [
    ("In this repo we always run tox before pushing.", "In this repo we always run tox"),
    ("这个仓库的测试命令是 make check，我们决定以后一律先跑它", "这个仓库的测试命令是 make check"),
    ("From now on our codebase uses ruff, never flake8", "our codebase uses ruff"),
]


def test_project_facts_are_told_from_facts_about_the_person():
    for text, _ in PROJECT_FACTS:
        assert [is_project_fact(s) for s in extract_statements(text, AT)] == [True], text
    for text in ("我更喜欢用 tabs 缩进", "My name is Bob Li", "I prefer single quotes in Python"):
        assert [is_project_fact(s) for s in extract_statements(text, AT)] == [False], text


def test_project_facts_create_the_project_file_then_are_appended_once():
    found = [s for text, _ in PROJECT_FACTS[:2] for s in extract_statements(text, AT)]
    (create,) = plan_project_edits(None, found)
    assert create["command"] == "create" and create["path"] == PROJECT_FILE
    assert create["description"]
    assert [line for line in create["content"].splitlines()] == [s.line() for s in found]
    body = found[0].line() + "\n"
    assert plan_project_edits(body, found) == [
        {"command": "insert", "path": PROJECT_FILE, "content": found[1].line()}
    ]
    assert plan_project_edits(body + found[1].line() + "\n", found) == []


@pytest.mark.parametrize(
    ("body", "text", "old", "new"),
    [
        ("- Preference: I use npm", "I no longer use npm, I prefer pnpm", "npm", "pnpm"),
        ("- Editor: VS Code", "I switched from VS Code to Zed", "VS Code", "Zed"),
        ("- Preference: 我喜欢用vim写代码", "我不再用vim，改用emacs", "vim", "emacs"),
        ("- 编辑器：PyCharm", "我从 PyCharm 换成了 VS Code", "PyCharm", "VS Code"),
        ("- Tracker: Jira", "We replaced Jira with Linear", "Jira", "Linear"),
    ],
    ids=["no-longer-prefer", "switched-from-to", "不再用-改用", "从-换成了", "replaced-with"],
)
def test_a_one_sentence_contradiction_replaces_the_old_line(body, text, old, new):
    (edit,) = plan_human_edits(body, extract_statements(text, AT))
    assert edit["command"] == "str_replace" and edit["old_str"] == body
    assert new in edit["new_str"]


@pytest.mark.parametrize(
    ("body", "text"),
    [
        ("- Preference: I prefer dark mode", "I really like dark mode"),
        ("- Preference: 我喜欢喝绿茶", "我还是喜欢喝绿茶"),
        ("- Preference: I no longer use npm, I prefer pnpm", "I prefer pnpm"),
    ],
    ids=["en", "zh", "after-a-switch"],
)
def test_a_restated_preference_is_already_known(body, text):
    assert plan_human_edits(body, extract_statements(text, AT)) == []


# ----- the switch patterns are tried only on a sentence with one of their words ---------------

_SWITCH_PIECES = ["switched", "SWITCHED", "moved", "changed", "migrated", "went", "over",
                  "from", "to", "no longer", "NO LONGER", "don't", "do not", "stopped", "quit",
                  "use", "using", "prefer", "now", "replaced", "with", "不再", "不", "用", "改用",
                  "换成", "从", "了", "，", "VS Code", "npm", "pnpm", "Zed", "vim", "emacs", "绿茶",
                  " ", "  "]  # fmt: skip


_EVERY_SWITCH_WORD = [
    *(f"I {verb} from npm to pnpm" for verb in ("switched", "moved", "changed", "migrated")),
    "I went from npm to pnpm",
    *(f"I {word} use npm, I prefer pnpm" for word in ("no longer", "don't", "do not", "quit")),
    "I stopped using npm and now use pnpm",
    "We REPLACED Jira with Linear",
    "我不再用vim，改用emacs",
    "我不用vim，改用emacs",
    "我从 PyCharm 换成了 VS Code",
]


def test_each_word_of_each_switch_pattern_passes_the_filter():
    assert [text for text in _EVERY_SWITCH_WORD if parse_switch(text) is None] == []


@given(st.lists(st.sampled_from(_SWITCH_PIECES), max_size=10).map("".join))
def test_the_switch_word_filter_never_hides_a_switch(text):
    unfiltered = None
    for pattern in _switches():
        found = pattern.search(text)
        if found:
            old, new = found.group(1).strip(), found.group(2).strip()
            if old and new and old.lower() != new.lower():
                unfiltered = (old, new)
                break
    assert parse_switch(text) == unfiltered


# ----- a choice's negation: the same answer as the whole-prefix search, in linear time ---------

_WHOLE_PREFIX = re.compile(
    r"(?:不用|不要|别用|而不是|\bnot\b|\bno\b|\binstead of\b|\brather than\b"
    r"|\bover\b|\bno longer (?:use|like|prefer)|\bstopped using|\bswitched from|\breplaced"
    r"|不再用|不再|从)\s*$",
    re.IGNORECASE,
)  # the rule as first written: searched the whole text before each mention of a choice
_PIECES = ["not", "no", "cannot", "no longer prefer", "instead of", "over", "replaced", "从",
           "不用", "而不是", " ", "  ", "\n", "\u3000", "tabs", "x", "-", "snot",
           "knot "]  # fmt: skip


@given(st.lists(st.sampled_from(_PIECES), max_size=14).map("".join))
def test_a_negation_is_found_where_the_whole_prefix_search_finds_it(text):
    lowered = text.lower()
    for end in range(len(lowered) + 1):
        expected = _WHOLE_PREFIX.search(lowered[:end]) is not None
        assert _negated(lowered, end) == expected, (lowered, end)


@pytest.mark.timeout(5)  # quadratic before: 3,000 mentions took ~8 s; now ~40 ms
def test_many_mentions_of_a_choice_stay_linear():
    text = "I prefer " + "tabs, " * 3_000 + "not spaces"
    assert _topic(text) == ("indentation", "tabs")
