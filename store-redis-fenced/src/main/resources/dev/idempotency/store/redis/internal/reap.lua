-- One bounded batch of the reaper in one index shard, over the candidates due.lua listed: each re-checked
-- against its record, as it may have changed since. A completed record with completedAt <= now - retention and
-- an in-flight one whose lease ended by then are deleted (their fence counters stay: they expire by themselves);
-- an index entry whose record is gone or in the other state is dropped; one whose record moved on is re-scored.
-- A record a person keeps (its field k, epoch µs, after now; see extend.lua) stays, and stays in its index, which
-- findAbandoned and the listings read: it is counted as held, and the caller pages past the held candidates. Every
-- other candidate leaves the range due.lua lists, so repeated batches make progress.
-- KEYS: lease index, completion index, then per candidate its record hash
-- ARGV: now (µs or ''), retention (µs), limit, then per candidate its member and its index ('C' or 'I')
-- Reply: {how many records were deleted, how many candidates were held}
local now = now_us(clock_us())
local cutoff = now - tonumber(ARGV[2])
local limit = tonumber(ARGV[3])
local deleted = 0
local held = 0
for i = 3, #KEYS do
  if deleted >= limit then
    break
  end
  local rec, m, from = KEYS[i], ARGV[2 * i - 2], ARGV[2 * i - 1]
  local index, field = KEYS[1], 'l'
  if from == 'C' then
    index, field = KEYS[2], 'c'
  end
  local r = redis.call('HMGET', rec, 's', field, 'k')
  if r[1] ~= from then
    redis.call('ZREM', index, m)
  elseif tonumber(r[2]) <= cutoff and r[3] and now < tonumber(r[3]) then
    held = held + 1
  elseif tonumber(r[2]) <= cutoff then
    redis.call('DEL', rec)
    redis.call('ZREM', index, m)
    deleted = deleted + 1
  else
    redis.call('ZADD', index, r[2], m)
  end
end
return {deleted, held}
