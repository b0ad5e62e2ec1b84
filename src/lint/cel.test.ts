import { describe, expect, it } from 'vitest';
import { checkCelRule } from './cel.js';

describe('CEL rules of olm.constraint', () => {
  it.each([
    'properties.exists(p, p.type == "certified")',
    'properties.exists(p, p.type == "certified") && properties.exists(p, p.type == "stable")',
    'properties.exists(p, p.type == "olm.package" && semver_compare(p.value.version, "1.0.0") >= 0)',
    'size(properties) > 0 ? true : false',
    "'a' in ['a', 'b',]",
    'properties.all(p, p.value.x.startsWith("y"))',
    '{"a": 1}["a"] == 1',
    'r"\\d" == "x" || !has(properties.x)',
    'properties.map(p, p.type).exists(t, t.matches("^olm\\\\."))',
    '0x1F == 31 && 1u < 2u && 1.5e3 > .5',
    '"""multi\nline""" != ""',
  ])('accepts %s', (rule) => {
    expect(checkCelRule(rule)).toBeUndefined();
  });

  it.each([
    ['', 'the rule is empty', 1],
    ['semver_compare("1.0.0", "2.0.0")', 'cel expressions must have type Bool (this one is int)', 1],
    ['semverCompare(a, b) == 0', "undeclared reference to 'semverCompare' (in container '')", 1],
    ['properties.exists(p, p.type == "x"', "expected ')', found end of expression", 35],
    ['foo == 1', "undeclared reference to 'foo' (in container '')", 1],
    ['properties.exists(p, q.type == "x")', "undeclared reference to 'q' (in container '')", 22],
    ['has(p)', 'invalid argument to has() macro', 1],
    ['1 + 2', 'cel expressions must have type Bool (this one is int)', 1],
    ['semver_compare("1") == 0', "found no matching overload for 'semver_compare' with 1 argument", 1],
    ['properties.exist(p, true)', "undeclared reference to 'exist' (in container '')", 12],
    ['properties.exists(p.x, true)', "expected ',', found '.'", 20],
    ['a = b', 'unexpected character "="', 3],
    ['"abc', 'unterminated string literal', 1],
    ['true && if', 'reserved identifier: if', 9],
    ['x.y == 1', "undeclared reference to 'x' (in container '')", 1],
    ['x.y == 1 &', 'unexpected character "&"', 10],
    ['Foo{a: 1} == 1', "undeclared reference to 'Foo' (in container '')", 1],
    ['properties == [] &', 'unexpected character "&"', 18],
  ])('rejects %j: %s at column %d', (rule, message, column) => {
    expect(checkCelRule(rule)).toEqual({ message, column });
  });
});
