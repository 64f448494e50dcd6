import * as path from 'node:path';
import { isFileAccessError, isNotAFile } from '../errors';
import type { RepoMap } from '../map/repoMap';
import type { FileSystem } from '../ports';
import type { Wiki } from '../wiki/wiki';
import type { OutlineInput } from './prompt';
import { NO_STEERING, parseSteering, STEERING_FILE, type Steering } from './steering';

/** The map's share of the outline prompt. */
const OUTLINE_MAP_TOKENS = 4000;
const MANIFESTS = ['package.json', 'pyproject.toml', 'setup.py', 'requirements.txt', 'go.mod', 'Cargo.toml', 'pom.xml', 'build.gradle', 'build.gradle.kts', 'Gemfile', 'composer.json', 'README.md', 'README', 'readme.md'];
const DOCS = { folder: 'docs', files: 20, maxBytes: 256 * 1024, charsPerFile: 6000 } as const;

/** What the outline is drafted from, for the CLI and the extension alike. */
export async function outlineInput(wiki: Wiki, files: FileSystem, map: RepoMap | undefined, steering: Steering): Promise<OutlineInput> {
  return {
    schema: (await wiki.readSchema()) ?? '',
    steering,
    map: map ? (await map.map({ tokens: OUTLINE_MAP_TOKENS })).text : '',
    files: await outlineFiles(wiki, files),
    pages: await wiki.loadPages(),
  };
}

/** `.wiki/generate.json`, or no steering when there is none; a bad one throws with its field named. */
export async function readSteering(wiki: Wiki, files: FileSystem): Promise<Steering> {
  try {
    return parseSteering(new TextDecoder().decode(await files.readFile(path.join(wiki.dir, STEERING_FILE), { maxBytes: 64 * 1024 })));
  } catch (error) {
    if (isNotAFile(error)) return NO_STEERING;
    throw error;
  }
}

/** The manifests and README at the root, and the first files of docs/, each cut to size. */
async function outlineFiles(wiki: Wiki, files: FileSystem): Promise<{ path: string; text: string }[]> {
  const found: { path: string; text: string }[] = [];
  const read = async (relPath: string) => {
    // README.md and readme.md are one file on a case-insensitive disk.
    if (found.some((file) => file.path.toLowerCase() === relPath.toLowerCase())) return;
    try {
      const text = new TextDecoder().decode(await files.readFile(path.join(wiki.root, relPath), { maxBytes: DOCS.maxBytes }));
      found.push({ path: relPath, text: text.length > DOCS.charsPerFile ? `${text.slice(0, DOCS.charsPerFile)}\n[… cut]` : text });
    } catch (error) {
      // Absent, too large or a secret: the outline does without it.
      if (!isNotAFile(error) && !isFileAccessError(error)) throw error;
    }
  };
  for (const name of MANIFESTS) await read(name);
  for (const relPath of await docsFiles(wiki.root, files)) await read(relPath);
  return found;
}

async function docsFiles(root: string, files: FileSystem): Promise<string[]> {
  const found: string[] = [];
  const walk = async (relDir: string): Promise<void> => {
    let names: string[];
    try {
      names = await files.readdir(path.join(root, relDir));
    } catch (error) {
      // No docs/, or one that leads out of the folder: the outline does without it.
      if (isNotAFile(error) || isFileAccessError(error)) return;
      throw error;
    }
    for (const name of names.sort((a, b) => a.localeCompare(b))) {
      if (found.length >= DOCS.files) return;
      const relPath = `${relDir}/${name}`;
      const stat = await files.stat(path.join(root, relPath));
      if (stat?.isDirectory) await walk(relPath);
      else if (stat?.isFile && /\.(md|mdx|txt|rst)$/i.test(name)) found.push(relPath);
    }
  };
  await walk(DOCS.folder);
  return found;
}
