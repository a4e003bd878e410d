/**
 * Where tokens live: only their sha256 and what the service needs to decide (id, name, environment, creation,
 * expiry, revocation, rate limit). Never the token itself.
 *  - FileTokenStore (no REDIS_URL): one JSON file (AUTH_TOKENS_FILE), written atomically (a temporary file 0600 in
 *    the same folder, then rename) in a folder created 0700. The API re-reads it when its size or modification
 *    time changes (a known token at most once per FILE_RECHECK_MS, an unknown one at every lookup), so a token
 *    created by `sor token` works at once and a revoked one is refused within a second, without a restart.
 *  - RedisTokenStore (REDIS_URL): `${prefix}:auth:token:<sha256>` hashes and the index `${prefix}:auth:tokens`
 *    (id → sha256), shared by every API replica and the CLI.
 */
import { randomUUID } from 'node:crypto';
import { chmod, mkdir, readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import type { Redis } from 'ioredis';
import type { TokenPrefix } from './token.ts';

export interface TokenRecord {
  id: string;
  name: string;
  /** sha256 of the token, hex. */
  hash: string;
  prefix: TokenPrefix;
  created_at: string;
  /** null: never expires. */
  expires_at: string | null;
  revoked_at: string | null;
  /** `600/min`; null: the service's RATE_LIMIT (or none). */
  rate: string | null;
}

export interface TokenStore {
  readonly kind: 'file' | 'redis';
  create(record: TokenRecord): Promise<void>;
  /** Every token, oldest first. */
  list(): Promise<TokenRecord[]>;
  findByHash(hash: string): Promise<TokenRecord | undefined>;
  /** Marks the token revoked (kept, so a revoked token answers revoked_token); undefined for an unknown id. */
  revoke(id: string, at: Date): Promise<TokenRecord | undefined>;
  close(): Promise<void>;
}

/** How often the API looks at the token file's size and modification time. */
export const FILE_RECHECK_MS = 1000;

interface TokenFile {
  version: 1;
  tokens: TokenRecord[];
}

export class FileTokenStore implements TokenStore {
  readonly kind = 'file' as const;
  readonly path: string;
  #cache: { byHash: Map<string, TokenRecord>; stamp: string } | undefined;
  #checkedAt = 0;

  constructor(path: string) {
    this.path = path;
  }

  async #read(): Promise<TokenRecord[]> {
    let text: string;
    try {
      text = await readFile(this.path, 'utf8');
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return [];
      throw err;
    }
    const parsed = JSON.parse(text) as Partial<TokenFile>;
    if (parsed.version !== 1 || !Array.isArray(parsed.tokens)) {
      throw new Error(`${this.path} is not a token file of this service`);
    }
    return parsed.tokens;
  }

  async #write(tokens: TokenRecord[]): Promise<void> {
    const dir = dirname(this.path);
    await mkdir(dir, { recursive: true, mode: 0o700 });
    const tmp = join(dir, `.tokens-${process.pid}-${randomUUID()}.tmp`);
    const body: TokenFile = { version: 1, tokens };
    try {
      await writeFile(tmp, `${JSON.stringify(body, null, 2)}\n`, { mode: 0o600, flag: 'wx' });
      await chmod(tmp, 0o600);
      await rename(tmp, this.path);
    } catch (err) {
      await rm(tmp, { force: true });
      throw err;
    }
    this.#cache = undefined;
  }

  async create(record: TokenRecord): Promise<void> {
    const tokens = await this.#read();
    await this.#write([...tokens, record]);
  }

  list(): Promise<TokenRecord[]> {
    return this.#read();
  }

  async findByHash(hash: string): Promise<TokenRecord | undefined> {
    // A known token is served from the cache for up to FILE_RECHECK_MS (revocations apply within a second); an
    // unknown one always looks at the file first (a stat; read again only when it changed), so a token created a
    // moment ago works at once.
    const now = Date.now();
    const cached = this.#cache?.byHash.get(hash);
    if (cached && now - this.#checkedAt < FILE_RECHECK_MS) return cached;
    this.#checkedAt = now;
    const s = await stat(this.path).catch((err: NodeJS.ErrnoException) => {
      if (err.code === 'ENOENT') return undefined;
      throw err;
    });
    const stamp = s === undefined ? 'none' : `${s.size}:${s.mtimeMs}:${s.ino}`;
    if (this.#cache?.stamp !== stamp) {
      const tokens = s === undefined ? [] : await this.#read();
      this.#cache = { byHash: new Map(tokens.map((t) => [t.hash, t])), stamp };
    }
    return this.#cache?.byHash.get(hash);
  }

  async revoke(id: string, at: Date): Promise<TokenRecord | undefined> {
    const tokens = await this.#read();
    const found = tokens.find((t) => t.id === id);
    if (!found) return undefined;
    found.revoked_at ??= at.toISOString();
    await this.#write(tokens);
    return found;
  }

  async close(): Promise<void> {}
}

