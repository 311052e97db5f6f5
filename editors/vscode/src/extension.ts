// Entry point of the wfc VS Code extension: the language client for
// `wfc lsp` and the extension's commands.

import * as vscode from "vscode";
import { DocumentFormattingRequest, LanguageClient } from "vscode-languageclient/node";

import { RESTART_SETTINGS, startClient } from "./client";
import { IR_SCHEME, IrProvider, showIr } from "./ir";

let client: LanguageClient | undefined;
let output: vscode.OutputChannel;
let trace: vscode.OutputChannel;

async function stop(): Promise<void> {
  const running = client;
  client = undefined;
  if (running) {
    await running.stop().catch(() => undefined);
    await running.dispose().catch(() => undefined);
  }
}

// Restarts run one after the other: a settings change during a restart
// must not leave two servers running.
let restarting: Promise<void> = Promise.resolve();

function restart(): Promise<void> {
  restarting = restarting.then(async () => {
    await stop();
    client = await startClient(output, trace);
    if (client) {
      vscode.window.setStatusBarMessage("wfc: language server started", 3000);
    }
  });
  return restarting;
}

/** "wfc: Format Document": asks the server to format, whatever formatter is the default. */
async function formatDocument(): Promise<void> {
  const editor = vscode.window.activeTextEditor;
  if (!editor || editor.document.languageId !== "wf") {
    await vscode.window.showWarningMessage("wfc: open a .wf file to format it.");
    return;
  }
  if (!client || !client.isRunning()) {
    await vscode.window.showErrorMessage("wfc: the language server is not running; run \"wfc: Restart Server\".");
    return;
  }
  const doc = editor.document;
  const version = doc.version;
  const edits = await client.sendRequest(DocumentFormattingRequest.type, {
    textDocument: { uri: client.code2ProtocolConverter.asUri(doc.uri) },
    options: {
      tabSize: typeof editor.options.tabSize === "number" ? editor.options.tabSize : 2,
      insertSpaces: editor.options.insertSpaces !== false,
    },
  });
  if (!edits || edits.length === 0) {
    vscode.window.setStatusBarMessage(
      "wfc: nothing to format (already formatted, or syntax errors, which the formatter leaves alone)",
      5000,
    );
    return;
  }
  if (doc.version !== version) {
    await vscode.window.showWarningMessage("wfc: the document changed while formatting; run the command again.");
    return;
  }
  const workspaceEdit = new vscode.WorkspaceEdit();
  workspaceEdit.set(doc.uri, await client.protocol2CodeConverter.asTextEdits(edits));
  await vscode.workspace.applyEdit(workspaceEdit);
}

/** Called by VS Code when a `.wf` file or a wfc project is opened. */
export async function activate(context: vscode.ExtensionContext): Promise<void> {
  output = vscode.window.createOutputChannel("wfc Language Server");
  trace = vscode.window.createOutputChannel("wfc Language Server Trace");
  const irProvider = new IrProvider(output);
  context.subscriptions.push(
    output,
    trace,
    irProvider,
    vscode.workspace.registerTextDocumentContentProvider(IR_SCHEME, irProvider),
    vscode.commands.registerCommand("wfc.restartServer", restart),
    vscode.commands.registerCommand("wfc.formatDocument", formatDocument),
    vscode.commands.registerCommand("wfc.showIr", () => showIr(irProvider)),
    vscode.workspace.onDidSaveTextDocument((doc) => irProvider.refresh(doc.uri)),
    vscode.workspace.onDidChangeConfiguration(async (event) => {
      if (RESTART_SETTINGS.some((setting) => event.affectsConfiguration(setting))) {
        output.appendLine("Settings changed: restarting the server");
        await restart();
      }
    }),
  );
  await restart();
}

/** Called by VS Code on shutdown: stops the server cleanly. */
export function deactivate(): Promise<void> {
  return stop();
}
