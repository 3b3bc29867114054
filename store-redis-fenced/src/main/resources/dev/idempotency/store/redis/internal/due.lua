-- The members of one or more indexes whose score (lease end, completion time) is at or before a cutoff: the
-- candidates the reaper and findAbandoned then read or act on, each re-checked against its record.
-- KEYS: indexes, in the order to take them
-- ARGV: now (µs or ''), how far before now the cutoff is (µs), how many members at most, offset in the first index
-- Reply: {cutoff (µs), {members of KEYS[1]}, {members of KEYS[2]}, …}
local cutoff = now_us(clock_us()) - tonumber(ARGV[2])
local left, offset = tonumber(ARGV[3]), tonumber(ARGV[4])
local out = {cutoff}
for i = 1, #KEYS do
  local page = {}
  if left > 0 then
    page = redis.call('ZRANGEBYSCORE', KEYS[i], '-inf', fmt(cutoff), 'LIMIT', offset, left)
  end
  left = left - #page
  offset = 0
  out[i + 1] = page
end
return out
