"""Existing fold pages: what they declare (fold_id, level, range, child keys) and what their
`## Contradictions or Corrections` section lists. Two frontmatter styles exist: flat
`child_keys` oldest first (current) and nested `children:` newest first (older pages)."""

from __future__ import annotations

import re

from loaders.frontmatter import Frontmatter
from loaders.records import ContradictionRecord, FoldPage, Page, Problem

FOLD_ID = re.compile(r"^fold-k(\d+)-from-(\d{4}-\d{2}-\d{2})-to-(\d{4}-\d{2}-\d{2})-n(\d+)$")
NONE_DETECTED = re.compile(r"none\s+detected|なし|検出されず", re.IGNORECASE)
CHILD_KEY_FIELDS = ("child_key", "key", "id", "entry")


def _int(value: object) -> int | None:
    """A whole number Neo4j can store (64-bit), else None."""
    try:
        number = int(str(value))
    except (TypeError, ValueError):
        return None
    return number if -(2**63) <= number < 2**63 else None


def parse_fold_page(page: Page, front: Frontmatter) -> tuple[FoldPage | None, list[Problem]]:
    """Read a fold page's declaration; says what it could not read."""
    problems: list[Problem] = []
    fold_id = front.text("fold_id") or page.key
    match = FOLD_ID.match(fold_id)
    level = _int(front.data.get("batch_exponent")) or (int(match.group(1)) if match else None)
    count = _int(front.data.get("entry_count")) or (int(match.group(4)) if match else None)
    keys: list[str] = []
    style = "flat"
    if isinstance(front.data.get("child_keys"), list):
        keys = [str(k) for k in front.data["child_keys"] if k]
    elif isinstance(front.data.get("children"), list):
        style = "nested"
        for child in front.data["children"]:
            if isinstance(child, dict):
                key = next((str(child[f]) for f in CHILD_KEY_FIELDS if child.get(f)), None)
                if key is None:
                    problems.append(Problem(path=page.path, line=front.key_lines.get("children"),
                                            message="a `children:` item has no key; ignored"))
                    continue
                keys.append(key)
            elif child:
                keys.append(str(child))
        keys.reverse()  # older pages list children newest first
    else:
        problems.append(Problem(path=page.path, line=front.key_lines.get("type"),
                                message="fold page lists neither child_keys nor children"))
    range_from = front.date("range_from") or (
        _date_or_none(match.group(2)) if match else None)
    range_to = front.date("range_to") or (_date_or_none(match.group(3)) if match else None)
    if count is not None and keys and count != len(keys):
        problems.append(Problem(path=page.path, line=front.key_lines.get("entry_count"),
                                message=f"entry_count {count} but {len(keys)} child keys"))
    return FoldPage(page=page.key, fold_id=fold_id, level=level, entry_count=count,
                    range_from=range_from, range_to=range_to, child_keys=tuple(keys),
                    children_format=style), problems


def _date_or_none(text: str) -> object:
    import datetime as dt

    try:
        return dt.date.fromisoformat(text)
    except ValueError:
        return None


def fold_corrections(page: Page, lines: list[tuple[int, str, str | None]]
                     ) -> list[ContradictionRecord]:
    """Bullets of `## Contradictions or Corrections` other than "None detected"."""
    out: list[ContradictionRecord] = []
    for number, text, section in lines:
        if not section or "contradiction" not in section.lower():
            continue
        stripped = text.strip()
        if not stripped.startswith(("-", "*")) or NONE_DETECTED.search(stripped):
            continue
        out.append(ContradictionRecord(
            id=f"fold:{page.key}:{number}", kind="explicit", status="open", origin="fold",
            summary=stripped.lstrip("-* ")[:300], page=page.key, line=number, subject=page.key,
            pages=(page.key,), evidence=(f"{page.key}:{number}: {stripped}",)))
    return out
