import * as fs from 'node:fs';
import * as path from 'node:path';
import { Node, Project, ts, type FileSystemHost, type RuntimeDirEntry } from 'ts-morph';
import { hex8, type TypeFingerprints } from '../../core/drift/symbols';
import { isFileAccessError, isNotAFile, WikiError } from '../../core/errors';
import type { WorkspaceFiles } from '../files/workspaceFiles';

/** Past this much heap after loading the program, semantic mode gives up for the workspace rather than risk the process. */
export const SEMANTIC_HEAP_CAP_MB = 1536;

/**
 * The resolved type of cited symbols, from a ts-morph Project over the workspace's tsconfig.json
 * (the whole program: what the type checker needs). Loaded on the first question, so the syntactic
 * drift check never pays for it. Every file read goes through the workspace's guarded file access.
 */
export class SemanticTypes implements TypeFingerprints {
  private project?: Project;
  private host?: GuardedHost;
  private readonly cache = new Map<string, string | undefined>();
  /** Each file's exports, asked once: the checker resolves every re-export to answer. */
  private readonly exports = new Map<string, ReadonlyMap<string, Node[]>>();

  constructor(private readonly root: string, private readonly files: WorkspaceFiles, private readonly heapCapMb = SEMANTIC_HEAP_CAP_MB) {}

  typeOf(relPath: string, symbol: string): string | undefined {
    const key = `${relPath}:${symbol}`;
    if (!this.cache.has(key)) this.cache.set(key, this.compute(relPath, symbol));
    return this.cache.get(key);
  }

  /** A file changed: the checker must read it again, and every type may have moved with it. */
  invalidate(relPath: string): void {
    this.cache.clear();
    this.exports.clear();
    const file = this.project?.getSourceFile(path.join(this.root, relPath));
    if (!file) return;
    this.host?.forget(file.getFilePath());
    if (fs.existsSync(file.getFilePath())) file.refreshFromFileSystemSync();
    else this.project?.removeSourceFile(file);
  }

  private compute(relPath: string, symbol: string): string | undefined {
    const project = this.load();
    const absolute = path.join(this.root, relPath);
    const file = project.getSourceFile(absolute) ?? project.addSourceFileAtPathIfExists(absolute);
    if (!file) return undefined;
    let exported = this.exports.get(absolute);
    if (!exported) this.exports.set(absolute, (exported = file.getExportedDeclarations()));
    const node = declarationOf(exported, file, symbol);
    if (!node) return undefined;
    const text = node.getType().getText(node, ts.TypeFormatFlags.NoTruncation | ts.TypeFormatFlags.UseFullyQualifiedType);
    return fnv(text);
  }

  private load(): Project {
    if (this.project) return this.project;
    const tsconfig = path.join(this.root, 'tsconfig.json');
    const fileSystem = (this.host = new GuardedHost(this.root, this.files));
    this.project = fileSystem.fileExistsSync(tsconfig)
      ? new Project({ tsConfigFilePath: tsconfig, fileSystem })
      : new Project({ fileSystem, compilerOptions: { allowJs: true, strict: true } });
    const heapMb = process.memoryUsage().heapUsed / 2 ** 20;
    if (heapMb > this.heapCapMb) {
      this.project = undefined;
      throw new WikiError('semantic-too-large', `The type checker needed ${Math.round(heapMb)} MB for this workspace, over the ${this.heapCapMb} MB cap, so types are not compared.`, 'Run drift without --semantic, or narrow tsconfig.json to the code the wiki cites.');
    }
    return this.project;
  }
}

/** The declaration a qualified name cites: an export (re-exports followed by the checker), then members by name. */
function declarationOf(exported: ReadonlyMap<string, Node[]>, file: Node, symbol: string): Node | undefined {
  const [head, ...rest] = symbol.split('.');
  let node: Node | undefined = exported.get(head)?.[0] ?? memberNamed(file, head);
  for (const part of rest) node = node && memberNamed(node, part);
  return node;
}

