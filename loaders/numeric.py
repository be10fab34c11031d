"""Numeric statements (`TTFT を最大 1.75 倍削減`, `up to 2x lower latency`) and the conflicts
between them: same subject, same metric, same kind of unit, different values.

Tokenization is spaCy's (`loaders.tokens`: `spacy.blank("en")`, and SudachiPy for
Japanese); no model is downloaded. Metrics are recognised from a lexicon plus upper-case acronyms;
subjects are the known pages a sentence links or names."""

from __future__ import annotations

import datetime as dt
import re
from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from functools import lru_cache

from loaders.fact_ids import claim_id
from loaders.records import ClaimRecord, ContradictionRecord
from loaders.text import fold_name
from loaders.tokens import words

NUMBER = r"(\d+(?:[.,]\d+)?)"
VALUE = re.compile(
    rf"(?P<pre>(?:最大|最高|最小|約|up to|as much as|about|around|roughly|~|>|<|≥|≤|at least|"
    rf"more than|over|under)\s*)?{NUMBER}\s*(?P<unit>倍|x\b|×|%|％)"
    rf"(?P<post>\s*(?:程度|以上|超|未満|以下|前後|近く))?",
    re.IGNORECASE,
)
LOWER_BOUND_PRE = ("at least", "more than", ">", "≥", "over")
LOWER_BOUND_POST = ("以上", "超")
METRIC_WORDS: dict[str, str] = {
    "ttft": "ttft", "tpot": "tpot", "itl": "itl", "jct": "jct", "mfu": "mfu",
    "throughput": "throughput", "スループット": "throughput",
    "latency": "latency", "遅延": "latency", "レイテンシ": "latency",
    "memory": "memory", "メモリ": "memory",
    "bandwidth": "bandwidth", "帯域": "bandwidth",
    "accuracy": "accuracy", "精度": "accuracy",
    "goodput": "goodput", "perplexity": "perplexity",
    "speedup": "speed", "faster": "speed", "高速": "speed", "高速化": "speed",
    "training time": "training-time", "訓練時間": "training-time",
    "通信量": "communication", "communication": "communication",
    "serving capacity": "capacity", "capacity": "capacity",
    "cost": "cost", "コスト": "cost", "energy": "energy", "電力": "energy",
}
METRIC_ACRONYMS = frozenset({"TTFT", "TPOT", "ITL", "JCT", "MFU", "QPS", "RPS", "TPS", "P99", "P95",
                             "P50", "FLOPS", "TFLOPS", "PFLOPS", "IOPS", "TBT", "SLO"})
MAX_VALUES = 50
MAX_SENTENCE = 2000
LINK_TARGET = re.compile(r"(\[\[)([^\]|]*)(\||\]\])")
SENTENCE_END = re.compile(r"(?<=[。．！？!?;；])|(?<=\.)\s+")
UNIT_FAMILY = {"倍": "times", "x": "times", "×": "times", "%": "percent", "％": "percent"}


@dataclass(frozen=True)
class NumericStatement:
    """One value stated about a metric in one sentence."""

    metric: str
    value: float
    unit: str
    text: str
    line: int
    bounded: str
    offset: int
    sentence_start: int
    original: str = ""


# Metric terms a token cannot hold whole (spaces, or Japanese words a tokenizer may split):
# found in the clause's text instead.
METRIC_PHRASES = tuple((phrase, metric) for phrase, metric in METRIC_WORDS.items()
                       if " " in phrase or (len(phrase) > 2 and not phrase.isascii()))


@lru_cache(maxsize=1 << 16)
def _metric_of(word: str) -> str | None:
    """The metric a token names, if any (a lexicon word, any width or case, or an upper-case
    acronym). Kept per word: a vault repeats its words, and the lookup folds each one."""
    metric = METRIC_WORDS.get(fold_name(word))
    if metric is None and word.isupper() and word.upper() in METRIC_ACRONYMS:
        return word.lower()
    return metric


def _metric_tokens(clause: str) -> list[tuple[int, str]]:
    """(character offset, metric name) of every metric term in a clause, via spaCy's tokens
    (SudachiPy's for Japanese)."""
    found = [(at, metric) for at, word in words(clause)
             if (metric := _metric_of(word)) is not None]
    lowered = clause.lower()
    for phrase, metric in METRIC_PHRASES:
        start = lowered.find(phrase)
        if start >= 0 and all(pos != start for pos, _ in found):
            found.append((start, metric))
    found.sort()
    return found


def sentences(text: str) -> list[str]:
    """Split a line into sentences (Japanese and English punctuation)."""
    return [part.strip() for part in SENTENCE_END.split(text) if part and part.strip()]


