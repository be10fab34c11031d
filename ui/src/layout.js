// Lineage layout with time on the x axis (a layered "Sugiyama" layout whose layers are fixed
// by year): one column per year (undated works last) and, inside a year, works that build on
// same-year works one sub-column further right. Edges that skip columns get a slot (a dummy)
// in every column they cross, so they run between works, never through them. Rows come from
// barycenter sweeps (fewer crossings) and a least-squares straightening of the edges. Pure
// and deterministic: same input, same picture.

export const NODE_W = 176;
export const NODE_H = 46;
const SUB_W = NODE_W + 46; // the distance between two sub-columns of one year
const YEAR_GAP = 84; // between the last sub-column of a year and the next year
const NODE_SLOT = NODE_H + 40; // vertical room of a work
const DUMMY_SLOT = 24; // vertical room of an edge passing through a column

function sortYears(years) {
  return years.sort((a, b) => (a === null ? 1 : b === null ? -1 : a - b));
}

/** Sub-column of each work: the longest chain of same-year parents. Only edges to a parent
 * listed earlier count (the server lists parents first and breaks cycles by key), so a cycle
 * cannot stretch a year. */
function subColumns(nodes, edges, yearOf) {
  const index = new Map(nodes.map((n, i) => [n.key, i]));
  const parents = new Map(nodes.map((n) => [n.key, []]));
  for (const e of edges) {
    if (index.has(e.child) && index.has(e.parent) && index.get(e.parent) < index.get(e.child) &&
        yearOf.get(e.child) === yearOf.get(e.parent)) {
      parents.get(e.child).push(e.parent);
    }
  }
  const sub = new Map();
  for (const n of nodes) {
    sub.set(n.key, Math.max(0, ...parents.get(n.key).map((p) => sub.get(p) + 1)));
  }
  return sub;
}

/** Pool-adjacent-violators: the non-decreasing sequence closest to `z` (least squares). */
function isotonic(z) {
  const blocks = [];
  for (const v of z) {
    blocks.push({ sum: v, n: 1 });
    while (blocks.length > 1) {
      const b = blocks[blocks.length - 1];
      const a = blocks[blocks.length - 2];
      if (a.sum / a.n <= b.sum / b.n) break;
      blocks.pop();
      a.sum += b.sum;
      a.n += b.n;
    }
  }
  return blocks.flatMap((b) => Array(b.n).fill(b.sum / b.n));
}

/**
 * nodes: [{key, year}] (server order: by year, parents first); edges: [{child, parent}].
 * Returns {positions: Map(key -> {x, y}), routes: [[{x, y}, ...] | null] per edge (child
 * first; null when the parent is not in an earlier column: drawn as an arc), columns:
 * [{year, x0, x1}], top, bottom}.
 */
