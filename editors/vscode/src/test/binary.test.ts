// Unit tests of the binary lookup and process runner (no VS Code needed):
// `npm run test:unit`. Set WFC_BIN to also probe a real wfc.

import assert from "node:assert/strict";
import { promises as fs } from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { after, before, describe, it } from "node:test";

import { BinaryError, probeServer, resolveBinary, run } from "../binary";

const posix = process.platform !== "win32";
let dir: string;
const savedPath = process.env.PATH;

async function script(name: string, body: string, mode = 0o755): Promise<string> {
  const file = path.join(dir, name);
  await fs.writeFile(file, `#!/bin/sh\n${body}\n`, { mode });
  return file;
}

describe("resolveBinary", { skip: !posix && "uses shell scripts" }, () => {
  before(async () => {
    dir = await fs.mkdtemp(path.join(os.tmpdir(), "wfc-vscode-test-"));
    await script("wfc", "exit 0");
    await script("not-executable", "exit 0", 0o644);
  });
  after(async () => {
    process.env.PATH = savedPath;
    await fs.rm(dir, { recursive: true, force: true });
  });

  it("finds a bare name on PATH", async () => {
    process.env.PATH = ["/nonexistent-dir", dir].join(path.delimiter);
    assert.equal(await resolveBinary("wfc", undefined), path.join(dir, "wfc"));
  });

  it("reports a bare name missing from PATH, with the directories searched", async () => {
    process.env.PATH = "/nonexistent-dir";
    await assert.rejects(resolveBinary("wfc", undefined), (err: unknown) => {
      assert.ok(err instanceof BinaryError);
      assert.match(err.message, /cannot find "wfc" on PATH\. Install wfc or set wfc\.path/);
      assert.match(err.detail, /nonexistent-dir/);
      return true;
    });
  });

  it("resolves a relative path against the workspace folder", async () => {
    assert.equal(await resolveBinary("./wfc", dir), path.join(dir, "wfc"));
  });

  it("treats an empty setting as the default name", async () => {
    process.env.PATH = dir;
    assert.equal(await resolveBinary("   ", undefined), path.join(dir, "wfc"));
  });

  it("refuses a file that is not executable, and a directory", async () => {
    await assert.rejects(resolveBinary(path.join(dir, "not-executable"), undefined), /not executable/);
    await assert.rejects(resolveBinary(dir + path.sep, undefined), /does not exist or is not executable/);
  });
});

describe("run and probeServer", { skip: !posix && "uses shell scripts" }, () => {
  before(async () => {
    dir = await fs.mkdtemp(path.join(os.tmpdir(), "wfc-vscode-test-"));
  });
  after(async () => {
    await fs.rm(dir, { recursive: true, force: true });
  });

  it("returns the exit status and both streams", async () => {
    const bin = await script("loud", 'echo out; echo err >&2; exit 3');
    const result = await run(bin, [], undefined, 10_000);
    assert.deepEqual(result, { code: 3, stdout: "out\n", stderr: "err\n" });
  });

  it("rejects when the process is killed by the timeout", async () => {
    const bin = await script("slow", "exec sleep 10");
    await assert.rejects(run(bin, [], undefined, 200), /killed after 200 ms/);
  });

  it("rejects a binary without `lsp`", async () => {
    const bin = await script("old-wfc", 'echo "error: unrecognized subcommand \'lsp\'" >&2; exit 2');
    await assert.rejects(probeServer(bin), (err: unknown) => {
      assert.ok(err instanceof BinaryError);
      assert.match(err.message, /lsp --help" failed \(exit status 2\)/);
      assert.match(err.detail, /unrecognized subcommand/);
      return true;
    });
  });

  it("accepts a real wfc (WFC_BIN)", { skip: !process.env.WFC_BIN && "WFC_BIN is not set" }, async () => {
    await probeServer(process.env.WFC_BIN as string);
  });
});
