-- The withdrawal of a claim the store reports as failed (its replicas did not confirm it): under the claim's
-- fence, a fresh claim is undone as a release would (the record goes, its counter stays); a takeover's lease
-- ends now, its generation and recovery point kept, so that the retry takes it over at once.
-- KEYS: record hash, fence counter, lease index
-- ARGV: now (µs or ''), member, fence, counter expiry (ms)
-- Reply: {} done, {why} refused (another call changed the record meanwhile: it is theirs)
local why = refusal(KEYS[1], ARGV[3])
if why then
  return {why}
end
if redis.call('HGET', KEYS[1], 'g') == ARGV[3] then
  redis.call('DEL', KEYS[1])
  redis.call('ZREM', KEYS[3], ARGV[2])
else
  local now = fmt(now_us(clock_us()))
  redis.call('HSET', KEYS[1], 'l', now)
  redis.call('HDEL', KEYS[1], 'n')
  redis.call('ZADD', KEYS[3], now, ARGV[2])
end
keep_counter(KEYS[2], ARGV[3], ARGV[4])
return {}
