import type * as vscode from 'vscode';

/**
 * Shows `pick` as a multi-select list with every item checked. Resolves to the keys of the items
 * checked when the user presses Enter, or undefined when the list is hidden (Escape) first.
 */
export function showCheckedPick<T extends vscode.QuickPickItem>(pick: vscode.QuickPick<T>, items: T[], keyOf: (item: T) => string): Promise<string[] | undefined> {
  pick.canSelectMany = true;
  pick.ignoreFocusOut = true;
  pick.matchOnDetail = true;
  pick.items = items;
  pick.selectedItems = items;
  return new Promise((resolve) => {
    let settled = false;
    const finish = (value: string[] | undefined) => {
      if (settled) return;
      settled = true;
      resolve(value);
      pick.dispose();
    };
    pick.onDidAccept(() => finish(pick.selectedItems.map(keyOf)));
    pick.onDidHide(() => finish(undefined));
    pick.show();
  });
}
