-- KEYS[1] entry, KEYS[2] the product's generations hash; when guarded also KEYS[3] the
-- replica record and KEYS[4] the coherence lease (set only by a worker that verified the
-- record against the consumer group's committed offsets).
-- Returns {3} when unguarded-for-now (no lease: Redis may be behind the log), else
-- {status, body or '', seq, epoch}: status 1 servable, 0 absent, 2 stale (deleted now).
local seq, epoch = '0', '0'
if #KEYS >= 4 then
  if redis.call('EXISTS', KEYS[4]) == 0 then return {3} end
  local r = redis.call('HMGET', KEYS[3], '_seq', '_epoch')
  seq, epoch = r[1] or '0', r[2] or '0'
end
local value = redis.call('GET', KEYS[1])
if not value then return {0, '', seq, epoch} end
local fields, gens, nl = parse_header(value)
if not fields or not generations_match(KEYS[2], fields, gens) then
  redis.call('UNLINK', KEYS[1])
  return {2, '', seq, epoch}
end
return {1, string.sub(value, nl + 1), seq, epoch}
