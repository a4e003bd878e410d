/**
 * The Lua scripts of the Redis job store (src/jobs/redis-job-store.ts): each runs atomically in Redis, so a job's
 * creation with its idempotency key and reservation, a reservation's growth, and the compare-and-set writes of a
 * job's lease (renew, claim, release) and status can never interleave with another API process's.
 */

/** Lua: sums the ledger (KEYS[ledger]) after dropping entries of jobs gone from the index (KEYS[index]). */
const LEDGER_SUM = `
local function ledger_sum(index, ledger, now, except)
  local used = 0
  local entries = redis.call('HGETALL', ledger)
  for i = 1, #entries, 2 do
    local score = redis.call('ZSCORE', index, entries[i])
    if (not score) or tonumber(score) < now then
      redis.call('HDEL', ledger, entries[i])
    elseif entries[i] ~= except then
      used = used + tonumber(entries[i + 1])
    end
  end
  return used
end
`;

/**
 * Create-or-return-existing, atomically: the idempotency key, the job and its result reservation appear together
 * or not at all. Returns the existing job id, {used} when the reservation does not fit, or nil when created.
 */
export const CREATE_SCRIPT = `${LEDGER_SUM}
local existing = redis.call('GET', KEYS[1])
if existing then return existing end
local reserve = tonumber(ARGV[6])
if reserve > 0 then
  local used = ledger_sum(KEYS[3], KEYS[4], tonumber(ARGV[4]), '')
  if used + reserve > tonumber(ARGV[5]) then return {used} end
  redis.call('HSET', KEYS[4], ARGV[1], reserve)
  redis.call('PEXPIRE', KEYS[4], ARGV[2])
end
if KEYS[1] ~= KEYS[2] then redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2]) end
for i = 7, #ARGV, 2 do redis.call('HSET', KEYS[2], ARGV[i], ARGV[i + 1]) end
redis.call('PEXPIRE', KEYS[2], ARGV[2])
redis.call('ZADD', KEYS[3], ARGV[3], ARGV[1])
redis.call('PEXPIRE', KEYS[3], ARGV[2])
return false
`;

/** Raises a job's reservation to ARGV[4] bytes if the others leave room: nil, or {used by the others}. */
export const GROW_SCRIPT = `${LEDGER_SUM}
local used = ledger_sum(KEYS[1], KEYS[2], tonumber(ARGV[2]), ARGV[1])
if used + tonumber(ARGV[4]) > tonumber(ARGV[3]) then return {used} end
redis.call('HSET', KEYS[2], ARGV[1], ARGV[4])
redis.call('PEXPIRE', KEYS[2], ARGV[5])
return false
`;

/** Deletes the idempotency key KEYS[1] if it still names job ARGV[1] (a released key another submission may take). */
export const RELEASE_KEY_SCRIPT = `
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end
return 0
`;

/** The ledger's total (pruned). */
export const SUM_SCRIPT = `${LEDGER_SUM}
return ledger_sum(KEYS[1], KEYS[2], tonumber(ARGV[1]), '')
`;

/**
 * Merges field/value pairs (ARGV[2..]) into the job KEYS[1] unless it reached a final status: then only a change to
 * cancelled (ARGV[1]) is taken. 1 when written, 0 when not (no such job, or its final status stays).
 */
export const UPDATE_SCRIPT = `
local status = redis.call('HGET', KEYS[1], 'status')
if not status then return 0 end
if status ~= 'queued' and status ~= 'running' and ARGV[1] ~= 'cancelled' then return 0 end
redis.call('HSET', KEYS[1], unpack(ARGV, 2))
return 1
`;

/**
 * Compare-and-set of an unfinished job's instance: when the job KEYS[1] is queued or running and its instance is
 * ARGV[1] ('' for none), writes the field/value pairs ARGV[2..] and answers 1; else 0. Renews a lease (the same
 * instance) or hands a job over (claim, release).
 */
export const TAKE_SCRIPT = `
local h = redis.call('HMGET', KEYS[1], 'status', 'instance')
if h[1] ~= 'queued' and h[1] ~= 'running' then return 0 end
if (h[2] or '') ~= ARGV[1] then return 0 end
redis.call('HSET', KEYS[1], unpack(ARGV, 2))
return 1
`;
