-- KEYS[1] generations hash; ARGV[1] hash keep-alive ms (0 = none), ARGV[2..] fields.
-- Returns the current generation of each field, creating missing ones.
local fields = {}
for i = 2, #ARGV do fields[#fields + 1] = ARGV[i] end
local current = redis.call('HMGET', KEYS[1], unpack(fields))
local fresh = nil
for i = 1, #fields do
  if not current[i] then
    fresh = fresh or fresh_generation()
    redis.call('HSETNX', KEYS[1], fields[i], fresh)
    current[i] = fresh
  end
end
if ARGV[1] ~= '0' then redis.call('PEXPIRE', KEYS[1], ARGV[1]) end
return current
