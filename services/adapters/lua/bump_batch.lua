-- The bumps of one fetched batch in one call (a single-node Redis: the keys of many
-- products), each exactly as bump.lua applies it, in order.
-- KEYS[1] the replica record when ARGV[3] is '1' (else an unused placeholder), then per
-- bump: its generations hash and its event's dedupe marker.
-- ARGV[1] dedupe ttl ms, ARGV[2] hash keep-alive ms, ARGV[3] '1' guarded / '0', then per
-- bump: spec_version, 'o:<topic>:<partition>' ('' = no position), offset, the offset the
-- record must already hold, the number of fields, the fields.
-- Returns one reply per bump, as bump.lua's.
local record = nil
if ARGV[3] == '1' then record = KEYS[1] end
local out = {}
local a, k = 4, 2
while a <= #ARGV do
  local n = tonumber(ARGV[a + 4])
  local fields = {}
  for i = 1, n do fields[i] = ARGV[a + 4 + i] end
  out[#out + 1] = apply_bump(KEYS[k], KEYS[k + 1], record, ARGV[1], ARGV[2], ARGV[a],
                             ARGV[a + 1], ARGV[a + 2], ARGV[a + 3], fields)
  a = a + 5 + n
  k = k + 2
end
return out
