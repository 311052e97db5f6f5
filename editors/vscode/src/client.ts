// Starting and stopping `wfc lsp` through vscode-languageclient.

import * as path from "path";
import * as vscode from "vscode";
import {
  LanguageClient,
  LanguageClientOptions,
  ServerOptions,
} from "vscode-languageclient/node";

import { BinaryError, INSTALL_HINT, probeServer, resolveBinary } from "./binary";
import { documentSelector } from "./selector";

/** The extension's settings that need a server restart when they change. */
export const RESTART_SETTINGS = ["wfc.path", "wfc.attractor.enable", "wfc.diagnostics.debounceMs"];

/** The first workspace folder's path, used for relative `wfc.path` values. */
export function workspaceRoot(): string | undefined {
  return vscode.workspace.workspaceFolders?.[0]?.uri.fsPath;
}

/** The directory of the active editor's file, if it is a file on disk. */
function activeFileDirectory(): string | undefined {
  const uri = vscode.window.activeTextEditor?.document.uri;
  return uri?.scheme === "file" ? path.dirname(uri.fsPath) : undefined;
}

/** The configured binary, resolved (throws `BinaryError` when missing). */
export async function configuredBinary(): Promise<string> {
  const setting = vscode.workspace.getConfiguration("wfc").get<string>("path", "wfc");
  return resolveBinary(setting, workspaceRoot());
}

/**
 * Shows a start-up error with the install hint and a way to the settings.
 * Does not wait for the user: activation must not hang on a notification.
 */
export function reportStartFailure(output: vscode.OutputChannel, message: string, detail: string): void {
  output.appendLine(message);
  if (detail) {
    output.appendLine(detail);
  }
  output.appendLine(INSTALL_HINT);
  void vscode.window.showErrorMessage(message, "How to Install", "Open Settings").then((choice) => {
    if (choice === "How to Install") {
      output.show(true);
    } else if (choice === "Open Settings") {
      void vscode.commands.executeCommand("workbench.action.openSettings", "wfc.path");
    }
  });
}

/**
 * Finds the binary, checks it, and starts a client for it. Returns
 * `undefined` (after telling the user why) when the server cannot start.
 */
export async function startClient(
  output: vscode.OutputChannel,
  trace: vscode.OutputChannel,
): Promise<LanguageClient | undefined> {
  let bin: string;
  try {
    bin = await configuredBinary();
    await probeServer(bin);
  } catch (err) {
    const detail = err instanceof BinaryError ? err.detail : "";
    reportStartFailure(output, err instanceof Error ? err.message : String(err), detail);
    return undefined;
  }

  const config = vscode.workspace.getConfiguration("wfc");
  const debounceMs = config.get<number | null>("diagnostics.debounceMs", null);
  const serverOptions: ServerOptions = {
    command: bin,
    args: ["lsp"],
    // Without a workspace folder the server's root is its working
    // directory: make that the opened file's directory, not VS Code's.
    options: { cwd: workspaceRoot() ?? activeFileDirectory() },
  };
  const clientOptions: LanguageClientOptions = {
    documentSelector: documentSelector(config.get<boolean>("attractor.enable", false)),
    outputChannel: output,
    traceOutputChannel: trace,
    diagnosticCollectionName: "wfc",
    initializationOptions: typeof debounceMs === "number" ? { debounceMs } : {},
  };
  // The id `wfc` makes the client read `wfc.trace.server` by itself.
  const client = new LanguageClient("wfc", "wfc Language Server", serverOptions, clientOptions);
  output.appendLine(`Starting ${bin} lsp`);
  try {
    await client.start();
  } catch (err) {
    reportStartFailure(
      output,
      `wfc: the language server "${bin} lsp" failed to start: ${err instanceof Error ? err.message : String(err)}`,
      "",
    );
    await client.dispose().catch(() => undefined);
    return undefined;
  }
  return client;
}
