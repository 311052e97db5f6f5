// Finding the `wfc` binary the user configured, and checking that it runs.

import { execFile } from "child_process";
import { constants as fsConstants, promises as fs } from "fs";
import * as os from "os";
import * as path from "path";

/** What went wrong while looking for `wfc`; `detail` goes to the output channel. */
export class BinaryError extends Error {
  constructor(
    message: string,
    readonly detail: string,
  ) {
    super(message);
  }
}

/** How to get a `wfc` binary; shown whenever one cannot be found or started. */
export const INSTALL_HINT = [
  "How to install wfc:",
  "  1. Install a Rust toolchain (https://rustup.rs).",
  "  2. From a clone of the wfc repository: cargo install --path crates/wfc --locked",
  "     (this puts `wfc` in ~/.cargo/bin, which rustup adds to PATH).",
  "  3. Check it: wfc --version",
  'Or point the setting "wfc.path" at an existing binary (for example target/release/wfc of a checkout).',
  "Then run the command \"wfc: Restart Server\".",
].join("\n");

async function isExecutable(file: string): Promise<boolean> {
  try {
    const stat = await fs.stat(file);
    if (!stat.isFile()) {
      return false;
    }
    // Windows has no execute bit; the extension (PATHEXT) decides there.
    if (process.platform !== "win32") {
      await fs.access(file, fsConstants.X_OK);
    }
    return true;
  } catch {
    return false;
  }
}

/**
 * Resolves the `wfc.path` setting to an executable file: a bare name is
 * looked up on PATH, a relative path is taken from `base` (the first
 * workspace folder), `~` is the home directory.
 */
export async function resolveBinary(setting: string, base: string | undefined): Promise<string> {
  let wanted = setting.trim() || "wfc";
  if (wanted === "~" || wanted.startsWith("~/") || wanted.startsWith("~\\")) {
    wanted = path.join(os.homedir(), wanted.slice(1));
  }
  const hasSeparator = wanted.includes("/") || wanted.includes("\\");
  if (hasSeparator) {
    const file = path.isAbsolute(wanted) ? wanted : path.resolve(base ?? process.cwd(), wanted);
    if (await isExecutable(file)) {
      return file;
    }
    throw new BinaryError(
      `wfc: the binary "${file}" (setting wfc.path) does not exist or is not executable.`,
      `Looked for ${file} (wfc.path = ${JSON.stringify(setting)}).`,
    );
  }
  const dirs = (process.env.PATH ?? "").split(path.delimiter).filter((d) => d.length > 0);
  const extensions =
    process.platform === "win32"
      ? ["", ...(process.env.PATHEXT ?? ".EXE;.CMD;.BAT").split(";").filter((e) => e.length > 0)]
      : [""];
  for (const dir of dirs) {
    for (const ext of extensions) {
      const file = path.join(dir, wanted + ext);
      if (await isExecutable(file)) {
        return file;
      }
    }
  }
  throw new BinaryError(
    `wfc: cannot find "${wanted}" on PATH. Install wfc or set wfc.path.`,
    `Searched PATH for ${JSON.stringify(wanted)}:\n  ${dirs.join("\n  ")}`,
  );
}

/** Output of a finished process. */
export interface RunResult {
  code: number;
  stdout: string;
  stderr: string;
}

/**
 * Runs `bin args…` to completion. Rejects only when the process could not
 * run at all (not found, killed by the timeout); a non-zero exit status is
 * a normal result.
 */
export function run(bin: string, args: string[], cwd: string | undefined, timeoutMs: number): Promise<RunResult> {
  return new Promise((resolve, reject) => {
    execFile(
      bin,
      args,
      { cwd, timeout: timeoutMs, maxBuffer: 512 * 1024 * 1024, encoding: "utf8", windowsHide: true },
      (error, stdout, stderr) => {
        if (error && typeof error.code !== "number") {
          const why = error.killed ? `killed after ${timeoutMs} ms` : error.message;
          reject(new BinaryError(`wfc: could not run "${bin}": ${why}`, `${bin} ${args.join(" ")}\n${stderr}`));
          return;
        }
        resolve({ code: error ? (error.code as number) : 0, stdout, stderr });
      },
    );
  });
}

/**
 * Checks that `bin` is a wfc with a language server (`wfc lsp --help`
 * succeeds), so that a wrong binary gets a clear message instead of a
 * server that dies during the handshake.
 */
export async function probeServer(bin: string): Promise<void> {
  const result = await run(bin, ["lsp", "--help"], undefined, 15_000);
  if (result.code !== 0) {
    throw new BinaryError(
      `wfc: "${bin} lsp --help" failed (exit status ${result.code}): is this wfc, and recent enough to have "wfc lsp"?`,
      `${bin} lsp --help\n${result.stdout}${result.stderr}`,
    );
  }
}
