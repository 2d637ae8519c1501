-- KEYS[1] the replica record. ARGV: triples ('o:<topic>:<partition>', offset handled,
-- offset the record must already hold), for records that bumped nothing (dead letters,
-- duplicates) or as a batch's last word.
-- Returns {1} or {-1, tp, held} when the record lost writes (nothing recorded).
for i = 1, #ARGV, 3 do
  if not replica_intact(KEYS[1], ARGV[i], ARGV[i + 2]) then
    return {-1, ARGV[i], redis.call('HGET', KEYS[1], ARGV[i]) or '-1'}
  end
end
for i = 1, #ARGV, 3 do record_applied(KEYS[1], ARGV[i], ARGV[i + 1]) end
return {1}
