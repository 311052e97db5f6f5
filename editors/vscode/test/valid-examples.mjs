// Tokenizes every valid .wf file of the repository (examples/ and
// tests/check/clean/) with the TextMate grammar and fails if any token is
// scoped `invalid.*`: the grammar must never flag correct code.
// Run by `npm test` (after the assertion tests of test/grammar/).

import { spawnSync } from "node:child_process";
import { copyFileSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";

const here = path.dirname(fileURLToPath(import.meta.url));
const extension = path.resolve(here, "..");
const repo = path.resolve(extension, "..", "..");

function wfFiles(dir) {
  let out = [];
  for (const name of readdirSync(dir)) {
    const full = path.join(dir, name);
    if (statSync(full).isDirectory()) {
      out = out.concat(wfFiles(full));
    } else if (name.endsWith(".wf")) {
      out.push(full);
    }
  }
  return out;
}

const files = ["examples", "tests/check/clean"].flatMap((d) => wfFiles(path.join(repo, d)));
if (files.length < 5) {
  console.error(`valid-examples: found only ${files.length} .wf files under examples/ and tests/check/clean/`);
  process.exit(1);
}

const work = mkdtempSync(path.join(tmpdir(), "wfc-tm-"));
try {
  const copies = new Map();
  files.forEach((file, i) => {
    const copy = path.join(work, `${i}.wf`);
    copyFileSync(file, copy);
    copies.set(copy, path.relative(repo, file));
  });
  const snap = path.join(extension, "node_modules", ".bin", "vscode-tmgrammar-snap");
  const result = spawnSync(snap, ["--updateSnapshot", path.join(work, "*.wf")], { cwd: extension, encoding: "utf8" });
  if (result.status !== 0) {
    console.error(result.stdout, result.stderr);
    process.exit(1);
  }
  let problems = 0;
  for (const [copy, original] of copies) {
    let source = "";
    let line = 0;
    for (const row of readFileSync(`${copy}.snap`, "utf8").split("\n")) {
      if (row.startsWith(">")) {
        source = row.slice(1);
        line += 1;
      } else if (row.startsWith("#") && /\binvalid\./.test(row)) {
        const start = row.indexOf("^") - 1;
        const end = row.lastIndexOf("^");
        const scopes = row.slice(end + 1).trim();
        console.error(`${original}:${line}:${start + 1}: ${JSON.stringify(source.slice(start, end))} is ${scopes}`);
        problems += 1;
      }
    }
  }
  if (problems > 0) {
    console.error(`valid-examples: ${problems} token(s) of valid files marked invalid`);
    process.exit(1);
  }
  console.log(`valid-examples: ${files.length} valid files, no token marked invalid`);
} finally {
  rmSync(work, { recursive: true, force: true });
}
