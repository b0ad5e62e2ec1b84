import { channelName } from './channel.js';

export const bundleName = (s: string): string => s.trim();
export const bundleChannel = (s: string): string => channelName(s);
