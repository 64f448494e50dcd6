import * as fs from 'node:fs';
import { promisify } from 'node:util';

/** The system calls a guarded read makes, blocking or not; the read's checks are written once over these. */
export interface FsCalls {
  lstat(file: string): fs.Stats | Promise<fs.Stats>;
  stat(file: string): fs.Stats | Promise<fs.Stats>;
  realpath(file: string): string | Promise<string>;
  readlink(file: string): string | Promise<string>;
  open(file: string, flags: number): number | Promise<number>;
  fstat(fd: number): fs.Stats | Promise<fs.Stats>;
  read(fd: number, buffer: Buffer, offset: number, length: number, position: number): number | Promise<number>;
  close(fd: number): void | Promise<void>;
}

// The callback API with plain descriptors: for small files it is several times faster than fs.promises.
export const asyncCalls: FsCalls = {
  lstat: promisify(fs.lstat),
  stat: promisify(fs.stat),
  realpath: promisify(fs.realpath.native),
  readlink: promisify(fs.readlink),
  open: promisify(fs.open),
  fstat: promisify(fs.fstat),
  read: (fd, buffer, offset, length, position) => new Promise((resolve, reject) => {
    fs.read(fd, buffer, offset, length, position, (error, bytesRead) => (error ? reject(error) : resolve(bytesRead)));
  }),
  close: promisify(fs.close),
};

export const syncCalls: FsCalls = {
  lstat: (file) => fs.lstatSync(file),
  stat: (file) => fs.statSync(file),
  realpath: (file) => fs.realpathSync.native(file),
  readlink: (file) => fs.readlinkSync(file),
  open: (file, flags) => fs.openSync(file, flags),
  fstat: (fd) => fs.fstatSync(fd),
  read: (fd, buffer, offset, length, position) => fs.readSync(fd, buffer, offset, length, position),
  close: (fd) => fs.closeSync(fd),
};