def statements_in(text: str, line: int) -> list[NumericStatement]:
    """Numeric statements in one line: each value is bound to the nearest metric before it in
    its sentence (or just after it, when none comes before)."""
    out: list[NumericStatement] = []
    if not any(map(str.isdigit, text)):
        return out
    # Link targets are names, not prose: blank them (same length) before reading metrics.
    original = text
    text = LINK_TARGET.sub(lambda m: m.group(1) + " " * len(m.group(2)) + m.group(3), text)
    cursor = 0
    for sentence in sentences(text):
        sentence_start = max(text.find(sentence, cursor), 0)
        cursor = sentence_start + len(sentence)
        # A giant sentence, or one with dozens of numbers, is a data dump, not a claim: skip it
        # so the work per line stays bounded.
        if len(sentence) > MAX_SENTENCE:
            continue
        values = list(VALUE.finditer(sentence))[:MAX_VALUES]
        if not values:
            continue
        metrics = _metric_tokens(sentence)
        if not metrics:
            continue
        # A metric right after a value ("64% 高速") belongs to that value, not to later ones.
        consumed = {pos for v in values for pos, _ in metrics if v.end() <= pos <= v.end() + 3}
        for match in values:
            before = [m for pos, m in metrics if pos < match.start() and pos not in consumed]
            after = [m for pos, m in metrics if pos >= match.end()]
            right_after = [m for pos, m in metrics if match.end() <= pos <= match.end() + 3]
            # "64% 高速", "2.4x throughput": a metric right after the value names it.
            metric = right_after[0] if right_after else (
                before[-1] if before else (after[0] if after else None))
            if metric is None:
                continue
            pre = (match.group("pre") or "").strip().lower()
            post = (match.group("post") or "").strip()
            bounded = "lower" if pre in LOWER_BOUND_PRE or post in LOWER_BOUND_POST else (
                "upper" if pre in ("最大", "最高", "up to", "as much as") else "")
            unit = UNIT_FAMILY[match.group("unit").lower()]
            value = float(match.group(2).replace(",", "."))
            out.append(NumericStatement(
                metric, value, unit, sentence[:400], line, bounded,
                sentence_start + match.start(), sentence_start,
                original[sentence_start:sentence_start + len(sentence)][:400]))
    return out


BASELINE_AFTER = re.compile(r"^[^\s、。,]{0,40}?[）)]?\s*(?:比|と比べ|に比べ|より)")
BASELINE_BEFORE = re.compile(r"(?:than|over|vs\.?|versus|compared (?:with|to)|relative to)\s*$",
                             re.IGNORECASE)


def _is_baseline(statement: NumericStatement, pos: int) -> bool:
    """`BF16（Megatron-LM）比` or `faster than X`: X is the baseline, not the subject."""
    local = pos - statement.sentence_start
    text = statement.text
    after = text[local:local + 48]
    return bool(BASELINE_AFTER.match(after) or BASELINE_BEFORE.search(text[:local]))


QUALIFIER = re.compile(
    r"(?<![\w-])(?:[A-Z][A-Za-z]*-[A-Za-z0-9/.\-]*\d[A-Za-z0-9/.\-]*|[A-Z]+\d+[A-Z]*)")


def qualifiers(sentence: str) -> tuple[str, ...]:
    """Model-like names with digits (`ViT-B/16`, `GPT-175B`, `H100`): two statements about
    different model variants are not about the same thing."""
    return tuple(sorted({q.rstrip(".-/") for q in QUALIFIER.findall(sentence)}))


def _subjects_for(statement: NumericStatement, subjects: Sequence[tuple[int, str]],
                  fallback: str | None) -> list[str]:
    """Every page the sentence names that is not a baseline; else the fallback (the page itself,
    or a log entry's summary page)."""
    end = statement.sentence_start + len(statement.text)
    found = [key for pos, key in subjects
             if statement.sentence_start <= pos < end and not _is_baseline(statement, pos)]
    if found:
        return list(dict.fromkeys(found))
    return [fallback] if fallback else []


def numeric_claims(page: str, line: int, text: str, subjects: Sequence[tuple[int, str]],
                   fallback: str | None, known: dt.date | None = None) -> list[ClaimRecord]:
    """One claim per numeric statement in the line and subject named in its sentence, known
    since `known` (see `ClaimRecord.known`)."""
    claims: list[ClaimRecord] = []
    for statement in statements_in(text, line):
        if statement.bounded == "lower":
            continue
        quals = qualifiers(statement.text)
        for subject in _subjects_for(statement, subjects, fallback):
            claims.append(ClaimRecord(
                id=claim_id(page, line, subject, statement.metric, statement.value),
                text=statement.original or statement.text, origin="numeric", page=page,
                line=line, subject=subject,
                metric=statement.metric, value=statement.value, unit=statement.unit,
                qualifiers=quals, known=known))
    return claims


def _compatible(a: tuple[str, ...], b: tuple[str, ...]) -> bool:
    """Same model variants: both name none, or they share one."""
    return (not a and not b) or bool(set(a) & set(b))


