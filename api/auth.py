"""Access policy: who may read, who may write, and which folders a write may touch.
Mutations need `Authorization: Bearer <VAULTKG_API_KEY>`; reads are open unless
VAULTKG_READ_REQUIRES_KEY is set. With no key configured, mutations are off entirely."""

from __future__ import annotations

import hmac
from pathlib import Path
from typing import Any

from starlette.requests import HTTPConnection
from strawberry.permission import BasePermission
from strawberry.types import Info

from graph.settings import Settings
from loaders.errors import BadUserInput

UNAUTHENTICATED = {"code": "UNAUTHENTICATED"}


def bearer_token(connection: HTTPConnection | None) -> str | None:
    """The token of an `Authorization: Bearer ...` header, if any."""
    if connection is None:
        return None
    scheme, _, token = connection.headers.get("authorization", "").partition(" ")
    if scheme.lower() != "bearer":
        return None
    return token.strip() or None


def key_matches(settings: Settings, token: str | None) -> bool:
    """Constant-time comparison with the configured key; False when none is configured."""
    if settings.api_key is None or not token:
        return False
    expected = settings.api_key.get_secret_value()
    return bool(expected) and hmac.compare_digest(token.encode(), expected.encode())


class CanRead(BasePermission):
    """Reads are open unless the server is configured to require the key for them."""

    message = "this server requires an API key for reads (Authorization: Bearer ...)"
    error_extensions = UNAUTHENTICATED

    def has_permission(self, source: Any, info: Info[Any, Any], **kwargs: Any) -> bool:
        ctx = info.context
        return bool(ctx.authenticated or not ctx.settings.read_requires_key)


class CanWrite(BasePermission):
    """Writes always need the key."""

    message = ("mutations need a valid API key (Authorization: Bearer <VAULTKG_API_KEY>); "
               "with no key configured they are disabled")
    error_extensions = UNAUTHENTICATED

    def has_permission(self, source: Any, info: Info[Any, Any], **kwargs: Any) -> bool:
        return bool(info.context.authenticated)


def confined_path(path: str, roots: list[Path]) -> Path:
    """`path` resolved (symlinks and `..` followed), if it lies inside a configured vault root;
    otherwise BadUserInput, saying why without revealing the roots."""
    if not roots:
        raise BadUserInput("ingest is disabled: no vault roots are configured "
                           "(VAULTKG_VAULT_ROOTS)")
    resolved = Path(path).expanduser().resolve()
    for root in roots:
        if resolved.is_relative_to(root.expanduser().resolve()):
            if not resolved.is_dir():
                raise BadUserInput(f"{path} is not a folder")
            return resolved
    raise BadUserInput(f"{path} is outside the configured vault roots")

