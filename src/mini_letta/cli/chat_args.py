"""`chat`'s one definition: its options, its checks, and the plain `chat -p TEXT` read from them.

`CHAT_OPTIONS` declares every option once, without click: `commands/chat.py` builds the click
command from it, and `plain_chat_args` reads the plain form of a headless turn from the same
table without loading click (a sixth of a turn's start-up). The plain form reads each option
that click would take as it stands (no conversion, no callback but "not empty"), each once, as
separate words; anything else, including every value that starts with `-` or is empty, goes to
click, so the plain form never decides what click would decide differently. The command's own
checks (`usage_problem`) are one function both ways.
"""

from __future__ import annotations

import io
from typing import TYPE_CHECKING, Any, Literal, TextIO

from mini_letta.structs import Struct
from mini_letta.tools.permissions import PERMISSION_MODES

if TYPE_CHECKING:
    from mini_letta.tools.permissions import PermissionMode

OutputFormat = Literal["text", "json", "stream-json"]
OUTPUT_FORMATS: tuple[OutputFormat, ...] = ("text", "json", "stream-json")
INPUT_FORMATS = ("text", "stream-json")
MAX_STEPS = 20  # the turn loop's DEFAULT_MAX_STEPS, which a test holds equal

PICK = ""  # `-r` given without an ID: pick from a list (on a terminal)

# A callback click runs on a value: `nonempty` refuses "" and spaces (the plain form declines
# them, so click says so); the others convert or look a value up, so only click reads them.
Check = Literal["nonempty", "model", "base_url"]


class OptionSpec(Struct, frozen=True):
    """One option as click declares it; `cli/options.py` `click_option` makes the click option."""

    param: str  # the parameter it sets (a ChatArgs field)
    names: tuple[str, ...]  # its flags, the first one shown first
    help: str
    flag: bool = False
    metavar: str | None = None
    choices: tuple[str, ...] | None = None
    default: str | int | None = None  # shown in --help when set
    minimum: int | None = None  # an integer of at least this
    check: Check | None = None
    bare: str | None = None  # the value when given without one (`-r` alone); None: it needs one

    @property
    def plain(self) -> bool:
        """Whether the plain form reads it: a value click keeps as it is, or a flag."""
        return self.minimum is None and self.bare is None and self.check in (None, "nonempty")


AGENT = OptionSpec(
    "agent",
    ("--agent",),
    "The agent (default: this project's).",
    metavar="ID|NAME",
    check="nonempty",
)
CONTEXT_WINDOW = OptionSpec(
    "context_window",
    ("--context-window",),
    "Context window in tokens for this run (default: the agent's, else the model's).",
    metavar="TOKENS",
    minimum=1,
)
BASE_URL = OptionSpec(
    "base_url",
    ("--base-url",),
    "Server URL for an OpenAI-compatible or Anthropic model.",
    metavar="URL",
    check="base_url",
)
MODEL = OptionSpec(
    "model",
    ("-m", "--model"),
    "Model for this run only (mock, sonnet, openai/…); agent.json keeps its own.",
    metavar="MODEL",
    check="model",
)
RESUME = OptionSpec(
    "resume",
    ("-r", "--resume"),
    "Continue conversation ID; without ID, pick one from a list (interactive only).",
    metavar="[ID]",
    bare=PICK,
)
PERMISSION_MODE = OptionSpec(
    "permission_mode",
    ("--permission-mode",),
    "default asks before edits and commands (headless: refuses them); acceptEdits; "
    "bypassPermissions; plan (read-only).",
    choices=PERMISSION_MODES,
    default="default",
)
CHAT_OPTIONS: tuple[OptionSpec, ...] = (
    OptionSpec(
        "prompt", ("-p", "--prompt"), "The message to send; '-' reads it from standard input.",
    ),
    AGENT,
    OptionSpec(
        "conversation", ("--conversation",), "Continue this conversation.", metavar="ID",
        check="nonempty",
    ),
    RESUME,
    OptionSpec(
        "continue_last", ("-c", "--continue"),
        "Continue the project's last conversation (the default; as `claude -c`).", flag=True,
    ),
    OptionSpec("new", ("--new",), "Start a new conversation and make it current.", flag=True),
    MODEL,
    BASE_URL,
    OptionSpec(
        "tools", ("--tools",),
        'The toolset, comma-separated (default: agent.json, else by model; "" for none).',
        metavar="NAMES",
    ),
    OptionSpec(
        "allowed_tools", ("--allowed-tools",), "Tools that run without asking (comma-separated).",
        metavar="NAMES",
    ),
    OptionSpec(
        "disallowed_tools", ("--disallowed-tools",),
        "Tools this run may not use (comma-separated).", metavar="NAMES",
    ),
    PERMISSION_MODE,
    OptionSpec(
        "output_format", ("--output-format",),
        "How to print the turn: text (default), json, stream-json.", choices=OUTPUT_FORMATS,
    ),
    OptionSpec(
        "input_format", ("--input-format",),
        "stream-json: keep running and read one JSON user message per stdin line.",
        choices=INPUT_FORMATS, default="text",
    ),
    OptionSpec(
        "max_steps", ("--max-steps",), "Most model steps in one turn.", default=MAX_STEPS,
        minimum=1,
    ),
    CONTEXT_WINDOW,
    OptionSpec(
        "recompile", ("--recompile",),
        "Recompile the system prompt from memory as it is now (it is otherwise kept stable).",
        flag=True,
    ),
    OptionSpec(
        "background_reflection", ("--background-reflection",),
        "Run a triggered reflection in a detached process; the next command shows its outcome.",
        flag=True,
    ),
)  # fmt: skip


