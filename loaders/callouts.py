"""Obsidian callouts (`> [!type] Title` blocks), read with their lines."""

from __future__ import annotations

import re
from dataclasses import dataclass, field

CALLOUT_START = re.compile(r"^\s*>\s*\[!([A-Za-z0-9_\-]+)\][+\-]?\s*(.*)$")
QUOTE = re.compile(r"^\s*>\s?(.*)$")


@dataclass
class Callout:
    """One callout: its type, title, first line and the (line, text) of each body line."""

    kind: str
    title: str
    line: int
    body: list[tuple[int, str]] = field(default_factory=list)

    @property
    def text(self) -> str:
        return "\n".join([self.title, *(text for _, text in self.body)]).strip()


def find_callouts(lines: list[tuple[int, str]]) -> list[Callout]:
    """All callouts among body lines (1-based numbers, code already masked)."""
    found: list[Callout] = []
    current: Callout | None = None
    for line_no, text in lines:
        start = CALLOUT_START.match(text)
        if start:
            current = Callout(start.group(1).lower(), start.group(2).strip(), line_no)
            found.append(current)
            continue
        quote = QUOTE.match(text)
        if current is not None and quote:
            current.body.append((line_no, quote.group(1)))
            continue
        current = None
    return found
