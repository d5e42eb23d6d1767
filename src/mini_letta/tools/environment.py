"""What the shell may see of our environment, and what no tool result may show of it.

Bash gets the process environment minus credentials: a variable goes when its name looks like
one (`*_API_KEY`, `*_TOKEN`, `*SECRET*`, `*PASSWORD*`, the AWS keys, …) or the secret scanner
flags its value, unless the user allow-listed the name (settings.json `bashEnvAllow`).
`redact_output` then removes from every tool result both the scanner's matches and the literal
values of those credential variables, so a key read from a file or printed some other way is
neither stored in messages.jsonl nor shown.
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Collection, Mapping

from mini_letta.memory.secrets import redact_secrets, scan_secrets

_CREDENTIAL_NAME = re.compile(
    r"(?:API_?KEY|ACCESS_?KEY|PRIVATE_?KEY|_KEY|TOKEN|SECRET|PASSWORD|PASSWD|PASSPHRASE|"
    r"CREDENTIALS?|_AUTH|_PAT|_PWD)(?:_|$)|^PGPASS|^AWS_(?:ACCESS_KEY_ID|SECRET|SESSION)|SECRET"
)
_NOT_CREDENTIALS = frozenset({"PWD", "OLDPWD", "SSH_AUTH_SOCK"})
MIN_VALUE_LENGTH = 8  # shorter values ("1", "true") would be redacted everywhere


def is_credential_name(name: str) -> bool:
    """`OPENAI_API_KEY`, `GITHUB_TOKEN`, `DB_PASSWORD`: yes; `PATH`, `OPENAI_BASE_URL`: no."""
    upper = name.upper()
    return upper not in _NOT_CREDENTIALS and _CREDENTIAL_NAME.search(upper) is not None


def credential_names(environ: Mapping[str, str]) -> set[str]:
    """The variables that hold a credential, by name or by value (one scan for all values)."""
    names = list(environ)
    found = {name for name in names if is_credential_name(name)}
    starts: list[int] = []
    position = 0
    for name in names:
        starts.append(position)
        position += len(environ[name]) + 1
    for match in scan_secrets("\n".join(environ[name] for name in names)):
        found.add(names[bisect.bisect_right(starts, match.start) - 1])
    return found


def shell_environment(environ: Mapping[str, str], allow: Collection[str] = ()) -> dict[str, str]:
    """`environ` without its credentials, except the names in `allow`."""
    drop = credential_names(environ) - set(allow)
    return {name: value for name, value in environ.items() if name not in drop}


def credential_values(environ: Mapping[str, str]) -> list[tuple[str, str]]:
    """(name, value) of each credential variable worth redacting, longest value first."""
    found = [
        (name, environ[name])
        for name in credential_names(environ)
        if len(environ[name]) >= MIN_VALUE_LENGTH
    ]
    return sorted(found, key=lambda item: (-len(item[1]), item[0]))


def redact_output(text: str, credentials: list[tuple[str, str]]) -> str:
    """`text` without the scanner's matches or the literal values of `credentials`."""
    text = redact_secrets(text)  # first, so a recognised key is named by its kind
    for name, value in credentials:
        if value in text:
            text = text.replace(value, f"<redacted:{name}>")
    return text
