// The core importing the command line: forbidden.
import { flagValue } from '../cli/flags.js';

export const packageName = (): string => flagValue('package');
