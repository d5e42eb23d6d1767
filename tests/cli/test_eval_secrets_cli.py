"""`mini-letta eval secrets`: the scanner's corpus figures, as text and as JSON."""

from __future__ import annotations

import json


def test_eval_secrets_prints_both_parts_and_their_floors(cli):
    result = cli("eval", "secrets")
    assert result.code == 0, result.stderr
    lines = result.stdout.splitlines()
    assert [line.split()[0] for line in lines[:2]] == ["visible", "held-out"]
    assert "credentials refused" in lines[0] and "clean lines flagged" in lines[0]
    assert lines[2] == "floors: at least 97% refused, at most 1% flagged"


def test_eval_secrets_json_has_the_shares_per_part(cli):
    result = cli("eval", "secrets", "--json")
    assert result.code == 0, result.stderr
    parts = json.loads(result.stdout)
    assert [part["part"] for part in parts] == ["visible", "held-out"]
    for part in parts:
        assert abs(part["refused"] / part["credentials"] - part["refusedShare"]) < 1e-4
        assert part["refusedShare"] >= 0.97 and part["flaggedShare"] <= 0.01
        assert part["shapes"] >= 40 and part["charactersPerSecond"] > 0
