-- The worker's check. KEYS[1] replica record, KEYS[2] coherence lease, KEYS[3] the hash
-- of partitions under recovery ('o:<topic>:<partition>' → worker).
-- ARGV[1] lease ms, ARGV[2] worker id, ARGV[3] '1' to start a new epoch (after a
-- recovery, so gateways that saw the lost sequence accept the repaired one),
-- ARGV[4..]: pairs ('o:<topic>:<partition>', the offset the record must hold: the last
-- committed or handled offset, -1 for none).
-- A dataset without a record is empty, flushed or replaced: fills need a record, so it
-- holds no entries, and it adopts the required offsets as its starting point.
-- Returns {lease set 0/1, adopted 0/1, epoch, then pairs (tp, held) for each behind}.
local adopted = 0
if redis.call('EXISTS', KEYS[1]) == 0 then
  redis.call('HSET', KEYS[1], '_epoch', fresh_generation(), '_seq', '0')
  for i = 4, #ARGV, 2 do redis.call('HSET', KEYS[1], ARGV[i], ARGV[i + 1]) end
  adopted = 1
elseif ARGV[3] == '1' then
  redis.call('HSET', KEYS[1], '_epoch', fresh_generation())
end
local out = {0, adopted, redis.call('HGET', KEYS[1], '_epoch')}
for i = 4, #ARGV, 2 do
  local held = redis.call('HGET', KEYS[1], ARGV[i]) or '-1'
  if tonumber(held) < tonumber(ARGV[i + 1]) then
    out[#out + 1] = ARGV[i]
    out[#out + 1] = held
    redis.call('HSET', KEYS[3], ARGV[i], ARGV[2])
  elseif string.sub(redis.call('HGET', KEYS[3], ARGV[i]) or '', 1, 14) ~= 'unrecoverable:' then
    -- (a partition whose lost records the log no longer holds stays blocked: operator)
    redis.call('HDEL', KEYS[3], ARGV[i])
  end
end
if #out > 3 or redis.call('HLEN', KEYS[3]) > 0 then
  redis.call('DEL', KEYS[2])
  return out
end
redis.call('SET', KEYS[2], ARGV[2], 'PX', ARGV[1])
out[1] = 1
return out
