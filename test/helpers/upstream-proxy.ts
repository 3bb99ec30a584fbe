import http from 'node:http';
import type { AddressInfo } from 'node:net';

/** Answers a request itself (true), or lets it through to the real upstream (false). */
export type Override = (req: http.IncomingMessage, res: http.ServerResponse) => boolean;

/**
 * An upstream as a follower sees it, on loopback: a real Doorlist behind it, and an `override`
 * the test sets to answer what a hostile (or broken, or hung) upstream would. Requests it
 * holds (a hung upstream) are let go by `release`.
 */
export class UpstreamProxy {
  override: Override | undefined;
  private readonly held = new Set<http.ServerResponse>();

  private constructor(
    private readonly server: http.Server,
    private readonly target: URL,
  ) {}

  static async start(targetBaseUrl: string): Promise<UpstreamProxy> {
    const server = http.createServer();
    const proxy = new UpstreamProxy(server, new URL(targetBaseUrl));
    server.on('request', (req, res) => proxy.handle(req, res));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return proxy;
  }

  /** The follower's `url`: the same path as the real upstream's base. */
  get baseUrl(): string {
    const { port } = this.server.address() as AddressInfo;
    return `http://127.0.0.1:${port}${this.target.pathname}`;
  }

  /** Keeps the request open with no answer, as a stopped process would. */
  hold(res: http.ServerResponse): true {
    this.held.add(res);
    return true;
  }

  /** Drops every held request (the connection closes), so a follower's next cycle starts afresh. */
  release(): void {
    for (const res of this.held) res.socket?.destroy();
    this.held.clear();
  }

  async close(): Promise<void> {
    this.release();
    this.server.closeAllConnections();
    await new Promise((resolve) => this.server.close(resolve));
  }

  private handle(req: http.IncomingMessage, res: http.ServerResponse): void {
    if (this.override?.(req, res)) return;
    this.passOn(req, res);
  }

  /** Sends the request to the real upstream and its answer back; `body` when an override read it already. */
  passOn(req: http.IncomingMessage, res: http.ServerResponse, body?: Buffer): void {
    const upstream = http.request(
      { host: this.target.hostname, port: this.target.port, method: req.method, path: req.url, headers: req.headers },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      },
    );
    upstream.on('error', () => res.destroy());
    if (body) upstream.end(body);
    else req.pipe(upstream);
  }
}
