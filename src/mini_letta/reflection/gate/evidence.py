"""The user's own words: the only text a memory edit may stand on.

From a payload message this keeps what the user wrote themself, and sets aside what they only
passed along: harness text (tags such as `<system-reminder>`, the caveats and command output of
imported transcripts, role-prefixed transcript lines), pasted material (fenced and `>` quoted
blocks, the text under "here is the email:" or above "summarise the above"), and any sentence
shaped like an instruction to an AI ("NOTE TO AI", "ignore previous instructions"). Assistant
text and tool output are never the user's words. Every scan is one pass (tags are paired by
position, not by a backtracking pattern), so hostile input costs linear time.
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Iterable, Mapping
from typing import Any

from mini_letta.structs import Struct

_I = re.IGNORECASE
_FENCE = re.compile(r"^\s*(```|~~~)")
_QUOTED = re.compile(r"^\s*(?:>|＞)")
_ROLE_LINE = re.compile(
    r"^\s*(?:\*\*)?(?:user|assistant|human|ai|system|用户|助手|系统)(?:\*\*)?\s*[:：]",
    _I,
)
_HARNESS_LINE = re.compile(
    r"^\s*(?:caveat: the messages below were generated|\[request interrupted by user"
    r"|⎿|● |<[a-z][\w-]*[^>]*>\s*$)",
    _I,
)
_OPEN_TAG = re.compile(r"<([a-zA-Z][\w-]{0,40})(?:\s[^<>]{0,200})?>")
_CLOSE_TAG = re.compile(r"</([a-zA-Z][\w-]{0,40})\s*>")
_PASTE_INTRO = re.compile(
    r"\b(?:here(?:'s| is| are)|below is|the following|pasted|forwarded|fetched|copied"
    r"|summari[sz]e|translate|proofread|review|explain|what does|what do you think of"
    r"|this (?:email|e-mail|doc|document|article|page|post|file|message|readme|text|snippet"
    r"|log|note|memo|thread))\b"
    r"|以下是|下面是|下面这|这是.{0,8}(?:邮件|文档|文章|网页|内容|文件|日志|消息)|帮我(?:总结|翻译|看看|看下|润色)"
    r"|总结一下|翻译一下",
    _I,
)
_ABOVE = re.compile(
    r"\b(?:the above|above (?:text|email|doc|document|article|message|note)|this (?:email|"
    r"document|doc|article|text|page) (?:says|said))\b|上面(?:的|这)|以上(?:内容|文字|邮件|文档)",
    _I,
)
_INJECTION = re.compile(
    r"\bnote to (?:ai|the ai|assistants?|llms?|language models?|agents?)\b"
    r"|\b(?:ai|llm) (?:assistants?|agents?|models?)\s*[:,]|\bignore (?:all |any )?(?:the )?"
    r"(?:previous|prior|above|earlier) (?:instructions|rules)\b|\bsystem prompt\b"
    r"|\byou are now\b|\bdisregard (?:your|all|the) (?:instructions|rules)\b"
    r"|\bif you are an? (?:ai|llm|assistant|language model)\b"
    r"|致\s*AI|AI\s*助手[:：,，]|给\s*AI\s*的|忽略(?:之前|以上|前面)的?(?:指令|指示|规则)|系统提示词",
    _I,
)
_FIRST_PERSON = re.compile(
    r"\b(?:i|i'm|i've|i'd|my|me|we|our|us|please|can you|could you)\b|我|我们|请|帮我", _I
)
# Text with none of these (no tag, fence, quote, colon, role line or "above") has nothing to
# set aside but an injection.
_PLAIN = re.compile(r"[^<>`~:：＞⎿●\[]*")
_SENTENCE = re.compile(r"[^.!?。！？\n]+[.!?。！？]*")


class UserWords(Struct, frozen=True):
    """One user message as evidence: its id, the words the user wrote, and when."""

    id: str
    text: str
    created_at: str | None = None
    set_aside: bool = False  # something (a paste, harness text, an instruction) was left out


def build_user_words(messages: Iterable[Mapping[str, Any]]) -> dict[str, UserWords]:
    """The user messages of a payload by id, each reduced to the user's own words."""
    found: dict[str, UserWords] = {}
    for message in messages:
        if message.get("role") != "user" or not isinstance(message.get("id"), str):
            continue
        content = str(message.get("content") or "")
        words = own_words(content)
        created = message.get("createdAt")
        found[message["id"]] = UserWords(
            message["id"],
            words,
            created if isinstance(created, str) else None,
            words.strip() != content.strip(),
        )
    return found


