"""`mini-letta eval reflection`: the built-in suite on the mock (the reference), user suites,
several models side by side, and the case format's errors."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from mini_letta.reflection.evals.eval_cases import Check, builtin_suite, load_suite
from mini_letta.reflection.evals.evaluation import CaseResult, EvalReport, render_table

# Measured: all 50 built-in cases pass on the mock.
MOCK_FLOOR = 50

USER_SUITE = """
cases:
  - name: keeps-pnpm
    conversations:
      - messages:
          - {role: user, content: "From now on we use pnpm.", at: "2026-03-01T10:00:00Z"}
    checks:
      - contains: pnpm
        in: system/
  - name: wants-yarn
    about: fails on purpose, to show what was wrong
    conversations:
      - messages:
          - {role: user, content: "I prefer npm."}
    checks:
      - {contains: yarn, in: system/human.md}
      - {absent: npm}
"""


def _has_cjk(text: str) -> bool:
    return re.search(r"[\u4e00-\u9fff]", text) is not None


def test_the_builtin_suite_is_big_and_bilingual():
    cases = builtin_suite()
    assert len(cases) >= 40 and len({case.name for case in cases}) == len(cases)
    texts = [" ".join(m.content for c in case.conversations for m in c) for case in cases]
    chinese = sum(map(_has_cjk, texts))
    assert chinese >= 15 and len(cases) - chinese >= 15
    assert any(case.chunk_tokens for case in cases)  # the transcript that needs several runs
    assert any(len(case.conversations) > 1 for case in cases)


@pytest.mark.timeout(300)  # 50 cases of real reflection runs: as the gate's floor test
def test_the_mock_meets_its_floor_on_the_builtin_suite(cli):
    result = cli("eval", "reflection", "--output-format", "json")
    assert result.code == 0, result.stderr
    data = json.loads(result.stdout)
    score = data["scores"]["mock"]
    failed = [r["case"] for r in data["results"] if not r["passed"]]
    assert score["total"] >= 40 and score["passed"] >= MOCK_FLOOR, failed
    secrets = [r for r in data["results"] if "secret" in r["case"]]
    assert secrets and all(r["passed"] for r in secrets)  # a secret never lands, ever
    chunked = [r for r in data["results"] if "long-transcript" in r["case"]]
    assert chunked and all(r["runs"].count("merged") >= 2 for r in chunked)
    # the reference model writes nothing the memory gate holds back
    assert [r["rejections"] for r in data["results"] if r["rejections"]] == []


def test_a_user_suite_shows_what_was_wrong_and_the_score(cli, tmp_path):
    suite = tmp_path / "mine.yaml"
    suite.write_text(USER_SUITE, encoding="utf-8")
    result = cli("eval", "reflection", "--suite", str(suite))
    assert result.code == 1, result.stderr  # a case failed: scripts and CI see it
    lines = result.stdout.splitlines()
    assert lines[0].split() == ["case", "mock"]
    assert lines[1].split() == ["keeps-pnpm", "PASS"]
    assert lines[2].split() == ["wants-yarn", "FAIL"]
    assert "'yarn' is missing from system/human.md" in lines[3]
    assert "'npm' should not be in memory (found in system/human.md)" in lines[4]
    assert lines[-1] == "score mock: 1/2 (50%)"


def test_models_side_by_side(cli, tmp_path):
    suite = tmp_path / "mine.yaml"
    suite.write_text(USER_SUITE, encoding="utf-8")
    silent = tmp_path / "silent.json"  # a model that never touches memory
    silent.write_text(json.dumps(["Nothing lasting here."] * 5))
    result = cli(
        "eval", "reflection", "--suite", str(suite), "--model", "mock",
        "--model", f"script:{silent}", "--output-format", "json",
    )  # fmt: skip
    assert result.code == 1, result.stderr
    data = json.loads(result.stdout)
    assert data["models"] == ["mock", f"script:{silent}"]
    assert data["scores"]["mock"]["passed"] == 1
    assert data["scores"][f"script:{silent}"]["passed"] == 0
    # the same results as a table (the text output of one model is the test above): read back
    # from the JSON rather than run again
    lists = ("problems", "runs", "rejections", "errors")
    results = [
        CaseResult(r["case"], r["model"], *(tuple(r[key]) for key in lists))
        for r in data["results"]
    ]
    assert [r.to_json() for r in results] == data["results"]
    table = render_table(EvalReport(tuple(data["models"]), results))
    assert table.splitlines()[1].split() == ["keeps-pnpm", "PASS", "FAIL"]
    assert f"[script:{silent}] 'pnpm' is missing from system\n" in table
    assert table.splitlines()[-2:] == ["score mock: 1/2 (50%)", f"score script:{silent}: 0/2 (0%)"]


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("[]", "expected a non-empty list of cases"),
        ('[{"name": "x", "conversations": [], "checks": []}]', "`conversations` must be"),
        (
            '[{"name": "x", "conversations": [{"messages": [{"content": "hi"}]}],'
            ' "checks": [{"contains": "a", "absent": "b"}]}]',
            "needs exactly one of contains, absent, atMostOnce",
        ),
        (
            '[{"name": "x", "conversations": [{"messages": [{"content": "hi", "at": "soon"}]}],'
            ' "checks": [{"contains": "a"}]}]',
            "is not an ISO 8601 timestamp",
        ),
        ("{not json", "not valid JSON"),
    ],
)
def test_a_bad_suite_is_one_clear_line(cli, tmp_path, text, message):
    suite = tmp_path / "bad.json"
    suite.write_text(text)
    result = cli("eval", "reflection", "--suite", str(suite))
    assert result.code == 1 and message in result.stderr and str(suite) in result.stderr
    assert "Traceback" not in result.stderr and result.stderr.count("\n") == 1


def test_checks_look_in_a_file_or_a_folder():
    files = {"system/human.md": "- Preference: tabs", "project/notes.md": "tabs tabs"}
    assert Check("contains", "TABS", "system").failure(files) is None
    assert Check("absent", "tabs", "system/human.md").failure(files) is not None
    assert Check("atMostOnce", "tabs", "project/").failure(files) == (
        "'tabs' appears 2 times in project"
    )
    assert Check("absent", "tabs", "sys").failure(files) is None  # a prefix is not a folder


def test_checks_match_whole_words_so_npm_is_not_found_in_pnpm():
    files = {"system/human.md": "- From now on we use pnpm (not npm-style scripts)."}
    assert Check("absent", "npm", "").failure({"a.md": "we use pnpm"}) is None
    assert Check("absent", "npm", "").failure(files) is not None  # "npm-style": a word
    assert Check("contains", "pnpm", "").failure(files) is None
    assert Check("absent", "vim", "").failure({"a.md": "switched to neovim"}) is None
    assert Check("atMostOnce", "tabs", "").failure({"a.md": "tabs, not tabsy"}) is None
    assert Check("contains", "tab", "").failure({"a.md": "tabs"}) is not None
    assert Check("contains", "make check", "").failure({"a.md": "run `make check`."}) is None
    # CJK is written without spaces: there a check is a plain substring
    assert Check("contains", "空格", "").failure({"a.md": "我用空格缩进"}) is None
    assert Check("absent", "今天", "").failure({"a.md": "今天"}) is not None


def test_the_readme_suite_example_passes_on_the_mock(cli, tmp_path):
    readme = (Path(__file__).resolve().parents[3] / "README.md").read_text(encoding="utf-8")
    example = re.search(r"```yaml\n(cases:\n.*?)```", readme, re.S)
    assert example is not None
    suite = tmp_path / "readme.yaml"
    suite.write_text(example.group(1), encoding="utf-8")
    result = cli("eval", "reflection", "--suite", str(suite))
    assert result.code == 0, result.stdout + result.stderr
    assert result.stdout.splitlines()[-1] == "score mock: 1/1 (100%)"


def test_a_folder_of_suites(tmp_path):
    (tmp_path / "a.yaml").write_text(USER_SUITE, encoding="utf-8")
    (tmp_path / "notes.txt").write_text("ignored")
    assert [case.name for case in load_suite(tmp_path)] == ["keeps-pnpm", "wants-yarn"]
