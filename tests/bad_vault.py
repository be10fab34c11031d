"""The "vault of broken things" for the bad-input tests: the committed plain-text part
(tests/vaults/bad) copied into a temporary folder, plus everything that is too big for git or
cannot live in it (a 50 MB page, a binary `.md`, invalid UTF-8, CRLF/BOM, NFD file names,
symlinks in and out of the vault, a directory loop, a FIFO, a page with 10,000 links).

`build_bad_vault` returns what a correct loader must make of it, so every test reads its
expectations from one place."""

from __future__ import annotations

import os
import shutil
import unicodedata
from dataclasses import dataclass, field
from pathlib import Path

COMMITTED = Path(__file__).resolve().parent / "vaults" / "bad"
SECRET = "TOP-SECRET-OUTSIDE-THE-VAULT-7f3a"
HUGE_BYTES = 50 * 1024 * 1024
MANY_LINKS = 10_000
NFC_NAMES = ("Café Crème", "プログラミング")


@dataclass(frozen=True)
class BadVault:
    """Where the vault is and what loading it must give."""

    vault: Path  # the folder to ingest (holds wiki/)
    wiki: Path  # the root the loader reads
    outside: Path  # a folder beside the vault that nothing may read
    # vault-relative path -> words the "skipped" message must contain
    skipped: dict[str, str] = field(default_factory=dict)
    # vault-relative path -> (line or None, words the warning must contain)
    warnings: dict[str, tuple[int | None, str]] = field(default_factory=dict)
    # page key -> vault-relative path, for every page that must load
    loaded: dict[str, str] = field(default_factory=dict)


def _outside(base: Path) -> Path:
    outside = base / "outside"
    (outside / "dir").mkdir(parents=True)
    (outside / "secret.md").write_text(f"# Secret\n\n{SECRET}\n", encoding="utf-8")
    (outside / "dir" / "inner.md").write_text(f"# Inner\n\n{SECRET} [[good]]\n",
                                              encoding="utf-8")
    (outside / "passwd").write_text(f"{SECRET}\n", encoding="utf-8")
    return outside


def _huge(path: Path) -> None:
    """A 50 MB page, sparse: the header is real, the rest a hole (instant, no disk use)."""
    with path.open("wb") as fh:
        fh.write(b"---\ntitle: Huge\n---\n\n[[good]]\n")
        fh.truncate(HUGE_BYTES)


def _many_links(path: Path) -> None:
    lines = ["---", "title: Many Links", "---", ""]
    lines += [f"- [[target {i}]] and [[good|good {i}]]" for i in range(MANY_LINKS // 2)]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")


def build_bad_vault(base: Path) -> BadVault:
    """Build the bad vault under `base` (a pytest tmp_path) and return its expectations."""
    outside = _outside(base)
    vault = base / "vault"
    shutil.copytree(COMMITTED, vault)
    wiki = vault / "wiki"
    bv = BadVault(vault=vault, wiki=wiki, outside=outside)

    # -- committed plain-text cases -----------------------------------------------------------
    bv.warnings.update({
        "Malformed YAML.md": (4, "bad YAML frontmatter"),
        "billion-laughs.md": (3, "YAML aliases are not allowed"),
        "unterminated.md": (1, "never ends"),
        "not-a-mapping.md": (2, "not a mapping"),
        "empty.md": (None, "empty file"),
        "notes/Same.md": (None, "page name 'Same' is also used by Same.md"),
        "archive/Same.md": (None, "page name 'Same' is also used by Same.md"),
        "Dup Two.md": (None, "title 'Shared Title' is also the title of Dup One.md"),
        "bad-values.md": (3, "bad value '2026-02-30' kept as text"),
    })
    bv.skipped.update({
        "log.md:10": "log entry with a bad date '2026-13-45'",
        "log.md:16": "log entry with a bad date '2026-02-30'",
    })
    for rel in ("good.md", "Malformed YAML.md", "billion-laughs.md", "unterminated.md",
                "not-a-mapping.md", "empty.md", "Same.md", "log.md", "Dup One.md",
                "Dup Two.md", "bad-values.md", "superscript-year.md"):
        bv.loaded[rel[:-3]] = rel
    bv.loaded["notes/Same"] = "notes/Same.md"
    bv.loaded["archive/Same"] = "archive/Same.md"

    # -- generated: bytes git should not hold ------------------------------------------------
    (wiki / "binary.md").write_bytes(b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR" + bytes(range(256)))
    bv.skipped["binary.md"] = "binary file"
    _huge(wiki / "huge.md")
    bv.skipped["huge.md"] = "50 MiB, over the 8 MiB limit"
    (wiki / "invalid-utf8.md").write_bytes(
        b"---\ntitle: Bad Bytes\n---\n\nline five \xff\xfe\xc3 then [[good]]\n")
    bv.warnings["invalid-utf8.md"] = (5, "invalid UTF-8")
    bv.loaded["invalid-utf8"] = "invalid-utf8.md"
    (wiki / "crlf-bom.md").write_bytes(
        "\ufeff---\r\ntitle: CRLF Page\r\naliases:\r\n  - Windows Line Ends\r\n---\r\n\r\n"
        "Links to [[good]] on line 7.\r\n".encode())
    bv.loaded["crlf-bom"] = "crlf-bom.md"
    (wiki / "cr-only.md").write_bytes(b"---\rtitle: Old Mac\r---\r\rLinks to [[good]] on 5.\r")
    bv.loaded["cr-only"] = "cr-only.md"
    _many_links(wiki / "many-links.md")
    bv.loaded["many-links"] = "many-links.md"

    # -- generated: NFD file names, linked in NFC --------------------------------------------
    for name in NFC_NAMES:
        nfd = unicodedata.normalize("NFD", name)
        assert nfd != name
        (wiki / f"{nfd}.md").write_text(f"# {nfd}\n\nBack to [[good]].\n", encoding="utf-8")
        bv.loaded[name] = f"{name}.md"
    (wiki / "nfc-links.md").write_text(
        "".join(f"- [[{name}]]\n" for name in NFC_NAMES), encoding="utf-8")
    bv.loaded["nfc-links"] = "nfc-links.md"

    # -- generated: symlinks, a directory loop, a FIFO --------------------------------------
    (wiki / "alias-of-good.md").symlink_to("good.md")  # inside: allowed
    bv.loaded["alias-of-good"] = "alias-of-good.md"
    (wiki / "leak.md").symlink_to(outside / "secret.md")  # absolute, outside
    bv.skipped["leak.md"] = "symlink points outside the vault"
    (wiki / "notes" / "sneaky.md").symlink_to(Path("..", "..", "..", "outside", "secret.md"))
    bv.skipped["notes/sneaky.md"] = "symlink points outside the vault"
    (wiki / "dead.md").symlink_to("no-such-page.md")
    bv.skipped["dead.md"] = "cannot read"
    (wiki / "outside-dir").symlink_to(outside / "dir", target_is_directory=True)
    bv.skipped["outside-dir"] = "symlinked folder not followed"
    (wiki / "notes" / "loop").symlink_to("..", target_is_directory=True)
    bv.skipped["notes/loop"] = "symlinked folder not followed"
    (wiki / ".hidden").mkdir()
    (wiki / ".hidden" / "ignored.md").write_text("# hidden\n", encoding="utf-8")
    os.mkfifo(wiki / "pipe.md")
    bv.skipped["pipe.md"] = "not a regular file"
    return bv
