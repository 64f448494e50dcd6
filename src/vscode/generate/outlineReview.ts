import * as vscode from 'vscode';
import type { OutlinePage } from '../../core/generate/outline';
import { showCheckedPick } from '../common/checkedPick';

/** Chooses the outline's pages to write: their slugs, or undefined to write none. Tests replace the quick pick. */
export type OutlineChooser = (pages: readonly OutlinePage[], title: string) => Promise<string[] | undefined>;

let chooser: OutlineChooser = chooseInQuickPick;

/** For integration tests: answer the outline review without the quick pick. */
export function setOutlineChooser(next: OutlineChooser | undefined): void {
  chooser = next ?? chooseInQuickPick;
}

/** The outline's pages the user keeps, in the outline's order; undefined when they dismissed it. */
export async function chooseOutlinePages(pages: readonly OutlinePage[], title: string): Promise<OutlinePage[] | undefined> {
  const slugs = await chooser(pages, title);
  return slugs && pages.filter((page) => slugs.includes(page.slug));
}

interface OutlineItem extends vscode.QuickPickItem {
  page: OutlinePage;
}

/** A multi-select list of the pages with their purpose, all checked. */
async function chooseInQuickPick(pages: readonly OutlinePage[], title: string): Promise<string[] | undefined> {
  const pick = vscode.window.createQuickPick<OutlineItem>();
  pick.title = `${title} (Escape writes nothing)`;
  // Short enough to show whole in the input.
  pick.placeholder = 'Uncheck pages to skip. Enter writes the rest, each reviewed.';
  return showCheckedPick(pick, pages.map((page) => ({ label: page.title, description: `${page.slug}.md · ${page.topic}`, detail: page.purpose, page })), (item) => item.page.slug);
}
