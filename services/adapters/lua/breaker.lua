-- KEYS[1] a key's miss counter; ARGV[1] window ms.
-- Counts one miss in the current window. Returns {misses in the window, ms left in it}.
local n = redis.call('INCR', KEYS[1])
local ttl = redis.call('PTTL', KEYS[1])
if ttl < 0 then
  redis.call('PEXPIRE', KEYS[1], ARGV[1])
  ttl = tonumber(ARGV[1])
end
return {n, ttl}
