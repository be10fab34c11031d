// /ui/lineage?from=WORK[&direction=ANCESTORS|DESCENDANTS|BOTH][&depth=N]: the lineage of a work
// drawn with years on the x axis, edges styled by relation, provenance on hover. Data: the
// `lineage` field of /graphql. Tests read `window.vaultkg` and `body[data-state]`.

import { select } from "d3-selection";
import { zoom, zoomIdentity } from "d3-zoom";

import { params, query, setState } from "./graphql.js";
import { layout, NODE_H, NODE_W } from "./layout.js";
import { RELATIONS, relationStyle, shortName } from "./styles.js";
import { el, Tooltip } from "./tooltip.js";

const SVG_NS = "http://www.w3.org/2000/svg";
const WORK_KINDS = new Set(["PAPER", "SOURCE"]);
const PAGE_FIELDS = "key kind title aliases ... on Work { year venue { name } }";
const LINEAGE = `query Lineage($from: String!, $direction: LineageDirection!, $depth: Int!) {
  lineage(from: $from, direction: $direction, maxDepth: $depth) {
    truncated
    root { ${PAGE_FIELDS} linksTo { ${PAGE_FIELDS} } }
    nodes { depth side page { ${PAGE_FIELDS} } }
    edges { relation childKey parentKey
      provenance { pageKey line mechanism text introducedByKey logEntry { date op title } } }
  }
}`;
const WORKS = `query Works { works(first: 100, sort: {field: YEAR, direction: DESC}) {
  nodes { ${PAGE_FIELDS} buildsOn { parentKey } } } }`;
const DIAGRAM = `query Diagram($from: String!, $direction: LineageDirection!, $depth: Int!,
  $format: DiagramFormat!) {
  lineageDiagram(from: $from, direction: $direction, maxDepth: $depth, format: $format) }`;

const tooltip = new Tooltip();
window.vaultkg = { state: "loading" };

function link(href, text) {
  const a = el("a", null, text);
  a.href = href;
  return a;
}

function lineageHref(key, opts) {
  const q = new URLSearchParams({ from: key, direction: opts.direction, depth: opts.depth });
  return `?${q}`;
}

function svg(tag, attrs = {}) {
  const node = document.createElementNS(SVG_NS, tag);
  for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, v);
  return node;
}

/** Shorten an SVG text (with an ellipsis) until it fits `width`. */
function fitText(node, width) {
  let text = node.textContent;
  while (text.length > 4 && node.getComputedTextLength() > width) {
    text = text.slice(0, -2).trimEnd();
    node.textContent = `${text}…`;
  }
}

function subtitle(page) {
  const parts = [page.venue?.name, page.year].filter((x) => x !== null && x !== undefined);
  return parts.length ? parts.join(" · ") : page.kind.toLowerCase();
}

function routePath(route, startOffset, endOffset) {
  // child's left side -> straight through each column an edge crosses -> parent's right side
  const half = NODE_W / 2;
  const [c, ...rest] = route;
  let x = c.x - half;
  let y = c.y + startOffset;
  let d = `M${x},${y}`;
  rest.forEach((p, i) => {
    const last = i === rest.length - 1;
    const x1 = p.x + half + (last ? 2 : 0);
    const y1 = p.y + (last ? endOffset : 0);
    const mid = (x + x1) / 2;
    d += ` C${mid},${y} ${mid},${y1} ${x1},${y1}`;
    x = x1;
    y = y1;
    if (!last) {
      x = p.x - half;
      d += ` L${x},${y}`;
    }
  });
  return d;
}

/** Where each edge leaves its child and reaches its parent: spread over the node's side, in
 * the order of where the edges come from, so arrows do not pile up on one point. */
