"""Markdown (and the ledger's JSON) for a planned vault, in the example vault's conventions:
flat YAML frontmatter with quoted wikilinks and unquoted dates, `## 系譜` / `## Lineage`
sections, callouts, a newest-first `log.md`."""

from __future__ import annotations

import datetime as dt
import json
import re
from collections.abc import Sequence
from typing import Any

from benchmarks import vocab as v
from benchmarks.vault_plan import START, Paper, VaultPlan, pick

MIN_LINKS = 5
MAX_LINKS = 40
PLAIN = re.compile(r"^[A-Za-z][A-Za-z\-_]*$|^[\u3040-\u30ff\u4e00-\u9fff]+$")


def _front(items: Sequence[tuple[str, object]]) -> list[str]:
    """Flat YAML like the example vault: quoted strings, block lists, unquoted dates."""
    out = ["---"]
    for key, value in items:
        if isinstance(value, list):
            if not value:
                out.append(f"{key}: []")
                continue
            out.append(f"{key}:")
            out += [f"  - {_scalar(str(item))}" for item in value]
        elif isinstance(value, dt.date | int):
            out.append(f"{key}: {value}")
        else:
            out.append(f"{key}: {_scalar(str(value))}")
    out.append("---")
    return out


def _scalar(text: str) -> str:
    """Bare words stay bare (`type: source`); anything else is double-quoted, as in the
    example vault."""
    if PLAIN.match(text) and text.lower() not in ("true", "false", "null", "yes", "no", "on",
                                                    "off"):
        return text
    return json.dumps(text, ensure_ascii=False)


def _links(names: Sequence[str]) -> str:
    return ", ".join(f"[[{n}]]" for n in names)


def _count_links(lines: list[str]) -> int:
    return sum(line.count("[[") for line in lines)


