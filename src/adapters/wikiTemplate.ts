import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import type { TemplateFile } from '../core/wiki/wiki';

/** The files `init` puts into a new `.wiki/`, read from the extension's own template folder. */
export async function readTemplate(dir: string): Promise<TemplateFile[]> {
  const files: TemplateFile[] = [];
  const walk = async (folder: string): Promise<void> => {
    for (const entry of await fs.readdir(folder, { withFileTypes: true })) {
      const full = path.join(folder, entry.name);
      if (entry.isDirectory()) await walk(full);
      else if (entry.isFile()) files.push({ path: path.relative(dir, full).split(path.sep).join('/'), text: await fs.readFile(full, 'utf8') });
    }
  };
  await walk(dir);
  return files;
}
