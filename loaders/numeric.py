"""Numeric statements (`TTFT を最大 1.75 倍削減`, `up to 2x lower latency`) and the conflicts
between them: same subject, same metric, same kind of unit, different values.

Tokenization is spaCy's (`loaders.tokens`: `spacy.blank("en")`, and SudachiPy for
Japanese); no model is downloaded. Metrics are recognised from a lexicon plus upper-case acronyms;
subjects are the known pages a sentence links or names."""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from loaders.records import ClaimRecord, ContradictionRecord
from loaders.text import fold_name
from loaders.tokens import make_doc

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
    "cost": "cost", "コスト": "cost", "energy": "energy", "電力": "energy",
}
METRIC_ACRONYMS = frozenset({"TTFT", "TPOT", "ITL", "JCT", "MFU", "QPS", "RPS", "TPS", "P99", "P95",
                             "P50", "FLOPS", "TFLOPS", "PFLOPS", "IOPS", "TBT", "SLO"})
LINK_TARGET = re.compile(r"(\[\[)([^\]|]*)(\||\]\])")
SENTENCE_END = re.compile(r"(?<=[。．！？!?])|(?<=\.)\s+")
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


def _metric_tokens(clause: str) -> list[tuple[int, str]]:
    """(character offset, metric name) of every metric term in a clause, via spaCy tokens."""
    doc = make_doc(clause)
    found: list[tuple[int, str]] = []
    for token in doc:
        word = token.text
        key = fold_name(word)
        if key in METRIC_WORDS:
            found.append((token.idx, METRIC_WORDS[key]))
        elif word.upper() in METRIC_ACRONYMS and word.isupper():
            found.append((token.idx, word.lower()))
    lowered = clause.lower()
    for phrase, metric in METRIC_WORDS.items():
        if " " in phrase or (len(phrase) > 2 and not phrase.isascii()):
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
    if not any(ch.isdigit() for ch in text):
        return out
    # Link targets are names, not prose: blank them (same length) before reading metrics.
    text = LINK_TARGET.sub(lambda m: m.group(1) + " " * len(m.group(2)) + m.group(3), text)
    cursor = 0
    for sentence in sentences(text):
        sentence_start = max(text.find(sentence, cursor), 0)
        cursor = sentence_start + len(sentence)
        values = list(VALUE.finditer(sentence))
        if not values:
            continue
        metrics = _metric_tokens(sentence)
        if not metrics:
            continue
        for match in values:
            before = [m for pos, m in metrics if pos < match.start()]
            after = [m for pos, m in metrics if pos >= match.end()]
            metric = before[-1] if before else (after[0] if after else None)
            if metric is None:
                continue
            pre = (match.group("pre") or "").strip().lower()
            post = (match.group("post") or "").strip()
            bounded = "lower" if pre in LOWER_BOUND_PRE or post in LOWER_BOUND_POST else (
                "upper" if pre in ("最大", "最高", "up to", "as much as") else "")
            unit = UNIT_FAMILY[match.group("unit").lower()]
            value = float(match.group(2).replace(",", "."))
            out.append(NumericStatement(metric, value, unit, sentence[:400], line, bounded,
                                        sentence_start + match.start(), sentence_start))
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


def _subject_for(statement: NumericStatement, subjects: Sequence[tuple[int, str]],
                 fallback: str | None) -> str | None:
    """The subject nearest before the value in its sentence; else the first after it in the
    sentence; else the fallback (the page itself, or a log entry's summary page)."""
    in_sentence = [(pos, key) for pos, key in subjects
                   if statement.sentence_start <= pos < statement.sentence_start + len(
                       statement.text)]
    before = [key for pos, key in in_sentence
              if pos < statement.offset and not _is_baseline(statement, pos)]
    if before:
        return before[-1]
    after = [key for pos, key in in_sentence
             if pos >= statement.offset and not _is_baseline(statement, pos)]
    return after[0] if after else fallback


def numeric_claims(page: str, line: int, text: str, subjects: Sequence[tuple[int, str]],
                   fallback: str | None) -> list[ClaimRecord]:
    """One claim per numeric statement in the line, about its nearest subject."""
    claims: list[ClaimRecord] = []
    for statement in statements_in(text, line):
        if statement.bounded == "lower":
            continue
        subject = _subject_for(statement, subjects, fallback)
        if subject is not None:
            claims.append(ClaimRecord(
                id=f"num:{page}:{line}:{subject}:{statement.metric}:{statement.value:g}",
                text=statement.text, origin="numeric", page=page, line=line, subject=subject,
                metric=statement.metric, value=statement.value, unit=statement.unit))
    return claims


def detect_conflicts(claims: Iterable[ClaimRecord]) -> list[ContradictionRecord]:
    """Group numeric claims by (subject, metric, unit); a group with more than one value on more
    than one page is a detected contradiction. Deterministic: sorted everywhere."""
    groups: dict[tuple[str, str, str], list[ClaimRecord]] = defaultdict(list)
    for claim in claims:
        if claim.subject and claim.metric and claim.unit and claim.value is not None:
            groups[(claim.subject, claim.metric, claim.unit)].append(claim)
    found: list[ContradictionRecord] = []
    for (subject, metric, unit), members in sorted(groups.items()):
        values = {c.value for c in members}
        pages = {c.page for c in members if c.page}
        if len(values) < 2 or len(pages) < 2:
            continue
        by_page: dict[str, set[float]] = defaultdict(set)
        for c in members:
            if c.page and c.value is not None:
                by_page[c.page].add(c.value)
        # Pages disagree only when neither states the other's value: a page listing several
        # values (stages, settings) is describing variants, not contradicting itself.
        disagreeing = {a for a in by_page for b in by_page
                       if a != b and not by_page[a] & by_page[b]}
        if not disagreeing:
            continue
        members = [c for c in members if c.page in disagreeing]
        values = {c.value for c in members}
        pages = {c.page for c in members if c.page}
        ordered = sorted(members, key=lambda c: (c.page or "", c.line or 0, c.value or 0.0))
        values_text = " vs ".join(
            f"{v:g}{'x' if unit == 'times' else '%'}" for v in sorted(
                v for v in values if v is not None))
        found.append(ContradictionRecord(
            id=f"detected:{subject}:{metric}:{unit}", kind="detected", status="open",
            origin="numeric", subject=subject,
            summary=f"{subject}: {metric} stated as {values_text}",
            page=None, line=None, claims=tuple(c.id for c in ordered),
            pages=tuple(sorted(pages)),
            evidence=tuple(f"{c.page}:{c.line}: {c.text}" for c in ordered)))
    return found
