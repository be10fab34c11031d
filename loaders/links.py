"""Finding link occurrences in markdown: every Obsidian form plus markdown links to `.md` files.
Resolution is elsewhere (`resolver`); this module only reads text."""

from __future__ import annotations

import re
from dataclasses import dataclass
from urllib.parse import unquote

# Starts with a literal, which keeps the scan fast on large pages; bounded repeats keep a
# pathological line (thousands of "[x](") linear.
WIKILINK = re.compile(r"(!?)\[\[([^\[\]\n]+?)\]\]")
MD_LINK = re.compile(
    r"(!?)\[([^\]\n]{0,500})\]\((?:<([^>\n]{1,500}?\.md)(#[^>\n]{0,500})?>|"
    r"([^)\s<>]{1,500}?\.md)(#[^)\s]{0,500})?)"
    r"(?:\s+\"[^\"]*\")?\)")
FENCE = re.compile(r"^\s*(```|~~~)")
INLINE_CODE = re.compile(r"`+[^`\n]*`+")


@dataclass(frozen=True)
class RawLink:
    """A link as written: target text, display text, heading or block anchor, embed flag."""

    raw: str
    target: str
    display: str | None
    heading: str | None
    block: str | None
    embed: bool
    markdown: bool
    start: int
    end: int


def _split_target(inner: str) -> tuple[str, str | None, str | None, str | None]:
    target, _, display = inner.partition("|")
    target, _, anchor = target.partition("#")
    heading: str | None = None
    block: str | None = None
    if anchor.startswith("^"):
        block = anchor[1:].strip() or None
    elif anchor:
        heading = anchor.strip() or None
    return target.strip(), (display.strip() or None) if display else None, heading, block


def mask_code(line: str) -> str:
    """Blank out inline code spans (same length) so links inside them are not read."""
    if "`" not in line:
        return line
    return INLINE_CODE.sub(lambda m: " " * len(m.group(0)), line)


def find_links(line: str) -> list[RawLink]:
    """All links on one line (already code-masked), in order of appearance."""
    found: list[RawLink] = []
    if "[[" in line:
        for match in WIKILINK.finditer(line):
            target, display, heading, block = _split_target(match.group(2))
            found.append(
                RawLink(match.group(0), target, display, heading, block,
                        bool(match.group(1)), False, match.start(), match.end())
            )
    if "](" in line:
        for match in MD_LINK.finditer(line):
            href = match.group(3) or match.group(5)
            if "://" in href or href.startswith("mailto:"):
                continue
            anchor = (match.group(4) or match.group(6) or "").lstrip("#")
            heading = unquote(anchor) if anchor and not anchor.startswith("^") else None
            block = anchor[1:] if anchor.startswith("^") else None
            found.append(
                RawLink(match.group(0), unquote(href), match.group(2) or None, heading, block,
                        bool(match.group(1)), True, match.start(), match.end())
            )
    found.sort(key=lambda link: link.start)
    return found


def body_lines(lines: list[str], start: int, mask: bool = True) -> list[tuple[int, str]]:
    """(1-based line number, text) for body lines outside fenced code blocks; inline code is
    blanked unless `mask` is False."""
    out: list[tuple[int, str]] = []
    in_fence = False
    for index in range(start - 1, len(lines)):
        text = lines[index]
        if FENCE.match(text):
            in_fence = not in_fence
            continue
        if in_fence:
            continue
        out.append((index + 1, mask_code(text) if mask else text))
    return out
