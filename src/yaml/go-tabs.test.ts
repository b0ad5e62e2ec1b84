// The tabs go-yaml v2 refuses, as the reference opm answered for each text (render of a catalog
// holding it): refused with go-yaml's words at the tab's line, or read.
import { describe, expect, it } from 'vitest';
import { goYamlTabProblem } from './go-tabs.js';
import { parseYamlDocument, YamlError } from './yaml11.js';
import { splitYamlDocuments } from './split-documents.js';

const CANNOT_START = 'found character that cannot start any token';
const VIOLATES = 'found a tab character that violates indentation';
const BLOCK_INDENT = 'found a tab character where an indentation space is expected';

describe('goYamlTabProblem', () => {
  it.each([
    ['after a sequence entry', 'x:\n  -\ta\n', 1, CANNOT_START],
    ['after a sequence entry and a space', 'x:\n  - \ta\n', 1, CANNOT_START],
    ['after a sequence entry, before a comment', 'x:\n  -\t# c\n    a: 1\n', 1, CANNOT_START],
    ['after a complex key', '?\tk\n: v\n', 0, CANNOT_START],
    ['a comment line indented with a tab after a plain value', 'name: p\n\t# c\nx: 1\n', 1, VIOLATES],
    ['a blank line of a tab after a plain value', 'name: p\n\t\nx: 1\n', 1, VIOLATES],
    [
      'a comment line indented with a tab after a quoted value',
      'name: "p"\n  \t# c\nx: 1\n',
      1,
      CANNOT_START,
    ],
    ['a comment line indented with a tab after a nested key', 'x:\n  \t# c\n  a: 1\n', 1, CANNOT_START],
    ['a tab in the indentation after a block scalar', 'x: |\n  text\n\t# c\ny: 1\n', 2, BLOCK_INDENT],
    ['a tab in the indentation of a block scalar', 'x: |\n  \ttext\n', 1, BLOCK_INDENT],
    ['a tab in a flow collection spanning lines, left of the block', 'x: [a\n\tb]\n', 1, VIOLATES],
  ])('refuses a tab %s', (_what, text, line, message) => {
    expect(goYamlTabProblem(text)).toMatchObject({ line, message: `${message} (a tab: write spaces here)` });
  });

  it.each([
    ['after a key', 'x:\t# c\n  a: 1\n'],
    ['after a key and a space', 'x: \t1\n'],
    ['after a plain value', 'x: 1\t# c\ny: 2\n'],
    ['after a quoted value', "x: 'a'\t# c\n"],
    ['in a comment', 'x: 1 #\ttab\n#\tc\n'],
    ['in quoted scalars', 'x: "a\tb"\ny: \'c\td\'\nz: "multi\n\tline"\n'],
    ['in a flow collection', 'x: [a,\t b,\n    \tc]\ny: {a:\t1}\n'],
    ['in the indentation after a plain value, right of its block', 'name: p\n  \t# c\nx: 1\n'],
    ['in the content of a block scalar', 'x: |\n  a\n  \ttext\n  a\tb\n'],
    ['after a block scalar header', 'x: |\t# c\n  text\n'],
    ['in a nested block scalar, right of its indentation', 'x:\n  y: |2\n      \ttext\n'],
  ])('takes a tab %s', (_what, text) => {
    expect(goYamlTabProblem(text)).toBeUndefined();
  });
});

describe('parseYamlDocument and tabs', () => {
  it('refuses what go-yaml refuses after js-yaml read it, at the line of the tab', () => {
    const err = ((): unknown => {
      try {
        parseYamlDocument('schema: olm.package\nname: p\nx:\n  -\ta\n', 10);
      } catch (e) {
        return e;
      }
      return undefined;
    })();
    expect(err).toBeInstanceOf(YamlError);
    expect(err).toMatchObject({ line: 13, reason: `${CANNOT_START} (a tab: write spaces here)` });
  });

  it('leaves a comment line indented with a tab in the document, where it is refused', () => {
    const [doc] = splitYamlDocuments('---\n\t# c\nschema: olm.package\n');
    expect(doc).toMatchObject({ line: 2, text: '\t# c\nschema: olm.package\n' });
    expect(() => parseYamlDocument(doc?.text ?? '', doc?.line)).toThrow(`line 2: ${CANNOT_START}`);
    // A comment line indented with spaces only is still skipped.
    expect(splitYamlDocuments('---\n  # c\nschema: olm.package\n')[0]).toMatchObject({ line: 3 });
  });

  it('skips a document of white space and comments, tabs among them, as every empty document (row 28)', () => {
    expect(splitYamlDocuments('\t')).toStrictEqual([]);
    expect(splitYamlDocuments(' \t \n\t\n')).toStrictEqual([]);
    expect(splitYamlDocuments('---\n\t# c\n \t\n---\nschema: olm.package\n')).toStrictEqual([
      { text: 'schema: olm.package\n', line: 5, index: 1 },
    ]);
    expect(splitYamlDocuments('schema: olm.package\n---\n\t# only a comment')).toHaveLength(1);
  });
});
