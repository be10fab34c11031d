// /ui/fold?from=YYYY-MM-DD&to=YYYY-MM-DD: a fold drawn as a timeline of its log entries
// (columns, grouped by day, coloured by op) over a matrix of its themes (a row per concept, a
// mark where an entry supports it) and the contradictions that bear on its entries. Without a
// range: the fold pages of the vault. Data: `fold` and `foldsByLevel` of /graphql.

import { params, query, setState } from "./graphql.js";
import { el, Tooltip } from "./tooltip.js";

const SVG_NS = "http://www.w3.org/2000/svg";
const FOLD = `query Fold($from: Date!, $to: Date!) { fold(from: $from, to: $to) {
  foldId title level entryCount rangeFrom rangeTo knowledgeDate
  children { childKey entryKey date op title summary about pages { key link state } }
  themes { concept support } dominantThemes
  contradictions { id kind status origin summary subject timing date affects } } }`;
const FOLDS = `query Folds { foldsByLevel { key foldId level entryCount rangeFrom rangeTo } }`;

const OPS = {
  "ingest-paper": "#1f4e79",
  "ingest-slides": "#0e9384",
  "ingest-source": "#0e9384",
  lint: "#c2620a",
  query: "#6941c6",
  fold: "#667085",
  tooling: "#98a2b3",
};
const COL_W = 46;
const ROW_H = 26;
const LEFT = 230;
const TOP = 190;

const tooltip = new Tooltip();
window.vaultkg = { state: "loading" };

function svg(tag, attrs = {}, text = null) {
  const node = document.createElementNS(SVG_NS, tag);
  for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, v);
  if (text !== null) node.textContent = text;
  return node;
}

function short(text, max) {
  const t = text.replace(/\s+/g, " ").trim();
  return t.length <= max ? t : `${t.slice(0, max - 1)}…`;
}

function hover(node, card) {
  node.addEventListener("mouseenter", (ev) => tooltip.show(ev, ...card()));
  node.addEventListener("mousemove", (ev) => tooltip.move(ev));
  node.addEventListener("mouseleave", () => tooltip.hide());
}

function entryCard(c, themes) {
  const pages = c.pages.map((p) => p.key + (p.state === "missing" ? " (missing)" : ""));
  return [
    el("div", "tip-head", el("b", null, c.title)),
    el("div", "tip-sub", `${c.date} · ${c.op} · ${c.childKey} (${c.entryKey})`),
    c.summary ? el("div", "prov-text", c.summary) : null,
    pages.length ? el("div", "prov-log", `pages: ${pages.join(", ")}`) : null,
    themes.length ? el("div", "prov-log", `themes: ${themes.join(", ")}`) : null,
  ];
}

function contradictionCard(x) {
  return [
    el("div", "tip-head", el("b", null, x.summary || x.id)),
    el("div", "tip-sub", `${x.kind} · ${x.origin} · ${x.status} · known ${x.date ?? "?"} ` +
      `(${x.timing})`),
    x.subject ? el("div", "prov-page", x.subject) : null,
    el("div", "prov-log", `bears on ${x.affects.join(", ")}`),
  ];
}

