// `npm run docs:api`: the API reference of the library, docs/api/README.md, written from what
// src/index.ts exports and the doc comments of each export (read with the TypeScript compiler, so
// no documentation tool is needed). The file is generated, not kept in git; `npm run lint` writes it
// too, so an export the reader cannot describe fails there. Its contents: each function with its
// signature, its comment and its examples; each class, interface and type with its members.
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

const root = path.dirname(path.dirname(fileURLToPath(import.meta.url)));
const entry = path.join(root, 'src', 'index.ts');
const outDir = path.join(root, 'docs', 'api');

const config = ts.getParsedCommandLineOfConfigFile(
  path.join(root, 'tsconfig.build.json'),
  {},
  {
    ...ts.sys,
    onUnRecoverableConfigFileDiagnostic: (d) => {
      throw new Error(ts.flattenDiagnosticMessageText(d.messageText, '\n'));
    },
  },
);
if (config === undefined) throw new Error('tsconfig.build.json cannot be read');
const program = ts.createProgram([entry], { ...config.options, noEmit: true });
const checker = program.getTypeChecker();
const source = program.getSourceFile(entry);
if (source === undefined) throw new Error(`${entry} is not in the program`);
const moduleSymbol = checker.getSymbolAtLocation(source);
if (moduleSymbol === undefined) throw new Error(`${entry} has no exports`);

const FLAGS = ts.TypeFormatFlags.NoTruncation | ts.TypeFormatFlags.UseAliasDefinedOutsideCurrentScope;

/** The symbol an export stands for (through `export { x } from` and aliases). */
function target(symbol) {
  return symbol.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(symbol) : symbol;
}

function docOf(symbol) {
  return ts.displayPartsToString(symbol.getDocumentationComment(checker)).trim();
}

function tagsOf(symbol) {
  return symbol
    .getJsDocTags(checker)
    .map((t) => ({ name: t.name, text: ts.displayPartsToString(t.text ?? []).trim() }));
}

/** The comment, then the examples as code blocks, then other tags as a list. */
function commentBlock(symbol) {
  const parts = [];
  const doc = docOf(symbol);
  if (doc !== '') parts.push(doc.replace(/\{@link ([^}]+)\}/g, '`$1`'));
  for (const tag of tagsOf(symbol)) {
    if (tag.name === 'example')
      parts.push('```js\n' + tag.text.replace(/^```\w*\n?|```$/g, '').trim() + '\n```');
    else if (tag.name === 'deprecated') parts.push(`**Deprecated.** ${tag.text}`);
  }
  return parts.join('\n\n');
}

function declarationText(symbol, decl) {
  const type = checker.getTypeOfSymbolAtLocation(symbol, decl);
  return checker.typeToString(type, decl, FLAGS);
}

function signatures(symbol) {
  const decl = symbol.valueDeclaration ?? symbol.declarations?.[0];
  if (decl === undefined) return [];
  const type = checker.getTypeOfSymbolAtLocation(symbol, decl);
  return type
    .getCallSignatures()
    .map((s) => `${symbol.getName()}${checker.signatureToString(s, decl, FLAGS)}`);
}

/** Members of an interface or class: name, type and comment, one row each. */
function memberRows(symbol) {
  const decl = symbol.declarations?.[0];
  if (decl === undefined) return [];
  const type = checker.getDeclaredTypeOfSymbol(symbol);
  const rows = [];
  for (const member of checker.getPropertiesOfType(type)) {
    const mdecl = member.valueDeclaration ?? member.declarations?.[0];
    if (mdecl === undefined) continue;
    // Private and protected members are not part of the API.
    const mods = ts.canHaveModifiers(mdecl) ? (ts.getModifiers(mdecl) ?? []) : [];
    if (
      mods.some((m) => m.kind === ts.SyntaxKind.PrivateKeyword || m.kind === ts.SyntaxKind.ProtectedKeyword)
    )
      continue;
    if (member.getName().startsWith('#')) continue;
    const optional = member.flags & ts.SymbolFlags.Optional ? '?' : '';
    const text = declarationText(member, mdecl);
    const doc = docOf(member)
      .replace(/\{@link ([^}]+)\}/g, '`$1`')
      .replace(/\s*\n\s*/g, ' ');
    rows.push(`| \`${member.getName()}${optional}\` | \`${cell(text)}\` | ${cell(doc)} |`);
  }
  return rows;
}

