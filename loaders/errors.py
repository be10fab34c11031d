"""One error hierarchy for vaultkg; the CLI and the API translate it in exactly one place each."""

from __future__ import annotations


class VaultkgError(Exception):
    """Base of every error vaultkg raises on purpose. `code` becomes the GraphQL error code."""

    code = "INTERNAL"


class ConfigError(VaultkgError):
    """Settings that cannot work (bad URI, missing password, unknown vault root)."""

    code = "BAD_CONFIG"


class VaultError(VaultkgError):
    """A vault that cannot be read at all, or a page that is broken; names the file and line."""

    code = "BAD_VAULT"

    def __init__(self, message: str, path: str | None = None, line: int | None = None) -> None:
        self.path = path
        self.line = line
        where = path or ""
        if path and line:
            where = f"{path}:{line}"
        super().__init__(f"{where}: {message}" if where else message)


class BadUserInput(VaultkgError):
    """An argument the caller can fix (unknown relation, bad date, path outside the vault roots)."""

    code = "BAD_USER_INPUT"


class NotFound(VaultkgError):
    """The page, node or fold asked for does not exist."""

    code = "NOT_FOUND"


class Unauthenticated(VaultkgError):
    """A mutation or protected endpoint was called without a valid API key."""

    code = "UNAUTHENTICATED"
