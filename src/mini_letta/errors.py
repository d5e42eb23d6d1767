"""Every error a user can cause, as one hierarchy with exit codes.

MiniLettaError (exit 1)        one line naming the file/flag/variable, and the fix
├─ InvalidValueError (exit 2)  a flag or argument value rejected after parsing
├─ NotFoundError               unknown agent, conversation, run or memory path; NoAgentError
├─ ConfigError                 unusable settings or agent records
├─ ContextWindowTooSmallError  the window cannot hold the system prompt and the message
├─ StorageError                CorruptFileError(path), LockTimeoutError, UnwritableError
├─ MemfsError                  FrontmatterError, SecretDetectedError, GitError,
│                              MemoryEditError
├─ ProviderError               UnknownModelError, MissingKeyError, AuthError, QuotaError,
│                              BadRequestError, TransientError, ContextOverflowError,
│                              UnreachableError
└─ ReflectionError             LeaseHeldError

Exceptions carry context as attributes and have no side effects. Only `cli/main.py` turns them
into exit codes and printed lines.
"""

from __future__ import annotations

from pathlib import Path


class MiniLettaError(Exception):
    """An error the user can act on; its message is one line."""

    exit_code = 1


class InvalidValueError(MiniLettaError):
    """A command-line value that is not allowed (exit 2, like click's usage errors)."""

    exit_code = 2


class NotFoundError(MiniLettaError):
    pass


class NoAgentError(NotFoundError):
    """The project has no agent yet; only a chat or `agents create` makes one."""

    def __init__(self, project: object = None) -> None:
        where = "" if project is None else f" for the project at {project}"
        super().__init__(
            f"no agent yet{where}; run `mini-letta chat` or `mini-letta agents create`"
        )


class ConfigError(MiniLettaError):
    pass


class StorageError(MiniLettaError):
    pass


class ContextWindowTooSmallError(MiniLettaError):
    """Not a provider overflow: compacting cannot help, so the turn stops instead of looping."""

    def __init__(self, window: int, needed: int, what: str) -> None:
        self.window = window
        self.needed = needed
        super().__init__(
            f"the context window of {window} tokens is too small for {what} "
            f"(about {needed} tokens needed); use a larger --context-window "
            "(or agent.json contextWindow)"
        )


class CorruptFileError(StorageError):
    def __init__(self, path: Path, detail: str, hint: str = "") -> None:
        self.path = path
        self.detail = detail
        message = f"{path} is corrupt ({detail})"
        if hint:
            message += f"; {hint}"
        super().__init__(message)


class LockTimeoutError(StorageError):
    def __init__(self, what: str, path: Path, timeout: float) -> None:
        self.path = path
        super().__init__(
            f"{what} is locked by another mini-letta process (waited {timeout:g}s on {path}); "
            "try again when it finishes"
        )


class UnwritableError(StorageError):
    def __init__(self, path: Path, detail: str) -> None:
        self.path = path
        super().__init__(
            f"cannot write {path} ({detail}); check permissions or set MINI_LETTA_HOME"
        )


class MemfsError(MiniLettaError):
    pass


class FrontmatterError(MemfsError):
    def __init__(self, path: str, detail: str) -> None:
        self.path = path
        super().__init__(f"{path}: {detail}")


class SecretDetectedError(MemfsError):
    def __init__(self, kind: str, where: str) -> None:
        self.kind = kind
        super().__init__(
            f"refused: {where} contains what looks like a secret ({kind}); "
            "memory is permanent, so leave credentials out"
        )


class GitError(MemfsError):
    pass


class MemoryEditError(MemfsError):
    """A memory edit that was refused before anything was written; the model can retry."""


class ProviderError(MiniLettaError):
    """A model call failed; `kind` is the stable name used in records and retries."""

    kind = "error"


class UnknownModelError(ProviderError):
    kind = "unknown_model"


class MissingKeyError(ProviderError):
    kind = "auth"

    def __init__(self, env_var: str, handle: str) -> None:
        self.env_var = env_var
        super().__init__(f"{env_var} is not set (export it to use {handle}, or use --model mock)")


class AuthError(ProviderError):
    kind = "auth"


class QuotaError(ProviderError):
    kind = "quota"


class BadRequestError(ProviderError):
    kind = "bad_request"


class TransientError(ProviderError):
    kind = "transient"

    def __init__(self, message: str, retry_after: float | None = None) -> None:
        self.retry_after = retry_after
        super().__init__(message)


class ContextOverflowError(ProviderError):
    kind = "overflow"


class UnreachableError(ProviderError):
    """Nothing answers at the server's address (refused, unknown host); retrying won't help."""

    kind = "unreachable"

    def __init__(self, message: str, url: str) -> None:
        self.url = url
        super().__init__(message)


class ReflectionError(MiniLettaError):
    pass


class LeaseHeldError(ReflectionError):
    pass
