/**
 * A log of levelled lines with fields, as `opm serve` writes them (the command line turns them into
 * logrus text on stderr): the server, the catalog API and the serve cache all write through one.
 */
export type LogLevel = 'debug' | 'info' | 'warning' | 'error' | 'fatal';
export type LogFields = Record<string, string | number>;
export type ServeLog = (level: LogLevel, msg: string, fields: LogFields) => void;