function ports(edges, routes) {
  const out = new Map();
  const into = new Map();
  edges.forEach((e, i) => {
    const r = routes[i];
    if (!r) return;
    out.set(e.childKey, [...(out.get(e.childKey) ?? []), { i, y: r[1].y }]);
    into.set(e.parentKey, [...(into.get(e.parentKey) ?? []), { i, y: r[r.length - 2].y }]);
  });
  const spread = (groups) => {
    const offsets = new Map();
    for (const list of groups.values()) {
      list.sort((a, b) => a.y - b.y || a.i - b.i);
      const span = Math.min(NODE_H - 16, (list.length - 1) * 9);
      list.forEach((item, j) => offsets.set(item.i,
        list.length === 1 ? 0 : -span / 2 + (j * span) / (list.length - 1)));
    }
    return offsets;
  };
  return { start: spread(out), end: spread(into) };
}

function arcPath(c, p, offset) {
  // the parent is not in an earlier column (same column, or dated later): an arc over the top
  if (c === p) {
    return `M${c.x - 20},${c.y - NODE_H / 2} C${c.x - 40},${c.y - NODE_H - 30} ` +
      `${c.x + 40},${c.y - NODE_H - 30} ${c.x + 20},${c.y - NODE_H / 2 - 2}`;
  }
  const y0 = c.y - NODE_H / 2;
  const y1 = p.y - NODE_H / 2 - 2;
  const lift = Math.min(c.y, p.y) - NODE_H / 2 - 36 - Math.abs(c.x - p.x) * 0.12 + offset;
  return `M${c.x + offset},${y0} C${c.x + offset},${lift} ${p.x + offset},${lift} ` +
    `${p.x + offset},${y1}`;
}

/** Wikilinks as Obsidian shows them: `[[target|shown]]` -> shown, `[[target]]` -> target. */
function readable(text) {
  return text.trim()
    .replace(/\[\[([^\]|]+)\|([^\]]+)\]\]/g, "$2")
    .replace(/\[\[([^\]]+)\]\]/g, (_, target) => target.replace(/^@\d{4}__[^_]+__/, ""));
}

function provenanceCard(edge, byKey) {
  const style = relationStyle(edge.relation);
  const child = byKey.get(edge.childKey);
  const parent = byKey.get(edge.parentKey);
  const head = el("div", "tip-head", el("b", null, shortName(child)), " ",
    el("span", "rel", style.label), " ", el("b", null, shortName(parent)));
  head.querySelector(".rel").style.color = style.color;
  const items = edge.provenance.map((p) => {
    const where = el("div", "prov-where",
      el("span", "prov-page", p.pageKey ?? "?"),
      p.line !== null ? ` line ${p.line}` : "",
      p.mechanism ? el("span", "badge", p.mechanism) : null);
    const entry = p.logEntry
      ? el("div", "prov-log", `log ${p.logEntry.date} · ${p.logEntry.op} · ${p.logEntry.title}`)
      : p.introducedByKey ? el("div", "prov-log", p.introducedByKey) : null;
    const text = p.text ? el("div", "prov-text", `“${readable(p.text)}”`) : null;
    return el("li", null, where, entry, text);
  });
  const count = edge.provenance.length;
  return [head, el("div", "tip-sub", `asserted ${count} time${count === 1 ? "" : "s"}`),
    el("ul", "prov", ...items)];
}

function nodeCard(node) {
  const p = node.page;
  return [el("div", "tip-head", el("b", null, p.title || p.key)),
    el("div", "tip-sub", `${p.kind.toLowerCase()} · ${subtitle(p)} · ${node.side.toLowerCase()}` +
      (node.depth ? ` (${node.depth} step${node.depth === 1 ? "" : "s"})` : "")),
    el("div", "prov-page", p.key),
    el("div", "tip-hint", "click: lineage of this work")];
}

function drawLegend(present) {
  const legend = document.getElementById("legend");
  legend.replaceChildren(...Object.entries(RELATIONS).map(([name, s]) => {
    const sample = svg("svg", { width: 36, height: 10, "aria-hidden": "true" });
    const line = svg("line", { x1: 1, y1: 5, x2: 35, y2: 5, stroke: s.color,
      "stroke-width": s.width });
    if (s.dash) line.setAttribute("stroke-dasharray", s.dash);
    sample.append(line);
    const item = el("span", present.has(name) ? "legend-item" : "legend-item absent", sample,
      s.label);
    item.title = present.has(name) ? name : `${name} (none in this lineage)`;
    return item;
  }));
}

