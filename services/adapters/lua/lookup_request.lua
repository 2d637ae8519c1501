-- A request-layer lookup in one round trip: the pointer, then lookup.lua's guarded read
-- of the entry it names. KEYS[1] the request pointer (digest -> product); when guarded
-- also KEYS[2] the replica record and KEYS[3] the coherence lease. The entry and
-- generations keys are built here around the product (ARGV[1] .. product .. ARGV[2],
-- ARGV[3] .. product .. ARGV[4]), so they are not declared: single-node Redis only (on
-- a cluster they live in the product's slot and the adapter makes two calls).
-- Returns {0} without a pointer, else lookup.lua's replies.
local product = redis.call('GET', KEYS[1])
if not product then return {0} end
local seq, epoch = '0', '0'
if #KEYS >= 3 then
  seq, epoch = leased_position(KEYS[2], KEYS[3])
  if not seq then return {3} end
end
return read_entry(ARGV[1] .. product .. ARGV[2], ARGV[3] .. product .. ARGV[4], seq, epoch)
