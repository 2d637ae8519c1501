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

-- One event's bump (bump.lua, and each bump of bump_batch.lua): with ``record_key`` and a
-- ``tp``, refused ({-1, held}) when the record lost writes; {0} for an already-applied
-- event (dedupe marker ``seen_key``), else {1, new generation per field}.
local function apply_bump(gens_key, seen_key, record_key, dedupe_ms, keep_ms, spec_version,
                          tp, offset, held, fields)
  local guarded = record_key ~= nil and tp ~= ''
  if guarded and not replica_intact(record_key, tp, held) then
    return {-1, redis.call('HGET', record_key, tp) or '-1'}
  end
  if dedupe_ms ~= '0' then
    if not redis.call('SET', seen_key, '1', 'NX', 'PX', dedupe_ms) then
      if guarded then record_applied(record_key, tp, offset) end
      return {0}
    end
  end
  local out = {1}
  local fresh = nil
  for i = 1, #fields do
    if redis.call('HEXISTS', gens_key, fields[i]) == 0 then
      fresh = fresh or fresh_generation()
      redis.call('HSET', gens_key, fields[i], fresh)
    end
    out[#out + 1] = redis.call('HINCRBY', gens_key, fields[i], 1)
  end
  -- Highest spec version applied so far (read by the consistency checker).
  local applied = tonumber(redis.call('HGET', gens_key, '_spec_version') or '-1')
  if tonumber(spec_version) > applied then
    redis.call('HSET', gens_key, '_spec_version', spec_version)
  end
  if keep_ms ~= '0' then redis.call('PEXPIRE', gens_key, keep_ms) end
  if guarded then record_applied(record_key, tp, offset) end
  return out
end
