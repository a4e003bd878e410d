/**
 * `sor token …`: the access tokens of a service running with AUTH_MODE=required (docs/security.md, "Access control"). Uses the
 * service's own configuration: tokens in Redis with REDIS_URL (and REDIS_PREFIX), else in AUTH_TOKENS_FILE; new
 * tokens get the AUTH_TOKEN_PREFIX environment.
 *
 *   sor token create --name NAME [--expires 90d|12h|never] [--rate 600/min]
 *        prints the token ONCE on stdout (details on stderr); only its sha256 is stored. Default expiry 90d.
 *   sor token list      id, name, environment, created, expires, state, rate (never a token or its hash)
 *   sor token revoke ID the token answers revoked_token (403) from then on (file store: within a second)
 */
import { parseArgs } from 'node:util';
import { loadConfig, type Config } from '../config.ts';
import { generateToken, generateTokenId, TOKEN_ID_PATTERN, tokenHash } from '../auth/token.ts';
import { parseRate, formatRate } from '../auth/rate.ts';
import type { TokenRecord, TokenStore } from '../auth/token-store.ts';
import { tokenStoreFor } from '../api/access-control.ts';
import { redisFromConfig, waitReady, type RedisConnections } from '../redis.ts';
import { EXIT_FAILURE, EXIT_OK } from './exit-codes.ts';
import { UsageError, type CliIo } from './io.ts';

const EXPIRES = /^([1-9]\d{0,4})([dh])$/;

/** `90d` → ms; `never` → null. */
export function parseExpiry(text: string): number | null {
  if (text === 'never') return null;
  const m = EXPIRES.exec(text);
  if (!m) throw new UsageError('--expires must be a number of days or hours (90d, 12h) or never');
  return Number(m[1]) * (m[2] === 'd' ? 86_400_000 : 3_600_000);
}

function stateOf(t: TokenRecord, now: number): string {
  if (t.revoked_at !== null) return `revoked ${t.revoked_at}`;
  if (t.expires_at !== null && Date.parse(t.expires_at) <= now) return 'expired';
  return 'active';
}

/** The service's own token store (the same decision as the API's), its Redis connected first when it has one. */
async function openStore(config: Config): Promise<{ store: TokenStore; redis?: RedisConnections }> {
  const redis = redisFromConfig(config, 'sor-cli');
  if (redis) {
    const client = redis.shared();
    client.on('error', () => undefined); // reported by waitReady / the command that fails
    try {
      await waitReady(client, 5000);
    } catch (err) {
      await redis.close();
      throw err;
    }
  }
  return { store: tokenStoreFor(config, redis), redis };
}

export async function tokenCommand(args: string[], io: CliIo): Promise<number> {
  const [sub, ...rest] = args;
  const { values, positionals } = parseArgs({
    args: rest,
    allowPositionals: true,
    options: { name: { type: 'string' }, expires: { type: 'string', default: '90d' }, rate: { type: 'string' } },
  });
  if (sub !== 'create' && sub !== 'list' && sub !== 'revoke') {
    throw new UsageError('sor token needs a subcommand: create, list or revoke');
  }
  const config = loadConfig(io.env);
  const now = new Date();
  let record: TokenRecord | undefined;
  let token: string | undefined;
  if (sub === 'create') {
    const name = values.name?.trim() ?? '';
    if (!/^[\x20-\x7e]{1,64}$/.test(name)) throw new UsageError('--name must be 1-64 visible ASCII characters');
    const ttl = parseExpiry(values.expires);
    const rate = values.rate === undefined ? undefined : parseRate(values.rate);
    if (values.rate !== undefined && !rate) throw new UsageError('--rate must be N/sec, N/min, N/hour or N/day');
    token = generateToken(config.AUTH_TOKEN_PREFIX);
    record = {
      id: generateTokenId(),
      name,
      hash: tokenHash(token),
      prefix: config.AUTH_TOKEN_PREFIX,
      created_at: now.toISOString(),
      expires_at: ttl === null ? null : new Date(now.getTime() + ttl).toISOString(),
      revoked_at: null,
      rate: rate ? formatRate(rate) : null,
    };
  } else if (sub === 'revoke' && (positionals.length !== 1 || !TOKEN_ID_PATTERN.test(positionals[0] ?? ''))) {
    throw new UsageError('sor token revoke needs one token id (tok_ and 16 hex digits; see sor token list)');
  }

  const { store, redis } = await openStore(config);
  try {
    if (sub === 'create' && record && token) {
      await store.create(record);
      io.stdout.write(`${token}\n`);
      io.stderr.write(
        `sor: token ${record.id} "${record.name}" created (${record.prefix}, expires ${record.expires_at ?? 'never'}, ` +
          `rate ${record.rate ?? (config.RATE_LIMIT ? `RATE_LIMIT ${config.RATE_LIMIT}` : 'none')}). ` +
          'It is shown only this once: store it now (only its sha256 is kept).\n',
      );
      return EXIT_OK;
    }
    if (sub === 'list') {
      const tokens = await store.list();
      const t = now.getTime();
      io.stdout.write('id\tname\tenvironment\tcreated\texpires\tstate\trate\n');
      for (const r of tokens) {
        io.stdout.write(
          `${r.id}\t${r.name}\t${r.prefix}\t${r.created_at}\t${r.expires_at ?? 'never'}\t${stateOf(r, t)}\t${r.rate ?? '-'}\n`,
        );
      }
      return EXIT_OK;
    }
    const id = positionals[0] as string;
    const revoked = await store.revoke(id, now);
    if (!revoked) {
      io.stderr.write(`sor: error: no token with id ${id}\n`);
      return EXIT_FAILURE;
    }
    io.stderr.write(`sor: token ${id} "${revoked.name}" revoked at ${revoked.revoked_at ?? now.toISOString()}\n`);
    return EXIT_OK;
  } finally {
    await store.close();
    await redis?.close();
  }
}
