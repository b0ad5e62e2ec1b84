// The options a validate fixture sets in the options.json beside its catalog.
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import type { ValidateOptions } from '../../src/action/validate/validate.js';
import { isRuleId, type RuleId, type RuleLevel } from '../../src/rules.js';

/** options.json beside a fixture: severities, policies and --with catalogs (relative to it). */
interface FixtureOptions {
  severities?: Record<string, RuleLevel>;
  policies?: { channelNames?: string[] };
  with?: string[];
  /** Bundle image reference -> bundle directory (relative to the fixture), as --bundle-dirs maps them. */
  bundleDirs?: Record<string, string>;
}

export function fixtureOptions(dir: string): ValidateOptions {
  const file = path.join(dir, 'options.json');
  if (!existsSync(file)) return {};
  const o = JSON.parse(readFileSync(file, 'utf8')) as FixtureOptions;
  const severities = new Map<RuleId, RuleLevel>();
  for (const [id, level] of Object.entries(o.severities ?? {})) if (isRuleId(id)) severities.set(id, level);
  return {
    severities,
    ...(o.policies === undefined ? {} : { policies: o.policies }),
    ...(o.with === undefined ? {} : { with: o.with, cwd: dir }),
    ...(o.bundleDirs === undefined
      ? {}
      : {
          bundleDirs: new Map(Object.entries(o.bundleDirs).map(([image, d]) => [image, path.join(dir, d)])),
        }),
  };
}
