"""The parse speed-ups change nothing but speed: the name prefilters never drop a mention the
matcher would find, and the parallel map returns exactly what a serial loop returns."""

from __future__ import annotations

import posixpath
import random
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import pytest

from loaders import files as files_module
from loaders import mention_filter
from loaders import vault as vault_module
from loaders.files import VaultFile
from loaders.mention_filter import (
    NameCandidates,
    NameScan,
    outside,
    squash,
    unlinked,
)
from loaders.mentions import MentionFinder
from loaders.parallel import ordered_imap
from loaders.records import Mention, PageKind, Problem
from loaders.resolver import PageHeader
from loaders.text import fold_name
from loaders.vault import LoadOptions, clear_caches, load_vault
from tests.vaults import ENGLISH_LAB, SHARED_EXAMPLE

NAMES = [("Adaptive Batching", "c1"), ("KV キャッシュ管理", "c2"), ("推論", "c3"),
         ("Ray", "p1"), ("ΣΟΦΙΑΣ", "g1"), ("Quoc V. Le", "p2")]
LINES = [
    "We use adaptive  batching here.",          # double space: no token match, still a candidate
    "KVキャッシュ管理 を使う。",                    # no space in the text, one in the name
    "推論サービングの話。",
    "An Array is not Ray, but Ray is.",
    "[[Adaptive Batching]] only inside a link.",
    "Nothing to see, 42% faster.",
    "ΣΟΦΙΑΣ σοφιας and Quoc V. Le wrote it.",
    "`Adaptive Batching` in code.",
]


def test_squash_lowers_folds_sigma_and_drops_whitespace() -> None:
    assert squash("Adaptive \u3000 Batching\t") == "adaptivebatching"
    assert squash("ΣΟΦΙΑΣ") == squash("σοφιας") == "σοφιασ"


def test_outside_blanks_spans_even_overlapping_ones() -> None:
    assert outside("ab[[x]]cd", [(2, 7)]) == "ab\x00cd"
    assert outside("abcdef", [(1, 3), (2, 5)]) == "a\x00\x00f"
    assert unlinked("see [[Ray]] and Ray") == "see \x00 and Ray"


def test_name_scan_finds_names_and_only_names() -> None:
    scan = NameScan(name for name, _ in NAMES)
    assert scan.any_in("we use ADAPTIVE batching")
    assert scan.any_in("KVキャッシュ管理")
    assert scan.any_in("推論")  # short (2-character) names are checked too
    assert not scan.any_in("Nothing to see, 42% faster.")
    assert not scan.any_in(unlinked("[[Adaptive Batching]] only inside a link."))


def test_name_candidates_keep_order_and_give_up_on_huge_texts(
        monkeypatch: pytest.MonkeyPatch) -> None:
    found = NameCandidates(NAMES).possible(["Ray met 推論 people", "adaptive batching"])
    assert found == [("Adaptive Batching", "c1"), ("推論", "c3"), ("Ray", "p1")]
    monkeypatch.setattr(mention_filter, "MAX_CHARS", 10)
    assert NameCandidates(NAMES).possible(["a" * 11]) is None


def test_name_candidates_agree_with_plain_substring_search() -> None:
    """Built once, asked many times: the same answer as testing every squashed name against
    the squashed texts, in input order, for random names and texts."""
    rng = random.Random(7)
    alphabet = "abAB σςΣ推論キャッシュ \t"
    for _ in range(200):
        names = [("".join(rng.choice(alphabet) for _ in range(rng.randint(0, 7))), f"k{i}")
                 for i in range(rng.randint(0, 30))]
        candidates = NameCandidates(names)
        for _ in range(5):
            texts = ["".join(rng.choice(alphabet) for _ in range(rng.randint(0, 40)))
                     for _ in range(rng.randint(0, 3))]
            hay = "\x00".join(squash(t) for t in texts)
            expected = [(n, k) for n, k in names if squash(n) and squash(n) in hay]
            assert candidates.possible(texts) == expected


def test_name_scan_with_fold_name_agrees_with_plain_substring_search() -> None:
    """The re-ingest's test for pages a changed name may affect: one scan per text gives the
    answer of testing each folded name against the folded text (widths, case, ß, spaces)."""
    rng = random.Random(11)
    alphabet = "abAＢß ssΣς推論ｷｬｯｼｭキャッシュ\t"
    for _ in range(300):
        names = {fold_name("".join(rng.choice(alphabet) for _ in range(rng.randint(2, 6))))
                 for _ in range(rng.randint(1, 20))}
        names = {n for n in names if len(n) >= 2}
        scan = NameScan(names, fold=fold_name)
        for _ in range(5):
            text = "".join(rng.choice(alphabet) for _ in range(rng.randint(0, 40)))
            assert scan.any_in(text) == any(n in fold_name(text) for n in names), (names, text)
            assert scan.names_in(text) == {n for n in names if n in fold_name(text)}


