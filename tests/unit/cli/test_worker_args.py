"""The reflection worker's command line: written by the spawner, read back without click."""

from __future__ import annotations

from mini_letta.cli.background import WORKER_COMMAND, WorkerArgs, read_worker_args
from support.cli import run_cli_in_process


def test_every_line_the_spawner_writes_reads_back_as_it_was():
    for job in (
        WorkerArgs("agent-1", "conv-1", "manual"),
        WorkerArgs("agent-1", "conv-1", "manual", "只记偏好 --agent x"),
        WorkerArgs("agent-1", "conv-1", "step-count"),
        WorkerArgs("agent-1", "conv-1", "compaction-event"),
    ):
        assert read_worker_args(job.words()) == job, job


def test_any_other_line_is_a_one_line_usage_error(home, project):
    whole = ["--agent", "a", "--conversation", "c", "--trigger", "manual"]
    refused = {
        "no arguments": [],
        "a flag without its value": whole[:-1],
        "an unknown trigger": [*whole[:-1], "later"],
        "a repeated flag": [*whole, "--agent", "b"],
        "an unknown flag": [*whole, "--model", "mock"],
        "an empty agent": ["--agent", "", *whole[2:]],
        "no conversation": [*whole[:2], *whole[4:]],
    }
    failed = []
    for name, words in refused.items():
        result = run_cli_in_process(WORKER_COMMAND, *words, home=home.root, cwd=project)
        lines = result.stderr.splitlines()
        if result.code != 2 or len(lines) != 1 or not lines[0].startswith("mini-letta: "):
            failed.append((name, result))
    assert failed == []
    assert not home.root.exists()  # refused before anything was opened
