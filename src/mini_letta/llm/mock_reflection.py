"""The mock as reflection agent and as merge reviewer: deterministic, and only through tools.

Reflection: from the user messages in the request's `<transcript>` it extracts lasting
statements (preferences, decisions, corrections, identity and health facts such as allergies;
Chinese and English), reads `system/human.md` with `memory_read`, then writes one concise line
per new statement with one `memory` call per model call (skipping what memory already says,
replacing the line a statement contradicts when the statement's words justify it, else writing
it beside that line, or replacing the empty-memory placeholder), and commits once.
Statements about the project rather than the person ("in this repo …", "这个仓库 …") go to
`system/project.md` instead, read first and created when missing.
A file the task marks over its budget is consolidated first (llm/mock_consolidation.py).
Requests, questions, small talk and one-off plans are skipped. Each call decides only from the
request, like a model.
"""

from __future__ import annotations

import functools
import json
import re
from datetime import date, timedelta
from typing import Any

from mini_letta.conversations.messages import Message, ToolCall
from mini_letta.errors import MiniLettaError
from mini_letta.llm.base import ModelRequest, ModelResponse
from mini_letta.llm.mock_consolidation import consolidation_edit, files_to_consolidate
from mini_letta.memory.fact_kinds import CHANGE, categories
from mini_letta.memory.layout import DEFAULT_HUMAN
from mini_letta.memory.layout import HUMAN_FILE as HUMAN
from mini_letta.memory.words import shares_unit
from mini_letta.structs import Struct, replace

PLACEHOLDER = DEFAULT_HUMAN.strip()  # memfs's text for a human.md that knows nothing yet
PROJECT_FILE = "system/project.md"  # the agent's project (an agent serves one project)
PROJECT_DESCRIPTION = "What I know about the project I work on: its tools, rules and decisions."
_TRANSCRIPT = re.compile(r"<transcript[^>]*>\n(.*?)\n</transcript>", re.S)
_SPLIT = re.compile(r"(?<=[。！？!?；;\n])|(?<=\.)\s+")
_I = re.IGNORECASE

_CORRECTION = re.compile(r"^(?:(?:不对|不是的|其实|actually\b|no\b)[，,。.\s]*)+", _I)
_KINDS: tuple[tuple[str, re.Pattern[str]], ...] = (
    (
        "About",
        re.compile(
            r"我叫|我是(?!说|不是)|我在\S+工作|我负责|\bmy name is\b|\bcall me\b"
            r"|\bi work (?:on|at)\b|\bi(?:'m| am) an? |过敏|\ballergic\b",
            _I,
        ),
    ),
    (
        "Decision",
        re.compile(
            r"决定|以后一律|一律|从现在起|从今以后|以后都|\bfrom now on\b"
            r"|\bwe(?:'ve| have)? decided\b|\balways\b|\bnever\b",
            _I,
        ),
    ),
    (
        "Preference",
        re.compile(
            r"我更喜欢|我喜欢|喜欢用|偏好|更习惯|\bi (?:really )?prefer\b"
            r"|\bprefer\b|\bi like\b|\bi'd rather\b|\bi love\b",
            _I,
        ),
    ),
)
_STRONG = re.compile(r"以后一律|以后都|从现在起|从今以后|\bfrom now on\b|\balways\b|\bnever\b", _I)
_REQUEST = re.compile(
    r"^(?:帮我|请|麻烦|能不能|可以帮|你能|看下|看看|\bcan you\b|\bcould you\b"
    r"|\bplease\b|\bhelp me\b)",
    _I,
)
_EPHEMERAL = re.compile(r"这次|这一次|暂时|先用|\bfor now\b|\bthis time\b|\bright now\b", _I)
_DEMONSTRATIVE = re.compile(
    r"(?:我喜欢|\bi like|\bi love)\s*(?:这个|那个|它|\bthis\b|\bthat\b"
    r"|\bit\b)",
    _I,
)
_FILLER = re.compile(r"^(?:嗯|对了|另外|哦|ok|so|btw)[，,\s]+", _I)
_RELATIVE = {"今天": 0, "昨天": -1, "today": 0, "yesterday": -1}
_RELATIVE_RE = re.compile(r"(?:今天|昨天|\btoday\b|\byesterday\b)[，,\s]*", _I)
_NEGATION = re.compile(
    r"(?:不用|不要|别用|而不是|\bnot\b|\bno\b|\binstead of\b|\brather than\b"
    r"|\bover\b|\bno longer (?:use|like|prefer)|\bstopped using|\bswitched from|\breplaced"
    r"|不再用|不再|从)$",
    _I,
)
_NEGATION_REACH = 24  # longer than its longest words ("no longer prefer"): where one can start
_GROUPS: dict[str, dict[str, tuple[str, ...]]] = {
    "indentation": {"tabs": ("tabs", "tab", "制表符"), "spaces": ("spaces", "space", "空格")},
    "package-manager": {"pnpm": ("pnpm",), "npm": ("npm",), "yarn": ("yarn",), "bun": ("bun",)},
    "quotes": {"single": ("single quotes", "单引号"), "double": ("double quotes", "双引号")},
    "editor": {"vim": ("vim", "neovim"), "emacs": ("emacs",), "vscode": ("vscode", "vs code")},
}
_CHOICE_WORDS = {
    group: tuple(
        (choice, re.compile(rf"(?<![a-z]){re.escape(word)}(?![a-z])"))
        for choice, words in choices.items()
        for word in words
    )
    for group, choices in _GROUPS.items()
}  # each word of a choice, as a whole word
_PROJECT = re.compile(
    r"\b(?:this|our) (?:repo|repository|project|codebase|code ?base)\b"
    r"|这个(?:仓库|项目|代码库)|本(?:仓库|项目)|我们的(?:仓库|项目|代码库)|项目里|仓库里",
    _I,
)
_NAME = re.compile(r"(?:我叫|\bmy name is\s+|\bcall me\s+)([^\s，,。.!！]+)", _I)


