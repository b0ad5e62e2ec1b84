// A leaf that reaches up into the wire format: forbidden.
import { channelName } from '../declcfg/channel.js';

export const quoted = (s: string): string => `"${channelName(s)}"`;
