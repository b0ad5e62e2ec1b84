/**
 * A minimal Language Server Protocol client for yaml-language-server over stdio: enough to open
 * documents and collect the diagnostics the server publishes for them, as an editor would.
 */
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { createRequire } from 'node:module';
import path from 'node:path';
import { pathToFileURL } from 'node:url';

export interface Diagnostic {
  message: string;
  severity?: number;
  range: { start: { line: number; character: number }; end: { line: number; character: number } };
}

type Json = null | boolean | number | string | Json[] | { [k: string]: Json };

interface Message {
  id?: number;
  method?: string;
  params?: Json;
  result?: Json;
  error?: Json;
}

function isObject(u: unknown): u is Record<string, unknown> {
  return typeof u === 'object' && u !== null && !Array.isArray(u);
}

function isDiagnostic(u: unknown): u is Diagnostic {
  return isObject(u) && typeof u.message === 'string' && isObject(u.range);
}

/** The server's entry point, resolved from the installed package. */
function serverScript(): string {
  const require = createRequire(import.meta.url);
  return path.join(
    path.dirname(require.resolve('yaml-language-server/package.json')),
    'bin',
    'yaml-language-server',
  );
}

export class YamlLanguageServer {
  private readonly child: ChildProcessWithoutNullStreams;
  private buffer = Buffer.alloc(0);
  private nextId = 1;
  private readonly pending = new Map<number, (m: Message) => void>();
  private readonly diagnostics = new Map<string, Diagnostic[]>();
  private readonly waiters: { uri: string; resolve: (d: Diagnostic[]) => void }[] = [];
  private stderr = '';
  private readonly settings: Json;

  private constructor(settings: Json) {
    this.settings = settings;
    this.child = spawn(process.execPath, [serverScript(), '--stdio'], { stdio: ['pipe', 'pipe', 'pipe'] });
    this.child.stdout.on('data', (chunk: Buffer) => {
      this.buffer = Buffer.concat([this.buffer, chunk]);
      this.drain();
    });
    this.child.stderr.on('data', (chunk: Buffer) => {
      this.stderr += chunk.toString('utf8');
    });
  }

  /** Start a server, initialised with `settings` as the client's `yaml` configuration section. */
  static async start(rootDir: string, settings: Json): Promise<YamlLanguageServer> {
    const server = new YamlLanguageServer(settings);
    await server.request('initialize', {
      processId: process.pid,
      rootUri: pathToFileURL(rootDir).href,
      capabilities: {
        workspace: { configuration: true },
        textDocument: { publishDiagnostics: {} },
      },
    });
    server.notify('initialized', {});
    server.notify('workspace/didChangeConfiguration', { settings: { yaml: settings } });
    return server;
  }

  private send(m: Message): void {
    const body = Buffer.from(JSON.stringify({ jsonrpc: '2.0', ...m }), 'utf8');
    this.child.stdin.write(`Content-Length: ${body.length}\r\n\r\n`);
    this.child.stdin.write(body);
  }

  private drain(): void {
    for (;;) {
      const headerEnd = this.buffer.indexOf('\r\n\r\n');
      if (headerEnd < 0) return;
      const header = this.buffer.subarray(0, headerEnd).toString('ascii');
      const m = /Content-Length: *([0-9]+)/i.exec(header);
      if (m === null) throw new Error(`bad LSP header: ${header}`);
      const length = Number(m[1]);
      if (this.buffer.length < headerEnd + 4 + length) return;
      const body = this.buffer.subarray(headerEnd + 4, headerEnd + 4 + length).toString('utf8');
      this.buffer = this.buffer.subarray(headerEnd + 4 + length);
      const parsed: unknown = JSON.parse(body);
      if (isObject(parsed)) this.handle(parsed);
    }
  }

  private handle(m: Record<string, unknown>): void {
    const id = typeof m.id === 'number' ? m.id : undefined;
    if (typeof m.method === 'string') {
      // Requests from the server: its configuration, and registrations the client accepts.
      if (id !== undefined) {
        let result: Json = null;
        if (m.method === 'workspace/configuration' && isObject(m.params) && Array.isArray(m.params.items)) {
          result = m.params.items.map((item) =>
            isObject(item) && item.section === 'yaml' ? this.settings : null,
          );
        }
        this.send({ id, result });
        return;
      }
      if (m.method === 'textDocument/publishDiagnostics' && isObject(m.params)) {
        const uri = String(m.params.uri);
        const list = Array.isArray(m.params.diagnostics) ? m.params.diagnostics.filter(isDiagnostic) : [];
        this.diagnostics.set(uri, list);
        for (const w of this.waiters.filter((x) => x.uri === uri)) w.resolve(list);
        this.waiters.splice(0, this.waiters.length, ...this.waiters.filter((x) => x.uri !== uri));
      }
      return;
    }
    if (id !== undefined) {
      const done = this.pending.get(id);
      this.pending.delete(id);
      done?.({ id, result: (m.result ?? null) as Json, error: (m.error ?? null) as Json });
    }
  }

  request(method: string, params: Json): Promise<Message> {
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      this.pending.set(id, resolve);
      this.child.once('exit', (code) => reject(new Error(`server exited (${String(code)}): ${this.stderr}`)));
      this.send({ id, method, params });
    });
  }

  notify(method: string, params: Json): void {
    this.send({ method, params });
  }

  /** Open a document and wait for the diagnostics the server publishes for it. */
  open(file: string, text: string): Promise<Diagnostic[]> {
    const uri = pathToFileURL(file).href;
    const published = new Promise<Diagnostic[]>((resolve) => this.waiters.push({ uri, resolve }));
    this.notify('textDocument/didOpen', { textDocument: { uri, languageId: 'yaml', version: 1, text } });
    return published;
  }

  async stop(): Promise<void> {
    await this.request('shutdown', null);
    const exited = new Promise<void>((resolve) => this.child.once('exit', () => resolve()));
    this.notify('exit', null);
    await exited;
  }
}