class Statement(Struct, frozen=True):
    label: str
    text: str
    topic: tuple[str, str] | None  # (group, choice): two choices of one group contradict
    source: str | None = None  # the id of the message that said it: the evidence an edit cites
    said_change: bool = False  # its sentence says, in words, that something changed

    def line(self) -> str:
        return f"- {self.label}: {self.text}"


def extract_statements(
    text: str, created_at: str | None = None, message_id: str | None = None
) -> list[Statement]:
    """The lasting statements in one user message, in order."""
    found: list[Statement] = []
    for raw in _SPLIT.split(text):
        statement = _classify(raw.strip(), created_at)
        if statement is not None:
            found.append(replace(statement, source=message_id))
    return found


def plan_human_edits(body: str, statements: list[Statement]) -> list[dict[str, Any]]:
    """The `memory` tool calls that bring `statements` into a human.md body, in order."""
    lines = [line for line in body.split("\n") if line.strip()]
    edits: list[dict[str, Any]] = []
    for statement in statements:
        target = switched_line(lines, statement)
        if target is not None and not justifies(statement, lines[target]):
            target = None
        if target is None and (_known(lines, statement) or restated(lines, statement)):
            continue
        if target is None:
            target = _contradicted(lines, statement)
        if target is None and PLACEHOLDER in lines:
            target = lines.index(PLACEHOLDER)
        new = statement.line()
        if target is not None:
            edit: dict[str, Any] = {
                "command": "str_replace",
                "path": HUMAN,
                "old_str": lines[target],
                "new_str": new,
            }
            if statement.source:
                edit["evidence"] = [statement.source]
            edits.append(edit)
            lines[target] = new
        else:
            edits.append({"command": "insert", "path": HUMAN, "content": new})
            lines.append(new)
    return edits


def is_project_fact(statement: Statement) -> bool:
    """Said about the project (its repo, tools, rules) rather than about the person."""
    return _PROJECT.search(statement.text) is not None


def plan_project_edits(body: str | None, statements: list[Statement]) -> list[dict[str, Any]]:
    """The `memory` tool calls that bring project `statements` into the project file's body
    (None: the file does not exist yet, so one `create` holds them all)."""
    lines = [line for line in (body or "").split("\n") if line.strip()]
    new: list[str] = []
    for statement in statements:
        if not _known(lines, statement):
            lines.append(statement.line())
            new.append(statement.line())
    if not new:
        return []
    if body is None:
        content = "\n".join(new)
        return [
            {
                "command": "create",
                "path": PROJECT_FILE,
                "description": PROJECT_DESCRIPTION,
                "content": content,
            }
        ]
    return [{"command": "insert", "path": PROJECT_FILE, "content": line} for line in new]


