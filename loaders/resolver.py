"""Link resolution the way Obsidian does it: path-qualified names, file stems, aliases, then the
same with case and width folded; duplicates go to the shortest path."""

from __future__ import annotations

import posixpath
from collections.abc import Iterable
from dataclasses import dataclass, field

from loaders.records import PageKind
from loaders.text import fold_name, nfc

ATTACHMENT_SUFFIXES = frozenset(
    {".png", ".jpg", ".jpeg", ".gif", ".svg", ".webp", ".bmp", ".pdf", ".mp3", ".mp4", ".wav",
     ".webm", ".mov", ".ogg", ".m4a", ".csv", ".json", ".canvas", ".excalidraw", ".zip"}
)


@dataclass(frozen=True)
class PageHeader:
    """What resolution needs of a page: its key, path, kind, title and aliases."""

    key: str
    path: str
    kind: PageKind
    title: str
    aliases: tuple[str, ...] = ()
    # The file name without extension: given by a caller that has it at hand (the header pass
    # of 100k files), else derived from `path`. Asked for about ten times per page and ingest.
    stem: str = field(default="", compare=False)

    def __post_init__(self) -> None:
        if not self.stem:
            object.__setattr__(self, "stem",
                               nfc(posixpath.splitext(posixpath.basename(self.path))[0]))


@dataclass(frozen=True)
class Resolution:
    """The page a link names (None: dangling), or that it names an attachment."""

    target: str | None
    name: str
    attachment: bool = False


def rank(header: PageHeader) -> tuple[int, int, str]:
    """Which of the pages sharing a name keeps it: the shortest path."""
    return (header.path.count("/"), len(header.path), header.path)


@dataclass
class NameIndex:
    """Every name a page answers to, exact and folded."""

    headers: dict[str, PageHeader] = field(default_factory=dict)
    kinds: dict[str, PageKind] = field(default_factory=dict)
    _stem: dict[str, list[PageHeader]] = field(default_factory=dict)
    _alias: dict[str, list[PageHeader]] = field(default_factory=dict)
    _stem_folded: dict[str, list[PageHeader]] = field(default_factory=dict)
    _alias_folded: dict[str, list[PageHeader]] = field(default_factory=dict)
    _paths: dict[str, PageHeader] = field(default_factory=dict)
    # Plain names (no path, not empty) resolve the same from every page: popular targets are
    # resolved once per index.
    _plain: dict[str, Resolution] = field(default_factory=dict)

    @classmethod
    def build(cls, headers: Iterable[PageHeader]) -> NameIndex:
        index = cls()
        for header in headers:
            index.headers[header.key] = header
            index.kinds[header.key] = header.kind
            index._paths[fold_name(posixpath.splitext(header.path)[0])] = header
            index._stem.setdefault(header.stem, []).append(header)
            index._stem_folded.setdefault(fold_name(header.stem), []).append(header)
            for alias in header.aliases:
                index._alias.setdefault(nfc(alias), []).append(header)
                index._alias_folded.setdefault(fold_name(alias), []).append(header)
        for table in (index._stem, index._alias, index._stem_folded, index._alias_folded):
            for candidates in table.values():
                candidates.sort(key=rank)
        return index

    def kind(self, key: str | None) -> PageKind | None:
        header = self.headers.get(key) if key else None
        return header.kind if header else None

    def names(self) -> Iterable[tuple[str, str]]:
        """(name, page key) for every stem, title and alias: what plain text may mention."""
        for header in self.headers.values():
            yield header.stem, header.key
            if header.title and header.title != header.stem:
                yield header.title, header.key
            for alias in header.aliases:
                yield alias, header.key

    def resolve(self, target: str, from_path: str = "") -> Resolution:
        """Resolve a link target as written (without `#anchor` or `|display`)."""
        if "/" in target or "\\" in target or not target.strip():
            return self._resolve(target, from_path)
        hit = self._plain.get(target)
        if hit is None:
            hit = self._plain[target] = self._resolve(target, from_path)
        return hit

    def _resolve(self, target: str, from_path: str) -> Resolution:
        name = nfc(target.strip().replace("\\", "/"))
        if not name:
            # `[[#Heading]]` links to the page itself.
            here = self._paths.get(fold_name(posixpath.splitext(from_path)[0]))
            return Resolution(here.key if here else None, name)
        lowered = name.lower()
        suffix = posixpath.splitext(lowered)[1]
        if suffix in ATTACHMENT_SUFFIXES:
            return Resolution(None, name, attachment=True)
        if lowered.endswith(".md"):
            name = name[:-3]
        if "/" in name:
            found = self._by_path(name, from_path)
            if found is not None:
                return Resolution(found.key, name)
            name_only = posixpath.basename(name)
        else:
            name_only = name
        for table, key in (
            (self._stem, name_only),
            (self._alias, name_only),
            (self._stem_folded, fold_name(name_only)),
            (self._alias_folded, fold_name(name_only)),
        ):
            candidates = table.get(key)
            if candidates:
                return Resolution(candidates[0].key, name)
        return Resolution(None, name)

    def _by_path(self, name: str, from_path: str) -> PageHeader | None:
        """Path-qualified: relative to the linking file first, then to the vault root, then any
        path that ends with it."""
        folded = fold_name(name)
        base = posixpath.dirname(from_path)
        relative = fold_name(posixpath.normpath(posixpath.join(base, name)))
        if not relative.startswith(".."):
            hit = self._paths.get(relative)
            if hit is not None:
                return hit
        hit = self._paths.get(fold_name(posixpath.normpath(name.lstrip("/"))))
        if hit is not None:
            return hit
        tail = "/" + folded.lstrip("/")
        matches = [h for p, h in self._paths.items() if ("/" + p).endswith(tail)]
        return min(matches, key=rank) if matches else None
