-- Heartbeats of many records of one index shard in one script: each renewed only under its own fence.
-- KEYS: lease index, then one record hash per lease
-- ARGV: now (µs or ''), lease (µs), record expiry (ms), then per lease its member and its fence
-- Reply: {i, why, i, why, …} for the refused leases (i counts from 1); empty when every lease was renewed
local leases = KEYS[1]
local expires = fmt(now_us(clock_us()) + tonumber(ARGV[2]))
local refused = {}
for i = 2, #KEYS do
  local member, f = ARGV[2 + 2 * (i - 1)], ARGV[3 + 2 * (i - 1)]
  local why = refusal(KEYS[i], f)
  if why then
    refused[#refused + 1] = i - 1
    refused[#refused + 1] = why
  else
    redis.call('HSET', KEYS[i], 'l', expires)
    redis.call('PEXPIRE', KEYS[i], ARGV[3])
    redis.call('ZADD', leases, expires, member)
  end
end
return refused