function draw(fold) {
  const children = fold.children;
  const index = new Map(children.map((c, i) => [c.childKey, i]));
  const dominant = new Set(fold.dominantThemes);
  const themes = [...fold.themes].sort((a, b) =>
    Number(dominant.has(b.concept)) - Number(dominant.has(a.concept)) ||
    b.support.length - a.support.length || a.concept.localeCompare(b.concept));
  const themesOf = new Map(children.map((c) => [c.childKey, []]));
  for (const t of themes) for (const k of t.support) themesOf.get(k)?.push(t.concept);
  const contras = fold.contradictions.filter((x) => x.affects.some((k) => index.has(k)));

  const width = LEFT + children.length * COL_W + 150; // room for the slanted titles
  const rows = themes.length + (contras.length ? 2 : 0);
  const height = TOP + 40 + rows * ROW_H + 30;
  const box = svg("svg", { class: "fold-grid", width, height, role: "img",
    "aria-label": `fold ${fold.foldId}` });
  const x = (i) => LEFT + i * COL_W + COL_W / 2;

  // day groups along the top, with a rule between days
  let start = 0;
  children.forEach((c, i) => {
    const last = i === children.length - 1 || children[i + 1].date !== c.date;
    if (!last) return;
    const mid = (x(start) + x(i)) / 2;
    box.append(svg("text", { class: "date-label", x: mid, y: 22, "text-anchor": "middle" },
      `${c.date} (${i - start + 1})`));
    if (i < children.length - 1) {
      box.append(svg("line", { class: "day-rule", x1: x(i) + COL_W / 2, x2: x(i) + COL_W / 2,
        y1: 30, y2: height - 10 }));
    }
    start = i + 1;
  });

  // theme rows
  const rowY = (r) => TOP + 40 + r * ROW_H;
  themes.forEach((t, r) => {
    box.append(svg("rect", { class: `theme-row${r % 2 ? " odd" : ""}` +
      (dominant.has(t.concept) ? " dominant" : ""), x: LEFT - 6, y: rowY(r) - ROW_H / 2,
      width: children.length * COL_W + 12, height: ROW_H }));
    const label = svg("text", { class: "theme-label", x: LEFT - 14, y: rowY(r) + 4 },
      short(t.concept, 22) + (dominant.has(t.concept) ? " ★" : ""));
    hover(label, () => [el("div", "tip-head", el("b", null, t.concept)),
      el("div", "tip-sub", `${dominant.has(t.concept) ? "dominant theme · " : ""}` +
        `${t.support.length} entries`),
      el("div", "prov-log", t.support.join(", "))]);
    box.append(label);
    for (const k of t.support) {
      if (!index.has(k)) continue;
      const cell = svg("rect", { class: "cell", x: x(index.get(k)) - 9, y: rowY(r) - 8,
        width: 18, height: 16, rx: 4 });
      const c = children[index.get(k)];
      hover(cell, () => [el("div", "tip-head", el("b", null, t.concept)),
        el("div", "tip-sub", `${c.date} · ${c.title}`)]);
      box.append(cell);
    }
  });

  // contradictions row
  if (contras.length) {
    const r = themes.length + 0.6;
    box.append(svg("text", { class: "theme-label", x: LEFT - 14, y: rowY(r) + 4 },
      "contradictions"));
    const count = new Map();
    for (const c of contras) for (const k of c.affects) count.set(k, (count.get(k) ?? 0) + 1);
    const seen = new Map();
    for (const c of contras) {
      for (const k of c.affects) {
        if (!index.has(k)) continue;
        const n = seen.get(k) ?? 0;
        seen.set(k, n + 1);
        const cx = x(index.get(k)) + (n - (count.get(k) - 1) / 2) * 11;
        const mark = svg("path", { class: "contra", d: `M${cx},${rowY(r) - 7} l6,11 h-12 z` });
        hover(mark, () => contradictionCard(c));
        box.append(mark);
      }
    }
  }

  // entry columns: a dot coloured by op and the entry title, slanted
  box.append(svg("line", { class: "rule", x1: LEFT - 6, x2: LEFT + children.length * COL_W + 6,
    y1: TOP, y2: TOP }));
  children.forEach((c, i) => {
    const g = svg("g", { class: "entry-col", "data-child": c.childKey });
    g.append(svg("rect", { x: x(i) - COL_W / 2, y: 30, width: COL_W, height: height - 40,
      fill: "transparent" }));
    g.append(svg("circle", { class: "entry-dot", cx: x(i), cy: TOP, r: 8,
      fill: OPS[c.op] ?? "#475467" }));
    g.append(svg("text", { class: "entry-label", x: x(i) + 4, y: TOP - 16,
      transform: `rotate(-48 ${x(i) + 4} ${TOP - 16})` }, short(c.title, 24)));
    hover(g, () => entryCard(c, themesOf.get(c.childKey)));
    box.append(g);
  });
  box.append(svg("text", { class: "theme-label", x: LEFT - 14, y: TOP + 4 }, "log entries"));
  box.append(svg("text", { class: "theme-label", x: LEFT - 14, y: TOP + 26 }, "themes ↓"));

  const wrap = document.getElementById("canvas");
  wrap.replaceChildren(box);
  const legend = document.getElementById("legend");
  const ops = [...new Set(children.map((c) => c.op))];
  legend.replaceChildren(...ops.map((op) => {
    const dot = svg("svg", { width: 12, height: 12 });
    dot.append(svg("circle", { cx: 6, cy: 6, r: 5, fill: OPS[op] ?? "#475467" }));
    return el("span", "legend-item", dot, op);
  }), el("span", "legend-item", "★ dominant theme"),
  contras.length ? el("span", "legend-item", "▲ contradiction bearing on an entry") : null);
}

function header(fold) {
  document.getElementById("title").replaceChildren(fold.title);
  document.getElementById("info").replaceChildren(
    el("span", "full-title", fold.foldId),
    el("span", "counts", `level ${fold.level} · ${fold.entryCount} entries · ` +
      `${fold.themes.length} themes · ${fold.contradictions.length} contradictions · ` +
      `knowledge as of ${fold.knowledgeDate}`));
  document.title = `${fold.title} · vaultkg`;
}

async function listFolds() {
  const data = await query(FOLDS);
  document.getElementById("title").replaceChildren("Folds");
  const items = data.foldsByLevel.map((f) => {
    const a = el("a", null, f.foldId ?? f.key);
    a.href = `?${new URLSearchParams({ from: f.rangeFrom, to: f.rangeTo })}`;
    return el("li", null, a, ` level ${f.level} · ${f.entryCount} entries`);
  });
  document.getElementById("canvas").replaceChildren(el("div", "empty",
    el("p", null, items.length ? "Fold pages of this vault:" :
      "No fold pages yet; give a range: ?from=YYYY-MM-DD&to=YYYY-MM-DD"),
    el("ul", "fold-list", ...items)));
  window.vaultkg = { state: "ready-empty", folds: data.foldsByLevel.map((f) => f.foldId) };
  setState("ready-empty");
}

async function main() {
  const opts = params({ from: "", to: "" });
  const form = document.getElementById("controls");
  form.elements.from.value = opts.from;
  form.elements.to.value = opts.to;
  setState("loading", "loading…");
  try {
    if (!opts.from || !opts.to) {
      await listFolds();
      return;
    }
    const fold = (await query(FOLD, { from: opts.from, to: opts.to })).fold;
    header(fold);
    draw(fold);
    window.vaultkg = { state: "ready", foldId: fold.foldId,
      entries: fold.children.map((c) => c.childKey), themes: fold.themes.map((t) => t.concept) };
    setState("ready");
  } catch (error) {
    window.vaultkg = { state: "error", error: error.message, code: error.code };
    setState("error", `error: ${error.message}`);
  }
}

main();
