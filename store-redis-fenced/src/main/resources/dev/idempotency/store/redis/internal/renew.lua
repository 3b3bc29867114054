-- Heartbeats of many records of one index shard in one script: each renewed only under its own fence. Applied
-- twice (a re-sent script) it renews twice under the same fence: the same as once.
-- KEYS: lease index, then per lease its record hash and its fence counter
-- ARGV: now (µs or ''), lease (µs), record expiry (ms), counter expiry (ms), then per lease its member and fence
-- Reply: {i, why, i, why, …} for the refused leases (i counts from 1); empty when every lease was renewed
local leases = KEYS[1]
local now = now_us(clock_us())
local expires = fmt(now + tonumber(ARGV[2]))
local refused = {}
for i = 1, (#KEYS - 1) / 2 do
  local rec, ctr = KEYS[2 * i], KEYS[2 * i + 1]
  local member, f = ARGV[3 + 2 * i], ARGV[4 + 2 * i]
  local why = refusal(rec, f)
  if why then
    refused[#refused + 1] = i
    refused[#refused + 1] = why
  else
    redis.call('HSET', rec, 'l', expires)
    expire(rec, ARGV[3], now)
    keep_counter(ctr, f, ARGV[4])
    redis.call('ZADD', leases, expires, member)
  end
end
return refused
