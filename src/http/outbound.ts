// The one way forgegate sends an HTTP request to a URL a user gave it (integrations, webhooks,
// alert tests): nothing else may open outgoing connections. It refuses loopback, private,
// link-local and other special addresses unless the administrator allows local networks,
// resolves the host once and connects to the address it checked (no DNS rebinding), follows no
// redirects, and bounds both time and response size.
import dns from 'node:dns/promises';
import fs from 'node:fs';
import { Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import http, { type IncomingHttpHeaders } from 'node:http';
import https from 'node:https';
import type { LookupFunction } from 'node:net';
import ipaddr from 'ipaddr.js';
import type { Db } from '../db/client.ts';
import { readSettings } from '../core/settings.ts';

export class OutboundError extends Error {
  constructor(
    readonly reason: 'blocked' | 'timeout' | 'too_large' | 'network',
    message: string,
  ) {
    super(message);
  }
}

export type OutboundRequest = {
  method?: 'GET' | 'POST' | 'PUT';
  headers?: Record<string, string>;
  body?: string | Buffer;
  /**
   * Whole request, connect to last byte; for a `saveTo` download, the longest silence (a bundle of a
   * gigabyte takes minutes on a slow link, and is alive while its bytes keep coming).
   */
  timeoutMs?: number;
  maxResponseBytes?: number;
  /**
   * A 2xx body goes to this file (created, mode 0600) instead of memory, within the same size
   * bound: large downloads (relation files, bundles) never become a buffer. The answer's `body` is then empty.
   */
  saveTo?: string;
};

export type OutboundResponse = { status: number; headers: IncomingHttpHeaders; body: Buffer };

export type OutboundPolicy = { allowLocal: boolean };

const DEFAULT_TIMEOUT_MS = 10_000;
const DEFAULT_MAX_RESPONSE_BYTES = 1024 * 1024;

/** Ranges only an administrator's "allow local requests" opens. */
const LOCAL_RANGES = new Set(['loopback', 'private', 'linkLocal', 'uniqueLocal', 'carrierGradeNat']);

/** The range of an address, with IPv4-mapped IPv6 (`::ffff:127.0.0.1`) judged as the IPv4 it is. */
function rangeOf(address: string): string {
  const parsed = ipaddr.parse(address);
  if (parsed.kind() === 'ipv6' && (parsed as ipaddr.IPv6).isIPv4MappedAddress()) {
    return (parsed as ipaddr.IPv6).toIPv4Address().range();
  }
  return parsed.range();
}

/** Whether a request may go to this address under the policy. */
export function addressAllowed(address: string, policy: OutboundPolicy): boolean {
  const range = rangeOf(address);
  if (range === 'unicast') return true;
  return policy.allowLocal && LOCAL_RANGES.has(range);
}

/** Every address the host resolves to must pass: a name that also points inside is refused. */
async function checkedAddress(hostname: string, policy: OutboundPolicy): Promise<{ address: string; family: number }> {
  const literal = hostname.replace(/^\[|\]$/g, '');
  const addresses = ipaddr.isValid(literal)
    ? [{ address: literal, family: ipaddr.parse(literal).kind() === 'ipv6' ? 6 : 4 }]
    : await dns.lookup(literal, { all: true, verbatim: true }).catch(() => {
        throw new OutboundError('network', `Host ${hostname} could not be resolved`);
      });
  if (!addresses.length) throw new OutboundError('network', `Host ${hostname} could not be resolved`);
  for (const { address } of addresses) {
    if (!addressAllowed(address, policy)) throw new OutboundError('blocked', 'Requests to the local network are not allowed');
  }
  return addresses[0];
}

/** The administrator's current choice, read from the database so every process honours it. */
export async function outboundPolicy(db: Db): Promise<OutboundPolicy> {
  const settings = await readSettings(db);
  return { allowLocal: settings.allowLocalRequestsFromWebHooksAndServices };
}

/** Sends one request under an explicit policy (tests and callers that already read it). */
export async function sendWithPolicy(url: string, request: OutboundRequest, policy: OutboundPolicy): Promise<OutboundResponse> {
  let target: URL;
  try {
    target = new URL(url);
  } catch {
    throw new OutboundError('blocked', 'URL is invalid');
  }
  if (target.protocol !== 'http:' && target.protocol !== 'https:') throw new OutboundError('blocked', 'Only http and https URLs are allowed');
  const pinned = await checkedAddress(target.hostname, policy);
  // The socket connects to the address that was checked, whatever DNS answers a moment later.
  const lookup: LookupFunction = (_host, options, callback) => {
    if ((options as { all?: boolean }).all) (callback as unknown as (e: null, a: { address: string; family: number }[]) => void)(null, [pinned]);
    else callback(null, pinned.address, pinned.family);
  };
  const client = target.protocol === 'https:' ? https : http;
  const maxBytes = request.maxResponseBytes ?? DEFAULT_MAX_RESPONSE_BYTES;
  return new Promise<OutboundResponse>((resolve, reject) => {
    const arm = () => setTimeout(() => req.destroy(new OutboundError('timeout', 'Request timed out')), request.timeoutMs ?? DEFAULT_TIMEOUT_MS);
    let timer = arm();
    const rearm = () => {
      clearTimeout(timer);
      timer = arm();
    };
    const settle =
      <T>(fn: (v: T) => void) =>
      (value: T) => {
        clearTimeout(timer);
        fn(value);
      };
    resolve = settle(resolve);
    reject = settle(reject);
    const req = client.request(target, { method: request.method ?? 'GET', headers: request.headers, lookup, agent: false }, (res) => {
      const status = res.statusCode ?? 0;
      if (request.saveTo && status >= 200 && status < 300) {
        pipeline(res, sizeBound(maxBytes, rearm), fs.createWriteStream(request.saveTo, { mode: 0o600 })).then(
          () => resolve({ status, headers: res.headers, body: Buffer.alloc(0) }),
          (error: Error) => {
            req.destroy();
            reject(error instanceof OutboundError ? error : new OutboundError('network', error.message));
          },
        );
        return;
      }
      const chunks: Buffer[] = [];
      let size = 0;
      res.on('data', (chunk: Buffer) => {
        size += chunk.length;
        if (size > maxBytes) {
          req.destroy(new OutboundError('too_large', `Response is larger than ${maxBytes} bytes`));
          return;
        }
        chunks.push(chunk);
      });
      res.on('end', () => resolve({ status, headers: res.headers, body: Buffer.concat(chunks) }));
      res.on('error', reject);
    });
    req.on('error', (error) => reject(error instanceof OutboundError ? error : new OutboundError('network', error.message)));
    req.end(request.body);
  });
}

/** Passes a body through, failing once it passes `maxBytes`; `onChunk` hears each chunk. */
function sizeBound(maxBytes: number, onChunk: () => void): Transform {
  let size = 0;
  return new Transform({
    transform(chunk: Buffer, _encoding, done) {
      onChunk();
      size += chunk.length;
      if (size > maxBytes) done(new OutboundError('too_large', `Response is larger than ${maxBytes} bytes`));
      else done(null, chunk);
    },
  });
}

/** Sends one request under the administrator's current policy. */
export async function sendOutbound(db: Db, url: string, request: OutboundRequest = {}): Promise<OutboundResponse> {
  return sendWithPolicy(url, request, await outboundPolicy(db));
}
