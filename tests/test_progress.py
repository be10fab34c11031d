"""Progress display: data passes through unchanged, with or without a terminal, and nothing is
drawn when the console is not one."""

from __future__ import annotations

import io

from rich.console import Console

from api.progress import ingest_progress, stream_progress


def test_stream_progress_passes_chunks_through() -> None:
    seen: list[int] = []
    chunks = ["a", "b", "c"]
    for terminal in (False, True):
        buffer = io.StringIO()
        console = Console(file=buffer, force_terminal=terminal)

        def count() -> int:
            seen.append(1)
            return len(seen)

        assert list(stream_progress(iter(chunks), count, console)) == chunks
        assert (buffer.getvalue() == "") is (not terminal)
    assert len(seen) == 3  # counted only while drawing on a terminal
    quiet = io.StringIO()
    assert list(stream_progress(chunks, lambda: 0, Console(file=quiet, force_terminal=True),
                                enabled=False)) == chunks
    assert quiet.getvalue() == ""


def test_ingest_progress_is_none_off_a_terminal() -> None:
    with ingest_progress(Console(file=io.StringIO(), force_terminal=False)) as progress:
        assert progress is None
    buffer = io.StringIO()
    with ingest_progress(Console(file=buffer, force_terminal=True)) as progress:
        assert progress is not None
        progress(3, 10)
    assert "parsing pages" in buffer.getvalue()
