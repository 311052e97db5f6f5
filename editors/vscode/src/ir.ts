// "wfc: Show Compiled IR": `wfc build FILE --emit ir -o -` shown in a
// read-only JSON document.

import * as path from "path";
import * as vscode from "vscode";

import { BinaryError, run } from "./binary";
import { configuredBinary, reportStartFailure } from "./client";

/** URI scheme of the read-only IR documents. */
export const IR_SCHEME = "wfc-ir";

/** The outcome of one `wfc build`. */
type Build = { ok: true; ir: string } | { ok: false; why: string };

/** Builds IR for `.wf` files on demand; documents of this scheme are read-only. */
export class IrProvider implements vscode.TextDocumentContentProvider {
  private readonly changed = new vscode.EventEmitter<vscode.Uri>();
  private readonly contents = new Map<string, string>();
  readonly onDidChange = this.changed.event;

  constructor(private readonly output: vscode.OutputChannel) {}

  /** The IR document of a source file: `wfc-ir:/…/name.wf.ir.json?<source uri>`. */
  static uriFor(source: vscode.Uri): vscode.Uri {
    return vscode.Uri.from({ scheme: IR_SCHEME, path: `${source.path}.ir.json`, query: source.toString() });
  }

  /** The content of an IR document: the last build, or a fresh one (after a window reload). */
  async provideTextDocumentContent(uri: vscode.Uri): Promise<string> {
    const cached = this.contents.get(uri.toString());
    if (cached !== undefined) {
      return cached;
    }
    const build = await this.build(vscode.Uri.parse(uri.query));
    if (build.ok) {
      this.contents.set(uri.toString(), build.ir);
      return build.ir;
    }
    return `// ${build.why.replace(/\n/g, "\n// ")}\n`;
  }

  /** Runs `wfc build` on the file on disk; logs failures to the output channel. */
  private async build(source: vscode.Uri): Promise<Build> {
    let bin: string;
    try {
      bin = await configuredBinary();
    } catch (err) {
      reportStartFailure(this.output, (err as Error).message, err instanceof BinaryError ? err.detail : "");
      return { ok: false, why: (err as Error).message };
    }
    const file = source.fsPath;
    const args = ["build", file, "--emit", "ir", "-o", "-", "--color", "never"];
    try {
      const result = await run(bin, args, path.dirname(file), 120_000);
      if (result.code === 0) {
        return { ok: true, ir: result.stdout };
      }
      this.output.appendLine(`$ ${bin} ${args.join(" ")}`);
      this.output.appendLine(result.stderr);
      const first = result.stderr.split("\n").find((line) => line.startsWith("error")) ?? `exit status ${result.code}`;
      return { ok: false, why: `${path.basename(file)} does not compile: ${first}` };
    } catch (err) {
      this.output.appendLine((err as Error).message);
      return { ok: false, why: (err as Error).message };
    }
  }

  /**
   * Compiles `source` and updates its IR document. Returns false when it
   * does not compile: with a notification, or with a status bar message
   * when `quiet` (a refresh on save).
   */
  async compile(source: vscode.Uri, quiet = false): Promise<boolean> {
    const build = await this.build(source);
    if (!build.ok) {
      if (quiet) {
        vscode.window.setStatusBarMessage(`wfc: IR not refreshed: ${build.why}`, 8000);
      } else {
        void vscode.window.showErrorMessage(`wfc: ${build.why}`, "Show Output").then((choice) => {
          if (choice === "Show Output") {
            this.output.show(true);
          }
        });
      }
      return false;
    }
    const uri = IrProvider.uriFor(source);
    this.contents.set(uri.toString(), build.ir);
    this.changed.fire(uri);
    return true;
  }

  /** Recompiles an open IR document when its source is saved. */
  async refresh(saved: vscode.Uri): Promise<void> {
    const uri = IrProvider.uriFor(saved).toString();
    const open = vscode.workspace.textDocuments.some((doc) => doc.uri.toString() === uri);
    if (open) {
      await this.compile(saved, true);
    } else {
      this.contents.delete(uri);
    }
  }

  dispose(): void {
    this.changed.dispose();
  }
}

/** The command: compile the active `.wf` file and open its IR beside it. */
export async function showIr(provider: IrProvider): Promise<void> {
  const editor = vscode.window.activeTextEditor;
  if (!editor || editor.document.languageId !== "wf") {
    await vscode.window.showWarningMessage("wfc: open a .wf file to show its compiled IR.");
    return;
  }
  const doc = editor.document;
  if (doc.uri.scheme !== "file") {
    await vscode.window.showWarningMessage("wfc: save the file first: wfc build compiles files on disk.");
    return;
  }
  if (doc.isDirty) {
    const choice = await vscode.window.showWarningMessage(
      "wfc: the IR is compiled from the file on disk, which has unsaved changes.",
      "Save and Compile",
      "Compile Saved Version",
    );
    if (choice === undefined) {
      return;
    }
    if (choice === "Save and Compile" && !(await doc.save())) {
      return;
    }
  }
  if (!(await provider.compile(doc.uri))) {
    return;
  }
  const irDoc = await vscode.workspace.openTextDocument(IrProvider.uriFor(doc.uri));
  const jsonDoc = await vscode.languages.setTextDocumentLanguage(irDoc, "json");
  await vscode.window.showTextDocument(jsonDoc, { viewColumn: vscode.ViewColumn.Beside, preview: false });
}
