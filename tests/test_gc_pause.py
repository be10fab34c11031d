"""The cyclic collector is paused while a vault loads and comes back afterwards, also when the
load fails, and a caller that had it off keeps it off."""

from __future__ import annotations

import gc
from collections.abc import Iterator
from typing import Any

import pytest

from loaders import vault as lv
from loaders.gc_pause import cyclic_gc_paused
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
    """Paused while planning (header pass, index, log) and while each chunk is parsed; on
    again between chunks (the writer's turn) and afterwards."""
    seen: dict[str, list[bool]] = {"plan": [], "parse": []}
    plan, page_facts = lv._plan, lv._page_facts

    def plan_spy(*args: Any) -> Any:
        seen["plan"].append(gc.isenabled())
        return plan(*args)

    def parse_spy(*args: Any) -> Any:
        seen["parse"].append(gc.isenabled())
        return page_facts(*args)

    monkeypatch.setattr(lv, "_plan", plan_spy)
    monkeypatch.setattr(lv, "_page_facts", parse_spy)
    gc.enable()
    stream = lv.stream_vault(ENGLISH_LAB, lv.LoadOptions(workers=1), chunk_pages=2)
    assert seen["plan"] == [False] and gc.isenabled()
    chunks = 0
    for chunk in stream.chunks:
        assert gc.isenabled() and chunk
        chunks += 1
    assert chunks > 1 and seen["parse"] and not any(seen["parse"])
    assert gc.isenabled()


def test_long_lived_objects_leave_the_collectors_walk() -> None:
    """After `keep_long_lived`, what is alive is no longer walked by collections, and garbage
    made afterwards, cycles included, is still collected."""
    from loaders.gc_pause import keep_long_lived

    kept = [[i] for i in range(10_000)]
    tracked_before = len(gc.get_objects())
    try:
        keep_long_lived()
        assert gc.get_freeze_count() >= len(kept)
        assert len(gc.get_objects()) < tracked_before - len(kept)  # out of every generation
        assert not any(o is kept[0] for o in gc.get_objects())
        cycle: list[Any] = []
        cycle.append(cycle)
        del cycle
        assert gc.collect() >= 1  # a cycle made after the freeze is still found
    finally:
        gc.unfreeze()


def test_set_aside_freezes_what_lives_until_the_block_ends() -> None:
    """Inside `set_aside`, what was alive on entry is out of the collector's walks and new
    garbage (cycles too) is still collected; on leaving, it is walked again."""
    from loaders.gc_pause import set_aside

    kept = [[i] for i in range(10_000)]
    try:
        with set_aside():
            assert gc.get_freeze_count() >= len(kept)
            assert not any(o is kept[0] for o in gc.get_objects())
            cycle: list[Any] = []
            cycle.append(cycle)
            del cycle
            assert gc.collect() >= 1
        assert gc.get_freeze_count() == 0
        assert any(o is kept[0] for o in gc.get_objects())
    finally:
        gc.unfreeze()


def test_leave_startup_out_collects_first_then_freezes() -> None:
    """What a server made at startup leaves the collector's walks; a cycle that was already
    garbage is collected first, not kept for good."""
    import weakref

    from loaders.gc_pause import leave_startup_out

    class Node:
        pass

    kept = [[i] for i in range(10_000)]
    garbage = Node()
    garbage.self = garbage  # type: ignore[attr-defined]
    gone = weakref.ref(garbage)
    del garbage
    gc.unfreeze()
    try:
        leave_startup_out()
        assert gone() is None  # collected before the freeze
        assert gc.get_freeze_count() >= len(kept)
        assert not any(o is kept[0] for o in gc.get_objects())
    finally:
        gc.unfreeze()


def test_the_api_freezes_what_its_startup_made() -> None:
    """The app's lifespan leaves its startup out of later collections (no Neo4j needed: the
    driver connects on first use)."""
    from fastapi.testclient import TestClient

    from api.app import create_app

    gc.unfreeze()
    app = create_app()
    try:
        assert gc.get_freeze_count() == 0
        with TestClient(app) as client:
            assert gc.get_freeze_count() > 10_000
            assert not any(o is app for o in gc.get_objects())
            assert client.get("/healthz").status_code == 200
    finally:
        gc.unfreeze()
