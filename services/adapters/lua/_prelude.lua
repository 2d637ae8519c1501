-- Shared by every script (prepended at load). Parses an entry's generation header.
local function parse_header(value)
  local nl = string.find(value, '\n', 1, true)
  if not nl then return nil end
  local fields, gens = {}, {}
  for f, g in string.gmatch(string.sub(value, 1, nl - 1), '(%S+) (%S+)') do
    fields[#fields + 1] = f
    gens[#gens + 1] = g
  end
  if #fields == 0 then return nil end
  return fields, gens, nl
end

-- True when every field's current generation equals the stored one.
-- A missing field (hash evicted, expired or lost) never matches.
local function generations_match(gens_key, fields, gens)
  local current = redis.call('HMGET', gens_key, unpack(fields))
  for i = 1, #fields do
    if current[i] ~= gens[i] then return false end
  end
  return true
end

-- The guarded read of lookup and lookup_request: {status, body or '', seq, epoch},
-- status 1 servable, 0 absent, 2 stale (deleted now).
local function read_entry(entry_key, gens_key, seq, epoch)
  local value = redis.call('GET', entry_key)
  if not value then return {0, '', seq, epoch} end
  local fields, gens, nl = parse_header(value)
  if not fields or not generations_match(gens_key, fields, gens) then
    redis.call('UNLINK', entry_key)
    return {2, '', seq, epoch}
  end
  return {1, string.sub(value, nl + 1), seq, epoch}
end

-- The replica record's (seq, epoch) when the coherence lease is held, else nil (Redis
-- may be behind the log: nothing is served).
local function leased_position(record_key, lease_key)
  if redis.call('EXISTS', lease_key) == 0 then return nil end
  local r = redis.call('HMGET', record_key, '_seq', '_epoch')
  return r[1] or '0', r[2] or '0'
end

-- A fresh starting generation for a missing field: microseconds of server time, so a
-- recreated hash can never reproduce an old snapshot.
local function fresh_generation()
  local t = redis.call('TIME')
  return t[1] .. string.format('%06d', tonumber(t[2]))
end

-- The replica record (a hash: 'o:<topic>:<partition>' → highest offset whose effects this
-- dataset holds, '_seq' → sum of those advances, '_epoch' → when the record was created).
-- True when the record holds at least ``expected`` for ``tp`` (the worker's last recorded
-- position): less means the dataset lost writes or was rolled back.
local function replica_intact(record_key, tp, expected)
  if tp == '' then return true end
  local have = tonumber(redis.call('HGET', record_key, tp) or '-1')
  return have >= tonumber(expected)
end

-- Records that this dataset holds the effects of ``tp`` up to ``offset``. A dataset
-- without a record (empty, flushed, replaced) gets none here: the worker adopts it.
local function record_applied(record_key, tp, offset)
  if tp == '' or redis.call('EXISTS', record_key) == 0 then return end
  local old = tonumber(redis.call('HGET', record_key, tp) or '-1')
  local new = tonumber(offset)
  if new > old then
    redis.call('HSET', record_key, tp, offset)
    redis.call('HINCRBY', record_key, '_seq', new - old)
  end
end