def test_name_scan_over_no_names_finds_nothing() -> None:
    scan = NameScan(["", "  "])  # nothing left once folded
    assert scan.names_in("any text") == set() and not scan.any_in("any text")


def test_prefilters_never_change_the_mentions(monkeypatch: pytest.MonkeyPatch) -> None:
    def mentions(finder: MentionFinder) -> list[tuple[str, int, str]]:
        out = []
        for number, line in enumerate(LINES, start=1):
            spans = [(s, e) for s, e in ((line.find("[["), line.find("]]") + 2),) if s >= 0]
            out += [(m.target, m.line, m.text) for m in finder.find("page", number, line, spans)]
        return out

    filtered = mentions(MentionFinder(NameCandidates(NAMES).possible(LINES) or []))
    scanned = mentions(MentionFinder(NAMES))
    every = {squash(name) for name, _ in NAMES}
    monkeypatch.setattr(NameScan, "names_in", lambda self, text: every)
    plain = mentions(MentionFinder(NAMES))
    assert plain == scanned == filtered
    # Not vacuous: a whitespace-insensitive match, a short CJK name, a Greek final sigma.
    assert {("c2", 2, "KVキャッシュ管理"), ("c3", 3, "推論"), ("g1", 7, "ΣΟΦΙΑΣ"),
            ("p1", 4, "Ray")} <= set(plain)


def test_name_scan_lists_every_name_a_line_holds() -> None:
    scan = NameScan(name for name, _ in NAMES)
    assert scan.names_in("Ray and adaptive batching, 推論") == {"ray", "adaptivebatching", "推論"}
    assert scan.names_in("Nothing to see, 42% faster.") == set()


