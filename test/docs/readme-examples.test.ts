// The README's library examples type-check against the library's own types (src/index.ts as the
// package `opm-ts`), strictly, as a TypeScript user who copies them would compile them: every
// ```js block is one module, the CommonJS one checked as JavaScript with its `require` resolved.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

interface Example {
  /** The line of README.md the block's code starts on. */
  line: number;
  code: string;
}

/** Every ```js block of the README, with the line its code starts on. */
function examples(readme: string): Example[] {
  const out: Example[] = [];
  for (const m of readme.matchAll(/^```js\n([\s\S]*?)^```$/gm)) {
    out.push({ line: readme.slice(0, m.index).split('\n').length + 1, code: m[1] ?? '' });
  }
  return out;
}

/** A file name for the example: a CommonJS block (one that calls require) is a .cjs script. */
const fileOf = (e: Example): string =>
  path.join(root, 'test', 'docs', `readme-line-${e.line}.${e.code.includes('require(') ? 'cjs' : 'ts'}`);

/** The diagnostics of compiling the examples together, as `README.md:<line>: <message>` lines. */
function diagnostics(list: readonly Example[]): string[] {
  const config = ts.getParsedCommandLineOfConfigFile(
    path.join(root, 'tsconfig.json'),
    {},
    {
      ...ts.sys,
      onUnRecoverableConfigFileDiagnostic: (d) => {
        throw new Error(ts.flattenDiagnosticMessageText(d.messageText, '\n'));
      },
    },
  );
  if (config === undefined) throw new Error('tsconfig.json cannot be read');
  const options: ts.CompilerOptions = {
    ...config.options,
    noEmit: true,
    allowJs: true,
    checkJs: true,
    baseUrl: root,
    paths: { 'opm-ts': ['src/index.ts'] },
  };
  const files = new Map(list.map((e) => [fileOf(e), e]));
  const host = ts.createCompilerHost(options);
  const { fileExists, readFile, getSourceFile } = host;
  host.fileExists = (f) => files.has(f) || fileExists.call(host, f);
  host.readFile = (f) => files.get(f)?.code ?? readFile.call(host, f);
  host.getSourceFile = (f, lang, ...rest) => {
    const e = files.get(f);
    return e === undefined
      ? getSourceFile.call(host, f, lang, ...rest)
      : ts.createSourceFile(f, e.code, lang);
  };
  const program = ts.createProgram([...files.keys()], options, host);
  return [...files].flatMap(([file, e]) => {
    const source = program.getSourceFile(file);
    if (source === undefined) return [`README.md:${e.line}: not compiled`];
    return [...program.getSyntacticDiagnostics(source), ...program.getSemanticDiagnostics(source)].map(
      (d) => {
        const at = d.start === undefined ? 0 : source.getLineAndCharacterOfPosition(d.start).line;
        return `README.md:${e.line + at}: ${ts.flattenDiagnosticMessageText(d.messageText, '\n')}`;
      },
    );
  });
}

describe('README examples', () => {
  const list = examples(readFileSync(path.join(root, 'README.md'), 'utf8'));

  it('are found, ES modules and the CommonJS one', () => {
    expect(list.length).toBeGreaterThanOrEqual(5);
    expect(list.filter((e) => fileOf(e).endsWith('.cjs'))).toHaveLength(1);
    expect(list.every((e) => e.code.includes("from 'opm-ts'") || e.code.includes("require('opm-ts')"))).toBe(
      true,
    );
  });

  it('type-check against the library, strictly', () => {
    expect(diagnostics(list)).toEqual([]);
  }, 300_000);

  it('would show a mistake in any of them, the CommonJS one included', () => {
    // Not vacuous: a misspelt member of a result in each example is reported at its line, so the
    // imports resolve to the library's types (not to `any`).
    const wrong = list.map((e) => ({ ...e, code: e.code.replace(/\.passed\b/, '.passd') }));
    const changed = wrong.filter((e, i) => e.code !== list[i]?.code);
    expect(changed.length).toBeGreaterThanOrEqual(2);
    expect(changed.some((e) => fileOf(e).endsWith('.cjs'))).toBe(true);
    const found = diagnostics(wrong);
    for (const e of changed) {
      const at = e.line + e.code.split('\n').findIndex((l) => l.includes('.passd'));
      expect(
        found.filter((d) => d.startsWith(`README.md:${at}: Property 'passd' does not exist`)),
      ).toHaveLength(1);
    }
    expect(found).toHaveLength(changed.length);
  }, 300_000);
});
