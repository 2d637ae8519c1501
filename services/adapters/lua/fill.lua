-- KEYS[1] entry, KEYS[2] generations hash, KEYS[3] the product's entry index.
-- ARGV[1] ttl ms, ARGV[2] entry (header + body), ARGV[3] index member ('' = no index),
-- ARGV[4] index keep-alive ms. When guarded, KEYS[4] the replica record: a dataset
-- without one (flushed, replaced, not yet adopted by a worker) takes no entries, so
-- the worker can adopt an empty dataset without replaying the log.
-- Writes only if the snapshot in the header still matches: 1 stored, 0 refused.
local fields, gens = parse_header(ARGV[2])
if not fields then return redis.error_reply('entry without generation header') end
if #KEYS >= 4 and redis.call('EXISTS', KEYS[4]) == 0 then return 0 end
if not generations_match(KEYS[2], fields, gens) then return 0 end
redis.call('SET', KEYS[1], ARGV[2], 'PX', ARGV[1])
if ARGV[3] ~= '' then
  -- Index for the consistency checker and admin reads (never read on a request path):
  -- member → expiry time, expired members trimmed as new ones arrive.
  local t = redis.call('TIME')
  local now_ms = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
  redis.call('ZADD', KEYS[3], now_ms + tonumber(ARGV[1]), ARGV[3])
  redis.call('ZREMRANGEBYSCORE', KEYS[3], '-inf', now_ms)
  redis.call('PEXPIRE', KEYS[3], ARGV[4])
end
return 1
