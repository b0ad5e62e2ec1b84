/**
 * Entries of a tar archive held in memory. Layers of bundle and catalog images are small, and
 * reading them from one buffer avoids loading a stream library and a turn of the event loop per
 * entry. It reads what the streaming reader (tar-stream) reads, the same way: ustar with its name
 * prefix, GNU long names and link names, pax `path`/`linkpath`/`size` records (global records
 * count only together with a per-entry one, as there), octal or base-256 numbers, checksums.
 */

export interface TarHeader {
  name: string;
  /** tar-stream's names: file, link, symlink, character-device, block-device, directory, fifo, contiguous-file, … */
  type: string;
  size: number;
  linkname: string | undefined;
  /** The permission bits (and setuid, setgid, sticky) the entry was archived with. */
  mode?: number;
}

/**
 * A header as tar-stream decodes it. Its types call every field set, but its decoder leaves `type`
 * null for an unknown type flag, `linkname` null when empty and `size` null for a base-256 number
 * it cannot read.
 */
export interface StreamedTarHeader {
  name: string;
  type: string | null;
  size: number | null;
  linkname: string | null;
  mode?: number | null;
}

export interface TarEntry {
  header: TarHeader;
  /** The entry's content (a view into the archive, not a copy). */
  body: Buffer;
}

const BLOCK = 512;

const TYPES: Record<number, string> = {
  0: 'file',
  1: 'link',
  2: 'symlink',
  3: 'character-device',
  4: 'block-device',
  5: 'directory',
  6: 'fifo',
  7: 'contiguous-file',
  72: 'pax-header',
  55: 'pax-global-header',
  27: 'gnu-long-link-path',
  28: 'gnu-long-path',
  30: 'gnu-long-name',
};

class TarError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'TarError';
  }
}

function str(buf: Buffer, start: number, length: number): string {
  const end = buf.indexOf(0, start);
  return buf.toString('utf8', start, end < 0 || end > start + length ? start + length : end);
}

/** A numeric field: octal text (leading spaces, NUL or space ended), or base-256 when the top bit is set. */
function num(buf: Buffer, start: number, length: number): number {
  const field = buf.subarray(start, start + length);
  const first = field[0] ?? 0;
  if (first & 0x80) {
    if (first !== 0x80 && first !== 0xff) return Number.NaN;
    const positive = first === 0x80;
    let sum = 0;
    for (let i = 1; i < field.length; i++) {
      const b = field[i] ?? 0;
      sum = sum * 256 + (positive ? b : 0xff - b);
    }
    return positive ? sum : -sum;
  }
  let i = 0;
  while (i < field.length && field[i] === 0x20) i++;
  let end = field.indexOf(0x20, i);
  if (end < 0) end = field.length;
  while (i < end && field[i] === 0) i++;
  if (i === end) return 0;
  return Number.parseInt(field.toString('latin1', i, end), 8);
}

function checksum(block: Buffer): number {
  let sum = 8 * 32;
  for (let i = 0; i < BLOCK; i++) if (i < 148 || i >= 156) sum += block[i] ?? 0;
  return sum;
}

function isZero(block: Buffer): boolean {
  for (let i = 0; i < block.length; i++) if (block[i] !== 0) return false;
  return true;
}

function paxRecords(buf: Buffer): Record<string, string> {
  const out: Record<string, string> = {};
  let rest = buf;
  while (rest.length > 0) {
    const space = rest.indexOf(0x20);
    const len = Number.parseInt(rest.toString('utf8', 0, space < 0 ? rest.length : space), 10);
    if (!(len > 0) || space < 0) return out;
    const record = rest.toString('utf8', space + 1, len - 1);
    const eq = record.indexOf('=');
    if (eq < 0) return out;
    out[record.slice(0, eq)] = record.slice(eq + 1);
    rest = rest.subarray(len);
  }
  return out;
}

/** The entries of `tar`, metadata entries (long names, pax) already applied to the ones they describe. */
export function* tarEntries(tar: Buffer): Generator<TarEntry> {
  let pos = 0;
  let longName: string | undefined;
  let longLink: string | undefined;
  let pax: Record<string, string> | undefined;
  let paxGlobal: Record<string, string> | undefined;
  while (pos + BLOCK <= tar.length) {
    const block = tar.subarray(pos, pos + BLOCK);
    pos += BLOCK;
    const sum = checksum(block);
    // An all-zero block (end-of-archive marker or padding) is skipped.
    if (sum === 8 * 32 && isZero(block)) continue;
    if (sum !== num(block, 148, 8))
      throw new TarError('Invalid tar header. Maybe the tar is corrupted or it needs to be gunzipped?');
    const magic = block.toString('latin1', 257, 263);
    const ustar = magic === 'ustar\0';
    const gnu = magic === 'ustar ' && block.toString('latin1', 263, 265) === ' \0';
    if (!ustar && !gnu) throw new TarError('Invalid tar header: unknown format.');
    let typeflag = block[156] === 0 ? 0 : (block[156] ?? 0) - 48;
    let name = str(block, 0, 100);
    if (ustar && block[345] !== 0) name = `${str(block, 345, 155)}/${name}`;
    // Old archives mark folders by a trailing slash only.
    if (typeflag === 0 && name.endsWith('/')) typeflag = 5;
    const size = num(block, 124, 12);
    if (!Number.isSafeInteger(size) || size < 0) throw new TarError(`Invalid tar header: size of "${name}"`);
    if (pos + size > tar.length) throw new TarError('Unexpected end of data');
    const body = tar.subarray(pos, pos + size);
    pos += Math.ceil(size / BLOCK) * BLOCK;
    const type = TYPES[typeflag] ?? 'unknown';
    switch (type) {
      case 'gnu-long-path':
        longName = str(body, 0, body.length);
        continue;
      case 'gnu-long-link-path':
        longLink = str(body, 0, body.length);
        continue;
      case 'pax-global-header':
        paxGlobal = paxRecords(body);
        continue;
      case 'pax-header':
        pax = { ...paxGlobal, ...paxRecords(body) };
        continue;
    }
    const header: TarHeader = {
      name,
      type,
      size,
      linkname: block[157] === 0 ? undefined : str(block, 157, 100),
      mode: num(block, 100, 8) & 0o7777,
    };
    if (longName !== undefined) header.name = longName;
    if (longLink !== undefined) header.linkname = longLink;
    longName = undefined;
    longLink = undefined;
    let content = body;
    if (pax !== undefined) {
      if (pax.path) header.name = pax.path;
      if (pax.linkpath) header.linkname = pax.linkpath;
      if (pax.size) {
        // A pax size overrides the header's (for files of 8 GiB and more): the body is that long.
        const paxSize = Number.parseInt(pax.size, 10);
        if (!Number.isSafeInteger(paxSize) || paxSize < 0) throw new TarError('Invalid pax size');
        const start = pos - Math.ceil(size / BLOCK) * BLOCK;
        if (start + paxSize > tar.length) throw new TarError('Unexpected end of data');
        content = tar.subarray(start, start + paxSize);
        pos = start + Math.ceil(paxSize / BLOCK) * BLOCK;
        header.size = paxSize;
      }
      pax = undefined;
    }
    yield { header, body: content };
  }
  if (pos < tar.length && !isZero(tar.subarray(pos))) throw new TarError('Unexpected end of data');
}