class Renderer:
    def __init__(self, vault: VaultPlan) -> None:
        self.v = vault
        self.rng = vault.rng
        self.members: dict[int, list[int]] = {}
        for person, org in enumerate(vault.affiliation):
            if len(self.members.setdefault(org, [])) < 25:
                self.members[org].append(person)

    def _dates(self, ref: tuple[str, int]) -> tuple[dt.date, dt.date]:
        created = self.v.created.get(ref, START)
        return created, created + dt.timedelta(days=self.rng.choice((0, 0, 0, 1, 3, 30)))

    def _concept_names(self, count: int) -> list[str]:
        return [self.v.concepts[i] for i in pick(self.rng, self.v.concept_pick, count)]

    def paper(self, p: Paper) -> str:
        vt, rng = self.v, self.rng
        created, updated = self._dates(("paper", p.index))
        ja = p.lang == "ja"
        concepts = [vt.concepts[k] for k in p.concepts]
        front_parents = [vt.papers[q].alias for q, m in p.parents if m == "frontmatter"]
        items: list[tuple[str, object]] = [
            ("type", "source"), ("source_type", "paper"), ("title", p.title.replace(" - ", ": ")),
            ("aliases", [p.alias]), ("authors", [f"[[{vt.persons[a]}]]" for a in p.authors]),
            ("venue", p.venue), ("year", p.year),
            ("date_published", dt.date(p.year, 1 + p.index % 12, 1 + p.index % 28)),
            ("url", f"https://arxiv.org/abs/{p.year % 100:02d}{1 + p.index % 12:02d}."
                    f"{10000 + p.index % 90000:05d}"),
            ("created", created), ("updated", updated),
            ("tags", ["source", "paper", *rng.sample(v.TAGS, 2)]),
            ("status", rng.choice(("seed", "developing", "mature"))),
            ("related", [f"[[{c}]]" for c in concepts])]
        if front_parents:
            items.append(("builds_on", [f"[[{a}]]" for a in front_parents]))
        lines = _front(items)
        lines += ["", f"# {p.title.replace(' - ', ': ')}", ""]
        author_text = []
        for n, a in enumerate(p.authors):
            author_text.append(f"[[{vt.persons[a]}]]" if n < 8 else vt.persons[a])
            if rng.random() < 0.3:
                author_text.append(rng.choice(v.GIVEN) + " " + rng.choice(v.SURNAME))
        org = vt.affiliation[p.authors[0]] if p.authors else -1
        affil = f"（[[{vt.orgs[org]}]]）" if org >= 0 else ""
        lines += [("著者: " if ja else "Authors: ") + ", ".join(author_text) + affil, ""]
        if p.callout is not None:
            lines += self._callout(p, ja)
        fill = self._fill(p, concepts)
        lines += ["## 概要" if ja else "## Summary", "",
                  (rng.choice(v.JA_SUMMARY) if ja else rng.choice(v.EN_SUMMARY)).format(**fill)
                  + (" #" + rng.choice(v.TAGS[:5]) if rng.random() < 0.3 else ""), ""]
        lines += ["## 主要な主張" if ja else "## Key claims", ""]
        compare = [q for q, m in p.parents if m == "compare"]
        for _ in range(rng.randint(2, 5)):
            claim = (rng.choice(v.JA_CLAIM) if ja else rng.choice(v.EN_CLAIM)).format(
                **self._fill(p, concepts))
            if rng.random() < 0.15:
                claim = (f"[[{rng.choice(concepts)}]] について、" if ja else
                         f"For [[{rng.choice(concepts)}]], ") + claim
            lines.append(f"- {claim}")
        for q in compare:
            fill = self._fill(p, concepts)
            link = vt.paper_link(q)
            lines.append(f"- {link} 比で{fill['m']}を {fill['x']} 倍改善した。" if ja else
                         f"- Improves {fill['m']} by {fill['x']}x compared with {link}.")
        lines.append("")
        if p.figure:
            lines += [f"![[{p.system.lower()}-architecture.png]]", ""]
        lines += ["## 手法" if ja else "## Method", "",
                  (rng.choice(v.JA_METHOD) if ja else rng.choice(v.EN_METHOD)).format(
                      **self._fill(p, concepts))]
        if p.dangling:
            lines.append(f"{'未整理: ' if ja else 'To read: '}[[{p.system} Extended]]")
        lines += ["", "## 系譜" if ja else "## Lineage", ""]
        for q, mechanism in p.parents:
            link = vt.paper_link(q)
            if mechanism == "inline":
                lines.append(f"{rng.choice(('builds_on', 'builds_on', 'extends'))}:: "
                             f"[[{vt.papers[q].alias}]]")
            elif mechanism == "prose":
                lines.append(f"{link} を拡張し、{vt.papers[q].system} の制約を取り除いた。" if ja
                             else f"It extends {link} and lifts the limits of "
                                  f"{vt.papers[q].system}.")
            elif mechanism == "bracket":
                lines.append(f"この設計は先行研究 [improves_on:: [[{vt.papers[q].alias}]]] "
                             "の延長にある。" if ja else
                             f"The design follows prior work [improves_on:: "
                             f"[[{vt.papers[q].alias}]]].")
        if not p.parents:
            lines.append("先行研究のページはまだない。" if ja else
                         "No prior work in the vault yet.")
        lines += ["", "## 関連" if ja else "## Related", ""]
        related = [("- 概念: " if ja else "- Concepts: ") + _links(concepts),
                   ("- 人物: " if ja else "- People: ")
                   + _links([vt.persons[a] for a in p.authors[:6]])]
        while related and _count_links(lines + related) > MAX_LINKS:
            related.pop()
        return self._finish(lines + related, ja)

    def _finish(self, lines: list[str], ja: bool) -> str:
        """Pad a page to MIN_LINKS links with concept links, and join it."""
        missing = MIN_LINKS - _count_links(lines)
        if missing > 0:
            lines.append(("- 参考: " if ja else "- See also: ")
                         + _links(self._concept_names(missing + 1)))
        return "\n".join(lines) + "\n"

    def _fill(self, p: Paper, concepts: list[str], ja: bool | None = None) -> dict[str, str]:
        ja = p.lang == "ja" if ja is None else ja
        c1 = self.rng.choice(concepts)
        c2 = self.v.concepts[self.v.concept_pick(self.rng)]
        return {"c1": c1, "c2": c2, "sys": p.system,
                "m": self.rng.choice(v.METRICS_JA if ja else v.METRICS_EN), **self.v.numbers()}

    def _callout(self, p: Paper, ja: bool) -> list[str]:
        entry = next(e for e in self.v.entries if e.op == "lint" and e.ref[1] == p.callout)
        fill = self.v.numbers()
        other = self.v.paper_link(p.parents[0][0]) if p.parents else f"[[{p.alias}]]"
        if ja:
            return [f"> [!contradiction] 「{fill['x']} 倍」の訂正（{entry.date} lint）",
                    f"> 当初の ingest では {fill['x']} 倍と記録したが、論文の値は {fill['p']}% "
                    f"の改善だった。比較対象: {other}",
                    f"> 訂正の記録: [[log#^{entry.block}|{entry.date} lint]]", ""]
        return [f"> [!contradiction] {fill['x']}x figure disagrees with {other}",
                f"> The first ingest recorded {fill['x']}x; the paper reports {fill['p']}%. "
                f"See [[log#^{entry.block}|{entry.date} lint]].", ""]

    def person(self, i: int) -> str:
        vt, rng = self.v, self.rng
        name = vt.persons[i]
        created, updated = self._dates(("person", i))
        org = vt.affiliation[i]
        papers = vt.person_papers[i][:30]
        concepts = self._concept_names(rng.randint(2, 4))
        items: list[tuple[str, object]] = [
            ("type", "entity"), ("entity_type", "person"), ("title", name), ("aliases", []),
            ("affiliation", f"[[{vt.orgs[org]}]]" if org >= 0 else "")]
        if papers:
            items.append(("first_mentioned", f"[[{vt.papers[papers[0]].alias}]]"))
        items += [("created", created), ("updated", updated), ("tags", ["entity", "person"]),
                  ("status", "seed")]
        ja = rng.random() < 0.6
        org_text = f"[[{vt.orgs[org]}]]" if org >= 0 else ("所属不明" if ja else "an unknown lab")
        lines = [*_front(items), "", f"# {name}", "",
                 (rng.choice(v.JA_PERSON) if ja else rng.choice(v.EN_PERSON)).format(
                     org=org_text, c1=concepts[0], c2=concepts[1]), "",
                 "## 関連ソース" if ja else "## Sources", ""]
        lines += [f"- [[{vt.papers[q].alias}]] — {'共著者' if ja else 'co-author'}"
                  for q in papers]
        lines += ["", "## 関連" if ja else "## Related", "", _links(concepts)]
        return self._finish(lines, ja)

    def org(self, i: int) -> str:
        vt, rng = self.v, self.rng
        name = vt.orgs[i]
        created, updated = self._dates(("org", i))
        members = self.members.get(i, [])
        concepts = self._concept_names(rng.randint(3, 6))
        items: list[tuple[str, object]] = [
            ("type", "entity"), ("entity_type", "organization"), ("title", name),
            ("aliases", [])]
        if vt.part_of[i] >= 0:
            items.append(("part_of", f"[[{vt.orgs[vt.part_of[i]]}]]"))
        items += [("created", created), ("updated", updated),
                  ("tags", ["entity", "organization"]), ("status", "seed")]
        lines = [*_front(items), "", f"# {name}", "",
                 f"{concepts[0]} と {concepts[1]} を扱う研究組織。", "",
                 "## 所属人物（本 vault 内）", ""]
        lines += [f"- [[{vt.persons[p]}]]" for p in members]
        lines += ["", "## 関連", "", _links(concepts)]
        return self._finish(lines, True)

    def product(self, i: int) -> str:
        vt, rng = self.v, self.rng
        name = vt.products[i]
        created, updated = self._dates(("product", i))
        dev = vt.product_dev[i]
        system = name.split(" ")[0]
        sources = [p.alias for p in vt.papers[:: max(1, len(vt.papers) // 50)]
                   if p.system == system][:3]
        sources += [vt.papers[rng.randrange(len(vt.papers))].alias for _ in range(2)]
        concepts = self._concept_names(rng.randint(3, 5))
        items: list[tuple[str, object]] = [
            ("type", "entity"), ("entity_type", "product"), ("title", name), ("aliases", []),
            ("developer", f"[[{dev}]]" if dev else ""), ("created", created),
            ("updated", updated), ("tags", ["entity", "product"]), ("status", "seed")]
        lines = [*_front(items), "", f"# {name}", "",
                 f"{concepts[0]} を中核とするシステム。", "", "## ソース", ""]
        lines += [f"- [[{s}]]" for s in dict.fromkeys(sources)]
        lines += ["", "## 関連", "", _links(concepts[1:])]
        return self._finish(lines, True)

    def concept(self, i: int) -> str:
        vt, rng = self.v, self.rng
        name = vt.concepts[i]
        created, updated = self._dates(("concept", i))
        papers = vt.concept_papers[i]
        sources = papers[:12]
        related = [c for c in self._concept_names(rng.randint(3, 6)) if c != name] or \
            [vt.concepts[(i + 1) % len(vt.concepts)]]
        ja = any("\u3040" <= ch <= "\u9fff" for ch in name)
        aliases = [f"{rng.choice(v.ADJ)} {rng.choice(v.NOUN)} ({name})"] if ja and \
            rng.random() < 0.3 else []
        items: list[tuple[str, object]] = [
            ("type", "concept"), ("title", name), ("aliases", aliases),
            ("complexity", rng.choice(("basic", "intermediate", "advanced"))),
            ("related", [f"[[{c}]]" for c in related]),
            ("sources", [f"[[{vt.papers[q].alias}]]" for q in sources[:6]]),
            ("created", created), ("updated", updated), ("tags", ["concept"]),
            ("status", "developing")]
        lines = [*_front(items), "", f"# {name}", "",
                 (rng.choice(v.JA_CONCEPT) if ja else rng.choice(v.EN_CONCEPT)).format(
                     name=name, c1=related[0]), "", "## 要点" if ja else "## Key points", ""]
        for q in sources[:8]:
            fill = self._fill(vt.papers[q], [name], ja)
            lines.append(f"- {vt.paper_link(q)}: {fill['m']} を {fill['x']} 倍改善。" if ja else
                         f"- {vt.paper_link(q)}: improves {fill['m']} by {fill['x']}x.")
        chain = self._chain(papers)
        if chain:
            lines += ["", "## 系譜" if ja else "## Lineage", "",
                      "各矢印は右側の研究が左側の研究を踏まえていることを表す。" if ja else
                      "Each arrow means the right-hand work builds on the left-hand one.", "",
                      " → ".join(vt.paper_link(q, display=True) for q in chain)]
        lines += ["", "## 関連" if ja else "## Related", "", _links(related)]
        return self._finish(lines, ja)

    def _chain(self, papers: list[int]) -> list[int]:
        """An ancestry chain (oldest first) of one of the concept's papers, for 20% of concepts
        with papers."""
        if not papers or self.rng.random() > 0.2:
            return []
        chain = [papers[-1]]
        while len(chain) < 6:
            parents = self.v.papers[chain[-1]].parents
            if not parents:
                break
            chain.append(parents[0][0])
        chain.reverse()
        return chain if len(chain) >= 3 else []

    def fold(self, number: int) -> str:
        vt = self.v
        entry, covered = vt.folds[number]
        fold_id = vt.fold_id(number)
        n = len(covered)
        position: dict[int, str] = {}
        keys = []
        for pos, child in enumerate(covered, start=1):
            key = f"log-{child.date:%Y%m%d}-{pos:03d}"
            keys.append(key)
            position[id(child)] = key
        items: list[tuple[str, object]] = [
            ("type", "fold"), ("title", f"Fold k{max(n.bit_length() - 1, 0)} from "
                                        f"{covered[0].date} to {covered[-1].date}, n={n}"),
            ("fold_id", fold_id), ("batch_exponent", max(n.bit_length() - 1, 0)),
            ("entry_count", n), ("range_from", str(covered[0].date)),
            ("range_to", str(covered[-1].date)), ("created", str(entry.date)),
            ("updated", str(entry.date)), ("tags", ["meta", "fold"]), ("status", "mature"),
            ("child_keys", keys), ("related", ["[[log]]", "[[index]]"])]
        lines = [*_front(items), "",
                 f"Level fold of {n} log entries spanning {covered[0].date} to "
                 f"{covered[-1].date}.", "", "## Child Entries", "",
                 "| Date | Op | Title | Page | Summary (extractive) |", "|---|---|---|---|---|"]
        pages = []
        for child in reversed(covered):
            name = vt.page_name(child.ref) if child.ref[0] != "lint" else "log"
            pages.append(name)
            lines.append(f"| {child.date} | {child.op} | {name.lstrip('@')} | [[{name}]] | "
                         f"{child.op} {name} |")
        lines += ["", "## Child Pages", ""]
        lines += [f"- [[{p}]]" for p in dict.fromkeys(pages)]
        lines += ["", "## Contradictions or Corrections", "", "- None detected", ""]
        return "\n".join(lines)

    def log(self) -> str:
        vt, rng = self.v, self.rng
        last = vt.entries[-1].date
        lines = [*_front([("type", "meta"), ("title", "Operation Log"), ("created", START),
                          ("updated", last), ("tags", ["meta", "log"]), ("status", "evergreen"),
                          ("related", ["[[index]]", "[[hot]]", "[[overview]]"])]),
                 "", "# Operation Log", "", "Navigation: [[index]] | [[hot]] | [[overview]]", "",
                 "Append-only. New entries go at the TOP.", "",
                 "Entry format: `## [YYYY-MM-DD] operation | Title`", "", "---", ""]
        for entry in reversed(vt.entries):
            kind, i = entry.ref
            if kind == "paper":
                p = vt.papers[i]
                fill = self._fill(p, [vt.concepts[k] for k in p.concepts])
                lines += [f"## [{entry.date}] ingest-paper | {p.system}",
                          f"- Source: `.raw/papers/{p.year}__{p.venue}__{p.system}.pdf`",
                          f"- Summary: [[{p.alias}]]",
                          f"- Pages updated: {_links([vt.concepts[k] for k in p.concepts[:3]])}",
                          "- Key insight: " + (rng.choice(v.JA_CLAIM) if p.lang == "ja" else
                                               rng.choice(v.EN_CLAIM)).format(**fill), ""]
            elif kind == "lint":
                lines += [f"## [{entry.date}] lint | 記述の訂正と補完 #{i + 1}",
                          f"- Pages updated: {_links(entry.updates)}",
                          "- Correction: 以前のエントリの数値は誤読だったため、ソースページに "
                          "`[!contradiction]` callout を追加し本文を訂正",
                          f"- Key insight: 誤読の割合は全体の {rng.randint(1, 9)}% 程度。 "
                          f"^{entry.block}", ""]
            elif kind == "setup":
                lines += [f"## [{entry.date}] tooling | vault setup",
                          "- Pages created: [[index]], [[hot]], [[overview]]",
                          "- Notes: 初期構成（log は追記専用、新しいエントリが上）", ""]
            elif kind == "fold":
                fold_id = vt.fold_id(i)
                lines += [f"## [{entry.date}] fold | {fold_id}",
                          f"- Pages created: [[{fold_id}]]", "- Pages updated: [[index]]",
                          f"- Key insight: {len(vt.folds[i][1])} エントリを抽出的にまとめた。",
                          ""]
            else:
                name = vt.page_name(entry.ref)
                lines += [f"## [{entry.date}] {entry.op} | {name}",
                          f"- Pages created: [[{name}]]", ""]
        return "\n".join(lines)

    def index(self) -> str:
        vt = self.v
        lines = [*_front([("type", "meta"), ("title", "Index"), ("created", START),
                          ("updated", vt.entries[-1].date), ("tags", ["meta", "index"])]),
                 "", "# Index", "", "## Organizations", ""]
        lines += [f"- [[{o}]]" for o in vt.orgs]
        lines += ["", "## Concepts", ""]
        lines += [f"- [[{c}]]" for c in vt.concepts]
        lines += ["", "## Recent sources", ""]
        lines += [f"- [[{p.alias}]]" for p in vt.papers[-50:]]
        return "\n".join(lines) + "\n"

    def hot(self) -> str:
        vt = self.v
        lines = [*_front([("type", "meta"), ("title", "Hot"), ("created", START),
                          ("updated", vt.entries[-1].date), ("tags", ["meta", "hot"])]),
                 "", "# Hot", "", "最近 ingest したソース:", ""]
        lines += [f"- [[{p.alias}]]" for p in vt.papers[-20:]]
        lines += ["", f"未 ingest: {vt.papers[-1].system} Extended, {vt.concepts[0]} の続報", ""]
        return "\n".join(lines)

    def overview(self) -> str:
        vt = self.v
        top = vt.concepts[:20]
        lines = [*_front([("type", "overview"), ("title", "Overview"), ("created", START),
                          ("updated", vt.entries[-1].date), ("tags", ["meta"])]),
                 "", "# Overview", ""]
        lines += [f"- [[{c}]]: {len(vt.concept_papers[i])} 本のソース。"
                  for i, c in enumerate(top)]
        lines += ["", f"![[{top[0]}#系譜]]", ""]
        return "\n".join(lines)

    def ledger(self) -> str:
        vt, rng = self.v, self.rng
        claims: list[dict[str, Any]] = []
        count = max(5, len(vt.papers) // 100)
        for n in range(count):
            p = vt.papers[(n * 7919) % len(vt.papers)]
            fill = self._fill(p, [vt.concepts[k] for k in p.concepts])
            contested = n % 5 == 3
            claims.append({
                "id": f"clm-{n:05d}-{p.system.lower()}",
                "claim": (rng.choice(v.JA_CLAIM) if p.lang == "ja" else
                          rng.choice(v.EN_CLAIM)).format(**fill),
                "subject": f"[[{p.alias}]]",
                "pages": [f"[[{p.alias}]]", f"[[{vt.concepts[p.concepts[0]]}]]"],
                "sources": [f"[[{p.alias}]]"],
                "assessment": "contested" if contested or n % 5 == 4 else
                rng.choice(("accepted", "provisional")),
                "contradicted_by": [f"clm-{n + 1:05d}"] if contested else []})
        for n, claim in enumerate(claims):
            if claim["contradicted_by"] and n + 1 < len(claims):
                claim["contradicted_by"] = [claims[n + 1]["id"]]
                claims[n + 1]["contradicted_by"] = [claim["id"]]
        data = {"schema": "llm-wiki.claim-ledger.fixture.v1",
                "generated_at": f"{vt.entries[-1].date}T09:00:00Z", "claims": claims}
        return json.dumps(data, ensure_ascii=False, indent=2) + "\n"


def render(pages: int, seed: int) -> dict[str, str]:
    """Every file of the vault: vault-relative path -> text, in a stable order."""
    vault = VaultPlan(pages, seed)
    r = Renderer(vault)
    files: dict[str, str] = {
        "wiki/log.md": r.log(), "wiki/index.md": r.index(), "wiki/hot.md": r.hot(),
        "wiki/overview.md": r.overview(), "wiki/meta/ledgers/claim-ledger.json": r.ledger()}
    for p in vault.papers:
        files[f"wiki/sources/{p.stem}.md"] = r.paper(p)
    for i, name in enumerate(vault.persons):
        files[f"wiki/entities/{name}.md"] = r.person(i)
    for i, name in enumerate(vault.orgs):
        files[f"wiki/entities/{name}.md"] = r.org(i)
    for i, name in enumerate(vault.products):
        files[f"wiki/entities/{name}.md"] = r.product(i)
    for i, name in enumerate(vault.concepts):
        files[f"wiki/concepts/{name}.md"] = r.concept(i)
    for i in range(len(vault.folds)):
        files[f"wiki/folds/{vault.fold_id(i)}.md"] = r.fold(i)
    return files
