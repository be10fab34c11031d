"""spaCy documents for English and Japanese without downloading any model.

English uses `spacy.blank("en")`. Japanese is tokenized by SudachiPy (sudachidict-core) and the
surfaces become a spaCy `Doc` directly: spaCy's own Japanese wrapper also computes tags and
inflections we never use, at about 15x the cost per line."""

from __future__ import annotations

import re
from functools import lru_cache
from typing import Any

CJK = re.compile("[\u3040-\u30ff\u4e00-\u9fff]")


def has_cjk(text: str) -> bool:
    """True when the text holds kana or kanji (then the Japanese tokenizer applies)."""
    return CJK.search(text) is not None


@lru_cache(maxsize=2)
def blank(lang: str) -> Any:
    import spacy

    return spacy.blank("en" if lang == "en" else "xx")


@lru_cache(maxsize=1)
def _sudachi() -> Any:
    from sudachipy import Dictionary, SplitMode

    return Dictionary(dict="core").create(mode=SplitMode.A)


def make_doc(text: str, lang: str | None = None) -> Any:
    """A tokenized spaCy Doc of `text`; `lang` ("en"/"ja") is guessed from the script if not
    given. Character offsets (`token.idx`) match `text`."""
    lang = lang or ("ja" if has_cjk(text) else "en")
    if lang == "en":
        return blank("en").make_doc(text)
    from spacy.tokens import Doc

    words: list[str] = []
    spaces: list[bool] = []
    for _, surface, space in _japanese(text):
        if space:
            spaces[-1] = True
        else:
            words.append(surface)
            spaces.append(False)
    return Doc(blank("ja").vocab, words=words, spaces=spaces)


def words(text: str, lang: str | None = None) -> list[tuple[int, str]]:
    """(character offset, text) of each token `make_doc(text, lang)` holds, in order. Japanese
    skips the spaCy `Doc` (building it cost as much as tokenizing) and, for a reader that only
    looks at the words, its Token objects."""
    if (lang or ("ja" if has_cjk(text) else "en")) == "en":
        return [(token.idx, token.text) for token in blank("en").make_doc(text)]
    return [(at, surface) for at, surface, space in _japanese(text) if not space]


def _japanese(text: str) -> list[tuple[int, str, bool]]:
    """SudachiPy's morphemes of `text` as (offset, surface, is a space): a single space right
    after a word is that word's trailing space in the Doc, not a token; empty ones are
    dropped. The surfaces cover `text`, so the offsets are the Doc's `token.idx`."""
    out: list[tuple[int, str, bool]] = []
    at, after_word = 0, False
    for morpheme in _sudachi().tokenize(text):
        surface = morpheme.surface()
        if surface:
            space = surface == " " and after_word
            out.append((at, surface, space))
            after_word = not space
            at += len(surface)
    return out
