-- The release, under the fence: the record goes, its fence counter stays (and is kept for another full term).
-- KEYS: record hash, fence counter, lease index
-- ARGV: now (unused), member, fence, counter expiry (ms)
-- Reply: {} done, {why} refused
local why = refusal(KEYS[1], ARGV[3])
if why then
  return {why}
end
redis.call('DEL', KEYS[1])
redis.call('ZREM', KEYS[3], ARGV[2])
redis.call('PEXPIRE', KEYS[2], ARGV[4])
return {}