def respond_reflection(request: ModelRequest) -> ModelResponse:
    # The task is the user message holding the transcripts (a harness reminder may precede it).
    task = next(
        (m.content for m in request.messages if m.role == "user" and "<transcript" in m.content), ""
    )
    history = _tool_history(request.messages)
    reads = _reads(history)
    if HUMAN not in reads:
        return _call(len(history), "memory_read", {"path": HUMAN})
    if reads[HUMAN].is_error:
        return _done(f"Could not read {HUMAN}; changed nothing.")
    statements = [
        statement
        for message in _transcript(task)
        if message.get("role") == "user"
        for statement in extract_statements(
            str(message.get("content", "")), message.get("createdAt"), message.get("id")
        )
    ]
    project = [statement for statement in statements if is_project_fact(statement)]
    if project and PROJECT_FILE not in reads:
        return _call(len(history), "memory_read", {"path": PROJECT_FILE})
    personal = [statement for statement in statements if not is_project_fact(statement)]
    body = _body(reads[HUMAN].content)
    plan = []
    if HUMAN in files_to_consolidate(task):  # an over-budget file: make room first
        tidy = consolidation_edit(HUMAN, body, lambda line: _topic(_line_text(line)), _normal)
        occasion = next((m.get("id") for m in _transcript(task) if m.get("id")), None)
        if tidy is not None and occasion:  # the gate wants a changed line to cite the slice
            tidy["evidence"] = [occasion]
        if tidy is not None:
            plan.append(tidy)
            body = tidy["new_str"]
    plan += plan_human_edits(body, personal)
    if project:
        found = reads[PROJECT_FILE]
        plan += plan_project_edits(None if found.is_error else _body(found.content), project)
    edits = [(call, result) for call, result in history if call.name == "memory"]
    if len(edits) < len(plan):
        return _call(len(history), "memory", plan[len(edits)])
    applied = sum(1 for _, result in edits if not result.is_error)
    committed = any(call.name == "memory_commit" for call, _ in history)
    if applied and not committed:
        message = f"reflection: remember {applied} statement(s) about the user"
        return _call(len(history), "memory_commit", {"message": message})
    skipped = len(statements) - len(plan)
    return _done(
        f"Reflected on the transcript: {applied} change(s) to memory, {skipped} statement(s) "
        "already known, the rest was not lasting."
    )


def respond_merge(request: ModelRequest) -> ModelResponse:
    history = _tool_history(request.messages)
    if not history:
        note = "The reflection's changes are accurate and belong in memory."
        return _call(0, "reflection_merge", {"decision": "merge", "note": note})
    outcome = history[-1][1]
    return _done(("Could not merge: " if outcome.is_error else "") + outcome.content)


# ----- extraction ------------------------------------------------------------------------------


def _classify(sentence: str, created_at: str | None) -> Statement | None:
    text = _FILLER.sub("", sentence).strip().rstrip("。.!！；;").strip()
    if len(text) < 2 or text.endswith(("?", "？")) or re.search(r"[吗呢]$", text):
        return None
    corrected = _CORRECTION.match(text)
    core = text[corrected.end() :].strip() if corrected else text
    label = next((name for name, pattern in _KINDS if pattern.search(core)), None)
    if label is None and parse_switch(core) is not None:
        label = "Preference"
    if label is None and corrected and len(core) >= 4:
        label = "Correction"
    if label is None or _EPHEMERAL.search(core) or _DEMONSTRATIVE.search(core):
        return None
    if _REQUEST.match(core) and not _STRONG.search(core):
        return None
    core, day = _absolute_dates(core, created_at)
    if day is not None:
        label = f"{label} ({day})"
    said_change = CHANGE.search(text) is not None
    return Statement(label, core, _topic(core), said_change=said_change)


def _absolute_dates(text: str, created_at: str | None) -> tuple[str, str | None]:
    found = _RELATIVE_RE.search(text)
    if found is None or not created_at:
        return text, None
    try:
        day = date.fromisoformat(created_at[:10])
    except ValueError:
        return text, None
    offset = _RELATIVE[found.group(0).strip("，, ").lower()]
    cleaned = (text[: found.start()] + text[found.end() :]).strip()
    return cleaned, (day + timedelta(days=offset)).isoformat()


