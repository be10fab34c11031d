"""A deterministic synthetic vault shaped like the example vault, for benchmarks.

Same (pages, seed) gives the same bytes: one `random.Random(seed)`, no set iteration, no clock.
Shape: papers `sources/@YEAR__VENUE__System - Title.md` with 1-12 authors, a few hundred
organizations, concepts with power-law popularity, 5-40 links per page, lineage as frontmatter
lists, inline fields, prose and arrow chains, contradiction callouts, Japanese and English text,
fold pages, a claim ledger, and a newest-first `log.md` with one entry per page plus lint and
fold entries. Vaults go to `benchmarks/vaults/` (git-ignored: never commit them).

    python -m benchmarks.generate --pages 10000 [--seed 7] [--out DIR]
"""

from __future__ import annotations

import argparse
import json
import shutil
from pathlib import Path
from random import Random

from benchmarks.render import render

SIZES: dict[str, int] = {"1k": 1_000, "10k": 10_000, "100k": 100_000}
DEFAULT_SEED = 7
VAULTS_DIR = Path(__file__).resolve().parent / "vaults"
MARKER = ".vaultkg-bench.json"
# Present while a benchmark has pages of the vault edited: a run that dies before it restores
# them leaves it, and the next run generates the vault again instead of measuring an edited one.
EDITED = ".vaultkg-bench-edited"
VERSION = 2  # bump when the output changes, so cached vaults are regenerated

__all__ = ["SIZES", "chosen_pages", "edit_pages", "ensure_vault", "generate", "render",
           "restore"]


def generate(pages: int, out: Path, seed: int = DEFAULT_SEED) -> Path:
    """Write the vault to `out` (replacing a vault generated there before) and return `out`."""
    marker = out / MARKER
    if out.exists() and any(out.iterdir()):
        if not marker.exists():
            raise FileExistsError(f"{out} exists and was not made by this generator")
        shutil.rmtree(out)
    files = render(pages, seed)
    for rel, text in files.items():
        path = out / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8", newline="\n")
    marker.write_text(json.dumps(_marker(pages, seed)) + "\n", encoding="utf-8")
    return out


def _marker(pages: int, seed: int) -> dict[str, int]:
    return {"pages": pages, "seed": seed, "version": VERSION}


def ensure_vault(pages: int, seed: int = DEFAULT_SEED, root: Path = VAULTS_DIR) -> Path:
    """The vault for (pages, seed) under `root`, generated only if it is not there yet."""
    out = root / f"n{pages}-s{seed}"
    marker = out / MARKER
    if (marker.exists() and json.loads(marker.read_text()) == _marker(pages, seed)
            and not (out / EDITED).exists()):
        return out
    return generate(pages, out, seed)


def edit_pages(root: Path, count: int, seed: int, tag: str) -> dict[Path, bytes]:
    """Append one line (a new link and a number) to `count` source or concept pages, chosen by
    seed; returns the original bytes so the caller can restore them."""
    rng = Random(f"{seed}:{tag}")
    (root / EDITED).touch()
    concepts = sorted(p.stem for p in (root / "wiki" / "concepts").glob("*.md"))
    originals: dict[Path, bytes] = {}
    for path in _choose(rng, root, count):
        data = path.read_bytes()
        originals[path] = data
        line = (f"\n追記（{tag}）: [[{rng.choice(concepts)}]] のスループットを "
                f"{rng.uniform(1.1, 9.9):.1f} 倍改善した。\n")
        path.write_bytes(data + line.encode("utf-8"))
    return originals


def log_edit(root: Path, seed: int, tag: str) -> dict[Path, bytes]:
    """`edit_pages(root, 1, seed, tag)` as an LLM-maintained vault records it: the edit and a
    new entry about it at the top of the (newest-first) log, which shifts every line below;
    returns the original bytes of both files."""
    originals = edit_pages(root, 1, seed, tag)
    page = next(iter(originals))
    log = root / "wiki" / "log.md"
    data = log.read_bytes()
    originals.setdefault(log, data)
    text = data.decode("utf-8")
    at = text.index("\n## [") + 1
    entry = (f"## [2026-12-05] ingest | {page.stem}\n- Source: [[{page.stem}]]\n"
             f"- Key insight: 追記（{tag}）の通信量を 2.5 倍削減\n\n")
    log.write_bytes((text[:at] + entry + text[at:]).encode("utf-8"))
    return originals


def _choose(rng: Random, root: Path, count: int) -> list[Path]:
    candidates = sorted((root / "wiki" / "sources").glob("*.md")) + sorted(
        (root / "wiki" / "concepts").glob("*.md"))
    return rng.sample(candidates, min(count, len(candidates)))


def chosen_pages(root: Path, count: int, seed: int, tag: str) -> list[Path]:
    """The pages `edit_pages(root, count, seed, tag)` edits (to back them up first)."""
    return _choose(Random(f"{seed}:{tag}"), root, count)


def restore(originals: dict[Path, bytes]) -> None:
    """Write the edited files back, and say so in the vaults they belong to."""
    for path, data in originals.items():
        path.write_bytes(data)
    for root in {p for path in originals for p in path.parents if (p / MARKER).exists()}:
        (root / EDITED).unlink(missing_ok=True)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0] if __doc__ else None)
    parser.add_argument("--pages", type=int, default=1000)
    parser.add_argument("--seed", type=int, default=DEFAULT_SEED)
    parser.add_argument("--out", type=Path, default=None)
    args = parser.parse_args(argv)
    out = args.out or VAULTS_DIR / f"n{args.pages}-s{args.seed}"
    generate(args.pages, out, args.seed)
    print(out)


if __name__ == "__main__":
    main()
