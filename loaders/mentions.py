"""Unlinked mentions: known page names in plain text that is not a link, found with spaCy's
PhraseMatcher over every title and alias, in English and Japanese (SudachiPy), like Obsidian's
"unlinked mentions" pane. Nothing is downloaded: `spacy.blank` tokenizers only."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from loaders.mention_filter import NameScan, outside, squash
from loaders.records import Mention
from loaders.tokens import blank, has_cjk, make_doc

MIN_LATIN = 3
MIN_CJK = 2


def _usable(name: str) -> bool:
    name = name.strip()
    if not name or name.startswith("@") or "__" in name:
        return False
    return len(name) >= (MIN_CJK if has_cjk(name) else MIN_LATIN)


class MentionFinder:
    """Finds known page names in lines of text, with one spaCy PhraseMatcher per language.

    The matchers grow lazily: before a line is matched, the names its text can contain (found
    cheaply by `NameScan`, a superset of what can match) are added. A name that cannot occur in
    a line cannot match it, so each line gets the matches a matcher over every name would give,
    while only names that occur somewhere are ever tokenized (building the full matcher up front
    cost ~1 ms per name, serially, before any page was parsed)."""

    def __init__(self, names: Iterable[tuple[str, str]]) -> None:
        pairs = sorted({(name.strip(), key) for name, key in names if _usable(name)})
        self._by_squash: dict[str, list[tuple[str, str]]] = {}
        for name, key in pairs:
            self._by_squash.setdefault(squash(name), []).append((name, key))
        self._scan = NameScan(self._by_squash)
        self._matchers: dict[str, Any] = {}
        self._keys: dict[str, dict[int, str]] = {"en": {}, "ja": {}}
        self._added: dict[str, set[str]] = {"en": set(), "ja": set()}

    def _matcher(self, lang: str, names: set[str]) -> Any:
        """The language's matcher, holding at least `names` (squashed)."""
        if lang not in self._matchers:
            from spacy.matcher import PhraseMatcher

            self._matchers[lang] = PhraseMatcher(blank(lang).vocab, attr="LOWER")
        matcher = self._matchers[lang]
        vocab = blank(lang).vocab
        for squashed in sorted(names - self._added[lang]):
            self._added[lang].add(squashed)
            for name, key in self._by_squash.get(squashed, ()):
                if lang == "en" and has_cjk(name):
                    continue
                label = f"{key}\x00{name}"
                self._keys[lang][vocab.strings.add(label)] = key
                matcher.add(label, [make_doc(name, lang)])
        return matcher

    def find(self, page: str, line_no: int, text: str,
             link_spans: list[tuple[int, int]]) -> list[Mention]:
        """Mentions on one line outside the given link spans; the page's own names are
        skipped."""
        names = self._scan.names_in(outside(text, link_spans))
        if not names:
            return []
        lang = "ja" if has_cjk(text) else "en"
        matcher = self._matcher(lang, names)
        doc = make_doc(text, lang)
        out: list[Mention] = []
        seen: set[str] = set()
        matches = matcher(doc)
        # Longest match first so "Mooncake Store" does not also count as "Mooncake"; two
        # names on one span (two pages share an alias): the smaller page key first.
        spans = sorted(((doc[s:e], m) for m, s, e in matches),
                       key=lambda item: (-(item[0].end_char - item[0].start_char),
                                         item[0].start_char, self._keys[lang].get(item[1], "")))
        taken: list[tuple[int, int]] = []
        for span, match_id in spans:
            start, end = span.start_char, span.end_char
            if any(s < end and start < e for s, e in link_spans + taken):
                continue
            key = self._keys[lang].get(match_id)
            if key is None or key == page or key in seen:
                continue
            if not _word_bounded(text, start, end):
                continue
            taken.append((start, end))
            seen.add(key)
            out.append(Mention(source=page, target=key, line=line_no, text=span.text))
        return out


def _word_bounded(text: str, start: int, end: int) -> bool:
    """Latin names must not sit inside a longer latin word ("Ray" in "Array")."""
    before = text[start - 1] if start > 0 else " "
    after = text[end] if end < len(text) else " "
    return not (before.isascii() and before.isalnum()) and not (
        after.isascii() and after.isalnum())
