import fs from 'node:fs';
import path from 'node:path';

/** A log file that pino writes to, rotated by size; `close()` releases its descriptor. */
export interface LogFile {
  write(line: string): void;
  close(): void;
}

/**
 * Opens a log file that keeps at most `keep` older generations (`flexsite.log.1` … `.keep`)
 * beside the current one, each about `maxBytes` long. Writes are synchronous: lines reach the
 * file even when the process dies right after logging, and no handle outlives `close()`.
 * @param file the current log file; its folder is created.
 * @param options size limit per file and the number of older files kept.
 * @returns the open log file.
 */
export function openLogFile(file: string, options: { maxBytes?: number; keep?: number } = {}): LogFile {
  const maxBytes = options.maxBytes ?? 10 * 1024 * 1024;
  const keep = options.keep ?? 5;
  fs.mkdirSync(path.dirname(file), { recursive: true });
  let fd: number | null = fs.openSync(file, 'a');
  let size = fs.fstatSync(fd).size;

  const rotate = (current: number) => {
    fs.closeSync(current);
    fs.rmSync(`${file}.${keep}`, { force: true });
    for (let i = keep - 1; i >= 1; i--) {
      if (fs.existsSync(`${file}.${i}`)) fs.renameSync(`${file}.${i}`, `${file}.${i + 1}`);
    }
    fs.renameSync(file, `${file}.1`);
    size = 0;
    return fs.openSync(file, 'a');
  };

  return {
    write(line) {
      if (fd === null) return;
      const bytes = Buffer.byteLength(line);
      if (size > 0 && size + bytes > maxBytes) fd = rotate(fd);
      fs.writeSync(fd, line);
      size += bytes;
    },
    close() {
      if (fd !== null) fs.closeSync(fd);
      fd = null;
    },
  };
}
