-- A recovery point and a new lease, under the fence. Applied twice (a re-sent script) it writes the same point
-- under the same fence again: the same as once.
-- KEYS: record hash, lease index, fence counter
-- ARGV: now (µs or ''), member, fence, lease (µs), record expiry (ms), point name, point data, counter expiry (ms)
-- Reply: {} done, {why} refused
local why = refusal(KEYS[1], ARGV[3])
if why then
  return {why}
end
local now = now_us(clock_us())
local expires = fmt(now + tonumber(ARGV[4]))
redis.call('HSET', KEYS[1], 'l', expires, 'rp', ARGV[6], 'rd', ARGV[7])
expire(KEYS[1], ARGV[5], now)
keep_counter(KEYS[3], ARGV[3], ARGV[8])
redis.call('ZADD', KEYS[2], expires, ARGV[2])
return {}
