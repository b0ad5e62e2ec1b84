/**
 * The basic template (`schema: olm.template.basic`, `alpha/template/basic/basic.go`): FBC blobs
 * where each `olm.bundle` is just an image to render; every other blob passes through.
 */
import { OpmError } from '../errors.js';
import { SCHEMA_BUNDLE } from '../declcfg/types.js';
import type { TemplateDocument } from './input.js';
import { BASIC_SCHEMA } from './detect.js';
import { stringField, templateEntries, type TemplateEntry } from './entries.js';

/** Keys a bundle entry may carry: opm renders the image and ignores a name. */
const BUNDLE_KEYS = new Set(['schema', 'image', 'name']);

export interface BasicTemplate {
  label: string;
  /** Bundle entries, in order: the image to render and where it is. */
  bundles: { image: string; entry: TemplateEntry }[];
  /** All other entries, passed through. */
  others: TemplateEntry[];
}

export function parseBasicTemplate(doc: TemplateDocument): BasicTemplate {
  const entries = templateEntries(doc, BASIC_SCHEMA, '');
  const out: BasicTemplate = { label: doc.label, bundles: [], others: [] };
  for (const entry of entries) {
    if (stringField(entry.value, 'schema') !== SCHEMA_BUNDLE) {
      out.others.push(entry);
      continue;
    }
    const extra = Object.keys(entry.value).filter((k) => !BUNDLE_KEYS.has(k.toLowerCase()));
    const image = stringField(entry.value, 'image');
    if (extra.length > 0 || image === '') {
      throw new OpmError('unexpected fields present in basic template bundle', {
        at: { file: doc.label, line: entry.line },
        hint:
          extra.length > 0
            ? `entry ${entry.index} has ${extra.map((k) => JSON.stringify(k)).join(', ')}; a bundle entry holds only schema and image`
            : `entry ${entry.index} has no image`,
      });
    }
    out.bundles.push({ image, entry });
  }
  return out;
}
