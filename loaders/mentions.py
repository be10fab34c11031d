"""Unlinked mentions: known page names in plain text that is not a link, found with spaCy's
PhraseMatcher over every title and alias, in English and Japanese (SudachiPy), like Obsidian's
"unlinked mentions" pane. Nothing is downloaded: `spacy.blank` tokenizers only."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from loaders.mention_filter import NameScan, outside
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
    """One PhraseMatcher per language over all names; built once per ingest run."""

    def __init__(self, names: Iterable[tuple[str, str]]) -> None:
        from spacy.matcher import PhraseMatcher

        self._keys: dict[str, dict[int, str]] = {}
        self._matchers: dict[str, Any] = {}
        pairs = sorted({(name.strip(), key) for name, key in names if _usable(name)})
        # Most lines name no page: those skip the tokenizer (same mentions, see mention_filter).
        self._scan = NameScan(name for name, _ in pairs)
        for lang in ("en", "ja"):
            nlp = blank(lang)
            matcher = PhraseMatcher(nlp.vocab, attr="LOWER")
            ids: dict[int, str] = {}
            for name, key in pairs:
                if lang == "en" and has_cjk(name):
                    continue
                match_id = nlp.vocab.strings.add(f"{key}\x00{name}")
                ids[match_id] = key
                matcher.add(f"{key}\x00{name}", [make_doc(name, lang)])
            self._matchers[lang] = matcher
            self._keys[lang] = ids

    def find(self, page: str, line_no: int, text: str,
             link_spans: list[tuple[int, int]]) -> list[Mention]:
        """Mentions on one line outside the given link spans; the page's own names are
        skipped."""
        if not self._scan.any_in(outside(text, link_spans)):
            return []
        lang = "ja" if has_cjk(text) else "en"
        doc = make_doc(text, lang)
        out: list[Mention] = []
        seen: set[str] = set()
        matches = self._matchers[lang](doc)
        # Longest match first so "Mooncake Store" does not also count as "Mooncake".
        spans = sorted(((doc[s:e], m) for m, s, e in matches),
                       key=lambda item: (-(item[0].end_char - item[0].start_char),
                                         item[0].start_char))
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
