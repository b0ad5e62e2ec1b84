/**
 * The schemas as editors use them: yaml-language-server (the engine of the YAML extension of VS
 * Code and of other editors) run over LSP stdio, on files that pick a schema by a modeline or by
 * the `yaml.schemas` setting.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { projectRoot } from '../corpus.js';
import { YamlLanguageServer, type Diagnostic } from '../yaml-language-server.js';

const root = projectRoot();
const dir = path.join(root, 'testdata/schemas/editor');

let server: YamlLanguageServer;

beforeAll(async () => {
  server = await YamlLanguageServer.start(root, {
    validate: true,
    // The setting form: a schema file for files matching a glob. It applies to every document of a
    // file (a modeline applies to the document it heads), which suits multi-document catalogs.
    // Keys relative to the workspace root, as the README shows them.
    schemas: {
      './schemas/catalog.json': ['testdata/schemas/editor/catalog-*.yaml'],
      './schemas/olm.semver.json': ['testdata/schemas/editor/semver-*.yaml'],
    },
  });
});

afterAll(async () => {
  await server.stop();
});

function open(name: string): Promise<Diagnostic[]> {
  const file = path.join(dir, name);
  return server.open(file, readFileSync(file, 'utf8'));
}

/** The 0-based line of the first line of a file containing `text`. */
function lineOf(name: string, text: string): number {
  return readFileSync(path.join(dir, name), 'utf8').split('\n').findIndex((l) => l.includes(text));
}

describe('yaml-language-server with the opm-ts schemas', () => {
  it.each(['catalog-ok.yaml', 'basic-ok.yaml', 'semver-ok.yaml'])(
    'reports nothing on a correct file: %s',
    async (name) => {
      expect(await open(name)).toEqual([]);
    },
    60_000,
  );

  it.each([
    ['catalog-misspelt.yaml', 'replace:'],
    ['basic-misspelt.yaml', 'defaultchannel:'],
    ['semver-misspelt.yaml', 'generateMinorChanels:'],
  ])(
    'flags the misspelt field of %s on its line',
    async (name, field) => {
      const diagnostics = await open(name);
      const line = lineOf(name, field);
      expect(line).toBeGreaterThanOrEqual(0);
      const onLine = diagnostics.filter((d) => d.range.start.line === line);
      expect(onLine.map((d) => d.message)).toContainEqual(expect.stringMatching(/not allowed/));
    },
    60_000,
  );
});
