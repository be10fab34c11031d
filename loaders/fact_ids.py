"""Ids of the facts that name the line they stand on. One place, so that the writer can tell
a fact's id at its old line when it moves a log entry's facts (`graph.log_update`)."""

from __future__ import annotations

from typing import LiteralString

# What every numeric claim's id starts with, before its page (the graph seeks the claims of
# one statement by the prefix this makes, `claim_prefix(page)` and the line).
NUMERIC_CLAIM: LiteralString = "num:"


def claim_id(page: str, line: int, subject: str, metric: str, value: float) -> str:
    """A numeric claim: one per statement, line and subject. Its line follows
    `claim_prefix(page)`, up to the next colon."""
    return f"{claim_prefix(page)}{line}:{subject}:{metric}:{value:g}"


def claim_prefix(page: str) -> str:
    return f"{NUMERIC_CLAIM}{page}:"


def evidence_prefix(page: str) -> str:
    """An evidence line is `page:line: text`: its line follows this, up to the next colon."""
    return f"{page}:"


def callout_id(page: str, line: int) -> str:
    """A `> [!contradiction]` callout, by its first line."""
    return f"callout:{page}:{line}"


def lint_id(entry: str, line: int) -> str:
    """A correction bullet of a lint entry of the log."""
    return f"lint:{entry}:{line}"
