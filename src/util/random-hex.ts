/**
 * `bytes` random bytes as hex, for temporary file names. node:crypto is looked up when a name is
 * made, not when a module loads: it costs milliseconds of start-up that most commands do not need.
 */
export function randomHex(bytes: number): string {
  return process.getBuiltinModule('node:crypto').randomBytes(bytes).toString('hex');
}
