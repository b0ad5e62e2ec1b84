import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import type * as AjvModule from 'ajv';
import { describe, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
import type { Finding } from '../findings.js';
import { RULE_IDS, ruleInfo } from '../rules.js';
import { applySeverities, parseConfig, parseRuleFlags } from './config.js';

const schemaFile = path.resolve(import.meta.dirname, '../../schemas/opm-validate-config.json');

function schemaValidator(): (doc: unknown) => boolean {
  const require = createRequire(import.meta.url);
  const ajvModule: typeof AjvModule = require('ajv');
  const validate = new ajvModule.Ajv({ strict: false }).compile(
    JSON.parse(readFileSync(schemaFile, 'utf8')) as object,
  );
  return (doc) => validate(doc);
}

describe('severity configuration', () => {
  it('its JSON Schema names exactly the configurable rules of the registry', () => {
    const schema = JSON.parse(readFileSync(schemaFile, 'utf8')) as {
      properties: { rules: { properties: Record<string, unknown> } };
    };
    expect(Object.keys(schema.properties.rules.properties)).toEqual(
      RULE_IDS.filter((id) => !ruleInfo(id).opm),
    );
  });

  it.each([
    ['rules:\n  upgrade.stranded: error\npolicies:\n  channelNames: [stable, "fast-*"]\n', true],
    ['rules:\n  policy.image-digest: warning\n', true],
    ['', true],
    ['rules:\n  channel.cycle: off\n', false],
    ['rules:\n  upgrade.stranded: fatal\n', false],
    ['rules:\n  no.such-rule: off\n', false],
    ['policies:\n  channelNames: stable\n', false],
    ['policies:\n  names: [stable]\n', false],
    ['severity:\n  upgrade.stranded: off\n', false],
  ])('the file and its schema agree on %j', (text, ok) => {
    const accepted = (() => {
      try {
        parseConfig(text, 'c.yaml');
        return true;
      } catch {
        return false;
      }
    })();
    expect(accepted).toBe(ok);
    expect(schemaValidator()(parseYaml(text) ?? {})).toBe(ok);
  });

  it('reads rules and policies', () => {
    const c = parseConfig(
      'rules:\n  upgrade.stranded: error\npolicies:\n  channelNames: [stable]\n',
      'c.yaml',
    );
    expect([...c.rules]).toEqual([['upgrade.stranded', 'error']]);
    expect(c.policies).toEqual({ channelNames: ['stable'] });
  });

  it('applies severities: defaults for rules beyond opm, configured levels, never to opm rules', () => {
    const f = (rule: Finding['rule'], severity: Finding['severity']): Finding => ({
      rule,
      severity,
      message: 'm',
    });
    const findings = [
      f('channel.cycle', 'error'),
      f('policy.image-digest', 'warning'),
      f('dependency.range-invalid', 'error'),
      f('parse.duplicate-key', 'error'),
      f('upgrade.stranded', 'warning'),
    ];
    expect(applySeverities(findings, new Map()).map((x) => `${x.rule}:${x.severity}`)).toEqual([
      'channel.cycle:error',
      'dependency.range-invalid:warning',
      'parse.duplicate-key:error',
      'upgrade.stranded:warning',
    ]);
    const levels = parseRuleFlags([
      'upgrade.stranded=off',
      'policy.image-digest=error',
      'parse.duplicate-key=warning',
    ]);
    expect(applySeverities(findings, levels).map((x) => `${x.rule}:${x.severity}`)).toEqual([
      'channel.cycle:error',
      'policy.image-digest:error',
      'dependency.range-invalid:warning',
      'parse.duplicate-key:warning',
    ]);
  });
});