function nameOf(node: Node): string | undefined {
  return Node.hasName(node) ? node.getName() : Node.isVariableStatement(node) ? node.getDeclarations()[0]?.getName() : undefined;
}

/** A direct member named `name`: found through unnamed wrappers (bodies, blocks, lists), never inside another named declaration. */
function memberNamed(container: Node, name: string): Node | undefined {
  const pending = [...container.getChildren()];
  while (pending.length) {
    const child = pending.shift()!;
    const childName = nameOf(child);
    if (childName === name) return child;
    if (childName === undefined && !Node.isBlock(child)) pending.push(...child.getChildren());
  }
  return undefined;
}

function fnv(text: string): string {
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) hash = Math.imul(hash ^ text.charCodeAt(i), 0x01000193);
  return hex8(hash);
}

/** A file host for ts-morph that reads only what the workspace's file access allows, and never writes. */
class GuardedHost implements FileSystemHost {
  // Module resolution asks about many paths: each is read (and checked) once, and kept until it changes.
  private readonly texts = new Map<string, string | undefined>();

  constructor(private readonly root: string, private readonly files: WorkspaceFiles) {}

  forget(file: string): void {
    this.texts.delete(file);
  }

  isCaseSensitive(): boolean {
    return true;
  }

  readFileSync(file: string): string {
    const found = this.text(file);
    if (found === undefined) throw Object.assign(new Error(`ENOENT: ${file} is not readable`), { code: 'ENOENT' });
    return found;
  }

  async readFile(file: string): Promise<string> {
    return this.readFileSync(file);
  }

  fileExistsSync(file: string): boolean {
    return this.text(file) !== undefined;
  }

  async fileExists(file: string): Promise<boolean> {
    return this.fileExistsSync(file);
  }

  directoryExistsSync(dir: string): boolean {
    return this.inside(dir) && fs.existsSync(dir) && fs.lstatSync(dir).isDirectory();
  }

  async directoryExists(dir: string): Promise<boolean> {
    return this.directoryExistsSync(dir);
  }

  readDirSync(dir: string): RuntimeDirEntry[] {
    if (!this.directoryExistsSync(dir)) return [];
    return fs.readdirSync(dir, { withFileTypes: true }).map((entry) => ({ name: entry.name, isFile: entry.isFile(), isDirectory: entry.isDirectory(), isSymlink: entry.isSymbolicLink() }));
  }

  realpathSync(file: string): string {
    return file; // links are never followed: the guarded read refuses them
  }

  getCurrentDirectory(): string {
    return this.root;
  }

  async glob(): Promise<string[]> {
    return [];
  }

  globSync(): string[] {
    return [];
  }

  delete = refuseWrite;
  deleteSync = refuseWrite;
  writeFile = refuseWrite;
  writeFileSync = refuseWrite;
  mkdir = refuseWrite;
  mkdirSync = refuseWrite;
  move = refuseWrite;
  moveSync = refuseWrite;
  copy = refuseWrite;
  copySync = refuseWrite;

  private text(file: string): string | undefined {
    if (!this.texts.has(file)) {
      try {
        this.texts.set(file, new TextDecoder().decode(this.files.readFileSync(file)));
      } catch (error) {
        // Missing, a folder, a name too long to exist (module resolution asks about many), a link,
        // a FIFO, a secret, too large: to the type checker, not there. Anything else (EACCES, EIO)
        // would make types it imports silently `any`, and drift report them changed: it is thrown.
        if (!isNotAFile(error) && !isFileAccessError(error) && (error as NodeJS.ErrnoException).code !== 'ENAMETOOLONG') throw error;
        this.texts.set(file, undefined);
      }
    }
    return this.texts.get(file);
  }

  private inside(dir: string): boolean {
    return !path.relative(this.root, dir).startsWith('..');
  }
}

function refuseWrite(): never {
  throw new Error('Repo Wiki never writes through the type checker.');
}
