import * as fs from 'node:fs';
import { promisify } from 'node:util';

/** Vetoes a read by throwing, after the open and before any byte is read; may wait for a check of its own. */
export type OpenCheck = (stat: fs.Stats) => void | Promise<void>;

/** The system calls of a guarded read, blocking or on the thread pool; the read's checks are written once over these. */
export interface FsCalls {
  realpath(file: string): string | Promise<string>;
  stat(file: string): fs.Stats | Promise<fs.Stats>;
  /** Opens `file` with `flags`, runs `check` on the open file's fstat, then reads at most `maxBytes`. */
  readChecked(file: string, flags: number, maxBytes: number, check: OpenCheck): Buffer | Promise<Buffer>;
}

// One callback chain, as Node's own readFile does: a page read is four thread-pool trips
// (open, fstat, read, close) and no promise per step.
export const asyncCalls: FsCalls = {
  realpath: promisify(fs.realpath.native),
  stat: promisify(fs.stat),
  readChecked: (file, flags, maxBytes, check) => new Promise((resolve, reject) => {
    fs.open(file, flags, (openError, fd) => {
      if (openError) return reject(openError);
      const finish = (error: unknown, data?: Buffer) => fs.close(fd, (closeError) => (error || closeError ? reject(error ?? closeError) : resolve(data!)));
      fs.fstat(fd, (statError, stat) => {
        if (statError) return finish(statError);
        let checked: void | Promise<void>;
        try {
          checked = check(stat);
        } catch (error) {
          return finish(error);
        }
        const read = () => {
          const buffer = Buffer.allocUnsafe(Math.min(stat.size, maxBytes));
          const next = (offset: number) => {
            if (offset === buffer.length) return finish(undefined, buffer);
            fs.read(fd, buffer, offset, buffer.length - offset, offset, (readError, count) => {
              if (readError) return finish(readError);
              // Zero bytes: the file shrank since the fstat.
              if (count === 0) return finish(undefined, buffer.subarray(0, offset));
              next(offset + count);
            });
          };
          next(0);
        };
        if (checked) checked.then(read, finish);
        else read();
      });
    });
  }),
};

export const syncCalls: FsCalls = {
  realpath: (file) => fs.realpathSync.native(file),
  stat: (file) => fs.statSync(file),
  readChecked: (file, flags, maxBytes, check) => {
    const fd = fs.openSync(file, flags);
    try {
      const stat = fs.fstatSync(fd);
      // The sync calls' checks never wait: their real-path lookups are blocking too.
      void check(stat);
      const buffer = Buffer.allocUnsafe(Math.min(stat.size, maxBytes));
      let offset = 0;
      while (offset < buffer.length) {
        const count = fs.readSync(fd, buffer, offset, buffer.length - offset, offset);
        if (count === 0) return buffer.subarray(0, offset);
        offset += count;
      }
      return buffer;
    } finally {
      fs.closeSync(fd);
    }
  },
};
