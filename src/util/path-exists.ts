import { stat } from 'node:fs/promises';

/** Whether something exists at `p` (following links); any failure to look counts as no. */
export async function pathExists(p: string): Promise<boolean> {
  try {
    await stat(p);
    return true;
  } catch {
    return false;
  }
}