const FIELDS = ['id', 'name', 'hash', 'prefix', 'created_at', 'expires_at', 'revoked_at', 'rate'] as const;

function toRecord(h: Record<string, string>): TokenRecord | undefined {
  if (!h.id || !h.hash) return undefined;
  const orNull = (v: string | undefined) => (v === undefined || v === '' ? null : v);
  return {
    id: h.id,
    name: h.name ?? '',
    hash: h.hash,
    prefix: h.prefix === 'svc_test_' ? 'svc_test_' : 'svc_live_',
    created_at: h.created_at ?? '',
    expires_at: orNull(h.expires_at),
    revoked_at: orNull(h.revoked_at),
    rate: orNull(h.rate),
  };
}

export class RedisTokenStore implements TokenStore {
  readonly kind = 'redis' as const;
  readonly #redis: Redis;
  readonly #prefix: string;

  constructor(redis: Redis, prefix: string) {
    this.#redis = redis;
    this.#prefix = prefix;
  }

  #tokenKey(hash: string): string {
    return `${this.#prefix}:auth:token:${hash}`;
  }
  #indexKey(): string {
    return `${this.#prefix}:auth:tokens`;
  }

  async create(record: TokenRecord): Promise<void> {
    const fields = FIELDS.flatMap((f) => [f, record[f] ?? '']);
    await this.#redis
      .multi()
      .hset(this.#tokenKey(record.hash), ...fields)
      .hset(this.#indexKey(), record.id, record.hash)
      .exec();
  }

  async list(): Promise<TokenRecord[]> {
    const index = await this.#redis.hgetall(this.#indexKey());
    const pipe = this.#redis.pipeline();
    for (const hash of Object.values(index)) pipe.hgetall(this.#tokenKey(hash));
    const rows = (await pipe.exec()) ?? [];
    const out: TokenRecord[] = [];
    for (const [err, value] of rows) {
      const record = err ? undefined : toRecord(value as Record<string, string>);
      if (record) out.push(record);
    }
    return out.sort((a, b) => a.created_at.localeCompare(b.created_at));
  }

  async findByHash(hash: string): Promise<TokenRecord | undefined> {
    return toRecord(await this.#redis.hgetall(this.#tokenKey(hash)));
  }

  async revoke(id: string, at: Date): Promise<TokenRecord | undefined> {
    const hash = await this.#redis.hget(this.#indexKey(), id);
    if (!hash) return undefined;
    const record = await this.findByHash(hash);
    if (!record) return undefined;
    if (record.revoked_at === null) {
      record.revoked_at = at.toISOString();
      await this.#redis.hset(this.#tokenKey(hash), 'revoked_at', record.revoked_at);
    }
    return record;
  }

  async close(): Promise<void> {
    // The connection belongs to whoever created it.
  }
}
