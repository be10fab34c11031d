"""Text rules the fold builder and the fold checker share, so that what one writes the other
reads the same way: sentences, number tokens, figures, citations at the end of a bullet."""

from __future__ import annotations

import re

# A figure is a number that is not part of a name such as FP8, BF16 or T5 (letter before it).
FIGURE = re.compile(r"(?<![A-Za-z0-9_.])\d+(?:\.\d+)?")
# A measured quantity: a number with a unit of result (percent, times, latency), also the first
# number of a range such as 55〜85% or 2.4–3×.
MEASURED = re.compile(
    r"(?<![A-Za-z0-9_.])\d+(?:\.\d+)?(?=(?:\s*[〜~–\-]\s*\d+(?:\.\d+)?)?\s*"
    r"(?:%|％|×|倍|x\b|times\b|ms\b|ミリ秒|秒))")
SENTENCE_BREAK = re.compile(r"(?<=[。！？!?])\s*|(?<=\.)\s+(?=\S)")
BLOCK_ID = re.compile(r"\s+\^[A-Za-z0-9\-_]+\s*$")
CHILD_KEY = re.compile(r"\blog-(\d{8})-(\d{3,})\b")
DATE = re.compile(r"\b(\d{4}-\d{2}-\d{2})\b")
CLOSERS = {")": "(", "）": "（"}


def normalize_number(token: str) -> str:
    """`06` and `6`, `2.0` and `2` are the same number."""
    whole, _, frac = token.partition(".")
    whole = whole.lstrip("0") or "0"
    frac = frac.rstrip("0")
    return f"{whole}.{frac}" if frac else whole


def numbers(text: str) -> list[str]:
    """The figures of a text, normalized, in order: numbers not glued to a letter before them
    (the 8 of FP8 or the 100 of A100 is part of a name, not a quantity)."""
    return [normalize_number(m.group(0)) for m in FIGURE.finditer(text)]


def figure_count(text: str) -> int:
    """How many quantities a sentence states (numbers inside names do not count)."""
    return len(FIGURE.findall(text))


def measured_count(text: str) -> int:
    """How many measured results (numbers with a unit such as %, × or 倍) a sentence states."""
    return len(MEASURED.findall(text))


def sentences(text: str) -> list[str]:
    """Sentences of a bullet text, Japanese (。) or Latin (". ") punctuation."""
    return [s.strip() for s in SENTENCE_BREAK.split(text) if s and s.strip()]


def strip_block_id(text: str) -> str:
    """A log bullet without its trailing Obsidian block id (` ^lint-20260619-x`)."""
    return BLOCK_ID.sub("", text).strip()


def split_citation(bullet: str) -> tuple[str, str | None]:
    """(statement, citation): the citation is the balanced parenthetical that ends the bullet,
    ASCII or full-width; None when the bullet does not end with one."""
    text = bullet.rstrip().rstrip("。.").rstrip()
    if not text or text[-1] not in CLOSERS:
        return bullet.strip(), None
    depth = 0
    for index in range(len(text) - 1, -1, -1):
        char = text[index]
        if char in CLOSERS:
            depth += 1
        elif char in CLOSERS.values():
            depth -= 1
            if depth == 0:
                return text[:index].rstrip(), text[index + 1:-1].strip()
    return bullet.strip(), None


def ceil_log2(count: int) -> int:
    """K with 2^(K-1) < count <= 2^K (K = 0 for one entry)."""
    return max(count - 1, 0).bit_length()
