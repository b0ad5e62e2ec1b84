import os from 'node:os';

/** The user's home folder: `$HOME` when set and not empty, else the account's home from the system. */
export function homeDir(env: NodeJS.ProcessEnv): string {
  return env.HOME !== undefined && env.HOME !== '' ? env.HOME : os.homedir();
}
