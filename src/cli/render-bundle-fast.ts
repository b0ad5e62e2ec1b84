// The plain form of `opm render` on bundle directories, `opm render <bundle dir>... [-o|--output
// json|yaml]`, rendered without the command line: scripts/bundle.js makes this module and what it
// imports a bundle of its own (dist/opm-render-bundle.cjs, with its own code cache), which the
// launcher (launch.ts) tries before the short bundle. It holds no commander, no set-up of main.ts,
// none of the other commands; a process that renders one small bundle directory spends most of its
// time starting and running code for the first time, so what is not loaded is time saved.
//
// It declines (returns undefined) on anything but a clean render: another shape of command line,
// an argument that is not a bundle directory, any error, any warning, a blob the writers would drop.
// Then nothing has been written and the launcher runs the ordinary command line from scratch, which
// says what it always says. So output, messages and exit codes are those of the ordinary path, byte
// for byte (test/cli/launch.test.ts holds it to that).
import path from 'node:path';
import { isBundleDirSync, parseBundleDirSync } from '../bundle/parse.js';
import { toDeclcfgBundle } from '../bundle/convert.js';
import { putInRenderOrder } from '../action/render/render-bundle-order.js';
import { emptyConfig, type DeclarativeConfig } from '../declcfg/types.js';
import { writeJsonBytes, writeYaml } from '../declcfg/write.js';
import { plainBundleRender } from './render-bundle-args.js';

/** Thrown inside to decline; never leaves this module. */
class Declined extends Error {}

const decline = (): never => {
  throw new Declined();
};

/**
 * The output of `opm render` for `args` (without node and script) when they are the plain form on
 * bundle directories and the render is clean: the bytes to write to standard output. Undefined when
 * it declines (see above); nothing is written either way.
 */
export function renderBundleDirsFast(args: readonly string[], cwd: string): Uint8Array | undefined {
  const plain = plainBundleRender(args);
  if (plain === undefined) return undefined;
  try {
    const dirs = plain.refs.map((ref) => path.resolve(cwd, ref));
    // A path that is no directory throws (ENOTDIR), and so declines as well.
    if (!dirs.every(isBundleDirSync)) return undefined;
    const cfg: DeclarativeConfig = emptyConfig();
    for (const dir of dirs) {
      const b = toDeclcfgBundle(parseBundleDirSync(dir, { onWarning: decline }), '', { onWarning: decline });
      putInRenderOrder(b);
      cfg.bundles.push(b);
    }
    const options = { onDropped: decline };
    const parts: Uint8Array[] = [];
    if (plain.format === 'json') {
      // The writer's chunks may share one buffer: each is copied before the next is asked for.
      for (const chunk of writeJsonBytes(cfg, options)) parts.push(Buffer.from(chunk));
    } else {
      for (const text of writeYaml(cfg, options)) parts.push(Buffer.from(text, 'utf8'));
    }
    return parts.length === 1 && parts[0] !== undefined ? parts[0] : Buffer.concat(parts);
  } catch {
    return undefined;
  }
}