function markers(defs) {
  for (const [name, s] of Object.entries(RELATIONS)) {
    const marker = svg("marker", { id: `arrow-${name}`, viewBox: "0 0 10 10", refX: 9, refY: 5,
      markerWidth: 7, markerHeight: 7, orient: "auto-start-reverse" });
    marker.append(svg("path", { d: "M0,0 L10,5 L0,10 z", fill: s.color }));
    defs.append(marker);
  }
}

function render(data, opts) {
  const { nodes, edges } = data;
  const byKey = new Map(nodes.map((n) => [n.page.key, n.page]));
  const nodeOf = new Map(nodes.map((n) => [n.page.key, n]));
  const placed = layout(
    nodes.map((n) => ({ key: n.page.key, year: n.page.year ?? null })),
    edges.map((e) => ({ child: e.childKey, parent: e.parentKey })));
  const root = document.getElementById("canvas");
  // a wide, flat lineage gets taller rows so it fills the window instead of shrinking
  const { columns } = placed;
  const wide = columns.length ? columns[columns.length - 1].x1 - columns[0].x0 : 1;
  const tall = placed.bottom - placed.top + NODE_H * 2;
  const fitScale = Math.min(1.25, (root.clientWidth - 48) / wide);
  const stretch = Math.max(1, Math.min(2.2,
    ((root.clientHeight - 120) / Math.max(fitScale, 0.2) - NODE_H * 2) / Math.max(tall, 1)));
  const tallen = (p) => ({ x: p.x, y: p.y * stretch });
  const positions = new Map([...placed.positions].map(([k, p]) => [k, tallen(p)]));
  const routes = placed.routes.map((r) => (r ? r.map(tallen) : null));
  const upper = placed.top * stretch - (stretch - 1) * NODE_H / 2;
  const bottom = placed.bottom * stretch + (stretch - 1) * NODE_H / 2;

  root.replaceChildren();
  const box = svg("svg", { id: "graph", role: "img",
    "aria-label": `lineage of ${data.root.title || data.root.key}` });
  root.append(box);
  const defs = svg("defs");
  markers(defs);
  box.append(defs);
  const view = svg("g", { class: "viewport" });
  box.append(view);

  // the year axis: a band per year and a labelled tick on a line above the works
  const top = upper - 44;
  const axis = svg("g", { class: "axis" });
  columns.forEach((c, i) => {
    axis.append(svg("rect", { class: i % 2 ? "band odd" : "band", x: c.x0, y: top,
      width: c.x1 - c.x0, height: bottom + 24 - top }));
    const mid = (c.x0 + c.x1) / 2;
    axis.append(svg("line", { class: "tick", x1: mid, x2: mid, y1: top, y2: top + 8 }));
    const label = svg("text", { class: "year", x: mid, y: top - 8 });
    label.textContent = c.year === null ? "undated" : String(c.year);
    axis.append(label);
  });
  if (columns.length) {
    axis.append(svg("line", { class: "axis-line", x1: columns[0].x0,
      x2: columns[columns.length - 1].x1, y1: top, y2: top }));
  }
  view.append(axis);

  // edges: several relations between one pair fan out a little
  const pairs = new Map();
  edges.forEach((e, index) => {
    const k = `${e.childKey}\u0000${e.parentKey}`;
    pairs.set(k, [...(pairs.get(k) ?? []), { e, index, route: routes[index] }]);
  });
  const port = ports(edges, routes);
  const edgeLayer = svg("g", { class: "edges" });
  const nodeLayer = svg("g", { class: "nodes" });
  view.append(edgeLayer, nodeLayer); // in the document now, so text can be measured
  const edgeNodes = [];
  for (const group of pairs.values()) {
    group.forEach(({ e, index, route }, i) => {
      const c = positions.get(e.childKey);
      const p = positions.get(e.parentKey);
      if (!c || !p) return;
      const s = relationStyle(e.relation);
      const offset = (i - (group.length - 1) / 2) * 7;
      const d = route ? routePath(route, port.start.get(index), port.end.get(index))
        : arcPath(c, p, offset);
      const g = svg("g", { class: "edge", "data-relation": e.relation,
        "data-child": e.childKey, "data-parent": e.parentKey });
      const line = svg("path", { class: "line", d, stroke: s.color, "stroke-width": s.width,
        fill: "none" });
      if (s.dash) line.setAttribute("stroke-dasharray", s.dash);
      if (!s.noArrow) line.setAttribute("marker-end", `url(#arrow-${e.relation})`);
      const hit = svg("path", { class: "hit", d });
      g.append(line, hit);
      g.addEventListener("mouseenter", (ev) => {
        g.classList.add("hover");
        tooltip.show(ev, ...provenanceCard(e, byKey));
      });
      g.addEventListener("mousemove", (ev) => tooltip.move(ev));
      g.addEventListener("mouseleave", () => {
        g.classList.remove("hover");
        tooltip.hide();
      });
      edgeLayer.append(g);
      edgeNodes.push(g);
    });
  }

  for (const n of nodes) {
    const pos = positions.get(n.page.key);
    const g = svg("g", { class: `node ${n.side.toLowerCase()}`, "data-key": n.page.key,
      transform: `translate(${pos.x},${pos.y})`, tabindex: 0 });
    g.append(svg("rect", { x: -NODE_W / 2, y: -NODE_H / 2, width: NODE_W, height: NODE_H,
      rx: 9 }));
    const name = svg("text", { class: "name", y: -2 });
    name.textContent = shortName(n.page, 20);
    const sub = svg("text", { class: "sub", y: 15 });
    sub.textContent = subtitle(n.page);
    g.append(name, sub);
    nodeLayer.append(g);
    fitText(name, NODE_W - 14);
    fitText(sub, NODE_W - 14);
    const touching = edgeNodes.filter((x) =>
      x.dataset.child === n.page.key || x.dataset.parent === n.page.key);
    g.addEventListener("mouseenter", (ev) => {
      touching.forEach((x) => x.classList.add("near"));
      box.classList.add("focus");
      tooltip.show(ev, ...nodeCard(n));
    });
    g.addEventListener("mousemove", (ev) => tooltip.move(ev));
    g.addEventListener("mouseleave", () => {
      touching.forEach((x) => x.classList.remove("near"));
      box.classList.remove("focus");
      tooltip.hide();
    });
    const go = () => {
      if (n.side !== "ROOT") window.location.search = lineageHref(n.page.key, opts);
    };
    g.addEventListener("click", go);
    g.addEventListener("keydown", (ev) => {
      if (ev.key === "Enter") go();
    });
  }

  // pan and zoom, starting fitted to the window
  const zoomer = zoom().scaleExtent([0.2, 3]).on("zoom", (ev) => {
    view.setAttribute("transform", ev.transform.toString());
  });
  const fit = () => {
    const b = view.getBBox();
    const w = box.clientWidth;
    const h = box.clientHeight;
    const scale = Math.min(1.25, (w - 48) / b.width, (h - 48) / b.height);
    const t = zoomIdentity.translate(w / 2 - scale * (b.x + b.width / 2),
      h / 2 - scale * (b.y + b.height / 2)).scale(scale);
    select(box).call(zoomer.transform, t);
  };
  select(box).call(zoomer).on("dblclick.zoom", null);
  fit();
  document.getElementById("fit").onclick = fit;
  window.addEventListener("resize", fit);

  drawLegend(new Set(edges.map((e) => e.relation)));
  window.vaultkg = {
    state: "ready",
    root: data.root.key,
    nodes: nodes.map((n) => ({ key: n.page.key, label: shortName(n.page, 20), year: n.page.year,
      side: n.side })),
    edges: edges.map((e) => ({ child: e.childKey, parent: e.parentKey,
      relation: e.relation, provenance: e.provenance.length })),
  };
}

