"""Which names a text could possibly mention: a small re-ingest builds its mention matcher over
those names only (instead of tokenizing every name in the vault), and the matcher skips the
tokenizer for lines that contain no name at all (most lines).

Why it gives the same mentions: the matcher compares tokens lower-cased (`LOWER`), and tokens
cover every character of their span except whitespace. So when a name matches a line, the name
lower-cased with all whitespace removed is a substring of the line lower-cased with all
whitespace removed. Python lower-cases character by character except for the final sigma, which
`squash` folds into the plain sigma. A name failing this test can never match, and dropping it
changes no match. Text inside links is left out too: a mention never overlaps a link."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from functools import cached_property
from typing import Any

import ahocorasick

from loaders.links import find_links

MAX_CHARS = 1_000_000  # beyond this the index costs more than building the full matcher


def squash(text: str) -> str:
    """Lower-cased, final sigma folded, every whitespace character removed."""
    return "".join(text.lower().replace("ς", "σ").split())


def unlinked(line: str) -> str:
    """The line with every link replaced by a separator no name contains."""
    return outside(line, [(raw.start, raw.end) for raw in find_links(line)])


def outside(text: str, spans: Iterable[tuple[int, int]]) -> str:
    """The text with each span (start, end) replaced by a separator no name contains."""
    parts: list[str] = []
    cursor = 0
    for start, end in sorted(spans):
        if start > cursor:
            parts.append(text[cursor:start])
        parts.append("\x00")
        cursor = max(cursor, end)
    parts.append(text[cursor:])
    return "".join(parts)


class NameCandidates:
    """Which of a fixed list of (name, key) pairs a text could possibly mention. Built once,
    lazily: each call then costs the length of its texts, not the number of names (a warm
    process re-ingesting one page of a 100k-page vault asks this of 200k names per run)."""

    def __init__(self, names: Iterable[tuple[str, str]]) -> None:
        self.names = list(names)

    @cached_property
    def _positions(self) -> dict[str, list[int]]:
        """Squashed name -> its positions in `names`."""
        positions: dict[str, list[int]] = {}
        for at, (name, _) in enumerate(self.names):
            squashed = squash(name)
            if squashed:
                positions.setdefault(squashed, []).append(at)
        return positions

    @cached_property
    def _scan(self) -> NameScan:
        return NameScan(self._positions)

    def possible(self, texts: Sequence[str]) -> list[tuple[str, str]] | None:
        """The pairs whose squashed name occurs in a squashed text, in input order; None when
        the texts are too large for this to pay off (then use every name)."""
        if sum(len(t) for t in texts) > MAX_CHARS:
            return None
        found = self._scan.names_in("\x00".join(texts))
        return [self.names[at] for at in sorted(
            at for squashed in found for at in self._positions[squashed])]


class NameScan:
    """Whether a text holds any of many names, folded: an Aho-Corasick automaton (C) finds
    every occurrence of every name in one pass over the text, far cheaper than tokenizing it
    (and than the per-character dictionary probes in Python this replaced: 1.7 s -> 0.4 s for
    the 115k lines of a 10k-page vault)."""

    def __init__(self, names: Iterable[str], fold: Callable[[str], str] = squash) -> None:
        """`fold` normalizes names and texts alike (a name occurs when its folded form is a
        substring of the folded text); idempotent, so folded names may be passed as they are."""
        self._fold = fold
        self._automaton: Any = None
        automaton = ahocorasick.Automaton()
        for name in names:
            s = fold(name)
            if s:
                automaton.add_word(s, s)
        if len(automaton):
            automaton.make_automaton()
            self._automaton = automaton

    def names_in(self, text: str) -> set[str]:
        """Every folded name that occurs in the folded text (with `squash`, see the module
        docstring: a superset of the names a matcher can find there)."""
        if self._automaton is None:
            return set()
        return {name for _, name in self._automaton.iter(self._fold(text))}

    def any_in(self, text: str) -> bool:
        if self._automaton is None:
            return False
        return next(self._automaton.iter(self._fold(text)), None) is not None
