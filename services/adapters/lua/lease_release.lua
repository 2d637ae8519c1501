-- KEYS[1] lease; ARGV[1] the owner's token. Deletes the lease only if the caller owns it.
if redis.call('GET', KEYS[1]) == ARGV[1] then
  return redis.call('DEL', KEYS[1])
end
return 0
