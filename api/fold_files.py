"""Writing a fold page into a vault: only `wiki/folds/{fold_id}.md`, never another file, never
outside the vault's folds folder. Creating is exclusive (a second write is a no-op); `force`
replaces atomically."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

from pydantic import BaseModel

from loaders.errors import BadUserInput
from loaders.files import vault_root
from queries.fold_check import FOLD_ID

FOLDS_DIR = "folds"


class FoldWrite(BaseModel):
    """What a write did: the file, its vault-relative path, and whether it was (re)written."""

    path: str
    relative: str
    written: bool
    replaced: bool


def fold_file(vault: Path, fold_id: str) -> tuple[Path, Path]:
    """(vault root, target file) for a fold id; refuses ids and folders that would escape."""
    if not FOLD_ID.match(fold_id):
        raise BadUserInput(f"{fold_id!r} is not a fold id")
    root = vault_root(vault)
    folds = root / FOLDS_DIR
    if folds.is_symlink() or (folds.exists() and not folds.resolve().is_relative_to(root)):
        raise BadUserInput(f"{folds} leads outside the vault; refusing to write there")
    target = folds / f"{fold_id}.md"
    if target.is_symlink():
        raise BadUserInput(f"{target} is a symlink; refusing to write through it")
    if target.resolve().parent != folds.resolve():
        raise BadUserInput(f"{target} is outside {folds}")
    return root, target


def write_fold(vault: Path, fold_id: str, markdown: str, force: bool = False) -> FoldWrite:
    """Write the page if it does not exist (or replace it with `force`)."""
    root, target = fold_file(vault, fold_id)
    relative = target.relative_to(root).as_posix()
    existed = target.exists()
    if existed and not force:
        return FoldWrite(path=str(target), relative=relative, written=False, replaced=False)
    target.parent.mkdir(exist_ok=True)
    data = markdown.encode("utf-8")
    if not existed:
        try:
            with open(target, "xb") as handle:
                handle.write(data)
            return FoldWrite(path=str(target), relative=relative, written=True, replaced=False)
        except FileExistsError:
            if not force:
                return FoldWrite(path=str(target), relative=relative, written=False,
                                 replaced=False)
    fd, tmp = tempfile.mkstemp(prefix=f".{fold_id}.", suffix=".tmp", dir=target.parent)
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
        os.replace(tmp, target)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    return FoldWrite(path=str(target), relative=relative, written=True, replaced=True)