def _topic(text: str) -> tuple[str, str] | None:
    """The choice `text` makes in one group (tabs or spaces, pnpm or npm …), or its name.
    Remembered for a line-sized text: each model call weighs every memory line again."""
    return _topic_of_line(text) if len(text) <= _LINE_SIZED else _topic_of(text)


_LINE_SIZED = 500


@functools.lru_cache(maxsize=4096)
def _topic_of_line(text: str) -> tuple[str, str] | None:
    return _topic_of(text)


def _topic_of(text: str) -> tuple[str, str] | None:
    named = _NAME.search(text)
    if named:
        return ("name", named.group(1).lower())
    lowered = text.lower()
    for group, words in _CHOICE_WORDS.items():
        chosen = {
            choice
            for choice, word in words
            for hit in word.finditer(lowered)
            if not _negated(lowered, hit.start())
        }
        if len(chosen) == 1:
            return (group, chosen.pop())
    return None


def _negated(text: str, end: int) -> bool:
    """Whether a negation ("not", "instead of", 不用 …) ends right before `end`, spaces aside.
    Only the few characters before it are searched, so many mentions stay linear."""
    while end > 0 and text[end - 1].isspace():
        end -= 1
    return _NEGATION.search(text, max(0, end - _NEGATION_REACH), end) is not None


def _known(lines: list[str], statement: Statement) -> bool:
    if statement.topic is not None:
        return any(_topic(_line_text(line)) == statement.topic for line in lines)
    needle = _normal(statement.text)
    return any(needle in _normal(line) for line in lines)


def _contradicted(lines: list[str], statement: Statement) -> int | None:
    """The first line of the statement's topic group that its words justify replacing (None:
    the statement goes beside what it contradicts, which stays until the user says so)."""
    if statement.topic is None:
        return None
    for index, line in enumerate(lines):
        topic = _topic(_line_text(line))
        if topic is not None and topic[0] == statement.topic[0] and justifies(statement, line):
            return index
    return None


def justifies(statement: Statement, line: str) -> bool:
    """Whether the statement's own words justify replacing `line`: an ordinary line gives way
    to a statement that speaks of the same thing or says that something changed; a rule or a
    fact about health, money, identity or dates only to one that does both, as the prompt
    says ("changes only when the user says so explicitly")."""
    firm = bool(categories(HUMAN, line))
    shares = shares_unit(statement.text, line)
    return (shares and statement.said_change) if firm else (shares or statement.said_change)


def _line_text(line: str) -> str:
    _, sep, rest = line.partition(": ")
    return rest if sep else line


def _normal(text: str) -> str:
    return re.sub(r"[\W_]+", "", text.lower())


# ----- one-sentence contradictions and restatements ---------------------------------------------

# The CJK range is matched case-sensitively even in the IGNORECASE patterns: ideographs have
# no case, and case-folding a 21,000-character range made each pattern cost ~13 ms to compile.
_CHOICE = r"([A-Za-z][A-Za-z0-9_.+#-]*(?: [A-Z][A-Za-z0-9_.+#-]*)?|(?-i:[\u4e00-\u9fff]{1,6}?))"
# Every switch pattern needs one of these words, so a sentence without one (most sentences) is
# never matched against them, and they are compiled when a sentence first has one: their CJK
# ranges still cost ~30 ms to compile, a tenth of a reflection process.
_SWITCH_WORDS = re.compile(
    r"switched|moved|changed|migrated|went|no longer|don't|do not|stopped|quit|replaced|不|从", _I
)


@functools.cache
def _switches() -> tuple[re.Pattern[str], ...]:
    return (
        re.compile(
            rf"\b(?:switched|moved|changed|migrated|went)\s+(?:over\s+)?from\s+{_CHOICE}\s+to\s+"
            rf"{_CHOICE}",
            _I,
        ),
        re.compile(
            rf"\b(?:no longer|don't|do not|stopped|quit)\s+(?:use|using|like|drink|prefer)\s+"
            rf"{_CHOICE}\b.*?\b(?:prefer|use|using|like|switched to|moved to|now)\s+{_CHOICE}",
            _I,
        ),
        re.compile(rf"\breplaced\s+{_CHOICE}\s+with\s+{_CHOICE}", _I),
        re.compile(
            rf"(?:不再|不)(?:用|喝|吃|使用)\s*{_CHOICE}\s*了?[，,、\s]*(?:改用|换成|改成|改喝|改吃|现在用)"
            rf"\s*{_CHOICE}(?![\w\u4e00-\u9fff])"
        ),
        re.compile(
            rf"从\s*{_CHOICE}\s*(?:换成|换到|改成|改为|转到|迁移到)了?\s*{_CHOICE}"
            rf"(?![\w\u4e00-\u9fff])"
        ),
    )


