"""Reflection eval cases: a scripted transcript and the checks on the memory it should leave.

A suite file (JSON, or YAML when the name ends in .yaml/.yml) holds a list of cases or
`{"cases": [...]}`. A case:

    {"name": "tabs-to-spaces", "about": "why it matters",
     "chunkTokens": 1000,                        # optional: smaller chunks than the model's
     "conversations": [{"messages": [
         {"role": "user", "content": "…", "at": "2026-05-01T09:00:00Z"},
         {"role": "assistant", "content": "…"}]}],
     "checks": [{"contains": "spaces", "in": "system/human.md"},
                {"absent": "tabs"}, {"atMostOnce": "pnpm"}]}

`at` defaults to a minute after the previous message; a user message with no assistant reply
after it gets "OK.". Checks compare case-insensitively against the text of every memory file
under `in` (a file or a folder such as `system/`; default: all of memory), as whole words:
`npm` is not found inside `pnpm` nor `vim` inside `neovim`. Chinese is written without spaces,
so where a check begins or ends with a CJK character that end matches anywhere.
"""

from __future__ import annotations

import json
import re
from datetime import datetime, timedelta
from importlib import resources
from pathlib import Path
from typing import Any

from mini_letta.errors import MiniLettaError
from mini_letta.reflection.run.payload import MIN_MAX_TOKENS
from mini_letta.structs import Struct

CHECK_KINDS = ("contains", "absent", "atMostOnce")
_ROLES = ("user", "assistant")
_DEFAULT_START = datetime.fromisoformat("2026-05-01T09:00:00+00:00")


class SuiteError(MiniLettaError):
    """A suite file that cannot be read as eval cases (the message names the file and case)."""


class ScriptedMessage(Struct, frozen=True):
    role: str
    content: str
    at: datetime


class Check(Struct, frozen=True):
    kind: str  # one of CHECK_KINDS
    text: str
    where: str = ""  # a memory file or folder; "" is all of memory

    def failure(self, files: dict[str, str]) -> str | None:
        """What is wrong with `files` (memory path -> text), or None when the check holds."""
        term = _term(self.text)
        scope = {path: text for path, text in files.items() if _under(path, self.where)}
        counts = {path: len(term.findall(text)) for path, text in scope.items()}
        hits = {path: count for path, count in counts.items() if count}
        place = self.where.strip("/") or "memory"
        if self.kind == "contains" and not hits:
            return f"{self.text!r} is missing from {place}"
        if self.kind == "absent" and hits:
            return f"{self.text!r} should not be in {place} (found in {', '.join(sorted(hits))})"
        if self.kind == "atMostOnce" and sum(hits.values()) > 1:
            return f"{self.text!r} appears {sum(hits.values())} times in {place}"
        return None


def _term(text: str) -> re.Pattern[str]:
    """`text` as a case-insensitive whole-word pattern: an end that is a Latin letter or a
    digit may not touch another one (a plain escaped needle: linear in the memory's size)."""
    before = r"(?<![a-z0-9])" if _WORDLIKE.match(text[:1]) else ""
    after = r"(?![a-z0-9])" if _WORDLIKE.match(text[-1:]) else ""
    return re.compile(before + re.escape(text) + after, re.IGNORECASE)


_WORDLIKE = re.compile(r"[A-Za-z0-9]")


class EvalCase(Struct, frozen=True):
    name: str
    about: str
    conversations: tuple[tuple[ScriptedMessage, ...], ...]
    checks: tuple[Check, ...]
    chunk_tokens: int | None = None


def builtin_suite() -> list[EvalCase]:
    """The cases shipped with mini-letta (package data), in file order."""
    folder = resources.files("mini_letta.reflection.evals") / "eval_suite"
    cases: list[EvalCase] = []
    for entry in sorted(folder.iterdir(), key=lambda item: item.name):
        if _kind(entry.name) == "json":
            cases += parse_suite(json.loads(entry.read_text(encoding="utf-8")), entry.name)
    return cases


def load_suite(path: Path) -> list[EvalCase]:
    """The cases of a user's suite file, or of every suite file in a folder."""
    if path.is_dir():
        files = sorted(p for p in path.iterdir() if _kind(p.name) is not None)
        if not files:
            raise SuiteError(f"{path}: no .json, .yaml or .yml suite files in this folder")
        return [case for file in files for case in load_suite(file)]
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise SuiteError(f"{path}: cannot read the suite ({exc})") from exc
    try:
        if _kind(path.name) == "yaml":
            import yaml

            data = yaml.safe_load(text)
        else:
            data = json.loads(text)
    except ValueError as exc:  # yaml.YAMLError is not one; caught below
        raise SuiteError(f"{path}: not valid JSON ({exc})") from exc
    except Exception as exc:
        raise SuiteError(f"{path}: not valid YAML ({str(exc).splitlines()[0]})") from exc
    return parse_suite(data, str(path))