Point = tuple[str | None, int | None, float | None]  # (page, line, value) of a statement


Group = tuple[str, str, str]  # (subject, metric, unit): claims that can conflict
DETECTED_PREFIX = "detected:"


def group_of(claim: ClaimRecord) -> Group | None:
    """The group a claim is compared within; None for a claim that is compared with none."""
    if claim.subject and claim.metric and claim.unit and claim.value is not None:
        return claim.subject, claim.metric, claim.unit
    return None


def conflict_id(group: Group) -> str:
    """The id of the detected conflict a group reports (at most one per group)."""
    return DETECTED_PREFIX + ":".join(group)


def conflict_group(conflict: str) -> Group | None:
    """The group of a detected conflict's id (metrics and units never hold a colon; a
    subject may)."""
    if not conflict.startswith(DETECTED_PREFIX):
        return None
    parts = conflict.removeprefix(DETECTED_PREFIX).rsplit(":", 2)
    return (parts[0], parts[1], parts[2]) if len(parts) == 3 else None


def _groups(claims: Iterable[ClaimRecord]) -> dict[Group, list[ClaimRecord]]:
    groups: dict[Group, list[ClaimRecord]] = defaultdict(list)
    for claim in claims:
        group = group_of(claim)
        if group is not None:
            groups[group].append(claim)
    return groups


def _disagreeing(members: list[ClaimRecord]) -> list[ClaimRecord]:
    """The members that disagree with another member of their group.

    Two statements disagree when they are on different pages, about compatible model variants,
    and neither page states the other's value (a page listing several values describes
    variants, not a conflict with itself). Stating the other's value implies the same page or
    value, so for a claim on page P only values P does not state need looking at, and the
    first disagreeing one ends the search."""
    by_page: dict[str, set[float]] = defaultdict(set)
    by_value: dict[float, list[ClaimRecord]] = defaultdict(list)
    for c in members:
        if c.page and c.value is not None:
            by_page[c.page].add(c.value)
            by_value[c.value].append(c)
    if len(by_value) < 2:
        return []
    return [c for c in members if c.page and c.value is not None and any(
        c.value not in by_page[b.page]  # type: ignore[index]
        and _compatible(c.qualifiers, b.qualifiers)
        for value, same in by_value.items() if value not in by_page[c.page] for b in same)]


def conflict_signatures(claims: Iterable[ClaimRecord]) -> list[frozenset[Point]]:
    """The statements of each conflict these claims hold, before duplicates across subjects
    are dropped: another subject reports the same conflict only if it has claims at every
    one of these points."""
    out = []
    for members in _groups(claims).values():
        found = _disagreeing(members)
        if found:
            out.append(frozenset((c.page, c.line, c.value) for c in found))
    return out


def detect_conflicts(claims: Iterable[ClaimRecord]) -> list[ContradictionRecord]:
    """Group numeric claims by (subject, metric, unit); statements in a group conflict when
    they disagree. One conflict seen through several subjects is reported once, by the first
    group in sorted order. Deterministic: sorted everywhere."""
    found: list[ContradictionRecord] = []
    seen: set[frozenset[Point]] = set()
    for group, members in sorted(_groups(claims).items()):
        subject, metric, unit = group
        members = _disagreeing(members)
        if not members:
            continue
        signature = frozenset((c.page, c.line, c.value) for c in members)
        if signature in seen:
            continue
        seen.add(signature)
        values = sorted({c.value for c in members if c.value is not None})
        pages = sorted({c.page for c in members if c.page})
        ordered = sorted(members, key=lambda c: (c.page or "", c.line or 0, c.value or 0.0))
        shown = " vs ".join(f"{v:g}{'x' if unit == 'times' else '%'}" for v in values)
        found.append(ContradictionRecord(
            id=conflict_id(group), kind="detected", status="open",
            origin="numeric", subject=subject, summary=f"{subject}: {metric} stated as {shown}",
            page=None, line=None, claims=tuple(c.id for c in ordered), pages=tuple(pages),
            evidence=tuple(dict.fromkeys(f"{c.page}:{c.line}: {c.text}" for c in ordered)),
            known=conflict_known(members)))
    return found


def conflict_known(claims: Iterable[ClaimRecord]) -> dt.date | None:
    """The day every disagreeing value was on record: the latest of each value's earliest
    known statement (None when some value has none)."""
    earliest: dict[float | None, dt.date | None] = {}
    for claim in claims:
        seen = earliest.get(claim.value)
        if claim.value not in earliest or (
                claim.known is not None and (seen is None or claim.known < seen)):
            earliest[claim.value] = claim.known
    dates = [d for d in earliest.values() if d is not None]
    return max(dates) if dates and len(dates) == len(earliest) else None
