/**
 * `--alpha-image-ref-template`: the subset of Go text/template that opm's data offers — the
 * fields {{.Package}}, {{.Name}} and {{.Version}}, with `{{-`/`-}}` whitespace trimming and
 * comments. Anything else is refused when the template is parsed, not when a bundle is rendered.
 */
import { OpmError } from '../../errors.js';

export interface ImageRefData {
  Package: string;
  Name: string;
  Version: string;
}

type Part = { text: string } | { field: keyof ImageRefData };

export interface ImageRefTemplate {
  readonly source: string;
  execute(data: ImageRefData): string;
}

const FIELDS: readonly (keyof ImageRefData)[] = ['Package', 'Name', 'Version'];

function invalid(message: string): never {
  throw new OpmError(`invalid image reference template: ${message}`);
}

export function parseImageRefTemplate(source: string): ImageRefTemplate {
  const parts: Part[] = [];
  let pos = 0;
  let trimNextText = false;
  const pushText = (t: string): void => {
    const text = trimNextText ? t.replace(/^\s+/, '') : t;
    trimNextText = false;
    if (text !== '') parts.push({ text });
  };
  while (pos < source.length) {
    const open = source.indexOf('{{', pos);
    if (open < 0) {
      pushText(source.slice(pos));
      break;
    }
    const close = source.indexOf('}}', open + 2);
    if (close < 0) invalid(`unclosed action in ${JSON.stringify(source)}`);
    let inner = source.slice(open + 2, close);
    let before = source.slice(pos, open);
    // Go's trim markers need a space between the dash and the action body.
    if (/^-\s/.test(inner)) {
      before = before.replace(/\s+$/, '');
      inner = inner.slice(1);
    }
    let trimAfter = false;
    if (/\s-$/.test(inner)) {
      trimAfter = true;
      inner = inner.slice(0, -1);
    }
    pushText(before);
    const body = inner.trim();
    if (/^\/\*[\s\S]*\*\/$/.test(body)) {
      // A comment produces nothing.
    } else {
      const field = FIELDS.find((f) => body === `.${f}`);
      if (field === undefined) {
        invalid(
          `unsupported action {{${inner}}} in ${JSON.stringify(source)}; the fields are {{.Package}}, {{.Name}} and {{.Version}}`,
        );
      }
      parts.push({ field });
    }
    trimNextText = trimAfter;
    pos = close + 2;
  }
  return {
    source,
    execute(data: ImageRefData): string {
      return parts.map((p) => ('text' in p ? p.text : data[p.field])).join('');
    },
  };
}