export function layout(nodes, edges) {
  const yearOf = new Map(nodes.map((n) => [n.key, n.year ?? null]));
  const years = sortYears([...new Set(yearOf.values())]);
  const sub = subColumns(nodes, edges, yearOf);

  // layers (one per sub-column of each year) and their x
  const layerIndex = new Map();
  const layerX = [];
  const columns = [];
  let x = 0;
  for (const year of years) {
    const width = Math.max(...nodes.filter((n) => yearOf.get(n.key) === year)
      .map((n) => sub.get(n.key)));
    for (let s = 0; s <= width; s += 1) {
      layerIndex.set(`${year}/${s}`, layerX.length);
      layerX.push(x + s * SUB_W + NODE_W / 2);
    }
    columns.push({ year, x0: x - YEAR_GAP / 2, x1: x + width * SUB_W + NODE_W + YEAR_GAP / 2 });
    x += width * SUB_W + NODE_W + YEAR_GAP;
  }
  const layerOf = new Map(nodes.map((n) => [n.key, layerIndex.get(`${yearOf.get(n.key)}/${sub.get(n.key)}`)]));

  // items: works and dummies; links join items of adjacent layers
  const items = new Map(nodes.map((n) => [n.key, { id: n.key, layer: layerOf.get(n.key), real: true }]));
  const layers = layerX.map(() => []);
  for (const n of nodes) layers[layerOf.get(n.key)].push(n.key);
  const links = new Map([...items.keys()].map((k) => [k, []]));
  const chains = edges.map((e, i) => {
    if (!items.has(e.child) || !items.has(e.parent) || e.child === e.parent) return null;
    const lc = layerOf.get(e.child);
    const lp = layerOf.get(e.parent);
    if (lc <= lp) return null;
    const chain = [e.child];
    for (let l = lc - 1; l > lp; l -= 1) {
      const id = `\u0000${i}/${l}`;
      items.set(id, { id, layer: l, real: false });
      layers[l].push(id);
      links.set(id, []);
      chain.push(id);
    }
    chain.push(e.parent);
    for (let j = 1; j < chain.length; j += 1) {
      links.get(chain[j - 1]).push(chain[j]);
      links.get(chain[j]).push(chain[j - 1]);
    }
    return chain;
  });

  // order within layers: barycenter sweeps right-to-left and back
  const pos = new Map();
  const number = (layer) => layer.forEach((id, i) => pos.set(id, i - (layer.length - 1) / 2));
  layers.forEach(number);
  const sweep = (from, to, step) => {
    for (let l = from; l !== to; l += step) {
      const layer = layers[l];
      const score = new Map(layer.map((id) => {
        const ns = links.get(id).filter((m) => items.get(m).layer === l - step);
        return [id, ns.length ? ns.reduce((s, m) => s + pos.get(m), 0) / ns.length : pos.get(id)];
      }));
      layer.sort((a, b) => score.get(a) - score.get(b) || pos.get(a) - pos.get(b));
      number(layer);
    }
  };
  for (let round = 0; round < 6; round += 1) {
    sweep(1, layers.length, 1);
    sweep(layers.length - 2, -1, -1);
  }

  // rows: start stacked, then pull every item toward its neighbours (keeping order and gaps)
  const slot = (id) => (items.get(id).real ? NODE_SLOT : DUMMY_SLOT);
  const y = new Map();
  for (const layer of layers) {
    let at = -layer.reduce((s, id) => s + slot(id), 0) / 2;
    for (const id of layer) {
      y.set(id, at + slot(id) / 2);
      at += slot(id);
    }
  }
  for (let round = 0; round < 24; round += 1) {
    const order = round % 2 ? [...layers].reverse() : layers;
    for (const layer of order) {
      const want = layer.map((id) => {
        const ns = links.get(id);
        const mean = ns.length ? ns.reduce((s, m) => s + y.get(m), 0) / ns.length : y.get(id);
        return items.get(id).real ? mean * 0.7 + y.get(id) * 0.3 : mean;
      });
      const offset = [];
      let acc = 0;
      layer.forEach((id, i) => {
        if (i) acc += (slot(layer[i - 1]) + slot(id)) / 2;
        offset.push(acc);
      });
      const fitted = isotonic(want.map((w, i) => w - offset[i]));
      layer.forEach((id, i) => y.set(id, fitted[i] + offset[i]));
    }
  }
  const ys = [...y.values()];
  const mid = (Math.min(...ys) + Math.max(...ys)) / 2;

  const at = (id) => ({ x: layerX[items.get(id).layer], y: y.get(id) - mid });
  const positions = new Map(nodes.map((n) => [n.key, at(n.key)]));
  const routes = chains.map((chain) => (chain ? chain.map(at) : null));
  const realYs = [...positions.values()].map((p) => p.y);
  return {
    positions, routes, columns,
    top: Math.min(...realYs, ...ys.map((v) => v - mid)) - NODE_H / 2,
    bottom: Math.max(...realYs, ...ys.map((v) => v - mid)) + NODE_H / 2,
  };
}
