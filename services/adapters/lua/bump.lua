-- KEYS[1] generations hash, KEYS[2] the event's dedupe marker.
-- ARGV[1] dedupe ttl ms (0 = no dedupe), ARGV[2] hash keep-alive ms (0 = none),
-- ARGV[3] the event's spec_version, ARGV[4..] fields to bump.
-- Returns {0} for an already-applied event id, else {1, new generation per field}.
if ARGV[1] ~= '0' then
  if not redis.call('SET', KEYS[2], '1', 'NX', 'PX', ARGV[1]) then return {0} end
end
local out = {1}
local fresh = nil
for i = 4, #ARGV do
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
return out
