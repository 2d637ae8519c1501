-- KEYS[1] bucket hash {tokens, ts}; ARGV[1] capacity, ARGV[2] tokens added per second.
-- Takes one token. Returns {1, 0} when allowed, {0, ms until a token is back} otherwise.
local capacity = tonumber(ARGV[1])
local per_ms = tonumber(ARGV[2]) / 1000
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local state = redis.call('HMGET', KEYS[1], 'tokens', 'ts')
local tokens = tonumber(state[1]) or capacity
local last = tonumber(state[2]) or now
tokens = math.min(capacity, tokens + math.max(0, now - last) * per_ms)
local allowed, wait = 0, 0
if tokens >= 1 then
  tokens = tokens - 1
  allowed = 1
else
  wait = math.ceil((1 - tokens) / per_ms)
end
redis.call('HSET', KEYS[1], 'tokens', string.format('%.6f', tokens), 'ts', now)
-- A full bucket carries no information: let it expire once it would be full again.
redis.call('PEXPIRE', KEYS[1], math.ceil(capacity / per_ms) + 1000)
return {allowed, wait}