class ChatArgs(Struct, frozen=True):
    """`chat`'s parameters as click passes them (CHAT_OPTIONS gives each its default)."""

    prompt: str | None
    agent: str | None
    conversation: str | None
    resume: str | None  # -r ID, as `claude -r`: the conversation too
    continue_last: bool  # -c: the project's last conversation, which is the default
    new: bool
    model: str | None
    base_url: str | None
    tools: str | None
    allowed_tools: str | None
    disallowed_tools: str | None
    permission_mode: PermissionMode
    output_format: OutputFormat | None
    input_format: str
    max_steps: int
    context_window: int | None
    recompile: bool
    background_reflection: bool

    @property
    def conversation_id(self) -> str | None:
        """The conversation named by --conversation or -r/--resume."""
        return self.conversation if self.resume is None else self.resume.strip()


def chat_args(given: dict[str, Any]) -> ChatArgs:
    """The parameters: those given, else each option's default (a flag's is False)."""
    defaults = {spec.param: False if spec.flag else spec.default for spec in CHAT_OPTIONS}
    return ChatArgs(**(defaults | given))


def usage_problem(args: ChatArgs) -> str | None:
    """What makes these parameters a usage error (exit 2), beyond each option's own check."""
    streaming_input = args.input_format == "stream-json"
    if streaming_input and args.prompt is not None:
        return "-p and --input-format stream-json exclude each other"
    if streaming_input and args.output_format not in (None, "stream-json"):
        return "--input-format stream-json needs --output-format stream-json"
    if args.prompt is None and not streaming_input:
        return (
            "chat needs -p TEXT (or -p - to read standard input, or --input-format stream-json); "
            "run `mini-letta` with no command for the interactive session"
        )
    if args.resume is not None and args.resume.strip() == PICK:
        return (
            "-r/--resume without an ID picks from a list in the interactive session "
            "(`mini-letta -r`); with -p give the ID (`mini-letta conversations list`), "
            "or -c for the last conversation"
        )
    if args.resume is not None and args.conversation is not None:
        return "-r/--resume and --conversation both name a conversation; give one"
    if args.new and args.conversation_id:
        return (
            "--new and --conversation exclude each other (--new starts a conversation, "
            "--conversation continues one)"
        )
    if args.continue_last and (args.new or args.conversation_id):
        return "-c/--continue continues the last conversation: it excludes --new and --conversation"
    return None


_PLAIN = {name: spec for spec in CHAT_OPTIONS if spec.plain for name in spec.names}


def plain_chat_args(argv: list[str]) -> ChatArgs | None:
    """`argv` (without the program name) as chat's parameters when it is the plain form of
    `chat -p TEXT`; None for anything else, which click parses."""
    if not argv or argv[0] != "chat":
        return None
    given: dict[str, Any] = {}
    words = iter(argv[1:])
    for word in words:
        spec = _PLAIN.get(word)
        if spec is None or spec.param in given:
            return None  # click's: another option, a second time (click keeps the last), `--`
        value: str | bool = True
        if not spec.flag:
            text = next(words, None)
            if text is None or text.startswith("-") or not text.strip():
                return None  # missing, empty, stdin (`-p -`), or a word click reads its own way
            if spec.choices is not None and text not in spec.choices:
                return None
            value = text
        given[spec.param] = value
    args = chat_args(given)
    if args.prompt is None or usage_problem(args) is not None:
        return None  # standard input or a usage error: click's
    return args


def read_prompt(prompt: str, stdin: TextIO) -> str:
    """The prompt text; '-' reads standard input. An empty prompt is a usage error.

    Bytes that are not UTF-8 (in argv or on stdin) become U+FFFD, with a warning: a pasted log
    with one stray byte is still worth sending, and the record stays valid UTF-8.
    """
    text = lenient_stdin(stdin).read() if prompt == "-" else prompt
    if not text.strip():
        import click

        raise click.UsageError("the prompt is empty; give some text with -p (or pipe it with -p -)")
    from mini_letta.storage.text import clean_text

    cleaned = clean_text(text)
    if cleaned != text:
        from mini_letta.cli.terminal import echo

        echo(
            "mini-letta: warning: the prompt is not valid UTF-8; "
            "undecodable bytes were replaced with U+FFFD",
            err=True,
        )
    return cleaned.strip("\n") if prompt == "-" else cleaned


def lenient_stdin(stdin: TextIO) -> TextIO:
    """Standard input that never fails to decode: bytes that are not UTF-8 come through as
    lone surrogates (which `clean_text` turns into U+FFFD) instead of UnicodeDecodeError."""
    if isinstance(stdin, io.TextIOWrapper):
        stdin.reconfigure(encoding="utf-8", errors="surrogateescape")
    return stdin


def parse_tool_flag(value: str | None, flag: str) -> tuple[str, ...] | None:
    """A comma-separated tool list from a flag; an unknown name is a usage error (exit 2)."""
    if value is None:
        return None
    from mini_letta.tools.registry import parse_tool_names, split_tool_list

    return parse_tool_names(split_tool_list(value), flag)
