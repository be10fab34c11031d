// Build the /ui/ pages into api/static/ui/ (committed, so installing the Python package needs
// no node): one minified ES module per page, plus the HTML and CSS copied as they are.
// `make ui` runs `npm ci && npm run build` here.
import { copyFileSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

import { build } from "esbuild";

const here = dirname(fileURLToPath(import.meta.url));
const out = join(here, "..", "api", "static", "ui");
const assets = join(out, "assets");

rmSync(out, { recursive: true, force: true });
mkdirSync(assets, { recursive: true });

const result = await build({
  entryPoints: { lineage: join(here, "src", "lineage.js"), fold: join(here, "src", "fold.js") },
  outdir: assets,
  bundle: true,
  format: "esm",
  minify: true,
  target: ["es2020"],
  legalComments: "eof",
  logLevel: "info",
  metafile: true,
});
copyFileSync(join(here, "src", "ui.css"), join(assets, "ui.css"));
for (const page of ["lineage.html", "fold.html"]) {
  copyFileSync(join(here, "src", page), join(out, page));
}

// The bundles contain third-party code: ship each package's licence next to them.
const packages = new Set();
for (const input of Object.keys(result.metafile.inputs)) {
  const m = /node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(input);
  if (m) packages.add(m[1]);
}
const notices = [...packages].sort().map((name) => {
  const dir = join(here, "node_modules", name);
  const meta = JSON.parse(readFileSync(join(dir, "package.json"), "utf8"));
  const file = ["LICENSE", "LICENSE.md", "LICENSE.txt"].map((f) => join(dir, f)).find(existsSync);
  const text = file ? readFileSync(file, "utf8").trim() : `license: ${meta.license}`;
  return `${name}@${meta.version} (${meta.license})\n\n${text}\n`;
});
writeFileSync(join(assets, "THIRD-PARTY-LICENSES.txt"),
  `Third-party code bundled into lineage.js and fold.js:\n\n${notices.join("\n---\n\n")}`);
