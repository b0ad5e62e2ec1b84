#!/usr/bin/env node
// Writes src/api-contract/registry-file.ts, the declaration of our registry.proto that the server's
// reflection encodes (src/api-contract/descriptors.ts), from src/api-contract/registry.proto itself: the proto copy
// is the one place the catalog server's contract is written. `--check` writes nothing and exits 1
// when the file is not what the proto gives (src/api-contract/registry-file.test.ts runs it; `npm run build`
// writes it first).
//
// It reads the proto3 that file is written in: `syntax`, `package`, `import`, `option go_package`,
// services of rpcs (with `stream` results and `option deprecated = true`), and messages of scalar,
// message and repeated fields. Anything else is refused, so a change the declaration cannot say is
// not silently left out.
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const PROTO = path.join(root, 'src/api-contract/registry.proto');
const OUT = path.join(root, 'src/api-contract/registry-file.ts');
const SCALARS = new Set(['string', 'double', 'bool', 'int32', 'bytes']);

/** The proto's tokens, comments left out. */
function tokens(text) {
  const out = [];
  const re = /\s+|\/\/[^\n]*|\/\*[\s\S]*?\*\/|"[^"]*"|[A-Za-z_][A-Za-z0-9_.]*|\d+|[{}()=;<>,[\]]/y;
  let m;
  while (re.lastIndex < text.length && (m = re.exec(text)) !== null) {
    const t = m[0];
    if (/^\s/.test(t) || t.startsWith('//') || t.startsWith('/*')) continue;
    out.push(t);
  }
  if (re.lastIndex < text.length)
    throw new Error(`registry.proto: cannot read from "${text.slice(re.lastIndex, re.lastIndex + 20)}"`);
  return out;
}

function parse(text) {
  const t = tokens(text);
  let i = 0;
  const next = () => {
    if (i >= t.length) throw new Error('registry.proto: unexpected end');
    return t[i++];
  };
  const expect = (want) => {
    const got = next();
    if (got !== want) throw new Error(`registry.proto: expected "${want}", found "${got}"`);
  };
  const file = { package: '', dependencies: [], goPackage: undefined, messages: [], services: [] };
  while (i < t.length) {
    const word = next();
    if (word === 'syntax') {
      expect('=');
      if (next() !== '"proto3"') throw new Error('registry.proto: only proto3 is read');
      expect(';');
    } else if (word === 'package') {
      file.package = next();
      expect(';');
    } else if (word === 'import') {
      file.dependencies.push(JSON.parse(next()));
      expect(';');
    } else if (word === 'option') {
      const name = next();
      expect('=');
      const value = next();
      expect(';');
      if (name !== 'go_package') throw new Error(`registry.proto: option ${name} is not read`);
      file.goPackage = JSON.parse(value);
    } else if (word === 'service') {
      const service = { name: next(), methods: [] };
      expect('{');
      for (let w = next(); w !== '}'; w = next()) {
        if (w !== 'rpc') throw new Error(`registry.proto: "${w}" in service ${service.name}`);
        const method = { name: next() };
        expect('(');
        method.input = next();
        expect(')');
        expect('returns');
        expect('(');
        let output = next();
        if (output === 'stream') {
          method.serverStreaming = true;
          output = next();
        }
        method.output = output;
        expect(')');
        expect('{');
        for (let o = next(); o !== '}'; o = next()) {
          if (o !== 'option') throw new Error(`registry.proto: "${o}" in rpc ${method.name}`);
          const name = next();
          expect('=');
          const value = next();
          expect(';');
          if (name !== 'deprecated' || value !== 'true')
            throw new Error(`registry.proto: option ${name} of rpc ${method.name} is not read`);
          method.deprecated = true;
        }
        service.methods.push(method);
      }
      file.services.push(service);
    } else if (word === 'message') {
      const message = { name: next(), fields: [] };
      expect('{');
      for (let w = next(); w !== '}'; w = next()) {
        const field = {};
        if (w === 'repeated') {
          field.repeated = true;
          w = next();
        }
        field.type = w;
        field.name = next();
        expect('=');
        field.number = Number(next());
        expect(';');
        message.fields.push(field);
      }
      file.messages.push(message);
    } else throw new Error(`registry.proto: "${word}" is not read`);
  }
  return file;
}

/** A type as the descriptor names it: a scalar, or the full name of a message (`.api.Channel`). */
function fullType(type, pkg, messages) {
  if (SCALARS.has(type)) return type;
  if (messages.has(type)) return `.${pkg}.${type}`;
  if (type.includes('.')) return `.${type}`;
  throw new Error(`registry.proto: unknown type ${type}`);
}

function render(file) {
  const messages = new Set(file.messages.map((m) => m.name));
  const q = (s) => `'${s}'`;
  const lines = [];
  lines.push('// Generated from registry.proto by scripts/generate-registry-file.js; do not edit.');
  lines.push('// src/api-contract/registry-file.test.ts checks that it is what the proto gives.');
  lines.push('');
  lines.push(
    "/** registry.proto of operator-registry's `api` package, as this repository's copy declares it. */",
  );
  lines.push('export const REGISTRY_PROTO = {');
  lines.push(`  name: 'registry.proto',`);
  lines.push(`  package: ${q(file.package)},`);
  lines.push(`  dependencies: [${file.dependencies.map(q).join(', ')}],`);
  if (file.goPackage !== undefined) lines.push(`  goPackage: ${q(file.goPackage)},`);
  lines.push('  messages: [');
  for (const m of file.messages) {
    lines.push('    {');
    lines.push(`      name: ${q(m.name)},`);
    lines.push('      fields: [');
    for (const f of m.fields) {
      const parts = [`name: ${q(f.name)}`, `type: ${q(fullType(f.type, file.package, messages))}`];
      if (f.repeated) parts.push('repeated: true');
      parts.push(`number: ${f.number}`);
      lines.push(`        { ${parts.join(', ')} },`);
    }
    lines.push('      ],');
    lines.push('    },');
  }
  lines.push('  ],');
  lines.push('  services: [');
  for (const s of file.services) {
    lines.push('    {');
    lines.push(`      name: ${q(s.name)},`);
    lines.push('      methods: [');
    for (const m of s.methods) {
      const parts = [
        `name: ${q(m.name)}`,
        `input: ${q(fullType(m.input, file.package, messages))}`,
        `output: ${q(fullType(m.output, file.package, messages))}`,
      ];
      if (m.serverStreaming) parts.push('serverStreaming: true');
      if (m.deprecated) parts.push('deprecated: true');
      lines.push(`        { ${parts.join(', ')} },`);
    }
    lines.push('      ],');
    lines.push('    },');
  }
  lines.push('  ],');
  lines.push('};');
  return lines.join('\n') + '\n';
}

// Formatted as the project formats its sources, so `prettier --check` and the check here agree.
const prettier = await import('prettier');
const wanted = await prettier.format(render(parse(readFileSync(PROTO, 'utf8'))), {
  ...(await prettier.resolveConfig(OUT)),
  filepath: OUT,
});
let current = '';
try {
  current = readFileSync(OUT, 'utf8');
} catch {
  // Missing: written below, or stale for --check.
}
if (process.argv.includes('--check')) {
  if (current !== wanted) {
    process.stderr.write(
      `${path.relative(root, OUT)} is not what ${path.relative(root, PROTO)} gives: run node scripts/generate-registry-file.js\n`,
    );
    process.exit(1);
  }
} else if (current !== wanted) {
  // Written only when it changes: its time is one of those the build's staleness check compares.
  writeFileSync(OUT, wanted);
}
