"""Typed field decorators. `strawberry.field(description=...)` is typed as returning Any, which
strict mypy rejects as a decorator; these keep the decorated resolver's type."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

import strawberry

from api.auth import CanRead, CanWrite
from api.plain_completion import PURE

F = TypeVar("F", bound=Callable[..., Any])


def described(description: str) -> Callable[[F], F]:
    """A field with a description."""
    decorator: Callable[[F], F] = strawberry.field(description=description)
    return decorator


def pure_field(description: str | None = None) -> Callable[[F], F]:
    """A field computed from its object and scalar arguments alone, synchronously, with no side
    effect: the API may call it in its one-pass completion (api/plain_completion.py), and call
    it again when that pass gives the object back to graphql-core."""
    decorator: Callable[[F], F] = strawberry.field(description=description,
                                                   metadata={PURE: True})
    return decorator


def read_field(description: str) -> Callable[[F], F]:
    """A Query field: open unless the server requires the key for reads. Every Query field uses
    it, including ones added later."""
    decorator: Callable[[F], F] = strawberry.field(description=description,
                                                   permission_classes=[CanRead])
    return decorator


def write_field(description: str) -> Callable[[F], F]:
    """A Mutation field: needs the API key."""
    decorator: Callable[[F], F] = strawberry.mutation(description=description,
                                                      permission_classes=[CanWrite])
    return decorator


def named(name: str) -> Callable[[F], F]:
    """A field whose GraphQL name is not its resolver's (the attribute of that name is data)."""
    decorator: Callable[[F], F] = strawberry.field(name=name)
    return decorator
