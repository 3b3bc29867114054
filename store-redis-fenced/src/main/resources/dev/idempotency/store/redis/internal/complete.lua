-- The completion, under the fence: the response, the completion time, from the lease index to the
-- completion index. The recovery point stays, as the snapshot reports it.
-- KEYS: record hash, lease index, completion index
-- ARGV: now (µs or ''), member, fence, status, headers, body, record expiry (ms)
-- Reply: {completed at (µs)} done, {why} refused
local why = refusal(KEYS[1], ARGV[3])
if why then
  return {why}
end
local now = now_us(clock_us())
local c = fmt(now)
redis.call('HSET', KEYS[1], 's', 'C', 'c', c, 'st', ARGV[4], 'h', ARGV[5], 'b', ARGV[6])
redis.call('HDEL', KEYS[1], 'l')
redis.call('PEXPIRE', KEYS[1], ARGV[7])
redis.call('ZREM', KEYS[2], ARGV[2])
redis.call('ZADD', KEYS[3], c, ARGV[2])
return {now}
