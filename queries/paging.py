"""Keyset pagination shared by every list query: a cap on `first`, opaque cursors that name the
sort they belong to, and the slice a list query returns. Keyset (not OFFSET) so that page 1000
costs what page 1 costs."""

from __future__ import annotations

import base64
import binascii
import json
from typing import Any, Generic, TypeVar

from pydantic import BaseModel

from loaders.errors import BadUserInput

MAX_FIRST = 100
DEFAULT_FIRST = 20

T = TypeVar("T")


def check_first(first: int, cap: int = MAX_FIRST) -> int:
    """`first` must be 1..cap; a larger value is refused, not silently clamped."""
    if first < 1 or first > cap:
        raise BadUserInput(f"`first` must be between 1 and {cap} (got {first})")
    return first


def encode_cursor(sort: str, value: Any, key: str) -> str:
    """An opaque cursor: the sort it belongs to, the sort value and the tie-breaking key."""
    raw = json.dumps({"s": sort, "v": value, "k": key}, ensure_ascii=False, default=str)
    return base64.urlsafe_b64encode(raw.encode()).decode().rstrip("=")


def decode_cursor(cursor: str, sort: str) -> tuple[Any, str]:
    """(sort value, key) of a cursor made by `encode_cursor` for the same sort."""
    try:
        padded = cursor + "=" * (-len(cursor) % 4)
        data = json.loads(base64.urlsafe_b64decode(padded.encode()).decode())
        value, key, cursor_sort = data["v"], str(data["k"]), data["s"]
    except (ValueError, KeyError, TypeError, binascii.Error, UnicodeDecodeError):
        raise BadUserInput("`after` is not a cursor this API returned") from None
    if cursor_sort != sort:
        raise BadUserInput("`after` belongs to a different sort order; start again without it")
    return value, key


class Slice(BaseModel, Generic[T]):
    """One page of a list: items with their cursors, and whether more follow. Pydantic keeps a
    parametrized `Slice[X]` only weakly: a module using one keeps it (`PageSlice = ...`), or
    each call after a garbage collection builds the class again."""

    items: list[T]
    cursors: list[str]
    has_next: bool