def parse_suite(data: Any, source: str) -> list[EvalCase]:
    raw = data.get("cases") if isinstance(data, dict) else data
    if not isinstance(raw, list) or not raw:
        raise SuiteError(f"{source}: expected a non-empty list of cases (or {{'cases': [...]}})")
    cases = [_case(item, f"{source} case {n + 1}") for n, item in enumerate(raw)]
    names = [case.name for case in cases]
    duplicate = next((name for name in names if names.count(name) > 1), None)
    if duplicate is not None:
        raise SuiteError(f"{source}: two cases are named {duplicate!r}")
    return cases


def _case(item: Any, where: str) -> EvalCase:
    if not isinstance(item, dict):
        raise SuiteError(f"{where}: a case must be an object")
    name = item.get("name")
    if not isinstance(name, str) or not name.strip():
        raise SuiteError(f"{where}: `name` must be a non-empty string")
    where = f"{where} ({name})"
    conversations = item.get("conversations")
    if not isinstance(conversations, list) or not conversations:
        raise SuiteError(f"{where}: `conversations` must be a non-empty list")
    checks = item.get("checks")
    if not isinstance(checks, list) or not checks:
        raise SuiteError(f"{where}: `checks` must be a non-empty list")
    chunk = item.get("chunkTokens")
    if chunk is not None and (
        not isinstance(chunk, int) or isinstance(chunk, bool) or chunk < MIN_MAX_TOKENS
    ):
        raise SuiteError(f"{where}: `chunkTokens` must be an integer of at least {MIN_MAX_TOKENS}")
    clock: datetime | None = None  # the first message without `at` starts at _DEFAULT_START
    scripted: list[tuple[ScriptedMessage, ...]] = []
    for n, conversation in enumerate(conversations):
        messages, last = _conversation(conversation, f"{where} conversation {n + 1}", clock)
        scripted.append(messages)
        clock = last + timedelta(hours=1)
    return EvalCase(
        name=name.strip(),
        about=str(item.get("about") or ""),
        conversations=tuple(scripted),
        checks=tuple(_check(check, f"{where} check {n + 1}") for n, check in enumerate(checks)),
        chunk_tokens=chunk,
    )


def _conversation(
    item: Any, where: str, start: datetime | None
) -> tuple[tuple[ScriptedMessage, ...], datetime]:
    raw = item.get("messages") if isinstance(item, dict) else None
    if not isinstance(raw, list) or not raw:
        raise SuiteError(f"{where}: `messages` must be a non-empty list")
    messages: list[ScriptedMessage] = []
    clock = start
    for n, entry in enumerate(raw):
        if not isinstance(entry, dict):
            raise SuiteError(f"{where} message {n + 1}: must be an object")
        role, content, at = entry.get("role", "user"), entry.get("content"), entry.get("at")
        if role not in _ROLES or not isinstance(content, str) or not content:
            raise SuiteError(
                f"{where} message {n + 1}: needs `role` user or assistant and a `content` text"
            )
        clock = _moment(at, clock, f"{where} message {n + 1}")
        messages.append(ScriptedMessage(role, content, clock))
        following = raw[n + 1] if n + 1 < len(raw) else None
        if role == "user" and (
            not isinstance(following, dict) or following.get("role") != "assistant"
        ):
            clock += timedelta(seconds=5)
            messages.append(ScriptedMessage("assistant", "OK.", clock))
    assert clock is not None  # at least one message
    return tuple(messages), clock


def _moment(at: Any, previous: datetime | None, where: str) -> datetime:
    if at is None:
        return _DEFAULT_START if previous is None else previous + timedelta(minutes=1)
    if not isinstance(at, str):
        raise SuiteError(f"{where}: `at` must be an ISO 8601 timestamp")
    try:
        moment = datetime.fromisoformat(at.replace("Z", "+00:00"))
    except ValueError as exc:
        raise SuiteError(f"{where}: `at` {at!r} is not an ISO 8601 timestamp") from exc
    if moment.tzinfo is None:
        raise SuiteError(f"{where}: `at` {at!r} needs a time zone (e.g. Z)")
    if previous is not None and moment < previous:
        raise SuiteError(f"{where}: `at` {at!r} is earlier than the message before it")
    return moment


def _check(item: Any, where: str) -> Check:
    if not isinstance(item, dict):
        raise SuiteError(f"{where}: a check must be an object")
    kinds = [kind for kind in CHECK_KINDS if kind in item]
    if len(kinds) != 1 or not isinstance(item[kinds[0]], str) or not item[kinds[0]]:
        raise SuiteError(f"{where}: needs exactly one of {', '.join(CHECK_KINDS)} with a text")
    place = item.get("in", "")
    if not isinstance(place, str):
        raise SuiteError(f"{where}: `in` must be a memory path")
    return Check(kinds[0], item[kinds[0]], place.strip().strip("/"))


def _kind(name: str) -> str | None:
    """ "json" or "yaml" by the file name's extension; None for any other file."""
    extension = name.rpartition(".")[2].lower() if "." in name else ""
    return {"json": "json", "yaml": "yaml", "yml": "yaml"}.get(extension)


def _under(path: str, where: str) -> bool:
    where = where.strip("/")
    return not where or path == where or path.startswith(where + "/")
