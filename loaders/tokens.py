"""Tokens of English and Japanese text without downloading any model.

English uses `spacy.blank("en")`'s tokenizer. Japanese is tokenized by SudachiPy
(sudachidict-core), its surfaces taken as they are: spaCy's own Japanese wrapper also computes
tags and inflections we never use, at about 15x the cost per line. Readers get (offset, text)
pairs, not spaCy Docs: building a Doc cost as much as tokenizing, and no reader needs one."""

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
    """spaCy's blank pipeline: English's, or the multi-language one (a vocabulary for
    Japanese tokens)."""
    import spacy

    return spacy.blank("en" if lang == "en" else "xx")


@lru_cache(maxsize=1)
def _sudachi() -> Any:
    from sudachipy import Dictionary, SplitMode

    return Dictionary(dict="core").tokenizer(mode=SplitMode.A)


def words(text: str, lang: str | None = None) -> list[tuple[int, str]]:
    """(character offset, text) of each token of `text`, in order; `lang` ("en"/"ja") is
    guessed from the script if not given. The tokens are a spaCy Doc's: for Japanese, a single
    space right after a word is that word's trailing space, not a token (empty surfaces are
    dropped); the surfaces cover `text`, so the offsets are `token.idx`."""
    if (lang or ("ja" if has_cjk(text) else "en")) == "en":
        return [(token.idx, token.text) for token in blank("en").make_doc(text)]
    out: list[tuple[int, str]] = []
    at, after_word = 0, False
    for morpheme in _sudachi().tokenize(text):
        surface = morpheme.surface()
        if surface:
            after_word = not (surface == " " and after_word)
            if after_word:
                out.append((at, surface))
            at += len(surface)
    return out
