-- KEYS[1] entry, KEYS[2] generations hash; ARGV[1] ttl ms, ARGV[2] entry (header + body).
-- Writes only if the snapshot in the header still matches: 1 stored, 0 refused.
local fields, gens = parse_header(ARGV[2])
if not fields then return redis.error_reply('entry without generation header') end
if not generations_match(KEYS[2], fields, gens) then return 0 end
redis.call('SET', KEYS[1], ARGV[2], 'PX', ARGV[1])
return 1
