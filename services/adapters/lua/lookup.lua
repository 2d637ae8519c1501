-- KEYS[1] entry, KEYS[2] the product's generations hash; when guarded also KEYS[3] the
-- replica record and KEYS[4] the coherence lease (set only by a worker that verified the
-- record against the consumer group's committed offsets).
-- Returns {3} when unguarded-for-now (no lease: Redis may be behind the log), else
-- {status, body or '', seq, epoch}: status 1 servable, 0 absent, 2 stale (deleted now).
local seq, epoch = '0', '0'
if #KEYS >= 4 then
  seq, epoch = leased_position(KEYS[3], KEYS[4])
  if not seq then return {3} end
end
return read_entry(KEYS[1], KEYS[2], seq, epoch)