_PREFERENCE_WORDS = re.compile(
    r"\b(?:i|i'm|i am|really|still|do|also|prefer|prefers|like|likes|love|use|using|always)\b"
    r"|我|还是|更|喜欢|偏好|习惯|用|也|一直",
    _I,
)


def parse_switch(text: str) -> tuple[str, str] | None:
    """(old, new) when one sentence names both the choice given up and the one taken:
    "I no longer use npm, I prefer pnpm", "switched from X to Y", 不再用X，改用Y, 从X换成了Y."""
    if not _SWITCH_WORDS.search(text):
        return None
    for pattern in _switches():
        found = pattern.search(text)
        if found:
            old, new = found.group(1).strip(), found.group(2).strip()
            if old and new and old.lower() != new.lower():
                return old, new
    return None


def switched_line(lines: list[str], statement: Statement) -> int | None:
    """The line a one-sentence contradiction replaces: it names the old choice, not the new."""
    pair = parse_switch(statement.text)
    if pair is None:
        return None
    old, new = pair
    for index, line in enumerate(lines):
        if _names(line, old) and not _names(line, new):
            return index
    return None


def restated(lines: list[str], statement: Statement) -> bool:
    """A preference said again in other words: everything it says is already in one line."""
    if statement.topic is not None or parse_switch(statement.text) is not None:
        return False
    words = _content_words(statement.text)
    return bool(words) and any(words <= _content_words(_line_text(line)) for line in lines)


def _content_words(text: str) -> set[str]:
    bare = _PREFERENCE_WORDS.sub(" ", text.lower())
    words = set(re.findall(r"[a-z0-9][\w.+#-]*", bare))
    for run in re.findall(r"[\u4e00-\u9fff]+", bare):
        words |= {run[i : i + 2] for i in range(len(run) - 1)} or {run}
    return words


def _names(line: str, choice: str) -> bool:
    if re.fullmatch(r"[\u4e00-\u9fff]+", choice):
        return choice in line
    edge = "A-Za-z0-9_-"
    return re.search(rf"(?<![{edge}]){re.escape(choice)}(?![{edge}])", line, _I) is not None


# ----- the request -----------------------------------------------------------------------------


def _transcript(task: str) -> list[dict[str, Any]]:
    """The messages of every `<transcript>` block, in order (replay blocks too: they dedupe)."""
    messages = []
    lines = [line for block in _TRANSCRIPT.finditer(task) for line in block.group(1).splitlines()]
    for line in lines:
        try:
            value = json.loads(line)
        except ValueError:
            continue
        if isinstance(value, dict):
            messages.append(value)
    return messages


def _reads(history: list[tuple[ToolCall, Message]]) -> dict[str, Message]:
    """The first `memory_read` result per path."""
    reads: dict[str, Message] = {}
    for call, result in history:
        if call.name == "memory_read":
            try:
                path = json.loads(call.arguments).get("path")
            except (ValueError, AttributeError):
                continue
            if isinstance(path, str):
                reads.setdefault(path, result)
    return reads


def _tool_history(messages: tuple[Message, ...]) -> list[tuple[ToolCall, Message]]:
    results = {m.tool_call_id: m for m in messages if m.role == "tool" and m.tool_call_id}
    return [
        (call, results[call.id])
        for message in messages
        if message.role == "assistant"
        for call in message.tool_calls
        if call.id in results
    ]


def _body(text: str) -> str:
    """The body after the frontmatter of a file as `memory_read` returned it."""
    from mini_letta.memory.frontmatter import parse_memory_file

    try:
        return parse_memory_file(text, "memory file").body
    except MiniLettaError:
        return text


def _call(step: int, name: str, arguments: dict[str, Any]) -> ModelResponse:
    call = ToolCall(f"mock-call-{step + 1}", name, json.dumps(arguments, ensure_ascii=False))
    return ModelResponse("", (call,), None, "tool_use")


def _done(text: str) -> ModelResponse:
    return ModelResponse(text, (), None, "end_turn")
