// The command lines the launcher (launch.ts) hands to the render of bundle directories of its own
// (render-bundle-fast.ts): told apart here, in a module of their own, so that the launcher can ask
// without loading that render.

/** What the fast path makes of a command line it takes: the refs and the output format. */
export interface PlainBundleRender {
  refs: string[];
  format: 'json' | 'yaml';
}

/**
 * `render` followed by bundle directory arguments and at most one `-o json|yaml`, `--output
 * json|yaml` or `--output=json|yaml`; undefined for every other command line (another value, any
 * other flag, `--`, an argument that starts with `-` or is empty).
 */
export function plainBundleRender(args: readonly string[]): PlainBundleRender | undefined {
  if (args[0] !== 'render') return undefined;
  const refs: string[] = [];
  let format: string | undefined;
  for (let i = 1; i < args.length; i++) {
    const a = args[i] ?? '';
    let value: string | undefined;
    if (a === '-o' || a === '--output') value = args[++i];
    else if (a.startsWith('--output=')) value = a.slice('--output='.length);
    else if (a === '' || a.startsWith('-')) return undefined;
    else {
      refs.push(a);
      continue;
    }
    if (format !== undefined || (value !== 'json' && value !== 'yaml')) return undefined;
    format = value;
  }
  return refs.length === 0 ? undefined : { refs, format: format === 'yaml' ? 'yaml' : 'json' };
}
