-- The claim: one atomic decision on the record, and on a win the next fence, in one script.
-- KEYS: record hash, fence counter, lease index, completion index (one hash tag: one slot)
-- ARGV: now (µs or ''), member, fingerprint, lease (µs), replay window (µs), record expiry (ms),
--       counter expiry (ms), the call's nonce
-- Reply: {'N', fence, generation, takeover 0/1 [, recovery point name, data]}  claimed
--        {'B', lease left (µs)}                                              in flight, live lease
--        {'C', status, headers, body, completed at (µs)}                     completed: replay
--        {'M', 'I' or 'C'}                                                   another fingerprint
local rec, ctr, leases, done = KEYS[1], KEYS[2], KEYS[3], KEYS[4]
local clock = clock_us()
local now = now_us(clock)
local member, fp = ARGV[2], ARGV[3]
local lease, window = tonumber(ARGV[4]), tonumber(ARGV[5])
local nonce = ARGV[8]

local r = redis.call('HMGET', rec, 's', 'fp', 'f', 'g', 'l', 'c', 'rp', 'rd', 'n')
local state = r[1]

-- This very call ran already: the client re-sent it after a connection dropped before the reply (Lettuce
-- re-sends what it wrote but was not answered). The record still holds the call's nonce, so nothing
-- happened since: the reply is the one it gave the first time. A fresh claim's generation is its fence;
-- a takeover's fence is above the generation it kept.
if state == 'I' and r[9] == nonce then
  local takeover = r[3] ~= r[4]
  if takeover and r[7] then
    return {'N', tonumber(r[3]), tonumber(r[4]), 1, r[7], r[8]}
  end
  return {'N', tonumber(r[3]), tonumber(r[4]), takeover and 1 or 0}
end

local takeover = false
if state == 'C' and now < tonumber(r[6]) + window then
  if r[2] ~= fp then
    return {'M', 'C'}
  end
  local c = redis.call('HMGET', rec, 'st', 'h', 'b')
  return {'C', tonumber(c[1]), c[2], c[3], tonumber(r[6])}
elseif state == 'I' then
  -- the fingerprint before the lease: only the same request may take an abandoned record over
  if r[2] ~= fp then
    return {'M', 'I'}
  end
  local expires = tonumber(r[5])
  if now < expires then
    -- judged by the server's clock, the lease left is a hint: a clock stepped back must not make it
    -- longer than the asking claim's lease
    if ARGV[1] == '' then
      return {'B', math.min(expires - now, lease)}
    end
    return {'B', expires - now}
  end
  takeover = true
end
-- otherwise absent (never claimed, released, purged, expired) or completed past the asking claim's window

-- The fence: above the counter (which outlives the record), above the record's own fence, and at least the
-- server's clock in µs, so that a key whose counter is gone (expired, a restart without persistence, a failover
-- to a replica that missed the last increments) still gets a fence above every earlier one, unless the server's
-- clock stepped back by more than the time since that fence was issued.
local fence = clock
local last = redis.call('GET', ctr)
if last then
  fence = math.max(fence, tonumber(last) + 1)
end
if state then
  fence = math.max(fence, tonumber(r[3]) + 1)
end
local f = fmt(fence)
redis.call('SET', ctr, f, 'PX', ARGV[7])

local expires = fmt(now + lease)
if takeover then
  redis.call('HSET', rec, 'f', f, 'l', expires, 'n', nonce)
else
  redis.call('DEL', rec)
  redis.call('HSET', rec, 's', 'I', 'fp', fp, 'f', f, 'g', f, 'l', expires, 'n', nonce)
  redis.call('ZREM', done, member)
end
expire(rec, ARGV[6], now)
redis.call('ZADD', leases, expires, member)
if not takeover then
  return {'N', fence, fence, 0}
end
if r[7] then
  return {'N', fence, tonumber(r[4]), 1, r[7], r[8]}
end
return {'N', fence, tonumber(r[4]), 1}
