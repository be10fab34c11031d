"""The cyclic collector is paused while a vault loads and comes back afterwards, also when the
load fails, and a caller that had it off keeps it off."""

from __future__ import annotations

import gc
from collections.abc import Iterator
from pathlib import Path

import pytest

from loaders import vault as lv
from loaders.gc_pause import cyclic_gc_paused
from loaders.records import VaultSnapshot
from tests.vaults import ENGLISH_LAB


@pytest.fixture(autouse=True)
def gc_restored() -> Iterator[None]:
    was = gc.isenabled()
    yield
    if was:
        gc.enable()
    else:
        gc.disable()


def test_paused_inside_nested_and_restored() -> None:
    gc.enable()
    with cyclic_gc_paused():
        assert not gc.isenabled()
        with cyclic_gc_paused():
            assert not gc.isenabled()
        assert not gc.isenabled()  # only the outermost turns it back on
    assert gc.isenabled()
    gc.disable()
    with cyclic_gc_paused():
        pass
    assert not gc.isenabled()


def test_restored_when_the_body_raises() -> None:
    gc.enable()
    with pytest.raises(RuntimeError), cyclic_gc_paused():
        raise RuntimeError("boom")
    assert gc.isenabled()


def test_load_vault_runs_with_the_collector_paused(monkeypatch: pytest.MonkeyPatch) -> None:
    seen: list[bool] = []
    original = lv._load

    def spy(root: Path, options: lv.LoadOptions) -> VaultSnapshot:
        seen.append(gc.isenabled())
        return original(root, options)

    monkeypatch.setattr(lv, "_load", spy)
    gc.enable()
    snapshot = lv.load_vault(ENGLISH_LAB)
    assert seen == [False] and gc.isenabled() and snapshot.facts
