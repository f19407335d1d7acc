/*
 * The one way the library and its CLI open a file they write (and the files they read from a
 * path a user gave): every other module goes through these functions, and eslint refuses a write
 * call of node:fs anywhere else (eslint.config.js). What they hold (phone numbers, message text,
 * API keys, passwords) is for the owner only, and the path may have been prepared by another local
 * user, so:
 * - files are created 0600 and missing directories 0700 (before the umask);
 * - a symbolic link at the file itself is refused, never followed (O_NOFOLLOW);
 * - only regular files are written or read: a FIFO, a device, a socket or a directory at the path
 *   is refused, and the open never waits for a FIFO's other end (O_NONBLOCK, then fstat);
 * - a whole file is written to a fresh temporary file beside it (O_CREAT | O_EXCL | O_NOFOLLOW, a
 *   random name), then renamed over the target: no predictable name to plant a link at, and a
 *   reader sees the old file or the new one, never half of one.
 * Windows has neither O_NOFOLLOW nor O_NONBLOCK: there the modes and the regular-file check apply.
 */
import { randomBytes } from 'node:crypto';
import {
  close,
  closeSync,
  constants,
  createWriteStream,
  fstat,
  fstatSync,
  fsyncSync,
  lstatSync,
  mkdirSync,
  open,
  openSync,
  readFileSync,
  renameSync,
  unlinkSync,
  write,
  writeSync,
  writev,
  type Stats,
  type WriteStream,
} from 'node:fs';
import { open as openAsync, type FileHandle } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';

/** Permissions of a file the library creates: read and write by its owner only. */
const OWNER_FILE_MODE = 0o600;
/** Permissions of a directory the library creates: its owner only. */
const OWNER_DIRECTORY_MODE = 0o700;

const NO_FOLLOW = constants.O_NOFOLLOW ?? 0;
const NON_BLOCK = constants.O_NONBLOCK ?? 0;
/** Append, create, never through a link at the last component, never waiting for a FIFO's reader. */
const APPEND_FLAGS = constants.O_WRONLY | constants.O_APPEND | constants.O_CREAT | NO_FOLLOW | NON_BLOCK;
/** A temporary file that did not exist before this open, and is not a link. */
const TEMPORARY_FLAGS = constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | NO_FOLLOW;
/** Read without waiting for a FIFO's writer (the regular-file check refuses one right after). */
const READ_FLAGS = constants.O_RDONLY | NON_BLOCK;

/** Why a path was refused: it is not a regular file (a link, a FIFO, a device, a directory). */
export class UnsafeFileError extends Error {
  override readonly name = 'UnsafeFileError';
  readonly code = 'unsafe_file' as const;
  constructor(
    readonly file: string,
    message: string,
    options?: ErrorOptions,
  ) {
    super(message, options);
  }
}

/** Options of the functions that create files. */
export interface FileModeOptions {
  /** Mode of a file created, before the umask. @default 0o600 */
  readonly fileMode?: number | undefined;
  /** Mode of each missing directory created, before the umask. @default 0o700 */
  readonly directoryMode?: number | undefined;
}

/** Throws a TypeError naming `name` unless `value` is undefined or permission bits. */
export function checkFileMode(name: string, value: number | undefined): void {
  if (value !== undefined && !(Number.isInteger(value) && value >= 0 && value <= 0o7777)) {
    throw new TypeError(`${name}: expected permission bits such as 0o600, got ${String(value)}`);
  }
}

/** What a path holds, in words, for a refusal. */
function kindOf(stats: Stats): string {
  if (stats.isSymbolicLink()) return 'a symbolic link';
  if (stats.isFIFO()) return 'a FIFO (named pipe)';
  if (stats.isDirectory()) return 'a directory';
  if (stats.isCharacterDevice() || stats.isBlockDevice()) return 'a device';
  if (stats.isSocket()) return 'a socket';
  return 'not a regular file';
}

function notRegular(file: string, stats: Stats): UnsafeFileError {
  return new UnsafeFileError(file, `${file} is ${kindOf(stats)}: refused (only a regular file is used)`);
}

/**
 * An open failure in plain words: a symbolic link refused by O_NOFOLLOW (ELOOP), a FIFO without
 * a reader refused by O_NONBLOCK (ENXIO); other errors as they are.
 */
