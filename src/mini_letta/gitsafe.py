"""Git that never runs a program a repository names: every git call in mini-letta goes through here.

A repository's own config (`.git/config`, its includes) and attributes are hostile input: they
can name hooks, an fsmonitor, pagers, editors, filter/merge drivers, credential helpers or an ssh
command, and git runs them. So each call gets `SAFE_GIT_CONFIG` on the command line (which beats
every config file), an environment that reads no user or system config and never prompts, and
`driver_overrides()` for the filter and merge drivers the repository's config defines, whose
names nobody can know in advance. mini-letta does not run git in the user's project at all.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterator, Mapping, Sequence

# Values given with `-c` take precedence over every config file git reads.
SAFE_GIT_CONFIG: tuple[str, ...] = (
    f"core.hooksPath={os.devnull}",  # no hook runs: there is nothing at /dev/null/<hook>
    "core.fsmonitor=false",
    "core.pager=cat",
    "core.editor=false",
    "sequence.editor=false",
    "core.askPass=",
    "core.sshCommand=ssh",
    "protocol.git.allow=never",  # core.gitProxy (first value wins) only serves git://
    "credential.helper=",  # an empty value clears every helper configured before it
    "diff.external=",
    "core.alternateRefsCommand=",
    f"core.attributesFile={os.devnull}",
    "protocol.ext.allow=never",
    "log.showSignature=false",
    "commit.gpgsign=false",
    "tag.gpgsign=false",
)

# Settings a remote operation takes from the user's own (global, system) config instead.
TRANSPORT_KEYS = r"^(credential\..*helper|core\.sshcommand|core\.askpass)$"
_TRANSPORT = ("credential.helper=", "core.sshCommand=ssh", "core.askPass=")


def safe_git_config(*, user_config: bool = False) -> tuple[str, ...]:
    """`SAFE_GIT_CONFIG`, without the transport settings when `user_transport_config` adds them."""
    if not user_config:
        return SAFE_GIT_CONFIG
    return tuple(item for item in SAFE_GIT_CONFIG if item not in _TRANSPORT)


def config_entries(listing: bytes) -> Iterator[tuple[str, str]]:
    """(key, value) of each entry of `git config -z` output (key, LF, value, NUL; a key set
    without a value has no LF). Undecodable bytes survive the round trip back to git."""
    for entry in listing.decode("utf-8", "surrogateescape").split("\0"):
        if entry:
            key, _, value = entry.partition("\n")
            yield key, value


def user_transport_config(listing: bytes) -> list[str]:
    """`-c` items: the repository's transport settings replaced by the user's own.

    `listing` is `git config --system/--global -z --get-regexp TRANSPORT_KEYS` output. Every
    credential helper named so far (the repository's included) is cleared first, then the user's
    are added back; ssh and askpass fall back to plain `ssh` and none.
    """
    items = ["credential.helper="]
    ssh, askpass = "ssh", ""
    for key, value in config_entries(listing):
        lowered = key.lower()
        if lowered == "core.sshcommand":
            ssh = value
        elif lowered == "core.askpass":
            askpass = value
        elif (
            lowered.startswith("credential.")
            and lowered.endswith(".helper")
            or lowered == ("credential.helper")
        ):
            items.append(f"{key}={value}")
    return [*items, f"core.sshCommand={ssh}", f"core.askPass={askpass}"]


# Subcommands whose output goes through the diff machinery: external diff and textconv are off.
DIFF_COMMANDS = frozenset({"diff", "log", "show", "format-patch"})
DIFF_FLAGS: tuple[str, ...] = ("--no-ext-diff", "--no-textconv")

# `git config -z --get-regexp` over this lists every driver that could run a program.
DRIVER_KEYS = (
    r"^(filter|merge)\..+\.(clean|smudge|process|driver)$|^remote\..+\.(uploadpack|receivepack)$"
)
_DRIVER_KEY = r"(filter|merge|remote)\.(.+)\.[a-z]+"  # compiled at first use: a turn runs no git

_DROPPED_ENV = (
    "GIT_DIR",
    "GIT_WORK_TREE",
    "GIT_INDEX_FILE",
    "GIT_OBJECT_DIRECTORY",
    "GIT_ALTERNATE_OBJECT_DIRECTORIES",
    "GIT_COMMON_DIR",
    "GIT_NAMESPACE",
    "GIT_PREFIX",
    "GIT_CEILING_DIRECTORIES",
    "GIT_AUTHOR_NAME",
    "GIT_AUTHOR_EMAIL",
    "GIT_AUTHOR_DATE",
    "GIT_COMMITTER_NAME",
    "GIT_COMMITTER_EMAIL",
    "GIT_COMMITTER_DATE",
    "GIT_CONFIG",
    "GIT_CONFIG_PARAMETERS",
    "GIT_CONFIG_COUNT",
    "GIT_EXTERNAL_DIFF",
    # history as the objects say it (sync/commits.py reads loose commits on that premise)
    "GIT_REPLACE_REF_BASE",
    "GIT_GRAFT_FILE",
    "GIT_SHALLOW_FILE",
)


def safe_git_env(
    environ: Mapping[str, str] | None = None, *, user_config: bool = False
) -> dict[str, str]:
    """The environment git runs in: the caller's, minus git overrides; nothing prompts or pages.

    The user's global and system config are not read (their hooks path, signing or autocrlf
    cannot change what mini-letta's commits do) unless `user_config`: talking to a remote
    needs their credential helper and ssh settings. `SAFE_GIT_CONFIG` then overrides some of
    those (`credential.helper`, `core.sshCommand`): a remote caller passes the user's own values
    after it, read with `git config --global`, so the repository's values never win.
    """
    env = dict(os.environ if environ is None else environ)
    for name in _DROPPED_ENV:
        env.pop(name, None)
    for name in [key for key in env if key.startswith(("GIT_CONFIG_KEY_", "GIT_CONFIG_VALUE_"))]:
        env.pop(name)
    env.update(
        GIT_TERMINAL_PROMPT="0",
        GIT_ASKPASS="",
        SSH_ASKPASS="",
        GCM_INTERACTIVE="never",
        GIT_PAGER="cat",
        PAGER="cat",
        GIT_ATTR_NOSYSTEM="1",
        GIT_EDITOR="false",
        GIT_SEQUENCE_EDITOR="false",
        LC_ALL="C",
    )
    if not user_config:
        env.update(GIT_CONFIG_GLOBAL=os.devnull, GIT_CONFIG_NOSYSTEM="1")
    return env


def driver_overrides(listing: bytes) -> list[str]:
    """`-c` items that disarm each driver named in `git config -z --get-regexp DRIVER_KEYS`.

    A filter becomes the identity (`cat`, no long-running process, not required); a merge
    driver becomes `false`, so the file is reported as a conflict instead of being merged by a
    program; a remote's upload/receive pack becomes git's own.
    """
    items: list[str] = []
    for key, _ in config_entries(listing):
        found = re.fullmatch(_DRIVER_KEY, key, re.IGNORECASE | re.DOTALL)
        if found is None:
            continue
        section, name = found.group(1).lower(), found.group(2)
        if section == "filter":
            new = [f"filter.{name}.{field}" for field in ("clean=cat", "smudge=cat")]
            new += [f"filter.{name}.process=", f"filter.{name}.required=false"]
        elif section == "merge":
            new = [f"merge.{name}.driver=false"]
        else:
            new = [f"remote.{name}.uploadpack=git-upload-pack"]
            new += [f"remote.{name}.receivepack=git-receive-pack"]
        items += [item for item in new if item not in items]
    return items


def config_args(items: tuple[str, ...] | list[str]) -> list[str]:
    """`-c item` for each item, in order."""
    args: list[str] = []
    for item in items:
        args += ["-c", item]
    return args


URL_KEYS = r"^remote\..+\.url$"  # each remote's URL, as `git config --get-regexp` matches keys


def split_remote_settings(
    scoped: Sequence[tuple[bytes, bytes]],
) -> tuple[bytes, bytes, dict[str, str]]:
    """`_read_user_settings`'s (scope, entry) pairs, entries as `git config -z` lists them,
    split into (the system and global transport entries, the driver entries, remote name ->
    URL with the last value kept, as `git config --get` answers)."""
    transport: list[bytes] = []
    drivers: list[bytes] = []
    urls: dict[str, str] = {}
    for scope, entry in scoped:
        if not entry:
            continue
        raw_key, _, raw_value = entry.partition(b"\n")
        key = raw_key.decode("utf-8", "surrogateescape")
        if re.fullmatch(TRANSPORT_KEYS, key, re.DOTALL):
            if scope in (b"system", b"global"):
                transport.append(entry + b"\0")
        elif re.fullmatch(URL_KEYS, key, re.DOTALL):
            urls[key] = raw_value.decode("utf-8", "replace").strip()
        else:
            drivers.append(entry + b"\0")
    return b"".join(transport), b"".join(drivers), {k: v for k, v in urls.items() if v}
