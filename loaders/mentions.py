"""Unlinked mentions: known page names in plain text that is not a link, like Obsidian's
"unlinked mentions" pane. A name matches where its tokens, lower-cased, are a run of the line's
tokens (spaCy's blank English tokenizer, SudachiPy for Japanese: `loaders.tokens`), which is
what spaCy's PhraseMatcher on `LOWER` finds. Nothing is downloaded."""

from __future__ import annotations

from collections.abc import Iterable

from loaders.mention_filter import NameScan, outside, squash
from loaders.records import Mention
from loaders.tokens import has_cjk, words

MIN_LATIN = 3
MIN_CJK = 2


def _usable(name: str) -> bool:
    name = name.strip()
    if not name or name.startswith("@") or "__" in name:
        return False
    return len(name) >= (MIN_CJK if has_cjk(name) else MIN_LATIN)


class MentionFinder:
    """Finds known page names in lines of text, in English and Japanese.

    Only the names a line's text can contain (found cheaply by `NameScan`, a superset of what
    can match) are tried on it, so only names that occur somewhere are ever tokenized (each
    once per language, then kept). spaCy's PhraseMatcher found the same matches through a Doc
    per line and per name, in twice the time (at 100k pages, 10% of the parse)."""

    def __init__(self, names: Iterable[tuple[str, str]]) -> None:
        pairs = sorted({(name.strip(), key) for name, key in names if _usable(name)})
        self._by_squash: dict[str, list[tuple[str, str]]] = {}
        for name, key in pairs:
            self._by_squash.setdefault(squash(name), []).append((name, key))
        self._scan = NameScan(self._by_squash)
        self._patterns: dict[tuple[str, str], tuple[str, ...]] = {}

    def _pattern(self, lang: str, name: str) -> tuple[str, ...]:
        """The name's tokens, lower-cased, as a line in `lang` is tokenized."""
        pattern = self._patterns.get((lang, name))
        if pattern is None:
            pattern = tuple(word.lower() for _, word in words(name, lang))
            self._patterns[(lang, name)] = pattern
        return pattern

    def _spans(self, lang: str, names: set[str],
               tokens: list[tuple[int, str]]) -> list[tuple[int, int, str]]:
        """(start, end, page key) of every run of `tokens` that is one of `names`' tokens."""
        lowered = [word.lower() for _, word in tokens]
        at: dict[str, list[int]] = {}
        for i, word in enumerate(lowered):
            at.setdefault(word, []).append(i)
        spans: list[tuple[int, int, str]] = []
        for squashed in names:
            for name, key in self._by_squash.get(squashed, ()):
                pattern = self._pattern(lang, name)
                if not pattern:  # a usable name has a token; kept safe all the same
                    continue
                size = len(pattern)
                for i in at.get(pattern[0], ()):
                    if tuple(lowered[i:i + size]) == pattern:
                        last, word = tokens[i + size - 1]
                        spans.append((tokens[i][0], last + len(word), key))
        return spans

    def find(self, page: str, line_no: int, text: str,
             link_spans: list[tuple[int, int]]) -> list[Mention]:
        """Mentions on one line outside the given link spans; the page's own names are
        skipped."""
        names = self._scan.names_in(outside(text, link_spans))
        if not names:
            return []
        lang = "ja" if has_cjk(text) else "en"
        # Longest match first so "Mooncake Store" does not also count as "Mooncake"; two
        # names on one span (two pages share an alias): the smaller page key first.
        spans = sorted(self._spans(lang, names, words(text, lang)),
                       key=lambda span: (span[0] - span[1], span[0], span[2]))
        out: list[Mention] = []
        seen: set[str] = set()
        taken: list[tuple[int, int]] = []
        for start, end, key in spans:
            if any(s < end and start < e for s, e in link_spans + taken):
                continue
            if key == page or key in seen:
                continue
            if not _word_bounded(text, start, end):
                continue
            taken.append((start, end))
            seen.add(key)
            out.append(Mention(source=page, target=key, line=line_no, text=text[start:end]))
        return out


def _word_bounded(text: str, start: int, end: int) -> bool:
    """Latin names must not sit inside a longer latin word ("Ray" in "Array")."""
    before = text[start - 1] if start > 0 else " "
    after = text[end] if end < len(text) else " "
    return not (before.isascii() and before.isalnum()) and not (
        after.isascii() and after.isalnum())