function header(data, opts, note) {
  const title = document.getElementById("title");
  title.replaceChildren(`Lineage of ${shortName(data.root, 60)}`);
  const info = document.getElementById("info");
  const works = data.nodes.length - 1;
  const years = data.nodes.map((n) => n.page.year).filter((y) => y !== null && y !== undefined);
  const span = years.length ? ` · ${Math.min(...years)}–${Math.max(...years)}` : "";
  info.replaceChildren(
    el("span", "full-title", data.root.title || data.root.key),
    el("span", "counts", `${works} related work${works === 1 ? "" : "s"} · ` +
      `${data.edges.length} edge${data.edges.length === 1 ? "" : "s"}${span}` +
      (data.truncated ? " · cut at maxDepth" : "")),
    note ?? "");
  document.title = `Lineage of ${shortName(data.root, 60)} · vaultkg`;
}

async function showDiagram(format, opts) {
  const panel = document.getElementById("diagram");
  const pre = panel.querySelector("pre");
  pre.textContent = "…";
  panel.hidden = false;
  try {
    const data = await query(DIAGRAM, { from: opts.from, direction: opts.direction,
      depth: Number(opts.depth), format });
    pre.textContent = data.lineageDiagram;
    panel.querySelector("h2").textContent = format === "DOT" ? "Graphviz DOT" : "Mermaid";
  } catch (error) {
    pre.textContent = `error: ${error.message}`;
  }
}