@pytest.mark.parametrize("vault", [SHARED_EXAMPLE, ENGLISH_LAB], ids=["shared", "english"])
def test_lazy_matcher_finds_what_a_full_matcher_finds(
        vault: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The matcher that grows per line gives the mentions of one built over every name up
    front (every name handed to every line), on real vaults."""
    def mentions() -> list[tuple[str, str, int, str]]:
        snapshot = load_vault(vault)
        return [(m.source, m.target, m.line, m.text) for f in snapshot.facts
                for m in f.mentions]

    lazy = mentions()
    everything: set[str] = set()
    original = NameScan.__init__

    def remember(self: NameScan, names: Iterable[str]) -> None:
        names = list(names)
        everything.update(squash(n) for n in names)
        original(self, names)

    monkeypatch.setattr(NameScan, "__init__", remember)
    monkeypatch.setattr(NameScan, "names_in", lambda self, text: set(everything))
    clear_caches()  # the kept index's scanner was built before the patch
    full = mentions()
    assert len(lazy) > 10
    assert lazy == full


def _phrase_matcher_mentions(names: list[tuple[str, str]], page: str, line_no: int,
                             text: str, link_spans: list[tuple[int, int]]
                             ) -> list[tuple[str, int, str]]:
    """The mentions spaCy's PhraseMatcher on `LOWER` gives, over every usable name, with the
    rules `MentionFinder.find` applies after matching (the finder's reference)."""
    from spacy.matcher import PhraseMatcher

    from loaders.mentions import _usable, _word_bounded
    from loaders.tokens import blank, has_cjk

    lang = "ja" if has_cjk(text) else "en"
    vocab = blank(lang).vocab
    matcher, keys = PhraseMatcher(vocab, attr="LOWER"), {}
    for name, key in sorted({(n.strip(), k) for n, k in names if _usable(n)}):
        if lang == "en" and has_cjk(name):
            continue
        label = f"{key}\x00{name}"
        keys[vocab.strings.add(label)] = key
        matcher.add(label, [make_doc(name, lang)])
    doc = make_doc(text, lang)
    spans = sorted(((doc[s:e], keys[m]) for m, s, e in matcher(doc)),
                   key=lambda item: (item[0].start_char - item[0].end_char,
                                     item[0].start_char, item[1]))
    out: list[tuple[str, int, str]] = []
    taken: list[tuple[int, int]] = []
    for span, key in spans:
        start, end = span.start_char, span.end_char
        if any(s < end and start < e for s, e in link_spans + taken) or key == page or \
                key in {k for k, _, _ in out} or not _word_bounded(text, start, end):
            continue
        taken.append((start, end))
        out.append((key, line_no, span.text))
    return out


@pytest.mark.parametrize("vault", [SHARED_EXAMPLE, ENGLISH_LAB], ids=["shared", "english"])
def test_mentions_are_what_spacys_phrase_matcher_finds(
        vault: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Every line a load hands the finder, matched again by spaCy's PhraseMatcher over every
    name of the vault (and the lines' words as names too: more overlaps, more ties)."""
    calls: list[tuple[tuple[str, int, str, list[tuple[int, int]]], list[Mention]]] = []
    names: list[tuple[str, str]] = []
    init, find = MentionFinder.__init__, MentionFinder.find

    def remember_names(self: MentionFinder, pairs: Iterable[tuple[str, str]]) -> None:
        names[:] = pairs
        init(self, names)

    def remember(self: MentionFinder, *args: Any) -> list[Mention]:
        found = find(self, *args)
        calls.append((args, found))
        return found

    monkeypatch.setattr(MentionFinder, "__init__", remember_names)
    monkeypatch.setattr(MentionFinder, "find", remember)
    clear_caches()
    load_vault(vault, LoadOptions(workers=1))
    assert sum(len(found) for _, found in calls) > 10
    for args, found in calls:
        assert [(m.target, m.line, m.text) for m in found] == \
            _phrase_matcher_mentions(names, *args), args
    words = sorted({w for (_, _, text, _), _ in calls[:40] for w in text.split()})
    extra = names + [(w, f"w{i}") for i, w in enumerate(words)]
    finder = MentionFinder(extra)
    for args, _ in calls[:200]:
        assert [(m.target, m.line, m.text) for m in finder.find(*args)] == \
            _phrase_matcher_mentions(extra, *args), args


def _square(x: int) -> int:
    return x * x


def test_ordered_imap_in_processes_equals_the_serial_loop() -> None:
    items = list(range(2500))
    seen: list[int] = []
    parallel = list(ordered_imap(_square, items, workers=2,
                                 progress=lambda done, total: seen.append(done)))
    assert parallel == [x * x for x in items]
    assert seen[-1] == len(items) and seen == sorted(seen)
    assert list(ordered_imap(_square, items[:3], workers=1)) == [0, 1, 4]


def _fail(x: int) -> int:
    if x == 1234:
        raise ValueError("bad page")
    return x


def test_ordered_imap_raises_what_a_worker_raised() -> None:
    with pytest.raises(ValueError, match="bad page"):
        list(ordered_imap(_fail, list(range(2000)), workers=2))


def test_has_cjk_is_the_kana_and_kanji_ranges() -> None:
    from loaders.tokens import has_cjk

    inside = ["\u3040", "\u30ff", "\u4e00", "\u9fff", "KVキャッシュ", "漢"]
    outside_ = ["", "abc", "\u303f", "\u3100", "\u4dff", "\ua000", "ｱ", "한국"]
    assert all(has_cjk(t) for t in inside)
    assert not any(has_cjk(t) for t in outside_)


# Spaces SudachiPy and spaCy treat apart: one after a word, runs, leading, trailing, tabs,
# ideographic; empty text; full-width letters; metric words inside longer words.
TOKEN_TEXTS = ["", " ", "  ", "ＴＴＦＴ を 1.5 倍", "  二重  スペース ", "\tタブ\t",
               "a\u3000全角 スペース", "TTFT を最大 1.75 倍削減", "スループット　が 2倍 に",
               "up to 2x lower latency",
               "don't   cost-aware e.g. TTFT-bound (P99) 3.5×", "x 2 ×", "高速化で 30% 高速"]


def _lines(*roots: Path) -> list[str]:
    return [line for root in roots for path in sorted(root.rglob("*.md"))
            for line in path.read_text(encoding="utf-8").splitlines()]


def make_doc(text: str, lang: str | None = None) -> Any:
    """The spaCy Doc the loaders tokenized into before `words`: spaCy's blank English
    tokenizer, or SudachiPy's surfaces as a Doc's words (a single space after a word is its
    trailing space). The reference of `words`, the metrics and the mentions."""
    from spacy.tokens import Doc

    from loaders.tokens import _sudachi, blank, has_cjk

    lang = lang or ("ja" if has_cjk(text) else "en")
    if lang == "en":
        return blank("en").make_doc(text)
    words: list[str] = []
    spaces: list[bool] = []
    for morpheme in _sudachi().tokenize(text):
        surface = morpheme.surface()
        if surface == " " and words and not spaces[-1]:
            spaces[-1] = True
            continue
        if surface:
            words.append(surface)
            spaces.append(False)
    return Doc(blank("ja").vocab, words=words, spaces=spaces)


def test_words_are_the_tokens_of_a_spacy_doc() -> None:
    from loaders.tokens import words

    texts = TOKEN_TEXTS + _lines(SHARED_EXAMPLE, ENGLISH_LAB)
    for text in texts:
        assert words(text) == [(t.idx, t.text) for t in make_doc(text)], text
    for text in TOKEN_TEXTS:  # a language forced: names are tokenized as the line's
        for lang in ("en", "ja"):
            assert words(text, lang) == [(t.idx, t.text) for t in make_doc(text, lang)], text


def _metric_tokens_reference(clause: str) -> list[tuple[int, str]]:
    """The metrics of a clause as found before `words` and `_metric_of`: every token of its
    spaCy Doc, folded and looked up."""
    from loaders.numeric import METRIC_ACRONYMS, METRIC_WORDS

    found: list[tuple[int, str]] = []
    for token in make_doc(clause):
        key = fold_name(token.text)
        if key in METRIC_WORDS:
            found.append((token.idx, METRIC_WORDS[key]))
        elif token.text.upper() in METRIC_ACRONYMS and token.text.isupper():
            found.append((token.idx, token.text.lower()))
    lowered = clause.lower()
    for phrase, metric in METRIC_WORDS.items():
        if " " in phrase or (len(phrase) > 2 and not phrase.isascii()):
            start = lowered.find(phrase)
            if start >= 0 and all(pos != start for pos, _ in found):
                found.append((start, metric))
    return sorted(found)


def test_metric_tokens_are_what_the_tokens_of_make_doc_give() -> None:
    from loaders.numeric import _metric_tokens, sentences

    clauses = TOKEN_TEXTS + [s for line in _lines(SHARED_EXAMPLE, ENGLISH_LAB)
                             for s in sentences(line)]
    found = 0
    for clause in clauses:
        expected = _metric_tokens_reference(clause)
        assert _metric_tokens(clause) == expected, clause
        found += bool(expected)
    assert found > 100  # the vaults state figures about metrics


def _duplicate_names_reference(files: list[VaultFile]) -> list[Problem]:
    """The warnings as they were found before only the pages sharing a name were ranked: every
    page in rank order, a name's first holder keeps it."""
    out: list[Problem] = []
    first_by_stem: dict[str, VaultFile] = {}
    first_by_title: dict[str, VaultFile] = {}
    for f in sorted(files, key=lambda f: (f.rel.count("/"), len(f.rel), f.rel)):
        stem, title = f.header.stem, fold_name(f.header.title)
        first = first_by_stem.setdefault(stem, f)
        if first is not f:
            out.append(Problem(path=f.rel, message=f"page name '{stem}' is also used by "
                                                   f"{first.rel}; this page's key is "
                                                   f"'{f.header.key}'"))
            continue
        other = first_by_title.setdefault(title, f)
        if other is not f:
            out.append(Problem(path=f.rel, message=f"title '{f.header.title}' is also the title "
                                                   f"of {other.rel}; links go by file name"))
    return out


def test_keys_and_duplicate_name_warnings_as_ranking_every_page_gives() -> None:
    rng = random.Random(5)
    warned = 0
    for _ in range(300):
        rels = sorted({"/".join([*rng.sample(["a", "b", "cc", "d/e"], rng.randint(0, 2)),
                                 rng.choice(["X", "y", "Zz", "ω"]) + ".md"])
                       for _ in range(rng.randint(1, 12))})
        files = [VaultFile(rel, "", "", 0, 0, None, PageHeader(
            key=posixpath.splitext(posixpath.basename(rel))[0], path=rel,
            kind=PageKind.CONCEPT, title=rng.choice(["T", "t", "Ｔ", "U"])))
            for rel in rels]
        rng.shuffle(files)
        by_stem = vault_module._assign_keys(files)
        keys = [f.header.key for f in files]
        assert len(set(keys)) == len(keys)  # every page its own key
        found = vault_module._duplicate_names(by_stem)
        assert found == _duplicate_names_reference(files)
        warned += len(found)
    assert warned > 300


class _EmptyHistory:
    """A graph that holds no log entry yet (a first ingest)."""

    def entry_signatures(self) -> dict[str, str | None]:
        return {}

    def entries_reach(self, keys: Iterable[str]) -> tuple[set[str], set[str]]:
        return set(), set()

    def log_state(self, page: str) -> None:
        return None


def test_a_first_ingest_does_not_search_pages_for_new_block_ids(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Every entry is new on a first ingest, but every page is parsed anyway: looking for the
    pages that cite the entries' block ids (`^id`) would read each page once more."""
    wiki = tmp_path / "wiki"
    wiki.mkdir()
    (wiki / "log.md").write_text("# Log\n\n## [2026-07-01] lint | Check\n- Fixed: [[A]] ^fix-1\n",
                                 encoding="utf-8")
    (wiki / "A.md").write_text("---\ntitle: A\n---\nSee ^fix-1 in the log.\n", encoding="utf-8")
    reads: list[str] = []
    real = files_module.text_of

    def counted(f: VaultFile) -> str | None:
        reads.append(f.rel)
        return real(f)

    monkeypatch.setattr(vault_module, "text_of", counted)
    stream = vault_module.stream_vault(
        tmp_path, vault_module.LoadOptions(log_history=_EmptyHistory()))
    stream.close()
    assert set(stream.todo) == {"A", "log"} and reads == []
