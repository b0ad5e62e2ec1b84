// Two modules that import each other: a cycle.
import { bundleName } from './bundle.js';

export const channelName = (s: string): string => bundleName(s).toLowerCase();
