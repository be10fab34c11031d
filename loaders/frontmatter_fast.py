"""The frontmatter nearly every vault page carries, read without PyYAML's parser: a flat mapping
of one-line scalars and lists of them (block, or flow of simple items). At 100k pages PyYAML
spent ~25 s of the header pass, which runs before any page can be parsed; this reads the same
pages in a third of the time (10k pages: 0.31 s against 1.01 s).

Anything outside that subset (flow collections, nested mappings, multi-line or escaped strings,
comments, anchors, tags, tabs, unusual characters) gives None, and PyYAML reads the block. A
plain scalar whose first character could make it more than a string (digits, `true`, `null`,
`~`, ...) is typed by PyYAML's own resolver and constructors, so a value reads the same either
way (`tests/test_frontmatter_fast.py` compares the two on generated blocks)."""

from __future__ import annotations

import functools
import re
from typing import Any

import yaml

_KEY_LINE = re.compile(r"([A-Za-z_][A-Za-z0-9_\-]*):(?: +(.*?))? *$")
_ITEM_LINE = re.compile(r"( *)- +(.*?) *$")
# Not in YAML's printable set, a line break to YAML 1.1 (NEL, LS, PS), a BOM, or a tab.
_UNUSUAL = re.compile(
    "[^\x20-\x7e\xa0-\u2027\u202a-\ud7ff\ue000-\ufefe\uff00-\ufffd\U00010000-\U0010ffff]")
# A plain scalar may not start with these (YAML indicators; `-`, `?`, `:` only sometimes, but
# a value starting with them is rare enough to leave to PyYAML).
_INDICATORS = frozenset("-?:,[]{}#&*!|>'\"%@`")
_STR_TAG = "tag:yaml.org,2002:str"
_SCALAR_TAGS = frozenset({_STR_TAG, "tag:yaml.org,2002:int", "tag:yaml.org,2002:float",
                          "tag:yaml.org,2002:bool", "tag:yaml.org,2002:null",
                          "tag:yaml.org,2002:timestamp"})


class _Unread(Exception):
    """The block is outside the subset: PyYAML reads it."""


# The loader `loaders.frontmatter` uses: its resolvers and constructors decide the types.
_Loader: Any = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
_loader = _Loader("")
_RESOLVERS: dict[str | None, Any] = _Loader.yaml_implicit_resolvers


@functools.lru_cache(maxsize=4096)
def _typed(value: str) -> tuple[Any, str | None]:
    """A plain scalar as PyYAML builds it, and the error when its constructor refuses it (the
    value is then kept as text, as `frontmatter._CheckedValues` does)."""
    tag = _loader.resolve(yaml.ScalarNode, value, (True, False))
    if tag == _STR_TAG:
        return value, None
    if tag not in _SCALAR_TAGS:
        raise _Unread(tag)
    node = yaml.ScalarNode(tag, value)
    try:
        return _Loader.yaml_constructors[tag](_loader, node), None
    except (ValueError, TypeError, OverflowError) as exc:
        return value, f"bad value '{value}' kept as text ({exc})"


def _scalar(text: str, line: int, bad: list[tuple[int, str]]) -> Any:
    """One value written on one line: quoted without escapes, or plain."""
    first = text[0]
    if first == "[" and text[-1] == "]":
        return _flow_list(text[1:-1], line, bad)
    if first == '"':
        inner = text[1:-1]
        if len(text) < 2 or text[-1] != '"' or '"' in inner or "\\" in inner:
            raise _Unread(text)
        return inner
    if first == "'":
        inner = text[1:-1]
        if len(text) < 2 or text[-1] != "'" or "'" in inner:
            raise _Unread(text)
        return inner
    if first in _INDICATORS or ": " in text or " #" in text or text.endswith(":"):
        raise _Unread(text)
    if first not in _RESOLVERS and None not in _RESOLVERS:
        return text
    value, error = _typed(text)
    if error is not None:
        bad.append((line, error))
    return value


def _flow_list(inner: str, line: int, bad: list[tuple[int, str]]) -> list[Any]:
    """`[a, "b", 3]`: items without brackets, braces, colons or commas of their own."""
    if not inner.strip(" "):
        return []
    if any(c in inner for c in "[]{}:"):
        raise _Unread(inner)
    items = [part.strip(" ") for part in inner.split(",")]
    if not all(items):
        raise _Unread(inner)
    return [_scalar(item, line, bad) for item in items]


def _key(name: str) -> str:
    if name[0] in _RESOLVERS and _typed(name)[0] != name:
        raise _Unread(name)  # `yes:`, `null:`: a key PyYAML reads as something else
    return name


def fast_frontmatter(lines: list[str]) -> tuple[dict[str, Any], list[tuple[int, str]]] | None:
    """The data of a frontmatter block (its lines, without the `---` fences) and the values
    kept as text (0-based line, message), as PyYAML's safe loader with `_CheckedValues` gives
    them; None when the block is outside the subset read here."""
    data: dict[str, Any] = {}
    bad: list[tuple[int, str]] = []
    open_key: str | None = None  # a key with no value yet: items may follow
    items: list[Any] | None = None
    indent = -1
    try:
        for number, line in enumerate(lines):
            if not line.strip(" "):
                continue
            if _UNUSUAL.search(line):
                return None
            if line[0] != " " and line[0] != "-":
                key = _KEY_LINE.match(line)
                if key is None:
                    return None
                open_key, items, indent = None, None, -1
                name, text = _key(key.group(1)), key.group(2)
                if text:
                    data[name] = _scalar(text, number, bad)
                else:
                    data[name] = None
                    open_key = name
                continue
            item = _ITEM_LINE.fullmatch(line)
            if item is None or not item.group(2):
                return None
            if items is None:
                if open_key is None:
                    return None
                items, indent = [], len(item.group(1))
                data[open_key] = items
            elif len(item.group(1)) != indent:
                return None
            items.append(_scalar(item.group(2), number, bad))
    except _Unread:
        return None
    return data, sorted(bad)
