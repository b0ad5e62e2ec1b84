// The machine a bench ran on, printed beside its figures so that figures from two machines can be
// put side by side: the CPU model, the cores this process may use, Node.js's version and the kernel.
import { readFileSync } from 'node:fs';
import { availableParallelism, cpus, release, type } from 'node:os';

/** The CPU model as the kernel names it (`model name` in /proc/cpuinfo), or as Node.js does. */
function cpuModel(): string {
  try {
    const m = /^model name\s*:\s*(.+)$/m.exec(readFileSync('/proc/cpuinfo', 'utf8'));
    if (m?.[1] !== undefined) return m[1].trim();
  } catch {
    // Not Linux: Node.js's name for it below.
  }
  return cpus()[0]?.model.trim() ?? 'unknown';
}

export function machine(): Record<string, string> {
  return {
    cpu: cpuModel(),
    cores: String(availableParallelism()),
    node: process.version,
    kernel: `${type()} ${release()}`,
  };
}

/** The machine as one line, for the heading of a table. */
export function machineLine(): string {
  return Object.entries(machine())
    .map(([k, v]) => `${k}: ${v}`)
    .join(', ');
}
