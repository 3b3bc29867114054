-- One bounded batch of the reaper in one index shard: completed records with completedAt <= now - retention,
-- then in-flight records whose lease ended by then; their fence counters stay (they expire by themselves).
-- Index entries whose record is gone (swept by its key expiry) are dropped and not counted.
-- KEYS: lease index, completion index
-- ARGV: now (µs or ''), retention (µs), limit, the shard's record key prefix, most index entries to look at
-- Reply: {how many records were deleted}
local cutoff = now_us(clock_us()) - tonumber(ARGV[2])
local limit, prefix, budget = tonumber(ARGV[3]), ARGV[4], tonumber(ARGV[5])
local deleted = 0

local function sweep(index, state, field)
  while deleted < limit and budget > 0 do
    local page = redis.call('ZRANGEBYSCORE', index, '-inf', fmt(cutoff), 'LIMIT', 0, math.min(limit - deleted, budget))
    if #page == 0 then
      return
    end
    for _, m in ipairs(page) do
      budget = budget - 1
      local r = redis.call('HMGET', prefix .. m, 's', field)
      if r[1] ~= state then
        redis.call('ZREM', index, m)
      elseif tonumber(r[2]) <= cutoff then
        redis.call('DEL', prefix .. m)
        redis.call('ZREM', index, m)
        deleted = deleted + 1
      else
        redis.call('ZADD', index, r[2], m)
      end
    end
  end
end

sweep(KEYS[2], 'C', 'c')
sweep(KEYS[1], 'I', 'l')
return {deleted}
