-- KEYS[1] generations hash, KEYS[2] the event's dedupe marker, KEYS[3] the replica record
-- (absent when unguarded: Redis Cluster).
-- ARGV[1] dedupe ttl ms (0 = no dedupe), ARGV[2] hash keep-alive ms (0 = none),
-- ARGV[3] the event's spec_version, ARGV[4] 'o:<topic>:<partition>' ('' = no position),
-- ARGV[5] the record's offset, ARGV[6] the offset the record must already hold,
-- ARGV[7..] fields to bump.
-- Returns {-1, held} when the record lost writes (nothing done), {0} for an
-- already-applied event, else {1, new generation per field}.
local guarded = #KEYS >= 3 and ARGV[4] ~= ''
if guarded and not replica_intact(KEYS[3], ARGV[4], ARGV[6]) then
  return {-1, redis.call('HGET', KEYS[3], ARGV[4]) or '-1'}
end
if ARGV[1] ~= '0' then
  if not redis.call('SET', KEYS[2], '1', 'NX', 'PX', ARGV[1]) then
    if guarded then record_applied(KEYS[3], ARGV[4], ARGV[5]) end
    return {0}
  end
end
local out = {1}
local fresh = nil
for i = 7, #ARGV do
  if redis.call('HEXISTS', KEYS[1], ARGV[i]) == 0 then
    fresh = fresh or fresh_generation()
    redis.call('HSET', KEYS[1], ARGV[i], fresh)
  end
  out[#out + 1] = redis.call('HINCRBY', KEYS[1], ARGV[i], 1)
end
-- Highest spec version applied so far (read by the consistency checker).
local applied = tonumber(redis.call('HGET', KEYS[1], '_spec_version') or '-1')
if tonumber(ARGV[3]) > applied then redis.call('HSET', KEYS[1], '_spec_version', ARGV[3]) end
if ARGV[2] ~= '0' then redis.call('PEXPIRE', KEYS[1], ARGV[2]) end
if guarded then record_applied(KEYS[3], ARGV[4], ARGV[5]) end
return out
