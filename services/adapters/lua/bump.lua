-- KEYS[1] generations hash, KEYS[2] the event's dedupe marker, KEYS[3] the replica record
-- (absent when unguarded: Redis Cluster).
-- ARGV[1] dedupe ttl ms (0 = no dedupe), ARGV[2] hash keep-alive ms (0 = none),
-- ARGV[3] the event's spec_version, ARGV[4] 'o:<topic>:<partition>' ('' = no position),
-- ARGV[5] the record's offset, ARGV[6] the offset the record must already hold,
-- ARGV[7..] fields to bump.
-- Returns {-1, held} when the record lost writes (nothing done), {0} for an
-- already-applied event, else {1, new generation per field}.
local fields = {}
for i = 7, #ARGV do fields[#fields + 1] = ARGV[i] end
return apply_bump(KEYS[1], KEYS[2], KEYS[3], ARGV[1], ARGV[2], ARGV[3], ARGV[4], ARGV[5],
                  ARGV[6], fields)
