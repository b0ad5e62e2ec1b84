import { OpmError } from '../errors.js';
import { SCHEMA_PACKAGE, type Package } from '../declcfg/types.js';
import { dns1123LabelErrors } from '../model/names.js';
import { detectMediaType } from '../util/icon-type.js';
import { expectObject, expectOptionalString } from '../util/args.js';

export interface InitOptions {
  package: string;
  defaultChannel: string;
  /** Contents of the description file, kept whole (trailing newline included), as opm does. */
  description?: string;
  /** Bytes of the icon file (a Buffer, as `fs.readFileSync` returns, or any Uint8Array). */
  icon?: Uint8Array;
  /** Shown in icon errors. */
  iconPath?: string;
}

/**
 * Build the `olm.package` blob for a new package, as `opm init` does (write it with
 * `jsonChunks({ ...emptyConfig(), packages: [pkg] })`, say). Throws OpmError for a name a catalog
 * cannot use or an icon that is not an image.
 */
export function initPackage(opts: InitOptions): Package {
  expectObject(opts, 'initPackage(options)');
  // An empty name is opm's input error below, not a wrong argument.
  for (const key of ['package', 'defaultChannel'] as const) {
    if (typeof opts[key] !== 'string') throw new TypeError(`initPackage(options).${key} must be a string`);
  }
  expectOptionalString(opts.description, 'initPackage(options).description');
  expectOptionalString(opts.iconPath, 'initPackage(options).iconPath');
  if (opts.icon !== undefined && !(opts.icon instanceof Uint8Array)) {
    throw new TypeError(
      "initPackage(options).icon must be the icon file's bytes (a Uint8Array, such as fs.readFileSync(path) returns)",
    );
  }
  // opm prints nothing for an empty name and accepts invalid ones; a catalog cannot use either.
  if (opts.package === '') {
    throw new OpmError('package name must not be empty', { hint: 'opm init <packageName>' });
  }
  const nameErrors = dns1123LabelErrors(opts.package);
  if (nameErrors.length > 0) {
    throw new OpmError(`invalid package name "${opts.package}": ${nameErrors.join('; ')}`);
  }
  const pkg: Package = { schema: SCHEMA_PACKAGE, name: opts.package, defaultChannel: opts.defaultChannel };
  if (opts.icon !== undefined) {
    const where = opts.iconPath === undefined ? '' : ` in "${opts.iconPath}"`;
    if (opts.icon.length === 0) {
      throw new OpmError(`detect icon mediatype${where}: Empty buffer`, { hint: 'the icon file is empty' });
    }
    const icon = Buffer.from(opts.icon.buffer, opts.icon.byteOffset, opts.icon.byteLength);
    const mediatype = detectMediaType(icon);
    if (!mediatype.startsWith('image/')) {
      throw new OpmError(`detected invalid type "${mediatype}"${where}: not an image`, {
        hint: 'use a PNG, JPEG, GIF, SVG or other image file',
      });
    }
    pkg.icon = { base64data: icon.toString('base64'), mediatype };
  }
  if (opts.description !== undefined && opts.description !== '') pkg.description = opts.description;
  return pkg;
}
