// Which documents `wfc lsp` handles (kept free of the `vscode` module so
// that unit tests can run it under plain Node).

import type { DocumentSelector } from "vscode-languageclient";

/**
 * `.wf` documents always (on disk and unsaved); Attractor pipelines
 * (`*.dot`, `*.fabro`) only when `wfc.attractor.enable` is set, by file
 * pattern, so the extension never claims the `dot` language for everyone.
 */
export function documentSelector(attractor: boolean): DocumentSelector {
  const selector: DocumentSelector = [
    { scheme: "file", language: "wf" },
    { scheme: "untitled", language: "wf" },
  ];
  if (attractor) {
    selector.push({ scheme: "file", pattern: "**/*.dot" }, { scheme: "file", pattern: "**/*.fabro" });
  }
  return selector;
}
