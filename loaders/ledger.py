"""The claim ledger (`wiki/meta/ledgers/claim-ledger.json`): claims with assessments, and the
pairs that contradict each other."""

from __future__ import annotations

import json
import re

from loaders.errors import VaultError
from loaders.links import find_links
from loaders.records import ClaimRecord, ContradictionRecord
from loaders.resolver import NameIndex

ID_FIELD = re.compile(r'"id"\s*:\s*"([^"]*)"')  # an id as written (escaped ids are not found)


def _resolve_all(value: object, index: NameIndex, path: str) -> list[str]:
    items = value if isinstance(value, list) else [value] if value else []
    out: list[str] = []
    for item in items:
        for raw in find_links(str(item)) or []:
            target = index.resolve(raw.target, path).target
            if target and target not in out:
                out.append(target)
    return out


def parse_ledger(text: str, path: str, index: NameIndex
                 ) -> tuple[list[ClaimRecord], list[ContradictionRecord]]:
    """Claims and `contradicted_by` pairs. Raises VaultError naming the line on bad JSON."""
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise VaultError(f"claim ledger is not valid JSON: {exc.msg}", path, exc.lineno) from None
    raw_claims = data.get("claims") if isinstance(data, dict) else None
    if not isinstance(raw_claims, list):
        raise VaultError("claim ledger has no 'claims' list", path, 1)
    # The first line each id is written on, read in one pass (534 ids searched line by line
    # took 0.7 s at 100k pages, on every change of the log).
    first_line: dict[str, int] = {}
    for number, line in enumerate(text.split("\n"), 1):
        for match in ID_FIELD.finditer(line):
            first_line.setdefault(match.group(1), number)

    claims: list[ClaimRecord] = []
    by_id: dict[str, ClaimRecord] = {}
    contradicted: dict[str, list[str]] = {}
    for item in raw_claims:
        if not isinstance(item, dict) or not item.get("id"):
            continue
        claim_id = str(item["id"])
        subject = _resolve_all(item.get("subject"), index, path)
        pages = _resolve_all(item.get("pages"), index, path)
        sources = _resolve_all(item.get("sources"), index, path)
        record = ClaimRecord(
            id=claim_id, text=str(item.get("claim") or ""), origin="ledger",
            page=pages[0] if pages else None, line=first_line.get(claim_id),
            subject=subject[0] if subject else None,
            assessment=str(item.get("assessment") or "") or None,
            pages=tuple(dict.fromkeys([*pages, *sources])))
        claims.append(record)
        by_id[claim_id] = record
        contradicted[claim_id] = [str(c) for c in item.get("contradicted_by") or []]
    pairs: dict[tuple[str, str], ContradictionRecord] = {}
    for claim_id, others in contradicted.items():
        for other in others:
            a, b = sorted((claim_id, other))
            if (a, b) in pairs or a not in by_id or b not in by_id:
                continue
            first, second = by_id[a], by_id[b]
            contested = "contested" in (first.assessment, second.assessment)
            pairs[(a, b)] = ContradictionRecord(
                id=f"ledger:{a}|{b}", kind="explicit", status="open" if contested else "resolved",
                origin="ledger", summary=f"{a} vs {b}", page=None, line=first.line,
                subject=first.subject, claims=(a, b),
                pages=tuple(dict.fromkeys([*first.pages, *second.pages])),
                evidence=(f"{path}:{first.line}: {first.text}",
                          f"{path}:{second.line}: {second.text}"))
    return claims, list(pairs.values())
