"""Children for `support.forker.Forker` that append to one JSONL log, for the log's
concurrency and crash tests: real processes, forked from one Python that has imported the log
once. Each says `READY <key>` on the channel once it has opened the log and its file of
acknowledgements, and acknowledges an append only after the append returned (a line a kill
cut was never acknowledged)."""

from __future__ import annotations

import os
import time
from pathlib import Path
from typing import Any


def writer(key: str, job: dict[str, Any], channel: int) -> int:
    """Once the file `go` exists, append 50 records `{"writer": key, "seq": n}` one at a time,
    acknowledging each as `<index> <seq>`."""
    from mini_letta.storage.jsonl import JsonlLog

    log, go = JsonlLog(Path(job["path"])), Path(job["go"])
    with open(job["acks"], "w", encoding="utf-8") as out:
        os.write(channel, f"READY {key}\n".encode())
        while not go.exists():
            time.sleep(0.001)
        for seq in range(50):
            (index,) = log.append([{"writer": key, "seq": seq}])
            out.write(f"{index} {seq}\n")
    return 0


def crasher(key: str, job: dict[str, Any], channel: int) -> int:
    """Append batches of one to three padded records `{"tag": key, "seq": n}` until killed,
    acknowledging each batch as `<index>:<seq> ...`."""
    from mini_letta.storage.jsonl import JsonlLog

    log, pad = JsonlLog(Path(job["path"])), "x" * job["pad"]
    with open(job["acks"], "w", encoding="utf-8") as out:
        os.write(channel, f"READY {key}\n".encode())  # the kill may come now
        seq = 0
        while True:
            batch = [{"tag": key, "seq": seq + k, "pad": pad} for k in range(1 + seq % 3)]
            indices = log.append(batch)
            out.write(
                " ".join(f"{i}:{r['seq']}" for i, r in zip(indices, batch, strict=True)) + "\n"
            )
            out.flush()
            seq += len(batch)
