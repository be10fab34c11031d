"""Which names a few pages could possibly mention, so a small re-ingest builds its mention
matcher over those names only instead of tokenizing every name in the vault.

Why it gives the same mentions: the matcher compares tokens lower-cased (`LOWER`), and tokens
cover every character of their span except whitespace. So when a name matches a line, the name
lower-cased with all whitespace removed is a substring of the line lower-cased with all
whitespace removed. Python lower-cases character by character except for the final sigma, which
`squash` folds into the plain sigma. A name failing this test can never match, and dropping it
changes no match. Text inside links is left out too: a mention never overlaps a link."""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from loaders.links import find_links

GRAM = 4
MAX_CHARS = 1_000_000  # beyond this the index costs more than building the full matcher


def squash(text: str) -> str:
    """Lower-cased, final sigma folded, every whitespace character removed."""
    return "".join(text.lower().replace("ς", "σ").split())


def unlinked(line: str) -> str:
    """The line with every link replaced by a separator no name contains."""
    for raw in reversed(find_links(line)):
        line = line[:raw.start] + "\x00" + line[raw.end:]
    return line


def possible_names(names: Iterable[tuple[str, str]], texts: Sequence[str]
                   ) -> list[tuple[str, str]] | None:
    """The (name, key) pairs whose squashed name occurs in a squashed text, in input order;
    None when the texts are too large for this to pay off (then use every name)."""
    if sum(len(t) for t in texts) > MAX_CHARS:
        return None
    hay = "\x00".join(squash(t) for t in texts)
    grams = {hay[i:i + GRAM] for i in range(len(hay) - GRAM + 1)}
    out: list[tuple[str, str]] = []
    for name, key in names:
        s = squash(name.strip())
        if not s:
            continue
        if len(s) >= GRAM and not all(s[i:i + GRAM] in grams
                                      for i in range(0, len(s) - GRAM + 1, GRAM - 1)):
            continue
        if s in hay:
            out.append((name, key))
    return out
