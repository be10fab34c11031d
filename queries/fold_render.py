"""Markdown of a fold page, in the layout of the example vault's fold page (claude-obsidian's
fold template): frontmatter, then Scope, Child Entries, Key Outcomes, Cross-entry Themes,
Contradictions or Corrections, Child Pages, Related. Pure: same digest, same bytes."""

from __future__ import annotations

import json

from queries.fold_models import ChildEntry, ContradictionItem, FoldDigest, PageRef

SECTIONS = ("Child Entries", "Key Outcomes", "Cross-entry Themes",
            "Contradictions or Corrections", "Child Pages", "Related")
TABLE_HEADER = ("| Date | Op | Title | Page | Summary (extractive) |\n"
                "|---|---|---|---|---|")
MISSING = " (missing)"
NONE_DETECTED = "- None detected."
NO_THEMES = "- No cross-entry theme detected: no concept is what two entries' pages are about."
TIMING_WORD = {"earlier": "Earlier", "in range": "In-range", "later": "Later",
               "undated": "Undated"}


def _q(text: str) -> str:
    """A YAML double-quoted scalar (JSON strings are valid YAML)."""
    return json.dumps(text, ensure_ascii=False)


def _cell(text: str) -> str:
    return " ".join(text.split()).replace("|", "\\|")


def _link(ref: PageRef, use_key: bool) -> str:
    return f"[[{ref.key if use_key else ref.link}]]" + (MISSING if ref.state == "missing" else "")


def frontmatter(d: FoldDigest) -> list[str]:
    lines = ["---", "type: fold", f"title: {_q(d.title)}", f"fold_id: {_q(d.fold_id)}",
             f"batch_exponent: {d.level}", f"entry_count: {d.entry_count}",
             f"range_from: {_q(d.range_from.isoformat())}",
             f"range_to: {_q(d.range_to.isoformat())}"]
    if d.as_of is not None:
        lines.append(f"as_of: {_q(d.as_of.isoformat())}")
    lines += [f"created: {_q(d.knowledge_date.isoformat())}",
              f"updated: {_q(d.knowledge_date.isoformat())}",
              "tags:", "  - meta", "  - fold", f"  - {_q(f'fold/k{d.level}')}",
              "status: mature", "child_keys:", *(f"  - {_q(k)}" for k in d.child_keys)]
    if d.child_folds:
        lines += ["child_folds:", *(f"  - {_q(f'[[{f}]]')}" for f in d.child_folds)]
    lines += ["related:" if d.related else "related: []",
              *(f"  - {_q(f'[[{r.target}]]')}" for r in d.related), "---"]
    return lines


def scope(d: FoldDigest) -> str:
    text = (f"Level-{d.level} fold of {d.entry_count} log entries spanning "
            f"{d.range_from.isoformat()} to {d.range_to.isoformat()}.")
    if d.dominant_themes:
        text += " Dominant themes: " + ", ".join(f"[[{t}]]" for t in d.dominant_themes) + "."
    else:
        text += " No cross-entry theme detected."
    if d.child_folds:
        text += " Built from " + " and ".join(f"[[{f}]]" for f in d.child_folds) + "."
    if d.as_of is not None:
        text += f" As of {d.as_of.isoformat()}: facts introduced by later log entries are left out."
    return text


def _row(c: ChildEntry) -> str:
    pages = ", ".join(_link(r, use_key=False) for r in c.pages) or "—"
    return (f"| {c.date.isoformat()} | {_cell(c.op)} | {_cell(c.title)} | {_cell(pages)} | "
            f"{_cell(c.summary)} |")


def _cite(titles: dict[str, str], keys: tuple[str, ...]) -> str:
    return ", ".join(f"{k} {' '.join(titles.get(k, '').split())}".rstrip() for k in keys)


def _contradiction(by_key: dict[str, str], x: ContradictionItem) -> str:
    """One contradiction line; `by_key` maps entry keys to child keys (built once per page)."""
    noun = "correction" if x.kind == "explicit" else "detected conflict"
    when = x.date.isoformat() if x.date else "undated"
    facts = [when, f"{x.origin} {x.kind}", x.status]
    if x.introduced_by:
        facts.append(f"introduced by {by_key.get(x.introduced_by, x.introduced_by)}")
    line = f"- {TIMING_WORD[x.timing]} {noun} ({'; '.join(facts)}): {' '.join(x.summary.split())}"
    if x.subject:
        line += f" — concerns [[{x.subject}]]"
    if x.affects:
        line += f"; affects {', '.join(x.affects)}"
    return line


def render(d: FoldDigest) -> str:
    """The fold page, ending with one newline."""
    titles = {c.child_key: c.title for c in d.children}
    by_key = {c.entry_key: c.child_key for c in d.children}
    out = [*frontmatter(d), "", scope(d), "", "## Child Entries", "", TABLE_HEADER]
    out += [_row(c) for c in reversed(d.children)]
    out += ["", "## Key Outcomes", ""]
    corrected = {k for x in d.contradictions if x.timing == "later" for k in x.affects}
    out += [f"- {' '.join(o.text.split())} (from {_cite(titles, (o.child_key,))}"
            + ("; see the later correction below)" if o.child_key in corrected else ")")
            for o in d.outcomes] or ["- No outcome stated by the child entries."]
    out += ["", "## Cross-entry Themes", ""]
    out += [f"- **[[{t.concept}]]**: the pages of {len(t.support)} entries are about it "
            f"(supported by: {_cite(titles, t.support)})" for t in d.themes] or [NO_THEMES]
    out += ["", "## Contradictions or Corrections", ""]
    out += [_contradiction(by_key, x) for x in d.contradictions] or [NONE_DETECTED]
    out += ["", "## Child Pages", ""]
    out += [f"- {_link(r, use_key=True)}" for r in d.child_pages]
    out += ["", "## Related", ""]
    out += [f"- [[{r.target}]] - {r.note}" for r in d.related]
    return "\n".join(out) + "\n"
