"""The claim ledger's lines: each claim's line is the first line that writes `"id": "<id>"`,
found in one pass (`loaders.ledger.parse_ledger`), as the plain per-id search finds it."""

from __future__ import annotations

import json
import re
from random import Random

from loaders.ledger import parse_ledger
from loaders.resolver import NameIndex


def _plain_line(lines: list[str], claim_id: str) -> int | None:
    pattern = re.compile(r'"id"\s*:\s*"' + re.escape(claim_id) + '"')
    return next((n for n, t in enumerate(lines, 1) if pattern.search(t)), None)


def test_claim_lines_are_the_first_line_naming_each_id() -> None:
    rng = Random(11)
    alphabet = ["clm-", "a", "1", "-", "訂正", '"', "\\", " ", "é"]
    index = NameIndex.build(())
    for _ in range(60):
        ids = list(dict.fromkeys("".join(rng.choice(alphabet) for _ in range(rng.randint(1, 4)))
                                 for _ in range(rng.randint(1, 8))))
        # A claim may name another claim's id in a field before its own (an earlier line).
        claims = [{"see": {"id": rng.choice(ids)}, "id": i,
                   "claim": rng.choice(["x", f'"id": "{rng.choice(ids)}"']),
                   "contradicted_by": rng.sample(ids, min(len(ids), rng.randint(0, 2)))}
                  for i in ids]
        text = json.dumps({"claims": claims}, ensure_ascii=rng.random() < 0.5,
                          indent=rng.choice([None, 2]))
        found, _ = parse_ledger(text, "meta/ledger.json", index)
        lines = text.split("\n")
        assert [(c.id, c.line) for c in found] == [(i, _plain_line(lines, i)) for i in ids]