def own_words(content: str) -> str:
    """`content` without harness text, pasted material and instruction-shaped sentences."""
    if _PLAIN.fullmatch(content) and not _INJECTION.search(content) and not _ABOVE.search(content):
        return content.strip()  # one look finds nothing set aside: the common case, fast
    text = _strip_tag_blocks(content)
    kept = _strip_pasted_lines(text.split("\n"))
    if _INJECTION.search(text) is not None:
        kept = [_without_injections(line) for line in kept]
    return "\n".join(kept).strip()


def is_instruction_shaped(text: str) -> bool:
    """Text addressed to an AI rather than said by the user about themself."""
    return _INJECTION.search(text) is not None


def _strip_tag_blocks(text: str) -> str:
    """Remove every `<tag …>…</tag>` block (outermost first); tags pair by position."""
    closes: dict[str, list[tuple[int, int]]] = {}
    for match in _CLOSE_TAG.finditer(text):
        closes.setdefault(match.group(1).lower(), []).append((match.start(), match.end()))
    if not closes:
        return text
    pieces: list[str] = []
    position = 0
    for match in _OPEN_TAG.finditer(text):
        if match.start() < position:
            continue  # inside a block already removed
        ends = closes.get(match.group(1).lower())
        if not ends:
            continue
        index = bisect.bisect_left(ends, (match.end(), 0))
        if index == len(ends):
            continue
        pieces.append(text[position : match.start()])
        position = ends[index][1]
    pieces.append(text[position:])
    return "".join(pieces)


def _strip_pasted_lines(lines: list[str]) -> list[str]:
    kept: list[str] = []
    in_fence = False
    for index, line in enumerate(lines):
        if _FENCE.match(line):
            in_fence = not in_fence
            continue
        if in_fence:
            continue
        if _QUOTED.match(line) or _ROLE_LINE.match(line) or _HARNESS_LINE.match(line):
            continue
        if _introduces_paste(line) and any(rest.strip() for rest in lines[index + 1 :]):
            kept.append(line)
            kept += _closing_words(lines[index + 1 :])
            break

        kept.append(line)
    return _drop_above(kept)


def _closing_words(pasted: list[str]) -> list[str]:
    """The last paragraph below a paste, when it is the user talking again (first person or
    a request, short, after a blank line)."""
    blanks = [i for i, line in enumerate(pasted) if not line.strip()]
    if not blanks:
        return []
    last = [line for line in pasted[blanks[-1] + 1 :] if line.strip()]
    text = " ".join(last)
    if not last or len(text) > 400 or any(_QUOTED.match(line) for line in last):
        return []
    return last if _FIRST_PERSON.search(text) else []


def _introduces_paste(line: str) -> bool:
    stripped = line.rstrip()
    return stripped.endswith((":", "：")) and _PASTE_INTRO.search(stripped) is not None


def _drop_above(lines: list[str]) -> list[str]:
    """A closing paragraph that asks about "the above" makes everything before it a paste."""
    if _ABOVE.search("\n".join(lines)) is None:
        return lines
    for index in range(len(lines) - 1, 0, -1):
        if _ABOVE.search(lines[index]) and any(line.strip() for line in lines[:index]):
            return lines[index:]
    return lines


def _without_injections(line: str) -> str:
    """The line up to the sentence that addresses an AI: what follows it is its payload."""
    if _INJECTION.search(line) is None:
        return line
    kept: list[str] = []
    for sentence in _SENTENCE.findall(line):
        if _INJECTION.search(sentence) is not None:
            break
        kept.append(sentence)
    return "".join(kept)
