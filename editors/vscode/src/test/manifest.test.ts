// Consistency of package.json with the code and the files it names, and
// the document selector: `npm run test:unit`.

import assert from "node:assert/strict";
import { existsSync, readFileSync, readdirSync } from "node:fs";
import * as path from "node:path";
import { describe, it } from "node:test";

import { documentSelector } from "../selector";

// Tests run from out/test/; the extension's directory is two levels up.
const root = path.resolve(__dirname, "..", "..");
const manifest = JSON.parse(readFileSync(path.join(root, "package.json"), "utf8"));
const sources = readdirSync(path.join(root, "src"))
  .filter((f) => f.endsWith(".ts"))
  .map((f) => readFileSync(path.join(root, "src", f), "utf8"))
  .join("\n");

describe("package.json", () => {
  it("registers every contributed command in the code, and no other", () => {
    const declared = manifest.contributes.commands.map((c: { command: string }) => c.command).sort();
    const registered = [...sources.matchAll(/registerCommand\("([^"]+)"/g)].map((m) => m[1]).sort();
    assert.deepEqual(registered, declared);
  });

  it("declares every wfc.* setting the code reads", () => {
    const declared = Object.keys(manifest.contributes.configuration.properties);
    const read = [...sources.matchAll(/\.get<[^>]+>\("([^"]+)"/g)].map((m) => `wfc.${m[1]}`);
    assert.ok(read.length >= 3, `found only ${read.length} settings read`);
    for (const key of read) {
      assert.ok(declared.includes(key), `${key} is read but not declared`);
    }
    // The client reads this one itself (its id is "wfc").
    assert.ok(declared.includes("wfc.trace.server"));
    assert.equal(manifest.contributes.configuration.properties["wfc.attractor.enable"].default, false);
  });

  it("points at files that exist, with matching scope names", () => {
    const language = manifest.contributes.languages[0];
    assert.deepEqual(language.extensions, [".wf"]);
    assert.ok(existsSync(path.join(root, language.configuration)));
    const grammar = manifest.contributes.grammars[0];
    const tm = JSON.parse(readFileSync(path.join(root, grammar.path), "utf8"));
    assert.equal(tm.scopeName, grammar.scopeName);
    assert.equal(grammar.language, language.id);
    JSON.parse(readFileSync(path.join(root, language.configuration), "utf8"));
  });

  it("resolves every #include of the TextMate grammar", () => {
    const tm = JSON.parse(readFileSync(path.join(root, manifest.contributes.grammars[0].path), "utf8"));
    const includes = [...JSON.stringify(tm).matchAll(/"include":"#([^"]+)"/g)].map((m) => m[1]);
    assert.ok(includes.length > 10);
    for (const name of includes) {
      assert.ok(name in tm.repository, `#${name} is not in the repository`);
    }
  });

  it("pins every dependency to an exact version", () => {
    for (const deps of [manifest.dependencies, manifest.devDependencies]) {
      for (const [name, version] of Object.entries(deps)) {
        assert.match(version as string, /^\d+\.\d+\.\d+$/, `${name}@${version} is not pinned`);
      }
    }
  });
});

describe("documentSelector", () => {
  it("handles .wf only, unless Attractor files are enabled", () => {
    const plain = JSON.stringify(documentSelector(false));
    assert.ok(plain.includes('"language":"wf"'));
    assert.ok(!plain.includes("dot") && !plain.includes("fabro"));
    const attractor = JSON.stringify(documentSelector(true));
    assert.ok(attractor.includes('"pattern":"**/*.dot"') && attractor.includes('"pattern":"**/*.fabro"'));
    assert.ok(!attractor.includes('"language":"dot"'), "must not claim the dot language");
  });
});
