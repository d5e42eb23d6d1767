"""What making text storable costs: clean_text on valid and undecodable text, and reading
messages back (every Message is cleaned on construction).

    python bench/message_text.py
"""

from __future__ import annotations

import json

from _common import SENTENCE, median_ms

from mini_letta.conversations.messages import Message
from mini_letta.storage.text import clean_text

MB = 1_000_000


def main() -> None:
    cjk = (SENTENCE * (5 * MB // len(SENTENCE.encode())))[: 5 * MB // 3]
    ascii_text = "x" * (5 * MB)
    escaped = ("ab\udcff" * (5 * MB // 3))[: 5 * MB]
    for name, text in (("ascii", ascii_text), ("cjk", cjk), ("undecodable", escaped)):
        ms = median_ms(lambda text=text: clean_text(text), 5)
        print(f"clean_text 5 MB {name:<12} {ms:8.1f} ms")
    record = Message("msg-1", "user", SENTENCE, "2026-10-08T16:06:58.000Z").to_json()
    lines = [json.dumps(record, ensure_ascii=False)] * 100_000
    ms = median_ms(lambda: [Message.from_json(json.loads(line)) for line in lines], 3)
    print(f"parse 100k CJK messages     {ms:8.1f} ms ({ms / 100:.1f} µs per message)")
    ms_clean = median_ms(lambda: [clean_text(SENTENCE) for _ in range(100_000)], 3)
    print(f"of which clean_text         {ms_clean:8.1f} ms")


if __name__ == "__main__":
    main()
