export const flagValue = (name: string): string => `--${name}`;
