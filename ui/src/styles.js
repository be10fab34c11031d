// One look per lineage relation; mirrors STYLES in queries/lineage_render.py (Mermaid/DOT).

export const RELATIONS = {
  BUILDS_ON: { label: "builds on", color: "#1f4e79", dash: null, width: 1.6 },
  EXTENDS: { label: "extends", color: "#1b7f3b", dash: null, width: 2.6 },
  SUPERSEDES: { label: "supersedes", color: "#b42318", dash: null, width: 2.6 },
  IMPROVES_ON: { label: "improves on", color: "#c2620a", dash: "10 3 2 3", width: 1.8 },
  BASED_ON: { label: "based on", color: "#6941c6", dash: "2 3", width: 1.8 },
  COMPARES_WITH: { label: "compares with", color: "#667085", dash: "7 5", width: 1.6, noArrow: true },
};

export const FALLBACK = RELATIONS.BUILDS_ON;

export function relationStyle(relation) {
  return RELATIONS[relation] ?? FALLBACK;
}

const SOURCE_ALIAS = /^@\d{4}__[^_]+__(.+)$/;

/** The short name shown on a node (same rule as short_name in lineage_render.py). */
export function shortName(page, max = 24) {
  let name = null;
  for (const alias of page.aliases ?? []) {
    const m = SOURCE_ALIAS.exec(alias);
    if (m) {
      name = m[1];
      break;
    }
  }
  if (name === null) {
    const title = page.title || page.key;
    const head = title.split(":")[0].trim();
    name = head && head.length <= 32 ? head : title;
  }
  name = name.replace(/\s+/g, " ").trim();
  return name.length <= max ? name : `${name.slice(0, max - 1).trimEnd()}…`;
}
