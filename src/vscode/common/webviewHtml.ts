import { randomBytes } from 'node:crypto';
import * as vscode from 'vscode';

/**
 * The page every Repo Wiki webview loads: one Content-Security-Policy for all of them (no inline
 * code, scripts only with this load's nonce, styles, fonts and images only from the extension),
 * the stylesheets, and one bundled script. Paths are relative to the extension's folder.
 */
export function webviewHtml(webview: vscode.Webview, extensionUri: vscode.Uri, page: { title: string; styles: string[][]; script: string[]; body?: string }): string {
  const nonce = randomBytes(16).toString('base64');
  const asset = (parts: string[]) => webview.asWebviewUri(vscode.Uri.joinPath(extensionUri, ...parts));
  const styles = page.styles.map((parts) => `<link href="${asset(parts)}" rel="stylesheet">`).join('\n');
  return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="UTF-8">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src ${webview.cspSource}; font-src ${webview.cspSource}; img-src ${webview.cspSource}; script-src 'nonce-${nonce}';">
<meta name="viewport" content="width=device-width, initial-scale=1.0">
${styles}
<title>${page.title}</title>
</head>
<body>
${page.body ? `${page.body}\n` : ''}<script nonce="${nonce}" src="${asset(page.script)}"></script>
</body>
</html>`;
}
