"""YAML frontmatter: values through the C loader (or, for the common flat shape,
`loaders.frontmatter_fast`), plus the line of every key and list item so
facts taken from frontmatter keep their provenance."""

from __future__ import annotations

import datetime as dt
import re
from dataclasses import dataclass, field
from typing import Any

import yaml

from loaders.errors import VaultError
from loaders.frontmatter_fast import fast_frontmatter

_Loader: Any = getattr(yaml, "CSafeLoader", yaml.SafeLoader)

_KEY = re.compile(r"^([A-Za-z0-9_\-]+)\s*:")
_ITEM = re.compile(r"^\s+-\s")
MAX_FRONTMATTER_BYTES = 256 * 1024


@dataclass
class Frontmatter:
    """Parsed frontmatter: `data`, the 1-based line of each key, of each list item, and the line
    where the body starts."""

    data: dict[str, Any] = field(default_factory=dict)
    key_lines: dict[str, int] = field(default_factory=dict)
    item_lines: dict[str, list[int]] = field(default_factory=dict)
    body_start: int = 1
    lines: list[str] = field(default_factory=list)
    # (line, message) for values that could not be read and were kept as text
    warnings: list[tuple[int, str]] = field(default_factory=list)

    def text(self, name: str) -> str | None:
        """A scalar field as text; empty strings and non-scalars count as missing."""
        value = self.data.get(name)
        if value is None or isinstance(value, list | dict):
            return None
        text = str(value).strip()
        return text or None

    def items(self, name: str) -> list[tuple[str, int]]:
        """A list field (or a scalar, as a one-item list) with the line of each item."""
        value = self.data.get(name)
        if value is None or value == "":
            return []
        values = value if isinstance(value, list) else [value]
        lines = self.item_lines.get(name) or []
        key_line = self.key_lines.get(name, 1)
        out: list[tuple[str, int]] = []
        for index, item in enumerate(values):
            if item is None or isinstance(item, dict | list):
                continue
            line = lines[index] if index < len(lines) else key_line
            out.append((str(item), line))
        return out

    def date(self, name: str) -> dt.date | None:
        """A date field, quoted or not; None when absent or unreadable."""
        value = self.data.get(name)
        if isinstance(value, dt.datetime):
            return value.date()
        if isinstance(value, dt.date):
            return value
        if isinstance(value, str):
            try:
                return dt.date.fromisoformat(value.strip()[:10])
            except ValueError:
                return None
        return None


class _CheckedValues:
    """A scalar the YAML constructors cannot build (`created: 2026-13-45`, `!!int abc`) is kept
    as its text and noted in `bad_values` (0-based line, message) instead of raising a bare
    ValueError that would lose every other property of the page."""

    bad_values: list[tuple[int, str]]

    def construct_object(self, node: Any, deep: bool = False) -> Any:
        try:
            return super().construct_object(node, deep)  # type: ignore[misc]
        except (ValueError, TypeError, OverflowError) as exc:
            if not isinstance(node, yaml.ScalarNode):
                raise yaml.constructor.ConstructorError(
                    None, None, f"bad value ({exc})", node.start_mark) from None
            if not hasattr(self, "bad_values"):
                self.bad_values = []
            self.bad_values.append(
                (node.start_mark.line, f"bad value '{node.value}' kept as text ({exc})"))
            return node.value


class _CheckedLoader(_CheckedValues, _Loader):  # type: ignore[misc]
    """The fast loader, with values checked."""


class _NoAliasLoader(_CheckedValues, yaml.SafeLoader):
    """Refuses YAML anchors/aliases: they are the billion-laughs vector and vaults never need
    them."""

    def compose_node(self, parent: Any, index: Any) -> Any:
        if self.check_event(yaml.AliasEvent):
            event = self.peek_event()  # type: ignore[no-untyped-call]
            raise yaml.composer.ComposerError(
                None, None, "YAML aliases are not allowed in frontmatter", event.start_mark
            )
        return super().compose_node(parent, index)


def pyyaml_frontmatter(block: str, path: str) -> tuple[Any, list[tuple[int, str]]]:
    """A frontmatter block read by PyYAML: its data and the values kept as text (0-based line,
    message; in line order, not PyYAML's order of construction). Raises VaultError (with the
    line) on broken YAML."""
    loader: Any = _NoAliasLoader if "&" in block or "*" in block else _CheckedLoader
    reader: Any = None
    try:
        reader = loader(block)
        data = reader.get_single_data()
    except RecursionError:
        raise VaultError("bad YAML frontmatter: nested too deeply", path, 2) from None
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None) or getattr(exc, "context_mark", None)
        line = (mark.line + 2) if mark is not None else 1
        problem = getattr(exc, "problem", None) or str(exc).split("\n")[0]
        raise VaultError(f"bad YAML frontmatter: {problem}", path, line) from None
    finally:
        if reader is not None:
            reader.dispose()
    return data, sorted(getattr(reader, "bad_values", []))


def split_frontmatter(text: str, path: str) -> Frontmatter:
    """Split `---` frontmatter from the body. Raises VaultError (with the line) on broken YAML."""
    lines = text.split("\n")
    result = Frontmatter(lines=lines)
    if not lines or lines[0].strip() != "---":
        return result
    end = None
    for index in range(1, len(lines)):
        if lines[index].strip() in ("---", "..."):
            end = index
            break
    if end is None:
        raise VaultError("frontmatter starts with '---' but never ends", path, 1)
    block = "\n".join(lines[1:end])
    if len(block) > MAX_FRONTMATTER_BYTES:
        raise VaultError("frontmatter is larger than 256 KiB", path, 1)
    result.body_start = end + 2
    fast = fast_frontmatter(lines[1:end])
    data, bad_values = fast if fast is not None else pyyaml_frontmatter(block, path)
    result.warnings = [(line + 2, text) for line, text in bad_values]
    if data is None:
        data = {}
    if not isinstance(data, dict):
        raise VaultError("frontmatter is not a mapping of properties", path, 2)
    result.data = {str(k): v for k, v in data.items()}
    current: str | None = None
    for offset, raw in enumerate(lines[1:end]):
        line_no = offset + 2
        key = _KEY.match(raw)
        if key:
            current = key.group(1)
            result.key_lines[current] = line_no
            continue
        if current and _ITEM.match(raw):
            result.item_lines.setdefault(current, []).append(line_no)
    return result
