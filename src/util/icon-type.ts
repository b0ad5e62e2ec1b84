/**
 * Media type of an icon from its first bytes, as opm decides it (magic numbers, plus SVG).
 * Only `image/*` types are accepted as icons; other known types are named in the error.
 */

interface Signature {
  mime: string;
  test: (b: Buffer) => boolean;
}

const startsWith = (b: Buffer, bytes: number[], offset = 0): boolean =>
  b.length >= offset + bytes.length && bytes.every((x, i) => b[offset + i] === x);
const ascii = (b: Buffer, text: string, offset = 0): boolean =>
  b.length >= offset + text.length && b.toString('latin1', offset, offset + text.length) === text;

// Image types first, then common non-image types so the error can say what the file is.
const SIGNATURES: Signature[] = [
  { mime: 'image/jpeg', test: (b) => startsWith(b, [0xff, 0xd8, 0xff]) },
  {
    mime: 'image/jp2',
    test: (b) => startsWith(b, [0x00, 0x00, 0x00, 0x0c, 0x6a, 0x50, 0x20, 0x20, 0x0d, 0x0a, 0x87, 0x0a]),
  },
  { mime: 'image/png', test: (b) => startsWith(b, [0x89, 0x50, 0x4e, 0x47]) },
  { mime: 'image/gif', test: (b) => startsWith(b, [0x47, 0x49, 0x46]) },
  { mime: 'image/webp', test: (b) => ascii(b, 'WEBP', 8) },
  {
    mime: 'image/x-canon-cr2',
    test: (b) =>
      (startsWith(b, [0x49, 0x49, 0x2a, 0x00]) || startsWith(b, [0x4d, 0x4d, 0x00, 0x2a])) &&
      startsWith(b, [0x43, 0x52], 8),
  },
  {
    mime: 'image/tiff',
    test: (b) => startsWith(b, [0x49, 0x49, 0x2a, 0x00]) || startsWith(b, [0x4d, 0x4d, 0x00, 0x2a]),
  },
  { mime: 'image/bmp', test: (b) => startsWith(b, [0x42, 0x4d]) },
  { mime: 'image/vnd.ms-photo', test: (b) => startsWith(b, [0x49, 0x49, 0xbc]) },
  { mime: 'image/vnd.adobe.photoshop', test: (b) => ascii(b, '8BPS') },
  { mime: 'image/vnd.microsoft.icon', test: (b) => startsWith(b, [0x00, 0x00, 0x01, 0x00]) },
  {
    mime: 'image/heif',
    test: (b) => ascii(b, 'ftyp', 4) && ['heic', 'heix', 'mif1', 'msf1'].some((brand) => ascii(b, brand, 8)),
  },
  {
    mime: 'image/avif',
    test: (b) => ascii(b, 'ftyp', 4) && ['avif', 'avis'].some((brand) => ascii(b, brand, 8)),
  },
  { mime: 'image/vnd.dwg', test: (b) => startsWith(b, [0x41, 0x43, 0x31, 0x30]) },
  { mime: 'image/x-exr', test: (b) => startsWith(b, [0x76, 0x2f, 0x31, 0x01]) },
  { mime: 'application/pdf', test: (b) => ascii(b, '%PDF') },
  { mime: 'application/zip', test: (b) => startsWith(b, [0x50, 0x4b, 0x03, 0x04]) },
  { mime: 'application/gzip', test: (b) => startsWith(b, [0x1f, 0x8b, 0x08]) },
  { mime: 'application/x-tar', test: (b) => ascii(b, 'ustar', 257) },
  { mime: 'application/x-executable', test: (b) => startsWith(b, [0x7f, 0x45, 0x4c, 0x46]) },
  { mime: 'video/mp4', test: (b) => ascii(b, 'ftyp', 4) },
  { mime: 'audio/mpeg', test: (b) => ascii(b, 'ID3') },
  { mime: 'application/font-woff', test: (b) => ascii(b, 'wOFF') },
];

/** An SVG document: optional BOM, XML declaration, comments and doctype, then an `<svg` element. */
function isSvg(b: Buffer): boolean {
  const head = b.toString('utf8', 0, Math.min(b.length, 4096)).replace(/^\uFEFF/, '');
  const rest = head.replace(/^(\s|<\?xml[^>]*\?>|<!--[\s\S]*?-->|<!DOCTYPE[^>]*>)*/i, '');
  return /^<svg[\s>]/i.test(rest);
}

/** The detected media type, or '' when unknown. */
export function detectMediaType(bytes: Buffer): string {
  for (const s of SIGNATURES) if (s.test(bytes)) return s.mime;
  return isSvg(bytes) ? 'image/svg+xml' : '';
}
