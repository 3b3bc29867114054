-- The completion, under the fence: the response, the completion time, from the lease index to the
-- completion index. The recovery point stays, as the snapshot reports it.
-- KEYS: record hash, lease index, completion index, fence counter
-- ARGV: now (µs or ''), member, fence, status, headers, body, record expiry (ms), the call's nonce,
--       counter expiry (ms)
-- Reply: {completed at (µs)} done, {why} refused
local r = redis.call('HMGET', KEYS[1], 's', 'n', 'c')
if r[1] == 'C' and r[2] == ARGV[8] then
  -- this very call ran already and the client re-sent it (see claim.lua): done, as the first time said
  return {tonumber(r[3])}
end
local why = refusal(KEYS[1], ARGV[3])
if why then
  return {why}
end
local now = now_us(clock_us())
local c = fmt(now)
redis.call('HSET', KEYS[1], 's', 'C', 'c', c, 'st', ARGV[4], 'h', ARGV[5], 'b', ARGV[6], 'n', ARGV[8])
redis.call('HDEL', KEYS[1], 'l')
expire(KEYS[1], ARGV[7], now)
keep_counter(KEYS[4], ARGV[3], ARGV[9])
redis.call('ZREM', KEYS[2], ARGV[2])
redis.call('ZADD', KEYS[3], c, ARGV[2])
return {now}
