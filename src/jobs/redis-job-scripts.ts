/**
 * The Lua scripts of the Redis job store (src/jobs/redis-job-store.ts): each runs atomically in Redis, so a job's
 * creation with its idempotency key and reservation, a reservation's growth, and the compare-and-set writes of a
 * job's lease (renew, claim, release) and status can never interleave with another API process's.
 * A run's writes (progress, status, result segments, its reservation) carry its attempt (src/jobs/fencing.ts;
 * '' for a write that is no run's, such as a DELETE): the script checks it and writes in one step, or answers -1
 * (fenced) and writes nothing.
 */
import { FIRST_ATTEMPT } from './fencing.ts';

/** Lua: true when `attempt` is given (not '') and the job `job` exists and is on another attempt. */
const STALE = `
local function stale(job, attempt)
  if attempt == '' then return false end
  local h = redis.call('HMGET', job, 'status', 'attempt')
  if not h[1] then return false end
  return (h[2] or '${FIRST_ATTEMPT}') ~= attempt
end
`;

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

/**
 * Raises a job's reservation to ARGV[4] bytes if the others leave room: nil, or {used by the others}; -1 when the
 * job KEYS[3] is no longer on attempt ARGV[6].
 */
export const GROW_SCRIPT = `${LEDGER_SUM}${STALE}
if stale(KEYS[3], ARGV[6]) then return -1 end
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
 * Merges field/value pairs (ARGV[3..]) into the job KEYS[1] unless it reached a final status: then only a change to
 * cancelled (ARGV[1]) is taken. 1 when written, 0 when not (no such job, or its final status stays), -1 when fenced
 * (ARGV[2], the attempt).
 */
export const UPDATE_SCRIPT = `${STALE}
local status = redis.call('HGET', KEYS[1], 'status')
if not status then return 0 end
if stale(KEYS[1], ARGV[2]) then return -1 end
if status ~= 'queued' and status ~= 'running' and ARGV[1] ~= 'cancelled' then return 0 end
redis.call('HSET', KEYS[1], unpack(ARGV, 3))
return 1
`;

/** Appends the segment ARGV[3] to the result list KEYS[2] (expiring in ARGV[2] ms) of the job KEYS[1]: 1, or -1. */
export const APPEND_SCRIPT = `${STALE}
if stale(KEYS[1], ARGV[1]) then return -1 end
redis.call('RPUSH', KEYS[2], ARGV[3])
redis.call('PEXPIRE', KEYS[2], ARGV[2])
return 1
`;

/** Sets the job ARGV[1]'s ledger entry (KEYS[2]) to ARGV[3] bytes: 1, or -1 when the job KEYS[1] is fenced. */
export const SETTLE_SCRIPT = `${STALE}
if stale(KEYS[1], ARGV[2]) then return -1 end
redis.call('HSET', KEYS[2], ARGV[1], ARGV[3])
return 1
`;

/** Deletes the result lists KEYS[3..] and the ledger entry (KEYS[2]) of the job ARGV[1]: 1, or -1 when fenced. */
export const CLEAR_SCRIPT = `${STALE}
if stale(KEYS[1], ARGV[2]) then return -1 end
redis.call('DEL', unpack(KEYS, 3))
redis.call('HDEL', KEYS[2], ARGV[1])
return 1
`;

/**
 * Compare-and-set of an unfinished job's instance: when the job KEYS[1] is queued or running and its instance is
 * ARGV[1] ('' for none), writes the field/value pairs ARGV[3..] and answers the job's attempt; else nil. With
 * ARGV[2] = '1' the job moves to its next attempt (claim, release: a hand-over); with '0' it stays (renew).
 */
export const TAKE_SCRIPT = `
local h = redis.call('HMGET', KEYS[1], 'status', 'instance', 'attempt')
if h[1] ~= 'queued' and h[1] ~= 'running' then return false end
if (h[2] or '') ~= ARGV[1] then return false end
local attempt = tonumber(h[3] or '${FIRST_ATTEMPT}')
if ARGV[2] == '1' then attempt = attempt + 1 end
redis.call('HSET', KEYS[1], 'attempt', attempt, unpack(ARGV, 3))
return attempt
`;
