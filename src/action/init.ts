import { OpmError } from '../errors.js';
import { SCHEMA_PACKAGE, type Package } from '../declcfg/types.js';
import { dns1123LabelErrors } from '../model/names.js';
import { detectMediaType } from '../util/icon-type.js';

export interface InitOptions {
  package: string;
  defaultChannel: string;
  /** Contents of the description file, kept whole (trailing newline included), as opm does. */
  description?: string;
  /** Bytes of the icon file. */
  icon?: Buffer;
  /** Shown in icon errors. */
  iconPath?: string;
}

/** Build the `olm.package` blob for a new package (opm init). */
export function initPackage(opts: InitOptions): Package {
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
    const mediatype = detectMediaType(opts.icon);
    if (!mediatype.startsWith('image/')) {
      throw new OpmError(`detected invalid type "${mediatype}"${where}: not an image`, {
        hint: 'use a PNG, JPEG, GIF, SVG or other image file',
      });
    }
    pkg.icon = { base64data: opts.icon.toString('base64'), mediatype };
  }
  if (opts.description !== undefined && opts.description !== '') pkg.description = opts.description;
  return pkg;
}