export function describeOpenFailure(file: string, error: Error): Error {
  const code = (error as NodeJS.ErrnoException).code;
  if (code === 'ELOOP') {
    return new UnsafeFileError(
      file,
      `${file} is a symbolic link: refused, not followed (the file is opened with O_NOFOLLOW); give the real path`,
      { cause: error },
    );
  }
  if (code === 'ENXIO') {
    return new UnsafeFileError(
      file,
      `${file} is a FIFO (named pipe): refused (only a regular file is used)`,
      {
        cause: error,
      },
    );
  }
  return error;
}

/** Creates `directory` and its missing parents with `mode` (existing ones keep theirs). */
function makeDirectory(directory: string, mode: number = OWNER_DIRECTORY_MODE): void {
  mkdirSync(directory, { recursive: true, mode });
}

/**
 * Opens `file` for appending (its directory created first), as a write stream: created with
 * `fileMode`, refused when it is a symbolic link, a FIFO (even one with a reader), a device or
 * anything but a regular file. A refusal reaches the stream's `error` event (and the callback of
 * the first write) as an {@link UnsafeFileError}.
 */
export function openAppendStream(file: string, options: FileModeOptions = {}): WriteStream {
  makeDirectory(dirname(file), options.directoryMode ?? OWNER_DIRECTORY_MODE);
  return createWriteStream(file, {
    // numeric flags: fs.open takes them as they are
    flags: APPEND_FLAGS as unknown as string,
    mode: options.fileMode ?? OWNER_FILE_MODE,
    encoding: 'utf8',
    fs: {
      open(path: string, flags: number, mode: number, callback: (error: Error | null, fd?: number) => void) {
        open(path, flags, mode, (error, fd) => {
          if (error !== null) return callback(describeOpenFailure(file, error));
          fstat(fd, (statError, stats) => {
            if (statError === null && stats.isFile()) return callback(null, fd);
            close(fd, () => callback(statError ?? notRegular(file, stats)));
          });
        });
      },
      write,
      writev,
      close,
    },
  });
}

/**
 * Writes `data` to `file` whole: into a new temporary file beside it (random name, created with
 * O_EXCL and O_NOFOLLOW, mode `fileMode`), synced, then renamed over `file`. A symbolic link, a
 * FIFO or any other non-regular file at `file` is refused before anything is written; the
 * directory must exist.
 */
export function writeFileAtomically(
  file: string,
  data: string | Uint8Array,
  options: FileModeOptions = {},
): void {
  let existing: Stats | undefined;
  try {
    existing = lstatSync(file);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
  if (existing !== undefined && !existing.isFile()) throw notRegular(file, existing);
  const temporary = join(dirname(file), `.${basename(file)}.${randomBytes(8).toString('hex')}.tmp`);
  const fd = openSync(temporary, TEMPORARY_FLAGS, options.fileMode ?? OWNER_FILE_MODE);
  let renamed = false;
  try {
    const bytes = typeof data === 'string' ? Buffer.from(data, 'utf8') : data;
    for (let offset = 0; offset < bytes.length;) offset += writeSync(fd, bytes, offset);
    fsyncSync(fd);
    closeSync(fd);
    renameSync(temporary, file);
    renamed = true;
  } finally {
    if (!renamed) {
      try {
        closeSync(fd);
      } catch {
        // closed already
      }
      try {
        unlinkSync(temporary);
      } catch {
        // the temporary file is ours, and gone already
      }
    }
  }
}

/**
 * Reads a whole regular file as UTF-8 text. A FIFO, a device or a directory is refused without
 * waiting on it (a symbolic link to a regular file is read: reading through it changes nothing);
 * a file larger than `maxBytes` is refused.
 */
export function readRegularFile(file: string, maxBytes: number = Number.MAX_SAFE_INTEGER): string {
  const fd = openSync(file, READ_FLAGS);
  try {
    const stats = fstatSync(fd);
    if (!stats.isFile()) throw notRegular(file, stats);
    if (stats.size > maxBytes) {
      throw new UnsafeFileError(file, `${file} is ${stats.size} bytes, over the ${maxBytes} bytes allowed`);
    }
    return readFileSync(fd, 'utf8');
  } finally {
    closeSync(fd);
  }
}

/**
 * Opens a regular file for reading (see {@link readRegularFile}): a FIFO, a device or a directory
 * is refused without waiting on it.
 */
export async function openRegularFile(file: string): Promise<FileHandle> {
  const handle = await openAsync(file, READ_FLAGS);
  try {
    const stats = await handle.stat();
    if (!stats.isFile()) throw notRegular(file, stats);
    return handle;
  } catch (error) {
    await handle.close();
    throw error;
  }
}
