-- The in-flight records of one index shard whose lease ended by now, oldest lease first, at most limit.
-- Reads only. Index entries whose record is gone (a key expiry the reaper has not swept yet) are skipped.
-- KEYS: lease index
-- ARGV: now (µs or ''), limit, the shard's record key prefix
-- Reply: {{member, fingerprint, fence, generation, lease end (µs), has point 0/1, point name, point data}, …}
local now = now_us(clock_us())
local limit = tonumber(ARGV[2])
local found, offset = {}, 0
while #found < limit do
  local page = redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', fmt(now), 'LIMIT', offset, limit)
  if #page == 0 then
    break
  end
  for _, m in ipairs(page) do
    local r = redis.call('HMGET', ARGV[3] .. m, 's', 'fp', 'f', 'g', 'l', 'rp', 'rd')
    if #found < limit and r[1] == 'I' and tonumber(r[5]) <= now then
      found[#found + 1] = {m, r[2], tonumber(r[3]), tonumber(r[4]), tonumber(r[5]),
                           r[6] and 1 or 0, r[6] or '', r[7] or ''}
    end
  end
  offset = offset + #page
end
return found
