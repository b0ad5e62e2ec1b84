import { describe, expect, it } from 'vitest';
import { isRuleId, RULE_IDS, ruleAnchor, ruleHelpUri, ruleInfo } from './rules.js';

describe('rule registry', () => {
  it('lists every rule once, in byte order, with well-formed ids', () => {
    expect(RULE_IDS.length).toBeGreaterThan(60);
    expect(new Set(RULE_IDS).size).toBe(RULE_IDS.length);
    for (const id of RULE_IDS) expect(id).toMatch(/^[a-z]+(\.[a-z][a-z0-9-]*)+$/);
    expect([...RULE_IDS].sort()).toEqual(RULE_IDS);
  });

  it('gives every rule a description and help, and opm rules the error severity', () => {
    for (const id of RULE_IDS) {
      const r = ruleInfo(id);
      expect(r.description.endsWith('.'), id).toBe(true);
      expect(r.help.endsWith('.'), id).toBe(true);
      if (r.opm) expect(r.severity, id).toBe('error');
    }
  });

  it('names anchors and links that stay unique', () => {
    const anchors = RULE_IDS.map(ruleAnchor);
    expect(new Set(anchors).size).toBe(anchors.length);
    expect(ruleAnchor('channel.multiple-heads')).toBe('rule-channel-multiple-heads');
    expect(ruleHelpUri('schema.olm.bundle')).toBe(
      'https://www.npmjs.com/package/opm-ts#rule-schema-olm-bundle',
    );
    expect(isRuleId('channel.cycle')).toBe(true);
    expect(isRuleId('toString')).toBe(false);
  });
});
