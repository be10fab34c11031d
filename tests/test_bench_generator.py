"""The benchmark vault generator is deterministic (same seed, same bytes) and yields exactly the
requested number of pages, shaped like the example vault."""

from __future__ import annotations

import hashlib
import re
from pathlib import Path

from benchmarks.generate import EDITED, ensure_vault, generate, log_edit, render, restore
from benchmarks.vault_plan import counts_for


def _digest(root: Path) -> dict[str, str]:
    return {p.relative_to(root).as_posix(): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(root.rglob("*")) if p.is_file()}


def test_same_seed_same_bytes_and_requested_page_count(tmp_path: Path) -> None:
    first = generate(300, tmp_path / "a", seed=11)
    second = generate(300, tmp_path / "b", seed=11)
    assert _digest(first) == _digest(second)
    pages = sorted(first.rglob("*.md"))
    assert len(pages) == 300 == counts_for(300).total
    assert (first / "wiki" / "log.md").exists()
    assert (first / "wiki" / "meta" / "ledgers" / "claim-ledger.json").exists()
    assert len(list((first / "wiki" / "sources").glob("@*__*__*.md"))) == counts_for(300).papers


def test_other_seed_other_vault_and_log_has_an_entry_per_page() -> None:
    a, b = render(200, seed=1), render(200, seed=2)
    assert a != b
    log = a["wiki/log.md"].split("\n")
    entries = [line for line in log if line.startswith("## [")]
    assert any(" lint | " in e for e in entries) and any(" fold | " in e for e in entries)
    # Every page but the log is created by a log entry (papers through their Summary alias).
    created = {name for line in log if line.startswith(("- Pages created:", "- Summary:"))
               for name in re.findall(r"\[\[([^\]|#]+)", line)}
    names = set()
    for path, text in a.items():
        if path.endswith(".md") and path != "wiki/log.md":
            alias = re.search(r'^aliases:\n  - "(@[^"]+)"', text, re.MULTILINE)
            names.add(alias.group(1) if alias else Path(path).stem)
    assert names == created
    assert any("> [!contradiction]" in text for text in a.values())
    assert any("builds_on::" in text for text in a.values())


def test_a_logged_edit_adds_one_entry_at_the_top_and_restores(tmp_path: Path) -> None:
    root = generate(200, tmp_path / "v", seed=3)
    before = _digest(root)
    log = root / "wiki" / "log.md"
    entries = [line for line in log.read_text(encoding="utf-8").split("\n")
               if line.startswith("## [")]
    originals = log_edit(root, 0, "t")
    assert set(originals) == {log, next(p for p in originals if p != log)}
    page = next(p for p in originals if p != log)
    after = [line for line in log.read_text(encoding="utf-8").split("\n")
             if line.startswith("## [")]
    assert after == [f"## [2026-12-05] ingest | {page.stem}", *entries]
    assert page.read_bytes() != originals[page]
    assert (root / EDITED).exists()
    restore(originals)
    assert _digest(root) == before and not (root / EDITED).exists()


def test_a_vault_left_edited_is_generated_again(tmp_path: Path) -> None:
    root = ensure_vault(100, 3, tmp_path)
    before = _digest(root)
    log_edit(root, 0, "t")  # and the run dies before it restores
    assert _digest(root) != before
    assert ensure_vault(100, 3, tmp_path) == root and _digest(root) == before
    assert not (root / EDITED).exists()