async function listWorks(opts) {
  const data = await query(WORKS);
  const withLineage = data.works.nodes.filter((w) => w.buildsOn.length);
  document.getElementById("title").replaceChildren("Lineage");
  const list = el("ul", "work-list", ...withLineage.map((w) =>
    el("li", null, link(lineageHref(w.key, opts), shortName(w, 48)), ` ${subtitle(w)}`)));
  document.getElementById("canvas").replaceChildren(
    el("div", "empty", el("p", null, "Pick a work (works that build on others):"), list));
  setState("ready-empty");
  window.vaultkg = { state: "ready-empty", nodes: [], edges: [] };
}

async function main() {
  const opts = params({ from: "", direction: "BOTH", depth: "10" });
  opts.direction = opts.direction.toUpperCase();
  const form = document.getElementById("controls");
  form.elements.from.value = opts.from;
  form.elements.direction.value = opts.direction;
  form.elements.depth.value = opts.depth;
  document.getElementById("mermaid").onclick = () => showDiagram("MERMAID", opts);
  document.getElementById("dot").onclick = () => showDiagram("DOT", opts);
  document.getElementById("close-diagram").onclick = () => {
    document.getElementById("diagram").hidden = true;
  };
  setState("loading", "loading…");
  try {
    if (!opts.from) {
      await listWorks(opts);
      return;
    }
    const vars = { from: opts.from, direction: opts.direction, depth: Number(opts.depth) };
    let data = (await query(LINEAGE, vars)).lineage;
    let note = null;
    if (!WORK_KINDS.has(data.root.kind) && data.edges.length === 0) {
      // a product or person page has no lineage; the work(s) it names do
      const works = data.root.linksTo.filter((p) => WORK_KINDS.has(p.kind));
      if (works.length === 1) {
        const asked = data.root;
        data = (await query(LINEAGE, { ...vars, from: works[0].key })).lineage;
        opts.from = works[0].key;
        note = el("span", "note", `“${asked.title || asked.key}” is a ${asked.kind.toLowerCase()} ` +
          "page; showing the work it names.");
      } else if (works.length > 1) {
        note = el("span", "note", "This page has no lineage; the works it names: ",
          ...works.flatMap((w, i) => [i ? ", " : "", link(lineageHref(w.key, opts),
            shortName(w))]));
      }
    }
    header(data, opts, note);
    render(data, opts);
    setState("ready");
  } catch (error) {
    window.vaultkg = { state: "error", error: error.message, code: error.code };
    setState("error", error.code === "NOT_FOUND" ? error.message : `error: ${error.message}`);
  }
}

main();