function cell(s) {
  return s.replace(/\|/g, '\\|').replace(/\n\s*/g, ' ');
}

const sections = { function: [], class: [], interface: [], type: [], value: [] };
/** Exported functions without a doc comment: the reference would show a bare signature. */
const undocumented = [];
const exportsOfIndex = checker
  .getExportsOfModule(moduleSymbol)
  .sort((a, b) => (a.getName() < b.getName() ? -1 : 1));
for (const exported of exportsOfIndex) {
  const name = exported.getName();
  const symbol = target(exported);
  const flags = symbol.flags;
  const comment = commentBlock(symbol);
  if (flags & ts.SymbolFlags.Function) {
    const sigs = signatures(symbol);
    if (docOf(symbol) === '') undocumented.push(name);
    sections.function.push(
      [`### ${name}`, '```ts\n' + sigs.join('\n') + '\n```', comment].filter(Boolean).join('\n\n'),
    );
  } else if (flags & ts.SymbolFlags.Class) {
    const rows = memberRows(symbol);
    const table = rows.length === 0 ? '' : ['| member | type | |', '|---|---|---|', ...rows].join('\n');
    sections.class.push([`### ${name}`, comment, table].filter(Boolean).join('\n\n'));
  } else if (flags & ts.SymbolFlags.Interface) {
    const rows = memberRows(symbol);
    const table = rows.length === 0 ? '' : ['| field | type | |', '|---|---|---|', ...rows].join('\n');
    sections.interface.push([`### ${name}`, comment, table].filter(Boolean).join('\n\n'));
  } else if (flags & ts.SymbolFlags.TypeAlias) {
    const decl = symbol.declarations?.[0];
    const text =
      decl === undefined ? '' : checker.typeToString(checker.getDeclaredTypeOfSymbol(symbol), decl, FLAGS);
    sections.type.push(
      [`### ${name}`, '```ts\ntype ' + name + ' = ' + text + '\n```', comment].filter(Boolean).join('\n\n'),
    );
  } else if (flags & (ts.SymbolFlags.Variable | ts.SymbolFlags.Enum)) {
    const decl = symbol.valueDeclaration;
    const text = decl === undefined ? '' : declarationText(symbol, decl);
    sections.value.push(
      [`### ${name}`, '```ts\nconst ' + name + ': ' + text + '\n```', comment].filter(Boolean).join('\n\n'),
    );
  } else {
    throw new Error(
      `src/index.ts exports ${name}, of a kind this reference does not describe (flags ${flags})`,
    );
  }
}

const { version } = JSON.parse(ts.sys.readFile(path.join(root, 'package.json')) ?? '{}');
const count = Object.values(sections).reduce((n, s) => n + s.length, 0);
const heading = (title, list) => (list.length === 0 ? [] : [`## ${title}`, ...list]);
const text = [
  `# opm-ts ${version}: API reference`,
  "Generated by `npm run docs:api` from `src/index.ts` and its doc comments. The README's section " +
    '"Using opm-ts as a library" shows the API at work.',
  ...heading('Functions', sections.function),
  ...heading('Classes', sections.class),
  ...heading('Interfaces', sections.interface),
  ...heading('Types', sections.type),
  ...heading('Values', sections.value),
].join('\n\n');
mkdirSync(outDir, { recursive: true });
writeFileSync(path.join(outDir, 'README.md'), text + '\n');
process.stderr.write(`docs/api/README.md: ${count} exports\n`);
if (undocumented.length > 0) {
  process.stderr.write(`exported functions without a doc comment in src/: ${undocumented.join(', ')}\n`);
  process.exitCode = 1;
}
