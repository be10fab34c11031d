"""Normalization shared by every loader: how names compare (Obsidian is case-insensitive;
Japanese vaults mix full- and half-width forms)."""

from __future__ import annotations

import unicodedata


def nfc(text: str) -> str:
    """Canonical composition: NFD file names (macOS) and NFC links name the same page."""
    return unicodedata.normalize("NFC", text)


def fold_name(text: str) -> str:
    """The loose form used for lookups: NFKC (width), case-folded, inner whitespace collapsed."""
    return " ".join(unicodedata.normalize("NFKC", text).casefold().split())
