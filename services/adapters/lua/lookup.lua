-- KEYS[1] entry, KEYS[2] the product's generations hash.
-- Returns {1, body} when servable, {0} when absent, {2} when stale (deleted now).
local value = redis.call('GET', KEYS[1])
if not value then return {0} end
local fields, gens, nl = parse_header(value)
if not fields or not generations_match(KEYS[2], fields, gens) then
  redis.call('UNLINK', KEYS[1])
  return {2}
end
return {1, string.sub(value, nl + 1)}
