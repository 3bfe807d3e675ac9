// Each operation is one Lua script: Redis runs a script atomically, so the
// read-check-write of a claim or a state change cannot interleave with
// another instance's. Time comes from the server (TIME), never from the
// callers' clocks, which may disagree.

const NOW_MS = `local t = redis.call('TIME') local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)`;

/**
 * KEYS[1] event key, KEYS[2] the store-wide token counter; ARGV lease ms, retention ms
 * -> {'claimed', token, lease expiry ms} | {'processing', lease expiry ms} | {'done'}.
 */
export const CLAIM_EVENT = `${NOW_MS}
local state = redis.call('HGET', KEYS[1], 'state')
if state == 'done' then return {'done'} end
if state == 'processing' then
  local lease = tonumber(redis.call('HGET', KEYS[1], 'lease'))
  if lease > now then return {'processing', lease} end
end
local token = redis.call('INCR', KEYS[2])
local lease = now + tonumber(ARGV[1])
redis.call('HSET', KEYS[1], 'state', 'processing', 'token', token, 'lease', lease)
redis.call('PEXPIRE', KEYS[1], ARGV[2])
return {'claimed', token, lease}`;

// The holder's token must still be current and its lease still running.
const HOLDS_LEASE = `${NOW_MS}
local fields = redis.call('HMGET', KEYS[1], 'state', 'token', 'lease')
if fields[1] ~= 'processing' or fields[2] ~= ARGV[1] or tonumber(fields[3]) <= now then return 0 end`;

/** KEYS[1] event key; ARGV token, retention ms -> 1 when this token held a live lease. */
export const COMPLETE_EVENT = `${HOLDS_LEASE}
redis.call('HSET', KEYS[1], 'state', 'done')
redis.call('PEXPIRE', KEYS[1], ARGV[2])
return 1`;

/**
 * KEYS[1] event key; ARGV token, lease ms, retention ms -> 1 when this token
 * held a live lease, now renewed to lease ms from the server's time.
 */
export const EXTEND_EVENT = `${HOLDS_LEASE}
redis.call('HSET', KEYS[1], 'lease', now + tonumber(ARGV[2]))
if redis.call('PTTL', KEYS[1]) < tonumber(ARGV[2]) + tonumber(ARGV[3]) then
  redis.call('PEXPIRE', KEYS[1], tonumber(ARGV[2]) + tonumber(ARGV[3]))
end
return 1`;

/** KEYS[1] event key; ARGV token -> 1 when this token held a live lease. */
export const RELEASE_EVENT = `${HOLDS_LEASE}
redis.call('HSET', KEYS[1], 'state', 'released')
return 1`;

/** KEYS intent key, open set; ARGV intent id, key, fingerprint -> the stored hash as a flat list. */
export const RECORD_INTENT = `${NOW_MS}
if redis.call('EXISTS', KEYS[1]) == 0 then
  redis.call('HSET', KEYS[1], 'intent_id', ARGV[1], 'idempotency_key', ARGV[2], 'body_fingerprint', ARGV[3],
    'state', 'recorded', 'created_at', now, 'updated_at', now)
  redis.call('ZADD', KEYS[2], now, ARGV[1])
end
return redis.call('HGETALL', KEYS[1])`;

/**
 * KEYS intent key, open set; ARGV intent id, new state, run id or '', failure or ''
 * -> 'unknown' | 'ok' | 'acknowledged:<run id>' (already acknowledged).
 */
export const CHANGE_INTENT = `${NOW_MS}
local state = redis.call('HGET', KEYS[1], 'state')
if not state then return 'unknown' end
if state == 'acknowledged' then return 'acknowledged:' .. redis.call('HGET', KEYS[1], 'run_id') end
redis.call('HSET', KEYS[1], 'state', ARGV[2], 'updated_at', now)
if ARGV[3] ~= '' then redis.call('HSET', KEYS[1], 'run_id', ARGV[3]) end
if ARGV[4] ~= '' then redis.call('HSET', KEYS[1], 'failure', ARGV[4]) else redis.call('HDEL', KEYS[1], 'failure') end
if ARGV[2] == 'sent' then redis.call('ZADD', KEYS[2], now, ARGV[1]) else redis.call('ZREM', KEYS[2], ARGV[1]) end
return 'ok'`;

/** KEYS open set; ARGV older-than ms, limit -> intent ids, oldest first. */
export const LIST_OPEN_INTENTS = `${NOW_MS}
return redis.call('ZRANGE', KEYS[1], '-inf', now - tonumber(ARGV[1]), 'BYSCORE', 'LIMIT', 0, tonumber(ARGV[2]))`;
