/**
 * What the cancellation tests share: a catalog generated into a temporary folder (one file per
 * package, all in one folder: the walk looks at the signal once per folder, the load once per file,
 * so that nearly every look is the load's), and a signal that fires at a chosen look, so that an
 * abort lands mid-way through the work at a point that depends on the code, never on timing.
 */
import { mkdirSync, mkdtempSync, readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

/** Write a catalog of `packages` packages of `bundles` bundles each under a new temporary folder. */
export function generateCatalog(packages: number, bundles: number): { root: string; catalog: string } {
  const root = mkdtempSync(path.join(tmpdir(), 'opm-abort-'));
  const catalog = path.join(root, 'catalog');
  for (let p = 0; p < packages; p++) {
    const name = `pkg-${String(p).padStart(3, '0')}`;
    const lines = [
      '---',
      'schema: olm.package',
      `name: ${name}`,
      'defaultChannel: stable',
      '---',
      'schema: olm.channel',
      `package: ${name}`,
      'name: stable',
      'entries:',
    ];
    for (let b = 0; b < bundles; b++) {
      lines.push(`  - name: ${name}.v1.0.${b}`);
      if (b > 0) lines.push(`    replaces: ${name}.v1.0.${b - 1}`);
    }
    for (let b = 0; b < bundles; b++) {
      lines.push(
        '---',
        'schema: olm.bundle',
        `package: ${name}`,
        `name: ${name}.v1.0.${b}`,
        `image: quay.io/example/${name}-bundle:v1.0.${b}`,
        'properties:',
        '  - type: olm.package',
        '    value:',
        `      packageName: ${name}`,
        `      version: 1.0.${b}`,
        '  - type: olm.gvk',
        '    value:',
        '      group: example.com',
        '      kind: Widget',
        '      version: v1',
        'relatedImages:',
        `  - image: quay.io/example/${name}:v1.0.${b}`,
        '    name: operator',
      );
    }
    mkdirSync(catalog, { recursive: true });
    writeFileSync(path.join(catalog, `${name}.yaml`), `${lines.join('\n')}\n`);
  }
  return { root, catalog };
}

/**
 * A signal that counts how often the work looks at it, and fires at the `fireAt`-th look, or at the
 * first look after it at which `when()` holds.
 */
export interface CountingSignal {
  signal: AbortSignal;
  reason: unknown;
  /** Looks so far. */
  looks(): number;
  /** Looks when it fired (undefined: not fired). */
  firedAt(): number | undefined;
}

export function signalFiringAt(
  fireAt: number,
  reason: unknown = new Error('stopped by the test'),
  when: () => boolean = () => true,
): CountingSignal {
  const controller = new AbortController();
  const signal = controller.signal;
  const realAborted = Object.getOwnPropertyDescriptor(AbortSignal.prototype, 'aborted')?.get;
  if (realAborted === undefined) throw new Error('AbortSignal.prototype.aborted is not a getter');
  let looks = 0;
  let fired: number | undefined;
  Object.defineProperty(signal, 'aborted', {
    get(): boolean {
      looks++;
      if (fired === undefined && looks >= fireAt && when()) {
        fired = looks;
        controller.abort(reason);
      }
      return realAborted.call(signal) as boolean;
    },
  });
  return { signal, reason, looks: () => looks, firedAt: () => fired };
}

/** Names left in `dir` (temporary files and folders of a write would show here). */
export function entries(dir: string): string[] {
  return readdirSync(dir).sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
}
